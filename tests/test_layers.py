"""The layers, read from the source: every import (inside functions too) points down.

* Every module lives in a layer folder -- ``core``, ``engine``, ``advice``, ``play``, then the
  surfaces ``cli`` and ``web`` -- and imports only from its own layer and those before it
  (``solver/__init__`` and ``__main__``, the package's front door, may import any; nothing
  imports the front door).
* The web app (``solver/web/``) imports no CLI module: it shares the package's functions, it
  never borrows the command line's.  The CLI imports the web app in one place: ``serve``.
* No cycles: the modules' import graph has none, not even through imports inside functions
  or imports under ``if TYPE_CHECKING:``.
* No module imports a private name (``_x``) from another.
* The numba kernels (the package ``solver.engine.kernels``) are the engine's own: only modules of
  ``solver/engine/`` import them; the layers above call the engine's typed drivers.  No kernel
  takes more than :data:`MAX_KERNEL_PARAMETERS` parameters (what belongs together travels as a
  named tuple) and no kernel file is longer than :data:`MAX_KERNEL_LINES` lines.
* No source file of the package (Python, the web page's scripts, styles and pages) is longer
  than :data:`MAX_FILE_LINES` lines (a longer one holds two concepts: split it by concept).

Imports under ``if TYPE_CHECKING:`` are annotations only (never run): they are counted for
cycles only.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "solver"
LAYERS = ("core", "engine", "advice", "play", "cli", "web")
FRONT = {"solver", "solver.__main__"}
KERNELS = "solver.engine.kernels"
MAX_KERNEL_PARAMETERS = 12
MAX_KERNEL_LINES = 800
MAX_FILE_LINES = 1000


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def parsed(text: str) -> tuple[ast.Module, tuple[ast.AST, ...]]:
    """A source's tree and its nodes, walked once (by text: a copy of the package reads the
    same files again without parsing them again)."""
    tree = ast.parse(text)
    return tree, tuple(ast.walk(tree))


def is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return (
        isinstance(test, ast.Attribute)
        and test.attr == "TYPE_CHECKING"
        and ast.unparse(test.value) == "typing"
    )


@functools.cache
def imports(typing: bool = False) -> list[tuple[str, int, str, list[str]]]:
    """``(module, line, imported module, names)`` of every import in the package, relative
    imports made absolute (``typing``: those under ``if TYPE_CHECKING:`` too)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        tree, nodes = parsed(path.read_text(encoding="utf-8"))
        typing_only = {
            id(inner)
            for node in nodes
            if isinstance(node, ast.If) and is_type_checking(node.test)
            for inner in ast.walk(node)
        }
        for node in nodes:
            if id(node) in typing_only and not typing:
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.append((module, node.lineno, alias.name, []))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found.append((module, node.lineno, target, [a.name for a in node.names]))
    return found


@functools.cache
def modules() -> frozenset[str]:
    return frozenset(module_name(p) for p in PACKAGE.rglob("*.py"))


def is_module(name: str) -> bool:
    return name in modules()


def module_edges(typing: bool = False) -> set[tuple[str, str, int]]:
    """``(module, imported module, line)`` within the package: ``from . import dice`` counts
    as importing ``dice``, ``from .dice import Dice`` as importing ``dice``."""
    edges = set()
    for m, line, target, names in imports(typing):
        if not (target == "solver" or target.startswith("solver.")):
            continue
        submodules = [n for n in names if is_module(f"{target}.{n}")]
        edges.update((m, f"{target}.{n}", line) for n in submodules)
        if len(submodules) < len(names) or not names:
            edges.add((m, target, line))
    return {(a, b, line) for a, b, line in edges if a != b}


def layer_of(module: str) -> int:
    """The index of a module's layer in :data:`LAYERS`; the CLI and the web app share the top."""
    return min(LAYERS.index(module.split(".")[1]), LAYERS.index("cli"))


def test_the_package_is_read():
    assert {"solver.web.service", "solver.cli.play", "solver.advice.advisor", "solver.core.card"} <= modules()
    assert ("solver.engine.dp", "solver.engine.kernels") in {(a, b) for a, b, _ in module_edges()}
    assert any(m == "solver.play.bots" and line > 200 for m, line, *_ in imports())  # inside functions too


def test_every_module_is_in_a_layer_folder():
    loose = sorted(m for m in modules() if m not in FRONT and m.split(".")[1] not in LAYERS)
    assert not loose, loose


def test_imports_point_down_the_layers():
    bad = sorted(
        f"{a}:{line} imports {b}"
        for a, b, line in module_edges()
        if a not in FRONT and (b in FRONT or layer_of(b) > layer_of(a))
    )
    assert not bad, bad


def test_the_web_imports_no_cli_module():
    bad = sorted(
        f"{a}:{line} imports {b}"
        for a, b, line in module_edges()
        if a.startswith("solver.web.") and b.startswith("solver.cli")
    )
    assert not bad, bad


def test_the_cli_imports_the_web_app_only_to_serve_it():
    bad = sorted(
        f"{a}:{line} imports {b}"
        for a, b, line in module_edges()
        if a.startswith("solver.cli") and b.startswith("solver.web") and a != "solver.cli.serve"
    )
    assert not bad, bad


def test_no_import_cycles():
    graph: dict[str, set[str]] = {}
    for a, b, _ in module_edges(typing=True):
        graph.setdefault(a, set()).add(b)
    cycles = [scc for scc in strongly_connected(graph) if len(scc) > 1]
    assert not cycles, cycles


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of ``graph`` (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph.get(root, ()))))]
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                scc = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    scc.append(w)
                    if w == v:
                        break
                out.append(sorted(scc))
    return out


def test_the_cycle_finder_finds_a_cycle():
    found = strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert sorted(found) == [["a", "b", "c"], ["d"]]


def test_no_private_name_is_imported_across_modules():
    bad = [
        f"{m}:{line} imports {name} from {target}"
        for m, line, target, names in imports()
        for name in names
        if name.startswith("_")
        and not name.startswith("__")
        and target != m
        and not is_module(f"{target}.{name}")  # ``from . import _x``: the module itself
    ]
    assert not bad, bad


def is_kernels(module: str) -> bool:
    return module == KERNELS or module.startswith(KERNELS + ".")


def test_only_the_engine_imports_the_kernels():
    bad = sorted(
        f"{a}:{line} imports {b}"
        for a, b, line in module_edges()
        if is_kernels(b) and not a.startswith("solver.engine.")
    )
    assert not bad, bad


def test_the_kernel_rule_sees_an_import_inside_a_function(tmp_path, monkeypatch):
    """The rule reads imports inside functions too: a play module that imports a kernel module in
    a function body is caught (the package read from a copy with one such module added)."""
    import shutil
    import sys

    copy = tmp_path / "solver"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "static", "shipped"))
    (copy / "play" / "sneaky.py").write_text(
        "def f():\n    from ..engine.kernels import games\n\n    return games\n", encoding="utf-8"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", copy)
    imports.cache_clear()
    modules.cache_clear()
    try:
        edges = {(a, b) for a, b, _ in module_edges()}
    finally:
        imports.cache_clear()
        modules.cache_clear()
    assert ("solver.play.sneaky", "solver.engine.kernels.games") in edges


def kernel_functions() -> list[tuple[str, str, int]]:
    """``(file, name, parameters)`` of every ``@njit`` function in the kernels package."""
    found = []
    for path in sorted((PACKAGE / "engine" / "kernels").glob("*.py")):
        for node in parsed(path.read_text(encoding="utf-8"))[1]:
            if isinstance(node, ast.FunctionDef) and any(
                "njit" in ast.unparse(d) for d in node.decorator_list
            ):
                args = node.args
                n = len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs)
                n += (args.vararg is not None) + (args.kwarg is not None)
                found.append((path.name, node.name, n))
    return found


def test_no_kernel_takes_more_than_twelve_parameters():
    kernels = kernel_functions()
    assert len(kernels) > 90 and ("win.py", "mixed_win_group_tables", 12) in kernels  # all are read
    bad = sorted(f"{f}: {name} takes {n}" for f, name, n in kernels if n > MAX_KERNEL_PARAMETERS)
    assert not bad, bad


def test_no_kernel_file_is_longer_than_800_lines():
    files = sorted((PACKAGE / "engine" / "kernels").glob("*.py"))
    assert len(files) > 10
    long = {
        p.name: n for p in files if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_KERNEL_LINES
    }
    assert not long, long


def test_no_file_is_longer_than_1000_lines():
    """The package's source: its Python and the web page's scripts, styles and pages."""
    files = sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".js", ".css", ".html"))
    assert len(files) > 90 and any(p.suffix == ".js" for p in files)
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in files
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES
    }
    assert not long, long

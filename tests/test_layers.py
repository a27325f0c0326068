"""The layers, read from the source: every import (inside functions too) points down.

* The web app (``solver/web/``) imports no CLI module: it shares the package's functions, it
  never borrows the command line's.
* Below the CLI and the web nothing imports them (``serve`` starts the web app: the one
  command that may).
* No module imports a private name (``_x``) from another; the kernels' module ``_kernels``
  is imported as a module, its functions called through it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "solver"


@functools.cache
def imports() -> list[tuple[str, int, str, list[str]]]:
    """``(module, line, imported module, names)`` of every import in the package, relative
    imports made absolute."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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


def is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_the_package_is_read():
    modules = {m for m, *_ in imports()}
    assert {"solver.web.service", "solver.commands.play", "solver.advisor"} <= modules


def test_the_web_imports_no_cli_module():
    bad = [
        f"{m}:{line} imports {target}"
        for m, line, target, names in imports()
        if m.startswith("solver.web")
        for full in [target, *(f"{target}.{n}" for n in names)]
        if full.startswith(("solver.commands", "solver.cli"))
    ]
    assert not bad, bad


@pytest.mark.parametrize("upper", ["solver.commands", "solver.cli", "solver.web"])
def test_nothing_below_imports_the_surfaces(upper):
    surfaces = ("solver.commands", "solver.cli", "solver.web", "solver.__main__")
    allowed = {"solver.commands.serve"}  # the command that starts the web app
    bad = sorted(
        {
            f"{m}:{line} imports {target}"
            for m, line, target, names in imports()
            if not m.startswith(surfaces) or (m.startswith("solver.commands") and upper == "solver.web")
            if m not in allowed
            for full in [target, *(f"{target}.{n}" for n in names)]
            if full == upper or full.startswith(upper + ".")
        }
    )
    assert not bad, bad


def test_no_private_name_is_imported_across_modules():
    bad = [
        f"{m}:{line} imports {name} from {target}"
        for m, line, target, names in imports()
        for name in names
        if name.startswith("_")
        and not name.startswith("__")
        and target != m
        and not is_module(f"{target}.{name}")  # ``from . import _kernels``: the module itself
    ]
    assert not bad, bad

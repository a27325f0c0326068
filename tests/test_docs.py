"""The documentation cannot rot: README.md and the MkDocs site under docs/ (issue 35).

* ``mkdocs build --strict`` passes (no broken link, anchor or API reference), in a temporary
  folder, within a time bound, with a page for every topic;
* every shell example line that starts with ``yahtzee`` is parsed by the real command line
  parser, and the quick ones run (exit 0); the rest of those that finish in seconds run as
  ``slow`` tests;
* every ```` ```python ```` block executes (one after an HTML comment ``docs-test: slow`` only
  in the full suite);
* every ``solver.`` dotted name mentioned resolves to an object;
* no page points to a path outside the repository, and every relative link resolves;
* the README stays a short map: at most 250 lines, ``yahtzee play`` and ``yahtzee hint`` in
  its first 40, and the set-up commands CI runs verbatim.
"""

from __future__ import annotations

import importlib
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
DOCS = [README, *PAGES]
#: what the dotted-name and outside-path checks read (the changelog is the site's page too)
TEXTS = [*DOCS, ROOT / "CHANGELOG.md"]

#: one page per topic of the issue, and the API reference
TOPIC_PAGES = [
    "playing",
    "hints",
    "rules",
    "triple",
    "distributions",
    "matches",
    "bots",
    "training",
    "scale",
    "web",
    "formats",
    "algorithm",
    "performance",
    "changelog",
    "contributing",
    "api",
    "api/core",
    "api/engine",
    "api/advice",
    "api/play",
]

#: the seconds ``mkdocs build`` may take on a busy 2-core machine (about 8 s on a quiet one)
BUILD_SECONDS = 90

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
SLOW_MARK = "docs-test: slow"


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _blocks(path: Path) -> list[tuple[str, str, int, bool]]:
    """``(language, body, line, slow)`` of every fenced block of a page (``slow``: the
    nearest non-blank line above the fence is an HTML comment with :data:`SLOW_MARK`)."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        before = text[: m.start()].rstrip().rsplit("\n", 1)[-1]
        slow = before.startswith("<!--") and SLOW_MARK in before
        out.append((m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1, slow))
    return out


def _shell_examples() -> list[tuple[str, list[str]]]:
    """``(where, argv)`` of every command line of a code block: a line of a shell block that
    starts with ``yahtzee``, or of any other block with ``$ yahtzee``; its words up to a pipe,
    a redirection or a comment."""
    found = []
    for path in DOCS:
        for lang, body, line, _ in _blocks(path):
            if lang == "python":
                continue
            shell = lang in ("bash", "sh", "shell", "console")
            for i, text in enumerate(body.split("\n")):
                text = text.strip()
                if text.startswith("$ "):
                    text = text[2:]
                elif not shell:
                    continue  # a block of output: a command there is written "$ yahtzee ..."
                if not re.match(r"yahtzee +[\w-]", text):
                    continue
                lex = shlex.shlex(text, posix=True, punctuation_chars="|&;<>")
                lex.whitespace_split = True
                words = []
                for word in lex:
                    if word and set(word) <= set("|&;<>"):
                        break
                    words.append(word)
                where = f"{_rel(path)}:{line + 1 + i}"
                found.append((where, words[1:]))
                shown = body.split("\n")[i + 1 : i + 2]
                if not shell and shown and shown[0].startswith("yahtzee: error: "):
                    REFUSALS[where] = shown[0]  # the page shows the command refusing, word for word
    return found


#: the examples whose page shows them refusing (``yahtzee: error: ...`` on the next line), by place
REFUSALS: dict[str, str] = {}
EXAMPLES = _shell_examples()

#: commands that answer from the shipped ``yahtzee`` table or from no table at all
QUICK = {"hint", "value", "rules"}
#: commands that finish in seconds once their table is built (run as ``slow``)
SECONDS = {"hint", "value", "rules", "distribution", "stats"}
#: options that need a target table, an input file or another process
NOT_RUN = {"--target", "--batch", "--opponent-card", "--policy", "--plot", "--hist", "--cluster"}


def _option(argv: list[str], name: str) -> str | None:
    for i, word in enumerate(argv):
        if word == name and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    return None


def _cost(argv: list[str]) -> str:
    """``quick`` (run in the fast loop), ``seconds`` (run as slow) or ``parse`` (parsed only:
    an interactive game, a server, a long run, a file the page only names)."""
    if any(word.split("=")[0] in NOT_RUN for word in argv):
        return "parse"
    if any(word.isupper() or word.endswith((".json", ".jsonl", ".png", ".parquet")) for word in argv[1:]):
        return "parse"  # a placeholder (GAME.json, DIR) or a file of the reader's
    if any(re.match(r"cmd:|[\w.]+:[A-Z]", word) for word in argv):
        return "parse"  # a bot program or a module of the reader's (cmd:..., mybots:KeepSixes)
    command = argv[0]
    rules = _option(argv, "--rules") or "yahtzee"
    if command in QUICK and rules in ("yahtzee", "triple"):
        return "quick"
    if command in SECONDS or (command == "tables" and argv[1:2] == ["list"]):
        return "seconds"
    games = _option(argv, "--games")
    if command == "simulate" and games is not None and int(games) <= 20_000:
        return "seconds"
    return "parse"


def _ids(examples):
    return [where for where, _ in examples]


def test_there_are_examples():
    assert len(EXAMPLES) > 40
    assert {_cost(argv) for _, argv in EXAMPLES} == {"quick", "seconds", "parse"}


@pytest.mark.parametrize(("where", "argv"), EXAMPLES, ids=_ids(EXAMPLES))
def test_shell_example_parses(where, argv, capsys):
    """The real parser of ``yahtzee`` (solver/cli) accepts every documented line."""
    from solver.cli.entry import build_parser

    parser = build_parser(argv[0])
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"{where}: yahtzee {shlex.join(argv)}: {capsys.readouterr().err.strip()} ({exc.code})")
    assert args.command == argv[0]


def _env(tmp_path: Path) -> dict:
    env = dict(os.environ)
    for name, sub in (("YAHTZEE_TABLES", "tables"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        env[name] = str(tmp_path / sub)
        (tmp_path / sub).mkdir(exist_ok=True)
    env.pop("YAHTZEE_DATA", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _run(where: str, argv: list[str], tmp_path: Path, timeout: float) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "solver", *argv],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    if where in REFUSALS:  # the page shows the refusal: the command refuses in that very line
        assert done.returncode == 2 and done.stderr.strip() == REFUSALS[where], (
            f"{where}: yahtzee {shlex.join(argv)} exited {done.returncode}: {done.stderr[-600:]}"
        )
        return
    assert done.returncode == 0, (
        f"{where}: yahtzee {shlex.join(argv)} exited {done.returncode}: {done.stderr[-600:]}"
    )
    assert done.stdout.strip(), f"{where}: yahtzee {shlex.join(argv)} printed nothing"


def _once(cost: str) -> list[tuple[str, list[str]]]:
    """The examples of that cost, each command once (the first place it is written)."""
    first = {}
    for where, argv in EXAMPLES:
        if _cost(argv) == cost:
            first.setdefault(tuple(argv), where)
    return [(where, list(argv)) for argv, where in first.items()]


QUICK_EXAMPLES = _once("quick")
SECONDS_EXAMPLES = _once("seconds")


@pytest.mark.subprocess
@pytest.mark.parametrize(("where", "argv"), QUICK_EXAMPLES, ids=_ids(QUICK_EXAMPLES))
def test_quick_shell_example_runs(where, argv, tmp_path):
    _run(where, argv, tmp_path, timeout=60)


@pytest.mark.slow
@pytest.mark.parametrize(("where", "argv"), SECONDS_EXAMPLES, ids=_ids(SECONDS_EXAMPLES))
def test_shell_example_runs(where, argv, tmp_path):
    _run(where, argv, tmp_path, timeout=600)


PYTHON_BLOCKS = [
    pytest.param(
        body, id=f"{_rel(path)}:{line}", marks=[pytest.mark.slow] if slow else [pytest.mark.subprocess]
    )
    for path in DOCS
    for lang, body, line, slow in _blocks(path)
    if lang == "python"
]


@pytest.mark.parametrize("code", PYTHON_BLOCKS)
def test_python_example_runs(code, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-1500:]


DOTTED = re.compile(r"(?<![\w/.-])solver(?:\.[A-Za-z_]\w*)+")


def _dotted_names() -> list[tuple[str, str]]:
    names = {}
    for path in TEXTS:
        for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            for m in DOTTED.finditer(line):
                names.setdefault(m.group(0), f"{_rel(path)}:{n}")
    return sorted(names.items())


DOTTED_NAMES = _dotted_names()


def test_dotted_names_found():
    assert len(DOTTED_NAMES) > 20
    assert (
        "solver.advice.batch.advise_many" in dict(DOTTED_NAMES)
    ) and "solver.batch.advise_many" not in dict(DOTTED_NAMES)


@pytest.mark.parametrize(("name", "where"), DOTTED_NAMES, ids=[n for n, _ in DOTTED_NAMES])
def test_dotted_name_resolves(name, where):
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as exc:
            if exc.name is None or not ".".join(parts[:cut]).startswith(exc.name):
                raise  # a module that exists but needs a missing package: say so
            continue
        break
    for attr in parts[cut:]:
        assert hasattr(obj, attr), f"{where}: {name}: {'.'.join(parts[:cut])} has no {attr!r}"
        obj = getattr(obj, attr)


#: pointers to places outside the repository (spelt in pieces, so this file does not hold them)
OUTSIDE = [
    re.compile(p)
    for p in (
        r"\.\./" + "shared",
        r"(?<![\w/])" + "shared/" + r"(RULES|STYLE|seeds|reference)",
        "/work" + "/",
    )
]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def test_no_path_outside_the_repository():
    """Neither the pages nor the code point to a file outside the repository."""
    files = [*TEXTS]
    for folder in ("solver", "tests", "scripts", "benchmarks"):
        files += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md", ".js", ".html", ".txt")]
    found = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for pattern in OUTSIDE:
            for m in pattern.finditer(text):
                found.append(f"{_rel(path)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}")
    assert not found, found


def test_links_stay_inside_and_exist():
    for path in TEXTS:
        for m in LINK.finditer(path.read_text(encoding="utf-8")):
            target = m.group(1).split("#", 1)[0]
            if not target or re.match(r"\w+:", target):
                continue
            resolved = (path.parent / target).resolve()
            assert resolved.is_relative_to(ROOT), f"{_rel(path)}: {m.group(0)} leaves the repository"
            assert resolved.exists(), f"{_rel(path)}: {m.group(0)} points to nothing"
            anchor = m.group(1).partition("#")[2]
            if anchor and resolved.suffix == ".md":
                assert anchor in _anchors(resolved), f"{_rel(path)}: {m.group(0)}: no such heading"


def _anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as MkDocs' table of contents makes them."""
    out = set()
    for title in re.findall(r"^#+ +(.+?) *$", FENCE.sub("", page.read_text(encoding="utf-8")), re.M):
        slug = re.sub(r"[^\w\s-]", "", title.replace("`", "")).strip().lower()
        out.add(re.sub(r"[-\s]+", "-", slug))
    return out


def test_readme_is_a_short_map():
    lines = README.read_text(encoding="utf-8").split("\n")
    assert len(lines) <= 250
    head = "\n".join(lines[:40])
    assert "yahtzee play" in head and "yahtzee hint" in head
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").split("\n")
    test_command = ci[ci.index(next(line for line in ci if "verbatim" in line)) + 1]
    assert test_command == 'pip install -e ".[test]" && python -m pytest -q'
    assert test_command in lines
    main_job = [
        line for line in lines if line.startswith("python3 -m venv .venv") and "pip install -e ." in line
    ]
    assert main_job and main_job[0].split("&& ")[-1].startswith("yahtzee hint ")


def test_screenshots_are_shown():
    """Every screenshot under docs/ is on a page, and every image a page shows exists."""
    shown = set()
    for path in PAGES:
        shown |= {
            Path(t).name
            for t in re.findall(r"!\[[^\]]*\]\(([^)\s]+\.png)\)", path.read_text(encoding="utf-8"))
        }
    assert {p.name for p in (ROOT / "docs").glob("*.png")} <= shown


@pytest.mark.slow  # about 8-11 s: CI runs it (the test extra installs mkdocs), pytest --fast does not
def test_mkdocs_build_strict(tmp_path):
    """``mkdocs build --strict``: no broken link, anchor or API reference; a page per topic."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings_handlers.python")
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-3000:]
    assert seconds < BUILD_SECONDS, f"mkdocs build took {seconds:.0f} s"
    for page in TOPIC_PAGES:
        assert (site / page / "index.html").is_file(), page
    advice = (site / "api" / "advice" / "index.html").read_text(encoding="utf-8")
    assert 'id="solver.advice.advisor.Advisor"' in advice  # generated from the docstrings
    rules = (site / "rules" / "index.html").read_text(encoding="utf-8")
    assert "254.5877287" in rules and "Joker rule" in rules  # the rules written out
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert "2026-12-01" in changelog  # the history, included from CHANGELOG.md

"""The table store (``solver/engine/store.py``): one manifest schema for every kind of table, the
manifests of the files built before it read as they are, one missing-table error with its fields,
and the fix of a table error worded once per surface (the CLI's command, the web's message)."""

from __future__ import annotations

import ast
import functools
import json
import pickle
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from tablefiles import reseal

from solver.cli.entry import main
from solver.cli.remedy import error_text as cli_text
from solver.core.errors import FIX_WORDS, MissingTableError, TableError
from solver.core.rules import get_rules
from solver.engine import store
from solver.engine.opponent import get_residuals, load_residuals, residual_settings
from solver.engine.tables import build_table, load_table
from solver.engine.target import build_target, load_target
from solver.web import remedy as web

#: 5 boxes, the upper bonus and the five-of-a-kind flag: every table of it builds in a moment
SPEC = (
    "yahtzee+without=ones,twos,threes,three_of_a_kind,four_of_a_kind,small_straight,large_straight,full_house"
)
RULES = get_rules(SPEC)
#: its manifests as the code before the store wrote them (format 2 for the value and target
#: tables, 1 for the opponent model), for the very bytes a build still writes
LEGACY = Path(__file__).parent / "data" / "legacy-manifests"
PACKAGE = Path(__file__).resolve().parent.parent / "solver"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every kind of table of :data:`SPEC`, built by this version (targets up to 200, as the
    legacy manifests' were)."""
    folder = tmp_path_factory.mktemp("store")
    table = build_table(SPEC, folder, progress=False)
    build_target(SPEC, folder, t_max=200, progress=False)
    get_residuals(RULES, table.values, folder, table.manifest.sha256)
    return folder


def copy_of(built, tmp_path) -> Path:
    for path in built.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


# --- one manifest -------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(store.KINDS))
def test_every_kind_writes_the_one_manifest_and_reads_it_back(built, kind):
    """Format 3, the kind, the rule set, and per array its file, dtype, shape and sha256 (the
    file's, as on disk); read back, the same :class:`Manifest`, whose JSON is the file's."""
    k = store.kind_of(kind)
    paths = k.paths(RULES, built)
    written = json.loads(paths[-1].read_text())
    assert written["format_version"] == store.FORMAT_VERSION == 3
    assert (written["kind"], written["rules"]) == (kind, RULES.describe())
    assert list(written["arrays"]) == [a.name for a in k.arrays]
    for spec, path in zip(k.arrays, paths, strict=False):
        entry = written["arrays"][spec.name]
        on_disk = np.load(path, mmap_mode="r")
        assert entry == {
            "file": path.name,
            "dtype": spec.dtype,
            "shape": list(on_disk.shape),
            "sha256": store.sha256_file(path),
        }
    settings = residual_settings(load_table(SPEC, built).manifest.sha256) if kind == "opponent" else None
    files = store.open_files(k, RULES, built, settings=settings)
    files.close()
    manifest = files.manifest
    assert not manifest.legacy and manifest.to_json() == written
    assert store.Manifest.parse(manifest.to_json(), k) == manifest
    assert manifest.sha256 == written["arrays"]["values"]["sha256"]


def test_the_old_manifests_are_read_without_a_rebuild(built, tmp_path, capsys):
    """Today's users' files: the manifests the code before the store wrote, beside the arrays a
    build writes (the same bytes): every table loads, answers as the new manifest's does, and
    nothing is rebuilt or rewritten -- ``tables build`` says "already built"."""
    folder = copy_of(built, tmp_path)
    for kind in store.KINDS.values():
        shutil.copy(LEGACY / f"{kind.name}.json", kind.paths(RULES, folder)[-1])
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()}
    table, new = load_table(SPEC, folder), load_table(SPEC, built)
    assert table.manifest.legacy and table.manifest.format_version == 2
    assert table.manifest.sha256 == new.manifest.sha256
    assert table.manifest["empty_card_value"] == new.manifest["empty_card_value"]
    target = load_target(SPEC, folder, check_hash=True)
    assert target.manifest.legacy and target.t_max == 200
    assert target.manifest["ev_play_empty_card"] == load_target(SPEC, built).manifest["ev_play_empty_card"]
    assert target.probability((0, 0, 0), 150) == load_target(SPEC, built).probability((0, 0, 0), 150)
    model = load_residuals(RULES, folder, table.manifest.sha256, table.values)
    assert model is not None  # read, not solved again
    assert model.p.tobytes() == load_residuals(RULES, built, new.manifest.sha256).p.tobytes()
    for argv in (
        ["tables", "build", "--rules", SPEC],
        ["tables", "build", "--rules", SPEC, "--target", "--t-max", "200"],
    ):
        assert main([*argv, "--tables", str(folder)]) == 0
        assert "already built" in capsys.readouterr().out
    assert main(["tables", "verify", "--rules", SPEC, "--tables", str(folder)]) == 0
    assert capsys.readouterr().out.startswith(f"{RULES.id}: ok")
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()} == before


def test_an_old_manifest_is_held_to_its_file_as_a_new_one(built, tmp_path):
    """An old manifest vouches for its bytes as a new one does: a changed value table is refused."""
    folder = copy_of(built, tmp_path)
    npy, manifest_path = store.VALUES.paths(RULES, folder)
    shutil.copy(LEGACY / "values.json", manifest_path)
    data = bytearray(npy.read_bytes())
    data[-9] ^= 0x01
    npy.write_bytes(bytes(data))
    with pytest.raises(TableError, match="sha256 does not match"):
        load_table(SPEC, folder)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda m: m.update(format_version=4), "format version 4, expected 3"),
        (lambda m: m.update(kind="target"), "a manifest of kind 'target', not 'values'"),
        (lambda m: m["arrays"]["values"].update(file="other.npy"), "the values file named 'other.npy'"),
        (
            lambda m: m["arrays"]["values"].update(dtype="float32"),
            "shape [32, 64, 2] 'float32' in the manifest",
        ),
        (lambda m: m.update(rules=get_rules("yacht").describe()), "built for different rules (yacht)"),
    ],
)
def test_one_stale_rule_refuses_a_manifest_that_does_not_answer(built, tmp_path, change, words):
    folder = copy_of(built, tmp_path)
    manifest_path = store.VALUES.paths(RULES, folder)[-1]
    manifest = json.loads(manifest_path.read_text())
    change(manifest)
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(TableError) as info:
        load_table(SPEC, folder, light=True)
    assert words in str(info.value) and info.value.fix == "rebuild"


def test_a_stale_opponent_model_is_solved_again_not_an_error(built, tmp_path):
    """The same rule for the opponent model: another value table's (its sha256) is stale, so
    :func:`get_residuals` solves and stores it again."""
    folder = copy_of(built, tmp_path)
    values = load_table(SPEC, folder).values
    assert load_residuals(RULES, folder, "another value table") is None
    with pytest.raises(TableError, match="value_table_sha256"):
        store.open_files(store.OPPONENT, RULES, folder, settings=residual_settings("another value table"))
    get_residuals(RULES, values, folder, "another value table")
    assert load_residuals(RULES, folder, "another value table") is not None


def test_tables_list_shows_every_file_the_store_made(built, capsys):
    assert main(["tables", "list", "--tables", str(built)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{RULES.id} built" in out
    assert f"{RULES.id} --target built" in out and "targets up to 200" in out
    assert f"{RULES.id} opponent built" in out and "the win bots' model" in out


def test_tables_list_counts_every_file_in_the_folder(built, capsys):
    """The total line counts every file the store made: all the folder holds."""
    assert main(["tables", "list", "--tables", str(built)]) == 0
    out = capsys.readouterr().out
    files = [p for p in built.iterdir() if p.is_file()]
    size = sum(p.stat().st_size for p in files) / 2**20
    assert f"{len(files)} files, {size:.1f} MiB in all" in out


def test_deleting_a_target_table_deletes_its_opponent_model(built, tmp_path, capsys):
    """``tables delete --target``: the target table and the opponent model beside it (the win
    bots' cache, no use without it), the value table kept; without ``--target`` every file of
    the rule set; another rule set's files and foreign files are never touched."""
    folder = copy_of(built, tmp_path)
    (folder / "notes.txt").write_text("mine")
    opponent = set(store.OPPONENT.paths(RULES, folder))
    target = set(store.TARGET.paths(RULES, folder))
    assert main(["tables", "delete", "--rules", SPEC, "--target", "--tables", str(folder)]) == 0
    out = capsys.readouterr().out
    left = set(folder.iterdir())
    assert not (opponent | target) & left and set(store.VALUES.paths(RULES, folder)) <= left
    assert all(f"deleted {p.name}" in out for p in opponent | target)
    assert main(["tables", "list", "--tables", str(folder)]) == 0
    listed = " ".join(capsys.readouterr().out.split())
    assert f"{RULES.id} --target" not in listed and f"{RULES.id} opponent" not in listed
    assert f"{RULES.id} built" in listed
    assert main(["tables", "delete", "--rules", SPEC, "--target", "--tables", str(folder)]) == 0
    assert "no target table" in capsys.readouterr().out
    assert main(["tables", "delete", "--all", "--tables", str(folder)]) == 0
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize(
    "argv, words",
    [([], "needs --rules SPEC ... or --all"), (["--rules", "nosuchrules"], "nosuchrules")],
)
def test_tables_delete_bad_input_is_one_line(tmp_path, capsys, argv, words):
    assert main(["tables", "delete", *argv, "--tables", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]


# --- one missing-table error --------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(store.KINDS))
def test_a_missing_table_is_one_error_with_the_rule_set_the_kind_and_the_folder(tmp_path, kind):
    load = {
        "values": lambda: load_table(SPEC, tmp_path),
        "target": lambda: load_target(SPEC, tmp_path),
        "opponent": lambda: store.open_files(store.OPPONENT, RULES, tmp_path),
    }[kind]
    with pytest.raises(MissingTableError) as info:
        load()
    error = info.value
    assert isinstance(error, TableError)
    assert (error.rules, error.kind, error.folder, error.fix) == (RULES, kind, tmp_path, "build")
    what = {"values": "table", "target": "target table", "opponent": "opponent model"}[kind]
    assert str(error) == f"no {what} for {RULES.id} in {tmp_path}; build it"
    again = pickle.loads(pickle.dumps(error))  # a worker process's error keeps its fields
    assert type(again) is MissingTableError and str(again) == str(error)
    assert (again.rules, again.kind, again.folder, again.fix) == (RULES, kind, tmp_path, "build")


def test_a_table_error_survives_a_pickle_with_its_fields(tmp_path):
    error = TableError("table x is damaged: y", rules=RULES, kind="target", folder=tmp_path, fix="rebuild")
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), str(again), again.detail) == (TableError, str(error), error.detail)
    assert (again.rules, again.kind, again.folder, again.fix) == (RULES, "target", tmp_path, "rebuild")
    assert str(error) == "table x is damaged: y; rebuild it" and set(FIX_WORDS) >= {"build", "rebuild"}


# --- the remedy worded once per surface -----------------------------------------------------------
def test_the_cli_words_the_fix_as_the_command_to_run(tmp_path, capsys):
    build_table(SPEC, tmp_path, progress=False)  # the value table only: no target table
    assert main(["bound", "--rules", SPEC, "--tables", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"yahtzee: error: no target table for {RULES.id} in {tmp_path}; build it with: "
        f"yahtzee tables build --rules {RULES.id} --target --tables {tmp_path}\n"
    )
    error = MissingTableError(RULES, "values", tmp_path)
    assert cli_text(error) == (
        f"no table for {RULES.id} in {tmp_path}; build it with: yahtzee tables build --rules {RULES.id} --tables {tmp_path}"
    )
    damaged = TableError("it is damaged", rules=RULES, kind="target", folder=tmp_path, fix="rebuild")
    assert cli_text(damaged) == (
        f"it is damaged; rebuild it with: yahtzee tables build --rules {RULES.id} --target --force --tables {tmp_path}"
    )
    shipped = TableError("broken", rules=get_rules("yahtzee"), kind="values", fix="reinstall")
    assert cli_text(shipped).endswith("(which comes first): yahtzee tables build --rules yahtzee")


def test_the_web_words_its_own(tmp_path):
    damaged = TableError("it is damaged", rules=RULES, kind="values", folder=tmp_path, fix="rebuild")
    assert web.error_text(damaged) == (
        f"it is damaged; rebuild it with: yahtzee tables build --rules {RULES.id} --force --tables {tmp_path}"
    )
    assert "press Build" in web.missing_table(RULES)
    assert web.missing_target(RULES).endswith(f"yahtzee tables build --rules {RULES.id} --target")
    assert (
        web.error_text(TableError("cannot read x: Permission denied")) == "cannot read x: Permission denied"
    )


@functools.cache
def _code_strings(path: Path) -> tuple[tuple[int, str], ...]:
    """``(line, text)`` of every string literal of a module that is not a docstring (an f-string's
    literal parts joined: what a message is built from); each module read once for the tests."""
    nodes = tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
    docs = {
        id(node.body[0].value)
        for node in nodes
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    parts = {id(v) for node in nodes if isinstance(node, ast.JoinedStr) for v in node.values}
    found = []
    for node in nodes:
        if id(node) in parts:
            continue
        if isinstance(node, ast.JoinedStr):
            found.append((node.lineno, "".join(v.value for v in node.values if isinstance(v, ast.Constant))))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            found.append((node.lineno, node.value))
    return tuple(found)


#: the one module per surface that words the command building a table
WORDING = {PACKAGE / "cli" / "remedy.py", PACKAGE / "web" / "remedy.py"}


def test_the_build_command_is_worded_once_per_surface():
    """No message outside the two wording modules spells ``tables build``: every other one asks
    them (the CLI's :func:`~solver.cli.remedy.build_command`, the web's :mod:`solver.web.remedy`)."""
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in WORDING
        for line, text in _code_strings(path)
        if "tables build" in text
    ]
    assert found == []
    for path in WORDING:
        assert any("tables build" in text for _, text in _code_strings(path))


def test_engine_messages_name_no_command_line_flag():
    """The engine says what is wrong in words of no surface; the flags (``--tables``, ``--force``,
    ``--at-least``, ``--dice`` ...) are the CLI's to name."""
    flag = re.compile(r"(?<![\w-])--[a-z]")
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {text[:60]!r}"
        for path in sorted((PACKAGE / "engine").rglob("*.py"))
        for line, text in _code_strings(path)
        if flag.search(text)
    ]
    assert found == []


def test_the_store_reads_what_the_manifest_forger_of_the_tests_writes(built, tmp_path):
    """(The tests' forger, ``tests/tablefiles.py``, is of the store's form.)"""
    folder = copy_of(built, tmp_path)
    npy, manifest_path = store.VALUES.paths(RULES, folder)
    reseal(manifest_path)
    assert load_table(SPEC, folder).manifest.sha256 == store.sha256_file(npy)

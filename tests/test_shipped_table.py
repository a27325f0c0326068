"""The table shipped with the package (``solver/engine/shipped/``): the default rule set's.

Checked here: that it is a fresh build's table byte for byte (``slow``: it builds ``yahtzee``,
as other slow tests do anyway); that it answers the independent golden positions; where it
comes in the lookup order (after the tables folder's own table, never instead of a damaged
one; nothing written anywhere); every way its files can be bad, each one line saying to
reinstall or build, numpy reader and light reader alike; ``tables list`` and ``tables verify``.
A first hint on an empty tables folder and numba cache is in ``tests/test_hint_fast.py``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tablefiles import reseal

from solver.cli import main
from solver.cli.remedy import error_text
from solver.core.errors import MissingTableError, TableError
from solver.core.position import Position
from solver.core.rules import get_rules
from solver.engine import tables as T

YAHTZEE = get_rules("yahtzee")
CHECKED = ("format_version", "kind", "rules", "arrays", "empty_card_value", "reference_value")


def shipped_bytes() -> bytes:
    return T.shipped_paths(YAHTZEE)[0].read_bytes()


@pytest.fixture
def shipped_copy(tmp_path, monkeypatch):
    """A copy of the shipped files that the package reads instead of its own (to damage it)."""
    folder = tmp_path / "shipped"
    folder.mkdir()
    for path in T.shipped_paths(YAHTZEE):
        shutil.copy(path, folder / path.name)
    monkeypatch.setattr(T, "SHIPPED_DIR", folder)
    return T.shipped_paths(YAHTZEE)


@pytest.mark.slow
def test_shipped_table_is_a_fresh_build_byte_for_byte(tables_dir):
    """What ``scripts/ship_table.py --check`` checks: rerun the script when this fails."""
    built = tables_dir.table(YAHTZEE)
    npy, manifest_path = T.table_paths(YAHTZEE, tables_dir)
    fresh = npy.read_bytes()
    shipped = T.load_shipped(YAHTZEE, light=True)
    assert len(fresh) == len(shipped_bytes()) == 128 + 8 * 8192 * 64 * 2
    if fresh != shipped_bytes():
        first = next(i for i, (a, b) in enumerate(zip(fresh, shipped_bytes(), strict=True)) if a != b)
        pytest.fail(
            f"the shipped table differs from a fresh build from byte {first} on: python scripts/ship_table.py"
        )
    fresh_manifest = json.loads(manifest_path.read_text())
    assert {k: shipped.manifest.to_json()[k] for k in CHECKED} == {k: fresh_manifest[k] for k in CHECKED}
    assert built.manifest.sha256 == shipped.manifest.sha256


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_ship_script_checks_without_writing(tmp_path):
    """``scripts/ship_table.py --check``: a fresh build (in a temporary folder) against the
    shipped files, which it leaves as they are."""
    before = {path: path.stat().st_mtime_ns for path in T.shipped_paths(YAHTZEE)}
    script = Path(__file__).parent.parent / "scripts" / "ship_table.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=600, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "yahtzee: the shipped table is the fresh build, byte for byte\n"
    assert {path: path.stat().st_mtime_ns for path in T.shipped_paths(YAHTZEE)} == before
    assert list(tmp_path.iterdir()) == []


def test_shipped_table_loads_both_ways():
    light, array = T.load_shipped(YAHTZEE, light=True), T.load_shipped(YAHTZEE)
    data = shipped_bytes()
    assert light.shipped and array.shipped and light.path == array.path == T.shipped_paths(YAHTZEE)[0]
    assert light.manifest.sha256 == hashlib.sha256(data).hexdigest()
    values = array.values
    assert values.shape == (8192, 64, 2) and values.dtype == "<f8" and not values.flags.writeable
    assert values.tobytes() == data[light.values.offset :] == np.asarray(light.values).tobytes()
    assert light.empty_card_value == array.empty_card_value == light.manifest["empty_card_value"]
    assert light.empty_card_value == pytest.approx(254.5877287, abs=1e-7)  # docs/rules.md
    assert np.isnan(values).sum() == values.size - len(T.reachable_states(YAHTZEE)[0])


def golden_key(option) -> str:
    return (
        f"keep {' '.join(map(str, option.keep))}" if option.keep is not None else f"score {option.category}"
    )


def test_shipped_table_answers_the_golden_positions(golden):
    """The 40 independent yahtzee positions, from the shipped table (no build, no numba)."""
    from solver.advice.advisor import Advisor

    advisor = Advisor(T.load_shipped(YAHTZEE, light=True))
    entries = [g for g in golden if g["rules"] == "yahtzee"]
    assert len(entries) == 40
    for g in entries:
        advice = advisor.advise(Position.parse(g["card"], g["dice"], g["rolls_left"], "yahtzee"))
        got = {golden_key(o): o.ev for o in advice.options}
        assert set(got) == set(g["options"]), g
        assert all(math.isclose(got[k], ev, abs_tol=1e-6) for k, ev in g["options"].items()), g
        assert math.isclose(advice.best.ev, g["best_ev"], abs_tol=1e-6)


# --------------------------------------------------------------------------- the lookup order


def test_an_empty_folder_reads_the_shipped_table_and_writes_nothing(tmp_path):
    folder = tmp_path / "tables"
    for light in (True, False):
        table = T.get_table("yahtzee", folder, build_if_missing=True, light=light)
        assert table.shipped and table.empty_card_value == pytest.approx(254.5877287, abs=1e-7)
        assert T.find_table(None, folder, light=light).shipped  # the default rule set
    assert not folder.exists()
    with pytest.raises(MissingTableError) as missing:  # the folder only
        T.load_table("yahtzee", folder)
    assert f"no table for yahtzee in {folder}" in str(missing.value)


def test_a_rule_set_without_a_shipped_table_is_missing_as_before(tmp_path):
    assert (
        not T.has_shipped("yatzy") and not T.has_shipped("yahtzee+order=down") and not T.has_shipped("triple")
    )
    assert T.has_shipped("yahtzee") and T.has_shipped(YAHTZEE)
    with pytest.raises(MissingTableError) as found:
        T.find_table("yatzy", tmp_path)
    with pytest.raises(MissingTableError) as loaded:
        T.load_table("yatzy", tmp_path)
    assert str(found.value) == str(loaded.value)
    with pytest.raises(MissingTableError, match="comes with the package"):
        T.load_shipped("yatzy")


def write_folder_table(folder: Path, data: bytes) -> tuple[Path, Path]:
    """A yahtzee table in ``folder``: the shipped bytes and manifest, as a build writes them."""
    folder.mkdir(parents=True, exist_ok=True)
    npy, manifest_path = T.table_paths(YAHTZEE, folder)
    npy.write_bytes(data)
    shutil.copy(T.shipped_paths(YAHTZEE)[1], manifest_path)
    return npy, manifest_path


def test_the_folders_own_table_comes_first(tmp_path):
    npy, _ = write_folder_table(tmp_path, shipped_bytes())
    for light in (True, False):
        table = T.get_table("yahtzee", tmp_path, light=light)
        assert not table.shipped and table.path == npy
    assert T.verify_table("yahtzee", tmp_path, sample=5, seed=1) == []


def test_a_damaged_folder_table_is_an_error_not_the_shipped_one(tmp_path):
    data = bytearray(shipped_bytes())
    data[-8:] = b"\xff" * 8  # the full card's last value: NaN, not 0.0
    write_folder_table(tmp_path, bytes(data))
    for light in (True, False):
        with pytest.raises(TableError, match="sha256 does not match") as info:
            T.get_table("yahtzee", tmp_path, build_if_missing=True, light=light)
        error = info.value  # the folder's table: rebuilt there, no reinstall
        assert (error.fix, error.folder) == ("rebuild", tmp_path) and "reinstall" not in str(error)
        assert error_text(error).endswith(
            f"; rebuild it with: yahtzee tables build --rules yahtzee --force --tables {tmp_path}"
        )


# --------------------------------------------------------------------------- damaged shipped files
# (the checks are load_table's, tested on tables folders in test_golden.py and test_hint_fast.py:
# here, that they apply to the shipped table too, with its own remedy)


def flip_byte(npy, manifest_path):
    data = bytearray(npy.read_bytes())
    data[128 + 8 * 12345 + 3] ^= 0x01
    npy.write_bytes(bytes(data))


def truncate(npy, manifest_path):
    npy.write_bytes(npy.read_bytes()[: npy.stat().st_size // 2])


def trailing_bytes(npy, manifest_path):
    npy.write_bytes(npy.read_bytes() + b"\0" * 8)


def empty(npy, manifest_path):
    npy.write_bytes(b"")


def bad_manifest(npy, manifest_path):
    manifest_path.write_text("{not json")


def other_rules(npy, manifest_path):
    manifest = json.loads(manifest_path.read_text())
    manifest["rules"] = get_rules("yahtzee-free-joker").describe()
    manifest_path.write_text(json.dumps(manifest))


def a_folder(npy, manifest_path):
    npy.unlink()
    npy.mkdir()


def a_fifo(npy, manifest_path):
    npy.unlink()
    os.mkfifo(npy)


def value_out_of_range_behind_a_matching_manifest(npy, manifest_path):
    """A manifest that vouches for a bad file (its sha256 rewritten): the value checks still hold."""
    data = bytearray(npy.read_bytes())
    data[128 : 128 + 8] = np.float64(1e300).tobytes()  # the empty card
    npy.write_bytes(bytes(data))
    reseal(manifest_path)


CORRUPTIONS = {
    flip_byte: "sha256 does not match", truncate: "sha256 does not match", trailing_bytes: "sha256",
    empty: "sha256", bad_manifest: "unreadable", other_rules: "built for different rules",
    a_folder: "is a folder, not a regular file", a_fifo: "is a FIFO, not a regular file",
    value_out_of_range_behind_a_matching_manifest: "is damaged: 1 states hold impossible values",
}  # fmt: skip


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_a_damaged_shipped_table_is_refused_in_one_line(shipped_copy, tmp_path, capsys, corrupt):
    npy, manifest_path = shipped_copy
    corrupt(npy, manifest_path)
    errors = []
    for light in (True, False):
        with pytest.raises(TableError) as info:
            T.get_table("yahtzee", tmp_path / "empty", build_if_missing=True, light=light)
        errors.append(str(info.value))
        assert (info.value.fix, info.value.folder) == ("reinstall", None)
    assert errors[0] == errors[1] and "\n" not in errors[0]
    assert CORRUPTIONS[corrupt] in errors[0] and str(npy.parent) in errors[0], errors[0]
    assert errors[0].endswith(
        "; reinstall the package, or build the table into the tables folder (which comes first)"
    )
    assert error_text(info.value).endswith(
        "; reinstall the package, or build the table into the tables folder (which comes first): "
        "yahtzee tables build --rules yahtzee"
    )
    assert not (tmp_path / "empty").exists()  # nothing built in its place
    code = main(["hint", "--dice", "33456", "--rolls-left", "2", "--tables", str(tmp_path / "empty")])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and len(err.splitlines()) == 1 and "reinstall" in err, err


def test_without_the_checksum_a_changed_value_goes_unnoticed_but_the_rest_is_checked(shipped_copy):
    npy, manifest_path = shipped_copy
    flip_byte(npy, manifest_path)
    assert T.load_shipped(YAHTZEE, check_hash=False, light=True).shipped
    truncate(npy, manifest_path)
    with pytest.raises(TableError, match="corrupt or truncated.*reinstall"):
        T.load_shipped(YAHTZEE, check_hash=False)


# --------------------------------------------------------------------------- the CLI


def test_tables_list_and_verify_show_the_shipped_table(capsys, tmp_path):
    code = main(["tables", "list", "--tables", str(tmp_path)])
    out, _ = capsys.readouterr()
    line = next(ln for ln in out.splitlines() if ln.split()[:1] == ["yahtzee"])
    assert code == 0 and "shipped" in line and "254.5877287" in line and len(line) <= 80, line
    code = main(
        ["tables", "verify", "--rules", "yahtzee", "--sample", "10", "--seed", "1", "--tables", str(tmp_path)]
    )
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith("yahtzee: ok") and "shipped with the package" in out
    assert list(tmp_path.iterdir()) == []


def test_tables_build_still_builds_into_the_folder(capsys, tmp_path, monkeypatch):
    """``tables build`` asks the folder only: the shipped table does not make it "already built"."""
    built = []

    def build_table(rules, folder, **options):
        built.append((rules.id, folder))
        return T.load_shipped(rules)

    monkeypatch.setattr(T, "build_table", build_table)
    code = main(["tables", "build", "--rules", "yahtzee", "--quiet", "--tables", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert code == 0 and built == [("yahtzee", str(tmp_path))] and "already built" not in out

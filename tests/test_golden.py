"""Full tables against independent values: RULES.md's empty-card values and the golden positions.

Also the table files themselves: manifest, checksums, corruption and missing-table errors,
atomic builds.
"""

from __future__ import annotations

import json
import math
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from solver.core.card import ScoreCard
from solver.core.errors import MissingTableError, TableError
from solver.core.position import Position
from solver.core.rules import get_rules
from solver.engine.store import FORMAT_VERSION, sha256_file
from solver.engine.tables import (
    build_table,
    load_table,
    table_paths,
    verify_table,
)

# Empty-card values from docs/rules.md (independent solvers, agreeing to 1e-7).
REFERENCE = {
    "yahtzee": 254.5877287,
    "yahtzee-free-joker": 254.5896095,
    "yahtzee-no-joker": 253.9702412,
    "yahtzee-no-bonus": 245.8707745,
    "yatzy": 248.4399894,
}
TOLERANCE = 1e-6
ALL_IDS = ("yahtzee", "yahtzee-free-joker", "yahtzee-no-joker", "yahtzee-no-bonus", "yatzy", "yatzy-forced")

GOLDEN_FILE = Path(__file__).parent / "data" / "advice-golden.jsonl"
_GOLDEN_BY_RULES: dict[str, list[dict]] = defaultdict(list)
for _line in GOLDEN_FILE.read_text(encoding="utf-8").splitlines():
    if _line.strip():
        _entry = json.loads(_line)
        _GOLDEN_BY_RULES[_entry["rules"]].append(_entry)


def test_golden_file_covers_every_rule_set():
    assert sorted(_GOLDEN_BY_RULES) == sorted(ALL_IDS)
    assert sum(len(v) for v in _GOLDEN_BY_RULES.values()) == 240
    assert all(len(v) == 40 for v in _GOLDEN_BY_RULES.values())


def golden_key(option) -> str:
    if option.keep is not None:
        return "keep " + " ".join(map(str, option.keep))
    return f"score {option.category}"


@pytest.mark.slow
@pytest.mark.parametrize("rid", sorted(REFERENCE))
def test_empty_card_value_matches_reference(tables_dir, rid):
    table = tables_dir.table(rid)
    assert table.empty_card_value == pytest.approx(REFERENCE[rid], abs=TOLERANCE)
    advisor = tables_dir.advisor(rid)
    assert advisor.card_value("") == table.empty_card_value
    assert advisor.card_value(ScoreCard.empty(rid)) == pytest.approx(REFERENCE[rid], abs=TOLERANCE)
    assert verify_table(rid, tables_dir) == []


@pytest.mark.slow
@pytest.mark.parametrize("rid", ALL_IDS)
def test_golden_positions(tables_dir, rid):
    advisor = tables_dir.advisor(rid)
    failures = []
    for g in _GOLDEN_BY_RULES[rid]:
        position = Position.parse(g["card"], g["dice"], g["rolls_left"], rid)
        advice = advisor.advise(position)
        got = {golden_key(o): o.ev for o in advice.options}
        want = g["options"]
        where = f"{rid} [{g['card']}] {g['dice']} rolls_left={g['rolls_left']}"
        if set(got) != set(want):
            failures.append(f"{where}: options {sorted(set(got) ^ set(want))} differ")
            continue
        for key, ev in want.items():
            if not math.isclose(got[key], ev, abs_tol=TOLERANCE):
                failures.append(f"{where}: {key} ev {got[key]:.9f}, golden {ev:.9f}")
        if not math.isclose(advice.best.ev, g["best_ev"], abs_tol=TOLERANCE):
            failures.append(f"{where}: best ev {advice.best.ev:.9f}, golden {g['best_ev']:.9f}")
        # the best option is never beaten, options are sorted, regrets are consistent
        evs = [o.ev for o in advice.options]
        assert evs == sorted(evs, reverse=True)
        assert advice.options[0].best and advice.options[0].regret == 0
        for o in advice.options:
            assert o.regret == pytest.approx(advice.best.ev - o.ev, abs=1e-12)
            assert o.expected_final == pytest.approx(position.card.total + o.ev, abs=1e-9)
            assert o.best == (o.regret <= 1e-9)
    assert not failures, "\n".join(failures[:20])


@pytest.mark.slow
@pytest.mark.parametrize("rid", ALL_IDS)
def test_golden_keep_all_five_is_the_best_box_with_no_rolls(tables_dir, rid):
    """Keeping all five dice (stopping) is worth the best placement with no rolls left."""
    advisor = tables_dir.advisor(rid)
    for g in _GOLDEN_BY_RULES[rid][:10]:
        if g["rolls_left"] == 0:
            continue
        position = Position.parse(g["card"], g["dice"], g["rolls_left"], rid)
        stop = advisor.advise(position).option_for(keep=position.dice.values)
        scored = advisor.advise(Position.parse(g["card"], g["dice"], 0, rid))
        assert stop.ev == pytest.approx(scored.best.ev, abs=1e-12)


# --------------------------------------------------------------------------- table files


@pytest.fixture()
def yahtzee_copy(tables_dir, tmp_path):
    """A private copy of the session's yahtzee table, free to damage."""
    table = tables_dir.table("yahtzee")
    npy, manifest = table_paths(table.rules, tables_dir)
    shutil.copy(npy, tmp_path / npy.name)
    shutil.copy(manifest, tmp_path / manifest.name)
    return tmp_path


def test_manifest_describes_the_table(tables_dir):
    table = tables_dir.table("yahtzee")
    npy, manifest_path = table_paths(table.rules, tables_dir)
    manifest = json.loads(manifest_path.read_text())
    assert manifest["format_version"] == FORMAT_VERSION
    assert manifest["rules"]["id"] == "yahtzee"
    assert manifest["rules"] == get_rules("yahtzee").describe()
    assert manifest["kind"] == "values"
    entry = manifest["arrays"]["values"]
    assert entry["file"] == npy.name and entry["sha256"] == sha256_file(npy)
    assert entry["dtype"] == "float64"
    assert tuple(entry["shape"]) == table.values.shape == (2**13, 64, 2)
    assert manifest["empty_card_value"] == table.empty_card_value
    assert not table.values.flags.writeable
    assert np.isnan(table.values).any()  # unreachable states are marked
    assert table.values[2**13 - 1, 0, 0] == 0.0  # the full card has nothing to come


def test_loads_a_good_copy(yahtzee_copy):
    table = load_table("yahtzee", yahtzee_copy)
    assert table.empty_card_value == pytest.approx(REFERENCE["yahtzee"], abs=TOLERANCE)
    assert verify_table("yahtzee", yahtzee_copy) == []


def test_truncated_table(yahtzee_copy):
    npy = yahtzee_copy / "yahtzee.npy"
    data = npy.read_bytes()
    npy.write_bytes(data[: len(data) // 2])
    with pytest.raises(TableError) as info:
        load_table("yahtzee", yahtzee_copy)
    assert "rebuild" in str(info.value)
    # even without the checksum the short file is refused
    with pytest.raises(TableError) as info:
        load_table("yahtzee", yahtzee_copy, check_hash=False)
    assert "rebuild" in str(info.value)
    assert verify_table("yahtzee", yahtzee_copy)


def test_flipped_byte(yahtzee_copy):
    npy = yahtzee_copy / "yahtzee.npy"
    data = bytearray(npy.read_bytes())
    data[len(data) // 3] ^= 0x01
    npy.write_bytes(bytes(data))
    with pytest.raises(TableError) as info:
        load_table("yahtzee", yahtzee_copy)
    assert "rebuild" in str(info.value)
    assert "yahtzee" in str(info.value)
    problems = verify_table("yahtzee", yahtzee_copy)
    assert problems and "rebuild" in problems[0]


def test_manifest_of_other_rules(yahtzee_copy):
    # the yahtzee files renamed as yahtzee-free-joker's: same shape, different rules
    for ext in ("npy", "json"):
        (yahtzee_copy / f"yahtzee.{ext}").rename(yahtzee_copy / f"yahtzee-free-joker.{ext}")
    with pytest.raises(TableError) as info:
        load_table("yahtzee-free-joker", yahtzee_copy)
    assert "rebuild" in str(info.value)
    assert "yahtzee-free-joker" in str(info.value)


def test_unreadable_manifest(yahtzee_copy):
    (yahtzee_copy / "yahtzee.json").write_text("{not json")
    with pytest.raises(TableError) as info:
        load_table("yahtzee", yahtzee_copy)
    assert "rebuild" in str(info.value)


def test_wrong_format_version(yahtzee_copy):
    path = yahtzee_copy / "yahtzee.json"
    manifest = json.loads(path.read_text())
    manifest["format_version"] = FORMAT_VERSION + 1
    path.write_text(json.dumps(manifest))
    with pytest.raises(TableError) as info:
        load_table("yahtzee", yahtzee_copy)
    assert "rebuild" in str(info.value)


@pytest.mark.parametrize("remove", [("npy", "json"), ("npy",), ("json",)])
def test_missing_table(yahtzee_copy, remove):
    for ext in remove:
        (yahtzee_copy / f"yahtzee.{ext}").unlink()
    with pytest.raises(MissingTableError) as info:
        load_table("yahtzee", yahtzee_copy)
    assert "yahtzee" in str(info.value)
    assert "build" in str(info.value)
    assert isinstance(info.value, TableError)


def test_missing_table_in_an_empty_folder(tmp_path):
    with pytest.raises(MissingTableError):
        load_table("yatzy", tmp_path / "nowhere")


@pytest.mark.parametrize(  # the fast loop builds the cheaper (13 boxes); CI yatzy-forced's 15 too
    "spec", [pytest.param("yatzy-forced", marks=pytest.mark.slow), "yacht+all-rolls+extra-bonus=50"]
)
def test_build_leaves_no_temporary_files_and_is_reproducible(tmp_path, spec):
    name = get_rules(spec).id  # tables are named by the canonical spelling
    files = [f"{name}.json", f"{name}.npy"]
    a, b = tmp_path / "a", tmp_path / "b"
    build_table(spec, a, progress=False, threads=1)
    build_table(spec, b, progress=False, threads=2)
    for folder in (a, b):
        assert sorted(p.name for p in folder.iterdir()) == files
    # bit-identical whatever the thread count
    assert sha256_file(a / f"{name}.npy") == sha256_file(b / f"{name}.npy")
    # a rebuild over an existing table replaces it atomically, still without leftovers
    build_table(spec, a, progress=False)
    assert sorted(p.name for p in a.iterdir()) == files
    assert load_table(spec, a).empty_card_value == load_table(spec, b).empty_card_value


def test_session_folder_has_no_leftovers(tables_dir):
    tables_dir.table("yahtzee")
    for path in tables_dir.path.iterdir():
        assert path.suffix in (".npy", ".json"), path.name
        assert not path.name.startswith("."), path.name

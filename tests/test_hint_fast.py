"""The numpy-free hint path: the light table reader, the plain-Python turn recursion, lazy arrays.

A single ``yahtzee hint`` reads its table through :class:`solver.engine.tables.ValueFile` (mmap,
no numpy) and ranks options with the plain-Python :class:`solver.advice.advisor.TurnValues`.
Checked here: the reader against ``np.load`` (values, header variants, and every way a
file can be bad, with ``load_table``'s messages); the recursion bit for bit against the
former numpy recursion (kept below as the reference) and against the ``turn_tables``
kernel, on states of small rule sets covering every base and modifier and (``slow``) on
thousands of states of every full rule set; the dice and rules layers' tuples against
their numpy arrays; a real ``hint`` process that imports neither numpy nor numba; and a fresh
install's first hint, which reads the table shipped with the package (no numba, nothing written).

Tests that build a full 13-box or larger table are marked ``slow``; the others use
small rule sets (``BASE+...+without=...``) whose tables build in a fraction of a second.
"""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import subprocess
import sys

import numpy as np
import pytest
from tablefiles import reseal

from solver.advice.advisor import Advisor
from solver.cli.remedy import error_text
from solver.core import dice as D
from solver.core.card import ScoreCard
from solver.core.errors import MissingTableError, TableError
from solver.core.position import Position
from solver.core.rules import RULE_SETS, get_rules
from solver.engine.tables import ValueFile, load_table
from solver.engine.turn import TurnValues

HINT = ["hint", "--dice", "33456", "--rolls-left", "2", "--card", "ones=3"]
#: A small Yahtzee card (8 boxes): forced Joker, Yahtzee bonus, an upper bonus within reach.
SMALL = "yahtzee+without=twos,threes,four_of_a_kind,small_straight,large_straight"
#: Small rule sets covering the bases and modifiers (tables in a fraction of a second).
SMALL_RULES = [
    SMALL,
    "yahtzee-free-joker+order=choose+without=ones,twos,threes,four_of_a_kind,small_straight,chance",
    "yahtzee-no-joker+order=down+without=twos,threes,fours",
    "yatzy+lower-only",
    "yatzy+all-rolls+extra-bonus=50+yatzy-rows=2+without=ones,twos,threes,one_pair,two_pairs,"
    "four_of_a_kind,small_straight,large_straight,full_house",
    "yacht+extra-bonus=100+order=up",
]
FULL_RULES = [pytest.param(rid, marks=pytest.mark.slow) for rid in sorted(RULE_SETS)]


# --------------------------------------------------------------------------- the numpy reference


def numpy_turn_values(rules, state, values):
    """(r0, e0, e1) of one state: the advisor's former numpy recursion, in the kernel's order."""
    mask, upper, flag = state
    score = rules.score_table
    cap, thr = rules.upper_cap, rules.upper_threshold
    upper_bonus = rules.upper_bonus if rules.has_upper_bonus else 0
    best = np.full(D.N_ROLLS, -np.inf)
    allowed = rules.allowed_bits(mask)  # the open boxes the fill order allows
    for b in [b for b in range(rules.n_boxes) if allowed >> b & 1]:
        s = score[:, b]
        nxt = values[mask | (1 << b)]
        if rules.boxes[b].is_upper:
            new_upper = upper + s
            gain = s + np.where((upper < thr) & (new_upper >= thr), upper_bonus, 0)
            cand = gain + nxt[np.minimum(new_upper, cap), flag]
        elif b in rules.five_kind_rows and rules.n_flags == 2:  # a 50 there sets the flag
            cand = s + np.where(s == 50, nxt[upper, 1], nxt[upper, flag])
        else:
            cand = s + nxt[upper, flag]
        np.maximum(best, cand, out=best)
    tv = TurnValues.__new__(TurnValues)  # placement_value alone, for the Joker rolls
    tv.rules, tv.state, tv.values = rules, state, values
    rows = rules.rows_mask
    if allowed and rows and mask & rows == rows:  # five of a kind: Joker placement and bonus
        for face in range(1, 7):
            roll = D.Dice((face,) * 5)
            best[roll.index] = max(tv.placement_value(*p) for p in tv.placements(roll))
    keeps_by_size, add_by_size, remove = _keep_arrays()

    def average(x):
        for size in range(4, -1, -1):
            keeps, add = keeps_by_size[size], add_by_size[size]
            total = x[add[0]] + x[add[1]]
            for face in range(2, 6):
                total += x[add[face]]
            x[keeps] = total * (1.0 / 6.0)

    def best_subkeep(x):
        for size in range(1, 6):
            keeps = keeps_by_size[size]
            below = x[remove[keeps]].max(axis=1)
            # all-rolls: a roll may not be kept whole (each reroll throws at least one die)
            x[keeps] = below if size == 5 and rules.all_rolls else np.maximum(x[keeps], below)

    x = np.full(D.N_KEEPS + 1, -np.inf)
    x[D.ROLL_OFFSET : D.N_KEEPS] = best
    average(x)
    e0 = x[: D.N_KEEPS].copy()
    best_subkeep(x)
    average(x)
    e1 = x[: D.N_KEEPS].copy()
    e1[D.ROLL_OFFSET :] = best
    if rules.all_rolls:  # stopping before the third roll is not allowed
        e0[D.ROLL_OFFSET :] = e1[D.ROLL_OFFSET :] = -np.inf
    return best, e0, e1


@functools.cache
def _keep_arrays():
    keeps_by_size = [np.flatnonzero(D.KEEP_SIZE == s) for s in range(6)]
    add_by_size = [np.ascontiguousarray(D.ADD_DIE[keeps].T) for keeps in keeps_by_size]
    return keeps_by_size, add_by_size, np.where(D.REMOVE_DIE < 0, D.N_KEEPS, D.REMOVE_DIE)


def sample_states(rules, values, n_states: int, seed: int, lanes_per_mask: int = 12):
    """{mask: [(u, f), ...]}: about ``n_states`` reachable states, a few per mask.

    The masks: the empty card, every card with one box left, then random reachable masks.
    """
    rng = random.Random(seed)
    reachable = np.flatnonzero(~np.isnan(values).all(axis=(1, 2)))
    reachable = reachable[reachable != rules.full_mask].tolist()
    first = [m for m in [0, *(rules.full_mask ^ (1 << b) for b in range(rules.n_boxes))] if m in reachable]
    out: dict[int, list[tuple[int, int]]] = {}
    total = 0
    for mask in first + rng.sample(reachable, len(reachable)):
        if total >= n_states:
            break
        if mask in out:
            continue
        lanes = list(zip(*np.nonzero(~np.isnan(values[mask])), strict=True))
        out[mask] = sorted((int(u), int(f)) for u, f in rng.sample(lanes, min(lanes_per_mask, len(lanes))))
        total += len(out[mask])
    return out


def random_positions(rules, n: int, seed: int) -> list[Position]:
    """``n`` positions of random legal games, one in five rolls a five of a kind (Joker, bonus)."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        card = ScoreCard.empty(rules)
        while not card.is_complete and len(out) < n:
            faces = (rng.randint(1, 6),) * 5 if rng.random() < 0.2 else [rng.randint(1, 6) for _ in range(5)]
            dice = D.Dice(faces)
            out.append(Position(card, dice, rng.randrange(3)))
            card = card.score(rng.choice(card.placements(dice)).box, dice)
    return out


@pytest.mark.parametrize(  # the fast loop: SMALL (Joker, bonuses) and yacht's; CI every one
    "rid",
    [r if i in (0, 5) else pytest.param(r, marks=pytest.mark.slow) for i, r in enumerate(SMALL_RULES)]
    + FULL_RULES,
)
def test_turn_values_equal_numpy_and_kernel_bit_for_bit(tables_dir, rid):
    """Plain Python, numpy reference and turn_tables give the same floats, on both table readers."""
    from solver.engine import dp, kernels

    table = tables_dir.table(rid)
    rules, values = table.rules, np.asarray(table.values)
    light = load_table(rules, tables_dir, light=True).values
    args = dp.rule_arrays(rules)
    no_tracking = np.empty((0, 0), dtype=np.int64)
    full_card = rid in RULE_SETS
    n_states = joker_states = 0
    rows = rules.rows_mask
    for mask, lanes in sample_states(rules, values, 1200 if full_card else 100, seed=len(rid)).items():
        lane_u = np.array([u for u, _ in lanes], dtype=np.int64)
        lane_f = np.array([f for _, f in lanes], dtype=np.int64)
        e0 = np.empty((D.N_KEEPS, len(lanes)))
        e1 = np.empty((D.N_KEEPS, len(lanes)))
        succ = np.empty((6 * rules.n_boxes, len(lanes) + 3))
        kernels.turn_tables(mask, lane_u, lane_f, values, args, e0, e1, succ, 3, no_tracking)
        for j, (u, f) in enumerate(lanes):
            state = (mask, u, f)
            tv = TurnValues(rules, state, light)
            r0, ne0, ne1 = numpy_turn_values(rules, state, values)
            # the kernel's roll rows of e0 are r0, or -inf where all three rolls must be used
            kernel_r0 = e0[D.ROLL_OFFSET :, j].tolist()
            assert tv.r0 == r0.tolist(), state
            assert kernel_r0 == ([-np.inf] * D.N_ROLLS if rules.all_rolls else tv.r0), state
            assert tv.e0 == ne0.tolist() == e0[:, j].tolist(), state
            assert tv.e1 == ne1.tolist() == e1[:, j].tolist(), state
            if n_states % 10 == 0:  # on the numpy memmap too
                on_memmap = TurnValues(rules, state, table.values)
                assert (on_memmap.r0, on_memmap.e0, on_memmap.e1) == (tv.r0, tv.e0, tv.e1)
            if rules.order == "choose" and mask == 0:  # the direction is chosen before the first roll
                value = max(TurnValues(rules.directed(d), state, light).value for d in ("down", "up"))
            else:
                value = tv.value
            assert value == pytest.approx(values[state], abs=1e-9)
            n_states += 1
            joker_states += rows and mask & rows == rows
    if full_card:
        assert n_states >= (1200 if not rules.forced_order else 150)  # forced order: 15 masks
    else:
        # up to 12 states per mask: fewer where a fill order leaves few masks
        assert n_states >= min(50, np.count_nonzero(~np.isnan(values[: rules.full_mask])))
    if rules.bonus or rules.joker != "none":
        # five of a kind with every five-of-a-kind row filled: Joker and bonus
        assert joker_states > (300 if full_card else 10)


@pytest.mark.parametrize(
    "rid",
    [SMALL_RULES[0], SMALL_RULES[1], SMALL_RULES[4]]  # Joker and bonus; order=choose; all-rolls and rows
    + [pytest.param(rid, marks=pytest.mark.slow) for rid in ("yahtzee", "yatzy-forced", "yahtzee-free-joker")],
)  # fmt: skip
def test_light_advisor_equals_the_numpy_table_advisor(tables_dir, rid):
    numpy_advisor = tables_dir.advisor(rid)
    light_advisor = Advisor.load(rid, tables_dir, light=True)
    assert isinstance(light_advisor.table.values, ValueFile)
    n = 400 if rid in RULE_SETS else 100
    for p in random_positions(numpy_advisor.rules, n, seed=11):
        assert light_advisor.advise(p) == numpy_advisor.advise(p)
        assert light_advisor.card_value(p.card) == numpy_advisor.card_value(p.card)


@pytest.mark.parametrize("rid", SMALL_RULES)
def test_full_card_state_has_nothing_to_roll_for(tables_dir, rid):
    rules = get_rules(rid)
    tables_dir.table(rules)
    for flag in range(rules.n_flags):  # with five-of-a-kind rows filled: no Joker placement either
        tv = TurnValues(rules, (rules.full_mask, 0, flag), load_table(rules, tables_dir, light=True).values)
        assert tv.r0 == [-np.inf] * D.N_ROLLS and tv.value == -np.inf


# --------------------------------------------------------------------------- the light reader


@pytest.mark.parametrize("rid", [SMALL, pytest.param("yahtzee", marks=pytest.mark.slow)])
def test_value_file_reads_what_numpy_reads(tables_dir, rid):
    table = tables_dir.table(rid)
    light = load_table(rid, tables_dir, light=True)
    values, vf = np.asarray(table.values), light.values
    assert vf.shape == values.shape and vf.dtype == "float64"
    assert light.manifest == table.manifest and light.path == table.path
    assert light.empty_card_value == table.empty_card_value
    rng = random.Random(3)
    n0, n1, n2 = values.shape
    for _ in range(20_000):
        index = (rng.randrange(-n0, n0), rng.randrange(-n1, n1), rng.randrange(-n2, n2))
        got, want = vf[index], float(values[index])
        assert type(got) is float and (got == want or (got != got and want != want)), index
    for index in [(n0, 0, 0), (0, n1, 0), (0, 0, n2), (-n0 - 1, 0, 0)]:
        with pytest.raises(IndexError):
            vf[index]
    as_array = np.asarray(vf)
    assert as_array.shape == values.shape and not as_array.flags.writeable
    assert np.array_equal(as_array, values, equal_nan=True)
    assert np.array(vf, copy=True).flags.writeable


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_value_file_header_versions_and_order(tmp_path, version, order):
    values = (
        np.asfortranarray(np.arange(60.0).reshape(3, 4, 5))
        if order == "F"
        else np.arange(60.0).reshape(3, 4, 5)
    )
    path = tmp_path / "v.npy"
    with open(path, "wb") as fh:
        np.lib.format.write_array(fh, values, version=version)
    vf = ValueFile.open(path)
    assert vf.shape == (3, 4, 5) and vf.fortran_order == (order == "F")
    assert [vf[i, j, k] for i in range(3) for j in range(4) for k in range(5)] == list(range(60))
    assert np.array_equal(np.asarray(vf), np.load(path))


@pytest.mark.parametrize(
    "array",
    [np.zeros((2, 3, 4), dtype=np.float32), np.zeros((2, 3, 4), dtype=">f8"),
     np.zeros((2, 3), dtype=np.int64), np.zeros(5, dtype=np.uint8), np.zeros((2, 2, 2), dtype=bool)],
    ids=["float32", "big-endian", "2-d int64", "uint8", "bool"],
)  # fmt: skip
def test_value_file_names_shape_and_dtype_as_numpy(tmp_path, array):
    """What load_table's shape/dtype message shows must be what numpy shows."""
    path = tmp_path / "v.npy"
    np.save(path, array)
    vf, loaded = ValueFile.open(path), np.load(path, mmap_mode="r")
    assert (vf.shape, vf.dtype) == (loaded.shape, str(loaded.dtype))


def _mapped_kb(path) -> int | None:
    """This process's resident kilobytes of the maps of ``path`` (Linux's smaps; None elsewhere)."""
    try:
        with open("/proc/self/smaps") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    total, inside = 0, False
    for line in lines:
        head = line.split()
        # a map's first line: range, perms, offset, dev, inode[, path]
        if head and "-" in head[0] and len(head) >= 5:
            inside = line.endswith(str(path))
        elif inside and head[0] == "Rss:":
            total += int(head[1])
    return total


def test_release_pages_keeps_the_bytes_and_lets_the_pages_go(tmp_path):
    """release_pages on a view of a ValueFile's map: the same values read after it, and (Linux)
    the map's pages no longer resident; on an array that maps no file it does nothing."""
    from solver.engine.dp import kernel_values
    from solver.engine.store import release_pages

    values = np.arange(1 << 20, dtype=np.float32) / (1 << 20)  # 4 MB
    path = tmp_path / "w.npy"
    np.save(path, values)
    view = kernel_values(ValueFile.open(path), np.float32)  # what the target push holds
    assert float(view.sum(dtype=np.float64)) == float(values.sum(dtype=np.float64))
    before = _mapped_kb(path)
    release_pages(view)
    after = _mapped_kb(path)
    if before is not None:
        assert before >= 3000 and after < 500, (before, after)
    assert np.array_equal(view, values)
    plain = values.copy()
    release_pages(plain)
    release_pages(plain[::2])
    assert np.array_equal(plain, values)


def copy_table(tables_dir, tmp_path, rid=SMALL):
    name = tables_dir.table(rid).rules.id  # files are named by the canonical spec
    for ext in ("npy", "json"):
        shutil.copy(tables_dir.path / f"{name}.{ext}", tmp_path / f"{name}.{ext}")
    return tmp_path / f"{name}.npy", tmp_path / f"{name}.json"


def rehash(npy, manifest_path):
    """Make the manifest's sha256 match the file again (to reach the checks after the hash)."""
    reseal(manifest_path)


def truncate(npy, manifest_path):
    npy.write_bytes(npy.read_bytes()[: npy.stat().st_size // 2])


def truncate_in_header(npy, manifest_path):
    npy.write_bytes(npy.read_bytes()[:40])


def empty_file(npy, manifest_path):
    npy.write_bytes(b"")


def flip_byte(npy, manifest_path):
    data = bytearray(npy.read_bytes())
    data[len(data) // 3] ^= 0x01
    npy.write_bytes(bytes(data))


def not_npy(npy, manifest_path):
    npy.write_bytes(b"this is not a table\n" * 100)


def wrong_shape(npy, manifest_path):
    n_masks, n_upper, n_flags = np.load(npy, mmap_mode="r").shape
    np.save(npy, np.zeros((n_masks, n_upper, 3 - n_flags)))


def wrong_dtype(npy, manifest_path):
    shape = np.load(npy, mmap_mode="r").shape
    np.save(npy, np.zeros(shape, dtype=np.float32))


def bad_manifest(npy, manifest_path):
    manifest_path.write_text("{not json")


def manifest_not_an_object(npy, manifest_path):
    manifest_path.write_text("[1, 2]")


def wrong_format_version(npy, manifest_path):
    manifest = json.loads(manifest_path.read_text())
    manifest["format_version"] = 99
    manifest_path.write_text(json.dumps(manifest))


def other_rules(npy, manifest_path):
    manifest = json.loads(manifest_path.read_text())
    manifest["rules"] = get_rules(SMALL.replace("yahtzee+", "yahtzee-free-joker+")).describe()  # same shape
    manifest_path.write_text(json.dumps(manifest))


CORRUPTIONS = [
    truncate, truncate_in_header, empty_file, flip_byte, not_npy, wrong_shape, wrong_dtype,
    bad_manifest, manifest_not_an_object, wrong_format_version, other_rules,
]  # fmt: skip


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_light_reader_refuses_what_load_table_refuses(tables_dir, tmp_path, corrupt):
    """With the checksum, or without it once the manifest's hash is made to match: the same error."""
    npy, manifest_path = copy_table(tables_dir, tmp_path)
    corrupt(npy, manifest_path)

    def error(**options) -> TableError | None:
        try:
            load_table(SMALL, tmp_path, **options)
        except TableError as exc:
            return exc
        return None

    for check_hash in (True, False):
        numpy_error, light_error = error(check_hash=check_hash), error(check_hash=check_hash, light=True)
        if not check_hash and corrupt is flip_byte:  # only the checksum sees a flipped bit
            assert numpy_error is light_error is None
            continue
        assert type(light_error) is type(numpy_error) and numpy_error is not None
        light, want = str(light_error), str(numpy_error)
        assert light.endswith("; rebuild it")  # the command is the CLI's to word, from the fields
        assert f"rebuild it with: yahtzee tables build --rules {get_rules(SMALL).id} --force" in error_text(
            light_error
        )
        if "corrupt or truncated (" in want:  # the reason in brackets is the reader's own
            assert light.split(" (")[0] == want.split(" (")[0]
            assert light.rsplit("); ", 1)[1] == want.rsplit("); ", 1)[1]
        else:
            assert light == want
    if corrupt not in (flip_byte, bad_manifest, manifest_not_an_object, wrong_format_version, other_rules):
        rehash(npy, manifest_path)  # a manifest that vouches for the bad file: the file checks still hold
        for light in (False, True):
            with pytest.raises(TableError, match="rebuild"):
                load_table(SMALL, tmp_path, light=light)


def test_light_reader_refuses_trailing_bytes(tables_dir, tmp_path):
    """np.load ignores bytes past the data; the light reader wants the exact size save_table writes."""
    npy, manifest_path = copy_table(tables_dir, tmp_path)
    with open(npy, "ab") as fh:
        fh.write(b"\0" * 8)
    rehash(npy, manifest_path)
    with pytest.raises(TableError, match="corrupt or truncated"):
        load_table(SMALL, tmp_path, light=True)


@pytest.mark.parametrize("remove", [("npy",), ("json",)])
def test_light_reader_missing_table(tables_dir, tmp_path, remove):
    npy, manifest_path = copy_table(tables_dir, tmp_path)
    (npy if remove == ("npy",) else manifest_path).unlink()
    with pytest.raises(MissingTableError) as light_error:
        load_table(SMALL, tmp_path, light=True)
    with pytest.raises(MissingTableError) as numpy_error:
        load_table(SMALL, tmp_path)
    assert str(light_error.value) == str(numpy_error.value)


# --------------------------------------------------------------------------- dice and rules layers


def test_dice_tuples_agree_with_the_lazy_arrays():
    assert np.array_equal(D.KEEP_COUNTS, D.KEEP_FACE_COUNTS)
    assert D.KEEP_SIZE.tolist() == [len(k) for k in D.KEEPS]
    assert D.ADD_DIE[: D.ROLL_OFFSET].tolist() == [list(t) for t in D.KEEP_PLUS]
    assert (D.ADD_DIE[D.ROLL_OFFSET :] == -1).all()
    assert [[j for j in row if j >= 0] for row in D.REMOVE_DIE.tolist()] == [list(t) for t in D.KEEP_MINUS]
    assert D.ROLL_PROB.tolist() == list(D.ROLL_PROBS)
    assert D.N_SUBKEEPS.tolist() == [len(s) for s in D.ROLL_SUBKEEPS]
    for r, subs in enumerate(D.ROLL_SUBKEEPS):
        assert D.SUBKEEPS[r, : len(subs)].tolist() == list(subs)
    for name, dtype in [("KEEP_COUNTS", np.int64), ("KEEP_SIZE", np.int64), ("ADD_DIE", np.int64),
                        ("REMOVE_DIE", np.int64), ("ROLL_PROB", np.float64), ("SUBKEEPS", np.int64),
                        ("N_SUBKEEPS", np.int64)]:  # fmt: skip
        array = getattr(D, name)
        assert array.dtype == dtype and not array.flags.writeable and array.flags.c_contiguous
        assert getattr(D, name) is array and name in dir(D)
    from solver.core.dice import SUBKEEPS

    assert SUBKEEPS is D.SUBKEEPS
    with pytest.raises(AttributeError, match="NOT_AN_ARRAY"):
        D.NOT_AN_ARRAY  # noqa: B018


def test_dice_accepts_numpy_integers_only():
    assert str(D.Dice((np.int64(6), np.int8(1), 2, 3, 4))) == "12346"
    for bad in (True, np.True_, 1.0, np.float64(1.0)):
        with pytest.raises(D.DiceError):
            D.Dice((bad, 1, 2, 3, 4))


@pytest.mark.parametrize("rid", sorted(RULE_SETS) + SMALL_RULES)
def test_score_tuples_agree_with_the_score_table(rid):
    rules = get_rules(rid)
    table = rules.score_table
    assert table.dtype == np.int64 and table.shape == (252, rules.n_boxes)
    assert table.flags.c_contiguous and not table.flags.writeable
    assert table.T.tolist() == [list(column) for column in rules.scores_by_box]
    for b, column in enumerate(rules.scores_by_box):
        assert set(column) <= rules.possible_scores[b]


# --------------------------------------------------------------------------- the hint process


def imported_modules(importtime_log: str) -> list[str]:
    return [
        ln.rsplit("|", 1)[-1].strip() for ln in importtime_log.splitlines() if ln.startswith("import time:")
    ]


@pytest.mark.parametrize(
    "argv",
    [
        HINT,
        ["hint", "--dice", "33456", "--rolls-left", "0", "--card", "ones=3", "--json"],
        ["value", "--card", "ones=3"],
    ],
    ids=["hint", "hint-json", "value"],
)
@pytest.mark.parametrize("rid", [SMALL, pytest.param("yahtzee", marks=pytest.mark.slow)])
def test_hint_and_value_import_neither_numpy_nor_numba(tables_dir, tmp_path, argv, rid):
    tables_dir.table(rid)
    rules = [] if rid == "yahtzee" else ["--rules", rid]  # yahtzee: the default
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "solver", *argv, *rules, "--tables", str(tables_dir)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    modules = imported_modules(proc.stderr)
    assert "solver.advice.advisor" in modules and "mmap" in modules
    heavy = [m for m in modules if m.split(".")[0] in ("numpy", "numba")]
    assert not heavy, f"{argv[0]} imported {heavy[:5]}"
    if "--json" in argv:  # the light path's answer is the numpy-table advisor's
        advisor = tables_dir.advisor(rid)
        want = advisor.advise(Position.parse("ones=3", "33456", 0, rid)).to_json()
        assert json.loads(proc.stdout) == want


def test_a_first_hint_reads_the_shipped_table_without_numba(tmp_path, golden):
    """A fresh install's first hint (the README's first command: no --tables, an empty tables
    folder, an empty numba cache): the table shipped with the package, read without numpy,
    numba or matplotlib; nothing compiled, built or written; the golden position's values."""
    tables, cache = tmp_path / "tables", tmp_path / "numba-cache"
    env = dict(os.environ, YAHTZEE_TABLES=str(tables), NUMBA_CACHE_DIR=str(cache))
    g = next(g for g in golden if g["rules"] == "yahtzee" and g["rolls_left"] == 2)
    argv = ["hint", "--card", g["card"], "--dice", g["dice"], "--rolls-left", "2", "--json"]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "solver", *argv],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    modules = imported_modules(proc.stderr)
    assert "solver.engine.tables" in modules and "mmap" in modules
    heavy = [m for m in modules if m.split(".")[0] in ("numpy", "numba", "matplotlib", "tqdm")]
    assert not heavy, f"the first hint imported {heavy[:5]}"
    logged = [ln for ln in proc.stderr.splitlines() if not ln.startswith("import time:")]
    assert logged == [], logged  # no "compiling the solver", no progress bar
    assert not tables.exists() and not cache.exists()
    options = json.loads(proc.stdout)["options"]
    got = {"keep " + " ".join(map(str, o["keep"])): o["ev"] for o in options}
    assert got.keys() == g["options"].keys()
    assert all(abs(got[k] - ev) <= 1e-6 for k, ev in g["options"].items()), (got, g["options"])


def test_importing_the_package_does_not_import_numpy():
    code = "import sys, solver, solver.cli; print(sorted(m for m in ('numpy', 'numba') if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"

"""Maxi Yatzy (six dice, ``maxi``; RULES.md "Maxi Yatzy"): the six-dice layer, the scorers on the
rule texts' cases, the spec and its bonus modifier, the kernels' rules against the plain-Python
ones, the DP against the naive reference solver on reduced six-dice cards, the packed table, and
-- with the full table built -- the published value.
"""

from __future__ import annotations

import itertools
import math
import random
import time

import numpy as np
import pytest
from clirun import only, run
from naive import NaiveSolver

from solver.core import dice as D
from solver.core.errors import UsageError
from solver.core.rules import get_rules
from solver.engine import dp, packed

SIX = D.layer(6)


def counts(faces: str) -> tuple[int, ...]:
    return tuple(faces.count(str(f)) for f in range(1, 7))


# --------------------------------------------------------------------------- the dice layer
def test_six_dice_layer_counts_and_probabilities():
    assert (SIX.n_keeps, SIX.n_rolls, SIX.roll_offset) == (924, 462, 462)
    five = D.layer(5)
    assert (five.n_keeps, five.n_rolls) == (462, 252) and five.keeps == D.KEEPS
    assert SIX.keeps[: five.n_keeps] == five.keeps  # a keep has one index in both layers
    assert math.isclose(sum(SIX.roll_probs), 1.0, abs_tol=1e-12)
    # each roll's probability by counting the 6**6 ordered throws
    ways = {}
    for t in itertools.product(range(1, 7), repeat=6):
        key = tuple(sorted(t))
        ways[key] = ways.get(key, 0) + 1
    assert {r: p for r, p in zip(SIX.rolls, SIX.roll_probs, strict=True)} == {
        r: pytest.approx(w / 6**6, abs=1e-15) for r, w in ways.items()
    }
    arrays = SIX.arrays
    assert arrays["SUBKEEPS"].shape == (462, 64) and arrays["N_SUBKEEPS"].max() == 64
    assert (
        arrays["ADD_DIE"][: SIX.roll_offset].min() >= 0 and (arrays["ADD_DIE"][SIX.roll_offset :] == -1).all()
    )
    with pytest.raises(ValueError):
        D.layer(7)


# --------------------------------------------------------------------------- the scorers
@pytest.mark.parametrize(
    "faces, box, score",
    [
        ("666612", "three_of_a_kind", 18),  # more matching dice qualify for fewer
        ("666612", "four_of_a_kind", 24),
        ("666612", "five_of_a_kind", 0),
        ("666662", "five_of_a_kind", 30),
        ("111166", "full_house", 15),  # a four and a pair: three of the four and the pair
        ("666611", "full_house", 20),
        ("555333", "full_house", 21),  # two triples: the best selection, 3 x 5 + 2 x 3
        ("555331", "full_house", 21),
        ("555321", "full_house", 0),
        ("555553", "full_house", 0),
        ("112233", "three_pairs", 12),
        ("112222", "three_pairs", 0),
        ("112233", "two_pairs", 10),  # the two highest pairs
        ("222266", "two_pairs", 16),
        ("222222", "two_pairs", 0),
        ("112234", "one_pair", 4),
        ("666666", "one_pair", 12),
        ("123455", "small_straight", 15),  # 1-2-3-4-5 among the dice
        ("234566", "large_straight", 20),
        ("123456", "full_straight", 21),
        ("123456", "small_straight", 15),
        ("123446", "full_straight", 0),
        ("222555", "villa", 21),
        ("222255", "villa", 0),
        ("222255", "tower", 18),
        ("222222", "tower", 0),
        ("444444", "maxi_yatzy", 100),
        ("444443", "maxi_yatzy", 0),
        ("123456", "chance", 21),
        ("444443", "fours", 20),
    ],
)
def test_maxi_scores_follow_the_rule_text(faces, box, score):
    rules = get_rules("maxi")
    assert rules.box_score(rules.box_index[box], counts(faces)) == score


def test_maxi_card_and_spec():
    rules = get_rules("maxi-yatzy")
    assert rules is get_rules("maxi") and rules.id == "maxi"
    assert (rules.n_dice, rules.n_boxes, rules.n_turns, rules.n_rolls) == (6, 20, 20, 462)
    assert (rules.upper_threshold, rules.upper_bonus, rules.n_flags, rules.joker, rules.bonus) == (
        75,
        50,
        1,
        "none",
        0,
    )
    assert rules.reference_value == 383.305389
    swedish = get_rules("maxi-yatzy+bonus=084/100")
    assert swedish.id == "maxi+bonus=84/100" and (swedish.upper_threshold, swedish.upper_bonus) == (84, 100)
    assert get_rules("maxi+all-rolls+bonus=84/100+lower-only").id == "maxi+all-rolls+lower-only+bonus=84/100"
    assert rules.describe()["n_dice"] == 6 and "n_dice" not in get_rules("yatzy").describe()
    assert "dice: 6" in rules.card_text()
    assert rules.score_table.shape == (462, 20)


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("maxi+triple", "triple"),
        ("maxi+yatzy-rows=2", "yatzy-rows"),
        ("maxi+extra-bonus=50", "extra-bonus"),
        ("maxi+bonus=84", "THRESHOLD/POINTS"),
        ("maxi+bonus=200/100", "THRESHOLD/POINTS"),
        ("maxi+bonus=84/0", "THRESHOLD/POINTS"),
        ("yacht+bonus=10/10", "no upper bonus"),
    ],
)
def test_maxi_conflicts_are_usage_errors(spec, needle):
    with pytest.raises(UsageError) as err:
        get_rules(spec)
    assert needle in str(err.value) and "\n" not in str(err.value)


# --------------------------------------------------------------------------- the kernels' rules
def test_rule_arrays_of_six_dice():
    ra = dp.rule_arrays(get_rules("maxi"))
    assert ra.n_dice == 6 and ra.n_class == 7
    assert ra.add_die.shape == (924, 6) and ra.drop_one.shape == (924, 6) and ra.score.shape == (462, 20)
    assert ra.subkeeps.shape == (462, 64) and ra.rows_mask == 0 and ra.upper_cap == 75
    five = dp.rule_arrays(get_rules("yatzy"))
    assert five.n_dice == 5 and five.n_class == 6 and five.add_die.shape == (462, 6)


@pytest.mark.parametrize(
    "spec, keep",
    [
        ("maxi", "sixes,three_pairs,villa,maxi_yatzy"),
        ("maxi+bonus=84/100", "fours,fives,sixes,tower"),
        ("maxi+order=down", "ones,full_house,full_straight,chance"),
    ],
)
def test_placement_kernel_equals_the_rules_on_six_dice(spec, keep):
    """The numba twins (fill order, scores, step with the upper bonus) through ``placement_values``
    against ``RuleSet.placements`` and ``RuleSet.step`` on every (mask, roll) of a reduced card."""
    from solver.engine import kernels

    rules = only(spec, keep)
    rng = random.Random(len(spec))
    values = np.random.default_rng(3).uniform(0, 300, (1 << rules.n_boxes, rules.upper_cap + 1, 1))
    roll_counts = SIX.keep_face_counts[SIX.roll_offset :]
    positions = [
        (m, r, rng.randrange(rules.upper_cap + 1)) for m in range(1 << rules.n_boxes) for r in range(462)
    ]
    ms, rs, us = (np.array(col, dtype=np.int64) for col in zip(*positions, strict=True))
    n, nb = len(positions), rules.n_boxes
    ev, scores, bonus = np.empty((n, nb)), np.empty((n, nb), dtype=np.int64), np.empty(n, dtype=np.int64)
    kernels.placement_values(
        ms, us, np.zeros(n, dtype=np.int64), rs, values, dp.rule_arrays(rules), ev, scores, bonus
    )
    bad = []
    for i, (mask, r, upper) in enumerate(positions):
        want_ev, want_scores = [-np.inf] * nb, [-1] * nb
        for b, s, roll_bonus in rules.placements(mask, roll_counts[r], False):
            points, (nmask, nu, nf) = rules.step((mask, upper, 0), b, s)
            want_ev[b] = points + values[nmask, nu, nf] + roll_bonus
            want_scores[b] = s
        if ev[i].tolist() != want_ev or scores[i].tolist() != want_scores or bonus[i] != 0:
            bad.append(positions[i])
    assert not bad, bad[:5]


# --------------------------------------------------------------------------- against the naive solver
REDUCED = {
    "maxi-kinds": ("maxi", "sixes,three_pairs,full_house,maxi_yatzy"),
    "maxi-straights": ("maxi", "ones,two_pairs,small_straight,full_straight"),
    "maxi-swedish": ("maxi+bonus=10/30", "fives,sixes,villa,tower"),
    "maxi-all-rolls": ("maxi+all-rolls", "twos,one_pair,large_straight"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REDUCED))
def test_dp_equals_naive_on_reduced_six_dice_cards(name):
    rules = only(*REDUCED[name])
    values = dp.solve(rules)
    naive = NaiveSolver(rules)
    start = time.perf_counter()
    reachable = naive.reachable_states()
    computed = {
        tuple(int(i) for i in idx) for idx in np.argwhere(~np.isnan(values)) if idx[0] != rules.full_mask
    }
    assert computed == {(m, u, 0) for m, u, _ in reachable if m != rules.full_mask}
    for state in sorted(reachable, key=lambda s: -bin(s[0]).count("1")):
        assert values[state[0], state[1], 0] == pytest.approx(naive.value(state), abs=1e-9, rel=0), state
    assert time.perf_counter() - start < 120


def test_swedish_bonus_changes_the_value():
    """The bonus modifier is not a no-op: 100 at 84 against 50 at 75."""
    finnish = dp.solve(only("maxi", "fours,fives,sixes,chance"))
    swedish = dp.solve(only("maxi+bonus=84/100", "fours,fives,sixes,chance"))
    assert finnish[0, 0, 0] != pytest.approx(swedish[0, 0, 0], abs=1e-6)


# --------------------------------------------------------------------------- the packed table
def test_packed_table_round_trips_bit_for_bit():
    rules = only("maxi", "ones,fours,sixes,one_pair,villa,chance")
    values = dp.solve(rules)
    stored = packed.pack(rules, values)
    assert stored.shape == (packed.packed_length(rules),) and not np.isnan(stored).any()
    back = packed.unpack(rules, stored)
    assert back.tobytes() == values.tobytes()  # NaN where the DP computes nothing, bit for bit
    assert packed.packed_problem(rules, stored) is None
    broken = stored.copy()
    broken[5] = np.nan
    assert "1 values" in packed.packed_problem(rules, broken)
    # 36,864,000 values for the full card: the published count of canonical states
    assert packed.packed_length(get_rules("maxi")) == 36_864_000
    assert packed.is_packed(get_rules("maxi")) and not packed.is_packed(get_rules("yatzy"))


def test_table_of_a_reduced_card_saves_and_loads(tmp_path):
    from solver.engine.tables import build_table, load_table

    rules = only("maxi", "twos,sixes,tower,chance")
    built = build_table(rules, tmp_path, progress=False)
    again = load_table(rules, tmp_path)
    assert np.asarray(again.values).tobytes() == dp.solve(rules).tobytes()
    assert built.empty_card_value == again.empty_card_value == again.value(0, 0, 0)
    assert (tmp_path / f"{rules.id}.npy").stat().st_size == 128 + 8 * packed.packed_length(rules)


# --------------------------------------------------------------------------- the full game
def test_full_maxi_value_matches_the_published_one():
    """With the full table built (``yahtzee tables build --rules maxi``, four minutes) in the folder
    ``$YAHTZEE_MAXI_TABLES`` names (the session's own tables folder is a fresh one): 383.305389 to
    3e-5, the published value being stored in float32."""
    import os

    from solver.engine.tables import load_table

    folder = os.environ.get("YAHTZEE_MAXI_TABLES")
    if not folder:
        pytest.skip("YAHTZEE_MAXI_TABLES names no folder with the maxi table")
    table = load_table("maxi", folder)
    assert table.empty_card_value == pytest.approx(383.305389, abs=3e-5)
    assert table.values.shape == (1 << 20, 76, 1)


# --------------------------------------------------------------------------- the surfaces
#: a reduced Maxi card whose table builds in well under a second: the surfaces' tests play it
SMALL = "maxi+without=ones,twos,threes,one_pair,two_pairs,three_pairs,four_of_a_kind,five_of_a_kind,large_straight,full_straight,villa,tower,chance"


@pytest.fixture(scope="module")
def small_tables(tmp_path_factory) -> str:
    from solver.engine.tables import build_table

    folder = tmp_path_factory.mktemp("maxi-tables")
    build_table(SMALL, folder, progress=False)
    return str(folder)


def test_light_read_of_a_packed_table_is_the_dense_one(small_tables):
    """The single hint's reader (:class:`PackedValues`, no numpy) gives every state's value as the
    unpacked table does, NaN where none is computed."""
    from solver.engine.tables import load_table

    rules = get_rules(SMALL)
    light, dense = load_table(rules, small_tables, light=True), load_table(rules, small_tables)
    assert isinstance(light.values, packed.PackedValues)
    full = np.asarray(dense.values)
    got = np.array([[light.values[m, u, 0] for u in range(full.shape[1])] for m in range(full.shape[0])])
    assert got.tobytes() == full[:, :, 0].tobytes()
    assert np.asarray(light.values).tobytes() == full.tobytes()  # numpy's view of it: unpacked


def test_hint_on_six_dice(capsys, small_tables):
    import json

    code, out, _ = run(capsys, "hint", "--rules", SMALL, "--dice", "6 6 6 5 5 2", "--rolls-left", "0",
                       "--tables", small_tables, "--json")  # fmt: skip
    assert code == 0
    advice = json.loads(out)
    assert advice["dice"] == "255666" and advice["decision"] == "score"
    scores = {o["category"]: o["score"] for o in advice["options"]}
    assert scores == {"fours": 0, "fives": 10, "sixes": 18, "three_of_a_kind": 18, "small_straight": 0,
                      "full_house": 28, "maxi_yatzy": 0}  # fmt: skip
    code, out, _ = run(capsys, "hint", "--rules", SMALL, "--dice", "111111", "--rolls-left", "2",
                       "--tables", small_tables, "--top", "0")  # fmt: skip
    best = next(line for line in out.splitlines() if line.startswith("Best:"))
    assert code == 0 and "stop and score 100 in maxi_yatzy" in best
    assert "reroll all six dice" in out
    code, _, err = run(
        capsys, "hint", "--rules", SMALL, "--dice", "11111", "--rolls-left", "2", "--tables", small_tables
    )
    assert code == 2 and "need exactly 6 dice, got 5" in err


def test_value_on_six_dice_matches_the_dp(capsys, small_tables):
    import json

    code, out, _ = run(capsys, "value", "--rules", SMALL, "--tables", small_tables, "--json")
    assert code == 0
    assert json.loads(out)["ev"] == pytest.approx(dp.solve(get_rules(SMALL))[0, 0, 0], abs=1e-9)


def test_hint_batch_on_six_dice_is_the_single_hint(capsys, small_tables):
    """``hint --batch`` of six-dice positions met in random games (every rolls-left) answers each
    line as ``hint --json`` answers it alone; a five-dice roll on its line is that line's error."""
    import json

    from test_batch import random_positions

    positions = random_positions(SMALL, 40, seed=11)
    lines = [
        json.dumps({"card": str(p.card), "dice": str(p.dice), "rolls_left": p.rolls_left}) for p in positions
    ]
    lines.insert(3, json.dumps({"dice": "12345", "rolls_left": 1}))
    batch = small_tables + "/positions.jsonl"
    with open(batch, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    code, out, _ = run(capsys, "hint", "--rules", SMALL, "--batch", batch, "--tables", small_tables)
    answers = out.splitlines()
    assert code == 0 and len(answers) == len(lines)
    assert json.loads(answers.pop(3)) == {"error": "line 4: need exactly 6 dice, got 5: '12345'"}
    assert {p.rolls_left for p in positions} == {0, 1, 2}
    for p, answer in zip(positions, answers, strict=True):
        code, alone, _ = run(capsys, "hint", "--rules", SMALL, "--card", str(p.card), "--dice", str(p.dice),
                             "--rolls-left", str(p.rolls_left), "--tables", small_tables, "--json", "--top", "0")  # fmt: skip
        assert code == 0 and json.loads(answer) == json.loads(alone), p


@pytest.mark.parametrize("bot", ["optimal", "frequent"])
def test_export_of_six_dice_is_the_single_hints(capsys, small_tables, tmp_path, bot):
    """``export --rules maxi``: every decision of a bot's six-dice games, each line the single
    ``hint --json`` of its position with the game, turn, roll and the bot's move among its options;
    the Parquet file holds the same rows, and so do spread positions in both formats."""
    import json
    from collections import Counter

    from solver.advice.advisor import Advisor
    from solver.core.card import ScoreCard
    from solver.core.dice import SixDice
    from solver.core.position import Position
    from solver.engine.tables import load_table
    from solver.play.export import parquet_rows

    advisor = Advisor(load_table(get_rules(SMALL), small_tables))
    rules = advisor.rules
    lines = {}
    for fmt in ("jsonl", "parquet"):
        path = tmp_path / f"games.{fmt}"
        code, _, err = run(capsys, "export", "--rules", SMALL, "--bot", bot, "--games", "3", "--seed", "4",
                           "--tables", small_tables, "--quiet", str(path))  # fmt: skip
        assert code == 0, err
        rows = (
            [json.loads(x) for x in path.read_text().splitlines()] if fmt == "jsonl" else parquet_rows(path)
        )
        lines[fmt] = rows
    assert lines["jsonl"] == lines["parquet"]
    games = {row["game"] for row in lines["jsonl"]}
    assert games == set(range(3))
    for row in lines["jsonl"]:
        extra = {k: row.pop(k) for k in ("game", "turn", "roll", "chosen")}
        card = ScoreCard.parse(row["card"], rules)
        position = Position(card, SixDice.parse(row["dice"]), row["rolls_left"])
        assert row == advisor.advise(position).to_json()
        assert 1 <= extra["turn"] <= rules.n_turns and 1 <= extra["roll"] <= 3
        assert row["rolls_left"] == 0 or extra["roll"] == 3 - row["rolls_left"]  # a box after any roll
        chosen = row["options"][extra["chosen"]]
        if bot == "optimal":
            assert chosen["best"]
        if "keep" in chosen:
            assert not Counter(chosen["keep"]) - Counter(int(f) for f in row["dice"])
    scored = [row for row in lines["jsonl"] if row["rolls_left"] == 0]
    assert len(scored) == 3 * rules.n_turns  # every turn of every game ends in a box
    spread = {}
    for fmt in ("jsonl", "parquet"):
        path = tmp_path / f"spread.{fmt}"
        assert run(capsys, "export", "--rules", SMALL, "--spread", "--positions", "150", "--tables", small_tables,
                   "--quiet", str(path))[0] == 0  # fmt: skip
        spread[fmt] = (
            [json.loads(x) for x in path.read_text().splitlines()] if fmt == "jsonl" else parquet_rows(path)
        )
    assert spread["jsonl"] == spread["parquet"] and len(spread["jsonl"]) == 150
    assert {len(row["dice"]) for row in spread["jsonl"]} == {6} and {
        r["rolls_left"] for r in spread["jsonl"]
    } == {0, 1, 2}


def test_simulate_on_six_dice(capsys, small_tables):
    import json

    rules = get_rules(SMALL)
    means = {}
    for bot in ("optimal", "frequent", "random"):
        code, out, _ = run(capsys, "simulate", "--rules", SMALL, "--bot", bot, "--games", "3000",
                           "--tables", small_tables, "--json", "--quiet")  # fmt: skip
        assert code == 0, bot
        stats = json.loads(out)["stats"]
        means[bot] = (stats["mean"], stats["standard_error"])
    # the optimal bot's mean is the table's value, within its error; the simple bots play worse
    value = dp.solve(rules)[0, 0, 0]
    assert abs(means["optimal"][0] - value) < 4 * means["optimal"][1]
    assert means["random"][0] < means["frequent"][0] < means["optimal"][0]


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["simulate", "--bot", "target:300"], "does not play six dice"),
        (["hint", "--dice", "123456", "--rolls-left", "1", "--target", "300"], "does not take six dice"),
        (["distribution", "--policy", "target:200"], "does not take six dice"),
        (["match", "--bots", "win,random"], "does not play six dice in a match yet"),
        (["tables", "build", "--target"], "does not take six dice"),
    ],
)
def test_surfaces_without_six_dice_refuse_in_one_line(capsys, small_tables, argv, needle):
    code, out, err = run(capsys, *argv, "--rules", SMALL)
    assert code == 2 and needle in err and err.count("\n") == 1, err


def test_python_surfaces_take_six_dice():
    """The Python entry points that took five dice only take six now (tests/test_maxi_surfaces.py
    checks them): a game, the score distribution, the Gymnasium environment."""
    from solver.core.card import ScoreCard
    from solver.engine.distribution import score_distribution
    from solver.play.game import Game

    rules = get_rules(SMALL)
    assert Game(rules, ["you"]).n_dice == 6  # a game plays six dice (tests/test_maxi_play.py)
    values = dp.solve(rules)
    assert score_distribution(ScoreCard.parse("", rules), values).mean == pytest.approx(
        values[0, 0, 0], abs=1e-9
    )
    pytest.importorskip("gymnasium")
    from solver.play.gym_env import YahtzeeEnv

    assert YahtzeeEnv(rules, regret=False).n_dice == 6


def test_web_advisor_takes_six_dice_but_no_target_table():
    """The web's games and its advisor page take six dice (tests/test_maxi_surfaces.py); what
    needs a target table refuses them in one line."""
    from solver.web.service import ApiError, Service

    service = object.__new__(Service)
    assert Service.rules(service, "maxi").n_dice == 6
    with pytest.raises(ApiError) as err:
        Service.rules(service, "maxi", "a target table")
    assert err.value.status == 400 and "does not take six dice" in err.value.message


def test_a_damaged_packed_table_is_refused_by_both_readers(tmp_path):
    """A value made NaN in the file: the single hint's reader (no sha256 for a packed table)
    finds it by its bytes, the full reader by the checksum."""
    import struct

    from solver.core.errors import TableError
    from solver.engine.store import ValueFile
    from solver.engine.tables import build_table, load_table

    rules = get_rules(SMALL)
    build_table(rules, tmp_path, progress=False)
    npy = tmp_path / f"{rules.id}.npy"
    opened = ValueFile.open(npy)
    offset = opened.offset
    opened.close()
    data = bytearray(npy.read_bytes())
    data[offset + 8 * 7 : offset + 8 * 8] = struct.pack("<d", float("nan"))
    npy.write_bytes(bytes(data))
    with pytest.raises(TableError, match="impossible"):
        load_table(rules, tmp_path, light=True)
    with pytest.raises(TableError, match="sha256"):
        load_table(rules, tmp_path)
    with pytest.raises(TableError, match="impossible"):
        load_table(rules, tmp_path, check_hash=False)


def _damaged_copy(tmp_path, change):
    """A built table of ``SMALL`` in ``tmp_path`` whose packed values ``change(values)`` rewrote
    in place (float64 array), its manifest left as it was."""
    from solver.engine.store import ValueFile
    from solver.engine.tables import build_table

    rules = get_rules(SMALL)
    build_table(rules, tmp_path, progress=False)
    npy = tmp_path / f"{rules.id}.npy"
    opened = ValueFile.open(npy)
    offset, n = opened.offset, opened.shape[0]
    opened.close()
    data = bytearray(npy.read_bytes())
    values = np.frombuffer(data, dtype="<f8", count=n, offset=offset).copy()
    change(values)
    data[offset:] = values.tobytes()
    npy.write_bytes(bytes(data))
    return rules


@pytest.mark.parametrize(
    "change, needle",
    [
        (lambda v: v.__setitem__(slice(-1, None), 1.0), "full card"),  # the full card's last value
        (lambda v: v.__imul__(1.0 + 1e-6), "Bellman"),  # every value in range, none following
    ],
)
def test_the_light_read_of_a_large_packed_table_checks_without_every_byte(
    tmp_path, monkeypatch, change, needle
):
    """Beyond ``LIGHT_FULL_CHECK`` values (Maxi Yatzy's table), a single hint's read checks the
    full card's zeros and the sampled Bellman steps, not every byte: both damages are refused."""
    from solver.core.errors import TableError
    from solver.engine import tables
    from solver.engine.tables import load_table

    rules = _damaged_copy(tmp_path, change)
    monkeypatch.setattr(tables, "LIGHT_FULL_CHECK", 0)
    with pytest.raises(TableError, match=needle):
        load_table(rules, tmp_path, light=True)
    with pytest.raises(TableError):
        load_table(rules, tmp_path, check_hash=False)


def test_a_light_read_refuses_a_damaged_value_when_it_reads_it(tmp_path, monkeypatch):
    """One NaN among a large packed table's values: the light read may load it (its sample need not
    meet the value: what ``LIGHT_FULL_CHECK``'s note says it does not catch), but reading that value
    raises the table's error, and the full reader refuses the table."""
    from solver.core.errors import TableError
    from solver.engine import tables
    from solver.engine.tables import load_table

    rules = get_rules(SMALL)
    mask = 0b11  # a card of two boxes filled: its first stored upper total
    bits = sum(1 << (rules.boxes[b].face - 1) for b in rules.upper_indices if mask >> b & 1)
    u = packed.slots(rules)[bits][0][0]
    at = packed.PackedValues(rules, []).offset(mask)
    _damaged_copy(tmp_path, lambda v: v.__setitem__(at, float("nan")))
    monkeypatch.setattr(tables, "LIGHT_FULL_CHECK", 0)
    try:
        light = load_table(rules, tmp_path, light=True)
    except TableError as exc:  # the sample read it
        assert "impossible" in str(exc)
    else:
        with pytest.raises(TableError, match="impossible"):
            light.values[mask, u, 0]
        assert light.values[0, 0, 0] > 0  # the others read as before
    with pytest.raises(TableError, match="impossible"):
        load_table(rules, tmp_path, check_hash=False)

"""Batch advice: the same answers as the single-position advisor, for many positions at once.

``advise_many`` (the turn_tables kernel, or the plain-Python recursion for small batches) against
``Advisor.advise`` one by one on thousands of random positions of random legal games,
five-of-a-kind rolls over-represented so that the Joker and bonus paths are hit; the
JSON lines path (``hint --batch``) against ``--json``; bad lines and order.  The fast loop
uses small rule sets (``yahtzee+lower-only`` has the Joker rule and the Yahtzee bonus);
the 13+ box tables are ``slow``.
"""

from __future__ import annotations

import io
import json
import random
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import solver.advice.batch as batch
from solver.advice.advisor import Advice, Advisor
from solver.advice.batch import BatchAdvisor, advise_json_lines, advise_many
from solver.cli.entry import main
from solver.core import dice as D
from solver.core.card import ScoreCard
from solver.core.dice import Dice
from solver.core.errors import UsageError
from solver.core.position import Position
from solver.core.rules import RULE_SETS, get_rules

EV_TOLERANCE = 1e-9
SMALL = "yahtzee+lower-only"  # 7 boxes, Joker and Yahtzee bonus: its table builds in milliseconds
slow = pytest.mark.slow


def random_positions(rules, n: int, seed: int, yahtzee_share: float = 0.2) -> list[Position]:
    """``n`` positions met in random legal games (each turn's card, random dice and rolls left)."""
    rng = random.Random(seed)
    rules = get_rules(rules)
    dice_of = D.dice_class(rules.n_dice)  # five dice, or six (Maxi Yatzy)

    def roll() -> Dice:
        if rng.random() < yahtzee_share:
            return dice_of((rng.randint(1, 6),) * rules.n_dice)
        return dice_of(tuple(rng.randint(1, 6) for _ in range(rules.n_dice)))

    out: list[Position] = []
    while len(out) < n:
        card = ScoreCard.empty(rules)
        while not card.is_complete and len(out) < n:
            out.append(Position(card, roll(), rng.randrange(3)))
            dice = roll()
            card = card.score(rng.choice(card.placements(dice)).box, dice)
    return out


def label(option) -> tuple:
    return (option.keep, option.category, option.score, option.bonus)


def assert_same_advice(got: Advice, want: Advice) -> None:
    """Same options in the same order with ``ev`` within 1e-9.

    Options whose ``ev`` differ by less than 1e-9 may come in either order (float noise
    between the kernel and the Python recursion; today they agree bit for bit and the order is the same).
    """
    assert got.position == want.position
    assert len(got.options) == len(want.options)
    want_ev = {label(o): o.ev for o in want.options}
    for g, w in zip(got.options, want.options, strict=True):
        assert abs(g.ev - w.ev) <= EV_TOLERANCE, (
            got.position,
            label(g),
            g.ev,
            w.ev,
        )  # no approx(): many calls
        if label(g) != label(w):
            assert abs(want_ev[label(g)] - w.ev) <= EV_TOLERANCE, (got.position, label(g), label(w))
        assert abs(g.expected_final - w.expected_final) <= EV_TOLERANCE
        assert abs(g.regret - w.regret) <= EV_TOLERANCE
        assert g.best == w.best
    assert {label(o) for o in got.options} == set(want_ev)


def assert_same_json(got: dict, want: dict) -> None:
    """Two ``hint --json`` objects: equal, floats within 2e-9 (each is rounded to 1e-9)."""
    assert {k: v for k, v in got.items() if k != "options"} == {
        k: v for k, v in want.items() if k != "options"
    }
    assert len(got["options"]) == len(want["options"])
    for g, w in zip(got["options"], want["options"], strict=True):
        assert g.keys() == w.keys()
        for key in g:
            if isinstance(w[key], float):
                assert abs(g[key] - w[key]) <= 2e-9, (key, g[key], w[key])
            else:
                assert g[key] == w[key]


def compare(advisor: Advisor, positions: list[Position]) -> None:
    got = BatchAdvisor(advisor.table).advise_many(positions)
    assert len(got) == len(positions)
    for p, g in zip(positions, got, strict=True):
        assert g.position is p
        assert_same_advice(g, advisor.advise(p))


@pytest.fixture(scope="module")
def yahtzee(tables_dir) -> Advisor:
    """The advisor of the small rule set with the Joker rule and the Yahtzee bonus."""
    return tables_dir.advisor(SMALL)


def test_batch_equals_the_advisor(yahtzee, monkeypatch):
    positions = random_positions(SMALL, 600, seed=1)
    assert sum(p.dice.is_yahtzee and p.card.get("yahtzee") is not None for p in positions) > 30
    monkeypatch.setattr(batch, "PYTHON_STATES", 0)  # the kernel path, whatever the batch size
    compare(yahtzee, positions)


NEW_MODIFIERS_SMALL = [
    "yatzy+lower-only+all-rolls",
    "yatzy+order=choose",
    "yacht+lower-only+extra-bonus=50",
    "yatzy+lower-only+extra-bonus=50+yatzy-rows=2",
    "yahtzee-free-joker+without=ones,twos,threes,four_of_a_kind,small_straight,chance",
]


#: the fast loop keeps the two cheapest (all-rolls, extra-bonus); CI runs all five
@pytest.mark.parametrize(
    "rid",
    [rid if i in (0, 2) else pytest.param(rid, marks=slow) for i, rid in enumerate(NEW_MODIFIERS_SMALL)],
)
def test_batch_equals_the_advisor_with_new_modifiers(tables_dir, rid, monkeypatch):
    monkeypatch.setattr(batch, "PYTHON_STATES", 0)
    compare(tables_dir.advisor(rid), random_positions(rid, 150, seed=2))


@slow
@pytest.mark.parametrize(
    "rid",
    sorted(RULE_SETS) + ["yacht", "yatzy+all-rolls", "yatzy+extra-bonus=50+yatzy-rows=2", "yahtzee+order=up"],
)
def test_batch_equals_the_advisor_for_every_rule_set(tables_dir, rid):
    n = 3000 if rid == "yahtzee" else 2000
    compare(tables_dir.advisor(rid), random_positions(rid, n, seed=2))


def test_python_path_for_small_batches(yahtzee, monkeypatch):
    """Few card states go through the plain-Python recursion (no numba start-up): same answers."""
    positions = random_positions(SMALL, 200, seed=3)
    via_python = BatchAdvisor(yahtzee.table).advise_many(positions)
    monkeypatch.setattr(batch, "PYTHON_STATES", 0)
    via_kernel = BatchAdvisor(yahtzee.table).advise_many(positions)
    for a, b, p in zip(via_python, via_kernel, positions, strict=True):
        assert_same_advice(a, yahtzee.advise(p))
        assert_same_advice(b, a)


@pytest.mark.parametrize(
    "rid", [SMALL, "yatzy+lower-only+all-rolls", "yatzy+order=choose", pytest.param("yahtzee", marks=slow)]
)
def test_kernel_tables_match_the_python_recursion(tables_dir, rid):
    """turn_tables' e0/e1 against TurnValues, and its 5-dice rows against R0 (best placement)."""
    from solver.engine import dp, kernels
    from solver.engine.turn import TurnValues

    table = tables_dir.table(rid)
    rules, values = table.rules, dp.kernel_values(table.values)
    args = dp.rule_arrays(rules)
    rng = np.random.default_rng(4)
    masks = [0, rules.full_mask ^ 1, *rng.integers(0, rules.full_mask, 20).tolist()]
    masks = [m for m in masks if not np.isnan(values[m]).all()]  # the cards a fill order reaches
    assert len(masks) >= 2
    for mask in masks:
        lanes = [
            (u, f)
            for u in range(rules.upper_cap + 1)
            for f in range(rules.n_flags)
            if not np.isnan(values[mask, u, f])
        ][:8]
        lane_u = np.array([u for u, _ in lanes], dtype=np.int64)
        lane_f = np.array([f for _, f in lanes], dtype=np.int64)
        e0, e1 = np.empty((D.N_KEEPS, len(lanes))), np.empty((D.N_KEEPS, len(lanes)))
        col = 2  # the successor rows go in columns col .. col + lanes of a wider scratch
        succ = np.empty((6 * rules.n_boxes, col + len(lanes)))
        kernels.turn_tables(
            mask, lane_u, lane_f, values, args, e0, e1, succ, col, np.empty((0, 0), dtype=np.int64)
        )
        for j, state in enumerate(lanes):
            tv = TurnValues(rules, (mask, *state), values)
            np.testing.assert_allclose(e0[:, j], tv.e0, rtol=0, atol=EV_TOLERANCE)
            np.testing.assert_allclose(e1[:, j], tv.e1, rtol=0, atol=EV_TOLERANCE)
            if rules.all_rolls:  # stopping early is not allowed: the 5-dice rows are -inf
                assert np.isneginf(e0[D.ROLL_OFFSET :, j]).all() and np.isneginf(e1[D.ROLL_OFFSET :, j]).all()
            else:
                np.testing.assert_allclose(e0[D.ROLL_OFFSET :, j], tv.r0, rtol=0, atol=EV_TOLERANCE)
            if rules.order == "choose" and mask == 0:
                continue  # the empty card's value is the better of the two directions
            # V[state] = sum over rolls of P(roll) * best keep value with two rolls left
            r2 = np.array([e1[D.SUBKEEPS[r, : D.N_SUBKEEPS[r]], j].max() for r in range(D.N_ROLLS)])
            assert float(D.ROLL_PROB @ r2) == pytest.approx(
                values[mask, state[0], state[1]], abs=EV_TOLERANCE
            )


def test_advise_many_api(tables_dir, yahtzee):
    tables_dir.table("yatzy-forced")
    mixed = random_positions(SMALL, 40, seed=5) + random_positions("yatzy-forced", 40, seed=6)
    random.Random(7).shuffle(mixed)
    got = advise_many(mixed, tables_dir, progress=False)
    assert [a.position for a in got] == mixed  # input order, whatever the rule sets
    forced = tables_dir.advisor("yatzy-forced")
    for a in got:
        assert_same_advice(a, (yahtzee if a.position.rules.id == SMALL else forced).advise(a.position))
    assert advise_many([], tables_dir) == []
    with pytest.raises(TypeError):
        advise_many(["not a position"], tables_dir)
    with pytest.raises(UsageError):
        BatchAdvisor(yahtzee.table).advise_many(random_positions("yatzy-forced", 1, seed=8))


def test_lazy_results(yahtzee):
    positions = random_positions(SMALL, 50, seed=9)
    lazy = BatchAdvisor(yahtzee.table).advise_many(positions)
    for a, p in zip(lazy, positions, strict=True):
        assert "options" not in a.__dict__  # not built yet
        best = a.best  # the best option alone
        assert "options" not in a.__dict__
        want = yahtzee.advise(p)
        assert best == want.best
        assert a.to_json() == want.to_json() and a.decision == want.decision
        assert a.options is a.options  # built once


def test_json_lines_equal_hint_json(yahtzee):
    positions = random_positions(SMALL, 400, seed=10)
    ranked = BatchAdvisor(yahtzee.table).rank(positions)
    for i, p in enumerate(positions):
        line = ranked.json_line(i)
        assert line == json.dumps(ranked.to_json(i))  # the fast writer is json.dumps
        assert_same_json(json.loads(line), yahtzee.advise(p).to_json())


def test_json_lines_order_errors_and_chunks(tables_dir):
    tables_dir.table("yatzy-forced")
    tables_dir.table(SMALL)
    good = [
        {"card": "chance=23", "dice": "33456", "rolls_left": 2},
        {"rules": "yatzy-forced", "card": "ones=2", "dice": "22345", "rolls_left": 0},
        {"card": "full_house=25,yahtzee=50", "dice": [4, 4, 4, 4, 4], "rolls_left": 0},
    ]
    lines = [
        json.dumps(good[0]),
        "{broken",
        "",
        json.dumps(good[1]),
        json.dumps({"dice": "33457", "rolls_left": 1}),
        "   ",
        json.dumps(good[2]),
        json.dumps({"dice": "33456", "rolls_left": 3}),
        json.dumps({"dice": "33456", "rolls_left": 0, "card": "twos=3"}),
        json.dumps({"dice": "33456", "rolls_left": 0, "rules": "poker"}),
    ]
    for chunk in (1, 2, 3, 1000):
        out = [
            json.loads(s)
            for s in advise_json_lines(lines, default_rules=SMALL, tables_dir=tables_dir, chunk=chunk)
        ]
        assert len(out) == 10  # one per line, blank ones included, in order
        assert [("error" in o) for o in out] == [
            False,
            True,
            True,
            False,
            True,
            True,
            False,
            True,
            True,
            True,
        ]
        assert out[1]["error"].startswith("line 2:")
        assert out[2] == {"error": "line 3: blank line"} and out[5] == {"error": "line 6: blank line"}
        assert out[4]["error"].startswith("line 5:") and "7" in out[4]["error"]
        assert out[7]["error"].startswith("line 8:") and "3" in out[7]["error"]
        assert "twos" in out[8]["error"] and "poker" in out[9]["error"]  # no such box here; no such rules
        for o, g in zip([out[0], out[3], out[6]], good, strict=True):
            p = Position.parse(g.get("card", ""), g["dice"], g["rolls_left"], g.get("rules", SMALL))
            assert_same_json(o, tables_dir.advisor(p.rules).advise(p).to_json())
        assert all(opt["bonus"] == 100 for opt in out[6]["options"])


def test_hint_batch_stdin_good_and_bad_lines(capsys, monkeypatch, tables_dir):
    tdir = str(tables_dir)
    positions = random_positions(SMALL, 30, seed=11)
    lines = [
        json.dumps({"card": str(p.card), "dice": str(p.dice), "rolls_left": p.rolls_left}) for p in positions
    ]
    lines.insert(7, '{"dice": "1234", "rolls_left": 2}')
    lines.insert(15, "[1, 2]")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code = main(["hint", "--batch", "-", "--rules", SMALL, "--tables", tdir])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    results = [json.loads(s) for s in out.splitlines()]
    assert len(results) == 32
    assert set(results[7]) == {"error"} and "1234" in results[7]["error"] and "line 8" in results[7]["error"]
    assert set(results[15]) == {"error"} and "line 16" in results[15]["error"]
    answers = [r for i, r in enumerate(results) if i not in (7, 15)]
    for p, r in zip(positions, answers, strict=True):
        assert (r["card"], r["dice"], r["rolls_left"]) == (str(p.card), str(p.dice), p.rolls_left)
    # the same line through --json gives the same object
    p = positions[0]
    code = main(["hint", "--dice", str(p.dice), "--rolls-left", str(p.rolls_left), "--card", str(p.card),
                 "--rules", SMALL, "--json", "--tables", tdir])  # fmt: skip
    assert code == 0
    assert_same_json(answers[0], json.loads(capsys.readouterr().out))


def test_hint_batch_answers_a_waiting_program(tables_dir, tmp_path):
    """Through a pipe: write a position, read its answer, write the next (no EOF in between)."""
    import select
    import subprocess

    tables_dir.table(SMALL)
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "hint", "--batch", "-", "--rules", SMALL, "--tables", str(tables_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
    )  # fmt: skip
    try:
        for line in (
            '{"dice": "33456", "rolls_left": 2, "card": "chance=23"}',
            '{"dice": "1234", "rolls_left": 2}',
        ):
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 60)
            assert ready, "no answer while the input stays open"
            answer = json.loads(proc.stdout.readline())
            assert ("options" in answer) == ("1234" not in line)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        assert proc.stdout.read() == ""
    finally:
        proc.kill()


@given(st.one_of(st.floats(0, 2e5), st.floats(0, 1e-3), st.integers(0, 10**14).map(lambda k: k / 1e9)))
def test_fast_json_float_is_json_dumps_of_round(x):
    assert batch._json9(x) == json.dumps(round(x, 9))

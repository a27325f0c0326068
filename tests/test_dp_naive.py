"""The numba DP (and the advisor's turn recursion) against the naive reference solver on small games.

Each small game has 4-5 boxes, so the naive solver (tests/naive.py) can play it by brute
force; the games are chosen so that the upper bonus, the Yahtzee bonus, each Joker policy,
forced order, faces without an upper box and the Yatzy scorers all matter.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from naive import NaiveSolver, outcomes

from solver.core import dice as D
from solver.core.rules import Box, RuleSet, Scorer, get_rules
from solver.engine import dp
from solver.engine.turn import TurnValues

ONES = Box("ones", Scorer("upper", 1))
TWOS = Box("twos", Scorer("upper", 2))
THREES = Box("threes", Scorer("upper", 3))
FIVES = Box("fives", Scorer("upper", 5))
SIXES = Box("sixes", Scorer("upper", 6))
THREE_KIND = Box("three_of_a_kind", Scorer("n_kind_sum", 3))
FULL_HOUSE = Box("full_house", Scorer("full_house", points=25), joker_score=25)
SMALL = Box("small_straight", Scorer("straight", 4, 30), joker_score=30)
LARGE = Box("large_straight", Scorer("straight", 5, 40), joker_score=40)
YAHTZEE = Box("yahtzee", Scorer("five_kind", points=50))
CHANCE = Box("chance", Scorer("chance"))


def _joker_game(joker: str, bonus: int = 100) -> RuleSet:
    # a Yahtzee of 2s or 6s has its own upper box; one of 1, 3, 4 or 5s has none
    return RuleSet(
        f"mini-joker-{joker}-{bonus}", f"small game, {joker} Joker", (TWOS, SIXES, LARGE, YAHTZEE, CHANCE),
        upper_bonus=15, upper_threshold=12, bonus=bonus, joker=joker,
    )  # fmt: skip


def _without_all_but(spec: str, keep: str) -> RuleSet:
    """``spec`` reduced to the boxes named in ``keep`` (through the ``without`` modifier)."""
    names = get_rules(spec).box_names
    drop = [n for n in names if n not in keep.split(",")]
    return get_rules(f"{spec}+without={','.join(drop)}")


GAMES = {
    "upper-bonus": RuleSet(
        "mini-upper", "ones, twos, sixes, chance; bonus 35 at 10", (ONES, TWOS, SIXES, CHANCE),
        upper_bonus=35, upper_threshold=10,
    ),
    "joker-forced": _joker_game("forced"),
    "joker-free": _joker_game("free"),
    "joker-none": _joker_game("none"),
    "joker-forced-no-bonus": _joker_game("forced", bonus=0),
    "lower-only": RuleSet(
        "mini-lower", "three of a kind, small straight, yahtzee, chance",
        (THREE_KIND, SMALL, YAHTZEE, CHANCE), upper_bonus=0, bonus=100, joker="forced",
    ),
    "forced-order": RuleSet(
        "mini-forced", "forced order", (ONES, SIXES, FULL_HOUSE, YAHTZEE, CHANCE), upper_bonus=20,
        upper_threshold=8, bonus=100, joker="forced", order="down",
    ),
    # forced order with the Joker where a face's upper box comes after the Yahtzee box: a Yahtzee
    # of 6s must still go in the next box (as a Joker), not jump ahead to sixes
    "forced-order-late-upper": RuleSet(
        "mini-forced-late", "forced order, sixes after yahtzee", (ONES, YAHTZEE, FULL_HOUSE, SIXES, CHANCE),
        upper_bonus=20, upper_threshold=6, bonus=100, joker="forced", order="down",
    ),
    "free-order-late-upper": RuleSet(
        "mini-forced-late-free", "forced order, free Joker", (ONES, YAHTZEE, FULL_HOUSE, SIXES, CHANCE),
        upper_bonus=20, upper_threshold=6, bonus=100, joker="free", order="down",
    ),
    "up-order-upper": RuleSet(
        "mini-up", "reverse order, bonus", (ONES, SIXES, FULL_HOUSE, YAHTZEE, CHANCE), upper_bonus=20,
        upper_threshold=8, bonus=100, joker="forced", order="up",
    ),
    "choose-order-upper": RuleSet(
        "mini-choose", "chosen order, bonus", (ONES, SIXES, FULL_HOUSE, YAHTZEE, CHANCE), upper_bonus=20,
        upper_threshold=8, bonus=100, joker="forced", order="choose",
    ),
    "all-rolls-upper": RuleSet(
        "mini-all-rolls", "all rolls, bonus", (ONES, TWOS, SIXES, YAHTZEE), upper_bonus=35,
        upper_threshold=10, bonus=100, joker="forced", all_rolls=True,
    ),
    "yatzy-scorers": RuleSet(
        "mini-yatzy", "Yatzy boxes",
        (THREES, FIVES, Box("one_pair", Scorer("n_kind_face", 2)), Box("two_pairs", Scorer("two_pairs")),
         Box("full_house", Scorer("full_house"))),
        upper_bonus=50, upper_threshold=15,
    ),
    # the modifiers themselves, on real bases cut down with ``without``
    "yatzy-straights": _without_all_but("yatzy", "three_of_a_kind,four_of_a_kind,small_straight,large_straight,yatzy"),
    "yacht": _without_all_but("yacht", "sixes,four_of_a_kind,little_straight,big_straight,yacht"),
    "yacht+lower-only": _without_all_but("yacht+lower-only", "full_house,choice,yacht,big_straight"),
    "all-rolls": _without_all_but("yatzy+all-rolls", "fives,one_pair,small_straight,yatzy"),
    "extra-bonus": _without_all_but("yatzy+extra-bonus=100", "sixes,two_pairs,yatzy,chance"),
    "yatzy-rows": _without_all_but("yatzy+yatzy-rows=2", "sixes,full_house,yatzy,yatzy_2"),
    "yatzy-rows+extra-bonus": _without_all_but("yatzy+yatzy-rows=2+extra-bonus=50", "fours,chance,yatzy,yatzy_2"),
    "order=down": _without_all_but("yahtzee+order=down", "ones,sixes,full_house,yahtzee,chance"),
    "order=up": _without_all_but("yatzy+order=up", "ones,sixes,full_house,yatzy,chance"),
    "order=choose": _without_all_but("yacht+order=choose", "sixes,full_house,little_straight,yacht,choice"),
    "all-rolls+order=choose": _without_all_but("yahtzee+all-rolls+order=choose", "twos,yahtzee,large_straight,chance"),
    "all-rolls+extra-bonus": _without_all_but("yacht+all-rolls+extra-bonus=100", "ones,yacht,big_straight,choice"),
    "free-joker+order=up": _without_all_but("yahtzee-free-joker+order=up", "sixes,small_straight,yahtzee,chance"),
    "no-joker+all-rolls": _without_all_but("yahtzee-no-joker+all-rolls", "threes,full_house,yahtzee,chance"),
}  # fmt: skip

_SOLVED: dict[str, tuple[NaiveSolver, np.ndarray, set]] = {}


def solved(name: str):
    """(naive solver with every reachable state valued, dp table, reachable states), once per game."""
    if name not in _SOLVED:
        rules = GAMES[name]
        naive = NaiveSolver(rules)
        start = time.perf_counter()
        reachable = naive.reachable_states()
        for state in sorted(reachable, key=lambda s: -bin(s[0]).count("1")):
            naive.value(state)
        elapsed = time.perf_counter() - start
        assert elapsed < 60, f"naive solve of {name} took {elapsed:.0f} s"
        _SOLVED[name] = (naive, dp.solve(rules), reachable)
    return _SOLVED[name]


def dp_index(rules: RuleSet, state) -> tuple[int, int, int]:
    filled, upper, holds_50 = state
    return filled, upper, int(holds_50) if rules.n_flags == 2 else 0


def test_outcome_probabilities():
    for n in range(6):
        probs = dict(outcomes(n))
        assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)
    assert dict(outcomes(5)) == {
        D.ROLLS[r]: pytest.approx(float(D.ROLL_PROB[r]), abs=1e-15) for r in range(252)
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
def test_dp_equals_naive_on_every_reachable_state(name):
    rules = GAMES[name]
    naive, values, reachable = solved(name)
    assert values.shape == (1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)
    full = rules.full_mask
    computed = {tuple(int(i) for i in idx) for idx in np.argwhere(~np.isnan(values)) if idx[0] != full}
    want = {dp_index(rules, s) for s in reachable if s[0] != full}
    # the DP computes exactly the states that can occur, and nothing else (the full card is all 0)
    assert np.all(values[full] == 0.0)
    assert computed == want, f"missing {sorted(want - computed)[:5]}, extra {sorted(computed - want)[:5]}"
    worst = 0.0
    for state in reachable:
        got = values[dp_index(rules, state)]
        expected = naive.value(state)
        worst = max(worst, abs(got - expected))
        assert got == pytest.approx(expected, abs=1e-9, rel=0), (name, state)
    assert worst < 1e-9
    if rules.n_flags == 1:  # the flag is not needed: both Yahtzee scores give the same future
        for (filled, upper, holds), v in naive._values.items():
            assert naive._values.get((filled, upper, not holds), v) == pytest.approx(v, abs=1e-9)


@pytest.mark.slow
def test_small_games_are_not_trivial():
    """The features each game is meant to exercise really change its value."""
    base = solved("joker-forced")[0].value((0, 0, False))
    assert base != pytest.approx(solved("joker-forced-no-bonus")[0].value((0, 0, False)), abs=1e-3)
    assert base != pytest.approx(solved("joker-none")[0].value((0, 0, False)), abs=1e-3)
    assert base != pytest.approx(solved("joker-free")[0].value((0, 0, False)), abs=1e-3)
    upper = solved("upper-bonus")[0]
    # one box left (sixes), upper total 9: any six reaches the threshold of 10 and earns 35, so keep
    # every six; no six at all in three rolls of five dice has probability (5/6)**15
    dist = _six_count_distribution()
    assert dist[0] == pytest.approx((5 / 6) ** 15, rel=1e-12)
    expected = sum((6 * k + (35 if k else 0)) * p for k, p in dist.items())
    assert upper.value((0b1011, 9, False)) == pytest.approx(expected, abs=1e-12)


def _six_count_distribution() -> dict[int, float]:
    """Distribution of the number of sixes when chasing sixes with three rolls (keep every six)."""
    dist = {0: 1.0}
    for _ in range(3):
        new: dict[int, float] = {}
        for have, p in dist.items():
            for _dice, q in outcomes(5 - have):
                k = have + _dice.count(6)
                new[k] = new.get(k, 0.0) + p * q
        dist = new
    return dist


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "joker-forced",
        "joker-free",
        "joker-none",
        "forced-order",
        "forced-order-late-upper",
        "yatzy-scorers",
        "all-rolls-upper",
        "yatzy-rows+extra-bonus",
        "order=up",
    ],
)
def test_advisor_turn_values_equal_naive(name):
    """The advisor's turn recursion gives the naive within-turn values, keep by keep."""
    rules = GAMES[name]
    naive, values, reachable = solved(name)
    states = sorted(s for s in reachable if s[0] != naive.full)
    for state in states[:: max(1, len(states) // 12)]:
        tv = TurnValues(rules, dp_index(rules, state), values)
        turn = naive.turn(state)
        assert tv.value == pytest.approx(naive.value(state), abs=1e-9)
        for r, roll in enumerate(D.ROLLS):
            assert tv.r0[r] == pytest.approx(turn.stop(roll), abs=1e-9), (state, roll)
        for k, keep in enumerate(D.KEEPS):
            if len(keep) == 5 and rules.all_rolls:
                assert tv.e0[k] == tv.e1[k] == float("-inf")  # stopping early is not allowed
            elif len(keep) == 5:
                assert tv.e0[k] == tv.e1[k] == pytest.approx(turn.stop(keep), abs=1e-9)
            else:
                assert tv.e0[k] == pytest.approx(turn.reroll(keep, 1), abs=1e-9), (state, keep)
                assert tv.e1[k] == pytest.approx(turn.reroll(keep, 2), abs=1e-9), (state, keep)

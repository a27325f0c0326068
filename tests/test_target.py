"""Play for a target score: the numba DP against the naive brute force, hand counts, references."""

from __future__ import annotations

import numpy as np
import pytest
from naive import NaiveTargetSolver, outcomes
from test_dp_naive import GAMES, _without_all_but, dp_index

from solver.rules import get_rules
from solver.target import compact, solve_target

# reduced games small enough for the brute force at every target
TARGET_GAMES = {
    "lower-only": _without_all_but("yatzy+lower-only", "small_straight,yatzy,chance"),
    "upper-bonus": GAMES["upper-bonus"],
    "joker-forced": _without_all_but("yahtzee", "sixes,yahtzee,chance"),
    "order=choose": _without_all_but("yacht+order=choose", "sixes,little_straight,choice"),
    "all-rolls": _without_all_but("yatzy+all-rolls", "fives,one_pair,yatzy"),
}


def _max_points(rules) -> int:
    """More points than any game of ``rules`` can score (every box's best, bonuses)."""
    best = sum(max(max(s) for s in [rules.scores_by_box[b]]) for b in range(rules.n_boxes))
    return best + rules.upper_bonus + rules.bonus * rules.n_boxes + 60


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TARGET_GAMES))
def test_target_dp_equals_naive_on_every_state_and_target(name):
    rules = TARGET_GAMES[name]
    naive = NaiveTargetSolver(rules)
    t_max = _max_points(rules)
    values = solve_target(rules, t_max)
    small = compact(values)
    reachable = naive.reachable_states()
    worst = 0.0
    for state in sorted(reachable, key=lambda s: -bin(s[0]).count("1")):
        index = dp_index(rules, state)
        row = values.row(index)
        assert np.array_equal(small.row(index), row)  # compaction keeps every probability
        for t in range(0, t_max + 1):
            want = naive.probability(state, t)
            worst = max(worst, abs(row[t] - want))
            assert row[t] == pytest.approx(want, abs=1e-12), (name, state, t)
        assert row[-1] == 0.0  # t_max is out of reach
    assert worst < 1e-12


def test_reference_value_yatzy_lower_only():
    """RULES.md: under target play, ``yatzy+lower-only`` reaches 100 with probability 0.9034747."""
    values = solve_target(get_rules("yatzy+lower-only"), 120)
    assert values.probability((0, 0, 0), 100) == pytest.approx(0.9034747, abs=5e-8)


def test_last_turn_yahtzee_box():
    """One box left, the Yahtzee box: P(50 more) is the published chance of five of a kind in
    three rolls (2,783,176 of 6**10 ordered outcomes, optimal keeping); 51 is out of reach."""
    rules = _without_all_but("yahtzee", "chance,yahtzee")
    values = solve_target(rules, 60)
    state = (1 << rules.box_names.index("chance"), 0, 0)
    assert values.probability(state, 50) == pytest.approx(2783176 / 60466176, abs=1e-12)
    assert values.probability(state, 51) == 0.0
    assert values.probability(state, 0) == 1.0


def test_last_turn_chance_box():
    """One box left, chance: the chance of at least ``t`` with three rolls.  With ``t`` = 30
    only 66666 does it: keep every six, so P = P(six sixes chase ends with five) -- counted
    over the dice."""
    rules = _without_all_but("yahtzee", "chance,yahtzee")
    values = solve_target(rules, 60)
    state = (1 << rules.box_names.index("yahtzee"), 0, 0)
    dist = {0: 1.0}  # sixes held after each roll, keeping every six
    for _ in range(3):
        new: dict[int, float] = {}
        for have, p in dist.items():
            for dice, q in outcomes(5 - have):
                k = have + dice.count(6)
                new[k] = new.get(k, 0.0) + p * q
        dist = new
    assert values.probability(state, 30) == pytest.approx(dist[5], abs=1e-15)
    assert values.probability(state, 5) == pytest.approx(1.0, abs=1e-12)  # chance scores at least 5
    assert values.probability(state, 31) == 0.0

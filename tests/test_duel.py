"""The exact two-player game on small cards (solver.engine.duel, solver.advice.duel): the same
values as a brute-force expectimax over every roll (tests/naive.py NaiveDuel) in every state it
reaches; against expected-score play at least 1/2, under the clairvoyant bound and not below the
win bot's measured rate; against itself below what an expected-score opponent concedes."""

from __future__ import annotations

import math

import pytest
from naive import NaiveDuel

from solver.advice.duel import MAX_DUEL_BOXES, exact_duel
from solver.core.errors import UsageError
from solver.core.rules import get_rules
from solver.engine.distribution import max_points, turn_outcomes
from solver.engine.duel import card_states, solve_duel

UPPER = "ones,twos,threes,fours,fives,sixes"
CHANCE = (
    f"yahtzee+without={UPPER},three_of_a_kind,four_of_a_kind,full_house,small_straight,large_straight,yahtzee"
)
STRAIGHT_YAHTZEE = f"yahtzee+without={UPPER},three_of_a_kind,four_of_a_kind,full_house,small_straight,chance"
CHANCE_YATZY = (
    f"yatzy+without={UPPER},one_pair,two_pairs,three_of_a_kind,four_of_a_kind,small_straight,"
    "large_straight,full_house"
)
THREE = f"yahtzee+without={UPPER},three_of_a_kind,four_of_a_kind,full_house,small_straight"


@pytest.mark.parametrize(
    "spec",
    [  # the fast loop keeps CHANCE (every opponent and seat); CI runs the other two cards too
        CHANCE,
        pytest.param(STRAIGHT_YAHTZEE, marks=pytest.mark.slow),
        pytest.param(CHANCE_YATZY, marks=pytest.mark.slow),
    ],
)
@pytest.mark.parametrize(("opponent", "seat"), [("ev", 0), ("ev", 1), ("self", 0)])
def test_the_duel_agrees_with_brute_force(tables_dir, spec, opponent, seat):
    rules = get_rules(spec)
    out = solve_duel(rules, tables_dir.table(rules).values, opponent, seat)
    naive = NaiveDuel(rules, opponent, seat)
    assert out["value"] == pytest.approx(naive.value(), abs=1e-12)
    top = max_points(rules)
    index = [{s: i for i, s in enumerate(level)} for level in out["states"]]
    checked = 0
    for (a, b, d), v in naive._a.items():  # every A-turn state the game reaches
        k = a[0].bit_count()
        i, j = index[k][(a[0], a[1], int(a[2]))], index[k][(b[0], b[1], int(b[2]))]
        assert out["VA"][k][i, j, d + top] == pytest.approx(v, abs=1e-12), (a, b, d)
        checked += 1
    assert checked >= 2 * rules.n_boxes - 1


def test_turn_outcomes_are_one_turn_of_optimal_play(tables_dir):
    rules = get_rules(THREE)
    values = tables_dir.table(rules).values
    states = [s for level in card_states(rules)[:-1] for s in level]
    for state, outcomes in zip(states, turn_outcomes(rules, values, states), strict=True):
        assert math.fsum(p for _, _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
        # the points this turn plus the value of where it leads: the table's value of the state
        mean = math.fsum(p * (g + float(values[s])) for s, g, p in outcomes)
        assert mean == pytest.approx(float(values[state]), abs=1e-9)
        assert all(s[0].bit_count() == state[0].bit_count() + 1 for s, _, _ in outcomes)


@pytest.mark.slow  # 8 s: the 3-box card, three solves
def test_exact_duel_figures(tables_dir):
    tables_dir.table(THREE)
    out = exact_duel(THREE, tables_dir)
    vs_ev, self_play = out["vs_ev"], out["self_play"]
    assert out["boxes"] == ["large_straight", "yahtzee", "chance"]
    # playing for expected score itself gets 1/2, so the best gets more; moving second, with the
    # first player's total in sight, more still
    assert 0.5 < vs_ev["first"] < vs_ev["second"] < 0.65
    assert vs_ev["mean"] == pytest.approx((vs_ev["first"] + vs_ev["second"]) / 2)
    # an opponent playing against us concedes no more than one playing for expected score
    assert self_play["first"] < vs_ev["first"] and self_play["second"] < vs_ev["second"]
    # the second player sees what it has to beat
    assert 0.4 < self_play["first"] < 0.5 < self_play["second"]
    assert self_play["first"] + self_play["second"] == pytest.approx(1.0)


@pytest.mark.slow
def test_the_optimum_is_between_the_win_bot_and_the_bound(tmp_path_factory):
    from solver.advice.advisor import Advisor
    from solver.advice.win import clairvoyant_bound
    from solver.engine.tables import build_table
    from solver.engine.target import build_target
    from solver.play.match import play_match

    folder = tmp_path_factory.mktemp("duel-tables")  # its own: others expect no target table
    rules = get_rules(THREE)
    build_table(rules, folder, progress=False)
    target = build_target(rules, folder, t_max=max_points(rules), progress=False)
    exact = exact_duel(rules, folder)["vs_ev"]
    bound = clairvoyant_bound(Advisor.load(rules, folder), target)["bound"]
    assert exact["first"] <= bound and exact["second"] <= bound
    win = play_match(rules, ["win", "optimal"], games=20_000, seed=3, tables_dir=folder).summary()
    rate = win["players"][0]["win_or_half_tie"]
    assert exact["mean"] >= rate["rate"] - 3 * rate["standard_error"]
    # with the opponent's exact distribution (every state of three boxes) the bot is as good as
    # the optimum to within noise (a normal spread around the expected final won 50.5% here)
    assert rate["rate"] >= exact["mean"] - 4 * rate["standard_error"]


def test_the_duel_refuses_what_it_cannot_solve(tables_dir):
    with pytest.raises(UsageError, match="at most"):
        exact_duel("yahtzee", tables_dir)
    with pytest.raises(UsageError, match="triple"):
        exact_duel("triple", tables_dir)
    rules = get_rules(CHANCE)
    with pytest.raises(UsageError, match="value table"):
        solve_duel(rules, None, "ev")
    with pytest.raises(UsageError, match="opponent"):
        solve_duel(rules, None, "random")
    assert MAX_DUEL_BOXES < get_rules("yatzy+lower-only").n_boxes

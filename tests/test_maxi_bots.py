"""Six dice (Maxi Yatzy, issue 37): the heuristic and greedy bots, matches and the daily, on reduced
maxi cards (nothing here builds the full table)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.core.errors import UsageError
from solver.core.rules import get_rules

#: reduced maxi cards: upper boxes with the bonus, the Swedish bonus, no upper box at all
CARDS = (
    "maxi+without=ones,twos,threes,one_pair,two_pairs,three_pairs,four_of_a_kind,five_of_a_kind,large_straight,full_straight,villa,tower,chance",
    "maxi+bonus=84/100+without=ones,villa,tower,chance,maxi_yatzy,one_pair,two_pairs,three_pairs,full_house",
    "maxi+lower-only+without=one_pair,two_pairs,three_pairs,villa,tower,chance,maxi_yatzy",
)


@pytest.mark.parametrize("spec", CARDS)
def test_six_dice_heuristic_entries_are_the_dense_tables(spec):
    """What a game reads one entry at a time is the table the kernels play, bit for bit."""
    from solver.engine.heuristic import HeuristicValues, heuristic_table

    rules = get_rules(spec)
    lazy = heuristic_table(rules).values
    assert isinstance(lazy, HeuristicValues)
    one_by_one = np.array(
        [[[lazy[m, u, 0]] for u in range(rules.upper_cap + 1)] for m in range(1 << rules.n_boxes)]
    )
    dense = np.asarray(lazy)
    assert dense.shape == (1 << rules.n_boxes, rules.upper_cap + 1, 1)
    assert one_by_one.tobytes() == dense.tobytes()
    assert dense[rules.full_mask].max() == 0.0 and dense[0, 0, 0] > 0.0


@pytest.mark.parametrize("bot", ["heuristic", "greedy"])
def test_six_dice_table_free_bots_play_the_same_games_in_both_engines(bot):
    from solver.play.simulate import simulate

    rules = get_rules(CARDS[0])
    fast = simulate(rules, bot, 150, seed=4, engine="numba")
    slow = simulate(rules, bot, 150, seed=4, engine="python")
    assert np.array_equal(fast.scores, slow.scores)
    assert fast.scores.mean() > simulate(rules, "random", 150, seed=4).scores.mean()


def test_a_six_dice_match_plays_the_same_games_in_both_engines(tmp_path):
    from solver.play.match import play_match

    rules = get_rules(CARDS[0])
    bots = ["optimal", "heuristic", "greedy", "frequent"]
    fast = play_match(rules, bots, games=60, seed=3, engine="numba", tables_dir=tmp_path)
    slow = play_match(rules, bots, games=60, seed=3, engine="python", tables_dir=tmp_path)
    assert (fast.engine, slow.engine) == ("numba", "python")
    assert np.array_equal(fast.scores, slow.scores)


@pytest.mark.parametrize(
    ("bots", "grade", "needle"),
    [
        (["win", "greedy"], False, "bot 'win' does not play six dice in a match yet"),
        (["target:100", "greedy"], False, "bot 'target:100' does not play six dice"),
        (["heuristic", "greedy"], True, "--grade and --worst need a target table"),
    ],
)
def test_a_six_dice_match_refuses_what_does_not_play_six_dice(bots, grade, needle, tmp_path):
    from solver.play.match import play_match

    with pytest.raises(UsageError) as err:
        play_match(CARDS[0], bots, games=4, tables_dir=tmp_path, grade=grade)
    assert needle in str(err.value) and "optimal, heuristic, greedy, frequent, random" in str(err.value)
    assert "\n" not in str(err.value)


def test_the_match_command_takes_maxi(capsys, tmp_path):
    from solver.cli.entry import main

    argv = [
        "match",
        "--rules",
        CARDS[0],
        "--bots",
        "heuristic,greedy",
        "--games",
        "40",
        "--tables",
        str(tmp_path),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "40 games of" in out and "heuristic" in out and "greedy" in out
    assert "--target" not in out  # no remedy that six dice refuse (no target tables for them)

"""Matches and the win bot: hand counts of last turns, the known example, engines, fairness."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from solver.advice.advisor import Advisor
from solver.advice.win import best_opponent
from solver.core.card import ScoreCard
from solver.core.dice import Dice
from solver.core.rules import get_rules
from solver.engine.target import FLOAT32_SLACK, build_target, load_target  # table values: float32
from solver.engine.turn import WinTurnValues
from solver.play.bots import TableBot, WinBot
from solver.play.match import play_match, play_match_game, seat_seed
from solver.play.simulate import play_game

# ones, chance and yahtzee: a three-box game whose last turns can be counted by hand
SMALL = (
    "yahtzee+without=twos,threes,fours,fives,sixes,three_of_a_kind,four_of_a_kind,full_house,"
    "small_straight,large_straight"
)
LOWER = "yatzy+lower-only"
P_YAHTZEE_IN_A_TURN = 2_783_176 / 60_466_176  # keeping the most frequent face, three rolls


@pytest.fixture(scope="module")
def small(tables_dir):
    rules = get_rules(SMALL)
    tables_dir.table(rules)
    build_target(rules, tables_dir, t_max=200, progress=False)
    return rules, tables_dir


@pytest.fixture(scope="module")
def win_bot(small):
    rules, folder = small
    return WinBot(Advisor(folder.table(rules)), load_target(rules, folder))


def card(rules, text: str) -> ScoreCard:
    return ScoreCard.parse(text, rules)


@pytest.mark.parametrize("behind", [0, 1, 2, 3, 5, -1])
def test_last_turn_ones_against_a_hand_count(small, win_bot, behind):
    """Only Ones left for me, the opponent finished: keeping every one is the best play, so the
    number of ones is Binomial(5, 1 - (5/6)^3) and P(win) + P(tie)/2 is counted by hand."""
    rules, _ = small
    me = card(rules, "chance=20,yahtzee=0")
    opponent = card(rules, f"ones=0,chance={20 + behind},yahtzee=0")
    p1 = 1 - (5 / 6) ** 3
    pmf = [math.comb(5, k) * p1**k * (1 - p1) ** (5 - k) for k in range(6)]
    expected = sum(pmf[k] for k in range(6) if k > behind) + 0.5 * sum(
        pmf[k] for k in range(6) if k == behind
    )
    (p_me, _) = win_bot.win.chances([me, opponent])
    assert p_me == pytest.approx(expected, abs=FLOAT32_SLACK)
    win_bot.see_opponents([opponent])
    tv = win_bot.turn_values(me)
    if behind >= 0:
        assert tv.start_value == pytest.approx(expected, abs=FLOAT32_SLACK)
        # with two ones rolled: rerolls the rest when two ones do not win, else stops (ties: most dice)
        keep = sorted(win_bot.choose_keep(me, Dice((1, 1, 3, 5, 6)), 2, None))
        assert keep == ([1, 1] if behind >= 2 else [1, 1, 3, 5, 6])
    else:
        assert tv is None  # cannot lose: plays for expected score


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ("ones=2,yahtzee=0", "ones=3,chance=22,yahtzee=0"),  # chance left: tie at 20, win at 21
        ("ones=4,yahtzee=50", "ones=2,chance=25,yahtzee=50"),  # chance left: a Yahtzee bonus in reach
        ("chance=21,yahtzee=0", "ones=2,chance=20,yahtzee=0"),  # ones left, one point behind
        ("ones=1,chance=24", "ones=3,chance=22,yahtzee=0"),  # Yahtzee left: a 0 ties
    ],
)
def test_last_turn_chance_is_the_brute_force(small, win_bot, mine, theirs):
    """On my last turn with the opponent finished, my chance is the turn played for P(win) +
    P(tie)/2 itself (the brute force of tests/naive.py), not the table's mix of the two targets'
    separate strategies (an upper bound), and the two chances add up to 1."""
    from naive import NaiveSolver, win_last_turn

    rules, _ = small
    me, opponent = card(rules, mine), card(rules, theirs)
    upper = min(me.upper_total, rules.upper_threshold) if rules.upper_bonus > 0 else 0
    state = (me.filled_mask, upper, bool(me.yahtzee_holds_50))
    exact = win_last_turn(NaiveSolver(rules), state, opponent.total - me.total).value
    p_me, p_them = win_bot.win.chances([me, opponent])
    assert p_me == pytest.approx(exact, abs=FLOAT32_SLACK)
    assert p_me + p_them == pytest.approx(1.0, abs=1e-12)


def test_last_turn_chance_tie_counts_half(small, win_bot):
    """Only Yahtzee left for me, 50 behind a finished opponent: a Yahtzee ties (half a win)."""
    rules, _ = small
    me = card(rules, "ones=3,chance=20")
    opponent = card(rules, "ones=3,chance=20,yahtzee=50")
    assert win_bot.win.chances([me, opponent])[0] == pytest.approx(P_YAHTZEE_IN_A_TURN / 2, abs=FLOAT32_SLACK)
    one_behind = card(rules, "ones=3,chance=19,yahtzee=50")
    assert win_bot.win.chances([me, one_behind])[0] == pytest.approx(P_YAHTZEE_IN_A_TURN, abs=FLOAT32_SLACK)


def test_known_example_ev_zeroes_yahtzee_win_keeps_the_only_chance(small, win_bot):
    """Chance and Yahtzee open, a poor roll, the opponent finished with 35: the expected-score move
    puts the 0 in Yahtzee (chance is worth more later) and loses for sure; only a Yahtzee next turn
    can still win, so ``win`` scores the roll in Chance."""
    rules, folder = small
    me = card(rules, "ones=2")
    opponent = card(rules, "ones=5,chance=30,yahtzee=0")
    dice = Dice((1, 1, 2, 3, 4))
    optimal = TableBot(folder.advisor(rules), "optimal")
    assert optimal.choose_box(me, dice, None) == "yahtzee"
    win_bot.see_opponents([opponent])
    assert win_bot.choose_box(me, dice, None) == "chance"
    after_ev = me.score("yahtzee", dice)
    after_win = me.score("chance", dice)
    assert win_bot.win.chances([after_ev, opponent])[0] == 0.0
    assert win_bot.win.chances([after_win, opponent])[0] == pytest.approx(
        P_YAHTZEE_IN_A_TURN, abs=FLOAT32_SLACK
    )


def test_one_opponent_is_its_total_plus_its_points_to_come(small, win_bot):
    """The opponent model of a card: its total plus the exact distribution of the points still
    to come (three boxes: every row exact), whose mean is the value table's."""
    rules, _ = small
    opp = card(rules, "ones=3")
    b0, q = best_opponent(win_bot.win.model, [opp])
    assert b0 >= 3
    assert math.fsum(q.tolist()) == pytest.approx(1.0, abs=1e-6)
    mean = b0 + math.fsum((np.arange(len(q)) * q).tolist())
    assert mean == pytest.approx(3 + float(win_bot.advisor.table.values[opp.state]), abs=1e-4)
    finished = card(rules, "ones=3,chance=20,yahtzee=0")
    b0, q = best_opponent(win_bot.win.model, [finished])
    assert (b0, q.tolist()) == (23, [1.0])
    # two opponents: the better of them, never below the better total
    b0, q = best_opponent(win_bot.win.model, [opp, finished])
    assert b0 == 23 and math.fsum(q.tolist()) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.slow  # every game of both engines: in CI, not the fast loop
def test_numba_and_python_engines_play_the_same_games(small):
    rules, folder = small
    for bots in (["win", "optimal"], ["greedy", "win"], ["optimal", "frequent"]):
        a = play_match(rules, bots, 90, seed=5, engine="numba", tables_dir=folder, threads=2)
        b = play_match(rules, bots, 90, seed=5, engine="python", tables_dir=folder)
        assert a.engine == "numba" and b.engine == "python"
        np.testing.assert_array_equal(a.scores, b.scores)


def test_win_bot_playing_for_expected_score_first(small):
    """``start_turn``: the win bot's first turns are the optimal player's, in both engines; from
    the first turn it is the win bot, past the last turn the optimal player."""
    rules, folder = small
    advisor, table = Advisor(folder.table(rules)), load_target(rules, folder)
    optimal = play_match(rules, ["optimal", "optimal"], 600, seed=4, tables_dir=folder, threads=1)
    win = play_match(rules, ["win", "optimal"], 600, seed=4, tables_dir=folder, threads=1)
    for k, like in ((0, win), (rules.n_turns, optimal)):
        r = play_match(rules, [WinBot(advisor, table, start_turn=k), "optimal"], 600, seed=4, threads=1)
        np.testing.assert_array_equal(r.scores, like.scores)
    late = [WinBot(advisor, table, start_turn=2), "optimal"]
    a = play_match(rules, late, 600, seed=4, engine="numba", threads=1)
    late[0] = WinBot(advisor, table, start_turn=2)
    b = play_match(rules, late, 600, seed=4, engine="python")
    np.testing.assert_array_equal(a.scores, b.scores)
    assert a.bots[0] == "win@2"
    # the win bot's third turn matters in some games, so the two differ somewhere
    assert not np.array_equal(a.scores, win.scores) and not np.array_equal(a.scores, optimal.scores)


def test_thread_count_does_not_change_a_match(small):
    rules, folder = small
    a = play_match(rules, ["win", "optimal"], 3000, seed=9, tables_dir=folder, threads=1)
    b = play_match(rules, ["win", "optimal"], 3000, seed=9, tables_dir=folder, threads=2)
    np.testing.assert_array_equal(a.scores, b.scores)


def test_opponent_blind_bots_roll_their_own_seat_streams(small):
    """A bot that ignores the opponents scores in a match exactly what it scores alone on its seat's stream."""
    rules, folder = small
    bots = [TableBot(folder.advisor(rules), "optimal"), TableBot(folder.advisor(rules), "optimal")]
    for g in range(6):
        cards = play_match_game(rules, bots, 11, g)
        r = g % 2
        for i in range(2):
            seat = (i - r) % 2
            alone = play_game(rules, bots[i], seat_seed(11, seat, r), g // 2)
            assert cards[i].total == alone.total


def test_two_copies_of_the_same_bot_win_half_the_games(tables_dir):
    tables_dir.table(LOWER)
    result = play_match(LOWER, ["optimal", "optimal"], 20_000, seed=3, tables_dir=tables_dir)
    first = result.summary()["players"][0]["win_or_half_tie"]
    assert abs(first["rate"] - 0.5) < 4 * first["standard_error"]
    assert result.seats[:, 0].mean() == 0.5  # each plays each seat as often


def test_win_beats_optimal_on_a_small_game(small):
    """Against the expected-score player the win bot scores less on average and wins more."""
    rules, folder = small
    result = play_match(rules, ["win", "optimal"], 40_000, seed=1, tables_dir=folder)
    win, optimal = result.summary()["players"]
    assert win["win_or_half_tie"]["rate"] - 0.5 > 3 * win["win_or_half_tie"]["standard_error"]
    assert win["mean_score"] < optimal["mean_score"]


def test_user_bots_without_see_opponents_still_play(small):
    rules, folder = small

    class FirstBox:
        name = "first"

        def choose_keep(self, card, dice, rolls_left, rng):
            return dice.values

        def choose_box(self, card, dice, rng):
            return card.open_boxes[0]

    result = play_match(rules, [FirstBox(), "optimal"], 20, seed=0, tables_dir=folder)
    assert result.engine == "python" and result.scores.shape == (20, 2)


def test_win_turn_values_with_a_certain_opponent_equal_the_target_table(small, win_bot):
    rules, _ = small
    me = card(rules, "ones=2")
    tv = WinTurnValues(rules, me.state, win_bot.table, me.total, 40, [1.0])
    w = win_bot.table
    expected = 0.5 * w.probability(me.state, 38) + 0.5 * w.probability(me.state, 39)
    assert tv.start_value == pytest.approx(expected, abs=1e-15)
    assert tv.value == pytest.approx(expected, abs=FLOAT32_SLACK)  # the turn recursion agrees with the table


def test_match_command(small, capsys):
    from solver.cli.entry import main

    rules, folder = small
    args = [
        "match",
        "--rules",
        SMALL,
        "--bots",
        "win,optimal,greedy",
        "--games",
        "30",
        "--tables",
        str(folder),
    ]
    assert main([*args, "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 30 and [p["bot"] for p in out["players"]] == ["win", "optimal", "greedy"]
    assert sum(p["wins"] for p in out["players"]) <= 30
    assert all(p["wins"] + p["ties"] + p["losses"] == 30 for p in out["players"])
    assert main([*args, "--quiet"]) == 0
    assert "head to head" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bots", "optimal"], "2 to 8 bots"),
        (["--bots", "optimal,nosuch"], "unknown bot 'nosuch'"),
        (["--bots", "optimal,,random"], "empty bot name"),
        (["--bots", "optimal,random", "--games", "0"], "--games"),
    ],
)
def test_match_command_rejects_bad_input(args, message, capsys):
    from solver.cli.entry import main

    assert main(["match", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_hint_with_opponent_cards_ranks_by_p_win(small, capsys):
    from solver.cli.entry import main

    rules, folder = small
    base = ["hint", "--rules", SMALL, "--card", "ones=2", "--dice", "11234", "--tables", str(folder)]
    opp = ["--opponent-card", "ones=5,chance=30,yahtzee=0"]
    assert main([*base, "--rolls-left", "0", *opp, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    first, second = out["options"]
    assert first["category"] == "chance" and first["p_win"] == pytest.approx(
        P_YAHTZEE_IN_A_TURN, abs=FLOAT32_SLACK
    )
    assert second["category"] == "yahtzee" and second["p_win"] == 0.0
    assert second["ev"] > first["ev"]  # the expected-score move is the other one
    assert main([*base, "--rolls-left", "1", *opp, "--opponent-card", "chance=20"]) == 0
    assert "P(win)" in capsys.readouterr().out
    assert main([*base, "--rolls-left", "1", "--opponent-card", "bogus=1"]) == 2
    assert "--opponent-card 'bogus=1'" in capsys.readouterr().err
    assert main([*base, "--rolls-left", "1", *opp, "--target", "40"]) == 2


# --- play and review ---------------------------------------------------------------------------
def _play(monkeypatch, capsys, tmp_path, folder, argv, lines):
    import io
    import sys

    from solver.cli.entry import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    rc = main(["play", "--data", str(tmp_path / "data"), "--rules", SMALL, "--tables", str(folder), *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_play_with_a_win_computer_shows_chances_and_the_review_their_changes(
    small, monkeypatch, capsys, tmp_path
):
    from solver.cli.entry import main

    rules, folder = small
    lines = ["r", "hint", "s 1", "r", "s 2", "r", "s 3"]
    rc, out, err = _play(
        monkeypatch, capsys, tmp_path, folder, ["--players", "Ann,computer:win", "--seed", "4"], lines
    )
    assert rc == 0, err
    chances = [line for line in out.splitlines() if "chances to win:" in line]
    assert len(chances) == 5  # after each turn but the last (6 turns)
    for line in chances:
        values = [float(v) for v in re.findall(r"([\d.]+)%", line)]
        assert len(values) == 2 and all(0.0 <= v <= 100.0 for v in values)
    assert "Computer (win)" in out
    assert (
        main(["review", "--last", "--data", str(tmp_path / "data"), "--tables", str(folder), "--json"]) == 0
    )
    review = json.loads(capsys.readouterr().out)
    effects = review["p_win_by_turn"]
    assert [e["turn"] for e in effects] == list(range(1, 7))
    last = effects[-1]
    assert last["after"] in (0.0, 0.5, 1.0)  # the game is over: won, tied or lost


def test_play_level_win_and_bad_computer_levels(small, monkeypatch, capsys, tmp_path):
    rules, folder = small
    rc, out, err = _play(
        monkeypatch,
        capsys,
        tmp_path,
        folder,
        ["--level", "win", "--seed", "2"],
        ["r", "s 1", "r", "s 2", "r", "s 3"],
    )
    assert rc == 0, err
    assert "Computer (win)" in out
    rc, out, err = _play(monkeypatch, capsys, tmp_path, folder, ["--players", "Ann,computer:nosuch"], [])
    assert rc == 2 and "computer's level" in err
    rc, out, err = _play(monkeypatch, capsys, tmp_path, folder, ["--players", "computer:win"], [])
    assert rc == 2 and "at least one person" in err


def test_triple_card_has_no_win_level(capsys):
    from solver.cli.entry import main

    assert main(["play", "--rules", "triple", "--level", "win"]) == 2
    assert (
        "--level win: the yahtzee+triple computer is one of easy, medium, hard, perfect"
        in capsys.readouterr().err
    )


def test_chances_to_win_add_up_to_one(small, win_bot):
    """Each player's figure is its own approximation; shown side by side they add up to 100%, and
    a player whose opponents have finished keeps its exact value."""
    rules, _ = small
    mid = [card(rules, "ones=3"), card(rules, "chance=20"), card(rules, "")]
    for cards in (mid[:2], mid):
        chances = win_bot.win.chances(cards)
        assert sum(chances) == pytest.approx(1.0, abs=1e-12) and all(0 <= c <= 1 for c in chances)
    me, done = card(rules, "chance=20,yahtzee=0"), card(rules, "ones=0,chance=21,yahtzee=0")
    exact = win_bot.win.chance(me, [done])
    assert win_bot.win.chances([me, done]) == pytest.approx([exact, 1 - exact], abs=1e-12)


def test_win_chance_left_is_a_start_value_above_zero(small, win_bot):
    """The numba match's test of a chance left (``win_chance_left``, the first positive term)
    against the start value it stands for (``mixed_start_values`` > 0), on every reachable state
    of the small game, against every opponent row and needs from far behind to far ahead."""
    from solver.engine import arrays as A
    from solver.engine import kernels as K
    from solver.engine.dp import kernel_values

    rules, _ = small
    target = win_bot.table.arrays()
    res = win_bot.win.model.residuals
    q = kernel_values(res.p, np.float32)
    states = np.argwhere(target.off >= 0)
    rows = np.argwhere(res.off >= 0)
    q0 = np.concatenate([[0], res.off[tuple(rows.T)]])  # and a certain opponent: q[0:1]
    qn = np.concatenate([[1], res.length[tuple(rows.T)]])
    # every (state, opponent row, need): states outermost, needs innermost
    axes = np.meshgrid(np.arange(len(states)), np.arange(len(q0)), np.arange(-60, 240, 17), indexing="ij")
    grid = np.stack([a.ravel() for a in axes], axis=1)
    mask, u, f = (np.ascontiguousarray(states[grid[:, 0], k]) for k in range(3))
    args = (
        A.States(mask, u, f),
        A.Opponents(grid[:, 2].copy(), q0[grid[:, 1]], qn[grid[:, 1]], q, WinBot.TIE),
        A.TargetArrays(target.w, target.off, target.lead, target.length),
    )
    value = np.empty(len(grid))
    K.mixed_start_values(*args, value)
    chance = np.empty(len(grid), dtype=np.bool_)
    K.win_chance_left(*args, chance)
    assert 0 < chance.sum() < len(grid)
    np.testing.assert_array_equal(chance, value > 0.0)

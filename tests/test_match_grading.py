"""Matches graded where P(win) is exact: the last seat's last turn, every opponent finished.

Each graded game's loss is checked against the plain-Python brute force (tests/naive.py) from
the turn's record, on reduced games (the Joker and Yahtzee bonus; the upper bonus), and so is
the turn's value (the chance minus the losses plus the luck); a bot that stops on its first roll
there loses exactly what the brute force says; the win bot loses nothing; both engines agree.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from naive import NaiveSolver, win_last_turn
from test_dp_naive import GAMES

from solver.advice.advisor import Advisor
from solver.advice.batch import advise_json_lines
from solver.cli.entry import main
from solver.core import dice as D
from solver.core.card import ScoreCard
from solver.core.errors import MissingTableError
from solver.core.rules import get_rules
from solver.engine import arrays as A
from solver.engine.tables import table_paths
from solver.engine.target import build_target, load_target
from solver.play.bots import FrequentBot, RandomBot, TableBot, WinBot
from solver.play.match import grading_summary, play_match, play_match_game, seating, worst_match_positions
from solver.play.simulate import card_before_turn

# ones, chance and yahtzee (the Joker, Yahtzee bonuses); ones, twos, sixes and chance (upper bonus)
SMALL = (
    "yahtzee+without=twos,threes,fours,fives,sixes,three_of_a_kind,four_of_a_kind,full_house,"
    "small_straight,large_straight"
)
RULES = {"small": get_rules(SMALL), "upper-bonus": GAMES["upper-bonus"]}


# the fast loop grades the small game (the Joker and Yahtzee bonuses); CI the upper bonus's too
@pytest.fixture(
    scope="module",
    params=[k if k == "small" else pytest.param(k, marks=pytest.mark.slow) for k in sorted(RULES)],
)
def game(request, tables_dir):
    rules = RULES[request.param]
    tables_dir.table(rules)
    build_target(rules, tables_dir, t_max=200, progress=False)  # as test_match builds it
    return rules, tables_dir


class PythonRandom(RandomBot):
    """The random bot on the Python engine (a subclass is never run in the kernels)."""


class StopsAtOnce(WinBot):
    """The win bot, but on the last seat's last turn it scores its first roll (when it may)."""

    def choose_keep(self, card, dice, rolls_left, rng):
        if card.n_filled == self.rules.n_boxes - 1 and all(c.is_complete for c in self.opponents):
            if rolls_left == 2 and not self.rules.all_rolls:
                return dice.values
        return super().choose_keep(card, dice, rolls_left, rng)


def naive_state(card: ScoreCard) -> tuple[int, int, bool]:
    rules = card.rules
    upper = min(card.upper_total, rules.upper_threshold) if rules.upper_bonus > 0 else 0
    return card.filled_mask, upper, bool(card.yahtzee_holds_50)


def last_turns(rules, bots, seed: int, games: int):
    """Per game: the last seat's bot, its card before the last turn, the best opponent total,
    the turn's record (replayed on the Python engine)."""
    out = []
    for g in range(games):
        moves = np.zeros(A.N_MOVES, dtype=np.int16)
        cards = play_match_game(rules, bots, seed, g, moves)
        i = seating(g, len(bots))[-1]
        last = cards[i]
        after = [-1 if s is None else s for s in last.scores]
        before = card_before_turn(rules, after, last.yahtzee_bonus_count, moves)
        best = max(c.total for k, c in enumerate(cards) if k != i)
        out.append((i, before, best, moves.copy()))
    return out


def naive_grade(rules, before: ScoreCard, best: int, moves) -> tuple[float, float]:
    """``(loss, start value)`` of a recorded last turn by the brute force."""
    turn = win_last_turn(NaiveSolver(rules), naive_state(before), best - before.total)
    first = D.KEEPS[int(moves[A.MOVE_ROLL1])]
    loss = 0.0
    for rolls_left, (roll, keep) in zip((2, 1), ((0, 1), (2, 3)), strict=True):
        if int(moves[A.MOVE_KEEP1 if rolls_left == 2 else A.MOVE_KEEP2]) < 0:
            break
        dice, kept = D.KEEPS[int(moves[roll])], D.KEEPS[int(moves[keep])]
        taken = turn.stop(dice) if kept == dice else turn.reroll(kept, rolls_left)
        loss += turn.hold(dice, rolls_left) - taken
    assert first  # the turn's first roll is five dice
    return loss, turn.value  # the box is forced: one box is open


def points_of(result, i: int) -> np.ndarray:
    s = result.scores
    top = s.max(axis=1)
    n_top = (s == top[:, None]).sum(axis=1)
    return np.where(s[:, i] == top, np.where(n_top == 1, 1.0, 0.5), 0.0)


# the fast loop: the numba engine (test_engines_grade_the_same has the Python one grade the same)
@pytest.mark.parametrize("engine", ["numba", pytest.param("python", marks=pytest.mark.slow)])
def test_losses_and_values_against_the_brute_force(game, engine):
    """A weak bot against optimal (frequent on the numba engine, random on the Python one):
    every graded game's loss and the turn's value (what it won + the losses - the luck) equal
    the brute force's, game by game."""
    rules, folder = game
    optimal = TableBot(Advisor(folder.table(rules)), "optimal")
    if engine == "numba":
        bots, players = ["frequent", "optimal"], [FrequentBot(rules), optimal]  # the same games
    else:
        bots = players = [PythonRandom(rules), optimal]
    games = 120
    result = play_match(rules, bots, games, seed=5, tables_dir=folder, grade=True, engine=engine)
    assert result.engine == engine
    replay = last_turns(rules, players, 5, games)
    graded = 0
    for g, (i, before, best, moves) in enumerate(replay):
        rec = result.grading.recorders[i]
        loss, value = naive_grade(rules, before, best, moves)
        assert rec.game_loss[g] == pytest.approx(loss, abs=1e-12)
        # what the bot won is the turn's value minus its losses plus its luck
        start = points_of(result, i)[g] + rec.game_loss[g] - rec.game_luck[g]
        assert start == pytest.approx(value, abs=1e-12)
        for other in range(2):
            if other != i:
                assert result.grading.recorders[other].game_loss[g] == 0.0
        graded += loss > 0
    assert graded >= 3  # the weak bot does lose at some of them
    rows = grading_summary(result)
    assert [r["graded_games"] for r in rows] == [games // 2, games // 2]


def test_a_known_worse_choice_costs_exactly_its_loss(game):
    """The win bot that stops on its first roll at the graded positions loses there exactly the
    brute force's best value minus stopping's; the win bot itself loses nothing."""
    rules, folder = game
    target = load_target(rules, folder)
    advisor = Advisor(folder.table(rules))
    games = 60
    bots = [StopsAtOnce(advisor, target), WinBot(advisor, target)]
    result = play_match(rules, bots, games, seed=11, tables_dir=folder, grade=True)
    replay = last_turns(rules, [StopsAtOnce(advisor, target), WinBot(advisor, target)], 11, games)
    expected = []
    for g, (i, before, best, moves) in enumerate(replay):
        if i != 0:
            continue
        turn = win_last_turn(NaiveSolver(rules), naive_state(before), best - before.total)
        dice = D.KEEPS[int(moves[A.MOVE_ROLL1])]
        assert int(moves[A.MOVE_KEEP1]) == int(moves[A.MOVE_ROLL1])  # it stopped
        expected.append(turn.hold(dice, 2) - turn.stop(dice))
        assert result.grading.recorders[0].game_loss[g] == pytest.approx(expected[-1], abs=1e-12)
    rows = grading_summary(result)
    assert rows[0]["loss_per_graded_game"] == pytest.approx(float(np.mean(expected)), abs=1e-12)
    assert rows[0]["loss_per_graded_game"] > 0.01  # stopping at once is costly
    assert abs(rows[1]["loss_per_graded_game"]) < 1e-9  # the win bot plays these turns exactly
    # the numba engine's win bot too
    fast = play_match(rules, ["win", "optimal"], 200, seed=2, tables_dir=folder, grade=True)
    assert fast.engine == "numba"
    assert np.abs(fast.grading.recorders[0].game_loss).max() < 1e-9


def test_engines_grade_the_same(game):
    """The win bot and frequent (whose games are the same on both engines): the same grades (the
    Python win bot breaks ties within 1e-12 by expected score), the same worst decisions."""
    rules, folder = game
    runs = [
        play_match(rules, ["win", "frequent"], 80, seed=3, tables_dir=folder, grade=True, engine=e, worst=5)
        for e in ("numba", "python")
    ]
    assert np.array_equal(runs[0].scores, runs[1].scores)
    for a, b in zip(runs[0].grading.recorders, runs[1].grading.recorders, strict=True):
        assert np.allclose(a.game_loss, b.game_loss, rtol=0, atol=1e-12)
        assert np.allclose(a.game_luck, b.game_luck, rtol=0, atol=1e-12)
    assert worst_match_positions(runs[0]) == worst_match_positions(runs[1])


def test_worst_positions_are_hint_positions(game):
    """The worst decisions: hint --batch reads them, and the P(win) of the move played and of the
    best (the win advisor's, against the opponents' cards written) differ by the loss."""
    rules, folder = game
    result = play_match(rules, ["random", "win"], 200, seed=1, tables_dir=folder, grade=True, worst=4)
    lines = worst_match_positions(result)
    assert 0 < len(lines) <= 8
    losses = [x["loss"] for x in lines if x["bot"] == "random"]
    assert losses == sorted(losses, reverse=True) and losses[0] > 0
    if rules.id == get_rules(SMALL).id:  # a rule set of the tests only has no name hint could read
        text = [json.dumps(x) for x in lines]
        answers = [json.loads(a) for a in advise_json_lines(text, tables_dir=folder)]
        assert all("error" not in a for a in answers)
    for x in lines:
        assert x["turn"] == rules.n_turns and len(x["opponent_cards"]) == 1
        assert x["best"]["p_win"] - x["played"]["p_win"] == pytest.approx(x["loss"], abs=1e-6)


def test_grading_needs_the_target_table(tmp_path):
    rules = RULES["upper-bonus"]
    from solver.cli.remedy import error_text

    with pytest.raises(MissingTableError) as info:
        play_match(rules, ["optimal", "random"], 10, tables_dir=tmp_path, grade=True)
    assert (info.value.rules.id, info.value.kind, info.value.folder) == (rules.id, "target", tmp_path)
    assert "--target" in error_text(info.value)  # the command is the CLI's to word


@pytest.fixture(scope="module")
def small(tables_dir):
    rules = RULES["small"]
    tables_dir.table(rules)
    build_target(rules, tables_dir, t_max=200, progress=False)  # as test_match builds it
    return rules, tables_dir


def test_cli_reports_the_graded_last_turns(small, tmp_path, capsys):
    """``match`` prints the graded block (80 columns), writes --worst, --json has ``last_turn``,
    --no-grade drops it, --worst with --no-grade is refused, a missing table is named."""
    rules, folder = small
    args = [
        "match",
        "--rules",
        rules.id,
        "--bots",
        "random,win",
        "--games",
        "60",
        "--tables",
        str(folder),
        "--quiet",
    ]
    worst = tmp_path / "worst.jsonl"
    assert main([*args, "--worst", str(worst), "--worst-count", "2"]) == 0
    out = capsys.readouterr().out
    assert "last turn of the last seat" in out and "costliest decisions written" in out
    block = out[out.index("last turn of the last seat") :].splitlines()
    # (a path is never cut: on a line of its own it may pass 80 columns, as under pytest-xdist's folders)
    wide = [
        line for line in block if len(line) > 80 and "written to" not in line and line.strip() != str(worst)
    ]
    assert wide == []
    assert 1 <= len(worst.read_text().splitlines()) <= 4
    assert main([*args, "--no-grade"]) == 0
    assert "last turn" not in capsys.readouterr().out
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["bot"] for r in report["last_turn"]] == ["random", "win"]
    assert main([*args, "--no-grade", "--worst", str(worst)]) == 2
    assert "--no-grade" in capsys.readouterr().err
    bare = tmp_path / "bare"  # the value table only: no target table
    bare.mkdir()
    for path in table_paths(rules, folder):
        shutil.copy(path, bare / path.name)
    plain = ["match", "--rules", rules.id, "--bots", "random,optimal", "--games", "20", "--tables", str(bare)]
    assert main([*plain, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "not graded" in out and f"yahtzee tables build --rules {rules.id} --target" in out

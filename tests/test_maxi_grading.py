"""Exact grading of six-dice decisions (Maxi Yatzy, issue 37): ``simulate --rules maxi --regret``
and ``--worst`` for the bots that play six dice (optimal, heuristic, greedy, frequent, random).

Every loss is checked decision by decision against the plain-Python brute force
(tests/naive.py) on reduced six-dice cards, game by game against the identity score = value -
loss + luck; the one block pass of the lane tables (kernels ``lane_block_tables``) gives the
tables the DP's turn kernel gives, bit for bit, and the games the graded and the ungraded
six-dice paths play are the same games.  With the full table built (``$YAHTZEE_MAXI_TABLES``)
the full card is graded too.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from naive import NaiveSolver
from test_maxi import only

from solver.core import dice as D
from solver.core.card import ScoreCard
from solver.core.rules import get_rules
from solver.play.simulate import regret_summary, simulate, worst_positions

#: reduced six-dice cards whose tables build and whose brute force solves in well under a second:
#: no upper box; an upper box beside a full straight; all-rolls (stopping early is not allowed)
CARDS = {
    "kinds": ("maxi", "one_pair,villa,chance"),
    "upper": ("maxi", "sixes,full_straight"),
    "all-rolls": ("maxi+all-rolls", "three_pairs,maxi_yatzy"),
}

_NAIVE: dict[str, NaiveSolver] = {}


def naive_of(rules) -> NaiveSolver:
    if rules.id not in _NAIVE:
        _NAIVE[rules.id] = NaiveSolver(rules)
    return _NAIVE[rules.id]


def naive_loss(rules, line: dict) -> float:
    """The loss of the decision of a ``worst_positions`` line by the brute force: the best
    option's value minus the value of the one played."""
    card = ScoreCard.parse(line["card"], rules)
    mask, u, f = card.state
    solver = naive_of(rules)
    state = (mask, u, bool(f))
    turn = solver.turn(state)
    dice = D.dice_class(rules.n_dice).parse(line["dice"]).values
    n = line["rolls_left"]
    played = line["played"]
    if n > 0:
        keep = tuple(played["keep"])
        taken = turn.stop(dice) if len(keep) == rules.n_dice else turn.reroll(keep, n)
        return turn.hold(dice, n) - taken
    counts = tuple(dice.count(face) for face in range(1, 7))
    moves = solver.moves(state, dice)
    for (b, _, _), (points, nxt) in zip(rules.placements(mask, counts, bool(f)), moves, strict=True):
        if rules.box_names[b] == played["category"]:
            return turn.stop(dice) - (points + solver.value(nxt))
    raise AssertionError(f"{played} is not a legal box")


@pytest.mark.parametrize("bot", ["frequent", "random", "heuristic", "greedy"])
@pytest.mark.parametrize("name", sorted(CARDS))
def test_every_six_dice_loss_equals_the_brute_force(tables_dir, name, bot):
    """Every decision that lost anything equals the brute force's loss; summed per game the losses
    make up each game's loss, and each score is the value minus the loss plus the luck."""
    rules = only(*CARDS[name])
    table = tables_dir.table(rules)
    games = 60 if bot in ("frequent", "random") else 400  # the table bots lose on fewer decisions
    r = simulate(rules, bot, games, seed=7, tables_dir=tables_dir, regret=True, worst=100_000)
    g = r.regret
    lines = worst_positions(r)
    # the simple bots lose on many decisions; the table bots may play a two-box card perfectly
    # (every score is still checked against the value, the losses and the luck below)
    assert len(lines) == len(g.worst["loss"]) > (10 if bot in ("frequent", "random") else -1)
    per_game = np.zeros(r.games)
    for line in lines:
        assert line["rules"] == rules.id and len(line["dice"]) == 6
        assert line["loss"] == pytest.approx(naive_loss(rules, line), abs=1e-9), line
        assert line["played"]["regret"] == pytest.approx(line["loss"], abs=1e-9)  # the advisor's too
        per_game[line["game"]] += line["loss"]
    np.testing.assert_allclose(per_game, g.game_loss, atol=1e-8)
    np.testing.assert_allclose(r.scores, table.empty_card_value - g.game_loss + g.game_luck, atol=1e-9)
    assert g.value == pytest.approx(naive_of(rules).value((0, 0, False)), abs=1e-9)


@pytest.mark.parametrize("name", sorted(CARDS))
def test_the_optimal_bot_loses_nothing_on_six_dice(tables_dir, name):
    """Graded from its own lane tables, optimal play loses nothing, its luck accounts for every
    point, and grading changes no game (the graded turns take another path through the kernels)."""
    rules = only(*CARDS[name])
    table = tables_dir.table(rules)
    r = simulate(rules, "optimal", 300, seed=5, tables_dir=tables_dir, regret=True, worst=10)
    g = r.regret
    assert np.abs(g.game_loss).max() < 1e-9 and len(g.worst["loss"]) == 0
    np.testing.assert_allclose(r.scores, table.empty_card_value + g.game_luck, atol=1e-9)
    plain = simulate(rules, "optimal", 300, seed=5, tables_dir=tables_dir)
    assert plain.regret is None
    np.testing.assert_array_equal(plain.scores, r.scores)


def test_lane_block_tables_equal_the_turn_kernel_bit_for_bit(tables_dir):
    """The one block pass (``lane_block_tables``, through grading's ``lane_turn_tables``, several
    masks a block) gives each lane the tables the DP's turn kernel gives it one mask at a time
    (``group_tables``), bit for bit, on six dice."""
    from solver.engine import arrays as A
    from solver.engine import kernels
    from solver.engine.dp import kernel_values, rule_arrays
    from solver.engine.playout import lane_tables

    rules = only("maxi", "sixes,full_straight")
    values = kernel_values(tables_dir.table(rules).values)
    ra = rule_arrays(rules)
    states = [
        (m, u)
        for m in range(rules.full_mask)
        for u in range(values.shape[1])
        if not np.isnan(values[m, u, 0])
    ]
    lane_mask = np.array([m for m, _ in states], dtype=np.int64)
    lane_u = np.array([u for _, u in states], dtype=np.int64)
    lane_f = np.zeros(len(states), dtype=np.int64)
    n, nb, n_keeps = len(states), rules.n_boxes, ra.add_die.shape[0]
    assert n_keeps == 924
    group_lane = np.concatenate([[0], np.flatnonzero(np.diff(lane_mask)) + 1, [n]]).astype(np.int64)
    group_mask = lane_mask[group_lane[:-1]]
    one = A.LaneTables(*lane_tables(n, nb, n_keeps, int(ra.n_class)))
    blocks = A.LaneTables(*lane_tables(n, nb, n_keeps, int(ra.n_class)))
    kernels.group_tables(0, len(group_mask), 0, group_mask, group_lane, lane_u, lane_f, values, ra, one)
    kernels.lane_turn_tables(0, n, 3, 0, lane_mask, lane_u, lane_f, values, ra, blocks)  # blocks of 3 lanes
    for a, b in zip(one, blocks, strict=True):
        assert a.tobytes() == b.tobytes()


def test_simulate_regret_and_worst_on_six_dice_from_the_command_line(tables_dir, capsys, tmp_path):
    """``simulate --rules maxi... --regret --json`` reports the regret as five dice do, ``--worst``
    writes positions of six dice, each a ``hint`` position whose advice shows the loss."""
    from solver.cli.entry import main

    rules = only(*CARDS["kinds"])
    tables_dir.table(rules)
    worst = tmp_path / "worst.jsonl"
    argv = ["simulate", "--rules", rules.id, "--bot", "random", "--games", "200", "--seed", "3", "--quiet",
            "--tables", str(tables_dir)]  # fmt: skip
    assert main([*argv, "--json", "--worst", str(worst), "--worst-count", "5"]) == 0
    data = json.loads(capsys.readouterr().out)
    regret = data["stats"]["regret"]
    assert {"keeps", "boxes", "by_turn", "by_box", "optimal_value", "expected_score", "strength_gap"} <= set(
        regret
    )
    assert len(regret["by_turn"]) == rules.n_turns and list(regret["by_box"]) == list(rules.box_names)
    assert regret["loss_per_game"] > 1 and data["worst"]["decisions"] == 5
    lines = [json.loads(x) for x in worst.read_text().splitlines()]
    assert len(lines) == 5
    for line in lines:
        assert main(["hint", "--rules", rules.id, "--card", line["card"], "--dice", line["dice"],
                     "--rolls-left", str(line["rolls_left"]), "--tables", str(tables_dir), "--json"]) == 0  # fmt: skip
        advice = json.loads(capsys.readouterr().out)
        key = "keep" if "keep" in line["played"] else "category"
        match = [o for o in advice["options"] if o.get(key) == line["played"][key]]
        assert len(match) == 1 and match[0]["regret"] == pytest.approx(line["loss"], abs=1e-8)
    assert main([*argv, "--worst", str(worst)]) == 0
    out = capsys.readouterr().out
    assert "random: its decisions graded by the table" in out
    assert "yahtzee hint --batch" in " ".join(out.split())  # the file read back: six dice in a batch
    lines = [json.loads(x) for x in worst.read_text().splitlines()]  # this run's worst decisions
    assert main(["hint", "--batch", str(worst), "--tables", str(tables_dir)]) == 0
    answers = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [a["dice"] for a in answers] == [x["dice"] for x in lines] and len(answers) > 5
    for line, answer in zip(lines, answers, strict=True):
        key = "keep" if "keep" in line["played"] else "category"
        match = [o for o in answer["options"] if o.get(key) == line["played"][key]]
        assert len(match) == 1 and match[0]["regret"] == pytest.approx(line["loss"], abs=1e-8)


@pytest.mark.slow
def test_workers_split_six_dice_games_as_one_process_plays_them(tables_dir):
    """``--workers``: six-dice games split over processes give one process's results, graded."""
    from solver.play.distributed import simulate_parallel

    rules = only(*CARDS["upper"])
    tables_dir.table(rules)
    one = simulate(rules, "frequent", 400, seed=2, tables_dir=tables_dir, regret=True, worst=20)
    split = simulate_parallel(
        rules, "frequent", 400, 2, workers=2, tables_dir=tables_dir, regret=True, worst=20
    )
    np.testing.assert_array_equal(split.scores, one.scores)
    np.testing.assert_allclose(split.regret.game_loss, one.regret.game_loss, rtol=0, atol=1e-12)
    assert regret_summary(split)["loss_per_game"] == pytest.approx(regret_summary(one)["loss_per_game"])


def test_full_maxi_card_is_graded():
    """With the full table built (``$YAHTZEE_MAXI_TABLES``): the frequent bot's losses and luck
    account for every point of its scores, the optimal bot loses nothing."""
    folder = os.environ.get("YAHTZEE_MAXI_TABLES")
    if not folder:
        pytest.skip("YAHTZEE_MAXI_TABLES names no folder with the maxi table")
    rules = get_rules("maxi")
    r = simulate(rules, "frequent", 300, seed=1, tables_dir=folder, regret=True, worst=20)
    g = r.regret
    assert g.value == pytest.approx(383.305389, abs=3e-5)
    np.testing.assert_allclose(r.scores, g.value - g.game_loss + g.game_luck, atol=1e-8)
    assert g.game_loss.mean() > 50 and len(worst_positions(r)) == 20
    o = simulate(rules, "optimal", 300, seed=1, tables_dir=folder, regret=True)
    assert np.abs(o.regret.game_loss).max() < 1e-9
    np.testing.assert_allclose(o.scores, g.value + o.regret.game_luck, atol=1e-8)

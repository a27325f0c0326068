"""Maxi Yatzy (six dice) on the surfaces that took five dice only before: the exact final-score
distribution (against the pure-Python reference on reduced six-dice cards, its mean against the
table's value, the memory bound's one-line refusal), the Gymnasium environment (spaces of six
dice, a whole episode) and the web advisor's answers (the CLI's own)."""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict

import numpy as np
import pytest
from clirun import only, run
from naive import NaiveSolver, play_turn

from solver.core.card import ScoreCard
from solver.core.dice import SixDice
from solver.core.rules import get_rules
from solver.engine import dp
from solver.engine.distribution import score_distribution
from solver.engine.open_game import (
    SIX_DICE_MEMORY,
    check_fits,
    fitting_open_boxes,
    open_game_bytes,
)


class _Kept(dict):
    """The reference solver's memo of turns, never emptied (it drops a turn once valued)."""

    def __delitem__(self, key) -> None:
        pass


def naive_finals(rules, card: ScoreCard, dice=None, rolls_left: int = 2) -> dict[int, float]:
    """P(final score) by the reference solver (tests/naive.py): its own values, every roll of the
    rest of the game, turn after turn (a turn under way: the reference turn from those dice)."""
    solver = NaiveSolver(rules)
    solver._turns = _Kept()  # each turn's memo kept: the turns valued are the turns played
    full = (1 << rules.n_boxes) - 1
    mask, u, _ = card.state
    frontier = {((mask, u, False), card.total): 1.0}
    first = dice
    while any(state[0] != full for state, _ in frontier):
        after: dict = defaultdict(float)
        for (state, points), p in frontier.items():
            if state[0] == full:
                after[(state, points)] += p
                continue
            turn = solver.turn(state)
            outcomes = play_turn(turn) if first is None else _from_dice(turn, first, rolls_left)
            for (nxt, gained), q in outcomes.items():
                after[(nxt, points + gained)] += p * q
        first = None
        frontier = after
    finals: dict[int, float] = defaultdict(float)
    for (_, points), p in frontier.items():
        finals[points] += p
    return finals


def _from_dice(turn, dice, rolls_left):
    """The reference turn from ``dice`` in hand with ``rolls_left``: :func:`play_turn`'s rule from
    there (its keeps and boxes, the bots' ties)."""
    import naive

    out: dict = {}
    held = {tuple(dice): 1.0}
    for rerolls in range(rolls_left, -1, -1):
        rolled: dict = {}
        for hand, p in held.items():
            keep = naive._keep(turn, hand, rerolls, 1e-9)
            if keep is None:
                naive._place(turn, hand, p, out, 1e-9)
                continue
            for after, q in naive.after_reroll(keep, len(hand)):
                rolled[after] = rolled.get(after, 0.0) + p * q
        held = rolled
    return out


SWEDISH = ("maxi+bonus=10/30", "fives,sixes,villa,tower")


@pytest.mark.parametrize(
    "spec, keep, card, dice, rolls",
    [
        (*SWEDISH, "fives=5,villa=0", None, 2),  # the bonus of 30 at 10 still open
        pytest.param(*SWEDISH, "villa=0,tower=0", None, 2, marks=pytest.mark.slow),  # 2 s
        (*SWEDISH, "sixes=6,villa=0", "555566", 1),
        ("maxi", "ones,two_pairs,full_straight", "two_pairs=0", "112345", 0),
        pytest.param(*SWEDISH, "villa=0", None, 2, marks=pytest.mark.slow),  # three boxes open: 15 s
    ],
)
def test_six_dice_distribution_is_the_reference_solvers(spec, keep, card, dice, rolls):
    rules = only(spec, keep)
    parsed = ScoreCard.parse(card, rules)
    roll = None if dice is None else SixDice.parse(dice).index
    start = time.perf_counter()
    want = naive_finals(rules, parsed, None if dice is None else tuple(SixDice.parse(dice).values), rolls)
    assert time.perf_counter() - start < 30
    dist = score_distribution(parsed, dp.solve(rules), roll=roll, rolls_left=rolls)
    got = {int(s): float(dist.pmf[s]) for s in np.flatnonzero(dist.pmf)}
    assert set(got) == {s for s, p in want.items() if p > 0}
    for s, p in want.items():
        assert abs(got.get(s, 0.0) - p) <= 1e-12, s


#: a reduced Maxi card whose table builds in well under a second (tests/test_maxi.py's SMALL)
SMALL = "maxi+without=ones,twos,threes,one_pair,two_pairs,three_pairs,four_of_a_kind,five_of_a_kind,large_straight,full_straight,villa,tower,chance"


@pytest.fixture(scope="module")
def small_tables(tmp_path_factory) -> str:
    from solver.engine.tables import build_table

    folder = tmp_path_factory.mktemp("maxi-tables")
    build_table(SMALL, folder, progress=False)
    return str(folder)


@pytest.mark.parametrize(
    "card, dice, rolls",
    [("", None, 2), ("sixes=24,maxi_yatzy=0", None, 2), ("fours=16", "444456", 1), ("", "123456", 0)],
)
def test_cli_distribution_of_six_dice(capsys, small_tables, card, dice, rolls):
    """``distribution --rules maxi... --json``: it adds up to 1, its mean is what ``hint`` (with
    dice) or ``value`` says the position is worth, read the packed table in place or unpacked."""
    from solver.engine.tables import load_table

    argv = ["--rules", SMALL, "--card", card, "--tables", small_tables, "--json"]
    if dice is None:
        code, out, _ = run(capsys, "value", *argv)
        want = json.loads(out)["expected_final"]
    else:
        code, out, _ = run(capsys, "hint", *argv, "--dice", dice, "--rolls-left", str(rolls))
        want = json.loads(out)["options"][0]["expected_final"]
    assert code == 0
    extra = [] if dice is None else ["--dice", dice, "--rolls-left", str(rolls)]
    code, out, err = run(capsys, "distribution", *argv, *extra)
    assert code == 0, err
    got = json.loads(out)
    assert got["rules"] == get_rules(SMALL).id and abs(sum(got["pmf"].values()) - 1.0) <= 1e-12
    assert abs(got["mean"] - want) <= 1e-6
    # the dense table gives the same numbers as the packed one read in place
    rules = get_rules(SMALL)
    parsed = ScoreCard.parse(card, rules)
    roll = None if dice is None else SixDice.parse(dice).index
    dense = score_distribution(parsed, load_table(rules, small_tables).values, roll=roll, rolls_left=rolls)
    assert dense.to_json() == got | {"pmf": got["pmf"]}


def test_six_dice_refusals_are_one_line(capsys, small_tables):
    code, _, err = run(capsys, "distribution", "--rules", "maxi", "--tables", small_tables)
    assert code == 2 and err.count("\n") == 1, err
    assert "with 20 boxes open needs about" in err and "at most 14 boxes open" in err
    code, _, err = run(
        capsys, "distribution", "--rules", SMALL, "--policy", "target:200", "--tables", small_tables
    )
    assert code == 2 and err.count("\n") == 1 and "does not take six dice" in err, err


def test_the_memory_estimate_bounds_what_fits():
    """Every Maxi position with 14 boxes open or fewer fits the bound, some with 15 do not; the
    estimate grows with the open boxes and the upper rows still open."""
    rules = get_rules("maxi")
    assert fitting_open_boxes(rules) == 14
    names = rules.box_names
    late = ScoreCard.parse(",".join(f"{b}=0" for b in names[:14]), rules)  # the lower rows open
    upper_open = ScoreCard.parse(",".join(f"{b}=0" for b in names[6:12]), rules)  # 14 open
    assert open_game_bytes(late) < open_game_bytes(upper_open) <= SIX_DICE_MEMORY
    check_fits(upper_open)
    check_fits(ScoreCard.empty(get_rules("yatzy")))  # five dice: nothing to refuse


# --------------------------------------------------------------------------- the full game
def full_tables() -> str:
    folder = os.environ.get("YAHTZEE_MAXI_TABLES")
    if not folder:
        pytest.skip("YAHTZEE_MAXI_TABLES names no folder with the maxi table")
    return folder


@pytest.mark.parametrize(
    "card, dice, rolls",
    [
        ("ones=3,twos=6,threes=9,fours=12,fives=15,one_pair=10,two_pairs=18,three_pairs=0,"
         "three_of_a_kind=12,four_of_a_kind=16,five_of_a_kind=0,small_straight=15,large_straight=20,"
         "full_house=20,villa=0,tower=0", None, 2),
        ("ones=2,twos=8,threes=12,fours=16,one_pair=12,two_pairs=18,three_pairs=0,three_of_a_kind=12,"
         "four_of_a_kind=16,five_of_a_kind=0,small_straight=15,large_straight=0,full_straight=21,"
         "full_house=20,villa=0", "555566", 1),
        ("one_pair=10,two_pairs=18,three_pairs=0,three_of_a_kind=12,four_of_a_kind=16,"
         "five_of_a_kind=0,small_straight=15,large_straight=0,full_straight=21,full_house=20,"
         "villa=0,tower=0,chance=25,maxi_yatzy=0", None, 2),
    ],
)  # fmt: skip
def test_full_maxi_distribution_mean_is_the_tables_value(capsys, card, dice, rolls):
    folder = full_tables()
    argv = ["--rules", "maxi", "--card", card, "--tables", folder, "--json"]
    extra = [] if dice is None else ["--dice", dice, "--rolls-left", str(rolls)]
    code, out, err = run(capsys, "distribution", *argv, *extra)
    assert code == 0, err
    got = json.loads(out)
    if dice is None:
        code, out, _ = run(capsys, "value", *argv)
        want = json.loads(out)["expected_final"]
    else:
        code, out, _ = run(capsys, "hint", *argv, *extra)
        want = json.loads(out)["options"][0]["expected_final"]
    assert abs(got["mean"] - want) <= 1e-6 and abs(sum(got["pmf"].values()) - 1.0) <= 1e-9


# --------------------------------------------------------------------------- the Gymnasium env
def test_gym_env_of_six_dice(small_tables):
    pytest.importorskip("gymnasium")
    from solver.play.gym_env import YahtzeeEnv, box_action, keep_action

    rules = get_rules(SMALL)
    env = YahtzeeEnv(rules, tables_dir=small_tables)
    assert (env.n_dice, env.n_keep_actions, env.stop_action) == (6, 64, 63)
    assert env.action_space.n == 64 + rules.n_boxes
    assert env.observation_space["dice"].shape == (6,)
    assert keep_action((1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6)) == 63
    assert box_action(rules, rules.box_names[0]) == 64
    rng = np.random.default_rng(5)
    obs, info = env.reset(seed=7)
    total, done, steps = 0.0, False, 0
    while not done:
        assert env.observation_space.contains(obs) and info["action_mask"].shape == (env.action_space.n,)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, done, _, info = env.step(action)
        assert info["regret"] >= -1e-9
        total += reward
        steps += 1
    assert steps >= rules.n_boxes and total == info["total"] == int(obs["total"][0])
    assert (obs["scores"] >= 0).all()
    flat = YahtzeeEnv(rules, regret=False, observation="flat")
    obs, _ = flat.reset(seed=7)
    assert obs.shape == flat.observation_space.shape and flat.observation_space.contains(obs)


# --------------------------------------------------------------------------- the web advisor
def test_web_advisor_answers_six_dice_as_the_cli(capsys, small_tables):
    from webserver import Client, need_web, serve

    need_web()

    from solver.web.app import create_app
    from solver.web.service import Service

    argv = ["--rules", SMALL, "--card", "sixes=18", "--tables", small_tables, "--json"]
    _, out, _ = run(capsys, "hint", *argv, "--dice", "225566", "--rolls-left", "1")
    want = json.loads(out)
    service = Service(small_tables, None, progress=False)
    with serve(create_app(service=service)) as base:
        client = Client(base)
        got = client.post(
            "/api/hint", json={"rules": SMALL, "card": "sixes=18", "dice": "225566", "rolls_left": 1}
        )
        assert got.status_code == 200 and got.json() == want
        info = client.get("/api/rules", params={"rules": SMALL}).json()
        assert info["n_dice"] == 6
        aimed = client.post(
            "/api/hint", json={"rules": SMALL, "dice": "225566", "rolls_left": 1, "target": 100}
        )
        assert aimed.status_code == 400 and "does not take six dice" in aimed.json()["error"]
        big = client.post("/api/distribution", json={"rules": "maxi"})
        assert big.status_code == 400 and "boxes open needs about" in big.json()["error"]

"""Batch simulation: the numba engine against the plain Python one, statistics, the CLI.

Tables are built once per session in the ``tables_dir`` folder of ``conftest.py``.  The
fast loop plays small rule sets (6 to 10 boxes, or a fill order: tables in well under a
second); tests that need a 13+ box table or play many games are marked ``slow``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from clirun import run
from hypothesis import given
from hypothesis import strategies as st

from solver.core import dice as D
from solver.core.card import ScoreCard
from solver.core.errors import IllegalMoveError, UsageError
from solver.core.rules import RULE_SETS, get_rules
from solver.core.streams import MASK64, SeededStream, mix64, seeded_die
from solver.engine import arrays, numpy_play, playout
from solver.engine import kernels as K
from solver.engine.dp import kernel_values, level_lanes, masks_by_level, rule_arrays
from solver.engine.kernels.rules import low_bit_index
from solver.play import simulate as sim_module
from solver.play.bots import BOTS, Bot, get_bot
from solver.play.simulate import NUMPY_GAMES, paired, play_game, simulate

slow = pytest.mark.slow

#: Small rule sets with every new modifier (their tables build in well under a second).
SMALL = "yahtzee+lower-only"  # 7 boxes, Joker and Yahtzee bonus
NEW_MODIFIERS_SMALL = [
    "yacht+lower-only",
    "yatzy+lower-only+all-rolls",
    "yatzy+lower-only+order=choose",
    "yatzy+lower-only+extra-bonus=50+yatzy-rows=2",
    "yahtzee+lower-only",
    "yatzy+without=ones,twos,threes,one_pair,two_pairs,chance",
    "yacht+order=up+extra-bonus=100",
]
#: The same modifiers on full cards (13+ boxes: slow tables).
NEW_MODIFIERS_FULL = [
    "yacht",
    "yatzy+all-rolls",
    "yatzy+order=choose",
    "yatzy+extra-bonus=50+yatzy-rows=2",
    "yahtzee+lower-only",
    "yahtzee+all-rolls",
    "yahtzee+order=down",
]

STAT_KEYS = {
    "mean",
    "std",
    "standard_error",
    "ci95",
    "min",
    "p5",
    "p25",
    "p50",
    "p75",
    "p95",
    "max",
    "upper_bonus_rate",
    "yahtzee_rate",
    "mean_yahtzee_bonuses",
    "box_means",
}


@pytest.fixture(scope="module")
def tdir(tables_dir):
    """The session tables folder with the small rule set's table built."""
    tables_dir.table(SMALL)
    return tables_dir


@pytest.fixture(scope="module")
def yahtzee_tdir(tables_dir):
    """The session tables folder with the yahtzee table built (13 boxes: for slow tests)."""
    tables_dir.table("yahtzee")
    return tables_dir


# --- the dice stream ------------------------------------------------------------
def _numba_dice(seed: int, game0: int, n_games: int, k0: int, n_dice: int) -> np.ndarray:
    out = np.empty((n_games, n_dice), dtype=np.int64)
    K.stream_dice(np.uint64(mix64(seed & MASK64)), game0, k0, out)
    return out


@pytest.mark.parametrize("seed", [0, 1, 42, 2**63 + 5, MASK64, -1, 10**30])
def test_numba_stream_equals_python(seed):
    got = _numba_dice(seed, 0, 5, 0, 40)
    want = [[seeded_die(seed, g, k) for k in range(40)] for g in range(5)]
    assert got.tolist() == want


@given(
    seed=st.integers(min_value=0, max_value=MASK64),
    game=st.integers(min_value=0, max_value=2**40),
    k=st.integers(min_value=0, max_value=10**6),
)
def test_numba_die_equals_python_die(seed, game, k):
    assert _numba_dice(seed, game, 1, k, 3)[0].tolist() == [seeded_die(seed, game, k + i) for i in range(3)]


def test_stream_is_pinned():
    """The documented stream is stable: a change here changes every seeded game."""
    s = SeededStream(0, 0)
    assert [s.next_five() for _ in range(3)] == [(1, 2, 5, 2, 3), (3, 2, 5, 5, 2), (5, 2, 4, 4, 5)]


def test_dice_are_uniform():
    dice = _numba_dice(7, 0, 2000, 0, 60).ravel()
    counts = np.bincount(dice, minlength=7)[1:]
    expected = dice.size / 6
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert counts.sum() == dice.size and chi2 < 30  # 5 degrees of freedom


# --- placements -------------------------------------------------------------------
@pytest.mark.parametrize(
    "rules_id",
    [
        "yahtzee",
        "yahtzee-free-joker",
        "yatzy+yatzy-rows=3+extra-bonus=50",
        "yatzy+order=choose",
        "yacht+order=up",
    ]
    + [pytest.param(rid, marks=slow) for rid in sorted(set(RULE_SETS) - {"yahtzee", "yahtzee-free-joker"})]
    + [
        pytest.param(rid, marks=slow) for rid in ("yacht", "yahtzee+lower-only", "yahtzee-no-joker+all-rolls")
    ],
)
def test_numba_placements_equal_rules(rules_id):
    """The kernels' placement (legal boxes, Joker scores, bonus, upper bonus credited) is the rules'."""
    rules = get_rules(rules_id)
    rng = np.random.default_rng(3)
    n = 1500
    masks = rng.integers(0, 1 << rules.n_boxes, size=n)
    masks[: 2 * D.N_FACES] = rules.full_mask & ~np.int64(1)  # a few nearly full cards
    rolls = rng.integers(0, D.N_ROLLS, size=n)
    five_kind = [D.Dice((face,) * 5).index for face in range(1, 7)]
    rolls[::3] = rng.choice(five_kind, size=len(rolls[::3]))  # many Jokers
    if rules.forced_order:  # the cards a fill order can reach: a prefix or a suffix filled
        k = rng.integers(0, rules.n_boxes, size=n)
        prefix, suffix = (1 << k) - 1, rules.full_mask ^ ((1 << (rules.n_boxes - k)) - 1)
        masks = np.where(rng.integers(0, 2, size=n) == 1, prefix, suffix)
    us = rng.integers(0, rules.upper_cap + 1, size=n)
    flags = rng.integers(0, 2, size=n) if rules.n_flags == 2 else np.zeros(n, dtype=np.int64)
    flags = np.where(masks & rules.rows_mask != 0, flags, 0)  # a flag needs a filled row
    values = kernel_values(np.zeros((1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)))
    ev = np.empty((n, rules.n_boxes))
    scores = np.empty((n, rules.n_boxes), dtype=np.int64)
    bonus = np.empty(n, dtype=np.int64)
    args = [a.astype(np.int64) for a in (masks, us, flags, rolls)]
    K.placement_values(*args, values, rule_arrays(rules), ev, scores, bonus)
    for i in range(n):
        counts = tuple(int(c) for c in D.KEEP_COUNTS[D.ROLL_OFFSET + rolls[i]])
        state = (int(masks[i]), int(us[i]), int(flags[i]))
        want = rules.placements(state[0], counts, bool(flags[i]))
        got = [(b, int(scores[i, b])) for b in range(rules.n_boxes) if scores[i, b] >= 0]
        assert got == [(b, s) for b, s, _ in want], (rules_id, state, counts)
        assert np.isneginf(ev[i, scores[i] < 0]).all()
        for b, s, extra in want:
            assert int(bonus[i]) == extra
            assert ev[i, b] == rules.step(state, b, s)[0] + extra  # points, upper bonus included


def test_low_bit_index():
    for b in range(36):
        assert low_bit_index(1 << b) == b
        assert low_bit_index((1 << b) | (1 << 35)) == b


# --- the fast engine against the Python engine ---------------------------------
def _check_cards(result) -> None:
    """Every box filled with a score it can hold; totals add up."""
    rules = result.rules
    cards = result.cards.astype(np.int64)
    assert (cards >= 0).all(), "a box was left open"
    for b, allowed in enumerate(rules.possible_scores):
        assert set(np.unique(cards[:, b]).tolist()) <= allowed, rules.box_names[b]
    upper = cards[:, list(rules.upper_indices)].sum(axis=1)
    reached = upper >= rules.upper_threshold if rules.has_upper_bonus else np.zeros(len(cards), dtype=bool)
    total = cards.sum(axis=1) + np.where(reached, rules.upper_bonus, 0) + result.yahtzee_bonuses * rules.bonus
    assert (total == result.scores).all()
    assert (reached == result.upper_bonus).all()
    rows = list(rules.five_kind_rows)
    if rules.bonus:
        holds_50 = (cards[:, rows] == 50).any(axis=1)
        assert (result.yahtzee_bonuses[~holds_50] == 0).all(), "a bonus without 50 in a five-of-a-kind row"
        assert (result.yahtzee_bonuses <= rules.n_boxes - len(rows)).all()
    else:
        assert (result.yahtzee_bonuses == 0).all()
    assert (result.yahtzee == ((cards[:, rows] == 50).any(axis=1) if rows else False)).all()
    assert np.allclose(result.box_sums, cards.sum(axis=0))


@pytest.mark.parametrize(
    "rules_id, bot, games",
    [
        # the fast loop: the three cheapest (frequent, optimal, heuristic); CI all six
        pytest.param("yahtzee+lower-only", "optimal", 80, marks=slow),  # Joker and Yahtzee bonus
        ("yahtzee+lower-only", "frequent", 80),
        pytest.param("yatzy+lower-only+all-rolls", "optimal", 50, marks=slow),
        ("yatzy+lower-only+order=choose", "optimal", 50),
        ("yacht+lower-only+extra-bonus=50", "heuristic", 60),
        pytest.param("yatzy+lower-only+extra-bonus=50+yatzy-rows=2", "greedy", 60, marks=slow),
        pytest.param("yahtzee", "optimal", 300, marks=slow),
        pytest.param("yahtzee", "heuristic", 150, marks=slow),
        pytest.param("yahtzee", "greedy", 150, marks=slow),
        pytest.param("yahtzee", "frequent", 300, marks=slow),
        pytest.param("yahtzee-free-joker", "optimal", 150, marks=slow),
        pytest.param("yahtzee-no-joker", "optimal", 100, marks=slow),
        pytest.param("yatzy", "optimal", 150, marks=slow),
        pytest.param("yatzy-forced", "optimal", 150, marks=slow),
        pytest.param("yatzy", "heuristic", 100, marks=slow),
        pytest.param("yacht", "optimal", 300, marks=slow),
        pytest.param("yatzy+all-rolls", "optimal", 200, marks=slow),
        pytest.param("yatzy+order=choose", "heuristic", 300, marks=slow),
        pytest.param("yatzy+order=choose", "optimal", 200, marks=slow),
        pytest.param("yatzy+extra-bonus=50+yatzy-rows=2", "optimal", 200, marks=slow),
        pytest.param("yahtzee+order=up", "greedy", 300, marks=slow),
        pytest.param("yahtzee+all-rolls", "heuristic", 200, marks=slow),
    ],
)
def test_fast_engine_equals_python_engine(tables_dir, rules_id, bot, games):
    """Same games, same decisions: the numba engine, the numpy one (table bots) and the checked
    Python loop agree game by game."""
    if bot == "optimal":
        tables_dir.table(rules_id)
    b = get_bot(bot, rules_id, tables_dir, progress=False)
    slow_run = simulate(rules_id, b, games, seed=2024, game0=5, engine="python", keep_cards=True)
    fast = simulate(rules_id, b, games, seed=2024, game0=5, engine="numba", keep_cards=True)
    runs = [fast]
    if bot in ("optimal", "heuristic", "greedy"):
        for threads in (1, 2):  # two threads: the games cut in two parts, the same games
            runs.append(
                simulate(
                    rules_id, b, games, seed=2024, game0=5, engine="numpy", keep_cards=True, threads=threads
                )
            )
            assert runs[-1].engine == "numpy" and runs[-1].threads == threads
    assert (slow_run.engine, fast.engine) == ("python", "numba")
    for each in runs:
        assert np.array_equal(each.cards, slow_run.cards)
        assert np.array_equal(each.scores, slow_run.scores)
        assert np.array_equal(each.yahtzee_bonuses, slow_run.yahtzee_bonuses)
        _check_cards(each)
    _check_cards(slow_run)


def _bots_on(rules_id: str, tables_dir) -> list:
    return [get_bot(name, rules_id, tables_dir, progress=False) for name in BOTS]


def _check_every_bot(tables_dir, rules_id: str, games: int) -> None:
    tables_dir.table(rules_id)
    means = {}
    for bot in _bots_on(rules_id, tables_dir):
        r = simulate(rules_id, bot, games, seed=6, engine="numba", keep_cards=True)
        assert r.engine == "numba" and r.games == games
        _check_cards(r)
        means[bot.name] = r.scores.mean()
    assert means["random"] < min(means["frequent"], means["greedy"], means["heuristic"])
    assert means["greedy"] <= means["optimal"] + 3 and means["heuristic"] <= means["optimal"] + 3


@pytest.mark.parametrize("rules_id", NEW_MODIFIERS_SMALL)
def test_every_bot_plays_the_new_modifiers(tables_dir, rules_id):
    """optimal, heuristic, greedy, frequent and random on small cards with each modifier."""
    _check_every_bot(tables_dir, rules_id, 200)


@slow
@pytest.mark.parametrize("rules_id", NEW_MODIFIERS_FULL)
def test_every_bot_plays_the_new_modifiers_on_full_cards(tables_dir, rules_id):
    _check_every_bot(tables_dir, rules_id, 3000)


def _final_states(monkeypatch) -> list[np.ndarray]:
    """Spy on the numba engine: the final game states (box scores, mask, upper total, bonuses,
    dice drawn, flag) of each chunk, from the box columns ``finish_games`` is given (a view)."""
    states: list[np.ndarray] = []
    finish = playout.finish_games

    def spy(rules, scores, nbonus, ids=None):
        states.append(scores.base)
        return finish(rules, scores, nbonus, ids)

    monkeypatch.setattr(playout, "finish_games", spy)
    return states


class _KeepCounter(Bot):
    """Delegates to a bot (so the checked Python engine plays it) and counts its keeps."""

    def __init__(self, bot):
        self.bot, self.name, self.keeps = bot, f"counted {bot.name}", []

    def choose_keep(self, card, dice, rolls_left, rng):
        keep = self.bot.choose_keep(card, dice, rolls_left, rng)
        self.keeps.append((rolls_left, len(keep)))
        return keep

    def choose_box(self, card, dice, rng):
        return self.bot.choose_box(card, dice, rng)


@pytest.mark.parametrize(
    "rules_id", ["yatzy+lower-only+all-rolls", pytest.param("yatzy+all-rolls", marks=slow)]
)
def test_all_rolls_never_stops_early(tables_dir, monkeypatch, rules_id):
    """Under all-rolls every turn of every game rolls three times, with every bot and engine."""
    tables_dir.table(rules_id)
    rules = get_rules(rules_id)
    nb, turns = rules.n_boxes, rules.n_turns
    states = _final_states(monkeypatch)
    for bot in _bots_on(rules_id, tables_dir):
        states.clear()
        simulate(rules, bot, 400, seed=11, chunk=150)
        assert len(states) == 3  # chunks of 150, 150, 100 games
        for state in states:  # three rolls of five dice a turn, from the first to the last turn
            assert (state[:, nb + 3] == 3 * 5 * turns).all(), bot.name
        counter = _KeepCounter(bot)
        simulate(rules, counter, 6, seed=11, engine="python")
        assert [r for r, _ in counter.keeps] == [2, 1] * (6 * turns), bot.name
        assert all(n < D.N_DICE for _, n in counter.keeps), bot.name
    # without the rule the same bots do stop early
    free = rules_id.replace("+all-rolls", "")
    tables_dir.table(free)
    states.clear()
    simulate(free, get_bot("optimal", free, tables_dir, progress=False), 400, seed=11)
    assert (states[0][:, nb + 3] < 3 * 5 * turns).any()


def test_frequent_bot_scores_are_pinned():
    """A table-free bot on the documented stream: a seeded transcript of final scores."""
    want = [316, 167, 162, 166, 79, 122, 182, 87, 147, 117]
    assert simulate("yahtzee", "frequent", 10, seed=0).scores.tolist() == want
    assert simulate("yahtzee", "frequent", 10, seed=0, engine="python").scores.tolist() == want


# --- the numpy engine: the kernels' games with nothing compiled ----------------------
@pytest.mark.parametrize(
    "rules_id",
    [
        SMALL,  # Joker, Yahtzee bonus and flag
        "yahtzee-free-joker+lower-only",
        "yahtzee-no-joker+lower-only",
        "yatzy+lower-only+all-rolls",
        "yatzy+lower-only+order=choose",
        "yacht+order=up+extra-bonus=100",
        "yatzy+without=ones,twos,threes,one_pair,two_pairs,chance",  # an upper bonus
    ],
)
def test_numpy_turn_tables_are_the_kernels(tables_dir, rules_id):
    """Every reachable state's within-turn tables (e0, e1, the successor rows) from numpy are
    the kernels', bit for bit: the same decisions, ties included."""
    rules = get_rules(rules_id)
    values = kernel_values(tables_dir.table(rules).values)
    ra = rule_arrays(rules)
    nb = rules.n_boxes
    for masks in masks_by_level(rules):
        (lane_mask, lane_u, lane_f), _ = level_lanes(rules, masks)
        if rules.n_flags == 1:
            lane_f = np.zeros_like(lane_f)
        e0, e1, succ = numpy_play.turn_tables(ra, values, lane_mask, lane_u, lane_f)
        for m in np.unique(lane_mask)[:40]:  # a few masks of each level, all their lanes
            j = np.flatnonzero(lane_mask == m)
            want = np.empty((D.N_KEEPS, len(j))), np.empty((D.N_KEEPS, len(j))), np.empty((6 * nb, len(j)))
            no_box = np.empty((0, 0), dtype=np.int64)
            K.turn_tables(m, lane_u[j].copy(), lane_f[j].copy(), values, ra, *want, np.int64(0), no_box)
            for got, kernel in zip((e0, e1, succ), want, strict=True):
                assert np.array_equal(got[:, j], kernel), (rules_id, int(m))


def test_auto_plays_small_table_runs_in_numpy(tdir, monkeypatch):
    """``engine="auto"``: a table bot's run of at most NUMPY_GAMES games in numpy (in threads)
    while the process holds no kernels; a larger one, a graded one, a table-free bot and any
    run once the kernels are loaded in the kernels; the same games either way."""
    kernels = simulate(SMALL, "optimal", 300, seed=5, tables_dir=tdir, engine="numba")
    assert playout.kernels_loaded()  # the run above compiled or loaded them
    assert simulate(SMALL, "optimal", 300, seed=5, tables_dir=tdir).engine == "numba"
    monkeypatch.setattr(sim_module, "kernels_loaded", lambda: False)  # as in a fresh process
    small = simulate(SMALL, "optimal", 300, seed=5, tables_dir=tdir, threads=2)
    assert (small.engine, small.threads) == ("numpy", 2)
    assert np.array_equal(small.scores, kernels.scores)
    assert simulate(SMALL, "optimal", NUMPY_GAMES + 1, seed=5, tables_dir=tdir).engine == "numba"
    assert simulate(SMALL, "optimal", 30, seed=5, tables_dir=tdir, regret=True).engine == "numba"
    assert simulate(SMALL, "frequent", 30, seed=5).engine == "numba"
    for bad in ({"bot": "frequent"}, {"regret": True}):
        with pytest.raises(UsageError, match="numpy engine"):
            simulate(SMALL, bad.pop("bot", "optimal"), 10, tables_dir=tdir, engine="numpy", **bad)


@pytest.mark.subprocess
def test_a_first_small_simulate_compiles_nothing(tmp_path):
    """``yahtzee simulate --games 1000`` on a fresh install (empty numba cache and tables folder:
    the shipped table) imports no numba and writes no compiled code; its games are the kernels'."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), YAHTZEE_TABLES=str(tmp_path / "tables"))
    cmd = [sys.executable, "-X", "importtime", "-m", "solver", "simulate", "--games", "1000", "--seed", "3"]
    proc = subprocess.run([*cmd, "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {
        line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "import time:" in line
    }
    assert "numba" not in imported and "solver.engine.numpy_play" in imported
    assert not (tmp_path / "numba").exists() and not (tmp_path / "tables").exists()
    stats = json.loads(proc.stdout)["stats"]
    want = json.loads(json.dumps(simulate("yahtzee", "optimal", 1000, seed=3, engine="numba").summary()))
    assert stats["engine"] == "numpy" and {k: stats[k] for k in want} == want


# --- reproducibility -------------------------------------------------------------
def test_same_scores_whatever_the_threads_and_chunks(tdir):
    runs = []
    for threads, chunk in ((1, 1 << 20), (2, 1 << 20), (2, 777), (3, 500)):
        r = simulate(
            SMALL, "optimal", 5000, seed=9, threads=threads, tables_dir=tdir, chunk=chunk, engine="numba"
        )
        runs.append(r.scores)
        assert r.threads == threads
    assert all(np.array_equal(runs[0], other) for other in runs[1:])


@pytest.mark.parametrize("bot", ["random", "frequent", "greedy", "heuristic"])
def test_simple_bots_thread_independent(bot):
    a = simulate("yacht+lower-only", bot, 3000, seed=4, threads=1, engine="numba")
    b = simulate("yacht+lower-only", bot, 3000, seed=4, threads=2, chunk=1000, engine="numba")
    assert np.array_equal(a.scores, b.scores)


@slow
@pytest.mark.parametrize("bot", ["random", "frequent", "greedy"])
def test_simple_bots_thread_independent_on_yahtzee(bot):
    a = simulate("yahtzee", bot, 3000, seed=4, threads=1, engine="numba")
    b = simulate("yahtzee", bot, 3000, seed=4, threads=2, chunk=1000, engine="numba")
    assert np.array_equal(a.scores, b.scores)


def test_a_game_does_not_depend_on_the_others(tdir):
    whole = simulate(SMALL, "optimal", 400, seed=3, tables_dir=tdir)
    part = simulate(SMALL, "optimal", 100, seed=3, game0=250, tables_dir=tdir)
    assert np.array_equal(part.scores, whole.scores[250:350])
    other = simulate(SMALL, "optimal", 400, seed=4, tables_dir=tdir)
    assert not np.array_equal(other.scores, whole.scores)


def test_threads_are_restored(tdir):
    """The engine runs its own threads: numba's thread setting is left alone."""
    before = numba.get_num_threads()
    simulate(SMALL, "optimal", 100, seed=1, threads=1, tables_dir=tdir, engine="numba")
    assert numba.get_num_threads() == before


# --- statistics --------------------------------------------------------------------
@pytest.mark.parametrize(
    "rules_id, games",
    [
        ("yatzy+lower-only", 4000),
        ("yacht+lower-only+extra-bonus=50", 4000),
        pytest.param("yahtzee", 20_000, marks=slow),
        pytest.param("yatzy", 20_000, marks=slow),
        pytest.param("yacht", 20_000, marks=slow),
        pytest.param("yatzy+all-rolls", 20_000, marks=slow),
    ],
)
def test_optimal_mean_matches_table_value(tables_dir, rules_id, games):
    """The mean of many optimal games is within 4 standard errors of the empty card's value."""
    table = tables_dir.table(rules_id)
    r = simulate(rules_id, "optimal", games, seed=12345, tables_dir=tables_dir)
    s = r.summary()
    assert abs(s["mean"] - table.empty_card_value) < 4 * s["standard_error"]
    assert 10 < s["std"] < 70


def _check_summary(r) -> dict:
    rules = r.rules
    s = r.summary()
    assert set(s) == STAT_KEYS
    scores = r.scores
    assert s["mean"] == pytest.approx(scores.mean())
    assert s["std"] == pytest.approx(scores.std(ddof=1))
    assert s["standard_error"] == pytest.approx(s["std"] / math.sqrt(len(scores)))
    assert s["ci95"][0] < s["mean"] < s["ci95"][1]
    assert s["min"] <= s["p5"] <= s["p25"] <= s["p50"] <= s["p75"] <= s["p95"] <= s["max"]
    assert s["min"] == scores.min() and s["max"] == scores.max()
    cards = r.cards.astype(np.int64)
    upper = cards[:, list(rules.upper_indices)].sum(axis=1)
    reached = upper >= rules.upper_threshold if rules.has_upper_bonus else np.zeros(len(cards), dtype=bool)
    assert s["upper_bonus_rate"] == pytest.approx(reached.mean())
    assert s["yahtzee_rate"] == pytest.approx((cards[:, list(rules.five_kind_rows)] == 50).any(axis=1).mean())
    assert s["mean_yahtzee_bonuses"] == pytest.approx(r.yahtzee_bonuses.mean())
    for b, name in enumerate(rules.box_names):
        assert s["box_means"][name] == pytest.approx(cards[:, b].mean())
    parts = sum(s["box_means"].values())
    assert parts == pytest.approx(s["mean"])  # boxes + upper bonus + Yahtzee bonuses = total
    return s


def test_summary_fields(tables_dir):
    rules_id = "yatzy+without=ones,twos,threes+extra-bonus=50"  # upper bonus, extra bonus: 13 boxes
    r = simulate(rules_id, "frequent", 3000, seed=5, keep_cards=True)
    s = _check_summary(r)
    assert 0 < s["upper_bonus_rate"] < 1 and s["mean_yahtzee_bonuses"] > 0
    assert {"upper_bonus", "yahtzee_bonus"} <= set(s["box_means"])
    tables_dir.table(SMALL)
    _check_summary(simulate(SMALL, "optimal", 2000, seed=5, tables_dir=tables_dir, keep_cards=True))


@slow
def test_summary_fields_yahtzee(yahtzee_tdir):
    r = simulate("yahtzee", "optimal", 3000, seed=5, tables_dir=yahtzee_tdir, keep_cards=True)
    s = _check_summary(r)
    # the optimal strategy's well-known box averages (Verhoeff): sixes ~19.19, large straight ~32.71
    assert 17.5 < s["box_means"]["sixes"] < 21 and 31 < s["box_means"]["large_straight"] < 34


def test_five_of_a_kind_rows_are_counted():
    rules = get_rules("yatzy")
    assert rules.five_kind_rows == (rules.box_index["yatzy"],)
    r = simulate(rules, "frequent", 3000, seed=2)
    assert 0.2 < r.summary()["yahtzee_rate"] < 0.8
    assert r.summary()["mean_yahtzee_bonuses"] == 0
    two = get_rules("yatzy+yatzy-rows=2+extra-bonus=50")
    assert [two.box_names[b] for b in two.five_kind_rows] == ["yatzy", "yatzy_2"]
    r = simulate(two, "frequent", 3000, seed=2, keep_cards=True)
    _check_cards(r)
    assert r.summary()["mean_yahtzee_bonuses"] > 0  # a bonus only once both rows are filled
    assert r.summary()["box_means"]["yahtzee_bonus"] == pytest.approx(50 * r.yahtzee_bonuses.mean())


@pytest.mark.parametrize("rules_id, margin", [(SMALL, 5), pytest.param("yahtzee", 20, marks=slow)])
def test_paired_comparison(tables_dir, rules_id, margin):
    tables_dir.table(rules_id)
    a = simulate(rules_id, "optimal", 2000, seed=8, tables_dir=tables_dir)
    b = simulate(rules_id, "greedy", 2000, seed=8)
    p = paired(a, b)
    d = a.scores - b.scores
    assert p["mean_difference"] == pytest.approx(d.mean())
    assert p["standard_error"] == pytest.approx(d.std(ddof=1) / math.sqrt(len(d)))
    assert p["wins"] + p["ties"] + p["losses"] == 2000
    assert p["wins"] == (d > 0).sum() and p["losses"] == (d < 0).sum()
    assert p["mean_difference"] > margin
    same = paired(a, simulate(rules_id, "optimal", 2000, seed=8, tables_dir=tables_dir))
    assert same["ties"] == 2000 and same["mean_difference"] == 0
    with pytest.raises(UsageError):
        paired(a, simulate(rules_id, "greedy", 2000, seed=9))


# --- bots' strength ------------------------------------------------------------------
@slow
def test_bot_ladder(yahtzee_tdir):
    means = {
        bot: simulate("yahtzee", bot, 20_000, seed=77, tables_dir=yahtzee_tdir).summary()["mean"]
        for bot in ("random", "frequent", "greedy", "heuristic", "optimal")
    }
    assert 44 < means["random"] < 49
    assert 150 < means["frequent"] < 175
    assert 210 < means["greedy"] < 225
    assert means["heuristic"] > 248
    assert means["heuristic"] < means["optimal"]
    assert list(means) == sorted(means, key=means.get)


@pytest.mark.parametrize(
    "rules_id, games, margin",
    [
        ("yacht+lower-only", 3000, 5),
        ("yatzy+lower-only+all-rolls", 3000, 5),
        ("yahtzee+lower-only", 3000, 5),
        pytest.param("yacht", 20_000, 8, marks=slow),
        pytest.param("yatzy+all-rolls", 20_000, 30, marks=slow),
        pytest.param("yatzy+yatzy-rows=2+extra-bonus=50", 20_000, 30, marks=slow),
        pytest.param("yahtzee+all-rolls", 20_000, 20, marks=slow),
        pytest.param("yatzy", 20_000, 30, marks=slow),
    ],
)
def test_heuristic_beats_greedy(rules_id, games, margin):
    """The heuristic's evaluation is derived from the rules: it plays any card, well."""
    h = simulate(rules_id, "heuristic", games, seed=21)
    g = simulate(rules_id, "greedy", games, seed=21)
    p = paired(h, g)
    assert p["mean_difference"] > margin and p["ci95"][0] > 0


@slow
@pytest.mark.parametrize("rules_id", ["yahtzee+order=down", "yatzy+order=choose"])
def test_heuristic_under_a_fill_order(tables_dir, rules_id):
    """With one allowed box a turn, greedy play is nearly optimal: the heuristic keeps up."""
    tables_dir.table(rules_id)
    means = {
        bot: simulate(rules_id, bot, 20_000, seed=21, tables_dir=tables_dir).summary()["mean"]
        for bot in ("greedy", "heuristic", "optimal")
    }
    assert abs(means["heuristic"] - means["optimal"]) < 1.5 and abs(means["greedy"] - means["optimal"]) < 1.5


def test_python_random_bot_mean():
    r = simulate("yahtzee", get_bot("random", "yahtzee"), 200, seed=1, engine="python")
    assert 40 < r.summary()["mean"] < 53


@pytest.mark.parametrize(
    "rules_id",
    ["yatzy+lower-only", "yacht+lower-only", pytest.param("yahtzee", marks=slow), pytest.param("yatzy", marks=slow),
     pytest.param("yahtzee-no-bonus", marks=slow)],
)  # fmt: skip
def test_all_bots_fill_every_box(rules_id):
    for bot in ("random", "frequent", "greedy", "heuristic"):
        _check_cards(simulate(rules_id, bot, 2000, seed=1, keep_cards=True))


# --- user bots and errors --------------------------------------------------------------
class ChanceFirst(Bot):
    """Never rerolls; fills the first open box (a legal but poor strategy)."""

    name = "chance-first"

    def choose_keep(self, card, dice, rolls_left, rng):
        return tuple(dice)

    def choose_box(self, card, dice, rng):
        return card.placements(dice)[0].box


class Cheater(ChanceFirst):
    name = "cheater"

    def choose_keep(self, card, dice, rolls_left, rng):
        return (6, 6, 6, 6)


class Overwriter(ChanceFirst):
    name = "overwriter"

    def choose_box(self, card, dice, rng):
        return "chance"


def test_user_bot_runs_on_the_python_engine():
    r = simulate("yahtzee", ChanceFirst(), 50, seed=1, keep_cards=True)
    assert r.engine == "python" and r.bot == "chance-first"
    _check_cards(r)
    with pytest.raises(UsageError):
        simulate("yahtzee", ChanceFirst(), 5, engine="numba")


def test_user_bot_gets_the_same_dice():
    """A bot that never rerolls scores exactly the first roll of each turn of the stream."""
    card = play_game(get_rules("yahtzee"), ChanceFirst(), 3, 7)
    stream = SeededStream(3, 7)
    c = ScoreCard.empty("yahtzee")
    for _ in range(13):
        dice = D.Dice(stream.next_five())
        c = c.score(c.placements(dice)[0].box, dice)
    assert c == card


def test_illegal_moves_are_refused():
    with pytest.raises(IllegalMoveError, match="cheater kept"):
        simulate("yahtzee", Cheater(), 3, seed=1)
    with pytest.raises(IllegalMoveError, match="overwriter chose an illegal box"):
        simulate("yahtzee", Overwriter(), 3, seed=1)


@pytest.mark.parametrize(
    "kwargs",
    [{"games": 0}, {"games": -3}, {"threads": 0}, {"engine": "gpu"}, {"bot": "nope"}, {"game0": -1}],
)
def test_bad_arguments(kwargs):
    args = {"rules": "yahtzee", "bot": "random", "games": 10} | kwargs
    with pytest.raises(UsageError):
        simulate(**args)


def test_not_a_bot():
    with pytest.raises(UsageError):
        simulate("yahtzee", object(), 10)


# --- the command line -------------------------------------------------------------------


def test_cli_text_report(tdir, capsys):
    code, out, err = run(
        capsys, "simulate", "--rules", SMALL, "--games", "3000", "--seed", "1", "--tables", str(tdir)
    )
    assert code == 0, err
    assert f"{SMALL}: optimal, 3,000 games (seed 1" in out
    for word in (
        "mean",
        "95% CI",
        "p25",
        "median",
        "upper bonus",
        "Yahtzee",
        "mean per box",
        "histogram",
        "#",
    ):
        assert word in out
    assert "yahtzee_bonus" in out and "large_straight" in out


def test_cli_json(tdir, capsys):
    argv = [
        "simulate",
        "--games",
        "2000",
        "--seed",
        "3",
        "--threads",
        "1",
        "--json",
        "--quiet",
        "--tables",
        str(tdir),
        "--rules",
        SMALL,
    ]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    data = json.loads(out)
    assert {"rules", "bot", "games", "seed", "threads", "seconds", "stats", "vs"} <= set(data)
    assert (data["rules"], data["bot"], data["games"], data["seed"], data["threads"]) == (
        SMALL,
        "optimal",
        2000,
        3,
        1,
    )
    assert data["vs"] is None and "paired" not in data
    assert STAT_KEYS <= set(data["stats"])
    assert sum(data["stats"]["histogram"]["counts"]) == 2000
    code, again, _ = run(capsys, *argv)
    assert json.loads(again)["stats"]["mean"] == data["stats"]["mean"]  # same seed, same games
    assert err == ""  # --quiet: no progress bar


def test_cli_vs(tdir, capsys):
    code, out, err = run(
        capsys,
        "simulate",
        "--rules",
        SMALL,
        "--games",
        "1500",
        "--vs",
        "greedy",
        "--json",
        "--tables",
        str(tdir),
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["vs"] == "greedy" and data["vs_stats"]["bot"] == "greedy"
    p = data["paired"]
    assert p["wins"] + p["ties"] + p["losses"] == 1500
    assert p["mean_difference"] == pytest.approx(data["stats"]["mean"] - data["vs_stats"]["mean"])
    assert p["mean_difference"] > 0
    code, out, err = run(
        capsys, "simulate", "--games", "500", "--bot", "random", "--vs", "frequent", "--quiet"
    )
    assert code == 0
    assert "random vs frequent on the same dice (500 games)" in out and "frequent wins" in out


def test_cli_progress_bar_on_stderr(capsys):
    code, out, err = run(capsys, "simulate", "--games", "300", "--bot", "frequent")
    assert code == 0 and "frequent on yahtzee" in err and "frequent on yahtzee" not in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--bot", "nope"], "unknown bot 'nope'"),
        (["--vs", "nope"], "unknown bot 'nope'"),
        (["--games", "0"], "--games must be 1 or more"),
        (["--threads", "0"], "--threads must be 1 or more"),
        (["--rules", "nope"], "unknown rule set"),
        (["--games", "many"], "invalid int value"),
        (["--bot", "no_such_module:Bot"], "cannot load bot"),
    ],
)
def test_cli_bad_input(capsys, argv, message):
    code, out, err = run(capsys, "simulate", "--quiet", *argv)
    assert code == 2
    assert message in err and out == ""


USER_BOT = """
from solver.play.bots import Bot


class NeverReroll(Bot):
    name = "never-reroll"

    def choose_keep(self, card, dice, rolls_left, rng):
        return tuple(dice)

    def choose_box(self, card, dice, rng):
        return max(card.placements(dice), key=lambda p: p.score).box
"""


def test_cli_user_bot(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_bots.py").write_text(USER_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run(capsys, "simulate", "--bot", "my_bots:NeverReroll", "--games", "20", "--quiet")
    assert code == 0, err
    assert "never-reroll, 20 games" in out and "python" in out


@slow  # importing matplotlib takes most of a second
def test_cli_hist_png(tdir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "scores.png"
    code, out, err = run(
        capsys,
        "simulate",
        "--games",
        "1000",
        "--vs",
        "greedy",
        "--hist",
        str(png),
        "--quiet",
        "--tables",
        str(tdir),
        "--rules",
        SMALL,
    )
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"histogram written to {png}" in out and "####" not in out


def test_cli_hist_without_matplotlib(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    code, out, err = run(
        capsys, "simulate", "--games", "10", "--bot", "random", "--hist", str(tmp_path / "x.png")
    )
    assert code == 2
    assert "matplotlib" in err and "pip install" in err and len(err.strip().splitlines()) == 1


def test_cli_hist_bad_folder(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    code, _, err = run(
        capsys, "simulate", "--games", "10", "--bot", "random", "--hist", str(tmp_path / "no" / "x.png")
    )
    assert code == 2 and "does not exist" in err


@pytest.mark.parametrize("rules_id", [SMALL, pytest.param("yatzy", marks=slow)])
def test_cli_builds_a_missing_table(tmp_path, capsys, rules_id):
    argv = ["simulate", "--rules", rules_id, "--games", "50", "--quiet", "--tables", str(tmp_path)]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert (tmp_path / f"{rules_id}.npy").exists() and "optimal, 50 games" in out


@slow
def test_cli_reads_the_shipped_table(tmp_path, capsys):
    """yahtzee's table comes with the package: nothing is built (tests/test_shipped_table.py)."""
    code, out, err = run(capsys, "simulate", "--games", "50", "--quiet", "--tables", str(tmp_path))
    assert code == 0 and "optimal, 50 games" in out, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "rules_id", ["yacht", "yatzy+all-rolls", pytest.param("yatzy+yatzy-rows=2+extra-bonus=50", marks=slow)]
)
def test_cli_heuristic_on_any_rules(capsys, rules_id):
    code, out, err = run(
        capsys, "simulate", "--rules", rules_id, "--bot", "heuristic", "--games", "200", "--quiet"
    )
    assert code == 0, err
    assert f"{get_rules(rules_id).id}: heuristic, 200 games" in out


@pytest.mark.parametrize(
    "rules_id", ["yatzy", "yahtzee", "yacht+order=choose+all-rolls", "yatzy+yatzy-rows=2+extra-bonus=50"]
)
def test_rule_arrays_match_rules(rules_id):
    """The kernels' one argument: the dice layer's arrays as they are, the rule set's by name."""
    rules = get_rules(rules_id)
    ra = rule_arrays(rules)
    assert isinstance(ra, arrays.RuleArrays) and rule_arrays(rules) is ra  # built once per rule set
    assert ra.add_die is D.ADD_DIE and ra.keep_size is D.KEEP_SIZE and ra.roll_prob is D.ROLL_PROB
    assert ra.keep_counts is D.KEEP_COUNTS and ra.subkeeps is D.SUBKEEPS and ra.n_subkeeps is D.N_SUBKEEPS
    assert np.array_equal(ra.score, rules.score_table) and ra.score.shape == (D.N_ROLLS, rules.n_boxes)
    assert ra.box_face.tolist() == [b.face for b in rules.boxes]
    assert np.flatnonzero(ra.five_kind).tolist() == list(rules.five_kind_rows)
    assert (ra.rows_mask, ra.bonus, ra.upper_cap) == (rules.rows_mask, rules.bonus, rules.upper_cap)
    assert (ra.all_rolls, ra.order) == (
        int(rules.all_rolls),
        ["free", "down", "up", "choose"].index(rules.order),
    )
    assert ra.upper_bonus == (rules.upper_bonus if rules.has_upper_bonus else 0)
    five = [r for r, roll in enumerate(D.ROLLS) if len(set(roll)) == 1]
    assert np.flatnonzero(ra.roll_face).tolist() == five
    for name in arrays.RuleArrays._fields:  # one type per field, so each kernel compiles once
        value = getattr(ra, name)
        assert isinstance(value, np.ndarray | np.int64), name
        assert value.dtype == (np.float64 if name == "roll_prob" else np.int64), name


def test_a_subclass_of_a_builtin_bot_runs_in_python():
    class Stubborn(type(get_bot("frequent", "yahtzee"))):
        name = "stubborn"

        def choose_keep(self, card, dice, rolls_left, rng):
            return tuple(dice)

    r = simulate("yahtzee", Stubborn("yahtzee"), 20, seed=1)
    assert r.engine == "python" and r.bot == "stubborn"
    assert simulate("yahtzee", get_bot("frequent", "yahtzee"), 20, seed=1).engine == "numba"
    # a bot made for other rules is played by the checked Python loop
    assert simulate("yatzy", get_bot("frequent", "yahtzee"), 5, seed=1).engine == "python"

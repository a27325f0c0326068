"""Batch simulation: the numba engine against the plain Python one, statistics, the CLI.

Tables are built once per session in the ``tables_dir`` folder of ``conftest.py``.
"""

from __future__ import annotations

import json
import math
import sys

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver import _kernels as K
from solver import dice as D
from solver.bots import Bot, get_bot
from solver.card import ScoreCard
from solver.cli import main
from solver.dp import kernel_args
from solver.errors import IllegalMoveError, UsageError
from solver.rules import RULE_SETS, get_rules
from solver.simulate import (
    five_of_a_kind_box,
    paired,
    play_game,
    sim_args,
    simulate,
)
from solver.streams import MASK64, SeededStream, mix64, seeded_die

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
    """The session tables folder with the yahtzee table built."""
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
@pytest.mark.parametrize("rules_id", sorted(RULE_SETS))
def test_numba_placements_equal_rules(rules_id):
    rules = get_rules(rules_id)
    rng = np.random.default_rng(3)
    n = 3000
    masks = rng.integers(0, 1 << rules.n_boxes, size=n)
    masks[: 2 * D.N_FACES] = rules.full_mask & ~np.int64(1)  # a few nearly full cards
    rolls = rng.integers(0, D.N_ROLLS, size=n)
    five_kind = [D.Dice((face,) * 5).index for face in range(1, 7)]
    rolls[::3] = rng.choice(five_kind, size=len(rolls[::3]))  # many Jokers
    if rules.forced_order:
        masks = (1 << rng.integers(0, rules.n_boxes, size=n)) - 1
    yb = rules.yahtzee_index
    flags = rng.integers(0, 2, size=n) if rules.n_flags == 2 else np.zeros(n, dtype=np.int64)
    if yb >= 0:
        flags = np.where((masks >> yb) & 1 == 1, flags, 0)
    out = np.empty((n, rules.n_boxes + 1), dtype=np.int64)
    st = sim_args(rules)
    K.placements_table(masks.astype(np.int64), rolls.astype(np.int64), flags.astype(np.int64), st, out)
    for i in range(n):
        counts = tuple(int(c) for c in D.KEEP_COUNTS[D.ROLL_OFFSET + rolls[i]])
        want = rules.placements(int(masks[i]), counts, bool(flags[i]))
        got = [(b, int(out[i, b])) for b in range(rules.n_boxes) if out[i, b] >= 0]
        assert got == [(b, s) for b, s, _ in want], (rules_id, int(masks[i]), counts, int(flags[i]))
        if want:
            assert int(out[i, rules.n_boxes]) == want[0][2]


def test_low_bit_index():
    for b in range(36):
        assert K.low_bit_index(1 << b) == b
        assert K.low_bit_index((1 << b) | (1 << 35)) == b


# --- the fast engine against the Python engine ---------------------------------
def _check_cards(result) -> None:
    """Every box filled with a score it can hold; totals add up."""
    rules = result.rules
    cards = result.cards.astype(np.int64)
    assert (cards >= 0).all(), "a box was left open"
    for b, allowed in enumerate(rules.possible_scores):
        assert set(np.unique(cards[:, b]).tolist()) <= allowed, rules.box_names[b]
    upper = cards[:, list(rules.upper_indices)].sum(axis=1)
    bonus = np.where(upper >= rules.upper_threshold, rules.upper_bonus, 0)
    total = cards.sum(axis=1) + bonus + result.yahtzee_bonuses * rules.yahtzee_bonus
    assert (total == result.scores).all()
    assert ((upper >= rules.upper_threshold) == result.upper_bonus).all()
    if rules.yahtzee_bonus:
        yb = rules.yahtzee_index
        assert (result.yahtzee_bonuses[cards[:, yb] != 50] == 0).all(), (
            "a bonus without 50 in the Yahtzee box"
        )
        assert (result.yahtzee_bonuses <= rules.n_boxes - 1).all()
    else:
        assert (result.yahtzee_bonuses == 0).all()
    assert np.allclose(result.box_sums, cards.sum(axis=0))


@pytest.mark.parametrize(
    "rules_id, bot, games",
    [
        ("yahtzee", "optimal", 300),
        ("yahtzee", "heuristic", 150),
        ("yahtzee", "greedy", 150),
        ("yahtzee", "frequent", 300),
        ("yahtzee-free-joker", "optimal", 150),
        ("yahtzee-no-joker", "optimal", 100),
        ("yatzy", "optimal", 150),
        ("yatzy-forced", "optimal", 150),
        ("yatzy", "heuristic", 100),
    ],
)
def test_fast_engine_equals_python_engine(tables_dir, rules_id, bot, games):
    """Same games, same decisions: the numba engine and the checked Python loop agree game by game."""
    if bot == "optimal":
        tables_dir.table(rules_id)
    b = get_bot(bot, rules_id, tables_dir, progress=False)
    slow = simulate(rules_id, b, games, seed=2024, game0=5, engine="python", keep_cards=True)
    fast = simulate(rules_id, b, games, seed=2024, game0=5, keep_cards=True)
    assert (slow.engine, fast.engine) == ("python", "numba")
    assert np.array_equal(fast.cards, slow.cards)
    assert np.array_equal(fast.scores, slow.scores)
    assert np.array_equal(fast.yahtzee_bonuses, slow.yahtzee_bonuses)
    _check_cards(fast)
    _check_cards(slow)


def test_frequent_bot_scores_are_pinned():
    """A table-free bot on the documented stream: a seeded transcript of final scores."""
    want = [316, 167, 162, 166, 79, 122, 182, 87, 147, 117]
    assert simulate("yahtzee", "frequent", 10, seed=0).scores.tolist() == want
    assert simulate("yahtzee", "frequent", 10, seed=0, engine="python").scores.tolist() == want


# --- reproducibility -------------------------------------------------------------
def test_same_scores_whatever_the_threads_and_chunks(tdir):
    runs = []
    for threads, chunk in ((1, 1 << 20), (2, 1 << 20), (2, 777)):
        r = simulate("yahtzee", "optimal", 5000, seed=9, threads=threads, tables_dir=tdir, chunk=chunk)
        runs.append(r.scores)
        assert r.threads == min(threads, numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])


@pytest.mark.parametrize("bot", ["random", "frequent", "greedy"])
def test_simple_bots_thread_independent(bot):
    a = simulate("yahtzee", bot, 3000, seed=4, threads=1)
    b = simulate("yahtzee", bot, 3000, seed=4, threads=2, chunk=1000)
    assert np.array_equal(a.scores, b.scores)


def test_a_game_does_not_depend_on_the_others(tdir):
    whole = simulate("yahtzee", "optimal", 400, seed=3, tables_dir=tdir)
    part = simulate("yahtzee", "optimal", 100, seed=3, game0=250, tables_dir=tdir)
    assert np.array_equal(part.scores, whole.scores[250:350])
    other = simulate("yahtzee", "optimal", 400, seed=4, tables_dir=tdir)
    assert not np.array_equal(other.scores, whole.scores)


def test_threads_are_restored(tdir):
    before = numba.get_num_threads()
    simulate("yahtzee", "optimal", 100, seed=1, threads=1, tables_dir=tdir)
    assert numba.get_num_threads() == before


# --- statistics --------------------------------------------------------------------
@pytest.mark.parametrize("rules_id", ["yahtzee", "yatzy"])
def test_optimal_mean_matches_table_value(tables_dir, rules_id):
    """The mean of 20,000 optimal games is within 4 standard errors of the empty card's value."""
    table = tables_dir.table(rules_id)
    r = simulate(rules_id, "optimal", 20_000, seed=12345, tables_dir=tables_dir)
    s = r.summary()
    assert abs(s["mean"] - table.empty_card_value) < 4 * s["standard_error"]
    assert 30 < s["std"] < 70


def test_summary_fields(tdir):
    r = simulate("yahtzee", "optimal", 3000, seed=5, tables_dir=tdir, keep_cards=True)
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
    assert s["upper_bonus_rate"] == pytest.approx((cards[:, :6].sum(axis=1) >= 63).mean())
    assert s["yahtzee_rate"] == pytest.approx((cards[:, 11] == 50).mean())
    assert s["mean_yahtzee_bonuses"] == pytest.approx(r.yahtzee_bonuses.mean())
    names = get_rules("yahtzee").box_names
    for b, name in enumerate(names):
        assert s["box_means"][name] == pytest.approx(cards[:, b].mean())
    parts = sum(s["box_means"].values())
    assert parts == pytest.approx(s["mean"])  # boxes + upper bonus + Yahtzee bonuses = total
    # the optimal strategy's well-known box averages (Verhoeff): sixes ~19.19, large straight ~32.71
    assert 17.5 < s["box_means"]["sixes"] < 21 and 31 < s["box_means"]["large_straight"] < 34


def test_yatzy_counts_its_five_of_a_kind_box():
    rules = get_rules("yatzy")
    assert five_of_a_kind_box(rules) == rules.box_index["yatzy"]
    r = simulate(rules, "frequent", 3000, seed=2)
    assert 0.2 < r.summary()["yahtzee_rate"] < 0.8
    assert r.summary()["mean_yahtzee_bonuses"] == 0


def test_paired_comparison(tdir):
    a = simulate("yahtzee", "optimal", 2000, seed=8, tables_dir=tdir)
    b = simulate("yahtzee", "greedy", 2000, seed=8)
    p = paired(a, b)
    d = a.scores - b.scores
    assert p["mean_difference"] == pytest.approx(d.mean())
    assert p["standard_error"] == pytest.approx(d.std(ddof=1) / math.sqrt(len(d)))
    assert p["wins"] + p["ties"] + p["losses"] == 2000
    assert p["wins"] == (d > 0).sum() and p["losses"] == (d < 0).sum()
    assert p["mean_difference"] > 20
    same = paired(a, simulate("yahtzee", "optimal", 2000, seed=8, tables_dir=tdir))
    assert same["ties"] == 2000 and same["mean_difference"] == 0
    with pytest.raises(UsageError):
        paired(a, simulate("yahtzee", "greedy", 2000, seed=9))


# --- bots' strength ------------------------------------------------------------------
def test_bot_ladder(tdir):
    means = {
        bot: simulate("yahtzee", bot, 20_000, seed=77, tables_dir=tdir).summary()["mean"]
        for bot in ("random", "frequent", "greedy", "heuristic", "optimal")
    }
    assert 44 < means["random"] < 49
    assert 150 < means["frequent"] < 175
    assert 210 < means["greedy"] < 225
    assert means["heuristic"] > 245
    assert means["heuristic"] < means["optimal"]
    assert list(means) == sorted(means, key=means.get)


def test_python_random_bot_mean():
    r = simulate("yahtzee", get_bot("random", "yahtzee"), 400, seed=1, engine="python")
    assert 40 < r.summary()["mean"] < 53


def test_all_bots_fill_every_box(tables_dir):
    for rules_id in ("yahtzee", "yatzy", "yahtzee-no-bonus"):
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
def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_report(tdir, capsys):
    code, out, err = run(capsys, "simulate", "--games", "3000", "--seed", "1", "--tables", str(tdir))
    assert code == 0, err
    assert "yahtzee: optimal, 3,000 games (seed 1" in out
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
    ]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    data = json.loads(out)
    assert {"rules", "bot", "games", "seed", "threads", "seconds", "stats", "vs"} <= set(data)
    assert (data["rules"], data["bot"], data["games"], data["seed"], data["threads"]) == (
        "yahtzee",
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
        capsys, "simulate", "--games", "1500", "--vs", "greedy", "--json", "--tables", str(tdir)
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
from solver.bots import Bot


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


def test_cli_builds_a_missing_table(tmp_path, capsys):
    code, out, err = run(capsys, "simulate", "--games", "50", "--quiet", "--tables", str(tmp_path))
    assert code == 0, err
    assert (tmp_path / "yahtzee.npy").exists() and "optimal, 50 games" in out


def test_sim_args_match_rules():
    """``st`` is the DP's rule tuple followed by the keep tables, in :data:`SIM_ARGS` order."""
    rules = get_rules("yatzy")
    st = sim_args(rules)
    rt = kernel_args(rules)
    assert len(st) == len(K.SIM_ARGS) and K.SIM_ARGS[: K.N_RULE_ARGS] == tuple(K.RULE_ARGS)
    for a, b in zip(st[: K.N_RULE_ARGS], rt, strict=True):
        assert np.array_equal(a, b) and type(a) is type(b)
    named = dict(zip(K.SIM_ARGS, st, strict=True))
    assert named["add_die"] is D.ADD_DIE and named["keep_size"] is D.KEEP_SIZE
    assert named["keep_counts"] is D.KEEP_COUNTS and named["subkeeps"] is D.SUBKEEPS
    assert named["n_subkeeps"] is D.N_SUBKEEPS
    assert named["score"].shape == (D.N_ROLLS, rules.n_boxes)
    assert named["yahtzee_index"] == rules.yahtzee_index
    # the kernels' positions ``_NAME`` of the entries they read
    positions = {
        name: getattr(K, "_" + name.upper()) for name in K.SIM_ARGS if hasattr(K, "_" + name.upper())
    }
    assert len(positions) == 15 and all(K.SIM_ARGS[i] == name for name, i in positions.items())


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

"""The exact final-score distribution (:mod:`solver.engine.distribution`) and ``yahtzee distribution``:
its mean is the table's expected score, it sums to 1, a small game's distribution is the one
a plain enumeration of every roll gives, the optimal bot's simulated games agree with it, and
the command's text, JSON, plot and usage errors."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter, defaultdict
from functools import cache

import pytest
from clirun import run

from solver.core.card import ScoreCard
from solver.core.dice import Dice
from solver.core.position import Position
from solver.core.rules import get_rules
from solver.engine.distribution import representative_upper, score_distribution, state_rows
from solver.engine.tables import get_table

LOWER = "yatzy+lower-only"
CHOOSE = "yatzy+lower-only+order=choose"
ALL_ROLLS = "yahtzee+all-rolls+without=ones,twos,threes,fours,fives,sixes"
UPPER = "yahtzee+without=three_of_a_kind,four_of_a_kind,full_house,small_straight,large_straight"
#: two boxes: small enough to enumerate every roll (the Joker rule and the Yahtzee bonus included)
TINY = (
    "yahtzee+without=ones,twos,threes,fives,sixes,three_of_a_kind,four_of_a_kind,full_house,"
    "small_straight,large_straight,chance"
)


def distribution(tables_dir, spec, card="", dice=None, rolls_left=2):
    rules = get_rules(spec)
    card = ScoreCard.parse(card, rules)
    roll = None if dice is None else Dice.parse(dice).index
    return score_distribution(card, tables_dir.table(rules).values, roll=roll, rolls_left=rolls_left)


@pytest.mark.parametrize(
    "spec, card",
    [
        (LOWER, ""),
        (LOWER, "chance=20,yatzy=50"),
        (CHOOSE, ""),
        (CHOOSE, "one_pair=12,two_pairs=14"),
        (ALL_ROLLS, ""),
        (ALL_ROLLS, "yahtzee=50,chance=17"),
        (UPPER, "ones=3,fours=12,yahtzee=50"),
        (UPPER, "sixes=24,fives=20,fours=16,threes=9,yahtzee=50,yahtzee_bonus=100"),
        (TINY, ""),
    ],
)
def test_mean_is_the_tables_expected_score_and_the_total_is_one(tables_dir, spec, card):
    dist = distribution(tables_dir, spec, card)
    advisor = tables_dir.advisor(spec)
    parsed = ScoreCard.parse(card, spec)
    assert abs(dist.total_probability - 1.0) <= 1e-12
    assert abs(dist.mean - (parsed.total + advisor.card_value(parsed))) <= 1e-9
    assert (dist.pmf >= 0).all() and dist.pmf[: parsed.total].sum() == 0
    assert dist.percentile(0) <= dist.percentile(50) <= dist.percentile(100)
    assert dist.p_at_least(0) == 1.0 and abs(dist.p_at_least(1) - (1 - dist.pmf[0])) < 1e-12


@pytest.mark.parametrize(
    "spec, card, dice, rolls",
    [
        (LOWER, "chance=20", "66655", 1),
        (LOWER, "", "12345", 2),
        (CHOOSE, "", "66666", 0),  # scoring the first box chooses the direction
        (CHOOSE, "", "12346", 2),
        (CHOOSE, "yatzy=50", "11236", 2),
        (ALL_ROLLS, "yahtzee=50", "44444", 1),
        (UPPER, "fours=12,yahtzee=50", "44444", 0),
        (UPPER, "ones=3", "33456", 2),
    ],
)
def test_mean_with_dice_is_the_best_options_expected_final(tables_dir, spec, card, dice, rolls):
    dist = distribution(tables_dir, spec, card, dice, rolls)
    best = tables_dir.advisor(spec).advise(Position.parse(card, dice, rolls, spec)).options[0]
    assert abs(dist.total_probability - 1.0) <= 1e-12
    assert abs(dist.mean - best.expected_final) <= 1e-9


# --- an independent enumeration ---------------------------------------------------------------


@cache
def rolls_of(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every sorted outcome of rolling ``n`` dice with its probability."""
    counts = Counter(tuple(sorted(faces)) for faces in itertools.product(range(1, 7), repeat=n))
    return tuple((faces, c / 6**n) for faces, c in sorted(counts.items()))


def enumerate_finals(rules, bot, card, dice=None, rolls_left=2) -> dict[tuple, float]:
    """P(final score, five-of-a-kind rows at 50, bonuses) by walking every roll of the rest of
    the game, the bot deciding."""
    turns: dict = {}
    positions: dict = {}

    def turn(card) -> dict[int, float]:
        key = str(card)
        if key not in turns:
            if card.is_complete:
                rows = sum(card.scores[b] == 50 for b in rules.five_kind_rows)
                turns[key] = {(card.total, rows, card.yahtzee_bonus_count): 1.0}
            else:
                out: dict[int, float] = defaultdict(float)
                for faces, p in rolls_of(5):
                    for s, q in position(card, faces, 2).items():
                        out[s] += p * q
                turns[key] = dict(out)
        return turns[key]

    def position(card, faces, left) -> dict[int, float]:
        key = (str(card), faces, left)
        if key not in positions:
            dice = Dice(faces)
            out: dict[int, float] = defaultdict(float)
            if left == 0:
                box = bot.choose_box(card, dice, None)
                out.update(turn(card.score(box, dice)))
            else:
                keep = tuple(bot.choose_keep(card, dice, left, None))
                for extra, p in rolls_of(5 - len(keep)):
                    for s, q in position(card, tuple(sorted(keep + extra)), left - 1).items():
                        out[s] += p * q
            positions[key] = dict(out)
        return positions[key]

    if dice is None:
        return turn(card)
    return position(card, tuple(Dice.parse(dice).values), rolls_left)


@pytest.mark.parametrize(
    "card, dice, rolls",
    [  # the fast loop leaves out the two costliest (from the empty card); CI runs all five
        pytest.param("", None, 2, marks=pytest.mark.slow),
        ("yahtzee=50", None, 2),
        ("fours=8", "44444", 1),
        pytest.param("", "44446", 2, marks=pytest.mark.slow),
        ("yahtzee=50", "44444", 0),
    ],
)
def test_a_small_game_is_its_enumeration(tables_dir, card, dice, rolls):
    from solver.play.bots import TableBot

    rules = get_rules(TINY)
    assert rules.n_boxes == 2
    bot = TableBot(tables_dir.advisor(rules), "optimal")
    parsed = ScoreCard.parse(card, rules)
    finals = enumerate_finals(rules, bot, parsed, dice, rolls)
    dist = distribution(tables_dir, TINY, card, dice, rolls)

    def marginal(i):
        out: dict[int, float] = defaultdict(float)
        for key, p in finals.items():
            out[key[i]] += p
        return out

    want = marginal(0)
    got = {int(s): float(dist.pmf[s]) for s in dist.pmf.nonzero()[0]}
    assert set(got) == {s for s, p in want.items() if p > 0}
    for s, p in want.items():
        assert abs(got.get(s, 0.0) - p) <= 1e-13, s
    # the outcomes: the Yahtzee row at 50 and the bonuses
    for k, p in marginal(1).items():
        assert abs(dist.rows_at_50[k] - p) <= 1e-13
    for k, p in marginal(2).items():
        assert abs(dist.bonuses[k] - p) <= 1e-13


def test_simulation_of_the_optimal_bot_agrees(tables_dir):
    """The optimal bot's mean and P(>= T) over seeded games are within 4 standard errors."""
    import numpy as np

    from solver.play.simulate import simulate

    rules = get_rules(LOWER)
    dist = distribution(tables_dir, LOWER)
    games = 20_000
    result = simulate(rules, "optimal", games, 7, tables_dir=tables_dir, threads=1)
    scores = np.asarray(result.scores, dtype=np.float64)
    assert abs(scores.mean() - dist.mean) <= 4 * dist.sd / math.sqrt(games)
    for t in (100, 130, 160):
        p = dist.p_at_least(t)
        assert abs((scores >= t).mean() - p) <= 4 * math.sqrt(p * (1 - p) / games) + 1e-12, t


def bonus_game():
    """Four upper boxes and a full house, the bonus at 41: a game where, the bonus out of reach,
    the heuristic still tells the upper totals apart (its estimated bonus chance goes on with
    them) -- played by the representative total's row, its distribution was off its bot's."""
    from test_dp_naive import FULL_HOUSE, SIXES, THREES, TWOS

    from solver.core.rules import Box, RuleSet, Scorer

    fours = Box("fours", Scorer("upper", 4))
    boxes = (TWOS, THREES, fours, SIXES, FULL_HOUSE)
    return RuleSet("mini-hopeless", "upper boxes, bonus at 41", boxes, upper_bonus=35, upper_threshold=41)


@pytest.mark.slow  # the brute force of every roll: 13-17 s each
@pytest.mark.parametrize("bot", ["heuristic", "greedy"])
def test_a_bots_table_gives_that_bots_expected_score(tables_dir, bot):
    """With any bot's value table the distribution's mean is the expected score of play by
    that table, ties as the bots break them: the brute force over every roll (tests/naive.py
    NaivePolicy), which plays each state at its own upper total."""
    from naive import NaivePolicy

    from solver.engine.heuristic import greedy_table, heuristic_table

    rules = bonus_game()
    tables = {"heuristic": heuristic_table, "greedy": greedy_table}
    values = tables[bot](rules).values
    dist = score_distribution(ScoreCard.empty(rules), values)
    assert abs(dist.mean - NaivePolicy(rules, values).expected()) <= 1e-9
    assert abs(dist.total_probability - 1.0) <= 1e-12
    # the hopeless totals share rows where the values agree (greedy's zeros; a solved table's,
    # NaN where a flag cannot be), not elsewhere
    assert (state_rows(rules, values) is representative_upper(rules)) == (bot == "greedy")
    flags = get_rules(TARGET_GAME)
    assert state_rows(flags, tables_dir.table(flags).values) is representative_upper(flags)


@pytest.mark.slow  # 200,000 graded games; the fast loop checks both sides apart (test_regret's brute
# force for the heuristic bot's losses, the enumerations above for the distribution)
def test_the_heuristic_bots_regret_is_its_distributions_gap(tables_dir):
    """Over seeded games the heuristic bot's graded loss per game (its expectation: optimal's
    expected score minus the bot's) agrees with the table's value of the empty card minus the
    mean of the heuristic table's distribution within 4 standard errors (0.4 here; 4.6 when
    the distribution shared the hopeless totals' rows)."""
    import numpy as np

    from solver.engine.heuristic import heuristic_table
    from solver.play.simulate import simulate

    rules = bonus_game()
    table = tables_dir.table(rules)
    assert state_rows(rules, table.values) is representative_upper(rules)  # a solved table's agree
    gap = (
        table.empty_card_value
        - score_distribution(ScoreCard.empty(rules), heuristic_table(rules).values).mean
    )
    games = 200_000
    loss = simulate(
        rules, "heuristic", games, 1, tables_dir=tables_dir, threads=1, regret=True
    ).regret.game_loss
    se = float(np.std(loss, ddof=1)) / math.sqrt(games)
    assert gap > 0.5 and se < 0.005
    assert abs(float(loss.mean()) - gap) <= 4 * se, (float(loss.mean()), gap, se)


@pytest.mark.slow
def test_the_full_yahtzee_game(tables_dir):
    dist = distribution(tables_dir, "yahtzee")
    assert abs(dist.total_probability - 1.0) <= 1e-12
    assert abs(dist.mean - tables_dir.advisor("yahtzee").card_value(ScoreCard.empty("yahtzee"))) <= 1e-9
    assert 0.6 < dist.upper_bonus < 0.75 and 55 < dist.sd < 65


@pytest.mark.parametrize(
    "spec, card",
    [
        pytest.param("yatzy", "", marks=pytest.mark.slow),  # the whole game twice: 40 s
        ("yahtzee", "ones=3,sixes=24,yahtzee=50"),
    ],
)
def test_points_at_most_keeps_every_p_at_least_up_to_it(tables_dir, spec, card):
    """The target build's check values: scores above T counted at T change no P(final >= t), t <= T."""
    parsed = ScoreCard.parse(card, spec)
    values = tables_dir.table(get_rules(spec)).values
    whole = score_distribution(parsed, values, outcomes=False)
    folded = score_distribution(parsed, values, outcomes=False, points_at_most=parsed.total + 250)
    assert abs(folded.total_probability - 1.0) <= 1e-12
    for t in range(0, parsed.total + 251):
        assert abs(folded.p_at_least(t) - whole.p_at_least(t)) <= 1e-15, t
    assert folded.p_at_least(parsed.total + 251) == 0.0 < whole.p_at_least(parsed.total + 251)


def test_the_distribution_does_not_depend_on_the_thread_count(tables_dir):
    """Each row's additions come in one fixed order: the same bytes on 1, 2 or 3 threads (the
    outcomes cut in blocks of masks, the rows in ranges, differently each time)."""
    import numpy as np

    card = ScoreCard.parse("ones=3,twos=6,sixes=24,yahtzee=50", "yahtzee")
    values = tables_dir.table(card.rules).values
    one, *more = (score_distribution(card, values, threads=t) for t in (1, 2, 3))
    for other in more:
        assert np.array_equal(one.pmf, other.pmf) and one.upper_bonus == other.upper_bonus
        assert (one.rows_at_50, one.bonuses) == (other.rows_at_50, other.bonuses)


# --- the command ------------------------------------------------------------------------------


def test_cli_text(tables_dir, capsys):
    code, out, err = run(
        capsys, "distribution", "--rules", LOWER, "--card", "chance=20", "--tables", str(tables_dir)
    )
    assert code == 0, err
    dist = distribution(tables_dir, LOWER, "chance=20")
    lines = out.splitlines()
    assert lines[0] == f"{LOWER} | chance=20 | policy ev (expected-score play)"
    assert f"mean {dist.mean:.4f}, standard deviation {dist.sd:.4f}" in out
    assert f"p50 {dist.percentile(50)}," in out and "p99" in out
    assert f"P(k five-of-a-kind rows at 50) [yatzy]: k=0 {dist.rows_at_50[0]:.6g}, k=1" in out
    assert "Yahtzee bonuses" not in out
    for t in (200, 250, 300, 350, 400):
        assert f"P(final >= {t})  {dist.p_at_least(t):.6f}" in out
    assert "<- mean" in out and "distribution of the final score" in out
    assert "P(upper bonus)" not in out  # no upper section


def test_cli_json_and_at_least(tables_dir, capsys):
    argv = ["distribution", "--rules", UPPER, "--card", "ones=3", "--dice", "33456", "--rolls-left", "2"]
    code, out, err = run(
        capsys, *argv, "--json", "--at-least", "150", "300", "150", "--tables", str(tables_dir)
    )
    assert code == 0, err
    got = json.loads(out)
    assert list(got)[:7] == ["rules", "card", "policy", "mean", "sd", "percentiles", "p_at_least"]
    assert got["rules"] == get_rules(UPPER).id and got["card"] == "ones=3" and got["policy"] == "ev"
    assert list(got["percentiles"]) == ["1", "5", "10", "25", "50", "75", "90", "95", "99"]
    assert list(got["p_at_least"]) == ["150", "300"]
    dist = distribution(tables_dir, UPPER, "ones=3", "33456", 2)
    assert got["mean"] == dist.mean and got["sd"] == dist.sd
    assert got["p_at_least"]["150"] == dist.p_at_least(150)
    assert 0 < got["upper_bonus"] < 1
    assert set(got["five_kind_rows_at_50"]) <= {"0", "1"} and "0" in got["five_kind_bonuses"]
    pmf = {int(s): p for s, p in got["pmf"].items()}
    assert abs(math.fsum(pmf.values()) - 1) <= 1e-12 and min(pmf) >= 3 and all(p > 0 for p in pmf.values())
    assert "NaN" not in out
    code, text, _ = run(capsys, *argv, "--tables", str(tables_dir))
    head = text.split("\n  on the card")[0]  # the first line, broken to 80 columns (a long rule id)
    assert code == 0 and "| dice 3 3 4 5 6 | 2 rolls left |" in head.replace("\n  ", " ")


@pytest.mark.slow  # matplotlib draws a PNG: in CI, not the fast loop
def test_cli_plot(tables_dir, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "dist.png"
    code, out, err = run(
        capsys, "distribution", "--rules", TINY, "--plot", str(png), "--tables", str(tables_dir)
    )
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written to {png}" in out
    assert [p.name for p in tmp_path.iterdir()] == ["dist.png"]  # no temporary file left
    code, out, err = run(capsys, "distribution", "--rules", TINY, "--plot", str(tmp_path / "no" / "x.png"))
    assert code == 2 and "does not exist" in err and err.count("\n") == 1


def test_cli_plot_without_matplotlib(monkeypatch, capsys, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run(capsys, "distribution", "--rules", TINY, "--plot", str(tmp_path / "x.png"))
    assert code == 2 and err.count("\n") == 1
    assert "pip install 'yahtzee-solver[plot]'" in err and out == ""


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--dice", "33456"], "--dice and --rolls-left go together"),
        (["--rolls-left", "1"], "--dice and --rolls-left go together"),
        (["--dice", "33457", "--rolls-left", "1"], "'7' is not a face"),
        (["--rolls-left", "3", "--dice", "33456"], "invalid choice"),
        (["--rules", "poker"], "poker"),
        (["--card", "ones=7"], "ones=7"),
        (["--policy", "nonsense"], "unknown policy 'nonsense'"),
        (["--policy", "target:abc"], "target must be a score"),
        (["--policy", "target:0"], "target must be a score"),
        (["--at-least", "0"], "--at-least"),
        (["--at-least", "x"], "invalid int value"),
        (["--rules", "yahtzee+triple"], "triple"),
    ],
)
def test_cli_usage_errors_are_one_line(capsys, argv, words):
    code, out, err = run(capsys, "distribution", *argv)
    assert code == 2, err
    assert out == "" and err.count("\n") == 1 and words in err and "Traceback" not in err


@pytest.mark.slow  # a target table built and pushed forward: in CI, not the fast loop
def test_target_policy_distribution(tmp_path, capsys):
    """Under target play: P(final >= T) is the target table's (to the bots' tie tolerance), the
    probabilities sum to 1, and the target bot's simulated games agree within 4 standard errors."""
    import numpy as np

    from solver.advice.advisor import Advisor, TargetAdvisor
    from solver.advice.objectives import AtLeast
    from solver.engine.distribution import target_distribution
    from solver.engine.target import FLOAT32_SLACK, build_target, load_target
    from solver.play.simulate import simulate

    build_target(LOWER, tmp_path, t_max=200, progress=False)
    table = load_target(LOWER, tmp_path)
    values = get_table(LOWER, tmp_path, build_if_missing=True, progress=False).values
    empty = ScoreCard.empty(LOWER)
    dist = target_distribution(empty, values, table.arrays(), 100)
    assert abs(dist.total_probability - 1.0) <= 1e-12
    # the stored table is float32 (within 1e-7 of the float64 DP); the push runs in float64
    assert abs(dist.p_at_least(100) - table.probability((0, 0, 0), 100)) <= FLOAT32_SLACK
    games = simulate(LOWER, "target:100", 20_000, seed=3, tables_dir=tmp_path).scores
    assert abs(games.mean() - dist.mean) < 4 * games.std() / np.sqrt(len(games))
    # a turn under way: the best option's probability
    card = ScoreCard.parse("chance=20,yatzy=0", LOWER)
    position = Position.parse(card, "33456", 1, LOWER)
    best = TargetAdvisor(Advisor(get_table(LOWER, tmp_path)), table).advise(position, AtLeast(100)).options[0]
    mid = target_distribution(card, values, table.arrays(), 100, roll=position.dice.index, rolls_left=1)
    assert abs(mid.p_at_least(100) - best.p_target) <= FLOAT32_SLACK
    code, out, err = run(capsys, "distribution", "--rules", LOWER, "--policy", "target:100", "--json",
                         "--tables", str(tmp_path))  # fmt: skip
    assert code == 0, err
    got = json.loads(out)
    assert got["policy"] == "target:100" and abs(got["p_at_least"]["200"] - dist.p_at_least(200)) < 1e-12


# a reduced game with the upper bonus, the Yahtzee bonus and the Joker: target play pushes
# lanes in runs of needs and its points past the target apart (both paths are checked here)
TARGET_GAME = "yahtzee+without=ones,twos,threes,three_of_a_kind,four_of_a_kind,chance"


def test_target_policy_distribution_paths(tmp_path):
    """Target play on a reduced game with every bonus: the same bytes whatever the thread count;
    P(final >= T) is the target table's (the moves are the target-optimal ones) from the empty
    card and mid-game; a card past its target or out of its reach plays for expected score
    (the distribution is expected-score play's); the probabilities sum to 1."""
    import numpy as np

    from solver.engine.distribution import target_distribution
    from solver.engine.target import FLOAT32_SLACK, build_target

    table = build_target(TARGET_GAME, tmp_path, t_max=300, progress=False)
    values = get_table(TARGET_GAME, tmp_path, build_if_missing=True, progress=False).values
    rules = get_rules(TARGET_GAME)
    empty = ScoreCard.empty(rules)
    one = target_distribution(empty, values, table.arrays(), 150, threads=1)
    two = target_distribution(empty, values, table.arrays(), 150, threads=2)
    assert np.array_equal(one.pmf, two.pmf) and one.upper_bonus == two.upper_bonus
    assert abs(one.total_probability - 1.0) <= 1e-12
    assert abs(one.p_at_least(150) - table.probability((0, 0, 0), 150)) <= FLOAT32_SLACK
    assert one.p_at_least(150) > score_distribution(empty, values).p_at_least(150) + 0.01
    mid = ScoreCard.parse("sixes=24,yahtzee=50", rules)
    dist = target_distribution(mid, values, table.arrays(), 200)
    assert abs(dist.p_at_least(200) - table.probability(mid.state, 200 - mid.total)) <= FLOAT32_SLACK
    assert abs(dist.total_probability - 1.0) <= 1e-12
    for card, target in ((mid, 60), (ScoreCard.parse("sixes=6,fives=5,yahtzee=0", rules), 290)):
        # reached already / beyond the most the card can still score: expected-score play
        got = target_distribution(card, values, table.arrays(), target)
        want = score_distribution(card, values)
        assert np.abs(got.pmf - want.pmf[: len(got.pmf)]).max() <= 1e-15
        assert abs(got.total_probability - 1.0) <= 1e-12 and got.upper_bonus == pytest.approx(
            want.upper_bonus
        )


def test_a_damaged_table_is_one_error_line(capsys, tmp_path):
    """A table damaged on disk: one error line saying how to rebuild it, nothing printed."""
    from solver.engine.tables import build_table, table_paths

    rules = get_rules(TINY)
    build_table(rules, tmp_path, progress=False)
    npy = table_paths(rules, tmp_path)[0]
    data = bytearray(npy.read_bytes())
    data[-8:] = b"\xff" * 8  # a NaN where a value was
    npy.write_bytes(bytes(data))
    code, out, err = run(capsys, "distribution", "--rules", TINY, "--json", "--tables", str(tmp_path))
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "yahtzee tables build --rules" in err and "Traceback" not in err


def test_a_nan_result_is_one_error_line(tables_dir, capsys, monkeypatch):
    """Whatever gets past the table's checks, NaN is never printed: one error line."""
    import solver.cli.distribution as command

    real = command.policy_distribution

    def broken(*args, **kw):
        dist = real(*args, **kw)
        dist.pmf[-1] = float("nan")
        return dist

    monkeypatch.setattr(command, "policy_distribution", broken)
    code, out, err = run(capsys, "distribution", "--rules", TINY, "--json", "--tables", str(tables_dir))
    assert code == 1 and out == "" and err.count("\n") == 1 and "damaged" in err


def test_progress_is_told_each_turn(tmp_path):
    """``yahtzee distribution`` draws a bar (after a second, at a terminal) from these ticks."""
    from solver.engine.tables import get_table

    rules = get_rules(LOWER)
    values = get_table(rules, tmp_path, build_if_missing=True, progress=False).values
    ticks = []
    card = ScoreCard.parse("", rules)
    score_distribution(card, values, progress=ticks.append)
    assert ticks == [1] * rules.n_turns


# --- the points still to come per card state (the win bot's opponent model) -------------------
#: five boxes, the upper bonus in reach and the Yahtzee box with its bonus: rows exact with up to
#: four boxes open, a normal row from the empty card
RESIDUAL = (
    "yahtzee+without=ones,twos,three_of_a_kind,four_of_a_kind,full_house,small_straight,large_straight,chance"
)
RESIDUAL_CARDS = (
    "",
    "threes=9",
    "yahtzee=50",
    "yahtzee=0,sixes=24",
    "threes=12,fours=16,fives=20",
    "yahtzee=50,sixes=30,fives=25,fours=8",
    "threes=3,fours=4,fives=5,sixes=6",
)


@pytest.fixture(scope="module")
def residuals(tables_dir):
    from solver.engine.distribution import solve_residuals

    rules = get_rules(RESIDUAL)
    values = tables_dir.table(rules).values
    return rules, values, solve_residuals(rules, values, threads=2)


@pytest.mark.parametrize("text", RESIDUAL_CARDS)
def test_residual_rows_are_the_exact_distribution_of_the_points_to_come(residuals, text):
    """Each state's row against the forward distribution engine from a card in that state: the
    same probabilities (float32, to the eps cut off each end) with at most four boxes open; the
    exact mean and sd (and a normal of them) with more."""
    from solver.engine.distribution import RESIDUAL_EXACT_OPEN

    rules, values, res = residuals
    card = ScoreCard.parse(text, rules)
    exact = score_distribution(card, values, outcomes=False)
    to_come = exact.pmf[card.total :]
    mean = math.fsum((to_come * range(len(to_come))).tolist())
    assert res.mean[card.state] == pytest.approx(mean, abs=1e-9)
    assert res.sd[card.state] == pytest.approx(exact.sd, abs=1e-9)
    lo, row = res.row(card.state)
    mine = [0.0] * max(len(to_come), lo + len(row))
    for i, p in enumerate(row.tolist()):
        mine[lo + i] = p
    if rules.n_boxes - card.n_filled <= RESIDUAL_EXACT_OPEN:
        assert lo >= 0
        assert max(abs(a - b) for a, b in itertools.zip_longest(mine, to_come, fillvalue=0.0)) < 1e-6
    else:
        row_mean = lo + math.fsum((row * range(len(row))).tolist())
        assert row_mean == pytest.approx(mean, abs=0.2)  # the mean to a quarter point
        assert math.fsum(row.tolist()) == pytest.approx(1.0, abs=1e-6)


def test_residuals_do_not_depend_on_the_thread_count(residuals):
    import numpy as np

    from solver.engine.distribution import solve_residuals

    rules, values, res = residuals
    one = solve_residuals(rules, values, threads=1)
    for a, b in ((one.p, res.p), (one.off, res.off), (one.lo, res.lo), (one.length, res.length)):
        np.testing.assert_array_equal(a, b)


def test_residuals_are_kept_beside_the_target_table_and_checked_when_read(residuals, tmp_path):
    """Stored and read back the same; another value table, other bytes or a damaged index are
    not read (None: solved again), and a folder that cannot be written is no error."""
    import numpy as np

    from solver.engine.opponent import get_residuals, load_residuals, residual_paths, save_residuals

    rules, values, res = residuals
    for name in (f"{rules.id}.npy", f"{rules.id}.json"):  # the value table's files: left alone
        (tmp_path / name).write_text("the value table")
    save_residuals(rules, res, tmp_path, "abc")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"{rules.id}.npy", f"{rules.id}.json"] + [p.name for p in residual_paths(rules, tmp_path)]
    )
    for name in (f"{rules.id}.npy", f"{rules.id}.json"):
        assert (tmp_path / name).read_text() == "the value table"
    assert [p.name for p in residual_paths(get_rules("yahtzee"), tmp_path)] == [
        "yahtzee.opponent.npy",
        "yahtzee.opponent-index.npy",
        "yahtzee.opponent.json",
    ]
    back = load_residuals(rules, tmp_path, "abc")
    for a, b in ((back.p, res.p), (back.off, res.off), (back.lo, res.lo), (back.length, res.length)):
        np.testing.assert_array_equal(a, b)
    assert load_residuals(rules, tmp_path, "another table") is None
    w_path, index_path, manifest_path = residual_paths(rules, tmp_path)
    raw = bytearray(w_path.read_bytes())
    raw[-1] ^= 0x40
    w_path.write_bytes(bytes(raw))
    assert load_residuals(rules, tmp_path, "abc") is None
    again = get_residuals(rules, values, tmp_path, "abc")  # solved and stored again
    np.testing.assert_array_equal(again.p, res.p)
    assert load_residuals(rules, tmp_path, "abc") is not None
    index_path.write_bytes(b"not a table")
    assert load_residuals(rules, tmp_path, "abc") is None
    (tmp_path / "a file").write_text("")
    assert get_residuals(rules, values, tmp_path / "a file", "abc").p.shape == res.p.shape


def _bot_play_distribution(bot, card, seen=None) -> dict[int, float]:
    """The final-score distribution of ``bot`` from ``card``, exactly, by its own choices (keeps
    and boxes asked position by position, every roll's mass pushed as the dice fall)."""
    import numpy as np

    from solver.core import dice as D

    seen = {} if seen is None else seen
    if card.is_complete:
        return {card.total: 1.0}
    if str(card) in seen:
        return seen[str(card)]
    mass = np.zeros(D.N_KEEPS)
    mass[D.ROLL_OFFSET :] = D.ROLL_PROB
    for rolls_left in (2, 1):
        kept = np.zeros(D.N_KEEPS)
        for r in np.flatnonzero(mass[D.ROLL_OFFSET :]):
            faces = bot.choose_keep(card, D.Dice(D.KEEPS[D.ROLL_OFFSET + r]), rolls_left, None)
            kept[D.keep_index(faces)] += mass[D.ROLL_OFFSET + r]
        for k in range(D.ROLL_OFFSET):  # keeps by size: each die rolled in turn
            kept[D.ADD_DIE[k]] += kept[k] / 6
            kept[k] = 0.0
        mass = kept
    out: dict[int, float] = {}
    for r in np.flatnonzero(mass[D.ROLL_OFFSET :]):
        dice = D.Dice(D.KEEPS[D.ROLL_OFFSET + r])
        nxt = card.score(bot.choose_box(card, dice, None), dice)
        for score, p in _bot_play_distribution(bot, nxt, seen).items():
            out[score] = out.get(score, 0.0) + mass[D.ROLL_OFFSET + r] * p
    seen[str(card)] = out
    return out


@pytest.mark.parametrize(
    "card, target",
    [
        pytest.param(
            "sixes=24,yahtzee=50,large_straight=40,fours=8,full_house=25", 170, marks=pytest.mark.slow
        ),
        ("fives=15,sixes=18,yahtzee=0,fours=12,large_straight=0", 95),
    ],
)
def test_target_play_distribution_is_the_target_bots_play(tmp_path, card, target):
    """Target play's distribution from a card two turns from the end is the ``target:T`` bot's
    (its own keeps and boxes, ties included, asked position by position): every final score's
    probability to 1e-12."""
    import numpy as np

    from solver.engine.distribution import target_distribution
    from solver.engine.target import build_target
    from solver.play.bots import get_bot

    table = build_target(TARGET_GAME, tmp_path, t_max=300, progress=False)
    values = get_table(TARGET_GAME, tmp_path, build_if_missing=True, progress=False).values
    rules = get_rules(TARGET_GAME)
    start = ScoreCard.parse(card, rules)
    got = target_distribution(start, values, table.arrays(), target)
    want = _bot_play_distribution(get_bot(f"target:{target}", rules, tmp_path, progress=False), start)
    dense = np.zeros(max(len(got.pmf), max(want) + 1))
    for score, p in want.items():
        dense[score] = p
    assert np.abs(dense[: len(got.pmf)] - got.pmf).max() <= 1e-12 and dense[len(got.pmf) :].sum() <= 1e-12

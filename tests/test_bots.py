"""Bots: the interface, the registry, each builtin bot's rules on hand-checked positions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from solver import dice as D
from solver.advisor import Position
from solver.bots import (
    BOTS,
    Bot,
    FrequentBot,
    RandomBot,
    TableBot,
    get_bot,
    greedy_table,
    heuristic_table,
    heuristic_values,
    immediate_points,
)
from solver.card import ScoreCard
from solver.dice import Dice
from solver.errors import UsageError
from solver.rules import RULE_SETS, get_rules
from solver.simulate import play_game


@pytest.fixture(scope="module")
def tdir(tables_dir):
    tables_dir.table("yahtzee")
    return tables_dir


@pytest.fixture(scope="module")
def optimal(tdir):
    return get_bot("optimal", "yahtzee", tdir, progress=False)


def rng():
    return random.Random(0)


def test_registry_names_are_stable():
    assert {"optimal", "random", "greedy", "heuristic"} <= set(BOTS)
    for name in BOTS:
        if name != "optimal":
            bot = get_bot(name, "yahtzee")
            assert bot.name == name and isinstance(bot, Bot)
    assert get_bot(" Greedy ", "yahtzee").name == "greedy"


def test_unknown_bot():
    with pytest.raises(UsageError, match="unknown bot 'best'"):
        get_bot("best", "yahtzee")
    with pytest.raises(UsageError, match="cannot load bot"):
        get_bot("no.such.module:Bot", "yahtzee")
    with pytest.raises(UsageError, match="is not a bot"):
        get_bot("solver.dice:N_DICE", "yahtzee")


def test_import_bot_by_path():
    bot = get_bot("solver.bots:RandomBot", "yatzy")
    assert isinstance(bot, RandomBot) and bot.rules.id == "yatzy"


def test_optimal_needs_its_table(tmp_path):
    from solver.errors import MissingTableError

    with pytest.raises(MissingTableError):
        get_bot("optimal", "yahtzee", tmp_path, build_if_missing=False)


# --- optimal ----------------------------------------------------------------------
def test_optimal_follows_the_advisor(optimal):
    card = ScoreCard.parse("ones=3,fours=12")
    dice = Dice.parse("33456")
    best = optimal.advisor.advise(Position(card, dice, 2)).best
    assert optimal.choose_keep(card, dice, 2, rng()) == best.keep
    keep = optimal.choose_keep(ScoreCard.empty(), Dice.parse("12345"), 1, rng())
    assert keep == (1, 2, 3, 4, 5)  # a large straight: stop and score it
    assert optimal.choose_box(ScoreCard.empty(), Dice.parse("12345"), rng()) == "large_straight"
    assert optimal.choose_box(ScoreCard.empty(), Dice.parse("66666"), rng()) == "yahtzee"


# --- greedy -------------------------------------------------------------------------
def test_greedy_plays_for_this_turn():
    bot = get_bot("greedy", "yahtzee")
    empty = ScoreCard.empty()
    assert bot.choose_box(empty, Dice.parse("66666"), rng()) == "yahtzee"
    assert bot.choose_box(empty, Dice.parse("23456"), rng()) == "large_straight"
    assert bot.choose_box(empty, Dice.parse("66655"), rng()) == "three_of_a_kind"  # 28 > 25
    assert bot.choose_keep(empty, Dice.parse("23456"), 2, rng()) == (2, 3, 4, 5, 6)
    assert bot.choose_box(ScoreCard.parse("chance=20"), Dice.parse("22346"), rng()) == "sixes"
    # nothing pays: the zero goes in the first open box of the card
    names = get_rules("yahtzee").box_names
    card = ScoreCard.parse(",".join(f"{n}=0" for n in names if n not in ("large_straight", "yahtzee")))
    assert bot.choose_box(card, Dice.parse("11236"), rng()) == "large_straight"
    assert np.all(greedy_table("yahtzee").values == 0)


def test_greedy_counts_the_upper_bonus():
    card = ScoreCard.parse("ones=3,twos=6,threes=9,fours=12,fives=15")
    assert immediate_points(card, "sixes", 18) == 18 + 35
    assert immediate_points(card, "sixes", 12) == 12
    bot = get_bot("greedy", "yahtzee")
    # 666 + 55: sixes 18 + bonus 35 = 53 beats full house 25 and three of a kind 28
    assert bot.choose_box(card, Dice.parse("66655"), rng()) == "sixes"


# --- frequent ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "dice, keep",
    [("11663", (6, 6)), ("22255", (2, 2, 2)), ("12345", (5,)), ("44444", (4, 4, 4, 4, 4)), ("11234", (1, 1))],
)
def test_frequent_keeps_the_most_frequent_face(dice, keep):
    assert FrequentBot("yahtzee").choose_keep(ScoreCard.empty(), Dice.parse(dice), 2, rng()) == keep


def test_frequent_scores_what_pays_most_now():
    bot = FrequentBot("yahtzee")
    assert bot.choose_box(ScoreCard.empty(), Dice.parse("12345"), rng()) == "large_straight"
    assert bot.choose_box(ScoreCard.parse("chance=5"), Dice.parse("11236"), rng()) == "sixes"


# --- random ---------------------------------------------------------------------------
def test_random_bot_is_uniform_over_distinct_keeps():
    bot = RandomBot("yahtzee")
    dice = Dice.parse("11234")
    r = random.Random(5)
    seen = {}
    for _ in range(6000):
        keep = bot.choose_keep(ScoreCard.empty(), dice, 2, r)
        seen[keep] = seen.get(keep, 0) + 1
    n = D.N_SUBKEEPS[dice.index]
    assert len(seen) == n == 24
    assert min(seen.values()) > 6000 / n * 0.7
    boxes = {bot.choose_box(ScoreCard.empty(), dice, r) for _ in range(500)}
    assert boxes == set(get_rules("yahtzee").box_names)


def test_random_bot_respects_the_joker_rule():
    card = ScoreCard.parse("yahtzee=50")
    r = random.Random(1)
    assert {RandomBot("yahtzee").choose_box(card, Dice.parse("33333"), r) for _ in range(50)} == {"threes"}


# --- heuristic -------------------------------------------------------------------------
@pytest.mark.parametrize("rules_id", sorted(RULE_SETS))
def test_heuristic_values(rules_id):
    rules = get_rules(rules_id)
    h = heuristic_values(rules)
    assert h.shape == (1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)
    assert np.isfinite(h).all() and (h >= 0).all()
    assert (h[rules.full_mask] == 0).all()
    # an empty card is worth some hundred points (the scale is only relative)
    assert 100 < h[0, 0, 0] < 300
    # more points already in the upper section: a better chance of the bonus
    assert h[0b1, 3, 0] >= h[0b1, 0, 0]
    # upper section full: the bonus is decided (counted when reached), nothing left to hope for
    assert np.allclose(h[0b111111, :, 0], h[0b111111, 0, 0])
    assert np.array_equal(heuristic_table(rules).values, h)


def test_heuristic_decisions():
    bot = get_bot("heuristic", "yahtzee")
    empty = ScoreCard.empty()
    # three sixes early: sixes at par (18) keeps the bonus on course
    assert bot.choose_box(empty, Dice.parse("66612"), rng()) == "sixes"
    assert bot.choose_box(empty, Dice.parse("23456"), rng()) == "large_straight"
    assert bot.choose_box(empty, Dice.parse("22255"), rng()) == "full_house"
    # a small straight with one roll left: keep the run, roll for the large one
    assert bot.choose_keep(empty, Dice.parse("34566"), 1, rng()) == (3, 4, 5, 6)
    assert bot.choose_keep(empty, Dice.parse("11112"), 2, rng()) == (1, 1, 1, 1)


def test_heuristic_params_cover_every_rule_set():
    from solver.bots import HeuristicParams

    with pytest.raises(UsageError, match="no value for box 'twos' of yatzy"):
        heuristic_values("yatzy", HeuristicParams(box_values={"ones": 1.0}))


# --- the Python bots play whole legal games -----------------------------------------------
@pytest.mark.parametrize("name", ["random", "frequent", "greedy", "heuristic", "optimal"])
def test_python_bots_play_complete_games(tdir, name):
    for rules_id in ("yahtzee", "yatzy-forced") if name != "optimal" else ("yahtzee",):
        rules = get_rules(rules_id)
        bot = get_bot(name, rules, tdir, progress=False)
        for game in range(3):
            card = play_game(rules, bot, seed=99, game=game)
            assert card.is_complete and card.rules == rules
            assert 0 <= card.total <= 1575


def test_table_bot_keeps_are_sub_multisets(optimal):
    r = random.Random(3)
    card = ScoreCard.empty()
    for roll in D.ROLLS[::7]:
        dice = Dice(roll)
        for rolls_left in (1, 2):
            keep = optimal.choose_keep(card, dice, rolls_left, r)
            rest = list(dice.values)
            for f in keep:
                rest.remove(f)
    assert isinstance(optimal, TableBot)

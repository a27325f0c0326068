"""Bots: the interface, the registry, each builtin bot's rules on hand-checked positions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from solver.core import dice as D
from solver.core.card import ScoreCard
from solver.core.dice import Dice
from solver.core.errors import UsageError
from solver.core.position import Position
from solver.core.rules import RULE_SETS, get_rules
from solver.engine.heuristic import (
    HeuristicParams,
    best_of_tries,
    greedy_table,
    heuristic_params,
    heuristic_table,
    heuristic_values,
    turn_value,
)
from solver.engine.turn import TurnValues
from solver.play.bots import BOTS, Bot, FrequentBot, RandomBot, TableBot, get_bot, immediate_points
from solver.play.simulate import play_game

slow = pytest.mark.slow
SMALL = "yahtzee+lower-only"  # 7 boxes with the Joker rule and the Yahtzee bonus: a table in milliseconds
NEW_RULE_SETS = [
    "yacht", "yatzy+all-rolls", "yatzy+order=choose", "yatzy+extra-bonus=50+yatzy-rows=2", "yahtzee+lower-only",
    "yacht+lower-only+extra-bonus=100", "yahtzee+order=up+without=fours,chance", "yatzy+yatzy-rows=3",
    "yatzy+lower-only+all-rolls+yatzy-rows=2",
]  # fmt: skip


def fast_loop(rule_sets, fast=13):
    """``rule_sets`` as parameters, those with more than ``fast`` boxes marked slow (their
    value arrays hold 2**boxes cards)."""
    return [rid if get_rules(rid).n_boxes <= fast else pytest.param(rid, marks=slow) for rid in rule_sets]


@pytest.fixture(scope="module")
def tdir(tables_dir):
    tables_dir.table(SMALL)
    return tables_dir


@pytest.fixture(scope="module")
def optimal(tdir):
    return get_bot("optimal", SMALL, tdir, progress=False)


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
        get_bot("solver.core.dice:N_DICE", "yahtzee")


def test_import_bot_by_path():
    bot = get_bot("solver.play.bots:RandomBot", "yatzy")
    assert isinstance(bot, RandomBot) and bot.rules.id == "yatzy"


def test_optimal_needs_its_table(tmp_path):
    from solver.core.errors import MissingTableError

    with pytest.raises(MissingTableError):  # yatzy: no table of it comes with the package
        get_bot("optimal", "yatzy", tmp_path, build_if_missing=False)
    bot = get_bot("optimal", "yahtzee", tmp_path, build_if_missing=False)  # the shipped table
    assert bot.advisor.table.shipped and not list(tmp_path.iterdir())


# --- optimal ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "rules_id, card_text",
    [(SMALL, "three_of_a_kind=20"), pytest.param("yahtzee", "ones=3,fours=12", marks=slow)],
)
def test_optimal_follows_the_advisor(tables_dir, rules_id, card_text):
    tables_dir.table(rules_id)
    optimal = get_bot("optimal", rules_id, tables_dir, progress=False)
    card = ScoreCard.parse(card_text, rules_id)
    dice = Dice.parse("33456")
    best = optimal.advisor.advise(Position(card, dice, 2)).best
    assert optimal.choose_keep(card, dice, 2, rng()) == best.keep
    empty = ScoreCard.empty(rules_id)
    keep = optimal.choose_keep(empty, Dice.parse("12345"), 1, rng())
    assert keep == (1, 2, 3, 4, 5)  # a large straight: stop and score it
    assert optimal.choose_box(empty, Dice.parse("12345"), rng()) == "large_straight"
    assert optimal.choose_box(empty, Dice.parse("66666"), rng()) == "yahtzee"


@pytest.mark.parametrize("name", ["optimal", "heuristic", "greedy"])
def test_table_bots_keep_the_direction_they_chose(tables_dir, name):
    """order=choose: the direction is chosen before the first roll; the first box is at its end
    (the card itself would take either end)."""
    rules = get_rules("yacht+order=choose")
    tables_dir.table(rules)
    bot = get_bot(name, rules, tables_dir, progress=False)
    first = {"down": "ones", "up": "yacht"}[bot.advisor.direction()]
    empty = ScoreCard.empty(rules)
    for roll in D.ROLLS[::5] + ((1,) * 5, (6,) * 5):
        assert {p.box for p in empty.placements(Dice(roll))} == {"ones", "yacht"}
        assert bot.choose_box(empty, Dice(roll), rng()) == first
    assert bot.choose_box(empty.score(first, "11111"), Dice.parse("66666"), rng()) in ("twos", "choice")


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
@pytest.mark.parametrize("rules_id", fast_loop(sorted(RULE_SETS) + NEW_RULE_SETS, fast=12) + ["yahtzee"])
def test_heuristic_values(rules_id):
    rules = get_rules(rules_id)
    h = heuristic_values(rules)
    assert h.shape == (1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)
    assert np.isfinite(h).all() and (h >= 0).all()
    assert (h[rules.full_mask] == 0).all()
    # an empty card is worth about what good play scores (a little less: the scale is only relative)
    reference = rules.reference_value or {"yahtzee+lower-only": 141.7, "yatzy+order=choose": 122.6}.get(
        rules.id
    )
    if reference:
        assert 0.85 * reference < h[0, 0, 0] < 1.02 * reference
    # the last open box is worth its expected score in one turn played for it
    for b in range(rules.n_boxes):
        last = rules.full_mask ^ (1 << b)
        single = turn_value(rules.score_table[:, b], rules.all_rolls)
        assert h[last, 0, 0] >= single - 1e-9
        if not rules.boxes[b].is_upper or not rules.has_upper_bonus:
            assert h[last, 0, 0] == pytest.approx(single)
    if rules.has_upper_bonus:
        first = rules.upper_indices[0]
        face = rules.boxes[first].face
        # more points already in the upper section: a better chance of the bonus
        assert h[1 << first, 3 * face, 0] > h[1 << first, 0, 0]
        # upper section full: the bonus is decided (counted when reached), nothing left to hope for
        upper = sum(1 << i for i in rules.upper_indices)
        assert np.allclose(h[upper, :, 0], h[upper, 0, 0])
    if rules.n_flags == 2:  # a five-of-a-kind row holding 50: future bonuses for every open box
        masks = np.arange(1 << rules.n_boxes)
        n_open = rules.n_boxes - sum((masks >> b) & 1 for b in range(rules.n_boxes))
        per_turn = heuristic_params(rules).five_kind_bonus_per_turn
        assert np.allclose(h[:, :, 1] - h[:, :, 0], (per_turn * n_open)[:, None])
    assert np.array_equal(heuristic_table(rules).values, h)


@pytest.mark.parametrize(
    "rules_id", ["yacht", "yatzy+lower-only+all-rolls", "yahtzee+without=ones,twos,threes"]
)
def test_turn_value_is_the_advisor_recursion(rules_id):
    """One turn played for one box: the advisor's turn recursion with only that box open."""
    rules = get_rules(rules_id)
    zeros = np.zeros((1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags))
    all_boxes = turn_value(rules.score_table, rules.all_rolls)
    for b in range(rules.n_boxes):
        if rules.joker != "none" and b not in rules.five_kind_rows:
            continue  # with every other box filled a five of a kind would be a Joker
        want = TurnValues(rules, (rules.full_mask ^ (1 << b), 0, 0), zeros).value
        assert turn_value(rules.score_table[:, b], rules.all_rolls) == pytest.approx(want, abs=1e-9)
        assert all_boxes[b] == pytest.approx(want, abs=1e-9)  # one column per box
    if rules_id == "yacht":  # by hand: a yacht in one turn, 4.6%; 5 x (1 - (5/6)^3) for ones
        assert turn_value(rules.score_table[:, rules.box_index["yacht"]]) == pytest.approx(
            50 * 0.04603, abs=1e-3
        )
        assert turn_value(rules.score_table[:, 0]) == pytest.approx(5 * (1 - (5 / 6) ** 3))


def test_best_of_tries():
    rules = get_rules("yatzy")
    w = best_of_tries(rules, 6)
    assert w.shape == (6, rules.n_boxes)
    assert np.allclose(w[0], turn_value(rules.score_table))
    assert (np.diff(w, axis=0) > 0).all()  # more tries, more worth
    assert (w <= rules.score_table.max(axis=0)).all()  # never more than the box's best score
    yatzy = rules.box_index["yatzy"]
    p = w[0, yatzy] / 50  # a yatzy in one turn; with k turns the chance is 1 - (1 - p)^k
    assert np.allclose(w[:, yatzy], 50 * (1 - (1 - p) ** np.arange(1, 7)))


@pytest.mark.parametrize("rules_id", sorted(RULE_SETS) + NEW_RULE_SETS)
def test_heuristic_params_are_derived_from_the_rules(rules_id):
    """No table per family: every box of every rule set gets a worth, from its scorer."""
    rules = get_rules(rules_id)
    p = heuristic_params(rules)
    assert list(p.box_values) == list(rules.box_names)
    for b, name in enumerate(rules.box_names):
        worth = np.array(p.box_values[name])
        assert worth.shape == (rules.n_boxes,)  # by number of open boxes
        assert worth[0] == pytest.approx(turn_value(rules.score_table[:, b], rules.all_rolls))
        if rules.forced_order:  # one turn for each box
            assert np.allclose(worth, worth[0])
        else:  # more boxes open, more chances to fill this one well
            assert (np.diff(worth) > 0).all()
    # future five-of-a-kind bonuses: the rules' bonus times the chance of one in a turn
    five = np.array([float(len(set(roll)) == 1) for roll in D.ROLLS])
    assert p.five_kind_bonus_per_turn == pytest.approx(rules.bonus * turn_value(five, rules.all_rolls))
    if not rules.bonus:
        assert p.five_kind_bonus_per_turn == 0


def test_heuristic_five_kind_bonus_follows_the_rules():
    p100 = heuristic_params("yahtzee").five_kind_bonus_per_turn
    assert p100 == pytest.approx(100 * 0.04603, abs=0.01)
    assert heuristic_params("yatzy+extra-bonus=50").five_kind_bonus_per_turn == pytest.approx(p100 / 2)
    assert heuristic_params("yahtzee-no-bonus").five_kind_bonus_per_turn == 0
    assert heuristic_params("yatzy").five_kind_bonus_per_turn == 0
    assert heuristic_params("yatzy+all-rolls+extra-bonus=100").five_kind_bonus_per_turn < p100


def test_heuristic_decisions():
    bot = get_bot("heuristic", "yahtzee")
    empty = ScoreCard.empty()
    # three sixes early: sixes at par (18) keeps the bonus on course
    assert bot.choose_box(empty, Dice.parse("66612"), rng()) == "sixes"
    assert bot.choose_box(empty, Dice.parse("23456"), rng()) == "large_straight"
    assert bot.choose_box(empty, Dice.parse("22255"), rng()) == "full_house"
    assert bot.choose_box(empty, Dice.parse("66666"), rng()) == "yahtzee"
    # a small straight with one roll left: keep the run, roll for the large one
    assert bot.choose_keep(empty, Dice.parse("34566"), 1, rng()) == (3, 4, 5, 6)
    assert bot.choose_keep(empty, Dice.parse("11112"), 2, rng()) == (1, 1, 1, 1)
    yacht = get_bot("heuristic", "yacht")
    empty = ScoreCard.empty("yacht")
    assert yacht.choose_box(empty, Dice.parse("66666"), rng()) == "yacht"
    assert yacht.choose_box(empty, Dice.parse("12345"), rng()) == "little_straight"
    assert yacht.choose_box(empty, Dice.parse("23456"), rng()) == "big_straight"
    # yatzy-rows=2: a second five of a kind goes in the second row
    rows = get_bot("heuristic", "yatzy+lower-only+yatzy-rows=2")
    card = ScoreCard.parse("yatzy=50", "yatzy+lower-only+yatzy-rows=2")
    assert rows.choose_box(card, Dice.parse("22222"), rng()) == "yatzy_2"


def test_heuristic_params_cover_every_box():
    with pytest.raises(UsageError, match="no value for box 'twos' of yatzy"):
        heuristic_values("yatzy", HeuristicParams(box_values={"ones": (1.0,) * 15}))
    # the parameters of another rule set: one value per number of open boxes, for 13 boxes
    yahtzee = HeuristicParams(box_values={name: (1.0,) * 13 for name in get_rules("yatzy").box_names})
    with pytest.raises(UsageError, match="values of box 'ones' are for 13 boxes, not 15"):
        heuristic_values("yatzy", yahtzee)


# --- the Python bots play whole legal games -----------------------------------------------
@pytest.mark.parametrize(  # heuristic: CI (the fast loop has it play test_play_cli's hard level)
    "name", ["random", "frequent", "greedy", pytest.param("heuristic", marks=slow), "optimal"]
)
def test_python_bots_play_complete_games(tables_dir, name):
    """Every bot plays legal games (checked move by move) on every kind of rule set."""
    if name == "optimal":  # small tables only
        rule_sets = (SMALL, "yatzy-forced", "yatzy+order=choose", "yacht+lower-only+all-rolls+extra-bonus=50")
    else:  # the 13+ box ones in the slow test below
        rule_sets = (
            "yahtzee+lower-only",
            "yatzy+order=choose",
            *(r for r in NEW_RULE_SETS if get_rules(r).n_boxes < 13),
        )
    for rules_id in rule_sets:
        rules = get_rules(rules_id)
        if name == "optimal":
            tables_dir.table(rules)
        bot = get_bot(name, rules, tables_dir, progress=False)
        for game in range(2):
            card = play_game(rules, bot, seed=99, game=game)
            assert card.is_complete and card.rules == rules
            assert 0 <= card.total <= 2000


@slow
@pytest.mark.parametrize("name", ["random", "frequent", "greedy", "heuristic"])
def test_python_bots_play_complete_games_on_full_cards(name):
    for rules_id in ("yahtzee", "yatzy-forced", *NEW_RULE_SETS):
        rules = get_rules(rules_id)
        bot = get_bot(name, rules, progress=False)
        for game in range(3):
            card = play_game(rules, bot, seed=99, game=game)
            assert card.is_complete and card.rules == rules


def test_table_bot_keeps_are_sub_multisets(optimal):
    r = random.Random(3)
    card = ScoreCard.empty(SMALL)
    for roll in D.ROLLS[::7]:
        dice = Dice(roll)
        for rolls_left in (1, 2):
            keep = optimal.choose_keep(card, dice, rolls_left, r)
            rest = list(dice.values)
            for f in keep:
                rest.remove(f)
    assert isinstance(optimal, TableBot)

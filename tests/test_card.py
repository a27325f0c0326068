"""The score card: notation, totals and bonuses, validation errors, and random legal games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.core.card import ScoreCard
from solver.core.dice import Dice
from solver.core.errors import CardError, IllegalMoveError, UsageError
from solver.core.rules import RULE_SETS, get_rules

#: rule set -> (upper bonus, five-of-a-kind bonus), from RULES.md
BONUSES = {
    "yahtzee": (35, 100), "yahtzee-free-joker": (35, 100), "yahtzee-no-joker": (35, 100), "yahtzee-no-bonus": (35, 0),
    "yatzy": (50, 0), "yatzy-forced": (50, 0),
    # other bases and the modifiers
    "yacht": (0, 0), "yacht+extra-bonus=100+order=up": (0, 100), "yatzy+extra-bonus=50+yatzy-rows=2": (50, 50),
    "yatzy+yatzy-rows=3+order=choose": (50, 0), "yatzy+lower-only+extra-bonus=100": (50, 100),
    "yahtzee+lower-only": (35, 100), "yahtzee-free-joker+without=ones,twos,chance": (35, 100),
    "yahtzee+all-rolls+order=choose": (35, 100),
}  # fmt: skip
ALL_IDS = tuple(RULE_SETS)
SPEC_IDS = tuple(rid for rid in BONUSES if rid not in ALL_IDS)
UPPER_BONUS = {rid: upper for rid, (upper, _) in BONUSES.items()}
YAHTZEE_BONUS = {rid: bonus for rid, (_, bonus) in BONUSES.items()}
UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
ROWS = ("yahtzee", "yatzy", "yatzy_2", "yatzy_3", "yacht")  # the rows that pay for five of a kind


# --------------------------------------------------------------------------- notation


@pytest.mark.parametrize("text", ["", "-", "empty", "  ", None])
def test_empty_card(text):
    card = ScoreCard.parse(text, "yahtzee")
    assert card == ScoreCard.empty("yahtzee") == ScoreCard.empty()
    assert str(card) == ""
    assert card.n_filled == 0 and card.total == 0 and not card.is_complete
    assert card.open_boxes == get_rules("yahtzee").box_names


def test_notation_is_written_in_card_order():
    card = ScoreCard.parse("yahtzee=50, fours=12 ,ones=3,yahtzee_bonus=100", "yahtzee")
    assert str(card) == "ones=3,fours=12,yahtzee=50,yahtzee_bonus=100"
    assert ScoreCard.parse(str(card), "yahtzee") == card
    assert card.get("fours") == 12 and card.get("twos") is None
    assert card.yahtzee_bonus_count == 1
    assert card.yahtzee_bonus_points == 100
    assert card.n_filled == 3
    assert card.filled_mask == 0b100000001001


def test_yatzy_notation():
    card = ScoreCard.parse("yatzy=50,two_pairs=16,one_pair=12", "yatzy")
    assert str(card) == "one_pair=12,two_pairs=16,yatzy=50"
    assert card.total == 78
    assert ScoreCard.parse(str(card), "yatzy") == card


def test_upper_bonus_at_63():
    three_of_each = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18"
    card = ScoreCard.parse(three_of_each, "yahtzee")
    assert card.upper_total == 63
    assert card.upper_bonus == 35
    assert card.total == 98
    card = ScoreCard.parse(three_of_each.replace("ones=3", "ones=2"), "yahtzee")
    assert card.upper_total == 62
    assert card.upper_bonus == 0
    assert card.total == 62
    yatzy = ScoreCard.parse(three_of_each, "yatzy")
    assert yatzy.upper_bonus == 50 and yatzy.total == 113
    # Dutch page: five sixes and no ones is fine, as long as the sum is 63 or more
    card = ScoreCard.parse("ones=0,twos=6,threes=9,fours=12,fives=15,sixes=30", "yahtzee")
    assert card.upper_total == 72 and card.upper_bonus == 35
    # the bonus counts as soon as 63 is reached, before the section is full
    card = ScoreCard.parse("fours=20,fives=25,sixes=18", "yahtzee")
    assert card.upper_bonus == 35 and card.total == 63 + 35


def test_totals_with_yahtzee_bonus():
    text = "fours=16,three_of_a_kind=20,large_straight=40,yahtzee=50,chance=22,yahtzee_bonus=200"
    card = ScoreCard.parse(text, "yahtzee")
    assert card.upper_total == 16
    assert card.lower_total == 20 + 40 + 50 + 22
    assert card.yahtzee_bonus_points == 200
    assert card.total == 16 + 132 + 200
    rows = dict(card.rows())
    assert rows["total"] == card.total
    assert rows["yahtzee_bonus"] == 200
    assert rows["upper_total"] == 16
    assert rows["upper_bonus"] == 0
    assert rows["ones"] is None
    assert "348" in card.format()


def test_state_caps_the_upper_total_and_flags_a_yahtzee_of_50():
    card = ScoreCard.parse("fours=20,fives=25,sixes=24,yahtzee=50", "yahtzee")
    mask, upper, flag = card.state
    assert mask == (1 << 3) | (1 << 4) | (1 << 5) | (1 << 11)
    assert upper == 63
    assert flag == 1
    assert ScoreCard.parse("yahtzee=0", "yahtzee").state[2] == 0
    assert ScoreCard.parse("yahtzee=50", "yahtzee-no-bonus").state[2] == 0  # no bonus, no flag needed


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "rid, text, needle",
    [
        ("yahtzee", "twos=3", "twos=3"),
        ("yahtzee", "ones=6", "ones=6"),
        ("yahtzee", "full_house=20", "full_house=20"),
        ("yahtzee", "small_straight=15", "small_straight=15"),
        ("yahtzee", "yahtzee=25", "yahtzee=25"),
        ("yahtzee", "chance=3", "chance=3"),
        ("yahtzee", "chance=31", "chance=31"),
        ("yatzy", "small_straight=30", "small_straight=30"),
        ("yatzy", "one_pair=7", "one_pair=7"),
        ("yatzy", "three_of_a_kind=20", "three_of_a_kind=20"),
        ("yahtzee", "bananas=3", "bananas"),
        ("yahtzee", "ones=3,one_pair=2", "one_pair"),
        ("yatzy", "yahtzee=50", "yahtzee"),
        ("yahtzee", "ones=3,ones=2", "ones"),
        ("yahtzee", "ones=abc", "abc"),
        ("yahtzee", "ones", "ones"),
        ("yahtzee", "ones=3,twos", "twos"),
        ("yahtzee", "ones=1,yahtzee_bonus=100", "yahtzee_bonus"),
        ("yahtzee", "ones=1,yahtzee=0,yahtzee_bonus=100", "yahtzee_bonus"),
        ("yahtzee", "yahtzee=50,yahtzee_bonus=100", "yahtzee_bonus"),
        ("yahtzee", "ones=1,yahtzee=50,yahtzee_bonus=150", "150"),
        ("yahtzee-no-bonus", "ones=1,yahtzee=50,yahtzee_bonus=100", "yahtzee_bonus"),
        ("yatzy", "ones=1,yatzy=50,yahtzee_bonus=100", "yahtzee_bonus"),
        ("yatzy-forced", "twos=4", "ones"),
        ("yatzy-forced", "ones=3,twos=4,fours=8", "threes"),
    ],
)
def test_bad_cards(rid, text, needle):
    with pytest.raises(CardError) as info:
        ScoreCard.parse(text, rid)
    assert needle in str(info.value)
    assert isinstance(info.value, UsageError)


@pytest.mark.parametrize(
    "rid, text, needle",
    [
        ("yatzy+order=up", "ones=3", "in reverse card order"),
        ("yatzy+order=up", "yatzy=50,full_house=20", "in reverse card order"),
        ("yacht+order=choose", "twos=4", "in card order or in reverse"),
        ("yacht+order=choose", "ones=3,yacht=50", "in card order or in reverse"),
        ("yacht+order=choose", "ones=3,twos=4,fours=8", "in card order or in reverse"),
        ("yacht+order=choose", "yacht=50,little_straight=30,choice=20", "in card order or in reverse"),
        ("yatzy+lower-only", "ones=3", "ones"),
        ("yahtzee+without=chance", "chance=20", "chance"),
        ("yacht", "four_of_a_kind=22", "four_of_a_kind=22"),  # 4 x the face: never 22
        ("yacht", "little_straight=15", "little_straight=15"),
        ("yacht", "ones=1,yacht=50,yahtzee_bonus=100", "yahtzee_bonus"),  # no bonus in Yacht
        ("yatzy+extra-bonus=50", "ones=1,yatzy=0,yahtzee_bonus=50", "yahtzee_bonus"),
        # two bonuses need two boxes filled besides yatzy
        ("yatzy+extra-bonus=50", "ones=1,yatzy=50,yahtzee_bonus=100", "yahtzee_bonus"),
        ("yatzy+extra-bonus=50", "ones=1,twos=2,yatzy=50,yahtzee_bonus=75", "75"),
        # a bonus needs every yatzy row filled
        ("yatzy+yatzy-rows=2+extra-bonus=50", "ones=1,yatzy=50,yahtzee_bonus=50", "yatzy_2"),
        ("yatzy+yatzy-rows=2", "yatzy_2=25", "yatzy_2=25"),
    ],
)
def test_bad_cards_of_other_rule_sets(rid, text, needle):
    with pytest.raises(CardError) as info:
        ScoreCard.parse(text, rid)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    "rid, text",
    [
        ("yatzy+order=up", "yatzy=50,chance=20"),
        ("yacht+order=choose", "ones=3,twos=4,threes=9"),
        ("yacht+order=choose", "yacht=50,choice=20"),
        ("yacht+order=choose", ""),
        ("yatzy+extra-bonus=50", "ones=1,twos=2,yatzy=50,yahtzee_bonus=100"),
        ("yatzy+yatzy-rows=2+extra-bonus=50", "ones=1,yatzy=0,yatzy_2=50,yahtzee_bonus=50"),
    ],
)
def test_good_cards_of_other_rule_sets(rid, text):
    card = ScoreCard.parse(text, rid)
    assert ScoreCard.parse(str(card), rid) == card
    assert sorted(str(card).split(",")) == sorted(text.split(","))


def test_order_up_and_choose_moves():
    up = ScoreCard.empty("yatzy+order=up")
    assert [p.box for p in up.placements("33333")] == ["yatzy"]
    with pytest.raises(IllegalMoveError):
        up.score("ones", "11111")
    assert up.score("yatzy", "33333").score("chance", "12345").open_boxes == get_rules("yatzy").box_names[:-2]
    choose = ScoreCard.empty("yacht+order=choose")
    assert [p.box for p in choose.placements("33333")] == ["ones", "yacht"]  # either end of the card
    down = choose.score("ones", "11234")
    assert [p.box for p in down.placements("33333")] == ["twos"]
    went_up = choose.score("yacht", "33333")
    assert [p.box for p in went_up.placements("33333")] == ["choice"]
    with pytest.raises(IllegalMoveError):
        went_up.score("ones", "11111")


def test_lower_only_card_has_no_upper_rows():
    card = ScoreCard.parse("one_pair=12,chance=20", "yatzy+lower-only")
    names = [name for name, _ in card.rows()]
    assert names == list(get_rules("yatzy+lower-only").box_names) + ["total"]
    assert "upper_total" not in names and "upper_bonus" not in names and "yahtzee_bonus" not in names
    assert card.upper_total == 0 and card.upper_bonus == 0 and card.total == 32
    assert "upper_bonus" not in card.format()
    assert card.state == (card.filled_mask, 0, 0)


def test_rows_of_other_rule_sets():
    # Yacht: upper total but no upper bonus and no bonus row
    card = ScoreCard.parse("fours=20,fives=25,sixes=30", "yacht")
    names = [name for name, _ in card.rows()]
    assert "upper_total" in names and "upper_bonus" not in names and "yahtzee_bonus" not in names
    assert card.upper_bonus == 0 and card.total == 75
    assert card.state == (card.filled_mask, 0, 0)  # no upper total to track without an upper bonus
    # extra-bonus: a bonus row; without=ones: the bonus still at 63 from the other upper rows
    text = "twos=10,threes=15,fours=20,yatzy=50,chance=5,yahtzee_bonus=50"
    card = ScoreCard.parse(text, "yatzy+extra-bonus=50")
    assert dict(card.rows())["yahtzee_bonus"] == 50 and card.total == 150
    assert card.state[2] == 1
    card = ScoreCard.parse("twos=10,threes=15,fours=20,fives=25", "yahtzee+without=ones")
    assert card.upper_total == 70 and card.upper_bonus == 35 and card.total == 105


def test_extra_bonus_and_extra_rows_by_example():
    card = ScoreCard.parse("yatzy=50", "yatzy+extra-bonus=50")
    got = {p.box: (p.score, p.bonus) for p in card.placements("44444")}
    assert got["chance"] == (20, 50) and got["fours"] == (20, 50) and got["full_house"] == (0, 50)  # no Joker
    after = card.score("full_house", "44444")
    assert after.get("full_house") == 0 and after.yahtzee_bonus_count == 1 and after.total == 100
    rows = ScoreCard.parse("yatzy=50", "yatzy+yatzy-rows=2+extra-bonus=50")
    got = {p.box: (p.score, p.bonus) for p in rows.placements("44444")}
    assert got["yatzy_2"] == (50, 0) and got["chance"] == (20, 0)  # a row is still open: no bonus yet
    both = rows.score("yatzy_2", "44444")
    assert {p.bonus for p in both.placements("22222")} == {50}
    zero = ScoreCard.parse("yatzy=0,yatzy_2=0", "yatzy+yatzy-rows=2+extra-bonus=50")
    assert {p.bonus for p in zero.placements("22222")} == {0}  # no row holds 50


def test_fixed_scores_and_zeros_are_legal_entries():
    card = ScoreCard.parse("fours=12,yahtzee=0,large_straight=40,full_house=25,sixes=0", "yahtzee-no-joker")
    assert card.total == 77
    assert card.n_filled == 5


def test_scoring_a_filled_box():
    card = ScoreCard.parse("ones=3,fours=12", "yahtzee")
    with pytest.raises(IllegalMoveError) as info:
        card.score("fours", "44412")
    assert "fours" in str(info.value)
    with pytest.raises(IllegalMoveError) as info:
        card.score("no_such_box", "44412")
    assert "no_such_box" in str(info.value)
    with pytest.raises(IllegalMoveError):
        card.score(13, "44412")


def test_score_is_a_new_card():
    card = ScoreCard.parse("ones=3", "yahtzee")
    after = card.score("full_house", "22233")
    assert after.get("full_house") == 25
    assert card.get("full_house") is None  # the old card is unchanged
    assert str(after) == "ones=3,full_house=25"
    assert card.score(8, "22233") == after  # a box number works too


# --------------------------------------------------------------------------- random legal games

dice_strategy = st.one_of(
    st.lists(st.integers(1, 6), min_size=5, max_size=5),
    st.integers(1, 6).map(lambda f: [f] * 5),  # Yahtzees often, so bonuses and Jokers happen
)


@st.composite
def games(draw, rid=None):
    """A random legal game: (rules id, [(dice, box) per turn])."""
    rid = rid or draw(st.sampled_from(ALL_IDS + SPEC_IDS))
    rules = get_rules(rid)
    card = ScoreCard.empty(rid)
    moves = []
    for _ in range(rules.n_turns):
        dice = Dice(tuple(draw(dice_strategy)))
        legal = card.placements(dice)
        choice = legal[draw(st.integers(0, len(legal) - 1))]
        moves.append((dice, choice.box))
        card = card.score(choice.box, dice)
    return rid, moves


@given(games())  # examples: the profile of tests/conftest.py
def test_random_games(game):
    rid, moves = game
    rules = get_rules(rid)
    rows = [b for b in rules.box_names if b in ROWS]
    card = ScoreCard.empty(rid)
    bonus_count = 0
    filled_order = []
    for dice, box in moves:
        legal = {p.box: p for p in card.placements(dice)}
        assert legal and box in legal
        assert set(legal) <= set(card.open_boxes)
        # a five of a kind rolled while every row for it is filled and one holds 50 earns the bonus (RULES.md)
        scores = [card.get(row) for row in rows]
        if dice.is_yahtzee and rows and None not in scores and 50 in scores:
            bonus_count += YAHTZEE_BONUS[rid] > 0
        card = card.score(box, dice)
        assert card.get(box) == legal[box].score
        filled_order.append(box)
        assert ScoreCard.parse(str(card), rid) == card
        shuffled = str(card).split(",")
        random.Random(len(filled_order)).shuffle(shuffled)
        assert ScoreCard.parse(",".join(shuffled), rid) == card
    assert card.is_complete
    assert sorted(filled_order) == sorted(rules.box_names)  # every box filled exactly once
    down, up = list(rules.box_names), list(rules.box_names[::-1])
    orders = {"free": [filled_order], "down": [down], "up": [up], "choose": [down, up]}
    assert filled_order in orders[rules.order]
    upper = [card.get(b) for b in UPPER if b in rules.box_names]  # the bonus needs an upper row left
    boxes = sum(card.get(b) for b in rules.box_names)
    upper_bonus = UPPER_BONUS[rid] if upper and sum(upper) >= 63 else 0
    expected = boxes + upper_bonus + bonus_count * YAHTZEE_BONUS[rid]
    assert card.yahtzee_bonus_count == bonus_count
    assert card.total == expected
    assert ScoreCard.parse(str(card), rid).total == expected


@pytest.mark.parametrize(  # the fast loop: yahtzee and yatzy-forced; CI every named rule set
    "rid",
    [r if r in ("yahtzee", "yatzy-forced") else pytest.param(r, marks=pytest.mark.slow) for r in ALL_IDS],
)
@settings(max_examples=25)
@given(data=st.data())
def test_random_games_per_rule_set(rid, data):
    _, moves = data.draw(games(rid))
    card = ScoreCard.empty(rid)
    for dice, box in moves:
        card = card.score(box, dice)
    assert card.is_complete and card.n_filled == get_rules(rid).n_boxes
    with pytest.raises(IllegalMoveError):
        card.score(get_rules(rid).box_names[0], "12345")


entry_text = st.lists(
    st.tuples(
        st.sampled_from(
            get_rules("yahtzee").box_names + ("yahtzee_bonus", "upper_bonus", "one_pair", "x", "")
        ),
        st.sampled_from(["=", ":", "", "=="]),
        st.one_of(st.integers(-5, 250).map(str), st.text(max_size=3)),
    ),
    max_size=6,
).map(lambda entries: ",".join(k + sep + v for k, sep, v in entries))


@given(st.one_of(entry_text, st.text(max_size=20)), st.sampled_from(ALL_IDS))
def test_parse_any_text_gives_a_card_or_a_card_error(text, rid):
    try:
        card = ScoreCard.parse(text, rid)
    except UsageError:
        return
    assert ScoreCard.parse(str(card), rid) == card
    assert card.total >= 0


@pytest.mark.parametrize("value", [5, 3.0, ["ones=3"], {"ones": 3}])
def test_parse_non_text_is_a_card_error(value):
    with pytest.raises(CardError):
        ScoreCard.parse(value, "yahtzee")


@pytest.mark.parametrize("rid", ALL_IDS + SPEC_IDS)
def test_card_totals_of_arrays_are_the_cards_totals(rid):
    """The one rule for totals of arrays of cards (engine.arrays.card_totals: finished games, a
    batch's rows, hint positions, the triple card's columns) says what each card says: its total,
    its upper total and whether it earned the upper bonus, on random legal cards at every stage
    (open boxes -1)."""
    import numpy as np

    from solver.engine.card_arrays import card_totals
    from solver.engine.dp import rule_arrays

    rules = get_rules(rid)
    rng = random.Random(rid)
    cards = []
    for _ in range(200):
        card = ScoreCard.empty(rules)
        for _ in range(rng.randrange(rules.n_boxes + 1)):
            face = rng.randint(1, 6)  # high upper scores and bonuses often enough: many alike dice
            dice = Dice(tuple(face if rng.random() < 0.6 else rng.randint(1, 6) for _ in range(5)))
            legal = card.placements(dice)
            card = card.place(max(legal, key=lambda p: p.score) if rng.random() < 0.8 else rng.choice(legal))
        cards.append(card)
    # and the upper boxes at their best, the rest open: the bonus earned where there is one
    best = tuple(5 * rules.boxes[b].face if b in rules.upper_indices else None for b in range(rules.n_boxes))
    if rules.has_upper_bonus:
        cards.append(ScoreCard(rules, best))
    scores = np.array([[-1 if s is None else s for s in c.scores] for c in cards], dtype=np.int16)
    bonuses = np.array([c.yahtzee_bonus_count for c in cards])
    total, upper, reached = card_totals(rule_arrays(rules), scores, bonuses)
    assert total.tolist() == [c.total for c in cards]
    assert upper.tolist() == [c.upper_total for c in cards]
    assert reached.tolist() == [c.upper_bonus > 0 for c in cards]
    if rules.has_upper_bonus:  # both sides of the bonus were checked
        assert 0 < sum(reached) < len(cards)

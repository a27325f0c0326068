"""Scoring and placement rules: the examples of the rule documents, an independent oracle, properties.

Expected values come from ``docs/rules.md`` and the rule pages it was written from
(Turkish and Finnish Yahtzee pages, a Finnish Yatzy page, a Dutch Yahtzee page).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from solver.core.card import ScoreCard
from solver.core.dice import ROLLS, Dice
from solver.core.errors import IllegalMoveError, UnknownRulesError, UsageError
from solver.core.rules import RULE_SETS, Box, RuleSet, Scorer, get_rules

YAHTZEE_IDS = ("yahtzee", "yahtzee-free-joker", "yahtzee-no-joker", "yahtzee-no-bonus")
YATZY_IDS = ("yatzy", "yatzy-forced")
ALL_IDS = YAHTZEE_IDS + YATZY_IDS
#: Rule sets of the other bases and of the modifiers, for the properties below.
SPEC_IDS = (
    "yacht", "yatzy+extra-bonus=50", "yacht+extra-bonus=100+order=choose", "yatzy+yatzy-rows=3+extra-bonus=100",
    "yatzy+yatzy-rows=2+order=up", "yatzy+all-rolls+lower-only", "yahtzee+lower-only",
    "yahtzee-free-joker+order=choose", "yahtzee+order=up+without=fours,chance", "yahtzee-no-joker+without=ones",
)  # fmt: skip
UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")

five_dice = st.lists(st.integers(1, 6), min_size=5, max_size=5)


def score(rules: str, box: str, dice: str) -> int:
    r = get_rules(rules)
    return r.box_score(r.box_index[box], Dice.parse(dice).counts)


def placements(rules: str, card: str, dice: str) -> dict[str, tuple[int, int]]:
    """``{box: (score, bonus)}`` of every legal placement."""
    found = ScoreCard.parse(card, rules).placements(dice)
    out = {p.box: (p.score, p.bonus) for p in found}
    assert len(out) == len(found), "a box is offered twice"
    return out


# --------------------------------------------------------------------------- rule sets as data


def test_card_order_of_boxes():
    yahtzee = UPPER + (
        "three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "yahtzee",
        "chance",
    )  # fmt: skip
    yatzy = UPPER + (
        "one_pair", "two_pairs", "three_of_a_kind", "four_of_a_kind", "small_straight", "large_straight",
        "full_house", "chance", "yatzy",
    )  # fmt: skip
    for rid in YAHTZEE_IDS:
        assert get_rules(rid).box_names == yahtzee
        assert get_rules(rid).n_turns == 13
    for rid in YATZY_IDS:
        assert get_rules(rid).box_names == yatzy
        assert get_rules(rid).n_turns == 15


@pytest.mark.parametrize(
    "rid, canonical, upper_bonus, bonus, joker, order",
    [
        ("yahtzee", "yahtzee", 35, 100, "forced", "free"),
        ("yahtzee-free-joker", "yahtzee-free-joker", 35, 100, "free", "free"),
        ("yahtzee-no-joker", "yahtzee-no-joker", 35, 100, "none", "free"),
        ("yahtzee-no-bonus", "yahtzee-no-bonus", 35, 0, "none", "free"),
        ("yatzy", "yatzy", 50, 0, "none", "free"),
        ("yatzy-forced", "yatzy+order=down", 50, 0, "none", "down"),
        ("yacht", "yacht", 0, 0, "none", "free"),
    ],
)
def test_rule_set_parameters(rid, canonical, upper_bonus, bonus, joker, order):
    r = get_rules(rid)
    assert r.id == canonical == str(r)
    assert r.upper_threshold == 63
    assert r.upper_bonus == upper_bonus
    assert r.has_upper_bonus is (upper_bonus > 0)
    assert r.upper_cap == (63 if upper_bonus else 0)
    assert r.bonus == bonus
    assert r.n_flags == (2 if bonus else 1)
    assert r.joker == joker
    assert r.order == order
    assert r.forced_order is (order != "free")
    assert not r.all_rolls
    assert [r.boxes[i].face for i in r.upper_indices] == [1, 2, 3, 4, 5, 6]
    row = "yacht" if rid == "yacht" else "yatzy" if rid.startswith("yatzy") else "yahtzee"
    assert [r.box_names[i] for i in r.five_kind_rows] == [row]
    assert r.rows_mask == sum(1 << i for i in r.five_kind_rows)
    assert r.describe()["id"] == canonical


def test_default_and_unknown_rules():
    assert get_rules(None).id == "yahtzee"
    assert get_rules(get_rules("yatzy")) is get_rules("yatzy")
    assert set(RULE_SETS) == set(ALL_IDS)  # the rule sets of 1.0, by their historical ids
    assert all(RULE_SETS[rid] is get_rules(rid) for rid in ALL_IDS)
    with pytest.raises(UnknownRulesError) as info:
        get_rules("mega-yatzy")
    assert "mega-yatzy" in str(info.value)
    with pytest.raises(UsageError):
        get_rules("yatzy+maxi")
    with pytest.raises(UnknownRulesError):
        ScoreCard.parse("", "triple-yahtzee")


# --------------------------------------------------------------------------- examples of the documents


@pytest.mark.parametrize("rid", ALL_IDS)
def test_upper_section_examples(rid):
    # Turkish/Finnish Yahtzee page: 4-4-2-4-6 in fours is 4 + 4 + 4 = 12
    assert score(rid, "fours", "44246") == 12
    assert score(rid, "twos", "44246") == 2
    assert score(rid, "sixes", "44246") == 6
    assert score(rid, "ones", "44246") == 0
    # Turkish page: three 3s in threes 9, two 2s in twos 4
    assert score(rid, "threes", "33315") == 9
    assert score(rid, "twos", "22456") == 4
    # Dutch page: 1,3,3,3,5 in threes is 3*3 = 9
    assert score(rid, "threes", "13335") == 9
    # Finnish Yatzy page: 1+1+1 = 3, ..., 6+6+6 = 18
    for face, name in enumerate(UPPER, start=1):
        assert score(rid, name, f"{face}{face}{face}" + ("12" if face > 2 else "56")) == 3 * face


def test_yahtzee_lower_section_examples():
    rid = "yahtzee"
    # 6-6-6-2-1 is 21 as three of a kind (all five dice count, not only the three)
    assert score(rid, "three_of_a_kind", "66621") == 21
    assert score(rid, "four_of_a_kind", "66621") == 0
    # a four of a kind may go in four of a kind, three of a kind or chance (Turkish page)
    assert score(rid, "four_of_a_kind", "55552") == 22
    assert score(rid, "three_of_a_kind", "55552") == 22
    assert score(rid, "chance", "55552") == 22
    assert score(rid, "fives", "55552") == 20
    # full house: 1,1,3,3,3 and 3,3,3,6,6 (Dutch page) and 2-2-2-3-3 (Turkish turn example)
    assert score(rid, "full_house", "11333") == 25
    assert score(rid, "full_house", "33366") == 25
    assert score(rid, "full_house", "22233") == 25
    assert score(rid, "twos", "22233") == 6
    assert score(rid, "three_of_a_kind", "22233") == 12
    # five of a kind is not a full house (except as a Joker)
    assert score(rid, "full_house", "44444") == 0
    assert score(rid, "full_house", "22234") == 0
    # straights: 1-2-3-4-5 fits both; 1-2-3-4-4 is a small straight; 1,2,3,4 / 2,3,4,5 / 3,4,5,6
    assert score(rid, "small_straight", "12345") == 30
    assert score(rid, "large_straight", "12345") == 40
    assert score(rid, "small_straight", "23456") == 30
    assert score(rid, "large_straight", "23456") == 40
    assert score(rid, "small_straight", "12344") == 30
    assert score(rid, "large_straight", "12344") == 0
    assert score(rid, "small_straight", "12346") == 30
    assert score(rid, "small_straight", "23455") == 30
    assert score(rid, "small_straight", "13456") == 30
    assert score(rid, "small_straight", "12356") == 0
    assert score(rid, "large_straight", "13456") == 0
    # Yahtzee 50, chance anything (a 22 in chance from the Turkish page)
    assert score(rid, "yahtzee", "66666") == 50
    assert score(rid, "yahtzee", "66665") == 0
    assert score(rid, "chance", "34456") == 22
    assert score(rid, "chance", "11111") == 5


def test_yatzy_examples_from_the_finnish_page():
    rid = "yatzy"
    # the same roll as in Yahtzee scores only the three dice in three_of_a_kind
    assert score(rid, "three_of_a_kind", "66621") == 18
    assert score(rid, "three_of_a_kind", "44412") == 12  # 4 + 4 + 4
    assert score(rid, "four_of_a_kind", "55551") == 20  # 5 + 5 + 5 + 5
    assert score(rid, "one_pair", "66123") == 12  # 6 + 6
    assert score(rid, "one_pair", "33665") == 12  # the highest pair counts
    assert score(rid, "one_pair", "12345") == 0
    assert score(rid, "two_pairs", "55331") == 16  # 5 + 5 + 3 + 3
    assert score(rid, "small_straight", "12345") == 15
    assert score(rid, "large_straight", "23456") == 20
    assert score(rid, "full_house", "33555") == 21  # 3 + 3 + 5 + 5 + 5
    assert score(rid, "chance", "34456") == 22  # 3 + 4 + 4 + 5 + 6
    assert score(rid, "yatzy", "66666") == 50


def test_yatzy_special_cases_of_rules_md():
    rid = "yatzy"
    # a full house counts as two pairs
    assert score(rid, "two_pairs", "33355") == 16
    # five of a kind is neither two pairs nor a full house
    assert score(rid, "two_pairs", "44444") == 0
    assert score(rid, "full_house", "44444") == 0
    # four of a kind is not two pairs; one pair is not two pairs
    assert score(rid, "two_pairs", "33335") == 0
    assert score(rid, "two_pairs", "33456") == 0
    # straights are exact
    assert score(rid, "small_straight", "23456") == 0
    assert score(rid, "large_straight", "12345") == 0
    assert score(rid, "small_straight", "12344") == 0
    assert score(rid, "small_straight", "12346") == 0
    # three/four of a kind count face x n, also inside a bigger group
    assert score(rid, "three_of_a_kind", "44444") == 12
    assert score(rid, "four_of_a_kind", "44444") == 16
    assert score(rid, "one_pair", "44444") == 8
    assert score(rid, "three_of_a_kind", "33355") == 9
    assert score(rid, "four_of_a_kind", "33356") == 0
    assert score(rid, "full_house", "33456") == 0
    assert score(rid, "yatzy", "44445") == 0


def test_yacht_examples_of_rules_md():
    rid = "yacht"
    # full house: the sum of the dice; five of a kind is not a full house
    assert score(rid, "full_house", "22233") == 12
    assert score(rid, "full_house", "33555") == 21
    assert score(rid, "full_house", "44444") == 0
    assert score(rid, "full_house", "22234") == 0
    # four of a kind: 4 x the face, the fifth die does not count (also in five of a kind)
    assert score(rid, "four_of_a_kind", "55552") == 20
    assert score(rid, "four_of_a_kind", "44444") == 16
    assert score(rid, "four_of_a_kind", "55522") == 0
    # straights are exact and both pay 30
    assert score(rid, "little_straight", "12345") == 30
    assert score(rid, "big_straight", "23456") == 30
    assert score(rid, "little_straight", "23456") == 0
    assert score(rid, "big_straight", "12345") == 0
    assert score(rid, "little_straight", "12346") == 0
    assert score(rid, "big_straight", "13456") == 0
    # choice anything, yacht five of a kind
    assert score(rid, "choice", "34456") == 22
    assert score(rid, "yacht", "11111") == 50
    assert score(rid, "yacht", "11112") == 0
    assert score(rid, "fours", "44445") == 16


def test_extra_yatzy_rows_score_like_the_yatzy_row():
    rid = "yatzy+yatzy-rows=3"
    for box in ("yatzy", "yatzy_2", "yatzy_3"):
        assert score(rid, box, "33333") == 50
        assert score(rid, box, "33334") == 0


# --------------------------------------------------------------------------- an independent oracle


def oracle_yahtzee(box: str, dice: tuple[int, ...]) -> int:
    counts = Counter(dice)
    total = sum(dice)
    faces = set(dice)
    if box in UPPER:
        face = UPPER.index(box) + 1
        return face * counts[face]
    return {
        "three_of_a_kind": total if max(counts.values()) >= 3 else 0,
        "four_of_a_kind": total if max(counts.values()) >= 4 else 0,
        "full_house": 25 if sorted(counts.values()) == [2, 3] else 0,
        "small_straight": 30 if any({s, s + 1, s + 2, s + 3} <= faces for s in (1, 2, 3)) else 0,
        "large_straight": 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0,
        "yahtzee": 50 if len(faces) == 1 else 0,
        "chance": total,
    }[box]


def oracle_yatzy(box: str, dice: tuple[int, ...]) -> int:
    counts = Counter(dice)
    if box in UPPER:
        face = UPPER.index(box) + 1
        return face * counts[face]
    pairs = [f for f, n in counts.items() if n >= 2]
    if box == "one_pair":
        return 2 * max(pairs) if pairs else 0
    if box == "two_pairs":
        return 2 * sum(pairs) if len(pairs) == 2 else 0
    if box in ("three_of_a_kind", "four_of_a_kind"):
        n = 3 if box == "three_of_a_kind" else 4
        groups = [f for f, k in counts.items() if k >= n]
        return n * groups[0] if groups else 0
    return {
        "small_straight": 15 if sorted(dice) == [1, 2, 3, 4, 5] else 0,
        "large_straight": 20 if sorted(dice) == [2, 3, 4, 5, 6] else 0,
        "full_house": sum(dice) if sorted(counts.values()) == [2, 3] else 0,
        "chance": sum(dice),
        "yatzy": 50 if len(counts) == 1 else 0,
    }[box if not box.startswith("yatzy_") else "yatzy"]  # yatzy_2 ... score as yatzy


def oracle_yacht(box: str, dice: tuple[int, ...]) -> int:
    """The Yacht table of RULES.md."""
    counts = Counter(dice)
    if box in UPPER:
        face = UPPER.index(box) + 1
        return face * counts[face]
    if box == "four_of_a_kind":
        faces = [f for f, n in counts.items() if n >= 4]
        return 4 * faces[0] if faces else 0
    return {
        "full_house": sum(dice) if sorted(counts.values()) == [2, 3] else 0,
        "little_straight": 30 if sorted(dice) == [1, 2, 3, 4, 5] else 0,
        "big_straight": 30 if sorted(dice) == [2, 3, 4, 5, 6] else 0,
        "choice": sum(dice),
        "yacht": 50 if len(counts) == 1 else 0,
    }[box]


def oracle_of(rules: RuleSet):
    """The oracle of a rule set's base (its id starts with the base)."""
    base = rules.id.split("+")[0]
    return {"yatzy": oracle_yatzy, "yacht": oracle_yacht}.get(base, oracle_yahtzee)


@pytest.mark.parametrize("rid", ALL_IDS + SPEC_IDS)
def test_score_table_matches_oracle_on_every_roll(rid):
    rules = get_rules(rid)
    oracle = oracle_of(rules)
    table = rules.score_table
    assert table.shape == (252, rules.n_boxes)
    for r, roll in enumerate(ROLLS):
        for b, name in enumerate(rules.box_names):
            assert table[r, b] == oracle(name, roll), (rid, roll, name)


# --------------------------------------------------------------------------- properties


@given(five_dice, st.randoms(use_true_random=False), st.sampled_from(ALL_IDS))
def test_dice_order_never_changes_a_score(values, rnd, rid):
    rules = get_rules(rid)
    shuffled = list(values)
    rnd.shuffle(shuffled)
    a, b = Dice(tuple(values)), Dice(tuple(shuffled))
    assert [rules.box_score(i, a.counts) for i in range(rules.n_boxes)] == [
        rules.box_score(i, b.counts) for i in range(rules.n_boxes)
    ]
    card = ScoreCard.empty(rid)
    assert card.preview(",".join(map(str, values))) == card.preview("".join(map(str, shuffled)))


BOUNDS_YAHTZEE = {
    "full_house": {0, 25},
    "small_straight": {0, 30},
    "large_straight": {0, 40},
    "yahtzee": {0, 50},
}
BOUNDS_YATZY = {
    "small_straight": {0, 15},
    "large_straight": {0, 20},
    "yatzy": {0, 50},
}

YATZY_GROUPS = {
    "one_pair": {0, 2, 4, 6, 8, 10, 12},
    "two_pairs": {0} | {2 * (a + b) for a in range(1, 7) for b in range(a + 1, 7)},
    "three_of_a_kind": {0, 3, 6, 9, 12, 15, 18},
    "four_of_a_kind": {0, 4, 8, 12, 16, 20, 24},
    "full_house": {0},
}


@given(five_dice, st.sampled_from(ALL_IDS))
def test_every_score_is_within_its_box_bounds(values, rid):
    rules = get_rules(rid)
    dice = Dice(tuple(values))
    total = sum(values)
    fixed = BOUNDS_YATZY if rid in YATZY_IDS else BOUNDS_YAHTZEE
    for i, name in enumerate(rules.box_names):
        s = rules.box_score(i, dice.counts)
        assert 0 <= s <= 50
        if name in UPPER:
            face = UPPER.index(name) + 1
            assert s % face == 0 and s <= 5 * face
        elif name in fixed:
            assert s in fixed[name]
        elif name == "chance":
            assert s == total
        elif rid in YATZY_IDS:
            assert s in YATZY_GROUPS[name] or (name == "full_house" and s == total and 7 <= s <= 28)
        else:  # three/four of a kind: the sum of the dice or nothing
            assert s in (0, total)


# --------------------------------------------------------------------------- Joker rules, by example


def test_forced_joker_rule_book_example():
    # five 4s, yahtzee box holds 0, fours filled: any open lower box, as a Joker; large straight 40
    got = placements("yahtzee", "fours=12,yahtzee=0", "44444")
    assert got == {
        "three_of_a_kind": (20, 0),
        "four_of_a_kind": (20, 0),
        "full_house": (25, 0),
        "small_straight": (30, 0),
        "large_straight": (40, 0),
        "chance": (20, 0),
    }
    card = ScoreCard.parse("fours=12,yahtzee=0", "yahtzee")
    after = card.score("large_straight", "44444")
    assert after.get("large_straight") == 40
    assert after.yahtzee_bonus_count == 0
    assert after.total == 52
    for box in ("ones", "twos", "threes", "fives", "sixes"):
        with pytest.raises(IllegalMoveError) as info:
            card.score(box, "44444")
        assert box in str(info.value)
    with pytest.raises(IllegalMoveError) as info:
        card.score("fours", "44444")
    assert "fours" in str(info.value)


def test_forced_joker_own_upper_box_first():
    # fours open: the roll must go there (Dutch page: an extra Yahtzee of twos goes in twos for 10)
    assert placements("yahtzee", "yahtzee=0", "44444") == {"fours": (20, 0)}
    assert placements("yahtzee", "yahtzee=50", "44444") == {"fours": (20, 100)}
    assert placements("yahtzee", "yahtzee=50,chance=20", "22222") == {"twos": (10, 100)}
    card = ScoreCard.parse("yahtzee=50", "yahtzee")
    with pytest.raises(IllegalMoveError):
        card.score("large_straight", "44444")
    after = card.score("fours", "44444")
    assert after.yahtzee_bonus_count == 1
    assert after.yahtzee_bonus_points == 100
    assert after.total == 50 + 20 + 100


def test_forced_joker_bonus_only_when_yahtzee_box_holds_50():
    with_50 = placements("yahtzee", "sixes=18,yahtzee=50", "66666")
    with_0 = placements("yahtzee", "sixes=18,yahtzee=0", "66666")
    assert {b: s for b, (s, _) in with_50.items()} == {b: s for b, (s, _) in with_0.items()}
    assert {bonus for _, bonus in with_50.values()} == {100}
    assert {bonus for _, bonus in with_0.values()} == {0}
    assert with_50["large_straight"] == (40, 100)
    assert with_50["three_of_a_kind"] == (30, 100)


def test_forced_joker_upper_box_for_zero_when_lower_section_full():
    card = (
        "fours=12,three_of_a_kind=0,four_of_a_kind=0,full_house=0,small_straight=0,"
        "large_straight=0,yahtzee=50,chance=5"
    )
    got = placements("yahtzee", card, "44444")
    assert got == {b: (0, 100) for b in ("ones", "twos", "threes", "fives", "sixes")}
    after = ScoreCard.parse(card, "yahtzee").score("sixes", "44444")
    assert after.get("sixes") == 0 and after.yahtzee_bonus_count == 1


def test_forced_joker_some_lower_boxes_filled():
    got = placements("yahtzee", "fives=15,yahtzee=50,large_straight=40,chance=12", "55555")
    assert got == {
        "three_of_a_kind": (25, 100),
        "four_of_a_kind": (25, 100),
        "full_house": (25, 100),
        "small_straight": (30, 100),
    }


def test_free_joker():
    # face box open: any open box, straights and full house score normally (0)
    got = placements("yahtzee-free-joker", "yahtzee=50", "44444")
    assert set(got) == set(get_rules("yahtzee").box_names) - {"yahtzee"}
    assert got["fours"] == (20, 100)
    assert got["ones"] == (0, 100)
    assert got["full_house"] == (0, 100)
    assert got["small_straight"] == (0, 100)
    assert got["large_straight"] == (0, 100)
    assert got["three_of_a_kind"] == got["four_of_a_kind"] == got["chance"] == (20, 100)
    # face box filled: the fixed Joker scores
    got = placements("yahtzee-free-joker", "fours=16,yahtzee=0", "44444")
    assert set(got) == set(get_rules("yahtzee").box_names) - {"yahtzee", "fours"}
    assert got["full_house"] == (25, 0)
    assert got["small_straight"] == (30, 0)
    assert got["large_straight"] == (40, 0)
    assert got["sixes"] == (0, 0)
    assert got["chance"] == (20, 0)
    card = ScoreCard.parse("fours=16,yahtzee=50", "yahtzee-free-joker")
    after = card.score("sixes", "44444")  # allowed under free placement, not under forced
    assert after.get("sixes") == 0 and after.yahtzee_bonus_points == 100
    with pytest.raises(IllegalMoveError):
        ScoreCard.parse("fours=16,yahtzee=50", "yahtzee").score("sixes", "44444")


@pytest.mark.parametrize("rid, bonus", [("yahtzee-no-joker", 100), ("yahtzee-no-bonus", 0)])
def test_no_joker(rid, bonus):
    for card in ("yahtzee=50", "fours=12,yahtzee=50"):
        got = placements(rid, card, "44444")
        open_boxes = ScoreCard.parse(card, rid).open_boxes
        assert set(got) == set(open_boxes)
        for box in open_boxes:
            assert got[box] == (score(rid, box, "44444"), bonus)
        assert got["full_house"] == (0, bonus)
        assert got["large_straight"] == (0, bonus)
        assert got["small_straight"] == (0, bonus)
    # the yahtzee box holding 0 never earns the bonus
    got = placements(rid, "yahtzee=0", "44444")
    assert {b for _, b in got.values()} == {0}


@pytest.mark.parametrize("rid", YAHTZEE_IDS)
def test_first_yahtzee_is_an_ordinary_roll(rid):
    got = placements(rid, "fours=8", "44444")
    assert got["yahtzee"] == (50, 0)
    assert got["full_house"] == (0, 0)
    assert got["large_straight"] == (0, 0)
    assert "fours" not in got
    assert len(got) == 12
    assert ScoreCard.parse("fours=8", rid).score("yahtzee", "44444").yahtzee_holds_50


def test_yatzy_has_no_joker_and_no_bonus():
    got = placements("yatzy", "yatzy=50", "44444")
    assert set(got) == set(get_rules("yatzy").box_names) - {"yatzy"}
    assert got["fours"] == (20, 0)
    assert got["one_pair"] == (8, 0)
    assert got["two_pairs"] == (0, 0)
    assert got["full_house"] == (0, 0)
    assert got["chance"] == (20, 0)


def test_forced_order_offers_only_the_next_box():
    assert placements("yatzy-forced", "", "66666") == {"ones": (0, 0)}
    assert placements("yatzy-forced", "ones=3,twos=4", "33345") == {"threes": (9, 0)}
    card = ScoreCard.parse("ones=3,twos=4", "yatzy-forced")
    with pytest.raises(IllegalMoveError):
        card.score("yatzy", "33333")
    assert card.score("threes", "33345").get("threes") == 9


# --------------------------------------------------------------------------- Joker rules, as a property


def five_kind_rows(rules: RuleSet) -> list[str]:
    """The rows that pay for five of a kind, by name (RULES.md)."""
    return [n for n in rules.box_names if n in ("yahtzee", "yatzy", "yacht") or n.startswith("yatzy_")]


def boxes_in_order(rules: RuleSet, all_open: list[str]) -> list[str]:
    """The open boxes the fill order allows (RULES.md: order=down / up / choose)."""
    if rules.order == "down" or rules.order == "choose" and rules.box_names[0] not in all_open:
        return all_open[:1]
    if rules.order == "up" or rules.order == "choose" and rules.box_names[-1] not in all_open:
        return all_open[-1:]
    if rules.order == "choose":  # nothing filled yet: either end
        return sorted({all_open[0], all_open[-1]}, key=rules.box_names.index)
    return all_open


def expected_placements(rules: RuleSet, filled: int, dice: tuple[int, ...], holds_50: bool):
    """Legal placements straight from the rule texts of RULES.md."""
    names = rules.box_names
    all_open = [names[b] for b in range(rules.n_boxes) if not filled >> b & 1]
    open_boxes = boxes_in_order(rules, all_open)
    oracle = oracle_of(rules)
    rows = five_kind_rows(rules)
    extra = len(set(dice)) == 1 and rows and not set(rows) & set(all_open)
    bonus = rules.bonus if extra and holds_50 else 0
    normal = {b: (oracle(b, dice), bonus) for b in open_boxes}
    if not extra or rules.joker == "none":
        return normal
    face_box = UPPER[dice[0] - 1]
    fixed = {"full_house": 25, "small_straight": 30, "large_straight": 40}
    joker = {b: (fixed.get(b, oracle(b, dice)), bonus) for b in open_boxes}
    if rules.joker == "free":
        return normal if face_box in open_boxes else joker
    if face_box in open_boxes:
        return {face_box: normal[face_box]}
    lower = {b: v for b, v in joker.items() if b not in UPPER}
    return lower or {b: v for b, v in normal.items() if b in UPPER}


def reachable_mask(rules: RuleSet, filled: int, up: bool) -> int:
    """``filled`` made a card the fill order can reach (as many boxes, from the first or the last)."""
    k = filled.bit_count()
    if rules.order == "down" or rules.order == "choose" and not up:
        return (1 << k) - 1
    if rules.order in ("up", "choose"):
        return rules.full_mask ^ ((1 << (rules.n_boxes - k)) - 1)
    return filled


any_rules = st.sampled_from(ALL_IDS + SPEC_IDS)


@given(any_rules, st.integers(0, 2**18 - 1), five_dice, st.booleans(), st.booleans())
def test_placements_follow_the_rule_texts(rid, filled, values, holds_50, up):
    rules = get_rules(rid)
    filled = reachable_mask(rules, filled & rules.full_mask, up)
    assume(filled != rules.full_mask)
    assert rules.is_reachable_mask(filled)
    holds_50 = holds_50 and any(filled >> rules.box_index[row] & 1 for row in five_kind_rows(rules))
    dice = tuple(sorted(values))
    got = rules.placements(filled, Dice(dice).counts, holds_50)
    assert [b for b, _, _ in got] == sorted(b for b, _, _ in got), "placements are in card order"
    as_dict = {rules.box_names[b]: (s, bonus) for b, s, bonus in got}
    assert as_dict == expected_placements(rules, filled, dice, holds_50)


@pytest.mark.parametrize(  # CI: all; the fast loop: yatzy-forced and SPEC_IDS (the other named ones: every card shape, costly)
    "rid", [pytest.param(r, marks=pytest.mark.slow) if r in ALL_IDS[:5] else r for r in ALL_IDS + SPEC_IDS]
)
def test_every_yahtzee_roll_on_every_card_shape_has_a_placement(rid):
    rules = get_rules(rid)
    if rules.forced_order:
        masks = [m for m in range(rules.full_mask) if rules.is_reachable_mask(m)]
    else:  # a sample of the masks is enough
        step = (3 if rid in YAHTZEE_IDS else 7) if rid in ALL_IDS else max(3, rules.full_mask >> 9 | 1)
        masks = range(0, rules.full_mask, step)
    assert len(masks) >= rules.n_boxes
    for filled, face in itertools.product(masks, range(1, 7)):
        holds = bool(filled & rules.rows_mask)
        got = rules.placements(filled, Dice((face,) * 5).counts, holds)
        assert got, (rid, filled, face)
        assert all(not filled >> b & 1 for b, _, _ in got)


@pytest.mark.parametrize("order", ["down", "up"])
def test_forced_order_joker_stays_in_order(order):
    """Under forced order a Joker changes the score of the next box, never which box is next."""
    boxes = (
        Box("ones", Scorer("upper", 1)),
        Box("yahtzee", Scorer("five_kind", points=50)),
        Box("full_house", Scorer("full_house", points=25), joker_score=25),
        Box("sixes", Scorer("upper", 6)),
        Box("chance", Scorer("chance")),
    )
    if order == "up":  # the same card written backwards, filled last to first
        boxes = boxes[::-1]
    for joker in ("forced", "free", "none"):
        rules = RuleSet(
            f"late-{joker}-{order}", "test", boxes, upper_bonus=0, bonus=100, joker=joker, order=order,
        )  # fmt: skip
        assert rules.forced_order
        card = ScoreCard.parse("ones=1,yahtzee=50", rules)
        got = card.placements("66666")
        assert [p.box for p in got] == ["full_house"], joker
        assert got[0].score == (0 if joker == "none" else 25)
        assert got[0].bonus == 100
        after = card.score("full_house", "66666")
        assert after.yahtzee_bonus_count == 1
        with pytest.raises(IllegalMoveError):
            card.score("sixes", "66666")


@given(any_rules, st.integers(0, 2**15 - 1), five_dice)
def test_every_offered_placement_is_accepted(rid, seed, values):
    rules = get_rules(rid)
    rnd = random.Random(seed)
    card = ScoreCard.empty(rid)
    for _ in range(rnd.randrange(rules.n_turns)):
        roll = Dice(rnd.choice(ROLLS + ((6,) * 5, (2,) * 5)))
        card = card.score(rnd.choice(card.placements(roll)).box, roll)
    dice = Dice(tuple(values))
    for p in card.placements(dice):
        after = card.score(p.box, dice)
        assert after.get(p.box) == p.score

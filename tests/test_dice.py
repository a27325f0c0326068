"""Dice combinatorics, checked against brute force over ordered dice."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.core import dice as D
from solver.core.dice import Dice
from solver.core.errors import DiceError, UsageError

faces = st.integers(min_value=1, max_value=6)
five_dice = st.lists(faces, min_size=5, max_size=5)


def _multisets(max_size: int) -> set[tuple[int, ...]]:
    """All multisets of 0..max_size faces, by brute force over ordered tuples."""
    return {tuple(sorted(t)) for n in range(max_size + 1) for t in itertools.product(range(1, 7), repeat=n)}


def test_number_of_keeps_and_rolls():
    assert D.N_KEEPS == 462 == len(D.KEEPS)
    assert D.N_ROLLS == 252 == len(D.ROLLS)
    assert set(D.KEEPS) == _multisets(5)
    assert len(set(D.KEEPS)) == 462
    assert set(D.ROLLS) == {k for k in _multisets(5) if len(k) == 5}
    assert D.ROLL_OFFSET == 462 - 252
    assert all(len(k) < 5 for k in D.KEEPS[: D.ROLL_OFFSET])


def test_keep_order_is_size_then_lexicographic():
    expected = sorted(_multisets(5), key=lambda k: (len(k), k))
    assert list(D.KEEPS) == expected
    assert all(D.KEEP_INDEX[k] == i for i, k in enumerate(D.KEEPS))


def test_keep_counts_and_sizes():
    for i, keep in enumerate(D.KEEPS):
        c = Counter(keep)
        assert list(D.KEEP_COUNTS[i]) == [c[f] for f in range(1, 7)]
        assert D.KEEP_SIZE[i] == len(keep)


def test_roll_probabilities_match_brute_force():
    ordered = Counter(tuple(sorted(t)) for t in itertools.product(range(1, 7), repeat=5))
    assert sum(ordered.values()) == 6**5
    assert D.ROLL_PROB.shape == (252,)
    assert math.isclose(float(D.ROLL_PROB.sum()), 1.0, abs_tol=1e-12)
    for roll, ways in ordered.items():
        assert D.ROLL_PROB[Dice(roll).index] == pytest.approx(ways / 7776, abs=1e-15)
    # the two extremes, by hand: a given Yahtzee 1/7776, five different faces 120/7776
    assert D.ROLL_PROB[Dice((6, 6, 6, 6, 6)).index] == pytest.approx(1 / 7776)
    assert D.ROLL_PROB[Dice((1, 2, 3, 4, 5)).index] == pytest.approx(120 / 7776)


def test_add_and_remove_die():
    for i, keep in enumerate(D.KEEPS):
        for face in range(1, 7):
            added = D.ADD_DIE[i, face - 1]
            if len(keep) == 5:
                assert added == -1
            else:
                assert D.KEEPS[added] == tuple(sorted(keep + (face,)))
                assert D.REMOVE_DIE[added, face - 1] == i
            removed = D.REMOVE_DIE[i, face - 1]
            if face in keep:
                rest = list(keep)
                rest.remove(face)
                assert D.KEEPS[removed] == tuple(rest)
                assert D.ADD_DIE[removed, face - 1] == i
            else:
                assert removed == -1


def test_subkeeps_are_all_distinct_sub_multisets():
    assert D.SUBKEEPS.shape == (252, 32)
    for r, roll in enumerate(D.ROLLS):
        expected = {tuple(sorted(c)) for n in range(6) for c in itertools.combinations(roll, n)}
        n = int(D.N_SUBKEEPS[r])
        used = [D.KEEPS[k] for k in D.SUBKEEPS[r, :n]]
        assert len(used) == len(set(used)) == len(expected)
        assert set(used) == expected
        assert np.all(D.SUBKEEPS[r, n:] == -1)
    # by hand: five different faces have 2**5 subsets, a Yahtzee has 6 (0..5 dice of one face)
    assert D.N_SUBKEEPS[Dice((1, 2, 3, 4, 5)).index] == 32
    assert D.N_SUBKEEPS[Dice((4, 4, 4, 4, 4)).index] == 6
    # 3 3 4 5 6: 3 choices for the threes times 2*2*2 for the others
    assert D.N_SUBKEEPS[Dice((3, 3, 4, 5, 6)).index] == 24


def test_arrays_are_read_only():
    for a in (D.KEEP_COUNTS, D.KEEP_SIZE, D.ADD_DIE, D.REMOVE_DIE, D.ROLL_PROB, D.SUBKEEPS, D.N_SUBKEEPS):
        with pytest.raises(ValueError):
            a[0] = 0


@pytest.mark.parametrize(
    "text", ["33456", "3 3 4 5 6", "3,3,4,5,6", "6,5,4,3,3", "  6 3 5 3 4 ", "3-3-4-5-6"]
)
def test_parse_forms(text):
    d = Dice.parse(text)
    assert d.values == (3, 3, 4, 5, 6)
    assert str(d) == "33456"
    assert d.counts == (0, 0, 2, 1, 1, 1)
    assert not d.is_yahtzee


@pytest.mark.parametrize(
    "text, bad",
    [
        ("3 3 4 5 -1", "'-1'"),  # a minus sign, not a separator: no die of 1
        ("-3,3,4,5,1", "'-3'"),
        ("3-3-4-5-6-", "'3-3-4-5-6-'"),
        ("3--3-4-5-6", "'3--3-4-5-6'"),
        ("1 2 3 4 " + "9" * 5000, "'999"),  # past int()'s digit limit: refused, not a ValueError of its own
        ("3 3 4 5 \u0665", "'\u0665'"),  # an Arabic-Indic five: ASCII digits only
    ],
)
def test_parse_refuses_what_is_no_face(text, bad):
    with pytest.raises(DiceError) as info:
        Dice.parse(text)
    assert bad in str(info.value) and len(str(info.value)) < 200


def test_parse_sequences_and_dice():
    d = Dice.parse([6, 3, 5, 3, 4])
    assert d == Dice.parse((3, 3, 4, 5, 6)) == Dice.parse(d) == Dice((4, 5, 6, 3, 3))
    assert Dice.parse("22222").is_yahtzee


@given(five_dice)
def test_str_round_trip_and_order_invariance(values):
    d = Dice(tuple(values))
    assert d.values == tuple(sorted(values))
    assert Dice.parse(str(d)) == d
    assert Dice.parse(" ".join(map(str, values))) == d
    assert Dice.parse(",".join(map(str, reversed(values)))) == d
    assert Dice.from_index(d.index) == d
    assert 0 <= d.index < 252
    assert D.ROLLS[d.index] == d.values
    assert sum(d.counts) == 5


def test_from_index_covers_every_roll():
    assert sorted(Dice.from_index(r).values for r in range(252)) == sorted(D.ROLLS)


@pytest.mark.parametrize(
    "text, bad",
    [
        ("33457", "7"),
        ("3 3 4 5 7", "7"),
        ("03456", "0"),
        ("3,3,0,5,6", "0"),
        ("3 3 a 5 6", "a"),
        ("3,x,4,5,6", "x"),
        ("33a56", "33a56"),
    ],
)
def test_bad_die_value(text, bad):
    with pytest.raises(DiceError) as info:
        Dice.parse(text)
    assert repr(bad) in str(info.value) or f" {bad} " in str(info.value)


@pytest.mark.parametrize(
    "text, count", [("3345", 4), ("3 3 4 5", 4), ("334566", 6), ("3,3,4,5,6,6", 6), ("", 0)]
)
def test_wrong_number_of_dice(text, count):
    with pytest.raises(DiceError) as info:
        Dice.parse(text)
    message = str(info.value)
    assert f"got {count}" in message
    assert "5" in message


@pytest.mark.parametrize("values", [(3, 3, 4, 5, 7), (0, 3, 4, 5, 6), (3, 3, 4, 5), (1, 2, 3, 4, 5, 6)])
def test_bad_dice_tuples(values):
    with pytest.raises(DiceError):
        Dice(values)


def test_dice_error_is_a_usage_error():
    with pytest.raises(UsageError):
        Dice.parse("77777")
    with pytest.raises(ValueError):  # the family is also a ValueError
        Dice.parse("77777")


def test_keep_index():
    assert D.keep_index([]) == 0
    assert D.KEEPS[D.keep_index([5, 3, 3])] == (3, 3, 5)
    assert D.keep_index((3, 3, 4, 5, 6)) == D.ROLL_OFFSET + Dice.parse("33456").index
    with pytest.raises(DiceError):
        D.keep_index([1, 1, 1, 1, 1, 1])
    with pytest.raises(DiceError):
        D.keep_index([7])


@given(st.text(max_size=12))
def test_parse_any_text_gives_dice_or_dice_error(text):
    try:
        d = Dice.parse(text)
    except DiceError:
        return
    assert len(d.values) == 5 and all(1 <= v <= 6 for v in d.values)


@given(st.text(alphabet="123456 ,-²³¹", max_size=12))
def test_parse_digit_like_text(text):
    try:
        Dice.parse(text)
    except DiceError:
        pass


def test_superscript_digits_are_a_dice_error():
    with pytest.raises(DiceError) as info:
        Dice.parse("\u00b23456")
    assert "\u00b2" in str(info.value)


@pytest.mark.parametrize("value", [33456, 3.5, None, object()])
def test_parse_non_text_is_a_dice_error(value):
    with pytest.raises(DiceError):
        Dice.parse(value)

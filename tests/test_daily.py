"""The daily challenge: pinned dice per date (versioned algorithm), same luck for everyone, the summary."""

from __future__ import annotations

import datetime
import hashlib

import pytest

from solver.core.card import ScoreCard
from solver.core.errors import UsageError
from solver.core.rules import get_rules
from solver.core.streams import DailyStream
from solver.play.daily import optimal_game, parse_date, share_line, share_text
from solver.play.game import Game

# Computed once from solver.core.streams.DailyStream (version 1) and written down: a change of the
# algorithm must bump STREAM_VERSION, or every past daily challenge changes its dice.
PINNED = {
    "2026-01-01": [(2, 2, 6, 3, 1), (1, 5, 4, 6, 5), (2, 2, 5, 3, 2)],
    "2026-10-17": [(6, 5, 6, 4, 1), (3, 3, 3, 1, 3), (5, 5, 6, 5, 6)],
    "2027-02-28": [(1, 5, 2, 4, 2), (6, 6, 4, 2, 2), (5, 6, 4, 5, 3)],
}


@pytest.mark.parametrize("date", sorted(PINNED))
def test_first_dice_of_pinned_dates(date):
    stream = DailyStream(date)
    assert [stream.next_five() for _ in range(3)] == PINNED[date]


@pytest.mark.parametrize("date", sorted(PINNED))
def test_documented_algorithm(date):
    """sha256 of "yahtzee-solver daily v1 DATE n"; bytes >= 252 skipped; die = 1 + byte % 6."""
    dice = []
    block = 0
    while len(dice) < 15:
        digest = hashlib.sha256(f"yahtzee-solver daily v1 {date} {block}".encode()).digest()
        dice += [1 + b % 6 for b in digest if b < 252]
        block += 1
    assert [tuple(dice[i : i + 5]) for i in (0, 5, 10)] == PINNED[date]


def test_long_sequence_is_uniform_enough():
    stream = DailyStream("2026-05-05")
    counts = [0] * 6
    for _ in range(2000):
        for d in stream.next_five():
            counts[d - 1] += 1
    assert all(1500 < c < 1834 for c in counts), counts  # 10000 dice, each face about 1667


def test_everyone_gets_the_same_dice_whatever_they_hold():
    game = Game.new("yahtzee", ["Ann", "Ben"], date="2026-10-17")
    game.roll()
    game.set_held([1, 2])
    game.roll()
    game.score("chance")
    game.roll()  # Ben holds nothing and rerolls all
    game.roll()
    game.score("chance")
    ann, ben = game.turns
    assert [r.values for r in ann.rolls] == [r.values for r in ben.rolls] == PINNED["2026-10-17"][:2]
    assert ann.rolls[1].dice == (6, 5, 3, 3, 3) and ben.rolls[1].dice == (3, 3, 3, 1, 3)


def test_parse_date():
    assert parse_date("2026-10-17") == "2026-10-17"
    assert parse_date(None) == parse_date("today") == datetime.date.today().isoformat()
    with pytest.raises(UsageError, match="not an ISO date"):
        parse_date("17.10.2026")
    with pytest.raises(UsageError, match="not an ISO date"):
        parse_date("2026-02-30")


def test_share_text():
    rules = get_rules("yahtzee")
    card = ScoreCard.parse("ones=3,twos=6,yahtzee=50,chance=20,yahtzee_bonus=100", rules)
    text = share_text("2026-10-17", rules, "Ann", card, 251)
    # the one line to paste in a chat first, then the card
    assert text.splitlines() == [
        "Yahtzee daily 2026-10-17: Ann 179, optimal player 251 (-72)",
        "ones 3 | twos 6 | threes - | fours - | fives - | sixes - | upper bonus 0",
        "three_of_a_kind - | four_of_a_kind - | full_house - | small_straight - | large_straight - | "
        "yahtzee 50 | chance 20 | yahtzee bonus 100",
    ]
    assert share_line("2026-10-17", rules, "Ann", 179, 251.0, ["assisted: hint"]) == (
        "Yahtzee daily 2026-10-17: Ann 179 (assisted: hint), optimal player 251 (-72)"
    )
    triple = get_rules("triple")
    assert share_line("2026-10-17", triple, "Ann", 1700, 1650) == (
        "Yahtzee daily 2026-10-17 (yahtzee+triple): Ann 1700, triple player 1650 (+50)"
    )
    assert share_line("2026-10-17", rules, "Ann", 179, None) == "Yahtzee daily 2026-10-17: Ann 179"


def test_optimal_player_on_the_day(tables_dir):
    tables_dir.table("yahtzee")
    game = optimal_game("2026-10-17", "yahtzee", tables_dir)
    assert game.is_over
    again = optimal_game("2026-10-17", "yahtzee", tables_dir)
    assert again.cards == game.cards  # same dice, same decisions
    assert game.turns[0].rolls[0].values == PINNED["2026-10-17"][0]

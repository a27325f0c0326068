"""The UI-free game model: turn order, rolls, holds, Joker placement, bonuses, end of game, saving."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.core.dice import Dice, is_sub_multiset
from solver.core.errors import IllegalMoveError, UsageError
from solver.core.streams import ListStream, SeededStream
from solver.play.game import MAX_ROLLS, Game, GameRecordError, Player, play_bot_turn


def listed(*rolls: str, players=("Ann",), rules="yahtzee") -> Game:
    """A game whose (only) player gets the given rolls of five, in order."""
    dice = [int(c) for r in rolls for c in r]
    return Game(rules, list(players), [ListStream(dice)] + [None] * (len(players) - 1))


def score_first_legal(game: Game) -> None:
    game.score(game.card.placements(game.sorted_dice)[0].box)


def play_out(game: Game) -> None:
    while not game.is_over:
        game.roll()
        score_first_legal(game)


# --- turn flow ---------------------------------------------------------------------
def test_turn_order_and_rounds():
    game = Game.new("yahtzee", ["Ann", "Ben", "Cy"], seed=1)
    seen = []
    for _ in range(7):
        seen.append((game.round, game.player.name))
        game.roll()
        score_first_legal(game)
    assert seen == [(1, "Ann"), (1, "Ben"), (1, "Cy"), (2, "Ann"), (2, "Ben"), (2, "Cy"), (3, "Ann")]
    assert [c.n_filled for c in game.cards] == [3, 2, 2]


def test_first_roll_is_mandatory():
    game = Game.new("yahtzee", ["Ann"], seed=1)
    with pytest.raises(IllegalMoveError, match="roll first"):
        game.score("chance")
    with pytest.raises(IllegalMoveError, match="roll first"):
        game.toggle_hold([1])
    assert game.rolls_left == MAX_ROLLS and not game.has_rolled


def test_three_rolls_at_most():
    game = Game.new("yahtzee", ["Ann"], seed=2)
    for left in (2, 1, 0):
        game.roll()
        assert game.rolls_left == left
    with pytest.raises(IllegalMoveError, match="no rolls left"):
        game.roll()
    with pytest.raises(IllegalMoveError, match="no rolls left"):
        game.toggle_hold([1])
    game.score("chance")
    assert game.rolls_left == MAX_ROLLS and game.round == 2


def test_holds_keep_dice_and_reroll_takes_next_five_in_position_order():
    game = listed("12345", "66666", "22222")
    assert game.roll().dice == (1, 2, 3, 4, 5)
    assert game.toggle_hold([1, 3]) == (1, 3)
    assert game.toggle_hold(["3", 5]) == (1, 5)  # toggles: 3 released, 5 held
    roll = game.roll()
    assert roll.held == (1, 5) and roll.values == (6, 6, 6, 6, 6)
    assert game.dice == (1, 6, 6, 6, 5)
    game.set_held([2, 3, 4])
    assert game.roll().dice == (2, 6, 6, 6, 2)  # the first two of the next five
    assert game.sorted_dice == Dice((2, 2, 6, 6, 6))


@pytest.mark.parametrize("bad", [0, 6, -1, "7", "x"])
def test_hold_position_out_of_range(bad):
    game = listed("12345")
    game.roll()
    with pytest.raises(IllegalMoveError, match="die number"):
        game.toggle_hold([bad])
    assert game.held_positions == ()


def test_all_five_held_cannot_roll():
    game = listed("12345", "12345")
    game.roll()
    game.set_held([1, 2, 3, 4, 5])
    with pytest.raises(IllegalMoveError, match="all five dice are held"):
        game.roll()


def test_keep_faces_prefers_held_dice():
    game = listed("33435")
    game.roll()
    game.set_held([4])
    assert game.keep_faces([3, 3]) == (1, 4)
    with pytest.raises(IllegalMoveError, match="cannot keep"):
        game.keep_faces([6])


def test_box_by_number_name_and_prefix():
    game = listed("12345")
    assert game.box_name(1) == "ones"
    assert game.box_name("13") == "chance"
    assert game.box_name("Full House") == "full_house"
    assert game.box_name("small") == "small_straight"
    with pytest.raises(IllegalMoveError, match="could be"):
        game.box_name("f")  # fours, fives, four_of_a_kind, full_house
    with pytest.raises(IllegalMoveError, match="not on the card"):
        game.box_name("14")
    with pytest.raises(IllegalMoveError, match="unknown box"):
        game.box_name("pair")


def test_filled_box_is_refused_with_reason():
    game = listed("44456", "44111")
    game.roll()
    game.score("fours")
    game.roll()
    with pytest.raises(IllegalMoveError, match="fours is already filled"):
        game.score("fours")
    assert game.rolls_used == 1  # still the same turn


# --- Joker and bonuses ----------------------------------------------------------------
def test_joker_forced_placement_and_yahtzee_bonus():
    game = listed("55555", "55555", "55555")
    game.roll()
    assert game.score("yahtzee").score == 50
    game.roll()
    assert list(game.preview()) == ["fives"]  # own upper box first
    with pytest.raises(IllegalMoveError, match="Joker rule"):
        game.score("chance")
    turn = game.score("fives")
    assert (turn.score, turn.bonus) == (25, 100)
    game.roll()
    assert game.preview()["full_house"] == 25  # fives filled: any lower box, fixed Joker scores
    assert game.preview()["large_straight"] == 40
    turn = game.score("large_straight")
    assert (turn.score, turn.bonus) == (40, 100)
    assert game.card.total == 50 + 25 + 40 + 200


def test_upper_bonus_at_63():
    game = listed("11166", "22266", "33366", "44466", "55566", "66612")
    for box in ("ones", "twos", "threes", "fours", "fives", "sixes"):
        game.roll()
        game.score(box)
    card = game.card
    assert card.upper_total == 63 and card.upper_bonus == 35 and card.total == 98


# --- end of game ------------------------------------------------------------------------
def test_end_of_game_and_winner():
    game = Game.new("yahtzee", ["Ann", "Ben"], seed=11)
    play_out(game)
    assert game.is_over and game.round == 14
    assert all(c.is_complete for c in game.cards)
    totals = dict(game.totals())
    assert game.winners() == [n for n, t in totals.items() if t == max(totals.values())]
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.roll()
    assert game.to_dict()["status"] == "finished"


def test_tie_gives_several_winners():
    dice = [1, 2, 3, 4, 5] * 15
    game = Game("yatzy", ["Ann", "Ben"], [ListStream(dice), ListStream(dice)])
    play_out(game)
    assert game.winners() == ["Ann", "Ben"]


def test_yatzy_has_twelve_or_fifteen_rounds():
    game = Game.new("yatzy", ["Solo"], seed=5)
    play_out(game)
    assert len(game.turns) == 15 and game.n_rounds == 15


def test_players_must_differ():
    with pytest.raises(UsageError, match="two players"):
        Game("yahtzee", ["Ann", "Ann"])
    with pytest.raises(UsageError, match="at least one"):
        Game("yahtzee", [])


def test_real_dice_need_values():
    game = Game.new("yahtzee", ["Ann"], real_dice=True)
    assert game.needs_values
    with pytest.raises(UsageError, match="real dice"):
        game.roll()
    game.roll([3, 3, 4, 5, 6])
    game.set_held([1, 2])
    with pytest.raises(IllegalMoveError, match="need 3 to 5"):
        game.roll([1, 2])
    with pytest.raises(IllegalMoveError, match="not a face"):
        game.roll([1, 2, 7])
    assert game.roll([1, 2, 2]).dice == (3, 3, 1, 2, 2)


def test_bot_turns_use_the_same_flow():
    from solver.play import bots

    game = Game.new("yahtzee", [Player("G", "bot", "greedy")], seed=4)
    bot = bots.get_bot("greedy", "yahtzee")
    rng = random.Random(0)
    while not game.is_over:
        turn = play_bot_turn(game, bot, rng)
        assert 1 <= len(turn.rolls) <= 3
    assert game.cards[0].is_complete


# --- decisions, saving and replay ------------------------------------------------------------
def test_decisions_of_a_turn():
    game = listed("12345", "66666", "22222")
    game.roll()
    game.set_held([2, 3])
    game.roll()  # 6 2 3 6 6
    game.score("chance")  # stop with one roll left
    game.roll()
    ds = list(game.decisions())
    assert [(d.roll, d.rolls_left, d.keep, d.box) for d in ds] == [
        (1, 2, (2, 3), None),
        (2, 1, (2, 3, 6, 6, 6), None),  # keeping all five = stop
        (2, 0, None, "chance"),
    ]
    assert all(d.card.n_filled == 0 for d in ds)


def test_round_trip_through_dict():
    game = Game.new("yahtzee", ["Ann", Player("Bot", "bot", "greedy")], seed=9, info={"mode": "vs-computer"})
    rng = random.Random(1)
    while not game.is_over:
        game.roll()
        if rng.random() < 0.5:
            game.toggle_hold([rng.randint(1, 5)])
            game.roll()
        score_first_legal(game)
    data = game.to_dict()
    again = Game.from_dict(copy.deepcopy(data))
    assert again.to_dict() == data
    assert again.info.seed == 9 and again.players[1].bot == "greedy"
    assert [t.box for t in again.turns] == [t.box for t in game.turns]


def test_abandoned_game_with_a_turn_in_progress_loads():
    game = Game.new("yahtzee", ["Ann"], seed=3)
    game.roll()
    score_first_legal(game)
    game.roll()
    data = game.to_dict("abandoned")
    again = Game.from_dict(data)
    assert again.rolls_used == 1 and again.card.n_filled == 1


def _bad(mutate, seed=12):
    game = Game.new("yahtzee", ["Ann"], seed=seed)
    play_out(game)
    data = game.to_dict()
    mutate(data)
    with pytest.raises(GameRecordError) as info:
        Game.from_dict(data)
    return str(info.value)


def test_bad_die_names_turn_and_roll():
    def mutate(d):
        d.update(dice="real")
        d["turns"][3]["rolls"] = [
            {"held": [], "values": [1, 2, 3, 4, 5]},
            {"held": [1], "values": [7, 1, 1, 1, 1]},
        ]

    assert _bad(mutate).startswith("turn 4 roll 2: die 7 is not a face")


def test_filled_box_names_the_turn():
    def mutate(d):
        d["turns"][2]["box"] = d["turns"][1]["box"]

    message = _bad(mutate)
    assert message.startswith("turn 3: ") and "is already filled" in message


def test_edited_seeded_dice_are_caught():
    def mutate(d):
        d["turns"][0]["rolls"][0]["values"] = [6, 6, 6, 6, 6]

    assert "turn 1 roll 1: values 66666 are not the dice of seed 12" in _bad(mutate)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format_version=99), "format_version"),
        (lambda d: d.update(rules="poker"), "rules: unknown rule set"),
        (lambda d: d.update(players=[]), "players"),
        (lambda d: d["turns"][0]["rolls"].clear(), "turn 1: no rolls"),
        (lambda d: d["turns"][0]["rolls"].extend([{"held": [1], "values": [1] * 5}] * 3), "turn 1: "),
        (lambda d: d["turns"][0].update(score=999), "turn 1: "),
        (lambda d: d["turns"][0].update(box="pair"), "turn 1: unknown box"),
        (lambda d: d["turns"][1].update(player="Zed"), "turn 2: it is Ann's turn"),
        (lambda d: d["turns"].pop(), "status: the file says finished"),
        (
            lambda d: d["turns"][0]["rolls"][0].update(dice=[1, 1, 1, 1, 1]),
            "turn 1 roll 1: dice 11111 do not follow",
        ),
        (lambda d: d["turns"][0]["rolls"][0].update(held=[9]), "turn 1 roll 1: the first roll"),
        (lambda d: d["final"][0].update(score=1), "final: Ann scored"),
        (lambda d: d.update(status="won"), "status"),
    ],
)
def test_bad_records(mutate, message):
    assert message in _bad(mutate)


def test_bad_record_types():
    with pytest.raises(GameRecordError, match="JSON object"):
        Game.from_dict([1, 2])
    with pytest.raises(GameRecordError, match="turn 1: need an object"):
        Game.from_dict({"format_version": 1, "rules": "yahtzee", "players": ["A"], "turns": ["x"]})


@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 31), min_size=13 * 2, max_size=13 * 2))
def test_random_play_replays_identically(seed, masks):
    game = Game.new("yahtzee", ["A"], seed=seed)
    moves = iter(masks)
    while not game.is_over:
        game.roll()
        for _ in range(2):
            m = next(moves, 0)
            if m == 31:
                break
            game.set_held([i + 1 for i in range(5) if m >> i & 1])
            game.roll()
        score_first_legal(game)
    data = game.to_dict()
    again = Game.from_dict(data)
    assert again.cards == game.cards
    # the luck never depends on the holds: every roll took the next five of the stream
    stream = SeededStream(seed)
    for turn in game.turns:
        for r in turn.rolls:
            assert r.values == stream.next_five()


def test_non_ascii_digits_are_refused_not_a_crash():
    game = Game.new("yahtzee", ["A"], seed=1)
    game.roll()
    with pytest.raises(IllegalMoveError, match="not a number"):
        game.set_held(["²"])
    with pytest.raises(IllegalMoveError, match="unknown box"):
        game.box_name("²")
    assert is_sub_multiset((3, 3), (3, 1, 3)) and not is_sub_multiset((3, 3), (3, 1, 2))

"""The triple card (issue 12): rules, notation, scores, the floor and triple players."""

from __future__ import annotations

import json
import math

import pytest
from clirun import run

from solver.advice.triple import TripleAdvisor
from solver.core.dice import Dice
from solver.core.errors import CardError, IllegalMoveError, UsageError
from solver.core.position import Position
from solver.core.rules import get_rules
from solver.core.triple_card import TripleCard
from solver.play.triple import simulate_triple

BASE = 254.5877287  # exact value of yahtzee (docs/rules.md)


@pytest.fixture(scope="module")
def advisor(tables_dir):
    table = tables_dir.table("yahtzee")
    return TripleAdvisor(table, get_rules("triple"))


# --- rules and notation ---------------------------------------------------------
def test_rules_and_card_text():
    rules = get_rules("triple")
    assert rules.id == "yahtzee+triple" and rules.n_turns == 39 and rules.single is get_rules("yahtzee")
    text = rules.card_text()
    assert "x1, x2, x3" in text and "ones@1=3" in text and "1527.526" in text
    assert rules.describe()["weights"] == [1, 2, 3]
    assert get_rules("yatzy+triple").single.id == "yatzy"
    with pytest.raises(UsageError, match="order=choose"):
        get_rules("yatzy+order=choose+triple")


def test_notation_round_trip():
    card = TripleCard.parse("fours@3=12, ones@1=3,Full House@2=25", "triple")
    assert str(card) == "ones@1=3,full_house@2=25,fours@3=12"
    assert TripleCard.parse(str(card)) == card
    assert card.column_totals == (3, 50, 36) and card.total == 89
    assert TripleCard.parse("") == TripleCard.parse("-") == TripleCard.empty("triple")


@pytest.mark.parametrize(
    "text, needle",
    [
        ("ones=3", "BOX@COLUMN=SCORE"),
        ("ones@4=3", "'4'"),
        ("ones@x=3", "'x'"),
        ("ones@2=7", "column 2: ones=7"),
        ("bogus@1=3", "column 1: unknown box 'bogus'"),
        ("ones@1=3,ones@1=2", "column 1"),
        ("yahtzee_bonus@2=100", "column 2"),
    ],
)
def test_bad_cards_are_one_line_errors(text, needle):
    with pytest.raises(CardError) as info:
        TripleCard.parse(text, "triple")
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_hand_checked_game():
    """Weights per column, the upper bonus per column, Yahtzee bonus and Joker within a column."""
    card = TripleCard.empty("triple")
    for box, dice in [
        ("ones", "11123"),
        ("twos", "22256"),
        ("threes", "33312"),
        ("fours", "44412"),
        ("fives", "55512"),
        ("sixes", "66612"),
    ]:
        card = card.score(f"{box}@3", dice)  # column 3: 63 in the upper boxes, bonus 35
    card = card.score("yahtzee@2", "44444")  # column 2 holds 50
    # a second Yahtzee: in column 2 the forced Joker sends it to fours (+100 bonus) ...
    assert [(p.box, p.score, p.bonus) for p in card.placements("44444") if p.box.endswith("@2")] == [
        ("fours@2", 20, 100)
    ]
    with pytest.raises(IllegalMoveError, match="column 2"):
        card.score("chance@2", "44444")
    # ... while column 1 (its yahtzee box open) takes it anywhere, without a bonus
    assert {p.bonus for c, p in card.column_placements("44444") if c == 0} == {0}
    card = card.score("fours@2", "44444")
    card = card.score("chance@1", "66666")
    assert card.columns[2].upper_bonus == 35 and card.columns[0].upper_bonus == 0
    assert card.column_totals == (1 * 30, 2 * (50 + 20 + 100), 3 * (63 + 35))
    assert card.total == 30 + 340 + 294 == 664
    assert str(card).count("@") == 10 and "yahtzee_bonus@2=100" in str(card)
    assert TripleCard.parse(str(card)) == card
    with pytest.raises(IllegalMoveError, match="column 3"):
        card.score("ones@3", "11111")
    lines = card.format().splitlines()
    assert max(map(len, lines)) <= 80 and "664" in lines[-1]


# --- the players ----------------------------------------------------------------
def test_floor_value_is_six_times_the_base(advisor):
    assert advisor.floor_value(TripleCard.empty("triple")) == pytest.approx(6 * BASE, abs=1e-6)
    card = TripleCard.parse("ones@1=3,fours@3=12")
    single = advisor.table.values
    expected = 3 + 36 + float(single[1, 3, 0]) + 2 * float(single[0, 0, 0]) + 3 * float(single[8, 12, 0])
    assert advisor.floor_value(card) == pytest.approx(expected)


@pytest.mark.parametrize(  # the fast loop: floor (test_triple_play checks all three, move by move)
    "bot",
    [pytest.param("triple", marks=pytest.mark.slow), pytest.param("tuned", marks=pytest.mark.slow), "floor"],
)
def test_kernel_plays_as_the_python_player(advisor, tables_dir, bot):
    """The numba games and the plain-Python player (the hint's arithmetic) agree move for move:
    the same final scores, column by column."""
    import random

    from solver.core.streams import SeededStream
    from solver.play.bots import get_bot
    from solver.play.game import Game, Player, play_bot_turn

    result = simulate_triple("triple", bot, 3, seed=7, tables_dir=tables_dir, threads=1)
    player = get_bot(bot, "triple", tables_dir)  # the game model's player, hint's arithmetic
    for g in range(3):
        game = Game("triple", [Player(bot, "bot", bot)], [SeededStream(7, game=g)])
        while not game.is_over:
            play_bot_turn(game, player, random.Random(0))
        card = game.cards[0]
        assert card.is_complete
        assert tuple(result.column_scores[g]) == card.column_totals
        assert result.scores[g] == card.total


@pytest.mark.slow  # 2,000 games, statistical: in CI, not the fast loop
def test_floor_matches_six_times_the_base_value(tables_dir):
    result = simulate_triple("triple", "floor", 2000, seed=3, tables_dir=tables_dir)
    s = result.summary()
    assert abs(s["mean"] - 6 * BASE) < 4 * s["standard_error"]


def test_triple_beats_the_floor_on_the_same_dice(tables_dir):
    from solver.play.simulate import paired

    triple = simulate_triple("triple", "triple", 400, seed=5, tables_dir=tables_dir)
    floor = simulate_triple("triple", "floor", 400, seed=5, tables_dir=tables_dir)
    pair = paired(triple, floor)
    assert pair["mean_difference"] > 4 * pair["standard_error"] > 0


def test_same_games_for_any_thread_count(tables_dir):
    one = simulate_triple("triple", "random", 300, seed=2, threads=1, tables_dir=tables_dir)
    two = simulate_triple("triple", "random", 300, seed=2, threads=2, tables_dir=tables_dir)
    part = simulate_triple("triple", "random", 100, seed=2, game0=200, threads=1, tables_dir=tables_dir)
    assert (one.scores == two.scores).all() and (one.scores[200:] == part.scores).all()
    greedy = simulate_triple("triple", "greedy", 50, seed=2, tables_dir=tables_dir)
    assert greedy.scores.mean() > one.scores.mean()


def test_value_players_same_moves_for_any_thread_count_and_block(tables_dir):
    """The value players run games side by side (``arrays.TRIPLE_LANES`` a block): a game's
    moves do not depend on its neighbours, its place in a block or the thread count."""
    from solver.engine.arrays import TRIPLE_LANES

    n, first = 2 * TRIPLE_LANES + 9, TRIPLE_LANES // 2 + 3  # blocks cut at other games
    for bot in ("tuned", "floor"):
        one = simulate_triple("triple", bot, n, seed=4, threads=1, tables_dir=tables_dir, moves=True)
        two = simulate_triple("triple", bot, n, seed=4, threads=2, tables_dir=tables_dir, moves=True)
        part = simulate_triple(
            "triple", bot, n - first, seed=4, game0=first, threads=1, tables_dir=tables_dir, moves=True
        )
        assert (one.moves == two.moves).all() and (one.moves[first:] == part.moves).all(), bot
        assert (one.column_scores == two.column_scores).all()
        assert (one.column_scores[first:] == part.column_scores).all()


def test_hint_ranks_the_triple_players_options(advisor):
    card = TripleCard.parse("ones@1=3,fours@3=12")
    options = advisor.advise(Position(card, Dice.parse("33456"), 0)).options
    assert options[0].best and all(o.regret >= 0 for o in options)
    assert {o.column for o in options} == {1, 2, 3} and options[
        0
    ].box == f"{options[0].category}@{options[0].column}"
    # placements of a roll in the three columns: weighted values relative to the floor
    assert "of column" in options[0].describe()
    keeps = advisor.advise(Position(card, Dice.parse("33456"), 2)).options
    assert keeps[0].keep is not None and math.isfinite(keeps[0].expected_final)
    assert keeps[0].expected_final >= advisor.floor_value(card) - 1e-9  # one step of policy improvement


# --- the command line -----------------------------------------------------------
def test_cli_hint(capsys, tables_dir):
    code, out, _ = run(
        capsys, "hint", "--rules", "triple", "--card", "ones@1=3,fours@3=12", "--dice", "33456",
        "--rolls-left", "0", "--tables", str(tables_dir),
    )  # fmt: skip
    assert code == 0 and "of column" in out and "best-known, not proven optimal" in out
    code, out, _ = run(
        capsys, "hint", "--rules", "triple", "--dice", "66666", "--rolls-left", "1", "--json",
        "--tables", str(tables_dir),
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["rules"] == "yahtzee+triple" and data["options"][0]["best"]
    assert "not proven optimal" in data["note"]


def test_cli_simulate_paired(capsys, tables_dir):
    code, out, _ = run(
        capsys, "simulate", "--rules", "triple", "--bot", "greedy", "--vs", "random", "--games", "200",
        "--json", "--quiet", "--tables", str(tables_dir),
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["paired"]["mean_difference"] > 0 and data["floor"] == pytest.approx(6 * BASE)
    code, out, _ = run(capsys, "simulate", "--rules", "triple", "--bot", "random", "--games", "50", "--quiet")
    assert code == 0 and "games/s" in out and "column means" in out


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["simulate", "--rules", "triple", "--bot", "optimal", "--games", "5"], "optimal"),
        (["hint", "--rules", "triple", "--card", "ones=3", "--dice", "12345", "--rolls-left", "0"], "ones=3"),
        (["tables", "build", "--rules", "triple"], "triple"),
        (
            ["hint", "--rules", "triple", "--dice", "12345", "--rolls-left", "0", "--target", "900"],
            "--target",
        ),
        (["simulate", "--rules", "triple", "--bot", "random", "--games", "5", "--target", "900"], "--target"),
    ],
)
def test_cli_errors_are_one_line(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_value_and_rules(capsys, tables_dir):
    code, out, _ = run(capsys, "value", "--rules", "triple", "--json", "--tables", str(tables_dir))
    assert code == 0 and json.loads(out)["floor_expected_final"] == pytest.approx(6 * BASE)
    code, out, _ = run(capsys, "rules", "triple")
    assert code == 0 and "x1, x2, x3" in out


# --- play and review: tests/test_triple_play.py ------------------------------------


@pytest.mark.slow
def test_tuned_beats_triple_on_the_same_dice(tables_dir):
    from solver.play.simulate import paired

    tuned = simulate_triple("triple", "tuned", 6000, seed=11, tables_dir=tables_dir)
    triple = simulate_triple("triple", "triple", 6000, seed=11, tables_dir=tables_dir)
    pair = paired(tuned, triple)
    assert pair["mean_difference"] > 3 * pair["standard_error"] > 0


@pytest.mark.slow
def test_yatzy_triple_floor_is_six_times_yatzy(tables_dir):
    tables_dir.table("yatzy")
    result = simulate_triple("yatzy+triple", "floor", 2000, seed=3, tables_dir=tables_dir)
    s = result.summary()
    assert abs(s["mean"] - 6 * 248.4399894) < 4 * s["standard_error"]
    triple = simulate_triple("yatzy+triple", "triple", 2000, seed=3, tables_dir=tables_dir)
    assert triple.scores.mean() > s["mean"] + 4 * s["standard_error"]

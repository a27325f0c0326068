"""The triple card in the one game model: every mode of ``yahtzee play``, saving, resuming,
records, stats, review and ``hint --batch``; the old triple game files still load."""

from __future__ import annotations

import io
import json
import random
import re
import sys
from pathlib import Path

import pytest

from solver.cli.entry import main
from solver.core.errors import IllegalMoveError
from solver.core.rules import get_rules
from solver.core.triple_card import TripleCard
from solver.play import records
from solver.play.bots import get_bot, is_builtin_bot
from solver.play.game import Game, GameRecordError, Player, column_box_name, play_bot_turn
from solver.play.triple import simulate_triple

OLD = Path(__file__).resolve().parent / "data" / "old-games"
#: 7 boxes a column, 21 turns: the base table in milliseconds
SMALL = "yahtzee+without=ones,twos,threes,four_of_a_kind,full_house,small_straight"
TRIPLE = SMALL + "+triple"
BOXES = ("fours", "fives", "sixes", "three_of_a_kind", "large_straight", "yahtzee", "chance")


def every_box(columns=(1, 2, 3)) -> list[str]:
    """Roll once and score the boxes column by column, in card order (always legal: the small
    card's Joker never forbids a box while its yahtzee box is open in that column ... and a
    filled yahtzee box with 0 gives no Joker)."""
    return [x for c in columns for b in BOXES for x in ("r", f"s {b}@{c}")]


@pytest.fixture
def data(tmp_path):
    return tmp_path / "data"


@pytest.fixture(scope="module")
def small_tables(tables_dir):
    tables_dir.table(SMALL)
    return tables_dir


def play(monkeypatch, capsys, data, tables, argv, lines):
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    rc = main(["play", "--data", str(data), "--tables", str(tables), *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def saved(data) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((data / "games").glob("*.json"))]


# --- the model ----------------------------------------------------------------------------------
def test_old_triple_files_load_replayed_through_the_game_model():
    finished = json.loads((OLD / "triple-v1-vs-computer.json").read_text())
    game = Game.from_dict(finished)
    assert game.is_over and [c.total for c in game.cards] == finished["scores"]
    assert [p.bot for p in game.players] == [None, "greedy"] and game.info.level == "medium"
    again = Game.from_dict(json.loads(json.dumps(game.to_dict())))  # saved again: version 2
    assert game.to_dict()["format_version"] == 2 and [c.total for c in again.cards] == finished["scores"]
    assert all("@" in t["box"] for t in game.to_dict()["turns"])
    unfinished = json.loads((OLD / "triple-v1-daily-unfinished.json").read_text())
    daily = Game.from_dict(unfinished)
    assert (
        not daily.is_over and daily.info.dice == "daily" and daily.cards[0].total == unfinished["scores"][0]
    )
    daily.roll()  # it goes on with the day's next dice


def test_a_forged_old_triple_file_is_refused():
    data = json.loads((OLD / "triple-v1-vs-computer.json").read_text())
    data["turns"][3]["rolls"][0] = [6, 6, 6, 6, 6]
    with pytest.raises(GameRecordError, match=r"turn 4: roll 1: \[6, 6, 6, 6, 6\] is not the stream's"):
        Game.from_dict(data)
    data = json.loads((OLD / "triple-v1-vs-computer.json").read_text())
    data["players"][1]["bot"] = "os:system"
    with pytest.raises(GameRecordError, match="not a builtin bot"):
        Game.from_dict(data)


def test_boxes_are_named_with_their_column():
    card = TripleCard.parse("chance@1=20,chance@2=17", TRIPLE)
    assert column_box_name(card, "ch") == "chance@3"  # open in one column only
    assert (
        column_box_name(card, "4s@2") == "fours@2" and column_box_name(card, "three 3") == "three_of_a_kind@3"
    )
    with pytest.raises(IllegalMoveError, match="open in columns 1, 2, 3: say which"):
        column_box_name(card, "fours")
    with pytest.raises(IllegalMoveError, match="unknown box"):
        column_box_name(card, "bogus@1")
    with pytest.raises(IllegalMoveError, match="column '4' is not one of 1..3"):
        column_box_name(card, "fours@4")


def test_the_triple_computer_plays_as_the_kernels(small_tables):
    """A game of the unified model with the ``triple`` bot scores what the numba triple player
    scores on the same stream (player i is game i of the seed)."""
    rules = get_rules(TRIPLE)
    bots = [get_bot(name, rules, small_tables, user_bots=False) for name in ("triple", "tuned", "floor")]
    game = Game.new(rules, [Player(b.name, "bot", b.name) for b in bots], seed=9)
    rng = random.Random(0)
    while not game.is_over:
        play_bot_turn(game, bots[game.current], rng)
    for i, bot in enumerate(bots):
        result = simulate_triple(rules, bot.name, 3, seed=9, tables_dir=small_tables, threads=1)
        assert game.cards[i].total == result.scores[i], bot.name
    assert all(is_builtin_bot(name) for name in ("triple", "tuned", "floor"))


def turn_moves(turn) -> tuple[int, ...]:
    """A turn of the game model as the kernel records it (``arrays.MOVE_ROLL1`` ..): the rolls
    and keeps as keep indices (-1: no such roll), the dice scored; the box aside."""
    from solver.core import dice as D

    rolls = [D.keep_index(sorted(r.dice)) for r in turn.rolls]
    keeps = [D.keep_index(sorted(after.dice[p - 1] for p in after.held)) for after in turn.rolls[1:]]
    if len(turn.rolls) < 3:
        keeps.append(rolls[-1])  # stopped: kept all five
    row = [rolls[0], keeps[0], rolls[1] if len(rolls) > 1 else -1, keeps[1] if len(rolls) > 1 else -1]
    return (*row, rolls[-1])


@pytest.mark.parametrize(
    ("rules", "games"),
    [  # the fast loop keeps ``triple`` (its yahtzee table is built anyway); CI runs all four
        pytest.param(TRIPLE, 40, marks=pytest.mark.slow),
        ("triple", 8),
        pytest.param("yahtzee+all-rolls+triple", 4, marks=pytest.mark.slow),
        pytest.param("yatzy+triple", 3, marks=pytest.mark.slow),
    ],
)
def test_the_kernels_make_the_python_players_decisions(rules, games, tables_dir, small_tables):
    """Decision by decision -- every roll, keep and box of every turn -- the batched numba games
    (games side by side) and the plain-Python player of the game model (the hint's arithmetic)
    agree, for ``triple``, ``tuned`` and ``floor`` on many seeded games."""
    from solver.core.streams import SeededStream
    from solver.engine.arrays import MOVE_BOX

    rules = get_rules(rules)
    names = rules.single.box_names
    for name in ("triple", "tuned", "floor"):
        bot = get_bot(name, rules, tables_dir, user_bots=False)
        result = simulate_triple(
            rules, name, games, seed=31, game0=5, tables_dir=tables_dir, threads=2, moves=True
        )
        assert result.moves.shape == (games, rules.n_turns, 6)
        for g in range(games):
            game = Game(rules, [Player(name, "bot", name)], [SeededStream(31, game=5 + g)])
            rng = random.Random(0)
            for t in range(rules.n_turns):
                turn = play_bot_turn(game, bot, rng)
                moves = [int(m) for m in result.moves[g, t]]
                assert turn_moves(turn) == tuple(moves[:MOVE_BOX]), (name, g, t)
                c, b = divmod(moves[MOVE_BOX], len(names))
                assert turn.box == game.cards[0].key(c + 1, names[b]), (name, g, t)
            assert game.cards[0].column_totals == tuple(result.column_scores[g])


# --- the terminal ---------------------------------------------------------------------------
def test_solo_game_sets_the_record_and_shows_in_stats_and_review(monkeypatch, capsys, data, small_tables):
    rc, out, err = play(
        monkeypatch, capsys, data, small_tables, ["--rules", TRIPLE, "--seed", "3"], every_box()
    )
    assert rc == 0, err
    assert "=== game over ===" in out and "first record for" in out
    [game] = saved(data)
    assert game["format_version"] == 2 and game["status"] == "finished" and len(game["turns"]) == 21
    assert records.solo_best(TRIPLE, data)["score"] == game["final"][0]["score"]
    # the card and the sheet fit, lines are wrapped at words; a path, or this 80-character rule
    # id alone on its line, stays whole
    assert all(len(line) <= 80 or "/" in line or " " not in line.strip() for line in out.splitlines())
    rc = main(["stats", "--data", str(data), "--json"])
    stats = json.loads(capsys.readouterr().out)
    assert rc == 0 and stats["rules"][TRIPLE]["games"] == 1
    rc = main(["review", "--last", "--data", str(data), "--tables", str(small_tables), "--json"])
    review = json.loads(capsys.readouterr().out)
    assert rc == 0 and "not proven optimal" in review["note"]
    [me] = review["players"]
    assert me["n_decisions"] >= 21 and me["total_loss"] > 0 and "@" in me["decisions"][-1]["choice"]


def test_hints_coach_and_undo_mark_the_game_assisted(monkeypatch, capsys, data, small_tables):
    lines = ["r", "hint", "s chance@2", "undo", "s fours@1", "q"]
    rc, out, err = play(
        monkeypatch, capsys, data, small_tables, ["--rules", TRIPLE, "--seed", "4", "--coach"], lines
    )
    assert rc == 0, err
    assert "not proven optimal" in out and "coach:" in out and "undone: " in out and "chance@2" in out
    [game] = saved(data)
    assert game["status"] == "abandoned" and set(game["assisted"]) >= {"coach", "hint", "undo"}
    assert [t["box"] for t in game["turns"] if "box" in t] == ["fours@1"]


def test_resume_a_triple_game(monkeypatch, capsys, data, small_tables):
    rc, _, _ = play(
        monkeypatch, capsys, data, small_tables, ["--rules", TRIPLE, "--seed", "5"], every_box((1,)) + ["q"]
    )
    assert rc == 0
    [first] = saved(data)
    path = next((data / "games").glob("*.json"))
    rc, out, err = play(monkeypatch, capsys, data, small_tables, ["--resume", str(path)], every_box((2, 3)))
    assert rc == 0, err and "game resumed where it stopped" in out
    [game] = saved(data)
    assert game["status"] == "finished" and game["turns"][:7] == first["turns"][:7]


@pytest.mark.slow  # four whole games; the fast loop: test_play_cli's levels, the triple bots above
def test_against_the_computer_at_every_level(monkeypatch, capsys, data, small_tables):
    for level in ("easy", "medium", "hard", "perfect"):
        rc, out, err = play(
            monkeypatch,
            capsys,
            data,
            small_tables,
            ["--rules", TRIPLE, "--seed", "6", "--level", level],
            every_box(),
        )
        assert rc == 0, err
        assert f"Computer ({level})" in out and "column 1 x1" in out  # the sheet of both players
    games = saved(data)
    assert sorted(g["players"][1]["bot"] for g in games) == ["greedy", "heuristic", "random", "triple"]
    assert all(g["status"] == "finished" and g["mode"] == "vs-computer" for g in games)
    assert records.solo_best(TRIPLE, data) is None  # games against the computer set no solo record
    rc, _, err = play(monkeypatch, capsys, data, small_tables, ["--rules", TRIPLE, "--level", "win"], [])
    assert rc == 2 and "--level win" in err


def test_hot_seat_and_daily(monkeypatch, capsys, data, small_tables):
    both = [x for c in (1, 2, 3) for b in BOXES for x in ("r", f"s {b}@{c}", "r", f"s {b}@{c}")]
    rc, out, err = play(
        monkeypatch, capsys, data, small_tables, ["--rules", TRIPLE, "--players", "Ann,Bob"], both
    )
    assert rc == 0, err and "hot-seat game for Ann, Bob" in out
    rc, out, err = play(
        monkeypatch, capsys, data, small_tables, ["--rules", TRIPLE, "--daily", "2026-11-30"], every_box()
    )
    assert rc == 0, err
    words = " ".join(out.split())  # the share line is wrapped at 80 columns for this long rule id
    assert "--- to share ---" in out and "column 3 x3" in out
    assert re.search(
        r"Yahtzee daily 2026-11-30 \(\S+\+triple\): You \d+, triple player \d+ \([+-]\d+\)", words
    )
    assert records.solo_best(TRIPLE, data) is None  # a daily sets no solo record
    daily = [g for g in saved(data) if g["mode"] == "daily"]
    assert len(daily) == 1 and daily[0]["date"] == "2026-11-30"


def test_real_dice(monkeypatch, capsys, data, small_tables):
    lines = ["12345", "s large 1", "66666", "s y@3", "q"]
    rc, out, err = play(monkeypatch, capsys, data, small_tables, ["--rules", TRIPLE, "--real-dice"], lines)
    assert rc == 0, err
    [game] = saved(data)
    assert game["dice"] == "real" and [t["score"] for t in game["turns"]] == [40, 50]


def test_hint_batch_takes_the_triple_card(monkeypatch, capsys, small_tables):
    lines = [
        json.dumps({"rules": TRIPLE, "card": "chance@1=20", "dice": "44456", "rolls_left": 0}),
        json.dumps({"rules": TRIPLE, "card": "fours@9=4", "dice": "44456", "rolls_left": 0}),
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    rc = main(["hint", "--batch", "-", "--tables", str(small_tables)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0 and len(out) == 2
    first = json.loads(out[0])
    assert first["options"][0]["best"] and {o["column"] for o in first["options"]} == {1, 2, 3}
    assert "not proven optimal" in first["note"] and "column" in json.loads(out[1])["error"]

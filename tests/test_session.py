"""The one game session (solver.play.session.Session): commands in, events out, for every surface.

The terminal and the web tests play through their surfaces; these check the session itself:
the events are the game's facts (the dice the game rolled, the points on the card), a
computer's turn is told roll by roll, the end carries the summary both surfaces show, and a
computer that fails stops the game instead of passing for the person's illegal move.
"""

from __future__ import annotations

import json

import pytest

from solver.core.errors import IllegalMoveError
from solver.play import events as ev
from solver.play.game import Game, Player
from solver.play.session import ComputerTurnError, GameTables, Session

SMALL = "yahtzee+without=ones,twos,threes,four_of_a_kind,full_house,small_straight"


def new_session(tables_dir, data, players, **kw):
    tables_dir.table(SMALL)
    game = Game.new(SMALL, players, seed=kw.pop("seed", 5), info={"mode": kw.pop("mode", "solo")} | kw)
    return Session(game, data / "games" / "g.json", GameTables(tables_dir.path, progress=False), data=data)


def kinds(events):
    return [e.kind for e in events]


def test_a_solo_game_in_events(tables_dir, data):
    s = new_session(tables_dir, data, ["You"])
    opened = s.start()
    assert kinds(opened) == ["opened", "record_to_beat", "turn_started"]
    assert opened[1].score is None  # no record yet in a new data folder
    g = s.game
    total = 0
    while not g.is_over:
        [rolled] = s.roll()
        assert rolled.dice == tuple(g.dice) and rolled.roll == g.rolls_used and rolled.kept == ()
        box = g.card.open_boxes[0]
        events = s.score(box)
        scored = events[0]
        assert isinstance(scored, ev.Scored) and scored.box == box and not scored.is_bot
        total = scored.total
        assert g.cards[0].total == total  # the event's total is the card's
    over = events[-1]
    assert isinstance(over, ev.GameOver) and over.totals == (("You", total),)
    assert over.record == ev.RecordOutcome(SMALL, total, None, None, True)  # the first record
    # a solo game on seeded dice ends with the optimal player on the same dice, as data
    [same] = over.same_dice
    assert (same.name, same.bot, same.score) == ("You", "optimal", total)
    from solver.play.bots import get_bot
    from solver.play.game import play_out

    alone = play_out(
        Game.new(SMALL, [Player("optimal", "bot", "optimal")], seed=5),
        get_bot("optimal", SMALL, tables_dir.path),
    )
    assert same.best == alone.cards[0].total
    assert over.to_json()["same_dice"] == [
        {"name": "You", "bot": "optimal", "score": total, "best": same.best}
    ]
    assert json.loads(open(over.path).read())["status"] == "finished"
    json.dumps([e.to_json() for e in opened + events])  # every event is JSON-ready
    with pytest.raises(IllegalMoveError, match="finished"):
        s.roll()


def test_a_computers_turn_is_told_roll_by_roll(tables_dir, data):
    s = new_session(
        tables_dir, data, ["You", Player("Computer (hard)", "bot", "heuristic")], mode="vs-computer"
    )
    s.prepare()
    s.start()
    s.roll()
    events = s.score(s.game.card.open_boxes[0])
    bot_rolls = [e for e in events if isinstance(e, ev.Rolled)]
    [bot_scored] = [e for e in events if isinstance(e, ev.Scored) and e.is_bot]
    turn = s.game.turns[-1]  # the computer's turn as the game recorded it
    assert [r.dice for r in bot_rolls] == [tuple(r.dice) for r in turn.rolls]
    assert all(r.is_bot and r.player == 1 for r in bot_rolls)
    for before, after in zip(bot_rolls, bot_rolls[1:], strict=False):  # what it kept is on the table after
        assert all(after.dice.count(f) >= after.kept.count(f) for f in set(after.kept))
        assert all(before.dice.count(f) >= after.kept.count(f) for f in set(after.kept))
    assert (bot_scored.box, bot_scored.points) == (turn.box, turn.score)
    assert bot_scored.stopped == (len(turn.rolls) < 3)
    assert isinstance(events[-1], ev.TurnStarted) and events[-1].player == 0  # back to the person
    assert any(isinstance(e, ev.RoundOver) and e.round == 1 for e in events)


def test_the_coach_judges_each_decision(tables_dir, data):
    s = new_session(tables_dir, data, ["You"], coach=True)
    s.start()
    s.roll()
    s.hold([1, 2])
    events = s.roll()
    [judged] = [e for e in events if isinstance(e, ev.Judged)]
    assert judged.decision == "keep" and judged.loss >= 0 and judged.mistake == (judged.loss > 1e-6)
    events = s.score(s.game.card.open_boxes[-1])
    assert [e.decision for e in events if isinstance(e, ev.Judged)] == ["keep", "box"]  # the stop, the box


def test_a_hint_costs_the_record_once(tables_dir, data):
    s = new_session(tables_dir, data, ["You"])
    s.start()
    s.roll()
    assert s.hint_costs_record
    first = s.hint()
    assert kinds(first) == ["assisted", "hinted"] and first[0].costs_record
    assert first[1].advice.options[0].best
    assert kinds(s.hint()) == ["hinted"]  # said once
    assert not s.hint_costs_record


def test_undo_goes_back_a_box(tables_dir, data):
    s = new_session(tables_dir, data, ["You"])
    s.start()
    s.roll()
    [scored, *_] = s.score("chance")
    events = s.undo()
    assert kinds(events) == ["assisted", "undone", "turn_started"]
    assert (events[1].box, events[1].points, events[1].round) == ("chance", scored.points, 1)
    assert s.game.card.get("chance") is None and s.game.has_rolled  # the dice of that moment


def test_a_computer_that_fails_stops_the_game(tables_dir, data):
    """A computer naming a box it may not take is the computer's fault, not the person's move to
    retry: a ComputerTurnError (the surfaces stop the game, saved), not an IllegalMoveError."""

    class Broken:
        def choose_keep(self, card, dice, rolls_left, rng):
            return dice.values

        def choose_box(self, card, dice, rng):
            return "no_such_box"

    class BrokenTables(GameTables):
        def bot(self, name, rules):
            return Broken()

    s = new_session(
        tables_dir, data, ["You", Player("Computer (hard)", "bot", "heuristic")], mode="vs-computer"
    )
    s.tables = BrokenTables(tables_dir.path, progress=False)
    s.start()
    s.roll()
    with pytest.raises(ComputerTurnError) as caught:
        s.score("chance")
    assert not isinstance(caught.value, IllegalMoveError)
    assert "no_such_box" in str(caught.value)


def test_game_info_is_a_frozen_typed_value():
    import dataclasses

    from solver.play.game_info import GameInfo

    saved = {"mode": "solo", "dice": "seeded", "seed": 7, "assisted": ["hint"], "future_key": {"x": 1}}
    info = GameInfo.parse(saved)
    assert (info.mode, info.seed, info.assisted, info.coach) == ("solo", 7, ("hint",), False)
    assert info.to_dict() == saved  # an entry this version does not know is written back as read
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.seed = 8
    assert info.with_help("undo").assisted == ("hint", "undo") and info.with_help("hint") is info
    for bad, words in (
        ({"seed": True}, "seed"),
        ({"seed": 2**64 + 1}, "seed"),
        ({"mode": "../x"}, "mode"),
        ({"date": "2026-1-1"}, "date"),
        ({"assisted": "hint"}, "assisted"),
        ({"dice": "loaded"}, "dice"),
        ({"dice": "seeded", "stream_version": 2.0}, "stream_version"),
        ({"win_from": "3"}, "win_from"),
        ({"win_from": -1}, "win_from"),
        ({"win_from": 3.0}, "win_from"),
    ):
        with pytest.raises(ValueError, match=words):
            GameInfo.parse(bad)
    game = Game.new(SMALL, ["You"], seed=3, info={"mode": "solo"})
    assert Game.from_dict(game.to_dict()).info == game.info
    assert GameInfo.parse({"win_from": 4}).win_from == 4 and GameInfo.parse({"win_from": 4}).to_dict() == {
        "win_from": 4
    }


def test_the_win_level_starts_at_once_and_plays_to_win_once_its_tables_are_ready(tmp_path):
    """While the ``win`` level's tables are made in the background the computer plays as the
    optimal player, move for move; at its first turn after they are ready it plays to win (said
    once), the chances to win appear, and the game file keeps the turns played before."""
    import threading

    from solver.engine.tables import build_table
    from solver.engine.target import build_target
    from solver.play.bots import TableBot, WinBot
    from solver.play.session import WinTablesLater

    folder = tmp_path / "tables"
    build_table(SMALL, folder, progress=False)
    build_target(SMALL, folder, t_max=200, progress=False)

    def session(bot: str, where: str) -> Session:
        players = [Player("You"), Player("Computer (x)", "bot", bot)]
        game = Game.new(SMALL, players, seed=7, info={"mode": "vs-computer"})
        return Session(
            game, tmp_path / where / "g.json", GameTables(folder, progress=False), data=tmp_path / where
        )

    release = threading.Event()
    later = WinTablesLater(release.wait, what="build", seconds=12.0)
    win, perfect = session("win", "a"), session("optimal", "b")
    assert win.play_win_later(later) == [ev.WinPending(1, "Computer (x)", SMALL, "build", 12.0)]
    assert win.win_pending
    win.prepare()
    assert type(win.bot(1)) is TableBot and win.bot(1).name == "optimal"
    win.start(), perfect.start()
    for _ in range(2):  # the person's same moves in both games: the computers play alike
        win.roll(), perfect.roll()
        box = win.game.card.open_boxes[0]
        events = win.score(box)
        perfect.score(box)
        assert not any(isinstance(e, ev.PlaysToWin) for e in events)
        assert win.game.cards[1] == perfect.game.cards[1]
    assert json.loads((tmp_path / "a" / "g.json").read_text())["win_from"] == 2  # so far
    release.set()
    assert later.wait(5) and not win.win_pending
    win.roll()
    events = win.score(win.game.card.open_boxes[0])
    assert [e for e in events if isinstance(e, ev.PlaysToWin)] == [ev.PlaysToWin(1, "Computer (x)", 2)]
    switched = kinds(events).index("plays_to_win")
    assert (
        kinds(events)[switched + 1] == "turn_started" and events[switched + 1].player == 1
    )  # before its turn
    assert type(win.bot(1)) is WinBot and win.game.info.win_from == 2
    assert win.chances() is not None and sum(win.chances()) == pytest.approx(1.0)
    win.roll()
    assert not any(isinstance(e, ev.PlaysToWin) for e in win.score(win.game.card.open_boxes[0]))  # once
    assert json.loads((tmp_path / "a" / "g.json").read_text())["win_from"] == 2


def test_the_win_level_plays_for_expected_score_to_the_end_when_its_tables_fail(tmp_path):
    from solver.engine.tables import build_table
    from solver.play.bots import TableBot
    from solver.play.session import WinTablesLater

    folder = tmp_path / "tables"
    build_table(SMALL, folder, progress=False)

    def fails() -> None:
        raise OSError("No space left on device")

    later = WinTablesLater(fails)
    game = Game.new(
        SMALL, [Player("You"), Player("Computer (win)", "bot", "win")], seed=3, info={"mode": "vs-computer"}
    )
    s = Session(game, tmp_path / "g.json", GameTables(folder, progress=False), data=tmp_path)
    s.play_win_later(later)
    assert later.wait(5) and later.error == "No space left on device"
    s.start()
    s.roll()
    events = s.score(s.game.card.open_boxes[0])
    [warned] = [e for e in events if isinstance(e, ev.Warned)]
    assert "could not be made (No space left on device)" in warned.text and "to the end" in warned.text
    assert type(s.bot(1)) is TableBot and s.game.info.win_from == s.game.rules.n_turns

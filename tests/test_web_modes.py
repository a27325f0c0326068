"""The web's game modes through the service (the API's functions): hot-seat, real dice, undo, the
Joker rule's one line, chances to win after each turn, boxes named for people -- each checked
against the game model (:class:`solver.play.game.Game`) or the saved file, as the terminal plays it."""

from __future__ import annotations

import json

import pytest
from webserver import Client, need_web, serve

need_web()

from solver.core.card import box_label  # noqa: E402
from solver.core.rules import get_rules  # noqa: E402
from solver.web.app import create_app  # noqa: E402
from solver.web.service import ApiError, Service  # noqa: E402

SMALL = "yatzy+lower-only"


@pytest.fixture
def service(tables_dir, tmp_path):
    tables_dir.table("yahtzee")
    return Service(str(tables_dir), tmp_path / "data", progress=False)


def refused(call, *args) -> ApiError:
    with pytest.raises(ApiError) as info:
        call(*args)
    assert 400 <= info.value.status < 500 and "\n" not in info.value.message
    return info.value


def test_hot_seat_plays_each_player_in_turn_and_names_them(service):
    from solver.play.game import Game

    state = service.new_game({"mode": "hot-seat", "players": ["Ann", " Ben "], "seed": 11})
    assert [p["name"] for p in state["players"]] == ["Ann", "Ben"] and state["mode"] == "hot-seat"
    want = Game.new("yahtzee", ["Ann", "Ben"], seed=11)
    game_id = state["id"]
    for turn in range(4):  # two rounds: each player rolls its own seeded dice
        assert state["player"] == ["Ann", "Ben"][turn % 2] and not state["can_undo"]
        state = service.act(game_id, "roll", {})
        want.roll()
        assert state["dice"] == list(want.dice)
        box = max((b for b in state["boxes"] if b["allowed"]), key=lambda b: b["preview"])
        state = service.act(game_id, "score", {"box": box["name"]})
        scored = want.score(box["name"])
        assert f"{['Ann', 'Ben'][turn % 2]} scores {scored.score} in {box['label']}:" in state["events"][0]
    assert [p["total"] for p in state["players"]] == [c.total for c in want.cards]
    assert refused(service.act, game_id, "undo", {}).message.startswith("undo is for solo games")
    saved = json.loads(service.game(game_id).path.read_text())
    assert saved["mode"] == "hot-seat" and [p["name"] for p in saved["players"]] == ["Ann", "Ben"]


@pytest.mark.parametrize(
    "params, words",
    [
        ({"mode": "hot-seat"}, "needs players"),
        ({"mode": "hot-seat", "players": "Ann,\x1bBen"}, "control characters"),
        ({"mode": "hot-seat", "players": ",".join("ABCDEFGHI")}, "at most 8"),
        ({"mode": "hot-seat", "players": "x" * 41}, "longer than 40"),
        ({"mode": "hot-seat", "players": "Ann,Ann"}, "same name"),
        ({"mode": "hot-seat", "players": "computer:hard"}, "at least one person"),
        ({"mode": "hot-seat", "players": "Ann,computer:godlike"}, "level is one of"),
        ({"mode": "hot-seat", "players": {"a": 1}}, "players are names"),
        ({"mode": "solo", "players": "Ann"}, "hot-seat only"),
        ({"mode": "real-dice", "seed": 3}, "takes no seed"),
        ({"mode": "solo", "coach": "yes"}, "coach must be true or false"),
        ({"mode": "party"}, "is not one of"),
    ],
)
def test_bad_setups_are_refused_naming_the_value(service, params, words):
    assert words in refused(service.new_game, params).message


def test_hot_seat_with_a_computer_plays_its_turn(service):
    state = service.new_game({"mode": "hot-seat", "players": "Ann,computer:hard", "seed": 2})
    assert [p["kind"] for p in state["players"]] == ["human", "bot"]
    state = service.act(state["id"], "roll", {})
    state = service.act(state["id"], "score", {"box": "chance"})
    assert state["player"] == "Ann" and state["round"] == 2
    assert any(e.startswith("Computer (hard) scores") for e in state["events"])


def test_real_dice_are_typed_in_and_coached(service):
    state = service.new_game({"mode": "real-dice", "coach": True})
    assert state["real_dice"] and state["dice_to_roll"] == 5 and state["coach_on"]
    game_id = state["id"]
    assert "say what you rolled" in refused(service.act, game_id, "roll", {}).message
    assert "faces 1 to 6" in refused(service.act, game_id, "roll", {"dice": "22345"}).message
    assert "1 to 6" in refused(service.act, game_id, "roll", {"dice": [2, 2, 3, 4, 7]}).message
    state = service.act(game_id, "roll", {"dice": [2, 2, 3, 4, 5]})
    assert state["dice"] == [2, 2, 3, 4, 5] and state["rolls_left"] == 2
    state = service.act(game_id, "hold", {"held": [3, 4, 5]})
    assert state["dice_to_roll"] == 2
    state = service.act(game_id, "roll", {"dice": [6, 2]})
    assert sorted(state["dice"]) == [2, 3, 4, 5, 6] and state["held"] == [False, False, True, True, True]
    [judged] = state["coach"]  # the keep 3 4 5 judged against the best keep of 2 2 3 4 5
    assert judged["choice"] == "keep 3 4 5" and judged["loss"] >= 0
    state = service.act(game_id, "score", {"box": "large_straight"})
    assert state["players"][0]["scores"][10] == 40
    assert [c["choice"] for c in state["coach"]] == ["stop: Large straight (40)", "Large straight (40)"]
    saved = json.loads(service.game(game_id).path.read_text())
    assert saved["dice"] == "real" and saved["mode"] == "solo"


def test_undo_takes_back_the_last_box_and_marks_the_game(service):
    state = service.new_game({"mode": "solo", "seed": 4})
    game_id = state["id"]
    assert "no box is filled yet" in refused(service.act, game_id, "undo", {}).message
    state = service.act(game_id, "roll", {})
    dice = state["dice"]
    state = service.act(game_id, "score", {"box": "chance"})
    assert state["can_undo"] and state["players"][0]["total"] == sum(dice)
    state = service.act(game_id, "undo", {})
    assert state["round"] == 1 and state["dice"] == dice and state["players"][0]["total"] == 0
    assert state["events"][-1] == f"undone: {sum(dice)} in Chance; back to turn 1"
    assert any("undo used" in e for e in state["events"])
    assert not state["can_undo"]
    saved = json.loads(service.game(game_id).path.read_text())
    assert saved["assisted"] == ["undo"] and "box" not in saved["turns"][-1]
    state = service.act(game_id, "score", {"box": "ones"})  # the same dice, another box
    assert state["players"][0]["scores"][0] == dice.count(1)
    daily = service.new_game({"mode": "daily", "date": "2026-05-04"})
    service.act(daily["id"], "roll", {})
    service.act(daily["id"], "score", {"box": "chance"})
    assert "solo games" in refused(service.act, daily["id"], "undo", {}).message


def test_the_joker_rule_is_one_line_that_says_why(service):
    state = service.new_game({"mode": "real-dice"})
    game_id = state["id"]
    state = service.act(game_id, "roll", {"dice": [2, 2, 2, 2, 2]})
    assert state["placement_note"] is None  # every open box takes it
    state = service.act(game_id, "score", {"box": "yahtzee"})
    state = service.act(game_id, "roll", {"dice": [2, 2, 2, 2, 2]})
    note = state["placement_note"]
    assert note.startswith("Joker rule") and "Twos" in note and "\n" not in note
    allowed = [b["name"] for b in state["boxes"] if b["allowed"]]
    assert allowed == ["twos"]
    twos = next(b for b in state["boxes"] if b["name"] == "twos")
    assert (twos["preview"], twos["bonus"]) == (10, 100)


def test_boxes_are_named_for_people():
    assert box_label("large_straight") == "Large straight"
    assert box_label("fours@3") == "Fours (column 3)"
    assert box_label("chance") == "Chance"


def test_chances_to_win_after_each_turn_add_up(tmp_path):
    """With the rule set's target table built, a game of two shows each player's chance to win
    after every turn, adding up to 1 -- the same figures as the win advisor's (the terminal's)."""
    from solver.advice.advisor import Advisor
    from solver.advice.win import WinAdvisor
    from solver.engine.tables import build_table
    from solver.engine.target import build_target, load_target

    folder = tmp_path / "tables"
    build_table(SMALL, folder, progress=False)
    build_target(SMALL, folder, t_max=200, progress=False)
    service = Service(str(folder), tmp_path / "data", progress=False)
    state = service.new_game({"mode": "vs-computer", "level": "win", "rules": SMALL, "seed": 8})
    later = service.tables.win_later(get_rules(SMALL))  # the win tables, read in the background
    assert later is None or later.wait(60)
    state = service.game_state(state["id"])
    win = WinAdvisor(Advisor.load(SMALL, folder), load_target(SMALL, folder))
    assert state["chances"] == pytest.approx(win.chances(list(service.game(state["id"]).game.cards)))
    for _ in range(3):
        state = service.act(state["id"], "roll", {})
        box = next(b["name"] for b in state["boxes"] if b["allowed"])
        state = service.act(state["id"], "score", {"box": box})
        cards = service.game(state["id"]).game.cards
        assert sum(state["chances"]) == pytest.approx(1.0)
        assert state["chances"] == pytest.approx(win.chances(list(cards)))
    solo = service.new_game({"mode": "solo", "rules": SMALL, "seed": 8})
    assert solo["chances"] is None  # one player: nothing to win against


def test_a_win_game_starts_while_its_tables_are_read(tmp_path, monkeypatch):
    """The first ``win`` game of a rule set does not wait for its tables (a second or more for a
    big card): it starts at once, its computer playing for expected score and the page told so;
    at the computer's first turn after they are read it plays to win, said in the events.  Games
    started meanwhile share the one reading."""
    import threading

    from solver.engine.tables import build_table
    from solver.engine.target import build_target

    folder = tmp_path / "tables"
    build_table(SMALL, folder, progress=False)
    build_target(SMALL, folder, t_max=200, progress=False)
    service = Service(str(folder), tmp_path / "data", progress=False)
    release, reads = threading.Event(), []
    read = Service._win_tables

    def slow(self, rules):
        reads.append(rules.id)
        assert release.wait(60)
        return read(self, rules)

    monkeypatch.setattr(Service, "_win_tables", slow)
    body = {"mode": "vs-computer", "level": "win", "rules": SMALL, "seed": 8}
    state = service.new_game(body)
    other = service.new_game(body)
    assert state["win_pending"] and other["win_pending"] and state["chances"] is None
    assert any(
        "plays for the best expected score until its win table is loaded" in line for line in state["events"]
    )
    assert "win_pending" in [m["kind"] for m in state["moves"]]
    state = service.act(state["id"], "roll", {})
    state = service.act(
        state["id"], "score", {"box": next(b["name"] for b in state["boxes"] if b["allowed"])}
    )
    assert state["win_pending"] and not [m for m in state["moves"] if m["kind"] == "plays_to_win"]
    release.set()
    later = service.tables.win_later(get_rules(SMALL))
    assert later is None or later.wait(60)
    assert reads == [SMALL]  # one reading for both games
    state = service.act(state["id"], "roll", {})
    state = service.act(
        state["id"], "score", {"box": next(b["name"] for b in state["boxes"] if b["allowed"])}
    )
    [switched] = [m for m in state["moves"] if m["kind"] == "plays_to_win"]
    assert switched == {"kind": "plays_to_win", "player": 1, "name": "Computer (win)", "turns": 1}
    assert any("now plays to win (its first 1 turn played" in line for line in state["events"])
    assert not state["win_pending"] and sum(state["chances"]) == pytest.approx(1.0)
    third = service.new_game(body)  # the tables read: a new game plays to win from its first turn
    assert not third["win_pending"] and "win_pending" not in [m["kind"] for m in third["moves"]]


def test_the_modes_over_http(service):
    with serve(create_app(service=service)) as base:
        client = Client(base)
        r = client.post("/api/games", json={"mode": "hot-seat", "players": "Ann,B\x07en"})
        assert r.status_code == 400 and list(r.json()) == ["error"]
        state = client.post("/api/games", json={"mode": "real-dice"}).json()
        r = client.post(f"/api/games/{state['id']}/roll", json={"dice": [1, 2, 3, 4, 5, 6, 1]})
        assert r.status_code == 400 and "dice" in r.json()["error"]
        r = client.post(f"/api/games/{state['id']}/roll", json={"dice": [1, 2, 3, 4, 5], "version": 0})
        assert r.status_code == 200 and r.json()["dice"] == [1, 2, 3, 4, 5]

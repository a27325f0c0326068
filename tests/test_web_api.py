"""The web app's JSON API (``yahtzee serve``): the CLI's answers, bad input, games saved as the CLI saves them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from webserver import Client, cli_json, need_web, raw_get, serve

need_web()

from solver.cli.entry import main  # noqa: E402
from solver.core.card import box_label  # noqa: E402
from solver.web.app import create_app  # noqa: E402
from solver.web.service import MAX_BODY, Service  # noqa: E402


def saved_files(data) -> list:
    return sorted(data.rglob("*")) if data.exists() else []


@pytest.mark.parametrize(
    "dice, rolls, card",
    [("33456", 2, "ones=3,fours=12"), ("44444", 0, "fours=12,yahtzee=0"), ("12356", 1, ""), ("66655", 0, "")],
)
def test_hint_is_the_cli_json(client, tables, capsys, dice, rolls, card):
    want = cli_json(
        capsys,
        "hint",
        "--dice",
        dice,
        "--rolls-left",
        str(rolls),
        "--card",
        card,
        "--json",
        "--tables",
        tables,
    )
    got = client.get("/api/hint", params={"dice": dice, "rolls_left": rolls, "card": card})
    assert got.status_code == 200
    assert got.json() == want
    posted = client.post(
        "/api/hint", json={"dice": [int(c) for c in dice], "rolls_left": rolls, "card": card}
    )
    assert posted.json() == want


def test_value_is_the_cli_json(client, tables, capsys):
    want = cli_json(capsys, "value", "--card", "ones=3,fours=12", "--json", "--tables", tables)
    assert client.get("/api/value", params={"card": "ones=3,fours=12"}).json() == want
    assert client.post("/api/value", json={"card": "ones=3,fours=12", "rules": "yahtzee"}).json() == want
    assert client.post("/api/value", json={}).json()["card"] == ""


def test_rules(client):
    listing = client.get("/api/rules").json()
    assert "yatzy" in listing["bases"] and "yatzy-forced" in listing["named"]
    card = client.get("/api/rules", params={"rules": "yatzy"}).json()
    assert card["id"] == "yatzy"
    details = {b["name"]: b for b in card["box_details"]}
    assert details["ones"]["scores"] == [0, 1, 2, 3, 4, 5] and details["ones"]["upper"]
    assert not details["chance"]["upper"]


def test_rules_for_the_picker(client, capsys):
    """What the advisor's rule-set picker shows: every base and modifier with its line of help
    (the CLI's ``rules --json``), which modifiers take a value, the card a spec gives with its
    rules in words (``yahtzee rules SPEC``'s lines), and what of a card another rule set keeps."""
    from solver.core.rules import get_rules

    listing = client.get("/api/rules").json()
    want = cli_json(capsys, "rules", "--json")
    assert listing["bases"] == want["bases"] and listing["modifiers"] == want["modifiers"]
    details = {m["name"]: m for m in listing["modifier_details"]}
    assert [m["syntax"] for m in listing["modifier_details"]] == list(want["modifiers"])
    assert not details["all-rolls"]["takes_value"] and details["extra-bonus"]["takes_value"]
    assert details["order"]["help"] == want["modifiers"]["order=down|up|choose"]

    card = client.get("/api/rules", params={"rules": "yatzy+all-rolls"}).json()
    assert card["id"] == "yatzy+all-rolls" and card["all_rolls"]
    text = get_rules("yatzy+all-rolls").card_text()
    assert text.endswith("\n\n" + "\n".join(card["rule_lines"]))  # the lines after the boxes
    assert "rolls: all three every turn" in card["rule_lines"] and "fit" not in card
    yahtzee = client.get("/api/rules", params={"rules": "yahtzee"}).json()
    joker = {b["name"]: b.get("joker") for b in yahtzee["box_details"]}
    assert joker["large_straight"] == 40 and joker["chance"] is None
    assert "joker" not in card["box_details"][0]

    # a yahtzee card under yatzy: what fits stays, each entry left out is named with its reason
    old = "ones=3,fours=12,full_house=25,yahtzee=50,yahtzee_bonus=100"
    fit = client.get("/api/rules", params={"rules": "yatzy", "card": old}).json()["fit"]
    assert fit["card"] == "ones=3,fours=12"
    gone = {d["box"]: d for d in fit["left_out"]}
    assert list(gone) == ["full_house", "yahtzee", "yahtzee_bonus"]
    assert gone["full_house"]["score"] == "25" and "can never hold" in gone["full_house"]["reason"]
    assert "unknown box 'yahtzee'" in gone["yahtzee"]["reason"]
    assert "no Yahtzee bonus" in gone["yahtzee_bonus"]["reason"]
    # the fill order of the new rule set: the boxes past the first gap go
    fit = client.get("/api/rules", params={"rules": "yahtzee+order=down", "card": "ones=3,twos=6,fours=12"})
    assert fit.json()["fit"]["card"] == "ones=3,twos=6"
    assert [d["entry"] for d in fit.json()["fit"]["left_out"]] == ["fours=12"]
    # a card that fits is kept whole; a card too long to read is a 400
    same = client.get("/api/rules", params={"rules": "yahtzee", "card": old}).json()["fit"]
    assert same == {"card": old, "left_out": []}
    long = ",".join(["ones=3"] * 200)
    r = client.get("/api/rules", params={"rules": "yahtzee", "card": long})
    assert r.status_code == 400 and "at most 128 entries" in r.json()["error"]


BAD = [
    ("malformed JSON", "/api/hint", b'{"dice": "33456",', 400, "not valid JSON"),
    ("not an object", "/api/hint", b"[1, 2]", 400, "JSON object"),
    ("die of 7", "/api/hint", b'{"dice": "33457", "rolls_left": 2}', 400, "'7' is not a face"),
    ("die of 7 in a list", "/api/hint", b'{"dice": [3, 3, 4, 5, 7], "rolls_left": 2}', 400, "7"),
    ("four dice", "/api/hint", b'{"dice": "3345", "rolls_left": 2}', 400, "exactly 5 dice"),
    ("impossible card", "/api/hint", b'{"dice": "33456", "rolls_left": 2, "card": "ones=7"}', 400, "ones=7"),
    ("unknown rules", "/api/hint", b'{"dice": "33456", "rolls_left": 2, "rules": "poker"}', 400, "poker"),
    ("rules not text", "/api/value", b'{"rules": 3}', 400, "rules must be text"),
    ("rolls left 3", "/api/hint", b'{"dice": "33456", "rolls_left": 3}', 400, "rolls_left"),
    ("rolls left true", "/api/hint", b'{"dice": "33456", "rolls_left": true}', 400, "rolls_left"),
    ("missing dice", "/api/hint", b'{"rolls_left": 2}', 400, "missing field 'dice'"),
    ("unknown field", "/api/hint", b'{"dice": "33456", "rolls_left": 2, "cards": ""}', 400, "unknown field"),
    ("card not text", "/api/value", b'{"card": {"ones": 3}}', 400, "card must be text"),
    ("bonus without yahtzee", "/api/value", b'{"card": "yahtzee_bonus=100"}', 400, "yahtzee_bonus"),
    ("full card", "/api/hint", None, 400, "full"),
    ("not UTF-8", "/api/hint", b'{"dice": "\xff"}', 400, "UTF-8"),
    ("deep nesting", "/api/hint", b"[" * 5000 + b"]" * 5000, 400, "nested"),
    ("huge body", "/api/hint", b'{"dice": "' + b"1" * (MAX_BODY + 10) + b'"}', 413, "larger than"),
    ("unknown endpoint", "/api/tips", b"{}", 404, "no API endpoint"),
    ("game mode", "/api/games", b'{"mode": "tournament"}', 400, "mode"),
    ("game level", "/api/games", b'{"mode": "vs-computer", "level": "godlike"}', 400, "level"),
    ("level for solo", "/api/games", b'{"mode": "solo", "level": "easy"}', 400, "vs-computer only"),
    (
        "level win, no target table",
        "/api/games",
        b'{"mode": "vs-computer", "level": "win"}',
        400,
        "target table",
    ),
    ("negative seed", "/api/games", b'{"seed": -1}', 400, "seed"),
    ("seed as text", "/api/games", b'{"seed": "12"}', 400, "seed"),
    ("daily date", "/api/games", b'{"mode": "daily", "date": "yesterday"}', 400, "ISO date"),
    ("game rules", "/api/games", b'{"rules": "yatzy+nonsense"}', 400, "nonsense"),
    ("no such game", "/api/games/nope/roll", b"{}", 404, "no game"),
    (
        "target not a number",
        "/api/hint",
        b'{"dice": "33456", "rolls_left": 2, "target": "high"}',
        400,
        "target",
    ),
    ("target zero", "/api/hint", b'{"dice": "33456", "rolls_left": 2, "target": 0}', 400, "target must be"),
    ("target true", "/api/hint", b'{"dice": "33456", "rolls_left": 2, "target": true}', 400, "target"),
    ("distribution dice alone", "/api/distribution", b'{"dice": "33456"}', 400, "go together"),
    ("distribution rolls alone", "/api/distribution", b'{"rolls_left": 1}', 400, "go together"),
    ("distribution die of 7", "/api/distribution", b'{"dice": "33457", "rolls_left": 1}', 400, "'7'"),
    ("distribution card", "/api/distribution", b'{"card": "ones=7"}', 400, "ones=7"),
    ("distribution rules", "/api/distribution", b'{"rules": "poker"}', 400, "poker"),
    ("distribution at_least", "/api/distribution", b'{"at_least": ["x"]}', 400, "at_least"),
    ("distribution at_least 0", "/api/distribution", b'{"at_least": [0]}', 400, "at_least"),
    ("distribution at_least {}", "/api/distribution", b'{"at_least": {}}', 400, "at_least"),
    ("distribution policy", "/api/distribution", b'{"policy": "greedy"}', 400, "unknown policy"),
    ("distribution field", "/api/distribution", b'{"target": 300}', 400, "unknown field"),
    ("distribution triple", "/api/distribution", b'{"rules": "yahtzee+triple"}', 400, "triple"),
    # numbers are bounded before they are converted: a 5,000-digit JSON integer is a 400 naming it
    ("huge rolls_left", "/api/hint", b'{"dice": "33456", "rolls_left": ' + b"9" * 5000 + b"}", 400, "digits"),
    (
        "huge target",
        "/api/hint",
        b'{"dice": "33456", "rolls_left": 2, "target": 1' + b"0" * 4400 + b"}",
        400,
        "digits",
    ),
    ("huge seed", "/api/games", b'{"seed": ' + b"7" * 4301 + b"}", 400, "digits"),
    ("big seed", "/api/games", b'{"seed": 18446744073709551617}', 400, "seed"),
    ("seed 2.0", "/api/games", b'{"seed": 2.0}', 400, "seed"),
    ("huge at_least", "/api/distribution", b'{"at_least": [' + b"1" * 5000 + b"]}", 400, "digits"),
    (
        "rolls_left text",
        "/api/hint",
        b'{"dice": "33456", "rolls_left": "' + b"1" * 5000 + b'"}',
        400,
        "rolls_left",
    ),
    ("NaN", "/api/hint", b'{"dice": "33456", "rolls_left": NaN}', 400, "NaN"),
    ("level a list", "/api/games", b'{"mode": "vs-computer", "level": ["hard"]}', 400, "level must be text"),
    ("mode a list", "/api/games", b'{"mode": ["solo"]}', 400, "mode must be text"),
    ("future daily", "/api/games", b'{"mode": "daily", "date": "2999-01-01"}', 400, "not out yet"),
    (
        "distribution huge target",
        "/api/distribution",
        b'{"policy": "target:' + b"9" * 5000 + b'"}',
        400,
        "target",
    ),
]


@pytest.mark.parametrize("what, path, body, status, words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_one_line_4xx(client, data, what, path, body, status, words):
    if body is None:  # a full card: every box filled
        full = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,three_of_a_kind=0,four_of_a_kind=0,"
        full += "full_house=0,small_straight=0,large_straight=0,yahtzee=0,chance=5"
        body = json.dumps({"dice": "33456", "rolls_left": 0, "card": full}).encode()
    response = client.post(path, content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert "\n" not in response.text.strip()
    answer = response.json()
    assert list(answer) == ["error"]
    assert words in answer["error"]
    assert "Traceback" not in answer["error"]
    assert saved_files(data) == []


def test_bad_query_string(client):
    r = client.get("/api/hint", params={"dice": "33456", "rolls_left": "two"})
    assert r.status_code == 400 and "rolls_left" in r.json()["error"]
    r = client.get("/api/hint", params={"dice": "3345x", "rolls_left": "2"})
    assert r.status_code == 400 and "3345x" in r.json()["error"]


def test_wrong_method(client):
    r = client.delete("/api/hint")
    assert r.status_code == 405 and list(r.json()) == ["error"]


def test_pages_and_static_files(client):
    assert "Advisor" in client.get("/").text
    assert "Play" in client.get("/play").text
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/nope.js").status_code == 404


def play_solo(client, game_id, hold_first=True) -> dict:
    """Roll, hold die 1 and roll again on even turns, score the first allowed box: 13 turns."""
    state = None
    for turn in range(13):
        state = client.post(f"/api/games/{game_id}/roll", json={}).json()
        if turn % 2 == 0 and hold_first:
            state = client.post(f"/api/games/{game_id}/hold", json={"held": [1]}).json()
            assert state["held"] == [True, False, False, False, False]
            state = client.post(f"/api/games/{game_id}/roll", json={}).json()
            assert state["rolls_left"] == 1
        box = next(b["name"] for b in state["boxes"] if b["allowed"])
        response = client.post(f"/api/games/{game_id}/score", json={"box": box})
        assert response.status_code == 200, response.text
        state = response.json()
    return state


def test_solo_game_is_saved_reviewable_and_a_record(client, data, tables, capsys):
    from solver.play.records import load_game, solo_best, stored_games

    state = client.post("/api/games", json={"mode": "solo", "seed": 11}).json()
    game_id = state["id"]
    assert state["dice"] is None and state["rolls_left"] == 3 and state["round"] == 1
    assert state["events"] == ["no record yet for yahtzee: set one!"]
    # illegal moves are refused with the reason and change nothing
    for action, body, words in [
        ("score", {"box": "chance"}, "roll first"),
        ("hold", {"held": [1]}, "roll first"),
        ("roll", {"dice": "66666"}, "typed in only in a game on real dice"),
    ]:
        r = client.post(f"/api/games/{game_id}/{action}", json=body)
        assert r.status_code == 400 and words in r.json()["error"]
    assert client.post(f"/api/games/{game_id}/hint", json={}).status_code == 400
    assert client.get(f"/api/games/{game_id}/hint").status_code == 405  # asking marks the game: a POST
    state = client.post(f"/api/games/{game_id}/roll", json={}).json()
    hint = client.post(f"/api/games/{game_id}/hint", json={}).json()
    dice = "".join(map(str, sorted(state["dice"])))
    assert hint == cli_json(capsys, "hint", "--dice", dice, "--rolls-left", "2", "--json", "--tables", tables)
    for body, words in [
        ({"held": [6]}, "out of range"),
        ({"held": [1, 1]}, "twice"),
        ({"held": "12"}, "list"),
    ]:
        r = client.post(f"/api/games/{game_id}/hold", json=body)
        assert r.status_code == 400 and words in r.json()["error"], r.text
    r = client.post(f"/api/games/{game_id}/score", json={"box": "poker"})
    assert r.status_code == 400 and "unknown box" in r.json()["error"]
    assert client.get(f"/api/games/{game_id}").json()["rolls_left"] == 2
    assert saved_files(data) == []  # nothing saved before the first box is filled
    client.post(f"/api/games/{game_id}/quit", json={})  # this one is abandoned ...
    assert client.post(f"/api/games/{game_id}/roll", json={}).status_code == 409

    # its dice were seen: seed 11 again is a replay, as in the terminal (no record from it)
    state = client.post("/api/games", json={"mode": "solo", "seed": 11}).json()
    assert state["events"] == ["you played seed 11 before: this replay does not count for your record"]
    replay = play_solo(client, state["id"])
    assert (
        replay["record"] == f"{replay['players'][0]['total']} points (a replay): not counted for your record"
    )
    assert solo_best("yahtzee", data) is None

    state = client.post("/api/games", json={"mode": "solo", "seed": 12}).json()  # fresh dice
    assert state["events"] == ["no record yet for yahtzee: set one!"]
    final = play_solo(client, state["id"])
    assert final["over"] and final["status"] == "finished"
    total = final["players"][0]["total"]
    assert final["record"] == f"first record for yahtzee: {total}"
    assert final["review"][0]["n_decisions"] >= 13 and final["review"][0]["score"] == total
    game = load_game(final["path"])
    assert game.is_over and game.cards[0].total == total and game.info.seed == 12
    assert solo_best("yahtzee", data)["score"] == total
    kept = [g for g in stored_games(data) if g["path"] == final["path"]]
    assert kept and kept[0]["status"] == "finished" and kept[0]["mode"] == "solo"
    capsys.readouterr()
    assert main(["review", final["path"], "--tables", tables]) == 0
    assert f"You: {total} points" in capsys.readouterr().out


def test_vs_computer_and_coach(client, data):
    state = client.post("/api/games", json={"mode": "vs-computer", "level": "hard", "seed": 5}).json()
    assert [p["name"] for p in state["players"]] == ["You", "Computer (hard)"]
    game_id = state["id"]
    state = client.post(f"/api/games/{game_id}/roll", json={}).json()
    best = client.post(f"/api/games/{game_id}/hint", json={}).json()["options"][0]
    state = client.post(f"/api/games/{game_id}/coach", json={"on": True}).json()
    assert state["coach"] == []
    box = next(b["name"] for b in state["boxes"] if b["allowed"])
    state = client.post(f"/api/games/{game_id}/score", json={"box": box}).json()
    assert state["round"] == 2 and state["current"] == 0  # the computer played its turn
    filled = [sum(s is not None for s in p["scores"]) for p in state["players"]]
    assert filled == [1, 1]
    assert any(e.startswith("Computer (hard) scores") for e in state["events"])
    assert state["coach"][-1]["choice"].startswith(box_label(box))  # named for people: "Ones (1)"
    assert state["coach"][0]["choice"].startswith("stop: ")  # the box stopping implies, named
    assert (state["coach"][0]["loss"] > 0) == (len(best["keep"]) < 5)
    assert state["record"] is None


def test_daily_game_share_text(client, data):
    from solver.play.records import load_records

    state = client.post("/api/games", json={"mode": "daily", "date": "2026-03-01"}).json()
    assert state["date"] == "2026-03-01"
    final = play_solo(client, state["id"], hold_first=False)
    line = final["share"].splitlines()[0]  # the one line to paste in a chat, then the card
    total, optimal = final["players"][0]["total"], final["optimal"]
    assert line == f"Yahtzee daily 2026-03-01: You {total}, optimal player {optimal} ({total - optimal:+d})"
    assert final["optimal"] > 0
    assert "2026-03-01 yahtzee" in load_records(data)["daily"]
    assert final["moves"][-1]["kind"] == "game_over" and final["moves"][-1]["optimal"] == optimal


def test_daily_share_text_says_a_game_was_assisted(client, data):
    """The web's share text carries the notes the terminal's does (one session makes both)."""
    state = client.post("/api/games", json={"mode": "daily", "date": "2026-03-03", "coach": True}).json()
    final = play_solo(client, state["id"], hold_first=False)
    total = final["players"][0]["total"]
    assert (
        final["share"]
        .splitlines()[0]
        .startswith(f"Yahtzee daily 2026-03-03: You {total} (assisted: coach), ")
    )


def test_hint_and_coach_mark_the_game_assisted(client, data):
    """As in the terminal: a hint or the coach costs the game the record, and the end says why;
    with the coach off the moves are not judged."""
    from solver.play.records import solo_best

    for seed, action, body in ((21, "hint", {}), (22, "coach", {"on": True})):
        game_id = client.post("/api/games", json={"seed": seed}).json()["id"]
        state = client.post(f"/api/games/{game_id}/roll", json={}).json()
        assert state["coach"] == []  # the coach is off: nothing judged
        client.post(f"/api/games/{game_id}/{action}", json=body)
        state = client.get(f"/api/games/{game_id}").json()
        assert state["events"] == [
            f"({action} used: this game is marked assisted and does not count for your record)"
        ]
        final = play_solo(client, game_id, hold_first=False)
        assert (
            final["record"]
            == f"{final['players'][0]['total']} points (assisted: {action}): not counted for your record"
        )
        assert solo_best("yahtzee", data) is None
    r = client.post(f"/api/games/{game_id}/coach", json={"on": "yes"})
    assert r.status_code == 409  # over


def test_daily_never_sets_the_record_and_counts_once(client, data):
    """The session rules of the terminal: a daily never sets the solo record, its first game of
    the day is the day's result (stored once, with the optimum), a second is a replay."""
    from solver.play.records import daily_played, solo_best, stored_games

    first = play_solo(
        client, client.post("/api/games", json={"mode": "daily", "date": "2026-03-02"}).json()["id"]
    )
    assert first["record"] is None and solo_best("yahtzee", data) is None
    kept = daily_played("2026-03-02", "yahtzee", data)
    assert kept["score"] == first["players"][0]["total"] and kept["optimal"] == first["optimal"]
    assert len([g for g in stored_games(data) if g["path"] == first["path"]]) == 1
    state = client.post("/api/games", json={"mode": "daily", "date": "2026-03-02"}).json()
    assert state["events"] == [
        f"you played the daily challenge of 2026-03-02 already ({kept['score']} points): "
        "this replay is not kept as the day's result"
    ]
    again = play_solo(client, state["id"], hold_first=False)
    assert again["record"] is None and solo_best("yahtzee", data) is None
    assert daily_played("2026-03-02", "yahtzee", data) == kept


def test_joker_rule_reason_shown(tables, data):
    """A Yahtzee with yahtzee=50 and its upper box open: the other boxes are refused, with the reason."""
    from solver.play.game import Game
    from solver.play.session import Session

    service = Service(tables, data, progress=False)
    game = Game.new("yahtzee", ["You"], seed=1)
    game.cards[0] = game.cards[0].parse("yahtzee=50", "yahtzee")
    game.roll([4, 4, 4, 4, 4])
    session = Session(game, data / "x.json", service.tables)
    boxes = {b["name"]: b for b in service.state("x", session)["boxes"]}
    assert boxes["fours"]["allowed"] and boxes["fours"]["preview"] == 20
    assert boxes["fours"]["bonus"] == 100  # the page shows (20+100): what scoring adds
    assert not boxes["chance"]["allowed"] and "Joker" in boxes["chance"]["reason"]
    # the reasons name boxes for people (Fours, Three of a kind), never by their internal names
    reasons = [b["reason"] for b in boxes.values() if b["reason"]]
    assert reasons and not any("_" in r or "fours" in r for r in reasons), reasons


def test_real_server_never_serves_outside_static(tables, data):
    app = create_app(service=Service(tables, data, progress=False))
    with serve(app) as base:
        assert raw_get(base, "/static/style.css")[0] == 200
        for path in (
            "/static/../app.py",
            "/static/../../solver/web/app.py",
            "/static/%2e%2e/app.py",
            "/static/%2E%2E%2Fservice.py",
            "/static/..%2f..%2fcli.py",
            "/static//etc/passwd",
            "/static/../../../../../../etc/passwd",
            "/../../../../etc/passwd",
        ):
            status, body = raw_get(base, path)
            assert status == 404, (path, status)
            assert b"import" not in body and b"root:" not in body
        status, body = raw_get(base, "/api/rules", host="attacker.example")  # DNS rebinding
        assert status == 400


def test_serve_without_the_web_extra(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["serve"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and 'pip install -e ".[web]"' in err and "Traceback" not in err


def test_serve_bad_port_and_busy_port(tables, capsys):
    import socket

    assert main(["serve", "--port", "70000", "--tables", tables]) == 2
    assert "--port" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--tables", tables]) == 1
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1 port {port}" in err and err.count("\n") == 1


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10**6) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
FIELD_VALUES = {
    "dice": st.sampled_from(["33456", "66666", [1, 2, 3, 4, 5]]) | JSON_VALUES,
    "rolls_left": st.sampled_from([0, 1, 2, "2"]) | JSON_VALUES,
    "card": st.sampled_from(["", "ones=3", "yahtzee=50,yahtzee_bonus=100,ones=1"]) | JSON_VALUES,
    "rules": st.sampled_from(["yahtzee", "nope", None]) | JSON_VALUES,
    "target": st.sampled_from([None, 150, "150", 0, 10**9]) | JSON_VALUES,
}


@settings(max_examples=150, deadline=None)
@given(st.fixed_dictionaries({}, optional=FIELD_VALUES))
def test_any_hint_request_is_answered_or_refused_with_a_4xx(tables, params):
    """Whatever the fields hold, /api/hint answers (the CLI's JSON) or refuses with a 4xx: never a crash."""
    from solver.web.service import ApiError

    service = _fuzz_service(tables)
    try:
        answer = service.hint(params)
    except ApiError as exc:
        assert 400 <= exc.status < 500 and exc.message and "\n" not in exc.message
    else:
        assert answer["options"] and answer["rules"] == "yahtzee"


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["roll", "hold", "score", "quit", "jump"]), JSON_VALUES)
def test_any_game_move_is_made_or_refused_with_a_4xx(tables, action, value):
    from solver.web.service import ApiError

    service = _fuzz_service(tables)
    game = service.new_game({"seed": 3})["id"]
    service.act(game, "roll", {})
    key = {"hold": "held", "score": "box"}.get(action, "x")
    for params in ({key: value}, value):
        try:
            service.act(game, action, params)
        except ApiError as exc:
            assert 400 <= exc.status < 500 and "\n" not in exc.message


_SERVICES: dict = {}


def _fuzz_service(tables) -> Service:
    """One service for the fuzz tests, with a data folder of its own."""
    import tempfile

    if tables not in _SERVICES:
        _SERVICES[tables] = Service(tables, tempfile.mkdtemp(prefix="yz-web-fuzz-"), progress=False)
    return _SERVICES[tables]


@pytest.mark.subprocess
def test_yahtzee_serve_end_to_end(tables, tmp_path):
    """The real command: it prints its address, answers a hint, stops on Ctrl-C with exit 0."""
    import os
    import signal
    import subprocess
    import sys

    env = dict(os.environ, YAHTZEE_DATA=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "serve", "--port", "0", "--tables", tables],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # Ctrl-C is the server's to handle
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("yahtzee web app: http://127.0.0.1:"), line
        base = line.split()[3].rstrip("/")
        answer = Client(base).get("/api/hint", params={"dice": "33456", "rolls_left": 2})
        assert answer.status_code == 200 and answer.json()["options"][0]["best"]
        assert "Advisor" in Client(base).get("/").text
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "yahtzee web app stopped" in err


SMALL = "yatzy+lower-only"


@pytest.mark.subprocess
def test_distribution_is_the_cli_json(client, tables, capsys):
    cases = [
        ({"rules": SMALL, "card": "chance=20"}, ["--card", "chance=20"]),
        (
            {
                "rules": SMALL,
                "card": "chance=20",
                "dice": [6, 6, 6, 5, 5],
                "rolls_left": 1,
                "at_least": [100, 150],
            },
            ["--card", "chance=20", "--dice", "66655", "--rolls-left", "1", "--at-least", "100", "150"],
        ),
    ]
    for body, argv in cases:
        want = cli_json(capsys, "distribution", "--rules", SMALL, *argv, "--json", "--tables", tables)
        got = client.post("/api/distribution", json=body)
        assert got.status_code == 200, got.text
        assert got.json() == want
    query = {"rules": SMALL, "card": "chance=20", "dice": "66655", "rolls_left": "1", "at_least": "100,150"}
    assert client.get("/api/distribution", params=query).json() == want
    assert list(want["p_at_least"]) == ["100", "150"] and want["policy"] == "ev"
    assert abs(sum(want["pmf"].values()) - 1) < 1e-12


@pytest.fixture(scope="module")
def target_site(tmp_path_factory):
    """A server on a tables folder of its own, where the target table is built during the test."""
    folder = tmp_path_factory.mktemp("target-tables")
    service = Service(str(folder), tmp_path_factory.mktemp("target-data"), progress=False)
    with serve(create_app(service=service)) as base:
        yield base, folder


@pytest.mark.subprocess
def test_hint_with_a_target(target_site, capsys):
    from solver.engine.target import build_target

    base, folder = target_site
    client = Client(base)
    body = {"rules": SMALL, "card": "chance=20", "dice": "66655", "rolls_left": 1, "target": 150}
    plain = {k: v for k, v in body.items() if k != "target"}
    # no table at all: a GET (or any request) never builds one; a 409 names the build
    for r in (client.get("/api/hint", params=plain), client.post("/api/hint", json=body)):
        assert r.status_code == 409, r.text
        assert r.json()["build"] == SMALL and "press Build" in r.json()["error"]
    assert not list(folder.iterdir())
    # the explicit build: a same-origin POST, run as a bounded job; a second is a no-op
    r = client.post("/api/tables", json={"rules": SMALL})
    assert r.status_code == 200 and r.json() == {"rules": SMALL, "built": True, "ready": True}, r.text
    assert client.post("/api/tables", json={"rules": SMALL}).json()["built"] is False
    r = client.post("/api/tables", json={"rules": SMALL}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    # no target table: a 409 saying how to build it, and nothing built inside the request
    r = client.post("/api/hint", json=body)
    assert r.status_code == 409, r.text
    assert list(r.json()) == ["error"] and "\n" not in r.text.strip()
    assert f"yahtzee tables build --rules {SMALL} --target" in r.json()["error"]
    assert not list(folder.glob("*target*"))
    assert client.post("/api/hint", json=plain).status_code == 200

    build_target(SMALL, folder, t_max=200, progress=False)
    argv = ["hint", "--rules", SMALL, "--card", "chance=20", "--dice", "66655", "--rolls-left", "1"]
    want = cli_json(capsys, *argv, "--target", "150", "--json", "--tables", str(folder))
    assert want["target"] == 150 and all(0 <= o["p_target"] <= 1 for o in want["options"])
    got = client.post("/api/hint", json=body)
    assert got.status_code == 200, got.text
    assert got.json() == want
    query = {"rules": SMALL, "card": "chance=20", "dice": "66655", "rolls_left": "1", "target": "150"}
    assert client.get("/api/hint", params=query).json() == want
    # beyond the card's reach (20 + 189): 0 for every option, not an error
    r = client.post("/api/hint", json=body | {"target": 400})
    assert r.status_code == 200 and {o["p_target"] for o in r.json()["options"]} == {0.0}, r.text
    # beyond the table's 200 points but within reach (219 from the empty card): capped, as the CLI
    want = cli_json(capsys, "hint", "--rules", SMALL, "--dice", "66655", "--rolls-left", "1",
                    "--target", "210", "--json", "--tables", str(folder))  # fmt: skip
    r = client.post("/api/hint", json=body | {"card": "", "target": 210})
    assert r.status_code == 200 and r.json() == want and want["capped_at"] == 200
    # the distribution under target play: the CLI's
    want = cli_json(capsys, "distribution", "--rules", SMALL, "--card", "chance=20,yatzy=0", "--policy",
                    "target:120", "--json", "--tables", str(folder))  # fmt: skip
    got = client.post(
        "/api/distribution", json={"rules": SMALL, "card": "chance=20,yatzy=0", "policy": "target:120"}
    )
    assert got.status_code == 200, got.text
    assert got.json() == want and want["policy"] == "target:120"


def test_win_games_share_the_tables_of_their_rule_set(tmp_path, monkeypatch):
    """Against the win level, each new game gets its own bot (it holds the game's state) but the
    rule set's target table is read once, not once per game (about 1 GiB for yahtzee)."""
    import solver.engine.target
    from solver.engine.target import build_target

    build_target(SMALL, tmp_path / "tables", t_max=200, progress=False)
    reads = []
    real = solver.engine.target.load_target
    monkeypatch.setattr(solver.engine.target, "load_target", lambda *a, **k: reads.append(a) or real(*a, **k))
    from solver.core.rules import get_rules
    from solver.play.bots import WinBot

    service = Service(str(tmp_path / "tables"), tmp_path / "data", progress=False)
    for seed in (1, 2):  # started while the tables are read in the background (one reading)
        service.new_game({"mode": "vs-computer", "level": "win", "rules": SMALL, "seed": seed})
    later = service.tables.win_later(get_rules(SMALL))
    assert later is None or later.wait(60)
    bots = []
    for seed in (3, 4):  # the tables read: these play to win from their first turn
        game = service.new_game({"mode": "vs-computer", "level": "win", "rules": SMALL, "seed": seed})
        bots.append(service.game(game["id"]).bot(1))
    assert len(reads) == 1
    assert type(bots[0]) is WinBot and bots[0] is not bots[1] and bots[0].table is bots[1].table


def test_the_triple_card_through_the_api(client, data, tables):
    """The triple card is a game like any other: its boxes named BOX@COLUMN, the computer at
    every level its own players, hints with the note that they are best-known, saved to the
    data folder and reviewable."""
    state = client.post(
        "/api/games", json={"mode": "vs-computer", "level": "perfect", "seed": 3, "rules": "triple"}
    ).json()
    assert state["rules"] == "yahtzee+triple" and state["weights"] == [1, 2, 3] and len(state["boxes"]) == 39
    game_id = state["id"]
    state = client.post(f"/api/games/{game_id}/roll", json={}).json()
    hint = client.post(f"/api/games/{game_id}/hint", json={}).json()
    assert hint["options"][0]["best"] and "keep" in hint["options"][0]
    refused = client.post(f"/api/games/{game_id}/score", json={"box": 3})
    assert refused.status_code == 400 and "fours@3" in refused.json()["error"]
    box = next(b for b in state["boxes"] if b["allowed"] and b["column"] == 3)
    state = client.post(f"/api/games/{game_id}/score", json={"box": box["name"]}).json()
    assert state["round"] == 2 and [len(p["columns"]) for p in state["players"]] == [3, 3]
    assert state["players"][0]["columns"][2]["total"] == box["preview"]
    assert any(e.startswith("Computer (perfect) scores") and "(column " in e for e in state["events"])
    got = client.get(
        "/api/hint", params={"rules": "triple", "dice": "33456", "rolls_left": 0, "card": "ones@1=3"}
    ).json()
    assert {o["column"] for o in got["options"]} == {1, 2, 3} and "not proven optimal" in got["note"]
    [saved] = (data / "games").glob("*.json")
    assert json.loads(saved.read_text())["turns"][0]["box"] == box["name"]


def test_a_move_on_an_out_of_date_page_is_refused(client, data):
    """Two tabs on one game: tab A shows the first roll, tab B rolls again; A's click on a box is
    a 409 that changes nothing and carries the game as it is now (the page redraws it)."""
    state = client.post("/api/games", json={"mode": "solo", "seed": 8}).json()
    game_id, v0 = state["id"], state["version"]
    seen = client.post(f"/api/games/{game_id}/roll", json={"version": v0}).json()  # tab A's view
    now = client.post(f"/api/games/{game_id}/roll", json={"version": seen["version"]}).json()  # tab B
    assert now["version"] == seen["version"] + 1 and now["rolls_left"] == 1
    box = next(b["name"] for b in seen["boxes"] if b["allowed"])
    for action, body in (("score", {"box": box}), ("hold", {"held": [1]}), ("roll", {}), ("hint", {})):
        stale = client.post(f"/api/games/{game_id}/{action}", json={**body, "version": seen["version"]})
        assert stale.status_code == 409 and "another tab" in stale.json()["error"], action
        assert stale.json()["state"] == now  # nothing was done
    bad = client.post(f"/api/games/{game_id}/roll", json={"version": "1"})
    assert bad.status_code == 400
    scored = client.post(f"/api/games/{game_id}/score", json={"box": box, "version": now["version"]})
    assert scored.status_code == 200 and scored.json()["round"] == 2

"""The web app's saved games (``/api/saved-games``, resume), review (``/api/review``) and stats
(``/api/stats``): the CLI's answers on the same data folder, games that outlive the server,
bad input refused with a one-line 4xx, GETs that change nothing."""

from __future__ import annotations

import hashlib
import os
from urllib.parse import quote

import pytest
from webserver import Client, cli_json, need_web, serve

need_web()

from solver.cli.entry import main  # noqa: E402
from solver.web.app import create_app  # noqa: E402
from solver.web.service import MAX_UNFINISHED, Service  # noqa: E402


def play(client, game_id: str, turns: int = 99) -> dict:
    """Roll once and score the first allowed box, ``turns`` times (or to the end)."""
    state = client.get(f"/api/games/{game_id}").json()
    for _ in range(turns):
        if state["over"]:
            break
        state = client.post(f"/api/games/{game_id}/roll", json={}).json()
        box = next(b["name"] for b in state["boxes"] if b["allowed"])
        r = client.post(f"/api/games/{game_id}/score", json={"box": box})
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def labelled(report: dict) -> dict:
    """A ``yahtzee review --json`` report with its boxes named for people, as the web names them
    (``small_straight`` -> ``Small straight``)."""
    import re

    from solver.core.card import box_label
    from solver.core.rules import get_rules

    names = set(get_rules(report["rules"]).box_names)

    def words(text: str) -> str:
        return re.sub(r"[a-z][a-z_]*", lambda m: box_label(m[0]) if m[0] in names else m[0], text)

    players = []
    for p in report["players"]:
        decisions = [d | {"choice": words(d["choice"]), "best": words(d["best"])} for d in p["decisions"]]
        players.append(p | {"decisions": decisions, "verdict": words(p["verdict"])})
    return report | {"players": players}


def folder_print(data) -> dict:
    """Every file of the data folder and a hash of its bytes (the database's included)."""
    return {
        str(p.relative_to(data)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(data.rglob("*"))
        if p.is_file()
    }


def one_line_error(r, status: int, words: str) -> None:
    assert r.status_code == status, r.text
    assert "\n" not in r.text.strip() and list(r.json()) == ["error"]
    assert words in r.json()["error"], r.json()["error"]


def test_a_game_goes_on_after_a_server_restart(tables, data, capsys):
    """A game in play in the browser outlives its server: a new server on the same data folder
    lists it (the one ``yahtzee play --resume`` would take) and goes on with it from its file,
    writing the same file; two resumes are one game; finished, it is listed for review."""
    from solver.play.records import load_game, stored_games, unfinished_game

    with serve(create_app(service=Service(tables, data, progress=False))) as base:
        first = Client(base)
        state = first.post("/api/games", json={"mode": "vs-computer", "level": "hard", "seed": 5}).json()
        before = play(first, state["id"], 2)
        assert before["round"] == 3
        assert first.get("/api/saved-games").json()["games"][0]["playing"] is True
    # the restart: the browser's game id is gone; the saved game is listed
    with serve(create_app(service=Service(tables, data, progress=False))) as base:
        c = Client(base)
        r = c.get(f"/api/games/{state['id']}")
        one_line_error(r, 404, "resume it from the saved games")
        listing = c.get("/api/saved-games").json()
        [entry] = listing["games"]
        assert entry["name"] == before["saved"] and str(data / "games" / entry["name"]) == before["path"]
        assert unfinished_game(data)[0] == before["path"]  # what play --resume takes
        assert entry["round"] == 3 and entry["n_rounds"] == 13 and entry["turns_played"] == 4
        assert entry["players"] == ["You", "Computer (hard)"] and entry["mode"] == "vs-computer"
        assert entry["scores"] == [p["total"] for p in before["players"]]
        assert entry["resumable"] and entry["why"] is None and entry["playing"] is False
        assert entry["status"] == "in_progress" and entry["level"] == "hard"

        resumed = c.post(f"/api/saved-games/{entry['name']}/resume", json={}).json()
        assert resumed["id"] != state["id"] and resumed["status"] == "in_progress"
        assert resumed["players"] == before["players"] and resumed["round"] == 3
        # the saved game by its name: never the data folder's path in a player's words
        assert resumed["events"][0] == f"resumed from {before['saved']}: 4 turns played"
        again = c.post(f"/api/saved-games/{entry['name']}/resume", json={}).json()
        assert again["id"] == resumed["id"]  # one game, not two writing one file
        assert c.get("/api/saved-games").json()["games"][0]["playing"] is True

        after = play(c, resumed["id"], 1)
        assert after["round"] == 4 and after["path"] == before["path"]
        game = load_game(before["path"])
        assert sum(t.is_complete for t in game.turns) == 6 and game.info.seed == 5
        assert [g["path"] for g in stored_games(data)] == [before["path"]]  # one row, one file

        final = play(c, resumed["id"])
        assert final["over"] and c.get("/api/saved-games").json()["games"] == []
        finished = c.get("/api/saved-games", params={"status": "finished"}).json()["games"]
        assert [g["name"] for g in finished] == [entry["name"]] and "round" not in finished[0]
        r = c.post(f"/api/saved-games/{entry['name']}/resume", json={})
        one_line_error(r, 409, "finished")
    # the terminal reads the game the browser finished
    capsys.readouterr()
    assert main(["review", before["path"], "--tables", tables]) == 0
    assert f"You: {final['players'][0]['total']} points" in capsys.readouterr().out


def test_an_abandoned_game_is_abandoned_after_a_reload_and_can_be_resumed(client, data):
    state = client.post("/api/games", json={"mode": "solo", "seed": 31}).json()
    play(client, state["id"], 1)
    client.post(f"/api/games/{state['id']}/roll", json={})
    quit_state = client.post(f"/api/games/{state['id']}/quit", json={}).json()
    assert client.get(f"/api/games/{state['id']}").json()["status"] == "abandoned"  # a reload
    [entry] = client.get("/api/saved-games").json()["games"]
    assert entry["status"] == "abandoned" and entry["round"] == 2 and entry["playing"] is False
    resumed = client.post(f"/api/saved-games/{entry['name']}/resume", json={}).json()
    assert resumed["id"] != state["id"] and resumed["status"] == "in_progress"
    assert resumed["dice"] == quit_state["dice"] and resumed["rolls_left"] == 2  # where it stopped
    assert client.post(f"/api/games/{state['id']}/roll", json={}).status_code == 409  # the old stays quit


def test_unfinished_games_are_listed_newest_first_and_bounded(client, data):
    for seed in range(3):
        play(client, client.post("/api/games", json={"seed": 40 + seed}).json()["id"], 1)
    games = client.get("/api/saved-games").json()["games"]
    assert len(games) == 3
    assert [g["saved_at"] for g in games] == sorted((g["saved_at"] for g in games), reverse=True)
    assert len(client.get("/api/saved-games", params={"limit": 2}).json()["games"]) == 2
    r = client.get("/api/saved-games", params={"limit": MAX_UNFINISHED + 1})
    one_line_error(r, 400, "limit")


def saved_by_the_terminal(data, players, mode):
    """A game of ``players`` (names) in ``mode``, one box filled, saved as ``yahtzee play`` saves it."""
    from solver.core.rules import get_rules
    from solver.play.game import Game, Player
    from solver.play.records import new_game_path, save_game, store_game

    game = Game.new(get_rules("yahtzee"), [Player(n) for n in players], seed=3, info={"mode": mode})
    game.roll()
    game.score("chance")
    path = new_game_path(game, data)
    save_game(game, path, "in_progress")
    store_game(game, path, "in_progress", data)
    return game


def test_a_hot_seat_game_of_the_terminal_goes_on_in_the_browser(client, data):
    game = saved_by_the_terminal(data, ["Ann", "Bob"], "hot-seat")
    [entry] = client.get("/api/saved-games").json()["games"]
    assert entry["players"] == ["Ann", "Bob"] and entry["mode"] == "hot-seat" and entry["resumable"]
    state = client.post(f"/api/saved-games/{entry['name']}/resume", json={}).json()
    assert state["player"] == "Bob" and state["players"][0]["total"] == game.cards[0].total
    state = client.post(f"/api/games/{state['id']}/roll", json={}).json()
    assert state["player"] == "Bob" and state["rolls_left"] == 2


def test_a_real_dice_game_goes_on_with_the_dice_typed_in(client, data):
    state = client.post("/api/games", json={"mode": "real-dice"}).json()
    state = client.post(f"/api/games/{state['id']}/roll", json={"dice": [6, 6, 6, 6, 6]}).json()
    state = client.post(f"/api/games/{state['id']}/score", json={"box": "yahtzee"}).json()
    client.post(f"/api/games/{state['id']}/quit", json={})
    [entry] = client.get("/api/saved-games").json()["games"]
    assert entry["dice"] == "real" and entry["mode"] == "solo" and entry["resumable"]
    resumed = client.post(f"/api/saved-games/{entry['name']}/resume", json={}).json()
    assert resumed["real_dice"] and resumed["round"] == 2 and resumed["players"][0]["total"] == 50
    r = client.post(f"/api/games/{resumed['id']}/roll", json={})
    one_line_error(r, 400, "say what you rolled")  # the server never rolls real dice
    state = client.post(f"/api/games/{resumed['id']}/roll", json={"dice": [1, 2, 3, 4, 5]}).json()
    assert state["dice"] == [1, 2, 3, 4, 5]


def test_what_the_web_does_not_play_is_listed_but_not_resumed(client, data):
    """A game of a mode the web does not know (a later version's) is listed, with what goes on with it."""
    saved_by_the_terminal(data, ["Ann"], "tournament")
    [entry] = client.get("/api/saved-games").json()["games"]
    assert entry["players"] == ["Ann"] and not entry["resumable"]
    assert "yahtzee play --resume" in entry["why"]
    r = client.post(f"/api/saved-games/{entry['name']}/resume", json={})
    one_line_error(r, 400, "does not play tournament games")


def test_only_the_databases_files_in_the_games_folder_are_read(client, data, tmp_path):
    """A name is looked up in the database, never used as a path; a row whose file is a symlink
    out of the games folder is skipped; a file gone says so."""
    state = client.post("/api/games", json={"seed": 61}).json()
    play(client, state["id"], 1)
    name = state["saved"]
    games = data / "games"
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes((games / name).read_bytes())
    for bad, status, words in [
        ("..%2F..%2Fetc%2Fpasswd", 404, ""),  # decoded to a path: no such endpoint
        ("..", 400, "not the name of a saved game"),
        (".hidden.json", 400, "not the name"),
        ("a%5Cb.json", 400, "not the name"),
        ("x" * 300 + ".json", 400, "not the name"),
        ("nope.json", 404, "no saved game nope.json"),
        (quote(str(outside), safe=""), 404, ""),
    ]:
        r = client.post(f"/api/saved-games/{bad}/resume", json={})
        assert r.status_code == status, (bad, r.text)
        assert words in r.json()["error"]
        r = client.get("/api/review", params={"game": bad.replace("%2F", "/").replace("%5C", "\\")})
        assert r.status_code in (400, 404), (bad, r.text)
    # the row's file replaced by a symlink out of the games folder: not listed, not read
    (games / name).unlink()
    os.symlink(outside, games / name)
    assert client.get("/api/saved-games").json()["games"] == []
    one_line_error(client.post(f"/api/saved-games/{name}/resume", json={}), 404, "no saved game")
    one_line_error(client.get("/api/review", params={"game": name}), 404, "no saved game")
    # the file gone
    (games / name).unlink()
    other = client.post("/api/games", json={"seed": 62}).json()
    play(client, other["id"], 1)
    client.post(f"/api/games/{other['id']}/quit", json={})
    (games / other["saved"]).unlink()
    one_line_error(client.post(f"/api/saved-games/{other['saved']}/resume", json={}), 404, "is gone")
    one_line_error(client.get("/api/review", params={"game": other["saved"]}), 404, "is gone")


BAD = [
    ("GET", "/api/saved-games", {"status": "lost"}, 400, "status must be"),
    ("GET", "/api/saved-games", {"limit": "0"}, 400, "limit"),
    ("GET", "/api/saved-games", {"limit": "x"}, 400, "limit"),
    ("GET", "/api/saved-games", {"limit": "9" * 400}, 400, "limit"),
    ("GET", "/api/saved-games", {"page": "2"}, 400, "unknown field"),
    ("POST", "/api/saved-games", {}, 405, "not allowed"),
    ("GET", "/api/saved-games/x.json/resume", None, 405, "not allowed"),
    ("POST", "/api/saved-games/x.json/resume", {"seed": 3}, 400, "takes none"),
    ("GET", "/api/review", {}, 400, "missing field 'game'"),
    ("GET", "/api/review", {"game": "nope.json", "player": "You"}, 400, "unknown field"),
    ("GET", "/api/review", {"game": "nope.json"}, 404, "no saved game"),
    ("GET", "/api/review", {"game": "../yahtzee.db"}, 400, "not the name"),
    ("POST", "/api/review", {"game": "nope.json"}, 405, "not allowed"),
    ("GET", "/api/stats", {"rules": "poker"}, 400, "poker"),
    ("GET", "/api/stats", {"rules": "yahtzee", "days": "3"}, 400, "unknown field"),
    ("POST", "/api/stats", {}, 405, "not allowed"),
]


@pytest.mark.parametrize("method, path, params, status, words", BAD, ids=[f"{b[1]} {b[2]}" for b in BAD])
def test_bad_input_is_a_one_line_4xx(client, data, method, path, params, status, words):
    if method == "GET":
        r = client.get(path, params=params)
    else:
        r = client.post(path, json=params)
    one_line_error(r, status, words)
    assert not data.exists() or not list((data / "games").glob("*.json"))


def test_another_sites_page_cannot_resume_a_game(client, data):
    state = client.post("/api/games", json={"seed": 71}).json()
    play(client, state["id"], 1)
    client.post(f"/api/games/{state['id']}/quit", json={})
    r = client.post(
        f"/api/saved-games/{state['saved']}/resume", json={}, headers={"Origin": "http://evil.example"}
    )
    assert r.status_code == 403
    assert client.get("/api/saved-games").json()["games"][0]["playing"] is False


def test_review_and_stats_are_the_clis_and_no_get_changes_anything(client, data, tables, capsys):
    solo = client.post("/api/games", json={"mode": "solo", "seed": 81}).json()
    solo_end = play(client, solo["id"])
    versus = client.post("/api/games", json={"mode": "vs-computer", "level": "easy", "seed": 82}).json()
    versus_end = play(client, versus["id"])
    daily = client.post("/api/games", json={"mode": "daily", "date": "2026-02-01"}).json()
    play(client, daily["id"])
    unfinished = client.post("/api/games", json={"seed": 83}).json()
    play(client, unfinished["id"], 2)
    printed = folder_print(data)

    extra = ("name", "status", "saved_at")
    got = client.get("/api/review", params={"game": solo_end["saved"]}).json()
    want = labelled(cli_json(capsys, "review", solo_end["path"], "--json", "--tables", tables))
    assert {k: v for k, v in got.items() if k not in extra} == want
    assert got["name"] == solo_end["saved"] and got["status"] == "finished"
    [me] = got["players"]
    assert me["n_decisions"] == len(me["decisions"]) >= 13 and me["score"] == solo_end["players"][0]["total"]
    assert me["rating"] in me["verdict"]
    assert all(d["expected_final_best"] >= d["expected_final_choice"] - 1e-9 for d in me["decisions"])
    assert got["players"] == solo_end["review"]  # the end of the game's review, the same report
    # against the computer: the person's decisions only (the CLI's --player)
    got = client.get("/api/review", params={"game": versus_end["saved"]}).json()
    want = labelled(
        cli_json(capsys, "review", versus_end["path"], "--player", "You", "--json", "--tables", tables)
    )
    assert {k: v for k, v in got.items() if k not in extra} == want
    assert [p["name"] for p in got["players"]] == ["You"]
    # an unfinished game: the decisions so far
    got = client.get("/api/review", params={"game": unfinished["saved"]}).json()
    assert got["finished"] is False and got["status"] == "in_progress"
    assert not got["players"][0]["complete"]

    got = client.get("/api/stats").json()
    assert got == cli_json(capsys, "stats", "--json", "--data", str(data))
    assert got["rules"]["yahtzee"]["games"] == 3 and got["daily"]["played"] == 1
    assert sum(got["rules"]["yahtzee"]["histogram"].values()) == 3
    assert client.get("/api/stats", params={"rules": "yahtzee"}).json() == got
    assert client.get("/api/stats", params={"rules": "yatzy"}).json()["rules"]["yatzy"]["games"] == 0
    for path, params in (
        ("/api/saved-games", {}),
        ("/api/saved-games", {"status": "finished"}),
        ("/api/review", {"game": solo_end["saved"]}),
        ("/api/stats", {}),
    ):
        assert client.get(path, params=params).status_code == 200
    assert folder_print(data) == printed  # no GET wrote a byte


def test_stats_keep_the_latest_daily_results(tmp_path, monkeypatch):
    import datetime as dt

    import solver.web.service
    from solver.play.records import record_daily

    # a shorter history than the page's year: each daily is its own saved transaction (20 ms)
    MAX_HISTORY = 12
    monkeypatch.setattr(solver.web.service, "MAX_HISTORY", MAX_HISTORY)
    data = tmp_path / "data"
    day = dt.date(2024, 1, 1)
    for i in range(MAX_HISTORY + 5):
        record_daily((day + dt.timedelta(days=i)).isoformat(), "yahtzee", "You", 200, 250.0, data)
    got = Service(None, data, progress=False).stats({})
    assert got["daily"]["played"] == MAX_HISTORY + 5 and len(got["daily"]["history"]) == MAX_HISTORY
    assert got["daily"]["history"][-1]["date"] == (day + dt.timedelta(days=MAX_HISTORY + 4)).isoformat()
    assert got["daily"]["last_streak"] == MAX_HISTORY + 5


def test_review_gives_the_chances_to_win_where_the_target_table_is_built(tmp_path, capsys):
    """Against the computer, with the rule set's target table built, the review gives each
    scored turn's chance to win before and after it, as ``yahtzee review --json`` does."""
    from solver.engine.target import build_target

    small = "yahtzee+lower-only"  # 7 boxes: its tables build in a moment
    tables = tmp_path / "tables"
    build_target(small, tables, t_max=200, progress=False)
    service = Service(str(tables), tmp_path / "data", progress=False)
    game = service.new_game({"mode": "vs-computer", "level": "hard", "rules": small, "seed": 7})
    while not game["over"]:
        game = service.act(game["id"], "roll", {})
        box = next(b["name"] for b in game["boxes"] if b["allowed"])
        game = service.act(game["id"], "score", {"box": box})
    got = service.review({"game": game["saved"]})
    argv = ["review", game["path"], "--player", "You", "--json", "--tables", str(tables)]
    want = labelled(cli_json(capsys, *argv))
    assert {k: v for k, v in got.items() if k not in ("name", "status", "saved_at")} == want
    assert len(got["p_win_by_turn"]) == 14  # 7 turns each
    assert all(0 <= w["before"] <= 1 and 0 <= w["after"] <= 1 for w in got["p_win_by_turn"])


def test_every_page_links_every_page_and_loads_nothing_from_elsewhere(client):
    import re

    pages = ["/", "/play", "/review", "/stats"]
    for page in pages:
        r = client.get(page)
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        nav = re.search(r'<nav aria-label="pages">(.*?)</nav>', r.text).group(1)
        assert re.findall(r'href="([^"]+)"', nav) == pages  # the header: every page, in one order
        assert re.findall(r'aria-current="page"', nav) and f'href="{page}" aria-current' in nav
        for ref in re.findall(r'(?:src|href)="([^"]+)"', r.text):
            assert ref.startswith(("/", "data:", "#")), (page, ref)  # nothing from elsewhere
            if ref.startswith("/static/"):
                asset = client.get(ref)
                assert asset.status_code == 200, ref
                assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", asset.text), ref

"""Maxi Yatzy played (issue 37): six dice on the terminal's table and the web's, a whole game of
twenty turns in each, solo and against the computer at its table-free levels (easy: frequent,
medium: greedy), within 80 columns and 24 rows in the terminal.  Nothing here builds the maxi
table (minutes): the games that need it (the hint, the perfect level, the optimal player on the
same dice) run only where ``YAHTZEE_MAXI_TABLES`` names a folder holding it, as in test_maxi.py."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from clirun import typed as run

from solver.core.streams import SeededStream

MAXI_TABLES = os.environ.get("YAHTZEE_MAXI_TABLES")
needs_table = pytest.mark.skipif(
    not (MAXI_TABLES and (Path(MAXI_TABLES) / "maxi.npy").is_file()),
    reason="YAHTZEE_MAXI_TABLES names no folder with the maxi table",
)
#: a prompt of ``yahtzee play`` with the command echoed after it
PROMPT = re.compile(r"^(?:[^>]*, )?(?:r to roll|\d rolls? left|choose a box|type the six dice)> ")


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.delenv("YAHTZEE_DATA", raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    return tmp_path / "data"


def screens(out: str) -> list[list[str]]:
    """What the terminal shows after each command, prompt to prompt (both included)."""
    lines = out.splitlines()
    at = [i for i, line in enumerate(lines) if PROMPT.match(line)]
    return [lines[a : b + 1] for a, b in zip(at, at[1:], strict=False)]


def saved(data) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((data / "games").glob("*.json"))]


def every_turn(turns: int = 20) -> list[str]:
    """Commands that finish a Maxi Yatzy game on any dice: roll, hold die 6, roll, release, roll,
    then every box in turn (the first open one scores; 'score 0?' is not asked on piped input)."""
    return [x for _ in range(turns) for x in ("r", "h 6", "r", "u", "r", *(f"s {b}" for b in range(1, 21)))]


def test_a_solo_maxi_game_in_the_terminal(monkeypatch, capsys, data, tmp_path):
    empty = tmp_path / "tables"
    empty.mkdir()
    argv = ["play", "--rules", "maxi", "--seed", "7", "--data", str(data), "--tables", str(empty)]
    rc, out, err = run(monkeypatch, capsys, argv, ["r", "h 7", *every_turn()])
    assert rc == 0, err
    assert "=== game over ===" in out and "turn 20 of 20" in out
    assert "  die    1  2  3  4  5  6" in out
    # die 7 does not exist: one line; die 6 is held (its mark under the sixth die)
    assert "die number 7 is out of range (the dice are numbered 1 to 6)" in out
    assert "  held   " + " " * 15 + "^" in out
    assert all(len(line) <= 80 for line in (out + err).splitlines() if str(tmp_path) not in line)
    assert max(len(s) for s in screens(out)) <= 24  # the dice, the 20-row card and the prompt
    # no table, no build: the comparison with the optimal player is skipped in one line
    assert "no comparison with the optimal player" in out + err
    assert not list(empty.iterdir())
    (game,) = saved(data)
    assert game["rules"] == "maxi" and game["status"] == "finished" and len(game["turns"]) == 20
    total = game["final"][0]["score"]
    assert re.search(rf"^  You +{total}$", out, re.M)
    # each roll takes the next six dice of the seeded stream (as the simulation kernels do)
    stream = SeededStream(7, game=0)
    for turn in game["turns"]:
        for roll in turn["rolls"]:
            assert len(roll["dice"]) == 6
            assert tuple(roll["values"]) == stream.next_dice(6)[: len(roll["values"])]
    # the finished game reads back: stats of the rule set
    rc, out, err = run(monkeypatch, capsys, ["stats", "--rules", "maxi", "--data", str(data)])
    assert rc == 0, err
    assert "maxi: 1 game finished" in out and "six of a kind" in out


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_maxi_against_the_computer_in_the_terminal(monkeypatch, capsys, data, tmp_path, level):
    argv = ["play", "--rules", "maxi", "--level", level, "--seed", "3", "--data", str(data)]
    rc, out, err = run(monkeypatch, capsys, [*argv, "--tables", str(tmp_path)], every_turn())
    assert rc == 0, err
    assert "=== game over ===" in out
    assert all(len(line) <= 80 for line in (out + err).splitlines() if str(tmp_path) not in line)
    (game,) = saved(data)
    assert game["status"] == "finished" and len(game["turns"]) == 40
    computer = game["final"][1]
    assert computer["name"] == f"Computer ({level})" and computer["score"] > 0
    assert max(len(s) for s in screens(out)) <= 24


def test_six_dice_levels_and_real_dice(monkeypatch, capsys, data, tmp_path):
    rc, out, err = run(monkeypatch, capsys, ["play", "--rules", "maxi", "--level", "win"])
    assert rc == 2 and "the win level does not take six dice yet" in err
    assert "the maxi computer is one of easy, medium, hard, perfect" in err
    assert err.count("\n") == 1
    argv = ["play", "--rules", "maxi", "--real-dice", "--data", str(data), "--tables", str(tmp_path)]
    rc, out, err = run(monkeypatch, capsys, argv, ["1234561", "123456", "h 1 2", "6655", "s 1", "q"])
    assert rc == 0, err
    assert "type the six dice> " in out
    assert "that's seven dice: type the 6 dice rolled" in out
    assert "  face   1  2  6  6  5  5" in out  # the held dice stayed, the four others rolled


def test_the_web_plays_six_dice(tmp_path):
    """The web's game API: a whole solo Maxi Yatzy game and one against the computer (medium),
    six dice on the table, die 6 held and die 7 refused."""
    from webserver import Client, serve

    from solver.web.app import create_app
    from solver.web.service import Service

    with serve(
        create_app(service=Service(str(tmp_path / "tables"), tmp_path / "data", progress=False))
    ) as base:
        client = Client(base)
        for body in (
            {"mode": "solo", "rules": "maxi", "seed": 11},
            {"mode": "vs-computer", "rules": "maxi", "level": "medium", "seed": 11},
        ):
            s = client.post("/api/games", json=body).json()
            assert s["n_dice"] == 6 and len(s["held"]) == 6
            gid = s["id"]
            for turn in range(20):
                s = client.post(f"/api/games/{gid}/roll", json={"version": s["version"]}).json()
                assert len(s["dice"]) == 6
                if turn == 0:
                    r = client.post(f"/api/games/{gid}/hold", json={"held": [7], "version": s["version"]})
                    assert r.status_code == 400 and "1 to 6" in r.json()["error"]
                s = client.post(f"/api/games/{gid}/hold", json={"held": [6], "version": s["version"]}).json()
                assert s["held"] == [False] * 5 + [True]
                s = client.post(f"/api/games/{gid}/roll", json={"version": s["version"]}).json()
                box = next(b["name"] for b in s["boxes"] if b["allowed"])
                answer = client.post(f"/api/games/{gid}/score", json={"box": box, "version": s["version"]})
                s = answer.json()
                assert answer.status_code == 200, s
            assert s["over"], s["status"]
            assert s["review"] is None  # it waits for the maxi table (the page says so)
        assert not (tmp_path / "tables").exists() or not list((tmp_path / "tables").iterdir())


@needs_table
def test_maxi_with_the_table_hint_and_perfect_level(monkeypatch, capsys, data):
    argv = ["play", "--rules", "maxi", "--seed", "5", "--data", str(data), "--tables", MAXI_TABLES]
    rc, out, err = run(monkeypatch, capsys, argv, ["r", "hint", *every_turn()])
    assert rc == 0, err
    assert re.search(r"1\. .*best", out) and "the optimal player scored" in out
    rc, out, err = run(
        monkeypatch,
        capsys,
        [*argv[:-4], "--level", "perfect", "--data", str(data), "--tables", MAXI_TABLES],
        every_turn(),
    )
    assert rc == 0, err
    assert "Computer (perfect)" in out and "=== game over ===" in out


@needs_table
def test_a_seeded_maxi_game_is_the_simulations_game(monkeypatch, capsys):
    """The game model's six-dice rolls are the simulation kernels': the optimal player's games
    0..2 of seed 1 played move by move score what ``simulate`` reports for them."""
    from solver.play.bots import get_bot
    from solver.play.game import Game, Player, play_out

    bot = get_bot("optimal", "maxi", MAXI_TABLES, build_if_missing=False)
    scores = []
    for i in range(3):
        game = Game("maxi", [Player("b", "bot", "optimal")], [SeededStream(1, game=i)], {"mode": "solo"})
        scores.append(play_out(game, bot).cards[0].total)
    argv = ["simulate", "--rules", "maxi", "--games", "3", "--seed", "1", "--json", "--tables", MAXI_TABLES]
    rc, out, err = run(monkeypatch, capsys, argv)
    assert rc == 0, err
    stats = json.loads(out)["stats"]
    assert (stats["min"], stats["p50"], stats["max"]) == tuple(sorted(scores))
    assert stats["mean"] == pytest.approx(sum(scores) / 3)


def test_a_maxi_game_stopped_resumes_with_its_six_dice(monkeypatch, capsys, data, tmp_path):
    """Stopped with two dice held, the game resumes with the same six dice and holds, in the
    terminal and in the web app (neither needs the maxi table)."""
    from webserver import Client, serve

    from solver.web.app import create_app
    from solver.web.service import Service

    argv = ["play", "--rules", "maxi", "--seed", "3", "--data", str(data), "--tables", str(tmp_path)]
    rc, out, err = run(monkeypatch, capsys, argv, ["r", "s 1", "r", "h 5 6", "q"])
    assert rc == 0, err
    (stopped,) = saved(data)
    dice = stopped["turns"][-1]["rolls"][-1]["dice"]
    assert len(dice) == 6 and stopped["turns"][-1]["holding"] == [5, 6]
    with serve(create_app(service=Service(str(tmp_path), data, progress=False))) as base:
        client = Client(base)
        (listed,) = client.get("/api/saved-games").json()["games"]
        answer = client.post(f"/api/saved-games/{listed['name']}/resume", json={})
        assert answer.status_code == 200, answer.text
        s = answer.json()
        assert s["n_dice"] == 6 and s["dice"] == dice and s["held"] == [False] * 4 + [True, True]
        client.post(f"/api/games/{s['id']}/quit", json={"version": s["version"]})
    rc, out, err = run(
        monkeypatch, capsys, ["play", "--resume", "--data", str(data), "--tables", str(tmp_path)], ["q"]
    )
    assert rc == 0, err
    assert "  face   " + "  ".join(map(str, dice)) in out and "  held   " + " " * 12 + "^  ^" in out

"""``yahtzee review``: every decision beside the optimal one, the loss, the verdict; bad files."""

from __future__ import annotations

import json
import random

import pytest

from solver.cli.entry import main
from solver.core.position import Position
from solver.play.game import Game, Player, play_bot_turn
from solver.play.records import load_game, save_game
from solver.play.review import judge, review_game


@pytest.fixture(scope="module")
def optimal(tables_dir):
    from solver.play import bots

    tables_dir.table("yahtzee")
    return bots.get_bot("optimal", "yahtzee", tables_dir)


def optimal_game(bot, seed=21, players=("Pat",), spoil_first_box=False, advisor=None) -> Game:
    game = Game.new("yahtzee", list(players), seed=seed, info={"mode": "solo"})
    rng = random.Random(0)
    if spoil_first_box:  # turn 1: stop at once and take the worst box
        game.roll()
        worst = advisor.advise(Position(game.card, game.sorted_dice, 0)).options[-1]
        assert worst.regret > 0
        game.score(worst.category)
    while not game.is_over:
        play_bot_turn(game, bot, rng)
    return game


def review_json(capsys, path, tables_dir, *extra) -> dict:
    rc = main(["review", str(path), "--json", "--tables", str(tables_dir), *extra])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


def test_optimal_game_loses_nothing(tmp_path, capsys, tables_dir, optimal):
    game = optimal_game(optimal)
    path = save_game(game, tmp_path / "g.json")
    result = review_json(capsys, path, tables_dir)
    [pat] = result["players"]
    assert pat["name"] == "Pat" and pat["score"] == game.cards[0].total and pat["complete"]
    assert pat["mistakes"] == 0 and pat["total_loss"] < 1e-6
    assert pat["n_decisions"] == len(pat["decisions"]) >= 13
    assert sum(d["kind"] == "box" for d in pat["decisions"]) == 13
    assert "perfect play" in pat["verdict"]


def test_a_bad_move_shows_its_loss(tmp_path, capsys, tables_dir, optimal):
    advisor = tables_dir.advisor("yahtzee")
    game = optimal_game(optimal, spoil_first_box=True, advisor=advisor)
    path = save_game(game, tmp_path / "bad.json")
    result = review_json(capsys, path, tables_dir)
    decisions = result["players"][0]["decisions"]
    stop, box = decisions[0], decisions[1]
    assert (stop["kind"], stop["rolls_left"], box["kind"]) == ("keep", 2, "box")
    assert box["loss"] > 0 and box["choice"] != box["best"]
    assert all(d["loss"] < 1e-6 for d in decisions[2:])  # the optimal bot afterwards
    total = result["players"][0]["total_loss"]
    assert total == pytest.approx(stop["loss"] + box["loss"], abs=1e-5)
    expected = advisor.advise(Position(game.turns[0].card_before, game.turns[0].dice, 0))
    assert box["loss"] == pytest.approx(expected.option_for(category=game.turns[0].box).regret, abs=1e-6)

    rc = main(["review", str(path), "--tables", str(tables_dir)])
    out = capsys.readouterr().out
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == "Review: yahtzee, solo, seed 21"
    row = next(line for line in lines if line.strip().startswith("1  box"))
    assert f"{box['loss']:5.2f} * {game.turns[0].box} (" in row  # the loss, marked a mistake
    assert "(best)" in out and max(map(len, lines)) <= 80
    verdict = " ".join(out.split("\n\n")[-1].split())  # the last paragraph, wrapped at 80 columns
    assert verdict.startswith(f"Pat: {game.cards[0].total} points; ") and "expected loss" in verdict
    assert "per decision" in verdict and "biggest: turn 1" in verdict

    rc = main(["review", str(path), "--tables", str(tables_dir), "--mistakes"])
    out = capsys.readouterr().out
    assert "(best)" not in out and " * " in out


def test_judge_agrees_with_the_advisor(tables_dir):
    advisor = tables_dir.advisor("yahtzee")
    game = Game.new("yahtzee", ["A"], seed=3)
    game.roll()
    game.set_held([1])
    game.roll()
    game.score("chance")
    for d in game.decisions():
        j = judge(advisor, d)
        assert j.loss >= 0 and j.best.best
        assert j.is_mistake == (j.loss > 1e-6)


def test_review_players_and_unfinished_games(tmp_path, capsys, tables_dir, optimal):
    game = Game.new("yahtzee", ["Ann", Player("Bot", "bot", "optimal")], seed=8, info={"mode": "vs-computer"})
    rng = random.Random(0)
    for _ in range(3):
        game.roll()
        game.score(game.card.placements(game.sorted_dice)[-1].box)  # Ann: last legal box
        play_bot_turn(game, optimal, rng)
    game.roll()  # Ann's turn 4 is under way
    path = save_game(game, tmp_path / "vs.json", "abandoned")
    result = review_json(capsys, path, tables_dir)
    assert [p["name"] for p in result["players"]] == ["Ann", "Bot"]
    assert not result["finished"] and result["mode"] == "vs-computer"
    bot = result["players"][1]
    assert bot["total_loss"] < 1e-6 and bot["n_decisions"] >= 3
    only = review_json(capsys, path, tables_dir, "--player", "Ann")
    assert [p["name"] for p in only["players"]] == ["Ann"]

    rc = main(["review", str(path), "--tables", str(tables_dir)])
    out = capsys.readouterr().out
    assert rc == 0 and "(unfinished)" in out

    rc = main(["review", str(path), "--player", "Zoe", "--tables", str(tables_dir)])
    err = capsys.readouterr().err
    assert rc == 2 and "no player 'Zoe'" in err and "Ann, Bot" in err

    reviews = review_game(load_game(path), tables_dir.advisor("yahtzee"), [0])
    assert len(reviews) == 1 and reviews[0].name == "Ann"


# --- bad files ---------------------------------------------------------------------------------
def _saved(tmp_path, **kw) -> tuple[dict, object]:
    game = Game.new("yahtzee", ["Ann"], seed=5, info={"mode": "solo"})
    while not game.is_over:
        game.roll()
        game.set_held([1, 2])
        game.roll()
        game.score(game.card.placements(game.sorted_dice)[0].box)
    path = save_game(game, tmp_path / "g.json")
    return json.loads(path.read_text()), path


def _review_error(capsys, path) -> str:
    rc = main(["review", str(path), "--tables", "/nonexistent"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    return lines[0]


def test_bad_die_in_a_hand_edited_file(tmp_path, capsys):
    data, path = _saved(tmp_path)
    data["turns"][3]["rolls"][1]["values"][0] = 7
    path.write_text(json.dumps(data))
    assert (
        _review_error(capsys, path)
        == f"yahtzee: error: {path}: turn 4 roll 2: die 7 is not a face from 1 to 6"
    )


def test_filled_box_in_a_hand_edited_file(tmp_path, capsys):
    data, path = _saved(tmp_path)
    data["turns"][2]["box"] = data["turns"][0]["box"]
    path.write_text(json.dumps(data))
    message = _review_error(capsys, path)
    assert f"turn 3: {data['turns'][0]['box']} is already filled" in message


def test_wrong_player_in_a_hot_seat_file(tmp_path, capsys):
    game = Game.new("yahtzee", ["Ann", "Ben"], seed=5, info={"mode": "hot-seat"})
    for _ in range(2):
        game.roll()
        game.score("chance" if game.current == 0 else "ones")
    data = game.to_dict("abandoned")
    data["turns"][1]["box"] = "yahtzee_bonus"
    path = tmp_path / "h.json"
    path.write_text(json.dumps(data))
    assert "turn 2 (Ben, round 1): unknown box 'yahtzee_bonus'" in _review_error(capsys, path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON (line 1"),
        ("[]", "a saved game must be a JSON object"),
        ('{"format_version": 1, "rules": "yahtzee", "players": ["A"]}', "turns: need a list"),
        (b"\xff\xfe", "is not UTF-8 text"),
    ],
)
def test_unreadable_files(tmp_path, capsys, content, message):
    path = tmp_path / "x.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert message in _review_error(capsys, path)


def test_missing_file(tmp_path, capsys):
    assert "cannot read game file" in _review_error(capsys, tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("final", [{"name": ["Ann"], "score": 1}], "final entry 1: name ['Ann'] is not a player name"),
        ("players", [{"name": "Ann", "kind": "bot", "bot": ["x"]}], "player 1: bot ['x'] is not a bot name"),
    ],
)
def test_wrong_json_types_in_a_hand_edited_file(tmp_path, capsys, where, value, message):
    data, path = _saved(tmp_path)
    data[where] = value
    path.write_text(json.dumps(data))
    assert _review_error(capsys, path) == f"yahtzee: error: {path}: {message}"

"""``yahtzee play`` end to end, fed scripted input: every mode, a person's mistakes, saving, records."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solver.cli.entry import main
from solver.play import records
from solver.play.game import Game

REPO = Path(__file__).resolve().parents[1]
#: 7 boxes with the upper bonus, the Joker rule and the Yahtzee bonus: a table in milliseconds
SMALL = "yahtzee+without=ones,twos,threes,four_of_a_kind,full_house,small_straight"
slow = pytest.mark.slow


def script_all_boxes(n: int = 13) -> list[str]:
    """Roll once and score box 1, then box 2, ... (legal for the seeds used below)."""
    return [x for i in range(1, n + 1) for x in ("r", f"s {i}")]


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.delenv("YAHTZEE_DATA", raising=False)
    return tmp_path / "data"


def play(monkeypatch, capsys, data, argv, lines, stdin=None):
    monkeypatch.setattr(sys, "stdin", stdin or io.StringIO("".join(line + "\n" for line in lines)))
    rc = main(["play", "--data", str(data), *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def saved_games(data) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((data / "games").glob("*.json"))]


# --- solo ------------------------------------------------------------------------------------
def test_solo_full_game_saves_and_keeps_the_record(monkeypatch, capsys, data):
    rc, out, err = play(monkeypatch, capsys, data, ["--seed", "1"], script_all_boxes())
    assert rc == 0, err
    assert "no record yet for yahtzee" in out
    assert "=== game over ===" in out and "first record for yahtzee" in out
    [game] = saved_games(data)
    assert game["status"] == "finished" and game["mode"] == "solo" and game["seed"] == 1
    assert len(game["turns"]) == 13 and game["rules"] == "yahtzee" and game["format_version"] == 2
    score = game["final"][0]["score"]
    best = records.solo_best("yahtzee", data)
    assert best["score"] == score and Path(best["game"]).exists()
    assert Game.from_dict(game).cards[0].total == score

    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "2", "--solo"], script_all_boxes())
    assert rc == 0
    assert f"your record for yahtzee: {score}" in out
    assert len(saved_games(data)) == 2


def test_screen_shows_dice_positions_holds_rolls_left_and_previews(monkeypatch, capsys, data):
    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "1"], ["r", "h 1 3", "card"])
    assert rc == 1
    assert "  die    1  2  3  4  5" in out
    assert "  held   ^     ^" in out
    assert "2 rolls left" in out
    assert " 1 ones " in out and "13 chance" in out and "upper bonus" in out
    first = saved_games(data)[0]["turns"][0]["rolls"][0]["dice"]
    assert "  face   " + "  ".join(map(str, first)) in out
    chance = sum(first)
    assert f"({chance})" in out  # the preview of chance


def test_mistakes_are_refused_and_the_prompt_repeats(monkeypatch, capsys, data):
    lines = ["s 1", "r", "h 7", "h", "xyzzy", "s 1", "r", "s 1", "s 99", "s f", "k 6 6 6 6 6 6"]
    rc, out, err = play(monkeypatch, capsys, data, ["--seed", "1"], lines)
    assert rc == 1  # the input ended before the game did
    refusals = [line for line in out.splitlines() if line.startswith("! ")]
    assert refusals[0] == "! roll first: the first roll of a turn is mandatory"
    assert refusals[1] == "! die number 7 is out of range (the dice are numbered 1 to 5)"
    assert refusals[2].startswith("! say which dice to hold")
    assert refusals[3] == "! unknown command 'xyzzy' (help lists them)"
    assert refusals[4].startswith("! ones is already filled")
    assert refusals[5] == "! box number 99 is not on the card (1 to 13)"
    assert refusals[6].startswith("! 'f' could be")
    assert refusals[7].startswith("! cannot keep")
    assert "end of input: game stopped and saved" in out
    assert "Traceback" not in err
    [game] = saved_games(data)
    assert game["status"] == "abandoned" and len(game["turns"]) == 2
    Game.from_dict(game)


def test_no_fourth_roll_and_no_hold_after_the_third(monkeypatch, capsys, data):
    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "1"], ["r", "r", "r", "r", "h 1", "u", "q"])
    assert rc == 0
    assert "! no rolls left this turn (3 used): choose a box" in out
    assert "! no rolls left to hold dice for: choose a box" in out
    assert "game stopped and saved" in out
    assert saved_games(data)[0]["status"] == "abandoned"


def test_help(monkeypatch, capsys, data):
    _, out, _ = play(monkeypatch, capsys, data, ["--seed", "1"], ["help", "quit"])
    assert "hold or release dice by position" in out and "quit, q" in out


@pytest.mark.parametrize("rules_id", [SMALL, pytest.param("yahtzee", marks=slow)])
def test_hint_and_coach(monkeypatch, capsys, data, tables_dir, rules_id):
    tables_dir.table(rules_id)
    lines = ["hint", "r", "hint", "h 1", "r", "s chance"]
    argv = ["--rules", rules_id, "--seed", "1", "--coach", "--tables", str(tables_dir)]
    rc, out, _ = play(monkeypatch, capsys, data, argv, lines)
    assert rc == 1
    assert "! roll first: nothing to decide before the first roll" in out
    assert "hint (2 rolls left):" in out
    hints = [line for line in out.splitlines() if line.startswith(("  1. ", "  2. ", "  3. "))]
    assert len(hints) == 3 and hints[0].endswith("best")
    coach = [line for line in out.splitlines() if line.startswith("  coach: ")]
    assert len(coach) == 2  # the keep; stopping with a roll left and the box: one line
    assert coach[1].startswith("  coach: stop: chance (")
    assert all("best move" in c or "expected points" in c for c in coach)


@pytest.mark.parametrize("rules_id", [SMALL, pytest.param("yahtzee", marks=slow)])
def test_coach_says_zero_for_the_best_move(monkeypatch, capsys, data, tables_dir, rules_id):
    from solver.core.position import Position
    from solver.core.rules import get_rules
    from solver.play.game import Game, Player

    game = Game.new(get_rules(rules_id), [Player("You")], seed=1)
    for _ in range(3):
        game.roll()  # the dice of seed 1 after three rolls: the box is the one decision left
    position = Position(game.card, game.sorted_dice, 0)
    best = tables_dir.advisor(rules_id).advise(position).best.category
    lines = ["r", "r", "r", f"s {best}"]
    argv = ["--rules", rules_id, "--seed", "1", "--coach", "--tables", str(tables_dir)]
    _, out, _ = play(monkeypatch, capsys, data, argv, lines)
    assert f"  coach: {best} (" in out and "best move (0 points lost)" in out


# --- other modes ---------------------------------------------------------------------------------
def test_vs_computer(monkeypatch, capsys, data):
    rc, out, err = play(
        monkeypatch, capsys, data, ["--vs-computer", "--level", "medium", "--seed", "2"], script_all_boxes()
    )
    assert rc == 0, err
    headers = [line for line in out.splitlines() if line.startswith("--- ")]
    assert headers[0].startswith("--- You: turn 1 ") and headers[1].startswith(
        "--- Computer (medium): turn 1 "
    )
    assert len(headers) == 26
    assert "  rolls  " in out and "Computer (medium) scores" in out
    assert "=== game over ===" in out
    assert "wins!" in out or "win!" in out or "tie:" in out
    [game] = saved_games(data)
    assert game["mode"] == "vs-computer" and game["level"] == "medium"
    assert game["players"][1] == {"name": "Computer (medium)", "kind": "bot", "bot": "greedy"}
    assert records.load_records(data)["solo_best"] == {}  # only solo games set records
    [stored] = records.stored_games(data)  # but every game is kept in the database
    assert stored["mode"] == "vs-computer" and stored["status"] == "finished" and len(stored["players"]) == 2


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_computer_levels(monkeypatch, capsys, data, level):
    rc, out, _ = play(
        monkeypatch, capsys, data, ["--vs-computer", "--level", level, "--seed", "2"], ["r", "s 1"]
    )
    assert rc == 1
    assert f"Computer ({level}) scores" in out


@pytest.mark.parametrize(
    "rules_id",
    [
        "yacht",  # the fast loop: the three cheapest; CI all
        pytest.param("yatzy+all-rolls", marks=slow),
        "yatzy+without=ones,twos,threes+extra-bonus=50+yatzy-rows=2",
        "yahtzee+order=up",
        pytest.param("yatzy+order=choose", marks=slow),
        pytest.param("yatzy+yatzy-rows=2+extra-bonus=50", marks=slow),
    ],
)
def test_hard_level_plays_any_rule_set(monkeypatch, capsys, data, rules_id):
    """The hard computer (the heuristic bot) needs no table and no hand-made values for the card."""
    from solver.core.rules import get_rules

    rules = get_rules(rules_id)
    boxes = (rules.n_boxes, rules.n_boxes - 1) if rules.order == "up" else (1, 2)  # what the order allows
    lines = [x for box in boxes for x in ("r", "r", "r", f"s {box}")]  # three rolls: legal under all-rolls
    argv = ["--vs-computer", "--level", "hard", "--seed", "2", "--rules", rules_id]
    rc, out, err = play(monkeypatch, capsys, data, argv, lines)
    assert rc == 1 and "Traceback" not in err  # the input ends during the second turn
    assert out.count("Computer (hard) scores") == 2
    assert f"({rules.id})" in out


def test_hot_seat(monkeypatch, capsys, data):
    lines = [x for i in range(1, 14) for x in ("r", f"s {i}", "r", f"s {i}")]
    rc, out, err = play(monkeypatch, capsys, data, ["--players", "Ann, Ben", "--seed", "3"], lines)
    assert rc == 0, err
    headers = [line.split(":")[0] for line in out.splitlines() if line.startswith("--- ")]
    assert headers[:4] == ["--- Ann", "--- Ben", "--- Ann", "--- Ben"]
    assert "Ann, r to roll> " in out
    [game] = saved_games(data)
    assert game["mode"] == "hot-seat" and [p["name"] for p in game["players"]] == ["Ann", "Ben"]
    assert game["winners"] and ("wins!" in out or "tie:" in out)


@pytest.mark.parametrize("rules_id", [SMALL, pytest.param("yahtzee", marks=slow)])
def test_daily_summary(monkeypatch, capsys, data, tables_dir, rules_id):
    from solver.core.rules import get_rules

    tables_dir.table(rules_id)
    argv = ["--daily", "2026-10-17", "--rules", rules_id, "--tables", str(tables_dir)]
    rc, out, err = play(monkeypatch, capsys, data, argv, script_all_boxes(get_rules(rules_id).n_boxes))
    assert rc == 0, err
    assert "daily challenge 2026-10-17" in out
    assert "  face   6  5  6  4  1" in out  # the day's first dice (pinned in test_daily)
    share = " ".join(out.split("--- to share ---")[1].split())  # the line wraps for a long rule id
    [game] = saved_games(data)
    score = game["final"][0]["score"]
    optimal = records.load_records(data)["daily"][f"2026-10-17 {rules_id}"]["optimal"]
    which = "" if rules_id == "yahtzee" else f" ({rules_id})"
    line = f"Yahtzee daily 2026-10-17{which}: You {score}, optimal player {optimal:.0f}"
    assert share.startswith(f"{line} ({score - round(optimal):+d}) ")
    assert game["mode"] == "daily" and game["date"] == "2026-10-17" and game["dice"] == "daily"
    daily = records.load_records(data)["daily"][f"2026-10-17 {rules_id}"]
    assert daily["score"] == game["final"][0]["score"] and daily["optimal"] > 0


def test_real_dice(monkeypatch, capsys, data):
    lines = ["r", "33456", "h 1 2", "12", "3 3 4 7 1", "33411", "h 3", "11", "s 3", "r 66666", "s yahtzee"]
    rc, out, _ = play(monkeypatch, capsys, data, ["--real-dice"], lines)
    assert rc == 1
    refusals = [line for line in out.splitlines() if line.startswith("! ")]
    assert refusals[0] == "! type the five dice you rolled, e.g. r 33456"
    assert refusals[1].startswith("! type the 3 rerolled dice (or all five on the table)")
    assert refusals[2].startswith("! die value '7' is not a face")
    assert "You score 6 in threes: total 6" in out
    [game] = saved_games(data)
    rolls = game["turns"][0]["rolls"]
    assert [r["dice"] for r in rolls] == [[3, 3, 4, 5, 6], [3, 3, 4, 1, 1], [3, 3, 4, 1, 1]]
    assert game["dice"] == "real" and "seed" not in game


# --- ending early -----------------------------------------------------------------------------------
def test_ctrl_c_saves_the_game(monkeypatch, capsys, data):
    class Interrupting(io.StringIO):
        def readline(self, *a):
            line = super().readline(*a)
            if not line:
                raise KeyboardInterrupt
            return line

    rc, _, err = play(monkeypatch, capsys, data, ["--seed", "1"], [], stdin=Interrupting("r\ns 13\nr\n"))
    assert rc == 130
    assert "game stopped and saved" in err
    [game] = saved_games(data)
    assert game["status"] == "abandoned" and len(game["turns"]) == 2


def test_end_of_input_in_a_subprocess(tmp_path):
    env = dict(
        os.environ, YAHTZEE_DATA=str(tmp_path), NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", "/tmp/nbc")
    )
    proc = subprocess.run(
        [sys.executable, "-m", "solver", "play", "--seed", "5"],
        input="r\nh 9\nh 1 2\nr\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "! die number 9 is out of range" in proc.stdout
    assert "end of input: game stopped and saved" in proc.stdout
    [path] = (tmp_path / "games").glob("*-solo-yahtzee-*.json")
    assert json.loads(path.read_text())["turns"][0]["rolls"][1]["held"] == [1, 2]


@pytest.mark.parametrize(
    "argv",
    [
        ["--solo", "--vs-computer"],
        ["--solo", "--players", "Ann,Ben"],
        ["--daily", "2026-13-01"],
        ["--real-dice", "--seed", "1"],
        ["--real-dice", "--vs-computer"],
        ["--daily", "2026-10-17", "--seed", "1"],
        ["--players", " , "],
        ["--players", "Ann,Ann"],
        ["--rules", "poker"],
        ["--level", "godlike", "--vs-computer"],
    ],
)
def test_usage_errors(monkeypatch, capsys, data, argv):
    rc, out, err = play(monkeypatch, capsys, data, argv, ["r"])
    assert rc == 2
    assert len(err.strip().splitlines()) == 1
    assert not (data / "games").exists()


def test_other_rule_set(monkeypatch, capsys, data):
    rc, out, _ = play(monkeypatch, capsys, data, ["--rules", "yatzy", "--seed", "4"], script_all_boxes(15))
    assert rc == 0
    assert "15 yatzy" in out and "game over" in out
    assert records.solo_best("yatzy", data) is not None


def test_a_card_without_upper_rows(monkeypatch, capsys, data):
    rc, out, err = play(
        monkeypatch, capsys, data, ["--rules", "yatzy+lower-only", "--seed", "4"], script_all_boxes(9)
    )
    assert rc == 0, err
    assert "9 yatzy" in out and "game over" in out
    assert "upper total" not in out and "upper bonus" not in out


# --- records -------------------------------------------------------------------------------------------
def test_data_folder_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("YAHTZEE_DATA", str(tmp_path / "a"))
    assert records.data_dir() == tmp_path / "a"
    assert records.data_dir(tmp_path / "b") == tmp_path / "b"
    monkeypatch.delenv("YAHTZEE_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert records.data_dir() == tmp_path / "xdg" / "yahtzee-solver"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert records.data_dir() == tmp_path / "home" / ".local" / "share" / "yahtzee-solver"
    assert records.games_dir(tmp_path) == tmp_path / "games"


def test_env_data_folder_is_used(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("YAHTZEE_DATA", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.StringIO("r\nq\n"))
    assert main(["play", "--seed", "1"]) == 0
    assert len(list((tmp_path / "games").glob("*.json"))) == 1


def test_records_writes_are_atomic(monkeypatch, tmp_path):
    """A game interrupted while it is stored leaves neither its row nor its record behind."""
    records.record_solo("yahtzee", 200, None, tmp_path)
    game = Game.new("yahtzee", ["Ann"], seed=1, info={"mode": "solo"})
    while not game.is_over:
        game.roll()
        game.score(next(iter(game.preview())))

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(records, "_offer_solo", interrupted)  # after the game row was written
    with pytest.raises(KeyboardInterrupt):
        records.store_game(game, tmp_path / "g.json", "finished", tmp_path, solo_record=True)
    assert records.stored_games(tmp_path) == []
    assert records.solo_best("yahtzee", tmp_path)["score"] == 200


def test_game_save_is_atomic(monkeypatch, tmp_path):
    game = Game.new("yahtzee", ["Ann"], seed=1, info={"mode": "solo"})
    path = tmp_path / "g.json"
    records.save_game(game, path, "in_progress")
    before = path.read_text()
    game.roll()
    game.score("chance")
    monkeypatch.setattr(records.os, "replace", lambda src, dst: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        records.save_game(game, path, "abandoned")
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


def test_record_only_improves(tmp_path):
    assert records.record_solo("yahtzee", 200, None, tmp_path) == (None, True)
    previous, is_new = records.record_solo("yahtzee", 150, None, tmp_path)
    assert previous["score"] == 200 and not is_new
    previous, is_new = records.record_solo("yahtzee", 260, None, tmp_path)
    assert previous["score"] == 200 and is_new
    assert records.solo_best("yahtzee", tmp_path)["score"] == 260
    assert records.solo_best("yatzy", tmp_path) is None


def test_corrupt_records_file_is_left_alone(monkeypatch, capsys, data):
    data.mkdir(parents=True)
    records.legacy_records_path(data).write_text("{not json")
    rc, out, err = play(monkeypatch, capsys, data, ["--seed", "1"], script_all_boxes())
    assert rc == 0
    assert "warning" in err and "unreadable" in err
    assert records.legacy_records_path(data).read_text() == "{not json"
    assert len(saved_games(data)) == 1  # the game file is saved all the same


# --- odd input and crashes ------------------------------------------------------------------------------
def test_superscript_digits_are_refused_not_a_crash(monkeypatch, capsys, data):
    lines = ["r", "h ²", "s ²", "s 13", "q"]
    rc, out, err = play(monkeypatch, capsys, data, ["--seed", "1"], lines)
    assert rc == 0 and "Traceback" not in err
    refusals = [line for line in out.splitlines() if line.startswith("! ")]
    assert refusals[0] == "! die number '²' is not a number from 1 to 5"
    assert refusals[1].startswith("! unknown box '²'")
    [game] = saved_games(data)
    assert game["status"] == "abandoned" and len(game["turns"]) == 1


def test_an_unexpected_error_still_saves_the_game(monkeypatch, capsys, data):
    class Breaking(io.StringIO):
        def readline(self, *a):
            line = super().readline(*a)
            if not line:
                raise RuntimeError("boom")
            return line

    with pytest.raises(RuntimeError, match="boom"):
        play(monkeypatch, capsys, data, ["--seed", "1"], [], stdin=Breaking("r\ns 13\nr\n"))
    assert "game stopped and saved" in capsys.readouterr().err
    [game] = saved_games(data)
    assert game["status"] == "abandoned" and len(game["turns"]) == 2


def test_seed_zero_is_not_real_dice():
    from solver.play.session import GameTables, Session

    def first_draw(**kw):
        game = Game.new("yahtzee", ["You"], info={"mode": "solo"}, **kw)
        return Session(game, None, GameTables()).rng.random()

    assert first_draw(seed=0) != first_draw(real_dice=True)
    assert first_draw(seed=0) == first_draw(seed=0)


def test_records_of_an_old_rule_set_name_count_under_its_canonical_spec(tmp_path):
    """1.0 kept ``yatzy-forced`` records; games are now recorded as ``yatzy+order=down``."""
    (tmp_path / "records.json").write_text(
        json.dumps(
            {
                "solo_best": {"yatzy-forced": {"score": 130, "date": "2026-01-01", "game": None}},
                "daily": {"2026-01-01 yatzy-forced": {"name": "Ann", "score": 120, "optimal": None}},
            }
        )
    )
    assert records.solo_best("yatzy+order=down", tmp_path)["score"] == 130
    assert records.record_solo("yatzy+order=down", 125, None, tmp_path) == (
        {"score": 130, "date": "2026-01-01", "game": None},
        False,
    )
    assert "2026-01-01 yatzy+order=down" in records.load_records(tmp_path)["daily"]
    # migrated once into the database, then renamed
    assert not (tmp_path / "records.json").exists() and (tmp_path / "records.json.migrated").exists()
    assert records.solo_best("yatzy+order=down", tmp_path)["score"] == 130


def test_the_suite_never_uses_the_users_folders(tmp_path_factory):
    """The defaults point into the session's temporary folder (tests/conftest.py), so a test that
    forgets ``--data`` or ``--tables`` writes nothing of the user's."""
    from solver.engine.tables import resolve_dir

    base = tmp_path_factory.getbasetemp()
    for folder in (records.data_dir(), resolve_dir(None)):
        assert base in folder.resolve().parents, folder


def test_play_help_shows_the_win_levels_rate(capsys):
    """argparse formats help with %: a lone % in --level's help once printed the action's dict."""
    assert main(["play", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "% against perfect" in out and "option_strings" not in out


def test_every_line_fits_80_columns(monkeypatch, capsys, data):
    """A long rule id, the help, the real-dice intro and a refusal naming every box: wrapped at words."""
    long_rules = "yahtzee+without=ones,twos,threes,four_of_a_kind,full_house,small_straight"
    rc, out, _ = play(
        monkeypatch,
        capsys,
        data,
        ["--rules", long_rules, "--real-dice"],
        ["help", "11111", "s bogus", "s yahtzee", "q"],
    )
    assert rc == 0
    lines = [line for line in out.splitlines() if os.sep not in line]  # a path stays whole, to copy
    assert lines and max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert any(line.startswith("! unknown box 'bogus'") for line in lines)  # wrapped too

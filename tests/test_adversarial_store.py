"""Adversarial cases for the store of games and records (issue 10, parts 1, 2, 4 and 6).

* Games finishing at the same moment in several processes, for two rule sets, in one data
  folder: no game and no record is lost, the best score is kept, an old ``records.json`` is
  migrated exactly once (fast: 5 trials; ``slow``: 100 trials).
* Game files that are not saved games: a FIFO, ``/dev/zero``, a folder, a huge file, JSON
  nested 100,000 deep: one line on stderr and exit 2, never a hang or a traceback.
* Forged saved games: seeded or daily dice without (or with a wrong) stream version are
  checked against the stream; ``format_version: true`` is not 1; player names with control
  characters are escaped when printed.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solver.cli.entry import main
from solver.core.errors import printable
from solver.play import records
from solver.play.game import Game, GameRecordError
from solver.play.review import PlayerReview, format_review

REPO = Path(__file__).resolve().parents[1]
RULE_SETS = ("yahtzee", "yatzy")
N_PROCS = 4


# --- concurrency -----------------------------------------------------------------------------
def _finished_game(rules_id: str, seed: int) -> Game:
    """A finished solo game: roll once each turn and score the first legal box (fast, no tables)."""
    game = Game.new(rules_id, ["You"], seed=seed, info={"mode": "solo"})
    while not game.is_over:
        game.roll()
        while game.rules.all_rolls and game.rolls_left:
            game.roll()
        game.score(next(iter(game.preview())))
    return game


def _finish_at_once(data: str, game: Game, barrier) -> None:
    path = records.new_game_path(game, data)
    barrier.wait()  # every process stores its game at the same moment
    records.save_game(game, path, "finished")
    records.store_game(game, path, "finished", data, solo_record=True)


def _race_trial(data: Path, trial: int) -> bool:
    """One trial: 4 processes (two per rule set) finish solo games at once in a fresh folder that
    holds a 1.x records.json; True when every game and the best score of each rule set are kept."""
    data.mkdir(parents=True)
    legacy = {
        "solo_best": {r: {"score": 1, "date": "2020-01-01", "game": None} for r in RULE_SETS},
        "daily": {"2020-01-01 yahtzee": {"name": "Old", "score": 99, "optimal": None}},
    }
    (data / "records.json").write_text(json.dumps(legacy))
    games = [_finished_game(RULE_SETS[i % 2], 1000 * trial + i) for i in range(N_PROCS)]
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(N_PROCS)
    procs = [ctx.Process(target=_finish_at_once, args=(str(data), g, barrier)) for g in games]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    if any(p.exitcode != 0 for p in procs):
        return False
    stored = records.stored_games(data)
    ok = len(stored) == N_PROCS and len(list((data / "games").glob("*.json"))) == N_PROCS
    for rules_id in RULE_SETS:
        best = max(g.cards[0].total for g in games if g.rules.id == rules_id)
        got = records.solo_best(rules_id, data)
        ok = ok and got is not None and got["score"] == best and Path(got["game"]).exists()
        ok = ok and records.statistics(rules_id, data)["games"] == 2
    ok = ok and records.load_records(data)["daily"]["2020-01-01 yahtzee"]["score"] == 99
    return ok and (data / "records.json.migrated").exists() and not (data / "records.json").exists()


def _races(tmp_path: Path, trials: int) -> int:
    good = sum(_race_trial(tmp_path / f"t{t}", t) for t in range(trials))
    print(f"\nconcurrent games without a lost record: {good} of {trials} trials ({N_PROCS} processes)")
    return good


def test_concurrent_games_never_lose_a_record(tmp_path):
    assert _races(tmp_path, 5) == 5


@pytest.mark.slow
def test_concurrent_games_never_lose_a_record_100_trials(tmp_path):
    assert _races(tmp_path, 100) == 100


@pytest.mark.subprocess
def test_concurrent_play_processes_keep_every_game_and_the_best(tmp_path):
    """The real CLI: four ``yahtzee play`` processes in one data folder, started together."""
    script = "".join(f"r\ns {i}\n" for i in range(1, 14))
    env = dict(os.environ, YAHTZEE_DATA=str(tmp_path))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "solver", "play", "--seed", str(seed)],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in (1, 2, 3, 4)
    ]
    outs = [p.communicate(script, timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [o[1] for o in outs]
    files = sorted((tmp_path / "games").glob("*.json"))
    scores = [json.loads(f.read_text())["final"][0]["score"] for f in files]
    assert len(scores) == 4 and len(records.stored_games(tmp_path)) == 4
    assert records.solo_best("yahtzee", tmp_path)["score"] == max(scores)


def test_stored_game_exports_to_a_file_review_reads(tmp_path):
    game = _finished_game("yatzy", 5)
    records.store_game(game, None, "finished", tmp_path)
    [row] = records.stored_games(tmp_path)
    out = records.export_game(row["id"], tmp_path / "out.json", tmp_path)
    again = records.load_game(out)
    assert again.cards[0].total == game.cards[0].total and again.info.seed == 5
    with pytest.raises(records.RecordsError, match="no stored game 99"):
        records.export_game(99, tmp_path / "x.json", tmp_path)


def test_import_checks_the_file_and_never_sets_a_record(tmp_path):
    path = records.save_game(_finished_game("yahtzee", 4), tmp_path / "g.json", "finished")
    records.import_game(path, tmp_path / "data")
    [row] = records.stored_games(tmp_path / "data")
    assert row["status"] == "finished" and records.solo_best("yahtzee", tmp_path / "data") is None
    forged = _forge_first_roll(json.loads(path.read_text()))
    path.write_text(json.dumps(forged))
    with pytest.raises(GameRecordError, match="not the dice of seed 4"):
        records.import_game(path, tmp_path / "data")
    assert len(records.stored_games(tmp_path / "data")) == 1


def test_a_corrupt_database_is_a_warning_and_the_game_file_is_still_saved(tmp_path, capsys, monkeypatch):
    (tmp_path / records.DB_FILE).write_bytes(b"this is not a SQLite database" * 100)
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("".join(f"r\ns {i}\n" for i in range(1, 14))))
    rc = main(["play", "--data", str(tmp_path), "--seed", "1"])
    out, err = capsys.readouterr()
    assert rc == 0 and "Traceback" not in err
    assert "warning" in err and "records database" in err
    assert len(list((tmp_path / "games").glob("*.json"))) == 1
    with pytest.raises(records.RecordsError, match="records database"):
        records.solo_best("yahtzee", tmp_path)


def test_an_unreadable_records_json_says_so_every_time_and_is_left_alone(tmp_path):
    (tmp_path / "records.json").write_text("[" * 100_000)
    for _ in range(2):  # the second time too: not a confusing "no such table"
        with pytest.raises(records.RecordsError, match="records.json is unreadable"):
            records.solo_best("yahtzee", tmp_path)
        with pytest.raises(records.RecordsError, match="records.json is unreadable"):
            records.record_solo("yahtzee", 10, None, tmp_path)
    assert (tmp_path / "records.json").read_text() == "[" * 100_000
    (tmp_path / "records.json").unlink()  # the user removes it: records are kept again
    assert records.record_solo("yahtzee", 10, None, tmp_path) == (None, True)


def test_storing_a_game_again_replaces_its_row(tmp_path):
    game = _finished_game("yahtzee", 3)
    path = tmp_path / "g.json"
    records.store_game(game, path, "in_progress", tmp_path)
    records.store_game(game, path, "finished", tmp_path)
    [row] = records.stored_games(tmp_path)
    assert row["status"] == "finished" and row["path"] == str(path)


def test_the_database_is_in_wal_mode(tmp_path):
    import sqlite3

    records.record_solo("yahtzee", 10, None, tmp_path)
    con = sqlite3.connect(records.db_path(tmp_path))
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


# --- game files that are not saved games --------------------------------------------------------
def _review_subprocess(path) -> subprocess.CompletedProcess:
    """``yahtzee review PATH`` in a child process, so a hang fails the test instead of blocking it."""
    return subprocess.run(
        [sys.executable, "-m", "solver", "review", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
    )


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_review_of_a_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    res = _review_subprocess(fifo)
    assert res.returncode == 2 and "not a regular file" in _one_line(res.stderr)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_review_of_dev_zero_does_not_read_forever():
    res = _review_subprocess("/dev/zero")
    assert res.returncode == 2 and "not a regular file" in _one_line(res.stderr)


def test_review_of_a_file_the_system_cannot_read_exits_1(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.json"
    path.write_text("{}")

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(records.os, "open", denied)
    rc, err = _review_error(capsys, path)
    assert rc == 1 and err.endswith(f"cannot read game file {path}: Permission denied")


def _review_error(capsys, path) -> tuple[int, str]:
    rc = main(["review", str(path)])
    return rc, _one_line(capsys.readouterr().err)


def test_review_of_a_folder(tmp_path, capsys):
    rc, err = _review_error(capsys, tmp_path)
    assert rc == 2 and "is a folder" in err


def test_review_of_a_huge_file(tmp_path, capsys):
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:
        fh.truncate(records.MAX_GAME_BYTES + 1)  # sparse: no disk used
    rc, err = _review_error(capsys, path)
    assert rc == 2 and f"larger than {records.MAX_GAME_BYTES} bytes" in err


@pytest.mark.parametrize("depth", [100_000, 1_000])
def test_review_of_deeply_nested_json(tmp_path, capsys, depth):
    path = tmp_path / "deep.json"
    path.write_text('{"format_version": 1, "x": ' + "[" * depth + "]" * depth + "}")
    rc, err = _review_error(capsys, path)
    assert rc == 2 and "nested" in err


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_review_of_an_unreadable_file_is_an_os_failure(tmp_path, capsys):
    path = tmp_path / "g.json"
    path.write_text("{}")
    path.chmod(0)
    rc, err = _review_error(capsys, path)
    assert rc == 1 and "cannot read game file" in err


# --- forged saved games ---------------------------------------------------------------------------
def _seeded_record(seed=7, rules_id="yahtzee") -> dict:
    return _finished_game(rules_id, seed).to_dict()


def _forge_first_roll(data: dict) -> dict:
    """Five sixes on the first roll (and the box and scores that follow from them dropped)."""
    roll = data["turns"][0]["rolls"][0]
    roll["values"] = roll["dice"] = [6, 6, 6, 6, 6]
    for key in ("score", "bonus"):
        data["turns"][0].pop(key, None)
    data.pop("final")
    return data


@pytest.mark.parametrize("version", ["missing", None, "1", True, 1.0, [1]])
def test_forged_seeded_dice_are_refused_whatever_the_stream_version(version):
    """Without a stream version the dice are checked against the stream; any version but the
    whole number 1 (a string, a bool, a float, null) is refused as such (issue 19)."""
    data = _forge_first_roll(_seeded_record(7))
    if version == "missing":
        del data["stream_version"]
        message = r"turn 1 roll 1: values 66666 are not the dice of seed 7"
    else:
        data["stream_version"] = version
        message = r"stream_version: .* is not a dice stream this version can replay"
    with pytest.raises(GameRecordError, match=message):
        Game.from_dict(data)


def test_forged_daily_dice_without_a_stream_version_are_refused():
    game = Game.new("yahtzee", ["Ann"], date="2026-10-17", info={"mode": "daily"})
    game.roll()
    game.score("chance")
    data = game.to_dict("abandoned")
    del data["stream_version"]
    data["turns"][0]["rolls"][0]["values"] = data["turns"][0]["rolls"][0]["dice"] = [1, 1, 1, 1, 1]
    data["turns"][0].pop("score")
    with pytest.raises(
        GameRecordError, match="turn 1 roll 1: values 11111 are not the dice of the daily dice"
    ):
        Game.from_dict(data)


def test_genuine_seeded_game_without_a_stream_version_still_replays():
    data = _seeded_record(7)
    del data["stream_version"]
    assert Game.from_dict(data).cards[0].total == data["final"][0]["score"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"stream_version": 2}, "stream_version: 2 is not a dice stream this version can replay"),
        ({"seed": None}, "seed: None is not a whole number"),
        ({"seed": "7"}, "seed: '7' is not a whole number"),
        ({"dice": "loaded"}, "dice: 'loaded' is not seeded, daily or real"),
        ({"format_version": True}, "format_version: True is not supported"),
        ({"format_version": 1.0}, "format_version: 1.0 is not supported"),
        ({"format_version": "1"}, "format_version: '1' is not supported"),
    ],
)
def test_forged_headers_are_refused(change, message):
    data = _seeded_record(7) | change
    with pytest.raises(GameRecordError, match=message):
        Game.from_dict(data)


def test_forged_game_file_gives_one_line_and_exit_2(tmp_path, capsys):
    data = _forge_first_roll(_seeded_record(7))
    del data["stream_version"]
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data))
    rc, err = _review_error(capsys, path)
    assert rc == 2 and "turn 1 roll 1: values 66666 are not the dice of seed 7" in err


def test_review_header_names_only_a_checked_seed():
    """A real-dice game claiming a seed is not shown as seeded."""
    game = Game.new("yahtzee", ["Ann"], real_dice=True, info={"mode": "solo"})
    data = game.to_dict("abandoned") | {"seed": 7}
    head = format_review(Game.from_dict(data), []).splitlines()[0]
    assert head == "Review: yahtzee, solo, real dice"


NASTY = "Ann\x1b[2J\nEvil\r\u202e\x07"


def test_control_characters_in_names_are_escaped_by_review(tmp_path):
    data = _seeded_record(7)
    data["players"][0]["name"] = NASTY
    for turn in data["turns"]:
        turn["player"] = NASTY
    data["final"][0]["name"] = NASTY
    game = Game.from_dict(data)
    review = PlayerReview(game.players[0].name, game.cards[0].total, True, ())
    text = format_review(game, [review])
    assert "\x1b" not in text and "\r" not in text and "\x07" not in text and "\u202e" not in text
    assert "Ann\\x1b[2J\\nEvil\\r\\u202e\\x07: " in text
    assert all(not line.startswith("Evil") for line in text.splitlines())
    assert printable("Zoë") == "Zoë"


def test_play_refuses_control_characters_in_names(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(""))
    rc = main(["play", "--data", str(tmp_path), "--players", "Ann,B\x1bob"])
    err = capsys.readouterr().err
    assert rc == 2 and "control characters" in _one_line(err) and "\x1b" not in err

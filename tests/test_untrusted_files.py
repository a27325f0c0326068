"""Saved games, the records database and input files are data, never code (issue 19, parts 1-4).

* A saved game names only builtin bots: resuming a file (or a database row) whose player names
  ``module:attr`` refuses it with one line and imports nothing.
* Game files are resolved inside the data folder's ``games`` folder: a database row pointing
  elsewhere (or through a symlink out of it) is never written; a copied data folder writes
  into the copy.
* Garbage rows and records are skipped with a one-line warning and the rest of the store keeps
  working; numbers in a game file are checked (range, type) before they are used.
* Input files are opened as regular files of bounded size without blocking (a FIFO,
  ``/dev/zero``, a huge file); a closed stdin under ``hint --batch -`` is one line.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import typed as run

from solver.play import records
from solver.play.game import Game, GameRecordError, Player

REPO = Path(__file__).resolve().parents[1]
#: a rule set whose table builds in milliseconds (five boxes)
SMALL = "yacht+lower-only"


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.delenv("YAHTZEE_DATA", raising=False)
    return tmp_path / "data"


@pytest.fixture
def tables(tmp_path):
    return tmp_path / "tables"


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def child(*args, cwd=REPO, stdin=subprocess.DEVNULL, timeout=60, **kw) -> subprocess.CompletedProcess:
    """``python -m solver ARGS`` in a child process (a hang fails the test instead of blocking it)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    env.pop("YAHTZEE_DATA", None)
    return subprocess.run(
        [sys.executable, "-m", "solver", *map(str, args)],
        cwd=cwd,
        env=env,
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )


def vs_bot_record(bot: str, rules_id: str = SMALL) -> dict:
    """An unfinished game against a computer whose player names ``bot``: the person's turn is next."""
    game = Game.new(
        rules_id,
        [Player("Ann"), Player("Computer (easy)", "bot", "frequent")],
        seed=5,
        info={"mode": "vs-computer", "level": "easy"},
    )
    data = game.to_dict("in_progress")
    data["players"][1]["bot"] = bot
    return data


def finished_solo(rules_id: str = SMALL, seed: int = 3) -> Game:
    game = Game.new(rules_id, ["You"], seed=seed, info={"mode": "solo"})
    while not game.is_over:
        game.roll()
        while game.rules.all_rolls and game.rolls_left:
            game.roll()
        game.score(next(iter(game.preview())))
    return game


def abandoned_solo(rules_id: str = SMALL, seed: int = 3) -> Game:
    game = Game.new(rules_id, ["You"], seed=seed, info={"mode": "solo"})
    game.roll()
    game.score(next(iter(game.preview())))
    return game


# --- 1. a saved game names only builtin bots -------------------------------------------------------
EVIL = "open({flag!r}, 'w').write('ran')\nclass Bot:\n    choose_keep = choose_box = print\n"


@pytest.fixture
def evil_module(tmp_path, monkeypatch):
    """A module ``evilbot_19`` in the current folder (and on sys.path) that leaves a file when imported."""
    flag = tmp_path / "imported"
    (tmp_path / "evilbot_19.py").write_text(EVIL.format(flag=str(flag)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "evilbot_19", raising=False)
    return flag


@pytest.mark.parametrize("bot", ["evilbot_19:Bot", "evilbot_19:nothing", " evilbot_19:Bot"])
def test_resuming_a_file_that_names_a_module_bot_imports_nothing(
    tmp_path, capsys, monkeypatch, data, tables, evil_module, bot
):
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(vs_bot_record(bot)))
    before = path.read_bytes()
    argv = ["play", "--resume", str(path), "--data", str(data), "--tables", str(tables)]
    rc, out, err = run(monkeypatch, capsys, argv, ["r", "s 1", "q"])
    line = one_line(err)
    assert rc == 2 and "player 2" in line and repr(bot) in line
    assert "not a builtin bot" in line and "command line" in line
    assert not evil_module.exists() and "evilbot_19" not in sys.modules
    assert path.read_bytes() == before  # nothing lost, nothing rewritten


def test_resuming_a_database_row_that_names_a_module_bot_imports_nothing(
    capsys, monkeypatch, data, tables, evil_module
):
    game = Game.from_dict(vs_bot_record("frequent"))
    path = records.new_game_path(game, data)
    records.save_game(game, path, "in_progress")
    records.store_game(game, path, "in_progress", data)
    con = sqlite3.connect(records.db_path(data))
    con.execute("UPDATE games SET json = ?", (json.dumps(vs_bot_record("evilbot_19:Bot")),))
    con.commit()
    con.close()
    rc, out, err = run(
        monkeypatch, capsys, ["play", "--resume", "--data", str(data), "--tables", str(tables)]
    )
    assert rc == 2 and "'evilbot_19:Bot' is not a builtin bot" in one_line(err)
    assert not evil_module.exists() and "evilbot_19" not in sys.modules


def test_resuming_a_file_naming_this_prints_no_zen(tmp_path):
    """In a child process, with the file's folder as the current folder: ``this`` is not imported."""
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(vs_bot_record("this:x")))
    res = child(
        "play", "--resume", path, "--data", tmp_path / "data", "--tables", tmp_path / "t", cwd=tmp_path,
        input="r\ns 1\nq\n", stdin=None,
    )  # fmt: skip
    assert res.returncode == 2 and "'this:x' is not a builtin bot" in one_line(res.stderr)
    assert "Beautiful is better than ugly" not in res.stdout + res.stderr


def test_a_saved_game_may_name_builtin_bots_only():
    for bot in ("frequent", "Random", "win", "target:300", "target: 120 "):
        assert Game.from_dict(vs_bot_record(bot)).players[1].bot == bot
    for bot in ("this:x", "os:system", "solver.play.bots:RandomBot", "target:300:x", "optimal2"):
        with pytest.raises(GameRecordError, match="is not a builtin bot"):
            Game.from_dict(vs_bot_record(bot))


def test_get_bot_refuses_modules_where_only_builtin_bots_may_be(evil_module):
    from solver.core.errors import UsageError
    from solver.play.bots import get_bot, is_builtin_bot

    with pytest.raises(UsageError, match="'evilbot_19:Bot' is not a builtin bot"):
        get_bot("evilbot_19:Bot", SMALL, user_bots=False)
    assert not evil_module.exists() and "evilbot_19" not in sys.modules
    assert get_bot("frequent", SMALL, user_bots=False).name == "frequent"
    assert is_builtin_bot("target:300") and not is_builtin_bot("this:x") and not is_builtin_bot(7)


# --- 2. game files live in the data folder's games folder ---------------------------------------
def _store_unfinished(data: Path, path: Path) -> Game:
    """An abandoned solo game kept in the database under the file ``path`` (as a forged row would)."""
    game = abandoned_solo()
    records.store_game(game, path, "abandoned", data)
    return game


def test_a_database_row_pointing_outside_the_games_folder_is_never_written(
    tmp_path, capsys, monkeypatch, data, tables
):
    victim = tmp_path / "precious.txt"
    victim.write_text("precious")
    _store_unfinished(data, victim)
    rc, out, err = run(
        monkeypatch, capsys, ["play", "--resume", "--data", str(data), "--tables", str(tables)], ["r", "q"]
    )
    assert rc == 2 and "no unfinished game to resume" in err and "Traceback" not in err
    assert "outside" in err and str(victim) in err  # the skipped row is named in a warning
    assert victim.read_text() == "precious"


def test_a_path_through_a_symlinked_folder_is_never_written(tmp_path, capsys, monkeypatch, data, tables):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "precious.json"
    victim.write_text("precious")
    records.games_dir(data).mkdir(parents=True)
    (records.games_dir(data) / "sub").symlink_to(outside)
    _store_unfinished(data, records.games_dir(data) / "sub" / "precious.json")
    rc, out, err = run(
        monkeypatch, capsys, ["play", "--resume", "--data", str(data), "--tables", str(tables)], ["r", "q"]
    )
    assert rc == 2 and "no unfinished game to resume" in err and "outside" in err
    assert victim.read_text() == "precious" and os.listdir(outside) == ["precious.json"]


def test_review_last_skips_a_row_outside_the_games_folder(tmp_path, capsys, monkeypatch, data, tables):
    outside = records.save_game(finished_solo(), tmp_path / "elsewhere.json", "finished")
    records.store_game(finished_solo(), outside, "finished", data)
    rc, out, err = run(
        monkeypatch, capsys, ["review", "--last", "--data", str(data), "--tables", str(tables)]
    )
    assert rc == 2 and "no finished game" in err and "outside" in err


def _play_and_quit(data: Path, tables: Path) -> Path:
    res = child("play", "--seed", "4", "--rules", SMALL, "--data", data, "--tables", tables, input="r\ns 1\nq\n",
                stdin=None)  # fmt: skip
    assert res.returncode == 0, res.stderr
    [path] = (data / "games").glob("*.json")
    return path


def test_a_copied_data_folder_writes_into_the_copy(tmp_path, tables):
    original = tmp_path / "original"
    game_file = _play_and_quit(original, tables)
    kept = game_file.read_bytes()
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    res = child("play", "--resume", "--data", copy, "--tables", tables, input="r\ns 2\nq\n", stdin=None)
    assert res.returncode == 0, res.stderr
    assert game_file.read_bytes() == kept  # the original is untouched
    resumed = json.loads((copy / "games" / game_file.name).read_text())
    assert len(resumed["turns"]) == 2
    [row] = records.stored_games(copy)
    assert Path(row["path"]) == copy / "games" / game_file.name


def test_an_old_database_with_absolute_paths_is_migrated_and_rebased(tmp_path, data):
    """A version-1 database names its game files by absolute path: a copy of the folder reads them
    from the copy, and a row naming a file elsewhere keeps its path but is never used."""
    game = abandoned_solo()
    inside = records.save_game(game, records.new_game_path(game, data), "abandoned")
    records.store_game(game, inside, "abandoned", data)
    elsewhere = records.save_game(finished_solo(), tmp_path / "elsewhere.json", "finished")
    records.store_game(finished_solo(), elsewhere, "finished", data)
    con = sqlite3.connect(records.db_path(data))  # what version 1 wrote
    con.execute("UPDATE games SET path = ? WHERE status = 'abandoned'", (str(inside.resolve()),))
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    path, _ = records.unfinished_game(copy)
    assert Path(path) == copy / "games" / inside.name
    rows = {r["status"]: r["path"] for r in records.stored_games(copy)}
    assert rows == {"abandoned": str(copy / "games" / inside.name), "finished": str(elsewhere)}
    con = sqlite3.connect(records.db_path(copy))
    stored = dict(con.execute("SELECT status, path FROM games"))
    version = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    con.close()
    assert stored["abandoned"] == f"games/{inside.name}" and version == str(records.SCHEMA_VERSION)
    assert records.last_finished_path(copy) is None  # elsewhere.json is not in the games folder


# --- 3. garbage rows and records; numbers in game files ------------------------------------------
def _garbage(data: Path) -> None:
    """A database holding one good finished game, one good unfinished one, and garbage rows."""
    good = finished_solo(SMALL, 3)
    path = records.save_game(good, records.new_game_path(good, data), "finished")
    records.store_game(good, path, "finished", data, solo_record=True)
    open_game = abandoned_solo(SMALL, 4)
    path = records.save_game(open_game, records.new_game_path(open_game, data), "abandoned")
    records.store_game(open_game, path, "abandoned", data)
    con = sqlite3.connect(records.db_path(data))
    row = "INSERT INTO games (path, rules, mode, status, players, scores, saved_at, json) VALUES (?,?,?,?,?,?,?,?)"
    bad_json = [
        "not json",
        "[1, 2]",
        '{"rules": "no-such-rules", "mode": "solo", "players": [{"name": "You"}], "final": [{"score": 5}]}',
        '{"rules": "yacht+lower-only", "mode": "solo", "players": ["You"], "final": [{"score": 1e30, "card": 5}]}',
        '{"rules": "yacht+lower-only", "mode": "solo", "final": [{"score": ' + "9" * 5000 + "}]}",
    ]
    for i, text in enumerate(bad_json):
        con.execute(row, (None, SMALL, "solo", "finished", "garbage", "[", f"t{i}", text))
    con.execute(row, ("games/../../x.json", SMALL, "solo", "abandoned", "[]", "[]", "t", "not json"))
    con.execute("INSERT OR REPLACE INTO solo_best VALUES ('yahtzee', 'abc', NULL, NULL)")
    con.execute("INSERT OR REPLACE INTO solo_best VALUES ('yatzy', 1e30, NULL, NULL)")
    con.execute("INSERT OR REPLACE INTO solo_best VALUES ('yacht', ?, NULL, NULL)", ("9" * 5000,))
    con.execute("INSERT INTO daily VALUES ('garbage', 'yahtzee', 'Ann', 10, NULL)")
    con.execute("INSERT INTO daily VALUES ('2026-01-02', 'yahtzee', 'Ann', 'ten', 'abc')")
    con.execute("INSERT INTO daily VALUES ('2026-01-03', 'yahtzee', NULL, 120, 'abc')")
    con.commit()
    con.close()


def test_stats_skips_garbage_rows_with_a_warning_each(capsys, monkeypatch, data):
    _garbage(data)
    rc, out, err = run(monkeypatch, capsys, ["stats", "--json", "--data", str(data)])
    assert rc == 0 and "Traceback" not in err, err
    result = json.loads(out)
    assert result["rules"][SMALL]["games"] == 1
    assert result["rules"][SMALL]["record"] == finished_solo(SMALL, 3).cards[0].total
    assert "yahtzee" not in result["rules"] and "yatzy" not in result["rules"]
    assert [d["date"] for d in result["daily"]["history"]] == ["2026-01-03"]
    assert result["daily"]["history"][0]["optimal"] is None
    warnings = err.strip().splitlines()
    assert len(warnings) >= 6 and all(w.startswith("yahtzee: warning: ") for w in warnings)
    assert all(len(w) < 400 for w in warnings)
    rc, out, err = run(monkeypatch, capsys, ["stats", "--data", str(data)])
    assert rc == 0 and f"{SMALL}: 1 game finished" in out


def test_resume_review_and_new_games_work_beside_garbage_rows(capsys, monkeypatch, data, tables):
    _garbage(data)
    rc, out, err = run(
        monkeypatch, capsys, ["review", "--last", "--data", str(data), "--tables", str(tables)]
    )
    assert rc == 0 and "Traceback" not in err, err
    argv = ["play", "--resume", "--data", str(data), "--tables", str(tables)]
    rc, out, err = run(monkeypatch, capsys, argv, ["r", "q"])
    assert rc == 0 and "game resumed where it stopped" in out and "Traceback" not in err, err
    for rules_id in ("yahtzee", "yatzy"):  # a new game beats the garbage record
        seed, boxes = {"yahtzee": ("1", 13), "yatzy": ("4", 15)}[rules_id]  # as tests/test_play_cli.py
        script = [x for i in range(1, boxes + 1) for x in ("r", f"s {i}")]
        argv = ["play", "--seed", seed, "--rules", rules_id, "--data", str(data), "--tables", str(tables)]
        rc, out, err = run(monkeypatch, capsys, argv, script)
        assert rc == 0 and "Traceback" not in err, err
        assert f"first record for {rules_id}" in out
        assert records.solo_best(rules_id, data)["score"] > 0


def test_daily_played_and_the_solo_record_ignore_garbage(data):
    _garbage(data)
    assert records.solo_best("yahtzee", data) is None
    assert records.daily_played("2026-01-02", "yahtzee", data) is None
    assert records.record_solo("yatzy", 200, None, data) == (None, True)
    assert records.record_daily("2026-01-02", "yahtzee", "Ben", 150, None, data) is None
    assert records.daily_played("2026-01-02", "yahtzee", data) == {
        "name": "Ben",
        "score": 150,
        "optimal": None,
    }


@pytest.mark.parametrize(
    "score", ["1" + "0" * 30, "9" * 5000, "1e30", "-5", "true", '"250"', "1e400"], ids=lambda s: s[:8]
)
def test_records_json_with_bad_scores_migrates_the_rest(capsys, monkeypatch, data, score):
    data.mkdir(parents=True)
    text = (
        '{"solo_best": {"yahtzee": {"score": ' + score + ', "date": "2020-01-01", "game": null},'
        ' "yatzy": {"score": 240, "date": "2020-01-02", "game": null}},'
        ' "daily": {"2020-01-01 yahtzee": {"name": "Ann", "score": ' + score + ', "optimal": ' + score + "},"
        ' "2020-01-02 yahtzee": {"name": "Ann", "score": 99, "optimal": ' + score + "}}}"
    )
    records.legacy_records_path(data).write_text(text)
    rc, out, err = run(monkeypatch, capsys, ["stats", "--json", "--data", str(data)])
    assert rc == 0 and "Traceback" not in err, err
    warnings = err.strip().splitlines()
    assert 1 <= len(warnings) <= 3 and all(
        w.startswith("yahtzee: warning: ") and len(w) < 300 for w in warnings
    )
    assert records.solo_best("yahtzee", data) is None
    assert records.solo_best("yatzy", data)["score"] == 240
    assert [(d["date"], d["score"], d["optimal"]) for d in records.daily_results(data)] == [
        ("2020-01-02", 99, None)
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seed": 2**64 + 1}, "seed must be from 0 to 18446744073709551615, got 18446744073709551617"),
        ({"seed": -1}, "seed must be from 0 to 18446744073709551615, got -1"),
        ({"seed": 10**30}, "seed must be from 0 to"),
        ({"stream_version": 2.0}, "stream_version: 2.0 is not"),
        ({"stream_version": True}, "stream_version: True is not"),
        ({"stream_version": "1"}, "stream_version: '1' is not"),
        ({"mode": "../../x"}, "mode: '../../x' is not a game mode"),
        ({"mode": ["solo"]}, "mode: ['solo'] is not a game mode"),
        ({"assisted": [1]}, "assisted: [1] is not a list of"),
        ({"target": 10**40}, "target must be from 1 to"),
        ({"date": 20260101}, "date: 20260101 is not a date"),
        ({"level": 3}, "level: 3 is not a computer level"),
    ],
)
def test_numbers_and_fields_of_a_game_file_are_checked(change, message):
    data = finished_solo(SMALL, 7).to_dict() | change
    with pytest.raises(GameRecordError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Game.from_dict(data)


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("values", [10**4000, 2, 3, 4, 5], "die a number of about 4000 digits is not a face"),
        ("dice", [10**4000], "dice [100000000000000000000000000000000000... do not follow"),
        ("held", [10**4000], "die number a number of about 4000 digits"),
        ("score", True, "score True is not"),
        ("score", 10**4000, "the file says a number of about 4000 digits"),
        ("bonus", False, "bonus False is not"),
        ("player", 10**4000, "the file says a number of about 4000 digits"),
        ("box", 10**4000, "box a number of about 4000 digits is not a box name"),
    ],
    ids=["values", "dice", "held", "score-bool", "score-huge", "bonus-bool", "player", "box"],
)
def test_huge_negative_and_boolean_numbers_in_turns_are_one_line(where, value, message):
    data = finished_solo(SMALL, 7).to_dict()
    turn = data["turns"][1]
    if where in ("values", "dice"):
        turn["rolls"][0][where] = value
    elif where == "held":
        turn["rolls"].append({"held": value, "values": [1], "dice": [1, 1, 1, 1, 1]})
    else:
        turn[where] = value
    with pytest.raises(GameRecordError) as caught:
        Game.from_dict(data)
    text = str(caught.value)
    assert message in text and len(text) < 300 and "\n" not in text


def test_a_huge_number_in_a_game_file_is_one_line(tmp_path, capsys, monkeypatch, tables):
    path = tmp_path / "g.json"
    text = json.dumps(finished_solo(SMALL, 7).to_dict()).replace('"seed": 7', '"seed": 7' + "0" * 5000)
    path.write_text(text)
    rc, out, err = run(monkeypatch, capsys, ["review", str(path), "--tables", str(tables)])
    assert rc == 2 and "holds a number of 5001 digits" in one_line(err) and len(err) < 300


@pytest.mark.parametrize("where", ["turn", "final", "twice"])
def test_a_long_player_name_is_shortened_in_the_refusal(where):
    """A name of 100,000 characters in a forged file is quoted shortened, as every refused value is."""
    data = finished_solo(SMALL, 7).to_dict()
    long = "x" * 100_000
    if where == "turn":  # the players' name, not the turns'
        data["players"][0]["name"] = long
    elif where == "final":
        data["players"][0]["name"] = long
        for turn in data["turns"]:
            turn["player"] = long
        data["final"][0] |= {"name": long, "score": data["final"][0]["score"] + 1}
    else:
        data["players"] = [{"name": long}, {"name": long}]
    with pytest.raises(GameRecordError) as caught:
        Game.from_dict(data)
    text = str(caught.value)
    assert len(text) < 300 and "\n" not in text, text[:400]


def test_final_scores_must_be_whole_numbers():
    data = finished_solo(SMALL, 7).to_dict()
    data["final"][0]["score"] = float(data["final"][0]["score"])
    with pytest.raises(GameRecordError, match=r"final: You scored \d+, the file says \d+\.0"):
        Game.from_dict(data)


# --- 4. input files: regular files of bounded size, opened without blocking -----------------------
def test_hint_batch_of_a_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "positions.jsonl"
    os.mkfifo(fifo)
    res = child("hint", "--batch", fifo, "--rules", SMALL, "--tables", tmp_path / "t", timeout=30)
    assert res.returncode == 2 and "is a FIFO, not a regular file" in one_line(res.stderr)
    assert "--batch -" in res.stderr  # a pipe is read through stdin


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_hint_batch_of_dev_zero_is_refused(tmp_path):
    res = child(
        "hint", "--batch", "/dev/zero", "--rules", SMALL, "--tables", tmp_path / "t", timeout=30,
        preexec_fn=_limit_memory,
    )  # fmt: skip
    assert res.returncode == 2 and "not a regular file" in one_line(res.stderr)


def test_hint_batch_of_a_huge_file_is_refused(tmp_path, capsys, monkeypatch):
    from solver.cli import hint

    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as fh:
        fh.truncate(hint.MAX_BATCH_BYTES + 1)  # sparse: no disk used
    rc, out, err = run(monkeypatch, capsys, ["hint", "--batch", str(path), "--tables", str(tmp_path / "t")])
    assert rc == 2 and f"more than the {hint.MAX_BATCH_BYTES} allowed" in one_line(err)


def test_hint_batch_stdin_closed_is_one_line(tmp_path):
    res = child(
        "hint", "--batch", "-", "--rules", SMALL, "--tables", tmp_path / "t", stdin=None,
        preexec_fn=lambda: os.close(0),
    )  # fmt: skip
    assert res.returncode == 1 and "stdin is closed" in one_line(res.stderr)


def test_records_json_as_a_fifo_does_not_block_stats(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    os.mkfifo(data / "records.json")
    res = child("stats", "--data", data, timeout=30)
    assert res.returncode == 1 and "records.json is a FIFO, not a regular file" in one_line(res.stderr)


def _limit_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # reading /dev/zero ends, if it is read


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_records_json_linked_to_dev_zero_is_refused(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "records.json").symlink_to("/dev/zero")
    res = child("stats", "--data", data, timeout=30, preexec_fn=_limit_memory)
    assert res.returncode == 1 and "is a character device, not a regular file" in one_line(res.stderr)


def test_a_huge_records_json_is_refused(tmp_path, capsys, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    with open(data / "records.json", "wb") as fh:
        fh.truncate(records.MAX_RECORDS_BYTES + 1)
    rc, out, err = run(monkeypatch, capsys, ["stats", "--data", str(data)])
    assert rc == 1 and f"more than the {records.MAX_RECORDS_BYTES} allowed" in one_line(err)

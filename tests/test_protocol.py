"""Bots in any language (:mod:`solver.play.protocol`): a bot program over JSON lines plays the
same games as the bot it wraps, the example bots (Python, JavaScript) play end to end, and every
way a bot can go wrong is one line naming the game and the decision, its process reaped."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from solver.cli.entry import main
from solver.core.rules import get_rules
from solver.play import protocol
from solver.play.protocol import BotError, ProtocolBot
from solver.play.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]
BOTS = Path(__file__).parent / "data" / "bots"
PY = sys.executable
EXAMPLE_PY = f"cmd:{PY} {ROOT / 'scripts' / 'bots' / 'example_bot.py'}"
EXAMPLE_JS = f"cmd:node {ROOT / 'scripts' / 'bots' / 'example_bot.js'}"
need_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def wrapped(bot: str) -> str:
    return f"cmd:{PY} {BOTS / 'wrap_bot.py'} {bot}"


def bad(how: str, at: int = 3) -> str:
    return f"cmd:{PY} {BOTS / 'bad_bot.py'} {how} {at}"


@pytest.mark.parametrize("rules", ["yahtzee", pytest.param("yatzy+all-rolls", marks=pytest.mark.slow)])
def test_a_bot_program_plays_the_games_of_the_bot_it_wraps(rules, monkeypatch, tables_dir):
    """The greedy bot answering over the protocol, several batches of games in lockstep (each
    step in two messages), scores exactly what the greedy bot scores in process, game by game."""
    monkeypatch.setattr(protocol, "BATCH", 7)  # 20 games: batches of 7, 7 and 6
    tables_dir.table(rules)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    kw = {"games": 20, "seed": 9, "game0": 3, "keep_cards": True, "regret": True, "tables_dir": tables_dir}
    here = simulate(rules, "greedy", engine="python", **kw)
    there = simulate(rules, wrapped("greedy"), **kw)
    assert there.engine == "protocol"
    assert np.array_equal(here.cards, there.cards) and np.array_equal(here.scores, there.scores)
    # and each game's decisions graded alike: the same losses, game by game
    assert np.array_equal(here.regret.game_loss, there.regret.game_loss)
    assert np.array_equal(here.regret.box_loss, there.regret.box_loss) and here.regret.game_loss.sum() > 0


def test_a_match_asks_a_bot_program_for_many_games_at_once(monkeypatch):
    """In a match the bot program is asked for the decisions of many games per message (in
    lockstep, as a simulation asks it), and sees the very positions -- opponents' cards included
    -- and plays the very games it saw one decision at a time; beside a bot that draws from its
    game's random choices and one that does not."""
    from solver.play import match as M

    monkeypatch.setattr(protocol, "BATCH", 7)  # 20 games: blocks of 7, 7 and 6
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    sent = []
    ask = ProtocolBot.ask

    def recording(self, positions):
        sent.append(positions)
        ask(self, positions)

    monkeypatch.setattr(ProtocolBot, "ask", recording)
    bots = [wrapped("greedy"), "random", "heuristic"]
    batched = M.play_match("yahtzee", bots, games=20, seed=5, engine="python")
    batched_sent, sent[:] = list(sent), []
    n = sum(len(m) for m in batched_sent)
    assert n > 20 * 13 * 2 and len(batched_sent) * 3 < n  # one message each before
    assert max(len(m) for m in batched_sent) == 4  # half of a block of 7
    monkeypatch.setattr(M, "_lockstep_ok", lambda bots: False)  # one decision per message
    single = M.play_match("yahtzee", bots, games=20, seed=5, engine="python")
    here = M.play_match("yahtzee", ["greedy", "random", "heuristic"], games=20, seed=5, engine="python")
    assert np.array_equal(batched.scores, single.scores) and np.array_equal(batched.scores, here.scores)
    key = lambda p: (p["game"], p["turn"], p["roll"])  # noqa: E731
    positions = sorted((p for m in batched_sent for p in m), key=key)
    assert positions == sorted((p for m in sent for p in m), key=key)
    assert all(len(p["opponents"]) == 2 for p in positions)


@pytest.mark.slow  # seconds: CI runs it, the fast loop leaves it out
def test_the_example_bots_agree_and_play_a_match(capsys):
    """The Python and JavaScript example bots play the same strategy: the same scores, game by
    game; the JavaScript one plays a match against optimal from the command line."""
    py = simulate("yahtzee", EXAMPLE_PY, games=300, seed=2, keep_cards=True)
    assert 120 < py.scores.mean() < 200  # the frequent-face strategy: about 160
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    js = simulate("yahtzee", EXAMPLE_JS, games=300, seed=2, keep_cards=True)
    assert np.array_equal(py.cards, js.cards)
    assert main(["match", "--bots", f"{EXAMPLE_JS},greedy", "--games", "40", "--seed", "1", "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert [p["bot"] for p in out["players"]] == [EXAMPLE_JS, "greedy"]
    assert out["games"] == 40


@pytest.mark.parametrize(
    "how, at, words",
    [
        ("crash", 3, "exited with code 3 at 256 decisions from game "),
        ("garbage", 3, 'a line that is not JSON: "this is not JSON"'),
        ("short", 3, "with 255 moves"),
        ("illegal-keep", 1, "game 0, turn 1, the keep after roll 1: kept [7, 7] from dice"),
        ("illegal-box", 3, 'game 0, turn 1, the box: "nowhere" is not a legal box'),
        # what the bot sent, quoted as JSON (the protocol's notation), not as a Python repr
        (
            "wrong-kind",
            1,
            'game 0, turn 1, the keep after roll 1: answered {"box": "chance"}, not {"keep": ...}',
        ),
        ("string-keep", 1, 'the keep after roll 1: answered {"keep": "33"}, not {"keep": ...}'),
        ("huge-box", 3, 'the box: answered {"box": "\u00e9\u00e9\u00e9'),
        ("no-ready", 1, "answered the start with"),
    ],
)
def test_a_bot_that_goes_wrong_is_one_line_and_reaped(how, at, words):
    bot = ProtocolBot(bad(how, at)[4:], get_rules("yahtzee"))
    with pytest.raises(BotError) as info:
        simulate("yahtzee", bot, games=512, seed=1)
    message = str(info.value)
    assert words in message and "\n" not in message and message.startswith(f"bot {bot.name}")
    assert len(message) < len(bot.name) + 300  # what the bot sent is cut short
    proc = bot._proc
    bot.close()
    assert bot._proc is None and (proc is None or proc.poll() is not None)


@pytest.mark.slow  # seconds: CI runs it, the fast loop leaves it out
def test_a_slow_bot_times_out_and_is_killed(monkeypatch):
    monkeypatch.setattr(protocol, "DEFAULT_TIMEOUT", 0.5)
    bot = ProtocolBot(bad("sleep", 2)[4:], get_rules("yahtzee"))
    with pytest.raises(
        BotError, match=r"did not answer 6 decisions from game 6, turn 1, the keep after roll 1 within 0.5 s"
    ):
        simulate("yahtzee", bot, games=12, seed=1)
    proc = bot._proc
    bot.close()  # quit is not read: killed after 2 s
    assert proc.poll() is not None


def test_the_cli_says_one_line_and_exits_2(capsys):
    code = main(["simulate", "--bot", bad("illegal-box"), "--games", "10", "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "is not a legal box" in err[0], err
    code = main(["simulate", "--bot", "cmd:node 'unclosed", "--games", "10", "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "No closing quotation" in err[0], err
    code = main(["simulate", "--bot", "cmd:/nonexistent/bot", "--games", "10", "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "could not start" in err[0], err


def test_programs_are_seated_from_the_command_line_only():
    from solver.core.errors import UsageError
    from solver.core.rules import get_rules
    from solver.play.bots import get_bot
    from solver.play.session import players_from_names

    rules = get_rules("yahtzee")
    with pytest.raises(UsageError, match="command line only"):
        players_from_names("Ann,cmd:node bot.js", rules)  # the web's (a request's) names
    seated = players_from_names("Ann,cmd:node bot.js", rules, programs=True)
    assert [(p.kind, p.bot) for p in seated] == [("human", None), ("bot", "cmd:node bot.js")]
    with pytest.raises(UsageError, match="not a builtin bot"):
        get_bot("cmd:node bot.js", rules, user_bots=False)  # a saved game's players run nothing


def test_play_against_a_bot_program(tmp_path, tables_dir, monkeypatch, capsys):
    """``play --players "You,cmd:..."``: the program plays its turns; the game is saved with it."""
    import io
    import json

    tables_dir.table("yahtzee")
    monkeypatch.setattr(sys, "stdin", io.StringIO("r\ns chance\n" + "q\n"))
    code = main(
        [
            "play",
            "--players",
            f"You,{EXAMPLE_PY}",
            "--seed",
            "4",
            "--tables",
            str(tables_dir),
            "--data",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "example (Python)" in out and "Bot 2" not in out  # the name it gave
    [saved] = (tmp_path / "games").glob("*.json")
    record = json.loads(saved.read_text())
    assert record["players"][1] == {"name": "example (Python)", "kind": "bot", "bot": EXAMPLE_PY}
    assert "box" in record["turns"][1]


def test_a_bot_program_is_shown_by_the_name_it_gives(monkeypatch, capsys):
    """``match`` and ``simulate`` tables name a program by its ``ready`` name (two programs of
    one name numbered), not by its command cut from the left; the JSON keeps the command as
    ``bot`` beside the ``name``."""
    import json

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    greedy = wrapped("greedy")
    assert main(["match", "--bots", f"{greedy},{greedy}", "--games", "4", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "wrapped greedy #1" in out and "wrapped greedy #2" in out and "~" not in out
    assert main(["match", "--bots", f"{greedy},random", "--games", "4", "--quiet", "--json"]) == 0
    players = json.loads(capsys.readouterr().out)["players"]
    assert [(p["bot"], p["name"]) for p in players] == [(greedy, "wrapped greedy"), ("random", "random")]
    assert main(["simulate", "--bot", greedy, "--games", "4", "--quiet", "--no-regret"]) == 0
    report = " ".join(capsys.readouterr().out.split())  # the report wraps at 80 columns
    assert f"yahtzee: wrapped greedy ({greedy})," in report


# --------------------------------------------------------------------------- what a bot starts ends with it


def forking(how: str, at: int, pidfile: Path) -> str:
    """A bad_bot.py that first starts a child sleeping a minute (its pid in ``pidfile``)."""
    return f"cmd:{PY} {BOTS / 'bad_bot.py'} {how} {at} {pidfile}"


def running(pid: int) -> bool:
    """Whether process ``pid`` still runs (not ended, nor a zombie its parent has yet to reap)."""
    if not os.path.isdir("/proc/self"):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def ended(pid: int, within: float = 2.0) -> bool:
    deadline = time.monotonic() + within
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not running(pid)


@pytest.fixture
def pidfile(tmp_path):
    """Where a forking bot writes its child's pid; the child is killed after the test whatever happens."""
    path = tmp_path / "child.pid"
    yield path
    if path.exists() and running(pid := int(path.read_text())):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
@pytest.mark.parametrize("how", ["none", "crash"])
def test_what_a_bot_program_started_ends_with_it(how, pidfile):
    """A bot that started a process of its own -- then played to the end, or crashed: when the
    simulation returns (or raises), that process has been ended with the bot."""
    if how == "crash":
        with pytest.raises(BotError, match="exited with code 3"):
            simulate("yahtzee", forking(how, 2, pidfile), games=20, seed=1)
    else:
        assert simulate("yahtzee", forking(how, 2, pidfile), games=20, seed=1).games == 20
    assert ended(int(pidfile.read_text()))


def cli(*args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [PY, "-m", "solver", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT, **kw
    )


@pytest.mark.subprocess  # the command line as a child process
@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
@pytest.mark.parametrize("command", ["simulate", "match"])
def test_the_command_returns_promptly_whatever_the_bot_started(command, pidfile):
    """``simulate`` / ``match`` with such a bot: the command's stderr is not held open by the
    bot's child (a caller reading it to the end waited a minute), and the child is gone."""
    bot = forking("none", 0, pidfile)
    args = ["--bot", bot] if command == "simulate" else ["--bots", f"{bot},random"]
    proc = cli(
        command, *args, "--games", "20", "--quiet", *(["--no-regret"] if command == "simulate" else [])
    )
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{command} did not return within 30 s: its stderr held open by the bot's child")
    assert proc.returncode == 0, err[-2000:]
    assert ended(int(pidfile.read_text()))


@pytest.mark.subprocess  # the command line as a child process
@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
def test_ctrl_c_ends_the_bot_and_what_it_started(pidfile):
    """Ctrl-C while a bot thinks (it sleeps): exit 130 within seconds, the bot's child gone."""
    proc = cli("simulate", "--bot", forking("sleep", 1, pidfile), "--games", "20", "--quiet", "--no-regret")
    try:
        deadline = time.monotonic() + 20
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the bot has the first decide message: it sleeps
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("simulate did not return within 15 s of Ctrl-C")
    assert proc.returncode == 130, err[-2000:]
    assert ended(int(pidfile.read_text()))


def test_play_with_a_bot_that_names_an_illegal_box_is_one_line(tmp_path, tables_dir, monkeypatch, capsys):
    """The error names the bot and its decision, and says where the game was saved, in one line
    (it was "game saved as abandoned to ..." and then "unknown box 'nowhere'")."""
    import io

    tables_dir.table("yahtzee")
    monkeypatch.setattr(sys, "stdin", io.StringIO("r\ns chance\n" + "q\n"))
    argv = ["play", "--players", f"You,{bad('illegal-box', 2)}", "--seed", "4"]
    code = main([*argv, "--tables", str(tables_dir), "--data", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    [saved] = (tmp_path / "games").glob("*.json")
    assert err[0].startswith(f"yahtzee: error: bot {bad('illegal-box', 2)} at game 0, turn 1, the box: ")
    assert '"nowhere" is not a legal box' in err[0] and err[0].endswith(
        "game stopped and saved in --data (yahtzee play --resume --data DIR goes on)"
    )

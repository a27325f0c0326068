"""The terminal as people read it (issue 21), driven through stdin/stdout without tmux: every mode
of ``yahtzee play`` and the other commands keep every line within 80 columns and the triple
card's screen within 24 rows; the target table's build inside a game is announced, can be
skipped at a terminal and stopped by Ctrl-C within 2 s, leaving no game behind; the triple
card's commands, hints and end; the one-line daily share text."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from clirun import typed as run

from solver.core.rules import get_rules
from solver.core.streams import SeededStream
from solver.play import records

REPO = Path(__file__).resolve().parents[1]
#: 7 boxes with the upper bonus, the Joker rule and the Yahtzee bonus: a table in milliseconds
SMALL = "yahtzee+without=ones,twos,threes,four_of_a_kind,full_house,small_straight"
#: its target table builds in well under a second (as in test_target.py)
TARGET_RULES = "yatzy+lower-only"
#: a prompt of ``yahtzee play`` with the command echoed after it (piped input is echoed)
PROMPT = re.compile(r"^(?:[^>]*, )?(?:r to roll|\d rolls? left|choose a box|type the five dice)> ")


class FakeTty(io.StringIO):
    """A terminal's stdin: ``input()`` reads it, Ctrl-D is the end of the text."""

    def isatty(self):
        return True


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.delenv("YAHTZEE_DATA", raising=False)
    monkeypatch.setenv("COLUMNS", "80")  # argparse's help is formatted for the terminal's width
    return tmp_path / "data"


def too_wide(text: str, *folders) -> list[str]:
    """The lines of ``text`` wider than 80 columns; a file's path stays whole (to copy), so a
    line naming one may be wider by the path's length alone, never more; and a word longer than
    a line (an 80-character rule id) stands alone on its line."""
    wide = []
    for line in text.splitlines():
        short = line
        for folder in folders:
            short = re.sub(re.escape(str(folder)) + r"\S*", "P", short)
        if len(short) > 80 and " " in short.strip():
            wide.append(line)
    return wide


def whole_game(boxes, turns: int, roll: str = "r") -> list[str]:
    """Commands that finish any game on any dice: each turn one roll, then every box in turn
    (the first open one the rules allow scores; the others are refused, then 'roll first')."""
    return [x for _ in range(turns) for x in (roll, *(f"s {b}" for b in boxes))]


def screens(out: str) -> list[list[str]]:
    """What a terminal shows after each command: from the prompt with the command to the next
    prompt, both included."""
    lines = out.splitlines()
    at = [i for i, line in enumerate(lines) if PROMPT.match(line)]
    return [lines[a : b + 1] for a, b in zip(at, at[1:], strict=False)]


def saved(data) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((data / "games").glob("*.json"))]


def nothing_saved(data) -> bool:
    """No game file and no game in the database."""
    files = list((data / "games").glob("*")) if (data / "games").exists() else []
    in_db = records.finished_games(data) if records.db_path(data).exists() else []
    return not files and not in_db and records.unfinished_game(data) is None


# --- every mode within 80 columns --------------------------------------------------------------
YAHTZEE_BOXES = range(1, 14)
FIRST = ["help", "r", "h 1 2", "u", "card", "cards", "hint"]
MODES = {
    "solo": (["--seed", "1"], FIRST + ["s 13", "undo"] + whole_game(YAHTZEE_BOXES, 13)),
    "coach": (["--seed", "2", "--coach"], whole_game(YAHTZEE_BOXES, 13)),
    "vs computer": (["--level", "perfect", "--seed", "3"], FIRST + whole_game(YAHTZEE_BOXES, 13)),
    "hot-seat": (
        ["--players", "Ann,Bartholomew the Bold,computer:hard", "--seed", "4"],
        FIRST + whole_game(YAHTZEE_BOXES, 26),
    ),
    "daily": (["--daily", "2026-10-17"], FIRST + whole_game(YAHTZEE_BOXES, 13)),
    "real dice": (["--real-dice"], ["help", "33456", "hint"] + whole_game(YAHTZEE_BOXES, 13, "23456")),
    "triple": (
        ["--rules", "triple", "--seed", "5"],
        FIRST + whole_game([f"{b}@{c}" for c in (1, 2, 3) for b in YAHTZEE_BOXES], 39),
    ),
    "triple vs computer": (
        ["--rules", "triple", "--level", "perfect", "--seed", "6"],
        whole_game([f"{b}@{c}" for c in (1, 2, 3) for b in YAHTZEE_BOXES], 39),
    ),
}


@pytest.mark.slow  # full games of the 13-box card in every mode, the advisor behind hints and coach
@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_fits_80_columns(monkeypatch, capsys, data, tables_dir, mode):
    tables_dir.table("yahtzee")
    argv, lines = MODES[mode]
    rc, out, err = run(
        monkeypatch, capsys, ["play", "--data", str(data), "--tables", str(tables_dir), *argv], lines
    )
    assert rc == 0, err
    assert "=== game over ===" in out
    assert too_wide(out + err, data, tables_dir) == []
    if mode.startswith("triple"):  # the card, the dice and the prompt on a screen of 24 rows
        assert max(len(s) for s in screens(out)) <= 24
        assert re.search(
            r"the triple player \(best-known\) scored \d+ on your dice: You \d+ \([+-]\d+\)", out
        )
    # the commands that read what the game left
    for command in (["review", "--last", "--tables", str(tables_dir)], ["stats"]):
        rc, out, err = run(monkeypatch, capsys, [*command, "--data", str(data)])
        assert rc == 0, err
        assert too_wide(out + err, data, tables_dir) == [], command


@pytest.mark.slow
def test_a_small_game_in_each_mode_fits_80_columns(monkeypatch, capsys, data, tables_dir):
    """The 7-box card, whose rule id is 73 characters long, in each mode."""
    tables_dir.table(SMALL)
    boxes = range(1, 8)
    triple = [f"{b}@{c}" for c in (1, 2, 3) for b in boxes]
    for argv, lines in (
        (["--seed", "1"], FIRST + ["s 7", "undo"] + whole_game(boxes, 7)),
        (["--level", "hard", "--seed", "2", "--coach"], whole_game(boxes, 7)),
        (["--players", "Ann,Bartholomew the Bold", "--seed", "3"], whole_game(boxes, 14)),
        (["--daily", "2026-10-17"], whole_game(boxes, 7)),
        (["--real-dice"], ["help", "33456", "hint"] + whole_game(boxes, 7, "23456")),
        (["--rules", SMALL + "+triple", "--seed", "4"], FIRST + whole_game(triple, 21)),
    ):
        if "--rules" not in argv:
            argv = ["--rules", SMALL, *argv]
        rc, out, err = run(
            monkeypatch, capsys, ["play", "--data", str(data), "--tables", str(tables_dir), *argv], lines
        )
        assert rc == 0, (argv, err)
        assert "=== game over ===" in out
        assert too_wide(out + err, data, tables_dir) == [], argv
    for command in (["review", "--last", "--tables", str(tables_dir)], ["stats"]):
        rc, out, err = run(monkeypatch, capsys, [*command, "--data", str(data)])
        assert rc == 0 and too_wide(out + err, data, tables_dir) == [], command


@pytest.mark.slow
def test_chances_to_win_and_their_review_fit_80_columns(monkeypatch, capsys, data, tmp_path):
    """With a target table: each player's chance to win after each turn, the hint's move to win,
    and the review's P(win) before and after each box."""
    from solver.engine.target import build_target

    tables = tmp_path / "tables"
    build_target(TARGET_RULES, tables, t_max=200, progress=False)
    argv = ["play", "--data", str(data), "--tables", str(tables), "--rules", TARGET_RULES, "--seed", "9"]
    lines = [x for _ in range(9) for x in ("r", "hint", *(f"s {b}" for b in range(1, 10)))]
    rc, out, err = run(monkeypatch, capsys, [*argv, "--players", "Ann,computer:win"], lines)
    assert rc == 0, err
    assert "chances to win: Ann " in out and too_wide(out + err, data, tables) == []
    rc, out, err = run(
        monkeypatch, capsys, ["review", "--last", "--data", str(data), "--tables", str(tables)]
    )
    assert rc == 0, err
    assert "P(win): your chance to win before -> after each box" in out
    assert re.search(r" box \d{5} +\d+\.\d\d [ *] +\d+\.\d%-> *\d+\.\d%  ", out)
    assert too_wide(out + err, data, tables) == []


def test_a_triple_game_fits_80_columns_and_24_rows_and_ends_with_the_triple_player(
    monkeypatch, capsys, data, tables_dir
):
    """The fast loop's share of the above: a game of the small triple card, start to end."""
    tables_dir.table(SMALL)
    lines = FIRST + whole_game([f"{b}@{c}" for c in (1, 2, 3) for b in range(1, 8)], 21)
    argv = ["play", "--data", str(data), "--tables", str(tables_dir), "--rules", TRIPLE, "--seed", "4"]
    rc, out, err = run(monkeypatch, capsys, argv, lines)
    assert rc == 0, err
    assert too_wide(out + err, data, tables_dir) == []
    assert max(len(s) for s in screens(out)) <= 24
    assert re.search(r"the triple player \(best-known\) scored \d+ on your dice: You \d+ \([+-]\d+\)", out)


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["play", "--help"],
        ["rules"],
        ["rules", "yahtzee+triple"],
        ["rules", "yatzy+yatzy-rows=2+extra-bonus=50+order=choose"],
        ["tables", "list"],
    ],
)
def test_help_rules_and_tables_list_fit_80_columns(monkeypatch, capsys, data, tables_dir, argv):
    tables_dir.table(SMALL)  # a built table with a long rule id
    if argv[0] == "tables":
        argv = [*argv, "--tables", str(tables_dir)]
    rc, out, err = run(monkeypatch, capsys, argv)
    assert rc == 0, err
    assert out.strip() and too_wide(out + err, tables_dir) == []


def test_tables_list_puts_a_long_rule_id_on_a_line_of_its_own(monkeypatch, capsys, tables_dir):
    tables_dir.table(SMALL)
    rc, out, _ = run(monkeypatch, capsys, ["tables", "list", "--tables", str(tables_dir)])
    lines = out.splitlines()
    at = lines.index(f"  {SMALL}")
    assert rc == 0 and re.fullmatch(r" {23}built +\d+\.\d MiB  value \d+\.\d{7}", lines[at + 1])
    # the others in their column
    assert re.fullmatch(r"  yahtzee {14}(missing|built .*|shipped .*)", lines[1])


# --- the triple card ---------------------------------------------------------------------------
TRIPLE = SMALL + "+triple"


def hint_commands(out: str) -> list[str]:
    """The bracketed commands of the hint lines (``  1. keep 6 6, reroll three dice [k 6 6] ...``)."""
    return re.findall(r"^  [123]\. .*\[([^\]]+)\]", out, flags=re.M)


def test_triple_card_takes_the_main_games_commands(monkeypatch, capsys, data, tables_dir):
    """r, h, u, k, hint (and following it), s BOX@COLUMN, s NUMBER COLUMN, undo, card, cards,
    help: none refused; every hint names the command that plays it."""
    tables_dir.table(SMALL)
    argv = ["play", "--data", str(data), "--tables", str(tables_dir), "--rules", TRIPLE, "--seed", "8"]
    first = SeededStream(8, game=0).next_five()
    _, out, _ = run(monkeypatch, capsys, argv, ["r", "hint", "q"])
    [follow, *_] = hint_commands(out)
    script = ["r", "h 1 2", "u", f"k {first[0]} {first[1]}", "hint", *follow.split(", "), "r", "hint"]
    script += ["s 4 3", "undo", "s fours@2", "card", "cards", "help", "q"]
    rc, out, err = run(monkeypatch, capsys, argv, script)
    assert rc == 0, err
    assert [line for line in out.splitlines() if line.startswith("! ")] == []
    assert len(hint_commands(out)) == 6 and all(
        re.search(r"\[[^\]]+\]", line) for line in out.splitlines() if re.match(r"  [123]\. ", line)
    )
    assert "You score " in out and " in three_of_a_kind@3, x3 = " in out and "undone: " in out
    assert " in fours@2, x2 = " in out and "column 3 x3" in out and "box and its column: s fours@3" in out
    boxes = [t["box"] for g in saved(data) for t in g["turns"] if t.get("box")]  # the first run has none
    assert boxes == ["fours@2"]


def test_triple_card_hint_to_stop_names_the_box_and_its_command_plays_it(tables_dir):
    from solver.advice.triple import TripleAdvisor
    from solver.cli.play import hint_text
    from solver.core.position import Position
    from solver.play.game import Game, Player

    rules = get_rules(TRIPLE)
    tables_dir.table(SMALL)
    advisor = TripleAdvisor.load(rules, tables_dir)
    game = Game.new(rules, [Player("You")], real_dice=True)
    game.roll((2, 3, 4, 5, 6))
    advice = advisor.advise(Position(game.card, game.sorted_dice, game.rolls_left))
    stop = next(o for o in advice.options if o.keep is not None and len(o.keep) == 5)
    assert advice.options[0] is stop  # a large straight: stop and score it
    text = hint_text(stop, rules)
    [command] = re.findall(r"\[s (\S+)\]", text)
    weight = rules.weights[int(command[-1]) - 1]  # what the total rises by: 40 times the column's weight
    assert text == f"stop: score 40 in {command}, x{weight} = {40 * weight} [s {command}]"
    assert command.startswith("large_straight@")
    # the box is the triple player's: the best placement with no roll left
    assert advisor.advise(Position(game.card, game.sorted_dice, 0)).options[0].box == command
    assert game.score(command).score == 40


def test_triple_card_fits_24_rows(tables_dir):
    from solver.cli.sheets import format_card
    from solver.core.triple_card import TripleCard

    for spec, rows in (("triple", 17), ("yatzy+triple", 18), (TRIPLE, 11)):
        card = TripleCard.empty(spec)
        assert len(format_card(card, {}, False).splitlines()) == rows
        text = format_card(card, card.preview("33333"), True)  # x marks and their note: one row more
        assert max(map(len, text.splitlines())) <= 80 and len(text.splitlines()) <= rows + 1


@pytest.mark.slow  # three whole games and the kernels' player
def test_triple_game_ends_with_the_triple_player_on_the_same_dice(monkeypatch, capsys, data, tables_dir):
    from solver.play.triple import simulate_triple

    tables_dir.table(SMALL)
    boxes = [f"{b}@{c}" for c in (1, 2, 3) for b in range(1, 8)]
    argv = ["play", "--data", str(data), "--tables", str(tables_dir), "--rules", TRIPLE]
    rc, out, err = run(monkeypatch, capsys, [*argv, "--seed", "11"], whole_game(boxes, 21))
    assert rc == 0, err
    [game] = saved(data)
    mine = game["final"][0]["score"]
    kernel = int(simulate_triple(TRIPLE, "triple", 1, seed=11, tables_dir=tables_dir, threads=1).scores[0])
    assert (
        f"the triple player (best-known) scored {kernel} on your dice: You {mine} ({mine - kernel:+d})" in out
    )
    # against the computer: each person's own dice (player i is game i of the seed)
    rc, out, err = run(
        monkeypatch,
        capsys,
        [*argv, "--seed", "12", "--players", "Ann,Bob"],
        whole_game(boxes, 42),
    )
    kernel = simulate_triple(TRIPLE, "triple", 2, seed=12, tables_dir=tables_dir, threads=1).scores
    assert rc == 0, err
    for name, score in zip(("Ann", "Bob"), kernel, strict=True):
        assert f"the triple player (best-known) scored {score} on {name}'s dice: {name} " in out
    rc, out, _ = run(monkeypatch, capsys, [*argv, "--real-dice"], whole_game(boxes, 21, "23456"))
    assert rc == 0 and "=== game over ===" in out and "the triple player" not in out  # no stream


# --- the target table's build inside a game ---------------------------------------------------
def target_files(folder) -> list[str]:
    return (
        sorted(p.name for p in Path(folder).iterdir() if "target" in p.name) if Path(folder).exists() else []
    )


def test_the_build_is_announced_and_can_be_skipped_at_a_terminal(monkeypatch, capsys, data, tmp_path):
    tables = tmp_path / "tables"
    argv = ["play", "--data", str(data), "--tables", str(tables), "--rules", TARGET_RULES, "--seed", "1"]
    rc, out, _ = run(monkeypatch, capsys, [*argv, "--target", "60"], stdin=FakeTty("p\nr\ns chance\nq\n"))
    assert rc == 0
    words = " ".join(out.split())
    assert f"the {TARGET_RULES} target table is not built yet:" in words
    assert re.search(
        r"Building it takes (a few seconds|about \d+ (seconds|minutes)) on \d+ cores? and \d", words
    )
    assert "build it now (b), or play now without it (p)? [b/p]> " in out
    assert target_files(tables) == []  # not built
    [game] = saved(data)
    assert game["turns"][0]["box"] == "chance"  # the game went on
    assert "playing without it: no chances shown" in words and "chance to reach" not in out
    assert "target" not in game


class WaitingTty(FakeTty):
    """A terminal whose player, before the command of line ``at``, waits until the win level's
    background build is over (so that when the computer switches is known)."""

    def __init__(self, text: str, at: int, made: list):
        super().__init__(text)
        self.at, self.made, self.lines = at, made, 0

    def readline(self, *args):
        self.lines += 1
        if self.lines == self.at:
            assert self.made[0].wait(120), "the background build never ended"
        return super().readline(*args)


def watch_builds(monkeypatch) -> list:
    """The win level's background makings the game starts (:class:`WinTablesLater`), in order."""
    import solver.play.session as session

    made = []
    start = session.WinTablesLater.__init__

    def init(self, *args, **kw):
        start(self, *args, **kw)
        made.append(self)

    monkeypatch.setattr(session.WinTablesLater, "__init__", init)
    return made


@pytest.mark.subprocess
def test_at_a_terminal_the_win_level_starts_at_once_and_plays_to_win_when_built(
    monkeypatch, capsys, data, tmp_path
):
    """No question and no wait: the table is built by a child process while the game goes on,
    the computer plays for expected score until then and says when it plays to win; the game
    file keeps how many turns it played before."""
    tables = tmp_path / "tables"
    argv = ["play", "--data", str(data), "--tables", str(tables), "--rules", TARGET_RULES, "--seed", "3"]
    made = watch_builds(monkeypatch)
    lines = "r\ns chance\nr\ns 1\nr\ns 2\nq\n"  # the build waited for before the second turn's roll
    rc, out, err = run(monkeypatch, capsys, [*argv, "--level", "win"], stdin=WaitingTty(lines, 3, made))
    assert rc == 0, err
    words = " ".join(out.split())
    assert "[b/p]" not in out and len(made) == 1 and made[0].error is None
    assert words.index("is being built in the background") < words.index("type help for the commands")
    assert "Computer (win) plays for the best expected score until its win table is built" in words
    said = "Computer (win)'s win table is ready: it now plays to win (its first 1 turn played for the"
    assert words.count(said) == 1
    assert words.index(said) < words.index("--- Computer (win): turn 2 of")  # before its turn
    assert target_files(tables) and "still being built" not in out
    [game] = saved(data)
    assert game["win_from"] == 1 and game["players"][1]["bot"] == "win" and game["level"] == "win"


@pytest.mark.subprocess
def test_quitting_while_the_win_levels_table_is_built_stops_the_build(monkeypatch, capsys, data, tmp_path):
    tables = tmp_path / "tables"
    argv = ["play", "--data", str(data), "--tables", str(tables), "--rules", TARGET_RULES, "--level", "win"]
    made = watch_builds(monkeypatch)
    rc, out, _ = run(monkeypatch, capsys, argv, stdin=FakeTty("q\n"))  # before the child has even started
    assert rc == 0 and len(made) == 1 and made[0].wait(10) and made[0].error is not None  # stopped
    words = " ".join(out.split())
    assert "the target table was still being built: it stops with the game" in words
    assert f"yahtzee tables build --rules {TARGET_RULES} --target builds it once" in words
    assert target_files(tables) == []  # nothing half-built kept
    assert not tables.exists() or [p.name for p in tables.iterdir() if p.name.startswith(".")] == []


def test_piped_input_builds_it_after_saying_so(monkeypatch, capsys, data, tmp_path):
    tables = tmp_path / "tables"
    argv = ["play", "--data", str(data), "--tables", str(tables), "--rules", TARGET_RULES, "--seed", "1"]
    rc, out, _ = run(monkeypatch, capsys, [*argv, "--level", "win"], ["r", "s 9", "q"])
    assert rc == 0
    said = out.index("target table is not built yet")
    assert said < out.index("building the target table ...") < out.index("type help for the commands")
    assert "[b/p]" not in out and target_files(tables)  # piped input: nothing asked, built
    assert saved(data)[0]["players"][1]["bot"] == "win"


@pytest.mark.slow
def test_at_a_terminal_b_builds_it(monkeypatch, capsys, data, tmp_path):
    tables = tmp_path / "tables"
    argv = ["play", "--data", str(data), "--tables", str(tables), "--rules", TARGET_RULES, "--seed", "1"]
    rc, out, _ = run(monkeypatch, capsys, [*argv, "--target", "60"], stdin=FakeTty("b\nr\nq\n"))
    assert rc == 0 and "[b/p]> " in out and "chance to reach the target (60): " in out
    assert target_files(tables)


@pytest.mark.parametrize("mode", [["--target", "60"], ["--level", "win"], ["--players", "Ann,computer:win"]])
def test_ctrl_c_during_the_build_leaves_no_game(monkeypatch, capsys, data, tmp_path, mode):
    import solver.engine.target as target

    def interrupted(*_, **__):
        raise KeyboardInterrupt

    monkeypatch.setattr(target, "build_target", interrupted)
    tables = tmp_path / "tables"
    argv = ["play", "--data", str(data), "--tables", str(tables), "--rules", TARGET_RULES, *mode]
    rc, out, err = run(monkeypatch, capsys, argv, ["r", "s 9"])
    assert rc == 130
    assert "interrupted: the game had not started: nothing saved" in err and "Traceback" not in err
    assert nothing_saved(data) and target_files(tables) == []


@pytest.mark.slow
def test_ctrl_c_before_a_resumed_game_goes_on_leaves_its_file_as_it_was(monkeypatch, capsys, data, tmp_path):
    """Piped input builds the win level's missing table before the resumed game goes on: a Ctrl-C
    then leaves its file as it was.  At a terminal nothing is asked: it goes on at once."""
    import solver.engine.target as target

    tables = tmp_path / "tables"
    target.build_target(TARGET_RULES, tables, t_max=200, progress=False)
    argv = ["play", "--data", str(data), "--tables", str(tables), "--rules", TARGET_RULES, "--level", "win"]
    rc, _, _ = run(monkeypatch, capsys, argv, ["r", "s 9", "q"])
    assert rc == 0
    [path] = (data / "games").glob("*.json")
    before = path.read_bytes()
    for name in target_files(tables):
        (tables / name).unlink()
    resume = ["play", "--data", str(data), "--tables", str(tables), "--resume"]

    def interrupted(*_, **__):
        raise KeyboardInterrupt

    monkeypatch.setattr(target, "build_target", interrupted)
    rc, _, err = run(monkeypatch, capsys, resume, ["r"])
    assert rc == 130 and "the game did not go on; its file is as it was" in err
    assert path.read_bytes() == before and str(records.unfinished_game(data)[0]) == str(path)
    made = watch_builds(monkeypatch)
    rc, out, _ = run(monkeypatch, capsys, resume, stdin=FakeTty(""))  # Ctrl-D at the first prompt
    words = " ".join(out.split())
    assert rc == 0 and "is being built in the background" in words and "[b/p]" not in out
    assert "game resumed where it stopped: 2 turns played" in words and "game stopped and saved" in words
    assert len(made) == 1 and made[0].wait(10)  # the build stopped with the game
    assert json.loads(path.read_text())["turns"] == json.loads(before)["turns"]


@pytest.mark.slow
@pytest.mark.subprocess
def test_ctrl_c_stops_a_real_build_within_2_seconds(tmp_path):
    """A real Ctrl-C (SIGINT) in the middle of the target DP of an 11-box card (seconds to a
    minute): the game answers within 2 s, exit 130, no game, no table, not even a temporary file."""
    rules = "yahtzee+without=ones,twos"
    data, tables = tmp_path / "data", tmp_path / "tables"
    env = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", "/tmp/nbc"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "play", "--rules", rules, "--level", "win"]
        + ["--data", str(data), "--tables", str(tables)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
        # SIGINT is the child's to handle, whatever this run inherited: started in the background
        # (``&``), a shell ignores it for its commands, and an ignored signal stays ignored in children
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    proc.stdin.write(b"r\ns 1\nq\n")
    proc.stdin.close()
    err = bytearray()

    def read() -> None:
        while chunk := os.read(proc.stderr.fileno(), 4096):
            err.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 300
    # inside the DP: its progress bar shows masks done (numba compiled, the kernels running)
    while not re.search(rb"target table: +\d+%\|[^|]*\| *[1-9]\d*/\d+", bytes(err)):
        assert proc.poll() is None, bytes(err).decode(errors="replace")
        assert time.monotonic() < deadline, "the build never started"
        time.sleep(0.05)
    time.sleep(0.5)
    assert proc.poll() is None, "the build finished before it could be interrupted"
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    answered = time.monotonic() - start
    print(f"Ctrl-C answered in {answered:.2f} s")  # the figure, with pytest -s
    reader.join(timeout=5)
    out = proc.stdout.read().decode()
    text = bytes(err).decode(errors="replace")
    assert proc.returncode == 130, text
    assert answered <= 2.0, f"Ctrl-C answered in {answered:.1f} s"
    assert "target table is not built yet" in out and "Traceback" not in text
    assert "interrupted: the game had not started: nothing saved" in text
    assert nothing_saved(data)
    assert [p.name for p in tables.iterdir() if "target" in p.name or p.name.startswith(".")] == []


# --- the daily's one line to share -------------------------------------------------------------
def test_the_daily_ends_with_one_line_to_share_also_in_stats_json(monkeypatch, capsys, data, tables_dir):
    tables_dir.table(SMALL)
    argv = ["play", "--data", str(data), "--tables", str(tables_dir), "--rules", SMALL]
    lines = whole_game(range(1, 8), 7)
    rc, out, err = run(monkeypatch, capsys, [*argv, "--daily", "2026-10-17"], ["r", "hint", *lines])
    assert rc == 0, err
    share = " ".join(out.split("--- to share ---\n")[1].split())  # this long rule id wraps the line
    [game] = saved(data)
    score = game["final"][0]["score"]
    [kept] = records.daily_results(data)
    line = (
        f"Yahtzee daily 2026-10-17 ({SMALL}): You {score} (assisted: hint), optimal player "
        f"{kept['optimal']:.0f} ({score - round(kept['optimal']):+d})"
    )
    assert share.startswith(f"{line} Fours ")  # then the card, boxes named for people
    rc, out, _ = run(monkeypatch, capsys, ["stats", "--json", "--data", str(data)])
    assert rc == 0
    assert [d["share"] for d in json.loads(out)["daily"]["history"]] == [line]
    # a replay's line is not the day's: stats keeps the first game's
    rc, out, _ = run(monkeypatch, capsys, [*argv, "--daily", "2026-10-17"], lines)
    replay = next(g for g in saved(data) if g.get("replay"))
    assert rc == 0 and f"You {replay['final'][0]['score']} (replay), optimal player " in " ".join(out.split())
    rc, out, _ = run(monkeypatch, capsys, ["stats", "--json", "--data", str(data)])
    assert [d["share"] for d in json.loads(out)["daily"]["history"]] == [line]

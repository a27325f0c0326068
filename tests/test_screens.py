"""Every terminal screen and every command of the README's usage list within 80 columns
(issue 34), counted as a terminal shows them: a wide character (a CJK name) takes two columns,
and no line is excused for naming a file -- the games say where they are saved in words.

The scripted games are the real ``yahtzee play`` of each mode (solo, coach, vs computer,
hot-seat, daily, real dice, the triple card, quit, end of input, resume), then ``stats`` and
``review --last``; the commands are the ``yahtzee ...`` lines of the README's usage blocks, run
as written or, where the README's run takes minutes (a million games, a target table of the
13-box card, every table), the same command on fewer games or a rule set whose tables build in
a second.  The data folder is deep on purpose: a game's path would make its line 100+ wide.
"""

from __future__ import annotations

import io
import json
import re
import sys
import unicodedata
from pathlib import Path

import pytest
from clirun import typed as run

from solver.cli.entry import main

#: 7 boxes with the upper bonus, the Joker rule and the Yahtzee bonus: a table in milliseconds
SMALL = "yahtzee+without=ones,twos,threes,four_of_a_kind,full_house,small_straight"
#: its target table builds in well under a second (as in test_target.py)
TARGET_RULES = "yatzy+lower-only"
BOXES = range(1, 14)
FIRST = ["help", "r", "h 1 2", "u", "card", "cards", "hint"]
WIDE_NAME = "山田太郎さん"  # six wide characters: 12 columns


def columns(line: str) -> int:
    """The columns a terminal gives ``line`` (independent of the code under test's own count)."""
    line = re.sub(r"\x1b\[[0-9;]*m", "", line)
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line
    )


def too_wide(text: str) -> list[str]:
    """The lines over 80 columns, but for one holding a rule id of its own too long for any line
    (a long ``without=`` list: nothing to break it at; ``tables verify``'s ``ID: ok`` kept whole
    for the scripts that read it). A path is never let through: the screens shorten paths."""
    return [
        line
        for line in text.splitlines()
        if columns(line) > 80 and not any(len(w) > 72 and "+" in w and "/" not in w for w in line.split())
    ]


def whole_game(boxes, turns: int, roll: str = "r") -> list[str]:
    """Commands that finish any game on any dice: each turn one roll, then every box in turn."""
    return [x for _ in range(turns) for x in (roll, *(f"s {b}" for b in boxes))]


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.delenv("YAHTZEE_DATA", raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    # a deep folder, as a user's home can be: the games' paths are 120+ characters
    return tmp_path / "a-rather-long-folder-name-for-the-data" / "of-this-player-yahtzee-solver-games"


def play(monkeypatch, capsys, data, argv, lines):
    return run(monkeypatch, capsys, ["play", "--data", str(data), *argv], lines)


MODES = {
    "solo": (["--seed", "1"], [*FIRST, "s 13", "undo", *whole_game(BOXES, 13)]),
    "coach": (["--seed", "2", "--coach"], ["r", "h 1", "r", "s 13", *whole_game(BOXES, 13)]),
    "vs computer": (["--level", "perfect", "--seed", "3"], FIRST + whole_game(BOXES, 13)),
    "hot-seat": (
        ["--players", f"Ann,Bartholomew the Bold,{WIDE_NAME},computer:hard", "--seed", "4"],
        FIRST + whole_game(BOXES, 39),
    ),
    "daily": (["--daily", "2026-10-17"], FIRST + whole_game(BOXES, 13)),
    "real dice": (["--real-dice"], ["help", "33456", "hint", *whole_game(BOXES, 13, "23456")]),
    "triple": (
        ["--rules", "triple", "--seed", "5"],
        [*FIRST, "s 12@3", *whole_game([f"{b}@{c}" for c in (1, 2, 3) for b in BOXES], 39)],
    ),
    "triple vs computer": (
        ["--rules", "triple", "--level", "perfect", "--seed", "6"],
        whole_game([f"{b}@{c}" for c in (1, 2, 3) for b in BOXES], 39),
    ),
}


@pytest.mark.parametrize("mode", list(MODES))
def test_every_game_screen_fits_80_columns(monkeypatch, capsys, data, mode):
    argv, lines = MODES[mode]
    rc, out, err = play(monkeypatch, capsys, data, argv, lines)
    assert rc == 0, err
    assert "=== game over ===" in out
    assert too_wide(out + err) == []
    assert "game saved" in out and "yahtzee review --last" in out
    if mode == "triple":  # a box scored says what it weighs: the total rises by that
        scored = re.findall(r"^You score (\d+) in \w+@(\d), x(\d) = (\d+): total (\d+)$", out, re.M)
        assert len(scored) == 39
        assert all(int(w) * int(p) == int(v) for p, _, w, v, _ in scored)  # no Yahtzee bonus here
        assert int(scored[0][3]) == int(scored[0][4])  # the first box: the total is its weight x points
    for command in (["review", "--last"], ["stats"]):
        rc, out, err = run(monkeypatch, capsys, [*command, "--data", str(data)])
        assert rc == 0, err
        assert out.strip() and too_wide(out + err) == [], command


def test_quitting_end_of_input_and_resuming_fit_80_columns(monkeypatch, capsys, data):
    rc, out, err = play(monkeypatch, capsys, data, ["--seed", "7"], ["r", "s 13", "r", "h 1 2", "q"])
    assert rc == 0 and too_wide(out + err) == []
    assert "game stopped and saved in --data (yahtzee play --resume --data DIR goes on)\n" in out
    rc, out, err = run(monkeypatch, capsys, ["play", "--resume", "--data", str(data)], ["r", "s 12"])
    assert rc == 1 and too_wide(out + err) == []  # piped input ends before the game does
    assert "game resumed where it stopped: 1 turn played" in out
    assert "  held   ^  ^\n" in out.split("1 roll left> r")[0]  # the dice held when it stopped
    [game] = [json.loads(p.read_text()) for p in (data / "games").glob("*.json")]
    assert game["turns"][1]["rolls"][1]["held"] == [1, 2]  # and kept through the roll after
    rc, out, err = run(monkeypatch, capsys, ["play", "--resume", "--data", str(data)], whole_game(BOXES, 11))
    assert rc == 0 and "=== game over ===" in out and too_wide(out + err) == []


def test_the_sheet_of_many_players_fits_80_columns(monkeypatch, capsys, data):
    names = f"Ann,Ben,{WIDE_NAME},Bartholomew the Bold,computer:perfect,computer:easy,Cat,Dan"
    rc, out, err = play(monkeypatch, capsys, data, ["--players", names, "--seed", "8"], ["r", "cards", "q"])
    assert rc == 0, err
    assert "Computer" in out and too_wide(out + err) == []
    # the longest names a table takes, in wide characters: 40 columns (20 characters) each
    rc, _, err = play(monkeypatch, capsys, data, ["--players", "山" * 21 + ",Ann"], [])
    assert rc == 2 and "is longer than 40 characters (a wide character counts two)" in err
    names = ",".join(["山" * 20, "田" * 20, "computer:perfect"])
    rc, out, err = play(monkeypatch, capsys, data, ["--players", names, "--seed", "8"], whole_game(BOXES, 26))
    assert rc == 0 and "=== game over ===" in out, err
    assert too_wide(out + err) == []


def test_eight_players_names_are_never_cut(monkeypatch, capsys, data):
    """Eight players leave each 6 columns: a name that cannot wrap into its column at its spaces
    heads it by its seat (``#4``), with the whole name in a key above; the triple card's sheet,
    too wide side by side, has a row per player.  No name is cut anywhere."""
    people = ["Ann", "Ben", WIDE_NAME, "Bartholomew the Bold", "Cat", "Dan"]
    names = ",".join([*people[:4], "computer:perfect", "computer:easy", *people[4:]])
    shown = [*people[:4], "Computer (perfect)", "Computer (easy)", *people[4:]]
    for rules in ("yahtzee", "triple"):
        rc, out, err = play(
            monkeypatch,
            capsys,
            data,
            ["--rules", rules, "--players", names, "--seed", "8"],
            ["r", "cards", "q"],
        )
        assert rc == 0, err
        sheet = out.split("> cards\n")[1].split("\nAnn, 2 rolls left> q")[0]
        assert too_wide(sheet) == [] and "~" not in sheet
        if rules == "triple":  # a row per player, the name whole at its start
            rows = [line.strip() for line in sheet.splitlines()[1:]]
            assert [r for r in rows if r.startswith(tuple(shown))] == rows and len(rows) == 8
            assert all(r.startswith(name) for r, name in zip(rows, shown, strict=True))
            continue
        lines = sheet.splitlines()
        header = next(line for line in lines if line.split()[:2] == ["Ann", "Ben"])
        assert header.split() == ["Ann", "Ben", "#3", "#4", "#5", "#6", "Cat", "Dan"]
        key = " ".join(lines[: lines.index(header)])
        for seat in (3, 4, 5, 6):  # each keyed seat's whole name, once
            assert key.count(f"#{seat} {shown[seat - 1]}") == 1


def test_the_triple_cards_previews_are_weighted_points():
    """The triple card's open boxes show what the dice add to the total there: the points times
    the column's weight (x1, x2, x3), as the web shows them."""
    from solver.cli.sheets import format_card
    from solver.core.triple_card import TripleCard

    card = TripleCard.parse("ones@1=3,fours@3=12")
    preview = card.preview("33456")
    text = format_card(card, preview, True)
    row = next(line for line in text.splitlines() if "small_straight" in line)
    assert row.split()[-3:] == ["(30)", "(60)", "(90)"]  # 30 points in each column
    threes = next(line for line in text.splitlines() if " threes " in line)
    assert threes.split()[-3:] == ["(6)", "(12)", "(18)"]
    fours = next(line for line in text.splitlines() if " fours " in line)
    assert fours.split()[-3:] == ["(4)", "(8)", "12"]  # column 3's filled box: its points as written
    assert preview["small_straight@3"] == 30  # the preview itself stays in points


# --- the README's usage list -------------------------------------------------------------
#: the ``yahtzee ...`` lines of the README's usage blocks (main, 2026-12-02), each as run here:
#: the same command, on fewer games, or on a rule set whose target table builds in a second
#: (the 13-box card's takes minutes); ``serve`` runs until stopped and ``play`` is above
T = ["--rules", TARGET_RULES]
COMMANDS = [
    ["hint", "--dice", "33456", "--rolls-left", "2", "--card", "ones=3,fours=12"],
    ["hint", "--dice", "44444", "--rolls-left", "0", "--card", "fours=12,yahtzee=0", "--json"],
    ["hint", "--batch", "positions.jsonl"],
    ["value", "--card", "ones=3,fours=12"],
    ["distribution"],
    ["distribution", "--card", "ones=3,fours=12,yahtzee=50,chance=24", "--dice", "33456"]
    + ["--rolls-left", "2", "--at-least", "250", "300"],
    ["distribution", "--rules", "yatzy", "--json", "--at-least", "300"],
    ["value", "--target", "100", *T],
    ["hint", "--dice", "33456", "--rolls-left", "2", "--target", "100", *T],
    ["hint", "--dice", "33456", "--rolls-left", "2", "--card", "chance=24", "--target", "100", *T],
    ["hint", "--dice", "33456", "--rolls-left", "2", "--target", "100", "--json", *T],
    ["simulate", "--games", "300"],
    ["simulate", "--bot", "heuristic", "--vs", "optimal", "--games", "300"],
    ["simulate", "--bot", "greedy", "--worst", "w.jsonl", "--games", "300"],
    ["simulate", "--bot", "heuristic", "--games", "300", "--worst", "worst.jsonl"],
    ["hint", "--batch", "worst.jsonl"],
    ["simulate", "--bot", "target:100", "--vs", "optimal", "--games", "300", *T],
    ["simulate", "--bot", "heuristic", "--target", "100", "--games", "300", *T],
    ["match", "--bots", "win,optimal", "--games", "100", *T],
    ["review", "GAME.json"],
    ["review", "--last"],
    ["stats"],
    ["tables", "build", "--rules", SMALL, TARGET_RULES],
    ["tables", "verify"],
    ["tables", "list"],
    ["rules"],
    ["rules", "yatzy+all-rolls"],
    ["rules", "yatzy+all-rolls+extra-bonus=100"],
    ["hint", "--rules", "yacht", "--dice", "33456", "--rolls-left", "2"],
    ["rules", "triple"],
    ["hint", "--rules", "triple", "--card", "ones@1=3,fours@3=12", "--dice", "33456", "--rolls-left", "2"],
    ["hint", "--rules", "triple", "--card", "ones@1=3,fours@3=12", "--dice", "33456", "--rolls-left", "0"],
    ["value", "--rules", "triple", "--card", "ones@1=3,fours@3=12"],
    ["simulate", "--rules", "triple", "--bot", "triple", "--vs", "floor", "--games", "300"],
    ["export", "-", "--bot", "heuristic", "--games", "10"],
    ["--help"],
    ["play", "--help"],
]


@pytest.mark.slow  # a few hundred games of each simulate, two small tables, the triple floor
def test_every_command_of_the_usage_list_fits_80_columns(monkeypatch, capsys, data, tmp_path):
    from solver.engine.target import build_target

    tables = Path(__import__("os").environ["YAHTZEE_TABLES"])
    build_target(TARGET_RULES, tables, t_max=200, progress=False)
    (tmp_path / "positions.jsonl").write_text(
        json.dumps({"dice": "33456", "rolls_left": 2, "card": "ones=3,fours=12"}) + "\n"
    )
    rc, out, err = play(monkeypatch, capsys, data, ["--seed", "9"], whole_game(BOXES, 13))
    assert rc == 0, err
    [game] = (data / "games").glob("*.json")
    (tmp_path / "GAME.json").write_bytes(game.read_bytes())
    monkeypatch.chdir(tmp_path)  # the files as the README names them: w.jsonl, GAME.json
    wide = {}
    for argv in COMMANDS:
        if argv[0] in ("review", "stats"):
            argv += ["--data", str(data)]
        rc, out, err = run(monkeypatch, capsys, argv)
        assert rc == 0, (argv, err)
        assert out.strip(), argv
        machine = "--json" in argv or argv[:2] in (["export", "-"], ["hint", "--batch"])  # JSON lines
        if too_wide(err if machine else out + err):
            wide[" ".join(argv)] = [f"[{columns(w)}] {w}" for w in too_wide(err if machine else out + err)]
    assert wide == {}, "\n".join(f"{k}\n  " + "\n  ".join(v) for k, v in wide.items())


def test_a_saved_turn_keeps_its_held_dice_and_a_bad_holding_is_refused():
    from solver.core.rules import get_rules
    from solver.play.game import Game, GameRecordError, Player

    game = Game.new(get_rules("yahtzee"), [Player("You")], seed=3)
    game.roll()
    game.set_held([2, 5])
    data = game.to_dict("abandoned")
    assert data["turns"][-1]["holding"] == [2, 5]
    assert Game.from_dict(data).held_positions == (2, 5)
    for bad in ("x", [0], [1, 1], [6], [1, 2, 3, 4, 5, 1]):
        data["turns"][-1]["holding"] = bad
        with pytest.raises(GameRecordError, match=r"turn 1: holding .* is not a list of die positions"):
            Game.from_dict(data)


def test_stats_words_what_each_figure_counts(monkeypatch, capsys, data):
    """No "(- unassisted" to read as minus, no "record -", no "1 days"; the histogram says it
    counts every game and "best" that it counts fresh dice; hot-seat games counted apart."""
    for argv, roll in ((["--real-dice"], "23456"), (["--players", "Ann,Ben", "--seed", "3"], "r")):
        turns = 26 if "--players" in argv else 13
        rc, _, err = play(monkeypatch, capsys, data, argv, whole_game(BOXES, turns, roll))
        assert rc == 0, err
    rc, out, err = run(monkeypatch, capsys, ["stats", "--data", str(data)])
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "yahtzee: 1 game finished (and 1 hot-seat game, not in these figures)"
    assert lines[1] == "  modes        1 solo (0 assisted, 0 replays, 1 on real dice)"
    assert re.fullmatch(r"  average      \d+\.\d; unassisted on fresh dice: none yet", lines[2])
    assert " ".join(lines[3:5]).split() == (
        "best no game on fresh dice yet (no replays, no real dice); no solo record yet".split()
    )
    assert lines[6] == "  scores of all 1 game, in bins of 25 points:"
    assert "(-" not in out and "record -" not in out and too_wide(out) == []
    rc, out, _ = play(monkeypatch, capsys, data, ["--daily", "2026-10-17"], whole_game(BOXES, 13))
    rc, out, _ = run(monkeypatch, capsys, ["stats", "--data", str(data)])
    assert "(last run 1 day)" in out and "1 days" not in out
    assert re.search(
        r"^  best         \d+ on fresh dice \(no replays, no real dice\); no solo record yet$", out, re.M
    )


def test_the_coach_says_one_line_for_one_command(monkeypatch, capsys, data):
    """Stopping with rolls left and scoring is one command: one verdict (the two decisions' losses
    added), not one line for the stop and one for the box."""
    lines = ["r", "h 1", "r", "s 13", "r", "s 12", "r", "r", "r", "s 11", "q"]
    rc, out, err = play(monkeypatch, capsys, data, ["--seed", "2", "--coach"], lines)
    assert rc == 0, err
    said = out.split("> ")[1:]  # what each command printed, up to the next prompt
    per_command = [sum(line.startswith("  coach: ") for line in s.splitlines()) for s in said]
    assert max(per_command) == 1 and sum(per_command) == 6  # 3 rerolls, 3 boxes
    assert "  coach: stop: chance (" in out


def test_a_seeded_solo_game_ends_beside_the_optimal_player_on_its_dice(monkeypatch, capsys, data):
    rc, out, err = play(monkeypatch, capsys, data, ["--seed", "11"], whole_game(BOXES, 13))
    assert rc == 0, err
    [game] = [json.loads(p.read_text()) for p in (data / "games").glob("*.json")]
    mine = game["final"][0]["score"]
    rc, sim, _ = run(monkeypatch, capsys, ["simulate", "--games", "1", "--seed", "11", "--json"])
    best = json.loads(sim)["stats"]["max"]  # game 0 of seed 11: the same dice, roll by roll
    assert f"the optimal player scored {best} on your dice: You {mine} ({mine - best:+d})\n" in out
    rc, out, _ = play(monkeypatch, capsys, data, ["--real-dice"], whole_game(BOXES, 13, "23456"))
    assert rc == 0 and "=== game over ===" in out and "the optimal player" not in out  # no stream


class FakeTty(io.StringIO):
    """A terminal's stdin: the game asks before what costs the record."""

    def isatty(self):
        return True


def test_an_undo_that_would_cost_the_record_asks_first(monkeypatch, capsys, data):
    from solver.play import records

    script = "r\ns 13\nundo\nn\nundo\ny\nundo\n"  # no, then yes; the third: nothing to undo
    monkeypatch.setattr(sys, "stdin", FakeTty(script))
    rc = main(["play", "--data", str(data), "--seed", "12"])
    out, _ = capsys.readouterr()
    assert rc == 0
    asked = "an undo means this game no longer counts for your record; undo anyway? (y/n)> "
    assert out.count(asked) == 2 and "not undone: the game still counts for your record" in out
    assert out.count("undone: ") == 1 + 1  # "not undone" and one undo (the third: nothing to undo)
    assert "! nothing to undo" in out
    _, game = records.unfinished_game(data)
    assert game["assisted"] == ["undo"]


def test_a_long_first_line_breaks_between_fields_and_after_commas():
    from solver.cli import fit_head

    card = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,full_house=25"
    line = f"yahtzee | {card} | dice 3 3 4 5 6 | 2 rolls left | target 300"
    lines = fit_head(line).split("\n")
    assert len(lines) > 1 and all(columns(x) <= 80 for x in lines)
    assert all(x.startswith("  ") for x in lines[1:])
    rejoined = " ".join(x.strip() for x in lines).replace(", ", ",")
    assert rejoined == line  # nothing lost: broken after a "," or at a " | "
    assert not any(x.endswith(("dice", "target", "2", "rolls")) for x in lines)  # never inside a field

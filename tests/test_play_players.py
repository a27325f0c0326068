"""``yahtzee play`` as players use it (issue 14): hints that can be followed, records that
cannot be farmed, undo, resume, aliases, several players, real-dice coaching, colours, stats."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import sys

import pytest

from solver.cli.entry import main
from solver.core.rules import get_rules
from solver.core.streams import SeededStream
from solver.play import records
from solver.play.game import Game

#: 7 boxes with the upper bonus, the Joker rule and the Yahtzee bonus: a table in milliseconds
SMALL = "yahtzee+without=ones,twos,threes,four_of_a_kind,full_house,small_straight"


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.delenv("YAHTZEE_DATA", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path / "data"


class FakeTty(io.StringIO):
    """A terminal's stdin: ``input()`` reads it, Ctrl-D is the end of the text."""

    def isatty(self):
        return True


def play(monkeypatch, capsys, data, argv, lines, stdin=None):
    monkeypatch.setattr(sys, "stdin", stdin or io.StringIO("".join(line + "\n" for line in lines)))
    rc = main(["play", "--data", str(data), *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def saved_games(data) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((data / "games").glob("*.json"))]


def whole_game(n: int = 13) -> list[str]:
    return [x for i in range(1, n + 1) for x in ("r", f"s {i}")]


def hint_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if re.match(r"  [123]\. ", line)]


# --- bug 1: a hint's command is absolute --------------------------------------------------------
def test_following_the_hints_holds_what_they_say(monkeypatch, capsys, data, tables_dir):
    """Type the bracketed command of each hint: the dice held are the hinted keep, whatever was held."""
    tables_dir.table(SMALL)
    argv = ["--rules", SMALL, "--tables", str(tables_dir)]
    overlapped = 0
    for seed in range(1, 9):
        script = ["r"]
        keeps = []
        for _ in range(2):  # two hints in a row, each followed, then a roll
            _, out, _ = play(monkeypatch, capsys, data, [*argv, "--seed", str(seed)], [*script, "hint"])
            best = hint_lines(out)[-3]
            m = re.search(r"keep ([\d ]+), reroll .*\[(.*)\]", best)
            if m is None:  # stopping (or rerolling all) is best: nothing to hold
                break
            keeps.append(sorted(map(int, m.group(1).split())))
            script += ["hint", m.group(2), "r"]
        if len(keeps) < 2:
            continue
        play(monkeypatch, capsys, data / str(seed), [*argv, "--seed", str(seed)], script)
        [game] = saved_games(data / str(seed))
        rolls = game["turns"][0]["rolls"]
        for k, keep in enumerate(keeps, start=1):
            held = sorted(rolls[k - 1]["dice"][p - 1] for p in rolls[k]["held"])
            assert held == keep, (seed, k, best)
        overlapped += bool(set(rolls[1]["held"]) & set(rolls[2]["held"]))
    assert overlapped  # some second hint kept dice that were held already (what toggling broke)


def test_hint_lines_fit_80_columns(monkeypatch, capsys, data, tables_dir):
    tables_dir.table(SMALL)
    argv = ["--rules", SMALL, "--tables", str(tables_dir), "--seed", "3"]
    _, out, _ = play(monkeypatch, capsys, data, argv, ["r", "hint", "r", "hint", "r", "hint"])
    assert len(hint_lines(out)) == 9
    screen = [line for line in out.splitlines() if str(data) not in line and SMALL not in line]
    assert max(len(line) for line in screen) <= 80


# --- bug 2: stopping names its box -----------------------------------------------------------------
def test_hint_says_which_box_stopping_scores(capsys, tables_dir):
    from solver.core.position import Position

    tables_dir.table(SMALL)
    card, dice = "fours=8,fives=10,sixes=12,three_of_a_kind=20", "23456"
    best_box = tables_dir.advisor(SMALL).advise(Position.parse(card, dice, 0, SMALL)).best
    argv = ["hint", "--rules", SMALL, "--tables", str(tables_dir), "--dice", dice, "--rolls-left", "1"]
    assert main([*argv, "--card", card, "--top", "0"]) == 0
    text = capsys.readouterr().out
    assert f"keep 2 3 4 5 6 \u2014 stop and score {best_box.score} in {best_box.category}" in text
    assert main([*argv, "--card", card, "--json"]) == 0
    options = json.loads(capsys.readouterr().out)["options"]
    [stop] = [o for o in options if len(o["keep"]) == 5]
    assert stop["stop_and_score"] == {"category": best_box.category, "score": best_box.score}
    assert all("stop_and_score" not in o for o in options if len(o["keep"]) < 5)


# --- bug 3: --level means a computer -----------------------------------------------------------------
def test_level_alone_plays_against_the_computer(monkeypatch, capsys, data):
    rc, out, _ = play(monkeypatch, capsys, data, ["--level", "hard", "--seed", "2"], ["r", "s 1"])
    assert rc == 1 and "Computer (hard) scores" in out
    assert saved_games(data)[0]["mode"] == "vs-computer"
    rc, _, err = play(monkeypatch, capsys, data, ["--level", "hard", "--solo"], ["r"])
    assert rc == 2 and "--level" in err and len(err.strip().splitlines()) == 1


# --- bug 4: dailies ------------------------------------------------------------------------------------
def test_a_daily_replay_says_so_and_keeps_the_first_result(monkeypatch, capsys, data, tables_dir):
    tables_dir.table(SMALL)
    argv = ["--daily", "2026-10-17", "--rules", SMALL, "--tables", str(tables_dir)]
    n = get_rules(SMALL).n_boxes
    rc, out, _ = play(monkeypatch, capsys, data, argv, whole_game(n))
    assert rc == 0 and "already" not in out
    first = saved_games(data)[0]["final"][0]["score"]
    reverse = [x for i in range(n, 0, -1) for x in ("r", f"s {i}")]  # another game on the same dice
    rc, out, _ = play(monkeypatch, capsys, data, argv, reverse)
    assert rc == 0
    assert f"you played the daily challenge of 2026-10-17 already ({first} points)" in out
    share = " ".join(out.split("--- to share ---")[1].split())
    replay = next(g for g in saved_games(data) if g.get("replay"))
    assert f"You {replay['final'][0]['score']} (replay), optimal player " in share
    assert records.load_records(data)["daily"][f"2026-10-17 {SMALL}"]["score"] == first
    assert sorted(bool(g.get("replay")) for g in saved_games(data)) == [False, True]


def test_a_daily_of_the_future_is_refused(monkeypatch, capsys, data):
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    for date in (tomorrow, "2099-01-01"):
        rc, _, err = play(monkeypatch, capsys, data, ["--daily", date], ["r"])
        assert rc == 2 and "not out yet" in err and date in err
        assert len(err.strip().splitlines()) == 1
    assert not (data / "games").exists()


def test_daily_share_text_names_the_game_of_its_rules():
    from solver.core.card import ScoreCard
    from solver.play.daily import share_text

    for spec, word in (("yatzy", "Yatzy"), ("yahtzee", "Yahtzee"), ("yacht+all-rolls", "Yacht")):
        rules = get_rules(spec)
        first = share_text("2026-10-17", rules, "Ann", ScoreCard.empty(rules), None).splitlines()[0]
        which = "" if spec in ("yatzy", "yahtzee") else f" ({spec})"
        assert first == f"{word} daily 2026-10-17{which}: Ann 0"


# --- bug 5: the record is for unassisted games on fresh dice --------------------------------------------
def test_hinted_games_do_not_set_the_record(monkeypatch, capsys, data, tables_dir):
    tables_dir.table(SMALL)
    n = get_rules(SMALL).n_boxes
    argv = ["--rules", SMALL, "--tables", str(tables_dir), "--seed", "5"]
    rc, out, _ = play(monkeypatch, capsys, data, argv, ["r", "hint", *whole_game(n)[1:]])
    assert rc == 0
    assert "marked assisted" in out and "(assisted: hint): not counted for your record" in out
    assert records.solo_best(SMALL, data) is None
    [game] = saved_games(data)
    assert game["assisted"] == ["hint"]


def test_a_replayed_seed_does_not_count(monkeypatch, capsys, data):
    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "7"], whole_game())
    assert rc == 0 and "first record for yahtzee" in out
    best = records.solo_best("yahtzee", data)
    better = [x for i in range(13, 0, -1) for x in ("r", f"s {i}")]
    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "7"], better)
    assert rc == 0
    assert "you played seed 7 before: this replay does not count for your record" in out
    assert "(a replay): not counted for your record" in out
    assert records.solo_best("yahtzee", data) == best
    assert sorted(bool(g.get("replay")) for g in saved_games(data)) == [False, True]


def test_dailies_do_not_set_the_solo_record(monkeypatch, capsys, data, tables_dir):
    tables_dir.table(SMALL)
    argv = ["--daily", "2026-10-17", "--rules", SMALL, "--tables", str(tables_dir)]
    assert play(monkeypatch, capsys, data, argv, whole_game(get_rules(SMALL).n_boxes))[0] == 0
    assert records.solo_best(SMALL, data) is None


# --- bug 6: small things -----------------------------------------------------------------------------------
def test_tying_the_record_says_so(monkeypatch, capsys, data, tmp_path):
    play(monkeypatch, capsys, tmp_path / "elsewhere", ["--seed", "8"], whole_game())
    score = saved_games(tmp_path / "elsewhere")[0]["final"][0]["score"]
    records.record_solo("yahtzee", score, None, data)
    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "8"], whole_game())
    assert rc == 0
    assert f"you tied your record for yahtzee: {score}" in out and "0 more" not in out
    records.record_solo("yahtzee", score + 5, None, data)
    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "9"], whole_game())
    [got] = [g["final"][0]["score"] for g in saved_games(data) if g["seed"] == 9]
    if got < score + 5:
        assert f"stays {score + 5} ({score + 5 - got + 1} more points beat it)" in out


def test_six_digits_at_the_real_dice_prompt(monkeypatch, capsys, data):
    rc, out, _ = play(monkeypatch, capsys, data, ["--real-dice"], ["123456", "r 334566", "33456", "q"])
    refusals = [line for line in out.splitlines() if line.startswith("! ")]
    assert refusals == ["! that's six dice: type the 5 dice rolled"] * 2
    assert "You score" not in out and rc == 0


def test_box_prefixes_count_open_boxes_only(monkeypatch, capsys, data):
    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "1"], ["r", "s threes", "r", "s three", "q"])
    assert rc == 0 and "! " not in out
    boxes = [t["box"] for t in saved_games(data)[0]["turns"] if "box" in t]
    assert boxes == ["threes", "three_of_a_kind"]


@pytest.mark.parametrize(
    "spec,typed",
    [
        ("yahtzee", {"aces": "ones", "3k": "three_of_a_kind", "4k": "four_of_a_kind", "fh": "full_house"}),
        ("yahtzee", {"ss": "small_straight", "lg": "large_straight", "ch": "chance", "y": "yahtzee"}),
        (
            "yatzy",
            {"1p": "one_pair", "2p": "two_pairs", "y": "yatzy", "yahtzee": "yatzy", "sm": "small_straight"},
        ),
        ("yacht", {"ch": "choice", "y": "yacht", "ls": "little_straight", "bs": "big_straight"}),
    ],
)
def test_box_aliases(spec, typed):
    game = Game.new(spec, ["You"], seed=1, info={"mode": "solo"})
    for alias, box in typed.items():
        assert game.box_name(alias) == box


def test_an_alias_takes_the_open_row_of_several():
    from solver.core.dice import Dice

    game = Game.new("yatzy+yatzy-rows=2", ["You"], seed=1, info={"mode": "solo"})
    assert game.box_name("y") == "yatzy"
    game.cards[0] = game.card.score("yatzy", Dice.parse("12346"))
    assert game.box_name("y") == "yatzy_2" and game.box_name("yatzy") == "yatzy"


def test_ctrl_d_at_a_terminal_is_quit_on_a_new_line(monkeypatch, capsys, data, tables_dir):
    argv = ["--seed", "1", "--tables", str(tables_dir)]  # at a terminal the table is loaded first
    rc, out, _ = play(monkeypatch, capsys, data, argv, [], stdin=FakeTty("r\n"))
    assert rc == 0
    assert "r to roll> \ngame stopped" in out.replace("2 rolls left> \n", "r to roll> \n")
    assert saved_games(data)[0]["status"] == "abandoned"


@pytest.mark.parametrize("seed", [str(2**64), "-1", str(10**30)])
def test_seeds_out_of_range_are_refused(monkeypatch, capsys, data, seed):
    rc, _, err = play(monkeypatch, capsys, data, ["--seed", seed], ["r"])
    assert rc == 2 and seed in err and len(err.strip().splitlines()) == 1


def test_the_largest_seed_plays():
    game = Game.new("yahtzee", ["You"], seed=2**64 - 1, info={"mode": "solo"})
    assert game.roll().values == tuple(SeededStream(2**64 - 1, game=0).next_five())


def test_enter_rolls(monkeypatch, capsys, data):
    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "1"], ["", "h 1", "", "", "", "s ch", "q"])
    assert rc == 0
    assert [line for line in out.splitlines() if line.startswith("! ")] == [
        "! no rolls left: choose a box (s 9 or s full_house)"
    ]
    [game] = saved_games(data)
    assert len(game["turns"][0]["rolls"]) == 3 and game["turns"][0]["rolls"][1]["held"] == [1]
    assert game["turns"][0]["box"] == "chance"
    rc, out, _ = play(monkeypatch, capsys, data, ["--real-dice"], ["", "q"])
    assert "! empty input: type the dice you rolled" in out


def test_a_missing_table_is_built_before_the_first_prompt_at_a_terminal(monkeypatch, capsys, data, tmp_path):
    from solver.engine.tables import table_paths

    tables = tmp_path / "tables"
    argv = ["--rules", SMALL, "--tables", str(tables), "--seed", "1"]
    rc, out, _ = play(monkeypatch, capsys, data, argv, [], stdin=FakeTty("q\n"))
    assert rc == 0 and "game stopped" in out
    assert all(p.exists() for p in table_paths(get_rules(SMALL), tables))


# --- undo ---------------------------------------------------------------------------------------------------
def test_undo_takes_back_the_last_box(monkeypatch, capsys, data):
    rc, out, _ = play(monkeypatch, capsys, data, ["--seed", "1"], ["r", "s chance", "undo", "s 1", "r", "q"])
    assert rc == 0
    assert "undone: " in out and " in chance; back to turn 1" in out
    [game] = saved_games(data)
    turns = game["turns"]
    assert [t.get("box") for t in turns] == ["ones", None]
    assert game["assisted"] == ["undo"]
    first = SeededStream(1, game=0)
    assert turns[0]["rolls"][0]["values"] == list(first.next_five())
    assert turns[1]["rolls"][0]["values"] == list(first.next_five())  # the dice go on from there
    Game.from_dict(game)


def test_undo_is_refused_in_matches_and_before_any_box(monkeypatch, capsys, data):
    _, out, _ = play(monkeypatch, capsys, data, ["--seed", "1"], ["undo", "q"])
    assert "! nothing to undo: no box is filled yet" in out
    _, out, _ = play(monkeypatch, capsys, data, ["--vs-computer", "--seed", "1"], ["r", "s 1", "undo", "q"])
    assert "! undo is for solo games" in out


def test_scoring_zero_asks_first_at_a_terminal(monkeypatch, capsys, data, tables_dir):
    first = SeededStream(1, game=0).next_five()
    assert sum(first) > 0 and len(set(first)) > 1  # no yahtzee: the yahtzee box scores 0, chance does not
    stdin = FakeTty("r\ns yahtzee\nn\ns yahtzee\ny\nq\n")
    rc, out, _ = play(
        monkeypatch, capsys, data, ["--seed", "1", "--tables", str(tables_dir)], [], stdin=stdin
    )
    assert rc == 0
    assert out.count("score 0 in yahtzee? these dice score points in another box (y/n)> ") == 2
    assert "not scored: choose a box" in out
    assert [t.get("box") for t in saved_games(data)[0]["turns"]] == ["yahtzee"]


def test_the_first_hint_asks_before_it_costs_the_record(monkeypatch, capsys, data, tables_dir):
    stdin = FakeTty("r\nhint\nn\nhint\ny\nhint\nq\n")
    rc, out, _ = play(
        monkeypatch, capsys, data, ["--seed", "1", "--tables", str(tables_dir)], [], stdin=stdin
    )
    assert rc == 0
    assert out.count("hint anyway? (y/n)> ") == 2  # asked until yes, then never again
    assert "no hint: the game still counts for your record" in out and out.count("expected final score") == 2
    [game] = saved_games(data)
    assert game["assisted"] == ["hint"]


# --- resume -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(  # the fast loop resumes a game against the computer; CI a solo game too
    "mode",
    [
        pytest.param(["--seed", "4"], marks=pytest.mark.slow),
        ["--vs-computer", "--level", "medium", "--seed", "4"],
    ],
)
def test_resume_goes_on_exactly_where_the_game_stopped(monkeypatch, capsys, data, tmp_path, mode):
    script = ["r", "h 1 2", "r", "s 7", "r", "s 9", "r", "r", "s 1"] + [
        x for i in (2, 3, 4, 5, 6, 8, 10, 11, 12, 13) for x in ("r", f"s {i}")
    ]
    # the whole game at once, elsewhere
    rc, _, _ = play(monkeypatch, capsys, tmp_path / "once", mode, script)
    assert rc == 0
    [once] = saved_games(tmp_path / "once")
    # the same game stopped twice (q, then the end of the input) and resumed
    cut1, cut2 = 7, 12
    assert play(monkeypatch, capsys, data, mode, [*script[:cut1], "q"])[0] == 0
    rc, out, _ = play(monkeypatch, capsys, data, ["--resume"], script[cut1:cut2])
    assert rc == 1 and "game resumed where it stopped: " in out
    [path] = (data / "games").glob("*.json")
    rc, out, _ = play(monkeypatch, capsys, data, ["--resume", str(path)], script[cut2:])
    assert rc == 0 and "=== game over ===" in out
    [resumed] = saved_games(data)
    assert resumed["turns"] == once["turns"] and resumed["final"] == once["final"]
    assert resumed["status"] == "finished"
    [stored] = records.stored_games(data)
    assert stored["status"] == "finished"


def test_resume_refusals(monkeypatch, capsys, data):
    rc, _, err = play(monkeypatch, capsys, data, ["--resume"], [])
    assert rc == 2 and "no unfinished game to resume" in err
    play(monkeypatch, capsys, data, ["--seed", "3"], whole_game())
    rc, _, err = play(monkeypatch, capsys, data, ["--resume"], [])
    assert rc == 2 and "no unfinished game" in err
    [path] = (data / "games").glob("*.json")
    rc, _, err = play(monkeypatch, capsys, data, ["--resume", str(path)], [])
    assert rc == 2 and "finished" in err
    rc, _, err = play(monkeypatch, capsys, data, ["--resume", "--seed", "1"], [])
    assert rc == 2 and "drop --seed" in err


# --- several players --------------------------------------------------------------------------------------
def test_hot_seat_sheet_after_each_round_within_80_columns(monkeypatch, capsys, data):
    names = "Annabelle-Marie,Bartholomew,Cy,Dee"
    lines = [x for i in range(1, 14) for x in [x for _ in range(4) for x in ("r", f"s {i}")]]
    lines.insert(2, "cards")
    rc, out, _ = play(monkeypatch, capsys, data, ["--players", names, "--seed", "3"], lines)
    assert rc == 0
    sheets = [i for i, line in enumerate(out.splitlines()) if line.startswith("  total ")]
    assert len(sheets) == 1 + 12 + 1  # the cards command, after rounds 1..12, at the end
    screen = out.split("type help for the commands")[1]  # the intro names every player, in full
    assert max(len(line) for line in screen.splitlines() if str(data) not in line) <= 80
    game = saved_games(data)[0]
    last = out.splitlines()[sheets[-1]].split()[1:]
    assert [int(x) for x in last] == [f["score"] for f in game["final"]]


def test_against_the_computer_its_turn_stays_on_screen(monkeypatch, capsys, data):
    """After each round one line of totals, not the 19-line sheet: the computer's turn above it
    stays on an 80x24 screen (``cards`` shows the sheet)."""
    lines = [x for i in range(1, 14) for x in ("r", f"s {i}")]
    lines.insert(2, "cards")
    rc, out, _ = play(monkeypatch, capsys, data, ["--vs-computer", "--seed", "3"], lines)
    assert rc == 0
    assert sum(line.startswith("after round ") for line in out.splitlines()) == 12
    sheets = [line for line in out.splitlines() if line.startswith("  total ")]
    assert len(sheets) == 2  # the cards command and the end
    turn = out.split("--- Computer (medium): turn 5 of 13")[1].split("after round 5:")[0]
    assert len(turn.splitlines()) < 24 and "Computer (medium) scores" in turn


# --- real dice ---------------------------------------------------------------------------------------------
def test_real_dice_infers_the_dice_kept(monkeypatch, capsys, data, tables_dir):
    tables_dir.table(SMALL)
    argv = ["--real-dice", "--coach", "--rules", SMALL, "--tables", str(tables_dir)]
    rc, out, _ = play(monkeypatch, capsys, data, argv, ["55562", "55513", "q"])
    assert rc == 0
    assert "kept 5 5 5 (the dice that stayed the same)" in out
    [game] = saved_games(data)
    second = game["turns"][0]["rolls"][1]
    assert second["held"] == [1, 2, 3] and second["values"] == [1, 3]
    coach = [line for line in out.splitlines() if "coach:" in line]
    assert coach and "reroll all" not in coach[0] and "keep 5 5 5" in coach[0]


# --- colours -----------------------------------------------------------------------------------------------
def test_colours_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    from solver.cli.play import Terminal, _color_wanted
    from solver.play.session import GameTables, Session

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert _color_wanted(Tty()) and not _color_wanted(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _color_wanted(Tty())
    game = Game.new("yahtzee", ["You"], seed=1, info={"mode": "solo"})
    game.roll()
    game.score("threes")
    game.roll()
    game.set_held([1])
    for color in (True, False):
        out = io.StringIO()
        session = Terminal(Session(game, None, GameTables()), inp=io.StringIO(), out=out, color=color)
        session.show_dice()
        session.show_card()
        text = out.getvalue()
        assert ("\x1b[" in text) == color
        assert "upper pace" in text
        plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
        pace = game.card.scores[2] - 9
        assert re.search(rf"upper pace\s+{'par' if pace == 0 else f'{pace:+d}'}", plain)


# --- statistics and review --last ------------------------------------------------------------------------
def test_stats_and_review_last(monkeypatch, capsys, data, tables_dir):
    tables_dir.table(SMALL)
    n = get_rules(SMALL).n_boxes
    base = ["--rules", SMALL, "--tables", str(tables_dir)]
    play(monkeypatch, capsys, data, [*base, "--seed", "1"], whole_game(n))
    play(monkeypatch, capsys, data, [*base, "--seed", "2"], ["r", "hint", *whole_game(n)[1:]])
    play(monkeypatch, capsys, data, [*base, "--daily", "2026-10-17"], whole_game(n))
    play(monkeypatch, capsys, data, [*base, "--seed", "3"], ["r", "q"])  # unfinished: not counted
    scores = [g["final"][0]["score"] for g in saved_games(data) if g["status"] == "finished"]
    # typed-in dice prove nothing: 66666 every turn is neither the best nor in the unassisted average
    play(
        monkeypatch,
        capsys,
        data,
        [*base, "--real-dice"],
        [x for i in range(1, n + 1) for x in ("66666", f"s {i}")],
    )
    assert main(["stats", "--data", str(data), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    s = stats["rules"][SMALL]
    assert s["games"] == 4 and s["assisted"] == 1 and s["real_dice"] == 1 and s["best"] == max(scores)
    real = next(g["final"][0]["score"] for g in saved_games(data) if g.get("dice") == "real")
    assert real > max(scores) and s["average"] == round((sum(scores) + real) / 4, 2)
    fair = [
        g["final"][0]["score"]
        for g in saved_games(data)
        if g["status"] == "finished" and not g.get("assisted") and g.get("dice") != "real"
    ]
    assert len(fair) == 2 and s["unassisted_average"] == round(sum(fair) / 2, 2)
    assert s["record"] == records.solo_best(SMALL, data)["score"]
    assert sum(s["histogram"].values()) == 4
    assert stats["daily"]["played"] == 1 and stats["daily"]["history"][0]["date"] == "2026-10-17"
    assert main(["stats", "--data", str(data), "--rules", SMALL]) == 0
    text = " ".join(capsys.readouterr().out.split())  # the long rule id wraps its lines
    assert f"{SMALL}: 4 games finished" in text and "daily: 1 played" in text and "1 on real dice" in text
    assert main(["review", "--last", "--data", str(data), "--tables", str(tables_dir)]) == 0
    head = " ".join(capsys.readouterr().out.split("\n\n")[0].split())
    assert head == f"Review: {SMALL}, solo, real dice"  # the last game finished
    assert main(["review", "--last", "--data", str(data / "nothing")]) == 2


def test_stats_of_nothing(capsys, tmp_path):
    assert main(["stats", "--data", str(tmp_path)]) == 0
    assert "no finished games yet" in capsys.readouterr().out


# --- every mode end to end: aliases, undo, quitting, resuming ------------------------------------------------
YAHTZEE_ALIASES = ["aces", "2s", "3s", "4s", "5s", "6s", "3k", "4k", "fh", "ss", "ls", "y", "ch"]
SMALL_ALIASES = ["4s", "5s", "6s", "3k", "lg", "y", "ch"]


@pytest.mark.parametrize(
    "mode,argv,roll,aliases,can_undo",
    [
        # the fast loop: solo and daily (undo, resume; test_play_cli plays the other modes); CI all
        ("solo", ["--seed", "21"], "r", YAHTZEE_ALIASES, True),
        pytest.param(
            "vs-computer",
            ["--level", "hard", "--seed", "21"],
            "r",
            YAHTZEE_ALIASES,
            False,
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "hot-seat",
            ["--players", "Ann,Ben", "--seed", "21"],
            "r",
            YAHTZEE_ALIASES,
            False,
            marks=pytest.mark.slow,
        ),
        ("daily", ["--daily", "2026-10-17", "--rules", SMALL], "r", SMALL_ALIASES, False),
        pytest.param("real-dice", ["--real-dice"], "12346", YAHTZEE_ALIASES, True, marks=pytest.mark.slow),
    ],
)
def test_every_mode_scripted_with_aliases_undo_and_resume(
    monkeypatch, capsys, data, tables_dir, mode, argv, roll, aliases, can_undo
):
    tables_dir.table(SMALL)
    argv = [*argv, "--tables", str(tables_dir)]
    seats = 2 if mode == "hot-seat" else 1
    turns = [[roll, f"s {a}"] * seats for a in aliases]
    script = [x for t in turns[:3] for x in t] + ["undo"]
    if can_undo:  # take back the third box and score it again
        script.append(f"s {aliases[2]}")
    script.append("q")
    rc, out, _ = play(monkeypatch, capsys, data, argv, script)
    assert rc == 0 and "game stopped" in out
    if can_undo:
        assert "undone: " in out and "! " not in out
    else:
        assert [line for line in out.splitlines() if line.startswith("! ")] == [
            "! undo is for solo games (not dailies or games against others)"
        ]
    resume = ["--resume", "--tables", str(tables_dir)]  # never the checkout's own tables folder
    rc, out, _ = play(monkeypatch, capsys, data, resume, [x for t in turns[3:6] for x in t])
    assert (
        rc == 1 and "game resumed where it stopped: " in out and "! " not in out
    )  # the input ends: saved again
    rc, out, _ = play(monkeypatch, capsys, data, resume, [x for t in turns[6:] for x in t])
    assert rc == 0 and "=== game over ===" in out and "! " not in out
    [game] = saved_games(data)
    assert game["status"] == "finished" and game["mode"] == mode.replace("real-dice", "solo")
    loaded = Game.from_dict(game)
    assert loaded.is_over
    boxes = [t["box"] for t in game["turns"] if game["players"][0]["name"] == t["player"]]
    rules = get_rules(game["rules"])
    assert boxes == [loaded.box_name(a) for a in aliases] and sorted(boxes) == sorted(rules.box_names)
    assert ("undo" in (game.get("assisted") or [])) == can_undo


def test_the_hints_own_zero_is_not_asked_again(monkeypatch, capsys, tables_dir):
    """The hint says: score 0 in yahtzee (chance is worth more later). Typing the hint's move is
    not asked "score 0?"; the same zero typed without the hint is."""
    from solver.cli.play import Terminal
    from solver.core.card import ScoreCard
    from solver.play.game import Game
    from solver.play.session import GameTables, Session

    tables_dir.table("yahtzee")
    card = ScoreCard.parse(
        "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,four_of_a_kind=0,"
        "full_house=25,small_straight=30,large_straight=40",
        "yahtzee",
    )
    for lines, asked in ((["hint", "s yahtzee"], 0), (["s yahtzee", "n"], 1)):
        game = Game.new("yahtzee", ["You"], real_dice=True, info={"mode": "solo", "assisted": ["coach"]})
        game.cards[0] = card
        for _ in range(3):
            game.roll([1, 2, 3, 4, 6])
        monkeypatch.setattr(sys, "stdin", FakeTty("\n".join(lines) + "\n"))
        session = Terminal(Session(game, None, GameTables(tables_dir.path)), out=io.StringIO())
        session.command(session.read("> "))
        if asked == 0:
            session.command(session.read("> "))
        assert capsys.readouterr().out.count("score 0 in yahtzee?") == asked

"""yahtzee export (solver/play/export.py): the samplers, the values against Advisor.advise, Parquet read
back with pyarrow, JSON lines, the bot's games as the game model plays them, and the command's errors."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from solver.cli import main
from solver.core.dice import Dice
from solver.core.rules import get_rules
from solver.core.streams import MAX_SEED, SeededStream, seeded_dice
from solver.play import export as E
from solver.play.bots import get_bot
from solver.play.game import Game, Player, play_bot_turn
from solver.play.simulate import game_rng

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_seeded_dice_are_the_streams():
    for seed in (0, 7, MAX_SEED):
        games = np.array([0, 1, 5, 2**40])
        drawn = np.array([0, 5, 35, 100])
        got = seeded_dice(seed, games, drawn)
        for row, g, k in zip(got.tolist(), games.tolist(), drawn.tolist(), strict=True):
            stream = SeededStream(seed, g)
            for _ in range(k // 5):
                stream.next_five()
            assert tuple(row) == stream.next_five()


@pytest.mark.parametrize(
    "spec",
    [  # the fast loop keeps yahtzee+order=down, the cheapest; CI runs all four
        pytest.param("yahtzee", marks=pytest.mark.slow),
        pytest.param("yatzy", marks=pytest.mark.slow),
        "yahtzee+order=down",
        pytest.param("yatzy+order=choose", marks=pytest.mark.slow),
    ],
)
def test_spread_positions_are_reachable_and_spread(spec):
    rules = get_rules(spec)
    blocks = list(E.spread_blocks(rules, 20000, 3, chunk=8192))
    assert [len(b) for b in blocks] == [8192, 8192, 3616]
    block = blocks[0]
    positions = block.positions(rules)  # ScoreCard checks every card: scores, fill order
    filled = np.concatenate([(b.scores >= 0).sum(axis=1) for b in blocks])
    assert set(filled.tolist()) == set(range(rules.n_boxes))
    assert set(block.rolls_left.tolist()) == {0, 1, 2}
    assert all(rules.is_reachable_mask(p.card.filled_mask) for p in positions)
    assert len({p.dice for p in positions}) > 240  # nearly all of the 252 rolls
    assert len({str(p.card) for p in positions}) > len(positions) / (2 * E.SPREAD_PER_CARD)
    again = next(E.spread_blocks(rules, 20000, 3, chunk=8192))
    assert np.array_equal(again.scores, block.scores) and np.array_equal(again.roll, block.roll)
    other = next(E.spread_blocks(rules, 20000, 4, chunk=8192))
    assert not np.array_equal(other.roll, block.roll)


def advisor_json(advisor, position):
    return advisor.advise(position).to_json()


@pytest.mark.slow  # seconds: CI runs it, the fast loop leaves it out
def test_spread_parquet_matches_the_advisor(tables_dir, tmp_path):
    tables_dir.table("yahtzee")
    advisor = tables_dir.advisor("yahtzee")
    out = tmp_path / "spread.parquet"
    n = E.export_positions(out, "yahtzee", positions=3000, seed=5, tables_dir=tables_dir)
    assert n == 3000
    table = pq.read_table(out)
    assert table.num_rows == 3000
    assert table.schema.metadata[b"rules"] == b"yahtzee"
    rows = E.parquet_rows(out)
    positions = next(E.spread_blocks(get_rules("yahtzee"), 3000, 5)).positions(get_rules("yahtzee"))
    for i in range(0, 3000, 7):
        assert rows[i] == advisor_json(advisor, positions[i]), i
    # the values at full precision: the advisor's floats
    raw = table.slice(0, 200).to_pylist()
    for i, row in enumerate(raw):
        options = advisor.advise(positions[i]).options
        assert [o["ev"] for o in row["options"]] == pytest.approx([o.ev for o in options], abs=1e-9)
        assert row["options"][0]["regret"] == 0.0 and row["options"][0]["best"]


def test_tied_best_options_carry_a_regret_of_exactly_zero(tables_dir):
    """Options within the tie tolerance of the best are best and lose nothing: ``regret == 0``
    finds every one of them (not 1e-14 of rounding), in the export's arrays and the advisor's
    options alike; the others keep their regret as computed."""
    from solver.engine.turn import TIE_TOLERANCE

    tables_dir.table("yahtzee")
    advisor, batch = tables_dir.advisor("yahtzee"), E.BatchAdvisor.load("yahtzee", tables_dir, progress=False)
    block = next(E.spread_blocks(get_rules("yahtzee"), 3000, 5))
    options = E.rank_block(batch, block)
    raw = np.repeat(options.ev[options.offsets[:-1]], np.diff(options.offsets)) - options.ev
    tied = (raw > 0) & (raw <= TIE_TOLERANCE)
    assert tied.sum() > 10  # such ties are there (48 of 49,977 options)
    assert np.array_equal(options.best, options.regret == 0.0) and np.all(options.regret[tied] == 0.0)
    assert np.array_equal(options.regret[~options.best], raw[~options.best])
    position = np.searchsorted(options.offsets, np.flatnonzero(tied)[0], side="right") - 1
    advice = advisor.advise(block.positions(get_rules("yahtzee"))[position])
    assert [o.best for o in advice.options] == [o.regret == 0.0 for o in advice.options]
    assert sum(o.best for o in advice.options) >= 2


def test_spread_jsonl_matches_the_advisor(tables_dir, tmp_path):
    tables_dir.table("yahtzee")
    advisor = tables_dir.advisor("yahtzee")
    out = tmp_path / "spread.jsonl"
    E.export_positions(out, "yahtzee", fmt="jsonl", positions=600, seed=6, tables_dir=tables_dir)
    lines = out.read_text().splitlines()
    positions = next(E.spread_blocks(get_rules("yahtzee"), 600, 6)).positions(get_rules("yahtzee"))
    assert len(lines) == 600
    for line, position in zip(lines, positions, strict=True):
        assert json.loads(line) == advisor_json(advisor, position)


def python_decisions(rules, bot, games, seed):
    """Every decision of the games as the game model plays them: (game, turn, roll, card, dice,
    rolls_left, keep or box)."""
    out = []
    for g in range(games):
        game = Game(rules, [Player("bot")], [SeededStream(seed, g)])
        rng = game_rng(seed, g)
        while not game.is_over:
            play_bot_turn(game, bot, rng)
        for d in game.decisions():
            out.append(
                (
                    g,
                    d.turn,
                    d.roll,
                    str(d.card),
                    str(d.dice),
                    d.rolls_left,
                    d.box if d.keep is None else d.keep,
                )
            )
    return out


# the fast loop: optimal (a table bot, on arrays) and frequent (through the game model, as greedy)
@pytest.mark.parametrize("name", ["optimal", pytest.param("greedy", marks=pytest.mark.slow), "frequent"])
def test_bot_export_is_every_decision_of_the_games(tables_dir, tmp_path, name):
    """The table bots play side by side on arrays, the others through the game model: either way
    the rows are the decisions Game.decisions() lists, the bot's move is options[chosen], and the
    options are the advisor's."""
    rules = get_rules("yahtzee")
    tables_dir.table("yahtzee")
    advisor = tables_dir.advisor("yahtzee")
    bot = get_bot(name, rules, tables_dir)
    out = tmp_path / "games.parquet"
    n = E.export_positions(out, rules, bot=bot, games=12, seed=9, tables_dir=tables_dir)
    rows = E.parquet_rows(out)
    want = python_decisions(rules, bot, 12, 9)
    assert n == len(rows) == len(want)
    order = lambda x: x[:3] + (-x[5],)  # noqa: E731 - game, turn, roll, the keep before the box
    got = sorted(
        (
            (
                r["game"],
                r["turn"],
                r["roll"],
                r["card"],
                r["dice"],
                r["rolls_left"],
                r["options"][r["chosen"]],
            )
            for r in rows
        ),
        key=order,
    )
    for (g, t, k, card, dice, left, option), w in zip(got, sorted(want, key=order), strict=True):
        assert (g, t, k, card, dice, left) == w[:6]
        move = tuple(option["keep"]) if "keep" in option else option["category"]
        assert move == w[6]
    for r in rows[::5]:
        from solver.core.position import Position

        position = Position.parse(r["card"], r["dice"], r["rolls_left"], rules)
        extra = {k: r.pop(k) for k in ("game", "turn", "roll", "chosen")}
        assert r == advisor_json(advisor, position)
        if name == "optimal":
            assert r["options"][extra["chosen"]]["best"]


def test_table_bot_engines_agree(tables_dir):
    """The side-by-side games of the table bots are the game model's, decision by decision."""
    rules = get_rules("yahtzee")
    tables_dir.table("yahtzee")
    for name in ("optimal", "heuristic"):
        bot = get_bot(name, rules, tables_dir)

        def joined(engine, bot=bot):
            blocks = list(E.bot_blocks(rules, bot, 30, 4, engine=engine))
            d = {
                k: np.concatenate([getattr(b, k) for b in blocks])
                for k in ("scores", "roll", "rolls_left", "game", "turn", "roll_number", "chosen")
            }
            order = np.lexsort((-d["rolls_left"], d["roll_number"], d["turn"], d["game"]))
            return {k: v[order] for k, v in d.items()}

        fast, slow = joined("auto"), joined("python")
        for key in fast:
            assert np.array_equal(fast[key], slow[key]), (name, key)


@pytest.mark.slow  # seconds: CI runs it, the fast loop leaves it out
def test_all_rolls_and_bonuses(tables_dir, tmp_path):
    """Under all-rolls no keep stops (no stop_and_score); a Yahtzee bonus shows as the options' bonus."""
    tables_dir.table("yatzy+all-rolls")
    out = tmp_path / "all.parquet"
    E.export_positions(out, "yatzy+all-rolls", positions=2000, seed=1, tables_dir=tables_dir)
    rows = E.parquet_rows(out)
    advisor = tables_dir.advisor("yatzy+all-rolls")
    rules = get_rules("yatzy+all-rolls")
    positions = next(E.spread_blocks(rules, 2000, 1)).positions(rules)
    for i in range(0, 2000, 25):
        assert rows[i] == advisor_json(advisor, positions[i])
    assert not any("stop_and_score" in o for r in rows for o in r["options"])
    tables_dir.table("yahtzee")
    bonus = tmp_path / "bonus.jsonl"
    E.export_positions(bonus, "yahtzee", fmt="jsonl", bot="optimal", games=300, seed=2, tables_dir=tables_dir)
    rows = [json.loads(line) for line in bonus.read_text().splitlines()]
    with_bonus = [r for r in rows if any(o.get("bonus") for o in r["options"])]
    assert with_bonus and all(r["decision"] == "score" for r in with_bonus)
    parquet = tmp_path / "bonus.parquet"
    E.export_positions(parquet, "yahtzee", bot="optimal", games=300, seed=2, tables_dir=tables_dir)
    assert E.parquet_rows(parquet) == rows


def test_positions_caps_a_bot_export(tables_dir, tmp_path):
    tables_dir.table("yahtzee")
    out = tmp_path / "cap.jsonl"
    assert (
        E.export_positions(out, fmt="jsonl", bot="random", games=50, positions=77, tables_dir=tables_dir)
        == 77
    )
    assert len(out.read_text().splitlines()) == 77


def test_cli_writes_and_reports(tables_dir, tmp_path, capsys):
    tables_dir.table("yahtzee")
    out = tmp_path / "cli.parquet"
    args = ["export", str(out), "--spread", "--positions", "1000", "--tables", str(tables_dir), "--quiet"]
    assert main(args) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("wrote 1,000 positions to") and len(line) <= 80 + len(str(out))
    assert pq.read_table(out).num_rows == 1000
    assert (
        main(["export", "-", "--bot", "greedy", "--games", "2", "--tables", str(tables_dir), "--quiet"]) == 0
    )
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == len(python_decisions(get_rules("yahtzee"), get_bot("greedy"), 2, 0))
    assert all(json.loads(x)["options"] for x in lines) and "wrote" in captured.err


@pytest.mark.parametrize(
    "args, message",
    [
        (["out.parquet"], "--bot NAME"),
        (["out.parquet", "--spread", "--bot", "optimal"], "not both"),
        (["out.parquet", "--spread", "--games", "3"], "--games is for --bot"),
        (["out.txt", "--spread"], "give --format"),
        (["out.parquet", "--spread", "--positions", "0"], "positions must be from 1"),
        (["out.parquet", "--spread", "--positions", "50000001"], "50,000,000"),
        (["out.parquet", "--bot", "random", "--games", "2000001"], "2,000,000"),
        (["out.parquet", "--spread", "--positions", "1e5"], "invalid int value"),
        (["out.parquet", "--spread", "--seed", "-1"], "invalid int value"),
        (["-", "--spread", "--format", "parquet"], "not to stdout"),
        (["missing/out.parquet", "--spread"], "does not exist"),
        (["out.parquet", "--bot", "nobody"], "unknown bot"),
        (["out.parquet", "--spread", "--rules", "triple"], "triple"),
        (["out.parquet", "--spread", "--rules", "nonsense"], "nonsense"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    empty = tmp_path / "tables"
    empty.mkdir()
    assert main(["export", *args, "--tables", str(empty)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err and err.startswith("yahtzee")
    assert not any(empty.iterdir())  # refused before any table is built
    assert not os.path.exists("out.parquet")


def test_cli_refuses_a_folder(tmp_path, capsys):
    assert main(["export", str(tmp_path), "--spread", "--format", "jsonl"]) == 2
    assert "folder" in capsys.readouterr().err


def test_without_pyarrow_one_line_hint(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)
    assert main(["export", str(tmp_path / "x.parquet"), "--spread", "--tables", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"yahtzee: error: {E.EXPORT_HINT}"


def test_written_atomically(tables_dir, tmp_path, monkeypatch):
    """A failure mid-way leaves the old file whole and no temporary file behind."""
    tables_dir.table("yahtzee")
    out = tmp_path / "keep.parquet"
    E.export_positions(out, positions=100, tables_dir=tables_dir)
    before = out.read_bytes()
    real = E.parquet_table
    calls = []

    def failing(*a, **k):
        calls.append(1)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return real(*a, **k)

    monkeypatch.setattr(E, "parquet_table", failing)
    monkeypatch.setattr(E, "CHUNK", 64)
    with pytest.raises(OSError):
        E.write_export(
            out,
            "parquet",
            E.BatchAdvisor(tables_dir.table("yahtzee")),
            E.spread_blocks(get_rules("yahtzee"), 500, 1, chunk=64),
            500,
            from_games=False,
        )
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.parquet"]


def test_dice_text_and_cards_of_the_rows(tables_dir, tmp_path):
    """The row's card and dice are the position's, in the notation hint reads."""
    rules = get_rules("yahtzee")
    tables_dir.table("yahtzee")
    out = tmp_path / "text.parquet"
    E.export_positions(out, rules, positions=500, seed=11, tables_dir=tables_dir)
    block = next(E.spread_blocks(rules, 500, 11))
    for row, position in zip(pq.read_table(out).to_pylist(), block.positions(rules), strict=True):
        assert row["card"] == str(position.card) and Dice.parse(row["dice"]) == position.dice
        assert row["decision"] == ("score" if position.rolls_left == 0 else "keep")


def test_rank_keeps_is_the_stable_descending_argsort():
    """The kernel's ranking of keeps from turn tables: each position's keeps of its roll valued
    from its lane's row of ``e1`` (two rolls left) or ``e0`` (one), in the order of
    ``np.argsort(-ev, kind="stable")`` -- ties (many) in their order, ``-inf`` last -- the keeps
    carried along, into the rows asked for."""
    from solver.core import dice as D
    from solver.engine import kernels as K

    # each roll's sub-keeps in the advisor's raw order (SUBKEEPS reversed), padded with keep 0
    raw, valid = np.zeros((D.N_ROLLS, 32), dtype=np.int64), np.zeros((D.N_ROLLS, 32), dtype=bool)
    for r, n_sub in enumerate(D.N_SUBKEEPS.tolist()):
        raw[r, :n_sub], valid[r, :n_sub] = D.SUBKEEPS[r, :n_sub][::-1], True
    rng = np.random.default_rng(3)
    e0, e1 = (rng.integers(0, 6, size=(50, D.N_KEEPS)).astype(np.float64) / 4 for _ in range(2))  # ties
    e0[rng.random(e0.shape) < 0.2] = -np.inf
    n = 2000
    lane, roll = rng.integers(0, 50, size=n), rng.integers(0, D.N_ROLLS, size=n)
    rolls_left, rows = rng.integers(1, 3, size=n), rng.permutation(n)
    out_ev, out_keeps = np.empty((n, 32)), np.empty((n, 32), dtype=np.int16)
    K.rank_keeps(e0, e1, lane, roll, rolls_left, raw, D.N_SUBKEEPS, rows, out_ev, out_keeps)
    keeps = raw[roll]
    ev = np.where((rolls_left == 2)[:, None], e1[lane[:, None], keeps], e0[lane[:, None], keeps])
    ev[~valid[roll]] = -np.inf
    rank = np.argsort(-ev, axis=1, kind="stable")
    assert np.array_equal(out_ev[rows], np.take_along_axis(ev, rank, axis=1))
    assert np.array_equal(out_keeps[rows], np.take_along_axis(keeps, rank, axis=1))


def test_keep_rankings_the_same_on_every_path(tables_dir):
    """The batch advisor's keeps ranked on the kernels (many states: mask by mask for the spread
    sampler's many cards a mask, packed many masks to a block for a bot's games, a few cards a
    mask) and in plain Python (few states): the same values and keeps in the same order, bit for bit."""
    from solver.advice.batch import PACK_LANES, BatchAdvisor, card_states

    rules = get_rules("yahtzee+lower-only")
    table = tables_dir.table(rules)
    bot = get_bot("heuristic", rules, tables_dir)
    games = [b for b in E.bot_blocks(rules, bot, 400, 3) if (b.rolls_left > 0).all()][4:6]
    for block in [next(E.spread_blocks(rules, 600, 4)), *games]:
        mask, u, f, base = card_states(rules, block.scores, block.bonus_count)
        ranked = []
        for states in (0, 10**9):
            advisor = BatchAdvisor(table)
            advisor.python_states = states
            ranked.append(advisor.rank_states(mask, u, f, block.roll, block.rolls_left, base))
        for name in ("keep_ev", "keep_id", "keep_n"):
            assert np.array_equal(getattr(ranked[0], name), getattr(ranked[1], name)), name
    keys = set(zip(*card_states(rules, games[0].scores, games[0].bonus_count)[:3], strict=True))
    masks = {k[0] for k in keys}
    assert len(keys) < PACK_LANES * len(masks)  # the games' block takes the packed path


def test_turn_tables_and_best_keeps_agree_with_the_ranking(tables_dir):
    """A turn's tables made once (``keep_tables``) rank as the tables made for each call, and the
    table bot's keep from them (``best_keeps``) is what the ranking says: among the keeps tied
    with the best, the one with the most dice -- in the kernels and in plain Python alike."""
    from solver.advice.batch import BatchAdvisor, card_states
    from solver.engine.turn import TIE_TOLERANCE

    rules = get_rules("yahtzee+lower-only")
    table = tables_dir.table(rules)
    bot = get_bot("heuristic", rules, tables_dir)
    blocks = [b for b in E.bot_blocks(rules, bot, 300, 5) if (b.rolls_left > 0).all()][2:8]
    for block in blocks:
        mask, u, f, base = card_states(rules, block.scores, block.bonus_count)
        for states in (0, 10**9):
            advisor = BatchAdvisor(table)
            advisor.python_states = states
            tables = advisor.keep_tables(mask, u, f)
            assert tables.kernels == (states == 0)
            given = advisor.rank_states(mask, u, f, block.roll, block.rolls_left, base, tables=tables)
            made = advisor.rank_states(mask, u, f, block.roll, block.rolls_left, base)
            for name in ("keep_ev", "keep_id", "keep_n"):
                assert np.array_equal(getattr(given, name), getattr(made, name)), name
            ev, ids = made.keep_ev, made.keep_id.astype(np.int64)
            valid = np.arange(ids.shape[1])[None, :] < made.keep_n[:, None]
            want = np.where(valid & (ev[:, :1] - ev <= TIE_TOLERANCE), ids, -1).max(axis=1)
            assert np.array_equal(advisor.best_keeps(block.roll, block.rolls_left, tables), want)


def test_card_texts_are_the_card_notation():
    """The Parquet card texts (joined in pyarrow) are ``str(ScoreCard)``, Yahtzee bonuses too,
    one text per run of equal cards."""
    from solver.core.card import ScoreCard

    rules = get_rules("yahtzee")
    block = next(E.spread_blocks(rules, 400, 9))
    fifty = np.flatnonzero(block.scores[:, rules.box_index["yahtzee"]] == 50)
    block.bonus_count[fifty] = np.arange(len(fifty)) % 4  # Yahtzee bonuses where a card may have them
    block.scores[:3] = -1  # the empty card
    texts, runs = E.card_texts(rules, block)
    texts = texts.to_pylist()
    for i, (row, bonus) in enumerate(zip(block.scores.tolist(), block.bonus_count.tolist(), strict=True)):
        card = ScoreCard(rules, tuple(None if s < 0 else s for s in row), bonus)
        assert texts[runs[i]] == str(card), i
    assert runs[-1] == len(texts) - 1 and np.all(np.diff(runs) >= 0)


def _ended_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_killed_exports_temporary_file_is_removed_by_the_next(tables_dir, tmp_path):
    """What an export killed mid-write leaves (``.NAME.PID.xxxxxxxx.tmp``, its writer gone) is
    removed by the next export of that file; a live writer's, another file's and a name not of
    that pattern are kept."""
    tables_dir.table("yahtzee")
    out = tmp_path / "out.jsonl"
    gone = _ended_pid()
    stale = tmp_path / f".out.jsonl.{gone}.k3x_9qa1.tmp"
    kept = [
        tmp_path / f".out.jsonl.{os.getpid()}.abcdefgh.tmp",  # a writer still running (this one)
        tmp_path / f".other.jsonl.{gone}.abcdefgh.tmp",  # another file's
        tmp_path / f".out.jsonl.{gone}.notmine.tmp",  # not mkstemp's 8 characters
        tmp_path / ".out.jsonl.tmp",  # someone else's naming
    ]
    for path in [stale, *kept]:
        path.write_text("half a file")
    assert (
        main(["export", str(out), "--spread", "--positions", "50", "--tables", str(tables_dir), "--quiet"])
        == 0
    )
    assert not stale.exists() and all(path.exists() for path in kept)
    assert len(out.read_text().splitlines()) == 50


@pytest.mark.subprocess  # an export as a child process, killed
@pytest.mark.skipif(os.name != "posix", reason="kill -9")
def test_an_export_killed_mid_write_leaves_nothing_after_the_next_run(tables_dir, tmp_path):
    """For real: ``kill -9`` while the file is written, then the same export again: the file
    whole, no hidden ``.tmp`` beside it."""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    tables_dir.table("yahtzee")
    out = tmp_path / "big.jsonl"
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    argv = [
        sys.executable,
        "-m",
        "solver",
        "export",
        str(out),
        "--spread",
        "--tables",
        str(tables_dir),
        "--quiet",
    ]
    proc = subprocess.Popen([*argv, "--positions", "5000000"], env=env, cwd=root, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob(".big.jsonl.*.tmp")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(tmp_path.glob(".big.jsonl.*.tmp")), "the export never started writing"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert not out.exists() and list(tmp_path.glob(".big.jsonl.*.tmp"))  # what the kill left
    assert (
        subprocess.run([*argv, "--positions", "20"], env=env, cwd=root, capture_output=True).returncode == 0
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl"]
    assert len(out.read_text().splitlines()) == 20

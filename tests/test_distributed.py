"""A simulation split by game ranges -- over local processes and on a Dask cluster started by the
test -- gives exactly the per-game results of one local run (scores, bonuses, per-game losses)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.cli.entry import main
from solver.play.distributed import merge_results, simulate_parallel, split_games
from solver.play.simulate import simulate

pytestmark = pytest.mark.slow  # processes and a cluster start (still run in CI)


@given(st.integers(1, 5000), st.integers(0, 10**6), st.integers(1, 64))
def test_split_games_covers_the_range_in_order(games, game0, pieces):
    ranges = split_games(games, game0, pieces)
    assert ranges[0][0] == game0 and sum(n for _, n in ranges) == games
    assert all(a + n == b for (a, n), (b, _) in zip(ranges, ranges[1:], strict=False))
    assert max(n for _, n in ranges) - min(n for _, n in ranges) <= 1 and all(n > 0 for _, n in ranges)


def same_games(a, b) -> None:
    for name in ("scores", "upper_bonus", "yahtzee", "yahtzee_bonuses"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for key in ("mean", "std", "p50", "max", "upper_bonus_rate"):
        assert a.summary()[key] == b.summary()[key], key
    if a.regret is not None:
        assert np.array_equal(a.regret.game_loss, b.regret.game_loss)
        assert np.array_equal(a.regret.game_luck, b.regret.game_luck)
        assert np.allclose(a.regret.turn_loss, b.regret.turn_loss, rtol=1e-12, atol=1e-9)
        assert np.array_equal(a.regret.worst["loss"], b.regret.worst["loss"])
        assert np.array_equal(a.regret.worst["game"], b.regret.worst["game"])


def test_local_workers_give_the_local_run(tables_dir):
    tables_dir.table("yahtzee")
    local = simulate(
        "yahtzee", "heuristic", 3000, seed=5, game0=11, tables_dir=tables_dir, regret=True, worst=20
    )
    split = simulate_parallel(
        "yahtzee",
        "heuristic",
        3000,
        seed=5,
        game0=11,
        workers=2,
        pieces=5,
        tables_dir=tables_dir,
        regret=True,
        worst=20,
    )
    same_games(local, split)
    # the truth about how: 2 processes (this one and a worker) of 1 thread, every piece played once
    assert (split.threads, split.processes) == (2, 2) and split.split.pieces == 5
    assert 0 < split.split.here_games < 3000 or split.split.by_workers == 0
    assert split.seconds >= split.split.here_seconds  # the run's wall, not its longest piece's


def test_the_note_says_when_workers_do_not_pay():
    from solver.play.distributed import Split

    slow = Split(2, 4, 1, 8.0, 15_000, 12.3, 12.9, 20_000)
    assert "did not pay" in slow.note and "took 8.0 s to start of the run's 12.9 s" in slow.note
    assert "never started" in Split(2, 4, 0, None, 20_000, 9.0, 9.1, 20_000).note
    assert Split(2, 4, 2, 1.5, 10_000, 30.0, 31.0, 20_000).note is None  # a long run: they paid
    assert Split(1, 2, 0, None, 20_000, 3.0, 3.0, 20_000).note is None  # no workers asked


def test_a_dask_cluster_gives_the_local_run(tables_dir):
    """Five dice and six (Maxi Yatzy on a reduced card, its table in the folder the workers read):
    the same games, the same graded losses, as one process."""
    distributed = pytest.importorskip("distributed")
    from test_maxi import only

    tables_dir.table("yahtzee")
    local = simulate("yahtzee", "greedy", 2000, seed=3, tables_dir=tables_dir, regret=True)
    six = only("maxi", "one_pair,villa,chance")
    tables_dir.table(six)
    six_local = simulate(six, "frequent", 600, seed=3, tables_dir=tables_dir, regret=True)
    assert six_local.regret.game_loss.sum() > 0  # the frequent bot loses points: losses compared
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        split = simulate_parallel(
            "yahtzee", "greedy", 2000, seed=3, cluster=client, pieces=4, tables_dir=tables_dir, regret=True
        )
        same_games(local, split)
        six_split = simulate_parallel(
            six.id, "frequent", 600, seed=3, cluster=client, pieces=3, tables_dir=tables_dir, regret=True
        )
        same_games(six_local, six_split)
        # the command line, by the scheduler's address
        code = main(
            [
                "simulate", "--bot", "frequent", "--games", "1000", "--seed", "2", "--cluster",
                cluster.scheduler_address, "--tables", str(tables_dir), "--json", "--quiet", "--no-regret",
            ]
        )  # fmt: skip
    assert code == 0


def test_the_command_line_splits_over_workers(tables_dir, capsys):
    tables_dir.table("yahtzee")
    argv = [
        "simulate",
        "--bot",
        "greedy",
        "--games",
        "1200",
        "--seed",
        "8",
        "--tables",
        str(tables_dir),
        "--json",
    ]
    assert main([*argv, "--quiet"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*argv, "--quiet", "--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    for key in ("mean", "std", "p5", "p95", "upper_bonus_rate", "yahtzee_rate"):
        assert one["stats"][key] == two["stats"][key], key
    assert one["stats"]["regret"]["loss_per_game"] == pytest.approx(
        two["stats"]["regret"]["loss_per_game"], abs=1e-12
    )
    assert main([*argv, "--workers", "2", "--cluster", "tcp://127.0.0.1:1"]) == 2
    assert "choose one" in capsys.readouterr().err


def test_pieces_must_be_consecutive(tables_dir):
    tables_dir.table("yahtzee")
    a = simulate("yahtzee", "greedy", 10, seed=1, game0=0, tables_dir=tables_dir)
    c = simulate("yahtzee", "greedy", 10, seed=1, game0=20, tables_dir=tables_dir)
    with pytest.raises(ValueError, match="consecutive"):
        merge_results([a, c])


def within(seconds: float, work):
    """``work()``'s result, or its exception, if it ends within ``seconds``; else the test fails
    (run in a thread: a run that waits for ever fails the test instead of hanging it)."""
    import threading

    box: dict = {}

    def target():
        try:
            box["result"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still waiting after {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["result"]


def test_a_cluster_without_workers_says_so_and_stops(monkeypatch, tables_dir, capsys):
    """A scheduler with no worker: the run stops after NO_WORKER_GRACE s, one line saying so
    (it waited silently, for ever)."""
    distributed = pytest.importorskip("distributed")
    from solver.play import distributed as split

    monkeypatch.setattr(split, "NO_WORKER_GRACE", 1.0)
    monkeypatch.setattr(split, "WATCH_INTERVAL", 0.2)
    with distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=None) as cluster:
        argv = ["simulate", "--bot", "random", "--games", "100", "--cluster", cluster.scheduler_address,
                "--tables", str(tables_dir), "--quiet"]  # fmt: skip
        code = within(30, lambda: main(argv))
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 1 and len(err) == 1 and "has no worker left" in err[0], err
        assert cluster.scheduler_address in err[0]


def test_a_run_whose_workers_all_die_says_so_and_stops(monkeypatch, tables_dir, tmp_path):
    """Every worker gone mid-run (closed, no nanny to restart it): the run stops saying so."""
    import sys
    import threading
    from pathlib import Path

    distributed = pytest.importorskip("distributed")
    from solver.core.errors import SolverError
    from solver.play import distributed as split

    monkeypatch.setattr(split, "NO_WORKER_GRACE", 1.0)
    monkeypatch.setattr(split, "WATCH_INTERVAL", 0.2)
    bot = f"cmd:{sys.executable} {Path(__file__).parent / 'data' / 'bots' / 'bad_bot.py'} sleep 1"
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        timer = threading.Timer(2.0, cluster.scale, (0,))  # while the bot sleeps on its first decisions
        timer.start()
        try:
            with pytest.raises(SolverError, match=r"has no worker left \(2 of 2 pieces unplayed"):
                within(
                    30,
                    lambda: simulate_parallel(
                        "yahtzee", bot, 20, cluster=client, pieces=2, tables_dir=tables_dir
                    ),
                )
        finally:
            timer.cancel()

"""Simulation benchmark: optimal games per second (wall), CPU seconds, peak memory; the bot ladder.

Each timed run is a fresh Python process with a warm numba cache and the table already
built (the kernels are loaded by a 1,000-game warm-up before the clock starts); the
figures are medians over ``--repeat`` runs.  The cold figure is a first-ever run: empty
numba cache, JIT compilation included.  Then every bot plays ``--ladder-games`` games
(seed 1) for the mean, standard error and speed of the README ladder.

    python benchmarks/bench_simulate.py [--games 1000000] [--repeat 3] [--threads 2]
                                        [--rules yahtzee] [--ladder-games 100000] [--no-cold]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from _child import bench_folders, run_json_child

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from solver.play.simulate import simulate
rules, bot, games, threads, tables, warm = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
if warm == "warm":
    simulate(rules, bot, 1000, seed=123, threads=threads, tables_dir=tables, engine="numba")
wall0, cpu0 = time.perf_counter(), time.process_time()
r = simulate(rules, bot, games, seed=1, threads=threads, tables_dir=tables)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
s = r.summary()
print(json.dumps({
    "wall": wall, "cpu": cpu, "total_wall": time.perf_counter() - t0, "mean": s["mean"],
    "se": s["standard_error"], "threads": r.threads, "engine": r.engine,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""

LADDER = ("random", "frequent", "greedy", "heuristic", "optimal")


def run_child(rules: str, bot: str, games: int, threads: int, tables: str, mode: str, cache_dir: str) -> dict:
    return run_json_child(CHILD, [rules, bot, str(games), str(threads), tables, mode], cache_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ladder-games", type=int, default=100_000)
    parser.add_argument(
        "--tables", default=None, help="tables folder (default: a temporary one, built first)"
    )
    parser.add_argument("--no-cold", action="store_true", help="skip the first-ever (JIT) run")
    args = parser.parse_args()

    tables, table, cache = bench_folders(args.rules, args.tables)
    print(
        f"{args.rules}: table value {table.empty_card_value:.7f}, {args.threads} threads, cpu count {os.cpu_count()}"
    )
    if not args.no_cold:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cold:
            first = run_child(args.rules, "optimal", args.games, args.threads, tables, "cold", cold)
        print(
            f"cold: {args.games:,} optimal games with an empty numba cache (JIT included): "
            f"{first['total_wall']:.2f} s wall for the whole process"
        )
    run_child(
        args.rules, "optimal", 1000, args.threads, tables, "warm", cache
    )  # fill the warm cache (its warm-up)
    runs = [
        run_child(args.rules, "optimal", args.games, args.threads, tables, "warm", cache)
        for _ in range(args.repeat)
    ]
    wall = statistics.median(r["wall"] for r in runs)
    cpu = statistics.median(r["cpu"] for r in runs)
    print(
        f"warm: {args.games:,} optimal games in {wall:.2f} s wall ({args.games / wall:,.0f} games/s), "
        f"{cpu:.2f} CPU s, peak {max(r['peak_mb'] for r in runs):.0f} MB; mean {runs[0]['mean']:.4f} "
        f"(se {runs[0]['se']:.4f}); median of {args.repeat} run(s): "
        + ", ".join(f"{r['wall']:.2f}" for r in runs)
        + " s"
    )
    print(f"\nladder: {args.ladder_games:,} games each, seed 1, {args.rules}")
    print(f"{'bot':<10} {'mean':>9} {'se':>6} {'wall s':>7} {'games/s':>10}")
    for bot in LADDER:
        r = run_child(args.rules, bot, args.ladder_games, args.threads, tables, "warm", cache)
        print(
            f"{bot:<10} {r['mean']:9.2f} {r['se']:6.2f} {r['wall']:7.2f} {args.ladder_games / r['wall']:10,.0f}"
        )


if __name__ == "__main__":
    main()

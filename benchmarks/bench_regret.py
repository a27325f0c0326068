"""Exact-regret benchmark: what grading every decision costs, and how much more precise it is.

For each bot, fresh Python processes (a warm numba cache, the tables built; a short warm-up
before the clock starts) time a plain ``simulate`` and one that grades every decision
(``regret=True``), alternately, ``--repeat`` times each: medians of wall seconds, CPU
seconds and peak memory (the process's), and the ratio regret / plain.  Then, on the same
games, the strength gap to optimal both ways: the decisions' loss per game with its standard
error beside the paired score difference with the optimal bot (same dice) with its own, the
z of their difference and the ratio of the standard errors.

The bots: ``heuristic``, ``greedy``, ``frequent``, ``target:300`` (when the target table is in
``--tables``: ``yahtzee tables build --target --tables DIR`` builds it, some minutes) and the
user bots of ``benchmarks/_user_bot.py`` given as ``module:attr`` (the Python engine, fewer
games: ``--user-games``).

    python benchmarks/bench_regret.py [--games 20000] [--user-games 2000] [--repeat 3]
                                      [--threads 2] [--tables DIR] [--bots heuristic,greedy,...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from _child import bench_folders, run_json_child

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[7])
from solver.play.simulate import simulate, strength_gap
rules, bot, games, threads, tables, mode = sys.argv[1:7]
games, threads = int(games), int(threads)
regret = mode != "plain"
simulate(rules, bot, max(10, games // 50), seed=123, threads=threads, tables_dir=tables, regret=regret)
wall0, cpu0 = time.perf_counter(), time.process_time()
r = simulate(rules, bot, games, seed=1, threads=threads, tables_dir=tables, regret=regret)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
out = {"wall": wall, "cpu": cpu, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
if mode == "gap":
    out |= strength_gap(r, simulate(rules, "optimal", games, seed=1, threads=threads, tables_dir=tables))
print(json.dumps(out))
"""

BOTS = ("heuristic", "greedy", "frequent", "target:300", "_user_bot:KeepSixes", "_user_bot:HeuristicInPython")


def run_child(rules, bot, games, threads, tables, mode, cache) -> dict:
    return run_json_child(CHILD, [rules, bot, str(games), str(threads), tables, mode, str(HERE)], cache)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--user-games", type=int, default=2_000, help="games of the Python user bots")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--bots", default=",".join(BOTS))
    parser.add_argument(
        "--tables", default=None, help="tables folder (default: a temporary one, built first)"
    )
    args = parser.parse_args()

    from solver.core.rules import get_rules
    from solver.engine.target import target_paths

    tables, table, cache = bench_folders(args.rules, args.tables)
    print(
        f"{args.rules}: table value {table.empty_card_value:.7f}, {args.threads} threads, "
        f"cpu count {os.cpu_count()}, medians of {args.repeat}"
    )
    run_child(args.rules, "frequent", 200, args.threads, tables, "gap", cache)  # fill the numba cache
    has_target = all(p.is_file() for p in target_paths(get_rules(args.rules), tables))
    timing, gaps = [], []
    for bot in args.bots.split(","):
        if bot.startswith("target:") and not has_target:
            print(f"{bot}: skipped, no target table in {tables} (yahtzee tables build --target)")
            continue
        games = args.user_games if bot.startswith("_user_bot:") else args.games
        runs: dict[str, list] = {"plain": [], "regret": []}
        for _ in range(args.repeat):  # alternately, so a busy machine slows both alike
            for mode in runs:
                runs[mode].append(run_child(args.rules, bot, games, args.threads, tables, mode, cache))
        med = {
            m: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "peak_mb")}
            for m, rs in runs.items()
        }
        timing.append((bot, games, med))
        gaps.append((bot, games, run_child(args.rules, bot, games, args.threads, tables, "gap", cache)))

    print("\nwhat grading costs (median wall s / CPU s / peak MB; ratio of CPU seconds, of wall seconds):")
    print(f"{'bot':<28} {'games':>7} {'plain':>20} {'graded':>20} {'CPU x':>6} {'wall x':>6}")
    for bot, games, med in timing:
        p, g = med["plain"], med["regret"]
        cells = [f"{m['wall']:6.2f}/{m['cpu']:6.2f}/{m['peak_mb']:5.0f}" for m in (p, g)]
        print(
            f"{bot:<28} {games:>7,} {cells[0]:>20} {cells[1]:>20} {g['cpu'] / p['cpu']:6.2f} "
            f"{g['wall'] / p['wall']:6.2f}"
        )
    print("\nthe gap to optimal both ways (points a game, same games and dice):")
    print(
        f"{'bot':<28} {'games':>7} {'loss':>8} {'se':>6} {'score gap':>9} {'se':>6} {'z':>6} {'se ratio':>8}"
    )
    for bot, games, gap in gaps:
        print(
            f"{bot:<28} {games:>7,} {gap['regret']:8.3f} {gap['regret_standard_error']:6.3f} "
            f"{gap['score_difference']:9.3f} {gap['score_difference_standard_error']:6.3f} "
            f"{gap['z']:+6.2f} {gap['se_ratio']:8.1f}"
        )


if __name__ == "__main__":
    sys.exit(main())

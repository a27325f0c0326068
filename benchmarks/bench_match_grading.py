"""Match grading benchmark: what grading the last seat's last turns for P(win) costs.

For each pair of bots, fresh Python processes (a warm numba cache; a short warm-up match before
the clock starts) play the same ``--games`` games of ``play_match`` plain and graded
(``grade=True``: the target table is loaded as well, unless a ``win`` bot has it already),
alternately, ``--repeat`` times each: medians of wall seconds, CPU seconds and peak memory, the
ratio graded / plain, and each bot's graded loss per game (P(win) + P(tie) / 2) with its
standard error.  The tables (value and target) are read from ``--tables``.

    python benchmarks/bench_match_grading.py --tables DIR [--games 20000] [--repeat 3]
                                             [--pairs win,optimal heuristic,optimal]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from _child import run_json_child

CHILD = r"""
import json, resource, sys, time
from solver.play.match import grading_summary, play_match
rules, bots, games, tables, mode = sys.argv[1:6]
bots, games, grade = bots.split(","), int(games), mode == "graded"
play_match(rules, bots, max(10, games // 50), seed=123, tables_dir=tables, grade=grade)
wall0, cpu0 = time.perf_counter(), time.process_time()
r = play_match(rules, bots, games, seed=1, tables_dir=tables, grade=grade)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
out = {"wall": wall, "cpu": cpu, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
if grade:
    out["grades"] = grading_summary(r)
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--tables", required=True, help="a folder with the value and the target table")
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pairs", nargs="+", default=["win,optimal", "heuristic,optimal"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.environ.get("NUMBA_CACHE_DIR", os.path.join(tmp, "numba"))
        print(f"{args.rules}, {args.games:,} games, medians of {args.repeat} runs")
        print(f"{'bots':<20} {'plain wall/CPU s':>17} {'graded wall/CPU s':>18} {'x CPU':>6} {'peak MB':>12}")
        for pair in args.pairs:
            runs: dict[str, list[dict]] = {"plain": [], "graded": []}
            for _ in range(args.repeat):
                for mode in runs:
                    child_args = [args.rules, pair, str(args.games), args.tables, mode]
                    runs[mode].append(run_json_child(CHILD, child_args, cache))
            med = {
                m: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "peak_mb")}
                for m, rs in runs.items()
            }
            p, g = med["plain"], med["graded"]
            print(
                f"{pair:<20} {p['wall']:>8.2f}/{p['cpu']:<8.2f} {g['wall']:>9.2f}/{g['cpu']:<8.2f} "
                f"{g['cpu'] / p['cpu']:>6.2f} {p['peak_mb']:>5.0f}/{g['peak_mb']:<6.0f}"
            )
            for row in runs["graded"][0]["grades"]:
                print(
                    f"  {row['bot']:<12} graded games {row['graded_games']:,}: loss "
                    f"{100 * row['loss_per_graded_game']:.3f}% +- {100 * row['standard_error']:.3f} a game; "
                    f"chance {100 * row['chance_at_last_turn']:.2f}%, got {100 * row['achieved']:.2f}%"
                )


if __name__ == "__main__":
    main()

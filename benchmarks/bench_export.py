"""Export benchmark: positions per second written by ``yahtzee export`` (Parquet and JSON lines).

Each run is a fresh Python process (the numba cache warm, the ``yahtzee`` table built first in a
temporary folder) writing one file: spread positions to Parquet, every decision of the optimal and
the heuristic bot's games to Parquet, spread positions to JSON lines.  Medians over ``--repeat``
runs of the wall time, the CPU seconds (all threads: the Parquet writer runs beside the ranking)
and the peak memory; positions/s is positions over wall seconds.

    python benchmarks/bench_export.py [--positions 1000000] [--games 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from _child import run_json_child

CHILD = r"""
import json, os, resource, sys, time
from solver.play.export import export_positions
tables, out, fmt, bot, n = sys.argv[1:6]
n = int(n)
kwargs = {"bot": bot, "games": n} if bot != "-" else {"positions": n}
wall0, cpu0 = time.perf_counter(), time.process_time()
written = export_positions(out, "yahtzee", fmt=fmt, tables_dir=tables, seed=1, **kwargs)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
print(json.dumps({
    "wall": wall, "cpu": cpu, "positions": written, "bytes": os.path.getsize(out),
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""

BUILD = r"""
import sys
from solver.engine.tables import build_table
build_table("yahtzee", sys.argv[1], progress=False)
print("{}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1_000_000, help="spread positions (Parquet)")
    parser.add_argument("--games", type=int, default=20_000, help="games of each bot")
    parser.add_argument("--jsonl", type=int, default=100_000, help="spread positions (JSON lines)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.environ.get("NUMBA_CACHE_DIR", os.path.join(tmp, "numba"))
        tables = os.path.join(tmp, "tables")
        run_json_child(BUILD, [tables], cache)
        cases = [
            (f"spread -> Parquet ({args.positions:,})", "parquet", "-", args.positions),
            (f"optimal games -> Parquet ({args.games:,})", "parquet", "optimal", args.games),
            (f"heuristic games -> Parquet ({args.games:,})", "parquet", "heuristic", args.games),
            (f"spread -> JSON lines ({args.jsonl:,})", "jsonl", "-", args.jsonl),
        ]
        print(f"yahtzee, medians of {args.repeat} runs")
        print(f"{'what':<36} {'positions/s':>11} {'wall s':>7} {'CPU s':>7} {'peak MB':>8} {'B/pos':>6}")
        for label, fmt, bot, n in cases:
            out = os.path.join(tmp, f"out.{fmt}")
            runs = [run_json_child(CHILD, [tables, out, fmt, bot, str(n)], cache) for _ in range(args.repeat)]
            med = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "peak_mb")}
            rate = statistics.median(r["positions"] / r["wall"] for r in runs)
            size = runs[0]["bytes"] / runs[0]["positions"]
            print(
                f"{label:<36} {rate:>11,.0f} {med['wall']:>7.2f} {med['cpu']:>7.2f} {med['peak_mb']:>8.0f} {size:>6.0f}"
            )


if __name__ == "__main__":
    main()

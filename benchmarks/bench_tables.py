"""Table-build benchmark: wall and CPU seconds, states per second, peak memory.

Each measurement runs in a fresh Python process (so peak RSS is that build's) with
a warm numba cache; the figures are medians over ``--repeat`` runs.  The cold
figure is a first-ever build: an empty numba cache, JIT compilation included.

    python benchmarks/bench_tables.py [--rules yahtzee yatzy] [--repeat 5] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from _child import run_json_child

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from solver.engine import dp
from solver.core.rules import get_rules
rules = get_rules(sys.argv[1])
threads = int(sys.argv[2])
if sys.argv[3] == "warm":
    dp.solve(get_rules("yatzy-forced"), threads=threads)  # load the compiled kernels from the cache
wall0, cpu0 = time.perf_counter(), time.process_time()
values = dp.solve(rules, threads=threads)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
print(json.dumps({
    "wall": wall, "cpu": cpu, "total_wall": time.perf_counter() - t0,
    "value": float(values[0, 0, 0]), "states": dp.n_states(rules),
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def run_child(rules: str, threads: int, mode: str, cache_dir: str) -> dict:
    return run_json_child(CHILD, [rules, str(threads), mode], cache_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", nargs="+", default=["yahtzee", "yatzy", "yatzy+yatzy-rows=2"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-cold", action="store_true", help="skip the first-ever (JIT) build")
    args = parser.parse_args()

    cache = os.environ.get("NUMBA_CACHE_DIR") or tempfile.mkdtemp(prefix="numba-bench-")
    if not args.no_cold:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cold:
            first = run_child(args.rules[0], args.threads, "cold", cold)
        print(
            f"cold build of {args.rules[0]} (empty numba cache, JIT included): "
            f"{first['total_wall']:.2f} s wall for the whole process"
        )
    run_child("yatzy-forced", args.threads, "cold", cache)  # fill the warm cache
    print(
        f"{'rules':<22} {'value':>12} {'wall s':>8} {'CPU s':>8} {'states':>9} {'states/s':>11} {'peak MB':>8}"
    )
    for rules in args.rules:
        runs = [run_child(rules, args.threads, "warm", cache) for _ in range(args.repeat)]
        wall = statistics.median(r["wall"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        peak = max(r["peak_mb"] for r in runs)
        states = runs[0]["states"]
        print(
            f"{rules:<22} {runs[0]['value']:12.7f} {wall:8.3f} {cpu:8.3f} {states:9d} "
            f"{states / wall:11.0f} {peak:8.0f}"
        )
    print(f"(medians of {args.repeat} runs, {args.threads} threads, warm numba cache)")


if __name__ == "__main__":
    main()

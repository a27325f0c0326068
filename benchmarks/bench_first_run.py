"""First-run benchmark: what a fresh install costs before the first answer.

Each run starts from an empty numba cache and an empty tables folder, in a fresh
process, and times whole commands (wall seconds, medians over ``--repeat`` runs):

* ``first hint``      -- ``yahtzee hint`` on the README example: JIT compilation of the
  DP kernels + building the ``yahtzee`` table + the hint;
* ``first simulate``  -- then ``yahtzee simulate --games N`` with that table present:
  compilation of the simulation kernels + the games;
* ``fresh simulate``  -- ``yahtzee simulate --games N`` on a fresh machine (compiles both,
  builds the table);
* ``warm hint``       -- the same hint again (everything cached; the single-position path
  imports neither numpy nor numba).

    python benchmarks/bench_first_run.py [--repeat 3] [--games 10000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HINT = ["hint", "--dice", "33456", "--rolls-left", "2", "--card", "ones=3,fours=12"]


def timed(args: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "solver", *args], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--games", type=int, default=10_000)
    args = parser.parse_args()
    simulate = ["simulate", "--games", str(args.games), "--quiet"]
    figures: dict[str, list[float]] = {
        "first hint": [],
        "first simulate": [],
        "fresh simulate": [],
        "warm hint": [],
    }
    for _ in range(args.repeat):
        root = Path(tempfile.mkdtemp(prefix="first-run-"))
        try:
            env = dict(os.environ, NUMBA_CACHE_DIR=str(root / "numba"), YAHTZEE_TABLES=str(root / "tables"))
            figures["first hint"].append(timed(HINT, env))
            figures["first simulate"].append(timed(simulate, env))
            figures["warm hint"].append(timed(HINT, env))
            env = dict(os.environ, NUMBA_CACHE_DIR=str(root / "numba2"), YAHTZEE_TABLES=str(root / "tables2"))
            figures["fresh simulate"].append(timed(simulate, env))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    for name, values in figures.items():
        print(
            f"{name:<16} median {statistics.median(values):6.2f} s wall "
            f"(min {min(values):.2f}, max {max(values):.2f}, {len(values)} runs)"
        )


if __name__ == "__main__":
    main()

"""Distribution benchmark: ``yahtzee distribution`` as whole commands, its compilation apart.

Each run is a fresh process reading the shipped ``yahtzee`` table (an empty tables folder):

* ``first``  -- an empty numba cache: the kernels compiled, then the distribution computed;
* ``warm``   -- the same command again on the cache the first run filled: the computation alone
  (numba's import and the cache's load aside);

for the empty card (``--card ""``, the README's figure) and for a mid-game card (``--mid``).
The compilation is the first run's CPU seconds less the warm run's.  Medians of ``--repeat``
runs (wall seconds, CPU seconds -- user + system over both threads --, peak resident memory);
the machine is shared: the load average is printed.

    python benchmarks/bench_distribution.py [--repeat 3] [--mid CARD]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from _child import Measured, load_average, run_measured

MID = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,four_of_a_kind=0,full_house=25"


def distribution(card: str, env: dict) -> Measured:
    run = run_measured([sys.executable, "-m", "solver", "distribution", "--card", card, "--json"], env=env)
    if run.returncode:
        sys.exit(f"distribution --card {card!r} failed ({run.returncode}): {run.stderr.strip()[-500:]}")
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mid", default=MID, help="the mid-game card")
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if k not in ("YAHTZEE_TABLES", "NUMBA_CACHE_DIR")}
    figures: dict[str, list[Measured]] = {}
    loads = [load_average()]
    for _ in range(args.repeat):
        root = Path(tempfile.mkdtemp(prefix="bench-distribution-"))
        try:
            env = dict(base, NUMBA_CACHE_DIR=str(root / "numba"), YAHTZEE_TABLES=str(root / "tables"))
            for name, card in (("empty card", ""), ("mid-game card", args.mid)):
                figures.setdefault(f"{name}, first", []).append(distribution(card, env))
                figures.setdefault(f"{name}, warm", []).append(distribution(card, env))
                shutil.rmtree(root / "numba", ignore_errors=True)  # the next card's first run compiles too
        finally:
            shutil.rmtree(root, ignore_errors=True)
        loads.append(load_average())
    print(f"{sys.executable}: {args.repeat} runs; load average (1, 5, 15 min) before and after each: {loads}")
    cpu = {}
    for name, runs in figures.items():
        wall, cpu[name] = [r.wall for r in runs], statistics.median(r.cpu for r in runs)
        peak = statistics.median(r.peak for r in runs) / 2**20
        print(
            f"{name:<22} median {statistics.median(wall):7.3f} s wall (min {min(wall):.3f}), "
            f"{cpu[name]:7.3f} CPU s (min {min(r.cpu for r in runs):.3f}); peak {peak:.0f} MiB"
        )
    for name in ("empty card", "mid-game card"):
        print(
            f"{name}: compilation about {cpu[f'{name}, first'] - cpu[f'{name}, warm']:.2f} CPU s, "
            f"the computation {cpu[f'{name}, warm']:.2f} CPU s (with start-up)"
        )


if __name__ == "__main__":
    main()

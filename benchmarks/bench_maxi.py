"""Maxi Yatzy (six dice): the table build, a single hint and the simulation, as commands.

Usage: python benchmarks/bench_maxi.py [--builds N] [--hints N] [--games N] [--runs N] [--tables DIR]
       [--rules SPEC]

Each figure is a whole ``yahtzee`` command in a fresh process, run several times; printed: the
median of its wall seconds, CPU seconds (user + system of the process and its threads) and peak
memory (the maximum resident set), with the load average before and after (the machine may be
shared: the 2-core development machine usually is).

* ``tables build --rules maxi --force`` into ``--tables`` (default: a fresh temporary folder),
  ``--builds`` times (default 1; 0: not run, the table in ``--tables`` is used), and the
  table's size on disk and its empty-card value against the published 383.305389;
* ``hint --rules maxi`` on three positions (the empty card with 2 rolls left, a mid-game card
  with 1 and with 0), ``--hints`` runs each (default 5);
* ``simulate --rules maxi`` of the optimal bot (``--games``, default 100,000) and of the
  frequent and random bots, ``--runs`` times each (default 1): the games per second too, of the
  whole command and of the games alone (``stats.games_per_second``: the table read and checked
  before it; the six-dice turn plays from its lanes' blocks, ``kernels.play_lane_blocks``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = 383.305389
MID_GAME = "ones=3,twos=6,fives=20,one_pair=12,three_pairs=18,small_straight=15,chance=25"
HINTS = [
    ("empty card, 2 rolls left", ["--dice", "123456", "--rolls-left", "2"]),
    ("mid-game, 1 roll left", ["--card", MID_GAME, "--dice", "334566", "--rolls-left", "1"]),
    ("mid-game, 0 rolls left", ["--card", MID_GAME, "--dice", "334566", "--rolls-left", "0"]),
]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def command(args: list[str]) -> tuple[float, float, float, str]:
    """``(wall s, CPU s, peak MiB, stdout)`` of ``python -m solver ARGS`` in a fresh process (its
    own resource use: ``os.wait4`` of that one child)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "solver", *args], cwd=ROOT, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"yahtzee {' '.join(args)} failed ({child.returncode}): {err.read().strip()}")
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read()


def medians(label: str, runs: list[tuple[float, float, float, str]]) -> None:
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    peak = statistics.median(r[2] for r in runs)
    print(f"{label:<40} wall {wall:8.2f} s   CPU {cpu:8.2f} s   peak {peak:7.0f} MiB   ({len(runs)} runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="maxi")
    parser.add_argument("--builds", type=int, default=1)
    parser.add_argument("--hints", type=int, default=5)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tables", default=None)
    args = parser.parse_args()
    folder = args.tables or tempfile.mkdtemp(prefix="bench-maxi-")
    rules = args.rules
    print(f"{rules}: tables in {folder}; load before {load()}")
    if args.builds:
        build = ["tables", "build", "--rules", rules, "--force", "--quiet", "--tables", folder]
        runs = [command(build) for _ in range(args.builds)]
        medians("tables build", runs)
        print(f"  load after {load()}")
    npy = Path(folder) / f"{rules}.npy"
    print(f"table on disk: {npy.stat().st_size / 1e6:.1f} MB ({npy.stat().st_size / 2**20:.1f} MiB)")
    _, _, _, out = command(["value", "--rules", rules, "--tables", folder, "--json"])
    value = json.loads(out)["ev"]
    print(f"empty-card value {value:.7f}; published {PUBLISHED} (difference {value - PUBLISHED:+.2e})")
    for label, hint in HINTS:
        runs = [command(["hint", "--rules", rules, "--tables", folder, *hint]) for _ in range(args.hints)]
        medians(f"hint: {label}", runs)
    print(f"  load after {load()}")
    for bot in ("optimal", "frequent", "random"):
        runs = []
        for _ in range(args.runs):
            sim = [
                "simulate",
                "--rules",
                rules,
                "--bot",
                bot,
                "--games",
                str(args.games),
                "--quiet",
                "--json",
                "--no-regret",  # the games alone: the simple bots are graded by default now
            ]
            runs.append(command([*sim, "--tables", folder]))
        medians(f"simulate {bot}, {args.games:,} games", runs)
        stats = json.loads(runs[-1][3])["stats"]
        rate = args.games / statistics.median(r[0] for r in runs)
        line = f"  mean {stats['mean']:.3f} (se {stats['standard_error']:.3f}); {rate:,.0f} games/s whole command"
        line += f", {stats['games_per_second']:,.0f} games/s playing"
        if bot == "optimal":  # the table bot: the command's clock runs before its games too
            extra = json.loads(runs[-1][3])["seconds"] - stats["seconds"]
            line += f" (the command's own clock: {extra:.1f} s more, the table read, checked and unpacked)"
        print(line)
    print(f"load after {load()}")


if __name__ == "__main__":
    main()

"""Advice benchmark: batch throughput, ``yahtzee hint`` start-up, single-position latency.

(a) ``solver.advice.batch.advise_many`` on random positions from random legal games (random
    placements, random dice, random rolls left): positions per second and CPU seconds,
    median of ``--repeat`` warm calls, plus the first (cold: numba start-up) call, the
    cost of then reading every option (the advice is built lazily) or only the best one,
    and ``hint --batch``'s JSON lines path;
(b) ``yahtzee hint --dice 33456 --rolls-left 2 --card ones=3`` as a subprocess with the
    table present (the folder's, or the one shipped with the package): wall and CPU seconds,
    medians of ``--hint-runs`` (the goal is 0.15 s), with Python's bytecode cached and without
    (in turn; peak memory: ``bench_first_run.py``, whose parent process is small), and whether that process imports numba, numpy or matplotlib (it must
    not: the table is read through ``mmap`` and the turn recursion is plain Python);
(c) ``Advisor.advise`` in-process: a new card state (the plain-Python turn recursion, on
    the light table reader and on the numpy memmap) and a cached one.

    python benchmarks/bench_advice.py [--positions 200000] [--repeat 3] [--hint-runs 10] [--tables DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from _child import run_measured

from solver.advice.advisor import Advisor
from solver.advice.batch import advise_json_lines, advise_many
from solver.core.card import ScoreCard
from solver.core.dice import Dice
from solver.core.position import Position
from solver.core.rules import get_rules
from solver.engine.tables import find_table, get_table, resolve_dir

HINT_ARGS = ["hint", "--dice", "33456", "--rolls-left", "2", "--card", "ones=3"]


def random_positions(rules, n: int, seed: int = 1) -> list[Position]:
    """``n`` positions met in random legal games: each turn's card, random dice and rolls left."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        card = ScoreCard.empty(rules)
        mask, holds50 = 0, False
        for _ in range(rules.n_boxes):
            dice = Dice(tuple(rng.randint(1, 6) for _ in range(5)))
            out.append(Position(card, dice, rng.randrange(3)))
            box, score, bonus = rng.choice(rules.placements(mask, dice.counts, holds50))
            scores = list(card.scores)
            scores[box] = score
            card = ScoreCard(rules, tuple(scores), card.yahtzee_bonus_count + (1 if bonus else 0))
            mask |= 1 << box
            holds50 = card.yahtzee_holds_50
            if len(out) == n:
                break
    return out


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def bench_batch(positions, tables_dir, repeat: int) -> None:
    n = len(positions)
    print(f"(a) batch advice: {n} positions from random {positions[0].rules.id} games")
    _, wall, cpu = timed(lambda: advise_many(positions[:2000], tables_dir))
    print(f"    first call, 2000 positions (numba import and kernel load included): {wall:.2f} s wall")
    runs = [timed(lambda: advise_many(positions, tables_dir)) for _ in range(repeat)]
    wall = statistics.median(r[1] for r in runs)
    cpu = statistics.median(r[2] for r in runs)
    print(
        f"    advise_many: {n / wall:,.0f} positions/s  ({wall:.2f} s wall, {cpu:.2f} s CPU, median of {repeat})"
    )
    everything = runs[-1][0]
    runs = None
    _, best_wall, _ = timed(lambda: [a.best for a in everything])
    print(
        f"    + reading .best of each:      {n / (wall + best_wall):,.0f} positions/s ({best_wall:.2f} s more)"
    )
    everything = None
    m = min(n, 50_000)  # every option of every position: about 1 KB of objects per option, so fewer
    subset = positions[:m]
    some, call_wall, _ = timed(lambda: advise_many(subset, tables_dir))
    _, opt_wall, _ = timed(lambda: [a.options for a in some])
    n_options = sum(len(a.options) for a in some)
    print(
        f"    + reading every option:       {m / (call_wall + opt_wall):,.0f} positions/s (first {m}: "
        f"{call_wall:.2f} + {opt_wall:.2f} s, {n_options / m:.1f} options a position)"
    )
    some = None
    lines = [
        f'{{"rules": "{p.rules.id}", "card": "{p.card}", "dice": "{p.dice}", "rolls_left": {p.rolls_left}}}'
        for p in subset
    ]
    _, wall, cpu = timed(lambda: sum(1 for _ in advise_json_lines(lines, tables_dir=tables_dir)))
    print(
        f"    JSON lines (hint --batch):    {m / wall:,.0f} lines/s ({m} lines, {wall:.2f} s wall, {cpu:.2f} s CPU)"
    )
    print(
        f"    peak memory of this process:  {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )


def hint_command() -> list[str]:
    script = shutil.which("yahtzee", path=os.path.dirname(sys.executable)) or shutil.which("yahtzee")
    return [script] if script else [sys.executable, "-m", "solver"]


def bench_hint(tables_dir, runs: int) -> None:
    """The hint as a user runs it: Python's bytecode cached (as after any first run), and again
    compiled from source on every run (``PYTHONDONTWRITEBYTECODE=1``, as this machine is set)."""
    cmd = hint_command() + HINT_ARGS + ["--tables", str(tables_dir)]
    table = find_table(get_rules(None), tables_dir, light=True)
    where = "the table shipped with the package" if table.shipped else f"the table in {tables_dir}"
    print(f"(b) {' '.join(['yahtzee'] + HINT_ARGS)}  ({where}, {runs} runs)")
    with tempfile.TemporaryDirectory(prefix="bench-pycache-") as pycache:
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = pycache
        uncached = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        uncached.pop("PYTHONPYCACHEPREFIX", None)
        run_measured(cmd, env=cached)  # fills the bytecode cache
        variants = {"bytecode cached": cached, "no bytecode cache": uncached}
        measured = {label: [] for label in variants}
        for _ in range(runs):  # the two in turn: the machine's load falls on both alike
            for label, env in variants.items():
                run = run_measured(cmd, env=env)
                if run.returncode:
                    sys.exit(f"hint failed: {run.stderr.strip()}")
                measured[label].append(run)
        for label, runs_of in measured.items():
            wall, cpu = [m.wall for m in runs_of], [m.cpu for m in runs_of]
            med = statistics.median(wall)
            verdict = "under" if med <= 0.15 else "OVER"
            print(
                f"    {label + ':':<19} wall median {med:.3f} s (min {min(wall):.3f}, max {max(wall):.3f}; "
                f"{verdict} the 0.15 s goal), CPU median {statistics.median(cpu):.3f} s (min {min(cpu):.3f})"
            )
    trace = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "solver"] + HINT_ARGS + ["--tables", str(tables_dir)],
        capture_output=True,
        text=True,
    )
    for package in ("numba", "numpy", "matplotlib"):
        print(f"    {package} imported by hint: {'YES' if imports(trace.stderr, package) else 'no'}")


def imports(importtime_log: str, package: str) -> bool:
    """Whether a ``python -X importtime`` log shows ``package`` (or a module of it) being imported."""
    for line in importtime_log.splitlines():
        if line.startswith("import time:"):
            module = line.rsplit("|", 1)[-1].strip()
            if module == package or module.startswith(package + "."):
                return True
    return False


def bench_single(rules, tables_dir, n: int = 300) -> None:
    positions = random_positions(rules, n, seed=7)
    print(f"(c) Advisor.advise in-process ({n} positions)")
    for light in (True, False):
        advisor = Advisor.load(rules, tables_dir, light=light)
        fresh = []
        for p in positions:
            advisor._cache.clear()
            _, wall, _ = timed(lambda p=p, advisor=advisor: advisor.advise(p))
            fresh.append(wall)
        reader = "light reader (hint)" if light else "numpy memmap"
        print(f"    new card state, {reader + ':':<21}median {statistics.median(fresh) * 1e3:.2f} ms")
    cached = []
    p = Position.parse("ones=3", "33456", 2, rules)
    advisor.advise(p)
    for _ in range(n):
        _, wall, _ = timed(lambda: advisor.advise(p))
        cached.append(wall)
    print(f"    cached state:                         median {statistics.median(cached) * 1e3:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--positions", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--hint-runs", type=int, default=10)
    parser.add_argument(
        "--tables", default=None, help="tables folder (default: the usual one; built if missing)"
    )
    args = parser.parse_args()

    rules = get_rules(args.rules)
    tables_dir = resolve_dir(args.tables)
    get_table(rules, tables_dir, build_if_missing=True)
    print(f"cores: {os.cpu_count()}, load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    bench_hint(tables_dir, args.hint_runs)
    bench_single(rules, tables_dir)
    t = time.perf_counter()
    positions = random_positions(rules, args.positions)
    print(f"(generated {len(positions)} positions in {time.perf_counter() - t:.1f} s)")
    bench_batch(positions, tables_dir, args.repeat)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

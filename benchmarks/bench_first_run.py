"""First-run benchmark: what a fresh install costs before the first answer.

Each run starts from an empty numba cache and an empty tables folder, in a fresh
process, and times whole commands (medians over ``--repeat`` runs of wall seconds, CPU
seconds -- user + system, what a quiet machine's wall time would be for these
single-threaded commands -- and peak resident memory):

* ``first hint``      -- ``yahtzee hint`` on the README example: the table shipped with the
  package, read without numba; the package's own modules compiled from source, as on the
  first run of an editable install (``PYTHONDONTWRITEBYTECODE=1``: nothing cached);
* ``warm hint``       -- the same hint again, Python's bytecode cached (as after any first run;
  ``PYTHONPYCACHEPREFIX``); a hint with a table of the tables folder costs the same;
* ``first simulate``  -- then ``yahtzee simulate --games N``: the shipped table again, nothing
  built; up to :data:`solver.play.simulate.NUMPY_GAMES` games (default 1,000) are played in
  numpy and nothing is compiled, larger runs compile the simulation kernels first;
* ``first other hint`` -- a first hint of a rule set without a shipped table (``--other``,
  default ``yatzy``): the DP's compilation + building its table + the hint, as every first
  hint was before the ``yahtzee`` table came with the package.

``--firsts`` times instead the first command of each kind of issue 36 ("every first command
within 5 s"), each in a fresh process with its own empty numba cache and tables folder (only the
shipped table): ``hint --rules yatzy`` (its table built), ``simulate --games 100000``,
``distribution`` from the empty card, a ``match`` of two table bots (1,000 games) and the
triple-card player (1,000 games); besides wall and CPU seconds, the CPU seconds numba spent
compiling (its ``numba:compile`` events, nested ones counted once) and the kernels compiled.
The target is 5 s wall each on a quiet 2-core machine; on a shared one CPU seconds are the
steadier figure (the load is printed before and after each run).  The package's shipped kernels
(:mod:`solver.engine.kernels.cache`) are seeded into each empty cache as on a fresh install;
``--no-shipped`` leaves them out (``YAHTZEE_SHIPPED_KERNELS=0``: everything compiles, as before
they were shipped).

It also checks that the first hint wrote nothing (tables folder, numba cache) and that the
hint imports neither numpy nor numba.  The machine is shared: the load average is printed.

    python benchmarks/bench_first_run.py [--repeat 5] [--games 1000] [--other yatzy]
    python benchmarks/bench_first_run.py --firsts [--repeat 1] [--only simulate distribution ...] [--no-shipped]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from _child import Measured, load_average, run_measured

HINT = ["hint", "--dice", "33456", "--rolls-left", "2", "--card", "ones=3,fours=12"]
#: issue 36's first commands: name -> the command line
FIRSTS = {
    "hint": ["hint", "--rules", "yatzy", "--dice", "33456", "--rolls-left", "2"],
    "simulate": ["simulate", "--games", "100000", "--quiet"],
    "distribution": ["distribution"],
    "match": ["match", "--bots", "optimal,optimal", "--games", "1000", "--quiet"],
    "triple": ["simulate", "--rules", "triple", "--bot", "triple", "--games", "1000", "--quiet"],
}
#: the command line in a process that also counts numba's compilations (the last stderr line)
COUNTING = """
import json, sys, time
from numba.core import event
stack, done = [], []
class Counting(event.Listener):
    def on_start(self, ev):
        stack.append((time.process_time(), ev.data["dispatcher"].py_func.__name__))
    def on_end(self, ev):
        start, name = stack.pop()
        if not stack:
            done.append((name, time.process_time() - start))
event.register("numba:compile", Counting())
from solver.cli.entry import main
code = main(sys.argv[1:])
print(json.dumps({"compile_cpu": sum(c for _, c in done), "kernels": [n for n, _ in done]}), file=sys.stderr)
sys.exit(code)
"""


def firsts(args) -> None:
    """Issue 36's first commands, each in a fresh process, cache and tables folder."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "YAHTZEE_TABLES")}
    base.pop("YAHTZEE_SHIPPED_KERNELS", None)
    if args.no_shipped:
        base["YAHTZEE_SHIPPED_KERNELS"] = "0"
    names = args.only or list(FIRSTS)
    rows: dict[str, list[tuple[Measured, dict, str, str]]] = {n: [] for n in names}
    for _ in range(args.repeat):
        for name in names:
            root = Path(tempfile.mkdtemp(prefix="first-cmd-"))
            try:
                env = dict(base, NUMBA_CACHE_DIR=str(root / "numba"), YAHTZEE_TABLES=str(root / "tables"))
                before = load_average()
                run = run_measured([sys.executable, "-c", COUNTING, *FIRSTS[name]], env=env)
                if run.returncode:
                    sys.exit(f"{name} failed ({run.returncode}): {run.stderr.strip()[-500:]}")
                counted = json.loads(run.stderr.strip().splitlines()[-1])
                rows[name].append((run, counted, before, load_average()))
            finally:
                shutil.rmtree(root, ignore_errors=True)
    shipped = "without" if args.no_shipped else "with"
    print(
        f"{sys.executable}: {args.repeat} run(s) each; {os.cpu_count()} cores; {shipped} the shipped kernels"
    )
    for name, runs in rows.items():
        wall = [r.wall for r, *_ in runs]
        cpu = [r.cpu for r, *_ in runs]
        comp = [c["compile_cpu"] for _, c, *_ in runs]
        peak = statistics.median(r.peak for r, *_ in runs) / 2**20
        loads = "; ".join(f"{b} -> {a}" for _, _, b, a in runs)
        print(
            f"first {name:<13} median {statistics.median(wall):6.2f} s wall, {statistics.median(cpu):6.2f} CPU s "
            f"(compiling {statistics.median(comp):5.2f} CPU s: {', '.join(runs[0][1]['kernels']) or 'nothing'}); "
            f"peak {peak:.0f} MiB; load {loads}  [{' '.join(FIRSTS[name])}]"
        )


def solver(args: list[str], env: dict, what: str, importtime: bool = False) -> Measured:
    flags = ["-X", "importtime"] if importtime else []
    run = run_measured([sys.executable, *flags, "-m", "solver", *args], env=env)
    if run.returncode:
        sys.exit(f"{what} failed ({run.returncode}): {run.stderr.strip()[-500:]}")
    return run


def imported(run: Measured, package: str) -> bool:
    return any(
        line.rsplit("|", 1)[-1].strip().split(".")[0] == package
        for line in run.stderr.splitlines()
        if line.startswith("import time:")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--games",
        type=int,
        default=1000,
        help="games of the first simulate (above 4,000 the kernels compile)",
    )
    parser.add_argument("--other", default="yatzy", help="a rule set without a shipped table")
    parser.add_argument("--firsts", action="store_true", help="issue 36's first commands instead")
    parser.add_argument("--only", nargs="*", choices=list(FIRSTS), help="with --firsts: these commands only")
    parser.add_argument(
        "--no-shipped", action="store_true", help="with --firsts: compile everything (no shipped kernels)"
    )
    args = parser.parse_args()
    if args.firsts:
        firsts(args)
        return
    simulate = ["simulate", "--games", str(args.games), "--quiet"]
    figures: dict[str, list[Measured]] = {
        "first hint": [],
        "warm hint": [],
        "first simulate": [],
        "first other hint": [],
    }
    loads = [load_average()]
    notes = set()
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "YAHTZEE_TABLES")}
    for _ in range(args.repeat):
        root = Path(tempfile.mkdtemp(prefix="first-run-"))
        try:
            tables, numba = root / "tables", root / "numba"
            fresh = dict(
                base, NUMBA_CACHE_DIR=str(numba), YAHTZEE_TABLES=str(tables), PYTHONDONTWRITEBYTECODE="1"
            )
            figures["first hint"].append(solver(HINT, fresh, "first hint"))
            if tables.exists() or numba.exists():
                notes.add("the first hint WROTE into the tables folder or the numba cache")
            cached = dict(fresh, PYTHONPYCACHEPREFIX=str(root / "pycache"))
            cached.pop("PYTHONDONTWRITEBYTECODE")
            solver(HINT, cached, "hint (filling the bytecode cache)")
            figures["warm hint"].extend(solver(HINT, cached, "warm hint") for _ in range(3))
            for package in ("numpy", "numba", "matplotlib"):
                if imported(solver(HINT, cached, "hint -X importtime", importtime=True), package):
                    notes.add(f"the hint IMPORTED {package}")
            figures["first simulate"].append(solver(simulate, fresh, "first simulate"))
            other = dict(fresh, NUMBA_CACHE_DIR=str(root / "numba2"), YAHTZEE_TABLES=str(root / "tables2"))
            figures["first other hint"].append(
                solver([*HINT, "--rules", args.other], other, "first other hint")
            )
        finally:
            shutil.rmtree(root, ignore_errors=True)
        loads.append(load_average())
    print(f"{sys.executable}: {args.repeat} runs; load average (1, 5, 15 min) before and after each: {loads}")
    for name, runs in figures.items():
        wall, cpu = [r.wall for r in runs], [r.cpu for r in runs]
        peak = statistics.median(r.peak for r in runs) / 2**20
        print(
            f"{name:<17} median {statistics.median(wall):6.3f} s wall (min {min(wall):.3f}, max {max(wall):.3f}), "
            f"{statistics.median(cpu):6.3f} CPU s (min {min(cpu):.3f}); peak {peak:.0f} MiB; {len(runs)} runs"
        )
    print(
        "; ".join(sorted(notes))
        or "the first hint wrote nothing; the hint imported neither numpy, numba nor matplotlib"
    )


if __name__ == "__main__":
    main()

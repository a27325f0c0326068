"""The Bellman check of every table load: what it adds to a ``yahtzee hint`` (the goal: <= 30 ms).

(a) ``solver.engine.tables.check_sampled_bellman`` in-process on the light reader (a hint's),
    each call with its fresh draw of states: median, min and max milliseconds of ``--calls``
    calls, per rule set of ``--rules`` (the table found as a hint finds it; built when missing);
(b) ``yahtzee hint --dice 33456 --rolls-left 2 --card ones=3`` as a subprocess, the same
    process with the check and with it replaced by a no-op, in turn (``--hint-runs`` each, the
    machine's load falls on both alike): wall and CPU medians and their difference, the
    figure the goal is about.  Both run ``python -c`` with Python's bytecode cached;
(c) with ``--target`` (the folder's ``yahtzee`` target table, never built here: minutes), the
    same for target tables: ``check_sampled_target`` in-process and ``hint ... --target 200``
    with its check and without.

    python benchmarks/bench_load_check.py [--rules yahtzee,yatzy] [--calls 50] [--hint-runs 30]
        [--tables DIR] [--target]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time

from _child import run_measured

from solver.core.rules import get_rules
from solver.engine.tables import LOAD_SAMPLE, check_sampled_bellman, find_table, get_table, resolve_dir

HINT_ARGS = ["hint", "--dice", "33456", "--rolls-left", "2", "--card", "ones=3"]
#: the hint as ``yahtzee`` runs it (``solver.cli:main``); argv[1] ``off``: the loads' checks no-ops
CHILD = """
import sys
if sys.argv[1] == "off":
    import solver.engine.tables as tables
    import solver.engine.target as target
    tables.check_sampled_bellman = lambda *args, **kwargs: None
    target.check_sampled_target = lambda *args, **kwargs: None
from solver.cli import main
sys.exit(main(sys.argv[2:]))
"""


def bench_check(rules, tables_dir, calls: int) -> None:
    get_table(rules, tables_dir, build_if_missing=True, progress=False)
    table = find_table(rules, tables_dir, light=True)
    n_states = rules.n_boxes + LOAD_SAMPLE
    times, cpus = [], []
    for _ in range(calls):
        wall, cpu = time.perf_counter(), time.process_time()
        problem = check_sampled_bellman(rules, table.values)
        times.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        if problem is not None:
            sys.exit(f"{rules.id}: the genuine table fails the check: {problem}")
    med = statistics.median(times) * 1e3
    print(
        f"    {rules.id:<20} {n_states} states: wall median {med:.1f} ms (min {min(times) * 1e3:.1f}, "
        f"max {max(times) * 1e3:.1f}), CPU median {statistics.median(cpus) * 1e3:.1f} ms"
    )


def bench_target_check(tables_dir, calls: int) -> None:
    from solver.engine.target import TARGET_LOAD_SAMPLE, check_sampled_target, load_target, target_load_levels

    rules = get_rules(None)
    table = load_target(rules, tables_dir, light=True)
    times, cpus = [], []
    for _ in range(calls):
        wall, cpu = time.perf_counter(), time.process_time()
        problem = check_sampled_target(table)
        times.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        if problem is not None:
            sys.exit(f"{rules.id}: the genuine target table fails the check: {problem}")
    print(
        f"(c) check_sampled_target on the light reader ({calls} calls): {rules.id}, "
        f"{len(target_load_levels(rules)) + TARGET_LOAD_SAMPLE} states, wall median {statistics.median(times) * 1e3:.1f} ms "
        f"(min {min(times) * 1e3:.1f}, max {max(times) * 1e3:.1f}), CPU median {statistics.median(cpus) * 1e3:.1f} ms"
    )


def bench_hint(tables_dir, runs: int, extra: tuple[str, ...] = (), label: str = "(b)") -> None:
    rules = get_rules(None)
    get_table(rules, tables_dir, build_if_missing=True, progress=False)
    where = "shipped with the package" if find_table(rules, tables_dir, light=True).shipped else "built"
    shown = " ".join(HINT_ARGS + list(extra))
    print(f"{label} yahtzee {shown}  (the {rules.id} table {where}, {runs} runs each)")
    argv = HINT_ARGS + list(extra) + ["--tables", str(tables_dir)]
    with tempfile.TemporaryDirectory(prefix="bench-pycache-") as pycache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pycache
        measured: dict[str, list] = {"on": [], "off": []}
        for label in measured:  # fills the bytecode cache
            run_measured([sys.executable, "-c", CHILD, label, *argv], env=env)
        for _ in range(runs):
            for label, out in measured.items():
                run = run_measured([sys.executable, "-c", CHILD, label, *argv], env=env)
                if run.returncode:
                    sys.exit(f"hint failed: {run.stderr.strip()}")
                out.append(run)
    medians = {}
    for label, runs_of in measured.items():
        wall, cpu = [m.wall for m in runs_of], [m.cpu for m in runs_of]
        medians[label] = statistics.median(wall), statistics.median(cpu)
        peak = max(m.peak for m in runs_of) / 2**20
        print(
            f"    check {label + ':':<4} wall median {medians[label][0]:.3f} s (min {min(wall):.3f}, "
            f"max {max(wall):.3f}), CPU median {medians[label][1]:.3f} s, peak {peak:.0f} MiB"
        )
    added_wall = (medians["on"][0] - medians["off"][0]) * 1e3
    added_cpu = (medians["on"][1] - medians["off"][1]) * 1e3
    verdict = "within" if added_wall <= 30 else "OVER"
    print(
        f"    added by the check: {added_wall:.1f} ms wall, {added_cpu:.1f} ms CPU ({verdict} the 30 ms goal)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yahtzee,yatzy", help="comma-separated rule sets for (a)")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--hint-runs", type=int, default=30)
    parser.add_argument(
        "--tables", default=None, help="tables folder (default: the usual one; built if missing)"
    )
    parser.add_argument("--target", action="store_true", help="also (c): the folder's yahtzee target table")
    args = parser.parse_args()
    tables_dir = resolve_dir(args.tables)
    print(f"cores: {os.cpu_count()}, load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"(a) check_sampled_bellman on the light reader ({args.calls} calls, a fresh draw each)")
    for spec in args.rules.split(","):
        bench_check(get_rules(spec), tables_dir, args.calls)
    if args.hint_runs:
        bench_hint(tables_dir, args.hint_runs)
    if args.target:
        bench_target_check(tables_dir, args.calls)
        if args.hint_runs:
            bench_hint(tables_dir, args.hint_runs, ("--target", "200"), "   ")
    print(
        f"    peak memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

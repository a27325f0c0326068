"""Distributions and target play: the figures of the README's "Beyond the average".

Usage: python benchmarks/bench_target.py [RULES ...] [--games N] [--tables DIR] [--builds N]
       [--build-only] [--policy-runs N] [--policy-target T] [--policy-only]

For each rule set (default: yahtzee yatzy):

* the target table, targets up to 500: ``yahtzee tables build --target`` run ``--builds``
  times (default 3), each a fresh process into a fresh folder (the value table copied in):
  the median of its wall seconds, CPU seconds (user + system) and peak memory (the
  process's maximum resident set), its size on disk (values + index), and the load average
  of the machine before and after (the machine may be shared);
* the exact distribution of the final score under expected-score play from the empty card:
  its time (median of 3 runs, wall and CPU), mean (against the table), standard deviation,
  percentiles, P(upper bonus), P(>= 300) and P(>= 400);
* target play: P(>= 300) and P(>= 400) exactly (the target table), and what it costs in
  expected score -- measured by simulation of ``target:T`` against ``optimal`` on the same
  dice (``--games``, default 200,000), with the shares reaching T;
* a mid-game distribution (a card with six boxes filled): its median time;
* ``yahtzee distribution --policy target:T`` from the empty card (``--policy-target``, default
  300), the whole command in a fresh process ``--policy-runs`` times (default 1; 0: not run):
  the median of its wall and CPU seconds and its peak memory (``--policy-only``: only this).
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solver.core.card import ScoreCard  # noqa: E402
from solver.core.rules import get_rules  # noqa: E402
from solver.engine.distribution import PERCENTILES, score_distribution  # noqa: E402
from solver.engine.tables import get_table, table_paths  # noqa: E402
from solver.engine.target import build_target, get_target, load_target, target_paths  # noqa: E402
from solver.play.simulate import simulate  # noqa: E402

MID_GAME = {
    "yahtzee": "ones=3,threes=9,fives=15,three_of_a_kind=24,full_house=25,chance=22",
    "yatzy": "ones=3,threes=9,fives=15,one_pair=10,two_pairs=18,chance=22",
}


def timed(fn, repeat: int = 3):
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return result, statistics.median(walls), statistics.median(cpus)


def measure_build(rules, folder: str, runs: int) -> str:
    """Build the target table of ``rules`` ``runs`` times in fresh processes and folders (the value
    table of ``folder`` copied in); prints the medians; returns the folder of the last build."""
    walls, cpus, peaks, loads = [], [], [], []
    out = folder
    for _ in range(runs):
        out = tempfile.mkdtemp(prefix=f"bench-target-{rules.id}-")
        for path in table_paths(rules, folder):
            shutil.copy(path, out)
        load = os.getloadavg()[0]
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "solver", "tables", "build", "--rules", rules.id, "--target", "--quiet",
             "--tables", out],
            env=os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        )  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)
        walls.append(time.perf_counter() - start)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"the build of {rules.id} failed")
        cpus.append(usage.ru_utime + usage.ru_stime)
        peaks.append(usage.ru_maxrss * 1024)
        loads.append((load, os.getloadavg()[0]))
    size = sum(p.stat().st_size for p in target_paths(rules, out)[:2])
    print(
        f"target table (t <= 500) build, median of {runs}: {statistics.median(walls):.1f} s wall "
        f"(runs {', '.join(f'{w:.0f}' for w in walls)}), {statistics.median(cpus):.1f} CPU s, peak memory "
        f"{statistics.median(peaks) / 1e9:.2f} GB, {size / 1e9:.3f} GB on disk; load average before/after "
        + ", ".join(f"{a:.1f}/{b:.1f}" for a, b in loads)
    )
    return out


def measure_policy(rules, folder: str, target: int, runs: int) -> None:
    """Time ``distribution --policy target:T`` from the empty card in fresh processes; prints the medians."""
    from _child import load_average, run_measured

    walls, cpus, peaks, loads = [], [], [], []
    for _ in range(runs):
        before = load_average()
        got = run_measured(
            [sys.executable, "-m", "solver", "distribution", "--rules", rules.id, "--policy", f"target:{target}",
             "--json", "--tables", folder],
            env=os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        )  # fmt: skip
        if got.returncode != 0:
            raise SystemExit(f"distribution --policy target:{target} failed: {got.stderr.strip()}")
        walls.append(got.wall)
        cpus.append(got.cpu)
        peaks.append(got.peak)
        loads.append(f"{before} / {load_average()}")
    print(
        f"distribution --policy target:{target} from the empty card, median of {runs}: "
        f"{statistics.median(walls):.1f} s wall (runs {', '.join(f'{w:.0f}' for w in walls)}), "
        f"{statistics.median(cpus):.1f} CPU s, peak memory {statistics.median(peaks) / 1e9:.2f} GB; "
        f"load averages before / after: {'; '.join(loads)}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules", nargs="*", default=["yahtzee", "yatzy"])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--tables", default=None, help="tables folder (default: a fresh temporary one)")
    parser.add_argument("--builds", type=int, default=3, help="target-table builds to time (default 3)")
    parser.add_argument("--build-only", action="store_true", help="only the builds' figures")
    parser.add_argument(
        "--policy-runs", type=int, default=1, help="target-play distributions to time (default 1)"
    )
    parser.add_argument("--policy-target", type=int, default=300, help="their target (default 300)")
    parser.add_argument("--policy-only", action="store_true", help="only the target-play distribution")
    args = parser.parse_args()
    folder = args.tables or tempfile.mkdtemp(prefix="bench-target-")
    print(f"tables in {folder}; {os.cpu_count()} cores")
    for spec in args.rules:
        rules = get_rules(spec)
        table = get_table(rules, folder, build_if_missing=True, progress=False)
        if table.shipped:  # the builds below copy the value table from the folder
            for path in table_paths(rules, table.path.parent):
                if not (Path(folder) / path.name).exists():
                    shutil.copy(path, Path(folder) / path.name)
        print(f"\n== {rules.id} (expected-score value {table.empty_card_value:.7f}) ==")
        if args.policy_only:
            get_target(rules, folder, build_if_missing=True, progress=False)
            measure_policy(rules, folder, args.policy_target, max(1, args.policy_runs))
            continue
        if args.builds > 0:
            built = measure_build(rules, folder, args.builds)
            for path in target_paths(rules, built):
                shutil.copy(path, Path(folder) / path.name)
        if args.build_only:
            continue
        if args.policy_runs > 0:
            get_target(rules, folder, build_if_missing=True, progress=False)
            measure_policy(rules, folder, args.policy_target, args.policy_runs)
        try:
            target = load_target(rules, folder)
        except Exception:  # noqa: BLE001 - not built yet (--builds 0): build it now
            target = build_target(rules, folder, progress=False)
        empty = ScoreCard.empty(rules)
        score_distribution(ScoreCard.parse(MID_GAME.get(rules.id, ""), rules), table.values)  # compile/warm
        dist, wall, cpu = timed(lambda e=empty, v=table.values: score_distribution(e, v))
        print(f"distribution from the empty card: {wall:.2f} s wall, {cpu:.2f} CPU s (median of 3)")
        print(
            f"  mean {dist.mean:.9f} (table {table.empty_card_value:.9f}), sd {dist.sd:.4f}, "
            f"total probability 1 - {1 - dist.total_probability:.2e}"
        )
        print("  percentiles " + ", ".join(f"{q}: {dist.percentile(q)}" for q in PERCENTILES))
        if dist.upper_bonus is not None:
            print(f"  P(upper bonus) {dist.upper_bonus:.6f}")
        if dist.rows_at_50:
            print(f"  P(five-of-a-kind row at 50) {1 - dist.rows_at_50[0]:.6f}")
        if MID_GAME.get(rules.id):
            card = ScoreCard.parse(MID_GAME[rules.id], rules)
            _, wall, cpu = timed(lambda c=card, v=table.values: score_distribution(c, v), repeat=5)
            print(
                f"distribution from a mid-game card ({card.n_filled} boxes filled): {wall:.3f} s wall (median of 5)"
            )
        for t in (300, 400):
            p_ev = dist.p_at_least(t)
            p_target = target.probability((0, 0, 0), t)
            aimed = simulate(rules, f"target:{t}", args.games, seed=1, tables_dir=folder)
            plain = simulate(rules, "optimal", args.games, seed=1, tables_dir=folder)
            diff = aimed.scores.astype(float) - plain.scores
            se = diff.std() / len(diff) ** 0.5
            share = (aimed.scores >= t).mean()
            print(
                f"  P(>= {t}): expected-score play {p_ev:.6f}, target play {p_target:.6f} "
                f"({'x%.2f' % (p_target / p_ev) if p_ev > 0 else 'out of reach'}); simulated share of target:{t} {share:.5f} "
                f"({args.games:,} games); its mean score {aimed.scores.mean():.2f} vs optimal "
                f"{plain.scores.mean():.2f}: costs {-diff.mean():.2f} +- {se:.2f} points "
                f"({aimed.games / aimed.seconds:,.0f} games/s)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

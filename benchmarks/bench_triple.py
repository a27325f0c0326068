"""Triple card benchmark: the floor and the ``triple`` player on the same dice (paired).

Plays ``--games`` seeded games (seed 1) with each player and prints the floor (exact:
6 x the base value, and simulated), the ``triple`` and ``tuned`` players' means +- standard
errors, the paired gains (triple - floor, tuned - triple) +- their standard errors, and per
player the medians of ``--repeat`` runs (after a warm-up, so numba's compilation is not timed):
games per second, wall and CPU seconds (all threads) and games per CPU second; then the peak
memory of the process and the load average (the machine is shared: CPU seconds compare best).
``--bots`` adds other players to the table.

    python benchmarks/bench_triple.py [--rules triple] [--games 100000] [--threads N]
                                      [--repeat 3] [--bots heuristic greedy random]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time

from solver.core.rules import get_rules
from solver.play.simulate import paired
from solver.play.triple import simulate_triple


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="triple")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per player (medians)")
    parser.add_argument("--bots", nargs="*", default=[], help="more players to measure on the same dice")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rules = get_rules(args.rules)
    single = rules.single
    results, times = {}, {}
    for bot in ["floor", "triple", "tuned", *args.bots]:
        simulate_triple(rules, bot, 200, seed=12345, threads=args.threads)  # warm-up: load the kernels
        runs = []
        for _ in range(max(1, args.repeat)):
            cpu = time.process_time()
            results[bot] = simulate_triple(rules, bot, args.games, seed=args.seed, threads=args.threads)
            runs.append((results[bot].seconds, time.process_time() - cpu))
        times[bot] = [statistics.median(r[k] for r in runs) for k in (0, 1)]
    out = {
        "rules": rules.id,
        "games": args.games,
        "seed": args.seed,
        "repeat": max(1, args.repeat),
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "load": os.getloadavg()[0],
        "players": {},
    }
    if single.reference_value is not None:
        out["floor_exact"] = sum(rules.weights) * single.reference_value
    for bot, r in results.items():
        s = r.summary()
        out["players"][bot] = {
            "mean": s["mean"],
            "se": s["standard_error"],
            "games_per_second": r.games / times[bot][0],
            "wall_s": times[bot][0],
            "cpu_s": times[bot][1],
            "games_per_cpu_second": r.games / times[bot][1],
            "threads": r.threads,
            "column_means": s["column_means"],
        }
    gain = paired(results["triple"], results["floor"])
    out["gain_triple_vs_floor"] = {
        "mean": gain["mean_difference"],
        "se": gain["standard_error"],
        "wins": gain["wins"],
        "ties": gain["ties"],
        "losses": gain["losses"],
    }
    tuned = paired(results["tuned"], results["triple"])
    out["gain_tuned_vs_triple"] = {"mean": tuned["mean_difference"], "se": tuned["standard_error"]}
    if args.json:
        print(json.dumps(out))
        return
    print(
        f"{rules.id}: {args.games:,} paired games (seed {args.seed}); times: medians of {out['repeat']} runs"
    )
    if "floor_exact" in out:
        print(f"  floor, exact (6 x {single.reference_value}): {out['floor_exact']:.4f}")
    for bot, p in out["players"].items():
        cols = ", ".join(f"{m:.2f}" for m in p["column_means"])
        print(f"  {bot:<10} {p['mean']:8.2f} +- {p['se']:.2f} (se)   columns x1, x2, x3: {cols}")
        print(
            f"    {p['games_per_second']:,.0f} games/s: {p['wall_s']:.2f} s wall, {p['cpu_s']:.2f} CPU s "
            f"({p['threads']} threads; {p['games_per_cpu_second']:,.0f} games/CPU s)"
        )
    g = out["gain_triple_vs_floor"]
    print(
        f"  gain triple - floor: {g['mean']:+.2f} +- {g['se']:.2f} (se, paired); triple wins {g['wins']:,}, "
        f"ties {g['ties']:,}, loses {g['losses']:,}"
    )
    t = out["gain_tuned_vs_triple"]
    print(f"  gain tuned - triple: {t['mean']:+.2f} +- {t['se']:.2f} (se, paired)")
    print(f"  peak memory {out['peak_mib']:.0f} MiB; load average {out['load']:.2f} at the end")


if __name__ == "__main__":
    main()

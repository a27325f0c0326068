"""The levels of ``yahtzee play --vs-computer``: each level's bot plays seeded games with
``yahtzee simulate`` and the mean score is printed, as quoted in ``play --help`` and the README
(``solver.cli.play.LEVEL_MEANS`` holds these figures; this script says when they differ).

    python benchmarks/bench_levels.py [--games 100000] [--seed 1] [--rules yahtzee]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", default="yahtzee")
    args = ap.parse_args()
    from solver.cli.play import LEVEL_MEANS, LEVELS

    stale = False
    print(f"{args.rules}, {args.games:,} games, seed {args.seed}")
    print(f"  {'level':<8} {'bot':<10} {'mean':>7} {'s.e.':>6}  quoted")
    for level, bot in LEVELS.items():
        if level not in LEVEL_MEANS:  # win: measured by its win rate (benchmarks/bench_win.py)
            continue
        cmd = [sys.executable, "-m", "solver", "simulate", "--bot", bot, "--games", str(args.games)]
        cmd += ["--seed", str(args.seed), "--rules", args.rules, "--json"]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        report = json.loads(out)
        stats = report["stats"]
        mean, se = stats["mean"], stats["standard_error"]
        quoted = LEVEL_MEANS.get(level)
        stale |= args.rules == "yahtzee" and (quoted is None or abs(round(mean, 1) - quoted) > 0.05)
        print(f"  {level:<8} {bot:<10} {mean:7.1f} {se:6.2f}  {quoted}")
    if stale and args.games == 100_000 and args.seed == 1:
        print("LEVEL_MEANS in solver/commands/play.py differ from these figures: update them and the README")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

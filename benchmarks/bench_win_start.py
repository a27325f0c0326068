"""What the ``win`` level loses by starting at once: expected-score play for its first K turns.

A game against the computer at the ``win`` level may start before its target table is built:
the computer plays for expected score (the ``optimal`` bot) until the table is ready, then to
win.  This plays ``yahtzee match`` games of ``WinBot(start_turn=K)`` (its first K turns for
expected score) against the optimal player, for each K, on the same seeded dice (the same
``--seed``: game ``g`` has the same dice for every K, so the K's are compared game by game),
and prints for each K its share of the games won (ties half) with its standard error, and
the difference from playing to win from the first turn (K = 0) with the standard error of
that paired difference (most games end alike for two K's: far smaller than either SE).
K = the number of turns (13 for ``yahtzee``) is the optimal player itself.

    python benchmarks/bench_win_start.py --games 100000 [--ks 0,1,2,3,4,6,8,10,13] [--seed 1]
        [--opponent optimal] [--rules yahtzee] [--tables DIR] [--threads N] [--json FILE]

Needs the rule set's table and target table (``yahtzee tables build --target``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import numpy as np


def points(scores: np.ndarray) -> np.ndarray:
    """Per game, the first bot's result against the second: 1 a win, 1/2 a tie, 0 a loss."""
    return 0.5 + 0.5 * np.sign(scores[:, 0] - scores[:, 1])


def main() -> None:
    from solver.play.bots import WinBot, get_bot
    from solver.play.match import play_match

    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ks", default="0,1,2,3,4,5,6,8,10,13")
    ap.add_argument("--opponent", default="optimal")
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--tables", default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    if 0 not in ks:
        ks.insert(0, 0)
    full = get_bot("win", args.rules, args.tables, progress=False)
    opponent = get_bot(args.opponent, args.rules, args.tables, progress=False)
    play_match(args.rules, [full, opponent], 200, 0, threads=args.threads)  # compiled or loaded first
    results = {}
    print(f"{args.rules}: win@K vs {args.opponent}, {args.games:,} games each, seed {args.seed}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for k in ks:
        bot = WinBot(full.advisor, full.table, start_turn=k)
        bot.win = full.win  # the opponent model solved once
        start = time.perf_counter()
        r = play_match(args.rules, [bot, opponent], args.games, args.seed, threads=args.threads)
        results[k] = (points(r.scores), r.scores, time.perf_counter() - start)
    base = results[0][0]
    rows = []
    print(f"{'K':>3}  {'win+tie/2':>16}  {'minus K=0 (paired)':>20}  {'mean score':>10}  {'s':>5}")
    for k in ks:
        p, scores, seconds = results[k]
        n = len(p)
        rate, se = float(p.mean()), float(p.std(ddof=1) / math.sqrt(n))
        d = p - base
        diff, dse = float(d.mean()), float(d.std(ddof=1) / math.sqrt(n))
        rows.append(
            {
                "k": k,
                "rate": rate,
                "se": se,
                "minus_k0": diff,
                "minus_k0_se": dse,
                "games_differing": int((d != 0).sum()),
                "mean_score": float(scores[:, 0].mean()),
                "seconds": round(seconds, 2),
            }
        )
        print(
            f"{k:>3}  {100 * rate:6.2f}% ± {100 * se:.2f}  {100 * diff:+8.2f} ± {100 * dse:.2f} pp"
            f"  {scores[:, 0].mean():10.2f}  {seconds:5.1f}"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {"rules": args.rules, "games": args.games, "seed": args.seed, "rows": rows}, fh, indent=1
            )


if __name__ == "__main__":
    main()

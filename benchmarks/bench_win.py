"""The win bot against the expected-score-optimal player: ``yahtzee match --bots win,optimal``.

Prints the share of games the win bot wins (ties half) with its standard error, the tie rate,
and each bot's mean score and spread, for the README.  Needs the yahtzee table and target
table (``yahtzee tables build --rules yahtzee --target``: about 5 minutes on 2 cores).

    python benchmarks/bench_win.py --games 200000 [--seed 1] [--rules yahtzee] [--tables DIR]
"""

from __future__ import annotations

import argparse
import json
import time


def main() -> None:
    from solver.play.match import play_match

    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--tables", default=None)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    start = time.perf_counter()
    result = play_match(
        args.rules, ["win", "optimal"], args.games, args.seed, tables_dir=args.tables, threads=args.threads
    )
    s = result.summary()
    win, optimal = s["players"]
    wt = win["win_or_half_tie"]
    print(
        f"{s['games']:,} games of {s['rules']} (seed {s['seed']}, {s['engine']}, {s['threads']} threads, "
        f"{time.perf_counter() - start:.0f} s)"
    )
    print(
        f"win vs optimal: {100 * wt['rate']:.2f}% ± {100 * wt['standard_error']:.2f} (wins + ties/2), "
        f"{(wt['rate'] - 0.5) / wt['standard_error']:.1f} SE above 50%; ties {100 * win['tie']['rate']:.2f}%"
    )
    for p in (win, optimal):
        seats = ", ".join(
            f"seat {x['seat'] + 1} {100 * x['win_or_half_tie']['rate']:.2f}%" for x in p["by_seat"]
        )
        print(f"  {p['bot']:<8} mean {p['mean_score']:.2f}  sd {p['sd_score']:.2f}  ({seats})")
    print(json.dumps(s))


if __name__ == "__main__":
    main()

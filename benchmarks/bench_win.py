"""The win bot against the expected-score-optimal player: ``yahtzee match --bots win,optimal``.

Prints the share of games the win bot wins (ties half) with its standard error, the tie rate,
each bot's mean score and spread, the clairvoyant bound beside it, and the match's speed: games
per second, the median of ``--runs`` matches of ``--speed-games`` games (other seeds), with
their wall and CPU seconds, and the process's peak memory.  Needs the rule set's table and
target table (``yahtzee tables build --rules yahtzee --target``: about 3 minutes on 2 cores);
the opponent model is read from the tables folder or solved first (its seconds are printed).

    python benchmarks/bench_win.py --games 400000 [--seed 1] [--rules yahtzee] [--tables DIR]
        [--runs 3 --speed-games 20000] [--no-bound]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time


def main() -> None:
    from solver.advice.win import clairvoyant_bound
    from solver.play.bots import get_bot
    from solver.play.match import play_match

    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--tables", default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--speed-games", type=int, default=20_000)
    ap.add_argument("--no-bound", action="store_true")
    args = ap.parse_args()
    start, cpu = time.perf_counter(), time.process_time()
    win = get_bot("win", args.rules, args.tables, progress=False)  # the opponent model with it
    optimal = get_bot("optimal", args.rules, args.tables, progress=False)
    print(
        f"{args.rules}: the bots ready in {time.perf_counter() - start:.1f} s wall, "
        f"{time.process_time() - cpu:.1f} CPU s (the tables, the opponent model read or solved)"
    )
    play_match(args.rules, [win, optimal], 200, 0, threads=args.threads)  # compiled or loaded first
    speeds = []
    for run in range(args.runs):
        start, cpu = time.perf_counter(), time.process_time()
        play_match(args.rules, [win, optimal], args.speed_games, 1000 + run, threads=args.threads)
        speeds.append((time.perf_counter() - start, time.process_time() - cpu))
    start = time.perf_counter()
    result = play_match(args.rules, [win, optimal], args.games, args.seed, threads=args.threads)
    seconds = time.perf_counter() - start
    s = result.summary()
    win_s, optimal_s = s["players"]
    wt = win_s["win_or_half_tie"]
    print(f"{s['games']:,} games (seed {s['seed']}, {s['engine']}, {s['threads']} threads, {seconds:.0f} s)")
    print(
        f"win vs optimal: {100 * wt['rate']:.2f}% ± {100 * wt['standard_error']:.2f} (wins + ties/2), "
        f"{(wt['rate'] - 0.5) / wt['standard_error']:.1f} SE above 50%; ties {100 * win_s['tie']['rate']:.2f}%"
    )
    for p in (win_s, optimal_s):
        seats = ", ".join(
            f"seat {x['seat'] + 1} {100 * x['win_or_half_tie']['rate']:.2f}%" for x in p["by_seat"]
        )
        print(f"  {p['bot']:<8} mean {p['mean_score']:.2f}  sd {p['sd_score']:.2f}  ({seats})")
    bound = None
    if not args.no_bound:
        bound = clairvoyant_bound(win.advisor, win.table)
        print(f"clairvoyant bound: {100 * bound['bound']:.2f}%")
    walls = [w for w, _ in speeds]
    median = statistics.median(walls)
    cpu = [c for w, c in speeds if w == median][0]
    rate = args.speed_games / median
    load = os.getloadavg()[0]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(
        f"speed: {rate:,.0f} games/s ({args.speed_games:,} games: median {median:.2f} s wall of "
        f"{', '.join(f'{w:.2f}' for w in walls)}; {cpu:.2f} CPU s), peak memory {peak:.2f} GiB, "
        f"load {load:.2f}"
    )
    print(json.dumps(s | {"bound": bound, "speed_games_per_s": rate, "speed_runs": speeds, "load": load}))


if __name__ == "__main__":
    main()

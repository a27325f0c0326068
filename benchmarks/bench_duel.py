"""The win bot against the exact two-player optimum, on reduced rule sets (README, "Matches and
playing to win").

For each rule set: the exact optimum against expected-score play (P(win) + P(tie)/2, the mean
of the two seats, as a match rotates them; :func:`solver.advice.duel.exact_duel`), the ``win``
bot's measured rate against ``optimal`` (``play_match``, ± its standard error), the clairvoyant
bound, and the first player's chance when both play to win.  Builds each rule set's value and
target tables in ``--tables`` (default: a temporary folder; small, seconds each).

    python benchmarks/bench_duel.py --games 200000 [--seed 1] [--tables DIR] [--rules SPEC ...]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

UPPER = "ones,twos,threes,fours,fives,sixes"
RULES = (
    f"yahtzee+without={UPPER},three_of_a_kind,four_of_a_kind,full_house,small_straight",
    f"yahtzee+without={UPPER},three_of_a_kind,four_of_a_kind,full_house",
    f"yatzy+without={UPPER},one_pair,three_of_a_kind,four_of_a_kind,small_straight,large_straight",
)


def measure(spec: str, folder: str, games: int, seed: int) -> dict:
    from solver.advice.advisor import Advisor
    from solver.advice.duel import exact_duel
    from solver.advice.win import clairvoyant_bound
    from solver.core.rules import get_rules
    from solver.engine.distribution import max_points
    from solver.engine.tables import build_table
    from solver.engine.target import build_target
    from solver.play.match import play_match

    rules = get_rules(spec)
    build_table(rules, folder, progress=False)
    target = build_target(rules, folder, t_max=max_points(rules), progress=False)
    exact = exact_duel(rules, folder)
    bound = clairvoyant_bound(Advisor.load(rules, folder), target)["bound"]
    start = time.perf_counter()
    win = play_match(rules, ["win", "optimal"], games, seed, tables_dir=folder).summary()["players"][0]
    return exact | {
        "bound": bound,
        "win_bot": win["win_or_half_tie"],
        "games": games,
        "match_seconds": time.perf_counter() - start,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tables", default=None)
    ap.add_argument("--rules", nargs="*", default=list(RULES))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(spec, args.tables or tmp, args.games, args.seed) for spec in args.rules]
    print(f"P(win) + P(tie)/2 against optimal, two players ({args.games:,} games per match)")
    print(f"{'boxes':<34} {'exact':>6} {'win bot':>13} {'bound':>6} {'self 1st':>8}")
    for r in rows:
        w = r["win_bot"]
        print(
            f"{','.join(r['boxes'])[:34]:<34} {100 * r['vs_ev']['mean']:6.2f} "
            f"{100 * w['rate']:6.2f} ± {100 * w['standard_error']:4.2f} {100 * r['bound']:6.2f} "
            f"{100 * r['self_play']['first']:8.2f}"
        )
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    main()

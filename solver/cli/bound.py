"""``yahtzee bound``: the most any player can win against expected-score play (two players)."""

from __future__ import annotations

import json

from . import add_json, add_rules, add_tables
from .remedy import build_command


def register(sub) -> None:
    p = sub.add_parser(
        "bound",
        help="the clairvoyant bound on the win rate against expected-score play",
        description=(
            "The clairvoyant bound: a player who knew the optimal opponent's final score in advance "
            "and played for it exactly (the target table) would win this share of two-player games "
            "(ties half); no strategy does better. Needs the rule set's target table "
            f"({build_command(target=True)})."
        ),
    )
    add_rules(p)
    add_json(p)
    add_tables(p)
    p.set_defaults(func=run_bound)


def run_bound(args) -> int:
    from ..advice.advisor import Advisor
    from ..advice.win import clairvoyant_bound
    from ..core.errors import UsageError
    from ..core.rules import get_rules
    from ..engine.target import load_target

    rules = get_rules(args.rules)
    if rules.triple:
        raise UsageError("bound takes a single card (the triple card has no target tables)")
    table = load_target(rules, args.tables)  # missing: one line naming the build
    advisor = Advisor.load(rules, args.tables, build_if_missing=True)
    out = clairvoyant_bound(advisor, table)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{rules.id}: against expected-score play (mean {out['opponent_mean']:.2f}), no player wins more")
    print(f"than {100 * out['bound']:.2f}% of two-player games (wins + ties/2): the clairvoyant bound,")
    print("a player told the opponent's final score in advance and playing for it exactly.")
    if out["beyond"] > 0:
        print(
            f"(the opponent ends at {out['t_max']} or more in {100 * out['beyond']:.3f}% of games, beyond the"
        )
        print(" target table: those count as generously as its last target)")
    return 0

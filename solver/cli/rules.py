"""``yahtzee rules [SPEC]``: the bases and modifiers, or the card of one rule set."""

from __future__ import annotations

import json

from . import add_json, fit_text


def register(sub) -> None:
    p = sub.add_parser(
        "rules",
        help="list the rule sets (bases and modifiers), or show the card of one",
        description="Without SPEC: the bases and modifiers a rule set is made of (BASE+MOD+MOD..., "
        "e.g. yatzy+all-rolls+extra-bonus=100). With SPEC: its card -- boxes, scoring, bonuses, "
        "fill order -- so you can check it is the game you play.",
    )
    p.add_argument("spec", nargs="?", metavar="SPEC", help="a rule set, e.g. yatzy+order=down")
    add_json(p, "print the rule set's parameters as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..core.rules import describe_modifiers, get_rules

    if args.spec is None:
        if args.json:
            from ..core.rules import BASES, MODIFIERS

            print(
                json.dumps(
                    {
                        "bases": {b.id: b.title for b in BASES.values()},
                        "modifiers": {m.syntax: m.help for m in MODIFIERS.values()},
                    }
                )
            )
        else:
            print(fit_text("\n".join(describe_modifiers()), hang=25))  # under the descriptions
        return 0
    rules = get_rules(args.spec)
    if args.json:
        print(json.dumps(rules.describe() | {"reference_value": rules.reference_value}))
    else:
        print(fit_text(rules.card_text()))
    return 0

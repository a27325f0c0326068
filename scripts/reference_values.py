"""Regenerate the empty-card value of every base, every single modifier and a few
combinations, and compare with the references of RULES.md.

Builds each table (into ``--tables DIR``, default the usual table folder; existing
tables are reused unless ``--force``), then prints a Markdown table of the values, the
published references and the differences (the README's rule-set table).  Use it after
changing the solver or adding a modifier; rule sets without a published value show "-".

    python scripts/reference_values.py [--tables DIR] [--force] [--json] [SPEC ...]
"""

from __future__ import annotations

import argparse
import json
import sys

from solver.core.errors import TableError
from solver.core.rules import REFERENCE_VALUES, get_rules
from solver.engine.tables import build_table, load_table

#: every base, every modifier alone on the bases it applies to, and a few combinations
SPECS = [
    *REFERENCE_VALUES,
    "yatzy+extra-bonus=100",
    "yatzy+yatzy-rows=3",
    "yatzy+order=up",
    "yatzy+order=choose",
    "yatzy+without=chance",
    "yahtzee+all-rolls",
    "yahtzee+order=down",
    "yahtzee+order=up",
    "yahtzee+order=choose",
    "yahtzee+lower-only",
    "yahtzee+without=chance",
    "yacht+all-rolls",
    "yacht+extra-bonus=50",
    "yacht+order=down",
    "yacht+order=choose",
    "yacht+lower-only",
    "yatzy+all-rolls+extra-bonus=100",
    "yatzy+extra-bonus=50+yatzy-rows=2",
    "yatzy+all-rolls+order=down",
    "yahtzee+all-rolls+order=choose",
    "yacht+extra-bonus=100+lower-only",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=None, help="table folder")
    parser.add_argument("--force", action="store_true", help="rebuild tables that exist")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("specs", nargs="*", metavar="SPEC", help="rule sets (default: the list below)")
    args = parser.parse_args(argv)

    rows = []
    for rules in dict.fromkeys(get_rules(spec) for spec in args.specs or SPECS):
        table = None
        if not args.force:
            try:
                table = load_table(rules, args.tables)
            except TableError:
                table = None
        if table is None:
            table = build_table(rules, args.tables, progress=True)
        value = table.empty_card_value
        ref = rules.reference_value
        rows.append(
            {
                "rules": rules.id,
                "value": value,
                "reference": ref,
                "difference": None if ref is None else value - ref,
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("| rule set | solver value | reference | difference |")
        print("|---|---|---|---|")
        for r in rows:
            ref = "-" if r["reference"] is None else f"{r['reference']:.7f}"
            diff = "-" if r["difference"] is None else f"{r['difference']:+.1e}"
            print(f"| `{r['rules']}` | {r['value']:.9f} | {ref} | {diff} |")
    bad = [r for r in rows if r["difference"] is not None and abs(r["difference"]) > 1e-6]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

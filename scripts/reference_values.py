"""Regenerate the empty-card (reference) value of every rule set and compare with RULES.md.

Builds each table (into ``--tables DIR``, default the usual table folder; existing
tables are reused unless ``--force``), then prints a Markdown table of the values,
the published references and the differences.  Use it after changing the solver or
adding a rule set; ``yatzy-forced`` has no published value, its figure here is the
one recorded in ``solver/rules.py`` and the README.

    python scripts/reference_values.py [--tables DIR] [--force] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys

from solver.errors import TableError
from solver.rules import RULE_SETS
from solver.tables import build_table, load_table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=None, help="table folder")
    parser.add_argument("--force", action="store_true", help="rebuild tables that exist")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)

    rows = []
    for rules in RULE_SETS.values():
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

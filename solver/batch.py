"""Batch advice: many positions at once, JSON lines in and out.

Positions are grouped by rule set; each line's output is the same object as
``yahtzee hint --json``.  A bad line yields ``{"error": ...}`` and the rest go on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from .advisor import Advice, Advisor, Position
from .errors import SolverError, TableError


def advise_many(positions: list[Position], tables_dir=None) -> list[Advice]:
    """Advice for every position (tables built when missing)."""
    advisors: dict[str, Advisor] = {}
    out = []
    for p in positions:
        adv = advisors.get(p.rules.id)
        if adv is None:
            adv = advisors[p.rules.id] = Advisor.load(p.rules, tables_dir, build_if_missing=True)
        out.append(adv.advise(p))
    return out


def _position_from_json(obj, default_rules) -> Position:
    if not isinstance(obj, dict):
        raise ValueError("each line must be a JSON object")
    missing = [k for k in ("dice", "rolls_left") if k not in obj]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    return Position.parse(obj.get("card", ""), obj["dice"], obj["rolls_left"], obj.get("rules", default_rules))


def advise_json_lines(lines: Iterable[str], default_rules=None, tables_dir=None) -> Iterator[str]:
    """One JSON output line per non-blank input line, in order."""
    advisors: dict[str, Advisor] = {}
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            position = _position_from_json(json.loads(line), default_rules)
            adv = advisors.get(position.rules.id)
            if adv is None:
                adv = advisors[position.rules.id] = Advisor.load(position.rules, tables_dir, build_if_missing=True)
            yield json.dumps(adv.advise(position).to_json())
        except TableError:
            raise
        except (SolverError, ValueError) as exc:
            yield json.dumps({"error": f"line {n}: {exc}"})

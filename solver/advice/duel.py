"""The exact two-player optimum of a small rule set, the yardstick of the ``win`` bot.

:func:`exact_duel` solves the whole two-player game (:func:`solver.engine.duel.solve_duel`)
for a player maximising P(win) + P(tie) / 2 against expected-score play (the ``optimal`` bot),
from either seat, and against itself.  Matches rotate the seats, so the mean of the two seats
is the rate no bot can beat in ``yahtzee match --bots X,optimal``; the ``win`` bot's rate there
measures what its approximation loses.  Feasible for a few boxes (2**boxes card states per
player, squared, times the score differences): use ``without=BOX,...``.
"""

from __future__ import annotations

import time

from ..core.errors import UsageError
from ..core.rules import get_rules
from ..engine.duel import solve_duel
from ..engine.tables import get_table

#: more boxes than this is more than a few minutes (or more memory than a laptop has)
MAX_DUEL_BOXES = 6


def exact_duel(rules, tables_dir=None, *, build_if_missing: bool = False, progress: bool = False) -> dict:
    """The exact two-player values of ``rules`` (at most :data:`MAX_DUEL_BOXES` boxes), each a
    chance P(win) + P(tie) / 2 from the empty cards:

    * ``vs_ev``: ``first``, ``second`` (the seat of the one playing to win) and ``mean`` (of
      the two: a match's rotated seats) against expected-score play (its value table, from
      ``tables_dir``, built when missing and ``build_if_missing``);
    * ``self_play``: ``first`` and ``second`` when both play to win (adding up to 1);

    and ``rules``, ``boxes``, ``card_states`` (per player), ``seconds``."""
    rules = get_rules(rules)
    rules.require_single("the exact duel")
    if rules.n_boxes > MAX_DUEL_BOXES:
        raise UsageError(
            f"the exact duel takes at most {MAX_DUEL_BOXES} boxes, {rules.id} has {rules.n_boxes}: "
            "leave some out with without=BOX,..."
        )
    start = time.perf_counter()
    values = get_table(rules, tables_dir, build_if_missing=build_if_missing, progress=progress).values
    first = solve_duel(rules, values, "ev", 0)
    second = solve_duel(rules, values, "ev", 1)["value"]
    self_first = solve_duel(rules, None, "self", 0)["value"]
    return {
        "rules": rules.id,
        "boxes": list(rules.box_names),
        "card_states": sum(len(level) for level in first["states"]),
        "vs_ev": {"first": first["value"], "second": second, "mean": 0.5 * (first["value"] + second)},
        "self_play": {"first": self_first, "second": 1.0 - self_first},
        "seconds": time.perf_counter() - start,
    }

"""User bots for ``benchmarks/bench_regret.py``: Python bots given as ``module:attr``, played on
the Python engine (through ``choose_keep``/``choose_box``) and graded like any other."""

from __future__ import annotations

from solver.advice.advisor import Advisor
from solver.engine.heuristic import heuristic_table
from solver.play.bots import Bot, TableBot


class KeepSixes(Bot):
    """The README's example bot: keeps its sixes, scores the box that pays most now."""

    name = "sixes"

    def choose_keep(self, card, dice, rolls_left, rng):
        return tuple(d for d in dice if d == 6)

    def choose_box(self, card, dice, rng):
        return max(card.placements(dice), key=lambda p: p.points).box


class HeuristicInPython(TableBot):
    """A near-optimal user bot: the heuristic's play, made in Python (a subclass of a builtin
    bot never runs in the kernels)."""

    def __init__(self, rules):
        super().__init__(Advisor(heuristic_table(rules)), "heuristic-in-python")

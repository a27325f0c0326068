"""Advice on the triple card (:mod:`solver.core.triple_card`): the best-known option of any position.

Exact play is out of reach (2^39 x 64^3 card states).  What is known and used here:

* the **floor** policy -- fill the columns one after the other, each with the exact
  single-card strategy -- is worth, at any position, the card's weighted total plus the
  weighted sum of the columns' exact values ``sum_c w_c V(s_c)`` (the columns are
  independent under it and every column's future is its table value, whenever it is
  played); from the empty card ``6 x`` the base value;
* the **triple** player: at each decision, the best of this turn's weighted points plus
  ``sum_c w_c V(s_c)`` after it -- one step of policy improvement over the floor, so it
  can only gain (measured in the README).  Its advice is best-known, not proven optimal.

The pure-Python :class:`TripleAdvisor` serves ``hint`` (no numba, the base table read
light); simulation runs in :func:`solver.engine.kernels.triple_games`.  Its objective is the
expected score (:class:`~solver.advice.objectives.ExpectedScore`): the lookahead is how it is
estimated, which each advice's ``note`` says, with the floor policy's value it is measured from.
"""

from __future__ import annotations

import math
from functools import cached_property

from ..core import dice as D
from ..core.dice import Dice
from ..core.errors import UsageError
from ..core.position import Position
from ..core.rules import RuleSet
from ..core.triple_card import TripleCard, triple_rules
from ..engine.turn import TIE_TOLERANCE, TurnValues, average_keeps, best_subkeep
from .advisor import Advice, ranked_advice
from .objectives import EXPECTED_SCORE, ExpectedScore, Objective, check_objective

NOTE = (
    "best-known, not proven optimal: the triple player looks one turn ahead over the columns' "
    "exact single-card values; exp. final = this choice, then each column played out "
    "optimally in turn (the floor policy), a lower bound for continued triple play"
)


# --- the advisor (plain Python, for hint) ---------------------------------------------
class _Scaled:
    """``values`` times ``k`` entry by entry (the kernel's ``kappa * V``, the same float product)."""

    def __init__(self, values, k: float):
        self.values, self.k = values, k

    def __getitem__(self, index) -> float:
        return self.k * float(self.values[index])


class TripleTurn:
    """The triple player's within-turn values of one triple card (see the module docstring).

    ``r0``/``e0``/``e1`` as :class:`~solver.advice.advisor.TurnValues`, in weighted points relative
    to the floor value ``floor_ev`` (``sum_c w_c V(s_c)``); ``columns`` maps each considered
    column to its :class:`TurnValues`.  ``only_first``: the floor player (first open column);
    ``kappa``: per-column scales of the values to come (:data:`BOT_KAPPA`, the ``tuned`` player).
    """

    def __init__(
        self,
        card: TripleCard,
        values,
        cache: dict | None = None,
        only_first: bool = False,
        kappa: tuple[float, ...] | None = None,
    ):
        single = card.rules.single
        cache = {} if cache is None else cache
        self.card = card
        self.now: dict[int, float] = {}
        self.columns: dict[int, TurnValues] = {}
        for c in card.open_columns[:1] if only_first else card.open_columns:
            state = card.columns[c].state
            k = 1.0 if kappa is None else float(kappa[c])
            tv = cache.get((state, k))
            if tv is None:
                tv = cache[(state, k)] = TurnValues(single, state, values if k == 1.0 else _Scaled(values, k))
            self.columns[c] = tv
            self.now[c] = float(values[state]) if k == 1.0 else k * float(values[state])
        self.floor_ev = sum(
            w * float(values[col.state])
            for w, col in zip(card.weights, card.columns, strict=True)
            if not col.is_complete
        )
        weights = card.weights
        best = [-math.inf] * D.N_ROLLS
        for c, tv in self.columns.items():
            w, v = weights[c], self.now[c]
            best = [max(a, w * (b - v)) for a, b in zip(best, tv.r0, strict=True)]
        self.r0 = best
        stop = not single.all_rolls
        x = [0.0] * D.ROLL_OFFSET + best
        average_keeps(x)
        self.e0 = x.copy()
        best_subkeep(x, stop)
        average_keeps(x)
        self.e1 = x[: D.ROLL_OFFSET] + best
        if not stop:
            no_stop = [-math.inf] * D.N_ROLLS
            self.e0[D.ROLL_OFFSET :] = no_stop
            self.e1[D.ROLL_OFFSET :] = no_stop
        self._x, self._stop = x, stop

    @cached_property
    def value(self) -> float:
        """Expected weighted points to come (before rolling) of one triple turn, then the floor."""
        x = self._x
        best_subkeep(x, self._stop)
        return self.floor_ev + sum(p * v for p, v in zip(D.ROLL_PROBS, x[D.ROLL_OFFSET :], strict=True))

    def placement_values(self, dice: Dice) -> list[tuple[float, int, int, int, int]]:
        """``(relative value, column, box, score, bonus)`` of every legal placement considered."""
        out = []
        for c, tv in self.columns.items():
            w, v = self.card.weights[c], self.now[c]
            for b, s, bonus in tv.placements(dice):
                out.append((w * (tv.placement_value(b, s, bonus) - v), c, b, s, bonus))
        return out


class TripleAdvisor:
    """Ranks the options of triple positions from the base rule set's exact table."""

    def __init__(
        self, table, rules: RuleSet, *, only_first: bool = False, kappa: tuple[float, ...] | None = None
    ):
        """``only_first``: the floor player's view (one column at a time); ``kappa``: per-column
        scales of the values to come (the ``tuned`` player)."""
        self.table = table
        self.rules = triple_rules(rules)
        self.only_first, self.kappa = only_first, kappa
        if table.rules != self.rules.single:
            raise UsageError(f"the {table.rules.id} table does not fit {self.rules.id}")
        self._cache: dict = {}

    @classmethod
    def load(
        cls,
        rules,
        tables_dir=None,
        *,
        build_if_missing: bool = True,
        progress: bool = True,
        light: bool = True,
    ):
        from ..engine.tables import get_table

        rules = triple_rules(rules)
        table = get_table(
            rules.single, tables_dir, build_if_missing=build_if_missing, progress=progress, light=light
        )
        return cls(table, rules)

    def turn(self, card: TripleCard) -> TripleTurn:
        if len(self._cache) > 4096:
            self._cache.clear()
        return TripleTurn(card, self.table.values, self._cache, only_first=self.only_first, kappa=self.kappa)

    def card_value(self, card: TripleCard) -> float:
        """Expected points still to come from the start of a turn (the floor policy's: a lower bound)."""
        return self.floor_value(card) - card.total

    def floor_value(self, card: TripleCard) -> float:
        """Expected final score of the floor policy from the start of a turn on ``card``."""
        values = self.table.values
        return card.total + sum(
            w * float(values[col.state])
            for w, col in zip(card.weights, card.columns, strict=True)
            if not col.is_complete
        )

    #: what the advice is: best-known, not proven optimal (printed with it)
    note = NOTE
    objectives: tuple[type, ...] = (ExpectedScore,)

    def advise(self, position: Position, objective: Objective = EXPECTED_SCORE) -> Advice:
        """Every option of a triple position by expected score, best first (ties: keeps with more
        dice first, placements column then card order), as :class:`~solver.advice.advisor.Option`
        with ``column`` set on the boxes; the advice's ``note`` is :data:`NOTE` and its
        ``floor_expected_final`` the floor policy's value (:meth:`floor_value`)."""
        if not isinstance(objective, ExpectedScore):
            check_objective(self, objective)
        card, dice, rolls_left = position.card, position.dice, position.rolls_left
        if card.rules != self.rules:
            raise UsageError(f"the card is a {card.rules.id} card, the advisor is for {self.rules.id}")
        tt = self.turn(card)
        base = card.total + tt.floor_ev
        raw: list[tuple[float, dict]] = []
        if rolls_left == 0:
            names = self.rules.single.box_names
            for ev, c, b, s, bonus in tt.placement_values(dice):
                fields = {
                    "column": c + 1,
                    "category": names[b],
                    "score": s,
                    "bonus": bonus,
                    "weight": card.weights[c],
                }
                raw.append((ev, fields))
        else:
            ev_table = tt.e0 if rolls_left == 1 else tt.e1
            stop = D.ROLL_OFFSET + dice.index
            for k in reversed(D.ROLL_SUBKEEPS[dice.index]):
                if k == stop:
                    if self.rules.all_rolls:
                        continue
                    box, score = self.stop_placement(tt, dice)
                    raw.append((ev_table[k], {"keep": D.KEEPS[k], "stop_category": box, "stop_score": score}))
                    continue
                raw.append((ev_table[k], {"keep": D.KEEPS[k]}))
        # base is floor_value(card): the same sum, in the same order
        return ranked_advice(position, base, raw, note=self.note, floor_expected_final=base)

    def stop_placement(self, tt: TripleTurn, dice: Dice) -> tuple[str, int]:
        """The box that stopping now implies, as the card names it (``fours@3``), and its score in
        that column: the best placement of ``dice``, ties to the first column, then card order
        (as the triple player breaks them)."""
        values = tt.placement_values(dice)
        best = max(v[0] for v in values)
        _, c, b, score, _ = min(
            (v for v in values if best - v[0] <= TIE_TOLERANCE), key=lambda v: (v[1], v[2])
        )
        names = self.rules.single.box_names
        return tt.card.key(c + 1, names[b]), score

"""The heuristic and greedy players' value tables: a card evaluation derived from the rules.

Not a solver: an estimate of each card state's worth from the box values the rules imply
(no table to build), in the shape of an exact table, so every player and advisor that
reads a value table can play by it (``heuristic``, ``greedy``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..core import dice as D
from ..core.errors import UsageError
from ..core.rules import RuleSet, get_rules

#: The heuristic's only constants, rule-agnostic, tuned by simulation on ``yahtzee`` and
#: ``yatzy`` (a grid, 10,000 games each, seed 1; the optimum is flat: within about half a
#: point for TRIES_PER_TURN 0.2-0.3, BONUS_SCALE 3-5, BONUS_SHIFT 0-0.5): the tries an
#: open box gets per further open box (``k = 1 + TRIES_PER_TURN x (n - 1)``, ``n`` open) ...
TRIES_PER_TURN = 0.25
#: ... and the scale and shift of the logistic chance to reach the upper bonus.
BONUS_SCALE = 4.0
BONUS_SHIFT = 0.25


@dataclass(frozen=True)
class HeuristicParams:
    """The heuristic evaluation of a card for one rule set (see :func:`heuristic_params`).

    ``box_values[name][n - 1]``: what open box ``name`` is worth while ``n`` boxes are
    open.  The upper bonus counts as ``bonus x P(reach it)`` with
    ``P = logistic((worth of the open upper boxes - points still needed) / bonus_scale
    + bonus_shift)``.  Once a five-of-a-kind row holds 50, each open box adds
    ``five_kind_bonus_per_turn`` (future five-of-a-kind bonuses).
    """

    box_values: dict[str, tuple[float, ...]]
    bonus_scale: float = BONUS_SCALE
    bonus_shift: float = BONUS_SHIFT
    five_kind_bonus_per_turn: float = 0.0


def turn_value(final, all_rolls: bool = False) -> np.ndarray:
    """Expected worth of one turn whose last roll ``r`` is worth ``final[r]``.

    ``final`` (n_rolls,) or (n_rolls, m), one column per goal: 252 rolls of five dice or 462 of
    six (the dice counted from its length).  The dice are kept to maximise the expected worth
    of the roll the turn stops on (under ``all_rolls`` the third one).  The turn recursion of
    :mod:`solver.engine.kernels` (``V = sum_r P(r) R2(r)``) on arrays.
    """
    final = np.asarray(final, dtype=np.float64)
    n_dice = _dice_of_rolls(final.shape[0])
    d = D.layer(n_dice).arrays
    offset = D.layer(n_dice).roll_offset
    x = np.zeros((D.layer(n_dice).n_keeps, *final.shape[1:]))
    x[offset:] = final
    by_size = _keeps_by_size(n_dice)
    for _ in range(2):
        for keeps, plus, _minus, _present in by_size[::-1]:  # E(K) = mean over faces of E(K + face)
            if plus is not None:
                x[keeps] = x[plus].mean(axis=1)
        for keeps, plus, minus, present in by_size[1:]:  # R(K) = max(E(K), R(K - face) for the faces of K)
            best = np.where(present.reshape(present.shape + (1,) * (x.ndim - 1)), x[minus], -np.inf).max(
                axis=1
            )
            stop = plus is not None or not all_rolls  # a roll may not be kept whole under all-rolls
            x[keeps] = np.maximum(x[keeps], best) if stop else best
    return d["ROLL_PROB"] @ x[offset:]


def _dice_of_rolls(n_rolls: int) -> int:
    for n_dice in D.DICE_COUNTS:
        if D.layer(n_dice).n_rolls == n_rolls:
            return n_dice
    raise ValueError(f"no dice count has {n_rolls} rolls")


@lru_cache(maxsize=2)
def _keeps_by_size(n_dice: int = D.N_DICE) -> list[tuple]:
    """Per number of dice 0..n_dice: the keeps, their ``K + face`` (None for a whole roll), their
    ``K - face`` (a valid index) and which of those faces are in ``K``."""
    d = D.layer(n_dice).arrays
    out = []
    for s in range(n_dice + 1):
        keeps = np.flatnonzero(d["KEEP_SIZE"] == s)
        sub = d["REMOVE_DIE"][keeps]
        out.append((keeps, d["ADD_DIE"][keeps] if s < n_dice else None, np.maximum(sub, 0), sub >= 0))
    return out


def best_of_tries(rules: RuleSet, tries: int) -> np.ndarray:
    """(tries, n_boxes): ``W[k - 1, b]``, the expected score of box ``b`` with ``k`` turns to
    fill it, each turn played for it alone and its score kept or passed on to the next.

    ``W[0]`` is one turn for the box: ``turn_value(score)``; then
    ``W[k] = turn_value(max(score, W[k - 1]))``.
    """
    score = rules.score_table.astype(np.float64)
    out = np.empty((tries, rules.n_boxes))
    out[0] = turn_value(score, rules.all_rolls)
    for k in range(1, tries):
        out[k] = turn_value(np.maximum(score, out[k - 1]), rules.all_rolls)
    return out


def heuristic_params(rules: RuleSet | str | None = None) -> HeuristicParams:
    """The heuristic's evaluation, derived from the rule set alone (its scorers, bonuses,
    number of turns, roll and order rules), so that it plays any rule set.

    * An open box is worth its expected score with ``k`` tries (:func:`best_of_tries`):
      ``k = 1`` when it is the last box open (exact then), plus ``TRIES_PER_TURN`` per
      further open box, interpolated between whole tries.  Under a fill order every box
      gets exactly one turn: ``k = 1``.
    * The upper bonus: the open upper boxes' worth against the points still needed.
    * Future five-of-a-kind bonuses: ``bonus x P(five of a kind in a turn played for
      it)`` per open box; 0 where the rule set has no such bonus.
    """
    rules = get_rules(rules)
    n = rules.n_boxes
    per_turn = 0.0 if rules.forced_order else TRIES_PER_TURN
    k = 1.0 + per_turn * np.arange(n)  # tries while 1 .. n boxes are open
    w = best_of_tries(rules, int(np.ceil(k[-1])) + 1)
    whole = np.floor(k).astype(np.int64)
    frac = (k - whole)[:, None]
    worth = (1 - frac) * w[whole - 1] + frac * w[whole]  # (boxes open - 1, box)
    five = np.array([float(len(set(roll)) == 1) for roll in rules.dice.rolls])
    bonus = rules.bonus * float(turn_value(five, rules.all_rolls)) if rules.bonus else 0.0
    return HeuristicParams(
        box_values={name: tuple(worth[:, b].tolist()) for b, name in enumerate(rules.box_names)},
        bonus_scale=BONUS_SCALE,
        bonus_shift=BONUS_SHIFT,
        five_kind_bonus_per_turn=bonus,
    )


def heuristic_values(rules: RuleSet | str | None = None, params: HeuristicParams | None = None) -> np.ndarray:
    """The heuristic bot's evaluation of every card state, in the layout of a value table.

    ``H[mask, u, f]`` = the values of the open boxes + upper bonus x the estimated chance
    to still reach it + future five-of-a-kind bonuses (see :class:`HeuristicParams`).
    Derived from the rules in a few milliseconds: no dynamic program, no table file.
    """
    rules = get_rules(rules)
    p = params or heuristic_params(rules)
    n = rules.n_boxes
    masks = np.arange(1 << n, dtype=np.int64)
    n_open = np.zeros(1 << n, dtype=np.int64)
    for b in range(n):
        n_open += (masks >> b) & 1 == 0
    for name in rules.box_names:
        if name not in p.box_values:
            raise UsageError(f"the heuristic has no value for box {name!r} of {rules.id}")
        if len(p.box_values[name]) != n:
            raise UsageError(
                f"the heuristic values of box {name!r} are for {len(p.box_values[name])} boxes, not {n}"
            )
    open_value = np.zeros(1 << n)
    par_left = np.zeros(1 << n)  # the worth of the open upper boxes
    upper_open = np.zeros(1 << n, dtype=bool)
    for b, box in enumerate(rules.boxes):
        is_open = (masks >> b) & 1 == 0
        worth = np.array((0.0, *p.box_values[box.name]))  # by number of open boxes
        open_value += np.where(is_open, worth[n_open], 0.0)
        if box.is_upper:
            par_left += np.where(is_open, worth[n_open], 0.0)
            upper_open |= is_open
    values = np.empty((1 << n, rules.upper_cap + 1, rules.n_flags))
    if rules.n_dice == 5:
        base = np.repeat(open_value[:, None], rules.upper_cap + 1, axis=1)
        if rules.has_upper_bonus:
            base += _bonus_worth(rules, p, par_left[:, None], upper_open[:, None])
        for f in range(rules.n_flags):
            values[:, :, f] = base + (f * p.five_kind_bonus_per_turn * n_open)[:, None]
    else:
        _fill_by_rows(values, rules, p, open_value, par_left, upper_open, n_open)
    values[rules.full_mask] = 0.0
    return values


def _bonus_worth(rules: RuleSet, p: HeuristicParams, par_left, upper_open) -> np.ndarray:
    """``(k, cap + 1)``: the upper bonus x its estimated chance, for cards whose open upper boxes
    are worth ``par_left`` ((k, 1)) with some upper box open where ``upper_open`` ((k, 1))."""
    u = np.arange(rules.upper_cap + 1, dtype=np.float64)
    need = rules.upper_threshold - u  # points still needed (0 once reached)
    z = (par_left - need[None, :]) / p.bonus_scale + p.bonus_shift
    chance = 1.0 / (1.0 + np.exp(-z))
    chance = np.where(upper_open, chance, 0.0)
    chance[:, rules.upper_threshold :] = 0.0  # reached: already counted
    return rules.upper_bonus * chance


def _fill_by_rows(values, rules: RuleSet, p, open_value, par_left, upper_open, n_open) -> None:
    """Six dice: ``values`` (2**20 cards x 76 totals, 638 MB) filled without a temporary of its
    size.  A card's bonus row depends on the worth of its open upper boxes only (710 distinct
    worths on Maxi Yatzy's card): those rows are made once -- each entry the same arithmetic as
    five dice' -- and every card's row is its open boxes' worth plus its bonus row, a block of
    cards at a time."""
    rows = np.zeros((1, rules.upper_cap + 1))
    which = np.zeros(len(open_value), dtype=np.int64)
    if rules.has_upper_bonus:
        key = np.where(upper_open, par_left, -1.0)  # -1: no upper box open (no bonus to come)
        worths, which = np.unique(key, return_inverse=True)
        rows = _bonus_worth(rules, p, worths[:, None], (worths >= 0.0)[:, None])
    step = 1 << 11  # 1.2 MB of rows at a time: in the cache
    for lo in range(0, len(open_value), step):
        part = slice(lo, lo + step)
        for f in range(rules.n_flags):
            out = values[part, :, f]
            np.take(rows, which[part], axis=0, out=out)
            out += (open_value[part] + f * p.five_kind_bonus_per_turn * n_open[part])[:, None]
    values[rules.full_mask] = 0.0
    return values


def heuristic_table(rules: RuleSet | str | None = None, params: HeuristicParams | None = None):
    """The heuristic evaluation wrapped as a :class:`~solver.engine.tables.Table` (for an Advisor);
    the derived one is made once per rule set (a few recent ones are kept)."""
    rules = get_rules(rules)
    if params is None:
        return _derived_heuristic_table(rules)
    return _heuristic_table(rules, params)


@lru_cache(maxsize=4)
def _derived_heuristic_table(rules: RuleSet):
    return _heuristic_table(rules, None)


def _heuristic_table(rules: RuleSet, params: HeuristicParams | None):
    from ..engine.tables import Table

    if rules.n_dice == 5:
        values = heuristic_values(rules, params)
        values.setflags(write=False)
    else:  # six dice: entries on demand (a game reads a few hundred a turn), the 638 MB when asked
        values = HeuristicValues(rules, params)
    return Table(rules, values, {"source": "heuristic"}, Path(f"<heuristic {rules.id}>"))


class HeuristicValues:
    """The six-dice heuristic table ``values[mask, u, f]`` (:func:`heuristic_values`), one entry at a
    time without making the table: what a game's computer reads (a few hundred entries a turn),
    where the dense table is 2**20 cards x 76 totals (638 MB, some seconds).  Each entry is the
    dense table's, bit for bit: the same sums in the same order, the bonus rows from the same
    numpy arithmetic.  ``numpy.asarray`` of it is the dense table (made once, for the kernels)."""

    def __init__(self, rules: RuleSet, params: HeuristicParams | None = None) -> None:
        self.rules = rules
        self.params = params or heuristic_params(rules)
        n = rules.n_boxes
        self.shape = (1 << n, rules.upper_cap + 1, rules.n_flags)
        self._worth = [(0.0, *self.params.box_values[name]) for name in rules.box_names]
        self._upper = [b for b, box in enumerate(rules.boxes) if box.is_upper]
        self._cards: dict[int, tuple[float, tuple[float, ...] | None, int]] = {}
        self._rows: dict[tuple[float, bool], tuple[float, ...]] = {}
        self._dense: np.ndarray | None = None

    def _card(self, mask: int) -> tuple[float, tuple[float, ...] | None, int]:
        """``(open boxes' worth, bonus row or None, open boxes)`` of card ``mask``."""
        found = self._cards.get(mask)
        if found is not None:
            return found
        n_open = sum(1 for b in range(self.rules.n_boxes) if not mask >> b & 1)
        open_value = 0.0
        for b, worth in enumerate(self._worth):  # in box order, as heuristic_values sums them
            open_value += 0.0 if mask >> b & 1 else worth[n_open]
        row = None
        if self.rules.has_upper_bonus:
            par_left, upper_open = 0.0, False
            for b in self._upper:
                par_left += 0.0 if mask >> b & 1 else self._worth[b][n_open]
                upper_open |= not mask >> b & 1
            key = (par_left, upper_open)
            row = self._rows.get(key)
            if row is None:
                worth = np.array([[par_left if upper_open else -1.0]])
                row = self._rows[key] = tuple(
                    _bonus_worth(self.rules, self.params, worth, worth >= 0.0)[0].tolist()
                )
        found = self._cards[mask] = (open_value, row, n_open)
        return found

    def __getitem__(self, index) -> float:
        mask, u, f = (int(i) for i in index)
        if not (0 <= mask < self.shape[0] and 0 <= u < self.shape[1] and 0 <= f < self.shape[2]):
            raise IndexError(f"index {index} is out of bounds for shape {self.shape}")
        if mask == self.rules.full_mask:
            return 0.0
        open_value, row, n_open = self._card(mask)
        extra = open_value + f * self.params.five_kind_bonus_per_turn * n_open
        return (0.0 if row is None else row[u]) + extra  # as the dense table: the row, then the rest

    def __array__(self, dtype=None, copy=None):
        if self._dense is None:
            dense = heuristic_values(self.rules, self.params)
            dense.setflags(write=False)
            self._dense = dense
        return self._dense if dtype is None else self._dense.astype(dtype, copy=False)


def greedy_table(rules: RuleSet | str | None = None):
    """All zeros: a card is worth nothing beyond this turn (the greedy bot's evaluation)."""
    from ..engine.tables import Table

    rules = get_rules(rules)
    values = np.zeros((1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags))
    values.setflags(write=False)
    return Table(rules, values, {"source": "greedy"}, Path(f"<greedy {rules.id}>"))


# --- registry -------------------------------------------------------------

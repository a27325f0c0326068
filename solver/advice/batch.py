"""Batch advice: many positions at once, and JSON lines in and out.

:func:`advise_many` gives what :meth:`solver.advice.advisor.Advisor.advise` gives for each
position -- the same options in the same order, and today the same floats bit for
bit (the advisor's plain-Python recursion does the kernel's arithmetic in the
kernel's order; the tests ask for 1e-9) -- at tens of thousands of positions per second:

1. positions are grouped by rule set; cards are read into arrays (filled mask,
   capped upper total, Yahtzee flag, points on the card);
2. positions with rolls left: their distinct card states are sorted by mask and
   each mask's states go through one call of :func:`solver.engine.kernels.turn_tables`
   (one "lane" per state), which gives ``e0``/``e1`` -- the value of every keep
   with one / two rolls left.  A position's options are the sub-keeps of its roll
   (``dice.SUBKEEPS``, keeping all five = stop and score) valued from the table of
   its rolls left;
3. positions with no rolls left: every legal box is valued straight from the
   value table (score + upper bonus if reached + ``V[next state]`` + Yahtzee
   bonus), vectorised; only Joker rolls ask :meth:`RuleSet.placements` one by one;
4. options are ranked with a stable sort (ties in the advisor's order).

The results are lazy: each :class:`~solver.advice.advisor.Advice` builds its
:class:`~solver.advice.advisor.Option` objects on first use (``Advice.deferred``), and
:func:`advise_json_lines` writes JSON straight from the arrays.

Small batches (few card states) skip numba, whose start-up (about a second) costs
more than the plain-Python turn recursion of :class:`~solver.advice.advisor.TurnValues`
for a few hundred states; the two agree bit for bit.
"""

from __future__ import annotations

import itertools
import json
import math
import queue
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..core import dice as D
from ..core.card import ScoreCard
from ..core.dice import Dice
from ..core.errors import SolverError, TableError, UsageError
from ..core.position import Position
from ..core.rules import RuleSet, get_rules
from ..core.triple_card import parse_card
from ..engine.card_arrays import card_totals
from ..engine.dp import kernel_values, rule_arrays
from ..engine.tables import Table
from ..engine.turn import TIE_TOLERANCE, TurnValues, objective, regret_of, stop_placement
from . import load_advisor
from .advisor import ADVICE_FIELDS, OPTION_VALUES, Advice, Advisor, Option, checked_advice, option_head

#: Below this many distinct card states (with rolls left) a batch uses the plain-Python turn
#: recursion instead of importing numba (about 0.5 ms a state against about 1 s of start-up).
PYTHON_STATES = 1000
#: With fewer lanes (card states) than this a mask on average, the keeps' tables of a batch are
#: computed many masks to a block of vectors, not mask by mask
PACK_LANES = 8
#: Positions ranked in one pass (bounds the temporary arrays: about 400 bytes a position).
CHUNK = 1 << 18
#: JSON lines read before a pass of :func:`advise_json_lines`.
JSON_CHUNK = 1 << 15

_MAX_KEEPS = D.SUBKEEPS.shape[1]  # 32 distinct sub-keeps at most


def _reversed_subkeeps() -> tuple[np.ndarray, np.ndarray]:
    """(252, 32) the advisor's raw keep order (``SUBKEEPS`` reversed), padded with 0; valid mask."""
    keeps = np.zeros((D.N_ROLLS, _MAX_KEEPS), dtype=np.int64)
    valid = np.zeros((D.N_ROLLS, _MAX_KEEPS), dtype=bool)
    for r in range(D.N_ROLLS):
        n = int(D.N_SUBKEEPS[r])
        keeps[r, :n] = D.SUBKEEPS[r, :n][::-1]
        valid[r, :n] = True
    return keeps, valid


_RAW_KEEPS, _RAW_VALID = _reversed_subkeeps()
_ROLL_INDEX = {roll: r for r, roll in enumerate(D.ROLLS)}


def card_states(rules: RuleSet, scores: np.ndarray, bonus_count: np.ndarray):
    """The table states of many cards: ``scores`` (n, n_boxes) each box's score, -1 when open;
    ``bonus_count`` (n,) the Yahtzee bonuses earned.  Returns (n,) int64 arrays ``mask`` (the
    filled boxes), ``u`` (the upper total, capped), ``f`` (a five-of-a-kind row holds 50) and
    ``base`` (the card's total, bonuses included) -- what :class:`ScoreCard` says one by one."""
    scores = np.asarray(scores, dtype=np.int64)
    filled = scores >= 0
    scores = np.where(filled, scores, 0)
    mask = (filled.astype(np.int64) << np.arange(rules.n_boxes, dtype=np.int64)).sum(axis=1)
    total, upper, _ = card_totals(rule_arrays(rules), scores, bonus_count)
    u = np.minimum(upper, rules.upper_cap)
    if rules.n_flags == 2:  # a five-of-a-kind row holds 50
        rows = list(rules.five_kind_rows)
        f = (filled[:, rows] & (scores[:, rows] == 50)).any(axis=1).astype(np.int64)
    else:
        f = np.zeros(len(scores), dtype=np.int64)
    return mask, u, f, total


@dataclass(frozen=True)
class KeepTables:
    """The turn tables of some card states (:meth:`BatchAdvisor.keep_tables`): ``e0``, ``e1``
    (lanes, 462) float64 each keep's value with one and two rolls left in each distinct state (a
    "lane", the states sorted), ``lane`` (n,) each position's; ``kernels``: made in the kernels
    (then ranked there too), else in plain Python."""

    e0: np.ndarray
    e1: np.ndarray
    lane: np.ndarray
    kernels: bool

    def rows(self, rows) -> KeepTables:
        """The tables of positions ``rows`` of these."""
        return KeepTables(self.e0, self.e1, self.lane[rows], self.kernels)

    def raw_keep_values(self, roll, rolls_left) -> tuple[np.ndarray, np.ndarray]:
        """``(ev, keeps)`` (n, 32) each: the keeps of each position (rolls ``roll``, ``rolls_left``
        1 or 2) in their raw order, and their values (``-inf`` on the padding) -- in numpy."""
        lane, raw = self.lane[:, None], _RAW_KEEPS[roll]
        ev = np.where((rolls_left == 2)[:, None], self.e1[lane, raw], self.e0[lane, raw])
        ev[~_RAW_VALID[roll]] = -np.inf
        return ev, raw


class BatchAdvisor:
    """Ranks many positions of one rule set at once (see the module docstring)."""

    #: batches with fewer card states than this take the plain-Python path (:data:`PYTHON_STATES`);
    #: 0 for a caller that runs the kernels anyway (their start-up is paid once)
    python_states = PYTHON_STATES

    def __init__(self, table: Table):
        self.table = table
        self.rules: RuleSet = table.rules
        self.values = kernel_values(table.values)
        self._advisor = Advisor(table)  # for the direction of an order=choose game

    @classmethod
    def load(
        cls, rules=None, tables_dir=None, *, build_if_missing: bool = True, progress: bool = True
    ) -> BatchAdvisor:
        from ..engine.tables import get_table

        return cls(get_table(rules, tables_dir, build_if_missing=build_if_missing, progress=progress))

    def advise_many(self, positions: Iterable[Position]) -> list[Advice]:
        """Advice for every position (all of this advisor's rule set), in order."""
        positions = list(positions)
        out: list[Advice] = []
        for start in range(0, len(positions), CHUNK):
            out.extend(self.rank(positions[start : start + CHUNK]).advice())
        return out

    def rank(self, positions: list[Position]) -> Ranked:
        """The ranked options of ``positions`` as arrays (see :class:`Ranked`)."""
        rules = self.rules
        for p in positions:
            if not isinstance(p, Position):
                raise TypeError(f"expected a Position, got {p!r}")
            if p.card.rules is not rules and p.card.rules != rules:
                raise UsageError(f"this advisor plays {rules.id}, the position is {p.rules.id}")
        if not positions:
            ranked = Ranked(rules, positions)
            ranked.values, ranked.turn_rules = self.values, self._turn_rules
            return ranked
        cards = [p.card for p in positions]
        scores = np.array([c.scores for c in cards], dtype=np.float64).reshape(len(cards), rules.n_boxes)
        scores = np.where(np.isnan(scores), -1.0, scores).astype(np.int64)
        bonus_count = np.fromiter((c.yahtzee_bonus_count for c in cards), np.int64, len(cards))
        mask, u, f, base = card_states(rules, scores, bonus_count)
        roll = np.fromiter((_ROLL_INDEX[p.dice.values] for p in positions), np.int64, len(positions))
        rolls_left = np.fromiter((p.rolls_left for p in positions), np.int64, len(positions))
        return self.rank_states(mask, u, f, roll, rolls_left, base, positions)

    def rank_states(
        self,
        mask,
        u,
        f,
        roll,
        rolls_left,
        base,
        positions: list[Position] | None = None,
        tables: KeepTables | None = None,
    ) -> Ranked:
        """The ranked options of positions given as arrays (n,) each: the card states
        (:func:`card_states`), the roll index (``Dice.index``), rolls left and the points on the
        card.  Without ``positions`` the result has the arrays only (no :meth:`Ranked.to_json`).
        ``tables``: the positions' turn tables (:meth:`keep_tables`), when the caller has them."""
        rules = self.rules
        ranked = Ranked(rules, positions if positions is not None else [None] * len(mask))
        ranked.values, ranked.turn_rules = self.values, self._turn_rules
        ranked.base = np.asarray(base, dtype=np.float64)
        ranked.rolls_left = rolls_left = np.asarray(rolls_left, dtype=np.int64)
        ranked.row = np.zeros(len(rolls_left), dtype=np.int64)
        keep_rows = np.flatnonzero(rolls_left > 0)
        place_rows = np.flatnonzero(rolls_left == 0)
        ranked.row[keep_rows] = np.arange(len(keep_rows))
        ranked.row[place_rows] = np.arange(len(place_rows))
        if len(keep_rows):
            k = keep_rows
            ranked.keep_ev, ranked.keep_id, ranked.keep_n = self._rank_keeps(
                mask[k], u[k], f[k], roll[k], rolls_left[k], None if tables is None else tables.rows(k)
            )
        if len(place_rows):
            k = place_rows
            filled = (mask[k, None] >> np.arange(rules.n_boxes, dtype=np.int64)) & 1 == 1
            ranked.place_ev, ranked.place_box, ranked.place_score, ranked.place_n, ranked.place_bonus = (
                self._rank_placements(mask[k], u[k], f[k], roll[k], filled)
            )
        return ranked

    # --- with rolls left: keeps ------------------------------------------------
    def keep_tables(self, mask, u, f) -> KeepTables:
        """The turn tables of the card states ``(mask, u, f)`` ((n,) int64 each, :func:`card_states`)
        for :meth:`rank_states`: the positions of a turn share them whatever their dice and rolls
        left.  Holds 7.4 KB a distinct state (a caller bounds the states)."""
        lanes, lane = np.unique(self._lane_key(mask, u, f), return_inverse=True)
        return self._tables_of_lanes(lanes, lane.reshape(-1), len(lanes) >= self.python_states)

    def _lane_key(self, mask, u, f):
        """(n,) each card state as one int64, sorting by mask first (the lanes' order)."""
        return (mask * (self.rules.upper_cap + 1) + u) * 2 + f

    def _tables_of_lanes(self, lanes, lane, kernels: bool) -> KeepTables:
        """:class:`KeepTables` of the sorted distinct lane keys ``lanes``, ``lane`` (n,) each
        position's, in the kernels or (``kernels`` false) in plain Python."""
        cap = self.rules.upper_cap
        lane_mask, rest = np.divmod(lanes, 2 * (cap + 1))
        lane_u, lane_f = np.divmod(rest, 2)
        n_lanes = len(lanes)
        e0, e1 = np.empty((n_lanes, D.N_KEEPS)), np.empty((n_lanes, D.N_KEEPS))
        # masks of a few lanes each (a bot's games): packed into blocks of vectors
        # (:func:`solver.engine.kernels.lane_turn_tables`, as the graders pack them); many lanes
        # a mask (the spread sampler's 32 cards a mask): one call per mask does better. Both give
        # the same values. (The empty card of order=choose is played by its own rules: per mask.)
        group_lane = np.flatnonzero(np.r_[True, lane_mask[1:] != lane_mask[:-1], True])
        few = n_lanes < PACK_LANES * (len(group_lane) - 1)
        if kernels and few and self.rules.order != "choose":
            from ..engine.options import lane_turn_tables

            lane_turn_tables(self.rules, self.values, lane_mask, lane_u, lane_f, e0, e1)
        else:
            evaluate = self._kernel_evaluator() if kernels else self._python_evaluator
            for g in range(len(group_lane) - 1):
                a, b = group_lane[g], group_lane[g + 1]
                e = np.empty((2, D.N_KEEPS, b - a))
                evaluate(int(lane_mask[a]), lane_u[a:b], lane_f[a:b], e)
                e0[a:b], e1[a:b] = e[0].T, e[1].T
        return KeepTables(e0, e1, lane, kernels)

    def _rank_keeps(self, mask, u, f, roll, rolls_left, tables: KeepTables | None):
        """``(ev, keep, n)``: (n, 32) each position's keeps' values best first (``-inf`` padding),
        (n, 32) int16 the keeps, (n,) how many -- from ``tables`` (:meth:`keep_tables`) or, without,
        from tables of :data:`~solver.engine.playout.LANE_BUDGET` states at a time."""
        from ..engine.playout import LANE_BUDGET

        n = len(mask)
        ev, keeps = np.empty((n, _MAX_KEEPS)), np.empty((n, _MAX_KEEPS), dtype=np.int16)
        if tables is not None:
            self._ranked_keeps(tables, roll, rolls_left, np.arange(n), ev, keeps)
        else:
            key = self._lane_key(mask, u, f)
            order = np.argsort(key, kind="stable")
            # the distinct keys of the sorted ones, where each run starts, each position's run
            # (np.unique's answers, without sorting again)
            sorted_key = key[order]
            starts = np.ones(n, dtype=bool)
            starts[1:] = sorted_key[1:] != sorted_key[:-1]
            first = np.r_[np.flatnonzero(starts), n]
            lanes, lane_of = sorted_key[first[:-1]], np.cumsum(starts) - 1
            kernels = len(lanes) >= self.python_states
            for l0 in range(0, len(lanes), LANE_BUDGET):
                l1 = min(l0 + LANE_BUDGET, len(lanes))
                p0, p1 = first[l0], first[l1]
                part = self._tables_of_lanes(lanes[l0:l1], lane_of[p0:p1] - l0, kernels)
                rows = order[p0:p1]
                self._ranked_keeps(part, roll[rows], rolls_left[rows], rows, ev, keeps)
        # all-rolls: stopping (ranked last, -inf) is no option
        return ev, keeps, D.N_SUBKEEPS[roll] - int(self.rules.all_rolls)

    @staticmethod
    def _ranked_keeps(tables: KeepTables, roll, rolls_left, rows, ev, keeps) -> None:
        """Rows ``rows`` of ``ev``/``keeps`` (:meth:`_rank_keeps`): the keeps of the positions of
        ``tables`` (rolls ``roll``, ``rolls_left`` 1 or 2), ranked by their values."""
        if tables.kernels:  # the same order as the stable argsort below, a third of its time
            from ..engine.options import rank_keeps

            rank_keeps(
                tables.e0, tables.e1, tables.lane, roll, rolls_left, _RAW_KEEPS, D.N_SUBKEEPS, rows, ev, keeps
            )
            return
        raw_ev, raw = tables.raw_keep_values(roll, rolls_left)
        rank = np.argsort(-raw_ev, axis=1, kind="stable")
        ev[rows] = np.take_along_axis(raw_ev, rank, axis=1)
        keeps[rows] = np.take_along_axis(raw, rank, axis=1)

    def best_keeps(self, roll, rolls_left, tables: KeepTables) -> np.ndarray:
        """(n,) int64 the keep a table bot makes in each position of ``tables`` (rolls ``roll``,
        ``rolls_left`` 1 or 2): among the keeps within :data:`TIE_TOLERANCE` of the best, the
        one with the most dice (the largest keep index) -- the first keep of
        :meth:`rank_states` that ranking by these tables would put there, without the ranking."""
        if tables.kernels:
            from ..engine.options import best_keeps

            return best_keeps(
                tables.e0, tables.e1, tables.lane, roll, rolls_left, _RAW_KEEPS, D.N_SUBKEEPS, TIE_TOLERANCE
            )
        ev, raw = tables.raw_keep_values(roll, rolls_left)
        return np.where(ev.max(axis=1)[:, None] - ev <= TIE_TOLERANCE, raw, -1).max(axis=1)

    def _turn_rules(self, mask: int) -> RuleSet:
        """The rules a turn from ``mask`` is played by: under ``order=choose`` the empty card
        is played in the direction optimal play picks (:meth:`Advisor.direction`)."""
        if self.rules.order == "choose" and mask == 0:
            return self.rules.directed(self._advisor.direction())
        return self.rules

    def _python_evaluator(self, mask: int, lane_u: np.ndarray, lane_f: np.ndarray, e: np.ndarray) -> None:
        rules = self._turn_rules(mask)
        for j, (u, f) in enumerate(zip(lane_u.tolist(), lane_f.tolist(), strict=True)):
            tv = TurnValues(rules, (mask, u, f), self.values)
            e[0, :, j] = tv.e0
            e[1, :, j] = tv.e1

    def _kernel_evaluator(self):
        from ..engine import dp
        from ..engine.options import mask_turn_tables

        values = self.values
        # the rule arrays once (hashing a rule set for the cache costs more than a small kernel
        # call); only the empty card of order=choose plays by other rules (the direction's)
        ra = dp.rule_arrays(self.rules)

        def evaluate(mask, lane_u, lane_f, e):
            rules = dp.rule_arrays(self._turn_rules(mask)) if mask == 0 else ra
            mask_turn_tables(rules, values, mask, lane_u, lane_f, e)

        return evaluate

    # --- no rolls left: boxes ----------------------------------------------------
    def best_placements(self, mask, u, f, roll) -> tuple[np.ndarray, np.ndarray]:
        """(n,) each position's best box with no rolls left and its score (ties: the first in
        card order, as the ranking puts it first): the box that stopping implies."""
        ev, score, _ = self._placement_values(mask, u, f, roll)
        box = ev.argmax(axis=1)  # the first of equal values
        return box, score[np.arange(len(box)), box]

    def _rank_placements(self, mask, u, f, roll, filled):
        """Every legal box of each position, valued by the rules' step (:meth:`RuleSet.step`, or
        its kernel twin for large batches) and ranked."""
        ev, score, bonus = self._placement_values(mask, u, f, roll)
        legal = ev > -np.inf
        rank = np.argsort(-ev, axis=1, kind="stable")
        return (
            np.take_along_axis(ev, rank, axis=1),
            rank.astype(np.int16),
            np.take_along_axis(score, rank, axis=1),
            legal.sum(axis=1),
            bonus,
        )

    def _placement_values(self, mask, u, f, roll):
        """(n, n_boxes) each box's value (-inf where the roll may not go), (n, n_boxes) its
        score and (n,) the roll's Yahtzee bonus."""
        rules = self.rules
        n, nb = len(mask), rules.n_boxes
        if n >= self.python_states:
            from ..engine.options import placement_values

            return placement_values(rules, self.values, mask, u, f, roll)
        ev = np.empty((n, nb))
        score = np.empty((n, nb), dtype=np.int64)
        bonus = np.empty(n, dtype=np.int64)
        ev.fill(-np.inf)
        score.fill(-1)
        values = self.values
        for i, (m, uu, ff, r) in enumerate(
            zip(mask.tolist(), u.tolist(), f.tolist(), roll.tolist(), strict=True)
        ):
            bonus[i] = 0
            for b, s, extra in rules.placements(m, D.KEEP_FACE_COUNTS[D.ROLL_OFFSET + r], bool(ff)):
                points, nxt = rules.step((m, uu, ff), b, s)
                ev[i, b] = objective(points, float(values[nxt])) + extra
                score[i, b] = s
                bonus[i] = extra
        return ev, score, bonus


class Ranked:
    """Ranked options of a list of positions of one rule set, as arrays.

    Position ``i`` has row ``row[i]`` in the keep arrays (rolls left) or in the
    placement arrays (no rolls left); each row holds its options best first:
    ``*_ev`` (expected points still to come), ``keep_id`` (keep index, see
    :mod:`solver.core.dice`) or ``place_box``/``place_score``, and ``*_n`` options.
    """

    def __init__(self, rules: RuleSet, positions: list[Position]):
        self.rules = rules
        self.positions = positions
        self.base = self.rolls_left = self.row = None  # (n,): points on the card, rolls left, row
        self.keep_ev = self.keep_id = self.keep_n = None  # (rows, 32), (rows, 32), (rows,)
        self.place_ev = self.place_box = self.place_score = None  # (rows, n_boxes) each
        self.place_n = self.place_bonus = None  # (rows,): options, Yahtzee bonus of the roll
        self.values = self.turn_rules = None  # for the box that stopping implies (the keep-all option)

    def __len__(self) -> int:
        return len(self.positions)

    def _lists(self):
        lists = self.__dict__.get("_py")
        if lists is None:  # per-position scalars as Python lists: cheaper than numpy scalars one by one
            lists = self._py = (self.row.tolist(), self.rolls_left.tolist(), self.base.tolist())
        return lists

    def _row(self, i: int, limit: int | None = None):
        """(evs, base, labels, scores or None, bonus) of position ``i``, at most ``limit`` options."""
        rows, rolls, bases = self._lists()
        j = rows[i]
        if rolls[i] > 0:
            n = int(self.keep_n[j]) if limit is None else limit
            row = self.keep_ev[j, :n].tolist(), bases[i], self.keep_id[j, :n].tolist(), None, 0
        else:
            n = int(self.place_n[j]) if limit is None else limit
            row = (
                self.place_ev[j, :n].tolist(),
                bases[i],
                self.place_box[j, :n].tolist(),
                self.place_score[j, :n].tolist(),
                int(self.place_bonus[j]),
            )
        evs = row[0]
        # ranked best first with NaN last: a value that is not finite shows at one end
        if not evs or not (math.isfinite(evs[0]) and math.isfinite(evs[-1])):
            bad = next((x for x in evs if not math.isfinite(x)), None)
            raise TableError(
                f"the {self.rules.id} table gives {bad} for {self.positions[i]}: it is damaged",
                rules=self.rules,
                kind="values",
                fix="rebuild",
            )
        return row

    def options(self, i: int, limit: int | None = None) -> tuple[Option, ...]:
        """The :class:`Option` objects of position ``i``, best first (what the advisor gives)."""
        evs, base, labels, scores, bonus = self._row(i, limit)
        if scores is None:
            keeps = D.KEEPS
            return Option._ranked(evs, base, keeps=[keeps[k] for k in labels], stop=self.stop(i))
        names = self.rules.box_names
        return Option._ranked(evs, base, categories=[names[b] for b in labels], scores=scores, bonus=bonus)

    def stop(self, i: int) -> tuple[str, int] | None:
        """The ``(category, score)`` that keeping all five dice of position ``i`` implies."""
        p = self.positions[i]
        if self.values is None or p.rolls_left == 0 or self.rules.all_rolls:
            return None
        state = p.card.state
        return stop_placement(self.rules, self.turn_rules(state[0]), state, p.dice, self.values)

    def best(self, i: int) -> Option:
        """The best option of position ``i`` (the first of :meth:`options`)."""
        return self.options(i, 1)[0]

    def advice(self) -> list[Advice]:
        """One deferred :class:`Advice` per position (options built on first use)."""
        deferred, options, best = Advice.deferred, self.options, self.best
        return [deferred(p, partial(options, i), partial(best, i)) for i, p in enumerate(self.positions)]

    def to_json(self, i: int) -> dict:
        """``Advice.to_json()`` of position ``i`` (its options made from the arrays)."""
        return Advice(self.positions[i], self.options(i)).to_json()

    def json_line(self, i: int) -> str:
        """``json.dumps(self.to_json(i))``, written straight from the arrays (about three times
        faster): the schema's keys (:data:`~solver.advice.advisor.ADVICE_FIELDS`,
        :data:`~solver.advice.advisor.OPTION_VALUES`) and options' heads
        (:func:`~solver.advice.advisor.option_head`) turned into text once each."""
        p = self.positions[i]
        evs, base, labels, scores, bonus = self._row(i)
        if scores is None:
            heads = [_KEEP_HEADS[k] for k in labels]
            stop = self.stop(i)
            if stop is not None:  # the keep-all option names the box it implies
                k = D.ROLL_OFFSET + p.dice.index
                stop_head = _stop_head(k, stop)
                heads = [h if label != k else stop_head for h, label in zip(heads, labels, strict=True)]
            decision = "keep"
        else:
            heads = [self._box_head(b, score, bonus) for b, score in zip(labels, scores, strict=True)]
            decision = "score"
        best_ev = evs[0]
        options = []
        k_ev, k_final, k_regret, k_best = _OPTION_KEYS
        for head, ev in zip(heads, evs, strict=True):
            regret = regret_of(best_ev, ev)
            options.append(
                f"{head}{k_ev}{_json9(ev)}, {k_final}{_json9(base + ev)}, {k_regret}{_json9(regret)}, "
                f"{k_best}{'true' if regret == 0.0 else 'false'}}}"
            )
        k_rules, k_card, k_dice, k_rolls, k_decision = _ADVICE_KEYS
        return (
            f'{{{k_rules}{_quote(self.rules.id)}, {k_card}{_quote(str(p.card))}, {k_dice}"{p.dice}", '
            f'{k_rolls}{p.rolls_left}, {k_decision}"{decision}", "options": [{", ".join(options)}]}}'
        )

    def _box_head(self, box: int, score: int, bonus: int) -> str:
        key = (self.rules.id, box, score, bonus)
        head = _BOX_HEADS.get(key)
        if head is None:
            head = _BOX_HEADS[key] = _head(
                option_head(category=self.rules.box_names[box], score=score, bonus=bonus)
            )
        return head


def _json9(x: float) -> str:
    """``json.dumps(round(x, 9))`` (:func:`~solver.advice.advisor.option_values`' rounding), with
    one decimal conversion instead of two.

    ``round(x, 9)`` is the double nearest to the correctly rounded 9-decimal string of
    ``x``, the string ``f"{x:.9f}"`` (both are David Gay's dtoa in mode 3); with at most
    15 significant digits (``x < 1e5``) that string, less its trailing zeros, is the
    shortest one naming that double, i.e. its repr -- unless repr switches to exponent
    notation (below 1e-4), where the slow way is taken.
    """
    if 1e-4 <= x < 1e5:
        text = f"{x:.9f}".rstrip("0")
        return text + "0" if text[-1] == "." else text
    return "0.0" if x == 0.0 else repr(round(x, 9))


def _head(fields: dict) -> str:
    """An option's head fields as the start of its JSON object: ``{"keep": [3, 3], ``."""
    return json.dumps(fields)[:-1] + ", "


def _stop_head(keep: int, stop: tuple[str, int]) -> str:
    """The head of the keep-all option ``keep`` (a keep index) that implies box ``stop``."""
    head = _STOP_HEADS.get((keep, stop))
    if head is None:
        if len(_STOP_HEADS) > 100_000:
            _STOP_HEADS.clear()
        head = _STOP_HEADS[keep, stop] = _head(option_head(D.KEEPS[keep], stop=stop))
    return head


_quote = json.encoder.encode_basestring_ascii  # what json.dumps uses for str
#: the schema's keys as JSON text, each with its colon: ``"rules": `` ...
_ADVICE_KEYS = tuple(f"{_quote(name)}: " for name in ADVICE_FIELDS)
_OPTION_KEYS = tuple(f"{_quote(name)}: " for name in OPTION_VALUES)
_KEEP_HEADS = [_head(option_head(keep)) for keep in D.KEEPS]
_BOX_HEADS: dict[tuple, str] = {}
_STOP_HEADS: dict[tuple, str] = {}


def advise_many(positions: Iterable[Position], tables_dir=None, *, progress: bool = True) -> list[Advice]:
    """Advice for every position, in order -- the same as ``Advisor.advise`` one by one.

    Positions may mix rule sets; each rule set's table is loaded (built first when
    missing, with a progress bar on stderr unless ``progress`` is false).  The
    returned advice builds its options on first use.
    """
    positions = list(positions)
    by_rules: dict[str, list[int]] = {}
    for i, p in enumerate(positions):
        if not isinstance(p, Position):
            raise TypeError(f"expected a Position, got {p!r}")
        by_rules.setdefault(p.rules.id, []).append(i)
    out: list[Advice | None] = [None] * len(positions)
    for idx in by_rules.values():
        advisor = BatchAdvisor.load(positions[idx[0]].rules, tables_dir, progress=progress)
        for i, advice in zip(idx, advisor.advise_many([positions[i] for i in idx]), strict=True):
            out[i] = advice
    return out  # type: ignore[return-value]


class _Parser:
    """JSON objects to positions, with the cards and dice of a batch parsed once each."""

    def __init__(self, default_rules):
        self.default_rules = default_rules
        self._cards: dict[tuple, ScoreCard] = {}
        self._dice: dict[object, Dice] = {}

    def position(self, obj) -> Position:
        if not isinstance(obj, dict):
            raise ValueError("each line must be a JSON object")
        missing = [k for k in ("dice", "rolls_left") if k not in obj]
        if missing:
            raise ValueError(f"missing field(s): {', '.join(missing)}")
        rules = get_rules(obj.get("rules", self.default_rules))
        card_text = obj.get("card", "")
        key = (rules.id, card_text) if isinstance(card_text, str) or card_text is None else None
        card = self._cards.get(key) if key is not None else None
        if card is None:
            card = parse_card(card_text, rules)
            if key is not None:
                if len(self._cards) > 100_000:
                    self._cards.clear()
                self._cards[key] = card
        dice_text = obj["dice"]
        key = (rules.n_dice, dice_text) if isinstance(dice_text, str) else None
        dice = self._dice.get(key) if key is not None else None
        if dice is None:
            dice = D.dice_class(rules.n_dice).parse(dice_text)
            if key is not None and len(self._dice) < 10_000:
                self._dice[key] = dice
        return Position.parse(card, dice, obj["rolls_left"], rules)


#: The answer to a blank input line (every input line gets exactly one output line).
BLANK_LINE = "blank line"
_BOM = "\ufeff"


def advise_json_lines(
    lines: Iterable[str | bytes], default_rules=None, tables_dir=None, **batching
) -> Iterator[str]:
    """One JSON output line per input line, in order (the ``hint --json`` object).

    ``lines`` are ``str`` or ``bytes`` (UTF-8; see :func:`read_lines`); a trailing
    newline or ``\\r\\n`` and a byte-order mark at the start are ignored.  A line that
    is not a valid position -- blank, not UTF-8, not JSON, a bad position -- gives
    ``{"error": "line N: ..."}`` and the rest go on.  A missing table is built first;
    a corrupt one, or one that gives a value that is not finite, answers
    ``{"error": ...}`` on the lines of its rule set only.  Lines are answered ``chunk``
    at a time (``batching``: ``chunk`` and ``idle`` of :func:`advise_json_batches`).
    """
    for answers in advise_json_batches(lines, default_rules, tables_dir, **batching):
        yield from answers


def read_lines(stream) -> Iterator[bytes]:
    """The lines of a binary stream split at ``\\n`` only (a lone ``\\r`` stays in its line).

    Unlike a text stream's universal newlines this keeps "one input line, one answer"
    true for files and pipes alike.  Reads a line at a time, so a program can write a
    position and wait for its answer.
    """
    yield from iter(stream.readline, b"")


def advise_json_batches(
    lines: Iterable[str | bytes],
    default_rules=None,
    tables_dir=None,
    *,
    chunk: int = JSON_CHUNK,
    idle: float | None = None,
) -> Iterator[list[str]]:
    """:func:`advise_json_lines` a batch at a time: the answers to up to ``chunk`` lines.

    With ``idle`` (seconds), ``lines`` is read by a helper thread and a batch is also
    answered whenever no new line has come for that long -- for a program that writes a
    position and waits for its answer through a pipe.
    """
    parser = _Parser(default_rules)
    advisors: dict[str, BatchAdvisor | SolverError] = {}
    for batch in _line_batches(lines, max(1, chunk), idle):
        yield _answer(batch, parser, advisors, tables_dir)


def _line_batches(lines: Iterable, chunk: int, idle: float | None) -> Iterator[list[tuple[int, object]]]:
    """Numbered lines, ``chunk`` at a time (sooner after ``idle`` seconds without input)."""
    numbered = enumerate(lines, start=1)
    if idle is None:
        while batch := list(itertools.islice(numbered, chunk)):
            yield batch
        return
    inbox: queue.SimpleQueue = queue.SimpleQueue()
    done = object()

    def read() -> None:
        try:
            for item in numbered:
                inbox.put(item)
        except BaseException as exc:  # handed to the consumer, raised there
            inbox.put(exc)
        inbox.put(done)

    threading.Thread(target=read, name="hint-batch-reader", daemon=True).start()
    batch: list[tuple[int, object]] = []
    while True:
        try:
            item = inbox.get(timeout=idle) if batch else inbox.get()
        except queue.Empty:
            yield batch
            batch = []
            continue
        if item is done:
            break
        if isinstance(item, BaseException):
            raise item
        batch.append(item)
        if len(batch) >= chunk:
            yield batch
            batch = []
    if batch:
        yield batch


def _text(n: int, line: str | bytes) -> str:
    """The text of input line ``n``: decoded (UTF-8), without its line end and (line 1) BOM."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not UTF-8 (byte 0x{line[exc.start]:02x} at column {exc.start + 1})") from None
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    if n == 1 and line.startswith(_BOM):
        line = line[1:]
    if not line.strip():
        raise ValueError(BLANK_LINE)
    return line


def _error_line(n: int, message: object) -> str:
    return json.dumps({"error": f"line {n}: {message}"})


def _answer(batch, parser: _Parser, advisors: dict, tables_dir) -> list[str]:
    results: list[str | Position] = []
    numbers: list[int] = []
    by_rules: dict[str, list[int]] = {}
    for n, line in batch:
        numbers.append(n)
        try:
            position = parser.position(json.loads(_text(n, line)))
        except (
            SolverError,
            ValueError,
            RecursionError,
        ) as exc:  # JSONDecodeError is a ValueError; deep nesting
            results.append(_error_line(n, exc))
            continue
        by_rules.setdefault(position.rules.id, []).append(len(results))
        results.append(position)
    for rid, idx in by_rules.items():
        advisor = advisors.get(rid)
        if advisor is None:  # a missing table is built; a corrupt one errors its lines only
            rules = get_rules(rid)
            try:
                advisor = (
                    # the triple card and six dice: the single position's advisor (the six-dice
                    # table read in place, as one hint reads it: no 638 MB unpacked)
                    load_advisor(rid, tables_dir, light=True)
                    if rules.triple or rules.n_dice != D.N_DICE
                    else BatchAdvisor.load(rid, tables_dir)
                )
            except SolverError as exc:
                advisor = exc
            advisors[rid] = advisor
        if isinstance(advisor, SolverError):
            for i in idx:
                results[i] = _error_line(numbers[i], advisor)
            continue
        if not isinstance(advisor, BatchAdvisor):  # the triple card, six dice: a position at a time
            for i in idx:
                try:
                    results[i] = json.dumps(checked_advice(advisor, results[i]).to_json(), allow_nan=False)
                except SolverError as exc:
                    results[i] = _error_line(numbers[i], exc)
            continue
        ranked = advisor.rank([results[i] for i in idx])  # type: ignore[misc]
        for j, i in enumerate(idx):
            try:
                results[i] = ranked.json_line(j)
            except TableError as exc:
                results[i] = _error_line(numbers[i], exc)
    return results  # type: ignore[return-value]

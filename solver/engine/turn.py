"""One turn's values in plain Python: the twin of the kernels' within-turn recursion.

:class:`TurnValues` ranks keeps and boxes of one card state by expected score from a value
table; :class:`TargetTurnValues` by the probability of reaching a target, :class:`WinTurnValues`
by the chance to win against a spread of opponent finals.  No numpy and no numba: a single
``hint`` reads a few hundred table entries and is done (the advisors in :mod:`solver.advice`
rank what these compute).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from ..core import dice as D
from ..core.dice import Dice
from ..core.rules import RuleSet

if TYPE_CHECKING:
    import numpy as np


#: the one tolerance of a tie between two options' values (expected points or probabilities):
#: within it an option counts as best (``best``) and its regret is 0 (:func:`regret_of`)
TIE_TOLERANCE = 1e-9


def regret_of(best: float, value: float) -> float:
    """An option's regret: the best option's value ``best`` minus its ``value``, 0 within
    :data:`TIE_TOLERANCE` (a tie: ``1e-14`` of rounding is no loss, and ``regret == 0`` finds
    every best option)."""
    regret = best - value
    return 0.0 if regret <= TIE_TOLERANCE else regret


ONE_SIXTH = 1.0 / D.N_FACES


class StateValues(Protocol):
    """What a turn reads of a table: ``values[mask, u, f]``, the value of one state (a numpy
    array, or the table store's ``ValueFile`` read without numpy)."""

    def __getitem__(self, state: tuple[int, int, int]) -> float: ...


def objective(points: int, next_value: float) -> float:
    """What a placement is worth: its points plus the value of the state it leads to (the
    twin of :func:`solver.engine.kernels.rules.objective`; a second objective is added here and there)."""
    return points + next_value


class TurnValues:
    """The within-turn values of one card state, as lists of floats.

    ``r0`` (252) -- best placement value of each roll with no rolls left;
    ``e0`` / ``e1`` (462) -- value of holding keep K and rerolling the rest with
    1 / 2 rolls left (for 5-dice keeps: the value of stopping and scoring now,
    ``r0``; -inf under ``all-rolls``, where stopping early is not allowed);
    ``value`` -- the state value before rolling.  All in expected points still to
    come.  ``values`` is a table's ``values``, a numpy array or a
    :class:`~solver.engine.tables.ValueFile`: only single entries ``values[mask, u, f]`` are read.

    The arithmetic is the kernel's, term by term (the six ``E(K + face)`` summed in face
    order, then times ``ONE_SIXTH``; the roll's bonus added last), so ``e0``, ``e1`` and
    ``r0`` are bit-identical to :func:`solver.engine.kernels.turn_tables` and near-ties rank the
    same way on every path.  Placements go through :meth:`RuleSet.placements` and
    :meth:`RuleSet.step`, the rules' plain-Python functions.
    """

    def __init__(self, rules: RuleSet, state: tuple[int, int, int], values: np.ndarray | StateValues):
        self.rules, self.state, self.values = rules, state, values
        stop = not rules.all_rolls
        layer = self.layer = rules.dice
        self.r0 = self._final_roll_values()
        x = [0.0] * layer.roll_offset + self.r0
        average_keeps(x, layer)
        self.e0 = x.copy()
        best_subkeep(x, stop, layer)
        average_keeps(x, layer)
        # keeping all the dice means stopping now, whatever the rolls left
        self.e1 = x[: layer.roll_offset] + self.r0
        if not stop:
            no_stop = [float("-inf")] * layer.n_rolls
            self.e0[layer.roll_offset :] = no_stop
            self.e1[layer.roll_offset :] = no_stop
        self._x = x  # e1 below five dice, R1 on the rolls: what ``value`` needs
        self._stop = stop
        self.stops: dict[int, tuple[str, int] | None] = {}  # roll index -> the box stopping implies

    @cached_property
    def value(self) -> float:
        """``sum_r P(r) R2(r)``: the table's value of this state (up to rounding in the last bits)."""
        x, layer = self._x, self.layer
        best_subkeep(x, self._stop, layer)
        total = 0.0
        for p, v in zip(layer.roll_probs, x[layer.roll_offset :], strict=True):
            total += p * v
        return total

    def placements(self, dice: Dice) -> list[tuple[int, int, int]]:
        """Legal ``(box, score, bonus)`` for a roll in this state (see :meth:`RuleSet.placements`)."""
        mask, _, flag = self.state
        return self.rules.placements(mask, dice.counts, bool(flag))

    def placement_value(self, box: int, score: int, bonus: int) -> float:
        """Points this placement earns now (bonuses included) plus the value of the next state."""
        points, nxt = self.rules.step(self.state, box, score)
        return self._worth(points, nxt, bonus)

    def _worth(self, points: int, nxt: tuple[int, int, int], bonus: int = 0) -> float:
        """What a placement earning ``points`` (and the roll's ``bonus``) and leading to ``nxt``
        is worth: the objective (points + value to come), then the bonus, as the kernel adds them."""
        return objective(points, float(self.values[nxt])) + bonus

    def _final_roll_values(self) -> list[float]:
        rules = self.rules
        mask = self.state[0]
        allowed = rules.allowed_bits(mask)
        columns = []  # per allowed box: the value of placing each roll there
        for b in range(rules.n_boxes):
            if not allowed >> b & 1:
                continue
            cand = {}
            for s in rules.possible_scores[b]:  # each score once (a few more do no harm)
                points, nxt = rules.step(self.state, b, s)
                cand[s] = self._worth(points, nxt)
            columns.append(list(map(cand.__getitem__, rules.scores_by_box[b])))
        if len(columns) > 1:
            best = list(map(max, *columns))
        else:  # one box to fill (or none: a full card, nothing to roll for)
            best = columns[0] if columns else [float("-inf")] * rules.n_rolls
        rows = rules.rows_mask
        if allowed and rows and mask & rows == rows:  # a five of a kind now follows the Joker and bonus rules
            for face in range(1, D.N_FACES + 1):
                roll = Dice((face,) * D.N_DICE)
                best[roll.index] = max(self.placement_value(*p) for p in self.placements(roll))
        return best


class TargetTurnValues(TurnValues):
    """The within-turn values of one card state for target play: the largest probability of
    scoring at least ``need`` more points (``need >= 1``), from a target table
    (:class:`solver.engine.target.TargetTable`); the same recursion as :class:`TurnValues` (the
    twin of :func:`solver.engine.kernels.target_turn_tables`)."""

    def __init__(self, rules: RuleSet, state: tuple[int, int, int], table, need: int):
        self.table, self.need = table, need
        super().__init__(rules, state, None)

    def _worth(self, points: int, nxt: tuple[int, int, int], bonus: int = 0) -> float:
        return self.table.probability(nxt, self.need - points - bonus)


def tie_mixed(q, tie: float = 0.5) -> tuple[list[float], list[float]]:
    """``(qt, qc)``: ``qt[i] = (1 - tie) q[i] + tie q[i - 1]`` for ``i = 0 .. len(q)`` (``q`` 0
    outside) and its prefix sums, in the kernel's order (the twin of
    :func:`solver.engine.kernels.tie_mix`)."""
    qt, qc = [], []
    acc = prev = 0.0
    for cur in [*map(float, q), 0.0]:
        v = (1.0 - tie) * cur + tie * prev
        prev = cur
        qt.append(v)
        acc += v
        qc.append(acc)
    return qt, qc


def mixed_win_value(table, state, need0: int, qt, qc) -> float:
    """``sum_i qt[i] W(state, need0 + i)`` from a target table (``W(t)`` = 1 for ``t <= 0``, 0
    beyond the stored targets), ``(qt, qc)`` from :func:`tie_mixed`: P(win) + ``tie`` P(tie)
    against a best opponent final ``B = b0 + j`` of probability ``q[j]``, ``need0 = b0 -
    total`` (the twin of :func:`solver.engine.kernels.mixed_win_value`, term by term)."""
    off, lead, length = table.span(state)  # checked: a damaged table is a TableError
    m = len(qt)
    c = lead - need0
    acc = qc[min(c, m - 1)] if c >= 0 else 0.0
    i, i2 = max(c + 1, 0), min(length - need0, m - 1)
    if i <= i2:
        a = [0.0, 0.0, 0.0, 0.0]
        while i + 3 <= i2:
            for k in range(4):
                a[k] += qt[i + k] * table.stored(off, need0 + i + k)
            i += 4
        while i <= i2:
            a[0] += qt[i] * table.stored(off, need0 + i)
            i += 1
        acc += (a[0] + a[1]) + (a[2] + a[3])
    return acc


class WinTurnValues(TurnValues):
    """The within-turn values of one card state for playing to win: P(win) + ``tie`` x P(tie)
    against a best opponent final ``B`` of ``b0 + j`` with probability ``q[j]``, this card's
    total ``total``, each ``B`` valued by target play and mixed: ``sum_j q[j] [(1 - tie)
    W(B - total - x) + tie W(B - total - x + 1)]`` for a placement earning ``x`` points and
    leading to state ``nxt``, ``W`` the target table's probabilities.

    Exact when ``B`` is certain (``q = [1]``: the opponents have finished) and this is the
    card's last turn, whose placements end the game; otherwise an approximation (the strategy
    after this turn is the one for each target, ``B`` and ``B + 1`` mixed for the tie, each
    played for separately, so the value is an upper bound of what one strategy achieves).
    :attr:`value` is the turn's own start value; :attr:`start_value` the table's row, mixed.  The twin of
    :func:`solver.engine.kernels.mixed_win_group_tables`, term by term.
    """

    def __init__(self, rules: RuleSet, state, table, total: int, b0: int, q, tie: float = 0.5):
        self.table, self.total, self.b0, self.tie = table, int(total), int(b0), float(tie)
        self.qt, self.qc = tie_mixed(q, self.tie)
        self._memo: dict = {}
        super().__init__(rules, state, None)

    def mixed(self, state, need0: int) -> float:
        """The value of ``state`` at ``need0`` = ``b0`` - total (:func:`mixed_win_value`)."""
        return mixed_win_value(self.table, state, need0, self.qt, self.qc)

    @property
    def start_value(self) -> float:
        """The value at the start of the turn from the table's row (each target's own best
        play, mixed: an upper bound of :attr:`value`)."""
        return self.mixed(self.state, self.b0 - self.total)

    def _worth(self, points: int, nxt: tuple[int, int, int], bonus: int = 0) -> float:
        key = (points + bonus, nxt)
        v = self._memo.get(key)
        if v is None:
            v = self._memo[key] = self.mixed(nxt, self.b0 - self.total - points - bonus)
        return v


def stop_placement(rules: RuleSet, step_rules: RuleSet, state, dice: Dice, values) -> tuple[str, int] | None:
    """The box that stopping now implies: the ``(category, score)`` ranked first with no rolls
    left (placements of ``rules``, valued by ``step_rules``, ties in card order), as
    :meth:`Advisor.advise` ranks them."""
    mask, _, flag = state
    best = None
    for b, score, bonus in rules.placements(mask, dice.counts, bool(flag)):
        points, (m, u, f) = step_rules.step(state, b, score)
        value = objective(points, float(values[m, u, f])) + bonus
        if best is None or value > best[0]:
            best = (value, b, score)
    return None if best is None else (rules.box_names[best[1]], best[2])


def direction_values(rules: RuleSet, values: np.ndarray | StateValues) -> dict[str, float]:
    """Under ``order=choose``: the empty card's value (expected points) in each direction,
    ``{"down": .., "up": ..}``, the direction being chosen before the first roll."""
    return {d: TurnValues(rules.directed(d), (0, 0, 0), values).value for d in ("down", "up")}


def backed_up_value(rules: RuleSet, state: tuple[int, int, int], values: np.ndarray | StateValues) -> float:
    """The value of ``state`` (expected points still to come, the full card excluded) from the
    values of the states after it: one backward step of the DP, in its arithmetic (what a
    genuine table holds at ``state``, up to rounding in the last bits).  Under ``order=choose``
    the empty card takes the better direction, as the build does."""
    if rules.order == "choose" and state[0] == 0:
        return max(direction_values(rules, values).values())
    return TurnValues(rules, state, values).value


def best_direction(rules: RuleSet, values: np.ndarray | StateValues) -> str:
    """Under ``order=choose``: the direction (``down`` or ``up``) optimal play picks before the
    first roll -- the one whose empty card is worth more (ties: ``down``)."""
    worth = direction_values(rules, values)
    return "up" if worth["up"] > worth["down"] + TIE_TOLERANCE else "down"


def average_keeps(x: list[float], layer: D.DiceLayer | None = None) -> None:
    """In place: E(K) = mean over faces of E(K + face), for every keep of fewer than all the dice
    (of ``layer``'s dice: default five).

    The kernel's arithmetic, term by term (faces in order, then times 1/6), so that
    every path gives bit-identical values and ranks near-ties the same way.  ``K + face``
    always has a larger index than ``K``, so one pass downwards sees finished values.
    """
    layer = layer or D.layer()
    plus = layer.keep_plus
    for k in range(layer.roll_offset - 1, -1, -1):
        a, b, c, d, e, f = plus[k]
        x[k] = (x[a] + x[b] + x[c] + x[d] + x[e] + x[f]) * ONE_SIXTH


def best_subkeep(x: list[float], stop: bool = True, layer: D.DiceLayer | None = None) -> None:
    """In place: B(K) = max(x(K), max over faces of K of B(K - face)), keeps in index order.

    ``stop=False`` (``all-rolls``): a roll may not be kept whole, its row is the best of
    its proper sub-multisets only.
    """
    layer = layer or D.layer()
    minus, offset = layer.keep_minus, layer.roll_offset
    for k in range(1, layer.n_keeps):
        best = x[k] if stop or k < offset else float("-inf")
        for j in minus[k]:
            if x[j] > best:
                best = x[j]
        x[k] = best


def check_finite(rules, values, what) -> None:
    """A value that is not finite (NaN, an infinity) comes from a damaged table: one error line,
    never ``NaN`` in the output (it is not JSON) nor a crash in the text layout."""
    import math

    bad = next((x for x in values if not math.isfinite(x)), None)
    if bad is not None or not values:
        from ..core.errors import TableError

        table = rules.single  # the triple card reads its base's table
        raise TableError(
            f"the {table.id} table gives {bad} for {what}: it is damaged",
            rules=table,
            kind="values",
            fix="rebuild",
        )

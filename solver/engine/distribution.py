"""The exact distribution of the final score under expected-score-optimal play.

From a position -- a card at the start of a turn, or a card with dice and rolls left --
probability is pushed forward turn by turn through the states of the game
(:func:`solver.engine.kernels.turn_outcomes`; under target play
:func:`solver.engine.kernels.target_turn_runs`), each state carrying the distribution of the
points scored since the position.  Decisions are the optimal bot's, ties included: among
keeps within ``TIE_TOLERANCE`` of the best, the one keeping most dice (the last sub-keep);
among boxes within it, the first in card order.  So :mod:`solver.play.simulate`'s ``optimal``
bot plays exactly the policy whose distribution this is; with another value table (the
``heuristic``'s, ``greedy``'s: :mod:`solver.engine.heuristic`), exactly that table's bot.

States whose upper total can no longer reach the bonus share one row per mask (their
futures are the same, see :func:`solver.engine.dp.level_lanes`) when the table's values
are the same on them, as a solved table's are (:func:`state_rows`); a table that tells
them apart (the heuristic's estimate of the bonus chance goes on with the upper total)
is played by it, each state on its own row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..core.card import ScoreCard
from ..core.dice import N_DICE
from ..core.rules import RuleSet
from . import arrays as A
from . import dp
from .turn import TIE_TOLERANCE  # the bots' tolerance (one for every tie)

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
DEFAULT_TARGETS = (200, 250, 300, 350, 400)
_COUNT_BASE = 16  # outcome pass: gain = bonuses + 16 * five-of-a-kind rows scored 50


@dataclass(frozen=True)
class Distribution:
    """The distribution of the final score from one position.

    ``pmf[s]`` is P(final score = s) (float64, index = score); ``start_total`` the points
    on the card at the position; ``upper_bonus`` P(the card ends with the upper bonus);
    ``rows_at_50[k]`` P(k five-of-a-kind rows end at 50) and ``bonuses[k]`` P(the card
    ends with k five-of-a-kind bonuses), both counting what is on the card already, when
    the outcome pass ran (else empty).
    """

    rules: RuleSet
    card: str
    policy: str
    start_total: int
    pmf: np.ndarray
    upper_bonus: float | None
    rows_at_50: tuple[float, ...] = field(default=())
    bonuses: tuple[float, ...] = field(default=())

    @property
    def scores(self) -> np.ndarray:
        return np.arange(len(self.pmf))

    @property
    def mean(self) -> float:
        return math.fsum((self.scores * self.pmf).tolist())

    @property
    def sd(self) -> float:
        mean = self.mean
        return math.sqrt(max(0.0, math.fsum(((self.scores - mean) ** 2 * self.pmf).tolist())))

    @property
    def total_probability(self) -> float:
        return math.fsum(self.pmf.tolist())

    def percentile(self, q: float) -> int:
        """The smallest score ``s`` with P(final <= s) >= q / 100."""
        cdf = np.cumsum(self.pmf)
        return int(np.searchsorted(cdf, q / 100.0 * cdf[-1] - 1e-15))

    def p_at_least(self, target: int) -> float:
        if target <= 0:
            return 1.0
        return math.fsum(self.pmf[target:].tolist())

    def to_json(self, targets=DEFAULT_TARGETS) -> dict:
        nonzero = np.flatnonzero(self.pmf)
        out = {
            "rules": self.rules.id,
            "card": self.card,
            "policy": self.policy,
            "mean": self.mean,
            "sd": self.sd,
            "percentiles": {str(q): self.percentile(q) for q in PERCENTILES},
            "p_at_least": {str(t): self.p_at_least(t) for t in targets},
            "upper_bonus": self.upper_bonus,
        }
        if self.rows_at_50:
            out["five_kind_rows_at_50"] = {str(k): p for k, p in enumerate(self.rows_at_50) if p > 0}
            out["five_kind_bonuses"] = {str(k): p for k, p in enumerate(self.bonuses) if p > 0}
        out["pmf"] = {str(int(s)): float(self.pmf[s]) for s in nonzero}
        return out


#: what a distribution's ``policy`` (``distribution --policy``, the web's ``policy``) takes
POLICIES = "ev (expected-score play) or target:T (play for a final score of at least T)"


def parse_policy(text) -> tuple[str, int | None]:
    """``("ev", None)`` or ``("target", T)`` from ``ev`` / ``target:T``; a usage error otherwise."""
    from ..core.bounded import parse_target, shown
    from ..core.errors import UsageError

    if not isinstance(text, str):
        raise UsageError(f"policy must be {POLICIES}, got {shown(text)}")
    word = text.strip().lower()
    if word == "ev":
        return "ev", None
    if word.startswith("target:"):
        return "target", parse_target(word.split(":", 1)[1], f"policy {shown(text)}")
    raise UsageError(f"unknown policy {shown(text)}: use {POLICIES}")


def check_targets(targets, name: str = "each target") -> tuple[int, ...]:
    """The scores asked P(final >= score) of (default :data:`DEFAULT_TARGETS`), each once; a usage
    error naming them ``name`` (what the surface calls them: the CLI's ``--at-least``) otherwise."""
    from ..core.bounded import MAX_TARGET, shown
    from ..core.errors import UsageError

    if targets is None:
        return tuple(DEFAULT_TARGETS)
    out = []
    for t in targets:
        if isinstance(t, bool) or not isinstance(t, int) or t < 1 or t > MAX_TARGET:
            raise UsageError(f"{name} takes scores from 1 to {MAX_TARGET}, got {shown(t)}")
        if t not in out:
            out.append(t)
    return tuple(out)


def check_policy_target(table, card, target: int) -> None:
    """Playing for ``target`` from ``card`` (policy ``target:T``) needs the target ``table`` to
    hold the points still needed: a usage error naming the table's reach otherwise."""
    from ..core.errors import UsageError

    if target - card.total > table.t_max:
        raise UsageError(
            f"target {target} needs {target - card.total} more points; the {card.rules.id} target "
            f"table holds up to {table.t_max}"
        )


def read_position(rules, card, dice, rolls_left, names: tuple[str, str] = ("dice", "rolls left")):
    """``(card, roll, rolls_left)`` of a position: a card alone (the start of a turn: ``roll`` is
    None) or with dice and rolls left, checked by :meth:`solver.advice.advisor.Position.parse`;
    ``names``: what the surface calls the dice and the rolls left (the CLI: its flags)."""
    from ..core.card import ScoreCard
    from ..core.errors import UsageError
    from ..core.position import Position
    from ..core.rules import get_rules

    rules = get_rules(rules)
    if rules.triple:
        raise UsageError("distribution does not take the triple card (ask for one column's rule set)")
    if (dice is None) != (rolls_left is None):
        raise UsageError(f"{names[0]} and {names[1]} go together: give both (a turn under way) or neither")
    if dice is None:
        card, roll, rolls_left = ScoreCard.parse(card or "", rules), None, 2
    else:
        position = Position.parse(card or "", dice, rolls_left, rules)
        card, roll, rolls_left = position.card, position.dice.index, position.rolls_left
    from .open_game import check_fits

    check_fits(card)  # six dice: before a table is read
    return card, roll, rolls_left


def max_points(rules: RuleSet) -> int:
    """More points than any game of ``rules`` can still score (every box's best, every bonus)."""
    k = rules.kernel_arrays
    best = int(np.maximum(k["score"], k["joker_score"]).max(axis=0).sum())
    return best + rules.upper_bonus + rules.bonus * rules.n_boxes


@lru_cache(maxsize=16)
def representative_upper(rules: RuleSet) -> np.ndarray:
    """(2**n_boxes, cap + 1) int64: the upper total whose row a state uses (see the module doc)."""
    rep = np.tile(np.arange(rules.upper_cap + 1, dtype=np.int64), (1 << rules.n_boxes, 1))
    for masks in dp.masks_by_level(rules):
        _, (copy_mask, copy_u, copy_from) = dp.level_lanes(rules, masks)
        rep[copy_mask, copy_u] = copy_from
    return rep


@lru_cache(maxsize=16)
def _own_rows(rules: RuleSet) -> np.ndarray:
    return np.tile(np.arange(rules.upper_cap + 1, dtype=np.int64), (1 << rules.n_boxes, 1))


def state_rows(rules: RuleSet, values) -> np.ndarray:
    """(2**n_boxes, cap + 1) int64: the upper total whose row a state uses under play by the
    table ``values``: :func:`representative_upper` where ``values`` agree with it (every
    hopeless total of a mask holds its representative's values, as a solved table's do bit
    for bit), else every state its own.  Sharing rows where the values differ would play
    the representative's decisions, not the table's: the heuristic bot's expected score on
    ``yahtzee`` came out 0.034 points too high that way."""
    rep = representative_upper(rules)
    mask, upper = np.nonzero(rep != _own_rows(rules))
    values = np.asarray(values)  # NaN where a flag cannot be (no five-of-a-kind row filled)
    if np.array_equal(values[mask, upper], values[mask, rep[mask, upper]], equal_nan=True):
        return rep
    return _own_rows(rules)


def score_distribution(
    card: ScoreCard,
    values,
    *,
    roll: int | None = None,
    rolls_left: int = 2,
    outcomes: bool = True,
    threads: int | None = None,
    progress=None,
    points_at_most: int | None = None,
) -> Distribution:
    """The distribution of the final score from ``card`` under expected-score play with the
    table ``values`` of its rule set.

    ``points_at_most`` T (at least the card's total): every final score above T is counted
    at T, so ``p_at_least(t)`` is exact for ``t <= T`` and nothing else is (the pmf's entry
    T is the tail); the rows are then about T + one turn's points wide, not the most a game
    scores (the target build's check values: half the memory and time).

    ``roll`` (a roll index of :mod:`solver.core.dice`) with ``rolls_left``: the turn has begun
    with those dice.  ``outcomes``: also the upper bonus and five-of-a-kind outcomes
    (pushed through the same turns beside the points).

    Under ``order=choose`` the direction is the one optimal play picks before the first
    roll (:meth:`Advisor.direction`), as the advisor plays the keeps; scoring the first box
    chooses it, so with no rolls left on the empty card, the better end (ties: down), as the
    advisor's best option.
    """
    from ..core.threads import Workers

    rules = card.rules
    if rules.n_dice != N_DICE:
        return _open_game_distribution(card, values, roll, rolls_left, threads, progress, points_at_most)
    table = dp.kernel_values(values)
    count_width = _COUNT_BASE * (len(rules.five_kind_rows) + 1) if outcomes and rules.five_kind_rows else 0
    with Workers(threads) as workers:
        if rules.order == "choose" and card.filled_mask == 0 and roll is not None and rolls_left == 0:
            results = [
                _forward(
                    rules, table, card.state, roll, rolls_left, max_points(rules) + 1, count_width, workers, d
                )
                for d in ("down", "up")
            ]  # no progress: the first box is the last turn
            means = [float((r[1].sum(axis=0) * np.arange(r[1].shape[1])).sum()) for r in results]
            finals, points, counts = results[1] if means[1] > means[0] + TIE_TOLERANCE else results[0]
        else:
            fold = None if points_at_most is None else points_at_most - card.total
            width = (
                max_points(rules) + 1
                if fold is None
                else min(max_points(rules), fold + _turn_points(rules)) + 1
            )
            finals, points, counts = _forward(
                rules, table, card.state, roll, rolls_left, width, count_width, workers,
                progress=progress, fold=fold,
            )  # fmt: skip
    pmf = np.zeros(card.total + points.shape[1])
    pmf[card.total :] = points.sum(axis=0)
    cap, n_flags = rules.upper_cap, rules.n_flags
    upper_bonus = None
    if rules.has_upper_bonus:
        reached = finals // n_flags % (cap + 1) >= rules.upper_threshold
        upper_bonus = math.fsum(points[reached].sum(axis=1).tolist())
    rows_at_50: tuple[float, ...] = ()
    bonuses: tuple[float, ...] = ()
    if counts is not None:
        n_rows = len(rules.five_kind_rows)
        joint = counts.sum(axis=0).reshape(n_rows + 1, _COUNT_BASE)  # [new rows at 50, bonuses]
        already = sum(card.scores[b] == 50 for b in rules.five_kind_rows)
        rows = np.zeros(n_rows + 1)
        rows[already:] = joint.sum(axis=1)[: n_rows + 1 - already]
        rows_at_50 = tuple(rows.tolist())
        counted = np.zeros(card.yahtzee_bonus_count + _COUNT_BASE)
        counted[card.yahtzee_bonus_count :] = joint.sum(axis=0)
        bonuses = tuple(np.trim_zeros(counted, "b").tolist())
    return Distribution(rules, str(card), "ev", card.total, pmf, upper_bonus, rows_at_50, bonuses)


def _open_game_distribution(
    card, values, roll, rolls_left, threads, progress, points_at_most
) -> Distribution:
    """:func:`score_distribution` for six dice: the game of the open boxes
    (:func:`solver.engine.open_game.open_game`), pushed forward from its start over the states
    reachable from ``card`` only; refused (a usage error) when it needs more memory than
    :data:`solver.engine.open_game.SIX_DICE_MEMORY`."""
    from ..core.threads import Workers
    from .open_game import check_fits, open_game, open_table

    check_fits(card)
    rules = card.rules
    sub, start = open_game(card)
    table = dp.kernel_values(open_table(card, sub, values))
    fold = None if points_at_most is None else points_at_most - card.total
    width = max_points(sub) + 1 if fold is None else min(max_points(sub), fold + _turn_points(sub)) + 1
    with Workers(threads) as workers:
        if sub.order == "choose" and roll is not None and rolls_left == 0:  # the first box chooses
            results = [
                _forward(sub, table, start, roll, rolls_left, width, 0, workers, d) for d in ("down", "up")
            ]
            means = [float((r[1].sum(axis=0) * np.arange(r[1].shape[1])).sum()) for r in results]
            finals, points, _ = results[1] if means[1] > means[0] + TIE_TOLERANCE else results[0]
        else:
            finals, points, _ = _forward(
                sub, table, start, roll, rolls_left, width, 0, workers, progress=progress, fold=fold
            )
    pmf = np.zeros(card.total + points.shape[1])
    pmf[card.total :] = points.sum(axis=0)
    upper_bonus = None
    if rules.has_upper_bonus:
        if sub.has_upper_bonus:
            reached = finals // sub.n_flags % (sub.upper_cap + 1) >= rules.upper_threshold
            upper_bonus = math.fsum(points[reached].sum(axis=1).tolist())
        else:
            upper_bonus = 1.0 if card.state[1] >= rules.upper_threshold else 0.0
    return Distribution(rules, str(card), "ev", card.total, pmf, upper_bonus)


def _turn_points(rules) -> int:
    """More points than one turn scores: the best box, the upper bonus and a five-of-a-kind bonus."""
    return max(max(s) for s in rules.scores_by_box) + rules.upper_bonus + rules.bonus


def _forward(
    rules, table, state, roll, rolls_left, width, count_width, workers, direction=None, progress=None,
    fold=None,
):  # fmt: skip
    """Push probability from ``state`` to the full card: ``(final_states, points, counts)`` with
    ``points[i, g]`` = P(ending in flat state ``final_states[i]`` having scored ``g``) and
    ``counts[i, c]`` the same for the outcome counts ``c`` (None when ``count_width`` is 0).
    ``direction``: under ``order=choose``, the one to play from the empty card; ``progress(1)``
    is called as each turn is done; ``fold``: points above it are counted at it, after each turn.

    On the way each state's row is kept packed (:class:`_Rows`): only its points from the
    least to the most it can have scored so far."""
    cap, n_flags = rules.upper_cap, rules.n_flags
    per_mask = (cap + 1) * n_flags
    rep = state_rows(rules, table)
    mask, u, f = state
    states = np.array([(mask * (cap + 1) + rep[mask, u]) * n_flags + f], dtype=np.int64)
    widths = [width] + ([count_width] if count_width else [])
    one = np.ones(1, dtype=np.int64)
    dists = [_Rows(np.ones(1), 0 * one, 0 * one, one) for _ in widths]
    args = dp.rule_arrays(rules)
    start_roll = -1 if roll is None else int(roll)
    while True:
        masks = states // per_mask
        if masks[0] == rules.full_mask:
            return states, dists[0].dense(width), dists[1].dense(count_width) if count_width else None
        lane_args = args
        if rules.order == "choose" and masks[0] == 0:
            if direction is None:
                from .turn import best_direction

                direction = best_direction(rules, table)
            lane_args = dp.rule_arrays(rules.directed(direction))
        src, dst, gain, count, prob = _turn_outcomes(
            states, np.arange(len(states)), rules, table, lane_args, start_roll, rolls_left, rep, workers
        )
        start_roll = -1
        if progress is not None:
            progress(1)
        states, dst_row, row_cuts, order = _group_outcomes(dst, rules)
        src, dst_row, prob = src[order], dst_row[order], prob[order]
        for i, gains in enumerate((gain[order], count[order])[: len(dists)]):
            dists[i] = _apply_outcomes(src, dst_row, gains, prob, row_cuts, dists[i], widths[i], workers)
            if i == 0 and fold is not None and fold + 1 < width:
                dists[0].fold(fold, width)


def turn_outcomes(rules: RuleSet, values, states) -> list[list[tuple[tuple[int, int, int], int, float]]]:
    """One fresh turn of expected-score play (the ``optimal`` bot's, ties included) from each
    card state of ``states`` (``(mask, upper, flag)`` tuples; not the full card, not the empty
    card under ``order=choose``): per state, ``[(next_state, points, probability), ...]``, the
    points this turn scores (bonuses included), the next state's upper total through
    :func:`state_rows` (states of the same row have the same futures)."""
    from ..core.threads import Workers

    cap, n_flags = rules.upper_cap, rules.n_flags
    rep = state_rows(rules, values)
    flat = [(m * (cap + 1) + int(rep[m, u])) * n_flags + f for m, u, f in states]
    order = np.argsort(np.array(flat, dtype=np.int64) // ((cap + 1) * n_flags), kind="stable")
    flat_sorted = np.array(flat, dtype=np.int64)[order]
    with Workers(1) as workers:
        src, dst, gain, _, prob = _turn_outcomes(
            flat_sorted, np.arange(len(flat)), rules, dp.kernel_values(values), dp.rule_arrays(rules),
            -1, 2, rep, workers,
        )  # fmt: skip
    out: list[list] = [[] for _ in states]
    for i, t, g, p in zip(src.tolist(), dst.tolist(), gain.tolist(), prob.tolist(), strict=True):
        nxt = (t // n_flags // (cap + 1), t // n_flags % (cap + 1), t % n_flags)
        out[int(order[i])].append((nxt, int(g), float(p)))
    return out


#: the outcome kernel takes whole masks, this many lanes or more together (long vectors)
OUTCOME_BLOCK = 128


def _turn_outcomes(states, rows, rules, table, lane_args, start_roll, rolls_left, rep, workers):
    """The outcomes of one turn of expected-score play of the states ``states[rows]`` (``rows``
    sorted, so by mask; see :func:`solver.engine.kernels.turn_outcomes`).  One kernel call per
    block of whole masks of at least :data:`OUTCOME_BLOCK` lanes; returns ``(i, dst, gain, count,
    prob)``, ``i`` indexing ``rows``."""
    from . import kernels

    cap, n_flags = rules.upper_cap, rules.n_flags
    lane_states = states[rows]
    masks = lane_states // ((cap + 1) * n_flags)
    lane_u = lane_states // n_flags % (cap + 1)
    lane_f = lane_states % n_flags
    mask_starts = np.flatnonzero(np.diff(masks, prepend=-1))
    # a block: the masks starting in the same OUTCOME_BLOCK lanes
    block_of = mask_starts // OUTCOME_BLOCK
    bounds = np.append(mask_starts[np.flatnonzero(np.diff(block_of, prepend=-1))], len(rows)).astype(np.int64)
    parts: list = [None] * (len(bounds) - 1)
    start, left = np.int64(start_roll), np.int64(rolls_left)

    def turn(g0: int, g1: int) -> None:
        for g in range(g0, g1):
            a, b = bounds[g], bounds[g + 1]
            lane, dst, gain, count, prob = kernels.turn_outcomes(
                masks[a:b], lane_u[a:b], lane_f[a:b], table, lane_args, TIE_TOLERANCE, start, left, rep
            )
            parts[g] = (a + lane, dst, gain, count, prob)

    workers.run(turn, 0, len(parts))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(5))


def _group_outcomes(dst, rules):
    """``(states, dst_row, row_cuts, order)`` of outcomes leading to the flat states ``dst``: the
    states reached (ascending), each outcome's row among them, where each row's outcomes start
    once grouped by row, and the grouping: the outcomes' indices by row, in their order within a
    row (a fixed order of additions: any thread count)."""
    from . import kernels

    counts = np.bincount(dst, minlength=(1 << rules.n_boxes) * (rules.upper_cap + 1) * rules.n_flags)
    states = np.flatnonzero(counts)
    row_of = np.cumsum(counts > 0) - 1
    dst_row = row_of[dst]
    row_cuts = np.zeros(len(states) + 1, dtype=np.int64)
    np.cumsum(counts[states], out=row_cuts[1:])
    order = np.empty(len(dst), dtype=np.int64)
    kernels.group_by_row(dst_row, row_cuts, order)
    return states, dst_row, row_cuts, order


@dataclass
class _Rows:
    """Rows of probability by points so far, packed: row ``i`` holds the points ``lo[i] ..
    lo[i] + n[i] - 1`` at ``values[off[i] ..]`` (none elsewhere); ``off``, ``lo``, ``n`` int64."""

    values: np.ndarray
    off: np.ndarray
    lo: np.ndarray
    n: np.ndarray

    def cells(self, rows=None, least: int = 0):
        """``(row, points, index)`` of each entry at ``least`` points or more of the rows ``rows``
        (all: None), by row then points: ``values[index]`` is row ``row``'s at ``points``."""
        rows = np.arange(len(self.n)) if rows is None else rows
        first = np.maximum(self.lo[rows], least)
        size = np.maximum(self.lo[rows] + self.n[rows] - first, 0)
        which = np.repeat(np.arange(len(rows)), size)
        points = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size) + first[which]
        return which, points, (self.off[rows] - self.lo[rows])[which] + points

    def dense(self, width: int) -> np.ndarray:
        """The rows as a (rows, ``width``) matrix."""
        out = np.zeros((len(self.n), width))
        which, points, index = self.cells()
        out[which, points] = self.values[index]
        return out

    def fold(self, fold: int, width: int) -> None:
        """In place: the points above ``fold`` counted at ``fold`` (each row's tail summed as
        the row of ``width`` points, entries above ``fold`` alone, sums it: the same bytes)."""
        tail = np.flatnonzero(self.lo + self.n > fold + 1)
        if not len(tail):
            return
        which, points, index = self.cells(tail, fold + 1)
        above = np.zeros((len(tail), width - fold - 1))
        above[which, points - fold - 1] = self.values[index]
        sums = above.sum(axis=1)
        lo = self.lo[tail]
        kept = lo <= fold  # the row goes on below the fold: its entry at the fold gains the tail
        self.values[self.off[tail[kept]] + fold - lo[kept]] += sums[kept]
        self.n[tail[kept]] = fold + 1 - lo[kept]
        gone = tail[~kept]  # all of the row is above: one entry at the fold
        self.values[self.off[gone]] = sums[~kept]
        self.lo[gone], self.n[gone] = fold, 1


def _apply_outcomes(src, dst_row, gain, prob, row_cuts, rows: _Rows, width: int, workers) -> _Rows:
    """The rows of the next states (``dst_row`` sorted; ``row_cuts`` where each starts), at most
    ``width`` points: each outcome adds its source row, shifted by its gain and times its
    probability."""
    from . import kernels

    first = gain + rows.lo[src]
    lo = np.minimum.reduceat(first, row_cuts[:-1])
    n = np.maximum.reduceat(first + rows.n[src], row_cuts[:-1]) - lo
    if len(gain) and int((lo + n).max()) > width:
        raise AssertionError("the score range is too small for this game")
    off = np.cumsum(n) - n
    out = _Rows(np.zeros(int(n.sum())), off, lo, n)

    source, dest = A.PackedRows(rows.values, rows.off, rows.lo, rows.n), A.PackedRows(out.values, off, lo, n)

    def apply(r0: int, r1: int) -> None:
        kernels.apply_outcomes(row_cuts[r0], row_cuts[r1], src, dst_row, gain, prob, source, dest)

    workers.run(apply, 0, len(row_cuts) - 1)
    return out


#: target play pushes lanes (state, points so far) in blocks of consecutive needs of one state
#: (as the target DP solves them), and the blocks' outcomes a chunk at a time (lanes times
#: candidate placements, float64: about 2 KB a lane for yahtzee)
TARGET_BLOCK = 64
TARGET_CHUNK_LANES = 1 << 15


def target_distribution(
    card: ScoreCard,
    values,
    target_values,
    target: int,
    *,
    roll: int | None = None,
    rolls_left: int = 2,
    threads: int | None = None,
    progress=None,
) -> Distribution:
    """The distribution of the final score from ``card`` under target play for ``target``: each
    turn, while the target is not reached and still in reach, the moves that maximise
    P(final >= target) (:class:`solver.engine.target.TargetValues` ``target_values``; ties as the
    ``target:T`` bot breaks them), otherwise expected-score play (the table ``values``) --
    exactly what ``simulate --bot target:T`` plays.

    Probability is pushed forward per card state and points so far.  Below the target (the
    first ``T - total`` points so far) a state's row is dense and its lanes in play for the
    target go through the turn together, a run of consecutive needs at a time
    (:func:`solver.engine.kernels.target_turn_runs`); the points past the target (played
    for expected score from then on) are kept only for the states that have them.  Only
    states with probability are kept.  The additions into each row come in an order that
    does not depend on the thread count (bit-identical results).
    """
    from ..core.errors import UsageError
    from ..core.threads import Workers

    rules = card.rules
    if rules.order == "choose":
        raise UsageError("target-play distributions are not available under order=choose")
    table = dp.kernel_values(values)
    width = max_points(rules) + 1
    cap, n_flags = rules.upper_cap, rules.n_flags
    per_mask = (cap + 1) * n_flags
    rep = state_rows(rules, table)
    tw = max(0, min(target - card.total, width))  # points so far below tw: the target still ahead
    mask, u, f = card.state
    states = np.array([(mask * (cap + 1) + rep[mask, u]) * n_flags + f], dtype=np.int64)
    dist_t = np.zeros((1, tw))
    dist_e = np.zeros((0 if tw else 1, width - tw))
    e_of = np.full(1, -1 if tw else 0, dtype=np.int64)
    if tw:
        dist_t[0, 0] = 1.0
    else:
        dist_e[0, 0] = 1.0
    push = _TargetPush(rules, table, target_values, tw, width, rep)
    start_roll = -1 if roll is None else int(roll)
    with Workers(threads) as workers:
        while states[0] // per_mask != rules.full_mask:
            states, dist_t, dist_e, e_of = push.turn(
                states, dist_t, dist_e, e_of, start_roll, rolls_left, workers
            )
            start_roll = -1
            if progress is not None:  # one turn done
                progress(1)
    pmf = np.zeros(card.total + width)
    pmf[card.total : card.total + tw] = dist_t.sum(axis=0)
    if (e_of >= 0).any():  # summed by state (the rows of dist_e are in no particular order)
        pmf[card.total + tw : card.total + tw + dist_e.shape[1]] += dist_e[e_of[e_of >= 0]].sum(axis=0)
    upper_bonus = None
    if rules.has_upper_bonus:
        reached = states // n_flags % (cap + 1) >= rules.upper_threshold
        upper_bonus = math.fsum(dist_t[reached].sum(axis=1).tolist())
        upper_bonus += math.fsum(dist_e[e_of[reached & (e_of >= 0)]].sum(axis=1).tolist())
    return Distribution(
        rules, str(card), f"target:{target}", card.total, np.trim_zeros(pmf, "b"), upper_bonus
    )


class _TargetPush:
    """One turn of :func:`target_distribution`: the rows of the states of a level, by points so
    far -- ``dist_t`` (states, tw) below the target, ``dist_e`` past it: state ``k``'s row
    ``dist_e[e_of[k]]`` when ``e_of[k] >= 0`` (column ``i``: ``tw + i`` points; the rows in the
    order the turn handed them out, not by state, and some perhaps of no state) -- into the
    next level's."""

    def __init__(self, rules, table, target_values, tw, width, rep):
        self.rules, self.table, self.tw, self.width, self.rep = rules, table, tw, width, rep
        self.args = dp.rule_arrays(rules)
        tv = target_values
        self.w = dp.kernel_values(tv.w, np.float32)
        self.w_off, self.w_lead, self.w_len = tv.off, tv.lead, tv.length
        # a row is > 0 between its certain targets and its end: only a stored 0 inside (never
        # written by a build, whose rows end at their last non-zero) needs the values read
        # (its least value, NaN included: no bool copy of the whole table, 130 MB for yahtzee)
        self.zeros_inside = bool(len(self.w)) and not self.w.min() > 0.0
        k = rules.kernel_arrays
        self.cmax = 2 * sum(
            len(set(k["score"][:, b].tolist()) | set(k["joker_score"][:, b].tolist()) | {0})
            for b in range(rules.n_boxes)
        )  # candidates of a state at most: (box, score, bonus or not)
        self.turn_max = _turn_points(rules)
        self.row_of = np.full(
            (1 << rules.n_boxes) * (rules.upper_cap + 1) * rules.n_flags, -1, dtype=np.int64
        )
        # the states of each level, by the number of boxes filled (those of the full card: every
        # upper total, as the outcomes reach them)
        per_mask = (rules.upper_cap + 1) * rules.n_flags
        self.levels = {rules.n_boxes: rules.full_mask * per_mask + np.arange(per_mask, dtype=np.int64)}
        for masks in dp.masks_by_level(rules):
            (m, u, f), _ = dp.level_lanes(rules, masks)
            self.levels[bin(int(masks[0])).count("1")] = np.sort(
                (m * (rules.upper_cap + 1) + u) * rules.n_flags + f
            )

    def active(self, states, dist_t):
        """(states, tw) bool: the lanes played for the target (probability there, and the
        target still in reach: P(>= need) > 0)."""
        rules = self.rules
        cap, n_flags = rules.upper_cap, rules.n_flags
        m, u, f = states // n_flags // (cap + 1), states // n_flags % (cap + 1), states % n_flags
        need = self.tw - np.arange(self.tw)
        length = self.w_len[m, u, f]
        active = (dist_t != 0.0) & (need[None, :] <= length[:, None])
        if self.zeros_inside:
            lead, off = self.w_lead[m, u, f], self.w_off[m, u, f]
            rows, cols = np.nonzero(active & (need[None, :] > lead[:, None]))
            active[rows, cols] = self.w[off[rows] + need[cols] - 1] > 0.0
        return active

    def turn(self, states, dist_t, dist_e, e_of, start_roll, rolls_left, workers):
        from . import kernels
        from .store import release_pages

        # a turn reads the target rows of the next level only (a fifth of a memory-mapped
        # table at most, the levels one after the other in the file): the last turn's pages go
        release_pages(self.w)
        rules, tw = self.rules, self.tw
        cap, n_flags = rules.upper_cap, rules.n_flags
        level = bin(int(states[0] // ((cap + 1) * n_flags))).count("1")
        nxt = self.levels[level + 1]
        row_of = self.row_of
        row_of[nxt] = np.arange(len(nxt))
        out_t = np.zeros((len(nxt), tw))
        e_next = np.full(len(nxt), -1, dtype=np.int64)
        e_width = min(self.width - tw, dist_e.shape[1] + self.turn_max)
        # a row for every next state at most, handed out in order of need: np.zeros maps fresh
        # pages (calloc), so only the rows handed out (written) take memory, and none is copied
        out_e = np.zeros((len(nxt), e_width))
        e_used = [0]  # rows of out_e handed out

        def need_rows(rows) -> None:  # rows of out_e for these next states
            new = np.unique(rows[e_next[rows] < 0])
            if len(new):
                used = e_used[0]
                e_next[new] = used + np.arange(len(new))
                e_used[0] = used + len(new)

        active = self.active(states, dist_t) if tw else np.zeros(dist_t.shape, dtype=bool)
        # expected-score play: the lanes out of play for the target and the points past it
        nz_t = (dist_t != 0.0) & ~active
        support = np.zeros(len(states), dtype=np.int64)
        if tw:
            support = np.where(nz_t.any(axis=1), tw - np.argmax(nz_t[:, ::-1], axis=1), 0)
        has_e = e_of >= 0
        if has_e.any():
            nz_e = dist_e != 0.0  # by row of dist_e (no copy of the rows)
            past = np.where(nz_e.any(axis=1), tw + nz_e.shape[1] - np.argmax(nz_e[:, ::-1], axis=1), 0)
            support[has_e] = np.maximum(support[has_e], past[e_of[has_e]])
            del nz_e, past
        support = support.astype(np.int64)
        ev_rows = np.flatnonzero(support > 0)
        if len(ev_rows):
            i, dst, gain, counts, prob = _turn_outcomes(
                states, ev_rows, rules, self.table, self.args, start_roll, rolls_left, self.rep, workers
            )
            src = ev_rows[i]
            dst_row = row_of[dst]
            if len(dst_row) and dst_row.min() < 0:
                raise AssertionError("an outcome leads out of the next level's states")
            order = np.argsort(dst_row, kind="stable")  # a fixed order of additions: any thread count
            src, dst_row, gain, prob = src[order], dst_row[order], gain[order], prob[order]
            need_rows(dst_row[support[src] - 1 + gain >= tw])
            cuts = np.searchsorted(dst_row, np.arange(len(nxt) + 1))
            e_src = np.ascontiguousarray(dist_e)

            source, dest = A.SplitRows(dist_t, e_src, e_of), A.SplitRows(out_t, out_e, e_next)

            def apply_ev(r0: int, r1: int) -> None:
                kernels.apply_split_rows(
                    cuts[r0], cuts[r1], src, dst_row, gain, prob, source, active, support, np.int64(tw), dest
                )

            workers.run(apply_ev, 0, len(nxt))
            # the outcomes are done with: not held through target play
            del i, dst, gain, counts, prob, src, dst_row, order, cuts, e_src, apply_ev
        del nz_t
        # target play: runs of consecutive needs of a state, blocks of runs
        rows, cols = np.nonzero(active[:, ::-1])  # by state, then need (tw - points so far) upwards
        need = (cols + 1).astype(np.int64)
        if len(rows):
            cut = np.ones(len(rows), dtype=bool)
            cut[1:] = (rows[1:] != rows[:-1]) | (need[1:] != need[:-1] + 1)
            run_start = np.flatnonzero(cut)
            pos = np.arange(len(rows)) - np.repeat(run_start, np.diff(np.append(run_start, len(rows))))
            starts = np.flatnonzero(cut | (pos % TARGET_BLOCK == 0))
            run_n = np.diff(np.append(starts, len(rows))).astype(np.int64)
            self.target_runs(
                states, rows[starts].astype(np.int64), need[starts], run_n, dist_t, start_roll, rolls_left,
                workers, out_t, out_e, e_next, need_rows, row_of,
            )  # fmt: skip
        row_of[nxt] = -1
        out_e = out_e[: e_used[0]]  # a view: the rows stay where they are (no copy), e_of finds them
        keep = out_t.any(axis=1)
        with_e = e_next >= 0
        keep[with_e] |= out_e.any(axis=1)[e_next[with_e]]
        return nxt[keep], out_t[keep], out_e, e_next[keep]

    def target_runs(
        self, states, run_state, run_t0, run_n, dist_t, start_roll, rolls_left, workers, out_t, out_e, e_next,
        need_rows, row_of,
    ):  # fmt: skip
        """The runs of target play (a state, consecutive needs), in blocks of about
        :data:`TARGET_BLOCK` lanes, a chunk of about :data:`TARGET_CHUNK_LANES` lanes at a time:
        their outcomes (in threads), then their masses into the next rows (in threads, by rows)."""
        from ..core.threads import piece_count
        from . import kernels

        rules, cmax, tw = self.rules, self.cmax, self.tw
        cap, n_flags = rules.upper_cap, rules.n_flags
        masks = states // n_flags // (cap + 1)
        us, fs = states // n_flags % (cap + 1), states % n_flags
        lanes, table = A.States(masks, us, fs), A.TargetArrays(self.w, self.w_off, self.w_lead, self.w_len)
        first_lane = np.cumsum(run_n) - run_n
        # a block: the runs starting in the same TARGET_BLOCK lanes; a chunk: whole blocks
        block_of = first_lane // TARGET_BLOCK
        block_run = np.flatnonzero(np.diff(block_of, prepend=-1)).astype(np.int64)
        chunk_of = first_lane[block_run] // TARGET_CHUNK_LANES
        chunk_block = np.append(np.flatnonzero(np.diff(chunk_of, prepend=-1)), len(block_run))
        block_run = np.append(block_run, len(run_n))

        def chunk(b0: int, b1: int) -> None:
            q0, q1 = int(block_run[b0]), int(block_run[b1])
            rs, rt, rn = (np.ascontiguousarray(a[q0:q1]) for a in (run_state, run_t0, run_n))
            br = block_run[b0 : b1 + 1] - q0
            nq = q1 - q0
            run_out = (np.cumsum(rn) - rn) * cmax
            probs = np.empty(int(rn.sum()) * cmax)
            c_dst = np.zeros(nq * cmax, dtype=np.int64)
            c_gain = np.zeros(nq * cmax, dtype=np.int64)
            run_cand = np.zeros(nq, dtype=np.int64)
            runs = A.Runs(br, rs, rt, rn, run_out)

            def turn(i0: int, i1: int) -> None:
                kernels.target_turn_runs(
                    i0, i1, runs, lanes, table, self.rep, self.args, TIE_TOLERANCE, np.int64(start_roll),
                    np.int64(rolls_left), np.int64(cmax), A.RunOutcomes(probs, c_dst, c_gain, run_cand),
                )  # fmt: skip

            workers.run(turn, 0, b1 - b0, pieces=piece_count(b1 - b0, workers.threads, 16, at_least=8))
            valid = np.arange(cmax)[None, :] < run_cand[:, None]
            c_row = np.where(valid.ravel(), row_of[c_dst], 0)
            if c_row.min(initial=0) < 0:
                raise AssertionError("a placement leads out of the next level's states")
            # past the target: the most points so far of the run (its smallest need) plus the gain
            need_rows(c_row.reshape(nq, cmax)[valid & (c_gain.reshape(nq, cmax) >= rt[:, None])])

            found, dest = A.RunOutcomes(probs, c_row, c_gain, run_cand), A.SplitRows(out_t, out_e, e_next)

            def apply(r0: int, r1: int) -> None:
                kernels.apply_target_runs(
                    np.int64(r0), np.int64(r1), 0, nq, runs, found, np.int64(cmax), dist_t, np.int64(tw), dest
                )

            workers.run(apply, 0, len(out_t))

        for b0, b1 in zip(chunk_block[:-1].tolist(), chunk_block[1:].tolist(), strict=True):
            chunk(b0, b1)


# --- the points still to come, per card state ----------------------------------------
#: each exact row of :func:`solve_residuals` drops at most this much probability off each end
RESIDUAL_EPS = 1e-7
#: states with at most this many open boxes get their exact row; more, a discretised normal
RESIDUAL_EXACT_OPEN = 4
#: the normal rows: standard deviations on a grid of this ratio, means to a quarter point, cut at
#: this many standard deviations
RESIDUAL_SD_STEP = 1.02
RESIDUAL_MEAN_STEPS = 4
RESIDUAL_CUT = 4.0


@dataclass(frozen=True)
class Residuals:
    """The distribution of the points still to come under expected-score play (the ``optimal``
    bot, ties included), per card state at the start of a turn: P(``x`` more points from
    ``(mask, u, f)``) = ``p[off[state] + x - lo[state]]`` for ``lo <= x < lo + length``, 0
    outside (``p`` float32; ``off``/``lo``/``length`` int64 of shape ``(2**n_boxes, upper_cap +
    1, n_flags)``, ``off`` -1 on unreachable states).

    With at most ``exact_open`` boxes open the row is exact (float32) but for at most ``eps``
    of probability left off each end; with more, a discretised normal of the state's exact
    mean ``mean[state]`` and standard deviation ``sd[state]`` (the sd on a grid of ratio
    :data:`RESIDUAL_SD_STEP`, the mean to 1 / :data:`RESIDUAL_MEAN_STEPS` point, cut at
    :data:`RESIDUAL_CUT` sd; rows shared, so ``lo`` may be below 0: a little of the normal's
    mass lies below the points on the card)."""

    p: np.ndarray
    off: np.ndarray
    lo: np.ndarray
    length: np.ndarray
    exact_open: int
    eps: float
    mean: np.ndarray | None = None  # (as ``off``) float64; None when read from a file
    sd: np.ndarray | None = None

    def row(self, state: tuple[int, int, int]) -> tuple[int, np.ndarray]:
        """``(lo, pmf)``: P(``lo + i`` more points from ``state``) = ``pmf[i]`` (a view)."""
        o, lo, n = (int(a[state]) for a in (self.off, self.lo, self.length))
        if o < 0:
            raise ValueError(f"state {state} is not reachable")
        return lo, self.p[o : o + n]


def normal_row(sd: float, shift: float) -> np.ndarray:
    """P(``x``) for ``x = -h .. h`` (``h = ceil(RESIDUAL_CUT sd) + 1``) of a normal of mean
    ``shift`` (in [0, 1]) and standard deviation ``sd``, discretised to whole points (the mass of
    ``[x - 1/2, x + 1/2)``) and scaled to add up to 1."""
    h = math.ceil(RESIDUAL_CUT * sd) + 1
    cdf = [0.5 * math.erfc(-(x - 0.5 - shift) / (sd * math.sqrt(2.0))) for x in range(-h, h + 2)]
    row = np.diff(np.array(cdf))
    return row / math.fsum(row.tolist())


def solve_residuals(
    rules: RuleSet, values, *, exact_open: int = RESIDUAL_EXACT_OPEN, eps: float = RESIDUAL_EPS, threads=None
) -> Residuals:
    """:class:`Residuals` of every reachable state of ``rules``, by one backward pass over the
    levels: each state's mean and second moment of the points to come from its turn's
    outcomes (:func:`turn_outcomes`' kernel) and, with at most ``exact_open`` boxes open, its
    exact row: the mix of its outcomes' rows shifted by what the turn scores.  Hopeless upper
    totals share their mask's row (see :func:`representative_upper`): ``values`` is a solved
    table, whose values agree there (:func:`state_rows`), as the opponent model's is.  The result does not
    depend on ``threads``."""
    from ..core.threads import Workers
    from . import kernels

    table = dp.kernel_values(values)
    cap, n_flags = rules.upper_cap, rules.n_flags
    shape = (1 << rules.n_boxes, cap + 1, n_flags)
    off = np.full(shape, -1, dtype=np.int64)
    lo = np.zeros(shape, dtype=np.int64)
    length = np.zeros(shape, dtype=np.int64)
    mean = np.zeros(shape)
    second = np.zeros(shape)
    off[rules.full_mask], length[rules.full_mask] = 0, 1  # nothing to come: 0 points, surely
    flat_off, flat_lo, flat_len = off.reshape(-1), lo.reshape(-1), length.reshape(-1)
    flat_mean, flat_second = mean.reshape(-1), second.reshape(-1)
    parts, used = [np.ones(1)], 1
    rep = representative_upper(rules)
    args = dp.rule_arrays(rules)
    normal_states = []
    with Workers(threads) as workers:
        for masks in dp.masks_by_level(rules):
            (lm, lu, lf), (copy_mask, copy_u, copy_from) = dp.level_lanes(rules, masks)
            lane_args = args
            if rules.order == "choose" and masks.tolist() == [0]:
                from .turn import best_direction

                lane_args = dp.rule_arrays(rules.directed(best_direction(rules, table)))
            flat = (lm * (cap + 1) + lu) * n_flags + lf
            src, dst, gain, _, prob = _turn_outcomes(
                flat, np.arange(len(flat)), rules, table, lane_args, -1, 2, rep, workers
            )
            g = gain.astype(np.float64)
            n_lanes = len(flat)
            mean[lm, lu, lf] = np.bincount(src, prob * (g + flat_mean[dst]), n_lanes)
            second[lm, lu, lf] = np.bincount(
                src, prob * (g * g + 2.0 * g * flat_mean[dst] + flat_second[dst]), n_lanes
            )
            if rules.n_boxes - int(masks[0]).bit_count() > exact_open:
                normal_states.append((lm, lu, lf))
            else:
                cuts = np.searchsorted(src, np.arange(n_lanes + 1)).astype(np.int64)
                first = gain + flat_lo[dst]
                row_lo = np.minimum.reduceat(first, cuts[:-1])
                row_hi = np.maximum.reduceat(first + flat_len[dst], cuts[:-1])
                widths = row_hi - row_lo
                row_start = np.cumsum(widths) - widths
                dense = np.zeros(int(widths.sum()))
                p_all = np.concatenate(parts) if len(parts) > 1 else parts[0]
                parts = [p_all]

                def rows(
                    j0: int, j1: int, a=(cuts, dst, gain, prob), b=(row_start, row_lo, dense), p=p_all
                ) -> None:
                    kernels.residual_rows(j0, j1, *a, A.PackedRows(p, flat_off, flat_lo, flat_len), *b)

                workers.run(rows, 0, n_lanes)
                lead, end = np.empty_like(widths), np.empty_like(widths)
                kernels.trim_tails(dense, row_start, widths, float(eps), lead, end)
                kept = end - lead
                at = np.repeat(row_start + lead - np.cumsum(kept) + kept, kept) + np.arange(int(kept.sum()))
                parts.append(dense[at])
                off[lm, lu, lf] = used + np.cumsum(kept) - kept
                lo[lm, lu, lf] = row_lo + lead
                length[lm, lu, lf] = kept
                used += int(kept.sum())
            for a in (off, lo, length, mean, second):
                a[copy_mask, copy_u] = a[copy_mask, copy_from]
    sd = np.sqrt(np.maximum(second - mean * mean, 0.0))
    # the normal rows, one per (sd on the grid, quarter of a point of the mean) used
    rows_at: dict = {}
    for lm, lu, lf in normal_states:
        m, s = mean[lm, lu, lf], sd[lm, lu, lf]
        step = np.maximum(np.rint(np.log(np.maximum(s, 0.25)) / math.log(RESIDUAL_SD_STEP)), 0).astype(
            np.int64
        )
        quarters = np.rint(m * RESIDUAL_MEAN_STEPS).astype(np.int64)
        whole, frac = np.divmod(quarters, RESIDUAL_MEAN_STEPS)
        for key in sorted(set(zip(step.tolist(), frac.tolist(), strict=True))):
            if key not in rows_at:
                row = normal_row(RESIDUAL_SD_STEP ** key[0], key[1] / RESIDUAL_MEAN_STEPS)
                rows_at[key] = (used, len(row) // 2)
                parts.append(row)
                used += len(row)
        at = np.array([rows_at[k] for k in zip(step.tolist(), frac.tolist(), strict=True)], dtype=np.int64)
        off[lm, lu, lf], lo[lm, lu, lf] = at[:, 0], whole - at[:, 1]
        length[lm, lu, lf] = 2 * at[:, 1] + 1
    for masks in dp.masks_by_level(rules):  # the hopeless upper totals again: the normal rows
        _, (copy_mask, copy_u, copy_from) = dp.level_lanes(rules, masks)
        for a in (off, lo, length):
            a[copy_mask, copy_u] = a[copy_mask, copy_from]
    p = np.concatenate(parts).astype(np.float32)
    return Residuals(p, off, lo, length, int(exact_open), float(eps), mean, sd)

"""The exact distribution of the final score under expected-score-optimal play.

From a position -- a card at the start of a turn, or a card with dice and rolls left --
probability is pushed forward turn by turn through the states of the game
(:func:`solver.engine._kernels.turn_outcomes`, ``target_turn_outcomes``), each state carrying the distribution of the
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
from ..core.rules import RuleSet
from . import dp

TIE_TOLERANCE = 1e-9  # the bots' tolerance (solver.play.simulate)
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


def check_targets(targets) -> tuple[int, ...]:
    """The ``--at-least`` scores (default :data:`solver.engine.distribution.DEFAULT_TARGETS`), each once."""
    from ..core.bounded import MAX_TARGET, shown
    from ..core.errors import UsageError

    if targets is None:
        return tuple(DEFAULT_TARGETS)
    out = []
    for t in targets:
        if isinstance(t, bool) or not isinstance(t, int) or t < 1 or t > MAX_TARGET:
            raise UsageError(f"--at-least takes scores from 1 to {MAX_TARGET}, got {shown(t)}")
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


def read_position(rules, card, dice, rolls_left):
    """``(card, roll, rolls_left)`` of a position: a card alone (the start of a turn: ``roll`` is
    None) or with dice and rolls left, checked by :meth:`solver.advice.advisor.Position.parse`."""
    from ..core.card import ScoreCard
    from ..core.errors import UsageError
    from ..core.position import Position
    from ..core.rules import get_rules

    rules = get_rules(rules)
    if rules.triple:
        raise UsageError("distribution does not take the triple card (ask for one column's rule set)")
    if (dice is None) != (rolls_left is None):
        raise UsageError("--dice and --rolls-left go together: give both (a turn under way) or neither")
    if dice is None:
        return ScoreCard.parse(card or "", rules), None, 2
    position = Position.parse(card or "", dice, rolls_left, rules)
    return position.card, position.dice.index, position.rolls_left


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
    values = np.asarray(values)
    if np.array_equal(values[mask, upper], values[mask, rep[mask, upper]]):
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
    is called as each turn is done; ``fold``: points above it are counted at it, after each turn."""
    cap, n_flags = rules.upper_cap, rules.n_flags
    per_mask = (cap + 1) * n_flags
    rep = state_rows(rules, table)
    mask, u, f = state
    states = np.array([(mask * (cap + 1) + rep[mask, u]) * n_flags + f], dtype=np.int64)
    dists = [np.zeros((1, width))] + ([np.zeros((1, count_width))] if count_width else [])
    for d in dists:
        d[0, 0] = 1.0
    supports = [np.ones(1, dtype=np.int64) for _ in dists]
    args = dp.rule_arrays(rules)
    start_roll = -1 if roll is None else int(roll)
    while True:
        masks = states // per_mask
        if masks[0] == rules.full_mask:
            return states, dists[0], dists[1] if count_width else None
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
        states, dst_row = np.unique(dst, return_inverse=True)
        order = np.argsort(dst_row, kind="stable")  # a fixed order of additions: any thread count
        src, dst_row, prob = src[order], dst_row[order], prob[order]
        row_cuts = np.searchsorted(dst_row, np.arange(len(states) + 1))
        for i, gains in enumerate((gain[order], count[order])[: len(dists)]):
            dists[i] = _apply_outcomes(src, dst_row, gains, prob, row_cuts, dists[i], supports[i], workers)
            if i == 0 and fold is not None and fold + 1 < width:
                dists[0][:, fold] += dists[0][:, fold + 1 :].sum(axis=1)
                dists[0][:, fold + 1 :] = 0.0
            nonzero = dists[i] != 0.0
            last = dists[i].shape[1] - np.argmax(nonzero[:, ::-1], axis=1)
            supports[i] = np.where(nonzero.any(axis=1), last, 0).astype(np.int64)


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


def _turn_outcomes(
    states, rows, rules, table, lane_args, start_roll, rolls_left, rep, workers, need=None, target=None
):
    """The outcomes of one turn of the states ``states[rows]`` (``rows`` sorted, so by mask;
    see :func:`solver.engine._kernels.turn_outcomes`): expected-score play, or with ``need`` (points
    still needed per row) and ``target`` (:class:`~solver.engine.target.TargetValues`) target play.
    One kernel call per mask; returns ``(i, dst, gain, count, prob)``, ``i`` indexing ``rows``."""
    from . import _kernels

    cap, n_flags = rules.upper_cap, rules.n_flags
    lane_states = states[rows]
    masks = lane_states // ((cap + 1) * n_flags)
    cuts = np.flatnonzero(np.diff(masks)) + 1
    bounds = np.concatenate(([0], cuts, [len(rows)])).astype(np.int64)
    parts: list = [None] * (len(bounds) - 1)
    if target is not None:
        w = dp.kernel_values(target.w, np.float32)
    start, left = np.int64(start_roll), np.int64(rolls_left)

    def turn(g0: int, g1: int) -> None:
        for g in range(g0, g1):
            a, b = bounds[g], bounds[g + 1]
            mask = np.int64(masks[a])
            lane_u = (lane_states[a:b] // n_flags % (cap + 1)).astype(np.int64)
            lane_f = (lane_states[a:b] % n_flags).astype(np.int64)
            if target is None:  # each policy its own kernel: the other's code is not compiled
                out = _kernels.turn_outcomes(
                    mask, lane_u, lane_f, table, lane_args, TIE_TOLERANCE, start, left, rep
                )
            else:
                out = _kernels.target_turn_outcomes(
                    mask, lane_u, lane_f, need[a:b].copy(), w, target.off, target.lead, target.length, lane_args,
                    TIE_TOLERANCE, start, left, rep,
                )  # fmt: skip
            lane, dst, gain, count, prob = out
            parts[g] = (a + lane, dst, gain, count, prob)

    workers.run(turn, 0, len(parts))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(5))


def _apply_outcomes(src, dst_row, gain, prob, row_cuts, dist, support, workers):
    """The rows of the next states (``dst_row`` sorted): each outcome adds its source row,
    shifted by its gain and times its probability."""
    from . import _kernels

    width = dist.shape[1]
    if len(gain) and int((gain + support[src]).max()) > width:
        raise AssertionError("the score range is too small for this game")
    out = np.zeros((len(row_cuts) - 1, width))

    def apply(r0: int, r1: int) -> None:
        _kernels.apply_outcomes(row_cuts[r0], row_cuts[r1], src, dst_row, gain, prob, dist, support, out)

    workers.run(apply, 0, len(row_cuts) - 1)
    return out


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

    Probability is pushed forward per card state and points so far, so the work grows with
    the number of (state, points) pairs: fast from a position with a few boxes open, minutes
    from an early one.
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
    w, w_off, w_lead, w_len = target_values.w, target_values.off, target_values.lead, target_values.length
    mask, u, f = card.state
    states = np.array([(mask * (cap + 1) + rep[mask, u]) * n_flags + f], dtype=np.int64)
    dist = np.zeros((1, width))
    dist[0, 0] = 1.0
    args = dp.rule_arrays(rules)
    start_roll = -1 if roll is None else int(roll)
    with Workers(threads) as workers:
        while True:
            masks = states // per_mask
            if masks[0] == rules.full_mask:
                break
            lane_u_all = states // n_flags % (cap + 1)
            lane_f_all = states % n_flags
            # the points still needed of every (state, points so far); target play where 1 <= need
            # and the state's probability is not 0, expected-score play elsewhere
            need = target - card.total - np.arange(width)[None, :]  # (1, width)
            state_lead = w_lead[masks, lane_u_all, lane_f_all][:, None]
            inside = (need > state_lead) & (need <= w_len[masks, lane_u_all, lane_f_all][:, None])
            p_state = np.where(need <= state_lead, 1.0, 0.0)
            offsets = w_off[masks, lane_u_all, lane_f_all][:, None] + need - 1
            p_state[inside] = w[offsets[inside]]
            active = (dist != 0.0) & (need >= 1) & (p_state > 0.0)
            ev_dist = np.where(active, 0.0, dist)
            ev_rows = np.flatnonzero((ev_dist != 0.0).any(axis=1))
            ev_part = None
            if len(ev_rows):  # a row's expected-score outcomes move all of its points so far
                i, dst, gain, _, prob = _turn_outcomes(
                    states, ev_rows, rules, table, args, start_roll, rolls_left, rep, workers
                )
                ev_part = (ev_rows[i], dst, gain, prob)
            act_rows, act_cols = np.nonzero(active)
            target_part = None
            if len(act_rows):  # target play: one (state, points so far) pair per lane
                i, dst, gain, _, prob = _turn_outcomes(
                    states, act_rows, rules, table, args, start_roll, rolls_left, rep, workers,
                    need=need[0, act_cols].astype(np.int64), target=target_values,
                )  # fmt: skip
                target_part = (act_rows[i], act_cols[i], dst, gain, prob)
            start_roll = -1
            if progress is not None:  # one turn done
                progress(1)
            dsts = ([ev_part[1]] if ev_part is not None else []) + (
                [target_part[2]] if target_part is not None else []
            )
            next_states = np.unique(np.concatenate(dsts))
            out = np.zeros((len(next_states), width))
            if ev_part is not None:
                src, dst, gain, prob = ev_part
                dst_row = np.searchsorted(next_states, dst)
                order = np.argsort(dst_row, kind="stable")
                nz = ev_dist != 0.0
                support = np.where(nz.any(axis=1), width - np.argmax(nz[:, ::-1], axis=1), 0).astype(np.int64)
                _apply_rows(
                    src[order], dst_row[order], gain[order], prob[order], ev_dist, support, out, workers
                )
            if target_part is not None:
                src_row, src_col, dst, gain, prob = target_part
                dst_row = np.searchsorted(next_states, dst)
                order = np.argsort(dst_row, kind="stable")
                _apply_entries(
                    src_row[order],
                    src_col[order],
                    dst_row[order],
                    gain[order],
                    prob[order],
                    dist,
                    out,
                    workers,
                )
            states, dist = next_states, out
    pmf = np.zeros(card.total + width)
    pmf[card.total :] = dist.sum(axis=0)
    upper_bonus = None
    if rules.has_upper_bonus:
        reached = states // n_flags % (cap + 1) >= rules.upper_threshold
        upper_bonus = math.fsum(dist[reached].sum(axis=1).tolist())
    return Distribution(
        rules, str(card), f"target:{target}", card.total, np.trim_zeros(pmf, "b"), upper_bonus
    )


def _apply_rows(src, dst_row, gain, prob, dist, support, out, workers) -> None:
    """``out[dst_row] += prob * dist[src]`` shifted by ``gain``, whole rows (sorted by ``dst_row``)."""
    from . import _kernels

    if len(gain) and int((gain + support[src]).max()) > out.shape[1]:
        raise AssertionError("the score range is too small for this game")
    cuts = np.searchsorted(dst_row, np.arange(out.shape[0] + 1))

    def apply(r0: int, r1: int) -> None:
        _kernels.apply_outcomes(cuts[r0], cuts[r1], src, dst_row, gain, prob, dist, support, out)

    workers.run(apply, 0, out.shape[0])


def _apply_entries(src_row, src_col, dst_row, gain, prob, dist, out, workers) -> None:
    """``out[dst_row, src_col + gain] += prob * dist[src_row, src_col]`` (sorted by ``dst_row``)."""
    from . import _kernels

    if len(gain) and int((src_col + gain).max()) >= out.shape[1]:
        raise AssertionError("the score range is too small for this game")
    cuts = np.searchsorted(dst_row, np.arange(out.shape[0] + 1))

    def apply(r0: int, r1: int) -> None:
        _kernels.apply_entry_outcomes(cuts[r0], cuts[r1], src_row, src_col, dst_row, gain, prob, dist, out)

    workers.run(apply, 0, out.shape[0])

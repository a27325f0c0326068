"""Play for a target score: the largest probability of scoring at least ``t`` more points.

:func:`solve_target` computes, for every reachable state between turns ``(mask, u, f)``
and every ``t = 1 .. t_max``, ``W(state, t)``: the probability of scoring at least ``t``
more points under the strategy that maximises exactly that probability (``W = 1`` for
``t <= 0``).  It is the dynamic program of :mod:`solver.dp` with another objective
(:func:`solver._kernels.target_objective`); see the section "Play for a target" of
:mod:`solver._kernels` for the storage layout: :class:`TargetValues`.

A state whose upper total can no longer reach the bonus shares its row with the
smallest such total of its mask (their futures are the same, see
:func:`solver.dp.level_lanes`), and :func:`compact` drops each row's trailing zeros
(targets out of reach), so a stored table holds each distinct probability once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import dp
from .rules import RuleSet

DEFAULT_T_MAX = 500  # every target up to 500 points from the empty card
T_CHUNK = 128  # targets per block of the DP (one state, consecutive targets)


@dataclass(frozen=True)
class TargetValues:
    """``W(state, t)``: ``w[off[state] + t - 1]`` for ``1 <= t <= length[state]``, 0 beyond.

    ``w`` float64 (n,); ``off``/``length`` int64 of shape ``(2**n_boxes, upper_cap + 1,
    n_flags)``, ``off`` -1 on unreachable states; ``t_max`` the largest target stored.
    """

    w: np.ndarray
    off: np.ndarray
    length: np.ndarray
    t_max: int

    def probability(self, state: tuple[int, int, int], t: int) -> float:
        """``W(state, t)``: the largest probability of at least ``t`` more points from ``state``."""
        if t <= 0:
            return 1.0
        if t > self.t_max:
            raise ValueError(f"targets up to {self.t_max} points are stored, not {t}")
        length = int(self.length[state])
        return float(self.w[int(self.off[state]) + t - 1]) if t <= length else 0.0

    def row(self, state: tuple[int, int, int]) -> np.ndarray:
        """``W(state, t)`` for ``t = 0 .. t_max`` (float64, ``t_max + 1``)."""
        out = np.zeros(self.t_max + 1)
        out[0] = 1.0
        length = int(self.length[state])
        off = int(self.off[state])
        out[1 : length + 1] = self.w[off : off + length]
        return out


def solve_target(
    rules: RuleSet,
    t_max: int = DEFAULT_T_MAX,
    progress: Callable[[int], None] | None = None,
    threads: int | None = None,
) -> TargetValues:
    """``W`` of every reachable state for targets ``1 .. t_max`` (dense: every row ``t_max`` long).

    ``progress(n)`` is called after each level with the number of masks done; the result
    does not depend on ``threads``.
    """
    from . import _kernels
    from .threads import Workers

    shape = (1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)
    off = np.full(shape, -1, dtype=np.int64)
    length = np.zeros(shape, dtype=np.int64)
    levels = dp.masks_by_level(rules)
    plans = [dp.level_lanes(rules, masks) for masks in levels]
    n_rows = sum(len(lanes[0]) for lanes, _ in plans) + (1 if rules.order == "choose" else 0)
    w = np.zeros(n_rows * t_max)
    off[rules.full_mask] = 0  # the full card: no points to come, W = 0 for every t >= 1
    row = 0

    def solve_level(lanes, args) -> None:
        nonlocal row
        lane_mask, lane_u, lane_f = lanes
        n = len(lane_mask)
        rows = row + np.arange(n, dtype=np.int64)
        off[lane_mask, lane_u, lane_f] = rows * t_max
        length[lane_mask, lane_u, lane_f] = t_max
        row += n
        t0 = np.arange(1, t_max + 1, T_CHUNK, dtype=np.int64)
        block_state = np.repeat(np.arange(n, dtype=np.int64), len(t0))
        block_t0 = np.tile(t0, n)
        block_n = np.minimum(T_CHUNK, t_max + 1 - block_t0)

        def work(i0: int, i1: int) -> None:
            _kernels.solve_target_blocks(
                block_state, block_t0, block_n, i0, i1, lane_mask, lane_u, lane_f, w, off, length, args
            )

        workers.run(work, 0, len(block_state), pieces=max(1, min(len(block_state), 16 * workers.threads)))

    with Workers(threads) as workers:
        args = dp.rule_arrays(rules)
        for masks, (lanes, (copy_mask, copy_u, copy_from)) in zip(levels, plans, strict=True):
            if rules.order == "choose" and masks.tolist() == [0]:
                # the direction is chosen before the first roll: the better of the two
                solve_level(lanes, dp.rule_arrays(rules.directed("down")))
                first = off[lanes[0], lanes[1], lanes[2]]
                down = w[first[:, None] + np.arange(t_max)].copy()
                solve_level(lanes, dp.rule_arrays(rules.directed("up")))
                again = off[lanes[0], lanes[1], lanes[2]]
                w[again[:, None] + np.arange(t_max)] = np.fmax(down, w[again[:, None] + np.arange(t_max)])
            else:
                solve_level(lanes, args)
            off[copy_mask, copy_u] = off[copy_mask, copy_from]
            length[copy_mask, copy_u] = length[copy_mask, copy_from]
            if progress is not None:
                progress(len(masks))
    return TargetValues(w, off, length, t_max)


def compact(values: TargetValues) -> TargetValues:
    """The same probabilities with each distinct row stored once, without its trailing zeros.

    Rows are kept in the order of their first state in ``off``'s C order, so the result is
    the same bytes whatever the DP's thread count."""
    off, length, w, t_max = values.off, values.length, values.w, values.t_max
    flat_off = off.ravel()
    flat_len = length.ravel()
    reachable = np.flatnonzero((flat_off >= 0) & (flat_len > 0))  # the full card stores nothing
    starts, first = np.unique(flat_off[reachable], return_index=True)
    order = np.argsort(first, kind="stable")  # rows in order of their first state
    starts = starts[order]
    lengths = flat_len[reachable][first[order]]
    new_len = np.zeros(len(starts), dtype=np.int64)
    for i, (s, n) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
        nz = np.flatnonzero(w[s : s + n])
        new_len[i] = nz[-1] + 1 if len(nz) else 0
    new_off = np.zeros(len(starts), dtype=np.int64)
    new_off[1:] = np.cumsum(new_len)[:-1]
    out_w = np.empty(int(new_len.sum()))
    for s, o, n in zip(starts.tolist(), new_off.tolist(), new_len.tolist(), strict=True):
        out_w[o : o + n] = w[s : s + n]
    index = np.searchsorted(starts[np.argsort(starts)], flat_off[reachable])
    by_start = np.argsort(starts)
    mapped = by_start[index]
    res_off = np.where(flat_off >= 0, 0, -1).astype(np.int64)
    res_len = np.zeros(flat_len.shape, dtype=np.int64)
    res_off[reachable] = new_off[mapped]
    res_len[reachable] = new_len[mapped]
    return TargetValues(out_w, res_off.reshape(off.shape), res_len.reshape(off.shape), t_max)

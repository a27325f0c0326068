"""The dynamic program over score-card states (Python layer over :mod:`solver._kernels`).

:func:`solve` returns ``V``, a float64 array of shape ``(2**n_boxes, threshold + 1,
n_flags)``: ``V[mask, u, f]`` is the expected number of points still to come
under expected-score-optimal play from the start of a turn with the boxes in
``mask`` filled, upper total ``u`` (capped at the bonus threshold) and ``f`` = 1
when the Yahtzee box holds 50.  States that cannot occur (an upper total the
filled upper boxes cannot make, a flag on an open Yahtzee box, a card out of
order under forced order) are not computed and hold NaN.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import dice
from .rules import RuleSet


def upper_reachability(rules: RuleSet) -> np.ndarray:
    """(64, threshold + 1) bool: ``[bits, u]`` -- can the upper faces in ``bits`` total ``u``?

    ``bits`` has bit ``face - 1`` set for each filled upper box; totals are capped.
    """
    cap = rules.upper_cap
    reach = np.zeros((64, cap + 1), dtype=bool)
    for bits in range(64):
        totals = {0}
        for face in range(1, 7):
            if bits >> (face - 1) & 1:
                totals = {min(cap, t + c * face) for t in totals for c in range(6)}
        reach[bits, sorted(totals)] = True
    return reach


def masks_by_level(rules: RuleSet) -> list[np.ndarray]:
    """Masks to solve, grouped by number of filled boxes, from n_boxes - 1 down to 0."""
    n = rules.n_boxes
    if rules.forced_order:
        return [np.array([(1 << k) - 1], dtype=np.int64) for k in range(n - 1, -1, -1)]
    all_masks = np.arange(1 << n, dtype=np.int64)
    popcount = np.zeros(1 << n, dtype=np.int64)
    for b in range(n):
        popcount += (all_masks >> b) & 1
    return [all_masks[popcount == k] for k in range(n - 1, -1, -1)]


def kernel_args(rules: RuleSet) -> tuple:
    """The rule set and dice layer as the kernels' trailing arguments, in order."""
    k = rules.kernel_arrays
    score = k["score"]
    n_pos = (score > 0).sum(axis=1).astype(np.int64)
    pos_boxes = np.zeros_like(score)
    for r in range(score.shape[0]):
        boxes = np.flatnonzero(score[r] > 0)
        pos_boxes[r, : len(boxes)] = boxes
    return (
        dice.ADD_DIE,
        DROP_ONE,
        N_DROP,
        dice.ROLL_PROB,
        score,
        k["joker_score"],
        k["box_face"],
        k["yahtzee_roll_face"],
        pos_boxes,
        n_pos,
        k["yahtzee_index"],
        k["yahtzee_bonus"],
        k["joker_mode"],
        k["forced_order"],
        k["upper_threshold"],
        k["upper_bonus"],
    )


def _drop_one() -> tuple[np.ndarray, np.ndarray]:
    """(462, 5) keep indices of ``K - face`` for each distinct face of ``K``, and how many."""
    drop = np.zeros((dice.N_KEEPS, dice.N_DICE), dtype=np.int64)
    count = np.zeros(dice.N_KEEPS, dtype=np.int64)
    for k in range(dice.N_KEEPS):
        subs = dice.REMOVE_DIE[k][dice.REMOVE_DIE[k] >= 0]
        drop[k, : len(subs)] = subs
        count[k] = len(subs)
    return drop, count


DROP_ONE, N_DROP = _drop_one()
BLOCK_LANES = 128  # lanes per parallel block; 128-256 measured best (x and y: 462 x 128 doubles each)


def level_lanes(rules: RuleSet, masks: np.ndarray):
    """The states of ``masks`` the kernel must solve, and the ones that are copies.

    Returns ``(lane_mask, lane_u, lane_f)`` (int64 arrays sorted by mask) and
    ``(copy_mask, copy_u, copy_from_u)``.  An upper total from which the open upper
    boxes can no longer reach the bonus threshold is "hopeless": all hopeless totals
    of a mask have the same future (the bonus is out of reach, and the upper total
    matters for nothing else), so only the smallest is solved and the others copy
    it -- bit for bit the values the kernel would compute.
    """
    reach = upper_reachability(rules)
    thr = rules.upper_threshold
    bits = np.zeros(len(masks), dtype=np.int64)
    still_possible = np.zeros(len(masks), dtype=np.int64)  # most the open upper boxes can add
    for b in rules.upper_indices:
        face = rules.boxes[b].face
        filled = (masks >> b) & 1
        bits |= filled << (face - 1)
        still_possible += (1 - filled) * dice.N_DICE * face
    reachable = reach[bits]
    totals = np.arange(reach.shape[1])
    hopeless = reachable & (totals[None, :] + still_possible[:, None] < thr)
    representative = np.argmax(hopeless, axis=1)  # smallest hopeless total (if any)
    solve = reachable & ~hopeless
    rows = np.flatnonzero(hopeless.any(axis=1))
    solve[rows, representative[rows]] = True
    copy = hopeless.copy()
    copy[rows, representative[rows]] = False
    cm, cu = np.nonzero(copy)
    copies = (masks[cm], cu.astype(np.int64), representative[cm].astype(np.int64))
    ok = np.repeat(solve[:, :, None], rules.n_flags, axis=2)
    if rules.n_flags == 2:
        ok[:, :, 1] &= ((masks >> rules.yahtzee_index) & 1).astype(bool)[:, None]
    m, u, f = np.nonzero(ok)
    return (masks[m], u.astype(np.int64), f.astype(np.int64)), copies


def n_states(rules: RuleSet) -> int:
    """Number of reachable states the DP computes (the full card included)."""
    reach = upper_reachability(rules).sum(axis=1)
    total = 0
    for level in [np.array([rules.full_mask])] + masks_by_level(rules):
        for mask in level:
            bits = sum(1 << (rules.boxes[b].face - 1) for b in rules.upper_indices if mask >> b & 1)
            flags = 2 if rules.n_flags == 2 and mask >> rules.yahtzee_index & 1 else 1
            total += int(reach[bits]) * flags
    return total


def load_kernels(rules: RuleSet) -> None:
    """Compile (first run) or load from numba's cache the DP kernel for ``rules``' argument types.

    Calls the kernel on an empty level, so a progress bar started afterwards measures
    the build alone.
    """
    from . import _kernels

    empty = np.zeros(0, dtype=np.int64)
    values = np.zeros((1, rules.upper_cap + 1, rules.n_flags))
    _kernels.solve_lanes(np.zeros(1, dtype=np.int64), empty, empty, empty, values, kernel_args(rules), 0)


def solve(
    rules: RuleSet,
    progress: Callable[[int], None] | None = None,
    threads: int | None = None,
) -> np.ndarray:
    """Compute the full value table of ``rules`` (see the module docstring for the layout).

    ``progress(n)`` is called after each level with the number of masks done.
    ``threads`` sets numba's thread count for this call (the result does not
    depend on it).
    """
    import numba

    from . import _kernels

    cap = rules.upper_cap
    values = np.full((1 << rules.n_boxes, cap + 1, rules.n_flags), np.nan, dtype=np.float64)
    values[rules.full_mask] = 0.0
    args = kernel_args(rules)
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        for masks in masks_by_level(rules):
            (lane_mask, lane_u, lane_f), (copy_mask, copy_u, copy_from) = level_lanes(rules, masks)
            starts = np.append(np.arange(0, len(lane_mask), BLOCK_LANES), len(lane_mask)).astype(np.int64)
            n_chunks = min(len(starts) - 1, 8 * numba.get_num_threads())
            _kernels.solve_lanes(starts, lane_mask, lane_u, lane_f, values, args, n_chunks)
            values[copy_mask, copy_u] = values[copy_mask, copy_from]
            if progress is not None:
                progress(len(masks))
    finally:
        numba.set_num_threads(previous)
    return values

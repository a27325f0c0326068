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

from typing import Callable

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
    """Everything the kernels need after ``(masks, values)``, in their argument order."""
    k = rules.kernel_arrays
    return (
        upper_reachability(rules),
        np.array(rules.upper_indices, dtype=np.int64),
        dice.ADD_DIE,
        dice.REMOVE_DIE,
        dice.KEEP_SIZE,
        dice.ROLL_PROB,
        k["score"],
        k["joker_score"],
        k["box_face"],
        k["yahtzee_roll_face"],
        k["yahtzee_index"],
        k["yahtzee_bonus"],
        k["joker_mode"],
        k["forced_order"],
        k["upper_threshold"],
        k["upper_bonus"],
    )


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
            _kernels.solve_level(masks, values, *args)
            if progress is not None:
                progress(len(masks))
    finally:
        numba.set_num_threads(previous)
    return values

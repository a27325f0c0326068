"""The dynamic program of the value table: a level's lanes solved block by block
(:func:`solve_blocks`, called in threads by :func:`solver.engine.dp.solve`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .turn import average_keeps, best_subkeep, block_final_values


@njit(cache=True, inline="always")
def _solve_block(lo, hi, lane_mask, lane_u, lane_f, values, solved, ra, x, y, succ, work):
    """Solve lanes ``lo .. hi`` into ``values``; ``x``, ``y`` (n_keeps, hi - lo) and the rest are scratch."""
    nl = hi - lo
    n_rolls = ra.score.shape[0]
    roll_offset = ra.add_die.shape[0] - n_rolls
    block_final_values(lo, hi, lane_mask, lane_u, lane_f, solved, ra, x, succ, work)
    average_keeps(x, ra.add_die)
    best_subkeep(x, y, ra.drop_one, ra.n_drop, ra.all_rolls)  # y: R1 on roll rows
    average_keeps(y, ra.add_die)
    best_subkeep(y, x, ra.drop_one, ra.n_drop, ra.all_rolls)  # x: R2 on roll rows
    for j in range(nl):
        work[0, j] = 0.0
    for r in range(n_rolls):
        p = ra.roll_prob[r]
        for j in range(nl):
            work[0, j] += p * x[roll_offset + r, j]
    for j in range(nl):
        values[lane_mask[lo + j], lane_u[lo + j], lane_f[lo + j]] = work[0, j]


@njit(cache=True, nogil=True)
def solve_blocks(block_starts, i0, i1, lane_mask, lane_u, lane_f, values, solved, ra):
    """Solve blocks ``i0 .. i1`` of one level, block ``i`` being lanes ``block_starts[i] .. block_starts[i+1]``.

    ``lane_mask``/``lane_u``/``lane_f`` (n,) int64, sorted by mask; ``values``
    (2**n_boxes, upper_cap + 1, n_flags) float64 is written in place at the lanes; all
    masks with more filled boxes must be solved already.  ``solved`` is a read-only view
    of ``values``, what the helpers read: the same array type as a loaded table's, so the
    simulation and batch advice reuse their compiled code.  Releases the GIL: the Python
    layer runs disjoint block ranges in threads (no parallel compilation to pay for on
    a first run).
    """
    width = 0
    for i in range(i0, i1):
        width = max(width, block_starts[i + 1] - block_starts[i])
    n_keeps = ra.add_die.shape[0]
    n_boxes = ra.box_face.shape[0]
    x_buf = np.empty(n_keeps * width)
    y_buf = np.empty(n_keeps * width)
    succ = np.empty((n_boxes * ra.n_class, width))
    work = np.empty((3, width))
    for i in range(i0, i1):
        lo = block_starts[i]
        hi = block_starts[i + 1]
        x = x_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo))  # C-contiguous: vectorises
        y = y_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo))
        _solve_block(lo, hi, lane_mask, lane_u, lane_f, values, solved, ra, x, y, succ, work)

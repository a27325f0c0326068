"""Grading (exact regret): each recorded decision's loss against a value table's turn tables
(those of the bot itself when it plays that table, else :func:`lane_turn_tables`): the best
option's value minus the one taken, and each roll's luck.  A turn recorded by the Python
engine is graded by the same kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..arrays import MOVE_BOX, MOVE_FINAL, MOVE_KEEP1, MOVE_KEEP2, MOVE_ROLL1, MOVE_ROLL2
from .games import best_box_worth, box_worth
from .rules import NEG_INF, five_kind_bonus, legal_boxes
from .turn import BlockTables, lane_block_tables


# --- grading: each decision's loss against a value table ---------------------------
@njit(cache=True, inline="always")
def best_of(ev, r, subkeeps, n_subkeeps):
    """The value of the best keep of roll ``r`` by ``ev``."""
    best = NEG_INF
    for j in range(n_subkeeps[r]):
        best = max(best, ev[subkeeps[r, j]])
    return best


@njit(cache=True, nogil=True)
def lane_turn_tables(i0, i1, block, l0, lane_mask, lane_u, lane_f, values, ra, tables):
    """The within-turn tables of lanes ``i0 .. i1`` (sorted by mask, several masks per block of
    ``block`` lanes, as the DP packs them) into rows ``lane - l0`` of ``tables``
    (:class:`~solver.engine.arrays.LaneTables`: ``e0``/``e1`` (width, 462), the columns of
    ``succ`` (n_class n_boxes, width)) from the block pass :func:`~.turn.lane_block_tables`: the
    same values as :func:`~.games.group_tables` (the DP's R0, the same maxima of the same sums),
    for many masks with few lanes each at the cost of a few full vectors."""
    e0_all, e1_all, succ_all = tables
    n_keeps = ra.add_die.shape[0]
    n_class = ra.box_face.shape[0] * ra.n_class
    width = min(block, i1 - i0)
    x_buf = np.empty(n_keeps * width)
    y_buf = np.empty(n_keeps * width)
    succ = np.empty((n_class, width))
    work = np.empty((3, width))
    for lo in range(i0, i1, block):
        hi = min(lo + block, i1)
        nl = hi - lo
        x = x_buf[: n_keeps * nl].reshape((n_keeps, nl))  # C-contiguous: vectorises
        y = y_buf[: n_keeps * nl].reshape((n_keeps, nl))
        lane_block_tables(lo, hi, (lane_mask, lane_u, lane_f), values, ra, BlockTables(x, y, succ, work))
        for j in range(nl):
            row = lo + j - l0
            for k in range(n_keeps):
                e0_all[row, k] = x[k, j]
                e1_all[row, k] = y[k, j]
            for c in range(n_class):
                succ_all[c, row] = succ[c, j]


@njit(cache=True, inline="always")
def grade_keeps(i, e0, e1, moves, subkeeps, n_subkeeps, roll_offset, graded):
    """Columns 0, 1, 3, 4 of row ``i`` of ``graded`` (:func:`grade_games`) from the turn's keep
    tables ``e0``/``e1`` (any objective), column 2 and 5 set to 0; returns the keep made with
    one roll left (-1: the turn stopped before)."""
    keep1, keep2 = np.int64(moves[i, MOVE_KEEP1]), np.int64(moves[i, MOVE_KEEP2])
    first = best_of(e1, np.int64(moves[i, MOVE_ROLL1]) - roll_offset, subkeeps, n_subkeeps)
    graded[i, 0] = first - e1[keep1]
    graded[i, 1] = 0.0
    graded[i, 2] = 0.0
    graded[i, 3] = first
    graded[i, 4] = 0.0
    graded[i, 5] = 0.0
    if keep2 >= 0:
        second = best_of(e0, np.int64(moves[i, MOVE_ROLL2]) - roll_offset, subkeeps, n_subkeeps)
        graded[i, 1] = second - e0[keep2]
        graded[i, 4] = second - e1[keep1]
    return keep2


@njit(cache=True, nogil=True)
def grade_games(j0, j1, l0, rec, lane_f, tables, ra, graded):
    """Each decision's loss in the recorded turns ``j0 .. j1`` of ``rec``
    (:class:`~solver.engine.arrays.Recorded`: each turn's lane ``pos_lane``, the filled boxes
    before it ``masks``, the turn ``moves`` (``MOVE_ROLL1`` ..)) against the lanes' tables
    ``tables`` (:class:`~solver.engine.arrays.LaneTables` of :func:`~.games.group_tables`, rows
    from ``l0``; ``lane_f`` (lanes,) the lanes' flags).

    Output, caller-allocated, ``graded`` (n, 6) float64, in expected points by the table:

    * 0 .. 2 -- the losses: the best option's value minus that of the one taken, for the keep
      with two rolls left, the keep with one (0 when the turn stopped before it) and the box
      (the five-of-a-kind bonus is the same in every box, so it drops out);
    * 3 -- the value of the first roll (its best keep's), what column 4 .. 5 go on from;
    * 4, 5 -- the luck of the second and third roll: the value of the roll minus that of the
      keep it was rolled from (0 where the turn stopped before).

    A turn's points are the value of the first roll minus the losses plus the luck, the
    next state's value deducted: so the sums over a game are ``score = V(empty) - losses +
    luck``, each luck term of mean 0.
    """
    pos_lane, masks, moves = rec
    e0_all, e1_all, succ_all = tables
    subkeeps, n_subkeeps = ra.subkeeps, ra.n_subkeeps
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    flag_rows, roll_face = ra.flag_rows, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    roll_offset = ra.add_die.shape[0] - score.shape[0]
    for i in range(j0, j1):
        lane = pos_lane[i] - l0
        e0 = e0_all[lane]
        keep2 = grade_keeps(i, e0, e1_all[lane], moves, subkeeps, n_subkeeps, roll_offset, graded)
        r = np.int64(moves[i, MOVE_FINAL]) - roll_offset
        taken = np.int64(moves[i, MOVE_BOX])
        mask = masks[i]
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        best = best_box_worth(r, bits, use_joker, succ_all, lane, score, joker_score, box_face, flag_rows)
        chosen = NEG_INF  # (a box that is not legal loses everything: never recorded)
        if (bits >> taken) & 1:
            chosen = box_worth(r, taken, use_joker, succ_all, lane, score, joker_score, box_face, flag_rows)
        graded[i, 2] = best - chosen
        if keep2 >= 0 and keep2 != np.int64(moves[i, MOVE_ROLL2]):  # rolled a third time
            extra = five_kind_bonus(mask, r, lane_f[pos_lane[i]], roll_face, rows_mask, bonus)
            graded[i, 5] = best + extra - e0[keep2]

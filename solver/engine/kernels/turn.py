"""One turn for a vector of states ("lanes"): the successor rows, ``R0`` of every roll, then
the keep and reroll stages (the recursion of :mod:`solver.engine.kernels`), and the
within-turn decision tables the bots and the batch advice read (:func:`turn_tables`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .rules import (
    NEG_INF,
    ONE_SIXTH,
    allowed_bits,
    five_kind_bonus,
    legal_boxes,
    low_bit_index,
    objective,
    placement_score,
    roll_offset_of,
    score_class,
    step,
)


@njit(cache=True)
def successors(mask, first, m, col, lane_u, lane_f, values, scale, ra, succ):
    """Successor rows of lanes ``first .. first+m`` (one mask) into columns ``col .. col+m``,
    the values to come times ``scale`` (1.0 in the DP: the same numbers; a triple column's
    ``kappa``).

    ``succ[b * n_class + c, col + j]`` (``n_class = ra.n_class``, 6 for five dice) = ``objective(step(...))`` of allowed box ``b`` for score
    class ``c`` (:func:`score_class`): an upper box ``c * face``; a five-of-a-kind row
    with a flag ``c = 0`` scores 0 and ``c = 1`` scores 50; any other box ``c = 0`` with
    score 0 (the roll's score is added per roll).  Rows of boxes the mask does not allow
    hold -inf.  Returns the allowed bits.
    """
    box_face, flag_rows = ra.box_face, ra.flag_rows
    thr, bonus, cap = ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    n_boxes = box_face.shape[0]
    n_class = ra.n_class
    for row in range(n_boxes * n_class):
        for j in range(m):
            succ[row, col + j] = NEG_INF
    allowed = allowed_bits(mask, n_boxes, ra.order)
    rest = allowed
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        nxt = values[mask | (1 << b)]
        face = box_face[b]
        flag_row = flag_rows[b] == 1
        classes = n_class if face > 0 else (2 if flag_row else 1)
        for c in range(classes):
            s = c * face if face > 0 else 50 * c
            row = b * n_class + c
            for j in range(m):
                points, u, f = step(lane_u[first + j], lane_f[first + j], s, face, flag_row, thr, bonus, cap)
                succ[row, col + j] = objective(points, scale * nxt[u, f])
    return allowed


@njit(cache=True)
def _exact_rolls(rolls, mask, m, col, scol, first, lane_f, ra, succ, x, best_box):
    """R0 of ``rolls`` (roll indices) for lanes ``first .. first+m`` of ``mask`` into columns
    ``col ..`` of ``x``, from columns ``scol ..`` of ``succ``.

    Goes through :func:`legal_boxes` (Joker placement) and adds the roll's bonus.
    ``best_box[r, col + j]`` gets the chosen box (lowest index among equals) unless
    ``best_box`` has zero rows.
    """
    score, joker_score, box_face, flag_rows, roll_face = (
        ra.score,
        ra.joker_score,
        ra.box_face,
        ra.flag_rows,
        ra.roll_face,
    )
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    n_class = ra.n_class
    roll_offset = x.shape[0] - score.shape[0]
    track = best_box.shape[0] > 0
    for r in rolls:
        row = roll_offset + r
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        for j in range(m):
            x[row, col + j] = NEG_INF
        rest = bits
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            s = placement_score(r, b, use_joker, score, joker_score)
            cand, add = score_class(b, s, box_face[b], flag_rows[b] == 1, n_class)
            for j in range(m):
                v = add + succ[cand, scol + j]
                if v > x[row, col + j]:
                    x[row, col + j] = v
                    if track:
                        best_box[r, col + j] = b
        extra = five_kind_bonus(mask, r, 1, roll_face, rows_mask, bonus)  # the same for every flagged lane
        if extra > 0:
            for j in range(m):
                if lane_f[first + j] == 1:
                    x[row, col + j] += extra


@njit(cache=True, inline="always")
def segment_end(lane_mask, first, hi):
    """End of the run of lanes with the same mask that starts at ``first`` (lanes are sorted)."""
    last = first + 1
    while last < hi and lane_mask[last] == lane_mask[first]:
        last += 1
    return last


@njit(cache=True, inline="always")
def block_final_values(lo, hi, lane_mask, lane_u, lane_f, values, ra, x, succ, work):
    """R0 of every lane of a block (lanes ``lo .. hi``, several masks) into the roll rows of ``x``.

    An ordinary roll may go in any allowed box, so with -inf in the rows of boxes a
    lane's mask does not allow, all masks of the block share one pass per (roll, box):
    ``work[0]`` is the best class-0 row (the same for every roll), then each box where
    the roll scores more than 0 is tried.  The running maximum is written out of place
    (rows 1, 2 of ``work``): an in-place one compiles to slow masked stores.
    Five-of-a-kind rolls go through :func:`_exact_rolls` per mask.
    """
    first = lo
    while first < hi:
        last = segment_end(lane_mask, first, hi)
        successors(lane_mask[first], first, last - first, first - lo, lane_u, lane_f, values, 1.0, ra, succ)
        first = last
    final_values(lo, hi, lane_mask, lane_f, ra, x, succ, work)


@njit(cache=True, inline="always")
def final_values(lo, hi, lane_mask, lane_f, ra, x, succ, work):
    """R0 of lanes ``lo .. hi`` into the roll rows of ``x`` from their successor rows, columns
    ``0 .. hi - lo`` of ``succ`` (see :func:`block_final_values`); the lanes need not be
    sorted by mask (a run of equal masks takes one :func:`_exact_rolls`).

    A five of a kind is an ordinary roll too while a five-of-a-kind row is open (no Joker, no
    bonus: :func:`legal_boxes` gives the allowed boxes, :func:`five_kind_bonus` 0), so every
    roll takes the shared pass and only the lanes whose five-of-a-kind rows are all filled
    redo the six five-of-a-kind rolls exactly."""
    nl = hi - lo
    n_boxes = ra.box_face.shape[0]
    n_rolls = ra.score.shape[0]
    roll_offset = x.shape[0] - n_rolls
    n_pos, pos_boxes, score, box_face = ra.n_pos, ra.pos_boxes, ra.score, ra.box_face
    flag_rows, rows_mask, n_class = ra.flag_rows, ra.rows_mask, ra.n_class
    for j in range(nl):
        work[0, j] = NEG_INF
    for b in range(n_boxes):
        for j in range(nl):
            work[0, j] = max(work[0, j], succ[b * n_class, j])
    for r in range(n_rolls):
        src = 0
        for i in range(n_pos[r]):
            b = pos_boxes[r, i]
            cand, add = score_class(b, score[r, b], box_face[b], flag_rows[b] == 1, n_class)
            dst = 2 if src == 1 else 1
            for j in range(nl):
                work[dst, j] = max(work[src, j], add + succ[cand, j])
            src = dst
        for j in range(nl):
            x[roll_offset + r, j] = work[src, j]
    no_tracking = np.empty((0, 0), dtype=np.int64)
    first = lo
    while first < hi:
        last = segment_end(lane_mask, first, hi)
        col = first - lo
        if rows_mask != 0 and (lane_mask[first] & rows_mask) == rows_mask:  # Joker placement, bonus
            _exact_rolls(
                ra.five_rolls,
                lane_mask[first],
                last - first,
                col,
                col,
                first,
                lane_f,
                ra,
                succ,
                x,
                no_tracking,
            )
        first = last


@njit(cache=True)
def average_keeps(x, add_die):
    """In place: E(K) = mean over faces of E(K + face), for every keep of fewer than all the dice.

    ``x`` (n_keeps, nl) (462 keeps of five dice, 924 of six); rows of the rolls are the input.  Indexing is kept 2-D without
    row views (views cost reference counting; flat offsets defeat vectorisation).
    """
    nl = x.shape[1]
    for k in range(add_die.shape[0] - 1, -1, -1):
        if add_die[k, 0] < 0:
            continue
        a0 = add_die[k, 0]
        a1 = add_die[k, 1]
        a2 = add_die[k, 2]
        a3 = add_die[k, 3]
        a4 = add_die[k, 4]
        a5 = add_die[k, 5]
        for j in range(nl):
            x[k, j] = (x[a0, j] + x[a1, j] + x[a2, j] + x[a3, j] + x[a4, j] + x[a5, j]) * ONE_SIXTH


@njit(cache=True)
def best_subkeep(x, y, drop_one, n_drop, all_rolls):
    """y[K] = max over sub-multisets S of K of x[S], one die at a time (keeps in size order).

    Under ``all-rolls`` a roll may not be kept whole (a reroll throws at least one
    die): its row is the best over its proper sub-multisets only.  Out of place on
    purpose: an in-place running max compiles to masked stores, slow on some processors.
    """
    nl = x.shape[1]
    roll_offset = roll_offset_of(drop_one)
    for j in range(nl):
        y[0, j] = x[0, j]
    for k in range(1, drop_one.shape[0]):
        n = n_drop[k]
        a = drop_one[k, 0]
        if n == 1:
            for j in range(nl):
                y[k, j] = max(x[k, j], y[a, j])
        elif n == 2:
            b = drop_one[k, 1]
            for j in range(nl):
                y[k, j] = max(max(x[k, j], y[a, j]), y[b, j])
        elif n == 3:
            b = drop_one[k, 1]
            c = drop_one[k, 2]
            for j in range(nl):
                y[k, j] = max(max(max(x[k, j], y[a, j]), y[b, j]), y[c, j])
        elif n == 4:
            b = drop_one[k, 1]
            c = drop_one[k, 2]
            d = drop_one[k, 3]
            for j in range(nl):
                y[k, j] = max(max(max(max(x[k, j], y[a, j]), y[b, j]), y[c, j]), y[d, j])
        elif n == 5:
            b = drop_one[k, 1]
            c = drop_one[k, 2]
            d = drop_one[k, 3]
            e = drop_one[k, 4]
            for j in range(nl):
                y[k, j] = max(max(max(max(max(x[k, j], y[a, j]), y[b, j]), y[c, j]), y[d, j]), y[e, j])
        else:  # six distinct faces: six dice only
            b = drop_one[k, 1]
            c = drop_one[k, 2]
            d = drop_one[k, 3]
            e = drop_one[k, 4]
            g = drop_one[k, 5]
            for j in range(nl):
                y[k, j] = max(
                    max(max(max(max(max(x[k, j], y[a, j]), y[b, j]), y[c, j]), y[d, j]), y[e, j]), y[g, j]
                )
    if all_rolls:
        for k in range(roll_offset, drop_one.shape[0]):
            for j in range(nl):
                y[k, j] = NEG_INF
            for i in range(n_drop[k]):
                a = drop_one[k, i]
                for j in range(nl):
                    y[k, j] = max(y[k, j], y[a, j])


@njit(cache=True)
def turn_tables(mask, lane_u, lane_f, values, ra, e0, e1, succ, col, best_box):
    """Within-turn decision tables of one mask for the given lanes (for bots and batch advice).

    ``lane_u``/``lane_f`` (nl,) int64: the states ``(u, f)`` wanted.  Outputs,
    caller-allocated:

    * ``e0`` (462, nl) float64 -- value of keeping K and rerolling the rest with one
      roll left (then scoring); for 5-dice keeps, the value of scoring that roll now
      (-inf under ``all-rolls``: stopping early is not allowed);
    * ``e1`` (462, nl) float64 -- the same with two rolls left; 5-dice keeps as in ``e0``;
    * ``succ`` (6 n_boxes, >= col + nl) -- the successor rows (:func:`successors`) in
      columns ``col .. col + nl``;
    * ``best_box`` (252, nl) int64 -- the box to fill with each roll and no rolls left
      (the lowest box index among equal values), unless it has zero rows.

    The best keep for roll ``r`` with 2 (1) rolls left is the sub-keep of ``r``
    (``dice.SUBKEEPS``) with the largest ``e1`` (``e0``).
    """
    nl = lane_u.shape[0]
    # np.int64(0), not a literal 0: a literal argument makes numba compile another
    # specialisation of the helper instead of reusing the DP's
    start = np.int64(0)
    successors(mask, start, nl, col, lane_u, lane_f, values, 1.0, ra, succ)
    _exact_rolls(ra.every_roll, mask, nl, start, col, start, lane_f, ra, succ, e0, best_box)
    turn_from_final(e0, e1, ra)


@njit(cache=True)
def turn_from_final(e0, e1, ra):
    """The keep tables ``e0``/``e1`` (see :func:`turn_tables`) from ``R0`` in the roll rows of ``e0``
    -- whatever the objective that made ``R0``."""
    nl = e0.shape[1]
    n_keeps = ra.add_die.shape[0]
    roll_offset = n_keeps - ra.score.shape[0]
    average_keeps(e0, ra.add_die)
    best_subkeep(e0, e1, ra.drop_one, ra.n_drop, ra.all_rolls)
    average_keeps(e1, ra.add_die)
    for k in range(roll_offset, n_keeps):
        for j in range(nl):
            e1[k, j] = e0[k, j]
    if ra.all_rolls:
        for k in range(roll_offset, n_keeps):
            for j in range(nl):
                e0[k, j] = NEG_INF
                e1[k, j] = NEG_INF


#: A block's within-turn tables (:func:`lane_block_tables`), caller-allocated: ``x``/``y``
#: (n_keeps, nl) C-contiguous, ``succ`` (n_class n_boxes, >= nl), ``work`` (3, >= nl) scratch.
BlockTables = namedtuple("BlockTables", ["x", "y", "succ", "work"])


@njit(cache=True, nogil=True)
def lane_block_tables(lo, hi, lanes, values, ra, block):
    """The within-turn tables of lanes ``lo .. hi`` of ``lanes`` (:class:`~solver.engine.arrays.
    States`: each lane's ``mask``, ``u``, ``f``, sorted by mask; a block may hold several masks,
    as the DP packs them) into ``block`` (:class:`BlockTables`, ``nl = hi - lo`` columns, lane
    ``lo + j`` in column ``j``): ``x`` the keep table with one roll left (``e0``), ``y`` with
    two (``e1``), both float64 (n_keeps, nl) -- the rows of keeping all the dice the value of
    scoring the roll now (-inf under ``all-rolls``) -- and ``succ`` the successor rows.

    The same values as :func:`turn_tables` bit for bit (each lane's column is its own
    arithmetic, in the same order): the one block pass of the six-dice games
    (:func:`~.games.play_lane_blocks`) and of grading (:func:`~.grading.lane_turn_tables`)."""
    lane_mask, lane_u, lane_f = lanes
    x, y, succ, work = block
    nl = hi - lo
    n_keeps = ra.add_die.shape[0]
    block_final_values(lo, hi, lane_mask, lane_u, lane_f, values, ra, x, succ, work)
    average_keeps(x, ra.add_die)  # x: e0 (the roll rows: R0)
    best_subkeep(x, y, ra.drop_one, ra.n_drop, ra.all_rolls)
    average_keeps(y, ra.add_die)  # y: e1 below all the dice
    for k in range(n_keeps - ra.score.shape[0], n_keeps):  # keeping all the dice: stop and score now
        for j in range(nl):
            v = NEG_INF if ra.all_rolls else x[k, j]
            x[k, j] = v
            y[k, j] = v

"""Play for a target: the probability of reaching a score.

``W(state, t)`` is the largest probability, over strategies, of scoring at least ``t`` more
points from the start of a turn in ``state``: 1 for ``t <= 0``, 0 on the full card for ``t >=
1``.  It obeys the turn recursion of :mod:`solver.engine.kernels` with one change: what a
placement is worth is :func:`target_objective` (the next state's probability of the points
still needed after this one), not :func:`~.rules.objective`.  The keep and reroll stages
(:func:`~.turn.average_keeps`, :func:`~.turn.best_subkeep`) are the same functions.

Storage: one array ``w`` (float32 in a table, float64 while the DP runs); state ``(mask, u,
f)`` has ``W(state, t) = 1`` for ``t <= w_lead[mask, u, f]``, ``W(state, t) = w[w_off[mask, u,
f] + t - 1]`` for ``w_lead < t <= w_len[mask, u, f]`` and 0 beyond (a table stores of each row
only the middle between its run of 1.0 and its run of 0; ``w_off`` is where ``t = 1`` would
be, so ``w_off + w_lead`` is the first value stored).  Lanes of the DP are one state and a run
of consecutive ``t``: its placements are computed once per (roll, box) and the lanes read
consecutive entries.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..arrays import COL_DICE, COL_MASK
from .games import play_keeps, record_box, store_lane_tables
from .rules import (
    NEG_INF,
    allowed_bits,
    five_kind_bonus,
    legal_boxes,
    low_bit_index,
    placement_score,
    roll_offset_of,
    step,
)
from .streams import stream_base
from .turn import average_keeps, turn_from_final
from .win import WinMix, score_best_win_box, tie_mix


@njit(cache=True, inline="always")
def target_objective(w, off, lead, length, need):
    """Probability of scoring at least ``need`` more points from a state whose row is
    ``(off, lead, length)`` (see "Storage" above): 1 up to ``lead`` (and once nothing is
    needed), 0 beyond ``length``."""
    if need <= lead:
        return 1.0
    if need > length:
        return 0.0
    return w[off + need - 1]


@njit(cache=True, inline="always")
def fill_lanes(x, row, col, n, value):
    """``x[row, col + j] = value`` for ``j < n``.  Unsigned offsets: numba wraps a negative
    (signed) index around element by element, which keeps a loop scalar."""
    at = np.uint64(col)
    for j in range(np.uint64(n)):
        x[row, at + j] = value


@njit(cache=True, inline="always")
def copy_lanes(x, src, row, col, n):
    """``x[row, col + j] = x[src, col + j]`` for ``j < n`` (unsigned offsets: :func:`fill_lanes`)."""
    at = np.uint64(col)
    for j in range(np.uint64(n)):
        x[row, at + j] = x[src, at + j]


@njit(cache=True, inline="always")
def target_max_into(x, row, col, n, w, off, lead, length, t0, shift):
    """``x[row, col + j] = max(x[row, col + j], target_objective(w, off, lead, length, t0 + j -
    shift))`` for ``j < n``, in three runs (certain, read ``w``, out of reach) that vectorise."""
    j1 = min(max(lead + shift - t0 + 1, 0), n)
    j2 = min(max(length + shift - t0 + 1, j1), n)
    fill_lanes(x, row, col, j1, 1.0)
    # unsigned offsets (see fill_lanes); each run starts at a valid, non-negative index
    at = np.uint64(col + j1)
    base = np.uint64(off + t0 - shift - 1 + j1)
    for j in range(np.uint64(j2 - j1)):
        x[row, at + j] = max(x[row, at + j], w[base + j])
    at = np.uint64(col + j2)
    for j in range(np.uint64(n - j2)):
        x[row, at + j] = max(x[row, at + j], 0.0)


@njit(cache=True)
def _target_rolls(mask, u, f, t0, n, col, target, ra, x, best_box):
    """R0 for target play: ``x[roll_offset + r, col + j]`` = best over the legal boxes of roll
    ``r`` of :func:`target_objective` (the table ``target``,
    :class:`~solver.engine.arrays.TargetArrays`) with ``t0 + j`` points needed, lanes ``j < n`` of
    one state ``(mask, u, f)``.  ``best_box[r, col + j]`` gets the chosen box (lowest index
    among equals) unless ``best_box`` has zero rows.

    Without tracking, an ordinary roll starts from the best zero placement (row ``zero``,
    the same for every roll) and tries only the boxes where it scores: a zero placement is
    never better than a scoring one in the same box (fewer points, a lower upper total, no
    flag), so the maximum is the same, as in :func:`~.turn.block_final_values`.
    """
    w, w_off, w_lead, w_len = target
    score, joker_score, box_face, flag_rows, roll_face = (
        ra.score,
        ra.joker_score,
        ra.box_face,
        ra.flag_rows,
        ra.roll_face,
    )
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    thr, ub, cap = ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    roll_offset = x.shape[0] - score.shape[0]
    track = best_box.shape[0] > 0
    if not track:
        n_pos, pos_boxes = ra.n_pos, ra.pos_boxes
        allowed = allowed_bits(mask, box_face.shape[0], order)
        # the best zero placement, in roll row 0's place for now (row 0 of x is a keep row, free)
        fill_lanes(x, 0, col, n, NEG_INF)
        rest = allowed
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            points, u2, f2 = step(u, f, 0, box_face[b], flag_rows[b] == 1, thr, ub, cap)
            nxt = mask | (1 << b)
            target_max_into(
                x, 0, col, n, w, w_off[nxt, u2, f2], w_lead[nxt, u2, f2], w_len[nxt, u2, f2], t0, points
            )
        for r in range(score.shape[0]):
            if roll_face[r] > 0:
                continue
            row = roll_offset + r
            copy_lanes(x, 0, row, col, n)
            for i in range(n_pos[r]):
                b = pos_boxes[r, i]
                if not (allowed >> b) & 1:
                    continue
                s = score[r, b]
                points, u2, f2 = step(u, f, s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
                nxt = mask | (1 << b)
                target_max_into(
                    x, row, col, n, w, w_off[nxt, u2, f2], w_lead[nxt, u2, f2], w_len[nxt, u2, f2], t0, points
                )
    for r in range(score.shape[0]):
        if not track and roll_face[r] == 0:
            continue
        row = roll_offset + r
        fill_lanes(x, row, col, n, NEG_INF)
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        extra = five_kind_bonus(mask, r, f, roll_face, rows_mask, bonus)
        rest = bits
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            s = placement_score(r, b, use_joker, score, joker_score)
            points, u2, f2 = step(u, f, s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
            nxt = mask | (1 << b)
            off = w_off[nxt, u2, f2]
            lead = w_lead[nxt, u2, f2]
            length = w_len[nxt, u2, f2]
            shift = points + extra
            if track:
                for j in range(n):
                    v = target_objective(w, off, lead, length, t0 + j - shift)
                    if v > x[row, col + j]:
                        x[row, col + j] = v
                        best_box[r, col + j] = b
            else:
                target_max_into(x, row, col, n, w, off, lead, length, t0, shift)


@njit(cache=True, nogil=True)
def solve_target_blocks(block_state, block_t0, block_n, i0, i1, states, target, ra):
    """Solve blocks ``i0 .. i1``: block ``i`` is state ``(mask[k], u[k], f[k])`` of ``states``
    (:class:`~solver.engine.arrays.States`) with ``k = block_state[i]`` and targets ``t =
    block_t0[i] .. + block_n[i]``, written to ``w[off[state] + t - 1]`` of ``target``
    (:class:`~solver.engine.arrays.TargetArrays`, float64).  States after these must be solved
    already."""
    masks, us, fs = states
    w, w_off = target.w, target.off
    n_keeps = ra.add_die.shape[0]
    n_rolls = ra.score.shape[0]
    roll_offset = n_keeps - n_rolls
    width = 0
    for i in range(i0, i1):
        width = max(width, block_n[i])
    x_buf = np.empty(n_keeps * width)
    no_tracking = np.empty((0, 0), dtype=np.int64)
    for i in range(i0, i1):
        k = block_state[i]
        n = block_n[i]
        x = x_buf[: n_keeps * n].reshape((n_keeps, n))
        mask, u, f = masks[k], us[k], fs[k]
        _target_rolls(mask, u, f, block_t0[i], n, np.int64(0), target, ra, x, no_tracking)
        average_keeps(x, ra.add_die)
        _best_subkeep_in_place(x, ra.drop_one, ra.n_drop, ra.all_rolls)
        average_keeps(x, ra.add_die)
        _best_subkeep_in_place(x, ra.drop_one, ra.n_drop, ra.all_rolls)
        # the mean over rolls, in keep row 0 of x (free now); this loop still compiles to scalar
        # multiplies (about 6% of a block's time), the roll order per lane as before
        fill_lanes(x, 0, np.int64(0), n, 0.0)
        for r in range(n_rolls):
            p = ra.roll_prob[r]
            for j in range(n):
                x[0, j] += p * x[roll_offset + r, j]
        base = np.uint64(w_off[mask, u, f] + block_t0[i] - 1)  # unsigned: see fill_lanes
        for j in range(np.uint64(n)):
            w[base + j] = x[0, j]


@njit(cache=True)
def _best_subkeep_in_place(x, drop_one, n_drop, all_rolls):
    """:func:`best_subkeep` in place, for the target DP (its rows below five dice are then
    overwritten by :func:`average_keeps` or unused): ``x[K]`` = max over sub-multisets of
    ``K``, keeps in size order (a keep's sub-multisets are done before it).  One array
    instead of two halves the block's memory (the passes read it from the L2 cache); one
    argument keeps the loops free of the aliasing checks that two views of one array need.
    The same roll rows as :func:`best_subkeep` (a maximum is exact whatever its order).
    Its own copy of the loops on purpose: one inline row helper shared with
    :func:`best_subkeep` and called with the same array twice made the target DP about 20%
    slower (2026-12-02, one thread, a reduced game)."""
    nl = x.shape[1]
    roll_offset = roll_offset_of(drop_one)
    for k in range(1, drop_one.shape[0]):
        n = n_drop[k]
        a = drop_one[k, 0]
        if all_rolls and k >= roll_offset:
            # a roll is not kept whole: its own value gives way to a sub-multiset's
            for j in range(nl):
                x[k, j] = x[a, j]
        if n == 1:
            for j in range(nl):
                x[k, j] = max(x[k, j], x[a, j])
        elif n == 2:
            b = drop_one[k, 1]
            for j in range(nl):
                x[k, j] = max(max(x[k, j], x[a, j]), x[b, j])
        elif n == 3:
            b = drop_one[k, 1]
            c = drop_one[k, 2]
            for j in range(nl):
                x[k, j] = max(max(max(x[k, j], x[a, j]), x[b, j]), x[c, j])
        elif n == 4:
            b = drop_one[k, 1]
            c = drop_one[k, 2]
            d = drop_one[k, 3]
            for j in range(nl):
                x[k, j] = max(max(max(max(x[k, j], x[a, j]), x[b, j]), x[c, j]), x[d, j])
        else:
            b = drop_one[k, 1]
            c = drop_one[k, 2]
            d = drop_one[k, 3]
            e = drop_one[k, 4]
            for j in range(nl):
                x[k, j] = max(max(max(max(max(x[k, j], x[a, j]), x[b, j]), x[c, j]), x[d, j]), x[e, j])


@njit(cache=True, nogil=True)
def target_turn_tables(mask, lane_u, lane_f, lane_t, target, ra, e0, e1, best_box):
    """Within-turn tables of target play (as :func:`~.turn.turn_tables`, in probabilities, by the
    table ``target``) for lanes ``(mask, lane_u[j], lane_f[j])`` with ``lane_t[j] >= 1`` points
    still needed."""
    for j in range(lane_u.shape[0]):
        _target_rolls(
            mask, lane_u[j], lane_f[j], lane_t[j], np.int64(1), np.int64(j), target, ra, e0, best_box
        )
    turn_from_final(e0, e1, ra)


@njit(cache=True, nogil=True)
def target_group_tables(g0, g1, l0, group_mask, group_lane, lane_u, lane_f, lane_t, target, ra, tables):
    """Target-play tables of groups ``g0 .. g1`` by the table ``target`` (one mask each; lanes from
    ``l0`` on are rows ``lane - l0`` of ``tables.e0``/``tables.e1`` (width, 462))."""
    e0_all, e1_all = tables.e0, tables.e1
    n_keeps = ra.add_die.shape[0]
    no_tracking = np.empty((0, 0), dtype=np.int64)
    for grp in range(g0, g1):
        a = group_lane[grp]
        nl = group_lane[grp + 1] - a
        e0 = np.empty((n_keeps, nl))
        e1 = np.empty((n_keeps, nl))
        u = lane_u[a : a + nl].copy()
        f = lane_f[a : a + nl].copy()
        t = lane_t[a : a + nl].copy()
        target_turn_tables(group_mask[grp], u, f, t, target, ra, e0, e1, no_tracking)
        store_lane_tables(e0, e1, e0_all, e1_all, a - l0)


@njit(cache=True, nogil=True)
def play_target_games(j0, j1, l0, pos_lane, need, batch, tables, target, tol, ra):
    """Play the turn of games ``j0 .. j1`` of ``batch`` (:class:`~solver.engine.arrays.GameBatch`;
    ``need[j] >= 1`` points still needed) for the target: keeps from the tables of
    :func:`target_group_tables`, then the legal box with the largest probability by ``target``
    (ties within ``tol``: the first in card order); ``batch.moves`` (n, N_MOVES) int16 records
    each game's turn (zero rows: none)."""
    games, ids, seed_mixed, game0, moves = batch
    e0_all, e1_all = tables.e0, tables.e1
    add_die, keep_size, subkeeps, n_subkeeps = ra.add_die, ra.keep_size, ra.subkeeps, ra.n_subkeeps
    nb = ra.box_face.shape[0]
    roll_offset = add_die.shape[0] - ra.score.shape[0]
    # target play is win play against one known final, ties worth nothing: the value of each
    # box is its target_objective, bit for bit (1.0 * W(need) + 0.0 * W(need + 1))
    qt = np.empty(2)
    qc = np.empty(2)
    tie_mix(np.ones(1), 0, 1, 0.0, qt, qc)
    vals = np.empty(nb)
    for i in range(j0, j1):
        lane = pos_lane[i] - l0
        base = stream_base(seed_mixed, game0 + ids[i])
        held, k = play_keeps(
            base, np.int64(games[i, nb + COL_DICE]), e0_all[lane], e1_all[lane], tol,
            add_die, keep_size, subkeeps, n_subkeeps, roll_offset, moves, i,
        )  # fmt: skip
        games[i, nb + COL_DICE] = k
        mask = np.int64(games[i, nb + COL_MASK])
        score_best_win_box(games, i, held - roll_offset, WinMix(need[i], qt, qc, 2), target, tol, ra, vals)
        record_box(moves, i, held, mask, np.int64(games[i, nb + COL_MASK]))


@njit(cache=True, nogil=True)
def points_to_come(lane_mask, lane_u, lane_f, most, sure, ra):
    """``most[state]``: the most points still to come from each lane's state (its best roll in
    every turn), and ``sure[state]``: the most it scores for certain (``W = 1`` up to it), the
    worst roll's best box -- whatever is kept, the dice may come out as that roll last, and
    keeping every die of it gets its best box; from ``most``/``sure`` of the states after it
    (the full card's 0)."""
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    flag_rows, roll_face = ra.flag_rows, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    thr, ub, cap = ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    for i in range(lane_mask.shape[0]):
        mask, u, f = lane_mask[i], lane_u[i], lane_f[i]
        best = 0
        worst = np.int64(1) << 40
        for r in range(score.shape[0]):
            bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
            extra = five_kind_bonus(mask, r, f, roll_face, rows_mask, bonus)
            best_sure = np.int64(-1) << 40
            rest = bits
            while rest:
                b = low_bit_index(rest)
                rest &= rest - 1
                s = placement_score(r, b, use_joker, score, joker_score)
                points, u2, f2 = step(u, f, s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
                nxt = mask | (1 << b)
                best = max(best, points + extra + most[nxt, u2, f2])
                best_sure = max(best_sure, points + extra + sure[nxt, u2, f2])
            worst = min(worst, best_sure)
        most[mask, u, f] = best
        sure[mask, u, f] = worst


@njit(cache=True, nogil=True)
def trim_rows(src, starts, lengths, lead, end):
    """For rows ``i`` of float64 probabilities ``src[starts[i] : starts[i] + lengths[i]]``
    (targets ``1 .. lengths[i]``): ``lead[i]``, how many start with a value that is 1.0 in
    float32, and ``end[i]``, the last target not 0 in float32 (``lead <= end``)."""
    one = np.float32(1.0)
    zero = np.float32(0.0)
    for i in range(starts.shape[0]):
        s, n = starts[i], lengths[i]
        a = 0
        while a < n and np.float32(src[s + a]) == one:
            a += 1
        b = n
        while b > a and np.float32(src[s + b - 1]) == zero:
            b -= 1
        lead[i] = a
        end[i] = b


@njit(cache=True, nogil=True)
def pack_rows(src, starts, lead, end, dst, dst_start):
    """``dst[dst_start[i] + k] = float32(src[starts[i] + lead[i] + k])`` for ``k < end[i] -
    lead[i]``: the middles of the rows of :func:`trim_rows`, rounded to the nearest float32."""
    for i in range(starts.shape[0]):
        a = starts[i] + lead[i]
        d = dst_start[i]
        for k in range(end[i] - lead[i]):
            dst[d + k] = np.float32(src[a + k])

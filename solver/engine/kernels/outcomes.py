"""The distribution of the final score.

Expected-score play moves probability between states; the points it scores on the way are
tracked as a distribution over "points so far" per state.  Per turn, each state's turn is
resolved into its outcomes -- the probability of ending the turn with each roll, and the box
that roll goes in -- by pushing probability forward through the same decision tables the bots
use (:func:`~.turn.turn_tables`' numbers), with the bots' tie rules (:func:`~.games.best_keep`,
for every lane at once :func:`_keep_tables`; boxes within ``tol`` of the best: the first in
card order).  Lanes go through each step together, a block of masks at a time (long vectors,
as in the DP); each lane's additions come in the order of a lane alone, so the numbers do not
depend on the blocks.  The outcomes are merged by (box, score, bonus) and applied to the next
states' rows (packed: only the points a state's row can hold, see
``solver.engine.distribution._Rows``).

The points still to come under expected-score play, as a distribution per card state
(:func:`residual_rows`): the row of a state is the mix of its turn's outcomes' rows, each
shifted by the points the turn scores.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .rules import (
    NEG_INF,
    ONE_SIXTH,
    five_kind_bonus,
    legal_boxes,
    low_bit_index,
    placement_score,
    score_class,
    step,
)
from .turn import best_subkeep, final_values, segment_end, successors, turn_from_final

Outcomes = namedtuple("Outcomes", ["src", "dst", "gain", "count", "prob"])
"""A turn's outcomes (:func:`turn_outcomes`), (room,) each: lane ``src`` moves with probability
``prob`` to the flat state ``dst``, scoring ``gain`` points, ``count`` its bonuses and flag."""


@njit(cache=True, inline="always")
def _push_rolls(mass, part, add_die):
    """Roll the dice not kept, every lane at once: the probability on each keep moves to the
    rolls it can become (``mass`` (462, lanes), in place: keeps of fewer than five dice end at
    0; ``part`` (lanes,) scratch).  Each lane's additions come in one fixed order."""
    n = mass.shape[1]
    for k in range(add_die.shape[0]):
        if add_die[k, 0] < 0:
            continue
        for j in range(n):
            part[j] = mass[k, j] * ONE_SIXTH
            mass[k, j] = 0.0
        for face in range(6):
            a = add_die[k, face]
            for j in range(n):
                mass[a, j] += part[j]


@njit(cache=True, inline="always")
def final_masses(start_roll, start_rolls_left, roll_prob, add_die, k0, k1, mass, part, final):
    """``final[r, j]``: the probability that lane ``j``'s turn ends with roll ``r``, keeping by
    the keep tables ``k1`` (two rolls left) and ``k0`` (one; (252, lanes):
    :func:`_keep_tables`); a fresh turn when ``start_roll < 0``, else from roll ``start_roll``
    with ``start_rolls_left`` rolls left.  ``mass`` (462, lanes) and ``part`` (lanes,) are
    scratch.  Every lane at once (each sees the additions a lane alone would, in that order)."""
    n_keeps = add_die.shape[0]
    n_rolls = final.shape[0]
    n = final.shape[1]
    roll_offset = n_keeps - n_rolls
    for k in range(n_keeps):
        for j in range(n):
            mass[k, j] = 0.0
    for r in range(n_rolls):
        for j in range(n):
            final[r, j] = 0.0
    if start_roll < 0:
        rolls_left = 2
        for r in range(n_rolls):
            for j in range(n):
                mass[roll_offset + r, j] = roll_prob[r]
    else:
        rolls_left = start_rolls_left
        for j in range(n):
            mass[roll_offset + start_roll, j] = 1.0
    while rolls_left > 0:
        keeps = k1 if rolls_left == 2 else k0
        for r in range(n_rolls):
            row = roll_offset + r
            for j in range(n):
                m = mass[row, j]
                if m == 0.0:
                    continue
                mass[row, j] = 0.0
                keep = keeps[r, j]
                if keep == row:
                    final[r, j] += m  # stop and score
                else:
                    mass[keep, j] += m
        _push_rolls(mass, part, add_die)
        rolls_left -= 1
    for r in range(n_rolls):
        for j in range(n):
            final[r, j] += mass[roll_offset + r, j]


@njit(cache=True, inline="always")
def turn_keeps(e0, e1, tol, ra, k0, k1, scratch):
    """The keep tables ``k0``/``k1`` (252, lanes) of the within-turn tables ``e0``/``e1``
    (:func:`turn_tables`): each roll's keep by the bots' tie rule (:func:`_keep_tables`);
    ``scratch`` (462, lanes)."""
    # each roll's best keep value, all lanes at once (the largest over its sub-keeps: the
    # maximum best_keep finds)
    best_subkeep(e0, scratch, ra.drop_one, ra.n_drop, np.int64(0))
    _keep_tables(e0, scratch, tol, ra.subkeeps, ra.n_subkeeps, k0)
    best_subkeep(e1, scratch, ra.drop_one, ra.n_drop, np.int64(0))
    _keep_tables(e1, scratch, tol, ra.subkeeps, ra.n_subkeeps, k1)


@njit(cache=True, nogil=True)
def turn_outcomes(lane_mask, lane_u, lane_f, values, ra, tol, start_roll, start_rolls_left, rep_u):
    """The outcomes of one turn of expected-score play (the table ``values``) for lanes
    ``(lane_mask[j], lane_u[j], lane_f[j])`` (sorted by mask; a block of several masks goes
    through the tables together, as in the DP: :func:`final_values`, the same numbers as
    :func:`turn_tables`) (target play: :func:`target_turn_runs`, its own kernel: an
    expected-score distribution compiles none of target play's code).

    A fresh turn when ``start_roll < 0``; else the turn goes on from roll ``start_roll``
    with ``start_rolls_left`` rolls left.  Keeps by the tables with the bots' tie rule; the box
    of the best value, ties within ``tol``: the first in card order.  Returns ``(lane, dst,
    gain, count, prob)``: lane ``lane`` moves with probability ``prob`` to the state of flat
    index ``dst`` (``(mask * (cap + 1) + u) * n_flags + f``, ``u`` through ``rep_u[mask, u]``),
    scoring ``gain`` points this turn, and ``count``: the five-of-a-kind bonuses it earns plus
    16 if it scores 50 in a five-of-a-kind row.  Outcomes with the same box, score and bonus
    are merged, in that order; a lane's outcomes come together, lanes in order.

    All lanes go through each step at once (the tables, the keeps, the rolls' masses; each
    roll's box per mask); each lane's additions come in the order a lane alone would make them.
    """
    nl = lane_u.shape[0]
    n_keeps = ra.add_die.shape[0]
    n_rolls = ra.score.shape[0]
    roll_offset = n_keeps - n_rolls
    e0 = np.empty((n_keeps, nl))
    e1 = np.empty((n_keeps, nl))
    succ = np.empty((ra.box_face.shape[0] * ra.n_class, nl))
    work = np.empty((3, nl))
    first = 0
    while first < nl:
        last = segment_end(lane_mask, first, nl)
        successors(lane_mask[first], first, last - first, first, lane_u, lane_f, values, 1.0, ra, succ)
        first = last
    final_values(np.int64(0), np.int64(nl), lane_mask, lane_f, ra, e0, succ, work)
    top = np.empty((n_rolls, nl))  # R0: each roll's best placement, its bonus included
    for r in range(n_rolls):
        for j in range(nl):
            top[r, j] = e0[roll_offset + r, j]
    turn_from_final(e0, e1, ra)
    # the rolls' masses at the end of the turn
    k0 = np.empty((n_rolls, nl), dtype=np.int64)
    k1 = np.empty((n_rolls, nl), dtype=np.int64)
    mass = np.empty((n_keeps, nl))
    part = np.empty(nl)
    final = np.empty((n_rolls, nl))
    turn_keeps(e0, e1, tol, ra, k0, k1, mass)
    final_masses(start_roll, start_rolls_left, ra.roll_prob, ra.add_die, k0, k1, mass, part, final)
    # each mask's boxes
    size = 64 * nl
    i64 = np.int64
    out = Outcomes(
        np.empty(size, i64), np.empty(size, i64), np.empty(size, i64), np.empty(size, i64), np.empty(size)
    )
    n_out = 0
    first = 0
    while first < nl:
        last = segment_end(lane_mask, first, nl)
        merged, key_box, key_score = _mask_boxes(
            lane_mask[first], first, last, lane_f, succ, top, final, ra, tol
        )
        more = 0
        for j in range(last - first):
            for k in range(merged.shape[1]):
                if merged[j, k] != 0.0:
                    more += 1
        if n_out + more > out.src.shape[0]:
            size = max(2 * out.src.shape[0], n_out + more)
            out = Outcomes(
                _grown(out.src, size), _grown(out.dst, size), _grown(out.gain, size), _grown(out.count, size),
                _grown(out.prob, size),
            )  # fmt: skip
        n_out = _mask_outcomes(
            lane_mask[first], first, lane_u, lane_f, merged, key_box, key_score, ra, rep_u, n_out, out
        )
        first = last
    return out.src[:n_out], out.dst[:n_out], out.gain[:n_out], out.count[:n_out], out.prob[:n_out]


@njit(cache=True, inline="always")
def _grown(a, size):
    """``a`` copied into a new array of ``size`` entries (the rest undefined)."""
    out = np.empty(size, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True, inline="always")
def _mask_boxes(mask, lo, hi, lane_f, succ, top, final, ra, tol):
    """Where the rolls of lanes ``lo .. hi`` (one ``mask``) go: ``(merged, key_box, key_score)``,
    ``merged[j, 2 k + e]`` the probability that lane ``lo + j`` scores ``key_score[k]`` in box
    ``key_box[k]`` (with a five-of-a-kind bonus when ``e``), the placements this mask's rolls can
    get numbered in (box, score) order.  Each roll's box: the best value (``top``, R0, but where a
    bonus is in it), then the first box within ``tol`` of it; ``final`` (252, lanes) the rolls'
    masses (:func:`final_masses`)."""
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    flag_rows, roll_face = ra.flag_rows, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    n = hi - lo
    n_rolls = score.shape[0]
    nb = box_face.shape[0]
    max_score = 0
    for r in range(n_rolls):
        for b in range(nb):
            max_score = max(max_score, score[r, b], joker_score[r, b])
    key_of = np.full((nb, max_score + 1), -1, dtype=np.int64)
    for r in range(n_rolls):
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        rest = bits
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            key_of[b, placement_score(r, b, use_joker, score, joker_score)] = 0
    n_keys = 0
    for b in range(nb):
        for s in range(max_score + 1):
            if key_of[b, s] == 0:
                key_of[b, s] = n_keys
                n_keys += 1
    key_box = np.empty(n_keys, dtype=np.int64)
    key_score = np.empty(n_keys, dtype=np.int64)
    for b in range(nb):
        for s in range(max_score + 1):
            if key_of[b, s] >= 0:
                key_box[key_of[b, s]] = b
                key_score[key_of[b, s]] = s
    merged = np.zeros((n, 2 * n_keys))
    best = np.empty(n)
    pick = np.empty(n, dtype=np.int64)
    boxes = np.empty(nb, dtype=np.int64)
    for r in range(n_rolls):
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        flagged = 1 if five_kind_bonus(mask, r, 1, roll_face, rows_mask, bonus) > 0 else 0
        n_boxes = 0
        rest = bits
        while rest:
            boxes[n_boxes] = low_bit_index(rest)
            rest &= rest - 1
            n_boxes += 1
        if flagged:  # R0 holds the bonus: the best placement again, without it
            for j in range(n):
                best[j] = NEG_INF
            for i in range(n_boxes):
                b = boxes[i]
                cand, add = score_class(
                    b,
                    placement_score(r, b, use_joker, score, joker_score),
                    box_face[b],
                    flag_rows[b] == 1,
                    ra.n_class,
                )
                for j in range(n):
                    best[j] = max(best[j], add + succ[cand, lo + j])
            for j in range(n):
                best[j] -= tol
        else:
            for j in range(n):
                best[j] = top[r, lo + j] - tol
        for j in range(n):
            pick[j] = -1
        for i in range(n_boxes - 1, -1, -1):  # from the last box: the first within tol stays
            b = boxes[i]
            s = placement_score(r, b, use_joker, score, joker_score)
            cand, add = score_class(b, s, box_face[b], flag_rows[b] == 1, ra.n_class)
            row = 2 * key_of[b, s]
            for j in range(n):
                pick[j] = row if add + succ[cand, lo + j] >= best[j] else pick[j]
        for j in range(n):
            m = final[r, lo + j]
            if m != 0.0 and pick[j] >= 0:
                merged[j, pick[j] + (flagged if lane_f[lo + j] == 1 else 0)] += m
    return merged, key_box, key_score


@njit(cache=True, inline="always")
def _mask_outcomes(mask, lo, lane_u, lane_f, merged, key_box, key_score, ra, rep_u, n_out, out):
    """The outcomes of lanes ``lo ..`` (one ``mask``) from their placements' masses (see
    :func:`_mask_boxes`) into the outcome arrays ``out`` (:class:`Outcomes`) from ``n_out`` on
    (see :func:`turn_outcomes`; room enough); returns the new ``n_out``."""
    src, dst, gain, count, prob = out
    box_face, flag_rows, five_kind, bonus = ra.box_face, ra.flag_rows, ra.five_kind, ra.bonus
    thr, ub, cap = ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    n_flags = 1
    for b in range(box_face.shape[0]):
        if flag_rows[b] == 1:
            n_flags = 2
    for j in range(merged.shape[0]):
        u, f = lane_u[lo + j], lane_f[lo + j]
        for k in range(merged.shape[1]):
            m = merged[j, k]
            if m == 0.0:
                continue
            b, s, e = key_box[k // 2], key_score[k // 2], k % 2
            points, u2, f2 = step(u, f, s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
            nxt = mask | (1 << b)
            src[n_out] = lo + j
            dst[n_out] = (nxt * (cap + 1) + rep_u[nxt, u2]) * n_flags + f2
            gain[n_out] = points + e * bonus
            count[n_out] = e + (16 if five_kind[b] == 1 and s == 50 else 0)
            prob[n_out] = m
            n_out += 1
    return n_out


@njit(cache=True, nogil=True)
def apply_outcomes(c0, c1, src, dst_row, gain, prob, source, dest):
    """Outcomes ``c0 .. c1`` (sorted by ``dst_row``: ranges that do not split a row may run in
    threads) into packed rows (:class:`~solver.engine.arrays.PackedRows`): outcome ``c`` adds
    ``prob[c]`` times row ``s = src[c]`` of ``source`` (``n[s]`` entries at ``values[off[s]:]``,
    points so far from ``lo[s]``) to row ``d = dst_row[c]`` of ``dest`` (at ``values[off[d]:]``,
    from ``lo[d]`` points), ``gain[c]`` points on."""
    rows, row_off, row_lo, row_n = source
    out, out_off, out_lo = dest.values, dest.off, dest.lo
    for c in range(c0, c1):
        s = src[c]
        d = dst_row[c]
        p = prob[c]
        n = row_n[s]
        a = out_off[d] + gain[c] + row_lo[s] - out_lo[d]
        x = rows[row_off[s] : row_off[s] + n]  # views: the loop vectorises
        o = out[a : a + n]
        for i in range(n):
            o[i] += p * x[i]


@njit(cache=True, nogil=True)
def group_by_row(rows, starts, order):
    """``order``: the indices ``0 .. n`` grouped by ``rows[i]`` (a stable counting sort): the
    indices of row ``d`` at ``order[starts[d] : starts[d + 1]]``, ascending."""
    at = starts[:-1].copy()
    for i in range(rows.shape[0]):
        d = rows[i]
        order[at[d]] = i
        at[d] += 1


@njit(cache=True)
def _keep_tables(table, best, tol, subkeeps, n_subkeeps, keeps):
    """``keeps[r, j]``: the keep of roll ``r`` by ``table`` (462, n) for every lane ``j`` at once --
    :func:`best_keep`'s choice (the last sub-keep within ``tol`` of the best), the best
    ``best[roll_offset + r, j]`` (:func:`best_subkeep` of ``table``: the same maximum)."""
    n_rolls = keeps.shape[0]
    n = table.shape[1]
    roll_offset = table.shape[0] - n_rolls
    for r in range(n_rolls):
        ns = n_subkeeps[r]
        for j in range(n):
            keeps[r, j] = subkeeps[r, ns - 1]
        # from the first sub-keep: the last within tol stays (a select, no branch: it vectorises)
        for i in range(ns):
            k = subkeeps[r, i]
            for j in range(n):
                keeps[r, j] = k if table[k, j] >= best[roll_offset + r, j] - tol else keeps[r, j]


@njit(cache=True, nogil=True)
def residual_rows(j0, j1, cuts, dst, gain, prob, rows, row_start, row_lo, out):
    """Rows ``j0 .. j1`` of a level: ``out[row_start[j] + x - row_lo[j]]`` = P(``x`` points to
    come) = sum over lane ``j``'s outcomes ``c`` (``cuts[j] .. cuts[j + 1]``) of ``prob[c]`` x
    P(``x - gain[c]`` to come from the flat state ``dst[c]``), that row of ``rows``
    (:class:`~solver.engine.arrays.PackedRows` by flat state) being ``values[off[d] + i]`` for ``x
    = lo[d] + i``, ``i < n[d]`` (``out`` zero on entry; the outcomes in a fixed order, so the sums
    are the same on any thread count)."""
    p, r_off, r_lo, r_len = rows
    for j in range(j0, j1):
        base = row_start[j] - row_lo[j]
        for c in range(cuts[j], cuts[j + 1]):
            d = dst[c]
            o = r_off[d]
            at = base + gain[c] + r_lo[d]
            pr = prob[c]
            for i in range(r_len[d]):
                out[at + i] += pr * p[o + i]


@njit(cache=True, nogil=True)
def trim_tails(src, starts, lengths, eps, lead, end):
    """For rows ``src[starts[i] : starts[i] + lengths[i]]`` of probabilities: ``lead[i]``, how
    many first entries hold at most ``eps`` of mass together, and ``end[i]``, one past the last
    entry after which at most ``eps`` is left (``lead < end``: a row keeps its largest entry)."""
    for i in range(starts.shape[0]):
        s, n = starts[i], lengths[i]
        a = 0
        acc = 0.0
        while a < n - 1 and acc + src[s + a] <= eps:
            acc += src[s + a]
            a += 1
        b = n
        acc = 0.0
        while b > a + 1 and acc + src[s + b - 1] <= eps:
            acc += src[s + b - 1]
            b -= 1
        lead[i] = a
        end[i] = b

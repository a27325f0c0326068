r"""Numba kernels of the dynamic program (private; the Python layer validates and allocates).

State between turns: ``(mask, u, f)`` -- ``mask`` the filled boxes (bit ``i`` = box
``i`` in card order), ``u`` the upper total capped at the bonus threshold, ``f``
whether the Yahtzee box holds 50 (only where a Yahtzee bonus exists).
``V[mask, u, f]`` is the expected number of points still to come under optimal
play; an upper bonus is counted on the turn it is reached, so ``V[full] = 0``.

One turn, for a fixed state, over keeps ``K`` (multisets of 0..5 dice) and rolls
``r`` (multisets of 5 dice)::

    R0(r)  = max over legal boxes b of  score(r, b) + bonuses + V[next(state, r, b)]
    E_k(K) = R_k(K)                                    if |K| = 5
           = 1/6 * sum_{face} E_k(K + face)            otherwise
    R_{k+1}(r) = max over sub-multisets S of r of E_k(S)    (keep S, reroll the rest;
                                                             S = r means stop)
    V[state] = sum_r P(r) R2(r)

The max over sub-multisets is built one die at a time,
``B(K) = max(E(K), max_{face in K} B(K - face))``: 1,260 additions and 1,260
maxima per stage and state.

Lanes.  The dice work is the same for every state; only ``R0`` depends on it.
So the kernels hold one value per keep for a whole vector of states ("lanes"):
``x[k * nl + j]`` is keep ``k`` for lane ``j``.  A level (all masks with the same
number of filled boxes) is flattened into its reachable ``(mask, u, f)`` lanes,
sorted by mask, and cut into fixed-size blocks; a block may hold several masks
(``R0`` is done per run of equal masks) so that even masks with one or two
reachable states fill whole vectors.  Blocks are independent and run in
parallel; each lane sees the same operations in the same order whatever the
block size or thread count, so tables are bit-identical.  No fastmath.

``R0`` uses that an ordinary roll may go in any open box: the best box scoring
0 (the same for every roll) is computed once per mask, and each roll only
tries the open boxes where it scores more than 0.  Five-of-a-kind rolls with
the Yahtzee box filled (Joker placement, Yahtzee bonus) take the exact path.

Rule arrays (``dp.kernel_args``): ``add_die`` (462, 6), ``drop_one`` (462, 5) keep
indices of ``K - face`` for the distinct faces of ``K`` (``n_drop`` of them),
``roll_prob`` (252,), ``score`` / ``joker_score`` (252, B) int64, ``box_face`` (B,)
(1..6 upper, 0 lower), ``yahtzee_roll_face`` (252,) (face of a five-of-a-kind, else
0), ``pos_boxes`` (252, B) / ``n_pos`` (252,) boxes where a roll scores > 0, then
ints: yahtzee box index (-1 none), Yahtzee bonus, Joker mode (0 none, 1 forced,
2 free), forced order flag, upper threshold, upper bonus.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

NEG_INF = -np.inf
ONE_SIXTH = 1.0 / 6.0


@njit(cache=True)
def _successors(
    mask, first, m, lane_u, lane_f, values, box_face, yahtzee_index, forced_order,
    upper_threshold, upper_bonus, succ, open_boxes,
):
    """Lane vectors of successor values for lanes ``first .. first+m`` of one mask.

    ``succ[b * 6 + c, j]`` for open box ``b``: upper box -- ``c`` dice of its face
    scored (points + upper bonus if reached + V[next]); Yahtzee box -- ``c = 0``
    scores 0, ``c = 1`` scores 50; other lower box -- ``c = 0``: V[next] without the
    score (added per roll).  Fills ``open_boxes`` and returns how many there are.
    """
    n_boxes = box_face.shape[0]
    n_flags = values.shape[2]
    cap = values.shape[1] - 1
    n_open = 0
    for b in range(n_boxes):
        if (mask >> b) & 1:
            continue
        if forced_order and n_open == 1:
            break
        open_boxes[n_open] = b
        n_open += 1
        nxt = values[mask | (1 << b)]
        face = box_face[b]
        if face > 0:
            for c in range(6):
                s = c * face
                row = b * 6 + c
                for j in range(m):
                    u = lane_u[first + j]
                    extra = upper_bonus if (u < upper_threshold and u + s >= upper_threshold) else 0
                    succ[row, j] = s + extra + nxt[min(u + s, cap), lane_f[first + j]]
        elif b == yahtzee_index:
            hold50 = 1 if n_flags == 2 else 0
            for j in range(m):
                succ[b * 6, j] = nxt[lane_u[first + j], 0]
                succ[b * 6 + 1, j] = 50.0 + nxt[lane_u[first + j], hold50]
        else:
            for j in range(m):
                succ[b * 6, j] = nxt[lane_u[first + j], lane_f[first + j]]
    return n_open


@njit(cache=True)
def _candidate(b, s, box_face, yahtzee_index):
    """Row of ``succ`` and points to add for a roll scoring ``s`` in box ``b``."""
    face = box_face[b]
    if face > 0:
        return b * 6 + s // face, 0.0
    if b == yahtzee_index:
        return b * 6 + (1 if s == 50 else 0), 0.0
    return b * 6, float(s)


@njit(cache=True)
def _joker_roll(
    r, row, m, col, first, lane_f, open_boxes, n_open, score, joker_score, box_face, yahtzee_roll_face,
    yahtzee_index, yahtzee_bonus, joker_mode, succ, x, best_box,
):
    """R0 of a five-of-a-kind roll when the Yahtzee box is filled (Joker rules, bonus)."""
    face_of_roll = yahtzee_roll_face[r]
    face_box_open = False
    any_lower_open = False
    for i in range(n_open):
        b = open_boxes[i]
        if box_face[b] == face_of_roll:
            face_box_open = True
        elif box_face[b] == 0:
            any_lower_open = True
    for j in range(m):
        x[row, col + j] = NEG_INF
    track = best_box.shape[0] > 0
    for i in range(n_open):
        b = open_boxes[i]
        face = box_face[b]
        s = score[r, b]
        if joker_mode == 1:  # forced: own upper box, else any lower box, else any upper box
            if face_box_open:
                if face != face_of_roll:
                    continue
            elif any_lower_open:
                if face > 0:
                    continue
                s = joker_score[r, b]
        elif joker_mode == 2 and not face_box_open:  # free: fixed scores once the face box is filled
            s = joker_score[r, b]
        cand, add = _candidate(b, s, box_face, yahtzee_index)
        for j in range(m):
            v = add + succ[cand, j]
            if v > x[row, col + j]:
                x[row, col + j] = v
                if track:
                    best_box[r, col + j] = b
    if yahtzee_bonus > 0:
        for j in range(m):
            if lane_f[first + j] == 1:
                x[row, col + j] += yahtzee_bonus


@njit(cache=True)
def _final_roll_values(
    mask, first, m, col, lane_u, lane_f, values, score, joker_score, box_face, yahtzee_roll_face,
    pos_boxes, n_pos, yahtzee_index, yahtzee_bonus, joker_mode, forced_order, upper_threshold,
    upper_bonus, x, best_box, succ, work, zero_box, open_boxes,
):
    """R0 of lanes ``first .. first+m`` (all of one mask) into ``x[roll rows, col .. col+m]``.

    ``best_box`` (252, >= col+m) receives the chosen box (lowest index among equals)
    unless it has zero rows.  Scratch: ``succ`` (6 * n_boxes, >= m), ``work`` (3, >= m),
    ``zero_box`` (>= m,) int64, ``open_boxes`` (n_boxes,) int64.
    """
    n_rolls = score.shape[0]
    roll_offset = x.shape[0] - n_rolls
    n_open = _successors(
        mask, first, m, lane_u, lane_f, values, box_face, yahtzee_index, forced_order,
        upper_threshold, upper_bonus, succ, open_boxes,
    )
    track = best_box.shape[0] > 0
    # work[0]: the best box scoring 0, the same for every ordinary roll; rows 1, 2: running
    # maxima, written out of place (an in-place running max compiles to slow masked stores)
    for j in range(m):
        work[0, j] = NEG_INF
        zero_box[j] = 0
    for i in range(n_open):
        row = open_boxes[i] * 6
        for j in range(m):
            if succ[row, j] > work[0, j]:
                work[0, j] = succ[row, j]
                zero_box[j] = open_boxes[i]
    first_open = open_boxes[0]
    yahtzee_filled = yahtzee_index >= 0 and (mask >> yahtzee_index) & 1
    for r in range(n_rolls):
        row = roll_offset + r
        if yahtzee_filled and yahtzee_roll_face[r] > 0:
            _joker_roll(
                r, row, m, col, first, lane_f, open_boxes, n_open, score, joker_score, box_face,
                yahtzee_roll_face, yahtzee_index, yahtzee_bonus, joker_mode, succ, x, best_box,
            )
            continue
        if track:
            for j in range(m):
                x[row, col + j] = work[0, j]
                best_box[r, col + j] = zero_box[j]
            for i in range(n_pos[r]):
                b = pos_boxes[r, i]
                if (mask >> b) & 1 or (forced_order and b != first_open):
                    continue
                cand, add = _candidate(b, score[r, b], box_face, yahtzee_index)
                for j in range(m):
                    v = add + succ[cand, j]
                    if v > x[row, col + j] or (v == x[row, col + j] and b < best_box[r, col + j]):
                        x[row, col + j] = v
                        best_box[r, col + j] = b
            continue
        src = 0
        for i in range(n_pos[r]):
            b = pos_boxes[r, i]
            if (mask >> b) & 1 or (forced_order and b != first_open):
                continue
            cand, add = _candidate(b, score[r, b], box_face, yahtzee_index)
            dst = 2 if src == 1 else 1
            for j in range(m):
                work[dst, j] = max(work[src, j], add + succ[cand, j])
            src = dst
        for j in range(m):
            x[row, col + j] = work[src, j]


@njit(cache=True)
def _average_keeps(x, add_die):
    """In place: E(K) = mean over faces of E(K + face), for every keep of fewer than 5 dice.

    ``x`` (462, nl); rows of 5-dice keeps are the input.  Indexing is kept 2-D without
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
def _best_subkeep(x, y, drop_one, n_drop):
    """y[K] = max over sub-multisets S of K of x[S], one die at a time (keeps in size order).

    Out of place on purpose: an in-place running max compiles to masked stores,
    which are slow on some processors.
    """
    nl = x.shape[1]
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
        else:
            b = drop_one[k, 1]
            c = drop_one[k, 2]
            d = drop_one[k, 3]
            e = drop_one[k, 4]
            for j in range(nl):
                y[k, j] = max(max(max(max(max(x[k, j], y[a, j]), y[b, j]), y[c, j]), y[d, j]), y[e, j])


@njit(cache=True)
def _solve_block(
    lo, hi, lane_mask, lane_u, lane_f, values, add_die, drop_one, n_drop, roll_prob, score,
    joker_score, box_face, yahtzee_roll_face, pos_boxes, n_pos, yahtzee_index, yahtzee_bonus,
    joker_mode, forced_order, upper_threshold, upper_bonus, x, y, succ, work, zero_box, open_boxes,
):
    """Solve lanes ``lo .. hi`` into ``values``; ``x``, ``y`` (462, hi - lo) and the rest are scratch."""
    nl = hi - lo
    n_rolls = score.shape[0]
    roll_offset = add_die.shape[0] - n_rolls
    no_tracking = np.empty((0, 0), dtype=np.int64)
    first = lo
    while first < hi:
        mask = lane_mask[first]
        last = first + 1
        while last < hi and lane_mask[last] == mask:
            last += 1
        _final_roll_values(
            mask, first, last - first, first - lo, lane_u, lane_f, values, score, joker_score,
            box_face, yahtzee_roll_face, pos_boxes, n_pos, yahtzee_index, yahtzee_bonus, joker_mode,
            forced_order, upper_threshold, upper_bonus, x, no_tracking, succ, work, zero_box, open_boxes,
        )
        first = last
    _average_keeps(x, add_die)
    _best_subkeep(x, y, drop_one, n_drop)  # y: R1 on roll rows
    _average_keeps(y, add_die)
    _best_subkeep(y, x, drop_one, n_drop)  # x: R2 on roll rows
    for j in range(nl):
        total = 0.0
        for r in range(n_rolls):
            total += roll_prob[r] * x[roll_offset + r, j]
        values[lane_mask[lo + j], lane_u[lo + j], lane_f[lo + j]] = total


@njit(cache=True, parallel=True)
def solve_lanes(
    block_starts, lane_mask, lane_u, lane_f, values, add_die, drop_one, n_drop, roll_prob, score,
    joker_score, box_face, yahtzee_roll_face, pos_boxes, n_pos, yahtzee_index, yahtzee_bonus,
    joker_mode, forced_order, upper_threshold, upper_bonus, n_chunks,
):
    """Solve the lanes of one level, block ``i`` being lanes ``block_starts[i] .. block_starts[i+1]``.

    ``lane_mask``/``lane_u``/``lane_f`` (n,) int64, sorted by mask; ``values``
    (2**n_boxes, threshold + 1, n_flags) float64 is written in place at the lanes; all
    masks with more filled boxes must be solved already.  Blocks are dealt to
    ``n_chunks`` parallel chunks, each with its own scratch (allocated once, not per block).
    """
    n_blocks = block_starts.shape[0] - 1
    width = 0
    for i in range(n_blocks):
        width = max(width, block_starts[i + 1] - block_starts[i])
    n_keeps = add_die.shape[0]
    n_boxes = box_face.shape[0]
    for c in prange(n_chunks):
        x_buf = np.empty(n_keeps * width)
        y_buf = np.empty(n_keeps * width)
        succ = np.empty((n_boxes * 6, width))
        work = np.empty((3, width))
        zero_box = np.empty(width, dtype=np.int64)
        open_boxes = np.empty(n_boxes, dtype=np.int64)
        for i in range(c * n_blocks // n_chunks, (c + 1) * n_blocks // n_chunks):
            lo = block_starts[i]
            hi = block_starts[i + 1]
            _solve_block(
                lo, hi, lane_mask, lane_u, lane_f, values, add_die, drop_one, n_drop, roll_prob, score,
                joker_score, box_face, yahtzee_roll_face, pos_boxes, n_pos, yahtzee_index, yahtzee_bonus,
                joker_mode, forced_order, upper_threshold, upper_bonus,
                x_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo)),  # C-contiguous: vectorises
                y_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo)),
                succ, work, zero_box, open_boxes,
            )


@njit(cache=True)
def turn_tables(
    mask, lane_u, lane_f, values, add_die, drop_one, n_drop, roll_prob, score, joker_score, box_face,
    yahtzee_roll_face, pos_boxes, n_pos, yahtzee_index, yahtzee_bonus, joker_mode, forced_order,
    upper_threshold, upper_bonus, e0, e1, best_box,
):
    """Within-turn decision tables of one mask for the given lanes (for bots and batch advice).

    ``lane_u``/``lane_f`` (nl,) int64: the states ``(u, f)`` wanted.  Outputs,
    caller-allocated:

    * ``e0`` (462, nl) float64 -- value of keeping K and rerolling the rest with one
      roll left (then scoring); for 5-dice keeps, the value of scoring that roll now;
    * ``e1`` (462, nl) float64 -- the same with two rolls left; 5-dice keeps as in ``e0``;
    * ``best_box`` (252, nl) int64 -- the box to fill with each roll and no rolls left
      (the lowest box index among equal values).

    The best keep for roll ``r`` with 2 (1) rolls left is the sub-keep of ``r``
    (``dice.SUBKEEPS``) with the largest ``e1`` (``e0``); ties go to the first.
    """
    nl = lane_u.shape[0]
    n_keeps = add_die.shape[0]
    n_boxes = box_face.shape[0]
    roll_offset = n_keeps - score.shape[0]
    _final_roll_values(
        mask, 0, nl, 0, lane_u, lane_f, values, score, joker_score, box_face, yahtzee_roll_face,
        pos_boxes, n_pos, yahtzee_index, yahtzee_bonus, joker_mode, forced_order, upper_threshold,
        upper_bonus, e0, best_box, np.empty((n_boxes * 6, nl)), np.empty((3, nl)),
        np.empty(nl, dtype=np.int64), np.empty(n_boxes, dtype=np.int64),
    )
    _average_keeps(e0, add_die)
    _best_subkeep(e0, e1, drop_one, n_drop)
    _average_keeps(e1, add_die)
    for k in range(roll_offset, n_keeps):
        for j in range(nl):
            e1[k, j] = e0[k, j]

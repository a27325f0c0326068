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
    mask,
    first,
    m,
    col,
    lane_u,
    lane_f,
    values,
    box_face,
    yahtzee_index,
    forced_order,
    upper_threshold,
    upper_bonus,
    succ,
    open_boxes,
):
    """Successor values for lanes ``first .. first+m`` (one mask) in columns ``col .. col+m``.

    ``succ[b * 6 + c, col + j]``: for an allowed box ``b`` -- upper box: ``c`` dice of
    its face scored (points + upper bonus if reached + V[next]); Yahtzee box:
    ``c = 0`` scores 0, ``c = 1`` scores 50; other lower box: ``c = 0``, V[next]
    without the score (added per roll).  Rows of boxes the mask does not allow
    (filled, or not next under forced order) hold -inf.  Fills ``open_boxes`` with the
    allowed boxes and returns how many there are.
    """
    n_boxes = box_face.shape[0]
    n_flags = values.shape[2]
    cap = values.shape[1] - 1
    for row in range(n_boxes * 6):
        for j in range(m):
            succ[row, col + j] = NEG_INF
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
                    succ[row, col + j] = s + extra + nxt[min(u + s, cap), lane_f[first + j]]
        elif b == yahtzee_index:
            hold50 = 1 if n_flags == 2 else 0
            for j in range(m):
                succ[b * 6, col + j] = nxt[lane_u[first + j], 0]
                succ[b * 6 + 1, col + j] = 50.0 + nxt[lane_u[first + j], hold50]
        else:
            for j in range(m):
                succ[b * 6, col + j] = nxt[lane_u[first + j], lane_f[first + j]]
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
def _exact_roll(
    r,
    mask,
    m,
    col,
    first,
    lane_f,
    open_boxes,
    n_open,
    score,
    joker_score,
    box_face,
    yahtzee_roll_face,
    yahtzee_index,
    yahtzee_bonus,
    joker_mode,
    succ,
    x,
    best_box,
):
    """R0 of roll ``r`` for lanes ``first .. first+m`` of ``mask`` (columns ``col ..``), any roll.

    Applies the Joker placement rules and the Yahtzee bonus to a five-of-a-kind when
    the Yahtzee box is filled.  ``best_box[r, col + j]`` gets the chosen box (lowest
    index among equals) unless ``best_box`` has zero rows.
    """
    row = x.shape[0] - score.shape[0] + r
    face_of_roll = yahtzee_roll_face[r]
    joker = face_of_roll > 0 and yahtzee_index >= 0 and (mask >> yahtzee_index) & 1
    face_box_open = False
    any_lower_open = False
    if joker:
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
        if joker and joker_mode == 1:  # forced: own upper box, else any lower box, else any upper box
            if face_box_open:
                if face != face_of_roll:
                    continue
            elif any_lower_open:
                if face > 0:
                    continue
                s = joker_score[r, b]
        elif (
            joker and joker_mode == 2 and not face_box_open
        ):  # free: fixed scores once the face box is filled
            s = joker_score[r, b]
        cand, add = _candidate(b, s, box_face, yahtzee_index)
        for j in range(m):
            v = add + succ[cand, col + j]
            if v > x[row, col + j]:
                x[row, col + j] = v
                if track:
                    best_box[r, col + j] = b
    if joker and yahtzee_bonus > 0:
        for j in range(m):
            if lane_f[first + j] == 1:
                x[row, col + j] += yahtzee_bonus


@njit(cache=True)
def _segment_end(lane_mask, first, hi):
    """End of the run of lanes with the same mask that starts at ``first`` (lanes are sorted)."""
    last = first + 1
    while last < hi and lane_mask[last] == lane_mask[first]:
        last += 1
    return last


@njit(cache=True)
def _block_final_values(
    lo,
    hi,
    lane_mask,
    lane_u,
    lane_f,
    values,
    score,
    joker_score,
    box_face,
    yahtzee_roll_face,
    pos_boxes,
    n_pos,
    yahtzee_index,
    yahtzee_bonus,
    joker_mode,
    forced_order,
    upper_threshold,
    upper_bonus,
    x,
    succ,
    work,
    open_boxes,
):
    """R0 of every lane of a block (lanes ``lo .. hi``, several masks) into the roll rows of ``x``.

    An ordinary roll may go in any allowed box, so with -inf in the rows of boxes a
    lane's mask does not allow, all masks of the block share one pass per (roll, box):
    ``work[0]`` is the best box scoring 0 (the same for every roll), then each box where
    the roll scores more than 0 is tried.  The running maximum is written out of place
    (rows 1, 2 of ``work``): an in-place one compiles to slow masked stores.
    Five-of-a-kind rolls (Joker rules) go through :func:`_exact_roll` per mask.
    """
    nl = hi - lo
    n_boxes = box_face.shape[0]
    n_rolls = score.shape[0]
    roll_offset = x.shape[0] - n_rolls
    first = lo
    while first < hi:
        mask = lane_mask[first]
        last = _segment_end(lane_mask, first, hi)
        _successors(
            mask,
            first,
            last - first,
            first - lo,
            lane_u,
            lane_f,
            values,
            box_face,
            yahtzee_index,
            forced_order,
            upper_threshold,
            upper_bonus,
            succ,
            open_boxes,
        )
        first = last
    for j in range(nl):
        work[0, j] = NEG_INF
    for b in range(n_boxes):
        for j in range(nl):
            work[0, j] = max(work[0, j], succ[b * 6, j])
    for r in range(n_rolls):
        if yahtzee_roll_face[r] > 0:
            continue
        src = 0
        for i in range(n_pos[r]):
            cand, add = _candidate(pos_boxes[r, i], score[r, pos_boxes[r, i]], box_face, yahtzee_index)
            dst = 2 if src == 1 else 1
            for j in range(nl):
                work[dst, j] = max(work[src, j], add + succ[cand, j])
            src = dst
        for j in range(nl):
            x[roll_offset + r, j] = work[src, j]
    no_tracking = np.empty((0, 0), dtype=np.int64)
    first = lo
    while first < hi:
        mask = lane_mask[first]
        last = _segment_end(lane_mask, first, hi)
        n_open = 0
        for b in range(n_boxes):
            if not (mask >> b) & 1 and not (forced_order and n_open == 1):
                open_boxes[n_open] = b
                n_open += 1
        for r in range(n_rolls):
            if yahtzee_roll_face[r] > 0:
                _exact_roll(
                    r,
                    mask,
                    last - first,
                    first - lo,
                    first,
                    lane_f,
                    open_boxes,
                    n_open,
                    score,
                    joker_score,
                    box_face,
                    yahtzee_roll_face,
                    yahtzee_index,
                    yahtzee_bonus,
                    joker_mode,
                    succ,
                    x,
                    no_tracking,
                )
        first = last


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
    lo,
    hi,
    lane_mask,
    lane_u,
    lane_f,
    values,
    add_die,
    drop_one,
    n_drop,
    roll_prob,
    score,
    joker_score,
    box_face,
    yahtzee_roll_face,
    pos_boxes,
    n_pos,
    yahtzee_index,
    yahtzee_bonus,
    joker_mode,
    forced_order,
    upper_threshold,
    upper_bonus,
    x,
    y,
    succ,
    work,
    open_boxes,
):
    """Solve lanes ``lo .. hi`` into ``values``; ``x``, ``y`` (462, hi - lo) and the rest are scratch."""
    nl = hi - lo
    n_rolls = score.shape[0]
    roll_offset = add_die.shape[0] - n_rolls
    _block_final_values(
        lo,
        hi,
        lane_mask,
        lane_u,
        lane_f,
        values,
        score,
        joker_score,
        box_face,
        yahtzee_roll_face,
        pos_boxes,
        n_pos,
        yahtzee_index,
        yahtzee_bonus,
        joker_mode,
        forced_order,
        upper_threshold,
        upper_bonus,
        x,
        succ,
        work,
        open_boxes,
    )
    _average_keeps(x, add_die)
    _best_subkeep(x, y, drop_one, n_drop)  # y: R1 on roll rows
    _average_keeps(y, add_die)
    _best_subkeep(y, x, drop_one, n_drop)  # x: R2 on roll rows
    for j in range(nl):
        work[0, j] = 0.0
    for r in range(n_rolls):
        p = roll_prob[r]
        for j in range(nl):
            work[0, j] += p * x[roll_offset + r, j]
    for j in range(nl):
        values[lane_mask[lo + j], lane_u[lo + j], lane_f[lo + j]] = work[0, j]


@njit(cache=True, parallel=True)
def solve_lanes(
    block_starts,
    lane_mask,
    lane_u,
    lane_f,
    values,
    add_die,
    drop_one,
    n_drop,
    roll_prob,
    score,
    joker_score,
    box_face,
    yahtzee_roll_face,
    pos_boxes,
    n_pos,
    yahtzee_index,
    yahtzee_bonus,
    joker_mode,
    forced_order,
    upper_threshold,
    upper_bonus,
    n_chunks,
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
        open_boxes = np.empty(n_boxes, dtype=np.int64)
        for i in range(c * n_blocks // n_chunks, (c + 1) * n_blocks // n_chunks):
            lo = block_starts[i]
            hi = block_starts[i + 1]
            _solve_block(
                lo,
                hi,
                lane_mask,
                lane_u,
                lane_f,
                values,
                add_die,
                drop_one,
                n_drop,
                roll_prob,
                score,
                joker_score,
                box_face,
                yahtzee_roll_face,
                pos_boxes,
                n_pos,
                yahtzee_index,
                yahtzee_bonus,
                joker_mode,
                forced_order,
                upper_threshold,
                upper_bonus,
                x_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo)),  # C-contiguous: vectorises
                y_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo)),
                succ,
                work,
                open_boxes,
            )


@njit(cache=True)
def turn_tables(
    mask,
    lane_u,
    lane_f,
    values,
    add_die,
    drop_one,
    n_drop,
    roll_prob,
    score,
    joker_score,
    box_face,
    yahtzee_roll_face,
    pos_boxes,
    n_pos,
    yahtzee_index,
    yahtzee_bonus,
    joker_mode,
    forced_order,
    upper_threshold,
    upper_bonus,
    e0,
    e1,
    best_box,
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
    succ = np.empty((n_boxes * 6, nl))
    open_boxes = np.empty(n_boxes, dtype=np.int64)
    n_open = _successors(
        mask,
        0,
        nl,
        0,
        lane_u,
        lane_f,
        values,
        box_face,
        yahtzee_index,
        forced_order,
        upper_threshold,
        upper_bonus,
        succ,
        open_boxes,
    )
    for r in range(score.shape[0]):
        _exact_roll(
            r,
            mask,
            nl,
            0,
            0,
            lane_f,
            open_boxes,
            n_open,
            score,
            joker_score,
            box_face,
            yahtzee_roll_face,
            yahtzee_index,
            yahtzee_bonus,
            joker_mode,
            succ,
            e0,
            best_box,
        )
    _average_keeps(e0, add_die)
    _best_subkeep(e0, e1, drop_one, n_drop)
    _average_keeps(e1, add_die)
    for k in range(roll_offset, n_keeps):
        for j in range(nl):
            e1[k, j] = e0[k, j]

r"""All numba kernels: the rules, the dynamic program, the batch simulator (private; the
Python layer validates and allocates).

Every kernel takes the rule set as one named tuple :class:`RuleArrays` (built by
``dp.rule_arrays``) and reads it by name, ``ra.score``, once at its top; the rule
functions below take the arrays and numbers they read.  Each rule is one function here,
the twin of the plain-Python one in :mod:`solver.core.rules` (tested against it on every
mask, roll and flag):

* :func:`allowed_bits`    -- the open boxes the fill order allows (``RuleSet.allowed_bits``);
* :func:`legal_boxes`     -- where a roll may go: Joker policy within the allowed boxes;
* :func:`placement_score` -- what it scores there;
* :func:`five_kind_bonus` -- the bonus a five of a kind earns once every row is filled;
* :func:`step`            -- points (upper bonus credited) and the next ``(u, f)``
  (``RuleSet.step``): the one producer of "successor state and points";
* :func:`objective`       -- what the solver maximises of a step: today points plus the
  expected points still to come.

State between turns: ``(mask, u, f)`` -- ``mask`` the filled boxes (bit ``i`` = box
``i`` in card order), ``u`` the upper total capped at the bonus threshold (always 0
without an upper bonus), ``f`` whether a five-of-a-kind row holds 50 (only where a
five-of-a-kind bonus exists).  ``V[mask, u, f]`` is the expected number of points still
to come under optimal play; an upper bonus is counted on the turn it is reached.

One turn, for a fixed state, over keeps ``K`` (multisets of 0..5 dice) and rolls
``r`` (multisets of 5 dice)::

    R0(r)  = max over legal boxes b of  objective(step(state, b, score(r, b))) + bonus(r)
    E_k(K) = R_k(K)                                    if |K| = 5
           = 1/6 * sum_{face} E_k(K + face)            otherwise
    R_{k+1}(r) = max over sub-multisets S of r of E_k(S)    (keep S, reroll the rest;
                                                             S = r means stop, which
                                                             ``all-rolls`` forbids)
    V[state] = sum_r P(r) R2(r)

The max over sub-multisets is built one die at a time,
``B(K) = max(E(K), max_{face in K} B(K - face))``: 1,260 additions and 1,260
maxima per stage and state.

Lanes.  The dice work is the same for every state; only ``R0`` depends on it.
So the kernels hold one value per keep for a whole vector of states ("lanes"):
``x[k, j]`` is keep ``k`` for lane ``j``.  A level (all masks with the same number of
filled boxes) is flattened into its reachable ``(mask, u, f)`` lanes, sorted by mask,
and cut into fixed-size blocks; a block may hold several masks (``R0`` is done per run
of equal masks) so that even masks with one or two reachable states fill whole
vectors.  Blocks are independent and run in threads (GIL-free kernels, see
:mod:`solver.core.threads`); each lane sees the same
operations in the same order whatever the block size or thread count, so tables are
bit-identical.  No fastmath.

Successor rows.  :func:`successors` evaluates, per lane, ``objective(step(...))`` once
per allowed box and *score class* (:func:`score_class`): an upper box has one class per
number of dice of its face, a five-of-a-kind row (where the flag matters) one for 0 and
one for 50, any other box one class whose points are added per roll (its next state
does not depend on the score).  ``R0`` of an ordinary roll -- one that may go in any
allowed box -- is then the best over the class-0 rows (the same for every roll) and the
boxes where the roll scores more than 0; five-of-a-kind rolls with every row filled
(Joker placement, bonus) take the exact path through :func:`legal_boxes`.
"""

from __future__ import annotations

import os
import sys

import numpy as np

# LLVM -O1: measured on these kernels, compiling takes about a third less time than at
# numba's default -O3 and the kernels run as fast (a first run is mostly compilation).
# A user's own NUMBA_OPT wins.
if "NUMBA_OPT" not in os.environ:
    os.environ["NUMBA_OPT"] = "1"
    if "numba" in sys.modules:  # numba read its configuration already
        import numba

        numba.config.reload_config()

from llvmlite import ir  # noqa: E402
from numba import njit, types  # noqa: E402
from numba.extending import intrinsic, models, register_model  # noqa: E402

from .arrays import (  # noqa: E402, F401  (also the kernels' names: K.COL_MASK, K.RuleArrays)
    COL_BONUSES,
    COL_DICE,
    COL_FLAG,
    COL_MASK,
    COL_UPPER,
    STATE_EXTRA,
    RuleArrays,
)

NEG_INF = -np.inf
ONE_SIXTH = 1.0 / 6.0
N_ROLLS = 252  # multisets of five dice (asserted where the rule arrays are built)


# --- the rules ----------------------------------------------------------------
@njit(cache=True, inline="always")
def low_bit_index(bits):
    """Index of the lowest set bit of ``bits`` (0 < bits < 2**36): ``2**k mod 37`` is unique."""
    # fmt: off
    table = (
        -1, 0, 1, 26, 2, 23, 27, 32, 3, 16, 24, 30, 28, 11, 33, 13, 4, 7, 17, 35, 25, 22, 31, 15, 29,
        10, 12, 6, 34, 21, 14, 9, 5, 20, 8, 19, 18,
    )
    # fmt: on
    return table[(bits & -bits) % 37]


@njit(cache=True, inline="always")
def allowed_bits(mask, n_boxes, order):
    """Bits of the open boxes the fill order (``RuleArrays.order``) allows on a card with
    filled ``mask`` (``RuleSet.allowed_bits``)."""
    open_bits = ~mask & ((1 << n_boxes) - 1)
    if open_bits == 0 or order == 0:
        return open_bits
    low = open_bits & -open_bits
    high = low
    while high * 2 <= open_bits:
        high *= 2
    if order == 1:
        return low
    if order == 2:
        return high
    if mask == 0:  # choose: both directions are still open
        return low | high
    return low if mask & 1 else high


@njit(cache=True, inline="always")
def five_kind_bonus(mask, r, flag, roll_face, rows_mask, bonus):
    """The bonus roll ``r`` earns: a five of a kind once every five-of-a-kind row is filled
    and one holds 50 (``flag``)."""
    if flag == 1 and bonus > 0 and roll_face[r] > 0 and rows_mask != 0 and (mask & rows_mask) == rows_mask:
        return bonus
    return 0


@njit(cache=True, inline="always")
def legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order):
    """Where roll ``r`` may go on a card with filled ``mask``: ``(bits, use_joker)``.

    ``bits`` has bit ``b`` set for each legal box; box ``b`` then scores
    :func:`placement_score`.  Same rules as :meth:`solver.core.rules.RuleSet.placements`.
    """
    allowed = allowed_bits(mask, box_face.shape[0], order)
    face_of_roll = roll_face[r]
    if joker_mode == 0 or face_of_roll == 0 or rows_mask == 0 or (mask & rows_mask) != rows_mask:
        return allowed, False
    face_bits = 0
    lower_bits = 0
    for b in range(box_face.shape[0]):
        face = box_face[b]
        if face == face_of_roll:
            face_bits |= 1 << b
        elif face == 0:
            lower_bits |= 1 << b
    face_bits &= allowed
    lower_bits &= allowed
    if joker_mode == 2:  # free: any box; fixed Joker scores once the face box is taken
        return allowed, face_bits == 0
    # forced: own upper box, else any lower box, else any upper box (scoring 0)
    if face_bits:
        return face_bits, False
    if lower_bits:
        return lower_bits, True
    return allowed, False


@njit(cache=True, inline="always")
def placement_score(r, b, use_joker, score, joker_score):
    """Score of roll ``r`` in box ``b`` (the Joker score when ``use_joker``)."""
    return joker_score[r, b] if use_joker else score[r, b]


@njit(cache=True, inline="always")
def step(u, f, s, face, flag_row, upper_threshold, upper_bonus, upper_cap):
    """``(points, next_u, next_f)`` of putting score ``s`` in a box from ``(u, f)``; the next
    mask has the box filled.  Twin of :meth:`solver.core.rules.RuleSet.step`.

    ``face``: the box's upper face (0: lower box); ``flag_row``: a 50 there sets the flag
    (``RuleArrays.flag_rows``).  ``points`` is ``s`` plus the upper bonus when this
    placement reaches it.
    """
    points = s
    if face > 0:
        if u < upper_threshold and u + s >= upper_threshold:
            points += upper_bonus
        u = min(u + s, upper_cap)
    if flag_row and s == 50:
        f = 1
    return points, u, f


@njit(cache=True, inline="always")
def objective(points, next_value):
    """What a placement is worth: its points plus the value of the state it leads to."""
    return points + next_value


@njit(cache=True, inline="always")
def score_class(b, s, face, flag_row):
    """Successor row of box ``b`` for score ``s`` and the points added per roll (see
    :func:`successors`)."""
    if face > 0:
        return b * 6 + s // face, 0.0
    if flag_row:
        return b * 6 + (1 if s == 50 else 0), 0.0
    return b * 6, float(s)


@njit(cache=True)
def successors(mask, first, m, col, lane_u, lane_f, values, scale, ra, succ):
    """Successor rows of lanes ``first .. first+m`` (one mask) into columns ``col .. col+m``,
    the values to come times ``scale`` (1.0 in the DP: the same numbers; a triple column's
    ``kappa``).

    ``succ[b * 6 + c, col + j]`` = ``objective(step(...))`` of allowed box ``b`` for score
    class ``c`` (:func:`score_class`): an upper box ``c * face``; a five-of-a-kind row
    with a flag ``c = 0`` scores 0 and ``c = 1`` scores 50; any other box ``c = 0`` with
    score 0 (the roll's score is added per roll).  Rows of boxes the mask does not allow
    hold -inf.  Returns the allowed bits.
    """
    box_face, flag_rows = ra.box_face, ra.flag_rows
    thr, bonus, cap = ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    n_boxes = box_face.shape[0]
    for row in range(n_boxes * 6):
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
        n_class = 6 if face > 0 else (2 if flag_row else 1)
        for c in range(n_class):
            s = c * face if face > 0 else 50 * c
            row = b * 6 + c
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
            cand, add = score_class(b, s, box_face[b], flag_rows[b] == 1)
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
def _segment_end(lane_mask, first, hi):
    """End of the run of lanes with the same mask that starts at ``first`` (lanes are sorted)."""
    last = first + 1
    while last < hi and lane_mask[last] == lane_mask[first]:
        last += 1
    return last


@njit(cache=True, inline="always")
def _block_final_values(lo, hi, lane_mask, lane_u, lane_f, values, ra, x, succ, work):
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
        last = _segment_end(lane_mask, first, hi)
        successors(lane_mask[first], first, last - first, first - lo, lane_u, lane_f, values, 1.0, ra, succ)
        first = last
    _final_values(lo, hi, lane_mask, lane_f, ra, x, succ, work)


@njit(cache=True, inline="always")
def _final_values(lo, hi, lane_mask, lane_f, ra, x, succ, work):
    """R0 of lanes ``lo .. hi`` into the roll rows of ``x`` from their successor rows, columns
    ``0 .. hi - lo`` of ``succ`` (see :func:`_block_final_values`); the lanes need not be
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
    flag_rows, rows_mask = ra.flag_rows, ra.rows_mask
    for j in range(nl):
        work[0, j] = NEG_INF
    for b in range(n_boxes):
        for j in range(nl):
            work[0, j] = max(work[0, j], succ[b * 6, j])
    for r in range(n_rolls):
        src = 0
        for i in range(n_pos[r]):
            b = pos_boxes[r, i]
            cand, add = score_class(b, score[r, b], box_face[b], flag_rows[b] == 1)
            dst = 2 if src == 1 else 1
            for j in range(nl):
                work[dst, j] = max(work[src, j], add + succ[cand, j])
            src = dst
        for j in range(nl):
            x[roll_offset + r, j] = work[src, j]
    no_tracking = np.empty((0, 0), dtype=np.int64)
    first = lo
    while first < hi:
        last = _segment_end(lane_mask, first, hi)
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
def _best_subkeep(x, y, drop_one, n_drop, all_rolls):
    """y[K] = max over sub-multisets S of K of x[S], one die at a time (keeps in size order).

    Under ``all-rolls`` a roll may not be kept whole (a reroll throws at least one
    die): its row is the best over its proper sub-multisets only.  Out of place on
    purpose: an in-place running max compiles to masked stores, slow on some processors.
    """
    nl = x.shape[1]
    roll_offset = drop_one.shape[0] - N_ROLLS
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
    if all_rolls:
        for k in range(roll_offset, drop_one.shape[0]):
            for j in range(nl):
                y[k, j] = NEG_INF
            for i in range(n_drop[k]):
                a = drop_one[k, i]
                for j in range(nl):
                    y[k, j] = max(y[k, j], y[a, j])


@njit(cache=True)
def _best_subkeep_in_place(x, drop_one, n_drop, all_rolls):
    """:func:`_best_subkeep` in place, for the target DP (its rows below five dice are then
    overwritten by :func:`_average_keeps` or unused): ``x[K]`` = max over sub-multisets of
    ``K``, keeps in size order (a keep's sub-multisets are done before it).  One array
    instead of two halves the block's memory (the passes read it from the L2 cache); one
    argument keeps the loops free of the aliasing checks that two views of one array need.
    The same roll rows as :func:`_best_subkeep` (a maximum is exact whatever its order).
    Its own copy of the loops on purpose: one inline row helper shared with
    :func:`_best_subkeep` and called with the same array twice made the target DP about 20%
    slower (2026-12-02, one thread, a reduced game)."""
    nl = x.shape[1]
    roll_offset = drop_one.shape[0] - N_ROLLS
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


@njit(cache=True, inline="always")
def _solve_block(lo, hi, lane_mask, lane_u, lane_f, values, solved, ra, x, y, succ, work):
    """Solve lanes ``lo .. hi`` into ``values``; ``x``, ``y`` (462, hi - lo) and the rest are scratch."""
    nl = hi - lo
    n_rolls = ra.score.shape[0]
    roll_offset = ra.add_die.shape[0] - n_rolls
    _block_final_values(lo, hi, lane_mask, lane_u, lane_f, solved, ra, x, succ, work)
    _average_keeps(x, ra.add_die)
    _best_subkeep(x, y, ra.drop_one, ra.n_drop, ra.all_rolls)  # y: R1 on roll rows
    _average_keeps(y, ra.add_die)
    _best_subkeep(y, x, ra.drop_one, ra.n_drop, ra.all_rolls)  # x: R2 on roll rows
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
    succ = np.empty((n_boxes * 6, width))
    work = np.empty((3, width))
    for i in range(i0, i1):
        lo = block_starts[i]
        hi = block_starts[i + 1]
        x = x_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo))  # C-contiguous: vectorises
        y = y_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo))
        _solve_block(lo, hi, lane_mask, lane_u, lane_f, values, solved, ra, x, y, succ, work)


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
    _turn_from_final(e0, e1, ra)


@njit(cache=True)
def _turn_from_final(e0, e1, ra):
    """The keep tables ``e0``/``e1`` (see :func:`turn_tables`) from ``R0`` in the roll rows of ``e0``
    -- whatever the objective that made ``R0``."""
    nl = e0.shape[1]
    n_keeps = ra.add_die.shape[0]
    roll_offset = n_keeps - ra.score.shape[0]
    _average_keeps(e0, ra.add_die)
    _best_subkeep(e0, e1, ra.drop_one, ra.n_drop, ra.all_rolls)
    _average_keeps(e1, ra.add_die)
    for k in range(roll_offset, n_keeps):
        for j in range(nl):
            e1[k, j] = e0[k, j]
    if ra.all_rolls:
        for k in range(roll_offset, n_keeps):
            for j in range(nl):
                e0[k, j] = NEG_INF
                e1[k, j] = NEG_INF


@njit(cache=True)
def placement_values(masks, us, fs, rolls, values, ra, ev, scores, bonus):
    """Every placement of positions ``i`` (state ``masks[i], us[i], fs[i]``, roll ``rolls[i]``, no
    rolls left), for batch advice and tests.

    Outputs, caller-allocated: ``ev`` (n, B) ``objective(step(...)) + bonus`` of each legal
    box, -inf for the others; ``scores`` (n, B) the score of each legal box (-1 for the
    others); ``bonus`` (n,) the roll's five-of-a-kind bonus.
    """
    score, joker_score, box_face, flag_rows, roll_face = (
        ra.score,
        ra.joker_score,
        ra.box_face,
        ra.flag_rows,
        ra.roll_face,
    )
    rows_mask, joker_mode, order = ra.rows_mask, ra.joker_mode, ra.order
    thr, ub, cap = ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    n_boxes = box_face.shape[0]
    for i in range(masks.shape[0]):
        mask, r = masks[i], rolls[i]
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        bonus[i] = five_kind_bonus(mask, r, fs[i], roll_face, rows_mask, ra.bonus)
        for b in range(n_boxes):
            if (bits >> b) & 1:
                s = placement_score(r, b, use_joker, score, joker_score)
                points, u, f = step(us[i], fs[i], s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
                ev[i, b] = objective(points, values[mask | (1 << b), u, f]) + bonus[i]
                scores[i, b] = s
            else:
                ev[i, b] = NEG_INF
                scores[i, b] = -1


# ============================================================================
# Batch simulation
#
# Games are played turn-synchronously: each call plays one turn of every game.  Game ``i``
# (global index ``game0 + i``) is row ``i`` of one int32 array ``games`` (N, W), W >=
# n_boxes + 5: columns ``0 .. B-1`` the box scores (-1 while open), then ``B`` the filled
# mask, ``B+1`` the upper total (not capped), ``B+2`` the five-of-a-kind bonuses,
# ``B+3`` the dice drawn from its stream, ``B+4`` the flag (a five-of-a-kind row holds 50).
#
# Dice (see :mod:`solver.core.streams`, seeded stream version 1): the ``k``-th die of game ``g``
# under seed ``s`` is ``1 + (((h >> 11) * 6) >> 53)`` with ``h = mix(base[g] ^ k)`` and
# ``base[g] = mix(mix(s) ^ g)``, ``mix`` the SplitMix64 step.  Every roll takes the next
# five dice; the rerolled dice take the first of them in order (held dice discard theirs),
# so the multiset after a roll is ``keep + first (5 - |keep|) of the five``.
#
# Table bots (optimal, heuristic, greedy) decide from a value array ``V[mask, u, f]`` as
# the DP does: per turn the games are grouped by ``mask`` (:func:`group_games`, a counting
# sort), the distinct lanes ``(u, f)`` present in each group get their within-turn tables
# from :func:`turn_tables` (:func:`group_tables`, threads over masks), then every game
# plays its turn from those tables (:func:`play_table_games`, threads over games).  Ties are broken with a tolerance ``tol`` so that
# float noise cannot flip a decision: among keeps whose value is within ``tol`` of the
# best, the **last** sub-keep of ``dice.SUBKEEPS`` (most dice kept); among boxes within
# ``tol``, the **first** in card order -- the same choice as ``Advisor.advise(...)``
# options flagged ``best``.
#
# Simple bots (:func:`simple_games`; random and frequent) need no tables.  The random bot draws
# its choices from a second stream per game, ``mix(mix(base[g] ^ RANDOM_DOMAIN) ^ j)``
# with ``j = 8 * turn + decision``, uniform over the distinct sub-keeps / legal boxes.
#
# Every game writes only its own rows and its decisions depend only on its own stream, so
# results are identical for any thread count, chunking or game order.  No fastmath.
#
# Grading (exact regret): given a ``moves`` array (zero rows: nothing recorded) the play
# kernels record each game's turn -- its rolls, keeps and box (:data:`MOVE_ROLL1` ..) -- and
# :func:`grade_games` values each decision against a value table's turn tables (those of the
# bot itself when it plays that table, else :func:`lane_turn_tables`): the best option's value
# minus the one taken, and each roll's luck.  A turn recorded by the Python engine is graded
# by the same kernel.
# ============================================================================

RANDOM_DOMAIN = 0x52414E444F4D  # "RANDOM"
BOT_RANDOM = 0
BOT_FREQUENT = 1
# A game's row: its box scores, then the COL_... columns of solver.engine.arrays
# A game's turn as recorded for grading (:func:`grade_games`), one int16 row ``moves[i]``: the
# five dice of each roll and each keep as keep indices (a roll's five dice are keep
# ``roll_offset + r``; a keep of all five = stop), -1 where the turn had no such step
MOVE_ROLL1 = 0  # the first roll
MOVE_KEEP1 = 1  # kept with two rolls left
MOVE_ROLL2 = 2  # the dice after the second roll (-1: stopped after the first)
MOVE_KEEP2 = 3  # kept with one roll left (-1: stopped after the first)
MOVE_FINAL = 4  # the five dice scored
MOVE_BOX = 5  # the box filled
N_MOVES = 6


# --- dice streams ---------------------------------------------------------
@njit(cache=True, inline="always")
def mix64(x):
    """SplitMix64 step (uint64 in, uint64 out); twin of :func:`solver.core.streams.mix64`."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def die_of(base, k):
    """The ``k``-th die of the game whose stream base is ``base`` (uint64)."""
    h = mix64(base ^ np.uint64(k))
    return 1 + np.int64(((h >> np.uint64(11)) * np.uint64(6)) >> np.uint64(53))


@njit(cache=True, inline="always")
def stream_base(seed_mixed, game):
    """Stream base of game ``game``: ``mix(seed_mixed ^ game)`` where ``seed_mixed = mix(seed)``."""
    return mix64(seed_mixed ^ np.uint64(game))


@njit(cache=True)
def stream_dice(seed_mixed, game0, k0, out):
    """``out[i, j]`` = die ``k0 + j`` of game ``game0 + i`` (for tests against :mod:`solver.core.streams`)."""
    for i in range(out.shape[0]):
        base = stream_base(seed_mixed, game0 + i)
        for j in range(out.shape[1]):
            out[i, j] = die_of(base, k0 + j)


@njit(cache=True, inline="always")
def _uniform(base, j, n):
    """A uniform integer in ``0 .. n-1`` from the ``j``-th value of a decision stream."""
    h = mix64(base ^ np.uint64(j))
    return np.int64(((h >> np.uint64(11)) * np.uint64(n)) >> np.uint64(53))


@njit(cache=True, inline="always")
def _roll(base, k, keep, add_die, keep_size):
    """Keep index of ``keep`` plus the first ``5 - |keep|`` of dice ``k .. k+4`` (a 5-dice keep)."""
    for i in range(5 - keep_size[keep]):
        keep = add_die[keep, die_of(base, k + i) - 1]
    return keep


@njit(cache=True, inline="always")
def _fill_box(games, i, cell, at, flag_at, b, s, bonus, box_face, five_kind):
    """Put score ``s`` (and ``bonus``) of game ``i`` in box ``b``: the score at column ``cell``,
    the filled mask, upper total and bonuses at ``at + COL_MASK ..`` (a triple game's column
    keeps them in the same order), the five-of-a-kind flag at ``flag_at``."""
    games[i, cell] = s
    games[i, at + COL_MASK] = games[i, at + COL_MASK] | (1 << b)
    if box_face[b] > 0:
        games[i, at + COL_UPPER] += s
    if bonus > 0:
        games[i, at + COL_BONUSES] += 1
    if five_kind[b] == 1 and s == 50:
        games[i, flag_at] = 1


@njit(cache=True, inline="always")
def _apply(games, i, b, s, bonus, box_face, five_kind):
    """Put score ``s`` (and ``bonus``) of game ``i`` in box ``b``."""
    nb = box_face.shape[0]
    _fill_box(games, i, b, nb, nb + COL_FLAG, b, s, bonus, box_face, five_kind)


# --- table bots (optimal, heuristic, greedy) ---------------------------------
@njit(cache=True, inline="always")
def _box_worth(r, b, use_joker, succ, col, score, joker_score, box_face, flag_rows):
    """What roll ``r`` in legal box ``b`` is worth by the successor rows ``succ`` (column ``col``,
    :func:`successors`), the roll's five-of-a-kind bonus (the same in every box) aside."""
    s = placement_score(r, b, use_joker, score, joker_score)
    cand, add = score_class(b, s, box_face[b], flag_rows[b] == 1)
    return add + succ[cand, col]


@njit(cache=True, inline="always")
def _best_box_worth(r, bits, use_joker, succ, col, score, joker_score, box_face, flag_rows):
    """The most roll ``r`` is worth in any of the boxes ``bits`` (:func:`_box_worth`)."""
    best = NEG_INF
    rest = bits
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        best = max(best, _box_worth(r, b, use_joker, succ, col, score, joker_score, box_face, flag_rows))
    return best


@njit(cache=True, inline="always")
def _best_keep(ev, r, tol, subkeeps, n_subkeeps):
    """The keep of roll ``r`` with the largest ``ev`` (ties within ``tol``: the last sub-keep)."""
    best = NEG_INF
    n = n_subkeeps[r]
    for j in range(n):
        v = ev[subkeeps[r, j]]
        if v > best:
            best = v
    for j in range(n - 1, -1, -1):
        k = subkeeps[r, j]
        if ev[k] >= best - tol:
            return k
    return subkeeps[r, n - 1]


@njit(cache=True, inline="always")
def _record_roll(moves, i, rolls_left, held):
    """Row ``i`` of ``moves`` (none: zero rows) gets the five dice ``held`` rolled with
    ``rolls_left`` rolls still to come (2: the first roll, which starts the row)."""
    if moves.shape[0] == 0:
        return
    if rolls_left == 2:
        moves[i, MOVE_ROLL1] = held
        moves[i, MOVE_ROLL2] = -1
        moves[i, MOVE_KEEP2] = -1
    elif rolls_left == 1:
        moves[i, MOVE_ROLL2] = held


@njit(cache=True, inline="always")
def _record_keep(moves, i, rolls_left, keep):
    """Row ``i`` of ``moves`` (none: zero rows) gets the keep made with ``rolls_left`` rolls left."""
    if moves.shape[0] > 0:
        moves[i, MOVE_KEEP1 if rolls_left == 2 else MOVE_KEEP2] = keep


@njit(cache=True, inline="always")
def _record_box(moves, i, held, mask_before, mask_after):
    """Row ``i`` of ``moves`` (none: zero rows) gets the five dice scored and the box filled
    (the one bit of the mask that changed)."""
    if moves.shape[0] > 0:
        moves[i, MOVE_FINAL] = held
        moves[i, MOVE_BOX] = low_bit_index(mask_after ^ mask_before)


@njit(cache=True, inline="always")
def _play_keeps(base, k, e0, e1, tol, add_die, keep_size, subkeeps, n_subkeeps, roll_offset, moves, i):
    """Roll the dice of a turn from die ``k`` of the stream ``base``, keeping the best sub-keep
    of each roll by ``e1`` (two rolls left) then ``e0`` (one); returns the final five-dice keep
    and the next die index.  Row ``i`` of ``moves`` (zero rows: none) records the rolls and keeps."""
    held = _roll(base, k, 0, add_die, keep_size)
    k += 5
    _record_roll(moves, i, 2, held)
    for rolls_left in range(2, 0, -1):
        if rolls_left == 2:
            keep = _best_keep(e1, held - roll_offset, tol, subkeeps, n_subkeeps)
        else:
            keep = _best_keep(e0, held - roll_offset, tol, subkeeps, n_subkeeps)
        _record_keep(moves, i, rolls_left, keep)
        if keep == held:
            break
        held = _roll(base, k, keep, add_die, keep_size)
        k += 5
        _record_roll(moves, i, rolls_left - 1, held)
    return held, k


@njit(cache=True, nogil=True)
def group_games(games, ids, games_out, ids_out, n_masks, cap, n_flags, nb):
    """Sort games by mask into ``games_out``/``ids_out`` and find the lanes ``(u, f)`` of each mask.

    Returns ``group_mask``, ``group_start`` (offsets into the sorted games),
    ``group_lane`` (offsets into the lane arrays), ``lane_u``, ``lane_f`` and
    ``pos_lane`` (the lane of sorted game ``j``).  Games of one mask keep their order.
    """
    n = games.shape[0]
    count = np.zeros(n_masks + 1, dtype=np.int64)
    for i in range(n):
        count[games[i, nb + COL_MASK] + 1] += 1
    n_groups = 0
    for m in range(n_masks):
        if count[m + 1] > 0:
            n_groups += 1
        count[m + 1] += count[m]
    group_mask = np.empty(n_groups, dtype=np.int64)
    group_start = np.empty(n_groups + 1, dtype=np.int64)
    j = 0
    for m in range(n_masks):
        if count[m + 1] > count[m]:
            group_mask[j] = m
            group_start[j] = count[m]
            j += 1
    group_start[n_groups] = n
    for i in range(n):
        m = games[i, nb + COL_MASK]
        j = count[m]
        count[m] += 1
        ids_out[j] = ids[i]
        for c in range(games.shape[1]):
            games_out[j, c] = games[i, c]
    n_keys = (cap + 1) * n_flags
    key_lane = np.full(n_keys, -1, dtype=np.int64)
    lane_u = np.empty(min(n, n_groups * n_keys), dtype=np.int64)
    lane_f = np.empty(lane_u.shape[0], dtype=np.int64)
    pos_lane = np.empty(n, dtype=np.int64)
    group_lane = np.empty(n_groups + 1, dtype=np.int64)
    n_lanes = 0
    for grp in range(n_groups):
        group_lane[grp] = n_lanes
        for j in range(group_start[grp], group_start[grp + 1]):
            u = min(np.int64(games_out[j, nb + COL_UPPER]), cap)
            f = np.int64(games_out[j, nb + COL_FLAG]) if n_flags == 2 else 0
            key = u * n_flags + f
            if key_lane[key] < 0:
                key_lane[key] = n_lanes
                lane_u[n_lanes] = u
                lane_f[n_lanes] = f
                n_lanes += 1
            pos_lane[j] = key_lane[key]
        for lane in range(group_lane[grp], n_lanes):
            key_lane[lane_u[lane] * n_flags + lane_f[lane]] = -1
    group_lane[n_groups] = n_lanes
    return group_mask, group_start, group_lane, lane_u[:n_lanes], lane_f[:n_lanes], pos_lane


@njit(cache=True, inline="always")
def _store_lane_tables(e0, e1, e0_all, e1_all, row0):
    """Lane ``j``'s keep tables (columns of ``e0``/``e1``, (462, nl)) into rows ``row0 + j`` of
    ``e0_all``/``e1_all`` (width, 462), where a game reads its lane's row."""
    for lane in range(e0.shape[1]):
        for kk in range(e0.shape[0]):
            e0_all[row0 + lane, kk] = e0[kk, lane]
            e1_all[row0 + lane, kk] = e1[kk, lane]


@njit(cache=True, nogil=True)
def group_tables(g0, g1, l0, group_mask, group_lane, lane_u, lane_f, values, ra, e0_all, e1_all, succ_all):
    """Within-turn tables of groups ``g0 .. g1`` (lanes from ``l0`` on are rows ``lane - l0``):
    ``e0_all``/``e1_all`` (width, 462) per lane, ``succ_all`` (6 n_boxes, width)."""
    n_keeps = ra.add_die.shape[0]
    no_tracking = np.empty((0, 0), dtype=np.int64)
    for grp in range(g0, g1):
        a = group_lane[grp]
        nl = group_lane[grp + 1] - a
        e0 = np.empty((n_keeps, nl))
        e1 = np.empty((n_keeps, nl))
        # contiguous copies: the same array types as the DP's, so its compiled helpers are reused
        u = lane_u[a : a + nl].copy()
        f = lane_f[a : a + nl].copy()
        turn_tables(group_mask[grp], u, f, values, ra, e0, e1, succ_all, a - l0, no_tracking)
        _store_lane_tables(e0, e1, e0_all, e1_all, a - l0)


@njit(cache=True, nogil=True)
def play_table_games(
    j0, j1, l0, pos_lane, games, ids, seed_mixed, game0, e0_all, e1_all, succ_all, tol, ra, moves
):  # fmt: skip
    """Play the turn of sorted games ``j0 .. j1`` (game ``game0 + ids[j]``) from the tables of
    :func:`group_tables`: the best keeps from ``e1``/``e0``, then the best legal box; ``moves``
    (n, N_MOVES) int16 records each game's turn (zero rows: none)."""
    add_die, keep_size, subkeeps, n_subkeeps = ra.add_die, ra.keep_size, ra.subkeeps, ra.n_subkeeps
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    five_kind, flag_rows, roll_face = ra.five_kind, ra.flag_rows, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    nb = box_face.shape[0]
    roll_offset = add_die.shape[0] - score.shape[0]
    for i in range(j0, j1):
        lane = pos_lane[i] - l0
        base = stream_base(seed_mixed, game0 + ids[i])
        held, k = _play_keeps(
            base, np.int64(games[i, nb + COL_DICE]), e0_all[lane], e1_all[lane], tol,
            add_die, keep_size, subkeeps, n_subkeeps, roll_offset, moves, i,
        )  # fmt: skip
        games[i, nb + COL_DICE] = k
        r, mask = held - roll_offset, np.int64(games[i, nb + COL_MASK])
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        best = _best_box_worth(r, bits, use_joker, succ_all, lane, score, joker_score, box_face, flag_rows)
        rest = bits
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            if (
                _box_worth(r, b, use_joker, succ_all, lane, score, joker_score, box_face, flag_rows)
                >= best - tol
            ):
                s = placement_score(r, b, use_joker, score, joker_score)
                extra = five_kind_bonus(
                    mask, r, np.int64(games[i, nb + COL_FLAG]), roll_face, rows_mask, bonus
                )
                _apply(games, i, b, s, extra, box_face, five_kind)
                _record_box(moves, i, held, mask, mask | (1 << b))
                break


@njit(cache=True, nogil=True)
def rank_keeps(e0, e1, lane, roll, rolls_left, raw_keeps, n_raw, rows, out_ev, out_keeps):
    """The keeps of positions valued from their card states' turn tables and ranked.

    Position ``i`` (n,) has the tables of row ``lane[i]`` of ``e1`` (two rolls left) or ``e0``
    (one), (lanes, 462) float64 each keep's value, the roll ``roll[i]`` (0..251) and
    ``rolls_left[i]`` (1 or 2); its keeps are ``raw_keeps[roll, :n_raw[roll]]`` ((252, 32), the
    rest padding, valued ``-inf``).  Into row ``rows[i]`` of ``out_ev`` (float64) and
    ``out_keeps`` (int16), caller-allocated (m, 32): the values from the largest down, equal
    values in their raw order (what ``np.argsort(-ev, axis=1, kind="stable")`` gives, ``-inf``
    last), each with its keep.  An insertion sort: rows are short (at most 32 keeps) and mostly
    ranked already by their keeps' order."""
    k = raw_keeps.shape[1]
    for i in range(len(lane)):
        o, r, row = rows[i], roll[i], lane[i]
        table = e1 if rolls_left[i] == 2 else e0
        n = n_raw[r]
        for j in range(k):
            keep = raw_keeps[r, j]
            v = table[row, keep] if j < n else NEG_INF
            m = j
            while m > 0 and out_ev[o, m - 1] < v:
                out_ev[o, m] = out_ev[o, m - 1]
                out_keeps[o, m] = out_keeps[o, m - 1]
                m -= 1
            out_ev[o, m] = v
            out_keeps[o, m] = keep


@njit(cache=True, nogil=True)
def best_keeps(e0, e1, lane, roll, rolls_left, raw_keeps, n_raw, tol, out):
    """Each position's best keep, valued as :func:`rank_keeps` values them: among the keeps whose
    value is within ``tol`` of the best (``best - value <= tol``), the largest keep index (the
    most dice).  Output, caller-allocated: ``out`` (n,) int64."""
    for i in range(len(lane)):
        r, row = roll[i], lane[i]
        table = e1 if rolls_left[i] == 2 else e0
        best = NEG_INF
        for j in range(n_raw[r]):
            best = max(best, table[row, raw_keeps[r, j]])
        chosen = -1
        for j in range(n_raw[r]):
            keep = raw_keeps[r, j]
            if best - table[row, keep] <= tol and keep > chosen:
                chosen = keep
        out[i] = chosen


@njit(cache=True, nogil=True)
def flat_options(
    rolls_left, row, base, keep_ev, keep_id, keep_n, keep_stop_box, keep_stop_score, place_ev, place_box,
    place_score, place_n, place_bonus, keep_size, keep_start, keep_faces, tol, offsets,
    ev, keep, box, score, bonus, expected_final, regret, best, stop_box, stop_score, face_offsets, faces,
):  # fmt: skip
    """The ranked options of positions laid out flat, best first within each position.

    Position ``i`` (n,) with ``rolls_left[i] > 0`` has row ``row[i]`` of the keep arrays
    (``keep_ev`` (k, 32) float64, ``keep_id`` (k, 32) keep indices, ``keep_n`` (k,) options,
    ``keep_stop_box``/``keep_stop_score`` (k,) the box and score that keeping all five implies, -1
    none); else of the box arrays (``place_ev`` (p, n_boxes), ``place_box``, ``place_score``,
    ``place_n`` (p,), ``place_bonus`` (p,) the roll's Yahtzee bonus); ``base`` (n,) float64 the
    points on its card.  ``keep_size``/``keep_start`` (462,) and ``keep_faces`` (int8) give each
    keep's faces; ``offsets`` (n + 1,) int64 each position's first option.

    Output, caller-allocated, per option (offsets[n],): ``ev``, ``expected_final`` (base + ev),
    ``regret`` (the best's ev - ev), ``best`` (regret <= ``tol``) float64/bool; ``keep``, ``box``
    (-1 for the other kind), ``score`` (-1 for keeps), ``bonus`` (0 for keeps), ``stop_box``,
    ``stop_score`` (-1 but for the keep of all five) int16; ``face_offsets`` (offsets[n] + 1,)
    int32 and ``faces`` (at least 5 per option) int8: each keep's faces (none for a box)."""
    at = 0
    face_offsets[0] = 0
    for i in range(len(rolls_left)):
        o0, j = offsets[i], row[i]
        if rolls_left[i] > 0:
            top = keep_ev[j, 0]
            for c in range(keep_n[j]):
                s = o0 + c
                v, k = keep_ev[j, c], keep_id[j, c]
                ev[s], keep[s], box[s], score[s], bonus[s] = v, k, -1, -1, 0
                stop_box[s], stop_score[s] = -1, -1
                if keep_size[k] == 5:
                    stop_box[s], stop_score[s] = keep_stop_box[j], keep_stop_score[j]
                for q in range(keep_start[k], keep_start[k] + keep_size[k]):
                    faces[at] = keep_faces[q]
                    at += 1
                face_offsets[s + 1] = at
                expected_final[s] = base[i] + v
                regret[s] = top - v
                best[s] = top - v <= tol
        else:
            top = place_ev[j, 0]
            for c in range(place_n[j]):
                s = o0 + c
                v = place_ev[j, c]
                ev[s], keep[s], box[s], score[s], bonus[s] = (
                    v,
                    -1,
                    place_box[j, c],
                    place_score[j, c],
                    place_bonus[j],
                )
                stop_box[s], stop_score[s] = -1, -1
                face_offsets[s + 1] = at
                expected_final[s] = base[i] + v
                regret[s] = top - v
                best[s] = top - v <= tol


# --- grading: each decision's loss against a value table ---------------------------
@njit(cache=True, inline="always")
def _best_of(ev, r, subkeeps, n_subkeeps):
    """The value of the best keep of roll ``r`` by ``ev``."""
    best = NEG_INF
    for j in range(n_subkeeps[r]):
        best = max(best, ev[subkeeps[r, j]])
    return best


@njit(cache=True, nogil=True)
def lane_turn_tables(i0, i1, block, l0, lane_mask, lane_u, lane_f, values, ra, e0_all, e1_all, succ_all):
    """The within-turn tables of lanes ``i0 .. i1`` (sorted by mask, several masks per block of
    ``block`` lanes, as the DP packs them) into rows ``lane - l0`` of ``e0_all``/``e1_all``
    (width, 462) and columns of ``succ_all`` (6 n_boxes, width): the same values as
    :func:`group_tables` (the DP's R0, the same maxima of the same sums), for many masks with
    few lanes each at the cost of a few full vectors."""
    n_keeps = ra.add_die.shape[0]
    n_boxes = ra.box_face.shape[0]
    roll_offset = n_keeps - ra.score.shape[0]
    width = min(block, i1 - i0)
    x_buf = np.empty(n_keeps * width)
    y_buf = np.empty(n_keeps * width)
    succ = np.empty((n_boxes * 6, width))
    work = np.empty((3, width))
    for lo in range(i0, i1, block):
        hi = min(lo + block, i1)
        nl = hi - lo
        x = x_buf[: n_keeps * nl].reshape((n_keeps, nl))  # C-contiguous: vectorises
        y = y_buf[: n_keeps * nl].reshape((n_keeps, nl))
        _block_final_values(lo, hi, lane_mask, lane_u, lane_f, values, ra, x, succ, work)
        _average_keeps(x, ra.add_die)  # x: e0 (the roll rows: R0)
        _best_subkeep(x, y, ra.drop_one, ra.n_drop, ra.all_rolls)
        _average_keeps(y, ra.add_die)  # y: e1 below five dice
        for j in range(nl):
            row = lo + j - l0
            for k in range(roll_offset):
                e0_all[row, k] = x[k, j]
                e1_all[row, k] = y[k, j]
            for k in range(roll_offset, n_keeps):  # keeping all five: stop and score now
                v = NEG_INF if ra.all_rolls else x[k, j]
                e0_all[row, k] = v
                e1_all[row, k] = v
            for c in range(n_boxes * 6):
                succ_all[c, row] = succ[c, j]


@njit(cache=True, inline="always")
def _grade_keeps(i, e0, e1, moves, subkeeps, n_subkeeps, roll_offset, graded):
    """Columns 0, 1, 3, 4 of row ``i`` of ``graded`` (:func:`grade_games`) from the turn's keep
    tables ``e0``/``e1`` (any objective), column 2 and 5 set to 0; returns the keep made with
    one roll left (-1: the turn stopped before)."""
    keep1, keep2 = np.int64(moves[i, MOVE_KEEP1]), np.int64(moves[i, MOVE_KEEP2])
    first = _best_of(e1, np.int64(moves[i, MOVE_ROLL1]) - roll_offset, subkeeps, n_subkeeps)
    graded[i, 0] = first - e1[keep1]
    graded[i, 1] = 0.0
    graded[i, 2] = 0.0
    graded[i, 3] = first
    graded[i, 4] = 0.0
    graded[i, 5] = 0.0
    if keep2 >= 0:
        second = _best_of(e0, np.int64(moves[i, MOVE_ROLL2]) - roll_offset, subkeeps, n_subkeeps)
        graded[i, 1] = second - e0[keep2]
        graded[i, 4] = second - e1[keep1]
    return keep2


@njit(cache=True, nogil=True)
def grade_games(j0, j1, l0, pos_lane, masks, lane_f, moves, e0_all, e1_all, succ_all, ra, graded):
    """Each decision's loss in the recorded turns ``j0 .. j1`` against the tables of
    :func:`group_tables` (lane ``pos_lane[j]``, rows from ``l0``; ``lane_f`` (lanes,) the
    lanes' flags): ``masks`` (n,) int64 the filled boxes before the turn, ``moves``
    (n, N_MOVES) int16 the turn (:data:`MOVE_ROLL1` ..).

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
    subkeeps, n_subkeeps = ra.subkeeps, ra.n_subkeeps
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    flag_rows, roll_face = ra.flag_rows, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    roll_offset = ra.add_die.shape[0] - score.shape[0]
    for i in range(j0, j1):
        lane = pos_lane[i] - l0
        e0 = e0_all[lane]
        keep2 = _grade_keeps(i, e0, e1_all[lane], moves, subkeeps, n_subkeeps, roll_offset, graded)
        r = np.int64(moves[i, MOVE_FINAL]) - roll_offset
        taken = np.int64(moves[i, MOVE_BOX])
        mask = masks[i]
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        best = _best_box_worth(r, bits, use_joker, succ_all, lane, score, joker_score, box_face, flag_rows)
        chosen = NEG_INF  # (a box that is not legal loses everything: never recorded)
        if (bits >> taken) & 1:
            chosen = _box_worth(r, taken, use_joker, succ_all, lane, score, joker_score, box_face, flag_rows)
        graded[i, 2] = best - chosen
        if keep2 >= 0 and keep2 != np.int64(moves[i, MOVE_ROLL2]):  # rolled a third time
            extra = five_kind_bonus(mask, r, lane_f[pos_lane[i]], roll_face, rows_mask, bonus)
            graded[i, 5] = best + extra - e0[keep2]


# --- simple bots (random, frequent) -------------------------------------------
@njit(cache=True, nogil=True)
def simple_games(kind, turn, i0, i1, games, seed_mixed, game0, ra, moves):
    """Play turn ``turn`` (0-based) of games ``i0 .. i1`` with a table-free bot: ``BOT_RANDOM``
    (uniform distinct keeps -- never keeping all five under ``all-rolls`` -- and a uniform
    legal box) or ``BOT_FREQUENT`` (keep every die of the most frequent face, ties: the
    higher face, at most four under ``all-rolls``; the box that pays most now, upper bonus
    included, ties: card order).  ``moves`` (n, N_MOVES) int16 records each game's turn
    (zero rows: none)."""
    add_die, keep_size, keep_counts, subkeeps, n_subkeeps = (
        ra.add_die,
        ra.keep_size,
        ra.keep_counts,
        ra.subkeeps,
        ra.n_subkeeps,
    )
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    five_kind, flag_rows, roll_face = ra.five_kind, ra.flag_rows, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    thr, ub, cap, all_rolls = ra.upper_threshold, ra.upper_bonus, ra.upper_cap, ra.all_rolls
    roll_offset = add_die.shape[0] - score.shape[0]
    nb = box_face.shape[0]
    for i in range(i0, i1):
        base = stream_base(seed_mixed, game0 + i)
        rbase = mix64(base ^ np.uint64(RANDOM_DOMAIN))
        j = 8 * turn
        k = np.int64(games[i, nb + COL_DICE])
        held = _roll(base, k, 0, add_die, keep_size)
        k += 5
        _record_roll(moves, i, 2, held)
        for rolls_left in range(2, 0, -1):
            r = held - roll_offset
            if kind == BOT_RANDOM:  # the last sub-keep is the roll itself (stop)
                keep = subkeeps[r, _uniform(rbase, j, n_subkeeps[r] - all_rolls)]
                j += 1
            else:
                best_face = 0
                best_n = -1
                for face in range(keep_counts.shape[1]):
                    if keep_counts[held, face] >= best_n:
                        best_n = keep_counts[held, face]
                        best_face = face
                if all_rolls and best_n == 5:
                    best_n = 4
                keep = 0
                for _ in range(best_n):
                    keep = add_die[keep, best_face]
            _record_keep(moves, i, rolls_left, keep)
            if keep == held:
                break
            held = _roll(base, k, keep, add_die, keep_size)
            k += 5
            _record_roll(moves, i, rolls_left - 1, held)
        games[i, nb + COL_DICE] = k
        r, mask = held - roll_offset, np.int64(games[i, nb + COL_MASK])
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        chosen = -1
        if kind == BOT_RANDOM:
            n_legal = 0
            rest = bits
            while rest:
                rest &= rest - 1
                n_legal += 1
            rest = bits
            for _ in range(_uniform(rbase, j, n_legal)):
                rest &= rest - 1
            chosen = low_bit_index(rest)
        else:
            u = min(np.int64(games[i, nb + COL_UPPER]), cap)
            most = -1
            rest = bits
            while rest:
                b = low_bit_index(rest)
                rest &= rest - 1
                s = placement_score(r, b, use_joker, score, joker_score)
                gain, _, _ = step(u, 0, s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
                if gain > most:
                    most = gain
                    chosen = b
        s = placement_score(r, chosen, use_joker, score, joker_score)
        extra = five_kind_bonus(mask, r, np.int64(games[i, nb + COL_FLAG]), roll_face, rows_mask, bonus)
        _apply(games, i, chosen, s, extra, box_face, five_kind)
        _record_box(moves, i, held, mask, mask | (1 << chosen))


# ============================================================================
# Play for a target: the probability of reaching a score
#
# ``W(state, t)`` is the largest probability, over strategies, of scoring at least ``t``
# more points from the start of a turn in ``state``: 1 for ``t <= 0``, 0 on the full card
# for ``t >= 1``.  It obeys the turn recursion above with one change: what a placement is
# worth is :func:`target_objective` (the next state's probability of the points still
# needed after this one), not :func:`objective`.  The keep and reroll stages
# (:func:`_average_keeps`, :func:`_best_subkeep`) are the same functions.
#
# Storage: one array ``w`` (float32 in a table, float64 while the DP runs); state
# ``(mask, u, f)`` has ``W(state, t) = 1`` for ``t <= w_lead[mask, u, f]``, ``W(state, t) =
# w[w_off[mask, u, f] + t - 1]`` for ``w_lead < t <= w_len[mask, u, f]`` and 0 beyond (a
# table stores of each row only the middle between its run of 1.0 and its run of 0;
# ``w_off`` is where ``t = 1`` would be, so ``w_off + w_lead`` is the first value stored).
# Lanes of the DP are one state and a run of consecutive ``t``: its placements are
# computed once per (roll, box) and the lanes read consecutive entries.
# ============================================================================


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
def _fill_lanes(x, row, col, n, value):
    """``x[row, col + j] = value`` for ``j < n``.  Unsigned offsets: numba wraps a negative
    (signed) index around element by element, which keeps a loop scalar."""
    at = np.uint64(col)
    for j in range(np.uint64(n)):
        x[row, at + j] = value


@njit(cache=True, inline="always")
def _copy_lanes(x, src, row, col, n):
    """``x[row, col + j] = x[src, col + j]`` for ``j < n`` (unsigned offsets: :func:`_fill_lanes`)."""
    at = np.uint64(col)
    for j in range(np.uint64(n)):
        x[row, at + j] = x[src, at + j]


@njit(cache=True, inline="always")
def _target_max_into(x, row, col, n, w, off, lead, length, t0, shift):
    """``x[row, col + j] = max(x[row, col + j], target_objective(w, off, lead, length, t0 + j -
    shift))`` for ``j < n``, in three runs (certain, read ``w``, out of reach) that vectorise."""
    j1 = min(max(lead + shift - t0 + 1, 0), n)
    j2 = min(max(length + shift - t0 + 1, j1), n)
    _fill_lanes(x, row, col, j1, 1.0)
    # unsigned offsets (see _fill_lanes); each run starts at a valid, non-negative index
    at = np.uint64(col + j1)
    base = np.uint64(off + t0 - shift - 1 + j1)
    for j in range(np.uint64(j2 - j1)):
        x[row, at + j] = max(x[row, at + j], w[base + j])
    at = np.uint64(col + j2)
    for j in range(np.uint64(n - j2)):
        x[row, at + j] = max(x[row, at + j], 0.0)


@njit(cache=True)
def _target_rolls(mask, u, f, t0, n, col, w, w_off, w_lead, w_len, ra, x, best_box):
    """R0 for target play: ``x[roll_offset + r, col + j]`` = best over the legal boxes of roll
    ``r`` of :func:`target_objective` with ``t0 + j`` points needed, lanes ``j < n`` of one
    state ``(mask, u, f)``.  ``best_box[r, col + j]`` gets the chosen box (lowest index
    among equals) unless ``best_box`` has zero rows.

    Without tracking, an ordinary roll starts from the best zero placement (row ``zero``,
    the same for every roll) and tries only the boxes where it scores: a zero placement is
    never better than a scoring one in the same box (fewer points, a lower upper total, no
    flag), so the maximum is the same, as in :func:`_block_final_values`.
    """
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
        _fill_lanes(x, 0, col, n, NEG_INF)
        rest = allowed
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            points, u2, f2 = step(u, f, 0, box_face[b], flag_rows[b] == 1, thr, ub, cap)
            nxt = mask | (1 << b)
            _target_max_into(
                x, 0, col, n, w, w_off[nxt, u2, f2], w_lead[nxt, u2, f2], w_len[nxt, u2, f2], t0, points
            )
        for r in range(score.shape[0]):
            if roll_face[r] > 0:
                continue
            row = roll_offset + r
            _copy_lanes(x, 0, row, col, n)
            for i in range(n_pos[r]):
                b = pos_boxes[r, i]
                if not (allowed >> b) & 1:
                    continue
                s = score[r, b]
                points, u2, f2 = step(u, f, s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
                nxt = mask | (1 << b)
                _target_max_into(
                    x, row, col, n, w, w_off[nxt, u2, f2], w_lead[nxt, u2, f2], w_len[nxt, u2, f2], t0, points
                )
    for r in range(score.shape[0]):
        if not track and roll_face[r] == 0:
            continue
        row = roll_offset + r
        _fill_lanes(x, row, col, n, NEG_INF)
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
                _target_max_into(x, row, col, n, w, off, lead, length, t0, shift)


@njit(cache=True, nogil=True)
def solve_target_blocks(block_state, block_t0, block_n, i0, i1, masks, us, fs, w, w_off, w_lead, w_len, ra):
    """Solve blocks ``i0 .. i1``: block ``i`` is state ``(masks[k], us[k], fs[k])`` with
    ``k = block_state[i]`` and targets ``t = block_t0[i] .. + block_n[i]``, written to
    ``w[w_off[state] + t - 1]``.  States after these must be solved already."""
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
        _target_rolls(mask, u, f, block_t0[i], n, np.int64(0), w, w_off, w_lead, w_len, ra, x, no_tracking)
        _average_keeps(x, ra.add_die)
        _best_subkeep_in_place(x, ra.drop_one, ra.n_drop, ra.all_rolls)
        _average_keeps(x, ra.add_die)
        _best_subkeep_in_place(x, ra.drop_one, ra.n_drop, ra.all_rolls)
        # the mean over rolls, in keep row 0 of x (free now); this loop still compiles to scalar
        # multiplies (about 6% of a block's time), the roll order per lane as before
        _fill_lanes(x, 0, np.int64(0), n, 0.0)
        for r in range(n_rolls):
            p = ra.roll_prob[r]
            for j in range(n):
                x[0, j] += p * x[roll_offset + r, j]
        base = np.uint64(w_off[mask, u, f] + block_t0[i] - 1)  # unsigned: see _fill_lanes
        for j in range(np.uint64(n)):
            w[base + j] = x[0, j]


# ============================================================================
# The distribution of the final score
#
# Expected-score play moves probability between states; the points it scores on the way
# are tracked as a distribution over "points so far" per state.  Per turn, each state's
# turn is resolved into its outcomes -- the probability of ending the turn with each roll,
# and the box that roll goes in -- by pushing probability forward through the same
# decision tables the bots use (:func:`turn_tables`' numbers), with the bots' tie rules
# (:func:`_best_keep`, for every lane at once :func:`_keep_tables`; boxes within ``tol`` of
# the best: the first in card order).  Lanes go through each step together, a block of
# masks at a time (long vectors, as in the DP); each lane's additions come in the order of
# a lane alone, so the numbers do not depend on the blocks.  The outcomes are merged by
# (box, score, bonus) and applied to the next states' rows (packed: only the points a
# state's row can hold, see ``solver.engine.distribution._Rows``).
# ============================================================================


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
def _final_masses(start_roll, start_rolls_left, roll_prob, add_die, k0, k1, mass, part, final):
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
def _turn_keeps(e0, e1, tol, ra, k0, k1, scratch):
    """The keep tables ``k0``/``k1`` (252, lanes) of the within-turn tables ``e0``/``e1``
    (:func:`turn_tables`): each roll's keep by the bots' tie rule (:func:`_keep_tables`);
    ``scratch`` (462, lanes)."""
    # each roll's best keep value, all lanes at once (the largest over its sub-keeps: the
    # maximum _best_keep finds)
    _best_subkeep(e0, scratch, ra.drop_one, ra.n_drop, np.int64(0))
    _keep_tables(e0, scratch, tol, ra.subkeeps, ra.n_subkeeps, k0)
    _best_subkeep(e1, scratch, ra.drop_one, ra.n_drop, np.int64(0))
    _keep_tables(e1, scratch, tol, ra.subkeeps, ra.n_subkeeps, k1)


@njit(cache=True, nogil=True)
def turn_outcomes(lane_mask, lane_u, lane_f, values, ra, tol, start_roll, start_rolls_left, rep_u):
    """The outcomes of one turn of expected-score play (the table ``values``) for lanes
    ``(lane_mask[j], lane_u[j], lane_f[j])`` (sorted by mask; a block of several masks goes
    through the tables together, as in the DP: :func:`_final_values`, the same numbers as
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
    succ = np.empty((ra.box_face.shape[0] * 6, nl))
    work = np.empty((3, nl))
    first = 0
    while first < nl:
        last = _segment_end(lane_mask, first, nl)
        successors(lane_mask[first], first, last - first, first, lane_u, lane_f, values, 1.0, ra, succ)
        first = last
    _final_values(np.int64(0), np.int64(nl), lane_mask, lane_f, ra, e0, succ, work)
    top = np.empty((n_rolls, nl))  # R0: each roll's best placement, its bonus included
    for r in range(n_rolls):
        for j in range(nl):
            top[r, j] = e0[roll_offset + r, j]
    _turn_from_final(e0, e1, ra)
    # the rolls' masses at the end of the turn
    k0 = np.empty((n_rolls, nl), dtype=np.int64)
    k1 = np.empty((n_rolls, nl), dtype=np.int64)
    mass = np.empty((n_keeps, nl))
    part = np.empty(nl)
    final = np.empty((n_rolls, nl))
    _turn_keeps(e0, e1, tol, ra, k0, k1, mass)
    _final_masses(start_roll, start_rolls_left, ra.roll_prob, ra.add_die, k0, k1, mass, part, final)
    # each mask's boxes
    size = 64 * nl
    src = np.empty(size, dtype=np.int64)
    dst = np.empty(size, dtype=np.int64)
    gain = np.empty(size, dtype=np.int64)
    count = np.empty(size, dtype=np.int64)
    prob = np.empty(size)
    n_out = 0
    first = 0
    while first < nl:
        last = _segment_end(lane_mask, first, nl)
        merged, key_box, key_score = _mask_boxes(
            lane_mask[first], first, last, lane_f, succ, top, final, ra, tol
        )
        more = 0
        for j in range(last - first):
            for k in range(merged.shape[1]):
                if merged[j, k] != 0.0:
                    more += 1
        if n_out + more > src.shape[0]:
            size = max(2 * src.shape[0], n_out + more)
            src, dst, gain = _grown(src, size), _grown(dst, size), _grown(gain, size)
            count, prob = _grown(count, size), _grown(prob, size)
        n_out = _mask_outcomes(
            lane_mask[first], first, lane_u, lane_f, merged, key_box, key_score, ra, rep_u, n_out,
            src, dst, gain, count, prob,
        )  # fmt: skip
        first = last
    return src[:n_out], dst[:n_out], gain[:n_out], count[:n_out], prob[:n_out]


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
    masses (:func:`_final_masses`)."""
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
                    b, placement_score(r, b, use_joker, score, joker_score), box_face[b], flag_rows[b] == 1
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
            cand, add = score_class(b, s, box_face[b], flag_rows[b] == 1)
            row = 2 * key_of[b, s]
            for j in range(n):
                pick[j] = row if add + succ[cand, lo + j] >= best[j] else pick[j]
        for j in range(n):
            m = final[r, lo + j]
            if m != 0.0 and pick[j] >= 0:
                merged[j, pick[j] + (flagged if lane_f[lo + j] == 1 else 0)] += m
    return merged, key_box, key_score


@njit(cache=True, inline="always")
def _mask_outcomes(mask, lo, lane_u, lane_f, merged, key_box, key_score, ra, rep_u, n_out, src, dst, gain, count, prob):  # fmt: skip
    """The outcomes of lanes ``lo ..`` (one ``mask``) from their placements' masses (see
    :func:`_mask_boxes`) into the outcome arrays from ``n_out`` on (see :func:`turn_outcomes`;
    room enough); returns the new ``n_out``."""
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
def apply_outcomes(c0, c1, src, dst_row, gain, prob, rows, row_off, row_lo, row_n, out, out_off, out_lo):
    """Outcomes ``c0 .. c1`` (sorted by ``dst_row``: ranges that do not split a row may run in
    threads) into packed rows (``solver.engine.distribution._Rows``): outcome ``c`` adds
    ``prob[c]`` times source row ``s = src[c]`` (``row_n[s]`` entries at ``rows[row_off[s]:]``,
    points so far from ``row_lo[s]``) to row ``d = dst_row[c]`` of ``out`` (at ``out[out_off[d]:]``,
    from ``out_lo[d]`` points), ``gain[c]`` points on."""
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


# --- the distribution under target play: one state, a run of consecutive needs ------------
#
# A state's turn under target play depends on the points still needed; the lanes of a block
# are one state and consecutive needs ``t0 .. t0 + n - 1``, as in the DP.  Each placement a
# roll may get is a *candidate* (box, score, five-of-a-kind bonus): its next state, its
# points, and its value at need ``t`` -- 1 for ``t <= c_lo``, ``w[c_src + t]`` up to
# ``c_hi``, 0 beyond -- found once per state (:func:`_target_plan`), not once per roll and lane.


@njit(cache=True, inline="always")
def _add_candidate(c, key, b, s, extra, mask, u, f, w_off, w_lead, w_len, rep_u, box_face, flag_rows, thr, ub, cap, key_of, c_key, c_src, c_lo, c_hi, c_dst, c_gain):  # fmt: skip
    """Candidate ``c``: score ``s`` (and bonus ``extra``) in box ``b`` from ``(mask, u, f)``, under
    ``key`` (:func:`_candidate_key`), into the arrays of a plan (:func:`target_plan_arrays`)."""
    points, u2, f2 = step(u, f, s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
    nxt = mask | (1 << b)
    shift = points + extra
    key_of[key] = c
    c_key[c] = key
    c_src[c] = w_off[nxt, u2, f2] - shift - 1
    c_lo[c] = w_lead[nxt, u2, f2] + shift
    c_hi[c] = w_len[nxt, u2, f2] + shift
    c_dst[c] = (nxt * (cap + 1) + rep_u[nxt, u2]) * w_off.shape[2] + f2
    c_gain[c] = shift


@njit(cache=True, inline="always")
def _candidate_key(b, s, extra, n_keys, nb):
    """Where candidate ``(b, s, extra)`` is in a plan's ``key_of`` (``n_keys`` entries, ``nb`` boxes)."""
    return (b * (n_keys // (2 * nb)) + s) * 2 + (1 if extra > 0 else 0)


@njit(cache=True, inline="always")
def _run_value(run_c, r, w, c, t):
    """Candidate ``c``'s value with ``t`` points needed (the next state's probability of the
    rest), from ``run_c[r]``: its ``(c_src, c_lo, c_hi)`` (see above)."""
    if t <= run_c[r, 1, c]:
        return 1.0
    if t > run_c[r, 2, c]:
        return 0.0
    return np.float64(w[run_c[r, 0, c] + t])


@njit(cache=True)
def target_plan_arrays(ra, n_flags):
    """Scratch of :func:`_target_plan` for the rule arrays ``ra`` (made once per kernel call)."""
    nb = ra.box_face.shape[0]
    n_rolls = ra.score.shape[0]
    max_score = max(ra.score.max(), ra.joker_score.max())
    n_keys = nb * (max_score + 1) * 2
    return (
        np.full(n_keys, -1, dtype=np.int64),  # 0 key_of: candidate of (box, score, bonus), -1: none
        np.empty(n_keys, dtype=np.int64),  # 1 c_key
        np.empty(n_keys, dtype=np.int64),  # 2 c_src
        np.empty(n_keys, dtype=np.int64),  # 3 c_lo
        np.empty(n_keys, dtype=np.int64),  # 4 c_hi
        np.empty(n_keys, dtype=np.int64),  # 5 c_dst: the next state (flat, upper total by rep_u)
        np.empty(n_keys, dtype=np.int64),  # 6 c_gain: the points of the turn
        np.empty(nb + 1, dtype=np.int64),  # 7 zero_c: the zero placements (their count last)
        np.empty((n_rolls, nb), dtype=np.int64),  # 8 best_c: what R0 of a roll is the best of
        np.empty(n_rolls, dtype=np.int64),  # 9 best_n
        np.empty(n_rolls, dtype=np.int64),  # 10 best_z: 1 when R0 starts from the zero row
        np.empty((n_rolls, nb), dtype=np.int64),  # 11 legal_c: the legal boxes, in card order
        np.empty(n_rolls, dtype=np.int64),  # 12 legal_n
    )


@njit(cache=True)
def _target_plan(mask, u, f, w_off, w_lead, w_len, rep_u, ra, plan):
    """The candidates of state ``(mask, u, f)`` into ``plan`` (:func:`target_plan_arrays`): the
    zero row (the allowed boxes scoring 0), per roll the candidates ``R0`` is the best of in
    :func:`_target_rolls`' order (an ordinary roll from the zero row, a five of a kind from
    -inf: the same maxima bit for bit) and its legal boxes in card order.  Returns the number
    of candidates."""
    key_of, c_key, c_src, c_lo, c_hi, c_dst, c_gain = (
        plan[0],
        plan[1],
        plan[2],
        plan[3],
        plan[4],
        plan[5],
        plan[6],
    )
    zero_c, best_c, best_n, best_z, legal_c, legal_n = plan[7], plan[8], plan[9], plan[10], plan[11], plan[12]
    score, joker_score, box_face, roll_face = ra.score, ra.joker_score, ra.box_face, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    n_pos, pos_boxes = ra.n_pos, ra.pos_boxes
    flag_rows, thr, ub, cap = ra.flag_rows, ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    nb = box_face.shape[0]
    n_keys = key_of.shape[0]
    n_cand = 0
    allowed = allowed_bits(mask, nb, order)
    n_zero = 0
    rest = allowed
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        key = _candidate_key(b, 0, 0, n_keys, nb)
        c = key_of[key]
        if c < 0:
            c = n_cand
            n_cand += 1
            _add_candidate(c, key, b, 0, 0, mask, u, f, w_off, w_lead, w_len, rep_u, box_face, flag_rows, thr, ub, cap, key_of, c_key, c_src, c_lo, c_hi, c_dst, c_gain)  # fmt: skip
        zero_c[n_zero] = c
        n_zero += 1
    zero_c[nb] = n_zero
    for r in range(score.shape[0]):
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        extra = five_kind_bonus(mask, r, f, roll_face, rows_mask, bonus)
        n = 0
        rest = bits
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            s = placement_score(r, b, use_joker, score, joker_score)
            key = _candidate_key(b, s, extra, n_keys, nb)
            c = key_of[key]
            if c < 0:
                c = n_cand
                n_cand += 1
                _add_candidate(c, key, b, s, extra, mask, u, f, w_off, w_lead, w_len, rep_u, box_face, flag_rows, thr, ub, cap, key_of, c_key, c_src, c_lo, c_hi, c_dst, c_gain)  # fmt: skip
            legal_c[r, n] = c
            n += 1
        legal_n[r] = n
        if roll_face[r] == 0:
            best_z[r] = 1
            n = 0
            for i in range(n_pos[r]):
                b = pos_boxes[r, i]
                if (allowed >> b) & 1:  # a legal box of the roll: its candidate is made
                    best_c[r, n] = key_of[_candidate_key(b, score[r, b], 0, n_keys, nb)]
                    n += 1
            best_n[r] = n
        else:
            best_z[r] = 0
            for i in range(legal_n[r]):
                best_c[r, i] = legal_c[r, i]
            best_n[r] = legal_n[r]
    for c in range(n_cand):  # ready for the next state
        key_of[c_key[c]] = -1
    return n_cand


@njit(cache=True)
def _planned_rolls(plan, w, t0, n, col, x):
    """R0 of target play from a plan: ``x[roll_offset + r, col + j]`` for needs ``t0 + j`` (``j <
    n``) -- :func:`_target_rolls` without tracking, bit for bit (the same maxima, the same order)."""
    c_src, c_lo, c_hi = plan[2], plan[3], plan[4]
    zero_c, best_c, best_n, best_z = plan[7], plan[8], plan[9], plan[10]
    n_rolls = best_n.shape[0]
    roll_offset = x.shape[0] - n_rolls
    _fill_lanes(x, 0, col, n, NEG_INF)  # the best zero placement, in keep row 0's place (free until averaged)
    nb = zero_c.shape[0] - 1
    for i in range(zero_c[nb]):
        c = zero_c[i]
        _target_max_into(x, 0, col, n, w, c_src[c] + 1, c_lo[c], c_hi[c], t0, 0)
    for r in range(n_rolls):
        row = roll_offset + r
        if best_z[r]:
            _copy_lanes(x, 0, row, col, n)
        else:
            _fill_lanes(x, row, col, n, NEG_INF)
        for i in range(best_n[r]):
            c = best_c[r, i]
            _target_max_into(x, row, col, n, w, c_src[c] + 1, c_lo[c], c_hi[c], t0, 0)


@njit(cache=True)
def _keep_tables(table, best, tol, subkeeps, n_subkeeps, keeps):
    """``keeps[r, j]``: the keep of roll ``r`` by ``table`` (462, n) for every lane ``j`` at once --
    :func:`_best_keep`'s choice (the last sub-keep within ``tol`` of the best), the best
    ``best[roll_offset + r, j]`` (:func:`_best_subkeep` of ``table``: the same maximum)."""
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
def target_turn_runs(
    b0, b1, block_run, run_state, run_t0, run_n, run_out, masks, us, fs, w, w_off, w_lead, w_len, rep_u, ra,
    tol, start_roll, start_rolls_left, cmax, probs, c_dst, c_gain, run_cand,
):  # fmt: skip
    """The turns of the lanes of blocks ``b0 .. b1`` under target play.  A run ``q`` is one state
    ``k = run_state[q]`` (``(masks[k], us[k], fs[k])``) with consecutive needs ``run_t0[q] ..
    + run_n[q]`` (each ``>= 1``); block ``b`` is runs ``block_run[b] .. block_run[b + 1]``, whose
    lanes go through the keep tables together.  Keeps by the target-play tables
    (:func:`target_turn_tables`, the tie rule of :func:`_best_keep`), then the legal box of
    the largest probability (ties within ``tol``: the first in card order) -- what
    :func:`play_target_games` plays.  Out: per run, ``run_cand[q]`` candidates ``c`` (their
    next state ``c_dst[q * cmax + c]``, flat, and points ``c_gain[...]``) with probability
    ``probs[run_out[q] + c * run_n[q] + j]`` for lane ``j``.  A fresh turn when ``start_roll <
    0``, else from roll ``start_roll`` with ``start_rolls_left`` rolls left."""
    n_keeps = ra.add_die.shape[0]
    n_rolls = ra.score.shape[0]
    nb = ra.box_face.shape[0]
    width = 0
    runs = 0
    for b in range(b0, b1):
        lanes = 0
        for q in range(block_run[b], block_run[b + 1]):
            lanes += run_n[q]
        width = max(width, lanes)
        runs = max(runs, block_run[b + 1] - block_run[b])
    e0_buf = np.empty(n_keeps * width)
    e1_buf = np.empty(n_keeps * width)
    mass_buf = np.empty(n_keeps * width)
    k0_buf = np.empty(n_rolls * width, dtype=np.int64)
    k1_buf = np.empty(n_rolls * width, dtype=np.int64)
    final_buf = np.empty(n_rolls * width)
    v_buf = np.empty(cmax * width)
    part = np.empty(width)
    top_buf = np.empty(width)
    pick_buf = np.zeros(width, dtype=np.int64)
    plan = target_plan_arrays(ra, w_off.shape[2])
    c_src, c_lo, c_hi, p_dst, p_gain, legal_c, legal_n = (
        plan[2],
        plan[3],
        plan[4],
        plan[5],
        plan[6],
        plan[11],
        plan[12],
    )
    # each run's plan, kept for its boxes once the block's keeps are known
    run_legal = np.empty((runs, n_rolls, nb), dtype=np.int64)
    run_legal_n = np.empty((runs, n_rolls), dtype=np.int64)
    run_c = np.empty((runs, 3, cmax), dtype=np.int64)
    add_die, roll_prob = ra.add_die, ra.roll_prob
    planned = -1
    n_cand = 0
    for b in range(b0, b1):
        q0, q1 = block_run[b], block_run[b + 1]
        n = 0
        for q in range(q0, q1):
            n += run_n[q]
        e0 = e0_buf[: n_keeps * n].reshape((n_keeps, n))
        e1 = e1_buf[: n_keeps * n].reshape((n_keeps, n))
        mass = mass_buf[: n_keeps * n].reshape((n_keeps, n))
        col = 0
        for q in range(q0, q1):
            k = run_state[q]
            if k != planned:
                n_cand = _target_plan(masks[k], us[k], fs[k], w_off, w_lead, w_len, rep_u, ra, plan)
                planned = k
            _planned_rolls(plan, w, run_t0[q], run_n[q], col, e0)
            r = q - q0
            for x in range(n_rolls):
                run_legal_n[r, x] = legal_n[x]
                for y in range(legal_n[x]):
                    run_legal[r, x, y] = legal_c[x, y]
            for c in range(n_cand):
                run_c[r, 0, c] = c_src[c]
                run_c[r, 1, c] = c_lo[c]
                run_c[r, 2, c] = c_hi[c]
                c_dst[q * cmax + c] = p_dst[c]
                c_gain[q * cmax + c] = p_gain[c]
            run_cand[q] = n_cand
            col += run_n[q]
        _turn_from_final(e0, e1, ra)
        kk0 = k0_buf[: n_rolls * n].reshape((n_rolls, n))
        kk1 = k1_buf[: n_rolls * n].reshape((n_rolls, n))
        _turn_keeps(e0, e1, tol, ra, kk0, kk1, mass)
        final = final_buf[: n_rolls * n].reshape((n_rolls, n))
        _final_masses(start_roll, start_rolls_left, roll_prob, add_die, kk0, kk1, mass, part, final)
        col = 0
        for q in range(q0, q1):
            r = q - q0
            nq = run_n[q]
            out = run_out[q]
            for c in range(run_cand[q] * nq):
                probs[out + c] = 0.0
            # each candidate's value at each need of the run, read from the table once
            v = v_buf[: run_cand[q] * nq].reshape((run_cand[q], nq))
            for c in range(run_cand[q]):
                for j in range(nq):
                    v[c, j] = _run_value(run_c, r, w, c, run_t0[q] + j)
            # per roll, every lane of the run at once (rows of v: contiguous lanes, it
            # vectorises): the best value, then the first legal box within tol of it (a
            # select from the last box down); each lane's masses come in roll order
            top = top_buf[:nq]
            pick = pick_buf[:nq]
            for x in range(n_rolls):
                nl = run_legal_n[r, x]
                for j in range(nq):
                    top[j] = NEG_INF
                for y in range(nl):
                    vc = v[run_legal[r, x, y]]
                    for j in range(nq):
                        top[j] = max(top[j], vc[j])
                for j in range(nq):
                    top[j] -= tol
                for y in range(nl - 1, -1, -1):
                    c = run_legal[r, x, y]
                    vc = v[c]
                    for j in range(nq):
                        pick[j] = c if vc[j] >= top[j] else pick[j]
                for j in range(nq):
                    m = final[x, col + j]
                    if m != 0.0:
                        probs[out + pick[j] * nq + j] += m
            col += nq
    return 0


@njit(cache=True, nogil=True)
def apply_target_runs(
    row0, row1, q0, q1, run_state, run_t0, run_n, run_out, run_cand, probs, c_row, c_gain, cmax, src, tw, out_t,
    out_e, e_row,
):  # fmt: skip
    """The masses of runs ``q0 .. q1`` (:func:`target_turn_runs`) into the next states' rows
    ``row0 .. row1`` only (ranges of rows may run in threads; each row gets its additions in
    run order): lane ``j`` of run ``q`` is row ``run_state[q]`` of ``src`` (mass by points so
    far ``p``, ``p < tw``) at ``p = tw - run_t0[q] - j``; it moves with each candidate ``c``
    to row ``c_row[q * cmax + c]``, ``c_gain`` points on: into ``out_t`` below ``tw``, into
    row ``e_row[row]`` of ``out_e`` (points from ``tw`` on) from there."""
    for q in range(q0, q1):
        s = run_state[q]
        t0 = run_t0[q]
        n = run_n[q]
        out = run_out[q]
        for c in range(run_cand[q]):
            d = c_row[q * cmax + c]
            if d < row0 or d >= row1:
                continue
            g = c_gain[q * cmax + c]
            e = e_row[d]
            for j in range(n):
                pr = probs[out + c * n + j]
                if pr == 0.0:
                    continue
                p = tw - t0 - j
                if p + g < tw:
                    out_t[d, p + g] += pr * src[s, p]
                else:
                    out_e[e, p + g - tw] += pr * src[s, p]
    return 0


@njit(cache=True, nogil=True)
def apply_split_rows(
    c0, c1, src, dst_row, gain, prob, src_t, skip_t, src_e, src_e_row, support, tw, out_t, out_e, e_row
):
    """:func:`apply_outcomes` for rows split at ``tw`` points: source row ``s`` is ``src_t[s]``
    (points below ``tw``; 0 where ``skip_t`` is set) then ``src_e[src_e_row[s]]`` (none when
    -1), ``support[s]`` one past its last non-zero entry; the destination likewise (``out_t``,
    ``out_e``, ``e_row``)."""
    for c in range(c0, c1):
        s = src[c]
        d = dst_row[c]
        g = gain[c]
        p = prob[c]
        es = src_e_row[s]
        ed = e_row[d]
        for i in range(support[s]):
            if i < tw:
                v = 0.0 if skip_t[s, i] else src_t[s, i]
            else:
                v = src_e[es, i - tw] if es >= 0 else 0.0
            if v == 0.0:
                continue
            q = i + g
            if q < tw:
                out_t[d, q] += p * v
            else:
                out_e[ed, q - tw] += p * v
    return 0


@njit(cache=True, nogil=True)
def target_turn_tables(mask, lane_u, lane_f, lane_t, w, w_off, w_lead, w_len, ra, e0, e1, best_box):
    """Within-turn tables of target play (as :func:`turn_tables`, in probabilities) for lanes
    ``(mask, lane_u[j], lane_f[j])`` with ``lane_t[j] >= 1`` points still needed."""
    for j in range(lane_u.shape[0]):
        _target_rolls(
            mask,
            lane_u[j],
            lane_f[j],
            lane_t[j],
            np.int64(1),
            np.int64(j),
            w,
            w_off,
            w_lead,
            w_len,
            ra,
            e0,
            best_box,
        )
    _turn_from_final(e0, e1, ra)


@njit(cache=True, nogil=True)
def target_group_tables(
    g0, g1, l0, group_mask, group_lane, lane_u, lane_f, lane_t, w, w_off, w_lead, w_len, ra, e0_all, e1_all
):
    """Target-play tables of groups ``g0 .. g1`` (one mask each; lanes from ``l0`` on are rows
    ``lane - l0`` of ``e0_all``/``e1_all`` (width, 462))."""
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
        target_turn_tables(group_mask[grp], u, f, t, w, w_off, w_lead, w_len, ra, e0, e1, no_tracking)
        _store_lane_tables(e0, e1, e0_all, e1_all, a - l0)


@njit(cache=True, nogil=True)
def play_target_games(
    j0, j1, l0, pos_lane, need, games, ids, seed_mixed, game0, e0_all, e1_all, w, w_off, w_lead, w_len, tol, ra,
    moves,
):  # fmt: skip
    """Play the turn of games ``j0 .. j1`` (``need[j] >= 1`` points still needed) for the
    target: keeps from the tables of :func:`target_group_tables`, then the legal box with the
    largest probability (ties within ``tol``: the first in card order); ``moves`` (n, N_MOVES)
    int16 records each game's turn (zero rows: none)."""
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
        held, k = _play_keeps(
            base, np.int64(games[i, nb + COL_DICE]), e0_all[lane], e1_all[lane], tol,
            add_die, keep_size, subkeeps, n_subkeeps, roll_offset, moves, i,
        )  # fmt: skip
        games[i, nb + COL_DICE] = k
        mask = np.int64(games[i, nb + COL_MASK])
        _score_best_win_box(
            games, i, held - roll_offset, need[i], qt, qc, 2, w, w_off, w_lead, w_len, tol, ra, vals
        )
        _record_box(moves, i, held, mask, np.int64(games[i, nb + COL_MASK]))


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


# ============================================================================
# The triple card (modifier ``triple``, :mod:`solver.advice.triple`)
#
# A triple game is three (``weights.shape[0]``) columns of the base card, each a single-card
# state ``(mask, u, f)`` of the base rule set; a turn fills one open box of any column.  Game
# ``i`` is row ``i`` of one int32 array ``games`` (N, C * B + 4 C + 1): columns ``c * B + b``
# the box scores of column ``c`` (-1 while open), then per column ``c`` at
# ``C * B + 4 c``: the filled mask, the upper total (not capped), the five-of-a-kind bonuses
# and the flag (a five-of-a-kind row holds 50); the last column counts the dice drawn.  Dice
# come from the seeded streams exactly as for single games (:func:`play_table_games`).
#
# Value-array players (``TRIPLE_ALL``): one turn of lookahead over a base value array ``V``
# (the exact table: the ``triple`` player; the heuristic or all-zero arrays: the heuristic
# and greedy players): every roll with no rolls left is worth
#
#     R0(r) = max over open columns c, legal boxes b of  w_c * (objective(step(...)) - V[s_c])
#
# (the sum of ``w_c V[s_c]`` over all columns, the same for every option, left out), then
# the keeps as in the DP.  ``TRIPLE_FIRST`` (the floor) considers only the first open column:
# each column in turn, played as the single-card optimum.  Ties within ``tol``: the keep with
# the most dice, then the first column, then the first box.
# ============================================================================

TRIPLE_ALL = 0
TRIPLE_FIRST = 1
TRIPLE_RANDOM = 2
# per column ``c`` of a triple game, at ``C * B + TRIPLE_COLUMN_EXTRA * c + TRIPLE_...``:
TRIPLE_MASK = COL_MASK  # the column's filled boxes (the first three as a single game's: _fill_box)
TRIPLE_UPPER = COL_UPPER  # its upper total (not capped)
TRIPLE_BONUSES = COL_BONUSES  # its five-of-a-kind bonuses
TRIPLE_FLAG = 3  # a five-of-a-kind row of it holds 50
TRIPLE_COLUMN_EXTRA = 4  # columns per column after all the box scores (the last column: dice drawn)


#: games played side by side by :func:`triple_games` (the lanes of its keep tables, about 1.5 MB
#: of buffers): measured on the 2-core machine, 64 lanes a few per cent faster than 32 or 128
TRIPLE_LANES = 64


@njit(cache=True, nogil=True)
def triple_games(mode, i0, i1, games, seed_mixed, game0, values, weights, kappa, tol, ra, moves):
    """Play whole triple games ``i0 .. i1`` (game ``game0 + i``) with ``mode`` (``TRIPLE_ALL``,
    ``TRIPLE_FIRST`` or ``TRIPLE_RANDOM``) over the base value array ``values``; see above.
    ``kappa`` (C,) scales each column's values to come (1: the values themselves).

    :data:`TRIPLE_LANES` games go side by side, turn by turn (every game has C * B turns):
    the successor rows of each column a box changed (:func:`successors`), the R0 rows of
    all of them in one pass (:func:`_final_values`, the DP's) and the keep tables of all
    the games at once (:func:`_turn_from_final`).  Each game's numbers are the ones it would
    get alone, whatever its neighbours, so results depend on no block or thread count.
    ``moves`` (n C B, N_MOVES) int16 or zero rows: row ``i C B + turn`` records game ``i``'s
    turn as :func:`_play_keeps` does, the box as ``c B + b``."""
    add_die, keep_size, subkeeps, n_subkeeps = ra.add_die, ra.keep_size, ra.subkeeps, ra.n_subkeeps
    all_rolls = ra.all_rolls
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    five_kind, flag_rows, roll_face = ra.five_kind, ra.flag_rows, ra.roll_face
    rows_mask, joker_mode, order, bonus, cap = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus, ra.upper_cap
    nb = box_face.shape[0]
    n_col = weights.shape[0]
    n_keeps = add_die.shape[0]
    n_rolls = score.shape[0]
    roll_offset = n_keeps - n_rolls
    n_turns = n_col * nb
    full = (1 << nb) - 1
    off = n_col * nb
    dice_col = off + TRIPLE_COLUMN_EXTRA * n_col
    two_flags = values.shape[2] == 2
    # side by side for the tables' sake: the random player, which has none, one game at a time
    width = 1 if mode == TRIPLE_RANDOM else max(1, min(TRIPLE_LANES, i1 - i0))
    e0_buf = np.empty(n_keeps * width)
    e1_buf = np.empty(n_keeps * width)
    r0_buf = np.empty(n_rolls * n_col * width)
    succ = np.empty((nb * 6, n_col * width))  # scratch rows of one pass
    work = np.empty((3, n_col * width))
    # per column ``c`` and game ``j`` at ``c * width + j`` (a pass writes near places):
    col_succ = np.empty((nb * 6, n_col * width))  # the successor rows, kept while the column does not change
    rc = np.empty((n_rolls, n_col * width))  # w * (R0 - V); -inf: a column not considered
    fresh = np.zeros((n_col, width), dtype=np.int64)
    active = np.zeros((n_col, width), dtype=np.int64)
    vnow = np.zeros((n_col, width))
    cu = np.zeros((n_col, width), dtype=np.int64)
    cf = np.zeros((n_col, width), dtype=np.int64)
    base = np.empty(width, dtype=np.uint64)
    rbase = np.empty(width, dtype=np.uint64)
    drawn = np.empty(width, dtype=np.int64)
    sel = np.empty(n_col * width, dtype=np.int64)  # the (column, game) places of one pass, their states
    sel_w = np.empty(n_col * width)
    sel_v = np.empty(n_col * width)
    sel_mask = np.empty(n_col * width, dtype=np.int64)
    sel_u = np.empty(n_col * width, dtype=np.int64)
    sel_f = np.empty(n_col * width, dtype=np.int64)
    opt_c = np.empty(n_col * nb, dtype=np.int64)  # a game's legal options for its dice: column, box,
    opt_b = np.empty(n_col * nb, dtype=np.int64)  # score, five-of-a-kind bonus and worth
    opt_s = np.empty(n_col * nb, dtype=np.int64)
    opt_x = np.empty(n_col * nb, dtype=np.int64)
    opt_w = np.empty(n_col * nb)
    for lo in range(i0, i1, width):
        nl = min(width, i1 - lo)
        e0 = e0_buf[: n_keeps * nl].reshape((n_keeps, nl))  # C-contiguous: vectorises
        e1 = e1_buf[: n_keeps * nl].reshape((n_keeps, nl))
        for j in range(nl):
            base[j] = stream_base(seed_mixed, game0 + lo + j)
            rbase[j] = mix64(base[j] ^ np.uint64(RANDOM_DOMAIN))
            drawn[j] = np.int64(games[lo + j, dice_col])
            for c in range(n_col):
                fresh[c, j] = 0
                for r in range(n_rolls):
                    rc[r, c * width + j] = NEG_INF
        for turn in range(n_turns):
            # the columns each game's player considers, and their states
            for j in range(nl):
                seen = False
                for c in range(n_col):
                    at = off + TRIPLE_COLUMN_EXTRA * c
                    mask = np.int64(games[lo + j, at + TRIPLE_MASK])
                    active[c, j] = 0
                    if mask == full or (mode == TRIPLE_FIRST and seen):
                        continue
                    seen = True
                    active[c, j] = 1
                    cu[c, j] = min(np.int64(games[lo + j, at + TRIPLE_UPPER]), cap)
                    cf[c, j] = np.int64(games[lo + j, at + TRIPLE_FLAG]) if two_flags else 0
                    vnow[c, j] = kappa[c] * values[mask, cu[c, j], cf[c, j]]
            if mode != TRIPLE_RANDOM:
                m = 0  # the columns a box changed: their successor rows, then R0 of all in one pass
                for j in range(nl):
                    for c in range(n_col):
                        if active[c, j] == 1 and fresh[c, j] == 0:
                            sel[m] = c * width + j
                            sel_w[m] = weights[c]
                            sel_v[m] = vnow[c, j]
                            sel_mask[m] = np.int64(games[lo + j, off + TRIPLE_COLUMN_EXTRA * c + TRIPLE_MASK])
                            sel_u[m] = cu[c, j]
                            sel_f[m] = cf[c, j]
                            successors(sel_mask[m], m, 1, m, sel_u, sel_f, values, kappa[c], ra, succ)
                            fresh[c, j] = 1
                            m += 1
                if m > 0:
                    r0 = r0_buf[: n_rolls * m].reshape((n_rolls, m))
                    _final_values(0, m, sel_mask, sel_f, ra, r0, succ, work)
                    for row in range(nb * 6):
                        for s in range(m):
                            col_succ[row, sel[s]] = succ[row, s]
                    for r in range(n_rolls):
                        for s in range(m):
                            rc[r, sel[s]] = sel_w[s] * (r0[r, s] - sel_v[s])
                for r in range(n_rolls):  # R0 of the turn: the best column
                    for j in range(nl):
                        v = rc[r, j]
                        for c in range(1, n_col):
                            v = max(v, rc[r, c * width + j])
                        e0[roll_offset + r, j] = v
                _turn_from_final(e0, e1, ra)
            for j in range(nl):
                i = lo + j
                row_m = i * n_turns + turn
                # the rolls
                dj = 8 * turn
                held = _roll(base[j], drawn[j], 0, add_die, keep_size)
                drawn[j] += 5
                _record_roll(moves, row_m, 2, held)
                for rolls_left in range(2, 0, -1):
                    r = held - roll_offset
                    if mode == TRIPLE_RANDOM:
                        keep = subkeeps[r, _uniform(rbase[j], dj, n_subkeeps[r] - all_rolls)]
                        dj += 1
                    elif rolls_left == 2:
                        keep = _best_keep(e1[:, j], r, tol, subkeeps, n_subkeeps)
                    else:
                        keep = _best_keep(e0[:, j], r, tol, subkeeps, n_subkeeps)
                    _record_keep(moves, row_m, rolls_left, keep)
                    if keep == held:
                        break
                    held = _roll(base[j], drawn[j], keep, add_die, keep_size)
                    drawn[j] += 5
                    _record_roll(moves, row_m, rolls_left - 1, held)
                # the box: best (first column, first box among equals) or uniform, of the options
                # listed column by column in card order
                r = held - roll_offset
                best = NEG_INF
                n_legal = 0
                for c in range(n_col):
                    if not active[c, j]:
                        continue
                    mask = np.int64(games[i, off + TRIPLE_COLUMN_EXTRA * c + TRIPLE_MASK])
                    bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
                    extra = five_kind_bonus(mask, r, cf[c, j], roll_face, rows_mask, bonus)
                    rest = bits
                    while rest:
                        b = low_bit_index(rest)
                        rest &= rest - 1
                        s = placement_score(r, b, use_joker, score, joker_score)
                        opt_c[n_legal], opt_b[n_legal], opt_s[n_legal], opt_x[n_legal] = c, b, s, extra
                        if mode != TRIPLE_RANDOM:
                            cand, add = score_class(b, s, box_face[b], flag_rows[b] == 1)
                            opt_w[n_legal] = weights[c] * (
                                add + col_succ[cand, c * width + j] + extra - vnow[c, j]
                            )
                            best = max(best, opt_w[n_legal])
                        n_legal += 1
                if mode == TRIPLE_RANDOM:
                    k = _uniform(rbase[j], dj, n_legal)
                else:
                    k = 0
                    while opt_w[k] < best - tol:
                        k += 1
                c, b, s, extra = opt_c[k], opt_b[k], opt_s[k], opt_x[k]
                at = off + TRIPLE_COLUMN_EXTRA * c
                _fill_box(games, i, c * nb + b, at, at + TRIPLE_FLAG, b, s, extra, box_face, five_kind)
                mask = np.int64(games[i, at + TRIPLE_MASK])
                if moves.shape[0] > 0:  # as _record_box, the box numbered c * B + b
                    moves[row_m, MOVE_FINAL] = held
                    moves[row_m, MOVE_BOX] = c * nb + b
                fresh[c, j] = 0
                if mask == full:  # no longer considered
                    for rr in range(n_rolls):
                        rc[rr, c * width + j] = NEG_INF
        for j in range(nl):
            games[lo + j, dice_col] = drawn[j]


# ============================================================================
# Playing to win (solver.play.match): target play whose objective counts a tie as ``tie``
# (a half), mixed over the distribution of the best opponent's final score ``B``: with ``B =
# b0 + j`` at probability ``q[j]`` and ``n = b0 - total`` (after the placement), the value is
#
#     sum_j q[j] [(1 - tie) W(n + j) + tie W(n + j + 1)] = sum_i qt[i] W(n + i),
#
# ``qt[i] = (1 - tie) q[i] + tie q[i - 1]`` (``i = 0 .. len(q)``: :func:`tie_mix`), ``W`` the
# target table's probabilities: 1 up to the row's lead (the prefix sums ``qc`` of ``qt``), its
# stored middle (one contiguous dot product), 0 beyond.
# ============================================================================


@njit(cache=True, inline="always")
def tie_mix(q, q0, qn, tie, qt, qc):
    """``qt[i] = (1 - tie) q[q0 + i] + tie q[q0 + i - 1]`` for ``i <= qn`` (``q`` 0 outside its
    ``qn`` entries) and ``qc`` its prefix sums, in that order of additions."""
    acc = 0.0
    prev = 0.0
    for i in range(qn + 1):
        cur = q[q0 + i] if i < qn else 0.0
        v = (1.0 - tie) * cur + tie * prev
        prev = cur
        qt[i] = v
        acc += v
        qc[i] = acc


class Vec4(types.Type):
    """Four float64 in one SIMD register (LLVM ``<4 x double>``): the four running sums of
    :func:`mixed_win_value` side by side.  LLVM does not vectorise a float sum by itself (that
    would reorder it); lane ``k`` of a vector sum is the scalar sum ``k``, operation for
    operation, so the values are the same bits."""

    def __init__(self):
        super().__init__(name="Vec4f64")


VEC4 = Vec4()
_V4 = ir.VectorType(ir.DoubleType(), 4)


@register_model(Vec4)
class _Vec4Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _V4)


@intrinsic
def _v4_zero(typingctx):
    """Four zeros."""

    def codegen(context, builder, sig, args):
        return ir.Constant(_V4, [0.0] * 4)

    return VEC4(), codegen


@intrinsic
def _v4_load(typingctx, arr, idx):
    """``arr[idx : idx + 4]`` of a 1-D C-contiguous float64 or float32 array (float32 widened,
    exactly); ``idx`` unchecked, as the kernels' indexing."""
    if not (
        isinstance(arr, types.Array)
        and arr.ndim == 1
        and arr.layout == "C"
        and arr.dtype in (types.float64, types.float32)
    ):
        return None
    single = arr.dtype == types.float32

    def codegen(context, builder, sig, args):
        data = context.make_array(sig.args[0])(context, builder, value=args[0]).data
        at = builder.gep(data, [context.cast(builder, args[1], sig.args[1], types.intp)])
        elem = ir.FloatType() if single else ir.DoubleType()
        v = builder.load(builder.bitcast(at, ir.VectorType(elem, 4).as_pointer()), align=4 if single else 8)
        return builder.fpext(v, _V4) if single else v

    return VEC4(arr, idx), codegen


@intrinsic
def _v4_muladd(typingctx, acc, a, b):
    """``acc + a * b`` lane by lane: a product rounded, then a sum (no fused multiply-add)."""

    def codegen(context, builder, sig, args):
        return builder.fadd(args[0], builder.fmul(args[1], args[2]))

    return VEC4(VEC4, VEC4, VEC4), codegen


@intrinsic
def _v4_lanes(typingctx, v):
    """The four lanes as a tuple of float64."""

    def codegen(context, builder, sig, args):
        lanes = [builder.extract_element(args[0], ir.Constant(ir.IntType(32), k)) for k in range(4)]
        return context.make_tuple(builder, sig.return_type, lanes)

    return types.UniTuple(types.float64, 4)(VEC4), codegen


@njit(cache=True, inline="always")
def mixed_win_value(w, off, lead, length, n, qt, qc, m):
    """``sum_i qt[i] W(n + i)`` for ``i < m`` (``m = len(q) + 1``; see the section's comment):
    the certain targets from the prefix sums, the stored ones by a dot product in four
    running sums (a fixed order: the same value on every path): sum ``k`` takes the terms
    ``4 j + k`` of the stored range, sum 0 then the last ``len % 4`` terms, and the value adds
    ``(s0 + s1) + (s2 + s3)``.  The four sums are the lanes of one vector (:class:`Vec4`),
    indexed unsigned (no wrap-around check)."""
    c = lead - n
    acc = 0.0
    if c >= 0:
        acc = qc[min(c, m - 1)]
    i = max(c + 1, 0)
    i2 = min(length - n, m - 1)
    if i <= i2:
        k = np.uint64(i2 + 1 - i)
        qi = np.uint64(i)
        wi = np.uint64(off + n - 1 + i)
        v = _v4_zero()
        n4 = k >> np.uint64(2)
        for j4 in range(n4):
            j = j4 << np.uint64(2)
            v = _v4_muladd(v, _v4_load(qt, qi + j), _v4_load(w, wi + j))
        a0, a1, a2, a3 = _v4_lanes(v)
        for j in range(n4 << np.uint64(2), k):
            a0 += qt[qi + j] * w[wi + j]
        acc += (a0 + a1) + (a2 + a3)
    return acc


@njit(cache=True, inline="always")
def _win_box_value(mask, u, f, r, b, use_joker, extra, need0, qt, qc, m, w, w_off, w_lead, w_len, ra):
    """:func:`mixed_win_value` of scoring roll ``r`` in box ``b`` from state ``(mask, u, f)``
    (``extra``: the roll's five-of-a-kind bonus; ``qt``/``qc``/``m`` as :func:`tie_mix` makes them)."""
    s = placement_score(r, b, use_joker, ra.score, ra.joker_score)
    points, u2, f2 = step(
        u, f, s, ra.box_face[b], ra.flag_rows[b] == 1, ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    )
    nxt = mask | (1 << b)
    return mixed_win_value(
        w, w_off[nxt, u2, f2], w_lead[nxt, u2, f2], w_len[nxt, u2, f2], need0 - points - extra, qt, qc, m
    )


@njit(cache=True, inline="always")
def _score_best_win_box(games, i, r, need0, qt, qc, m, w, w_off, w_lead, w_len, tol, ra, vals):
    """Score roll ``r`` of game ``i`` in the legal box with the largest :func:`mixed_win_value`
    (ties within ``tol``: the first in card order); ``vals`` (n_boxes,) scratch."""
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    five_kind, roll_face = ra.five_kind, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    cap = ra.upper_cap
    nb = box_face.shape[0]
    mask = np.int64(games[i, nb + COL_MASK])
    u = min(np.int64(games[i, nb + COL_UPPER]), cap)
    f = np.int64(games[i, nb + COL_FLAG]) if w_off.shape[2] == 2 else np.int64(0)
    bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
    extra = five_kind_bonus(mask, r, np.int64(games[i, nb + COL_FLAG]), roll_face, rows_mask, bonus)
    best = NEG_INF
    rest = bits
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        vals[b] = _win_box_value(
            mask, u, f, r, b, use_joker, extra, need0, qt, qc, m, w, w_off, w_lead, w_len, ra
        )
        best = max(best, vals[b])
    chosen = -1
    rest = bits
    while rest:  # the first box within tol of the best
        b = low_bit_index(rest)
        rest &= rest - 1
        if vals[b] >= best - tol:
            chosen = b
            break
    s = placement_score(r, chosen, use_joker, score, joker_score)
    _apply(games, i, chosen, s, extra, box_face, five_kind)


@njit(cache=True, inline="always")
def _placement_win_value(
    mask, u, f, b, s, e, extra, need0, qt, qc, m, w, w_off, w_lead, w_len, box_face, flag_rows, thr, ub, cap, memo,
    seen, stamp,
):  # fmt: skip
    """:func:`mixed_win_value` of placing a roll scoring ``s`` (five-of-a-kind bonus ``extra``,
    ``e = extra > 0``) in box ``b``, into ``memo[b, s, e]`` (``seen[b, s, e] = stamp``: the
    callers look there first -- a call per placement costs more than the rest of the loop)."""
    points, u2, f2 = step(u, f, s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
    nxt = mask | (1 << b)
    v = mixed_win_value(
        w, w_off[nxt, u2, f2], w_lead[nxt, u2, f2], w_len[nxt, u2, f2], need0 - points - extra, qt, qc, m
    )
    memo[b, s, e] = v
    seen[b, s, e] = stamp


@njit(cache=True)
def win_roll_plan(ra, plan, box_scores, fives):
    """What :func:`_mixed_win_rolls` reads of the rules, made once per call: ``plan`` (n_boxes,
    n_rolls) uint64 the score of each roll in each box (unsigned: an index that needs no
    wrap-around check); ``box_scores`` (n_boxes, smax + 2) int64 row ``b`` the distinct scores
    in box ``b`` of the rolls that are no five of a kind, increasing, ``-1`` after them (``smax``:
    the largest score of any box); ``fives`` (n_rolls + 1,) int64 the rolls that are, ``-1`` after
    them."""
    n_rolls, nb = ra.score.shape
    box_scores[:, :] = -1
    fives[:] = -1
    k = 0
    for r in range(n_rolls):
        if ra.roll_face[r] != 0:
            fives[k] = r
            k += 1
    for b in range(nb):
        for r in range(n_rolls):
            plan[b, r] = ra.score[r, b]
        k = 0
        for s in range(box_scores.shape[1] - 1):
            for r in range(n_rolls):
                if ra.roll_face[r] == 0 and ra.score[r, b] == s:
                    box_scores[b, k] = s
                    k += 1
                    break


@njit(cache=True)
def _mixed_win_rolls(
    mask, u, f, need0, qt, qc, m, col, w, w_off, w_lead, w_len, ra, plan, box_scores, fives, x, best, vals,
    memo, seen, stamp, tol, boxes, row,
):  # fmt: skip
    """R0 of one lane for win play against a distribution of best opponent finals
    (:func:`mixed_win_value`) into column ``col`` of ``x``, and where rows remain in ``boxes``
    the box a game scores each roll in (``boxes[row, r]``: the first legal box within ``tol`` of
    the best, as :func:`_score_best_win_box` chooses).  ``memo``/``seen`` (n_boxes, max score +
    1, 2): each (box, score, bonus) valued once (``seen`` holds the ``stamp``, one per lane,
    where ``memo`` is this lane's: nothing to clear between lanes); ``best`` (n_rolls,) and
    ``vals`` (n_boxes n_rolls,) scratch (``vals[b n_rolls + r]``: the value of roll ``r`` in box
    ``b``, read back contiguously when the boxes are chosen); ``plan``, ``box_scores``, ``fives``
    from :func:`win_roll_plan`.

    A roll that is no five of a kind may go in any allowed box and earns no bonus
    (:func:`legal_boxes`): box by box, each score of the box is valued once, then every roll
    reads its score's value, without branches (a branch per roll and box mispredicts); the
    five-of-a-kind rolls, which read a value of no meaning there, are made over after, from
    :func:`legal_boxes`.  The best of each roll is the largest of the same values in any order,
    so the tables do not depend on the order of the passes."""
    score, joker_score, box_face, roll_face = ra.score, ra.joker_score, ra.box_face, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    flag_rows, thr, ub, cap = ra.flag_rows, ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    nb = box_face.shape[0]
    n_rolls = score.shape[0]
    roll_offset = x.shape[0] - n_rolls
    allowed = allowed_bits(mask, nb, order)
    for r in range(n_rolls):
        best[r] = NEG_INF
    rest = allowed
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        k = 0
        while box_scores[b, k] >= 0:
            _placement_win_value(
                mask, u, f, b, box_scores[b, k], 0, 0, need0, qt, qc, m, w, w_off, w_lead, w_len, box_face,
                flag_rows, thr, ub, cap, memo, seen, stamp,
            )  # fmt: skip
            k += 1
        at = np.uint64(b * n_rolls)
        for r in range(n_rolls):
            v = memo[b, plan[b, r], 0]
            vals[at + np.uint64(r)] = v
            best[r] = v if v > best[r] else best[r]
    k = 0
    while fives[k] >= 0:
        r = fives[k]
        k += 1
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        extra = five_kind_bonus(mask, r, f, roll_face, rows_mask, bonus)
        e = 1 if extra > 0 else 0
        best[r] = NEG_INF
        rest = bits
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            s = placement_score(r, b, use_joker, score, joker_score)
            if seen[b, s, e] != stamp:
                _placement_win_value(
                    mask, u, f, b, s, e, extra, need0, qt, qc, m, w, w_off, w_lead, w_len, box_face,
                    flag_rows, thr, ub, cap, memo, seen, stamp,
                )  # fmt: skip
            v = memo[b, s, e]
            if v > best[r]:
                best[r] = v
    for r in range(n_rolls):
        x[roll_offset + r, col] = best[r]
    if row >= boxes.shape[0]:
        return
    for r in range(n_rolls):
        best[r] = best[r] - tol  # (best no more: the bar each box is held to)
    chosen = boxes[row]
    for b in range(nb - 1, -1, -1):  # the first box within tol of the best: the last one written
        if allowed & (1 << b):
            at = np.uint64(b * n_rolls)
            bb = np.int8(b)
            for r in range(np.uint64(n_rolls)):
                chosen[r] = bb if vals[at + r] >= best[r] else chosen[r]
    k = 0
    while fives[k] >= 0:
        r = fives[k]
        k += 1
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        e = 1 if five_kind_bonus(mask, r, f, roll_face, rows_mask, bonus) > 0 else 0
        rest = bits
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            if memo[b, placement_score(r, b, use_joker, score, joker_score), e] >= best[r]:
                boxes[row, r] = b
                break


@njit(cache=True, nogil=True)
def mixed_win_group_tables(
    g0, g1, l0, group_mask, group_lane, lane_u, lane_f, lane_need, lane_q0, lane_qn, q, tie, w, w_off,
    w_lead, w_len, ra, tol, e0_all, e1_all, boxes,
):  # fmt: skip
    """Win-play tables of groups ``g0 .. g1``: lane ``(u, f, need0)`` against the best opponent
    final ``b0 + j`` with probability ``q[lane_q0 + j]``, ``j < lane_qn`` (``need0 = b0 -
    total``; see :func:`mixed_win_value`); ``boxes`` (width, n_rolls) int8, unless it has no
    rows: row ``lane - l0`` the box each roll is scored in (:func:`_mixed_win_rolls`)."""
    n_keeps = ra.add_die.shape[0]
    n_rolls, nb = ra.score.shape
    smax = 0
    for r in range(n_rolls):
        for b in range(nb):
            smax = max(smax, ra.score[r, b], ra.joker_score[r, b])
    memo = np.empty((nb, smax + 1, 2))
    seen = np.zeros((nb, smax + 1, 2), dtype=np.int64)
    plan = np.empty((nb, n_rolls), dtype=np.uint64)
    box_scores = np.empty((nb, smax + 2), dtype=np.int64)
    fives = np.empty(n_rolls + 1, dtype=np.int64)
    win_roll_plan(ra, plan, box_scores, fives)
    best = np.empty(n_rolls)
    vals = np.empty(nb * n_rolls)
    qmax = 0
    for grp in range(g0, g1):
        for a in range(group_lane[grp], group_lane[grp + 1]):
            qmax = max(qmax, lane_qn[a])
    qt = np.empty(qmax + 1)
    qc = np.empty(qmax + 1)
    # the keeps depend on a lane's placements only: one pass over the lanes of every group
    # (columns of different masks side by side, as the DP's blocks; a group often has one lane)
    first = group_lane[g0]
    e0 = np.empty((n_keeps, group_lane[g1] - first))
    e1 = np.empty((n_keeps, group_lane[g1] - first))
    for grp in range(g0, g1):
        for a in range(group_lane[grp], group_lane[grp + 1]):
            qn = lane_qn[a]
            tie_mix(q, lane_q0[a], qn, tie, qt, qc)
            _mixed_win_rolls(
                group_mask[grp], lane_u[a], lane_f[a], lane_need[a], qt, qc, qn + 1, a - first,
                w, w_off, w_lead, w_len, ra, plan, box_scores, fives, e0, best, vals, memo, seen, a + 1, tol,
                boxes, a - l0,
            )  # fmt: skip
    _turn_from_final(e0, e1, ra)
    _store_lane_tables(e0, e1, e0_all, e1_all, first - l0)


@njit(cache=True, nogil=True)
def play_mixed_win_games(
    j0, j1, l0, pos_lane, games, ids, seed_mixed, game0, e0_all, e1_all, boxes, tol, ra, moves
):
    """Play the turn of games ``j0 .. j1`` for the win objective: keeps and box from the
    tables of :func:`mixed_win_group_tables` (with ``boxes``; ties within ``tol``: the first);
    ``moves`` (n, N_MOVES) int16 records each game's turn (zero rows: none)."""
    add_die, keep_size, subkeeps, n_subkeeps = ra.add_die, ra.keep_size, ra.subkeeps, ra.n_subkeeps
    nb = ra.box_face.shape[0]
    roll_offset = add_die.shape[0] - ra.score.shape[0]
    for i in range(j0, j1):
        lane = pos_lane[i] - l0
        base = stream_base(seed_mixed, game0 + ids[i])
        held, k = _play_keeps(
            base, np.int64(games[i, nb + COL_DICE]), e0_all[lane], e1_all[lane], tol,
            add_die, keep_size, subkeeps, n_subkeeps, roll_offset, moves, i,
        )  # fmt: skip
        games[i, nb + COL_DICE] = k
        mask = np.int64(games[i, nb + COL_MASK])
        r = held - roll_offset
        b = np.int64(boxes[lane, r])
        _, use_joker = legal_boxes(mask, r, ra.box_face, ra.roll_face, ra.rows_mask, ra.joker_mode, ra.order)
        extra = five_kind_bonus(
            mask, r, np.int64(games[i, nb + COL_FLAG]), ra.roll_face, ra.rows_mask, ra.bonus
        )
        _apply(
            games,
            i,
            b,
            placement_score(r, b, use_joker, ra.score, ra.joker_score),
            extra,
            ra.box_face,
            ra.five_kind,
        )
        _record_box(moves, i, held, mask, np.int64(games[i, nb + COL_MASK]))


@njit(cache=True, nogil=True)
def turn_start_values(i0, i1, l0, e1_all, ra, out):
    """``out[lane] = sum_r P(r) R2(r)`` for lanes ``i0 .. i1`` (rows ``lane - l0`` of ``e1_all``):
    the value of a turn's start from its own keep tables, whatever the objective."""
    subkeeps, n_subkeeps, roll_prob = ra.subkeeps, ra.n_subkeeps, ra.roll_prob
    for lane in range(i0, i1):
        e1 = e1_all[lane - l0]
        acc = 0.0
        for r in range(roll_prob.shape[0]):
            acc += roll_prob[r] * _best_of(e1, r, subkeeps, n_subkeeps)
        out[lane] = acc


@njit(cache=True, nogil=True)
def grade_win_games(
    j0, j1, l0, pos_lane, masks, lane_u, lane_f, lane_need, moves, e0_all, e1_all, w, w_off, w_lead, w_len,
    tie, ra, graded,
):  # fmt: skip
    """Each decision's loss in the recorded turns ``j0 .. j1`` for the win objective against a
    known best opponent final (lane ``pos_lane[j]`` of :func:`mixed_win_group_tables` with the
    opponent final ``q = [1]``: ``lane_need`` = that final minus the card's total), as :func:`grade_games`
    grades for expected score: ``graded`` (n, 6) float64 in P(win) + tie x P(tie) -- the losses
    of the two keeps and the box, the first roll's value, the luck of the second and third
    roll."""
    subkeeps, n_subkeeps = ra.subkeeps, ra.n_subkeeps
    box_face, roll_face, rows_mask, joker_mode, order = (
        ra.box_face,
        ra.roll_face,
        ra.rows_mask,
        ra.joker_mode,
        ra.order,
    )
    roll_offset = ra.add_die.shape[0] - ra.score.shape[0]
    qt = np.empty(2)  # the known final: q = [1]
    qc = np.empty(2)
    tie_mix(np.ones(1), 0, 1, tie, qt, qc)
    for i in range(j0, j1):
        lane = pos_lane[i]
        e0 = e0_all[lane - l0]
        keep2 = _grade_keeps(i, e0, e1_all[lane - l0], moves, subkeeps, n_subkeeps, roll_offset, graded)
        r = np.int64(moves[i, MOVE_FINAL]) - roll_offset
        taken = np.int64(moves[i, MOVE_BOX])
        mask, u, f, need = masks[i], lane_u[lane], lane_f[lane], lane_need[lane]
        bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
        extra = five_kind_bonus(mask, r, f, roll_face, rows_mask, ra.bonus)
        best = NEG_INF
        chosen = NEG_INF  # (a box that is not legal loses everything: never recorded)
        rest = bits
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            v = _win_box_value(
                mask, u, f, r, b, use_joker, extra, need, qt, qc, 2, w, w_off, w_lead, w_len, ra
            )
            best = max(best, v)
            if b == taken:
                chosen = v
        graded[i, 2] = best - chosen
        if keep2 >= 0 and keep2 != np.int64(moves[i, MOVE_ROLL2]):  # rolled a third time
            graded[i, 5] = best - e0[keep2]


@njit(cache=True, nogil=True)
def mixed_start_values(masks, us, fs, need0, game_q0, game_qn, q, tie, w, w_off, w_lead, w_len, out):
    """``out[i]`` = :func:`mixed_win_value` of state ``(masks[i], us[i], fs[i])`` at the start of
    a turn (``need0[i]``, the opponent finals ``q[game_q0[i] :][: game_qn[i]]``); the match
    needs only whether it is above 0 (:func:`win_chance_left`, tested against this)."""
    qmax = 0
    for i in range(masks.shape[0]):
        qmax = max(qmax, game_qn[i])
    qt = np.empty(qmax + 1)
    qc = np.empty(qmax + 1)
    for i in range(masks.shape[0]):
        mm, u, f = masks[i], us[i], fs[i]
        qn = game_qn[i]
        tie_mix(q, game_q0[i], qn, tie, qt, qc)
        out[i] = mixed_win_value(
            w, w_off[mm, u, f], w_lead[mm, u, f], w_len[mm, u, f], need0[i], qt, qc, qn + 1
        )


@njit(cache=True, nogil=True)
def win_chance_left(masks, us, fs, need0, game_q0, game_qn, q, tie, w, w_off, w_lead, w_len, out):
    """``out[i]``: whether :func:`mixed_win_value` of state ``(masks[i], us[i], fs[i])`` at the
    start of a turn (``need0[i]``, the opponent finals ``q[game_q0[i] :][: game_qn[i]]``) is
    above 0, without summing it: its terms (``qt[i]`` of :func:`tie_mix`, each made as there,
    and their products with the table's ``W``) are sums and products of probabilities, never
    negative, so the value is above 0 exactly when one of its terms is (a sum of terms >= 0
    rounds to 0 only when every term is 0); the first such term ends the search."""
    one = 1.0 - tie
    for g in range(masks.shape[0]):
        mm, u, f = masks[g], us[g], fs[g]
        q0, qn, n = game_q0[g], game_qn[g], need0[g]
        m = qn + 1
        off, lead, length = w_off[mm, u, f], w_lead[mm, u, f], w_len[mm, u, f]
        c = lead - n
        found = False
        for i in range(min(c, m - 1) + 1):  # the certain targets (qc[c] > 0)
            cur = q[q0 + i] if i < qn else 0.0
            prev = q[q0 + i - 1] if i > 0 else 0.0
            if one * cur + tie * prev > 0.0:
                found = True
                break
        if not found:
            for i in range(max(c + 1, 0), min(length - n, m - 1) + 1):  # the stored ones
                cur = q[q0 + i] if i < qn else 0.0
                prev = q[q0 + i - 1] if i > 0 else 0.0
                if (one * cur + tie * prev) * w[off + n - 1 + i] > 0.0:
                    found = True
                    break
        out[g] = found


# ============================================================================
# The points still to come under expected-score play, as a distribution per card state
# (:mod:`solver.engine.residual`): the row of a state is the mix of its turn's outcomes'
# rows, each shifted by the points the turn scores.
# ============================================================================


@njit(cache=True, nogil=True)
def residual_rows(j0, j1, cuts, dst, gain, prob, p, r_off, r_lo, r_len, row_start, row_lo, out):
    """Rows ``j0 .. j1`` of a level: ``out[row_start[j] + x - row_lo[j]]`` = P(``x`` points to
    come) = sum over lane ``j``'s outcomes ``c`` (``cuts[j] .. cuts[j + 1]``) of ``prob[c]`` x
    P(``x - gain[c]`` to come from the flat state ``dst[c]``), that row being ``p[r_off[d] +
    i]`` for ``x = r_lo[d] + i``, ``i < r_len[d]`` (``out`` zero on entry; the outcomes in a
    fixed order, so the sums are the same on any thread count)."""
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

r"""All numba kernels: the dynamic program, then the batch simulator (private; the Python
layer validates and allocates).

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


RULE_ARGS = (
    "add_die drop_one n_drop roll_prob score joker_score box_face yahtzee_roll_face pos_boxes n_pos "
    "yahtzee_index yahtzee_bonus joker_mode forced_order upper_threshold upper_bonus"
).split()
"""Names of the rule-tuple ``rt`` entries (``dp.kernel_args``), in order."""


@njit(cache=True)
def _successors(mask, first, m, col, lane_u, lane_f, values, rt, succ, open_boxes):
    """Successor values for lanes ``first .. first+m`` (one mask) in columns ``col .. col+m``.

    ``succ[b * 6 + c, col + j]``: for an allowed box ``b`` -- upper box: ``c`` dice of
    its face scored (points + upper bonus if reached + V[next]); Yahtzee box:
    ``c = 0`` scores 0, ``c = 1`` scores 50; other lower box: ``c = 0``, V[next]
    without the score (added per roll).  Rows of boxes the mask does not allow
    (filled, or not next under forced order) hold -inf.  Fills ``open_boxes`` with the
    allowed boxes and returns how many there are.
    """
    box_face, yahtzee_index, forced_order = rt[6], rt[10], rt[13]
    upper_threshold, upper_bonus = rt[14], rt[15]
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
def _exact_roll(r, mask, m, col, first, lane_f, open_boxes, n_open, rt, succ, x, best_box):
    """R0 of roll ``r`` for lanes ``first .. first+m`` of ``mask`` (columns ``col ..``), any roll.

    Applies the Joker placement rules and the Yahtzee bonus to a five-of-a-kind when
    the Yahtzee box is filled.  ``best_box[r, col + j]`` gets the chosen box (lowest
    index among equals) unless ``best_box`` has zero rows.
    """
    score, joker_score, box_face, yahtzee_roll_face = rt[4], rt[5], rt[6], rt[7]
    yahtzee_index, yahtzee_bonus, joker_mode = rt[10], rt[11], rt[12]
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
def _block_final_values(lo, hi, lane_mask, lane_u, lane_f, values, rt, x, succ, work, open_boxes):
    """R0 of every lane of a block (lanes ``lo .. hi``, several masks) into the roll rows of ``x``.

    An ordinary roll may go in any allowed box, so with -inf in the rows of boxes a
    lane's mask does not allow, all masks of the block share one pass per (roll, box):
    ``work[0]`` is the best box scoring 0 (the same for every roll), then each box where
    the roll scores more than 0 is tried.  The running maximum is written out of place
    (rows 1, 2 of ``work``): an in-place one compiles to slow masked stores.
    Five-of-a-kind rolls (Joker rules) go through :func:`_exact_roll` per mask.
    """
    score, box_face, yahtzee_roll_face, pos_boxes, n_pos = rt[4], rt[6], rt[7], rt[8], rt[9]
    yahtzee_index, forced_order = rt[10], rt[13]
    nl = hi - lo
    n_boxes = box_face.shape[0]
    n_rolls = score.shape[0]
    roll_offset = x.shape[0] - n_rolls
    first = lo
    while first < hi:
        last = _segment_end(lane_mask, first, hi)
        _successors(
            lane_mask[first], first, last - first, first - lo, lane_u, lane_f, values, rt, succ, open_boxes
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
                    rt,
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
def _solve_block(lo, hi, lane_mask, lane_u, lane_f, values, rt, x, y, succ, work, open_boxes):
    """Solve lanes ``lo .. hi`` into ``values``; ``x``, ``y`` (462, hi - lo) and the rest are scratch."""
    add_die, drop_one, n_drop, roll_prob, score = rt[0], rt[1], rt[2], rt[3], rt[4]
    nl = hi - lo
    n_rolls = score.shape[0]
    roll_offset = add_die.shape[0] - n_rolls
    _block_final_values(lo, hi, lane_mask, lane_u, lane_f, values, rt, x, succ, work, open_boxes)
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
def solve_lanes(block_starts, lane_mask, lane_u, lane_f, values, rt, n_chunks):
    """Solve the lanes of one level, block ``i`` being lanes ``block_starts[i] .. block_starts[i+1]``.

    ``lane_mask``/``lane_u``/``lane_f`` (n,) int64, sorted by mask; ``values``
    (2**n_boxes, threshold + 1, n_flags) float64 is written in place at the lanes; all
    masks with more filled boxes must be solved already.  ``rt`` is the rule tuple
    (``dp.kernel_args``, names in :data:`RULE_ARGS`).  Blocks are dealt to ``n_chunks``
    parallel chunks, each with its own scratch (allocated once, not per block).
    """
    n_blocks = block_starts.shape[0] - 1
    width = 0
    for i in range(n_blocks):
        width = max(width, block_starts[i + 1] - block_starts[i])
    n_keeps = rt[0].shape[0]
    n_boxes = rt[6].shape[0]
    for c in prange(n_chunks):
        x_buf = np.empty(n_keeps * width)
        y_buf = np.empty(n_keeps * width)
        succ = np.empty((n_boxes * 6, width))
        work = np.empty((3, width))
        open_boxes = np.empty(n_boxes, dtype=np.int64)
        for i in range(c * n_blocks // n_chunks, (c + 1) * n_blocks // n_chunks):
            lo = block_starts[i]
            hi = block_starts[i + 1]
            x = x_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo))  # C-contiguous: vectorises
            y = y_buf[: n_keeps * (hi - lo)].reshape((n_keeps, hi - lo))
            _solve_block(lo, hi, lane_mask, lane_u, lane_f, values, rt, x, y, succ, work, open_boxes)


@njit(cache=True)
def turn_tables(mask, lane_u, lane_f, values, rt, e0, e1, best_box):
    """Within-turn decision tables of one mask for the given lanes (for bots and batch advice).

    ``rt`` is the rule tuple ``dp.kernel_args(rules)``.  ``lane_u``/``lane_f`` (nl,)
    int64: the states ``(u, f)`` wanted.
    Outputs, caller-allocated:

    * ``e0`` (462, nl) float64 -- value of keeping K and rerolling the rest with one
      roll left (then scoring); for 5-dice keeps, the value of scoring that roll now;
    * ``e1`` (462, nl) float64 -- the same with two rolls left; 5-dice keeps as in ``e0``;
    * ``best_box`` (252, nl) int64 -- the box to fill with each roll and no rolls left
      (the lowest box index among equal values), unless it has zero rows.

    The best keep for roll ``r`` with 2 (1) rolls left is the sub-keep of ``r``
    (``dice.SUBKEEPS``) with the largest ``e1`` (``e0``); ties go to the first.
    """
    add_die, drop_one, n_drop, score, box_face = rt[0], rt[1], rt[2], rt[4], rt[6]
    nl = lane_u.shape[0]
    n_keeps = add_die.shape[0]
    n_boxes = box_face.shape[0]
    roll_offset = n_keeps - score.shape[0]
    succ = np.empty((n_boxes * 6, nl))
    open_boxes = np.empty(n_boxes, dtype=np.int64)
    n_open = _successors(mask, 0, nl, 0, lane_u, lane_f, values, rt, succ, open_boxes)
    for r in range(score.shape[0]):
        _exact_roll(r, mask, nl, 0, 0, lane_f, open_boxes, n_open, rt, succ, e0, best_box)
    _average_keeps(e0, add_die)
    _best_subkeep(e0, e1, drop_one, n_drop)
    _average_keeps(e1, add_die)
    for k in range(roll_offset, n_keeps):
        for j in range(nl):
            e1[k, j] = e0[k, j]


# ============================================================================
# Batch simulation
#
# Numba kernels of the batch simulator (private; :mod:`solver.simulate` validates and allocates).
#
# Games are played turn-synchronously: each call plays one turn of every game.  Game ``i``
# (global index ``game0 + i``) is row ``i`` of one int16 array ``games`` (N, W), W >=
# n_boxes + 4, so that a game's whole state is one cache line: columns ``0 .. B-1`` the
# box scores (-1 while open), then ``B`` the filled mask, ``B+1`` the upper total (not
# capped), ``B+2`` the extra-Yahtzee bonuses, ``B+3`` the dice drawn from its stream.
# (int16 holds the mask of up to 15 boxes.)
#
# Dice (see :mod:`solver.streams`, seeded stream version 1): the ``k``-th die of game ``g``
# under seed ``s`` is ``1 + (((h >> 11) * 6) >> 53)`` with ``h = mix(base[g] ^ k)`` and
# ``base[g] = mix(mix(s) ^ g)``, ``mix`` the SplitMix64 step.  Every roll takes the next
# five dice; the rerolled dice take the first of them in order (held dice discard theirs),
# so the multiset after a roll is ``keep + first (5 - |keep|) of the five``.
#
# Table bots (``table_turn``; optimal, heuristic, greedy) decide from a value array
# ``V[mask, u, f]`` as the DP does: per turn the games are grouped by ``mask`` (counting
# sort), the distinct lanes ``(u, f)`` present in each group get their within-turn tables
# from :func:`solver._kernels.turn_tables` (in parallel over masks), then every game plays
# its turn from those tables (in parallel over games).  Ties are broken with a tolerance
# ``tol`` so that float noise cannot flip a decision: among keeps whose value is within
# ``tol`` of the best, the **last** sub-keep of ``dice.SUBKEEPS`` (most dice kept); among
# boxes within ``tol``, the **first** in card order -- the same choice as
# ``Advisor.advise(...)`` options flagged ``best``.
#
# Simple bots (``simple_turn``; random and frequent) need no tables.  The random bot draws
# its choices from a second stream per game, ``mix(mix(base[g] ^ RANDOM_DOMAIN) ^ j)``
# with ``j = 8 * turn + decision``, uniform over the distinct sub-keeps / legal boxes.
#
# Every game writes only its own rows and its decisions depend only on its own stream, so
# results are identical for any thread count, chunking or game order.  No fastmath.
#
# Like the DP kernels with ``rt``, the kernels and helpers here take the rule set and the
# dice tables as one tuple ``st`` (``simulate.sim_args``, names in ``SIM_ARGS``: the rule
# tuple ``rt`` followed by four keep tables), indexed with the ``_NAME`` positions below.
# Scalars and the arrays of once-per-call code are unpacked at the top of a function.  The
# per-game helpers (inlined into the loops over games) read an array in place where they
# use it, ``st[_SCORE][r, b]``, never through a local name: a local array holds a reference
# whose count numba updates, with atomic operations, on every game when the reference
# outlives one basic block (measured: the frequent bot 1.5 times slower).
# ============================================================================

RANDOM_DOMAIN = 0x52414E444F4D  # "RANDOM"
BOT_RANDOM = 0
BOT_FREQUENT = 1

SIM_ARGS = (*RULE_ARGS, "keep_size", "keep_counts", "subkeeps", "n_subkeeps")
"""Names of the simulation-tuple ``st`` entries (``simulate.sim_args``), in order: the rule
tuple ``rt`` (:data:`RULE_ARGS`; ``st[:N_RULE_ARGS]`` is ``rt``), then the dice layer's
``KEEP_SIZE`` (462,), ``KEEP_COUNTS`` (462, 6), ``SUBKEEPS`` (252, 32), ``N_SUBKEEPS`` (252,)."""
N_RULE_ARGS = len(RULE_ARGS)

# Positions in ``st`` of the entries read below (``_NAME`` is ``SIM_ARGS.index("name")``).
_ADD_DIE, _SCORE, _JOKER_SCORE, _BOX_FACE, _YAHTZEE_ROLL_FACE = 0, 4, 5, 6, 7
_YAHTZEE_INDEX, _YAHTZEE_BONUS, _JOKER_MODE, _FORCED_ORDER, _UPPER_THRESHOLD, _UPPER_BONUS = range(10, 16)
_KEEP_SIZE, _KEEP_COUNTS, _SUBKEEPS, _N_SUBKEEPS = range(16, 20)


# --- dice streams ---------------------------------------------------------
@njit(cache=True, inline="always")
def mix64(x):
    """SplitMix64 step (uint64 in, uint64 out); twin of :func:`solver.streams.mix64`."""
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
    """``out[i, j]`` = die ``k0 + j`` of game ``game0 + i`` (for tests against :mod:`solver.streams`)."""
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
def _roll_offset(st):
    """Keep index of the first roll (5-dice keep): roll ``r`` is keep ``_roll_offset(st) + r``."""
    return st[_ADD_DIE].shape[0] - st[_SCORE].shape[0]


@njit(cache=True, inline="always")
def _roll(base, k, keep, st):
    """Keep index of ``keep`` plus the first ``5 - |keep|`` of dice ``k .. k+4`` (a 5-dice keep)."""
    for i in range(5 - st[_KEEP_SIZE][keep]):
        keep = st[_ADD_DIE][keep, die_of(base, k + i) - 1]
    return keep


# --- placements -----------------------------------------------------------
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
def legal_boxes(mask, r, flag, st):
    """Where roll ``r`` may go on a card with filled ``mask``: ``(bits, use_joker, bonus)``.

    ``bits`` has bit ``b`` set for each legal box; box ``b`` then scores
    :func:`_box_score` (``joker_score[r, b]`` when ``use_joker`` else ``score[r, b]``);
    ``bonus`` is the extra-Yahtzee bonus earned (``flag`` = the Yahtzee box holds 50).
    Same rules as :meth:`solver.rules.RuleSet.placements` and the DP kernel.  Only rule
    entries of ``st`` are read, so the DP's ``rt`` does as well.
    """
    yahtzee_index, yahtzee_bonus = st[_YAHTZEE_INDEX], st[_YAHTZEE_BONUS]
    joker_mode, forced_order = st[_JOKER_MODE], st[_FORCED_ORDER]
    n_boxes = st[_BOX_FACE].shape[0]
    open_bits = ~mask & ((1 << n_boxes) - 1)
    if forced_order:
        open_bits &= -open_bits
    face_of_roll = st[_YAHTZEE_ROLL_FACE][r]
    joker = face_of_roll > 0 and yahtzee_index >= 0 and (mask >> yahtzee_index) & 1 == 1
    if not joker:
        return open_bits, False, 0
    bonus = yahtzee_bonus if flag == 1 else 0
    if joker_mode == 0:
        return open_bits, False, bonus
    face_bits = 0
    lower_bits = 0
    for b in range(n_boxes):
        face = st[_BOX_FACE][b]
        if face == face_of_roll:
            face_bits |= 1 << b
        elif face == 0:
            lower_bits |= 1 << b
    face_bits &= open_bits
    lower_bits &= open_bits
    if joker_mode == 2:  # free: any open box; fixed Joker scores when the face box is filled
        return open_bits, face_bits == 0, bonus
    # forced Joker: own upper box, else any open lower box, else any open upper box (scores 0)
    if face_bits:
        return face_bits, True, bonus
    if lower_bits:
        return lower_bits, True, bonus
    return open_bits, True, bonus


@njit(cache=True, inline="always")
def _box_score(r, b, use_joker, st):
    """Score of roll ``r`` in box ``b`` (the Joker score when ``use_joker``, see :func:`legal_boxes`)."""
    return st[_JOKER_SCORE][r, b] if use_joker else st[_SCORE][r, b]


@njit(cache=True)
def placements_table(masks, rolls, flags, st, out):
    """For tests: ``out[i, b]`` = score of roll ``rolls[i]`` in box ``b`` if legal else -1;
    ``out[i, n_boxes]`` = the bonus."""
    n_boxes = st[_BOX_FACE].shape[0]
    for i in range(masks.shape[0]):
        r = rolls[i]
        bits, use_joker, bonus = legal_boxes(masks[i], r, flags[i], st)
        for b in range(n_boxes):
            if (bits >> b) & 1:
                out[i, b] = _box_score(r, b, use_joker, st)
            else:
                out[i, b] = -1
        out[i, n_boxes] = bonus


@njit(cache=True, inline="always")
def _apply(games, i, b, s, bonus, st):
    """Put score ``s`` (and ``bonus``) of game ``i`` in box ``b``."""
    nb = st[_BOX_FACE].shape[0]
    games[i, b] = s
    games[i, nb] = games[i, nb] | (1 << b)
    if st[_BOX_FACE][b] > 0:
        games[i, nb + 1] += s
    if bonus > 0:
        games[i, nb + 2] += 1


@njit(cache=True, inline="always")
def _flag(games, i, n_flags, yahtzee_index):
    """1 when the DP state's flag is set: the Yahtzee box holds 50 (and a bonus exists).

    Takes the index rather than ``st``: :func:`_group_games` calls it per game outside a
    parallel loop, where numba would update the reference count of every array of an
    inlined helper's tuple argument on each call.
    """
    if n_flags == 2 and games[i, yahtzee_index] == 50:
        return 1
    return 0


@njit(cache=True, inline="always")
def _end_rolls(games, i, held, k, n_flags, st):
    """Game ``i`` stops rolling with the 5-dice keep ``held``, dice drawn up to ``k``.

    Records ``k`` and returns ``(r, bits, use_joker, bonus)``: the roll index and where it
    may go (:func:`legal_boxes`).
    """
    nb = st[_BOX_FACE].shape[0]
    games[i, nb + 3] = k
    r = held - _roll_offset(st)
    bits, use_joker, bonus = legal_boxes(
        np.int64(games[i, nb]), r, _flag(games, i, n_flags, st[_YAHTZEE_INDEX]), st
    )
    return r, bits, use_joker, bonus


# --- table bots (optimal, heuristic) ---------------------------------------
@njit(cache=True, inline="always")
def _best_keep(ev, r, tol, st):
    """The keep of roll ``r`` with the largest ``ev`` (ties within ``tol``: the last sub-keep)."""
    best = NEG_INF
    n = st[_N_SUBKEEPS][r]
    for j in range(n):
        v = ev[st[_SUBKEEPS][r, j]]
        if v > best:
            best = v
    for j in range(n - 1, -1, -1):
        k = st[_SUBKEEPS][r, j]
        if ev[k] >= best - tol:
            return k
    return _roll_offset(st) + r


@njit(cache=True)
def lane_successors(m, u, f, values, st, out):
    """What each placement of state ``(m, u, f)`` leads to, as in the DP's ``R0``.

    ``out`` (n_boxes * 6,): for an open upper box ``b`` and ``c`` dice of its face,
    ``out[6b + c]`` = ``c * face`` + the upper bonus if now reached + ``V`` of the next
    state; for the Yahtzee box (with a bonus flag) ``out[6b]`` = ``V`` after a 0 and
    ``out[6b + 1]`` = 50 + ``V`` after a 50; for any other box ``out[6b]`` = ``V`` of the
    next state (the score is added per roll).  Filled boxes are left as they are.
    """
    box_face, yahtzee_index = st[_BOX_FACE], st[_YAHTZEE_INDEX]
    upper_threshold, upper_bonus = st[_UPPER_THRESHOLD], st[_UPPER_BONUS]
    cap = values.shape[1] - 1
    for b in range(box_face.shape[0]):
        if (m >> b) & 1:
            continue
        nxt = values[m | (1 << b)]
        face = box_face[b]
        if face > 0:
            for c in range(6):
                s = c * face
                extra = upper_bonus if (u < upper_threshold and u + s >= upper_threshold) else 0
                out[6 * b + c] = s + extra + nxt[min(u + s, cap), f]
        elif b == yahtzee_index and values.shape[2] == 2:
            out[6 * b] = nxt[u, 0]
            out[6 * b + 1] = 50.0 + nxt[u, 1]
        else:
            out[6 * b] = nxt[u, f]


@njit(cache=True, inline="always")
def _successor_value(succ, b, s, n_flags, st):
    """Value of putting score ``s`` in box ``b`` (before any extra-Yahtzee bonus)."""
    face = st[_BOX_FACE][b]
    if face > 0:
        return succ[6 * b + s // face]
    if b == st[_YAHTZEE_INDEX] and n_flags == 2:
        return succ[6 * b + 1] if s == 50 else succ[6 * b]
    return s + succ[6 * b]


@njit(cache=True, inline="always")
def _play_table_game(games, i, base, e0, e1, succ, n_flags, tol, st):
    """One turn of game ``i`` from its lane's tables: ``e0``/``e1`` (462,), ``succ`` (6 n_boxes,)."""
    roll_offset = _roll_offset(st)
    nb = st[_BOX_FACE].shape[0]
    k = np.int64(games[i, nb + 3])
    held = _roll(base, k, 0, st)
    k += 5
    for rolls_left in range(2, 0, -1):
        ev = e1 if rolls_left == 2 else e0
        keep = _best_keep(ev, held - roll_offset, tol, st)
        if keep == held:
            break
        held = _roll(base, k, keep, st)
        k += 5
    r, bits, use_joker, bonus = _end_rolls(games, i, held, k, n_flags, st)
    best = NEG_INF
    rest = bits
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        best = max(best, _successor_value(succ, b, _box_score(r, b, use_joker, st), n_flags, st))
    rest = bits
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        s = _box_score(r, b, use_joker, st)
        if _successor_value(succ, b, s, n_flags, st) >= best - tol:
            _apply(games, i, b, s, bonus, st)
            return


@njit(cache=True)
def _group_games(games, n_masks, cap, n_flags, st):
    """Sort games by mask and find the lanes ``(u, f)`` present in each mask.

    Returns ``order`` (games grouped by mask, ascending; by game within a group),
    ``group_mask``, ``group_start`` (offsets into ``order``), ``group_lane`` (offsets
    into the lane arrays), ``lane_u``, ``lane_f`` and ``pos_lane`` (the lane of
    ``order[j]``).
    """
    n_boxes, yahtzee_index = st[_BOX_FACE].shape[0], st[_YAHTZEE_INDEX]
    n = games.shape[0]
    count = np.zeros(n_masks + 1, dtype=np.int64)
    for i in range(n):
        count[games[i, n_boxes] + 1] += 1
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
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        m = games[i, n_boxes]
        order[count[m]] = i
        count[m] += 1
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
            i = order[j]
            u = min(np.int64(games[i, n_boxes + 1]), cap)
            f = _flag(games, i, n_flags, yahtzee_index)
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
    return order, group_mask, group_start, group_lane, lane_u[:n_lanes], lane_f[:n_lanes], pos_lane


@njit(cache=True, parallel=True)
def table_turn(values, games, ids, games_out, ids_out, seed_mixed, game0, lane_budget, tol, st):
    """Play one turn of every game with the decisions of the value array ``values``.

    ``values`` (2**n_boxes, threshold + 1, n_flags) float64: the optimal table, or any
    evaluation of a card state in the same layout (the heuristic bot).  ``games`` (N, W)
    int16: the game states (see the comment above), row ``j`` being game
    ``game0 + ids[j]`` of the stream of seed ``s`` (``seed_mixed = mix(s)``, uint64).
    The games are first gathered into ``games_out``/``ids_out`` sorted by mask (so
    that the games of one state are played from contiguous memory), then played
    there; the inputs are left as they were.
    ``st`` is the simulation tuple ``simulate.sim_args(rules)`` (names in
    :data:`SIM_ARGS`); its first :data:`N_RULE_ARGS` entries, ``dp.kernel_args(rules)``,
    go to :func:`turn_tables`.
    Masks are handled in batches of at most ``lane_budget`` lanes (bounding the
    tables' memory: 2 x 462 floats per lane).  Returns the number of lanes computed.
    """
    n_keeps = st[_ADD_DIE].shape[0]
    nb = st[_BOX_FACE].shape[0]
    cap = values.shape[1] - 1
    n_flags = values.shape[2]
    order, group_mask, group_start, group_lane, lane_u, lane_f, pos_lane = _group_games(
        games, values.shape[0], cap, n_flags, st
    )
    width_state = games.shape[1]
    for j in prange(games.shape[0]):
        i = order[j]
        ids_out[j] = ids[i]
        for c in range(width_state):
            games_out[j, c] = games[i, c]
    n_groups = group_mask.shape[0]
    max_group = 0
    for grp in range(n_groups):
        max_group = max(max_group, group_lane[grp + 1] - group_lane[grp])
    width = max(min(lane_budget, lane_u.shape[0]), max_group)
    e0_all = np.empty((width, n_keeps))
    e1_all = np.empty((width, n_keeps))
    succ_all = np.zeros((width, 6 * nb))
    no_tracking = np.empty((0, 0), dtype=np.int64)
    g0 = 0
    while g0 < n_groups:
        g1 = g0 + 1
        while g1 < n_groups and group_lane[g1 + 1] - group_lane[g0] <= width:
            g1 += 1
        l0 = group_lane[g0]
        for grp in prange(g0, g1):
            a = group_lane[grp]
            nl = group_lane[grp + 1] - a
            e0 = np.empty((n_keeps, nl))
            e1 = np.empty((n_keeps, nl))
            turn_tables(
                group_mask[grp],
                lane_u[a : a + nl],
                lane_f[a : a + nl],
                values,
                st[:N_RULE_ARGS],
                e0,
                e1,
                no_tracking,
            )
            for lane in range(nl):
                row0 = e0_all[a - l0 + lane]
                row1 = e1_all[a - l0 + lane]
                for kk in range(n_keeps):
                    row0[kk] = e0[kk, lane]
                    row1[kk] = e1[kk, lane]
                lane_successors(
                    group_mask[grp], lane_u[a + lane], lane_f[a + lane], values, st, succ_all[a - l0 + lane]
                )
        for j in prange(group_start[g0], group_start[g1]):
            lane = pos_lane[j] - l0
            base = stream_base(seed_mixed, game0 + ids_out[j])
            _play_table_game(games_out, j, base, e0_all[lane], e1_all[lane], succ_all[lane], n_flags, tol, st)
        g0 = g1
    return lane_u.shape[0]


# --- simple bots (random, frequent) -------------------------------------------
@njit(cache=True, inline="always")
def _frequent_keep(held, st):
    """Frequent: keep every die of the most frequent face (ties: the higher face)."""
    best_face = 0
    best_n = -1
    for f in range(st[_KEEP_COUNTS].shape[1]):
        n = st[_KEEP_COUNTS][held, f]
        if n >= best_n:
            best_n = n
            best_face = f
    keep = 0
    for _ in range(best_n):
        keep = st[_ADD_DIE][keep, best_face]
    return keep


@njit(cache=True, inline="always")
def _play_simple_game(kind, turn, n_flags, games, i, base, st):
    """Turn ``turn`` of game ``i`` with the random or the frequent bot (``kind``)."""
    upper_threshold, upper_bonus = st[_UPPER_THRESHOLD], st[_UPPER_BONUS]
    roll_offset = _roll_offset(st)
    nb = st[_BOX_FACE].shape[0]
    rbase = mix64(base ^ np.uint64(RANDOM_DOMAIN))
    j = 8 * turn
    k = np.int64(games[i, nb + 3])
    held = _roll(base, k, 0, st)
    k += 5
    for _rolls_left in range(2, 0, -1):
        r = held - roll_offset
        if kind == BOT_RANDOM:
            keep = st[_SUBKEEPS][r, _uniform(rbase, j, st[_N_SUBKEEPS][r])]
            j += 1
        else:
            keep = _frequent_keep(held, st)
        if keep == held:
            break
        held = _roll(base, k, keep, st)
        k += 5
    r, bits, use_joker, bonus = _end_rolls(games, i, held, k, n_flags, st)
    u = np.int64(games[i, nb + 1])
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
    else:  # frequent: the box that pays most now (upper bonus included); ties: card order
        best = -1
        rest = bits
        while rest:
            b = low_bit_index(rest)
            rest &= rest - 1
            s = _box_score(r, b, use_joker, st)
            gain = s
            if st[_BOX_FACE][b] > 0 and u < upper_threshold and u + s >= upper_threshold:
                gain += upper_bonus
            if gain > best:
                best = gain
                chosen = b
    _apply(games, i, chosen, _box_score(r, chosen, use_joker, st), bonus, st)


@njit(cache=True, parallel=True)
def simple_turn(kind, turn, n_flags, games, seed_mixed, game0, st):
    """Play turn ``turn`` (0-based) of every game with a table-free bot (``BOT_RANDOM``, ``BOT_FREQUENT``).

    ``st`` is the simulation tuple ``simulate.sim_args(rules)`` (names in :data:`SIM_ARGS`).
    """
    for i in prange(games.shape[0]):
        _play_simple_game(kind, turn, n_flags, games, i, stream_base(seed_mixed, game0 + i), st)

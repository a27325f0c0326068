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
``B(K) = max(E(K), max_{face in K} B(K - face))``, so each stage costs about
2,500 additions/maxima per state.  All upper totals and flags of one ``mask``
share the dice work, so the kernels work on a "lane" vector per keep: one
entry per reachable ``(u, f)`` of the mask.  Masks with the same number of
filled boxes are independent and run in parallel; every lane is computed with
the same operations in the same order whatever the thread count, so tables
are bit-identical.  No fastmath anywhere.

Array conventions: keeps are indexed as in :mod:`solver.dice` (rolls are keeps
``roll_offset ..``); rule sets arrive as the arrays of
:meth:`solver.rules.RuleSet.kernel_arrays`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

NEG_INF = -np.inf


@njit(cache=True)
def _lanes_of_mask(mask, upper_reach, upper_box, box_face, yahtzee_index, n_flags, lane_u, lane_f):
    """Fill ``lane_u``/``lane_f`` with the reachable (upper total, flag) pairs of ``mask``.

    Returns the number of lanes.  ``upper_reach[bits, u]`` says whether upper total
    ``u`` is reachable when the upper faces in ``bits`` (bit ``face-1``) are filled.
    """
    bits = 0
    for j in range(upper_box.shape[0]):
        b = upper_box[j]
        if (mask >> b) & 1:
            bits |= 1 << (box_face[b] - 1)
    flags = 1
    if n_flags == 2 and yahtzee_index >= 0 and (mask >> yahtzee_index) & 1:
        flags = 2
    n = 0
    for u in range(upper_reach.shape[1]):
        if upper_reach[bits, u]:
            for f in range(flags):
                lane_u[n] = u
                lane_f[n] = f
                n += 1
    return n


@njit(cache=True)
def _final_roll_values(
    mask, nl, lane_u, lane_f, values, score, joker_score, box_face, yahtzee_roll_face,
    yahtzee_index, yahtzee_bonus, joker_mode, forced_order, upper_threshold, upper_bonus,
    x, best_box,
):
    """R0: the value of every roll with no rolls left, written to ``x[roll_offset + r, :nl]``.

    ``best_box[r, l]`` receives the box chosen (lowest index among equals), or
    nothing when ``best_box`` has zero rows.
    """
    n_boxes = score.shape[1]
    n_rolls = score.shape[0]
    roll_offset = x.shape[0] - n_rolls
    n_flags = values.shape[2]
    cap = values.shape[1] - 1
    # Lane vectors of the successor values, shared by all rolls:
    #   lower box b:       succ[b, 0, l] = V[mask|b, u, f]   (+ score added per roll)
    #   the yahtzee box:   succ[b, 0, l] for a 0, succ[b, 1, l] = 50 + V[.., u, 1] for a 50
    #   upper box b, c dice of its face: succ[b, c, l] = c*face + upper bonus if reached + V[..]
    succ = np.empty((n_boxes, 6, nl))
    open_boxes = np.empty(n_boxes, dtype=np.int64)
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
                for l in range(nl):
                    u = lane_u[l]
                    nu = min(u + s, cap)
                    extra = upper_bonus if (u < upper_threshold and u + s >= upper_threshold) else 0
                    succ[b, c, l] = s + extra + nxt[nu, lane_f[l]]
        elif b == yahtzee_index:
            hold50 = 1 if n_flags == 2 else 0
            for l in range(nl):
                succ[b, 0, l] = nxt[lane_u[l], 0]
                succ[b, 1, l] = 50.0 + nxt[lane_u[l], hold50]
        else:
            for l in range(nl):
                succ[b, 0, l] = nxt[lane_u[l], lane_f[l]]

    yahtzee_filled = yahtzee_index >= 0 and (mask >> yahtzee_index) & 1
    track = best_box.shape[0] > 0
    for r in range(n_rolls):
        row = x[roll_offset + r]
        for l in range(nl):
            row[l] = NEG_INF
        face_of_roll = yahtzee_roll_face[r]
        joker = face_of_roll > 0 and yahtzee_filled
        face_box_open = False
        any_lower_open = False
        if joker and joker_mode != 0:
            for i in range(n_open):
                b = open_boxes[i]
                if box_face[b] == face_of_roll:
                    face_box_open = True
                elif box_face[b] == 0:
                    any_lower_open = True
        for i in range(n_open):
            b = open_boxes[i]
            face = box_face[b]
            s = score[r, b]
            if joker and joker_mode == 1:  # forced: own upper box, else lower, else upper
                if face_box_open:
                    if face != face_of_roll:
                        continue
                elif any_lower_open:
                    if face > 0:
                        continue
                    s = joker_score[r, b]
            elif joker and joker_mode == 2 and not face_box_open:  # free: fixed scores if face box filled
                s = joker_score[r, b]
            if face > 0:
                vec = succ[b, s // face]
                for l in range(nl):
                    if vec[l] > row[l]:
                        row[l] = vec[l]
                        if track:
                            best_box[r, l] = b
            elif b == yahtzee_index:
                vec = succ[b, 1 if s == 50 else 0]
                for l in range(nl):
                    if vec[l] > row[l]:
                        row[l] = vec[l]
                        if track:
                            best_box[r, l] = b
            else:
                vec = succ[b, 0]
                for l in range(nl):
                    v = s + vec[l]
                    if v > row[l]:
                        row[l] = v
                        if track:
                            best_box[r, l] = b
        if joker and yahtzee_bonus > 0:
            for l in range(nl):
                if lane_f[l] == 1:
                    row[l] += yahtzee_bonus


@njit(cache=True)
def _average_keeps(x, nl, add_die, keep_size):
    """E(K) = mean over faces of E(K + face) for every keep of fewer than 5 dice."""
    n_faces = add_die.shape[1]
    for k in range(x.shape[0] - 1, -1, -1):
        if keep_size[k] >= 5:
            continue
        out = x[k]
        first = x[add_die[k, 0]]
        for l in range(nl):
            out[l] = first[l]
        for f in range(1, n_faces):
            src = x[add_die[k, f]]
            for l in range(nl):
                out[l] += src[l]
        for l in range(nl):
            out[l] /= n_faces


@njit(cache=True)
def _best_subkeep(x, nl, remove_die):
    """In place: x[K] = max over sub-multisets S of K of x[S] (keeps in size order)."""
    n_faces = remove_die.shape[1]
    for k in range(1, x.shape[0]):
        out = x[k]
        for f in range(n_faces):
            j = remove_die[k, f]
            if j < 0:
                continue
            src = x[j]
            for l in range(nl):
                if src[l] > out[l]:
                    out[l] = src[l]


@njit(cache=True)
def _solve_mask(
    mask, values, upper_reach, upper_box, add_die, remove_die, keep_size, roll_prob,
    score, joker_score, box_face, yahtzee_roll_face, yahtzee_index, yahtzee_bonus,
    joker_mode, forced_order, upper_threshold, upper_bonus,
):
    """Write V[mask, u, f] for every reachable lane of ``mask`` (successors must be done)."""
    n_flags = values.shape[2]
    max_lanes = values.shape[1] * n_flags
    lane_u = np.empty(max_lanes, dtype=np.int64)
    lane_f = np.empty(max_lanes, dtype=np.int64)
    nl = _lanes_of_mask(mask, upper_reach, upper_box, box_face, yahtzee_index, n_flags, lane_u, lane_f)
    n_rolls = score.shape[0]
    x = np.empty((add_die.shape[0], nl))
    no_tracking = np.empty((0, 0), dtype=np.int64)
    _final_roll_values(
        mask, nl, lane_u, lane_f, values, score, joker_score, box_face, yahtzee_roll_face,
        yahtzee_index, yahtzee_bonus, joker_mode, forced_order, upper_threshold, upper_bonus,
        x, no_tracking,
    )
    for _stage in range(2):
        _average_keeps(x, nl, add_die, keep_size)
        _best_subkeep(x, nl, remove_die)
    roll_offset = x.shape[0] - n_rolls
    total = np.zeros(nl)
    for r in range(n_rolls):
        p = roll_prob[r]
        row = x[roll_offset + r]
        for l in range(nl):
            total[l] += p * row[l]
    for l in range(nl):
        values[mask, lane_u[l], lane_f[l]] = total[l]


@njit(cache=True, parallel=True)
def solve_level(
    masks, values, upper_reach, upper_box, add_die, remove_die, keep_size, roll_prob,
    score, joker_score, box_face, yahtzee_roll_face, yahtzee_index, yahtzee_bonus,
    joker_mode, forced_order, upper_threshold, upper_bonus,
):
    """Solve every mask in ``masks`` (all with the same number of filled boxes), in parallel.

    ``values``: (2**n_boxes, threshold + 1, n_flags) float64, written in place;
    all masks with more filled boxes must already be solved.
    """
    for i in prange(masks.shape[0]):
        _solve_mask(
            masks[i], values, upper_reach, upper_box, add_die, remove_die, keep_size, roll_prob,
            score, joker_score, box_face, yahtzee_roll_face, yahtzee_index, yahtzee_bonus,
            joker_mode, forced_order, upper_threshold, upper_bonus,
        )


@njit(cache=True)
def turn_tables(
    mask, lane_u, lane_f, values, upper_reach, upper_box, add_die, remove_die, keep_size, roll_prob,
    score, joker_score, box_face, yahtzee_roll_face, yahtzee_index, yahtzee_bonus,
    joker_mode, forced_order, upper_threshold, upper_bonus, e0, e1, best_box,
):
    """Within-turn decision tables of one mask for the given lanes (for bots and batch advice).

    ``lane_u``/``lane_f`` (nl,) int64: the states ``(u, f)`` wanted (``upper_reach``
    is unused here but kept so every kernel takes the same rule arrays).
    Outputs, caller-allocated:

    * ``e0`` (462, nl) float64 -- value of keeping K and rerolling the rest with one
      roll left (then scoring); for 5-dice keeps, the value of scoring that roll now;
    * ``e1`` (462, nl) float64 -- the same with two rolls left; 5-dice keeps as in ``e0``;
    * ``best_box`` (252, nl) int64 -- the box to fill with each roll and no rolls left
      (the lowest box index among equal values).

    The best keep for roll ``r`` with 2 (1) rolls left is the sub-keep of ``r``
    (``dice.SUBKEEPS``) with the largest ``e1`` (``e0``); ties go to the first.
    """
    nl = lane_u.shape[0]
    n_rolls = score.shape[0]
    roll_offset = add_die.shape[0] - n_rolls
    x = np.empty((add_die.shape[0], nl))
    _final_roll_values(
        mask, nl, lane_u, lane_f, values, score, joker_score, box_face, yahtzee_roll_face,
        yahtzee_index, yahtzee_bonus, joker_mode, forced_order, upper_threshold, upper_bonus,
        x, best_box,
    )
    _average_keeps(x, nl, add_die, keep_size)
    for k in range(x.shape[0]):
        for l in range(nl):
            e0[k, l] = x[k, l]
    _best_subkeep(x, nl, remove_die)
    _average_keeps(x, nl, add_die, keep_size)
    for k in range(x.shape[0]):
        stop = k >= roll_offset
        for l in range(nl):
            e1[k, l] = e0[k, l] if stop else x[k, l]

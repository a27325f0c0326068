"""The distribution under target play: one state, a run of consecutive needs.

A state's turn under target play depends on the points still needed; the lanes of a block are
one state and consecutive needs ``t0 .. t0 + n - 1``, as in the DP.  Each placement a roll may
get is a *candidate* (box, score, five-of-a-kind bonus): its next state, its points, and its
value at need ``t`` -- 1 for ``t <= c_lo``, ``w[c_src + t]`` up to ``c_hi``, 0 beyond -- found
once per state (:func:`_target_plan`), not once per roll and lane.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .outcomes import final_masses, turn_keeps
from .rules import NEG_INF, allowed_bits, five_kind_bonus, legal_boxes, low_bit_index, placement_score, step
from .target import copy_lanes, fill_lanes, target_max_into
from .turn import turn_from_final

TargetPlan = namedtuple(
    "TargetPlan",
    [
        "key_of",  # candidate of (box, score, bonus), -1: none
        "c_key",
        "c_src",
        "c_lo",
        "c_hi",
        "c_dst",  # the next state (flat, upper total by rep_u)
        "c_gain",  # the points of the turn
        "zero_c",  # the zero placements (their count last)
        "best_c",  # (n_rolls, nb) what R0 of a roll is the best of
        "best_n",
        "best_z",  # 1 when R0 starts from the zero row
        "legal_c",  # (n_rolls, nb) the legal boxes, in card order
        "legal_n",
    ],
)
"""The candidates of one state's turn under target play (:func:`_target_plan`), int64 arrays."""


@njit(cache=True, inline="always")
def _add_candidate(c, key, b, s, extra, mask, u, f, target, rep_u, ra, plan):
    """Candidate ``c``: score ``s`` (and bonus ``extra``) in box ``b`` from ``(mask, u, f)``, under
    ``key`` (:func:`_candidate_key`), into the arrays of ``plan`` (:class:`TargetPlan`), its value
    read from the table ``target``."""
    w_off, w_lead, w_len = target.off, target.lead, target.length
    key_of, c_key, c_src, c_lo, c_hi, c_dst, c_gain = (
        plan.key_of, plan.c_key, plan.c_src, plan.c_lo, plan.c_hi, plan.c_dst, plan.c_gain
    )  # fmt: skip
    cap = ra.upper_cap
    points, u2, f2 = step(
        u, f, s, ra.box_face[b], ra.flag_rows[b] == 1, ra.upper_threshold, ra.upper_bonus, cap
    )
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
    """The :class:`TargetPlan` of :func:`_target_plan` for the rule arrays ``ra`` (made once per
    kernel call)."""
    nb = ra.box_face.shape[0]
    n_rolls = ra.score.shape[0]
    max_score = max(ra.score.max(), ra.joker_score.max())
    n_keys = nb * (max_score + 1) * 2
    i64 = np.int64
    return TargetPlan(
        np.full(n_keys, -1, dtype=i64), np.empty(n_keys, i64), np.empty(n_keys, i64), np.empty(n_keys, i64),
        np.empty(n_keys, i64), np.empty(n_keys, i64), np.empty(n_keys, i64), np.empty(nb + 1, i64),
        np.empty((n_rolls, nb), i64), np.empty(n_rolls, i64), np.empty(n_rolls, i64), np.empty((n_rolls, nb), i64),
        np.empty(n_rolls, i64),
    )  # fmt: skip


@njit(cache=True)
def _target_plan(mask, u, f, target, rep_u, ra, plan):
    """The candidates of state ``(mask, u, f)`` into ``plan`` (:class:`TargetPlan`): the
    zero row (the allowed boxes scoring 0), per roll the candidates ``R0`` is the best of in
    :func:`_target_rolls`' order (an ordinary roll from the zero row, a five of a kind from
    -inf: the same maxima bit for bit) and its legal boxes in card order.  Returns the number
    of candidates."""
    key_of, c_key = plan.key_of, plan.c_key
    zero_c, best_c, best_n, best_z, legal_c, legal_n = (
        plan.zero_c, plan.best_c, plan.best_n, plan.best_z, plan.legal_c, plan.legal_n
    )  # fmt: skip
    score, joker_score, box_face, roll_face = ra.score, ra.joker_score, ra.box_face, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    n_pos, pos_boxes = ra.n_pos, ra.pos_boxes
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
            _add_candidate(c, key, b, 0, 0, mask, u, f, target, rep_u, ra, plan)
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
                _add_candidate(c, key, b, s, extra, mask, u, f, target, rep_u, ra, plan)
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
    c_src, c_lo, c_hi = plan.c_src, plan.c_lo, plan.c_hi
    zero_c, best_c, best_n, best_z = plan.zero_c, plan.best_c, plan.best_n, plan.best_z
    n_rolls = best_n.shape[0]
    roll_offset = x.shape[0] - n_rolls
    fill_lanes(x, 0, col, n, NEG_INF)  # the best zero placement, in keep row 0's place (free until averaged)
    nb = zero_c.shape[0] - 1
    for i in range(zero_c[nb]):
        c = zero_c[i]
        target_max_into(x, 0, col, n, w, c_src[c] + 1, c_lo[c], c_hi[c], t0, 0)
    for r in range(n_rolls):
        row = roll_offset + r
        if best_z[r]:
            copy_lanes(x, 0, row, col, n)
        else:
            fill_lanes(x, row, col, n, NEG_INF)
        for i in range(best_n[r]):
            c = best_c[r, i]
            target_max_into(x, row, col, n, w, c_src[c] + 1, c_lo[c], c_hi[c], t0, 0)


@njit(cache=True, nogil=True)
def target_turn_runs(b0, b1, runs, states, target, rep_u, ra, tol, start_roll, start_rolls_left, cmax, found):
    """The turns of the lanes of blocks ``b0 .. b1`` of ``runs`` (:class:`~solver.engine.arrays.Runs`)
    under target play by the table ``target``.  A run ``q`` is one state ``k = runs.state[q]``
    (row ``k`` of ``states``, :class:`~solver.engine.arrays.States`) with consecutive needs
    ``t0[q] .. + n[q]`` (each ``>= 1``); block ``b`` is runs ``block[b] .. block[b + 1]``, whose
    lanes go through the keep tables together.  Keeps by the target-play tables
    (:func:`~.target.target_turn_tables`, the tie rule of :func:`~.games.best_keep`), then the
    legal box of the largest probability (ties within ``tol``: the first in card order) -- what
    :func:`~.target.play_target_games` plays.  Out, ``found``
    (:class:`~solver.engine.arrays.RunOutcomes`): per run, ``cand[q]`` candidates ``c`` (their
    next state ``dst[q * cmax + c]``, flat, and points ``gain[...]``) with probability
    ``probs[out[q] + c * n[q] + j]`` for lane ``j``.  A fresh turn when ``start_roll < 0``, else
    from roll ``start_roll`` with ``start_rolls_left`` rolls left."""
    block_run, run_state, run_t0, run_n, run_out = runs
    masks, us, fs = states
    probs, c_dst, c_gain, run_cand = found
    w = target.w
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
    plan = target_plan_arrays(ra, target.off.shape[2])
    c_src, c_lo, c_hi, p_dst, p_gain, legal_c, legal_n = (
        plan.c_src, plan.c_lo, plan.c_hi, plan.c_dst, plan.c_gain, plan.legal_c, plan.legal_n
    )  # fmt: skip
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
                n_cand = _target_plan(masks[k], us[k], fs[k], target, rep_u, ra, plan)
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
        turn_from_final(e0, e1, ra)
        kk0 = k0_buf[: n_rolls * n].reshape((n_rolls, n))
        kk1 = k1_buf[: n_rolls * n].reshape((n_rolls, n))
        turn_keeps(e0, e1, tol, ra, kk0, kk1, mass)
        final = final_buf[: n_rolls * n].reshape((n_rolls, n))
        final_masses(start_roll, start_rolls_left, roll_prob, add_die, kk0, kk1, mass, part, final)
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
def apply_target_runs(row0, row1, q0, q1, runs, found, cmax, src, tw, dest):
    """The masses of runs ``q0 .. q1`` of ``runs`` (:func:`target_turn_runs`, what it ``found``
    with the candidates' next rows in ``found.dst``) into the next states' rows ``row0 .. row1``
    only (ranges of rows may run in threads; each row gets its additions in run order): lane
    ``j`` of run ``q`` is row ``runs.state[q]`` of ``src`` (mass by points so far ``p``, ``p <
    tw``) at ``p = tw - t0[q] - j``; it moves with each candidate ``c`` to row ``dst[q * cmax +
    c]``, ``gain`` points on: into ``dest.t`` below ``tw``, into row ``dest.e_row[row]`` of
    ``dest.e`` (points from ``tw`` on) from there (:class:`~solver.engine.arrays.SplitRows`)."""
    run_state, run_t0, run_n, run_out = runs.state, runs.t0, runs.n, runs.out
    probs, c_row, c_gain, run_cand = found
    out_t, out_e, e_row = dest
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
def apply_split_rows(c0, c1, src, dst_row, gain, prob, source, skip_t, support, tw, dest):
    """:func:`~.outcomes.apply_outcomes` for rows split at ``tw`` points
    (:class:`~solver.engine.arrays.SplitRows`): source row ``s`` is ``source.t[s]`` (points below
    ``tw``; 0 where ``skip_t`` is set) then ``source.e[source.e_row[s]]`` (none when -1),
    ``support[s]`` one past its last non-zero entry; the destination ``dest`` likewise."""
    src_t, src_e, src_e_row = source
    out_t, out_e, e_row = dest
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

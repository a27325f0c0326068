"""Playing to win (:mod:`solver.play.match`): target play whose objective counts a tie as
``tie`` (a half), mixed over the distribution of the best opponent's final score ``B``: with
``B = b0 + j`` at probability ``q[j]`` and ``n = b0 - total`` (after the placement), the value is

    sum_j q[j] [(1 - tie) W(n + j) + tie W(n + j + 1)] = sum_i qt[i] W(n + i),

``qt[i] = (1 - tie) q[i] + tie q[i - 1]`` (``i = 0 .. len(q)``: :func:`tie_mix`), ``W`` the
target table's probabilities (:mod:`.target`): 1 up to the row's lead (the prefix sums ``qc``
of ``qt``), its stored middle (one contiguous dot product), 0 beyond.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..arrays import COL_DICE, COL_FLAG, COL_MASK, COL_UPPER, MOVE_BOX, MOVE_FINAL, MOVE_ROLL2
from .games import apply_box, play_keeps, record_box, store_lane_tables
from .grading import best_of, grade_keeps
from .rules import NEG_INF, allowed_bits, five_kind_bonus, legal_boxes, low_bit_index, placement_score, step
from .simd import v4_lanes, v4_load, v4_muladd, v4_zero
from .streams import stream_base
from .turn import turn_from_final


@njit(cache=True, inline="always")
def tie_mix(q, q0, qn, tie, qt, qc):
    """``qt[i] = (1 - tie) q[q0 + i] + tie q[q0 + i - 1]`` for ``i <= qn`` (``q`` 0 outside its
    ``qn`` entries) and ``qc`` its prefix sums, in that order of additions."""
    acc = 0.0
    prev = 0.0
    for i in range(qn + 1):
        # float64 said: compiled, a float32 is widened next to a float64; numpy (the JIT off) keeps
        # a float32 times a Python float in float32
        cur = np.float64(q[q0 + i]) if i < qn else 0.0
        v = (1.0 - tie) * cur + tie * prev
        prev = cur
        qt[i] = v
        acc += v
        qc[i] = acc


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
        v = v4_zero()
        n4 = k >> np.uint64(2)
        for j4 in range(n4):
            j = j4 << np.uint64(2)
            v = v4_muladd(v, v4_load(qt, qi + j), v4_load(w, wi + j))
        a0, a1, a2, a3 = v4_lanes(v)
        for j in range(n4 << np.uint64(2), k):
            a0 += qt[qi + j] * w[wi + j]
        acc += (a0 + a1) + (a2 + a3)
    return acc


WinMix = namedtuple("WinMix", ["need", "qt", "qc", "m"])
"""A lane's win objective (:func:`mixed_win_value`): ``need`` the best opponent's least final
minus the card's total, ``qt``/``qc`` (at least ``m`` entries) as :func:`tie_mix` makes them."""

WinWork = namedtuple("WinWork", ["plan", "box_scores", "fives", "best", "vals", "memo", "seen"])
"""What :func:`_mixed_win_rolls` reads and writes besides its lane, made once per kernel call
(:func:`win_work`)."""


@njit(cache=True, inline="always")
def _win_box_value(mask, u, f, r, b, use_joker, extra, mix, target, ra):
    """:func:`mixed_win_value` of scoring roll ``r`` in box ``b`` from state ``(mask, u, f)``
    (``extra``: the roll's five-of-a-kind bonus) for the objective ``mix`` (:class:`WinMix`) by
    the target table ``target`` (:class:`~solver.engine.arrays.TargetArrays`)."""
    w, w_off, w_lead, w_len = target
    s = placement_score(r, b, use_joker, ra.score, ra.joker_score)
    points, u2, f2 = step(
        u, f, s, ra.box_face[b], ra.flag_rows[b] == 1, ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    )
    nxt = mask | (1 << b)
    return mixed_win_value(
        w, w_off[nxt, u2, f2], w_lead[nxt, u2, f2], w_len[nxt, u2, f2], mix.need - points - extra, mix.qt, mix.qc,
        mix.m,
    )  # fmt: skip


@njit(cache=True, inline="always")
def score_best_win_box(games, i, r, mix, target, tol, ra, vals):
    """Score roll ``r`` of game ``i`` in the legal box with the largest :func:`mixed_win_value`
    for ``mix`` (:class:`WinMix`; ties within ``tol``: the first in card order); ``vals``
    (n_boxes,) scratch."""
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    five_kind, roll_face = ra.five_kind, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    cap = ra.upper_cap
    nb = box_face.shape[0]
    mask = np.int64(games[i, nb + COL_MASK])
    u = min(np.int64(games[i, nb + COL_UPPER]), cap)
    f = np.int64(games[i, nb + COL_FLAG]) if target.off.shape[2] == 2 else np.int64(0)
    bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
    extra = five_kind_bonus(mask, r, np.int64(games[i, nb + COL_FLAG]), roll_face, rows_mask, bonus)
    best = NEG_INF
    rest = bits
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        vals[b] = _win_box_value(mask, u, f, r, b, use_joker, extra, mix, target, ra)
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
    apply_box(games, i, chosen, s, extra, box_face, five_kind)


@njit(cache=True, inline="always")
def _placement_win_value(mask, u, f, b, s, e, extra, mix, target, step_rules, work, stamp):
    """:func:`mixed_win_value` of placing a roll scoring ``s`` (five-of-a-kind bonus ``extra``,
    ``e = extra > 0``) in box ``b`` for ``mix``, into ``work.memo[b, s, e]`` (``work.seen[b, s, e]
    = stamp``: the callers look there first -- a call per placement costs more than the rest of
    the loop); ``step_rules`` = ``(box_face, flag_rows, upper_threshold, upper_bonus,
    upper_cap)`` of the rules."""
    box_face, flag_rows, thr, ub, cap = step_rules
    w, w_off, w_lead, w_len = target
    points, u2, f2 = step(u, f, s, box_face[b], flag_rows[b] == 1, thr, ub, cap)
    nxt = mask | (1 << b)
    v = mixed_win_value(
        w, w_off[nxt, u2, f2], w_lead[nxt, u2, f2], w_len[nxt, u2, f2], mix.need - points - extra, mix.qt, mix.qc,
        mix.m,
    )  # fmt: skip
    work.memo[b, s, e] = v
    work.seen[b, s, e] = stamp


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
def win_work(ra):
    """The :class:`WinWork` of a kernel call for the rule arrays ``ra``: the rules read once
    (:func:`win_roll_plan`), the memo of placements and the scratch of a lane."""
    n_rolls, nb = ra.score.shape
    smax = 0
    for r in range(n_rolls):
        for b in range(nb):
            smax = max(smax, ra.score[r, b], ra.joker_score[r, b])
    plan = np.empty((nb, n_rolls), dtype=np.uint64)
    box_scores = np.empty((nb, smax + 2), dtype=np.int64)
    fives = np.empty(n_rolls + 1, dtype=np.int64)
    win_roll_plan(ra, plan, box_scores, fives)
    memo = np.empty((nb, smax + 1, 2))
    seen = np.zeros((nb, smax + 1, 2), dtype=np.int64)
    return WinWork(plan, box_scores, fives, np.empty(n_rolls), np.empty(nb * n_rolls), memo, seen)


@njit(cache=True)
def _mixed_win_rolls(mask, u, f, mix, col, target, ra, work, stamp, x, tol, chosen):
    """R0 of one lane for win play against a distribution of best opponent finals (``mix``,
    :class:`WinMix`; :func:`mixed_win_value` by ``target``) into column ``col`` of ``x``, and
    unless ``chosen`` is empty the box a game scores each roll in (``chosen[r]`` (n_rolls,) int8:
    the first legal box within ``tol`` of the best, as :func:`score_best_win_box` chooses).
    ``work`` (:class:`WinWork`): ``memo``/``seen`` (n_boxes, max score + 1, 2): each (box, score,
    bonus) valued once (``seen`` holds the ``stamp``, one per lane, where ``memo`` is this lane's:
    nothing to clear between lanes); ``best`` (n_rolls,) and ``vals`` (n_boxes n_rolls,) scratch
    (``vals[b n_rolls + r]``: the value of roll ``r`` in box ``b``, read back contiguously when
    the boxes are chosen); ``plan``, ``box_scores``, ``fives`` from :func:`win_roll_plan`.

    A roll that is no five of a kind may go in any allowed box and earns no bonus
    (:func:`legal_boxes`): box by box, each score of the box is valued once, then every roll
    reads its score's value, without branches (a branch per roll and box mispredicts); the
    five-of-a-kind rolls, which read a value of no meaning there, are made over after, from
    :func:`legal_boxes`.  The best of each roll is the largest of the same values in any order,
    so the tables do not depend on the order of the passes."""
    plan, box_scores, fives, best, vals, memo, seen = work
    score, joker_score, box_face, roll_face = ra.score, ra.joker_score, ra.box_face, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    flag_rows, thr, ub, cap = ra.flag_rows, ra.upper_threshold, ra.upper_bonus, ra.upper_cap
    step_rules = (box_face, flag_rows, thr, ub, cap)
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
            _placement_win_value(mask, u, f, b, box_scores[b, k], 0, 0, mix, target, step_rules, work, stamp)
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
                _placement_win_value(mask, u, f, b, s, e, extra, mix, target, step_rules, work, stamp)
            v = memo[b, s, e]
            if v > best[r]:
                best[r] = v
    for r in range(n_rolls):
        x[roll_offset + r, col] = best[r]
    if chosen.shape[0] == 0:
        return
    for r in range(n_rolls):
        best[r] = best[r] - tol  # (best no more: the bar each box is held to)
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
                chosen[r] = b
                break


@njit(cache=True, nogil=True)
def mixed_win_group_tables(g0, g1, l0, group_mask, group_lane, lane_u, lane_f, opp, target, ra, tol, tables):
    """Win-play tables of groups ``g0 .. g1`` into rows ``lane - l0`` of ``tables``
    (:class:`~solver.engine.arrays.WinTables`): lane ``(u, f, need)`` against the best opponent
    final ``b0 + j`` with probability ``q[q0 + j]``, ``j < qn`` (``opp``,
    :class:`~solver.engine.arrays.Opponents`; ``need = b0 - total``; see :func:`mixed_win_value`,
    by ``target``); unless ``tables.boxes`` has no rows, its row ``lane - l0`` the box each roll is
    scored in (:func:`_mixed_win_rolls`)."""
    e0_all, e1_all, boxes = tables
    lane_need, lane_q0, lane_qn, q, tie = opp
    n_keeps = ra.add_die.shape[0]
    work = win_work(ra)
    no_boxes = np.empty(0, dtype=np.int8)
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
            chosen = boxes[a - l0] if boxes.shape[0] > 0 else no_boxes
            _mixed_win_rolls(
                group_mask[grp], lane_u[a], lane_f[a], WinMix(lane_need[a], qt, qc, qn + 1), a - first, target, ra,
                work, a + 1, e0, tol, chosen,
            )  # fmt: skip
    turn_from_final(e0, e1, ra)
    store_lane_tables(e0, e1, e0_all, e1_all, first - l0)


@njit(cache=True, nogil=True)
def play_mixed_win_games(j0, j1, l0, pos_lane, batch, tables, tol, ra):
    """Play the turn of games ``j0 .. j1`` of ``batch`` (:class:`~solver.engine.arrays.GameBatch`)
    for the win objective: keeps and box from the tables of :func:`mixed_win_group_tables` (with
    ``boxes``; ties within ``tol``: the first); ``batch.moves`` (n, N_MOVES) int16 records each
    game's turn (zero rows: none)."""
    games, ids, seed_mixed, game0, moves = batch
    e0_all, e1_all, boxes = tables
    add_die, keep_size, subkeeps, n_subkeeps = ra.add_die, ra.keep_size, ra.subkeeps, ra.n_subkeeps
    nb = ra.box_face.shape[0]
    roll_offset = add_die.shape[0] - ra.score.shape[0]
    for i in range(j0, j1):
        lane = pos_lane[i] - l0
        base = stream_base(seed_mixed, game0 + ids[i])
        held, k = play_keeps(
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
        apply_box(
            games,
            i,
            b,
            placement_score(r, b, use_joker, ra.score, ra.joker_score),
            extra,
            ra.box_face,
            ra.five_kind,
        )
        record_box(moves, i, held, mask, np.int64(games[i, nb + COL_MASK]))


@njit(cache=True, nogil=True)
def turn_start_values(i0, i1, l0, e1_all, ra, out):
    """``out[lane] = sum_r P(r) R2(r)`` for lanes ``i0 .. i1`` (rows ``lane - l0`` of ``e1_all``):
    the value of a turn's start from its own keep tables, whatever the objective."""
    subkeeps, n_subkeeps, roll_prob = ra.subkeeps, ra.n_subkeeps, ra.roll_prob
    for lane in range(i0, i1):
        e1 = e1_all[lane - l0]
        acc = 0.0
        for r in range(roll_prob.shape[0]):
            acc += roll_prob[r] * best_of(e1, r, subkeeps, n_subkeeps)
        out[lane] = acc


@njit(cache=True, nogil=True)
def grade_win_games(j0, j1, l0, rec, lane_u, lane_f, opp, tables, target, ra, graded):
    """Each decision's loss in the recorded turns ``j0 .. j1`` of ``rec``
    (:class:`~solver.engine.arrays.Recorded`) for the win objective against a known best opponent
    final (lane ``pos_lane[j]`` of :func:`mixed_win_group_tables`'s ``tables`` with the opponent
    final ``q = [1]``: ``opp.need`` = that final minus the card's total, a tie worth ``opp.tie``),
    as :func:`~.grading.grade_games` grades for expected score: ``graded`` (n, 6) float64 in
    P(win) + tie x P(tie) -- the losses of the two keeps and the box, the first roll's value, the
    luck of the second and third roll."""
    pos_lane, masks, moves = rec
    e0_all, e1_all = tables.e0, tables.e1
    lane_need, tie = opp.need, opp.tie
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
        keep2 = grade_keeps(i, e0, e1_all[lane - l0], moves, subkeeps, n_subkeeps, roll_offset, graded)
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
            v = _win_box_value(mask, u, f, r, b, use_joker, extra, WinMix(need, qt, qc, 2), target, ra)
            best = max(best, v)
            if b == taken:
                chosen = v
        graded[i, 2] = best - chosen
        if keep2 >= 0 and keep2 != np.int64(moves[i, MOVE_ROLL2]):  # rolled a third time
            graded[i, 5] = best - e0[keep2]


@njit(cache=True, nogil=True)
def mixed_start_values(states, opp, target, out):
    """``out[i]`` = :func:`mixed_win_value` of state ``i`` of ``states``
    (:class:`~solver.engine.arrays.States`) at the start of a turn (``opp``,
    :class:`~solver.engine.arrays.Opponents`: ``need[i]``, the opponent finals ``q[q0[i] :][:
    qn[i]]``) by ``target``; the match needs only whether it is above 0 (:func:`win_chance_left`,
    tested against this)."""
    masks, us, fs = states
    need0, game_q0, game_qn, q, tie = opp
    w, w_off, w_lead, w_len = target
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
def win_chance_left(states, opp, target, out):
    """``out[i]``: whether :func:`mixed_win_value` of state ``i`` (as :func:`mixed_start_values`)
    is above 0, without summing it: its terms (``qt[i]`` of :func:`tie_mix`, each made as there,
    and their products with the table's ``W``) are sums and products of probabilities, never
    negative, so the value is above 0 exactly when one of its terms is (a sum of terms >= 0
    rounds to 0 only when every term is 0); the first such term ends the search."""
    masks, us, fs = states
    need0, game_q0, game_qn, q, tie = opp
    w, w_off, w_lead, w_len = target
    one = 1.0 - tie
    for g in range(masks.shape[0]):
        mm, u, f = masks[g], us[g], fs[g]
        q0, qn, n = game_q0[g], game_qn[g], need0[g]
        m = qn + 1
        off, lead, length = w_off[mm, u, f], w_lead[mm, u, f], w_len[mm, u, f]
        c = lead - n
        found = False
        for i in range(min(c, m - 1) + 1):  # the certain targets (qc[c] > 0)
            cur = np.float64(q[q0 + i]) if i < qn else 0.0
            prev = np.float64(q[q0 + i - 1]) if i > 0 else 0.0
            if one * cur + tie * prev > 0.0:
                found = True
                break
        if not found:
            for i in range(max(c + 1, 0), min(length - n, m - 1) + 1):  # the stored ones
                cur = np.float64(q[q0 + i]) if i < qn else 0.0
                prev = np.float64(q[q0 + i - 1]) if i > 0 else 0.0
                if (one * cur + tie * prev) * w[off + n - 1 + i] > 0.0:
                    found = True
                    break
        out[g] = found

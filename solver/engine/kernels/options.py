"""Batch advice: every option of many positions valued and ranked from their card states'
turn tables (:mod:`solver.advice.batch`, ``yahtzee export``).
"""

from __future__ import annotations

from numba import njit

from .rules import NEG_INF, five_kind_bonus, legal_boxes, objective, placement_score, step


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
def flat_options(rolls_left, row, base, keeps, boxes, keep_faces, tol, offsets, out):
    """The ranked options of positions laid out flat, best first within each position.

    Position ``i`` (n,) with ``rolls_left[i] > 0`` has row ``row[i]`` of the keep arrays
    ``keeps`` (:class:`~solver.engine.arrays.KeepOptions`: ``ev`` (k, 32) float64, ``keep`` (k,
    32) keep indices, ``n`` (k,) options, ``stop_box``/``stop_score`` (k,) the box and score that
    keeping all five implies, -1 none); else of the box arrays ``boxes``
    (:class:`~solver.engine.arrays.BoxOptions`: ``ev`` (p, n_boxes), ``box``, ``score``, ``n``
    (p,), ``bonus`` (p,) the roll's Yahtzee bonus); ``base`` (n,) float64 the points on its card.
    ``keep_faces`` (:class:`~solver.engine.arrays.KeepFaces`) gives each keep's faces;
    ``offsets`` (n + 1,) int64 each position's first option.

    Output, caller-allocated, ``out`` (:class:`~solver.engine.arrays.FlatOptions`), per option
    (offsets[n],): ``ev``, ``expected_final`` (base + ev), ``regret`` (the best's ev - ev,
    0 within ``tol``: a tie), ``best`` (the best's ev - ev <= ``tol``) float64/bool; ``keep``, ``box`` (-1 for the other kind),
    ``score`` (-1 for keeps), ``bonus`` (0 for keeps), ``stop_box``, ``stop_score`` (-1 but for
    the keep of all five) int16; ``face_offsets`` (offsets[n] + 1,) int32 and ``faces`` (at least
    5 per option) int8: each keep's faces (none for a box)."""
    keep_ev, keep_id, keep_n, keep_stop_box, keep_stop_score = keeps
    place_ev, place_box, place_score, place_n, place_bonus = boxes
    keep_size, keep_start, faces_of = keep_faces
    ev, keep, box, score, bonus, expected_final, regret, best, stop_box, stop_score, face_offsets, faces = out
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
                    faces[at] = faces_of[q]
                    at += 1
                face_offsets[s + 1] = at
                expected_final[s] = base[i] + v
                best[s] = top - v <= tol
                regret[s] = 0.0 if best[s] else top - v  # a tie within tol is no loss
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
                best[s] = top - v <= tol
                regret[s] = 0.0 if best[s] else top - v

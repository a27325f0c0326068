"""The triple card (modifier ``triple``, :mod:`solver.advice.triple`).

A triple game is three (``weights.shape[0]``) columns of the base card, each a single-card
state ``(mask, u, f)`` of the base rule set; a turn fills one open box of any column.  Game
``i`` is row ``i`` of one int32 array ``games`` (N, C * B + 4 C + 1): columns ``c * B + b`` the
box scores of column ``c`` (-1 while open), then per column ``c`` at ``C * B + 4 c``: the
filled mask, the upper total (not capped), the five-of-a-kind bonuses and the flag (a
five-of-a-kind row holds 50); the last column counts the dice drawn.  Dice come from the
seeded streams exactly as for single games (:func:`~.games.play_table_games`).

Value-array players (``TRIPLE_ALL``): one turn of lookahead over a base value array ``V`` (the
exact table: the ``triple`` player; the heuristic or all-zero arrays: the heuristic and greedy
players): every roll with no rolls left is worth

    R0(r) = max over open columns c, legal boxes b of  w_c * (objective(step(...)) - V[s_c])

(the sum of ``w_c V[s_c]`` over all columns, the same for every option, left out), then the
keeps as in the DP.  ``TRIPLE_FIRST`` (the floor) considers only the first open column: each
column in turn, played as the single-card optimum.  Ties within ``tol``: the keep with the
most dice, then the first column, then the first box.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..arrays import (
    MOVE_BOX,
    MOVE_FINAL,
    RANDOM_DOMAIN,
    TRIPLE_COLUMN_EXTRA,
    TRIPLE_FIRST,
    TRIPLE_FLAG,
    TRIPLE_LANES,
    TRIPLE_MASK,
    TRIPLE_RANDOM,
    TRIPLE_UPPER,
)
from .games import best_keep, fill_box, record_keep, record_roll
from .rules import NEG_INF, five_kind_bonus, legal_boxes, low_bit_index, placement_score, score_class
from .streams import mix64, reroll, stream_base, uniform
from .turn import final_values, successors, turn_from_final


@njit(cache=True, nogil=True)
def triple_games(mode, i0, i1, games, seed_mixed, game0, values, weights, kappa, tol, ra, moves):
    """Play whole triple games ``i0 .. i1`` (game ``game0 + i``) with ``mode`` (``TRIPLE_ALL``,
    ``TRIPLE_FIRST`` or ``TRIPLE_RANDOM``) over the base value array ``values``; see above.
    ``kappa`` (C,) scales each column's values to come (1: the values themselves).

    :data:`TRIPLE_LANES` games go side by side, turn by turn (every game has C * B turns):
    the successor rows of each column a box changed (:func:`successors`), the R0 rows of
    all of them in one pass (:func:`final_values`, the DP's) and the keep tables of all
    the games at once (:func:`turn_from_final`).  Each game's numbers are the ones it would
    get alone, whatever its neighbours, so results depend on no block or thread count.
    ``moves`` (n C B, N_MOVES) int16 or zero rows: row ``i C B + turn`` records game ``i``'s
    turn as :func:`play_keeps` does, the box as ``c B + b``."""
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
                    final_values(0, m, sel_mask, sel_f, ra, r0, succ, work)
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
                turn_from_final(e0, e1, ra)
            for j in range(nl):
                i = lo + j
                row_m = i * n_turns + turn
                # the rolls
                dj = 8 * turn
                held = reroll(base[j], drawn[j], 0, add_die, keep_size)
                drawn[j] += 5
                record_roll(moves, row_m, 2, held)
                for rolls_left in range(2, 0, -1):
                    r = held - roll_offset
                    if mode == TRIPLE_RANDOM:
                        keep = subkeeps[r, uniform(rbase[j], dj, n_subkeeps[r] - all_rolls)]
                        dj += 1
                    elif rolls_left == 2:
                        keep = best_keep(e1[:, j], r, tol, subkeeps, n_subkeeps)
                    else:
                        keep = best_keep(e0[:, j], r, tol, subkeeps, n_subkeeps)
                    record_keep(moves, row_m, rolls_left, keep)
                    if keep == held:
                        break
                    held = reroll(base[j], drawn[j], keep, add_die, keep_size)
                    drawn[j] += 5
                    record_roll(moves, row_m, rolls_left - 1, held)
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
                            cand, add = score_class(b, s, box_face[b], flag_rows[b] == 1, 6)
                            opt_w[n_legal] = weights[c] * (
                                add + col_succ[cand, c * width + j] + extra - vnow[c, j]
                            )
                            best = max(best, opt_w[n_legal])
                        n_legal += 1
                if mode == TRIPLE_RANDOM:
                    k = uniform(rbase[j], dj, n_legal)
                else:
                    k = 0
                    while opt_w[k] < best - tol:
                        k += 1
                c, b, s, extra = opt_c[k], opt_b[k], opt_s[k], opt_x[k]
                at = off + TRIPLE_COLUMN_EXTRA * c
                fill_box(games, i, c * nb + b, at, at + TRIPLE_FLAG, b, s, extra, box_face, five_kind)
                mask = np.int64(games[i, at + TRIPLE_MASK])
                if moves.shape[0] > 0:  # as record_box, the box numbered c * B + b
                    moves[row_m, MOVE_FINAL] = held
                    moves[row_m, MOVE_BOX] = c * nb + b
                fresh[c, j] = 0
                if mask == full:  # no longer considered
                    for rr in range(n_rolls):
                        rc[rr, c * width + j] = NEG_INF
        for j in range(nl):
            games[lo + j, dice_col] = drawn[j]

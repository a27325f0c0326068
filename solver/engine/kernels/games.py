"""Batch simulation: games played turn-synchronously, each call one turn of every game.

Game ``i`` (global index ``game0 + i``) is row ``i`` of one int32 array ``games`` (N, W), W >=
n_boxes + 5: columns ``0 .. B-1`` the box scores (-1 while open), then at ``B + COL_...``
(:mod:`solver.engine.arrays`) the filled mask, the upper total (not capped), the
five-of-a-kind bonuses, the dice drawn from its stream (:mod:`.streams`) and the flag (a
five-of-a-kind row holds 50).

Table bots (optimal, heuristic, greedy) decide from a value array ``V[mask, u, f]`` as the DP
does: per turn the games are grouped by ``mask`` (:func:`group_games`, a counting sort), the
distinct lanes ``(u, f)`` present in each group get their within-turn tables from
:func:`~.turn.turn_tables` (:func:`group_tables`, threads over masks), then every game plays
its turn from those tables (:func:`play_table_games`, threads over games).  Ties are broken
with a tolerance ``tol`` so that float noise cannot flip a decision: among keeps whose value
is within ``tol`` of the best, the **last** sub-keep of ``dice.SUBKEEPS`` (most dice kept);
among boxes within ``tol``, the **first** in card order -- the same choice as
``Advisor.advise(...)`` options flagged ``best``.

Simple bots (:func:`simple_games`; random and frequent) need no tables.  The random bot draws
its choices from a second stream per game, ``mix(mix(base[g] ^ RANDOM_DOMAIN) ^ j)`` with ``j
= 8 * turn + decision``, uniform over the distinct sub-keeps / legal boxes.

Every game writes only its own rows and its decisions depend only on its own stream, so
results are identical for any thread count, chunking or game order.  No fastmath.

Grading (exact regret, :mod:`.grading`): given a ``moves`` array (zero rows: nothing recorded)
the play kernels record each game's turn -- its rolls, keeps and box (``MOVE_ROLL1`` .. of
:mod:`solver.engine.arrays`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..arrays import (
    BOT_RANDOM,
    COL_BONUSES,
    COL_DICE,
    COL_FLAG,
    COL_MASK,
    COL_UPPER,
    MOVE_BOX,
    MOVE_FINAL,
    MOVE_KEEP1,
    MOVE_KEEP2,
    MOVE_ROLL1,
    MOVE_ROLL2,
    RANDOM_DOMAIN,
)
from .rules import NEG_INF, five_kind_bonus, legal_boxes, low_bit_index, placement_score, score_class, step
from .streams import mix64, reroll, stream_base, uniform
from .turn import BlockTables, lane_block_tables, turn_tables


@njit(cache=True, inline="always")
def fill_box(games, i, cell, at, flag_at, b, s, bonus, box_face, five_kind):
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
def apply_box(games, i, b, s, bonus, box_face, five_kind):
    """Put score ``s`` (and ``bonus``) of game ``i`` in box ``b``."""
    nb = box_face.shape[0]
    fill_box(games, i, b, nb, nb + COL_FLAG, b, s, bonus, box_face, five_kind)


# --- table bots (optimal, heuristic, greedy) ---------------------------------
@njit(cache=True, inline="always")
def box_worth(r, b, use_joker, succ, col, score, joker_score, box_face, flag_rows):
    """What roll ``r`` in legal box ``b`` is worth by the successor rows ``succ`` (column ``col``,
    :func:`successors`), the roll's five-of-a-kind bonus (the same in every box) aside."""
    s = placement_score(r, b, use_joker, score, joker_score)
    # the successor rows hold n_class rows a box (RuleArrays.n_class)
    cand, add = score_class(b, s, box_face[b], flag_rows[b] == 1, succ.shape[0] // box_face.shape[0])
    return add + succ[cand, col]


@njit(cache=True, inline="always")
def best_box_worth(r, bits, use_joker, succ, col, score, joker_score, box_face, flag_rows):
    """The most roll ``r`` is worth in any of the boxes ``bits`` (:func:`box_worth`)."""
    best = NEG_INF
    rest = bits
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        best = max(best, box_worth(r, b, use_joker, succ, col, score, joker_score, box_face, flag_rows))
    return best


@njit(cache=True, inline="always")
def best_keep(ev, r, tol, subkeeps, n_subkeeps):
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
def record_roll(moves, i, rolls_left, held):
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
def record_keep(moves, i, rolls_left, keep):
    """Row ``i`` of ``moves`` (none: zero rows) gets the keep made with ``rolls_left`` rolls left."""
    if moves.shape[0] > 0:
        moves[i, MOVE_KEEP1 if rolls_left == 2 else MOVE_KEEP2] = keep


@njit(cache=True, inline="always")
def record_box(moves, i, held, mask_before, mask_after):
    """Row ``i`` of ``moves`` (none: zero rows) gets the five dice scored and the box filled
    (the one bit of the mask that changed)."""
    if moves.shape[0] > 0:
        moves[i, MOVE_FINAL] = held
        moves[i, MOVE_BOX] = low_bit_index(mask_after ^ mask_before)


@njit(cache=True, inline="always")
def play_keeps(base, k, e0, e1, tol, add_die, keep_size, subkeeps, n_subkeeps, roll_offset, moves, i):
    """Roll the dice of a turn from die ``k`` of the stream ``base``, keeping the best sub-keep
    of each roll by ``e1`` (two rolls left) then ``e0`` (one); returns the final five-dice keep
    and the next die index.  Row ``i`` of ``moves`` (zero rows: none) records the rolls and keeps."""
    n_dice = keep_size[keep_size.shape[0] - 1]  # a roll draws n_dice dice of the stream
    held = reroll(base, k, 0, add_die, keep_size)
    k += n_dice
    record_roll(moves, i, 2, held)
    for rolls_left in range(2, 0, -1):
        if rolls_left == 2:
            keep = best_keep(e1, held - roll_offset, tol, subkeeps, n_subkeeps)
        else:
            keep = best_keep(e0, held - roll_offset, tol, subkeeps, n_subkeeps)
        record_keep(moves, i, rolls_left, keep)
        if keep == held:
            break
        held = reroll(base, k, keep, add_die, keep_size)
        k += n_dice
        record_roll(moves, i, rolls_left - 1, held)
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
def store_lane_tables(e0, e1, e0_all, e1_all, row0):
    """Lane ``j``'s keep tables (columns of ``e0``/``e1``, (462, nl)) into rows ``row0 + j`` of
    ``e0_all``/``e1_all`` (width, 462), where a game reads its lane's row."""
    for lane in range(e0.shape[1]):
        for kk in range(e0.shape[0]):
            e0_all[row0 + lane, kk] = e0[kk, lane]
            e1_all[row0 + lane, kk] = e1[kk, lane]


@njit(cache=True, nogil=True)
def group_tables(g0, g1, l0, group_mask, group_lane, lane_u, lane_f, values, ra, tables):
    """Within-turn tables of groups ``g0 .. g1`` (lanes from ``l0`` on are rows ``lane - l0``) into
    ``tables`` (:class:`~solver.engine.arrays.LaneTables`): ``e0``/``e1`` (width, 462) per lane,
    ``succ`` (6 n_boxes, width)."""
    e0_all, e1_all, succ_all = tables
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
        store_lane_tables(e0, e1, e0_all, e1_all, a - l0)


@njit(cache=True, inline="always")
def table_game_turn(i, e0, e1, succ, col, batch, tol, ra):
    """The turn of game ``i`` of ``batch`` from its lane's keep tables ``e0``/``e1`` (n_keeps,)
    and its successor rows, column ``col`` of ``succ``: the best keeps, then the best legal box
    (:func:`play_table_games`)."""
    games, ids, seed_mixed, game0, moves = batch
    add_die, keep_size, subkeeps, n_subkeeps = ra.add_die, ra.keep_size, ra.subkeeps, ra.n_subkeeps
    score, joker_score, box_face = ra.score, ra.joker_score, ra.box_face
    five_kind, flag_rows, roll_face = ra.five_kind, ra.flag_rows, ra.roll_face
    rows_mask, joker_mode, order, bonus = ra.rows_mask, ra.joker_mode, ra.order, ra.bonus
    nb = box_face.shape[0]
    roll_offset = add_die.shape[0] - score.shape[0]
    base = stream_base(seed_mixed, game0 + ids[i])
    held, k = play_keeps(
        base, np.int64(games[i, nb + COL_DICE]), e0, e1, tol,
        add_die, keep_size, subkeeps, n_subkeeps, roll_offset, moves, i,
    )  # fmt: skip
    games[i, nb + COL_DICE] = k
    r, mask = held - roll_offset, np.int64(games[i, nb + COL_MASK])
    bits, use_joker = legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order)
    best = best_box_worth(r, bits, use_joker, succ, col, score, joker_score, box_face, flag_rows)
    rest = bits
    while rest:
        b = low_bit_index(rest)
        rest &= rest - 1
        if box_worth(r, b, use_joker, succ, col, score, joker_score, box_face, flag_rows) >= best - tol:
            s = placement_score(r, b, use_joker, score, joker_score)
            extra = five_kind_bonus(mask, r, np.int64(games[i, nb + COL_FLAG]), roll_face, rows_mask, bonus)
            apply_box(games, i, b, s, extra, box_face, five_kind)
            record_box(moves, i, held, mask, mask | (1 << b))
            break


@njit(cache=True, nogil=True)
def play_table_games(j0, j1, l0, pos_lane, batch, tables, tol, ra):
    """Play the turn of sorted games ``j0 .. j1`` of ``batch`` (:class:`~solver.engine.arrays.
    GameBatch`: game ``j`` is game ``game0 + ids[j]``, its lane ``pos_lane[j]``) from the tables of
    :func:`group_tables` (rows from lane ``l0``): the best keeps from ``e1``/``e0``, then the best
    legal box; ``batch.moves`` (n, N_MOVES) int16 records each game's turn (zero rows: none)."""
    e0_all, e1_all, succ_all = tables
    for i in range(j0, j1):
        lane = pos_lane[i] - l0
        table_game_turn(i, e0_all[lane], e1_all[lane], succ_all, lane, batch, tol, ra)


@njit(cache=True, nogil=True)
def play_lane_blocks(i0, i1, block, lanes, values, batch, tol, ra):
    """Tables and play at once: lanes ``i0 .. i1`` of ``lanes`` (:class:`~solver.engine.arrays.
    LaneGames`, sorted by mask) get their within-turn tables ``block`` lanes at a time, several
    masks a block (:func:`~.turn.lane_block_tables`, as grading's
    :func:`~.grading.lane_turn_tables` makes them), and the games of those lanes play their turn from the block's
    columns at once (:func:`table_game_turn`) -- the tables are never stored, which for six dice
    (924 keeps, most games alone on their lane) is most of a turn's memory traffic."""
    lane_mask, lane_u, lane_f, lane_start, by_lane, pos_lane = lanes
    n_keeps = ra.add_die.shape[0]
    width = min(block, i1 - i0)
    x_buf = np.empty(n_keeps * width)
    y_buf = np.empty(n_keeps * width)
    succ = np.empty((ra.box_face.shape[0] * ra.n_class, width))
    work = np.empty((3, width))
    for lo in range(i0, i1, block):
        hi = min(lo + block, i1)
        nl = hi - lo
        x = x_buf[: n_keeps * nl].reshape((n_keeps, nl))  # C-contiguous: vectorises
        y = y_buf[: n_keeps * nl].reshape((n_keeps, nl))
        lane_block_tables(lo, hi, (lane_mask, lane_u, lane_f), values, ra, BlockTables(x, y, succ, work))
        for t in range(lane_start[lo], lane_start[hi]):
            i = by_lane[t]
            j = pos_lane[i] - lo
            table_game_turn(i, x[:, j], y[:, j], succ, j, batch, tol, ra)


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
    n_dice = keep_size[keep_size.shape[0] - 1]
    for i in range(i0, i1):
        base = stream_base(seed_mixed, game0 + i)
        rbase = mix64(base ^ np.uint64(RANDOM_DOMAIN))
        j = 8 * turn
        k = np.int64(games[i, nb + COL_DICE])
        held = reroll(base, k, 0, add_die, keep_size)
        k += n_dice
        record_roll(moves, i, 2, held)
        for rolls_left in range(2, 0, -1):
            r = held - roll_offset
            if kind == BOT_RANDOM:  # the last sub-keep is the roll itself (stop)
                keep = subkeeps[r, uniform(rbase, j, n_subkeeps[r] - all_rolls)]
                j += 1
            else:
                best_face = 0
                best_n = -1
                for face in range(keep_counts.shape[1]):
                    if keep_counts[held, face] >= best_n:
                        best_n = keep_counts[held, face]
                        best_face = face
                if all_rolls and best_n == n_dice:
                    best_n = n_dice - 1
                keep = 0
                for _ in range(best_n):
                    keep = add_die[keep, best_face]
            record_keep(moves, i, rolls_left, keep)
            if keep == held:
                break
            held = reroll(base, k, keep, add_die, keep_size)
            k += n_dice
            record_roll(moves, i, rolls_left - 1, held)
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
            for _ in range(uniform(rbase, j, n_legal)):
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
        apply_box(games, i, chosen, s, extra, box_face, five_kind)
        record_box(moves, i, held, mask, mask | (1 << chosen))

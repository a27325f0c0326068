"""A table bot's turns in numpy: the games of :func:`solver.engine.playout.run_games` with
nothing to compile.

A first simulation on a fresh install would otherwise spend about ten CPU seconds compiling
the kernels of :func:`~solver.engine.playout.table_turn` before its first game; for a few
thousand games that is most of the run.  Here the same turns are played with array
operations over all the games at once: the within-turn tables of every lane ``(mask, u, f)``
present (the twin of :func:`solver.engine.kernels.turn.turn_tables`, operation for operation:
the six ``E(K + face)`` summed in face order, then times ``ONE_SIXTH``; maxima are exact),
then each game's keeps and box by the kernels' tie rules (:func:`solver.engine.kernels.games.play_table_games`)
on the same dice streams.  So the games, scores and bonuses are bit for bit those of the
kernels (``tests/test_simulate.py`` plays both on every rule set); it is slower per game, so
:func:`solver.play.simulate.simulate` takes it for small runs only.

The rule arrays are :class:`~solver.engine.arrays.RuleArrays`; the game state is the kernels'
(``games`` (N, W) int32, see :mod:`solver.engine.arrays`).
"""

from __future__ import annotations

import numpy as np

from ..core.streams import mix64_array, stream_dice
from .arrays import COL_BONUSES, COL_DICE, COL_FLAG, COL_MASK, COL_UPPER, RuleArrays

NEG_INF = -np.inf
ONE_SIXTH = 1.0 / 6.0
LANE_CHUNK = 256  # lanes whose roll values are gathered at once ((lanes, 252, boxes) float64)


def allowed_bits(mask: np.ndarray, n_boxes: int, order: int) -> np.ndarray:
    """The open boxes the fill order allows on each card (twin of ``kernels.rules.allowed_bits``)."""
    open_bits = ~mask & ((1 << n_boxes) - 1)
    if order == 0:
        return open_bits
    low = open_bits & -open_bits
    high = np.zeros_like(open_bits)
    for b in range(n_boxes):
        high = np.where(open_bits >> b & 1, 1 << b, high)
    if order == 1:
        return low
    if order == 2:
        return high
    return np.where(mask == 0, low | high, np.where(mask & 1, low, high))


def score_class(ra: RuleArrays, b: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(row, add)`` of scores ``s`` in box ``b``: the successor row and the points added to it
    (twin of ``kernels.rules.score_class``)."""
    face = int(ra.box_face[b])
    if face > 0:
        return b * 6 + s // face, np.zeros(s.shape)
    if ra.flag_rows[b] == 1:
        return b * 6 + (s == 50), np.zeros(s.shape)
    return np.full(s.shape, b * 6), s.astype(np.float64)


def successors(ra: RuleArrays, values: np.ndarray, mask, u, f, allowed) -> np.ndarray:
    """(6 n_boxes, n): ``objective(step(...))`` of each allowed box and score class of the lanes
    ``(mask, u, f)`` (-inf for boxes not allowed; twin of ``kernels.turn.successors``)."""
    nb = ra.box_face.shape[0]
    thr, ub, cap = int(ra.upper_threshold), int(ra.upper_bonus), int(ra.upper_cap)
    succ = np.full((nb * 6, len(mask)), NEG_INF)
    for b in range(nb):
        on = np.flatnonzero(allowed >> b & 1)
        if not len(on):
            continue
        nxt, uu, ff = mask[on] | (1 << b), u[on], f[on]
        face = int(ra.box_face[b])
        flag_row = ra.flag_rows[b] == 1
        for c in range(6 if face > 0 else (2 if flag_row else 1)):
            s = c * face if face > 0 else 50 * c
            points, u2, f2 = np.full(len(on), s), uu, ff
            if face > 0:
                points = points + np.where((uu < thr) & (uu + s >= thr), ub, 0)
                u2 = np.minimum(uu + s, cap)
            if flag_row and s == 50:
                f2 = np.ones_like(ff)
            succ[b * 6 + c, on] = points + values[nxt, u2, f2]
    return succ


def legal_boxes(ra: RuleArrays, mask: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(bits, use_joker)`` of rolls ``r`` on cards ``mask`` (twin of ``kernels.rules.legal_boxes``)."""
    nb = ra.box_face.shape[0]
    allowed = allowed_bits(mask, nb, int(ra.order))
    face = ra.roll_face[r]
    rows = int(ra.rows_mask)
    joker = (face > 0) & (rows != 0) & (mask & rows == rows) & (int(ra.joker_mode) != 0)
    no = np.zeros(len(mask), dtype=bool)
    if not joker.any():
        return allowed, no
    face_bits = np.zeros_like(mask)
    lower = int(sum(1 << b for b in range(nb) if ra.box_face[b] == 0))
    for b in range(nb):
        face_bits |= np.where(ra.box_face[b] == face, 1 << b, 0)
    face_bits &= allowed
    lower_bits = allowed & lower
    if int(ra.joker_mode) == 2:
        return allowed, joker & (face_bits == 0)
    bits = np.where(face_bits != 0, face_bits, np.where(lower_bits != 0, lower_bits, allowed))
    return np.where(joker, bits, allowed), joker & (face_bits == 0) & (lower_bits != 0)


def five_kind_bonus(ra: RuleArrays, mask, r, flag) -> np.ndarray:
    """The bonus each roll ``r`` earns (twin of ``kernels.rules.five_kind_bonus``)."""
    rows, bonus = int(ra.rows_mask), int(ra.bonus)
    if rows == 0 or bonus <= 0:
        return np.zeros(len(mask), dtype=np.int64)
    return np.where((flag == 1) & (ra.roll_face[r] > 0) & (mask & rows == rows), bonus, 0)


def box_values(ra: RuleArrays, succ, lanes, mask, r) -> tuple[np.ndarray, np.ndarray]:
    """``(worth, scores)`` (n, n_boxes): what roll ``r[i]`` is worth in each box by the successor
    rows' column ``lanes[i]`` (-inf where it may not go; the roll's bonus aside) and what it
    scores there (twin of ``kernels.games.box_worth`` over the legal boxes)."""
    nb = ra.box_face.shape[0]
    bits, use_joker = legal_boxes(ra, mask, r)
    worth = np.full((len(r), nb), NEG_INF)
    scores = np.where(use_joker[:, None], ra.joker_score[r], ra.score[r])
    for b in range(nb):
        legal = np.flatnonzero(bits >> b & 1)
        row, add = score_class(ra, b, scores[legal, b])
        worth[legal, b] = add + succ[row, lanes[legal]]
    return worth, scores


def turn_tables(ra: RuleArrays, values, mask, u, f) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(e0, e1, succ)`` of lanes ``(mask, u, f)`` ((n,) int64 each): e0/e1 (462, n) and the
    successor rows (6 n_boxes, n) of :func:`solver.engine.kernels.turn.turn_tables`, bit for bit (the
    kernels' layout: a keep's row holds every lane, so the keep recursion reads whole rows)."""
    nb = ra.box_face.shape[0]
    n_rolls = ra.score.shape[0]
    n_keeps = ra.add_die.shape[0]
    roll_offset = n_keeps - n_rolls
    succ = successors(ra, values, mask, u, f, allowed_bits(mask, nb, int(ra.order)))
    e0 = np.empty((n_keeps, len(mask)))
    # an ordinary roll may go in any allowed box: the -inf rows of the others drop out of the max
    rows, add = np.empty((n_rolls, nb), dtype=np.int64), np.empty((n_rolls, nb))
    for b in range(nb):
        rows[:, b], add[:, b] = score_class(ra, b, ra.score[:, b])
    for a in range(0, len(mask), LANE_CHUNK):
        e0[roll_offset:, a : a + LANE_CHUNK] = (add[:, :, None] + succ[rows, a : a + LANE_CHUNK]).max(axis=1)
    rows_mask = int(ra.rows_mask)
    if rows_mask:  # five of a kinds on a card whose five-of-a-kind rows are filled: Joker, bonus
        full = np.flatnonzero(mask & rows_mask == rows_mask)
        for r in ra.five_rolls:
            rr = np.full(len(full), r)
            worth, _ = box_values(ra, succ, full, mask[full], rr)
            e0[roll_offset + r, full] = worth.max(axis=1)
            extra = five_kind_bonus(ra, mask[full], rr, f[full])
            bonus = extra > 0
            e0[roll_offset + r, full[bonus]] += extra[bonus]
    e1 = np.empty_like(e0)
    average_keeps(ra, e0)
    best_subkeep(ra, e0, e1)
    average_keeps(ra, e1)
    e1[roll_offset:] = e0[roll_offset:]
    if ra.all_rolls:
        e0[roll_offset:] = NEG_INF
        e1[roll_offset:] = NEG_INF
    return e0, e1, succ


def _levels(ra: RuleArrays) -> list[np.ndarray]:
    """The keeps of each size, 0 to 5 dice."""
    return [np.flatnonzero(ra.keep_size == s) for s in range(6)]


def average_keeps(ra: RuleArrays, x: np.ndarray) -> None:
    """In place, ``x`` (462, n): E(K) = mean over faces of E(K + face), a keep size at a time
    (twin of ``kernels.turn.average_keeps``: the faces summed in order, then times 1/6)."""
    add = ra.add_die
    for keeps in reversed(_levels(ra)[:5]):
        a = add[keeps]
        total = x[a[:, 0]] + x[a[:, 1]]
        for face in range(2, 6):
            total += x[a[:, face]]
        x[keeps] = total * ONE_SIXTH


def best_subkeep(ra: RuleArrays, x: np.ndarray, y: np.ndarray) -> None:
    """``y[:, K]`` = max over sub-multisets S of K of ``x[:, S]``, one die at a time (twin of
    ``kernels.turn.best_subkeep``; under ``all-rolls`` a roll's own value is left out)."""
    levels = _levels(ra)
    roll_offset = ra.drop_one.shape[0] - ra.score.shape[0]
    y[levels[0]] = x[levels[0]]
    for keeps in levels[1:]:
        drop = ra.drop_one[keeps]
        n = ra.n_drop[keeps]
        best = x[keeps]
        if ra.all_rolls:
            best[keeps >= roll_offset] = NEG_INF
        for i in range(drop.shape[1]):
            np.maximum(best, y[np.where(i < n, drop[:, i], drop[:, 0])], out=best)
        y[keeps] = best


def best_keep(ra: RuleArrays, table: np.ndarray, lanes, r: np.ndarray, tol: float) -> np.ndarray:
    """The keep of each roll ``r`` with the largest value in its lane's column of ``table``
    ((462, lanes)); ties within ``tol``: the last sub-keep (twin of ``kernels.games.best_keep``)."""
    sub = ra.subkeeps[r]
    valid = np.arange(sub.shape[1]) < ra.n_subkeeps[r][:, None]
    v = np.where(valid, table[np.maximum(sub, 0), lanes[:, None]], NEG_INF)
    near = valid & (v >= v.max(axis=1, keepdims=True) - tol)
    last = sub.shape[1] - 1 - np.argmax(near[:, ::-1], axis=1)
    return sub[np.arange(len(r)), last]


def roll(ra: RuleArrays, base, k, keep) -> np.ndarray:
    """Each keep plus the first ``5 - |keep|`` of dice ``k .. k + 4`` (twin of ``kernels.streams.reroll``)."""
    dice = stream_dice(base, k)
    n_new = 5 - ra.keep_size[keep]
    for i in range(5):
        keep = np.where(i < n_new, ra.add_die[keep, dice[:, i] - 1], keep)
    return keep


def table_turn(
    values: np.ndarray, games: np.ndarray, seed_mixed: np.uint64, game0: int, ra: RuleArrays, tol: float
) -> None:
    """One turn of every game of ``games`` (in place; game ``i`` is game ``game0 + i``) by the value
    table ``values`` (2**n_boxes, cap + 1, n_flags), as :func:`solver.engine.playout.table_turn`
    plays it: the same keeps, boxes and dice."""
    nb = ra.box_face.shape[0]
    cap, n_flags = values.shape[1] - 1, values.shape[2]
    roll_offset = ra.add_die.shape[0] - ra.score.shape[0]
    mask = games[:, nb + COL_MASK].astype(np.int64)
    u = np.minimum(games[:, nb + COL_UPPER].astype(np.int64), cap)
    flag = games[:, nb + COL_FLAG].astype(np.int64)
    f = flag if n_flags == 2 else np.zeros_like(flag)
    key, lanes = np.unique((mask * (cap + 1) + u) * n_flags + f, return_inverse=True)
    lanes = lanes.reshape(-1)
    e0, e1, succ = turn_tables(
        ra, values, key // n_flags // (cap + 1), key // n_flags % (cap + 1), key % n_flags
    )
    n = len(games)
    base = mix64_array(seed_mixed ^ (np.uint64(game0) + np.arange(n, dtype=np.uint64)))
    k = games[:, nb + COL_DICE].astype(np.int64)
    held = roll(ra, base, k, np.zeros(n, dtype=np.int64))
    k = k + 5
    rolling = np.arange(n)
    for table in (e1, e0):
        keep = best_keep(ra, table, lanes[rolling], held[rolling] - roll_offset, tol)
        again = keep != held[rolling]
        rolling, keep = rolling[again], keep[again]
        held[rolling] = roll(ra, base[rolling], k[rolling], keep)
        k[rolling] += 5
    games[:, nb + COL_DICE] = k
    r = held - roll_offset
    worth, scores = box_values(ra, succ, lanes, mask, r)
    near = worth >= worth.max(axis=1, keepdims=True) - tol
    b = np.argmax(near, axis=1)  # the first box in card order
    s = scores[np.arange(n), b]
    extra = five_kind_bonus(ra, mask, r, flag)
    rows = np.arange(n)
    games[rows, b] = s
    games[:, nb + COL_MASK] = mask | (1 << b)
    games[:, nb + COL_UPPER] += np.where(ra.box_face[b] > 0, s, 0).astype(games.dtype)
    games[:, nb + COL_BONUSES] += (extra > 0).astype(games.dtype)
    games[:, nb + COL_FLAG] = np.where((ra.five_kind[b] == 1) & (s == 50), 1, flag)

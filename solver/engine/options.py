"""The options of many positions in the kernels: each card state's turn tables, the keeps of
positions ranked from them, every box valued, and the options laid out flat -- the typed
drivers of :mod:`solver.engine.kernels.options` and the turn tables (batch advice,
:mod:`solver.advice.batch`; ``yahtzee export``, :mod:`solver.play.export`).

The callers allocate the outputs (shapes in each docstring); nothing here validates more than
the kernels need: the positions come from the advice layer, checked.
"""

from __future__ import annotations

import numpy as np

from . import arrays as A
from .dp import rule_arrays
from .playout import BLOCK_LANES


def lane_turn_tables(rules, values: np.ndarray, lane_mask, lane_u, lane_f, e0, e1) -> None:
    """The within-turn tables of the card states ``(lane_mask[j], lane_u[j], lane_f[j])`` ((n,)
    int64, sorted by mask) by the value table ``values`` (:func:`~solver.engine.dp.kernel_values`)
    into rows ``j`` of ``e0``/``e1`` ((n, 462) float64: each keep's value with one / two rolls
    left), many masks to a block of vectors (masks of a few states each: a bot's games)."""
    from . import kernels

    n = len(lane_mask)
    succ = np.empty((6 * rules.n_boxes, n))
    tables = A.LaneTables(e0, e1, succ)
    kernels.lane_turn_tables(
        0, n, BLOCK_LANES, 0, lane_mask, lane_u, lane_f, values, rule_arrays(rules), tables
    )


def mask_turn_tables(ra: A.RuleArrays, values: np.ndarray, mask: int, lane_u, lane_f, e) -> None:
    """The within-turn tables of the states ``(mask, lane_u[j], lane_f[j])`` of one mask ((n,)
    int64 each) by ``values`` and the rule arrays ``ra`` (:func:`~solver.engine.dp.rule_arrays`)
    into ``e`` ((2, 462, n) float64: ``e[0]`` each keep's value with one roll left, ``e[1]`` with
    two): one kernel call a mask (many states a mask)."""
    from . import kernels

    succ = np.empty((6 * ra.box_face.shape[0], len(lane_u)))
    kernels.turn_tables(mask, lane_u, lane_f, values, ra, e[0], e[1], succ, 0, _NO_TRACKING)


_NO_TRACKING = np.empty((0, 0), dtype=np.int64)  # turn_tables: no best box per roll wanted


def rank_keeps(e0, e1, lane, roll, rolls_left, raw_keeps, n_raw, rows, out_ev, out_keeps) -> None:
    """Rows ``rows[i]`` of ``out_ev`` ((m, 32) float64) and ``out_keeps`` ((m, 32) int16): the
    keeps of position ``i`` -- roll ``roll[i]`` (0..251), ``rolls_left[i]`` 1 or 2, its state's
    tables row ``lane[i]`` of ``e0``/``e1`` ((lanes, 462)) -- valued and ranked, the largest
    first (equal values in their order in ``raw_keeps`` ((252, 32)), ``n_raw[roll]`` of them;
    the padding ``-inf`` last)."""
    from . import kernels

    kernels.rank_keeps(e0, e1, lane, roll, rolls_left, raw_keeps, n_raw, rows, out_ev, out_keeps)


def best_keeps(e0, e1, lane, roll, rolls_left, raw_keeps, n_raw, tol: float) -> np.ndarray:
    """(n,) int64 each position's best keep (see :func:`rank_keeps`): among the keeps within
    ``tol`` of the best, the largest keep index (the most dice)."""
    from . import kernels

    out = np.empty(len(roll), dtype=np.int64)
    kernels.best_keeps(e0, e1, lane, roll, rolls_left, raw_keeps, n_raw, tol, out)
    return out


def placement_values(rules, values: np.ndarray, mask, u, f, roll):
    """``(ev, score, bonus)`` of positions ``i`` (state ``(mask[i], u[i], f[i])``, roll
    ``roll[i]``, no rolls left; (n,) int64 each): ``ev`` (n, n_boxes) float64 each legal box's
    points plus the value of the state it leads to plus the roll's bonus (-inf elsewhere),
    ``score`` (n, n_boxes) int64 its score (-1 elsewhere), ``bonus`` (n,) int64 the bonus."""
    from . import kernels

    n, nb = len(mask), rules.n_boxes
    ev = np.empty((n, nb))
    score = np.empty((n, nb), dtype=np.int64)
    bonus = np.empty(n, dtype=np.int64)
    kernels.placement_values(mask, u, f, roll, values, rule_arrays(rules), ev, score, bonus)
    return ev, score, bonus


def flat_options(
    rolls_left, row, base, keeps: A.KeepOptions, boxes: A.BoxOptions, faces: A.KeepFaces, tol: float, offsets
) -> A.FlatOptions:
    """The ranked options of positions laid out flat (:class:`~solver.engine.arrays.FlatOptions`,
    ``offsets[-1]`` options), best first within each: position ``i`` ((n,) each) takes row
    ``row[i]`` of ``keeps`` when ``rolls_left[i] > 0``, else of ``boxes``; ``base[i]`` the points
    on its card (for ``expected_final``); ``offsets`` (n + 1,) int64 where its options start;
    ``best`` marks the options within ``tol`` of the first."""
    from . import kernels

    total = int(offsets[-1])
    # small integers (keep and box indices, scores) in int16: a third of the memory traffic
    keep, box, score, bonus, stop_box, stop_score = (np.empty(total, dtype=np.int16) for _ in range(6))
    out = A.FlatOptions(
        ev=np.empty(total), keep=keep, box=box, score=score, bonus=bonus, expected_final=np.empty(total),
        regret=np.empty(total), best=np.empty(total, dtype=bool), stop_box=stop_box, stop_score=stop_score,
        face_offsets=np.empty(total + 1, dtype=np.int32), faces=np.empty(5 * total, dtype=np.int8),
    )  # fmt: skip
    kernels.flat_options(rolls_left, row, base, keeps, boxes, faces, tol, offsets, out)
    return out

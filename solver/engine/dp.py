"""The dynamic program over score-card states (Python layer over :mod:`solver.engine.kernels`).

:func:`solve` returns ``V``, a float64 array of shape ``(2**n_boxes, threshold + 1,
n_flags)``: ``V[mask, u, f]`` is the expected number of points still to come
under expected-score-optimal play from the start of a turn with the boxes in
``mask`` filled, upper total ``u`` (capped at the bonus threshold) and ``f`` = 1
when the Yahtzee box holds 50.  States that cannot occur (an upper total the
filled upper boxes cannot make, a flag on an open Yahtzee box, a card out of
order under forced order) are not computed and hold NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ..core import dice
from ..core.rules import RuleSet
from .arrays import RuleArrays


def upper_reachability(rules: RuleSet) -> np.ndarray:
    """(64, threshold + 1) bool: ``[bits, u]`` -- can the upper faces in ``bits`` total ``u``?

    ``bits`` has bit ``face - 1`` set for each filled upper box; totals are capped.
    """
    cap = rules.upper_cap
    reach = np.zeros((64, cap + 1), dtype=bool)
    for bits in range(64):
        totals = {0}
        for face in range(1, 7):
            if bits >> (face - 1) & 1:
                totals = {min(cap, t + c * face) for t in totals for c in range(rules.n_dice + 1)}
        reach[bits, sorted(totals)] = True
    return reach


def masks_by_level(rules: RuleSet) -> list[np.ndarray]:
    """Masks to solve, grouped by number of filled boxes, from n_boxes - 1 down to 0
    (under a fill order only the masks it can reach)."""
    n = rules.n_boxes
    if rules.forced_order:
        levels = []
        for k in range(n - 1, -1, -1):
            prefix, suffix = (1 << k) - 1, rules.full_mask ^ ((1 << (n - k)) - 1)
            found = sorted({m for m in (prefix, suffix) if rules.is_reachable_mask(m)})
            levels.append(np.array(found, dtype=np.int64))
        return levels
    all_masks = np.arange(1 << n, dtype=np.int64)
    popcount = np.zeros(1 << n, dtype=np.int64)
    for b in range(n):
        popcount += (all_masks >> b) & 1
    return [all_masks[popcount == k] for k in range(n - 1, -1, -1)]


@lru_cache(maxsize=64)
def rule_arrays(rules: RuleSet) -> RuleArrays:
    """The rule set and dice layer as the kernels' one argument (:class:`solver.engine.arrays.RuleArrays`)."""

    rules.require_single("the dynamic program")
    k = rules.kernel_arrays
    score = k["score"]
    n_pos = (score > 0).sum(axis=1).astype(np.int64)
    pos_boxes = np.zeros_like(score)
    for r in range(score.shape[0]):
        boxes = np.flatnonzero(score[r] > 0)
        pos_boxes[r, : len(boxes)] = boxes
    for b in rules.five_kind_rows:
        if rules.n_flags == 2 and set(score[:, b].tolist()) != {0, 50}:
            raise AssertionError(f"{rules.id}: the five-of-a-kind bonus assumes rows paying 50")
    i64 = np.int64
    d = rules.dice.arrays
    drop_one, n_drop = drop_arrays(rules.n_dice)
    return RuleArrays(
        add_die=d["ADD_DIE"],
        drop_one=drop_one,
        n_drop=n_drop,
        roll_prob=d["ROLL_PROB"],
        keep_size=d["KEEP_SIZE"],
        keep_counts=d["KEEP_COUNTS"],
        subkeeps=d["SUBKEEPS"],
        n_subkeeps=d["N_SUBKEEPS"],
        score=score,
        joker_score=k["joker_score"],
        pos_boxes=pos_boxes,
        n_pos=n_pos,
        box_face=k["box_face"],
        five_kind=k["five_kind"],
        flag_rows=k["five_kind"] * int(rules.n_flags == 2),
        roll_face=k["roll_face"],
        five_rolls=np.flatnonzero(k["roll_face"]).astype(np.int64),
        every_roll=np.arange(len(k["roll_face"]), dtype=np.int64),
        rows_mask=i64(k["rows_mask"]),
        bonus=i64(k["bonus"]),
        joker_mode=i64(k["joker_mode"]),
        order=i64(k["order"]),
        all_rolls=i64(k["all_rolls"]),
        upper_threshold=i64(k["upper_threshold"]),
        upper_bonus=i64(k["upper_bonus"]),
        upper_cap=i64(rules.upper_cap),
        n_dice=i64(rules.n_dice),
        n_class=i64(rules.n_dice + 1),
    )


@lru_cache(maxsize=4)
def drop_arrays(n_dice: int = dice.N_DICE) -> tuple[np.ndarray, np.ndarray]:
    """(n_keeps, n_dice) keep indices of ``K - face`` for each distinct face of ``K``, and how
    many ((462, 5) for five dice, (924, 6) for six); read-only."""
    d = dice.layer(n_dice)
    remove = d.arrays["REMOVE_DIE"]
    drop = np.zeros((d.n_keeps, n_dice), dtype=np.int64)
    count = np.zeros(d.n_keeps, dtype=np.int64)
    for k in range(d.n_keeps):
        subs = remove[k][remove[k] >= 0]
        drop[k, : len(subs)] = subs
        count[k] = len(subs)
    drop.setflags(write=False)
    count.setflags(write=False)
    return drop, count


DROP_ONE, N_DROP = drop_arrays(dice.N_DICE)
BLOCK_LANES = 128  # lanes per parallel block; 128-256 measured best (x and y: 462 x 128 doubles each)


def level_lanes(rules: RuleSet, masks: np.ndarray):
    """The states of ``masks`` the kernel must solve, and the ones that are copies.

    Returns ``(lane_mask, lane_u, lane_f)`` (int64 arrays sorted by mask) and
    ``(copy_mask, copy_u, copy_from_u)``.  An upper total from which the open upper
    boxes can no longer reach the bonus threshold is "hopeless": all hopeless totals
    of a mask have the same future (the bonus is out of reach, and the upper total
    matters for nothing else), so only the smallest is solved and the others copy
    it -- bit for bit the values the kernel would compute.
    """
    reach = upper_reachability(rules)
    thr = rules.upper_threshold if rules.has_upper_bonus else 0
    bits = np.zeros(len(masks), dtype=np.int64)
    still_possible = np.zeros(len(masks), dtype=np.int64)  # most the open upper boxes can add
    for b in rules.upper_indices:
        face = rules.boxes[b].face
        filled = (masks >> b) & 1
        bits |= filled << (face - 1)
        still_possible += (1 - filled) * rules.n_dice * face
    reachable = reach[bits]
    totals = np.arange(reach.shape[1])
    hopeless = reachable & (totals[None, :] + still_possible[:, None] < thr)
    representative = np.argmax(hopeless, axis=1)  # smallest hopeless total (if any)
    solve = reachable & ~hopeless
    rows = np.flatnonzero(hopeless.any(axis=1))
    solve[rows, representative[rows]] = True
    copy = hopeless.copy()
    copy[rows, representative[rows]] = False
    cm, cu = np.nonzero(copy)
    copies = (masks[cm], cu.astype(np.int64), representative[cm].astype(np.int64))
    ok = np.repeat(solve[:, :, None], rules.n_flags, axis=2)
    if rules.n_flags == 2:  # the flag needs a filled five-of-a-kind row
        ok[:, :, 1] &= (masks & rules.rows_mask != 0)[:, None]
    m, u, f = np.nonzero(ok)
    return (masks[m], u.astype(np.int64), f.astype(np.int64)), copies


def n_states(rules: RuleSet) -> int:
    """Number of reachable states the DP computes (the full card included)."""
    reach = upper_reachability(rules).sum(axis=1)
    total = 0
    for level in [np.array([rules.full_mask])] + masks_by_level(rules):
        for mask in level:
            bits = sum(1 << (rules.boxes[b].face - 1) for b in rules.upper_indices if mask >> b & 1)
            flags = 2 if rules.n_flags == 2 and mask & rules.rows_mask else 1
            total += int(reach[bits]) * flags
    return total


def kernel_values(values, dtype=np.float64) -> np.ndarray:
    """``values`` (a table's values, a memmap, any array) as the kernels read it: a read-only,
    C-contiguous ndarray of ``dtype`` (float64; a target table's float32) -- one array type,
    so every kernel is compiled once."""
    view = np.ascontiguousarray(np.asarray(values, dtype=dtype)).view(np.ndarray)
    view.flags.writeable = False
    return view


def load_kernels(rules: RuleSet) -> None:
    """Compile (first run) or load from numba's cache the DP kernel for ``rules``' argument types.

    Calls the kernel on an empty level, so a progress bar started afterwards measures
    the build alone.
    """
    from . import kernels

    empty = np.zeros(0, dtype=np.int64)
    values = np.zeros((1, rules.upper_cap + 1, rules.n_flags))
    kernels.solve_blocks(
        np.zeros(1, dtype=np.int64),
        0,
        0,
        empty,
        empty,
        empty,
        values,
        kernel_values(values),
        rule_arrays(rules),
    )


def solve(
    rules: RuleSet,
    progress: Callable[[int], None] | None = None,
    threads: int | None = None,
) -> np.ndarray:
    """Compute the full value table of ``rules`` (see the module docstring for the layout).

    ``progress(n)`` is called after each level with the number of masks done.
    ``threads`` sets the number of threads (default: all cores; the result does not
    depend on it).
    """
    from ..core.threads import Workers
    from . import kernels

    cap = rules.upper_cap
    values = np.full((1 << rules.n_boxes, cap + 1, rules.n_flags), np.nan, dtype=np.float64)
    values[rules.full_mask] = 0.0
    solved = kernel_values(values)

    def solve_level(masks: np.ndarray, args) -> None:
        (lane_mask, lane_u, lane_f), (copy_mask, copy_u, copy_from) = level_lanes(rules, masks)
        starts = np.append(np.arange(0, len(lane_mask), BLOCK_LANES), len(lane_mask)).astype(np.int64)

        def work(i0: int, i1: int) -> None:
            kernels.solve_blocks(starts, i0, i1, lane_mask, lane_u, lane_f, values, solved, args)

        workers.run(work, 0, len(starts) - 1)
        values[copy_mask, copy_u] = values[copy_mask, copy_from]

    with Workers(threads) as workers:
        args = rule_arrays(rules)
        for masks in masks_by_level(rules):
            if rules.order == "choose" and masks.tolist() == [0]:
                # the direction is chosen before the first roll: the better of the two
                solve_level(masks, rule_arrays(rules.directed("down")))
                down = values[0].copy()
                solve_level(masks, rule_arrays(rules.directed("up")))
                values[0] = np.fmax(down, values[0])
            else:
                solve_level(masks, args)
            if progress is not None:
                progress(len(masks))
    return values

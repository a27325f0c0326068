"""Six dice (Maxi Yatzy): the rest of a game from a position as a game of its own, for the exact
final-score distribution (:func:`solver.engine.distribution.score_distribution`).

Five dice push probability through every state of the card (``2**13`` cards x 64 upper totals x
2 flags, each with its row of points so far: it fits).  Six dice have ``2**20`` cards x 76
totals: from the empty card far too many (hundreds of GB of rows).  But from a position only the
cards above it can be reached, and what a turn scores and what the next state is worth depend on
the open boxes and the upper total only (no five-of-a-kind bonus, no Joker in Maxi Yatzy).  So
the open boxes make a smaller game (:func:`open_game`) whose value table is the full table's rows
of those cards (:func:`open_table`, read in place from the packed file) and whose optimal play is
the full game's, decision for decision, ties included.  Its memory is estimated before it starts
(:func:`open_game_bytes`); a position past :data:`SIX_DICE_MEMORY` is refused in one line naming
the estimate and from how many open boxes every position fits (:func:`check_fits`).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..core.card import ScoreCard
from ..core.dice import N_DICE
from ..core.rules import RuleSet

#: the most memory a six-dice distribution may take (its estimate, :func:`open_game_bytes`)
SIX_DICE_MEMORY = 2 << 30
#: a state's turn outcomes (box, score) per open box, for the estimate: at most 5 measured on
#: Maxi Yatzy's cards (a box's scores that optimal play takes are few of those it can)
OUTCOMES_PER_BOX = 8


def open_game(card: ScoreCard) -> tuple[RuleSet, tuple[int, int, int]]:
    """``(sub, start)``: the rest of the game from ``card`` as a game of its own -- the rule set
    ``sub`` of the open boxes alone (in card order; under ``order=choose`` with a box filled,
    the direction the card shows) and its state ``start`` (nothing filled; the card's upper
    total, 0 when no upper box is open).  What a turn scores and the next state's value depend
    on the open boxes and the upper total only (six dice: no five-of-a-kind bonus, no Joker),
    so ``sub``'s table is the full table's rows of the cards reachable from ``card``
    (:func:`open_table`) and its play the full game's, decision for decision."""
    from dataclasses import replace

    rules = card.rules
    mask, u, _ = card.state
    if rules.bonus or rules.joker != "none" or rules.n_flags != 1:
        raise ValueError(f"{rules.id}: a bonus or Joker rule ties the turns to the filled boxes")
    if mask == 0:
        return rules, card.state
    if rules.order == "choose":
        rules = rules.directed("down" if mask & (mask + 1) == 0 else "up")
    open_boxes = tuple(b for b in range(rules.n_boxes) if not mask >> b & 1)
    names = ",".join(rules.boxes[b].name for b in open_boxes)
    sub = replace(rules, id=f"{rules.id}@open={names}", boxes=tuple(rules.boxes[b] for b in open_boxes))
    return sub, (0, u if sub.has_upper_bonus else 0, 0)


def open_masks(card: ScoreCard, sub: RuleSet) -> np.ndarray:
    """(2**sub.n_boxes,) int64: the full card's mask of each mask of :func:`open_game`'s ``sub``."""
    rules = card.rules
    open_boxes = [b for b in range(rules.n_boxes) if not card.filled_mask >> b & 1]
    sub_masks = np.arange(1 << sub.n_boxes, dtype=np.int64)
    full = np.full(len(sub_masks), card.filled_mask, dtype=np.int64)
    for i, b in enumerate(open_boxes):
        full |= ((sub_masks >> i) & 1) << b
    return full


def open_table(card: ScoreCard, sub: RuleSet, values) -> np.ndarray:
    """(2**sub.n_boxes, sub.upper_cap + 1, 1) float64: ``sub``'s value table, the full table's
    (``values``: a packed table read in place, :class:`~solver.engine.packed.PackedValues`, or a
    dense array) on the cards reachable from ``card``."""
    from .packed import PackedValues

    full = open_masks(card, sub)
    if isinstance(values, PackedValues):
        rows = values.card_rows(full)
    else:
        rows = np.asarray(values)[full, :, 0].astype(np.float64)
    if not sub.has_upper_bonus:  # no upper box open: the card's own total, whatever it is
        rows = rows[:, card.state[1] : card.state[1] + 1]
    return np.ascontiguousarray(rows[:, :, None])


def open_game_bytes(card: ScoreCard) -> int:
    """An estimate, from above, of the memory (bytes) the distribution's pass from ``card`` (six
    dice) takes beyond the process itself (about 0.2 GB: Python, numba, the kernels) and the
    pages of the table's file it reads (shared, at most the file's 295 MB): the value table of
    the open boxes' game, its ``representative_upper`` and the arrays that make them (eight of
    eight bytes a state); at the turn that takes the most, its outcomes
    (:data:`OUTCOMES_PER_BOX` a state per open box; 160 bytes an outcome with its sorted copies)
    and the rows of probability by points so far before and after it (eight bytes a point;
    after ``j`` turns a row spans at most the ``j`` best boxes' most and the upper bonus).  The
    states are counted exactly (the upper totals reachable from the card's, the hopeless ones as
    one).  Measured on Maxi Yatzy's cards: 2.5 to 4 times what the pass takes (14 boxes open,
    the upper rows among them: 1.9 GiB estimated, 0.5 GiB taken; 15: 3.7 and 0.9; 16 with
    ones to fours filled: 1.0 and 0.23)."""
    sub, (_, u0, _) = open_game(card)
    k, cap = sub.n_boxes, sub.upper_cap
    table = 8 * 8 * (1 << k) * (cap + 1)
    faces = sorted(sub.boxes[b].face for b in sub.upper_indices)
    n_lower = k - len(faces)
    thr = sub.upper_threshold if sub.has_upper_bonus else 0
    # the states after j turns: per set of open upper boxes filled, its reachable upper totals
    per_level = [0] * (k + 1)
    for sub_bits in range(1 << len(faces)):
        totals = {u0}
        for i, face in enumerate(faces):
            if sub_bits >> i & 1:
                totals = {min(cap, t + c * face) for t in totals for c in range(sub.n_dice + 1)}
        still = sum(sub.n_dice * f for i, f in enumerate(faces) if not sub_bits >> i & 1)
        n_u = len([t for t in totals if t + still >= thr]) + any(t + still < thr for t in totals)
        n_upper = sub_bits.bit_count()
        for j in range(n_upper, n_upper + n_lower + 1):
            per_level[j] += math.comb(n_lower, j - n_upper) * n_u
    if sub.forced_order:  # one mask a level (two before the direction is chosen)
        per_level = [min(n, (2 if sub.order == "choose" else 1) * (cap + 1)) for n in per_level]
    # the open boxes' scores of every roll: the full card's (a reduced card's own would be made anew)
    scores = card.rules.kernel_arrays["score"][
        :, [b for b in range(card.rules.n_boxes) if not card.filled_mask >> b & 1]
    ]
    best = sorted((int(scores[:, b].max()) for b in range(k)), reverse=True)
    widest = 0
    for j in range(1, k + 1):
        outcomes = per_level[j - 1] * OUTCOMES_PER_BOX * (k - j + 1)
        span = [sum(best[:i]) + sub.upper_bonus + 1 for i in (j - 1, j)]
        cells = per_level[j - 1] * span[0] + per_level[j] * span[1]
        widest = max(widest, 160 * outcomes + 8 * cells)
    return table + widest


@lru_cache(maxsize=16)
def fitting_open_boxes(rules: RuleSet, limit: int = SIX_DICE_MEMORY) -> int:
    """The most open boxes from which every position of ``rules`` (six dice) fits in ``limit``
    bytes (:func:`open_game_bytes`), tried on the largest cards of each count: the highest
    upper rows open (most upper totals), the lower rows the card ends with, the filled upper
    rows at none, three or four of their face."""
    upper = [b for b in reversed(rules.upper_indices)]  # sixes first
    lower = [b for b in reversed(range(rules.n_boxes)) if b not in rules.upper_indices]
    best = 0
    for n_open in range(1, rules.n_boxes + 1):
        worst = 0
        for n_up in range(max(0, n_open - len(lower)), min(len(upper), n_open) + 1):
            open_boxes = set(upper[:n_up] + lower[: n_open - n_up])
            for times in (0, 3, 4):
                scores = {
                    b: (times * rules.boxes[b].face if b in rules.upper_indices else 0)
                    for b in range(rules.n_boxes)
                    if b not in open_boxes
                }
                card = ScoreCard.parse(
                    ",".join(f"{rules.box_names[b]}={s}" for b, s in scores.items()), rules
                )
                worst = max(worst, open_game_bytes(card))
        if worst > limit:
            break
        best = n_open
    return best


def check_fits(card: ScoreCard, limit: int = SIX_DICE_MEMORY) -> None:
    """A usage error (one line: the estimate, and from how many open boxes it fits) when the
    distribution from ``card`` (six dice) would take more than ``limit`` bytes; nothing for
    five dice (whose every position fits)."""
    from ..core.errors import UsageError

    rules = card.rules
    if rules.n_dice == N_DICE:
        return
    need = open_game_bytes(card)
    if need > limit:
        n_open = rules.n_boxes - card.n_filled
        raise UsageError(
            f"the {rules.id} distribution with {n_open} boxes open needs about {need / 2**30:.1f} GiB "
            f"of memory (at most {limit / 2**30:.0f} GiB): it is exact from positions with at most "
            f"{fitting_open_boxes(rules, limit)} boxes open"
        )

"""The card's rules over arrays of cards, in numpy: what :class:`~solver.core.card.ScoreCard`
says of one card, for many at once (:func:`card_totals`).  Not a kernel source: the kernels'
cache stamp (:mod:`solver.engine.kernels.cache`) does not read this module."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .arrays import RuleArrays

CardTotals = namedtuple("CardTotals", ["total", "upper", "reached"])
"""What :func:`card_totals` reads off cards: (N,) int64 ``total`` (the points, bonuses included),
``upper`` (the upper boxes' total, not capped), (N,) bool ``reached`` (the upper bonus is earned)."""


def card_totals(ra: RuleArrays, scores: np.ndarray, bonus_count) -> CardTotals:
    """The totals of many cards, as :class:`solver.core.card.ScoreCard` counts them one by one:
    ``scores`` (N, n_boxes) each box's score (negative: open; any int dtype), ``bonus_count``
    (N,) the five-of-a-kind bonuses earned; ``ra`` the rule set (:func:`solver.engine.dp.rule_arrays`:
    its upper boxes, bonus threshold -- out of reach without a bonus -- and the bonus points).
    The one rule for every array of cards: finished games, a batch's rows, hint positions, the
    triple card's columns (one call a column)."""
    filled = np.maximum(scores, 0)  # keeps the dtype: no (N, n_boxes) int64 copy
    upper = filled[:, ra.box_face > 0].sum(axis=1, dtype=np.int64)
    reached = upper >= int(ra.upper_threshold)
    total = filled.sum(axis=1, dtype=np.int64) + np.where(reached, int(ra.upper_bonus), 0)
    total += np.asarray(bonus_count).astype(np.int64) * int(ra.bonus)
    return CardTotals(total, upper, reached)

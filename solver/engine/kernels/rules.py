"""The rules as kernels: each the twin of the plain-Python rule in :mod:`solver.core.rules`
(tested against it on every mask, roll and flag).

* :func:`allowed_bits`    -- the open boxes the fill order allows (``RuleSet.allowed_bits``);
* :func:`legal_boxes`     -- where a roll may go: Joker policy within the allowed boxes;
* :func:`placement_score` -- what it scores there;
* :func:`five_kind_bonus` -- the bonus a five of a kind earns once every row is filled;
* :func:`step`            -- points (upper bonus credited) and the next ``(u, f)``
  (``RuleSet.step``): the one producer of "successor state and points";
* :func:`objective`       -- what the solver maximises of a step: today points plus the
  expected points still to come.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NEG_INF = -np.inf
ONE_SIXTH = 1.0 / 6.0


@njit(cache=True, inline="always")
def low_bit_index(bits):
    """Index of the lowest set bit of ``bits`` (0 < bits < 2**36): ``2**k mod 37`` is unique."""
    # fmt: off
    table = (
        -1, 0, 1, 26, 2, 23, 27, 32, 3, 16, 24, 30, 28, 11, 33, 13, 4, 7, 17, 35, 25, 22, 31, 15, 29,
        10, 12, 6, 34, 21, 14, 9, 5, 20, 8, 19, 18,
    )
    # fmt: on
    return table[(bits & -bits) % 37]


@njit(cache=True, inline="always")
def allowed_bits(mask, n_boxes, order):
    """Bits of the open boxes the fill order (``RuleArrays.order``) allows on a card with
    filled ``mask`` (``RuleSet.allowed_bits``)."""
    open_bits = ~mask & ((1 << n_boxes) - 1)
    if open_bits == 0 or order == 0:
        return open_bits
    low = open_bits & -open_bits
    high = low
    while high * 2 <= open_bits:
        high *= 2
    if order == 1:
        return low
    if order == 2:
        return high
    if mask == 0:  # choose: both directions are still open
        return low | high
    return low if mask & 1 else high


@njit(cache=True, inline="always")
def five_kind_bonus(mask, r, flag, roll_face, rows_mask, bonus):
    """The bonus roll ``r`` earns: a five of a kind once every five-of-a-kind row is filled
    and one holds 50 (``flag``)."""
    if flag == 1 and bonus > 0 and roll_face[r] > 0 and rows_mask != 0 and (mask & rows_mask) == rows_mask:
        return bonus
    return 0


@njit(cache=True, inline="always")
def legal_boxes(mask, r, box_face, roll_face, rows_mask, joker_mode, order):
    """Where roll ``r`` may go on a card with filled ``mask``: ``(bits, use_joker)``.

    ``bits`` has bit ``b`` set for each legal box; box ``b`` then scores
    :func:`placement_score`.  Same rules as :meth:`solver.core.rules.RuleSet.placements`.
    """
    allowed = allowed_bits(mask, box_face.shape[0], order)
    face_of_roll = roll_face[r]
    if joker_mode == 0 or face_of_roll == 0 or rows_mask == 0 or (mask & rows_mask) != rows_mask:
        return allowed, False
    face_bits = 0
    lower_bits = 0
    for b in range(box_face.shape[0]):
        face = box_face[b]
        if face == face_of_roll:
            face_bits |= 1 << b
        elif face == 0:
            lower_bits |= 1 << b
    face_bits &= allowed
    lower_bits &= allowed
    if joker_mode == 2:  # free: any box; fixed Joker scores once the face box is taken
        return allowed, face_bits == 0
    # forced: own upper box, else any lower box, else any upper box (scoring 0)
    if face_bits:
        return face_bits, False
    if lower_bits:
        return lower_bits, True
    return allowed, False


@njit(cache=True, inline="always")
def placement_score(r, b, use_joker, score, joker_score):
    """Score of roll ``r`` in box ``b`` (the Joker score when ``use_joker``)."""
    return joker_score[r, b] if use_joker else score[r, b]


@njit(cache=True, inline="always")
def step(u, f, s, face, flag_row, upper_threshold, upper_bonus, upper_cap):
    """``(points, next_u, next_f)`` of putting score ``s`` in a box from ``(u, f)``; the next
    mask has the box filled.  Twin of :meth:`solver.core.rules.RuleSet.step`.

    ``face``: the box's upper face (0: lower box); ``flag_row``: a 50 there sets the flag
    (``RuleArrays.flag_rows``).  ``points`` is ``s`` plus the upper bonus when this
    placement reaches it.
    """
    points = s
    if face > 0:
        if u < upper_threshold and u + s >= upper_threshold:
            points += upper_bonus
        u = min(u + s, upper_cap)
    if flag_row and s == 50:
        f = 1
    return points, u, f


@njit(cache=True, inline="always")
def objective(points, next_value):
    """What a placement is worth: its points plus the value of the state it leads to."""
    return points + next_value


@njit(cache=True, inline="always")
def score_class(b, s, face, flag_row, n_class):
    """Successor row of box ``b`` for score ``s`` and the points added per roll (see
    :func:`successors`); a box's rows are ``b * n_class ..`` (``RuleArrays.n_class``: one per
    number of dice showing an upper box's face, 0 .. n_dice)."""
    if face > 0:
        return b * n_class + s // face, 0.0
    if flag_row:
        return b * n_class + (1 if s == 50 else 0), 0.0
    return b * n_class, float(s)


@njit(cache=True, inline="always")
def roll_offset_of(drop_one):
    """The first roll's keep index in keep tables of ``drop_one``'s dice layer (``(n_keeps,
    n_dice)``): the keeps less the rolls, ``C(n_dice + 5, 5)`` multisets of ``n_dice`` faces
    (210 of 462 keeps for five dice, 462 of 924 for six)."""
    n = drop_one.shape[1]
    n_rolls = (n + 1) * (n + 2) * (n + 3) * (n + 4) * (n + 5) // 120
    return drop_one.shape[0] - n_rolls

"""The kernels' inputs as plain arrays, without numba: the rule set as one named tuple
(:class:`RuleArrays`, built by :func:`solver.engine.dp.rule_arrays`) and the columns of a game's
row in a batch of games.  :mod:`solver.engine._kernels` and :mod:`solver.engine.numpy_play`
both read them; importing this module compiles nothing.
"""

from __future__ import annotations

from collections import namedtuple

# A game's row in a batch (int32): its box scores (columns 0 .. B-1), then, at ``B + COL_...``:
COL_MASK = 0  # the filled boxes
COL_UPPER = 1  # the upper total (not capped)
COL_BONUSES = 2  # five-of-a-kind bonuses earned
COL_DICE = 3  # dice drawn from the game's stream
COL_FLAG = 4  # a five-of-a-kind row holds 50
STATE_EXTRA = 5  # columns after the box scores

RuleArrays = namedtuple(
    "RuleArrays",
    [
        # dice layer (solver.core.dice): keeps K, rolls r = keeps roll_offset .. 461
        "add_die",  # (462, 6) keep index of K + face, -1 for 5-dice keeps
        "drop_one",  # (462, 5) keep indices of K - face for the distinct faces of K
        "n_drop",  # (462,) how many of those
        "roll_prob",  # (252,) probability of each roll
        "keep_size",  # (462,) dice in a keep
        "keep_counts",  # (462, 6) dice of each face in a keep
        "subkeeps",  # (252, 32) distinct sub-multisets of each roll (-1 padded; the roll last)
        "n_subkeeps",  # (252,)
        # the rule set (RuleSet.kernel_arrays)
        "score",  # (252, B) ordinary score of roll r in box b
        "joker_score",  # (252, B) score of a five of a kind played as a Joker
        "pos_boxes",  # (252, B) boxes where roll r scores > 0 (first n_pos of them)
        "n_pos",  # (252,)
        "box_face",  # (B,) 1..6 for an upper box, 0 for a lower one
        "five_kind",  # (B,) 1 for a five-of-a-kind row
        "flag_rows",  # (B,) 1 for a row where a 50 sets the state's flag (five-of-a-kind rows, with a bonus)
        "roll_face",  # (252,) face of a five-of-a-kind roll, else 0
        "five_rolls",  # (6,) roll indices of the five-of-a-kind rolls
        "every_roll",  # (252,) 0 .. 251
        "rows_mask",  # bits of the five-of-a-kind rows (0: none)
        "bonus",  # points of a further five of a kind (0: no bonus, no flag)
        "joker_mode",  # 0 none, 1 forced, 2 free
        "order",  # 0 free, 1 down, 2 up, 3 choose (direction from the mask)
        "all_rolls",  # 1: a turn uses all three rolls
        "upper_threshold",  # points for the upper bonus (huge without a bonus)
        "upper_bonus",
        "upper_cap",  # largest upper total kept in a state (0 without a bonus)
    ],
)
"""The rule set and dice tables as the kernels' one argument (all arrays int64 but
``roll_prob``; all scalars int64).

Kernels read it by name once, at their top, and hand the arrays and numbers the rule
functions need to them as arguments: a named tuple passed on inside a loop costs
reference counting of each of its arrays on every call (measured: 100 times slower
than passing two arrays)."""

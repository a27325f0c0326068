"""The kernels' inputs as plain arrays, without numba: the rule set as one named tuple
(:class:`RuleArrays`, built by :func:`solver.engine.dp.rule_arrays`) and the columns of a game's
row in a batch of games, a recorded turn's columns and the kernels' other named numbers.
:mod:`solver.engine.kernels` and :mod:`solver.engine.numpy_play` both read them; importing
this module compiles nothing.
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

# A game's turn as recorded for grading (:func:`solver.engine.kernels.grade_games`), one int16 row
# ``moves[i]``: the five dice of each roll and each keep as keep indices (a roll's five dice are
# keep ``roll_offset + r``; a keep of all five = stop), -1 where the turn had no such step
MOVE_ROLL1 = 0  # the first roll
MOVE_KEEP1 = 1  # kept with two rolls left
MOVE_ROLL2 = 2  # the dice after the second roll (-1: stopped after the first)
MOVE_KEEP2 = 3  # kept with one roll left (-1: stopped after the first)
MOVE_FINAL = 4  # the five dice scored
MOVE_BOX = 5  # the box filled
N_MOVES = 6

N_ROLLS = 252  # multisets of five dice (asserted where the rule arrays are built)

# The simple bots of :func:`solver.engine.kernels.simple_games`
BOT_RANDOM = 0
BOT_FREQUENT = 1
RANDOM_DOMAIN = 0x52414E444F4D  # "RANDOM": the random bot's decision stream

# The triple card (:func:`solver.engine.kernels.triple_games`): the players' modes
TRIPLE_ALL = 0
TRIPLE_FIRST = 1
TRIPLE_RANDOM = 2
# per column ``c`` of a triple game, at ``C * B + TRIPLE_COLUMN_EXTRA * c + TRIPLE_...``:
TRIPLE_MASK = COL_MASK  # the column's filled boxes (the first three as a single game's: fill_box)
TRIPLE_UPPER = COL_UPPER  # its upper total (not capped)
TRIPLE_BONUSES = COL_BONUSES  # its five-of-a-kind bonuses
TRIPLE_FLAG = 3  # a five-of-a-kind row of it holds 50
TRIPLE_COLUMN_EXTRA = 4  # columns per column after all the box scores (the last column: dice drawn)
#: games played side by side by ``triple_games`` (the lanes of its keep tables, about 1.5 MB of
#: buffers): measured on the 2-core machine, 64 lanes a few per cent faster than 32 or 128
TRIPLE_LANES = 64

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

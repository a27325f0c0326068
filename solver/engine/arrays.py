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

N_ROLLS = 252  # multisets of five dice (asserted where the rule arrays are built); six dice: 462

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
        "n_dice",  # dice rolled: 5, or 6 (Maxi Yatzy: 924 keeps, 462 rolls)
        "n_class",  # score classes per box in the successor rows: n_dice + 1 (a box's rows b * n_class ..)
    ],
)
"""The rule set and dice tables as the kernels' one argument (all arrays int64 but
``roll_prob``; all scalars int64).

Kernels read it by name once, at their top, and hand the arrays and numbers the rule
functions need to them as arguments: a named tuple passed on inside a loop costs
reference counting of each of its arrays on every call (measured: 100 times slower
than passing two arrays)."""

# --- the kernels' other named inputs and outputs ---------------------------------------------
# Named tuples of arrays (numba types each by its fields): what belongs together travels as one
# argument, read by name at a kernel's top (never passed on to a helper inside a loop: see
# RuleArrays).

TargetArrays = namedtuple("TargetArrays", ["w", "off", "lead", "length"])
"""A target table as the kernels read it (:class:`solver.engine.target.TargetValues`): ``W(state,
t) = 1`` for ``t <= lead[state]``, ``w[off[state] + t - 1]`` up to ``length[state]``, 0 beyond;
``w`` (n,) float32 (a table) or float64 (while the DP runs), the others int64
``(2**n_boxes, upper_cap + 1, n_flags)``."""

States = namedtuple("States", ["mask", "u", "f"])
"""Card states ``(mask[i], u[i], f[i])``, (n,) int64 each (``u`` capped, ``f`` 0 without a flag)."""

LaneTables = namedtuple("LaneTables", ["e0", "e1", "succ"])
"""Each lane's within-turn tables (rows ``lane - l0``): ``e0``/``e1`` (width, 462) float64 each
keep's value with one / two rolls left (:func:`solver.engine.kernels.turn_tables`), ``succ``
(6 n_boxes, width) the successor rows (a column a lane)."""

LaneGames = namedtuple("LaneGames", ["mask", "u", "f", "start", "by_lane", "pos_lane"])
"""Lanes and the games on them (:func:`solver.engine.kernels.play_lane_blocks`): each lane's
``mask``, ``u``, ``f`` (int64, sorted by mask), the games of lane ``l`` being
``by_lane[start[l] : start[l + 1]]`` (indices into the batch's games), ``pos_lane`` each game's
lane."""

WinTables = namedtuple("WinTables", ["e0", "e1", "boxes"])
""":class:`LaneTables` of win play: ``boxes`` (width, 252) int8 the box each lane scores each
roll in (zero rows: not wanted)."""

GameBatch = namedtuple("GameBatch", ["games", "ids", "seed_mixed", "game0", "moves"])
"""Games played a turn at a time: ``games`` (n, W) int32 their rows (box scores, then the
``COL_...`` columns), game ``j`` being game ``game0 + ids[j]`` (int64) of the seed's streams
(``seed_mixed`` uint64: ``mix64(seed)``); ``moves`` (n, N_MOVES) int16 records each game's turn
(zero rows: none)."""

Recorded = namedtuple("Recorded", ["pos_lane", "masks", "moves"])
"""Recorded turns sorted by lane, to grade: ``pos_lane`` (n,) int64 each turn's lane, ``masks``
(n,) int64 the filled boxes before it, ``moves`` (n, N_MOVES) int16 the turn (``MOVE_...``)."""

Opponents = namedtuple("Opponents", ["need", "q0", "qn", "q", "tie"])
"""What each lane of win play plays against: the best opponent final ``b0 + j`` with probability
``q[q0[i] + j]``, ``j < qn[i]`` (``q`` float32, the opponent model's rows), ``need[i] = b0 -
total`` (int64 each); a tie counts ``tie`` (a float, a half)."""

PackedRows = namedtuple("PackedRows", ["values", "off", "lo", "n"])
"""Rows of probability by points, packed: row ``i`` holds points ``lo[i] .. lo[i] + n[i] - 1`` at
``values[off[i] ..]`` (``solver.engine.distribution._Rows``); int64 but ``values`` float64."""

SplitRows = namedtuple("SplitRows", ["t", "e", "e_row"])
"""Rows split at ``tw`` points (target play): ``t`` (rows, tw) the points below, ``e`` the
points from ``tw`` on, row ``e_row[i]`` of it for row ``i`` (-1: none)."""

Runs = namedtuple("Runs", ["block", "state", "t0", "n", "out"])
"""Runs of target play: run ``q`` is state ``state[q]`` with the needs ``t0[q] .. t0[q] + n[q] -
1``, its probabilities from ``out[q]``; block ``b`` the runs ``block[b] .. block[b + 1]``."""

RunOutcomes = namedtuple("RunOutcomes", ["probs", "dst", "gain", "cand"])
"""What the runs' turns lead to (:func:`solver.engine.kernels.target_turn_runs`): per run ``q``
``cand[q]`` candidates ``c``, their next state (or row) ``dst[q * cmax + c]`` and points
``gain[q * cmax + c]``, the probability of lane ``j`` ``probs[out[q] + c * n[q] + j]``."""

KeepOptions = namedtuple("KeepOptions", ["ev", "keep", "n", "stop_box", "stop_score"])
"""Ranked keeps of positions, a row each: ``ev`` (k, 32) float64 best first, ``keep`` the keep
indices, ``n`` (k,) how many, ``stop_box``/``stop_score`` (k,) what keeping all five implies
(-1: none)."""

BoxOptions = namedtuple("BoxOptions", ["ev", "box", "score", "n", "bonus"])
"""Ranked boxes of positions, a row each: ``ev`` (p, n_boxes) float64 best first, ``box``,
``score``, ``n`` (p,) how many, ``bonus`` (p,) the roll's five-of-a-kind bonus."""

KeepFaces = namedtuple("KeepFaces", ["size", "start", "faces"])
"""Each keep's faces: ``faces[start[k] : start[k] + size[k]]`` (int8) of keep ``k``."""

FlatOptions = namedtuple(
    "FlatOptions",
    ["ev", "keep", "box", "score", "bonus", "expected_final", "regret", "best", "stop_box", "stop_score",
     "face_offsets", "faces"],
)  # fmt: skip
"""Options laid out flat (:func:`solver.engine.kernels.flat_options`), per option: ``ev``,
``expected_final``, ``regret`` float64, ``best`` bool, ``keep``, ``box``, ``score``, ``bonus``,
``stop_box``, ``stop_score`` int16; ``face_offsets`` (options + 1,) int32 into ``faces`` (int8)."""

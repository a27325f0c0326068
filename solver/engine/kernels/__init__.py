r"""The numba kernels of the engine, one module per subsystem (only :mod:`solver.engine`
imports them; the Python layer validates and allocates, the layers above call its drivers):

* :mod:`.rules`    -- the rules as kernels, each the twin of one in :mod:`solver.core.rules`;
* :mod:`.turn`     -- one turn for a vector of states: R0, the keep and reroll stages;
* :mod:`.dp`       -- the value table's dynamic program;
* :mod:`.streams`  -- the seeded dice streams;
* :mod:`.games`    -- whole batches of games (table bots, simple bots);
* :mod:`.grading`  -- each recorded decision's loss against a table;
* :mod:`.options`  -- batch advice: every option of many positions, ranked;
* :mod:`.target`   -- play for a target score: its DP and its games;
* :mod:`.outcomes`, :mod:`.target_outcomes` -- the distribution of the final score;
* :mod:`.triple`   -- the triple card's games;
* :mod:`.win`, :mod:`.simd` -- play to win against a distribution of opponent finals.

Every kernel takes the rule set as one named tuple :class:`~solver.engine.arrays.RuleArrays`
(built by ``dp.rule_arrays``) and reads it by name, ``ra.score``, once at its top; the rule
functions of :mod:`.rules` take the arrays and numbers they read.

State between turns: ``(mask, u, f)`` -- ``mask`` the filled boxes (bit ``i`` = box
``i`` in card order), ``u`` the upper total capped at the bonus threshold (always 0
without an upper bonus), ``f`` whether a five-of-a-kind row holds 50 (only where a
five-of-a-kind bonus exists).  ``V[mask, u, f]`` is the expected number of points still
to come under optimal play; an upper bonus is counted on the turn it is reached.

One turn, for a fixed state, over keeps ``K`` (multisets of 0..5 dice) and rolls
``r`` (multisets of 5 dice)::

    R0(r)  = max over legal boxes b of  objective(step(state, b, score(r, b))) + bonus(r)
    E_k(K) = R_k(K)                                    if |K| = 5
           = 1/6 * sum_{face} E_k(K + face)            otherwise
    R_{k+1}(r) = max over sub-multisets S of r of E_k(S)    (keep S, reroll the rest;
                                                             S = r means stop, which
                                                             ``all-rolls`` forbids)
    V[state] = sum_r P(r) R2(r)

The max over sub-multisets is built one die at a time,
``B(K) = max(E(K), max_{face in K} B(K - face))``: 1,260 additions and 1,260
maxima per stage and state.

Lanes.  The dice work is the same for every state; only ``R0`` depends on it.
So the kernels hold one value per keep for a whole vector of states ("lanes"):
``x[k, j]`` is keep ``k`` for lane ``j``.  A level (all masks with the same number of
filled boxes) is flattened into its reachable ``(mask, u, f)`` lanes, sorted by mask,
and cut into fixed-size blocks; a block may hold several masks (``R0`` is done per run
of equal masks) so that even masks with one or two reachable states fill whole
vectors.  Blocks are independent and run in threads (GIL-free kernels, see
:mod:`solver.core.threads`); each lane sees the same
operations in the same order whatever the block size or thread count, so tables are
bit-identical.  No fastmath.

Successor rows.  :func:`~.turn.successors` evaluates, per lane, ``objective(step(...))`` once
per allowed box and *score class* (:func:`~.rules.score_class`): an upper box has one class per
number of dice of its face, a five-of-a-kind row (where the flag matters) one for 0 and
one for 50, any other box one class whose points are added per roll (its next state
does not depend on the score).  ``R0`` of an ordinary roll -- one that may go in any
allowed box -- is then the best over the class-0 rows (the same for every roll) and the
boxes where the roll scores more than 0; five-of-a-kind rolls with every row filled
(Joker placement, bonus) take the exact path through :func:`~.rules.legal_boxes`.
"""

from __future__ import annotations

import os
import sys

# LLVM -O1: measured on these kernels, compiling takes about a third less time than at
# numba's default -O3 and the kernels run as fast (a first run is mostly compilation).
# A user's own NUMBA_OPT wins.  Set before the first kernel module imports numba.
if "NUMBA_OPT" not in os.environ:
    os.environ["NUMBA_OPT"] = "1"
    if "numba" in sys.modules:  # numba read its configuration already
        import numba

        numba.config.reload_config()

# numba's cache keyed by all the kernels' sources, not each kernel's own file (a kernel inlines
# others): installed before the first kernel is defined
from . import cache  # noqa: E402

cache.install()
# the portable x86-64 level where the host runs it (the shipped kernels' target: then a fresh
# install loads them instead of compiling), and the shipped kernels into the user's cache
cache.choose_target()
cache.seed()

from .. import compiling  # noqa: E402

compiling.install()  # a bar while a kernel compiles (when the command line enables it)

from .dp import solve_blocks  # noqa: E402
from .games import group_games, group_tables, play_lane_blocks, play_table_games, simple_games  # noqa: E402
from .grading import grade_games, lane_turn_tables  # noqa: E402
from .options import best_keeps, flat_options, placement_values, rank_keeps  # noqa: E402
from .outcomes import apply_outcomes, group_by_row, residual_rows, trim_tails, turn_outcomes  # noqa: E402
from .streams import stream_dice  # noqa: E402
from .target import (  # noqa: E402
    pack_rows,
    play_target_games,
    points_to_come,
    solve_target_blocks,
    target_group_tables,
    target_objective,
    target_turn_tables,
    trim_rows,
)
from .target_outcomes import apply_split_rows, apply_target_runs, target_turn_runs  # noqa: E402
from .triple import triple_games  # noqa: E402
from .turn import turn_tables  # noqa: E402
from .win import (  # noqa: E402
    grade_win_games,
    mixed_start_values,
    mixed_win_group_tables,
    mixed_win_value,
    play_mixed_win_games,
    tie_mix,
    turn_start_values,
    win_chance_left,
)

__all__ = [
    "apply_outcomes",
    "apply_split_rows",
    "apply_target_runs",
    "best_keeps",
    "flat_options",
    "grade_games",
    "grade_win_games",
    "group_by_row",
    "group_games",
    "group_tables",
    "lane_turn_tables",
    "mixed_start_values",
    "mixed_win_group_tables",
    "mixed_win_value",
    "pack_rows",
    "placement_values",
    "play_mixed_win_games",
    "play_lane_blocks",
    "play_table_games",
    "play_target_games",
    "points_to_come",
    "rank_keeps",
    "residual_rows",
    "simple_games",
    "solve_blocks",
    "solve_target_blocks",
    "stream_dice",
    "target_group_tables",
    "target_objective",
    "target_turn_runs",
    "target_turn_tables",
    "tie_mix",
    "trim_rows",
    "trim_tails",
    "triple_games",
    "turn_outcomes",
    "turn_start_values",
    "turn_tables",
    "win_chance_left",
]

"""Whole games in the kernels: every game of a batch plays turn by turn, in parallel.

Dice come from the seeded stream of :mod:`solver.core.streams`; a game's scores depend only on
``(rules, player, seed, game index)``, never on the threads or the chunking.  The players
here are arrays (a value table, a target table) or the kernels' simple rules; the bots of
:mod:`solver.play.bots` map onto them (:mod:`solver.play.simulate`).
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from ..core import dice as D
from ..core.rules import RuleSet
from ..core.streams import MASK64, mix64
from ..core.threads import Workers
from . import arrays as A
from .card_arrays import card_totals
from .turn import TIE_TOLERANCE

MAX_GAMES = 100_000_000  # games of one simulation (results are kept per game)
STATE_WIDTH = 24  # int32 columns of a game's state (box scores, then arrays.STATE_EXTRA)
LANE_BUDGET = 8192  # lanes whose within-turn tables are held at once (7.4 KB each)
BLOCK_LANES = 128  # lanes a grading table fill packs into one block of vectors (as the DP's blocks)
#: lanes of six dice a turn's play packs into one block (:func:`solver.engine.kernels.play_lane_blocks`):
#: its two keep tables (924 rows each) stay in a core's 1 MiB L2 cache
PLAY_BLOCK_LANES = 32


def kernels_loaded() -> bool:
    """Whether this process holds the table bots' play kernels already (compiled or loaded from
    numba's cache by an earlier run): then they are the faster engine at any size."""
    kernels = sys.modules.get(f"{__package__}.kernels")
    return kernels is not None and bool(kernels.play_table_games.signatures)


def finish_games(
    rules: RuleSet, scores: np.ndarray, nbonus: np.ndarray, ids: np.ndarray | None = None
) -> dict:
    """Totals and rates of finished cards: ``scores`` (N, n_boxes) all filled, row ``j`` being
    game ``ids[j]`` (game ``j`` when ``ids`` is None); the results are in game order."""
    from .dp import rule_arrays

    nbonus = nbonus.astype(np.int64)
    total, _, reached = card_totals(rule_arrays(rules), scores, nbonus)
    rows = list(rules.five_kind_rows)
    yahtzee = (scores[:, rows] == 50).any(axis=1) if rows else np.zeros(len(scores), dtype=bool)
    out = {"scores": total, "upper_bonus": reached, "yahtzee": yahtzee, "yahtzee_bonuses": nbonus}
    if ids is not None:
        for key, value in out.items():
            ordered = np.empty_like(value)
            ordered[ids] = value
            out[key] = ordered
    out["box_sums"] = scores.sum(axis=0, dtype=np.int64).astype(np.float64)
    return out


def result_arrays(games: int, n_boxes: int, keep_cards: bool) -> dict:
    """The per-game result arrays, allocated before any game is played (about 18 bytes a game,
    plus the cards with ``keep_cards``): a simulation too large for the memory fails at once."""
    return {
        "scores": np.empty(games, dtype=np.int64),
        "upper_bonus": np.empty(games, dtype=bool),
        "yahtzee": np.empty(games, dtype=bool),
        "yahtzee_bonuses": np.empty(games, dtype=np.int64),
        "box_sums": np.zeros(n_boxes),
        "cards": np.empty((games, n_boxes), dtype=np.int16) if keep_cards else None,
    }


def store_results(out: dict, start: int, part: dict) -> None:
    """Copy the results of games ``start ..`` (a :func:`finish_games` dict) into ``out``."""
    for key in ("scores", "upper_bonus", "yahtzee", "yahtzee_bonuses"):
        out[key][start : start + len(part[key])] = part[key]
    out["box_sums"] += part["box_sums"]


def lane_groups(rest: np.ndarray, n_flags: int, cap: int, pos_lane: np.ndarray):
    """``(lane_u, lane_f, group_lane, group_mask, game_start)`` of sorted lane keys whose state part
    ``rest = (mask * (cap + 1) + u) * n_flags + f`` is what is left of them: each lane's upper
    total and flag, the lanes grouped by mask (``group_lane[g]`` the first lane of group ``g``,
    ``group_mask[g]`` its mask) and the first game of each group (``pos_lane``: each game's
    lane, sorted)."""
    lane_f = (rest % n_flags).astype(np.int64)
    lane_u = (rest // n_flags % (cap + 1)).astype(np.int64)
    lane_mask = rest // n_flags // (cap + 1)
    starts = np.flatnonzero(np.diff(lane_mask)) + 1
    group_lane = np.concatenate(([0], starts, [len(rest)])).astype(np.int64)
    group_mask = lane_mask[group_lane[:-1]].astype(np.int64)
    return lane_u, lane_f, group_lane, group_mask, np.searchsorted(pos_lane, group_lane)


def lane_batches(group_lane: np.ndarray) -> tuple[int, list[tuple[int, int, int]]]:
    """``(width, batches)``: batches ``(g0, g1, l0)`` of consecutive groups whose lanes fit in
    ``width`` rows of decision tables (at most :data:`LANE_BUDGET`, or one group's lanes if
    more); ``l0`` is the first lane of the batch."""
    n_groups = len(group_lane) - 1
    width = max(min(LANE_BUDGET, int(group_lane[-1])), int(np.diff(group_lane).max(initial=0)))
    batches, g0 = [], 0
    while g0 < n_groups:
        g1 = max(g0 + 1, int(np.searchsorted(group_lane, group_lane[g0] + width, side="right")) - 1)
        g1 = min(g1, n_groups)
        batches.append((g0, g1, int(group_lane[g0])))
        g0 = g1
    return width, batches


def lane_tables(
    width: int, nb: int, n_keeps: int = D.N_KEEPS, n_class: int = 6
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Room for the within-turn tables of ``width`` lanes (:func:`solver.engine.kernels.group_tables`):
    ``e0``, ``e1`` (width, n_keeps: 462 keeps of five dice, 924 of six) and the successor rows
    (n_class nb, width; ``RuleArrays.n_class``, 6 for five dice)."""
    return np.empty((width, n_keeps)), np.empty((width, n_keeps)), np.empty((n_class * nb, width))


def sort_by_lane(key: np.ndarray, mask: np.ndarray, moves: np.ndarray):
    """Recorded turns sorted by lane: ``(lanes, pos_lane, order, masks, rows)`` -- the distinct
    ``key`` values sorted, each sorted turn's lane, the order that sorts the turns (stable), and
    their masks (int64) and ``moves`` rows in that order."""
    lanes, pos_lane = np.unique(key, return_inverse=True)
    pos_lane = pos_lane.reshape(-1)
    order = np.argsort(pos_lane, kind="stable")
    masks = np.ascontiguousarray(mask[order], dtype=np.int64)
    return lanes, pos_lane[order].astype(np.int64), order, masks, np.ascontiguousarray(moves[order])


class Grader:
    """Grades recorded turns: each decision's loss against the value table ``values`` (read as
    :func:`~solver.engine.dp.kernel_values` reads it), in the kernels, ``workers`` in threads.

    A turn's record is a row of ``moves`` (``arrays.MOVE_ROLL1`` ..: the rolls, the keeps,
    the box) and the card's state ``(mask, u, f)`` before it; its grade a row of ``graded``
    (6): the losses -- the best keep's value minus the kept one's with two rolls left, the same
    with one roll left (0 when the turn stopped before), the best box's value minus the chosen
    one's; all in expected points, what the table says the decision cost -- then the luck of
    the three rolls (the first roll's value minus the state's, then each roll's value minus
    the keep's it came from; see :func:`solver.engine.kernels.grade_games`).  Under
    ``order=choose`` the direction is a decision too: a table bot takes it before the first
    roll (its first turn is graded in that direction, which costs :meth:`direction_loss`);
    any other bot shows it by its first box, so its first turn is graded with both ends open.

    The turn functions (:func:`table_turn`, :func:`target_turn`) leave the last turn's
    ``moves`` and ``graded`` here, row ``j`` the ``j``-th game of the turn's output order;
    with ``values`` None they only record the moves (``graded`` None): what a match grades
    by another objective (:class:`WinGrader`).
    """

    def __init__(self, workers, rules: RuleSet, values: np.ndarray | None):
        from .dp import rule_arrays

        self.workers, self.rules, self.values = workers, rules, values
        self.ra = rule_arrays(rules)
        self.moves: np.ndarray | None = None
        self.graded: np.ndarray | None = None
        self._worth: dict[str | None, float] | None = None

    def new_moves(self, n: int) -> np.ndarray:
        return np.empty((n, A.N_MOVES), dtype=np.int16)

    def direction_loss(self, direction: str | None) -> float:
        """Under ``order=choose``: what playing ``direction`` costs against the best one (points);
        ``None``: the direction shown by the first box, chosen once the first turn's dice are
        seen -- worth more than either, so its "loss" is a gain (negative)."""
        if self._worth is None:
            from .turn import TurnValues, direction_values

            self._worth = direction_values(self.rules, self.values)
            self._worth[None] = TurnValues(self.rules, (0, 0, 0), self.values).value
        return max(self._worth["down"], self._worth["up"]) - self._worth[direction]

    def grade(self, mask, u, f, moves) -> tuple[np.ndarray, np.ndarray | None]:
        """``(graded, direction)`` of recorded turns from states ``(mask, u, f)`` ((n,) int64 each,
        ``u`` capped): ``graded`` (n, 6) as above; ``direction`` (n,) under ``order=choose``, else
        None: 0 but for the turns from the empty card, graded with both ends of the card open
        (a bot may show its direction by its first box, after the dice), which take
        ``direction_loss(None)``."""
        graded = self.grade_rows(self.ra, mask, u, f, moves)
        if self.rules.order != "choose":
            return graded, None
        return graded, np.where(mask == 0, self.direction_loss(None), 0.0)

    def grade_rows(self, ra, mask, u, f, moves) -> np.ndarray:
        """(n, 6) the grades of recorded turns from states ``(mask, u, f)`` under the rule arrays ``ra``."""
        values = self.values
        cap, n_flags = values.shape[1] - 1, values.shape[2]
        key = (mask * (cap + 1) + u) * n_flags + f
        lanes, pos_lane, order, masks, rows = sort_by_lane(key, mask, moves)
        lane_u, lane_f, group_lane, group_mask, game_start = lane_groups(lanes, n_flags, cap, pos_lane)
        lane_mask = np.repeat(group_mask, np.diff(group_lane))
        width, batches = lane_batches(group_lane)
        tables = lane_tables(width, ra.box_face.shape[0], ra.add_die.shape[0], int(ra.n_class))
        graded = np.empty((len(mask), 6))
        for g0, g1, l0 in batches:
            self.grade_batch(
                values, ra, (g0, g1, l0), (lane_mask, lane_u, lane_f, group_lane),
                (int(game_start[g0]), int(game_start[g1])), pos_lane, masks, rows, tables, graded,
            )  # fmt: skip
        loss = np.empty_like(graded)
        loss[order] = graded
        return loss

    def grade_batch(self, values, ra, batch, lanes, games, pos_lane, masks, moves, tables, loss) -> None:
        """Grade games ``games = (j0, j1)`` of one lane batch ``batch = (g0, g1, l0)``
        (:func:`lane_batches`; ``lanes``: ``(lane_mask, lane_u, lane_f, group_lane)``) from the
        turn tables ``tables`` (:func:`lane_tables`), first filled from ``values`` unless None
        (they hold the grading table's tables already)."""
        from . import kernels

        g0, g1, l0 = batch
        lane_mask, lane_u, lane_f, group_lane = lanes
        tables = A.LaneTables(*tables)
        if values is not None:  # many masks hold one lane or two: packed into blocks as the DP does

            def fill(a: int, b: int) -> None:
                kernels.lane_turn_tables(a, b, BLOCK_LANES, l0, lane_mask, lane_u, lane_f, values, ra, tables)

            lo, hi = int(group_lane[g0]), int(group_lane[g1])
            self.workers.run(fill, lo, hi, pieces=min(4 * self.workers.threads, -(-(hi - lo) // BLOCK_LANES)))

        rec = A.Recorded(pos_lane, masks, moves)

        def grade(a: int, b: int) -> None:
            kernels.grade_games(a, b, l0, rec, lane_f, tables, ra, loss)

        self.workers.run(grade, *games)
        j0, j1 = games
        lane = pos_lane[j0:j1]  # the first roll's luck: its value minus the state's
        loss[j0:j1, 3] -= self.values[masks[j0:j1], lane_u[lane], lane_f[lane]]


class WinGrader:
    """Grades recorded turns for the win objective against a known best opponent final ``B``:
    each decision's loss in P(win) + ``tie`` x P(tie), from the target arrays ``target``
    (:class:`~solver.engine.target.TargetValues`) as the win bot values a turn
    (:func:`solver.engine.kernels.mixed_win_group_tables` with the opponent final ``q = [1]``).

    Exact where the turn is the player's last and ``B`` is known (every opponent has finished:
    the last seat's last turn): each option is then worth what it wins, and the turn's tables
    are built from that.  Before, the value of a state for ``B`` would mix two targets
    (``W(B - total)`` and ``W(B - total + 1)``) each played for separately -- an upper bound, not
    what one strategy gets -- so a match grades the last turns only
    (:func:`solver.play.match.play_match`).
    """

    def __init__(self, workers, rules: RuleSet, target, tie: float):
        from .dp import rule_arrays

        self.workers, self.rules, self.target, self.tie = workers, rules, target, float(tie)
        self.ra = rule_arrays(rules)

    def grade(self, mask, u, f, need, moves) -> np.ndarray:
        """(n, 6) the grades of recorded turns (``moves``, :class:`Grader`) from states ``(mask, u,
        f)`` ((n,) int64 each, ``u`` capped) with ``need`` (n,) = ``B`` minus the card's total: the
        losses of the two keeps and the box, then the luck of the three rolls (the first roll's
        value minus the state's, each later roll's value minus the keep's), so that each turn's
        outcome (1 won, ``tie`` tied, 0 lost when it ends the game) is the state's value minus the
        losses plus the luck."""
        from . import kernels

        t = self.target
        n = len(mask)
        cap, n_flags = t.off.shape[1] - 1, t.off.shape[2]
        graded = np.empty((n, 6))
        if n == 0:
            return graded
        need = np.asarray(need, dtype=np.int64)
        lo = int(need.min())
        span = int(need.max()) - lo + 1
        key = ((mask * (cap + 1) + u) * n_flags + f) * span + (need - lo)
        lanes, pos_lane, order, masks, rows = sort_by_lane(key, mask, moves)
        lane_need = (lanes % span + lo).astype(np.int64)
        lane_u, lane_f, group_lane, group_mask, game_start = lane_groups(
            lanes // span, n_flags, cap, pos_lane
        )
        from .dp import kernel_values

        lane_q0 = np.zeros(len(lanes), dtype=np.int64)  # every lane: the known final, q = [1]
        lane_qn = np.ones(len(lanes), dtype=np.int64)
        q = kernel_values(np.ones(1), np.float32)
        opp = A.Opponents(lane_need, lane_q0, lane_qn, q, self.tie)
        table, ra = A.TargetArrays(t.w, t.off, t.lead, t.length), self.ra
        rec = A.Recorded(pos_lane, masks, rows)

        start = np.empty(len(lanes))  # each lane's value at the start of the turn
        no_boxes = np.empty((0, A.N_ROLLS), dtype=np.int8)  # grading reads the values, not the boxes

        def tables(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            kernels.mixed_win_group_tables(
                a, b, l0, group_mask, group_lane, lane_u, lane_f, opp, table, ra, TIE_TOLERANCE,
                A.WinTables(e0_all, e1_all, no_boxes),
            )  # fmt: skip
            kernels.turn_start_values(int(group_lane[a]), int(group_lane[b]), l0, e1_all, ra, start)

        def grade(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            kernels.grade_win_games(
                a, b, l0, rec, lane_u, lane_f, opp, A.WinTables(e0_all, e1_all, no_boxes), table, ra, graded
            )

        run_lane_batches(self.workers, group_lane, game_start, tables, grade)
        # the first roll's luck: its value minus the state's -- from the turn's own tables: the
        # table's row would mix two targets each played for separately (an upper bound)
        graded[:, 3] -= start[pos_lane]
        out = np.empty_like(graded)
        out[order] = graded
        return out


def table_turn(
    workers, values, state, ids, spare, spare_ids, seed_mixed, game0, ra, grader: Grader | None = None
) -> None:
    """One turn of every game of ``state`` with a table bot; the games end up, sorted by
    mask, in ``spare``/``spare_ids`` (see :func:`solver.engine.kernels.group_games`).  With
    ``grader`` the turns are recorded and graded (its ``moves``/``graded``, rows as ``spare``),
    from the bot's own turn tables when it plays the grader's table."""
    from . import kernels

    nb = ra.box_face.shape[0]
    groups = kernels.group_games(
        state, ids, spare, spare_ids, values.shape[0], values.shape[1] - 1, values.shape[2], nb
    )
    group_mask, group_start, group_lane, lane_u, lane_f, pos_lane = groups
    if int(ra.n_dice) != 5 and (grader is None or grader.values is None):
        # six dice: 2**20 cards, so most games are alone on theirs -- their lanes packed into
        # blocks of several masks, as the DP packs them, and played from the block at once
        moves = np.empty((0, A.N_MOVES), dtype=np.int16)
        if grader is not None:
            moves = grader.moves = grader.new_moves(len(state))
            grader.graded = None
        n_lanes = len(lane_u)
        lane_mask = np.repeat(group_mask, np.diff(group_lane))
        by_lane = np.argsort(pos_lane, kind="stable")
        start = np.zeros(n_lanes + 1, dtype=np.int64)
        np.cumsum(np.bincount(pos_lane, minlength=n_lanes), out=start[1:])
        lanes = A.LaneGames(lane_mask, lane_u, lane_f, start, by_lane, pos_lane)
        batch = A.GameBatch(spare, spare_ids, seed_mixed, game0, moves)

        def play_lanes(a: int, b: int) -> None:
            kernels.play_lane_blocks(a, b, PLAY_BLOCK_LANES, lanes, values, batch, TIE_TOLERANCE, ra)

        pieces = min(4 * workers.threads, -(-n_lanes // PLAY_BLOCK_LANES))
        workers.run(play_lanes, 0, n_lanes, pieces=max(1, pieces))
        return
    width, batches = lane_batches(group_lane)
    tables = lane_tables(width, nb, ra.add_die.shape[0], int(ra.n_class))
    turn_tables = A.LaneTables(*tables)
    moves = np.empty((0, A.N_MOVES), dtype=np.int16)
    if grader is not None:
        moves = grader.moves = grader.new_moves(len(state))
        grader.graded = None
    grading = grader is not None and grader.values is not None
    if grading:
        grader.graded = np.empty((len(state), 6))
        masks = spare[:, nb + A.COL_MASK].astype(np.int64)  # before the turn
        lane_mask = np.repeat(group_mask, np.diff(group_lane))
        own = grader.values is values
        grade_tables = tables if own else lane_tables(width, nb, ra.add_die.shape[0], int(ra.n_class))
    batch = A.GameBatch(spare, spare_ids, seed_mixed, game0, moves)
    # six dice: 2**20 cards, so most games are alone on theirs -- their lanes packed into blocks
    # of several masks, as the DP packs them (the same values: grading's lane_turn_tables)
    packed_lanes = int(ra.n_dice) != 5
    if packed_lanes:
        all_lane_mask = np.repeat(group_mask, np.diff(group_lane))
    for g0, g1, l0 in batches:

        def fill(a: int, b: int, l0=l0) -> None:
            kernels.group_tables(a, b, l0, group_mask, group_lane, lane_u, lane_f, values, ra, turn_tables)

        def fill_lanes(a: int, b: int, l0=l0) -> None:
            kernels.lane_turn_tables(
                a, b, BLOCK_LANES, l0, all_lane_mask, lane_u, lane_f, values, ra, turn_tables
            )

        def play(a: int, b: int, l0=l0) -> None:
            kernels.play_table_games(a, b, l0, pos_lane, batch, turn_tables, TIE_TOLERANCE, ra)

        games = (int(group_start[g0]), int(group_start[g1]))
        if packed_lanes:
            lo, hi = int(group_lane[g0]), int(group_lane[g1])
            workers.run(fill_lanes, lo, hi, pieces=min(4 * workers.threads, -(-(hi - lo) // BLOCK_LANES)))
        else:
            workers.run(fill, g0, g1)
        workers.run(play, *games)
        if grading:
            grader.grade_batch(
                None if own else grader.values, ra, (g0, g1, l0), (lane_mask, lane_u, lane_f, group_lane),
                games, pos_lane, masks, moves, grade_tables, grader.graded,
            )  # fmt: skip


def target_turn(workers, values, target, goal, state, ids, seed_mixed, game0, ra, grader=None):
    """One turn of every game of ``state`` with the target bot (goal ``goal``): games whose
    target is reached or out of reach play for expected score (:func:`table_turn`), the
    others from target-play tables of their lanes ``(mask, u, f, need)``.  Returns the
    games and their ids, reordered; with ``grader`` (whose table is ``values``) the turns are
    recorded and graded (its ``moves``/``graded``, rows in that order)."""
    from . import kernels

    rules_n = ra.box_face.shape[0]
    cap, n_flags = values.shape[1] - 1, values.shape[2]
    w, w_off, w_lead, w_len = target.w, target.off, target.lead, target.length
    need = goal - game_totals_of(state, ra, rules_n)
    mask, u, f = lane_states(state, rules_n, cap, n_flags)
    length, lead = w_len[mask, u, f], w_lead[mask, u, f]
    inside = (need > lead) & (need <= length)
    p = np.zeros(len(state))
    p[inside] = w[w_off[mask, u, f][inside] + need[inside] - 1]
    p[need <= lead] = 1.0
    for_target = (need >= 1) & (p > 0.0)
    parts_state, parts_ids, parts_moves, parts_loss = [], [], [], []
    ev = np.flatnonzero(~for_target)
    if len(ev):
        sub, sub_ids = state[ev], ids[ev]
        spare, spare_ids = np.empty_like(sub), np.empty_like(sub_ids)
        table_turn(workers, values, sub, sub_ids, spare, spare_ids, seed_mixed, game0, ra, grader)
        parts_state.append(spare)
        parts_ids.append(spare_ids)
        if grader is not None:
            parts_moves.append(grader.moves)
            parts_loss.append(grader.graded)
    tg = np.flatnonzero(for_target)
    if len(tg):
        t_max = int(w_len.max(initial=0)) + 1
        key = ((mask[tg] * (cap + 1) + u[tg]) * n_flags + f[tg]) * (t_max + 1) + np.minimum(need[tg], t_max)
        lanes, pos_lane = np.unique(key, return_inverse=True)
        order = np.argsort(pos_lane, kind="stable")
        games = np.ascontiguousarray(state[tg][order])
        game_ids = np.ascontiguousarray(ids[tg][order])
        pos_lane = pos_lane[order].astype(np.int64)
        game_need = np.ascontiguousarray(need[tg][order])
        lane_need = (lanes % (t_max + 1)).astype(np.int64)
        lane_u, lane_f, group_lane, group_mask, game_start = lane_groups(
            lanes // (t_max + 1), n_flags, cap, pos_lane
        )

        moves = np.empty((0, A.N_MOVES), dtype=np.int16) if grader is None else grader.new_moves(len(tg))
        table = A.TargetArrays(w, w_off, w_lead, w_len)
        batch = A.GameBatch(games, game_ids, seed_mixed, game0, moves)
        no_succ = np.empty((0, 0))  # target play reads the keep tables only

        def tables(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            kernels.target_group_tables(
                a, b, l0, group_mask, group_lane, lane_u, lane_f, lane_need, table, ra,
                A.LaneTables(e0_all, e1_all, no_succ),
            )  # fmt: skip

        def play(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            kernels.play_target_games(
                a,
                b,
                l0,
                pos_lane,
                game_need,
                batch,
                A.LaneTables(e0_all, e1_all, no_succ),
                table,
                TIE_TOLERANCE,
                ra,
            )

        run_lane_batches(workers, group_lane, game_start, tables, play)
        parts_state.append(games)
        parts_ids.append(game_ids)
        if grader is not None:  # graded for expected score, from the states before the turn
            sel = tg[order]
            parts_moves.append(moves)
            if grader.values is not None:
                parts_loss.append(grader.grade_rows(ra, mask[sel], u[sel], f[sel], moves))
    if grader is not None:
        grader.moves = np.concatenate(parts_moves)
        grader.graded = np.concatenate(parts_loss) if grader.values is not None else None
    return np.concatenate(parts_state), np.concatenate(parts_ids)


def simple_turn(workers, kind: str, turn: int, state, seed_mixed, game0: int, ra, moves) -> None:
    """Turn ``turn`` (0-based) of every game of ``state`` (games ``game0 ..``, in place) with the
    table-free bot ``kind`` (``"random"`` or ``"frequent"``); ``moves`` (n, N_MOVES) int16 records
    each game's turn (zero rows: none)."""
    from . import kernels

    code = A.BOT_RANDOM if kind == "random" else A.BOT_FREQUENT

    def play(a: int, b: int) -> None:
        kernels.simple_games(code, turn, a, b, state, seed_mixed, game0, ra, moves)

    workers.run(play, 0, len(state))


def win_turn(workers, values, target, q, tie, opp, state, ids, seed_mixed, ra, recorder=None):
    """One turn of the win bot in every game of ``state`` against one opponent (its final score
    ``opp["b0"][id] + j`` with probability ``q[opp["q0"][id] + j]``, ``j < opp["qn"][id]``; ``q``
    float32, see :class:`solver.play.bots.WinBot`): games that cannot lose or cannot win play for
    expected score (:func:`table_turn`, by ``values``), the others from win tables of their lanes
    ``(mask, u, f, need, opponent row)`` by the target table ``target``
    (:class:`~solver.engine.target.TargetValues`), a tie worth ``tie``.  Returns the games and
    their ids, reordered; ``recorder`` (a :class:`Grader` without values) gets their moves."""
    from . import kernels

    nb = ra.box_face.shape[0]
    cap, n_flags = values.shape[1] - 1, values.shape[2]
    table = A.TargetArrays(target.w, target.off, target.lead, target.length)
    totals = game_totals_of(state, ra, nb)
    need0 = opp["b0"][ids] - totals
    q0, qn = opp["q0"][ids], opp["qn"][ids]
    mask, u, f = lane_states(state, nb, cap, n_flags)
    chance = np.empty(len(state), dtype=np.bool_)  # P(win) + tie P(tie) > 0
    kernels.win_chance_left(A.States(mask, u, f), A.Opponents(need0, q0, qn, q, tie), table, chance)
    for_win = (need0 + qn - 1 >= 0) & chance  # the opponent may reach this total; a chance left
    parts_state, parts_ids, parts_moves = [], [], []
    ev = np.flatnonzero(~for_win)
    if len(ev):
        sub, sub_ids = state[ev], ids[ev]
        spare, spare_ids = np.empty_like(sub), np.empty_like(sub_ids)
        table_turn(workers, values, sub, sub_ids, spare, spare_ids, seed_mixed, 0, ra, recorder)
        parts_state.append(spare)
        parts_ids.append(spare_ids)
        if recorder is not None:
            parts_moves.append(recorder.moves)
    tg = np.flatnonzero(for_win)
    if len(tg):
        flat = ((mask[tg] * (cap + 1) + u[tg]) * n_flags + f[tg]).astype(np.int64)
        need_tg, q0_tg, qn_tg = need0[tg], q0[tg], qn[tg]
        order = np.lexsort((need_tg, q0_tg, flat))  # lanes by state (so by mask), opponent row, need
        flat, need_tg, q0_tg, qn_tg = flat[order], need_tg[order], q0_tg[order], qn_tg[order]
        new_lane = np.ones(len(order), dtype=bool)
        new_lane[1:] = (np.diff(flat) != 0) | (np.diff(q0_tg) != 0) | (np.diff(need_tg) != 0)
        pos_lane = (np.cumsum(new_lane) - 1).astype(np.int64)
        first = np.flatnonzero(new_lane)
        games = np.ascontiguousarray(state[tg][order])
        game_ids = np.ascontiguousarray(ids[tg][order])
        lane_need, lane_q0, lane_qn = (x[first].astype(np.int64) for x in (need_tg, q0_tg, qn_tg))
        lane_u, lane_f, group_lane, group_mask, game_start = lane_groups(flat[first], n_flags, cap, pos_lane)
        lane_opp = A.Opponents(lane_need, lane_q0, lane_qn, q, tie)
        boxes = np.empty((lane_batches(group_lane)[0], A.N_ROLLS), dtype=np.int8)  # each lane's box per roll
        moves = np.empty((0, A.N_MOVES), dtype=np.int16) if recorder is None else recorder.new_moves(len(tg))
        batch = A.GameBatch(games, game_ids, seed_mixed, 0, moves)

        def tables(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            kernels.mixed_win_group_tables(
                a, b, l0, group_mask, group_lane, lane_u, lane_f, lane_opp, table, ra, TIE_TOLERANCE,
                A.WinTables(e0_all, e1_all, boxes),
            )  # fmt: skip

        def play(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            kernels.play_mixed_win_games(
                a, b, l0, pos_lane, batch, A.WinTables(e0_all, e1_all, boxes), TIE_TOLERANCE, ra
            )

        run_lane_batches(workers, group_lane, game_start, tables, play)
        parts_state.append(games)
        parts_ids.append(game_ids)
        parts_moves.append(moves)
    if recorder is not None:
        recorder.moves = np.concatenate(parts_moves)
    return np.concatenate(parts_state), np.concatenate(parts_ids)


def triple_games(
    workers, mode: int, state, seed_mixed, game0: int, values, weights, kappa, ra, moves
) -> None:
    """Whole triple games (every turn) of ``state`` ((n, C B + 4 C + 1) int32, the layout of
    :func:`solver.engine.kernels.triple_games`; games ``game0 ..``) in threads, with the player
    ``mode`` (``arrays.TRIPLE_ALL``, ``TRIPLE_FIRST``, ``TRIPLE_RANDOM``) over the base value
    array ``values``, column weights ``weights`` and scales ``kappa`` ((C,) float64); ``moves``
    (n C B, N_MOVES) int16 or zero rows records every turn."""
    from . import kernels

    def work(a: int, b: int) -> None:
        kernels.triple_games(
            mode, a, b, state, seed_mixed, game0, values, weights, kappa, TIE_TOLERANCE, ra, moves
        )

    workers.run(work, 0, len(state))


def run_lane_batches(workers, group_lane: np.ndarray, game_start: np.ndarray, tables, play) -> None:
    """The turn of lanes grouped by mask, a batch of groups at a time (:func:`lane_batches`):
    ``tables(a, b, l0, e0, e1)`` fills the decision tables of groups ``a .. b`` (rows from lane
    ``l0``) in parallel, then ``play(a, b, l0, e0, e1)`` plays their games ``a .. b``."""
    width, batches = lane_batches(group_lane)
    e0_all = np.empty((width, D.N_KEEPS))
    e1_all = np.empty((width, D.N_KEEPS))
    for g0, g1, l0 in batches:
        workers.run(lambda a, b, l0=l0: tables(a, b, l0, e0_all, e1_all), g0, g1)
        workers.run(
            lambda a, b, l0=l0: play(a, b, l0, e0_all, e1_all), int(game_start[g0]), int(game_start[g1])
        )


def lane_states(state: np.ndarray, nb: int, cap: int, n_flags: int):
    """``(mask, u, f)``, (N,) int64 each: the DP state of each game of ``state`` (upper total capped
    at ``cap``; ``f`` 0 without a flag)."""
    mask = state[:, nb + A.COL_MASK].astype(np.int64)
    u = np.minimum(state[:, nb + A.COL_UPPER].astype(np.int64), cap)
    f = state[:, nb + A.COL_FLAG].astype(np.int64) if n_flags == 2 else np.zeros(len(state), dtype=np.int64)
    return mask, u, f


def game_totals_of(state: np.ndarray, ra, nb: int) -> np.ndarray:
    """(N,) int64: the points on each card of the games ``state``, from the kernel rule arrays."""
    return card_totals(ra, state[:, :nb], state[:, nb + A.COL_BONUSES]).total


class RegretRecorder:
    """Each decision's loss (:class:`Grader`), gathered turn by turn over ``games`` games.

    Per game (in game order): ``game_loss`` (N,) float64 the points its decisions lost in all,
    ``game_keep_loss`` (N,) those of its keeps, ``game_direction_loss`` (N,) its direction's
    (under ``order=choose``, else None); the box decisions lost the rest.  ``game_luck`` (N,)
    what its dice gave against their expectation (the rolls' luck, :func:`grade_games`): each
    game's score is the table's value of the empty card minus its loss plus its luck, to the
    last bits of the sums.  Summed over the
    games: ``turn_loss`` (turns, 3) and ``turn_decisions`` (turns, 3) the losses and the
    number of decisions of each turn (keep with two rolls left, with one, box);
    ``box_loss`` (n_boxes, 2) the keep and box losses of the turns that filled each box,
    ``box_turns`` (n_boxes,) how many turns did.  ``worst`` the ``n_worst`` decisions that
    lost most (:meth:`worst_decisions`).  Sums run in game-id order within a turn, so they are
    the same whatever the thread count.
    """

    def __init__(self, rules: RuleSet, games: int, n_worst: int = 0):
        nb, turns = rules.n_boxes, rules.n_turns
        self.rules, self.n_worst = rules, int(n_worst)
        self.game_loss = np.zeros(games)
        self.game_keep_loss = np.zeros(games)
        self.game_direction_loss = np.zeros(games) if rules.order == "choose" else None
        self.game_luck = np.zeros(games)
        self.turn_loss = np.zeros((turns, 3))
        self.turn_decisions = np.zeros((turns, 3), dtype=np.int64)
        self.box_loss = np.zeros((nb, 2))
        self.box_turns = np.zeros(nb, dtype=np.int64)
        self._worst = _no_worst(nb)

    def add_turn(self, turn: int, rows, moves, graded, scores_after, bonuses_after, direction=None) -> None:
        """Turn ``turn`` of the games ``rows`` ((n,) indices into the per-game arrays): their
        ``moves`` and ``graded`` (:class:`Grader`), the box scores after the turn ``scores_after``
        ((n, n_boxes), -1 open) and five-of-a-kind bonuses ``bonuses_after`` (n,) (to write the
        worst positions out), ``direction`` (n,) the direction's loss (turn 0, ``order=choose``)."""
        nb = self.rules.n_boxes
        loss = graded[:, :3]
        keep = loss[:, 0] + loss[:, 1]
        self.game_loss[rows] += keep + loss[:, 2]
        self.game_keep_loss[rows] += keep
        self.game_luck[rows] += graded[:, 3] + graded[:, 4] + graded[:, 5]
        if direction is not None and self.game_direction_loss is not None:
            self.game_direction_loss[rows] += direction
            self.game_loss[rows] += direction
            # the first roll's luck is against the chosen direction's value, the table's less that
            self.game_luck[rows] += direction
        self.turn_loss[turn] += loss.sum(axis=0)
        self.turn_decisions[turn] += (len(rows), int((moves[:, A.MOVE_KEEP2] >= 0).sum()), len(rows))
        box = moves[:, A.MOVE_BOX].astype(np.intp)
        self.box_loss[:, 0] += np.bincount(box, keep, nb)
        self.box_loss[:, 1] += np.bincount(box, loss[:, 2], nb)
        self.box_turns += np.bincount(box, minlength=nb)
        if self.n_worst:
            self._add_worst(turn, rows, moves, loss, scores_after, bonuses_after)

    def _add_worst(self, turn, rows, moves, loss, scores_after, bonuses_after) -> None:
        flat = np.ascontiguousarray(loss).reshape(-1)
        cand = np.flatnonzero(flat > TIE_TOLERANCE)
        if len(cand) > self.n_worst:  # only what can still be among the worst (all ties of the last)
            cut = -np.partition(-flat[cand], self.n_worst - 1)[self.n_worst - 1]
            cand = cand[flat[cand] >= cut]
        row, stage = cand // 3, cand % 3
        new = {
            "loss": flat[cand],
            "game": np.asarray(rows, dtype=np.int64)[row],
            "turn": np.full(len(cand), turn, dtype=np.int64),
            "stage": stage.astype(np.int64),
            "moves": moves[row].astype(np.int16),
            "scores": np.asarray(scores_after)[row].astype(np.int16),
            "bonuses": np.asarray(bonuses_after)[row].astype(np.int64),
        }
        both = {k: np.concatenate([self._worst[k], v]) for k, v in new.items()}
        keep = np.lexsort((both["stage"], both["turn"], both["game"], -both["loss"]))[: self.n_worst]
        self._worst = {k: v[keep] for k, v in both.items()}

    def worst_decisions(self) -> dict:
        """The worst decisions, most costly first (ties: by game, turn, decision): arrays
        ``loss``, ``game`` (index into the per-game arrays), ``turn`` (0-based), ``stage`` (0:
        keep with two rolls left, 1: with one, 2: box), ``moves`` (that turn, :class:`Grader`),
        ``scores``/``bonuses`` the card after that turn."""
        return dict(self._worst)


def _no_worst(nb: int) -> dict:
    return {
        "loss": np.zeros(0),
        "game": np.zeros(0, dtype=np.int64),
        "turn": np.zeros(0, dtype=np.int64),
        "stage": np.zeros(0, dtype=np.int64),
        "moves": np.zeros((0, 6), dtype=np.int16),
        "scores": np.zeros((0, nb), dtype=np.int16),
        "bonuses": np.zeros(0, dtype=np.int64),
    }


def run_games(
    rules,
    kind,
    games,
    seed,
    game0,
    n_threads,
    tick,
    keep_cards,
    chunk,
    *,
    values=None,
    target=None,
    goal=None,
    direction=None,
    regret: RegretRecorder | None = None,
    grade_values=None,
    engine: str = "numba",
) -> dict:
    """Play games ``game0 .. game0 + games - 1`` under ``seed`` in the kernels, ``chunk`` games
    in memory at once: ``kind`` is ``"table"`` (best play by the value array ``values``),
    ``"target"`` (target play for ``goal`` points from the target arrays ``target``, expected-score
    play by ``values`` once reached or out of reach), ``"random"`` or ``"frequent"``; under
    ``order=choose`` ``direction`` is the one the table player picks.  ``tick(n)`` is told each
    ``n`` games done.  The per-game results (:func:`result_arrays`), in game order.

    With ``regret`` every decision is graded (:class:`Grader`) against the value table
    ``grade_values`` -- by default ``values`` (the optimal table of a ``target`` bot; a
    ``table`` bot that plays it grades from its own turn tables) -- into the recorder.

    ``engine="numpy"`` (a ``table`` bot, not graded): the same games played by
    :mod:`solver.engine.numpy_play`, nothing compiled (the kernels are not even imported)."""
    from .dp import kernel_values, rule_arrays

    if engine == "numpy":
        if kind != "table" or regret is not None:
            raise ValueError("the numpy engine plays a table bot's games, ungraded")
        from . import numpy_play
    in_numpy = engine == "numpy"
    bot_target = goal
    nb = rules.n_boxes
    ra = rule_arrays(rules)
    first_ra = ra
    if kind in ("table", "target"):
        values = kernel_values(values)
        if rules.order == "choose":  # the direction is chosen before the first roll
            first_ra = rule_arrays(rules.directed(direction))
    if regret is not None and grade_values is None and values is None:
        raise ValueError(f"grading a {kind} bot needs grade_values")
    seed_mixed = np.uint64(mix64(seed & MASK64))
    turns = rules.n_turns
    out = result_arrays(games, nb, keep_cards)  # first: too many games for the memory fail at once
    with Workers(n_threads) as workers:
        grader = None
        if regret is not None:
            grader = Grader(workers, rules, values if grade_values is None else kernel_values(grade_values))
        for c0 in range(0, games, chunk):
            n = min(chunk, games - c0)
            state = np.zeros((n, max(STATE_WIDTH, nb + A.STATE_EXTRA)), dtype=np.int32)  # see arrays
            state[:, :nb] = -1
            ids = np.arange(n, dtype=np.int64)
            if kind in ("table", "target"):  # the games are sorted by state into the spare buffers each turn
                spare, spare_ids = np.empty_like(state), np.empty_like(ids)
            done = 0
            for turn in range(turns):
                turn_ra = first_ra if turn == 0 else ra
                graded_direction = None
                if in_numpy:  # numpy: the games stay in their order, a part of them per thread

                    def numpy_part(i0: int, i1: int, turn_ra=turn_ra, state=state, c0=c0) -> None:
                        part = state[i0:i1]  # a view: played in place
                        numpy_play.table_turn(
                            values, part, seed_mixed, game0 + c0 + i0, turn_ra, TIE_TOLERANCE
                        )

                    workers.run(numpy_part, 0, n, pieces=workers.threads)
                elif kind == "target":
                    state, ids = target_turn(
                        workers,
                        values,
                        target,
                        bot_target,
                        state,
                        ids,
                        seed_mixed,
                        game0 + c0,
                        turn_ra,
                        grader,
                    )
                elif kind == "table":
                    table_turn(
                        workers, values, state, ids, spare, spare_ids, seed_mixed, game0 + c0, turn_ra, grader
                    )
                    state, spare, ids, spare_ids = spare, state, spare_ids, ids
                    if grader is not None and turn == 0 and rules.order == "choose":
                        graded_direction = np.full(n, grader.direction_loss(direction))
                else:
                    if grader is not None:
                        before = lane_states(state, nb, grader.values.shape[1] - 1, grader.values.shape[2])
                    moves = (
                        np.empty((0, A.N_MOVES), dtype=np.int16) if grader is None else grader.new_moves(n)
                    )
                    simple_turn(workers, kind, turn, state, seed_mixed, game0 + c0, ra, moves)
                    if grader is not None:
                        grader.moves = moves
                        grader.graded, graded_direction = grader.grade(*before, moves)
                if grader is not None:
                    regret.add_turn(
                        turn, c0 + ids, grader.moves, grader.graded, state[:, :nb], state[:, nb + A.COL_BONUSES],
                        graded_direction,
                    )  # fmt: skip
                now = n * (turn + 1) // turns
                tick(now - done)
                done = now
            sorted_games = kind in ("table", "target") and not in_numpy
            store_results(
                out,
                c0,
                finish_games(
                    rules, state[:, :nb], state[:, nb + A.COL_BONUSES], ids if sorted_games else None
                ),
            )
            if keep_cards:
                out["cards"][c0 + ids] = state[:, :nb]  # back in game order
            del state
    return out


@contextlib.contextmanager
def progress_ticks(progress, total: int, desc: str):
    """The ``tick(n)`` a run of ``total`` games calls as ``n`` more finish: a tqdm bar on stderr
    for ``progress=True``, the caller's own function, or nothing (``False``)."""
    if progress is True:
        from tqdm import tqdm

        from ..core.text import bar_columns

        with tqdm(
            total=total, desc=desc, unit="game", unit_scale=True, leave=False, ncols=bar_columns()
        ) as bar:
            yield bar.update
    elif callable(progress):
        yield progress
    else:
        yield lambda n: None

"""Whole games in the kernels: every game of a batch plays turn by turn, in parallel.

Dice come from the seeded stream of :mod:`solver.core.streams`; a game's scores depend only on
``(rules, player, seed, game index)``, never on the threads or the chunking.  The players
here are arrays (a value table, a target table) or the kernels' simple rules; the bots of
:mod:`solver.play.bots` map onto them (:mod:`solver.play.simulate`).
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..core import dice as D
from ..core.rules import RuleSet
from ..core.streams import MASK64, mix64
from ..core.threads import Workers
from .turn import TIE_TOLERANCE

MAX_GAMES = 100_000_000  # games of one simulation (results are kept per game)
STATE_WIDTH = 24  # int32 columns of a game's state (box scores, then _kernels.STATE_EXTRA)
LANE_BUDGET = 8192  # lanes whose within-turn tables are held at once (7.4 KB each)


def finish_games(
    rules: RuleSet, scores: np.ndarray, nbonus: np.ndarray, ids: np.ndarray | None = None
) -> dict:
    """Totals and rates of finished cards: ``scores`` (N, n_boxes) all filled, row ``j`` being
    game ``ids[j]`` (game ``j`` when ``ids`` is None); the results are in game order."""
    upper = scores[:, list(rules.upper_indices)].sum(axis=1, dtype=np.int64)
    reached = upper >= rules.upper_threshold if rules.has_upper_bonus else np.zeros(len(scores), dtype=bool)
    nbonus = nbonus.astype(np.int64)
    total = scores.sum(axis=1, dtype=np.int64) + np.where(reached, rules.upper_bonus, 0)
    total += nbonus * rules.bonus
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


def table_turn(K, workers, values, state, ids, spare, spare_ids, seed_mixed, game0, ra) -> None:
    """One turn of every game of ``state`` with a table bot; the games end up, sorted by
    mask, in ``spare``/``spare_ids`` (see :func:`solver.engine._kernels.group_games`)."""
    nb = ra.box_face.shape[0]
    groups = K.group_games(
        state, ids, spare, spare_ids, values.shape[0], values.shape[1] - 1, values.shape[2], nb
    )
    group_mask, group_start, group_lane, lane_u, lane_f, pos_lane = groups
    width, batches = lane_batches(group_lane)
    e0_all = np.empty((width, D.N_KEEPS))
    e1_all = np.empty((width, D.N_KEEPS))
    succ_all = np.empty((6 * nb, width))
    for g0, g1, l0 in batches:

        def tables(a: int, b: int, l0=l0) -> None:
            K.group_tables(
                a, b, l0, group_mask, group_lane, lane_u, lane_f, values, ra, e0_all, e1_all, succ_all
            )

        def play(a: int, b: int, l0=l0) -> None:
            K.play_table_games(
                a, b, l0, pos_lane, spare, spare_ids, seed_mixed, game0, e0_all, e1_all, succ_all,
                TIE_TOLERANCE, ra,
            )  # fmt: skip

        workers.run(tables, g0, g1)
        workers.run(play, int(group_start[g0]), int(group_start[g1]))


def target_turn(K, workers, values, target, goal, state, ids, seed_mixed, game0, ra):
    """One turn of every game of ``state`` with the target bot (goal ``goal``): games whose
    target is reached or out of reach play for expected score (:func:`table_turn`), the
    others from target-play tables of their lanes ``(mask, u, f, need)``.  Returns the
    games and their ids, reordered."""
    rules_n = ra.box_face.shape[0]
    cap, n_flags = values.shape[1] - 1, values.shape[2]
    w, w_off, w_len = target.w, target.off, target.length
    need = goal - game_totals_of(state, ra, rules_n)
    mask, u, f = lane_states(state, rules_n, cap, n_flags)
    length = w_len[mask, u, f]
    inside = (need >= 1) & (need <= length)
    p = np.zeros(len(state))
    p[inside] = w[w_off[mask, u, f][inside] + need[inside] - 1]
    p[need <= 0] = 1.0
    for_target = (need >= 1) & (p > 0.0)
    parts_state, parts_ids = [], []
    ev = np.flatnonzero(~for_target)
    if len(ev):
        sub, sub_ids = state[ev], ids[ev]
        spare, spare_ids = np.empty_like(sub), np.empty_like(sub_ids)
        table_turn(K, workers, values, sub, sub_ids, spare, spare_ids, seed_mixed, game0, ra)
        parts_state.append(spare)
        parts_ids.append(spare_ids)
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

        def tables(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            K.target_group_tables(
                a, b, l0, group_mask, group_lane, lane_u, lane_f, lane_need, w, w_off, w_len, ra, e0_all, e1_all
            )  # fmt: skip

        def play(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            K.play_target_games(
                a, b, l0, pos_lane, game_need, games, game_ids, seed_mixed, game0, e0_all, e1_all,
                w, w_off, w_len, TIE_TOLERANCE, ra,
            )  # fmt: skip

        run_lane_batches(workers, group_lane, game_start, tables, play)
        parts_state.append(games)
        parts_ids.append(game_ids)
    return np.concatenate(parts_state), np.concatenate(parts_ids)


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
    from . import _kernels as K

    mask = state[:, nb + K.COL_MASK].astype(np.int64)
    u = np.minimum(state[:, nb + K.COL_UPPER].astype(np.int64), cap)
    f = state[:, nb + K.COL_FLAG].astype(np.int64) if n_flags == 2 else np.zeros(len(state), dtype=np.int64)
    return mask, u, f


def game_totals_of(state: np.ndarray, ra, nb: int) -> np.ndarray:
    """(N,) int64: the points on each card of the games ``state``, from the kernel rule arrays."""
    from . import _kernels as K

    boxes = np.where(state[:, :nb] > 0, state[:, :nb], 0).sum(axis=1, dtype=np.int64)
    upper = state[:, nb + K.COL_UPPER].astype(np.int64)
    bonus = np.where(upper >= int(ra.upper_threshold), int(ra.upper_bonus), 0)
    return boxes + bonus + state[:, nb + K.COL_BONUSES].astype(np.int64) * int(ra.bonus)


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
) -> dict:
    """Play games ``game0 .. game0 + games - 1`` under ``seed`` in the kernels, ``chunk`` games
    in memory at once: ``kind`` is ``"table"`` (best play by the value array ``values``),
    ``"target"`` (target play for ``goal`` points from the target arrays ``target``, expected-score
    play by ``values`` once reached or out of reach), ``"random"`` or ``"frequent"``; under
    ``order=choose`` ``direction`` is the one the table player picks.  ``tick(n)`` is told each
    ``n`` games done.  The per-game results (:func:`result_arrays`), in game order."""
    from . import _kernels as K
    from .dp import kernel_values, rule_arrays

    bot_target = goal
    nb = rules.n_boxes
    ra = rule_arrays(rules)
    first_ra = ra
    if kind in ("table", "target"):
        values = kernel_values(values)
        if rules.order == "choose":  # the direction is chosen before the first roll
            first_ra = rule_arrays(rules.directed(direction))
    seed_mixed = np.uint64(mix64(seed & MASK64))
    turns = rules.n_turns
    out = result_arrays(games, nb, keep_cards)  # first: too many games for the memory fail at once
    with Workers(n_threads) as workers:
        for c0 in range(0, games, chunk):
            n = min(chunk, games - c0)
            state = np.zeros((n, max(STATE_WIDTH, nb + K.STATE_EXTRA)), dtype=np.int32)  # see _kernels
            state[:, :nb] = -1
            ids = np.arange(n, dtype=np.int64)
            if kind in ("table", "target"):  # the games are sorted by state into the spare buffers each turn
                spare, spare_ids = np.empty_like(state), np.empty_like(ids)
            done = 0
            for turn in range(turns):
                turn_ra = first_ra if turn == 0 else ra
                if kind == "target":
                    state, ids = target_turn(
                        K, workers, values, target, bot_target, state, ids, seed_mixed, game0 + c0, turn_ra
                    )
                elif kind == "table":
                    table_turn(
                        K, workers, values, state, ids, spare, spare_ids, seed_mixed, game0 + c0, turn_ra
                    )
                    state, spare, ids, spare_ids = spare, state, spare_ids, ids
                else:
                    code = K.BOT_RANDOM if kind == "random" else K.BOT_FREQUENT

                    def play(a: int, b: int, code=code, turn=turn, state=state, first=game0 + c0) -> None:
                        K.simple_games(code, turn, a, b, state, seed_mixed, first, ra)

                    workers.run(play, 0, n)
                now = n * (turn + 1) // turns
                tick(now - done)
                done = now
            sorted_games = kind in ("table", "target")
            store_results(
                out,
                c0,
                finish_games(
                    rules, state[:, :nb], state[:, nb + K.COL_BONUSES], ids if sorted_games else None
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

        with tqdm(
            total=total, desc=desc, unit="game", unit_scale=True, leave=False, dynamic_ncols=True
        ) as bar:
            yield bar.update
    elif callable(progress):
        yield progress
    else:
        yield lambda n: None

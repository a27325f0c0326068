"""Matches: full multi-player games between bots, and who wins them.

Game ``g`` of a match of ``P`` bots under seed ``S``:

* **Seats rotate**: rotation ``r = g mod P``; seat ``s`` (``0`` plays first) holds bot
  ``(r + s) mod P`` of the list, so over ``P`` consecutive games every bot plays every seat.
* **Each player has its own dice**: seat ``s`` of game ``g`` rolls the seeded stream of
  :mod:`solver.core.streams` with seed :func:`seat_seed` ``(S, s, r)`` and game index ``g // P``
  (each roll takes the next five dice of that stream, also for held dice).  A player's
  dice never depend on the other players' decisions, and the results depend only on
  ``(rules, bots, S, g)``: not on the thread count nor on the engine.
* Players take their turns in seat order; before each of its turns a bot with a
  ``see_opponents(cards)`` method is given the other players' cards (:class:`ScoreCard`,
  in seat order from the next player on) -- the ``win`` bot uses them; bots without the
  method (the other builtin bots, most user bots) ignore the opponents.
* The highest final score wins; players sharing it tie.

Two engines play the same games: numba, when every bot is a builtin bot of the numba
engine of :mod:`solver.play.simulate` and at most one is ``win`` (turn-synchronous over all
games: the opponent's row of the opponent model is updated after every turn, the ``win``
bot's turns run the win kernels of :mod:`solver.engine._kernels` with a target per game), and Python
(any bots: one game after another).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.card import ScoreCard
from ..core.errors import UsageError
from ..core.rules import RuleSet, get_rules
from ..core.streams import MASK64, SeededStream, check_seed, mix64
from ..core.threads import Workers, resolve_threads
from ..engine.playout import (
    STATE_WIDTH,
    game_totals_of,
    lane_groups,
    lane_states,
    progress_ticks,
    run_lane_batches,
    table_turn,
    target_turn,
)
from ..engine.turn import TIE_TOLERANCE
from .bots import WinBot, bot_name
from .simulate import fast_kind, game_rng, play_turn, resolve_bot

MAX_PLAYERS = 8
MAX_GAMES = 20_000_000  # per call (scores are kept per game and seat)
SEAT_DOMAIN = 0x5345415453  # "SEATS"


def seat_seed(seed: int, seat: int, rotation: int) -> int:
    """The dice seed of seat ``seat`` in the games of rotation ``rotation`` (64-bit)."""
    return mix64((seed & MASK64) ^ mix64(SEAT_DOMAIN ^ (seat << 8) ^ rotation)) & MASK64


def seating(game: int, n_players: int) -> list[int]:
    """The bot index at each seat of game ``game`` (seat 0 plays first)."""
    r = game % n_players
    return [(r + s) % n_players for s in range(n_players)]


@dataclass
class MatchResult:
    """``scores[g, i]``: the final score of bot ``i`` (the order of ``bots``) in game ``g``;
    ``seats[g, i]``: its seat (0 plays first)."""

    rules: RuleSet
    bots: list[str]
    seed: int
    scores: np.ndarray
    seats: np.ndarray
    engine: str
    threads: int
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return int(self.scores.shape[0])

    def summary(self) -> dict:
        return summarize(self)


def _rate(x: np.ndarray) -> dict:
    n = len(x)
    p = float(x.mean()) if n else 0.0
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    return {"rate": p, "standard_error": se}


def summarize(result: MatchResult) -> dict:
    """Per bot: wins, ties, losses (rates and standard errors), its match score (wins + ties
    / 2), mean and spread of its scores, per seat; the head-to-head matrix."""
    s = result.scores
    n, p = s.shape
    top = s.max(axis=1)
    n_top = (s == top[:, None]).sum(axis=1)
    per_bot = []
    for i, name in enumerate(result.bots):
        mine = s[:, i]
        win = (mine == top) & (n_top == 1)
        tie = (mine == top) & (n_top > 1)
        loss = mine < top
        points = win + 0.5 * tie
        seats = []
        for seat in range(p):
            at = result.seats[:, i] == seat
            seats.append({"seat": seat, "games": int(at.sum()), "win_or_half_tie": _rate(points[at])})
        per_bot.append(
            {
                "bot": name,
                "wins": int(win.sum()),
                "ties": int(tie.sum()),
                "losses": int(loss.sum()),
                "win": _rate(win.astype(np.float64)),
                "tie": _rate(tie.astype(np.float64)),
                "loss": _rate(loss.astype(np.float64)),
                "win_or_half_tie": _rate(points),
                "mean_score": float(mine.mean()),
                "sd_score": float(mine.std(ddof=1)) if n > 1 else 0.0,
                "by_seat": seats,
            }
        )
    h2h = []
    for i in range(p):
        row = []
        for j in range(p):
            if i == j:
                row.append(None)
                continue
            d = np.sign(s[:, i] - s[:, j]).astype(np.float64)
            row.append(_rate(0.5 + 0.5 * d))  # a beaten b: 1, tie: 1/2
        h2h.append(row)
    return {
        "rules": result.rules.id,
        "games": n,
        "seed": result.seed,
        "bots": list(result.bots),
        "engine": result.engine,
        "threads": result.threads,
        "seconds": round(result.seconds, 3),
        "players": per_bot,
        "head_to_head": h2h,
    }


# --- the Python engine ------------------------------------------------------------


def show_opponents(bot, cards: list[ScoreCard], seat: int) -> None:
    """Hand ``bot`` (at ``seat``) the other players' cards when it has ``see_opponents``."""
    hook = getattr(bot, "see_opponents", None)
    if callable(hook):
        p = len(cards)
        hook([cards[(seat + k) % p] for k in range(1, p)])


def play_match_game(rules: RuleSet, bots: list, seed: int, game: int) -> list[ScoreCard]:
    """Game ``game`` of the match (Python engine); returns the final cards by bot index."""
    p = len(bots)
    order = seating(game, p)
    r, j = game % p, game // p
    streams = [SeededStream(seat_seed(seed, s, r), j) for s in range(p)]
    rngs = [game_rng(seat_seed(seed, s, r), j) for s in range(p)]
    cards = [ScoreCard.empty(rules) for _ in range(p)]
    for _ in range(rules.n_turns):
        for s in range(p):
            bot = bots[order[s]]
            show_opponents(bot, cards, s)
            cards[s] = play_turn(rules, bot, cards[s], streams[s], rngs[s])
    out = [None] * p
    for s in range(p):
        out[order[s]] = cards[s]
    return out


def _run_python(rules, bots, games, seed, tick) -> np.ndarray:
    scores = np.empty((games, len(bots)), dtype=np.int64)
    for g in range(games):
        for bot in bots:
            if hasattr(bot, "game"):  # a bot program names the game in what it is sent
                bot.game = g
        cards = play_match_game(rules, bots, seed, g)
        scores[g] = [c.total for c in cards]
        tick(1)
    return scores


# --- the numba engine -------------------------------------------------------------
def _opponent_rows(state, ids, opp, residuals, ra, nb) -> None:
    """``opp["b0"][ids]``, ``opp["q0"][ids]``, ``opp["qn"][ids]``: where the final score of each
    game of ``state`` lies (:class:`solver.advice.win.OpponentModel`): ``b0 + j`` with
    probability ``residuals.p[q0 + j]``, ``j < qn``."""
    cap, n_flags = residuals.off.shape[1] - 1, residuals.off.shape[2]
    mask, u, f = lane_states(state, nb, cap, n_flags)
    opp["b0"][ids] = game_totals_of(state, ra, nb) + residuals.lo[mask, u, f]
    opp["q0"][ids] = residuals.off[mask, u, f]
    opp["qn"][ids] = residuals.length[mask, u, f]


def _win_turn(K, workers, values, target, q, tie, opp, state, ids, seed_mixed, ra):
    """One turn of the win bot in every game of ``state`` against one opponent (its final score
    ``opp["b0"][id] + j`` with probability ``q[opp["q0"][id] + j]``, see
    :class:`solver.play.bots.WinBot`): games that cannot lose or cannot win play for expected
    score, the others from win tables of their lanes ``(mask, u, f, need, opponent row)``.
    Returns the games and their ids, reordered."""
    nb = ra.box_face.shape[0]
    cap, n_flags = values.shape[1] - 1, values.shape[2]
    w, w_off, w_lead, w_len = target.w, target.off, target.lead, target.length
    totals = game_totals_of(state, ra, nb)
    need0 = opp["b0"][ids] - totals
    q0, qn = opp["q0"][ids], opp["qn"][ids]
    mask, u, f = lane_states(state, nb, cap, n_flags)
    p = np.empty(len(state))
    K.mixed_start_values(mask, u, f, need0, q0, qn, q, tie, w, w_off, w_lead, w_len, p)
    for_win = (need0 + qn - 1 >= 0) & (p > 0.0)  # the opponent may reach this total; a chance left
    parts_state, parts_ids = [], []
    ev = np.flatnonzero(~for_win)
    if len(ev):
        sub, sub_ids = state[ev], ids[ev]
        spare, spare_ids = np.empty_like(sub), np.empty_like(sub_ids)
        table_turn(K, workers, values, sub, sub_ids, spare, spare_ids, seed_mixed, 0, ra)
        parts_state.append(spare)
        parts_ids.append(spare_ids)
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
        game_need = np.ascontiguousarray(need_tg).astype(np.int64)
        game_q0 = np.ascontiguousarray(q0_tg).astype(np.int64)
        game_qn = np.ascontiguousarray(qn_tg).astype(np.int64)
        lane_need, lane_q0, lane_qn = game_need[first], game_q0[first], game_qn[first]
        lane_u, lane_f, group_lane, group_mask, game_start = lane_groups(flat[first], n_flags, cap, pos_lane)

        def tables(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            K.mixed_win_group_tables(
                a, b, l0, group_mask, group_lane, lane_u, lane_f, lane_need, lane_q0, lane_qn, q, tie,
                w, w_off, w_lead, w_len, ra, e0_all, e1_all,
            )  # fmt: skip

        def play(a: int, b: int, l0: int, e0_all, e1_all) -> None:
            K.play_mixed_win_games(
                a, b, l0, pos_lane, game_need, game_q0, game_qn, q, games, game_ids, seed_mixed, 0,
                e0_all, e1_all, w, w_off, w_lead, w_len, tie, TIE_TOLERANCE, ra,
            )  # fmt: skip

        run_lane_batches(workers, group_lane, game_start, tables, play)
        parts_state.append(games)
        parts_ids.append(game_ids)
    return np.concatenate(parts_state), np.concatenate(parts_ids)


def _fast_ok(rules: RuleSet, bots: list) -> list[str] | None:
    """The numba kinds of the bots, or None when the match needs the Python engine."""
    if rules.order == "choose":
        return None
    kinds = []
    for bot in bots:
        if type(bot) is WinBot and bot.rules == rules:
            kinds.append("win")
        else:
            kind = fast_kind(bot, rules)
            if kind is None:
                return None
            kinds.append(kind)
    if "win" in kinds and len(bots) != 2:
        return None  # the numba win bot plays against one opponent
    return kinds if kinds.count("win") <= 1 else None


def _run_numba(rules, bots, kinds, games, seed, n_threads, tick) -> np.ndarray:
    from ..engine import _kernels as K
    from ..engine.dp import kernel_values, rule_arrays

    nb = rules.n_boxes
    p = len(bots)
    ra = rule_arrays(rules)
    no_moves = np.empty((0, K.N_MOVES), dtype=np.int16)  # the turns are not recorded
    win_target = residuals = q = None
    for bot, kind in zip(bots, kinds, strict=True):
        if kind == "win":
            win_target = bot.table.arrays()
            residuals = bot.win.model.residuals
            q = kernel_values(residuals.p, np.float32)
    groups = {}
    for r in range(p):
        n = len(range(r, games, p))
        for s in range(p):
            i = (r + s) % p
            bot, kind = bots[i], kinds[i]
            state = np.zeros((n, max(STATE_WIDTH, nb + K.STATE_EXTRA)), dtype=np.int32)
            state[:, :nb] = -1
            entry = {
                "bot": bot,
                "kind": kind,
                "state": state,
                "ids": np.arange(n, dtype=np.int64),
                "seed_mixed": np.uint64(mix64(seat_seed(seed, s, r))),
                "b0": np.zeros(n, dtype=np.int64),
                "q0": np.zeros(n, dtype=np.int64),
                "qn": np.zeros(n, dtype=np.int64),
            }
            if kind in ("table", "target", "win"):
                entry["values"] = kernel_values(
                    bot.optimal.values if kind in ("target", "win") else bot.values
                )
            if kind == "target":
                entry["target"] = bot.table.arrays()
            if residuals is not None:  # what the win bot reads of its opponent
                _opponent_rows(state, entry["ids"], entry, residuals, ra, nb)
            groups[s, r] = entry
    turns = rules.n_turns
    with Workers(n_threads) as workers:
        for turn in range(turns):
            for s in range(p):
                for r in range(p):
                    e = groups[s, r]
                    state, ids, kind, sm = e["state"], e["ids"], e["kind"], e["seed_mixed"]
                    n = len(ids)
                    if n == 0:
                        continue
                    if kind == "win":
                        opp = groups[1 - s, r]
                        state, ids = _win_turn(
                            K, workers, e["values"], win_target, q, WinBot.TIE, opp, state, ids, sm, ra
                        )
                    elif kind == "target":
                        state, ids = target_turn(
                            K, workers, e["values"], e["target"], e["bot"].target, state, ids, sm, 0, ra
                        )
                    elif kind == "table":
                        spare, spare_ids = np.empty_like(state), np.empty_like(ids)
                        table_turn(K, workers, e["values"], state, ids, spare, spare_ids, sm, 0, ra)
                        state, ids = spare, spare_ids
                    else:
                        code = K.BOT_RANDOM if kind == "random" else K.BOT_FREQUENT

                        def play(a: int, b: int, code=code, turn=turn, state=state, sm=sm) -> None:
                            K.simple_games(code, turn, a, b, state, sm, 0, ra, no_moves)

                        workers.run(play, 0, n)
                    e["state"], e["ids"] = state, ids
                    if residuals is not None:
                        _opponent_rows(state, ids, e, residuals, ra, nb)
            tick(games * (turn + 1) // turns - games * turn // turns)
    scores = np.empty((games, p), dtype=np.int64)
    for (s, r), e in groups.items():
        i = (r + s) % p
        g = e["ids"] * p + r
        scores[g, i] = game_totals_of(e["state"], ra, nb)
    return scores


def play_match(
    rules: RuleSet | str | None,
    bots: list,
    games: int = 10_000,
    seed: int = 0,
    *,
    threads: int | None = None,
    tables_dir=None,
    engine: str = "auto",
    progress: bool | Callable[[int], None] = False,
    build_if_missing: bool = True,
) -> MatchResult:
    """Play ``games`` games between ``bots`` (names or :class:`Bot` objects, 2 to 8)."""
    rules = get_rules(rules)
    games = int(games)
    seed = check_seed(seed)
    if not 2 <= len(bots) <= MAX_PLAYERS:
        raise UsageError(f"a match needs 2 to {MAX_PLAYERS} bots, got {len(bots)}")
    if games < 1:
        raise UsageError(f"games must be 1 or more, got {games}")
    if games > MAX_GAMES:
        raise UsageError(f"games must be at most {MAX_GAMES:,} per match, got {games:,}")
    if engine not in ("auto", "numba", "python"):
        raise UsageError(f"engine must be auto, numba or python, got {engine!r}")
    made = [resolve_bot(bot, rules, tables_dir, build_if_missing, bool(progress)) for bot in bots]
    shared = [b for k, b in enumerate(made) if any(b is c for c in made[:k])]
    if any(callable(getattr(b, "see_opponents", None)) for b in shared):
        raise UsageError("give each player its own bot object (the same object twice shares its state)")
    kinds = _fast_ok(rules, made)
    if engine == "numba" and kinds is None:
        raise UsageError("these bots have no numba engine together (user bots, two win bots, order=choose)")
    use_numba = kinds is not None and engine != "python"
    n_threads = resolve_threads(threads) if use_numba else 1

    start = time.perf_counter()
    try:
        with progress_ticks(progress, games, "match") as tick:
            if use_numba:
                scores = _run_numba(rules, made, kinds, games, int(seed), n_threads, tick)
            else:
                scores = _run_python(rules, made, games, int(seed), tick)
    finally:  # the bot programs started here end here (a bot object given is the caller's)
        for name, bot in zip(bots, made, strict=True):
            if isinstance(name, str) and callable(getattr(bot, "close", None)):
                bot.close()
    p = len(made)
    seats = np.empty((games, p), dtype=np.int64)
    g = np.arange(games)
    for i in range(p):
        seats[:, i] = (i - g % p) % p
    return MatchResult(
        rules=rules,
        bots=[bot_name(b) for b in made],
        seed=int(seed),
        scores=scores,
        seats=seats,
        engine="numba" if use_numba else "python",
        threads=n_threads,
        seconds=time.perf_counter() - start,
    )

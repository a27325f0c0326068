"""Batch simulation: play many seeded games with a bot and measure it.

Dice come from the seeded stream of :mod:`solver.streams` (version 1): game ``g``
under seed ``s`` uses only its own stream, every roll takes the next five dice (the
rerolled dice take the first of them in order), so two bots given the same seed and
game index see the same five values on every roll whatever they keep.  Scores
therefore depend only on ``(rules, bot, seed, game index)``: not on the number of
threads, the chunking, nor on which other games are played.

Two engines give the same games:

* numba (the builtin bots): all games play turn-synchronously in
  :mod:`solver._kernels`; the table bots (``optimal``, ``heuristic``, ``greedy``)
  compute the within-turn tables once per distinct card state present at each turn
  and every game then decides from them, in parallel, on contiguous memory;
* Python (any :class:`~solver.bots.Bot`): one game after another through
  ``choose_keep``/``choose_box``, every move checked by :class:`~solver.card.ScoreCard`.
  ``rng`` is ``random.Random`` seeded from ``(seed, game)``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import dice as D
from .advisor import TIE_TOLERANCE
from .bots import Bot, FrequentBot, RandomBot, TableBot, TargetBot, bot_name, get_bot
from .card import ScoreCard
from .dice import Dice, is_sub_multiset
from .errors import IllegalMoveError, UsageError
from .rules import RuleSet, get_rules
from .streams import MASK64, SeededStream, check_seed, mix64, reroll_keep
from .threads import Workers, resolve_threads

#: The most games one call plays: the results are kept per game (measured peak: about 40 bytes
#: a game with the report's statistics, so about 4 GB at the cap, and some 7 minutes for the
#: optimal bot); play more as several calls with ``game0`` (or seeds) and pool the results.
MAX_GAMES = 100_000_000

DEFAULT_CHUNK = 1 << 20  # games in memory at once (96 bytes each)
LANE_BUDGET = 8192  # lanes whose within-turn tables are held at once (7.4 KB each)
STATE_WIDTH = 24  # int32 columns of a game's state (box scores, then _kernels.STATE_EXTRA)
PERCENTILES = (5, 25, 50, 75, 95)
Z95 = 1.959963984540054


@dataclass
class SimulationResult:
    """Scores of ``games`` games ``game0 .. game0 + games - 1`` and how they were made.

    ``scores`` (N,) int64 final totals; ``upper_bonus`` / ``yahtzee`` (N,) bool: the upper
    bonus was reached / at least one five of a kind scored 50 in the Yahtzee box (a
    later one can only earn a bonus after that); ``yahtzee_bonuses`` (N,) int64 extra
    Yahtzee bonuses; ``box_sums`` (n_boxes,) float64 total score per box over all games;
    ``cards`` (N, n_boxes) int16 each game's final boxes when kept.
    """

    rules: RuleSet
    bot: str
    seed: int
    game0: int
    scores: np.ndarray
    upper_bonus: np.ndarray
    yahtzee: np.ndarray
    yahtzee_bonuses: np.ndarray
    box_sums: np.ndarray
    threads: int
    engine: str
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    cards: np.ndarray | None = field(default=None, repr=False)

    @property
    def games(self) -> int:
        return int(self.scores.shape[0])

    def summary(self) -> dict:
        """Mean, spread, percentiles, bonus and Yahtzee rates, mean per box (JSON-ready)."""
        return summarize(self)


def summarize(result: SimulationResult) -> dict:
    s = result.scores.astype(np.float64)
    n = s.shape[0]
    mean = float(s.mean())
    std = float(s.std(ddof=1)) if n > 1 else 0.0
    se = std / math.sqrt(n)
    pct = np.percentile(s, PERCENTILES)
    rules = result.rules
    out = {
        "mean": mean,
        "std": std,
        "standard_error": se,
        "ci95": [mean - Z95 * se, mean + Z95 * se],
        "min": int(result.scores.min()),
        **{f"p{p}": float(v) for p, v in zip(PERCENTILES, pct, strict=True)},
        "max": int(result.scores.max()),
        "upper_bonus_rate": float(result.upper_bonus.mean()),
        "yahtzee_rate": float(result.yahtzee.mean()),
        "mean_yahtzee_bonuses": float(result.yahtzee_bonuses.mean()),
        "box_means": {name: float(v) / n for name, v in zip(rules.box_names, result.box_sums, strict=True)},
    }
    out["box_means"]["upper_bonus"] = out["upper_bonus_rate"] * rules.upper_bonus
    if rules.bonus:
        out["box_means"]["yahtzee_bonus"] = out["mean_yahtzee_bonuses"] * rules.bonus
    return out


def paired(a: SimulationResult, b: SimulationResult) -> dict:
    """``a - b`` game by game (same seed and games): mean, standard error, wins/ties/losses of ``a``."""
    if (a.seed, a.game0, a.games, a.rules) != (b.seed, b.game0, b.games, b.rules):
        raise UsageError("paired comparison needs the same rules, seed and games")
    d = a.scores.astype(np.float64) - b.scores
    n = d.shape[0]
    std = float(d.std(ddof=1)) if n > 1 else 0.0
    se = std / math.sqrt(n)
    mean = float(d.mean())
    return {
        "bot": a.bot,
        "vs": b.bot,
        "mean_difference": mean,
        "std_difference": std,
        "standard_error": se,
        "ci95": [mean - Z95 * se, mean + Z95 * se],
        "wins": int((d > 0).sum()),
        "ties": int((d == 0).sum()),
        "losses": int((d < 0).sum()),
    }


def histogram(scores: np.ndarray, width: int = 25, top: float = 99.9) -> tuple[np.ndarray, np.ndarray]:
    """Counts of scores in bins ``[edge, edge + width)``; the last bin also takes every score
    above the ``top`` percentile (it is open-ended)."""
    lo = int(scores.min()) // width * width
    hi = int(np.percentile(scores, top)) // width * width + width
    hi = max(hi, lo + width)
    edges = np.arange(lo, hi + width, width)
    counts = np.bincount(np.minimum((scores - lo) // width, len(edges) - 2), minlength=len(edges) - 1)
    return edges, counts


def _resolve_bot(bot, rules: RuleSet, tables_dir, build_if_missing: bool, progress: bool):
    if isinstance(bot, str):
        return get_bot(bot, rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
    if not (callable(getattr(bot, "choose_keep", None)) and callable(getattr(bot, "choose_box", None))):
        raise UsageError(f"{bot!r} is not a bot (it needs choose_keep and choose_box methods)")
    return bot


def fast_kind(bot, rules: RuleSet) -> str | None:
    """How the numba engine can play ``bot`` ("table", "random", "frequent"), or None.

    Only the builtin classes themselves qualify (a subclass may override their methods),
    and only for the rule set they were made for.
    """
    if type(bot) not in (TableBot, RandomBot, FrequentBot, TargetBot) or bot.rules != rules:
        return None
    if type(bot) is TargetBot and rules.order == "choose":
        return None  # the direction chosen for a target is the Python bot's
    return bot.fast_kind


def simulate(
    rules: RuleSet | str | None = None,
    bot: Bot | str = "optimal",
    games: int = 10_000,
    seed: int = 0,
    *,
    game0: int = 0,
    threads: int | None = None,
    tables_dir=None,
    engine: str = "auto",
    progress: bool | Callable[[int], None] = False,
    keep_cards: bool = False,
    chunk: int = DEFAULT_CHUNK,
    build_if_missing: bool = True,
) -> SimulationResult:
    """Play games ``game0 .. game0 + games - 1`` of ``rules`` with ``bot`` under ``seed``.

    ``engine``: ``"auto"`` (numba for builtin bots, else Python), ``"numba"`` or
    ``"python"``.  ``progress``: True for a tqdm bar on stderr, or a callable given the
    number of games done since the last call.  ``threads`` sets numba's thread count
    for this call (results do not depend on it).  The optimal bot's table is built when
    missing (unless ``build_if_missing=False``).
    """
    rules = get_rules(rules)
    games = int(games)
    seed = check_seed(seed)
    if games < 1:
        raise UsageError(f"games must be 1 or more, got {games}")
    if games > MAX_GAMES:
        raise UsageError(f"games must be at most {MAX_GAMES:,} (results are kept per game), got {games:,}")
    if int(game0) < 0:
        raise UsageError(f"the first game index must be 0 or more, got {game0}")
    if int(chunk) < 1:
        raise UsageError(f"chunk must be 1 or more, got {chunk}")
    if engine not in ("auto", "numba", "python"):
        raise UsageError(f"engine must be auto, numba or python, got {engine!r}")
    bot = _resolve_bot(bot, rules, tables_dir, build_if_missing, bool(progress))
    fast = fast_kind(bot, rules)
    if engine == "numba" and fast is None:
        raise UsageError(f"bot {bot_name(bot)!r} has no numba engine; use engine='python'")
    use_numba = fast is not None and engine != "python"
    n_threads = resolve_threads(threads) if use_numba else 1

    bar = None
    if progress is True:
        from tqdm import tqdm

        bar = tqdm(
            total=games,
            desc=f"{bot_name(bot)} on {rules.id}",
            unit="game",
            unit_scale=True,
            leave=False,
            dynamic_ncols=True,
        )
        tick = bar.update
    elif callable(progress):
        tick = progress
    else:

        def tick(n):
            return None

    start_wall, start_cpu = time.perf_counter(), time.process_time()
    try:
        if use_numba:
            parts = _run_numba(
                rules, bot, fast, games, int(seed), int(game0), n_threads, tick, keep_cards, int(chunk)
            )
            engine_used = "numba"
        else:
            parts = _run_python(rules, bot, games, int(seed), int(game0), tick, keep_cards)
            engine_used = "python"
    finally:
        if bar is not None:
            bar.close()
    wall, cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
    return SimulationResult(
        rules=rules,
        bot=bot_name(bot),
        seed=int(seed),
        game0=int(game0),
        threads=n_threads,
        engine=engine_used,
        seconds=wall,
        cpu_seconds=cpu,
        **parts,
    )


def _finish(rules: RuleSet, scores: np.ndarray, nbonus: np.ndarray, ids: np.ndarray | None = None) -> dict:
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


def _results(games: int, n_boxes: int, keep_cards: bool) -> dict:
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


def _store(out: dict, start: int, part: dict) -> None:
    """Copy the results of games ``start ..`` (a :func:`_finish` dict) into ``out``."""
    for key in ("scores", "upper_bonus", "yahtzee", "yahtzee_bonuses"):
        out[key][start : start + len(part[key])] = part[key]
    out["box_sums"] += part["box_sums"]


def _lane_batches(group_lane: np.ndarray) -> tuple[int, list[tuple[int, int, int]]]:
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
    mask, in ``spare``/``spare_ids`` (see :func:`solver._kernels.group_games`)."""
    nb = ra.box_face.shape[0]
    groups = K.group_games(
        state, ids, spare, spare_ids, values.shape[0], values.shape[1] - 1, values.shape[2], nb
    )
    group_mask, group_start, group_lane, lane_u, lane_f, pos_lane = groups
    width, batches = _lane_batches(group_lane)
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
    mask = state[:, rules_n].astype(np.int64)
    u = np.minimum(state[:, rules_n + 1].astype(np.int64), cap)
    f = state[:, rules_n + 4].astype(np.int64) if n_flags == 2 else np.zeros(len(state), dtype=np.int64)
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
        rest = lanes // (t_max + 1)
        lane_f = (rest % n_flags).astype(np.int64)
        lane_u = (rest // n_flags % (cap + 1)).astype(np.int64)
        lane_mask = rest // n_flags // (cap + 1)
        starts = np.flatnonzero(np.diff(lane_mask)) + 1
        group_lane = np.concatenate(([0], starts, [len(lanes)])).astype(np.int64)
        group_mask = lane_mask[group_lane[:-1]].astype(np.int64)
        game_start = np.searchsorted(pos_lane, group_lane)  # first game of each group
        width, batches = _lane_batches(group_lane)
        e0_all = np.empty((width, D.N_KEEPS))
        e1_all = np.empty((width, D.N_KEEPS))
        for g0, g1, l0 in batches:

            def tables(a: int, b: int, l0=l0) -> None:
                K.target_group_tables(
                    a, b, l0, group_mask, group_lane, lane_u, lane_f, lane_need, w, w_off, w_len, ra, e0_all, e1_all
                )  # fmt: skip

            def play(a: int, b: int, l0=l0) -> None:
                K.play_target_games(
                    a, b, l0, pos_lane, game_need, games, game_ids, seed_mixed, game0, e0_all, e1_all,
                    w, w_off, w_len, TIE_TOLERANCE, ra,
                )  # fmt: skip

            workers.run(tables, g0, g1)
            workers.run(play, int(game_start[g0]), int(game_start[g1]))
        parts_state.append(games)
        parts_ids.append(game_ids)
    return np.concatenate(parts_state), np.concatenate(parts_ids)


def game_totals_of(state: np.ndarray, ra, nb: int) -> np.ndarray:
    """(N,) int64: the points on each card of the games ``state``, from the kernel rule arrays."""
    boxes = np.where(state[:, :nb] > 0, state[:, :nb], 0).sum(axis=1, dtype=np.int64)
    upper = state[:, nb + 1].astype(np.int64)
    bonus = np.where(upper >= int(ra.upper_threshold), int(ra.upper_bonus), 0)
    return boxes + bonus + state[:, nb + 2].astype(np.int64) * int(ra.bonus)


def _run_numba(rules, bot, kind, games, seed, game0, n_threads, tick, keep_cards, chunk) -> dict:
    from . import _kernels as K
    from .dp import kernel_values, rule_arrays

    nb = rules.n_boxes
    ra = rule_arrays(rules)
    first_ra = ra
    if kind == "target":
        target, bot_target = bot.table.arrays(), bot.target
        bot = bot.optimal  # its expected-score play, once the target is reached or out of reach
    if kind in ("table", "target"):
        values = kernel_values(bot.values)
        if rules.order == "choose":  # the direction is chosen before the first roll
            first_ra = rule_arrays(rules.directed(bot.advisor.direction()))
    seed_mixed = np.uint64(mix64(seed & MASK64))
    turns = rules.n_turns
    out = _results(games, nb, keep_cards)  # first: too many games for the memory fail at once
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
            _store(out, c0, _finish(rules, state[:, :nb], state[:, nb + 2], ids if sorted_games else None))
            if keep_cards:
                out["cards"][c0 + ids] = state[:, :nb]  # back in game order
            del state
    return out


def game_rng(seed: int, game: int) -> random.Random:
    """The ``rng`` handed to a Python bot in game ``game`` (independent of the dice)."""
    return random.Random(mix64(mix64(mix64(seed & MASK64) ^ (game & MASK64)) ^ 0x424F54))


def play_turn(rules: RuleSet, bot, card: ScoreCard, stream, rng) -> ScoreCard:
    """One turn of ``bot`` on ``card`` with dice from ``stream``; a keep that is not a sub-multiset
    of the dice or an illegal box raises :class:`IllegalMoveError` naming the bot."""
    name = bot_name(bot)
    dice = Dice(stream.next_five())
    for rolls_left in (2, 1):
        keep = tuple(sorted(int(f) for f in bot.choose_keep(card, dice, rolls_left, rng)))
        if not is_sub_multiset(keep, dice.values):
            raise IllegalMoveError(f"bot {name} kept {keep} from dice {dice}: not a subset of the dice")
        if len(keep) == D.N_DICE:
            if rules.all_rolls:
                raise IllegalMoveError(f"bot {name} kept all five dice: {rules.id} uses all three rolls")
            break
        dice = Dice(reroll_keep(keep, stream.next_five()))
    box = bot.choose_box(card, dice, rng)
    try:
        return card.score(box, dice)
    except IllegalMoveError as exc:
        raise IllegalMoveError(f"bot {name} chose an illegal box: {exc}") from None


def play_game(rules: RuleSet, bot, seed: int, game: int) -> ScoreCard:
    """One game of ``bot`` on the seeded stream (Python engine); returns the final card."""
    stream = SeededStream(seed, game)
    rng = game_rng(seed, game)
    card = ScoreCard.empty(rules)
    for _ in range(rules.n_turns):
        card = play_turn(rules, bot, card, stream, rng)
    return card


def _run_python(rules, bot, games, seed, game0, tick, keep_cards) -> dict:
    out = _results(games, rules.n_boxes, False)
    scores = np.empty((games, rules.n_boxes), dtype=np.int16)
    nbonus = np.zeros(games, dtype=np.int64)
    step = max(1, games // 200)
    pending = 0
    for i in range(games):
        card = play_game(rules, bot, seed, game0 + i)
        scores[i] = card.scores
        nbonus[i] = card.yahtzee_bonus_count
        pending += 1
        if pending >= step:
            tick(pending)
            pending = 0
    tick(pending)
    _store(out, 0, _finish(rules, scores, nbonus))
    out["cards"] = scores if keep_cards else None
    return out

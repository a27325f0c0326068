"""Batch simulation: play many seeded games with a bot and measure it.

Dice come from the seeded stream of :mod:`solver.core.streams` (version 1): game ``g``
under seed ``s`` uses only its own stream, every roll takes the next five dice (the
rerolled dice take the first of them in order), so two bots given the same seed and
game index see the same five values on every roll whatever they keep.  Scores
therefore depend only on ``(rules, bot, seed, game index)``: not on the number of
threads, the chunking, nor on which other games are played.

Two engines give the same games:

* numba (the builtin bots): all games play turn-synchronously in
  :mod:`solver.engine._kernels`; the table bots (``optimal``, ``heuristic``, ``greedy``)
  compute the within-turn tables once per distinct card state present at each turn
  and every game then decides from them, in parallel, on contiguous memory;
* Python (any :class:`~solver.play.bots.Bot`): one game after another through
  ``choose_keep``/``choose_box``, every move checked by :class:`~solver.core.card.ScoreCard`.
  ``rng`` is ``random.Random`` seeded from ``(seed, game)``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..core import dice as D
from ..core.card import ScoreCard
from ..core.dice import Dice, is_sub_multiset
from ..core.errors import IllegalMoveError, UsageError
from ..core.rules import RuleSet, get_rules
from ..core.streams import MASK64, SeededStream, check_seed, mix64, reroll_keep
from ..core.threads import resolve_threads
from ..engine.playout import MAX_GAMES, finish_games, progress_ticks, result_arrays, run_games, store_results
from .bots import Bot, FrequentBot, RandomBot, TableBot, TargetBot, bot_name, get_bot
from .protocol import ProtocolBot, play_batched

#: The most games one call plays: the results are kept per game (measured peak: about 40 bytes
#: a game with the report's statistics, so about 4 GB at the cap, and some 7 minutes for the
#: optimal bot); play more as several calls with ``game0`` (or seeds) and pool the results.
DEFAULT_CHUNK = 1 << 20  # games in memory at once (96 bytes each)

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


def resolve_bot(bot, rules: RuleSet, tables_dir, build_if_missing: bool, progress: bool):
    """A bot by name (:func:`~solver.play.bots.get_bot`) or the object itself, checked to be one."""
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
    owned = isinstance(bot, str)  # made here: a protocol bot's process is ended here
    bot = resolve_bot(bot, rules, tables_dir, build_if_missing, bool(progress))
    fast = fast_kind(bot, rules)
    if engine == "numba" and fast is None:
        raise UsageError(f"bot {bot_name(bot)!r} has no numba engine; use engine='python'")
    use_numba = fast is not None and engine != "python"
    n_threads = resolve_threads(threads) if use_numba else 1

    start_wall, start_cpu = time.perf_counter(), time.process_time()
    with progress_ticks(progress, games, f"{bot_name(bot)} on {rules.id}") as tick:
        if use_numba:
            parts = _run_numba(
                rules, bot, fast, games, int(seed), int(game0), n_threads, tick, keep_cards, int(chunk)
            )
            engine_used = "numba"
        elif isinstance(bot, ProtocolBot):  # a program: many games' decisions per message
            try:
                parts = _run_batched(rules, bot, games, int(seed), int(game0), tick, keep_cards)
            finally:
                if owned:
                    bot.close()
            engine_used = "protocol"
        else:
            parts = _run_python(rules, bot, games, int(seed), int(game0), tick, keep_cards)
            engine_used = "python"
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


def _run_numba(rules, bot, kind, games, seed, game0, n_threads, tick, keep_cards, chunk) -> dict:
    arrays: dict = {}
    if kind == "target":
        arrays |= {"target": bot.table.arrays(), "goal": bot.target}
        bot = bot.optimal  # its expected-score play, once the target is reached or out of reach
    if kind in ("table", "target"):
        arrays["values"] = bot.values
        if rules.order == "choose":
            arrays["direction"] = bot.advisor.direction()
    return run_games(rules, kind, games, seed, game0, n_threads, tick, keep_cards, chunk, **arrays)


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


def _run_batched(rules, bot, games, seed, game0, tick, keep_cards) -> dict:
    scores, nbonus = play_batched(rules, bot, games, seed, game0, tick)
    return _results(rules, scores, nbonus, keep_cards)


def _run_python(rules, bot, games, seed, game0, tick, keep_cards) -> dict:
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
    return _results(rules, scores, nbonus, keep_cards)


def _results(rules, scores: np.ndarray, nbonus: np.ndarray, keep_cards: bool) -> dict:
    """The result arrays of games played in Python: ``scores`` (games, n_boxes), ``nbonus`` (games,)."""
    out = result_arrays(len(scores), rules.n_boxes, False)
    store_results(out, 0, finish_games(rules, scores, nbonus))
    out["cards"] = scores if keep_cards else None
    return out

"""Batch simulation: play many seeded games with a bot and measure it.

Dice come from the seeded stream of :mod:`solver.core.streams` (version 1): game ``g``
under seed ``s`` uses only its own stream, every roll takes the next five dice (the
rerolled dice take the first of them in order), so two bots given the same seed and
game index see the same five values on every roll whatever they keep.  Scores
therefore depend only on ``(rules, bot, seed, game index)``: not on the number of
threads, the chunking, nor on which other games are played.

Three engines give the same games:

* numba (the builtin bots): all games play turn-synchronously in
  :mod:`solver.engine.kernels`; the table bots (``optimal``, ``heuristic``, ``greedy``)
  compute the within-turn tables once per distinct card state present at each turn
  and every game then decides from them, in parallel, on contiguous memory;
* numpy (the table bots, ungraded): the same turns as array operations
  (:mod:`solver.engine.numpy_play`), nothing to compile -- what ``engine="auto"`` plays for
  runs of at most :data:`NUMPY_GAMES` games in a process that holds no kernels yet, so that a
  first small run on a fresh install does not wait ten CPU seconds for them to compile;
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
from typing import TYPE_CHECKING

import numpy as np

from ..core import dice as D
from ..core.bounded import shown
from ..core.card import ScoreCard
from ..core.errors import UsageError
from ..core.rules import RuleSet, get_rules
from ..core.streams import MASK64, SeededStream, check_seed, mix64
from ..core.threads import resolve_threads
from ..engine import arrays as A
from ..engine.playout import (
    MAX_GAMES,
    finish_games,
    kernels_loaded,
    progress_ticks,
    result_arrays,
    run_games,
    store_results,
)

if TYPE_CHECKING:
    from ..engine.playout import RegretRecorder
    from ..engine.tables import Table
from . import protocol
from .bots import Bot, FrequentBot, RandomBot, TableBot, TargetBot, bot_name, get_bot
from .protocol import ProtocolBot, lockstep, program_turn
from .turn import BotTurn

#: The most games one call plays: the results are kept per game (measured peak: about 40 bytes
#: a game with the report's statistics, so about 4 GB at the cap, and some 7 minutes for the
#: optimal bot; graded, 24 bytes more: :class:`Regret`); play more as several calls with
#: ``game0`` (or seeds) and pool the results.
DEFAULT_CHUNK = 1 << 20  # games in memory at once (96 bytes each)

#: ``simulate(engine=...)``: ``auto`` picks numba for the builtin bots (numpy for a table bot's
#: runs of at most :data:`NUMPY_GAMES` games while the process holds no kernels), else Python
ENGINES = ("auto", "numba", "numpy", "python")
#: the most games ``engine="auto"`` plays in numpy (:mod:`solver.engine.numpy_play`: the same
#: games with nothing compiled -- a first run's ten CPU seconds of compilation saved).  Measured
#: (whole processes, CPU seconds, yahtzee): numpy 0.6 / 0.9 / 0.8 / 1.2 for 1,000 / 2,000 / 3,000 /
#: 5,000 games, the cached kernels 1.0 / 1.1 / 1.15 / 1.2 (their start-up: numba's import, the
#: cache's load); the kernels win above, and at any size once a process holds them
#: (:func:`~solver.engine.playout.kernels_loaded`: 1,000 games in 0.3 s against numpy's 0.6-1.3).
#: On an empty numba cache numpy wins far longer (issue 36, 2026-12-02, in-process, one thread):
#: 100,000 games in 7.4-8.3 CPU s against the kernels' 12.8-13.1 CPU s of compilation (group_games,
#: group_tables, play_table_games) before their 0.5 s of games; but a run played in numpy leaves
#: the cache empty, so every later run would pay numpy's 8 s instead of the cached kernels' ~1.3:
#: the cut stays at the warm break-even.
NUMPY_GAMES = 4000
#: the builtin bots that play six dice (Maxi Yatzy) in :func:`simulate`
SIX_DICE_BOTS = ("optimal", "heuristic", "greedy", "frequent", "random")
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
    #: each decision's loss against the table (``simulate(..., regret=True)``), else None
    regret: Regret | None = field(default=None, repr=False)
    #: the name a bot program gave itself in ``ready`` (:mod:`solver.play.protocol`), else None
    name: str | None = None
    #: the processes that played the games (``simulate_parallel``: this one and its workers)
    processes: int = 1
    #: how a split run went (:class:`solver.play.distributed.Split`), else None
    split: object = field(default=None, repr=False)

    @property
    def shown_bot(self) -> str:
        """How reports name the bot: ``example (Python) (cmd:node bot.js)`` for a program that
        named itself, else :attr:`bot`."""
        return self.bot if self.name is None else f"{self.name} ({self.bot})"

    @property
    def games(self) -> int:
        return int(self.scores.shape[0])

    def summary(self) -> dict:
        """Mean, spread, percentiles, bonus and Yahtzee rates, mean per box (JSON-ready)."""
        return summarize(self)


@dataclass
class Regret:
    """What a bot's decisions cost, by the table (:class:`solver.engine.playout.RegretRecorder`).

    ``value`` is the table's value of the empty card (the optimal expected score); for each
    decision the loss is the table's value of the best option minus that of the one taken
    (expected points), so a game's summed losses ``game_loss`` (N,) have the expectation
    ``value`` minus the bot's expected score -- without the luck of the dice.
    ``game_keep_loss`` (N,) the keeps' part, ``game_direction_loss`` (N,) the direction's
    (``order=choose``; else None), the rest the boxes'; ``game_luck`` (N,) what the dice gave
    against their expectation, so that each score is ``value - game_loss + game_luck``
    (:class:`~solver.engine.playout.RegretRecorder`).  ``turn_loss`` / ``turn_decisions``
    (turns, 3): summed losses and counts of each turn's keep with two rolls left, with one,
    box; ``box_loss`` (n_boxes, 2) the keep and box losses of the turns that filled each box,
    ``box_turns`` (n_boxes,) their number; ``worst`` the costliest decisions
    (:meth:`RegretRecorder.worst_decisions`).
    """

    value: float
    game_loss: np.ndarray
    game_keep_loss: np.ndarray
    game_direction_loss: np.ndarray | None
    game_luck: np.ndarray
    turn_loss: np.ndarray
    turn_decisions: np.ndarray
    box_loss: np.ndarray
    box_turns: np.ndarray
    worst: dict
    table: Table | None = field(default=None, repr=False)  # the table graded against

    @classmethod
    def of(cls, recorder: RegretRecorder, table: Table) -> Regret:
        return cls(
            table=table,
            value=table.empty_card_value,
            game_loss=recorder.game_loss,
            game_keep_loss=recorder.game_keep_loss,
            game_direction_loss=recorder.game_direction_loss,
            game_luck=recorder.game_luck,
            turn_loss=recorder.turn_loss,
            turn_decisions=recorder.turn_decisions,
            box_loss=recorder.box_loss,
            box_turns=recorder.box_turns,
            worst=recorder.worst_decisions(),
        )


def mean_and_se(x: np.ndarray) -> tuple[float, float]:
    """The mean of ``x`` and its standard error (0 for a single value)."""
    n = len(x)
    std = float(x.std(ddof=1)) if n > 1 else 0.0
    return float(x.mean()), std / math.sqrt(n)


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


def regret_summary(result: SimulationResult) -> dict:
    """What the bot's decisions cost by the table (JSON-ready): the loss per game with its
    standard error, the expected score it implies (the table's value minus the loss), the
    keeps', boxes' (and under ``order=choose`` the direction's) parts, per turn and per box."""
    r = result.regret
    if r is None:
        raise UsageError("this simulation did not grade the decisions (simulate(..., regret=True))")
    n = result.games
    mean, se = mean_and_se(r.game_loss)
    direction = r.game_direction_loss if r.game_direction_loss is not None else np.zeros(n)
    parts = {
        "keeps": (r.game_keep_loss, int(r.turn_decisions[:, :2].sum())),
        "boxes": (r.game_loss - r.game_keep_loss - direction, int(r.turn_decisions[:, 2].sum())),
    }
    if r.game_direction_loss is not None:
        parts["direction"] = (direction, n)
    luck, luck_se = mean_and_se(r.game_luck)
    out: dict = {
        "optimal_value": r.value,
        "loss_per_game": mean,
        "standard_error": se,
        "ci95": [mean - Z95 * se, mean + Z95 * se],
        "expected_score": r.value - mean,
        # mean score = optimal_value - loss + luck, game by game; the luck's expectation is 0
        "luck_per_game": luck,
        "luck_standard_error": luck_se,
    }
    for name, (per_game, decisions) in parts.items():
        m, e = mean_and_se(per_game)
        total = float(per_game.sum())
        out[name] = {
            "loss_per_game": m,
            "standard_error": e,
            "decisions_per_game": decisions / n,
            "loss_per_decision": total / decisions if decisions else 0.0,
        }
    out["by_turn"] = [
        {
            "turn": t + 1,
            "keep_two_rolls_left": float(r.turn_loss[t, 0]) / n,
            "keep_one_roll_left": float(r.turn_loss[t, 1]) / n,
            "box": float(r.turn_loss[t, 2]) / n,
            "share_rolling_again": float(r.turn_decisions[t, 1]) / n,
        }
        for t in range(len(r.turn_loss))
    ]
    out["by_box"] = {
        name: {"keeps": float(r.box_loss[b, 0]) / n, "box": float(r.box_loss[b, 1]) / n}
        for b, name in enumerate(result.rules.box_names)
    }
    return out


def worst_positions(result: SimulationResult) -> list[dict]:
    """The costliest decisions of a graded simulation, costliest first, as positions that
    ``hint --batch`` reads (``rules``, ``card``, ``dice``, ``rolls_left``) with ``game``,
    ``turn`` (1-based), ``loss`` (points), the option ``played`` and the ``best`` one (each
    as ``hint --json`` shows an option, from :class:`~solver.advice.advisor.Advisor`)."""
    from ..advice.advisor import Advisor

    r = result.regret
    if r is None or r.table is None:
        raise UsageError("this simulation did not grade the decisions (simulate(..., regret=True))")
    rules, w = result.rules, r.worst
    advisor = Advisor(r.table)
    out = []
    for k in range(len(w["loss"])):
        position, played = worst_position(rules, w, k)
        advice = advisor.advise(position)
        out.append(
            worst_line(position, w, k, result.game0 + int(w["game"][k]))
            | {"played": advice.option_for(**played).to_json(), "best": advice.best.to_json()}
        )
    return out


def worst_position(rules: RuleSet, w: dict, k: int):
    """``(position, played)``: the position of worst decision ``k`` of ``w``
    (:meth:`~solver.engine.playout.RegretRecorder.worst_decisions`) and the option played there
    (``keep=`` or ``category=``, as :meth:`~solver.advice.advisor.Advice.option_for` takes it)."""
    from ..core.position import Position

    moves = [int(m) for m in w["moves"][k]]
    card = card_before_turn(rules, w["scores"][k], int(w["bonuses"][k]), moves)
    stage = int(w["stage"][k])
    keeps, dice_of = D.layer(rules.n_dice).keeps, D.dice_class(rules.n_dice)  # the engine's keep indices
    if stage == 2:
        return Position(card, dice_of(keeps[moves[4]]), 0), {"category": rules.box_names[moves[5]]}
    dice = dice_of(keeps[moves[2 * stage]])
    return Position(card, dice, 2 - stage), {"keep": keeps[moves[2 * stage + 1]]}


def card_before_turn(rules: RuleSet, scores_after, bonuses_after: int, moves) -> ScoreCard:
    """The card before a recorded turn (``moves``, a row of ``N_MOVES`` ints: the columns of
    ``arrays.MOVE_ROLL1 .. MOVE_BOX``) from the one after it (box scores, -1 open, and
    five-of-a-kind bonuses): the box it filled open again, its bonus (if any) undone."""
    box, final = int(moves[5]), D.dice_class(rules.n_dice)(D.layer(rules.n_dice).keeps[int(moves[4])])
    scores = tuple(None if s < 0 or b == box else int(s) for b, s in enumerate(scores_after))
    bonus = any(p.bonus for p in ScoreCard(rules, scores).placements(final) if p.box == rules.box_names[box])
    return ScoreCard(rules, scores, int(bonuses_after) - int(bonus))


def worst_line(position, w: dict, k: int, game: int) -> dict:
    """The fields of worst decision ``k`` that ``hint --batch`` reads (``rules``, ``card``,
    ``dice``, ``rolls_left``), then ``game``, ``turn`` (1-based) and ``loss``."""
    return {
        "rules": position.rules.id,
        "card": str(position.card),
        "dice": str(position.dice),
        "rolls_left": position.rolls_left,
        "game": game,
        "turn": int(w["turn"][k]) + 1,
        "loss": round(float(w["loss"][k]), 9),
    }


def strength_gap(result: SimulationResult, optimal: SimulationResult) -> dict:
    """The bot's gap to optimal play measured twice on the same games: by the losses of its
    decisions (``result.regret``) and by the paired score difference ``optimal - result``
    (``optimal``: the optimal bot on the same seed and games).  Both estimate the optimal
    expected score minus the bot's; ``difference`` (losses minus score difference, with its
    paired standard error and ``z``) shows whether they agree, ``se_ratio`` how much more
    precise the losses are (the score difference's standard error over theirs)."""
    pair = paired(optimal, result)
    loss = result.regret.game_loss if result.regret is not None else None
    if loss is None:
        raise UsageError("the strength gap needs a simulation that graded the decisions (regret=True)")
    mean, se = mean_and_se(loss)
    d_mean, d_se = mean_and_se(loss - (optimal.scores.astype(np.float64) - result.scores))
    return {
        "regret": mean,
        "regret_standard_error": se,
        "score_difference": pair["mean_difference"],
        "score_difference_standard_error": pair["standard_error"],
        "difference": d_mean,
        "difference_standard_error": d_se,
        "z": d_mean / d_se if d_se > 0 else 0.0,
        "se_ratio": pair["standard_error"] / se if se > 0 else math.inf,
    }


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
    regret: bool = False,
    worst: int = 0,
) -> SimulationResult:
    """Play games ``game0 .. game0 + games - 1`` of ``rules`` with ``bot`` under ``seed``.

    ``engine``: ``"auto"`` (numba for builtin bots -- numpy for a table bot's ungraded run of
    at most :data:`NUMPY_GAMES` games until the process holds the kernels --, else Python), ``"numba"``, ``"numpy"`` or
    ``"python"``: the same games.  ``progress``: True for a tqdm bar on stderr, or a callable given the
    number of games done since the last call.  ``threads`` sets numba's thread count
    for this call (results do not depend on it).  The optimal bot's table is built when
    missing (unless ``build_if_missing=False``).

    ``regret``: also grade every decision against the rule set's table (loaded, or built
    when missing unless ``build_if_missing=False``): the result's :class:`Regret`, with the
    ``worst`` costliest decisions kept (:func:`worst_positions` writes them out).  The
    scores are the same either way.
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
    if engine not in ENGINES:
        raise UsageError(f"engine must be {', '.join(ENGINES)}, got {shown(engine)}")
    worst = int(worst)
    if not 0 <= worst <= MAX_WORST:
        raise UsageError(f"worst must be 0 to {MAX_WORST:,} decisions, got {worst:,}")
    owned = isinstance(bot, str)  # made here: a protocol bot's process is ended here
    if rules.n_dice != 5 and (bot.strip().lower() if owned else bot_name(bot)) not in SIX_DICE_BOTS:
        raise UsageError(f"bot {bot!r} does not play six dice yet ({rules.id}): {', '.join(SIX_DICE_BOTS)}")
    bot = resolve_bot(bot, rules, tables_dir, build_if_missing, bool(progress))
    fast = fast_kind(bot, rules)
    if engine in ("numba", "numpy") and fast is None:
        raise UsageError(f"bot {bot_name(bot)!r} has no {engine} engine; use engine='python'")
    if engine == "numpy" and (fast != "table" or regret):
        raise UsageError("the numpy engine plays the table bots (optimal, heuristic, greedy), ungraded")
    use_numba = fast is not None and engine != "python"
    if rules.n_dice != 5 and engine == "numpy":
        raise UsageError(
            f"{rules.id}: six dice are simulated by the {', '.join(SIX_DICE_BOTS)} bots in the "
            "kernels (no numpy engine yet)"
        )
    if (
        engine == "auto"
        and fast == "table"
        and not regret
        and games <= NUMPY_GAMES
        and rules.n_dice == 5  # the numpy engine plays five dice
        and not kernels_loaded()
    ):
        engine = "numpy"  # a small run, the kernels not loaded yet: nothing to compile (the same games)
    n_threads = (
        resolve_threads(threads) if use_numba or regret else 1
    )  # numpy too: its big operations free the GIL
    table = recorder = None
    if regret:
        from ..engine.playout import RegretRecorder
        from ..engine.tables import get_table

        if rules.n_dice != 5 and type(bot) is TableBot and bot.name == "optimal":
            table = bot.advisor.table  # the optimal bot's own table: loaded once (638 MB)
        else:
            table = get_table(rules, tables_dir, build_if_missing=build_if_missing, progress=bool(progress))
        recorder = RegretRecorder(rules, games, worst)

    start_wall, start_cpu = time.perf_counter(), time.process_time()
    with progress_ticks(progress, games, f"{bot_name(bot)} on {rules.id}") as tick:
        if use_numba:
            engine_used = "numpy" if engine == "numpy" else "numba"
            parts = _run_numba(
                rules, bot, fast, games, int(seed), int(game0), n_threads, tick, keep_cards, int(chunk),
                recorder, table, engine_used,
            )  # fmt: skip
        elif isinstance(bot, ProtocolBot):  # a program: many games' decisions per message
            try:
                parts = _run_batched(
                    rules, bot, games, int(seed), int(game0), tick, keep_cards, recorder, table, n_threads
                )
            finally:
                if owned:
                    bot.close()
            engine_used = "protocol"
        else:
            parts = _run_python(
                rules, bot, games, int(seed), int(game0), tick, keep_cards, recorder, table, n_threads
            )
            engine_used = "python"
    wall, cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
    if recorder is not None:
        parts["regret"] = Regret.of(recorder, table)
    return SimulationResult(
        rules=rules,
        bot=bot_name(bot),
        name=getattr(bot, "bot_name", None),
        seed=int(seed),
        game0=int(game0),
        threads=n_threads,
        engine=engine_used,
        seconds=wall,
        cpu_seconds=cpu,
        **parts,
    )


def _run_numba(
    rules, bot, kind, games, seed, game0, n_threads, tick, keep_cards, chunk, recorder=None, table=None,
    engine="numba",
) -> dict:  # fmt: skip
    arrays: dict = {}
    if kind == "target":
        arrays |= {"target": bot.table.arrays(), "goal": bot.target}
        bot = bot.optimal  # its expected-score play, once the target is reached or out of reach
    if kind in ("table", "target"):
        arrays["values"] = bot.values
        if rules.order == "choose":
            arrays["direction"] = bot.advisor.direction()
    if recorder is not None:
        arrays["regret"] = recorder
        # a bot that plays the table itself is graded from its own turn tables
        if kind not in ("table", "target") or not np.array_equal(
            np.asarray(bot.values), np.asarray(table.values), equal_nan=True
        ):
            arrays["grade_values"] = table.values
    return run_games(
        rules, kind, games, seed, game0, n_threads, tick, keep_cards, chunk, engine=engine, **arrays
    )


def game_rng(seed: int, game: int) -> random.Random:
    """The ``rng`` handed to a Python bot in game ``game`` (independent of the dice)."""
    return random.Random(mix64(mix64(mix64(seed & MASK64) ^ (game & MASK64)) ^ 0x424F54))


def play_turn(rules: RuleSet, bot, card: ScoreCard, stream, rng, moves=None) -> ScoreCard:
    """One turn of ``bot`` on ``card`` with dice from ``stream`` (:meth:`BotTurn.play
    <solver.play.turn.BotTurn.play>`); a keep that is not among the dice or an illegal box
    raises :class:`IllegalMoveError` naming the bot.  ``moves`` (a row of ``N_MOVES`` ints,
    :class:`solver.engine.playout.Grader`) records the turn."""
    return BotTurn(card, stream, moves).play(bot, rng)


def game_steps(rules: RuleSet, bot, seed: int, game: int, moves=None, cards=None, batched=False):
    """Game ``game`` of ``bot`` on the seeded stream as a generator of its decisions: with
    ``batched`` a bot program's (:func:`~solver.play.protocol.program_turn`, to be played in
    :func:`~solver.play.protocol.lockstep`), else none: every turn is played in process
    (:func:`play_turn`).  Returns the final card; ``moves`` ((n_turns, N_MOVES) ints) records
    each turn, ``cards`` (a list) gets the card after each turn appended."""
    stream = SeededStream(seed, game)
    rng = game_rng(seed, game)
    card = ScoreCard.empty(rules)
    for t in range(rules.n_turns):
        turn = BotTurn(card, stream, None if moves is None else moves[t])
        card = (yield from program_turn(turn, bot, game)) if batched else turn.play(bot, rng)
        if cards is not None:
            cards.append(card)
    return card


def play_game(rules: RuleSet, bot, seed: int, game: int, moves=None, cards=None) -> ScoreCard:
    """One game of ``bot`` on the seeded stream (Python engine); returns the final card.  With
    ``moves`` ((n_turns, N_MOVES) ints) each turn is recorded (:func:`play_turn`), with ``cards``
    (a list) the card after each turn appended."""
    return lockstep({game: game_steps(rules, bot, seed, game, moves, cards)})[game]  # asks nothing


def play_batched(
    rules: RuleSet,
    bot: ProtocolBot,
    games: int,
    seed: int,
    game0: int,
    tick,
    recorder=None,
    table=None,
    threads=1,
) -> tuple[np.ndarray, np.ndarray]:
    """Play games ``game0 ..`` of a bot program in lockstep, :data:`solver.play.protocol.BATCH`
    at a time, each decision step of all of them in one exchange
    (:func:`~solver.play.protocol.lockstep`): ``(scores (games, n_boxes) int16, Yahtzee
    bonuses (games,) int64)``, graded into ``recorder`` when given.  The dice are each game's
    seeded stream, drawn in the order :func:`play_game` draws them: the games are those of the
    same decisions played in process."""
    scores = np.empty((games, rules.n_boxes), dtype=np.int16)
    bonuses = np.zeros(games, dtype=np.int64)
    grading = _PythonGrading(rules, recorder, table, threads) if recorder is not None else None
    size = min(protocol.BATCH, GRADE_BLOCK)
    try:
        for start in range(0, games, size):
            ids = range(game0 + start, game0 + min(games, start + size))
            if grading is not None and len(grading.cards) + len(ids) > GRADE_BLOCK:
                grading.grade()  # a block holds whole batches
            steps = {
                g: game_steps(rules, bot, seed, g, *_records(grading, g - game0), batched=True) for g in ids
            }
            for g, card in lockstep(steps).items():
                scores[g - game0] = card.scores
                bonuses[g - game0] = card.yahtzee_bonus_count
            tick(len(ids))
        if grading is not None:
            grading.grade()
    finally:
        if grading is not None:
            grading.close()
    return scores, bonuses


def _records(grading, i: int) -> tuple:
    """Where game ``i`` of a run records its turns for ``grading`` (``(None, None)``: nowhere)."""
    return (None, None) if grading is None else grading.next_game(i)


#: games of the Python engine graded at once (their turns go through the kernels together)
GRADE_BLOCK = 2048
#: the most worst decisions a simulation keeps
MAX_WORST = 100_000


def _run_batched(
    rules, bot, games, seed, game0, tick, keep_cards, recorder=None, table=None, threads=1
) -> dict:
    scores, nbonus = play_batched(rules, bot, games, seed, game0, tick, recorder, table, threads)
    return _results(rules, scores, nbonus, keep_cards)


def _run_python(
    rules, bot, games, seed, game0, tick, keep_cards, recorder=None, table=None, threads=1
) -> dict:
    scores = np.empty((games, rules.n_boxes), dtype=np.int16)
    nbonus = np.zeros(games, dtype=np.int64)
    step = max(1, games // 200)
    pending = 0
    block = _PythonGrading(rules, recorder, table, threads) if recorder is not None else None
    try:
        for i in range(games):
            card = play_game(rules, bot, seed, game0 + i, *_records(block, i))
            scores[i] = card.scores
            nbonus[i] = card.yahtzee_bonus_count
            pending += 1
            if pending >= step:
                tick(pending)
                pending = 0
        if block is not None:
            block.grade()
    finally:
        if block is not None:
            block.close()
    tick(pending)
    return _results(rules, scores, nbonus, keep_cards)


def _results(rules, scores: np.ndarray, nbonus: np.ndarray, keep_cards: bool) -> dict:
    """The result arrays of games played in Python: ``scores`` (games, n_boxes), ``nbonus`` (games,)."""
    out = result_arrays(len(scores), rules.n_boxes, False)
    store_results(out, 0, finish_games(rules, scores, nbonus))
    out["cards"] = scores if keep_cards else None
    return out


class _PythonGrading:
    """The Python engine's games, recorded a block at a time and graded in the kernels
    (:class:`solver.engine.playout.Grader`) into ``recorder``."""

    def __init__(self, rules: RuleSet, recorder, table, threads: int):
        from ..core.threads import Workers
        from ..engine.dp import kernel_values
        from ..engine.playout import Grader

        self.rules, self.recorder = rules, recorder
        self.workers = Workers(threads)
        self.grader = Grader(self.workers, rules, kernel_values(table.values))
        self.moves = np.empty((GRADE_BLOCK, rules.n_turns, A.N_MOVES), dtype=np.int16)
        self.cards: list[list[ScoreCard]] = []
        self.first = 0  # the game index of the block's first game

    def next_game(self, i: int) -> tuple[np.ndarray, list]:
        """Where game ``i`` records its turns (grading the block before when it is full)."""
        if len(self.cards) == GRADE_BLOCK:
            self.grade()
        if not self.cards:
            self.first = i
        self.cards.append([])
        return self.moves[len(self.cards) - 1], self.cards[-1]

    def grade(self) -> None:
        """Grade the block's games turn by turn into the recorder."""
        rules, n = self.rules, len(self.cards)
        if not n:
            return
        rows = np.arange(self.first, self.first + n, dtype=np.int64)
        empty = ScoreCard.empty(rules)
        for turn in range(rules.n_turns):
            before = [empty.state if turn == 0 else game[turn - 1].state for game in self.cards]
            mask, u, f = (np.array(column, dtype=np.int64) for column in zip(*before, strict=True))
            moves = self.moves[:n, turn]
            loss, direction = self.grader.grade(mask, u, f, moves)
            after = [game[turn] for game in self.cards]
            scores = np.array([[-1 if s is None else s for s in c.scores] for c in after], dtype=np.int16)
            bonuses = np.array([c.yahtzee_bonus_count for c in after], dtype=np.int64)
            self.recorder.add_turn(turn, rows, moves, loss, scores, bonuses, direction)
        self.cards = []

    def close(self) -> None:
        self.workers.close()

"""The triple card's players: in the bot protocol of the game model (:class:`TripleBot`) and whole
runs in the kernels (:func:`simulate_triple`), making the same moves (tested game by game)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..advice.triple import TripleAdvisor
from ..core import dice as D
from ..core.dice import Dice
from ..core.errors import UsageError
from ..core.position import Position
from ..core.rules import RuleSet
from ..core.triple_card import TripleCard, triple_rules
from ..engine import arrays as A


class TripleBot:
    """A player of the triple card in the bot protocol of :mod:`solver.play.bots` (``choose_keep``,
    ``choose_box``, the box named ``BOX@COLUMN``): ``triple``, ``tuned`` and ``floor`` play by the
    exact single-card table (:class:`~solver.advice.triple.TripleAdvisor`), ``heuristic`` and
    ``greedy`` by the heuristic or an all-zero evaluation, ``random`` uniformly.  Ties as the
    kernels break them: the keep with the most dice, the box first by column, then card order."""

    def __init__(self, name: str, rules: RuleSet, tables_dir=None, *, build_if_missing=True, progress=True):
        self.name = check_bot(name)
        self.rules = triple_rules(rules)
        self.advisor = None
        if self.name != "random":
            self.advisor = value_advisor(self.name, self.rules, tables_dir, build_if_missing, progress)

    def choose_keep(self, card: TripleCard, dice: Dice, rolls_left: int, rng) -> tuple[int, ...]:
        if self.advisor is None:
            return rng.choice([D.KEEPS[k] for k in D.ROLL_SUBKEEPS[dice.index]])
        advice = self.advisor.advise(Position(card, dice, rolls_left))
        return max((o.keep for o in advice.options if o.best), key=D.keep_index)

    def choose_box(self, card: TripleCard, dice: Dice, rng) -> str:
        if self.advisor is None:
            return rng.choice(card.placements(dice)).box
        advice = self.advisor.advise(Position(card, dice, 0))
        index = self.rules.single.box_index
        return min((o for o in advice.options if o.best), key=lambda o: (o.column, index[o.category])).box


def value_advisor(
    name: str, rules: RuleSet, tables_dir=None, build_if_missing=True, progress=True
) -> TripleAdvisor:
    """The advisor a triple player plays by: the exact base table (``triple``, ``tuned`` with its
    column scales, ``floor`` one column at a time), the heuristic evaluation or all zeros."""
    if name in ("triple", "tuned", "floor"):
        advisor = TripleAdvisor.load(rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
        return TripleAdvisor(advisor.table, rules, only_first=name == "floor", kappa=BOT_KAPPA.get(name))
    import numpy as np

    from ..engine.heuristic import heuristic_values
    from ..engine.tables import Table

    single = rules.single
    if name == "heuristic":
        values = heuristic_values(single)
    else:
        values = np.zeros((1 << single.n_boxes, single.upper_cap + 1, single.n_flags))
    return TripleAdvisor(Table(single, values, {"source": name}, Path(f"<{name} {single.id}>")), rules)


# --- simulation ---------------------------------------------------------------
#: The players of the triple card: name -> (value array, kernel mode, description).
TRIPLE_BOTS = {
    "triple": "one turn of lookahead over all columns with the exact single-card values (best-known)",
    "tuned": "the triple player with each column's values to come scaled (1.05, 0.9, 0.95), tuned by paired simulation",
    "floor": "each column in turn, played with the exact single-card strategy (6 x the base value)",
    "heuristic": "one turn of lookahead over all columns with the heuristic card evaluation (no table)",
    "greedy": "the most weighted points this turn, over all columns",
    "random": "uniformly random legal moves",
}
CHUNK = 4096
#: Per-column scales of the values to come, by player (1 where not given): a tuned correction
#: for the interaction of the columns -- the option of a later, better column makes column 2
#: and 3 boxes kept open worth less than their single-card value (a grid by paired
#: simulation on seeds 7 and 99, 20,000 games each; measured on seed 1 in the README).
BOT_KAPPA: dict[str, tuple[float, ...]] = {"tuned": (1.05, 0.9, 0.95)}


@dataclass
class TripleResult:
    """Final weighted scores of games ``game0 .. game0 + games - 1``; ``column_scores`` (N, 3)
    each column's weighted total."""

    rules: RuleSet
    bot: str
    seed: int
    game0: int
    scores: object
    column_scores: object
    threads: int
    seconds: float = 0.0
    engine: str = "numba"
    #: (N, C * B, N_MOVES) int16 when asked for: each turn's first roll, keep, second roll,
    #: keep, the five dice scored (keep indices of :mod:`solver.core.dice`; -1: no such roll)
    #: and the box filled as ``c * B + b`` (0-based column ``c``, box ``b`` in card order)
    moves: object = None

    @property
    def games(self) -> int:
        return int(self.scores.shape[0])

    def summary(self) -> dict:
        import numpy as np

        s = self.scores.astype(np.float64)
        n = len(s)
        std = float(s.std(ddof=1)) if n > 1 else 0.0
        return {
            "mean": float(s.mean()),
            "std": std,
            "standard_error": std / math.sqrt(n),
            "min": int(self.scores.min()),
            "median": float(np.median(s)),
            "max": int(self.scores.max()),
            "column_means": [float(v) for v in self.column_scores.mean(axis=0)],
        }


def _bot_values(name: str, rules: RuleSet, tables_dir, build_if_missing: bool, progress: bool):
    import numpy as np

    from ..engine.dp import kernel_values

    single = rules.single
    if name in ("triple", "tuned", "floor"):
        from ..engine.tables import get_table

        return kernel_values(
            get_table(single, tables_dir, build_if_missing=build_if_missing, progress=progress).values
        )
    if name == "heuristic":
        from ..engine.heuristic import heuristic_values

        return kernel_values(heuristic_values(single))
    return kernel_values(np.zeros((1 << single.n_boxes, single.upper_cap + 1, single.n_flags)))


def check_bot(name: str) -> str:
    key = str(name).strip().lower()
    if key not in TRIPLE_BOTS:
        hint = "; the exact optimum of the triple card is unknown" if key == "optimal" else ""
        raise UsageError(f"unknown bot {name!r} for the triple card (known: {', '.join(TRIPLE_BOTS)}){hint}")
    return key


def simulate_triple(
    rules: RuleSet | str = "triple",
    bot: str = "triple",
    games: int = 10_000,
    seed: int = 0,
    *,
    game0: int = 0,
    threads: int | None = None,
    tables_dir=None,
    progress: bool | Callable[[int], None] = False,
    build_if_missing: bool = True,
    kappa=None,
    moves: bool = False,
) -> TripleResult:
    """Play triple games ``game0 ..`` with a triple bot on the seeded dice streams (paired:
    game ``g`` of seed ``s`` gets the same dice for every bot).  ``moves``: keep every turn's
    rolls, keeps and box (:attr:`TripleResult.moves`)."""
    import numpy as np

    from ..core.streams import MASK64, check_seed, mix64
    from ..core.threads import Workers, resolve_threads
    from ..engine.dp import rule_arrays
    from ..engine.playout import MAX_GAMES, progress_ticks, triple_games

    rules = triple_rules(rules)
    name = check_bot(bot)
    games = int(games)
    seed = check_seed(seed)
    if not 1 <= games <= MAX_GAMES:
        raise UsageError(f"games must be from 1 to {MAX_GAMES:,}, got {games:,}")
    if int(game0) < 0:
        raise UsageError(f"the first game index must be 0 or more, got {game0}")
    single = rules.single
    values = _bot_values(name, rules, tables_dir, build_if_missing, bool(progress))
    mode = {"floor": A.TRIPLE_FIRST, "random": A.TRIPLE_RANDOM}.get(name, A.TRIPLE_ALL)
    weights = np.array(rules.weights, dtype=np.float64)
    kappa = np.array(
        BOT_KAPPA.get(name, (1.0,) * len(rules.weights)) if kappa is None else kappa, dtype=np.float64
    )
    if kappa.shape != weights.shape:
        raise UsageError(f"kappa needs {len(weights)} values, got {kappa.tolist()}")
    ra = rule_arrays(single)
    nb, n_col = single.n_boxes, len(rules.weights)
    n_turns = n_col * nb
    width = n_col * nb + A.TRIPLE_COLUMN_EXTRA * n_col + 1
    seed_mixed = np.uint64(mix64(int(seed) & MASK64))
    n_threads = resolve_threads(threads)

    scores = np.empty(games, dtype=np.int64)
    column_scores = np.empty((games, n_col), dtype=np.int64)
    record = np.empty((games * n_turns if moves else 0, A.N_MOVES), dtype=np.int16)
    start = time.perf_counter()
    with progress_ticks(progress, games, f"{name} on {rules.id}") as tick:
        with Workers(n_threads) as workers:
            for c0 in range(0, games, CHUNK * n_threads):
                n = min(CHUNK * n_threads, games - c0)
                state = np.zeros((n, width), dtype=np.int32)
                state[:, : n_col * nb] = -1
                rows = record[c0 * n_turns : (c0 + n) * n_turns] if moves else record

                triple_games(
                    workers, mode, state, seed_mixed, int(game0) + c0, values, weights, kappa, ra, rows
                )
                column_scores[c0 : c0 + n] = column_totals(single, rules.weights, state)
                tick(n)
    scores[:] = column_scores.sum(axis=1)
    return TripleResult(
        rules,
        name,
        int(seed),
        int(game0),
        scores,
        column_scores,
        n_threads,
        time.perf_counter() - start,
        moves=record.reshape(games, n_turns, A.N_MOVES) if moves else None,
    )


def column_totals(single: RuleSet, weights, state):
    """(N, C) weighted column totals of finished games in the kernel's layout."""
    import numpy as np

    from ..engine.card_arrays import card_totals
    from ..engine.dp import rule_arrays

    ra, nb, n_col = rule_arrays(single), single.n_boxes, len(weights)
    out = np.empty((state.shape[0], n_col), dtype=np.int64)
    for c in range(n_col):
        bonuses = state[:, n_col * nb + A.TRIPLE_COLUMN_EXTRA * c + A.TRIPLE_BONUSES]
        out[:, c] = weights[c] * card_totals(ra, state[:, c * nb : (c + 1) * nb], bonuses).total
    return out

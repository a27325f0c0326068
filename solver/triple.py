"""The triple card (modifier ``triple``): three columns of the base card, weighted x1, x2, x3.

Each turn fills one open box of any column; every rule of the base (upper bonus,
five-of-a-kind bonus, Joker) is judged within the chosen column, and every score of a
column, its bonuses included, is multiplied by the column's weight (``shared/RULES.md``).

Notation: ``BOX@COLUMN=SCORE`` entries, columns 1..3, e.g. ``ones@1=3,fours@3=12``, plus
``yahtzee_bonus@2=100`` for a column's five-of-a-kind bonuses.  ``str(card)`` writes the
entries column by column in card order, so ``TripleCard.parse(str(card)) == card``.

Exact play is out of reach (2^39 x 64^3 card states).  What is known and used here:

* the **floor** policy -- fill the columns one after the other, each with the exact
  single-card strategy -- is worth, at any position, the card's weighted total plus the
  weighted sum of the columns' exact values ``sum_c w_c V(s_c)`` (the columns are
  independent under it and every column's future is its table value, whenever it is
  played); from the empty card ``6 x`` the base value;
* the **triple** player: at each decision, the best of this turn's weighted points plus
  ``sum_c w_c V(s_c)`` after it -- one step of policy improvement over the floor, so it
  can only gain (measured in the README).  Its advice is best-known, not proven optimal.

The pure-Python :class:`TripleAdvisor` serves ``hint`` (no numba, the base table read
light); simulation runs in :func:`solver._kernels.triple_games`.
"""

from __future__ import annotations

import math
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from . import dice as D
from .advisor import TIE_TOLERANCE, TurnValues, average_keeps, best_subkeep
from .bounded import parse_whole, shown, whole_value
from .card import ScoreCard
from .dice import Dice
from .errors import CardError, IllegalMoveError, UsageError
from .rules import RuleSet, get_rules

COLUMN_SEP = "@"
_EMPTY_WORDS = {"", "-", "empty", "none"}
NOTE = (
    "best-known, not proven optimal: the triple player looks one turn ahead over the columns' "
    "exact single-card values; exp. final = this choice, then each column played out "
    "optimally in turn (the floor policy), a lower bound for continued triple play"
)


def triple_rules(rules: RuleSet | str | None) -> RuleSet:
    rules = get_rules(rules)
    if not rules.triple:
        raise UsageError(f"{rules.id} is not a triple card (add +triple, e.g. {rules.id}+triple)")
    return rules


# --- the card -------------------------------------------------------------------
@dataclass(frozen=True)
class TripleCard:
    """Three single-card columns of the base rule set (``columns[c]`` is column ``c + 1``)."""

    rules: RuleSet
    columns: tuple[ScoreCard, ...]

    def __post_init__(self) -> None:
        if not self.rules.triple:
            raise UsageError(f"{self.rules.id} is not a triple card")
        if len(self.columns) != len(self.rules.weights):
            raise CardError(f"a triple card has {len(self.rules.weights)} columns, got {len(self.columns)}")
        single = self.rules.single
        if any(col.rules != single for col in self.columns):
            raise CardError(f"the columns of a {self.rules.id} card are {single.id} cards")

    @classmethod
    def empty(cls, rules: RuleSet | str | None = "triple") -> TripleCard:
        rules = triple_rules(rules)
        return cls(rules, tuple(ScoreCard.empty(rules.single) for _ in rules.weights))

    @classmethod
    def parse(cls, text: str | None, rules: RuleSet | str | None = "triple") -> TripleCard:
        """Read ``"ones@1=3,fours@3=12,yahtzee_bonus@2=100"``; raises :class:`CardError`."""
        rules = triple_rules(rules)
        if isinstance(text, TripleCard):
            return text
        if text is not None and not isinstance(text, str):
            raise CardError(f"a triple card is text like 'ones@1=3,fours@3=12', got {text!r}")
        text = (text or "").strip()
        n_col = len(rules.weights)
        if text.lower() in _EMPTY_WORDS:
            return cls.empty(rules)
        parts: list[list[str]] = [[] for _ in range(n_col)]
        for entry in text.replace(";", ",").split(","):
            entry = entry.strip()
            if not entry:
                continue
            key, sep, value = entry.partition("=")
            name, at, column = key.partition(COLUMN_SEP)
            if not sep or not at:
                raise CardError(
                    f"card entry {shown(entry)} is not of the form BOX{COLUMN_SEP}COLUMN=SCORE "
                    f"(e.g. ones{COLUMN_SEP}1=3; columns 1..{n_col})"
                )
            try:
                number = parse_whole(column, "column", 1, n_col, error=CardError)
            except CardError:
                raise CardError(
                    f"card entry {shown(entry)}: column {shown(column.strip())} is not one of 1..{n_col}"
                ) from None
            parts[number - 1].append(f"{name.strip()}={value.strip()}")
        columns = []
        for c, entries in enumerate(parts):
            try:
                columns.append(ScoreCard.parse(",".join(entries), rules.single))
            except CardError as exc:
                raise CardError(f"column {c + 1}: {exc}") from None
        return cls(rules, tuple(columns))

    def __str__(self) -> str:
        out = []
        for c, col in enumerate(self.columns, start=1):
            for entry in str(col).split(","):
                if entry:
                    key, _, value = entry.partition("=")
                    out.append(f"{key}{COLUMN_SEP}{c}={value}")
        return ",".join(out)

    # --- totals and moves ---------------------------------------------------
    @property
    def weights(self) -> tuple[int, ...]:
        return self.rules.weights

    @property
    def column_totals(self) -> tuple[int, ...]:
        """Each column's weighted total (bonuses included)."""
        return tuple(w * col.total for w, col in zip(self.weights, self.columns, strict=True))

    @property
    def total(self) -> int:
        return sum(self.column_totals)

    @property
    def is_complete(self) -> bool:
        return all(col.is_complete for col in self.columns)

    @property
    def n_filled(self) -> int:
        return sum(col.n_filled for col in self.columns)

    @property
    def open_columns(self) -> tuple[int, ...]:
        """0-based indices of the columns with an open box."""
        return tuple(c for c, col in enumerate(self.columns) if not col.is_complete)

    def column_index(self, column) -> int:
        """A 1-based column number (int or text) as a 0-based index; raises IllegalMoveError."""
        n_col = len(self.weights)
        try:
            return whole_value(column, "column", 1, n_col, error=IllegalMoveError) - 1
        except IllegalMoveError:
            raise IllegalMoveError(f"column {shown(column)} is not one of 1..{n_col}") from None

    def placements(self, dice: Dice | str) -> list[tuple[int, object]]:
        """Every legal ``(column, Placement)`` (0-based column) for a roll."""
        dice = Dice.parse(dice)
        return [(c, p) for c in self.open_columns for p in self.columns[c].placements(dice)]

    def score(self, column, box: str, dice: Dice | str) -> TripleCard:
        """The card after putting ``dice`` in ``box`` of ``column`` (1-based)."""
        c = self.column_index(column)
        cols = list(self.columns)
        try:
            cols[c] = cols[c].score(box, dice)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"column {c + 1}: {exc}") from None
        return TripleCard(self.rules, tuple(cols))

    def format(self, preview: dict[tuple[int, str], int] | None = None) -> str:
        """The card in three columns (under 80 characters); open boxes show ``(n)`` previews
        keyed by ``(column index, box)`` when given."""
        rows = [col.rows() for col in self.columns]
        head = f"  {'':<16}" + "".join(f"{f'col {c + 1} x{w}':>10}" for c, w in enumerate(self.weights))
        lines = [head]
        for i, (name, _) in enumerate(rows[0]):
            cells = []
            for c in range(len(self.columns)):
                value = rows[c][i][1]
                if value is None:
                    shown = f"({preview[(c, name)]})" if preview and (c, name) in preview else "-"
                else:
                    shown = str(value)
                cells.append(f"{shown:>10}")
            lines.append(f"  {name:<16}" + "".join(cells))
        lines.append(f"  {'weighted':<16}" + "".join(f"{t:>10}" for t in self.column_totals))
        lines.append(f"  {'TOTAL':<16}{self.total:>10}")
        return "\n".join(lines)


# --- the advisor (plain Python, for hint) ---------------------------------------------
@dataclass(frozen=True)
class TripleOption:
    """A keep (``keep`` set) or a placement (``column`` 0-based, ``category``, ``score``)."""

    ev: float
    expected_final: float
    regret: float
    best: bool
    keep: tuple[int, ...] | None = None
    column: int | None = None
    category: str | None = None
    score: int | None = None
    bonus: int = 0
    weight: int = 1

    def describe(self) -> str:
        if self.keep is None:
            extra = f" (+{self.bonus} bonus)" if self.bonus else ""
            return (
                f"score {self.score} in {self.category} of column {self.column + 1} (x{self.weight}){extra}"
            )
        n = D.N_DICE - len(self.keep)
        if n == 0:
            return f"keep {' '.join(map(str, self.keep))} \u2014 stop and score"
        if not self.keep:
            return "reroll all five dice"
        words = {1: "one die", 2: "two dice", 3: "three dice", 4: "four dice"}
        return f"keep {' '.join(map(str, self.keep))}, reroll {words[n]}"

    def to_json(self) -> dict:
        if self.keep is not None:
            head: dict = {"keep": list(self.keep)}
        else:
            head = {"column": self.column + 1, "category": self.category, "score": self.score}
            if self.bonus:
                head["bonus"] = self.bonus
        return head | {
            "ev": round(self.ev, 9),
            "expected_final": round(self.expected_final, 9),
            "regret": round(self.regret, 9),
            "best": self.best,
        }


class _Scaled:
    """``values`` times ``k`` entry by entry (the kernel's ``kappa * V``, the same float product)."""

    def __init__(self, values, k: float):
        self.values, self.k = values, k

    def __getitem__(self, index) -> float:
        return self.k * float(self.values[index])


class TripleTurn:
    """The triple player's within-turn values of one triple card (see the module docstring).

    ``r0``/``e0``/``e1`` as :class:`~solver.advisor.TurnValues`, in weighted points relative
    to the floor value ``floor_ev`` (``sum_c w_c V(s_c)``); ``columns`` maps each considered
    column to its :class:`TurnValues`.  ``only_first``: the floor player (first open column);
    ``kappa``: per-column scales of the values to come (:data:`BOT_KAPPA`, the ``tuned`` player).
    """

    def __init__(
        self,
        card: TripleCard,
        values,
        cache: dict | None = None,
        only_first: bool = False,
        kappa: tuple[float, ...] | None = None,
    ):
        single = card.rules.single
        cache = {} if cache is None else cache
        self.card = card
        self.now: dict[int, float] = {}
        self.columns: dict[int, TurnValues] = {}
        for c in card.open_columns[:1] if only_first else card.open_columns:
            state = card.columns[c].state
            k = 1.0 if kappa is None else float(kappa[c])
            tv = cache.get((state, k))
            if tv is None:
                tv = cache[(state, k)] = TurnValues(single, state, values if k == 1.0 else _Scaled(values, k))
            self.columns[c] = tv
            self.now[c] = float(values[state]) if k == 1.0 else k * float(values[state])
        self.floor_ev = sum(
            w * float(values[col.state])
            for w, col in zip(card.weights, card.columns, strict=True)
            if not col.is_complete
        )
        weights = card.weights
        best = [-math.inf] * D.N_ROLLS
        for c, tv in self.columns.items():
            w, v = weights[c], self.now[c]
            best = [max(a, w * (b - v)) for a, b in zip(best, tv.r0, strict=True)]
        self.r0 = best
        stop = not single.all_rolls
        x = [0.0] * D.ROLL_OFFSET + best
        average_keeps(x)
        self.e0 = x.copy()
        best_subkeep(x, stop)
        average_keeps(x)
        self.e1 = x[: D.ROLL_OFFSET] + best
        if not stop:
            no_stop = [-math.inf] * D.N_ROLLS
            self.e0[D.ROLL_OFFSET :] = no_stop
            self.e1[D.ROLL_OFFSET :] = no_stop
        self._x, self._stop = x, stop

    @cached_property
    def value(self) -> float:
        """Expected weighted points to come (before rolling) of one triple turn, then the floor."""
        x = self._x
        best_subkeep(x, self._stop)
        return self.floor_ev + sum(p * v for p, v in zip(D.ROLL_PROBS, x[D.ROLL_OFFSET :], strict=True))

    def placement_values(self, dice: Dice) -> list[tuple[float, int, int, int, int]]:
        """``(relative value, column, box, score, bonus)`` of every legal placement considered."""
        out = []
        for c, tv in self.columns.items():
            w, v = self.card.weights[c], self.now[c]
            for b, s, bonus in tv.placements(dice):
                out.append((w * (tv.placement_value(b, s, bonus) - v), c, b, s, bonus))
        return out


class TripleAdvisor:
    """Ranks the options of triple positions from the base rule set's exact table."""

    def __init__(self, table, rules: RuleSet):
        self.table = table
        self.rules = triple_rules(rules)
        if table.rules != self.rules.single:
            raise UsageError(f"the {table.rules.id} table does not fit {self.rules.id}")
        self._cache: dict = {}

    @classmethod
    def load(
        cls,
        rules,
        tables_dir=None,
        *,
        build_if_missing: bool = True,
        progress: bool = True,
        light: bool = True,
    ):
        from .tables import get_table

        rules = triple_rules(rules)
        table = get_table(
            rules.single, tables_dir, build_if_missing=build_if_missing, progress=progress, light=light
        )
        return cls(table, rules)

    def turn(self, card: TripleCard) -> TripleTurn:
        if len(self._cache) > 4096:
            self._cache.clear()
        return TripleTurn(card, self.table.values, self._cache)

    def floor_value(self, card: TripleCard) -> float:
        """Expected final score of the floor policy from the start of a turn on ``card``."""
        values = self.table.values
        return card.total + sum(
            w * float(values[col.state])
            for w, col in zip(card.weights, card.columns, strict=True)
            if not col.is_complete
        )

    def advise(self, card: TripleCard, dice: Dice | str, rolls_left: int) -> list[TripleOption]:
        """Every option, best first (ties: keeps in keep order, placements column then card order)."""
        if rolls_left not in (0, 1, 2):
            raise UsageError(f"rolls left must be 0, 1 or 2, got {rolls_left!r}")
        if card.is_complete:
            raise UsageError(f"the card is full, there is no move to make: {card}")
        dice = Dice.parse(dice)
        tt = self.turn(card)
        base = card.total + tt.floor_ev
        raw: list[tuple[float, dict]] = []
        if rolls_left == 0:
            names = self.rules.single.box_names
            for ev, c, b, s, bonus in tt.placement_values(dice):
                raw.append(
                    (
                        ev,
                        {
                            "column": c,
                            "category": names[b],
                            "score": s,
                            "bonus": bonus,
                            "weight": card.weights[c],
                        },
                    )
                )
        else:
            ev_table = tt.e0 if rolls_left == 1 else tt.e1
            stop = D.ROLL_OFFSET + dice.index
            for k in reversed(D.ROLL_SUBKEEPS[dice.index]):
                if k == stop and self.rules.all_rolls:
                    continue
                raw.append((ev_table[k], {"keep": D.KEEPS[k]}))
        best_ev = max(v for v, _ in raw)
        order = sorted(range(len(raw)), key=lambda i: -raw[i][0])
        return [
            TripleOption(
                ev=raw[i][0],
                expected_final=base + raw[i][0],
                regret=best_ev - raw[i][0],
                best=best_ev - raw[i][0] <= TIE_TOLERANCE,
                **raw[i][1],
            )
            for i in order
        ]


def play_triple_game(advisor: TripleAdvisor, seed: int, game: int, bot: str = "triple") -> TripleCard:
    """One game of the ``triple`` (or ``floor``) player on the seeded dice stream, in plain
    Python -- the same decisions and ties as :func:`solver._kernels.triple_games` (for tests
    and reviews)."""
    from .streams import SeededStream, reroll_keep

    only_first = check_bot(bot) == "floor"
    if bot not in ("triple", "floor", "tuned"):
        raise UsageError(f"play_triple_game plays triple, tuned or floor, not {bot!r}")
    kappa = BOT_KAPPA.get(bot)
    stream = SeededStream(seed, game)
    card = TripleCard.empty(advisor.rules)
    names = advisor.rules.single.box_names
    for _ in range(advisor.rules.n_turns):
        tt = TripleTurn(card, advisor.table.values, advisor._cache, only_first=only_first, kappa=kappa)
        dice = Dice(stream.next_five())
        for ev in (tt.e1, tt.e0):
            subs = D.ROLL_SUBKEEPS[dice.index]
            best = max(ev[k] for k in subs)
            keep = D.KEEPS[max(k for k in subs if ev[k] >= best - TIE_TOLERANCE)]
            if len(keep) == D.N_DICE:
                break
            dice = Dice(reroll_keep(keep, stream.next_five()))
        options = tt.placement_values(dice)
        best = max(o[0] for o in options)
        _, c, b, _, _ = next(o for o in options if o[0] >= best - TIE_TOLERANCE)
        card = card.score(c + 1, names[b], dice)
    return card


def format_triple_advice(card: TripleCard, dice: Dice, rolls_left: int, options, top: int = 5) -> str:
    rolls = {0: "no rolls left", 1: "1 roll left", 2: "2 rolls left"}[rolls_left]
    lines = [f"{card.rules.id} | {str(card) or 'empty card'} | dice {' '.join(map(str, dice))} | {rolls}"]
    best = [o for o in options if o.best]
    lines.append(f"Best: {best[0].describe()}")
    if len(best) > 1:
        lines.append("  (equally good: " + "; ".join(o.describe() for o in best[1:]) + ")")
    shown = options if top == 0 else options[: max(top, 1)]
    width = max(len(o.describe()) for o in shown)
    lines.append(f"  {'option':<{width}}  {'exp. final':>10}  {'loss':>7}")
    for o in shown:
        lines.append(f"  {o.describe():<{width}}  {o.expected_final:10.2f}  {o.regret:7.3f}")
    if len(shown) < len(options):
        lines.append(f"  ... {len(options) - len(shown)} more (--top 0 shows all)")
    lines.append(textwrap.fill(f"note: {NOTE}", 80, subsequent_indent="  "))
    return "\n".join(lines)


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

    from .dp import kernel_values

    single = rules.single
    if name in ("triple", "tuned", "floor"):
        from .tables import get_table

        return kernel_values(
            get_table(single, tables_dir, build_if_missing=build_if_missing, progress=progress).values
        )
    if name == "heuristic":
        from .bots import heuristic_values

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
) -> TripleResult:
    """Play triple games ``game0 ..`` with a triple bot on the seeded dice streams (paired:
    game ``g`` of seed ``s`` gets the same dice for every bot)."""
    import numpy as np

    from . import _kernels as K
    from .dp import rule_arrays
    from .simulate import MAX_GAMES
    from .streams import MASK64, check_seed, mix64
    from .threads import Workers, resolve_threads

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
    mode = {"floor": K.TRIPLE_FIRST, "random": K.TRIPLE_RANDOM}.get(name, K.TRIPLE_ALL)
    weights = np.array(rules.weights, dtype=np.float64)
    kappa = np.array(
        BOT_KAPPA.get(name, (1.0,) * len(rules.weights)) if kappa is None else kappa, dtype=np.float64
    )
    if kappa.shape != weights.shape:
        raise UsageError(f"kappa needs {len(weights)} values, got {kappa.tolist()}")
    ra = rule_arrays(single)
    nb, n_col = single.n_boxes, len(rules.weights)
    width = n_col * nb + K.TRIPLE_COLUMN_EXTRA * n_col + 1
    seed_mixed = np.uint64(mix64(int(seed) & MASK64))
    n_threads = resolve_threads(threads)
    bar = None
    if progress is True:
        from tqdm import tqdm

        bar = tqdm(total=games, desc=f"{name} on {rules.id}", unit="game", unit_scale=True, leave=False)
        tick = bar.update
    elif callable(progress):
        tick = progress
    else:

        def tick(n):
            return None

    scores = np.empty(games, dtype=np.int64)
    column_scores = np.empty((games, n_col), dtype=np.int64)
    start = time.perf_counter()
    try:
        with Workers(n_threads) as workers:
            for c0 in range(0, games, CHUNK * n_threads):
                n = min(CHUNK * n_threads, games - c0)
                state = np.zeros((n, width), dtype=np.int32)
                state[:, : n_col * nb] = -1

                def work(a: int, b: int, state=state, first=int(game0) + c0) -> None:
                    K.triple_games(
                        mode, a, b, state, seed_mixed, first, values, weights, kappa, TIE_TOLERANCE, ra
                    )

                workers.run(work, 0, n)
                column_scores[c0 : c0 + n] = column_totals(single, rules.weights, state)
                tick(n)
    finally:
        if bar is not None:
            bar.close()
    scores[:] = column_scores.sum(axis=1)
    return TripleResult(
        rules, name, int(seed), int(game0), scores, column_scores, n_threads, time.perf_counter() - start
    )


def column_totals(single: RuleSet, weights, state):
    """(N, C) weighted column totals of finished games in the kernel's layout."""
    import numpy as np

    from ._kernels import TRIPLE_COLUMN_EXTRA

    nb, n_col = single.n_boxes, len(weights)
    out = np.empty((state.shape[0], n_col), dtype=np.int64)
    upper_idx = list(single.upper_indices)
    for c in range(n_col):
        boxes = state[:, c * nb : (c + 1) * nb].astype(np.int64)
        upper = boxes[:, upper_idx].sum(axis=1)
        total = boxes.sum(axis=1)
        if single.has_upper_bonus:
            total += np.where(upper >= single.upper_threshold, single.upper_bonus, 0)
        total += state[:, n_col * nb + TRIPLE_COLUMN_EXTRA * c + 2].astype(np.int64) * single.bonus
        out[:, c] = weights[c] * total
    return out

"""The advisor: every option of a position ranked by expected score.

A position is a rule set, a card, five dice and the number of rolls left
(2, 1 or 0).  With rolls left the options are the distinct sets of dice to keep
(keeping all five means stop rolling and score); with none left they are the
boxes the roll may legally go in.  Each option carries

* ``ev``             -- expected points still to come (this turn's box and bonuses
                        included, points already on the card excluded),
* ``expected_final`` -- ``card.total + ev``,
* ``regret``         -- best ``ev`` minus this ``ev`` (0 for the best),
* ``best``           -- whether it is best (within 1e-9).

This module is plain Python (no numpy, no numba), so a single ``hint`` starts
fast: the turn recursion of :mod:`solver._kernels` for one card state, written
over the 462 keeps as lists, takes about half a millisecond.  Batch work goes
through :mod:`solver.batch`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from . import dice as D
from .bounded import shown, whole_value
from .card import ScoreCard
from .dice import Dice
from .errors import IllegalMoveError, UsageError
from .rules import RuleSet, get_rules
from .tables import Table

if TYPE_CHECKING:
    import numpy as np

    from .tables import ValueFile

TIE_TOLERANCE = 1e-9
ONE_SIXTH = 1.0 / D.N_FACES


@dataclass(frozen=True)
class Position:
    """Rule set, card, dice and rolls left (0, 1 or 2)."""

    card: ScoreCard
    dice: Dice
    rolls_left: int

    def __post_init__(self) -> None:
        if self.rolls_left not in (0, 1, 2):
            raise UsageError(f"rolls left must be 0, 1 or 2, got {shown(self.rolls_left)}")
        if self.card.is_complete:
            raise UsageError(f"the card is full, there is no move to make: {self.card}")

    @property
    def rules(self) -> RuleSet:
        return self.card.rules

    @classmethod
    def parse(cls, card: str | ScoreCard | None, dice: str | Dice, rolls_left, rules=None) -> Position:
        """A position from text (or values); ``rules`` defaults to a given card's, else ``yahtzee``."""
        if rules is None and isinstance(card, ScoreCard):
            rules = card.rules
        rules = get_rules(rules)
        rolls_left = whole_value(rolls_left, "rolls left", 0, 2)
        card = ScoreCard.parse(card, rules)
        if card.rules != rules:
            raise UsageError(f"the card is a {card.rules.id} card, the position is {rules.id}")
        return cls(card, Dice.parse(dice), rolls_left)

    def __str__(self) -> str:
        return f"{self.rules.id} [{self.card}] dice {self.dice}, {self.rolls_left} rolls left"


@dataclass(frozen=True)
class Option:
    """One choice: keep some dice (``keep`` set) or score a box (``category`` set)."""

    ev: float
    expected_final: float
    regret: float
    best: bool
    keep: tuple[int, ...] | None = None
    category: str | None = None
    score: int | None = None
    bonus: int = 0
    #: on the keep-all option (stop rolling): the box that stopping implies and its points
    stop_category: str | None = None
    stop_score: int | None = None
    p_target: float | None = None  # P(final >= target) under target play (target advice only)
    p_win: float | None = None  # P(win) + P(tie) / 2 against the opponents (win advice only)

    @classmethod
    def _ranked(
        cls, evs, base, keeps=None, categories=None, scores=None, bonus: int = 0, stop=None
    ) -> tuple[Option, ...]:
        """Options from their ``ev``s, best first: keeps (``keeps``) or boxes (``categories``, ``scores``).

        ``expected_final``, ``regret`` and ``best`` follow from ``base`` and ``evs[0]``, as in
        :meth:`Advisor.advise`; ``stop`` is the ``(category, score)`` of the keep-all option.  For batch results: built without ``__init__``, whose frozen
        field-by-field assignments cost more than the rest (the objects are the same).
        """
        new, set_attr = object.__new__, object.__setattr__
        best_ev = evs[0]
        out = []
        if keeps is not None:
            for ev, keep in zip(evs, keeps, strict=True):
                option, regret = new(cls), best_ev - ev
                set_attr(option, "__dict__", {
                    "ev": ev, "expected_final": base + ev, "regret": regret, "best": regret <= TIE_TOLERANCE,
                    "keep": keep, "category": None, "score": None, "bonus": 0,
                    "stop_category": None, "stop_score": None,
                })  # fmt: skip
                if stop is not None and len(keep) == D.N_DICE:
                    option.__dict__["stop_category"], option.__dict__["stop_score"] = stop
                out.append(option)
        else:
            for ev, category, score in zip(evs, categories, scores, strict=True):
                option, regret = new(cls), best_ev - ev
                set_attr(option, "__dict__", {
                    "ev": ev, "expected_final": base + ev, "regret": regret, "best": regret <= TIE_TOLERANCE,
                    "keep": None, "category": category, "score": score, "bonus": bonus,
                    "stop_category": None, "stop_score": None,
                })  # fmt: skip
                out.append(option)
        return tuple(out)

    @property
    def is_keep(self) -> bool:
        return self.keep is not None

    def describe(self) -> str:
        """The option in words: ``keep 3 4 5 6, reroll one die`` or ``score 30 in small_straight``."""
        if self.keep is None:
            extra = f" (+{self.bonus} Yahtzee bonus)" if self.bonus else ""
            return f"score {self.score} in {self.category}{extra}"
        n = D.N_DICE - len(self.keep)
        if n == 0:
            where = f" {self.stop_score} in {self.stop_category}" if self.stop_category is not None else ""
            return f"keep {' '.join(map(str, self.keep))} \u2014 stop and score{where}"
        if not self.keep:
            return "reroll all five dice"
        words = {1: "one die", 2: "two dice", 3: "three dice", 4: "four dice"}
        return f"keep {' '.join(map(str, self.keep))}, reroll {words[n]}"

    def to_json(self) -> dict:
        head = (
            {"keep": list(self.keep)}
            if self.keep is not None
            else {"category": self.category, "score": self.score}
        )
        if self.stop_category is not None:
            head["stop_and_score"] = {"category": self.stop_category, "score": self.stop_score}
        if self.bonus:
            head["bonus"] = self.bonus
        out = head | {
            "ev": round(self.ev, 9),
            "expected_final": round(self.expected_final, 9),
            "regret": round(self.regret, 9),
            "best": self.best,
        }
        if self.p_target is not None:
            out["p_target"] = self.p_target
        if self.p_win is not None:
            out["p_win"] = self.p_win
        return out

    def __str__(self) -> str:
        return f"{self.describe()} (ev {self.ev:.3f}, loss {self.regret:.3f})"


@dataclass(frozen=True)
class Advice:
    """All options of a position, best first."""

    position: Position
    options: tuple[Option, ...]
    target: int | None = None  # target advice: options ranked by P(final >= target)

    @classmethod
    def deferred(
        cls,
        position: Position,
        build: Callable[[], tuple[Option, ...]],
        build_best: Callable[[], Option] | None = None,
    ) -> Advice:
        """An advice whose ``options`` are made by ``build()`` on first use (batch results).

        ``build_best()``, when given, makes only the best option, for :attr:`best`
        before ``options`` is built.  It is an ordinary :class:`Advice` otherwise:
        equal to the eager one, same repr.
        """
        advice = object.__new__(cls)
        object.__setattr__(advice, "position", position)
        object.__setattr__(advice, "_build", build)
        if build_best is not None:
            object.__setattr__(advice, "_build_best", build_best)
        return advice

    def __getattr__(self, name: str):
        # only reached when ``options`` is not set yet: a deferred advice builds it now
        if name == "options":
            build = self.__dict__.get("_build")
            if build is not None:
                options = build()
                object.__setattr__(self, "options", options)
                del self.__dict__["_build"]
                self.__dict__.pop("_build_best", None)
                return options
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __getstate__(self) -> dict:
        return {"position": self.position, "options": self.options}

    @property
    def best(self) -> Option:
        build_best = self.__dict__.get("_build_best")
        return build_best() if build_best is not None else self.options[0]

    @property
    def decision(self) -> str:
        return "score" if self.position.rolls_left == 0 else "keep"

    def to_json(self) -> dict:
        p = self.position
        return {
            "rules": p.rules.id,
            "card": str(p.card),
            "dice": str(p.dice),
            "rolls_left": p.rolls_left,
            "decision": self.decision,
            **({"target": self.target} if self.target is not None else {}),
            "options": [o.to_json() for o in self.options],
        }

    def option_for(self, keep=None, category: str | None = None) -> Option:
        """The option that keeps ``keep`` (faces) or scores ``category``."""
        if category is not None:
            for o in self.options:
                if o.category == category:
                    return o
            raise IllegalMoveError(f"{category} is not a legal box for {self.position.dice} on this card")
        want = tuple(sorted(keep or ()))
        for o in self.options:
            if o.keep == want:
                return o
        raise IllegalMoveError(
            f"cannot keep {' '.join(map(str, want)) or 'nothing'} from {self.position.dice}"
        )


def objective(points: int, next_value: float) -> float:
    """What a placement is worth: its points plus the value of the state it leads to (the
    twin of :func:`solver._kernels.objective`; a second objective is added here and there)."""
    return points + next_value


class TurnValues:
    """The within-turn values of one card state, as lists of floats.

    ``r0`` (252) -- best placement value of each roll with no rolls left;
    ``e0`` / ``e1`` (462) -- value of holding keep K and rerolling the rest with
    1 / 2 rolls left (for 5-dice keeps: the value of stopping and scoring now,
    ``r0``; -inf under ``all-rolls``, where stopping early is not allowed);
    ``value`` -- the state value before rolling.  All in expected points still to
    come.  ``values`` is a table's ``values``, a numpy array or a
    :class:`~solver.tables.ValueFile`: only single entries ``values[mask, u, f]`` are read.

    The arithmetic is the kernel's, term by term (the six ``E(K + face)`` summed in face
    order, then times ``ONE_SIXTH``; the roll's bonus added last), so ``e0``, ``e1`` and
    ``r0`` are bit-identical to :func:`solver._kernels.turn_tables` and near-ties rank the
    same way on every path.  Placements go through :meth:`RuleSet.placements` and
    :meth:`RuleSet.step`, the rules' plain-Python functions.
    """

    def __init__(self, rules: RuleSet, state: tuple[int, int, int], values: np.ndarray | ValueFile):
        self.rules, self.state, self.values = rules, state, values
        stop = not rules.all_rolls
        self.r0 = self._final_roll_values()
        x = [0.0] * D.ROLL_OFFSET + self.r0
        average_keeps(x)
        self.e0 = x.copy()
        best_subkeep(x, stop)
        average_keeps(x)
        # keeping all five means stopping now, whatever the rolls left
        self.e1 = x[: D.ROLL_OFFSET] + self.r0
        if not stop:
            no_stop = [float("-inf")] * D.N_ROLLS
            self.e0[D.ROLL_OFFSET :] = no_stop
            self.e1[D.ROLL_OFFSET :] = no_stop
        self._x = x  # e1 below five dice, R1 on the rolls: what ``value`` needs
        self._stop = stop
        self.stops: dict[int, tuple[str, int] | None] = {}  # roll index -> the box stopping implies

    @cached_property
    def value(self) -> float:
        """``sum_r P(r) R2(r)``: the table's value of this state (up to rounding in the last bits)."""
        x = self._x
        best_subkeep(x, self._stop)
        total = 0.0
        for p, v in zip(D.ROLL_PROBS, x[D.ROLL_OFFSET :], strict=True):
            total += p * v
        return total

    def placements(self, dice: Dice) -> list[tuple[int, int, int]]:
        """Legal ``(box, score, bonus)`` for a roll in this state (see :meth:`RuleSet.placements`)."""
        mask, _, flag = self.state
        return self.rules.placements(mask, dice.counts, bool(flag))

    def placement_value(self, box: int, score: int, bonus: int) -> float:
        """Points this placement earns now (bonuses included) plus the value of the next state."""
        points, nxt = self.rules.step(self.state, box, score)
        return self._worth(points, nxt, bonus)

    def _worth(self, points: int, nxt: tuple[int, int, int], bonus: int = 0) -> float:
        """What a placement earning ``points`` (and the roll's ``bonus``) and leading to ``nxt``
        is worth: the objective (points + value to come), then the bonus, as the kernel adds them."""
        return objective(points, float(self.values[nxt])) + bonus

    def _final_roll_values(self) -> list[float]:
        rules = self.rules
        mask = self.state[0]
        allowed = rules.allowed_bits(mask)
        columns = []  # per allowed box: the value of placing each roll there
        for b in range(rules.n_boxes):
            if not allowed >> b & 1:
                continue
            cand = {}
            for s in rules.possible_scores[b]:  # each score once (a few more do no harm)
                points, nxt = rules.step(self.state, b, s)
                cand[s] = self._worth(points, nxt)
            columns.append(list(map(cand.__getitem__, rules.scores_by_box[b])))
        if len(columns) > 1:
            best = list(map(max, *columns))
        else:  # one box to fill (or none: a full card, nothing to roll for)
            best = columns[0] if columns else [float("-inf")] * D.N_ROLLS
        rows = rules.rows_mask
        if allowed and rows and mask & rows == rows:  # a five of a kind now follows the Joker and bonus rules
            for face in range(1, D.N_FACES + 1):
                roll = Dice((face,) * D.N_DICE)
                best[roll.index] = max(self.placement_value(*p) for p in self.placements(roll))
        return best


class TargetTurnValues(TurnValues):
    """The within-turn values of one card state for target play: the largest probability of
    scoring at least ``need`` more points (``need >= 1``), from a target table
    (:class:`solver.target.TargetTable`); the same recursion as :class:`TurnValues` (the
    twin of :func:`solver._kernels.target_turn_tables`)."""

    def __init__(self, rules: RuleSet, state: tuple[int, int, int], table, need: int):
        self.table, self.need = table, need
        super().__init__(rules, state, None)

    def _worth(self, points: int, nxt: tuple[int, int, int], bonus: int = 0) -> float:
        return self.table.probability(nxt, self.need - points - bonus)


def mixed_win_value(table, state, need0: int, q, tie: float = 0.5, nmin: int | None = None) -> float:
    """``sum_j q[j] [(1 - tie) W(state, need0 + j) + tie W(state, need0 + j + 1)]`` from a
    target table (``W(t)`` = 1 for ``t <= 0``, 0 beyond the stored targets): P(win) + ``tie``
    P(tie) against a best opponent final ``B = b0 + j`` (probability ``q[j]``), ``need0 = b0 -
    total``, never below ``nmin`` (the opponents' best total so far - this total) (the twin of
    :func:`solver._kernels.mixed_win_value`, term by term)."""
    if nmin is None:
        nmin = need0
    off, length = table.span(state)  # both checked: a damaged table is a TableError

    def objective(need: int) -> float:
        if need <= 0:
            return 1.0
        if need > length:
            return 0.0
        return table.stored(off, need)

    acc = 0.0
    for j, qj in enumerate(q):
        n = max(need0 + j, nmin)
        acc += float(qj) * ((1.0 - tie) * objective(n) + tie * objective(n + 1))
    return acc


class WinTurnValues(TurnValues):
    """The within-turn values of one card state for playing to win: P(win) + ``tie`` x P(tie)
    against a best opponent final ``B`` of ``b0 + j`` with probability ``q[j]``, this card's
    total ``total``, each ``B`` valued by target play and mixed (``B`` at least ``floor``, the best
    opponent total so far): ``sum_j q[j] [(1 - tie) W(B - total - x) + tie W(B - total - x + 1)]`` for a placement
    earning ``x`` points and leading to state ``nxt``, ``W`` the target table's probabilities.

    Exact when ``B`` is certain (``q = [1]``: the opponents have finished); otherwise an
    approximation (the strategy after this turn is the one for each ``B``, so the value is
    an upper bound of what one strategy achieves).  The twin of
    :func:`solver._kernels.mixed_win_group_tables`, term by term.
    """

    def __init__(self, rules: RuleSet, state, table, total: int, b0: int, q, tie: float = 0.5, floor=None):
        self.table, self.total, self.b0, self.tie = table, int(total), int(b0), float(tie)
        self.floor = int(b0 if floor is None else floor)  # the best opponent total so far
        self.q = [float(v) for v in q]
        self._memo: dict = {}
        super().__init__(rules, state, None)

    def mixed(self, state, need0: int, nmin: int) -> float:
        """``sum_j q[j] win_objective(state, max(need0 + j, nmin))`` (the kernel's loop)."""
        return mixed_win_value(self.table, state, need0, self.q, self.tie, nmin)

    @property
    def start_value(self) -> float:
        """The value at the start of the turn (from the table: exact for target play)."""
        return self.mixed(self.state, self.b0 - self.total, self.floor - self.total)

    def _worth(self, points: int, nxt: tuple[int, int, int], bonus: int = 0) -> float:
        key = (points + bonus, nxt)
        v = self._memo.get(key)
        if v is None:
            x = self.total + points + bonus
            v = self._memo[key] = self.mixed(nxt, self.b0 - x, self.floor - x)
        return v


def stop_placement(rules: RuleSet, step_rules: RuleSet, state, dice: Dice, values) -> tuple[str, int] | None:
    """The box that stopping now implies: the ``(category, score)`` ranked first with no rolls
    left (placements of ``rules``, valued by ``step_rules``, ties in card order), as
    :meth:`Advisor.advise` ranks them."""
    mask, _, flag = state
    best = None
    for b, score, bonus in rules.placements(mask, dice.counts, bool(flag)):
        points, (m, u, f) = step_rules.step(state, b, score)
        value = objective(points, float(values[m, u, f])) + bonus
        if best is None or value > best[0]:
            best = (value, b, score)
    return None if best is None else (rules.box_names[best[1]], best[2])


def best_direction(rules: RuleSet, values: np.ndarray | ValueFile) -> str:
    """Under ``order=choose``: the direction (``down`` or ``up``) optimal play picks before the
    first roll -- the one whose empty card is worth more (ties: ``down``)."""
    down = TurnValues(rules.directed("down"), (0, 0, 0), values).value
    up = TurnValues(rules.directed("up"), (0, 0, 0), values).value
    return "up" if up > down + TIE_TOLERANCE else "down"


def average_keeps(x: list[float]) -> None:
    """In place: E(K) = mean over faces of E(K + face), for every keep of fewer than 5 dice.

    The kernel's arithmetic, term by term (faces in order, then times 1/6), so that
    every path gives bit-identical values and ranks near-ties the same way.  ``K + face``
    always has a larger index than ``K``, so one pass downwards sees finished values.
    """
    for k in range(D.ROLL_OFFSET - 1, -1, -1):
        a, b, c, d, e, f = D.KEEP_PLUS[k]
        x[k] = (x[a] + x[b] + x[c] + x[d] + x[e] + x[f]) * ONE_SIXTH


def best_subkeep(x: list[float], stop: bool = True) -> None:
    """In place: B(K) = max(x(K), max over faces of K of B(K - face)), keeps in index order.

    ``stop=False`` (``all-rolls``): a roll may not be kept whole, its row is the best of
    its proper sub-multisets only.
    """
    minus = D.KEEP_MINUS
    for k in range(1, D.N_KEEPS):
        best = x[k] if stop or k < D.ROLL_OFFSET else float("-inf")
        for j in minus[k]:
            if x[j] > best:
                best = x[j]
        x[k] = best


class Advisor:
    """Ranks options using a rule set's table (plain Python; see :mod:`solver.batch` for bulk).

    The table may be loaded with ``light=True`` (see :func:`solver.tables.load_table`): a
    single hint then never imports numpy.
    """

    def __init__(self, table: Table):
        self.table = table
        self.rules = table.rules
        self._cache: dict[tuple[int, int, int], TurnValues] = {}
        self._direction: str | None = None

    @classmethod
    def load(
        cls,
        rules=None,
        tables_dir=None,
        *,
        build_if_missing: bool = False,
        progress: bool = True,
        light: bool = False,
    ) -> Advisor:
        """The advisor of a rule set's table; ``light``: read it without numpy (see
        :func:`~solver.tables.load_table`), as a single hint does."""
        from .tables import get_table

        return cls(
            get_table(rules, tables_dir, build_if_missing=build_if_missing, progress=progress, light=light)
        )

    def turn(self, card: ScoreCard) -> TurnValues:
        """Within-turn values of the card's state (a few cached).

        Under ``order=choose`` the empty card is played in the direction optimal play
        chose before the first roll (:meth:`direction`).
        """
        key = card.state
        tv = self._cache.get(key)
        if tv is None:
            if len(self._cache) >= 1024:
                self._cache.clear()
            rules = self.rules
            if rules.order == "choose" and key[0] == 0:
                rules = rules.directed(self.direction())
            tv = self._cache[key] = TurnValues(rules, key, self.table.values)
        return tv

    def direction(self) -> str:
        """Under ``order=choose``: ``down`` or ``up``, whichever optimal play picks."""
        if self._direction is None:
            self._direction = best_direction(self.rules, self.table.values)
        return self._direction

    def card_value(self, card: ScoreCard | str | None = None) -> float:
        """Expected points still to come from the start of a turn (before rolling)."""
        card = ScoreCard.parse(card, self.rules)
        if card.is_complete:
            return 0.0
        mask, upper, flag = card.state
        return float(self.table.values[mask, upper, flag])

    def advise(self, position: Position) -> Advice:
        """Every option of ``position``, best first (ties in card/keep order)."""
        if position.rules != self.rules:
            raise UsageError(f"this advisor plays {self.rules.id}, the position is {position.rules.id}")
        card, dice = position.card, position.dice
        tv = self.turn(card)
        base = card.total
        raw: list[tuple[float, dict]] = []
        if position.rolls_left == 0:
            names = self.rules.box_names
            mask, _, flag = card.state
            for b, score, bonus in self.rules.placements(mask, dice.counts, bool(flag)):
                raw.append(
                    (
                        tv.placement_value(b, score, bonus),
                        {"category": names[b], "score": score, "bonus": bonus},
                    )
                )
        else:
            ev = tv.e0 if position.rolls_left == 1 else tv.e1
            stop = D.ROLL_OFFSET + dice.index
            for k in reversed(D.ROLL_SUBKEEPS[dice.index]):
                if k == stop:
                    if self.rules.all_rolls:
                        continue  # all three rolls must be used
                    where = tv.stops.get(dice.index, False)
                    if where is False:  # the box stopping implies, once per roll of this card state
                        where = stop_placement(self.rules, tv.rules, card.state, dice, self.table.values)
                        tv.stops[dice.index] = where
                    if where is not None:
                        category, score = where
                        raw.append(
                            (ev[k], {"keep": D.KEEPS[k], "stop_category": category, "stop_score": score})
                        )
                        continue
                raw.append((ev[k], {"keep": D.KEEPS[k]}))
        best_ev = max(v for v, _ in raw)
        order = sorted(range(len(raw)), key=lambda i: -raw[i][0])
        options = tuple(
            Option(
                ev=raw[i][0],
                expected_final=base + raw[i][0],
                regret=best_ev - raw[i][0],
                best=best_ev - raw[i][0] <= TIE_TOLERANCE,
                **raw[i][1],
            )
            for i in order
        )
        return Advice(position, options)


class TargetAdvisor:
    """Ranks options by the probability of reaching a target score (plain Python).

    Each option carries ``p_target``, P(final score >= target) when taking it and then
    playing for the target, beside the expected-score advisor's ``ev`` (points still to
    come when taking it and then playing for expected score).  Options are ranked by
    ``p_target``; options within :data:`TARGET_TIE` of each other are ranked by ``ev``, so
    once the target is reached (or out of reach) the advice is the expected-score advice.
    """

    def __init__(self, advisor: Advisor, table):
        if table.rules != advisor.rules:
            raise UsageError(f"the target table is for {table.rules.id}, the advisor for {advisor.rules.id}")
        self.advisor, self.table, self.rules = advisor, table, advisor.rules

    def turn(self, card: ScoreCard, need: int) -> TargetTurnValues:
        """Target-play values of the card's state with ``need`` (>= 1) more points wanted."""
        rules, state = self.rules, card.state
        if rules.order == "choose" and state[0] == 0:  # the direction that serves the target best
            down, up = (TargetTurnValues(rules.directed(d), state, self.table, need) for d in ("down", "up"))
            return up if up.value > down.value + TARGET_TIE else down
        return TargetTurnValues(rules, state, self.table, need)

    def probability(self, card: ScoreCard, target: int) -> float:
        """P(final >= target) from the start of a turn on ``card`` under target play."""
        need = target - card.total
        if need <= 0:
            return 1.0
        if card.is_complete:
            return 0.0
        return self.table.probability(card.state, need)

    def advise(self, position: Position, target: int) -> Advice:
        """Every option of ``position``, ranked by P(final >= ``target``), then expected score."""
        base = self.advisor.advise(position)
        card, dice = position.card, position.dice
        need = target - card.total
        if need > self.table.t_max:
            raise UsageError(
                f"{target} needs {need} more points; the {self.rules.id} target table holds up to "
                f"{self.table.t_max} (build a larger one with: yahtzee tables build --target --t-max N)"
            )
        tv = self.turn(card, need) if need > 0 else None
        stop = None
        scored = []
        for option in base.options:
            if need <= 0:
                p = 1.0
            else:
                p = probability_of(tv, option, position.rolls_left, self.rules)
                if option.keep is not None and len(option.keep) == D.N_DICE:
                    stop = self._stop_placement(tv, card, dice)
            scored.append((p, option))
        return ranked_by_probability(position, scored, "p_target", stop, target=target)

    def _stop_placement(self, tv: TargetTurnValues, card: ScoreCard, dice: Dice) -> tuple[str, int] | None:
        """The box that stopping implies under target play (ties: the expected-score ranking)."""
        ev_tv = self.advisor.turn(card)
        mask, _, flag = card.state
        best = None
        for b, score, bonus in self.rules.placements(mask, dice.counts, bool(flag)):
            key = (tv.placement_value(b, score, bonus), ev_tv.placement_value(b, score, bonus))
            if (
                best is None
                or key[0] > best[0][0] + TARGET_TIE
                or (abs(key[0] - best[0][0]) <= TARGET_TIE and key[1] > best[0][1])
            ):
                best = (key, b, score)
        return None if best is None else (self.rules.box_names[best[1]], best[2])


TARGET_TIE = 1e-12  # probabilities this close rank by expected score


def probability_of(tv: TurnValues, option: Option, rolls_left: int, rules: RuleSet) -> float:
    """An option's value in the units of ``tv`` (a probability for target or win play)."""
    if option.keep is None:
        return tv.placement_value(rules.box_index[option.category], option.score, option.bonus)
    return (tv.e0 if rolls_left == 1 else tv.e1)[D.keep_index(option.keep)]


def ranked_by_probability(
    position: Position, scored: list[tuple[float, Option]], field: str, stop, target: int | None = None
) -> Advice:
    """The options of ``scored`` (``(probability, expected-score option)``) ranked by probability,
    options within :data:`TARGET_TIE` by expected score; each gets the probability as ``field``
    (``p_target``, ``p_win``), ``best``, and the keep-all option the box ``stop`` implies."""
    scored = sorted(scored, key=lambda item: (-round(item[0], 12), -item[1].ev))
    best_p = scored[0][0]
    options = []
    for p, option in scored:
        fields = dict(option.__dict__)
        fields.update({field: p, "best": best_p - p <= TARGET_TIE})
        if option.keep is not None and len(option.keep) == D.N_DICE and stop is not None:
            fields["stop_category"], fields["stop_score"] = stop
        options.append(Option(**fields))
    return Advice(position, tuple(options), target=target)


def checked_advice(advisor, position):
    """The advice of ``position`` (its JSON is ``advice.to_json()``, what ``hint --json`` prints and
    the web API's ``/api/hint`` answers); a damaged table raises :class:`TableError`, never NaN."""
    advice = advisor.advise(position)
    check_finite(position.rules, [o.ev for o in advice.options], position)
    return advice


def value_json(advisor, card) -> dict:
    """What ``value --json`` prints (and ``/api/value`` answers) for a card."""
    ev = advisor.card_value(card)
    check_finite(card.rules, [ev], str(card) or "the empty card")
    return {
        "rules": card.rules.id,
        "card": str(card),
        "ev": round(ev, 9),
        "expected_final": round(card.total + ev, 9),
    }


def check_finite(rules, values, what) -> None:
    """A value that is not finite (NaN, an infinity) comes from a damaged table: one error line,
    never ``NaN`` in the output (it is not JSON) nor a crash in the text layout."""
    import math

    bad = next((x for x in values if not math.isfinite(x)), None)
    if bad is not None or not values:
        from .errors import TableError

        raise TableError(
            f"the {rules.id} table gives {bad} for {what}: it is damaged; rebuild it with: "
            f"yahtzee tables build --rules {rules.id} --force"
        )

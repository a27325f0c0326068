"""The advisors of a single card, the one :class:`Advice` every advisor returns, and its JSON.

A position is a rule set, a card, five dice and the number of rolls left
(2, 1 or 0).  With rolls left the options are the distinct sets of dice to keep
(keeping all five means stop rolling and score); with none left they are the
boxes the roll may legally go in.  Each option carries

* ``ev``             -- expected points still to come (this turn's box and bonuses
                        included, points already on the card excluded),
* ``expected_final`` -- ``card.total + ev``,
* ``regret``         -- best ``ev`` minus this ``ev`` (0 for the best),
* ``best``           -- whether it is best under the advice's objective (within 1e-9, a
                        probability within 1e-12),
* ``value``/``loss`` -- its value under the objective (:mod:`solver.advice.objectives`:
                        ``ev``, ``p_target`` or ``p_win``) and the best value minus it.

:class:`Advisor` ranks by expected score, :class:`TargetAdvisor` by P(final >= T) (and by
expected score); both answer ``advise(position, objective)``.  The ``hint --json`` schema is
defined once, by :func:`option_head`, :func:`option_values` and :func:`advice_json`:
:meth:`Advice.to_json` and the batch writer (:mod:`solver.advice.batch`) are made of them.

This module is plain Python (no numpy, no numba), so a single ``hint`` starts
fast: the turn recursion of :mod:`solver.engine.kernels` for one card state, written
over the 462 keeps as lists, takes about half a millisecond.  Batch work goes
through :mod:`solver.advice.batch`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Protocol

from ..core import dice as D
from ..core.card import ScoreCard
from ..core.dice import Dice
from ..core.errors import IllegalMoveError, UsageError
from ..core.position import Position
from ..core.rules import RuleSet
from ..engine.tables import Table
from ..engine.turn import (
    TargetTurnValues,
    TurnValues,
    best_direction,
    check_finite,
    regret_of,
    stop_placement,
)
from .objectives import EXPECTED_SCORE, AtLeast, ExpectedScore, Objective, Ranking, check_objective


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
    #: on a card of several columns (the triple card): the box's column (1-based) and its weight
    column: int | None = None
    weight: int = 1
    #: the best option's value under the advice's objective minus this one's (>= 0; ``regret``
    #: under expected score); every advisor sets it
    loss: float | None = None
    #: the dice rolled (a keep of all of them means stopping): 5, or 6 for Maxi Yatzy
    n_dice: int = 5

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
                option, regret = new(cls), regret_of(best_ev, ev)
                set_attr(option, "__dict__", {
                    "ev": ev, "expected_final": base + ev, "regret": regret, "best": regret == 0.0,
                    "keep": keep, "category": None, "score": None, "bonus": 0,
                    "stop_category": None, "stop_score": None, "loss": regret,
                })  # fmt: skip
                if stop is not None and len(keep) == D.N_DICE:
                    option.__dict__["stop_category"], option.__dict__["stop_score"] = stop
                out.append(option)
        else:
            for ev, category, score in zip(evs, categories, scores, strict=True):
                option, regret = new(cls), regret_of(best_ev, ev)
                set_attr(option, "__dict__", {
                    "ev": ev, "expected_final": base + ev, "regret": regret, "best": regret == 0.0,
                    "keep": None, "category": category, "score": score, "bonus": bonus,
                    "stop_category": None, "stop_score": None, "loss": regret,
                })  # fmt: skip
                out.append(option)
        return tuple(out)

    @property
    def is_keep(self) -> bool:
        return self.keep is not None

    @property
    def value(self) -> float:
        """The option's value under the advice's objective: ``p_win``, ``p_target`` or ``ev``."""
        if self.p_win is not None:
            return self.p_win
        return self.ev if self.p_target is None else self.p_target

    @property
    def box(self) -> str | None:
        """The box as the card names it: ``fours``, or ``fours@3`` on a card of columns."""
        if self.category is None or self.column is None:
            return self.category
        return f"{self.category}@{self.column}"

    def describe(self, label: Callable[[str], str] = str) -> str:
        """The option in words: ``keep 3 4 5 6, reroll one die`` or ``score 30 in small_straight``
        (``score 12 in fours of column 3 (x3)`` on the triple card); ``label`` names a box
        (:func:`solver.core.card.box_label`: ``Small straight``, as the web pages write it)."""
        if self.keep is None:
            extra = f" (+{self.bonus} Yahtzee bonus)" if self.bonus else ""
            where = f" of column {self.column} (x{self.weight})" if self.column is not None else ""
            return f"score {self.score} in {label(self.category)}{where}{extra}"
        n = self.n_dice - len(self.keep)
        if n == 0:
            where = (
                f" {self.stop_score} in {label(self.stop_category)}" if self.stop_category is not None else ""
            )
            return f"keep {' '.join(map(str, self.keep))} \u2014 stop and score{where}"
        if not self.keep:
            return f"reroll all {'six' if n == 6 else 'five'} dice"
        words = {1: "one die", 2: "two dice", 3: "three dice", 4: "four dice", 5: "five dice"}
        return f"keep {' '.join(map(str, self.keep))}, reroll {words[n]}"

    def to_json(self) -> dict:
        """The option as ``hint --json`` writes it (:func:`option_head`, :func:`option_values`)."""
        stop = None if self.stop_category is None else (self.stop_category, self.stop_score)
        head = option_head(self.keep, self.category, self.score, self.column, stop, self.bonus)
        out = head | option_values(self.ev, self.expected_final, self.regret, self.best)
        if self.p_target is not None:
            out["p_target"] = self.p_target
        if self.p_win is not None:
            out["p_win"] = self.p_win
        return out

    def __str__(self) -> str:
        return f"{self.describe()} (ev {self.ev:.3f}, loss {self.regret:.3f})"


# --- the ``hint --json`` schema (defined here only) -------------------------------------------
#: an advice's fields before its options (:func:`advice_json`), in this order
ADVICE_FIELDS = ("rules", "card", "dice", "rolls_left", "decision")
#: an option's values after its head (:func:`option_head`), in this order
OPTION_VALUES = ("ev", "expected_final", "regret", "best")


def option_head(
    keep: tuple[int, ...] | None = None,
    category: str | None = None,
    score: int | None = None,
    column: int | None = None,
    stop: tuple[str, int] | None = None,
    bonus: int = 0,
) -> dict:
    """The fields that name an option, in order: ``keep`` (faces), or ``column`` (the triple
    card's, 1-based) with ``category`` and ``score``, or ``category`` and ``score``; then
    ``stop_and_score`` (``stop``: the box keeping all five implies and its points) and ``bonus``
    (the roll's Yahtzee bonus, where it has one)."""
    if keep is not None:
        head: dict = {"keep": list(keep)}
    elif column is not None:
        head = {"column": column, "category": category, "score": score}
    else:
        head = {"category": category, "score": score}
    if stop is not None:
        head["stop_and_score"] = {"category": stop[0], "score": stop[1]}
    if bonus:
        head["bonus"] = bonus
    return head


def option_values(ev: float, expected_final: float, regret: float, best: bool) -> dict:
    """An option's :data:`OPTION_VALUES`, the points rounded to 1e-9.  (Under another objective
    than expected score its value follows, ``p_target`` or ``p_win``, unrounded.)"""
    k_ev, k_final, k_regret, k_best = OPTION_VALUES
    return {k_ev: round(ev, 9), k_final: round(expected_final, 9), k_regret: round(regret, 9), k_best: best}


def advice_json(
    position: Position,
    options: list,
    objective: Objective = EXPECTED_SCORE,
    capped_at: int | None = None,
    floor_expected_final: float | None = None,
    note: str | None = None,
) -> dict:
    """What ``hint --json`` prints (``/api/hint`` answers, each ``hint --batch`` line holds) for
    ``position``: ``rules``, ``card``, ``dice``, ``rolls_left``, ``decision`` (``keep`` or
    ``score``), ``target`` and ``capped_at`` under :class:`AtLeast`, the ``options`` (JSON
    objects, best first), then the triple card's ``floor_expected_final`` and ``note``."""
    p = position
    decision = "score" if p.rolls_left == 0 else "keep"
    k_rules, k_card, k_dice, k_rolls, k_decision = ADVICE_FIELDS
    out = {k_rules: p.rules.id, k_card: str(p.card), k_dice: str(p.dice), k_rolls: p.rolls_left}
    out[k_decision] = decision
    if isinstance(objective, AtLeast):
        out["target"] = objective.target
    if capped_at is not None:
        out["capped_at"] = capped_at
    out["options"] = options
    if floor_expected_final is not None:
        out["floor_expected_final"] = round(floor_expected_final, 9)
    if note:
        out["note"] = note
    return out


@dataclass(frozen=True)
class Advice:
    """All options of a position, best first by ``objective`` (what every advisor returns)."""

    position: Position
    options: tuple[Option, ...]
    objective: Objective = EXPECTED_SCORE
    #: advice by :class:`AtLeast` for a target beyond what the target table holds from this card
    #: (and the card can still score more than that): each ``p_target`` is P(final >=
    #: ``capped_at``), an upper bound of P(final >= target) (see :meth:`TargetAdvisor.held`)
    capped_at: int | None = None
    #: what the advice is where it is not exact (the triple card's: best-known)
    note: str | None = None
    #: with ``note`` (the triple card): the floor policy's expected final score from the
    #: position, the lower bound each ``expected_final`` is measured from
    floor_expected_final: float | None = None

    @property
    def target(self) -> int | None:
        """The target score of advice by :class:`AtLeast`, else None."""
        return self.objective.target if isinstance(self.objective, AtLeast) else None

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
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def best(self) -> Option:
        build_best = self.__dict__.get("_build_best")
        return build_best() if build_best is not None else self.options[0]

    @property
    def decision(self) -> str:
        return "score" if self.position.rolls_left == 0 else "keep"

    def to_json(self) -> dict:
        """What ``hint --json`` prints (:func:`advice_json`)."""
        options = [o.to_json() for o in self.options]
        return advice_json(
            self.position, options, self.objective, self.capped_at, self.floor_expected_final, self.note
        )

    def option_for(self, keep=None, category: str | None = None) -> Option:
        """The option that keeps ``keep`` (faces) or scores box ``category`` (``fours``; on the
        triple card ``fours@3``)."""
        if category is not None:
            for o in self.options:
                if o.box == category:
                    return o
            raise IllegalMoveError(f"{category} is not a legal box for {self.position.dice} on this card")
        want = tuple(sorted(keep or ()))
        for o in self.options:
            if o.keep == want:
                return o
        raise IllegalMoveError(
            f"cannot keep {' '.join(map(str, want)) or 'nothing'} from {self.position.dice}"
        )


class Advisor:
    """Ranks options using a rule set's table (plain Python; see :mod:`solver.advice.batch` for bulk).

    The table may be loaded with ``light=True`` (see :func:`solver.engine.tables.load_table`): a
    single hint then never imports numpy.
    """

    #: what the advice is where it is not exact (None: exact, the table's)
    note: str | None = None
    #: the objectives it ranks by (:class:`Advising`)
    objectives: tuple[type, ...] = (ExpectedScore,)

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
        :func:`~solver.engine.tables.load_table`), as a single hint does."""
        from ..engine.tables import get_table

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

    def advise(self, position: Position, objective: Objective = EXPECTED_SCORE) -> Advice:
        """Every option of ``position`` by expected score, best first (ties in card/keep order)."""
        if objective is not EXPECTED_SCORE and not isinstance(objective, ExpectedScore):
            check_objective(self, objective)
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
            layer = self.rules.dice
            stop = layer.roll_offset + dice.index
            keeps = layer.keeps
            for k in reversed(layer.roll_subkeeps[dice.index]):
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
                            (ev[k], {"keep": keeps[k], "stop_category": category, "stop_score": score})
                        )
                        continue
                raw.append((ev[k], {"keep": keeps[k]}))
        return ranked_advice(position, base, raw)


def ranked_advice(position: Position, base: float, raw: list[tuple[float, dict]], **advice) -> Advice:
    """The advice of ``position`` by expected score from ``(ev, fields of the option)`` pairs: best
    first (a stable sort, so equal values keep the order given), ``expected_final = base + ev`` and
    each option's regret against the best (``best`` within :data:`~solver.engine.turn.TIE_TOLERANCE`);
    ``advice``: more fields of the :class:`Advice` (``note``, ``floor_expected_final``)."""
    best_ev = max(v for v, _ in raw)
    order = sorted(range(len(raw)), key=lambda i: -raw[i][0])
    options = tuple(
        Option(
            ev=raw[i][0],
            expected_final=base + raw[i][0],
            regret=regret_of(best_ev, raw[i][0]),
            best=regret_of(best_ev, raw[i][0]) == 0.0,
            loss=regret_of(best_ev, raw[i][0]),
            n_dice=position.rules.n_dice,
            **raw[i][1],
        )
        for i in order
    )
    return Advice(position, options, **advice)


class TargetAdvisor:
    """Ranks options by the probability of reaching a target score (plain Python).

    Each option carries ``p_target``, P(final score >= target) when taking it and then
    playing for the target, beside the expected-score advisor's ``ev`` (points still to
    come when taking it and then playing for expected score).  Options are ranked by
    ``p_target``; options within :data:`TARGET_TIE` of each other are ranked by ``ev``, so
    once the target is reached (or out of reach) the advice is the expected-score advice.
    By :class:`ExpectedScore` it gives its ``advisor``'s advice.
    """

    note: str | None = None
    objectives: tuple[type, ...] = (ExpectedScore, AtLeast)

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

    def held(self, card: ScoreCard, target: int) -> tuple[int | None, int | None]:
        """``(need, capped_at)``: the points still to come that the table is asked about for
        ``target`` from ``card`` (None: the target is out of the card's reach, P = 0 exactly),
        and the final score they stand for when that is not the target.

        A target beyond what the table holds (more than ``t_max`` points still needed) is no
        error.  Out of the card's reach (more than :attr:`ScoreCard.most_to_come`, or more than
        the card's row of the table holds when that is shorter than ``t_max``), its probability
        is 0.  Otherwise the need is capped at ``t_max``: P(final >= target) <= P(final >=
        ``card.total + t_max``) (a larger target is never likelier), which is what is answered,
        ``capped_at`` saying so."""
        need, t_max = target - card.total, self.table.t_max
        if need > card.most_to_come:
            return None, None
        if need <= t_max:
            return need, None
        if self.table.span(card.state)[2] < t_max:  # the row stops where the card's reach does
            return None, None
        return t_max, card.total + t_max

    def probability(self, card: ScoreCard, target: int) -> float:
        """P(final >= target) from the start of a turn on ``card`` under target play (an upper
        bound when :meth:`held` caps the target)."""
        need, _ = self.held(card, target)
        if need is None:
            return 0.0
        if need <= 0:
            return 1.0
        return self.table.probability(card.state, need)

    def advise(self, position: Position, objective: Objective) -> Advice:
        """Every option of ``position``: by :class:`AtLeast` ``(T)`` ranked by P(final >= T), then
        expected score."""
        if isinstance(objective, ExpectedScore):
            return self.advisor.advise(position)
        check_objective(self, objective)
        card = position.card
        need, capped_at = self.held(card, objective.target)
        tv = self.turn(card, need) if need is not None and need > 0 else None
        # reached (1) or out of reach (0): every option alike, ranked by expected score
        constant = 0.0 if need is None else 1.0
        return ranked_by_objective(
            position, self.advisor.advise(position), objective, tv, constant, self.stop_placement, capped_at
        )

    def stop_placement(self, tv: TurnValues, card: ScoreCard, dice: Dice) -> tuple[str, int] | None:
        """The box that stopping implies under the play of ``tv`` (target or win play; ties: the
        expected-score ranking)."""
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
    return (tv.e0 if rolls_left == 1 else tv.e1)[D.keep_index(option.keep, rules.n_dice)]


def ranked_by_objective(
    position: Position,
    ev_advice: Advice,
    objective: Objective,
    tv: TurnValues | None,
    constant: float,
    stop_of: Callable[[TurnValues, ScoreCard, Dice], tuple[str, int] | None],
    capped_at: int | None = None,
) -> Advice:
    """The options of ``ev_advice`` (the expected-score advice of ``position``) ranked by a
    probability objective (:class:`AtLeast`, :class:`~solver.advice.objectives.Win`).

    Each option's value is read from ``tv``, the within-turn values of playing for the objective
    (:func:`probability_of`), or is ``constant`` for all where ``tv`` is None (playing for
    expected score is as good).  Options within :data:`TARGET_TIE` rank by expected score; each
    gets its value as ``objective.field``, its ``loss`` and ``best``, and the keep-all option
    the box ``stop_of(tv, card, dice)`` implies under that play."""
    rules, rolls_left = position.rules, position.rolls_left
    stop = None  # None: the keep-all option keeps the box the expected-score advice stops in
    scored = []
    for option in ev_advice.options:
        if tv is None:
            p = constant
        else:
            p = probability_of(tv, option, rolls_left, rules)
            if option.keep is not None and len(option.keep) == rules.n_dice:
                stop = stop_of(tv, position.card, position.dice)
        scored.append((p, option))
    scored.sort(key=lambda item: (-round(item[0], 12), -item[1].ev))
    best_p = scored[0][0]
    options = []
    for p, option in scored:
        made = dict(option.__dict__)
        made.update({objective.field: p, "best": best_p - p <= TARGET_TIE, "loss": best_p - p})
        if option.keep is not None and len(option.keep) == rules.n_dice and stop is not None:
            made["stop_category"], made["stop_score"] = stop
        options.append(Option(**made))
    return Advice(position, tuple(options), objective, capped_at)


class Advising(Ranking, Protocol):
    """An advisor: ranks every option of a position of its rule set by an objective.

    ``objectives`` are the objective types it answers; asked for another it raises
    :class:`UsageError` (:func:`~solver.advice.objectives.check_objective`).  ``note`` says
    what its advice is where it is not exact (None: exact)."""

    note: str | None

    def advise(self, position: Position, objective: Objective = EXPECTED_SCORE) -> Advice: ...


def checked_advice(advisor: Advising, position: Position, objective: Objective = EXPECTED_SCORE) -> Advice:
    """The advice of ``position`` by ``objective`` (its JSON is ``advice.to_json()``, what ``hint
    --json`` prints and the web API's ``/api/hint`` answers); a damaged table raises
    :class:`TableError`, never NaN."""
    advice = advisor.advise(position, objective)
    check_finite(position.rules, [o.value for o in advice.options], position)
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

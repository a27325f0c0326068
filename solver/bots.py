"""Bots: strategies that play a whole game, for simulation and for playing against.

A bot answers two questions, given the position and a random generator::

    choose_keep(card, dice, rolls_left, rng) -> faces to keep (a sub-multiset of ``dice``;
                                                keeping all five = stop rolling)
    choose_box(card, dice, rng)              -> name of a legal box (see ``card.placements``)

Write your own by subclassing :class:`Bot` (or any object with ``name`` and these two
methods) and rank it with :func:`solver.simulate.simulate`.  ``rng`` is a
:class:`random.Random` seeded per game, so a bot that uses only it is reproducible.

Builtin bots (:data:`BOTS`, :func:`get_bot`), strongest first, with their means over
100,000 seeded ``yahtzee`` games (``benchmarks/bench_simulate.py``):

* ``optimal``   (254.6) -- the table's advice: expected-score optimal.
* ``heuristic`` (250.5; 242.8 under ``yatzy``) -- no table: a hand-made evaluation of the
  card (:class:`HeuristicParams`: what each open box is worth, the upper bonus weighted by
  a chance that follows the three-of-each-face pace, future Yahtzee bonuses) and the best
  keeps and box for it over the current turn.  It plans for the upper bonus, keeps
  straight draws and full houses when they pay, and dumps zeros where they cost least.
* ``greedy``    (217.3) -- the most points this turn: the keeps with the best expected
  score at the end of the turn, then the box that pays most now (upper bonus included),
  as if the card were worth nothing afterwards (the "greedy" player of the literature).
* ``frequent``  (162.4) -- keeps every die of the most frequent face (ties: the higher
  face), stops only on five of a kind, and scores the box that pays most now.
* ``random``    (46.5) -- a uniformly random distinct sub-multiset to keep, then a
  uniformly random legal box.

The table bots (optimal, heuristic, greedy) are one class, :class:`TableBot`, over
different value arrays; none but ``optimal`` reads a table file.

Ties (options within :data:`solver.advisor.TIE_TOLERANCE`): the keep with the most dice (the last of
``dice.SUBKEEPS``), the box first in card order.

The builtin bots also run on the fast numba engine of :mod:`solver.simulate`; their
Python methods here make the same decisions (the random bot draws from ``rng`` in
Python and from a per-game stream in numba, so only its distribution agrees).
"""

from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import dice as D
from .card import ScoreCard
from .dice import Dice
from .errors import UsageError
from .rules import RuleSet, get_rules


class Bot:
    """Base class of bots; see the module docstring for the two methods to write."""

    name = "bot"
    #: how :mod:`solver.simulate` can run the bot without Python calls (builtin bots only)
    fast_kind: str | None = None

    def choose_keep(
        self, card: ScoreCard, dice: Dice, rolls_left: int, rng: random.Random
    ) -> tuple[int, ...]:
        raise NotImplementedError

    def choose_box(self, card: ScoreCard, dice: Dice, rng: random.Random) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def _distinct_keeps(dice: Dice) -> list[tuple[int, ...]]:
    """The distinct sub-multisets of ``dice`` in :data:`solver.dice.SUBKEEPS` order."""
    r = dice.index
    return [D.KEEPS[k] for k in D.SUBKEEPS[r, : D.N_SUBKEEPS[r]]]


def immediate_points(card: ScoreCard, box: str, score: int) -> int:
    """What a placement pays now: its score plus the upper bonus when it reaches it."""
    points, _ = card.rules.step(card.state, card.rules.box_index[box], score)
    return points


class RandomBot(Bot):
    """Uniformly random legal moves."""

    name = "random"
    fast_kind = "random"

    def __init__(self, rules: RuleSet | str | None = None):
        self.rules = get_rules(rules)

    def choose_keep(self, card, dice, rolls_left, rng):
        keeps = _distinct_keeps(dice)
        return rng.choice(keeps[:-1] if card.rules.all_rolls else keeps)  # the last keeps all five

    def choose_box(self, card, dice, rng):
        return rng.choice(card.placements(dice)).box


class FrequentBot(Bot):
    """Most frequent face kept (ties: the higher face); the box that pays most now."""

    name = "frequent"
    fast_kind = "frequent"

    def __init__(self, rules: RuleSet | str | None = None):
        self.rules = get_rules(rules)

    def choose_keep(self, card, dice, rolls_left, rng):
        counts = dice.counts
        n, face = max((c, f) for f, c in enumerate(counts, start=1))
        return (face,) * min(n, D.N_DICE - 1 if card.rules.all_rolls else D.N_DICE)

    def choose_box(self, card, dice, rng):
        best, choice = -1, None
        for p in card.placements(dice):  # card order; the first of equals wins
            gain = immediate_points(card, p.box, p.score)
            if gain > best:
                best, choice = gain, p.box
        return choice


class TableBot(Bot):
    """Plays the best option of an :class:`~solver.advisor.Advisor` over a value array.

    Ties within :data:`solver.advisor.TIE_TOLERANCE`: the keep with the most dice (the last of
    ``dice.SUBKEEPS``), the box first in card order -- as the numba engine.
    """

    fast_kind = "table"

    def __init__(self, advisor, name: str):
        self.advisor = advisor
        self.rules = advisor.rules
        self.name = name

    @property
    def values(self) -> np.ndarray:
        return self.advisor.table.values

    def _best(self, card, dice, rolls_left):
        from .advisor import Position

        return [o for o in self.advisor.advise(Position(card, dice, rolls_left)).options if o.best]

    def choose_keep(self, card, dice, rolls_left, rng):
        best = self._best(card, dice, rolls_left)
        return max((o.keep for o in best), key=D.keep_index)

    def choose_box(self, card, dice, rng):
        best = self._best(card, dice, 0)
        index = card.rules.box_index
        return min((o.category for o in best), key=index.__getitem__)


# --- the heuristic evaluation --------------------------------------------------
@dataclass(frozen=True)
class HeuristicParams:
    """The hand-made evaluation of a card (see :func:`heuristic_values`).

    ``box_values``: what an open box is worth, by box name (about what it averages in good
    play, raised for boxes that are worth keeping open, lowered for those best taken when
    they come); the upper bonus counts as ``bonus x P(reach it)`` with
    ``P = logistic((par still to come - points still needed) / bonus_scale + bonus_shift)``,
    the par of an open upper box being ``par_per_face x face``; a Yahtzee box holding 50
    adds ``yahtzee_bonus_per_turn`` per open box (future +100 bonuses).
    """

    box_values: dict[str, float]
    par_per_face: float = 3.0
    bonus_scale: float = 4.0
    bonus_shift: float = 0.0
    yahtzee_bonus_per_turn: float = 2.0


#: For the Hasbro family (a ``yahtzee`` box); tuned by simulation, about 250.7 under ``yahtzee``.
HASBRO_HEURISTIC = HeuristicParams(
    box_values={
        "ones": 2.0, "twos": 5.5, "threes": 8.5, "fours": 12.0, "fives": 13.0, "sixes": 15.5,
        "three_of_a_kind": 21.5, "four_of_a_kind": 16.0, "full_house": 18.5, "small_straight": 29.5,
        "large_straight": 27.0, "yahtzee": 15.5, "chance": 27.0,
    },
)  # fmt: skip
#: For the Scandinavian family (Yatzy: 15 boxes, no Yahtzee bonus); about 243 under ``yatzy``.
SCANDINAVIAN_HEURISTIC = HeuristicParams(
    box_values={
        "ones": 2.0, "twos": 5.3, "threes": 8.6, "fours": 12.2, "fives": 15.7, "sixes": 19.2,
        "one_pair": 11.0, "two_pairs": 16.0, "three_of_a_kind": 14.0, "four_of_a_kind": 9.5,
        "small_straight": 5.0, "large_straight": 8.0, "full_house": 14.0, "chance": 22.0, "yatzy": 12.5,
    },
    par_per_face=2.7,
    bonus_shift=0.35,
)  # fmt: skip


def heuristic_params(rules: RuleSet) -> HeuristicParams:
    return HASBRO_HEURISTIC if rules.yahtzee_box else SCANDINAVIAN_HEURISTIC


def heuristic_values(rules: RuleSet | str | None = None, params: HeuristicParams | None = None) -> np.ndarray:
    """The heuristic bot's evaluation of every card state, in the layout of a value table.

    ``H[mask, u, f]`` = the values of the open boxes + upper bonus x the estimated chance
    to still reach it + future Yahtzee bonuses (see :class:`HeuristicParams`).  Hand-made
    and computed in a few milliseconds: no dynamic program, no table file.
    """
    rules = get_rules(rules)
    p = params or heuristic_params(rules)
    n = rules.n_boxes
    masks = np.arange(1 << n, dtype=np.int64)
    open_value = np.zeros(1 << n)
    par_left = np.zeros(1 << n)
    upper_open = np.zeros(1 << n, dtype=bool)
    n_open = np.zeros(1 << n)
    for b, box in enumerate(rules.boxes):
        is_open = (masks >> b) & 1 == 0
        try:
            worth = p.box_values[box.name]
        except KeyError:
            raise UsageError(f"the heuristic has no value for box {box.name!r} of {rules.id}") from None
        open_value += np.where(is_open, worth, 0.0)
        n_open += is_open
        if box.is_upper:
            par_left += np.where(is_open, p.par_per_face * box.face, 0.0)
            upper_open |= is_open
    u = np.arange(rules.upper_cap + 1, dtype=np.float64)
    need = rules.upper_threshold - u  # points still needed (0 once reached)
    z = (par_left[:, None] - need[None, :]) / p.bonus_scale + p.bonus_shift
    chance = 1.0 / (1.0 + np.exp(-z))
    chance = np.where(upper_open[:, None], chance, 0.0)
    chance[:, rules.upper_threshold :] = 0.0  # reached: already counted
    values = np.empty((1 << n, rules.upper_cap + 1, rules.n_flags))
    base = open_value[:, None] + rules.upper_bonus * chance
    for f in range(rules.n_flags):
        values[:, :, f] = base + (f * p.yahtzee_bonus_per_turn * n_open)[:, None]
    values[rules.full_mask] = 0.0
    return values


def heuristic_table(rules: RuleSet | str | None = None, params: HeuristicParams | None = None):
    """The heuristic evaluation wrapped as a :class:`~solver.tables.Table` (for an Advisor)."""
    from .tables import Table

    rules = get_rules(rules)
    values = heuristic_values(rules, params)
    values.setflags(write=False)
    return Table(rules, values, {"source": "heuristic"}, Path(f"<heuristic {rules.id}>"))


def greedy_table(rules: RuleSet | str | None = None):
    """All zeros: a card is worth nothing beyond this turn (the greedy bot's evaluation)."""
    from .tables import Table

    rules = get_rules(rules)
    values = np.zeros((1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags))
    values.setflags(write=False)
    return Table(rules, values, {"source": "greedy"}, Path(f"<greedy {rules.id}>"))


# --- registry -------------------------------------------------------------
def _optimal(rules: RuleSet, tables_dir=None, *, build_if_missing: bool = True, progress: bool = True) -> Bot:
    from .advisor import Advisor

    return TableBot(
        Advisor.load(rules, tables_dir, build_if_missing=build_if_missing, progress=progress), "optimal"
    )


def _heuristic(rules: RuleSet, tables_dir=None, **_) -> Bot:
    from .advisor import Advisor

    return TableBot(Advisor(heuristic_table(rules)), "heuristic")


def _greedy(rules: RuleSet, tables_dir=None, **_) -> Bot:
    from .advisor import Advisor

    return TableBot(Advisor(greedy_table(rules)), "greedy")


BOTS: dict[str, Callable[..., Bot]] = {
    "optimal": _optimal,
    "heuristic": _heuristic,
    "greedy": _greedy,
    "frequent": lambda rules, tables_dir=None, **_: FrequentBot(rules),
    "random": lambda rules, tables_dir=None, **_: RandomBot(rules),
}
BOT_DESCRIPTIONS = {
    "optimal": "the table's advice (expected-score optimal)",
    "heuristic": "hand-made card evaluation with a one-turn lookahead (no table)",
    "greedy": "the most points this turn: best keeps for this turn's score, the box that pays most now",
    "frequent": "keeps the most frequent face, scores the box that pays most now",
    "random": "uniformly random legal moves",
}


def get_bot(
    name: str,
    rules: RuleSet | str | None = None,
    tables_dir=None,
    *,
    build_if_missing: bool = True,
    progress: bool = True,
) -> Bot:
    """A bot by name (:data:`BOTS`: ``optimal``, ``heuristic``, ``greedy``, ``frequent``,
    ``random``) or ``module:attr``.

    ``module:attr`` imports a user's bot: ``attr`` is a :class:`Bot` instance, or a
    class/factory called with ``rules`` (when it takes an argument) or with nothing.
    The optimal bot loads its table (built first when missing and ``build_if_missing``).
    """
    rules = get_rules(rules)
    key = str(name).strip()
    factory = BOTS.get(key.lower())
    if factory is not None:
        return factory(rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
    if ":" in key:
        return _import_bot(key, rules)
    raise UsageError(f"unknown bot {name!r} (known: {', '.join(BOTS)}, or module:attr for your own)")


def _import_bot(spec: str, rules: RuleSet) -> Bot:
    module_name, _, attr = spec.partition(":")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise UsageError(f"cannot load bot {spec!r}: {exc}") from None
    if callable(obj) and not _is_bot(obj) or inspect.isclass(obj):
        try:
            takes_args = bool(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            takes_args = False
        obj = obj(rules) if takes_args else obj()
    if not _is_bot(obj):
        raise UsageError(f"{spec!r} is not a bot (it needs choose_keep and choose_box methods)")
    return obj


def _is_bot(obj) -> bool:
    return (
        not inspect.isclass(obj)
        and callable(getattr(obj, "choose_keep", None))
        and callable(getattr(obj, "choose_box", None))
    )


def bot_name(bot) -> str:
    return str(getattr(bot, "name", None) or type(bot).__name__)

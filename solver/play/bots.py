"""Bots: strategies that play a whole game, for simulation and for playing against.

A bot answers two questions, given the position and a random generator::

    choose_keep(card, dice, rolls_left, rng) -> faces to keep (a sub-multiset of ``dice``;
                                                keeping all five = stop rolling)
    choose_box(card, dice, rng)              -> name of a legal box (see ``card.placements``)

Write your own by subclassing :class:`Bot` (or any object with ``name`` and these two
methods) and rank it with :func:`solver.play.simulate.simulate`.  In multi-player games
(:mod:`solver.play.match`, ``yahtzee play``) a bot may also define ``see_opponents(cards)``:
it is called before each of its turns with the other players' cards (:class:`ScoreCard`,
in seat order from the next player); bots without it ignore the opponents, so existing
bots, and ``module:attr`` user bots, play matches unchanged.  ``rng`` is a
:class:`random.Random` seeded per game, so a bot that uses only it is reproducible.

Builtin bots (:data:`BOTS`, :func:`get_bot`), strongest first, with their mean (median)
over 100,000 seeded games (seed 1, as ``benchmarks/bench_simulate.py``) under ``yahtzee``
and under ``yatzy``:

* ``win`` -- plays to win against the other players (:class:`WinBot`); alone, it plays
  like ``optimal``.
* ``optimal``   (254.6 (248); yatzy 248.3 (248)) -- the table's advice: expected-score optimal.
* ``heuristic`` (251.4 (245); yatzy 243.6 (244)) -- no table: an evaluation of the card
  derived from the rule set alone (:func:`heuristic_params`: each open box is worth its
  expected score with a few turns to fill it, the upper bonus is weighted by the chance
  that the open upper boxes still reach it, a five of a kind in the bonus row adds the
  future bonuses) and the best keeps and box for it over the current turn.  It plans for
  the upper bonus, keeps straight draws and full houses when they pay, and dumps zeros
  where they cost least, on any card: over 20,000 games (seed 1; heuristic / greedy /
  optimal) ``yacht`` 166.1 / 152.7 / 167.0, ``yatzy+all-rolls`` 233.3 / 185.2 / 237.3,
  ``yatzy+extra-bonus=50+yatzy-rows=2`` 256.5 / 205.6 / 262.3, ``yahtzee+lower-only``
  141.0 / 124.4 / 141.7.  Under a fill order (``order=down|up|choose``) each turn has one
  box and greedy play is already optimal to within noise (``yahtzee+order=down``: 130.3
  for all three).
* ``greedy``    (217.3 (208); yatzy 200.8 (196)) -- the most points this turn: the keeps
  with the best expected score at the end of the turn, then the box that pays most now
  (upper bonus included), as if the card were worth nothing afterwards (the "greedy"
  player of the literature).
* ``frequent``  (162.4 (145); yatzy 169.2 (168)) -- keeps every die of the most frequent
  face (ties: the higher face), stops only on five of a kind (under ``all-rolls`` keeps at
  most four), and scores the box that pays most now.
* ``random``    (46.5 (43); yatzy 50.7 (49)) -- a uniformly random distinct sub-multiset
  to keep (never all five under ``all-rolls``), then a uniformly random legal box.

The table bots (optimal, heuristic, greedy) are one class, :class:`TableBot`, over
different value arrays; none but ``optimal`` reads a table file.  Under ``order=choose``
a table bot picks its direction before the first roll (:meth:`Advisor.direction`) and
keeps to it.

Ties (options within :data:`solver.engine.turn.TIE_TOLERANCE`): the keep with the most dice (the last of
``dice.SUBKEEPS``), the box first in card order.

The builtin bots also run on the fast numba engine of :mod:`solver.play.simulate`; their
Python methods here make the same decisions (the random bot draws from ``rng`` in
Python and from a per-game stream in numba, so only its distribution agrees).
"""

from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Callable

import numpy as np

from ..advice.win import WIN_TIE, WinAdvisor
from ..core import dice as D
from ..core.bounded import shown
from ..core.card import ScoreCard
from ..core.dice import Dice
from ..core.errors import UsageError
from ..core.rules import RuleSet, get_rules
from ..engine.heuristic import greedy_table, heuristic_table
from .turn import bot_name  # noqa: F401 - part of this module's API


class Bot:
    """Base class of bots; see the module docstring for the two methods to write."""

    name = "bot"
    #: how :mod:`solver.play.simulate` can run the bot without Python calls (builtin bots only)
    fast_kind: str | None = None

    def choose_keep(
        self, card: ScoreCard, dice: Dice, rolls_left: int, rng: random.Random
    ) -> tuple[int, ...]:
        raise NotImplementedError

    def choose_box(self, card: ScoreCard, dice: Dice, rng: random.Random) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def distinct_keeps(dice: Dice) -> list[tuple[int, ...]]:
    """The distinct sub-multisets of ``dice`` in :data:`solver.core.dice.SUBKEEPS` order."""
    d = D.layer(dice.n_dice)  # five dice or six: the keeps' indices agree (a prefix)
    return [d.keeps[k] for k in d.roll_subkeeps[dice.index]]


def immediate_points(card: ScoreCard, box: str, score: int) -> int:
    """What a placement pays now: its score plus the upper bonus when it reaches it."""
    points, _ = card.rules.step(card.state, card.rules.box_index[box], score)
    return points


class RulesBot(Bot):
    """A bot that plays by the rules alone (no table): made for one rule set."""

    def __init__(self, rules: RuleSet | str | None = None):
        self.rules = get_rules(rules)


class RandomBot(RulesBot):
    """Uniformly random legal moves."""

    name = "random"
    fast_kind = "random"

    def choose_keep(self, card, dice, rolls_left, rng):
        keeps = distinct_keeps(dice)
        return rng.choice(keeps[:-1] if card.rules.all_rolls else keeps)  # the last keeps them all

    def choose_box(self, card, dice, rng):
        return rng.choice(card.placements(dice)).box


class FrequentBot(RulesBot):
    """Most frequent face kept (ties: the higher face); the box that pays most now."""

    name = "frequent"
    fast_kind = "frequent"

    def choose_keep(self, card, dice, rolls_left, rng):
        counts = dice.counts
        n, face = max((c, f) for f, c in enumerate(counts, start=1))
        all_dice = card.rules.n_dice
        return (face,) * min(n, all_dice - 1 if card.rules.all_rolls else all_dice)

    def choose_box(self, card, dice, rng):
        best, choice = -1, None
        for p in card.placements(dice):  # card order; the first of equals wins
            gain = immediate_points(card, p.box, p.score)
            if gain > best:
                best, choice = gain, p.box
        return choice


class TableBot(Bot):
    """Plays the best option of an :class:`~solver.advice.advisor.Advisor` over a value array.

    Ties within :data:`solver.engine.turn.TIE_TOLERANCE`: the keep with the most dice (the last of
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
        from ..core.position import Position

        return [o for o in self.advisor.advise(Position(card, dice, rolls_left)).options if o.best]

    def choose_keep(self, card, dice, rolls_left, rng):
        best = self._best(card, dice, rolls_left)
        return max((o.keep for o in best), key=lambda k: D.keep_index(k, dice.n_dice))

    def choose_box(self, card, dice, rng):
        from ..core.position import Position
        from ..engine.turn import TIE_TOLERANCE

        rules = card.rules
        index = rules.box_index
        if rules.order == "choose" and card.filled_mask == 0:
            # the direction was chosen before the first roll (the keeps were played for it):
            # only its end of the card is open, as in the numba engine
            allowed = rules.directed(self.advisor.direction()).allowed_bits(0)
            options = [
                o
                for o in self.advisor.advise(Position(card, dice, 0)).options
                if allowed >> index[o.category] & 1
            ]
            top = max(o.ev for o in options)
            best = [o for o in options if top - o.ev <= TIE_TOLERANCE]
        else:
            best = self._best(card, dice, 0)
        return min((o.category for o in best), key=index.__getitem__)


class _TurnValuesBot(Bot):
    """A bot that plays from within-turn values (``turn_values(card)``, a
    :class:`~solver.advice.advisor.TurnValues` in its own units) and, where they are None, like its
    ``optimal`` bot.  Ties within :data:`solver.engine.turn.TIE_TOLERANCE`: the keep with the most
    dice, the box first in card order -- as the numba engine."""

    optimal: TableBot

    def turn_values(self, card):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def choose_keep(self, card, dice, rolls_left, rng):
        tv = self.turn_values(card)
        if tv is None:
            return self.optimal.choose_keep(card, dice, rolls_left, rng)
        from ..engine.turn import TIE_TOLERANCE

        values = tv.e0 if rolls_left == 1 else tv.e1
        subkeeps = D.ROLL_SUBKEEPS[dice.index]
        candidates = [k for k in subkeeps if not (self.rules.all_rolls and k == D.ROLL_OFFSET + dice.index)]
        top = max(values[k] for k in candidates)
        return D.KEEPS[max(k for k in candidates if values[k] >= top - TIE_TOLERANCE)]

    def choose_box(self, card, dice, rng):
        tv = self.turn_values(card)
        if tv is None:
            return self.optimal.choose_box(card, dice, rng)
        from ..engine.turn import TIE_TOLERANCE

        mask, _, flag = card.state
        placements = self.rules.placements(mask, dice.counts, bool(flag))
        values = [(tv.placement_value(b, s, bonus), b) for b, s, bonus in placements]
        top = max(v for v, _ in values)
        return self.rules.box_names[min(b for v, b in values if v >= top - TIE_TOLERANCE)]


class TargetBot(_TurnValuesBot):
    """Plays for a final score of at least ``target``: the option with the largest probability
    of reaching it (a :class:`~solver.advice.advisor.TargetAdvisor`); once the target is reached or
    out of reach (probability 0 at the start of a turn), for expected score like ``optimal``.

    Within a turn, ties within :data:`solver.engine.turn.TIE_TOLERANCE`: the keep with the most
    dice, the box first in card order -- as the numba engine.
    """

    fast_kind = "target"

    def __init__(self, advisor, table, target: int):
        from ..advice.advisor import TargetAdvisor

        self.rules, self.target = advisor.rules, int(target)
        self.name = f"target:{self.target}"
        self.optimal = TableBot(advisor, "optimal")
        self.target_advisor = TargetAdvisor(advisor, table)
        self.table = table

    def _need(self, card) -> int | None:
        """Points still needed, or None when playing for expected score this turn."""
        need = self.target - card.total
        if need <= 0:
            return None
        turn_start = card.state  # the state is that of the start of this turn
        return need if self.table.probability(turn_start, need) > 0.0 else None

    def turn_values(self, card):
        """The target-play values of this turn, or None when playing for expected score."""
        need = self._need(card)
        return None if need is None else self.target_advisor.turn(card, need)


class WinBot(_TurnValuesBot):
    """Plays to win a multi-player game (``win``): it sees the other players' cards through
    :meth:`see_opponents` and maximises P(win) + P(tie) / 2.

    * Exact when every opponent has finished (the win bot is last to play its last turn):
      with ``B`` the best final score, target play for ``(W(B - total) + W(B - total + 1)) /
      2``, ``W(t)`` the target table's largest probability of scoring at least ``t`` more
      points -- the probability of winning, a tie counted half.
    * Before that, an approximation: each opponent's final score is its total plus the points
      still to come under expected-score play, distributed as
      :class:`~solver.advice.win.OpponentModel` says (exact with at most four boxes open, a
      normal of the state's exact mean and sd before); the bot mixes the exact values over the
      best opponent's final (:class:`~solver.engine.turn.WinTurnValues`).
    * When it cannot lose (every opponent's possible final below its total) or cannot win
      any more (value 0), it plays for expected score like ``optimal``; likewise with no
      opponents and on the first turn under ``order=choose``.
    * ``start_turn``: its first ``start_turn`` turns (boxes filled below it) are played for
      expected score like ``optimal`` -- what the ``win`` level does while its target table is
      still being built (``benchmarks/bench_win_start.py`` measures what this costs).
    """

    fast_kind = "win"
    name = "win"
    TIE = WIN_TIE

    def __init__(self, advisor, table, *, start_turn: int = 0):
        self.rules, self.advisor, self.table = advisor.rules, advisor, table
        self.optimal = TableBot(advisor, "optimal")
        self.win = WinAdvisor(advisor, table)
        self.opponents: tuple = ()
        self.start_turn = int(start_turn)
        if self.start_turn:
            self.name = f"win@{self.start_turn}"

    def see_opponents(self, cards) -> None:
        """The other players' cards (in seat order after this player), before each turn."""
        self.opponents = tuple(cards)

    def turn_values(self, card):
        """The win values of this turn (:meth:`WinAdvisor.turn_values`), or None when playing for
        expected score."""
        if card.n_filled < self.start_turn:
            return None
        return self.win.turn_values(card, self.opponents)


def _optimal(rules: RuleSet, tables_dir=None, *, build_if_missing: bool = True, progress: bool = True) -> Bot:
    from ..advice.advisor import Advisor

    return TableBot(
        Advisor.load(rules, tables_dir, build_if_missing=build_if_missing, progress=progress), "optimal"
    )


def _heuristic(rules: RuleSet, tables_dir=None, **_) -> Bot:
    from ..advice.advisor import Advisor

    return TableBot(Advisor(heuristic_table(rules)), "heuristic")


def _greedy(rules: RuleSet, tables_dir=None, **_) -> Bot:
    from ..advice.advisor import Advisor

    return TableBot(Advisor(greedy_table(rules)), "greedy")


def _target(
    rules: RuleSet, key: str, tables_dir=None, *, build_if_missing: bool = True, progress: bool = True
) -> Bot:
    """``target:T``: plays for a final score of at least T (the target table; built if missing)."""
    from ..advice.advisor import Advisor
    from ..core.bounded import parse_target
    from ..engine.target import get_target

    target = parse_target(key.split(":", 1)[1], f"bot {shown(key)}")
    table = get_target(rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
    if target > table.t_max:
        raise UsageError(f"bot {shown(key)}: the {rules.id} target table holds targets up to {table.t_max}")
    advisor = Advisor.load(rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
    return TargetBot(advisor, table, target)


def _win(rules: RuleSet, tables_dir=None, *, build_if_missing: bool = True, progress: bool = True) -> Bot:
    """``win``: plays to win a multi-player game (the target table and the optimal table)."""
    from ..advice.advisor import Advisor
    from ..engine.target import get_target

    table = get_target(rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
    advisor = Advisor.load(rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
    return WinBot(advisor, table)


BOTS: dict[str, Callable[..., Bot]] = {
    "optimal": _optimal,
    "heuristic": _heuristic,
    "greedy": _greedy,
    "frequent": lambda rules, tables_dir=None, **_: FrequentBot(rules),
    "random": lambda rules, tables_dir=None, **_: RandomBot(rules),
}
#: bots for games against others (not in :data:`BOTS`, the single-player bots that
#: ``simulate`` and its tests run on the numba engine): ``win`` plays like ``optimal`` alone
MATCH_BOTS: dict[str, Callable[..., Bot]] = {"win": _win}
BOT_DESCRIPTIONS = {
    "optimal": "the table's advice (expected-score optimal)",
    "win": "plays to win against the other players (yahtzee match, play): P(win), a tie counted half",
    "heuristic": "a card evaluation derived from the rules, with a one-turn lookahead (no table)",
    "greedy": "the most points this turn: best keeps for this turn's score, the box that pays most now",
    "frequent": "keeps the most frequent face, scores the box that pays most now",
    "random": "uniformly random legal moves",
    "target:T": "plays for P(final >= T) (the target table), then for expected score",
}


def is_builtin_bot(name) -> bool:
    """Whether ``name`` is a builtin bot (:data:`BOTS`, :data:`MATCH_BOTS` or ``target:T``), which
    :func:`get_bot` makes without importing anything: the only bots a saved game may name."""
    if not isinstance(name, str):
        return False
    key = name.strip().lower()
    from .triple import TRIPLE_BOTS

    if key in BOTS or key in MATCH_BOTS or key in TRIPLE_BOTS:
        return True
    head, sep, target = key.partition(":")
    if head != "target" or not sep:
        return False
    from ..core.bounded import parse_target

    try:
        parse_target(target, "bot")
    except UsageError:
        return False
    return True


def builtin_bot_names() -> str:
    """The builtin bots, for messages: ``optimal, heuristic, ..., win, target:T, triple, ...``."""
    from .triple import TRIPLE_BOTS

    return ", ".join(dict.fromkeys([*BOTS, *MATCH_BOTS, "target:T", *TRIPLE_BOTS]))


def get_bot(
    name: str,
    rules: RuleSet | str | None = None,
    tables_dir=None,
    *,
    build_if_missing: bool = True,
    progress: bool = True,
    user_bots: bool = True,
) -> Bot:
    """A bot by name (:data:`BOTS`: ``optimal``, ``heuristic``, ``greedy``, ``frequent``,
    ``random``; on the triple card :data:`solver.play.triple.TRIPLE_BOTS`) or ``module:attr``.

    ``cmd:PROGRAM ARGS`` runs a bot program of any language (:mod:`solver.play.protocol`).
    ``module:attr`` imports a user's bot: ``attr`` is a :class:`Bot` instance, or a
    class/factory called with ``rules`` (when it takes an argument) or with nothing.
    Only a name the user gave on the command line may do that: with ``user_bots=False``
    (a bot named by a saved game) anything but a builtin bot is refused, and nothing imported.
    The optimal bot loads its table (built first when missing and ``build_if_missing``).
    """
    rules = get_rules(rules)
    key = str(name).strip()
    if not user_bots and not is_builtin_bot(key):
        raise UsageError(f"bot {shown(name)} is not a builtin bot ({builtin_bot_names()})")
    if rules.triple and (
        ":" not in key or key.lower().startswith("target:")
    ):  # the triple card's own players (solver.play.triple)
        from .triple import TripleBot

        return TripleBot(key, rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
    if key.lower().startswith("target:"):
        return _target(rules, key, tables_dir, build_if_missing=build_if_missing, progress=progress)
    factory = BOTS.get(key.lower()) or MATCH_BOTS.get(key.lower())
    if factory is not None:
        return factory(rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
    if key.lower().startswith("cmd:"):  # a program speaking the JSON-lines protocol
        from .protocol import ProtocolBot

        return ProtocolBot(key[4:], rules)
    if ":" in key:
        return _import_bot(key, rules)
    known = ", ".join([*BOTS, *MATCH_BOTS])
    raise UsageError(f"unknown bot {name!r} (known: {known}, or module:attr for your own)")


def _import_bot(spec: str, rules: RuleSet) -> Bot:
    module_name, _, attr = spec.partition(":")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise UsageError(f"cannot load bot {spec!r}: {exc}") from None
    if callable(obj) and not _is_bot(obj) or inspect.isclass(obj):
        if not _may_make_bots(obj):
            raise UsageError(f"{spec!r} is not a bot: {_NOT_A_BOT}")
        try:
            takes_args = bool(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            takes_args = False
        try:
            obj = obj(rules) if takes_args else obj()
        except Exception as exc:  # a factory that is not one: math:sqrt
            raise UsageError(
                f"{spec!r} is not a bot: calling it failed ({type(exc).__name__}: {exc})"
            ) from None
    if not _is_bot(obj):
        raise UsageError(f"{spec!r} is not a bot: {_NOT_A_BOT}")
    missing = [m for m in ("choose_keep", "choose_box") if getattr(type(obj), m, None) is getattr(Bot, m)]
    if missing:
        raise UsageError(f"{spec!r} is not a bot: it does not define {' and '.join(missing)}")
    return obj


_NOT_A_BOT = "a bot has choose_keep and choose_box methods (subclass solver.play.bots.Bot)"


def _may_make_bots(obj) -> bool:
    """Whether ``obj`` may be a bot factory: a class with the two methods, or a Python function
    (not a builtin such as ``math.sqrt``)."""
    if inspect.isclass(obj):
        return callable(getattr(obj, "choose_keep", None)) and callable(getattr(obj, "choose_box", None))
    return not inspect.isbuiltin(obj)


def _is_bot(obj) -> bool:
    return (
        not inspect.isclass(obj)
        and callable(getattr(obj, "choose_keep", None))
        and callable(getattr(obj, "choose_box", None))
    )

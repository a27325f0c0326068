"""Rule sets as data: a base game plus composable modifiers.

A rule set is written ``BASE+MOD+MOD...`` (``docs/rules.md``), e.g. ``yahtzee``,
``yacht``, ``yatzy+all-rolls+extra-bonus=100``.  :func:`get_rules` parses such a spec
into one frozen :class:`RuleSet` whose ``id`` is the canonical spelling (modifiers in
the order of :data:`MODIFIERS`, listed boxes in card order); ``yatzy-forced`` is
another name for ``yatzy+order=down``.

Each rule lives here once, as data and as one plain-Python function:

* boxes carry a typed :class:`Scorer` (a kind and its parameters), validated when the
  rule set is built;
* :meth:`RuleSet.allowed_bits` -- which open boxes the fill order allows;
* :meth:`RuleSet.placements` -- where a roll may legally go, what it scores there and
  the five-of-a-kind bonus it earns (Joker policy, fill order);
* :meth:`RuleSet.step` -- the points a placement earns (upper bonus included) and the
  next card state: the Bellman step every solver path shares.

The numba kernels receive the same rules as arrays (:meth:`RuleSet.kernel_arrays`)
and have one twin of each function (``solver.engine.kernels``), tested against these on
every (mask, roll) of every rule set.  Adding a modifier touches this module only.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

from .bounded import clipped, parse_whole
from .boxes import Box, Counts, Scorer
from .dice import DICE_COUNTS, N_DICE, N_FACES, layer
from .errors import UnknownRulesError, UsageError

if TYPE_CHECKING:
    import numpy as np

State = tuple[int, int, int]  # (filled mask, capped upper total, flag)

JOKER_NONE, JOKER_FORCED, JOKER_FREE = 0, 1, 2
_JOKER_CODES = {"none": JOKER_NONE, "forced": JOKER_FORCED, "free": JOKER_FREE}
ORDER_FREE, ORDER_DOWN, ORDER_UP, ORDER_CHOOSE = 0, 1, 2, 3
_ORDER_CODES = {"free": ORDER_FREE, "down": ORDER_DOWN, "up": ORDER_UP, "choose": ORDER_CHOOSE}

#: The kernels keep a card's filled boxes in one int32 column and tables grow as 2**boxes.
MAX_BOXES = 18
#: Maxi Yatzy's twenty boxes: allowed for six dice only (its table is stored packed)
MAX_BOXES_SIX = 20
#: the commands that take six dice (Maxi Yatzy) so far; the others refuse them (one line, exit 2)
#: (each a command's words: a tables action after "tables", which the CLI's remedy module words)
SIX_DICE_COMMANDS = (
    ("rules",), ("tables", "build"), ("tables", "verify"), ("tables", "delete"), ("value",), ("hint",),
    ("distribution",), ("simulate",), ("play",), ("review",), ("stats",), ("match",), ("export",),
)  # fmt: skip
UPPER_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")


# --- scorers --------------------------------------------------------------------
# --- the rule set -------------------------------------------------------------------
@dataclass(frozen=True)
class RuleSet:
    """A frozen rule set; see ``docs/rules.md`` for the rule texts.

    ``bonus``: points for each further five of a kind rolled once every five-of-a-kind
    row (the yahtzee / yatzy / yacht box and any extra yatzy rows) is filled and one of
    them holds 50 (Yahtzee's +100, the ``extra-bonus=N`` house rule).  ``joker``:
    ``"forced"`` / ``"free"`` / ``"none"`` placement of such a roll.  ``order``:
    ``"free"``, ``"down"`` / ``"up"`` (the next box in card order / in reverse), or
    ``"choose"`` (down or up, chosen before the first roll).  ``all_rolls``: every turn
    uses all three rolls (each reroll throws at least one die).
    """

    id: str
    title: str
    boxes: tuple[Box, ...]
    upper_bonus: int
    upper_threshold: int = 63
    bonus: int = 0
    joker: str = "none"
    order: str = "free"
    all_rolls: bool = False
    triple: bool = False
    n_dice: int = N_DICE
    reference_value: float | None = field(default=None, compare=False)
    base: str = field(default="", compare=False)
    modifiers: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        names = [b.name for b in self.boxes]
        if not self.boxes:
            raise UsageError(f"{self.id}: the card has no boxes left")
        if len(self.boxes) > self.max_boxes:
            raise UsageError(f"{self.id}: {len(self.boxes)} boxes, at most {self.max_boxes} are supported")
        if self.n_dice not in DICE_COUNTS:
            raise ValueError(f"{self.id}: {self.n_dice} dice, the engine handles {DICE_COUNTS}")
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: box names repeat: {names}")
        if self.joker not in _JOKER_CODES or self.order not in _ORDER_CODES:
            raise ValueError(f"{self.id}: bad joker {self.joker!r} or order {self.order!r}")
        if (self.bonus or self.joker != "none") and not self.five_kind_rows:
            raise ValueError(f"{self.id}: a bonus or Joker rule needs a five-of-a-kind row")

    # --- structure -------------------------------------------------------
    @property
    def max_boxes(self) -> int:
        """The most boxes a card of this many dice may have (:data:`MAX_BOXES`, six dice
        :data:`MAX_BOXES_SIX`)."""
        return MAX_BOXES_SIX if self.n_dice == 6 else MAX_BOXES

    @property
    def dice(self):
        """The dice layer of this rule set's dice (:func:`solver.core.dice.layer`)."""
        return layer(self.n_dice)

    @property
    def n_rolls(self) -> int:
        """Rolls of all the dice: 252 for five dice, 462 for six."""
        return self.dice.n_rolls

    @cached_property
    def box_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.boxes)

    @property
    def n_boxes(self) -> int:
        return len(self.boxes)

    @property
    def n_turns(self) -> int:
        return self.n_boxes * (len(TRIPLE_WEIGHTS) if self.triple else 1)

    @property
    def weights(self) -> tuple[int, ...]:
        """The columns' weights: ``(1, 2, 3)`` on the triple card, ``(1,)`` otherwise."""
        return TRIPLE_WEIGHTS if self.triple else (1,)

    @property
    def single(self) -> RuleSet:
        """The rule set of one column: this one without ``triple`` (itself when not triple)."""
        if not self.triple:
            return self
        return get_rules("+".join(p for p in self.id.split("+") if p != "triple"))

    def require_single(self, what: str) -> None:
        """Refuse the triple card where only single cards are handled (a usage error)."""
        if self.triple:
            raise UsageError(
                f"{what} does not take the triple card ({self.id}); it is played with "
                f"simulate --bot triple|tuned|floor|heuristic|greedy|random and hint --rules {self.id}"
            )

    def require_five_dice(self, what: str) -> None:
        """Refuse six dice (Maxi Yatzy) where only five are handled so far (a usage error)."""
        if self.n_dice != N_DICE:
            raise UsageError(
                f"{what} does not take six dice yet ({self.id}); Maxi Yatzy has "
                f"{', '.join(' '.join(words) for words in SIX_DICE_COMMANDS)}"
            )

    @property
    def full_mask(self) -> int:
        return (1 << self.n_boxes) - 1

    @cached_property
    def box_index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.box_names)}

    @cached_property
    def upper_indices(self) -> tuple[int, ...]:
        return tuple(i for i, b in enumerate(self.boxes) if b.is_upper)

    @cached_property
    def lower_indices(self) -> tuple[int, ...]:
        return tuple(i for i, b in enumerate(self.boxes) if not b.is_upper)

    @cached_property
    def five_kind_rows(self) -> tuple[int, ...]:
        """Boxes that pay for five of a kind (yahtzee, yatzy, yatzy_2 ..., yacht)."""
        return tuple(i for i, b in enumerate(self.boxes) if b.is_five_kind)

    @cached_property
    def rows_mask(self) -> int:
        return sum(1 << i for i in self.five_kind_rows)

    @property
    def has_upper_bonus(self) -> bool:
        return self.upper_bonus > 0 and bool(self.upper_indices)

    @property
    def upper_cap(self) -> int:
        """Upper totals are tracked up to the threshold (more changes nothing); not at all
        when there is no upper bonus to reach."""
        return self.upper_threshold if self.has_upper_bonus else 0

    @property
    def n_flags(self) -> int:
        """2 when the state needs the flag "a five-of-a-kind row holds 50" (only the bonus
        depends on it)."""
        return 2 if self.bonus > 0 else 1

    @property
    def forced_order(self) -> bool:
        return self.order != "free"

    # --- the rules, one function each --------------------------------------------
    def allowed_bits(self, filled: int) -> int:
        """Bitmask of the open boxes the fill order allows now.

        Under ``choose`` the first box filled shows the direction: the first box of the
        card (down) or the last (up); on an empty card both are allowed.
        """
        open_bits = ~filled & self.full_mask
        if not open_bits or self.order == "free":
            return open_bits
        low = open_bits & -open_bits
        high = 1 << (open_bits.bit_length() - 1)
        if self.order == "down":
            return low
        if self.order == "up":
            return high
        if filled == 0:
            return low | high
        return low if filled & 1 else high

    def is_reachable_mask(self, filled: int) -> bool:
        """Can a game under the fill order have exactly these boxes filled?"""
        if self.order == "free":
            return True
        n = self.n_boxes
        prefix = filled == (1 << filled.bit_count()) - 1
        suffix = filled == self.full_mask ^ ((1 << (n - filled.bit_count())) - 1)
        return {"down": prefix, "up": suffix}.get(self.order, prefix or suffix)

    def placements(self, filled: int, counts: Counts, holds_50: bool) -> list[tuple[int, int, int]]:
        """Where this roll may legally go: ``[(box, score, bonus), ...]`` in card order.

        ``filled`` is the bitmask of filled boxes (bit ``i`` = box ``i``); ``holds_50``:
        a five-of-a-kind row holds 50.  ``bonus`` is the five-of-a-kind bonus the roll
        earns (the same for every placement).  The upper bonus is not included (see
        :meth:`step`).  A five of a kind rolled once every five-of-a-kind row is filled
        follows the Joker policy among the boxes the fill order allows.
        """
        allowed = self.allowed_bits(filled)
        boxes = [b for b in range(self.n_boxes) if allowed >> b & 1]
        rows = self.rows_mask
        extra = max(counts) == self.n_dice and rows != 0 and filled & rows == rows
        bonus = self.bonus if extra and holds_50 else 0
        if not extra or self.joker == "none":
            return [(b, self.boxes[b].score(counts), bonus) for b in boxes]
        face = counts.index(self.n_dice) + 1
        face_box = [b for b in boxes if self.boxes[b].face == face]

        def joker(b: int) -> int:
            box = self.boxes[b]
            return box.joker_score if box.joker_score is not None else box.score(counts)

        if self.joker == "free":  # any box; fixed Joker scores once the face box is taken
            return [(b, self.boxes[b].score(counts) if face_box else joker(b), bonus) for b in boxes]
        # forced: own upper box, else any lower box, else any upper box (scoring 0)
        if face_box:
            return [(face_box[0], self.boxes[face_box[0]].score(counts), bonus)]
        lower = [b for b in boxes if not self.boxes[b].is_upper]
        if lower:
            return [(b, joker(b), bonus) for b in lower]
        return [(b, self.boxes[b].score(counts), bonus) for b in boxes]

    def step(self, state: State, box: int, score: int) -> tuple[int, State]:
        """``(points, next_state)`` of putting ``score`` in open ``box`` from ``state``.

        ``points`` is the score plus the upper bonus when this placement reaches it (the
        five-of-a-kind bonus is the roll's, see :meth:`placements`); ``next_state`` has
        the box filled, the upper total capped at :attr:`upper_cap` and the flag set
        when a five-of-a-kind row now holds 50.
        """
        filled, upper, flag = state
        points = score
        if self.boxes[box].is_upper:
            thr = self.upper_threshold
            if self.has_upper_bonus and upper < thr <= upper + score:
                points += self.upper_bonus
            upper = min(upper + score, self.upper_cap)
        if self.n_flags == 2 and self.boxes[box].is_five_kind and score == 50:
            flag = 1
        return points, (filled | 1 << box, upper, flag)

    # --- scoring tables ---------------------------------------------------
    def box_score(self, box: int, counts: Counts) -> int:
        return self.boxes[box].score(counts)

    @cached_property
    def scores_by_box(self) -> tuple[tuple[int, ...], ...]:
        """``scores_by_box[b][r]``: the ordinary score of roll ``r`` in box ``b`` (plain ints, no numpy)."""
        dice = self.dice
        counts = dice.keep_face_counts[dice.roll_offset :]
        return tuple(tuple(map(box.scorer, counts)) for box in self.boxes)

    @cached_property
    def score_table(self) -> np.ndarray:
        """(n_rolls, n_boxes) int64 (252 rolls of five dice, 462 of six): the ordinary score of every roll in every box (:attr:`scores_by_box`)."""
        import numpy as np

        table = np.ascontiguousarray(np.array(self.scores_by_box, dtype=np.int64).T)
        table.setflags(write=False)
        return table

    @cached_property
    def possible_scores(self) -> tuple[frozenset[int], ...]:
        """Every score each box can ever hold (0 and Joker scores included)."""
        out = []
        for b, box in enumerate(self.boxes):
            values = set(self.scores_by_box[b]) | {0}
            if self.joker != "none" and box.joker_score is not None:
                values.add(box.joker_score)
            out.append(frozenset(values))
        return tuple(out)

    # --- arrays for the kernels -------------------------------------------
    @cached_property
    def kernel_arrays(self) -> dict[str, np.ndarray | int]:
        """The rule set as arrays and ints for :func:`solver.engine.dp.rule_arrays`.

        ``score`` (252, B) int64, ``joker_score`` (252, B) int64 (the score of a roll
        played as a Joker; only rows of five-of-a-kind rolls are read), ``box_face``
        (B,) int64 (1..6 upper, 0 lower), ``five_kind`` (B,) int64 (1 for a
        five-of-a-kind row), ``roll_face`` (252,) int64 (face of a five-of-a-kind roll,
        else 0), then ints.  Asserts the kernels' assumptions (five six-sided dice, at
        most :data:`MAX_BOXES` boxes).
        """
        import numpy as np

        dice = self.dice
        if N_FACES != 6 or (self.n_dice, dice.n_rolls) not in ((5, 252), (6, 462)):
            raise AssertionError("the kernels assume five (252 rolls) or six (462) six-sided dice")
        if not 0 < self.n_boxes <= self.max_boxes:
            raise AssertionError(
                f"the kernels handle 1..{self.max_boxes} boxes, {self.id} has {self.n_boxes}"
            )
        joker = np.array(self.score_table, dtype=np.int64)
        roll_face = np.zeros(dice.n_rolls, dtype=np.int64)
        for r, roll in enumerate(dice.rolls):
            if roll[0] == roll[-1]:
                roll_face[r] = roll[0]
                for b, box in enumerate(self.boxes):
                    if box.joker_score is not None:
                        joker[r, b] = box.joker_score
        return {
            "score": np.ascontiguousarray(self.score_table, dtype=np.int64),
            "joker_score": joker,
            "box_face": np.array([b.face for b in self.boxes], dtype=np.int64),
            "five_kind": np.array([int(b.is_five_kind) for b in self.boxes], dtype=np.int64),
            "roll_face": roll_face,
            "rows_mask": self.rows_mask,
            "bonus": self.bonus,
            "joker_mode": _JOKER_CODES[self.joker],
            "order": _ORDER_CODES[self.order],
            "all_rolls": int(self.all_rolls),
            "upper_threshold": self.upper_threshold if self.has_upper_bonus else 1 << 20,
            "upper_bonus": self.upper_bonus if self.has_upper_bonus else 0,
        }

    def directed(self, direction: str) -> RuleSet:
        """This rule set with ``order=choose`` fixed to ``down`` or ``up`` (others: itself)."""
        if self.order != "choose":
            return self
        return replace(self, order=direction)

    def describe(self) -> dict:
        """Parameters for manifests and ``--json`` output."""
        return (
            {
                "id": self.id,
                "title": self.title,
                "boxes": list(self.box_names),
                "upper_threshold": self.upper_threshold,
                "upper_bonus": self.upper_bonus if self.has_upper_bonus else 0,
                "bonus": self.bonus,
                "joker": self.joker,
                "order": self.order,
                "all_rolls": self.all_rolls,
            }
            | ({"n_dice": self.n_dice} if self.n_dice != N_DICE else {})
            | ({"triple": True, "weights": list(self.weights)} if self.triple else {})
        )

    def card_text(self) -> str:
        """The card in words: boxes, scoring, bonuses and order (``yahtzee rules SPEC``)."""
        lines = [f"{self.id}: {self.title}"]
        if self.triple:
            single = self.single
            lines.append(
                f"triple card: three columns of the {single.id} card below, weighted "
                + ", ".join(f"x{w}" for w in self.weights)
                + "; each turn fills one open box of any column; the upper bonus, the "
                "five-of-a-kind bonus and the Joker rule are judged within the chosen column; "
                "every score of a column, its bonuses included, is multiplied by its weight"
            )
            lines.append('card notation: BOX@COLUMN=SCORE, e.g. "ones@1=3,fours@3=12" (columns 1..3)')
            if single.reference_value is not None:
                floor = sum(self.weights) * single.reference_value
                lines.append(
                    f"floor (each column in turn, played optimally): {floor:.7f} = "
                    f"{sum(self.weights)} x {single.reference_value:.7f}; exact value unknown"
                )
        if self.reference_value is not None:
            lines.append(f"optimal expected score: {self.reference_value:.7f}")
        lines.append("")
        for i, box in enumerate(self.boxes):
            extra = ""
            if self.joker != "none" and box.joker_score is not None:
                extra = f" (Joker: {box.joker_score})"
            lines.append(f"  {i + 1:>2}. {box.name:<16} {box.scorer.describe()}{extra}")
        lines.append("")
        return "\n".join(lines + self.rule_lines())

    def rule_lines(self) -> list[str]:
        """The card's rules besides its boxes, one line each: the bonuses, the Joker rule, the
        fill order, the rolls and the turns (the end of :meth:`card_text`; the web's rule-set
        picker shows them)."""
        lines = []
        if self.has_upper_bonus:
            lines.append(
                f"upper bonus: +{self.upper_bonus} when the upper boxes total {self.upper_threshold}+"
            )
        else:
            lines.append("upper bonus: none")
        rows = " and ".join(self.box_names[i] for i in self.five_kind_rows)
        if self.bonus:
            when = f"{rows} holds 50" if len(self.five_kind_rows) == 1 else f"{rows} are filled, one with 50"
            lines.append(f"five-of-a-kind bonus: +{self.bonus} for each further one once {when}")
        if self.joker != "none":
            lines.append(f"Joker rule: {self.joker} placement once {rows} is filled")
        order = {
            "free": "any open box",
            "down": "boxes in card order, first to last",
            "up": "boxes in reverse card order, last to first",
            "choose": "down or up, chosen before the first roll",
        }
        lines.append(f"fill order: {order[self.order]}")
        if self.n_dice != N_DICE:
            lines.append(f"dice: {self.n_dice}")
        lines.append("rolls: all three every turn" if self.all_rolls else "rolls: up to three a turn")
        lines.append(f"turns: {self.n_turns}")
        return lines

    def __str__(self) -> str:
        return self.id


# --- bases ------------------------------------------------------------------------
def _upper_boxes() -> tuple[Box, ...]:
    return tuple(Box(name, Scorer("upper", face)) for face, name in enumerate(UPPER_NAMES, start=1))


_YAHTZEE_BOXES = _upper_boxes() + (
    Box("three_of_a_kind", Scorer("n_kind_sum", 3)),
    Box("four_of_a_kind", Scorer("n_kind_sum", 4)),
    Box("full_house", Scorer("full_house", points=25), joker_score=25),
    Box("small_straight", Scorer("straight", 4, 30), joker_score=30),
    Box("large_straight", Scorer("straight", 5, 40), joker_score=40),
    Box("yahtzee", Scorer("five_kind", points=50)),
    Box("chance", Scorer("chance")),
)

_YATZY_BOXES = _upper_boxes() + (
    Box("one_pair", Scorer("n_kind_face", 2)),
    Box("two_pairs", Scorer("two_pairs")),
    Box("three_of_a_kind", Scorer("n_kind_face", 3)),
    Box("four_of_a_kind", Scorer("n_kind_face", 4)),
    Box("small_straight", Scorer("exact_straight", 1, 15)),
    Box("large_straight", Scorer("exact_straight", 2, 20)),
    Box("full_house", Scorer("full_house")),
    Box("chance", Scorer("chance")),
    Box("yatzy", Scorer("five_kind", points=50)),
)

_YACHT_BOXES = _upper_boxes() + (
    Box("full_house", Scorer("full_house")),
    Box("four_of_a_kind", Scorer("n_kind_face", 4)),
    Box("little_straight", Scorer("exact_straight", 1, 30)),
    Box("big_straight", Scorer("exact_straight", 2, 30)),
    Box("choice", Scorer("chance")),
    Box("yacht", Scorer("five_kind", points=50)),
)


@dataclass(frozen=True)
class Base:
    """A base game: its card and bonuses before modifiers."""

    id: str
    title: str
    boxes: tuple[Box, ...]
    upper_bonus: int
    bonus: int = 0
    joker: str = "none"
    family: str = "yatzy"  # "yahtzee" (own bonus and Joker rule), "yatzy", "yacht" or "maxi"
    upper_threshold: int = 63
    n_dice: int = N_DICE


_MAXI_BOXES = _upper_boxes() + (
    Box("one_pair", Scorer("n_kind_face", 2)),
    Box("two_pairs", Scorer("two_pairs")),
    Box("three_pairs", Scorer("three_pairs")),
    Box("three_of_a_kind", Scorer("n_kind_face", 3)),
    Box("four_of_a_kind", Scorer("n_kind_face", 4)),
    Box("five_of_a_kind", Scorer("n_kind_face", 5)),
    Box("small_straight", Scorer("straight_among", 1, 15)),
    Box("large_straight", Scorer("straight_among", 2, 20)),
    Box("full_straight", Scorer("straight", 6, 21)),
    Box("full_house", Scorer("full_house")),
    Box("villa", Scorer("villa")),
    Box("tower", Scorer("tower")),
    Box("chance", Scorer("chance")),
    Box("maxi_yatzy", Scorer("all_same", points=100)),
)


BASES: dict[str, Base] = {
    b.id: b
    for b in (
        Base("yahtzee", "Yahtzee (official rules, forced Joker)", _YAHTZEE_BOXES, 35, 100, "forced", "yahtzee"),
        Base("yahtzee-free-joker", "Yahtzee with free Joker placement", _YAHTZEE_BOXES, 35, 100, "free", "yahtzee"),
        Base("yahtzee-no-joker", "Yahtzee without the Joker rule", _YAHTZEE_BOXES, 35, 100, "none", "yahtzee"),
        Base("yahtzee-no-bonus", "Yahtzee without Joker or Yahtzee bonus", _YAHTZEE_BOXES, 35, 0, "none", "yahtzee"),
        Base("yatzy", "Scandinavian Yatzy", _YATZY_BOXES, 50),
        Base("yacht", "Yacht (the old public-domain game)", _YACHT_BOXES, 0, family="yacht"),
        Base("maxi", "Maxi Yatzy (six dice, Finnish rules)", _MAXI_BOXES, 50, family="maxi",
             upper_threshold=75, n_dice=6),
    )
}  # fmt: skip

#: Other names of a spec (kept so that saved games, scripts and tables keep working).
ALIASES = {"yatzy-forced": "yatzy+order=down", "maxi-yatzy": "maxi"}


# --- modifiers --------------------------------------------------------------------
@dataclass(frozen=True)
class Modifier:
    """A house rule: ``name`` or ``name=VALUE``, one line of help, and how it changes a
    rule set under construction (``apply(draft, value) -> None``, raising UsageError on a
    conflict)."""

    name: str
    syntax: str
    help: str
    apply: Callable[[dict, str | None], None]
    takes_value: bool = False


def _positive_int(d: dict, mod: str, value: str | None, low: int = 1, high: int = 1000) -> int:
    """The number of ``mod=value``, also kept in ``d["numbers"]`` for the canonical spec."""
    try:
        n = parse_whole(value or "", mod, low, high)
    except UsageError:
        raise UsageError(f"{mod}={clipped(value or '')}: needs a whole number from {low} to {high}") from None
    d.setdefault("numbers", {})[mod] = n
    return n


def _all_rolls(d: dict, value: str | None) -> None:
    d["all_rolls"] = True


def _extra_bonus(d: dict, value: str | None) -> None:
    n = _positive_int(d, "extra-bonus", value)
    if d["base"].family == "yahtzee":
        raise UsageError(
            f"extra-bonus conflicts with {d['base'].id}: it is for bases without a bonus of their own "
            "(yatzy, yacht)"
        )
    d["bonus"] = n
    d["_needs_rows"] = "extra-bonus"


def _yatzy_rows(d: dict, value: str | None) -> None:
    k = _positive_int(d, "yatzy-rows", value, 2, MAX_BOXES)
    if d["base"].family != "yatzy":
        raise UsageError(
            f"yatzy-rows conflicts with {d['base'].id}: it needs a base with a yatzy row (yatzy)"
        )
    boxes = list(d["boxes"])
    at = next(i for i, b in enumerate(boxes) if b.name == "yatzy") + 1
    boxes[at:at] = [Box(f"yatzy_{j}", Scorer("five_kind", points=50)) for j in range(2, k + 1)]
    d["boxes"] = tuple(boxes)


def _order(d: dict, value: str | None) -> None:
    if value not in ("down", "up", "choose"):
        raise UsageError(f"order={value}: needs down, up or choose")
    d["order"] = value


def _lower_only(d: dict, value: str | None) -> None:
    d["boxes"] = tuple(b for b in d["boxes"] if not b.is_upper)


def _without(d: dict, value: str | None) -> None:
    names = [n.strip().lower().replace("-", "_").replace(" ", "_") for n in (value or "").split(",")]
    if not value or not all(names):
        raise UsageError(f"without={value}: needs box names, e.g. without=chance,ones")
    on_card = [b.name for b in d["boxes"]]
    for name in names:
        if name not in on_card:
            raise UsageError(f"without={value}: {name!r} is not on the card (boxes: {', '.join(on_card)})")
    d["boxes"] = tuple(b for b in d["boxes"] if b.name not in names)
    d["without"] = ",".join(n for n in on_card if n in names)  # card order, once each


#: The columns of the triple card and their weights (``docs/rules.md``, modifier ``triple``).
TRIPLE_WEIGHTS = (1, 2, 3)


def _upper_bonus(d: dict, value: str | None) -> None:
    base = d["base"]
    threshold_text, sep, points_text = (value or "").partition("/")
    most = 21 * base.n_dice  # every upper box full of its face
    try:
        threshold = parse_whole(threshold_text, "bonus threshold", 1, most)
        points = parse_whole(points_text, "bonus points", 1, 1000) if sep else 0
    except UsageError:
        threshold = points = 0
    if not points:
        raise UsageError(
            f"bonus={clipped(value or '')}: needs THRESHOLD/POINTS, e.g. bonus=84/100 "
            f"(a threshold from 1 to {most}, points from 1 to 1000)"
        )
    if not base.upper_bonus:
        raise UsageError(f"bonus conflicts with {base.id}: it has no upper bonus to change")
    d["upper_threshold"], d["upper_bonus"] = threshold, points
    d.setdefault("canonical", {})["bonus"] = f"{threshold}/{points}"


def _triple(d: dict, value: str | None) -> None:
    if d["base"].n_dice != N_DICE:
        raise UsageError(f"triple conflicts with {d['base'].id}: the triple card is for five dice")
    if d["order"] == "choose":
        raise UsageError(
            "triple conflicts with order=choose: use order=down or order=up with the triple card"
        )
    d["triple"] = True


MODIFIERS: dict[str, Modifier] = {
    m.name: m
    for m in (
        Modifier("all-rolls", "all-rolls", "every turn uses all three rolls", _all_rolls),
        Modifier(
            "extra-bonus",
            "extra-bonus=N",
            "+N for each further five of a kind once the yatzy row holds 50 (yatzy, yacht)",
            _extra_bonus,
            True,
        ),
        Modifier("yatzy-rows", "yatzy-rows=K", "K yatzy rows instead of one (yatzy)", _yatzy_rows, True),
        Modifier("order", "order=down|up|choose", "fill the boxes in card order, in reverse, or choose", _order, True),
        Modifier("lower-only", "lower-only", "a shortened game without the upper rows", _lower_only),
        Modifier("without", "without=BOX,...", "a shortened game without the named rows", _without, True),
        Modifier("triple", "triple", "three columns of the card weighted x1, x2, x3", _triple),
        Modifier("bonus", "bonus=T/P", "the upper bonus is P points at an upper total of T+ (maxi: 84/100)",
                 _upper_bonus, True),
    )
}  # fmt: skip

#: Values of exact play from the empty card: ``docs/rules.md`` (two published solvers)
#: and, marked, this solver's own (cross-checked as described in the README).
REFERENCE_VALUES: dict[str, float] = {
    "yahtzee": 254.5877287,
    "yahtzee-free-joker": 254.5896095,
    "yahtzee-no-joker": 253.9702412,
    "yahtzee-no-bonus": 245.8707745,
    "yatzy": 248.4399894,
    "yacht": 166.9550677,
    "yatzy+lower-only": 127.3762117,
    "yatzy+order=down": 122.5585274,
    "yatzy+all-rolls": 237.4354412,
    "yatzy+yatzy-rows=2": 259.3555254,
    "yatzy+extra-bonus=50": 253.6408167,
    # published by an independent exact solver, stored in float32 (so: to 3e-5)
    "maxi": 383.305389,
}
#: how far from its reference a value may be where the reference is less precise than 1e-6
REFERENCE_TOLERANCES: dict[str, float] = {"maxi": 3e-5}


def _split(spec: str) -> tuple[str, list[tuple[str, str | None]]]:
    # no spaces around + = , and a space inside a box name is an underscore: "full house"
    text = re.sub(r"\s+", "_", re.sub(r"\s*([+=,])\s*", r"\1", str(spec).strip().lower()))
    if text == "triple" or text.startswith("triple+"):  # ``triple`` alone is ``yahtzee+triple``
        text = "yahtzee+" + text
    for alias, full in ALIASES.items():
        if text == alias or text.startswith(alias + "+"):
            text = full + text[len(alias) :]
    base, *parts = text.split("+")
    mods = []
    for part in parts:
        name, sep, value = part.partition("=")
        mods.append((name, value if sep else None))
    return base, mods


def parse_rules(spec: str) -> RuleSet:
    """Build the rule set of ``BASE+MOD...``; raises UsageError naming what is wrong."""
    base_id, mods = _split(spec)
    base = BASES.get(base_id)
    if base is None:
        known = ", ".join([*BASES, *ALIASES])
        raise UnknownRulesError(f"unknown rule set {spec!r}: no base {base_id!r} (bases: {known})")
    draft: dict = {
        "base": base,
        "boxes": base.boxes,
        "bonus": base.bonus,
        "order": "free",
        "all_rolls": False,
        "upper_threshold": base.upper_threshold,
        "upper_bonus": base.upper_bonus,
    }
    given: dict[str, str | None] = {}
    for name, value in mods:
        mod = MODIFIERS.get(name)
        if mod is None:
            raise UnknownRulesError(
                f"unknown modifier {name!r} in {spec!r} (modifiers: {', '.join(m.syntax for m in MODIFIERS.values())})"
            )
        if name in given:
            raise UsageError(f"{spec!r}: modifier {name} is given twice")
        if mod.takes_value and value is None:
            raise UsageError(f"{spec!r}: {name} needs a value ({mod.syntax})")
        if not mod.takes_value and value is not None:
            raise UsageError(f"{spec!r}: {name} takes no value ({mod.syntax})")
        given[name] = value
    for name, mod in MODIFIERS.items():  # canonical order, so the result does not depend on the spelling
        if name in given:
            mod.apply(draft, given[name])
    boxes = draft["boxes"]
    if not boxes:
        raise UsageError(f"{spec!r}: no boxes are left on the card")
    if draft.get("_needs_rows") and not any(b.is_five_kind for b in boxes):
        raise UsageError(f"{spec!r}: {draft['_needs_rows']} needs a yatzy row on the card")
    parts = [base.id]
    for name in MODIFIERS:
        if name in given:
            value = draft["without"] if name == "without" else given[name]
            value = draft.get("canonical", {}).get(name, value)
            if name in draft.get("numbers", {}):  # extra-bonus=050 is extra-bonus=50
                value = str(draft["numbers"][name])
            parts.append(name if value is None else f"{name}={value}")
    canonical = "+".join(parts)
    has_rows = any(b.is_five_kind for b in boxes)
    title = base.title + (" + " + ", ".join(parts[1:]) if parts[1:] else "")
    return RuleSet(
        canonical,
        title,
        boxes,
        upper_bonus=draft["upper_bonus"],
        upper_threshold=draft["upper_threshold"],
        bonus=draft["bonus"] if has_rows else 0,
        joker=base.joker if has_rows else "none",
        order=draft["order"],
        all_rolls=draft["all_rolls"],
        triple=draft.get("triple", False),
        n_dice=base.n_dice,
        reference_value=REFERENCE_VALUES.get(canonical),
        base=base.id,
        modifiers=tuple(parts[1:]),
    )


#: rule sets kept parsed (the most recently used; a server asked for many specs stays bounded)
MAX_CACHED_RULES = 64
#: spellings remembered per rule set cache (each a short string naming a canonical id)
MAX_CACHED_SPELLINGS = 1024
_BY_ID: OrderedDict[str, RuleSet] = OrderedDict()
_BY_SPELLING: OrderedDict[str, str] = OrderedDict()
_CACHE_LOCK = threading.Lock()
#: ids and spellings never dropped: the named rule sets of 1.0 (:data:`RULE_SETS`), one object each
_PINNED: set[str] = set()
DEFAULT_RULES = "yahtzee"


def _drop_oldest(cache: OrderedDict, limit: int) -> None:
    """Drop the least recently used entries of ``cache`` beyond ``limit``, never a pinned one."""
    while len(cache) > limit:
        oldest = next((key for key in cache if key not in _PINNED), None)
        if oldest is None:
            return
        del cache[oldest]


def get_rules(rules: str | RuleSet | None = None) -> RuleSet:
    """The rule set of a spec (``None`` gives the default, ``yahtzee``): one object per canonical
    spec while it is among the :data:`MAX_CACHED_RULES` used last (the cache is bounded: every
    spelling a server is sent would otherwise be kept for good)."""
    if isinstance(rules, RuleSet):
        return rules
    key = DEFAULT_RULES if rules is None else str(rules)
    with _CACHE_LOCK:
        found = _BY_ID.get(_BY_SPELLING.get(key, key))
        if found is not None:
            _BY_ID.move_to_end(found.id)
            return found
    parsed = parse_rules(key)
    with _CACHE_LOCK:
        found = _BY_ID.setdefault(parsed.id, parsed)  # one object per canonical spec
        _BY_ID.move_to_end(found.id)
        _drop_oldest(_BY_ID, MAX_CACHED_RULES)
        if key != found.id and len(key) <= 200:
            _BY_SPELLING[key] = found.id
            _BY_SPELLING.move_to_end(key)
            _drop_oldest(_BY_SPELLING, MAX_CACHED_SPELLINGS)
    return found


def canonical(spec: str) -> str:
    """The canonical spelling of a rule-set spec."""
    return get_rules(spec).id


#: The rule sets of 1.0, by their historical ids (``RULE_SETS["yatzy-forced"].id`` is
#: ``yatzy+order=down``).
RULE_SETS: dict[str, RuleSet] = {
    name: get_rules(name)
    for name in (
        "yahtzee",
        "yahtzee-free-joker",
        "yahtzee-no-joker",
        "yahtzee-no-bonus",
        "yatzy",
        "yatzy-forced",
    )
}
_PINNED.update(RULE_SETS)
_PINNED.update(r.id for r in RULE_SETS.values())


def describe_modifiers() -> list[str]:
    """``yahtzee rules``: one line per base and per modifier."""
    lines = ["bases:"]
    lines += [f"  {b.id:<22} {b.title}" for b in BASES.values()]
    lines += [f"  {a:<22} = {full}" for a, full in ALIASES.items()]
    lines += ["modifiers (BASE+MOD+MOD...):"]
    lines += [f"  {m.syntax:<22} {m.help}" for m in MODIFIERS.values()]
    return lines

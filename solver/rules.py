"""Rule sets as data.

A :class:`RuleSet` is a frozen description of one variant: its boxes in card
order (each with a scoring rule), the upper bonus, the Yahtzee bonus and the
Joker policy.  Rule sets are looked up by id with :func:`get_rules`; the
default is ``yahtzee`` (official Hasbro rules, forced Joker).

Everything above this layer (card, DP, advisor, simulation) asks the rule set
and never hard-codes a game.  The DP kernels receive the same information as
arrays through :meth:`RuleSet.kernel_arrays`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from .dice import KEEP_FACE_COUNTS, N_ROLLS, ROLL_OFFSET, ROLLS
from .errors import UnknownRulesError

if TYPE_CHECKING:
    import numpy as np

Counts = tuple[int, ...]  # dice per face 1..6

JOKER_NONE = 0
JOKER_FORCED = 1
JOKER_FREE = 2
_JOKER_CODES = {"none": JOKER_NONE, "forced": JOKER_FORCED, "free": JOKER_FREE}


def _total(c: Counts) -> int:
    return sum((f + 1) * n for f, n in enumerate(c))


def _upper(face: int) -> Callable[[Counts], int]:
    return lambda c: face * c[face - 1]


def _sum_if_n_kind(n: int) -> Callable[[Counts], int]:
    return lambda c: _total(c) if max(c) >= n else 0


def _face_times_n_kind(n: int) -> Callable[[Counts], int]:
    def score(c: Counts) -> int:
        faces = [f + 1 for f, k in enumerate(c) if k >= n]
        return n * max(faces) if faces else 0

    return score


def _is_full_house(c: Counts) -> bool:
    return sorted(k for k in c if k) == [2, 3]


def _has_run(c: Counts, length: int) -> bool:
    run = 0
    for k in c:
        run = run + 1 if k else 0
        if run >= length:
            return True
    return False


def _two_pairs(c: Counts) -> int:
    faces = [f + 1 for f, k in enumerate(c) if k >= 2]
    return 2 * sum(faces) if len(faces) == 2 else 0


SCORERS: dict[str, Callable[[Counts], int]] = {
    **{
        name: _upper(face)
        for face, name in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)
    },
    "sum_if_3_kind": _sum_if_n_kind(3),
    "sum_if_4_kind": _sum_if_n_kind(4),
    "25_if_full_house": lambda c: 25 if _is_full_house(c) else 0,
    "30_if_4_run": lambda c: 30 if _has_run(c, 4) else 0,
    "40_if_5_run": lambda c: 40 if _has_run(c, 5) else 0,
    "50_if_5_kind": lambda c: 50 if max(c) == 5 else 0,
    "sum": _total,
    "pair": _face_times_n_kind(2),
    "two_pairs": _two_pairs,
    "3x_face_3_kind": _face_times_n_kind(3),
    "4x_face_4_kind": _face_times_n_kind(4),
    "15_if_12345": lambda c: 15 if c == (1, 1, 1, 1, 1, 0) else 0,
    "20_if_23456": lambda c: 20 if c == (0, 1, 1, 1, 1, 1) else 0,
    "sum_if_full_house": lambda c: _total(c) if _is_full_house(c) else 0,
}


@dataclass(frozen=True)
class Box:
    """One box of the score card.

    ``face`` is 1..6 for an upper box and 0 for a lower one.  ``joker_score``
    is the fixed score the box pays for a Yahtzee played as a Joker (25, 30,
    40), or ``None`` when a Joker scores there as usual.
    """

    name: str
    scorer: str
    face: int = 0
    joker_score: int | None = None

    @property
    def is_upper(self) -> bool:
        return self.face > 0

    def score(self, counts: Counts) -> int:
        return SCORERS[self.scorer](counts)


@dataclass(frozen=True)
class RuleSet:
    """A frozen rule set; see ``shared/RULES.md`` for the rule texts.

    ``yahtzee_box`` names the five-of-a-kind box whose 50 enables the Yahtzee
    bonus and the Joker rule (``None`` for neither).  ``joker`` is ``"forced"``
    (official placement order), ``"free"`` (any open box; fixed Joker scores only
    when the upper box of the face is filled) or ``"none"``.  ``forced_order``
    makes every turn fill the next box in card order.
    """

    id: str
    title: str
    boxes: tuple[Box, ...]
    upper_bonus: int
    upper_threshold: int = 63
    yahtzee_box: str | None = None
    yahtzee_bonus: int = 0
    joker: str = "none"
    forced_order: bool = False
    reference_value: float | None = None
    notes: str = field(default="", compare=False)

    # --- structure -------------------------------------------------------
    @cached_property
    def box_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.boxes)

    @property
    def n_boxes(self) -> int:
        return len(self.boxes)

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
    def yahtzee_index(self) -> int:
        """Index of the five-of-a-kind box, or -1."""
        return self.box_index[self.yahtzee_box] if self.yahtzee_box else -1

    @property
    def n_flags(self) -> int:
        """2 when the DP state needs the "yahtzee box holds 50" flag (only the bonus depends on it)."""
        return 2 if self.yahtzee_index >= 0 and self.yahtzee_bonus > 0 else 1

    @property
    def n_turns(self) -> int:
        return self.n_boxes

    @property
    def full_mask(self) -> int:
        return (1 << self.n_boxes) - 1

    @property
    def upper_cap(self) -> int:
        """Upper totals are tracked up to the threshold; more changes nothing."""
        return self.upper_threshold

    # --- scoring ---------------------------------------------------------
    @cached_property
    def scores_by_box(self) -> tuple[tuple[int, ...], ...]:
        """``scores_by_box[b][r]``: the ordinary score of roll ``r`` in box ``b`` (plain ints, no numpy)."""
        scorers = [SCORERS[box.scorer] for box in self.boxes]
        counts = KEEP_FACE_COUNTS[ROLL_OFFSET:]
        return tuple(tuple(map(score, counts)) for score in scorers)

    @cached_property
    def score_table(self) -> np.ndarray:
        """(252, n_boxes) int64: the ordinary score of every roll in every box (:attr:`scores_by_box`)."""
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

    def box_score(self, box: int, counts: Counts) -> int:
        return self.boxes[box].score(counts)

    def placements(self, filled: int, counts: Counts, yahtzee_holds_50: bool) -> list[tuple[int, int, int]]:
        """Where this roll may legally go: ``[(box, score, bonus), ...]`` in card order.

        ``filled`` is the bitmask of filled boxes (bit ``i`` = box ``i``).  ``bonus``
        is the extra Yahtzee bonus the roll earns (the same for every placement).
        The upper bonus is not included; the card adds it when it is reached.
        """
        open_boxes = [b for b in range(self.n_boxes) if not filled >> b & 1]
        if not open_boxes:
            return []
        if self.forced_order:
            open_boxes = open_boxes[:1]
        is_yahtzee = max(counts) == 5
        yb = self.yahtzee_index
        extra = is_yahtzee and yb >= 0 and bool(filled >> yb & 1)
        bonus = self.yahtzee_bonus if extra and yahtzee_holds_50 else 0
        if not extra or self.joker == "none":
            return [(b, self.box_score(b, counts), bonus) for b in open_boxes]
        face = counts.index(5) + 1
        face_box = next((i for i in self.upper_indices if self.boxes[i].face == face), -1)
        face_open = face_box in open_boxes  # under forced order only the next box is open

        def joker(b: int) -> int:
            box = self.boxes[b]
            return box.joker_score if box.joker_score is not None else self.box_score(b, counts)

        if self.joker == "free":
            return [(b, joker(b) if not face_open else self.box_score(b, counts), bonus) for b in open_boxes]
        # forced Joker: own upper box, else any open lower box, else any open upper box (0)
        if face_open:
            return [(face_box, self.box_score(face_box, counts), bonus)]
        lower = [b for b in open_boxes if not self.boxes[b].is_upper]
        if lower:
            return [(b, joker(b), bonus) for b in lower]
        return [(b, self.box_score(b, counts), bonus) for b in open_boxes]

    # --- arrays for the kernels -------------------------------------------
    @cached_property
    def kernel_arrays(self) -> dict[str, np.ndarray | int]:
        """The rule set as plain arrays and ints for the numba kernels.

        ``score`` (252, B) int64, ``joker_score`` (252, B) int64 (score of a roll
        played as a Joker; only rows of five-of-a-kind rolls are used),
        ``box_face`` (B,) int64 (1..6 upper, 0 lower), ``yahtzee_roll_face``
        (252,) int64 (face of a five-of-a-kind roll, else 0), plus ints.
        """
        import numpy as np

        n = self.n_boxes
        joker = np.array(self.score_table, dtype=np.int64)
        face_of_roll = np.zeros(N_ROLLS, dtype=np.int64)
        for r, roll in enumerate(ROLLS):
            if roll[0] == roll[-1]:
                face_of_roll[r] = roll[0]
                for b, box in enumerate(self.boxes):
                    if box.joker_score is not None:
                        joker[r, b] = box.joker_score
        return {
            "score": np.ascontiguousarray(self.score_table, dtype=np.int64),
            "joker_score": joker,
            "box_face": np.array([b.face for b in self.boxes], dtype=np.int64),
            "yahtzee_roll_face": face_of_roll,
            "n_boxes": n,
            "yahtzee_index": self.yahtzee_index,
            "yahtzee_bonus": self.yahtzee_bonus,
            "joker_mode": _JOKER_CODES[self.joker],
            "forced_order": int(self.forced_order),
            "upper_threshold": self.upper_threshold,
            "upper_bonus": self.upper_bonus,
            "n_flags": self.n_flags,
        }

    def describe(self) -> dict:
        """Parameters for manifests and ``--json`` output."""
        return {
            "id": self.id,
            "title": self.title,
            "boxes": list(self.box_names),
            "upper_threshold": self.upper_threshold,
            "upper_bonus": self.upper_bonus,
            "yahtzee_box": self.yahtzee_box,
            "yahtzee_bonus": self.yahtzee_bonus,
            "joker": self.joker,
            "forced_order": self.forced_order,
        }

    def __str__(self) -> str:
        return self.id


_UPPER = tuple(
    Box(name, name, face)
    for face, name in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)
)

_YAHTZEE_BOXES = _UPPER + (
    Box("three_of_a_kind", "sum_if_3_kind"),
    Box("four_of_a_kind", "sum_if_4_kind"),
    Box("full_house", "25_if_full_house", joker_score=25),
    Box("small_straight", "30_if_4_run", joker_score=30),
    Box("large_straight", "40_if_5_run", joker_score=40),
    Box("yahtzee", "50_if_5_kind"),
    Box("chance", "sum"),
)

_YATZY_BOXES = _UPPER + (
    Box("one_pair", "pair"),
    Box("two_pairs", "two_pairs"),
    Box("three_of_a_kind", "3x_face_3_kind"),
    Box("four_of_a_kind", "4x_face_4_kind"),
    Box("small_straight", "15_if_12345"),
    Box("large_straight", "20_if_23456"),
    Box("full_house", "sum_if_full_house"),
    Box("chance", "sum"),
    Box("yatzy", "50_if_5_kind"),
)

RULE_SETS: dict[str, RuleSet] = {
    r.id: r
    for r in (
        RuleSet(
            "yahtzee",
            "Yahtzee (official rules, forced Joker)",
            _YAHTZEE_BOXES,
            upper_bonus=35,
            yahtzee_box="yahtzee",
            yahtzee_bonus=100,
            joker="forced",
            reference_value=254.5877287,
        ),
        RuleSet(
            "yahtzee-free-joker",
            "Yahtzee with free Joker placement",
            _YAHTZEE_BOXES,
            upper_bonus=35,
            yahtzee_box="yahtzee",
            yahtzee_bonus=100,
            joker="free",
            reference_value=254.5896095,
        ),
        RuleSet(
            "yahtzee-no-joker",
            "Yahtzee without the Joker rule",
            _YAHTZEE_BOXES,
            upper_bonus=35,
            yahtzee_box="yahtzee",
            yahtzee_bonus=100,
            joker="none",
            reference_value=253.9702412,
        ),
        RuleSet(
            "yahtzee-no-bonus",
            "Yahtzee without Joker or Yahtzee bonus",
            _YAHTZEE_BOXES,
            upper_bonus=35,
            yahtzee_box="yahtzee",
            yahtzee_bonus=0,
            joker="none",
            reference_value=245.8707745,
        ),
        RuleSet("yatzy", "Scandinavian Yatzy", _YATZY_BOXES, upper_bonus=50, reference_value=248.4399894),
        RuleSet(
            "yatzy-forced",
            "Yatzy filled in card order",
            _YATZY_BOXES,
            upper_bonus=50,
            forced_order=True,
            # no published value: computed by this solver (float64), checked against the
            # pure-Python reference on reduced games and 29 independent golden positions
            reference_value=122.5585274,
        ),
    )
}

DEFAULT_RULES = "yahtzee"


def get_rules(rules: str | RuleSet | None = None) -> RuleSet:
    """Look up a rule set by id (``None`` gives the default, ``yahtzee``)."""
    if isinstance(rules, RuleSet):
        return rules
    key = DEFAULT_RULES if rules is None else str(rules).strip().lower()
    try:
        return RULE_SETS[key]
    except KeyError:
        known = ", ".join(RULE_SETS)
        raise UnknownRulesError(f"unknown rule set {rules!r} (known: {known})") from None

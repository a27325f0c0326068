"""The score card: a frozen value object with a compact text notation.

Notation: comma-separated ``box=score`` entries for the filled boxes, e.g.
``ones=3,fours=12,yahtzee=50``, plus ``yahtzee_bonus=200`` for Yahtzee bonuses
already earned.  The empty card is ``""`` (``-`` and ``empty`` are accepted
too).  ``str(card)`` writes the entries in card order, so
``ScoreCard.parse(str(card)) == card``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bounded import clipped, parse_whole, shown
from .dice import Dice, dice_class
from .errors import CardError, IllegalMoveError
from .rules import RuleSet, get_rules

BONUS_KEY = "yahtzee_bonus"
UPPER_BONUS_KEY = "upper_bonus"
_EMPTY_WORDS = {"", "-", "empty", "none"}
#: more than any box or bonus can hold under any rule set: a card entry's number is read up to it
MAX_ENTRY = 1_000_000


def card_text(text, example: str) -> str | None:
    """The notation of a card to read, stripped; ``None`` for the empty card (``""``, ``-``,
    ``empty``, ``none``); anything but text is a :class:`CardError` naming it (``example``: what
    a card looks like)."""
    if text is not None and not isinstance(text, str):
        raise CardError(f"a card is text like {example!r}, got {shown(text)}")
    text = (text or "").strip()
    return None if text.lower() in _EMPTY_WORDS else text


def box_key(name) -> str:
    """A box name as typed (``Full House``, ``full-house``) in the card's spelling (``full_house``)."""
    return str(name).strip().lower().replace(" ", "_").replace("-", "_")


class computed_once:  # noqa: N801 - a decorator, named like property
    """A property of a frozen value object computed on first use and kept in the instance's
    ``__dict__`` (which then shadows it): ``functools.cached_property`` without its lock,
    which costs more than these sums on Python 3.11."""

    def __init__(self, method):
        self.method, self.name = method, method.__name__
        self.__doc__ = method.__doc__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.method(obj)
        return value


def box_label(name: str) -> str:
    """A box name for people: ``full_house`` -> ``Full house``; a triple card's ``fours@3`` ->
    ``Fours (column 3)`` (the web pages' ``YZ.label`` writes the same)."""
    box, _, column = str(name).partition("@")
    text = box.replace("_", " ")
    return text[:1].upper() + text[1:] + (f" (column {column})" if column else "")


def placement_note(card, dice: Dice | str) -> str | None:
    """Why this roll may not go in some open boxes, in one sentence for people, or ``None`` when
    every open box takes it.  ``card``: a :class:`ScoreCard` or a triple card (a sentence per
    column that restricts).  Derived from the legal placements, so it says what the
    rule set's rules decided (the Joker rule, a fill order), never a second copy of them."""
    dice = dice_class(card.rules.n_dice).parse(dice)
    if hasattr(card, "columns"):  # the triple card: each column has its own Yahtzee box
        notes = [(k, placement_note(col, dice)) for k, col in enumerate(card.columns, 1)]
        return " ".join(f"Column {k}: {note}" for k, note in notes if note) or None
    legal = [p.box for p in card.placements(dice)]
    if len(legal) == len(card.open_boxes):
        return None
    rules = card.rules.single
    allowed = ", ".join(box_label(b) for b in legal) or "no box"
    if rules.forced_order:
        return f"The fill order of {rules.id}: this turn goes in {allowed}."
    upper = {rules.box_names[i] for i in rules.upper_indices}
    categories = {b.partition("@")[0] for b in legal}
    face = max(dice.values)
    if categories <= upper and len(categories) == 1:
        why = f"its upper box ({box_label(next(iter(categories)))}) is open, so it goes there"
    elif not categories & upper:
        why = f"the {box_label(rules.box_names[face - 1])} box is filled, so it goes in a lower box"
    else:
        why = "no lower box is open, so it goes in an upper box"
    return f"Joker rule: a five of a kind with the Yahtzee box filled; {why}: {allowed}."


@dataclass(frozen=True)
class Placement:
    """A legal place for a roll: the box, what it scores there, and the Yahtzee bonus earned."""

    box: str
    score: int
    bonus: int = 0

    @property
    def points(self) -> int:
        return self.score + self.bonus

    def __str__(self) -> str:
        extra = f" (+{self.bonus} bonus)" if self.bonus else ""
        return f"{self.box}={self.score}{extra}"


@dataclass(frozen=True)
class ScoreCard:
    """Which boxes are filled and with what, plus Yahtzee bonuses earned.

    ``scores[i]`` is the score in box ``i`` (card order) or ``None`` when open.
    Construction validates the card: every score must be one the box can hold
    under the rule set, and the card must be reachable in a real game.
    """

    rules: RuleSet
    scores: tuple[int | None, ...]
    yahtzee_bonus_count: int = 0

    def __post_init__(self) -> None:
        rules = self.rules
        rules.require_single("a single score card")
        if len(self.scores) != rules.n_boxes:
            raise CardError(f"a {rules.id} card has {rules.n_boxes} boxes, got {len(self.scores)}")
        for name, score, allowed in zip(rules.box_names, self.scores, rules.possible_scores, strict=True):
            if score is not None and score not in allowed:
                raise CardError(f"{name}={score} is a score {name} can never hold under {rules.id}")
        if self.yahtzee_bonus_count:
            self._check_bonus()
        if not rules.is_reachable_mask(self.filled_mask):
            order = {
                "down": "in card order",
                "up": "in reverse card order",
                "choose": "in card order or in reverse",
            }
            raise CardError(
                f"under {rules.id} boxes fill {order[rules.order]}, but the card has "
                f"{', '.join(self.open_boxes)} open and {', '.join(n for n in rules.box_names if n not in self.open_boxes)} filled"
            )

    def _check_bonus(self) -> None:
        rules, count = self.rules, self.yahtzee_bonus_count
        if count < 0:
            raise CardError(f"{BONUS_KEY} cannot be negative: {count * rules.bonus}")
        if rules.bonus == 0:
            raise CardError(f"{rules.id} has no Yahtzee bonus, but the card has {BONUS_KEY}")
        rows = [rules.box_names[i] for i in rules.five_kind_rows]
        if any(self.scores[i] is None for i in rules.five_kind_rows) or not self.yahtzee_holds_50:
            want = "=50" if len(rows) == 1 else " filled, one of them with 50,"
            raise CardError(f"{BONUS_KEY} needs {' and '.join(rows)}{want} on the card")
        if count > self.n_filled - len(rows):
            raise CardError(
                f"{BONUS_KEY}={count * rules.bonus} needs {count} filled boxes besides "
                f"{' and '.join(rows)}, the card has {self.n_filled - len(rows)}"
            )

    # --- construction ----------------------------------------------------
    @classmethod
    def empty(cls, rules: str | RuleSet | None = None) -> ScoreCard:
        rules = get_rules(rules)
        return cls(rules, (None,) * rules.n_boxes)

    @classmethod
    def parse(cls, text: str | None, rules: str | RuleSet | None = None) -> ScoreCard:
        """Read ``"ones=3,fours=12,yahtzee=50,yahtzee_bonus=100"``; raises :class:`CardError`."""
        rules = get_rules(rules)
        if isinstance(text, ScoreCard):
            return text
        text = card_text(text, "ones=3,fours=12")
        if text is None:
            return cls.empty(rules)
        scores: list[int | None] = [None] * rules.n_boxes
        bonus_count = 0
        upper_bonus: int | None = None
        seen: set[str] = set()
        for entry in text.replace(";", ",").split(","):
            entry = entry.strip()
            if not entry:
                continue
            key, sep, value = entry.partition("=")
            if not sep:
                key, sep, value = entry.partition(":")
            key = box_key(key)
            value = value.strip()
            if not sep or not key or not value:
                raise CardError(f"card entry {shown(entry)} is not of the form box=score")
            number = parse_whole(
                value, f"card entry {shown(entry)}: the score", 0, MAX_ENTRY, error=CardError
            )
            if key in seen:
                raise CardError(f"card entry {shown(entry)}: {clipped(key)} is given twice")
            seen.add(key)
            if key == BONUS_KEY:
                step = rules.bonus
                if step == 0:
                    raise CardError(f"{rules.id} has no Yahtzee bonus, but the card has {shown(entry)}")
                if number % step:
                    raise CardError(f"{BONUS_KEY}={number} is not a multiple of {step}")
                bonus_count = number // step
            elif key == UPPER_BONUS_KEY:
                upper_bonus = number
            elif key in rules.box_index:
                scores[rules.box_index[key]] = number
            else:
                raise CardError(
                    f"unknown box {shown(key)} in card entry {shown(entry)} (boxes: {', '.join(rules.box_names)})"
                )
        card = cls(rules, tuple(scores), bonus_count)
        if upper_bonus is not None and upper_bonus != card.upper_bonus:
            raise CardError(
                f"{UPPER_BONUS_KEY}={upper_bonus} does not match the upper total {card.upper_total} "
                f"(the bonus is {card.upper_bonus})"
            )
        return card

    def __str__(self) -> str:
        parts = [
            f"{name}={s}" for name, s in zip(self.rules.box_names, self.scores, strict=True) if s is not None
        ]
        if self.yahtzee_bonus_count:
            parts.append(f"{BONUS_KEY}={self.yahtzee_bonus_count * self.rules.bonus}")
        return ",".join(parts)

    # --- totals ----------------------------------------------------------
    @computed_once
    def filled_mask(self) -> int:
        return sum(1 << i for i, s in enumerate(self.scores) if s is not None)

    @computed_once
    def n_filled(self) -> int:
        return sum(s is not None for s in self.scores)

    @property
    def is_complete(self) -> bool:
        return all(s is not None for s in self.scores)

    @property
    def box_names(self) -> tuple[str, ...]:
        """Every box of the card, in card order (the rule set's; a card of columns names more)."""
        return self.rules.box_names

    @property
    def open_boxes(self) -> tuple[str, ...]:
        return tuple(n for n, s in zip(self.rules.box_names, self.scores, strict=True) if s is None)

    def get(self, box: str) -> int | None:
        return self.scores[self._box(box)]

    @computed_once
    def upper_total(self) -> int:
        return sum(self.scores[i] or 0 for i in self.rules.upper_indices)

    @property
    def upper_bonus(self) -> int:
        rules = self.rules
        return rules.upper_bonus if rules.has_upper_bonus and self.upper_total >= rules.upper_threshold else 0

    @computed_once
    def lower_total(self) -> int:
        return sum(self.scores[i] or 0 for i in self.rules.lower_indices)

    @property
    def yahtzee_bonus_points(self) -> int:
        return self.yahtzee_bonus_count * self.rules.bonus

    @computed_once
    def total(self) -> int:
        """Grand total: all boxes plus the upper bonus and Yahtzee bonuses."""
        return self.upper_total + self.upper_bonus + self.lower_total + self.yahtzee_bonus_points

    @property
    def yahtzee_holds_50(self) -> bool:
        """A five-of-a-kind row (yahtzee, yatzy, yatzy_2 ..., yacht) holds 50."""
        return any(self.scores[i] == 50 for i in self.rules.five_kind_rows)

    @property
    def most_to_come(self) -> int:
        """At least as many points as the card can still score (never fewer): every open box its
        best score, the upper bonus while it can still be reached, and a five-of-a-kind bonus in
        every further turn while one can still be earned.  A final score above ``total`` plus
        this is out of reach."""
        rules, scores = self.rules, self.scores
        best = [max(rules.possible_scores[i]) if s is None else 0 for i, s in enumerate(scores)]
        most = sum(best)
        if rules.has_upper_bonus and not self.upper_bonus:
            if self.upper_total + sum(best[i] for i in rules.upper_indices) >= rules.upper_threshold:
                most += rules.upper_bonus
        rows_open = any(scores[i] is None for i in rules.five_kind_rows)
        if rules.bonus and (self.yahtzee_holds_50 or rows_open):
            most += rules.bonus * (len(self.open_boxes) - (1 if rows_open else 0))
        return most

    @property
    def state(self) -> tuple[int, int, int]:
        """DP state ``(filled_mask, capped upper total, flag)`` used to index tables."""
        flag = int(self.yahtzee_holds_50) if self.rules.n_flags == 2 else 0
        return self.filled_mask, min(self.upper_total, self.rules.upper_cap), flag

    # --- moves -----------------------------------------------------------
    def _box(self, box: str | int) -> int:
        if isinstance(box, int):
            if not 0 <= box < self.rules.n_boxes:
                raise IllegalMoveError(f"box number {box} is not on the card (0..{self.rules.n_boxes - 1})")
            return box
        key = box_key(box)
        try:
            return self.rules.box_index[key]
        except KeyError:
            raise IllegalMoveError(
                f"unknown box {box!r} (boxes: {', '.join(self.rules.box_names)})"
            ) from None

    def placements(self, dice: Dice | str) -> list[Placement]:
        """Every box this roll may legally go in, in card order, with its score."""
        dice = dice_class(self.rules.n_dice).parse(dice)
        names = self.rules.box_names
        return [
            Placement(names[b], s, bonus)
            for b, s, bonus in self.rules.placements(self.filled_mask, dice.counts, self.yahtzee_holds_50)
        ]

    def preview(self, dice: Dice | str) -> dict[str, int]:
        """What each open box would score now (legal placements only)."""
        return {p.box: p.score for p in self.placements(dice)}

    def score(self, box: str | int, dice: Dice | str) -> ScoreCard:
        """The card after putting ``dice`` in ``box`` (bonuses included).

        Raises :class:`IllegalMoveError` for a filled box or a placement the
        Joker rule (or forced order) forbids.
        """
        dice = dice_class(self.rules.n_dice).parse(dice)
        b = self._box(box)
        name = self.rules.box_names[b]
        if self.scores[b] is not None:
            raise IllegalMoveError(f"{name} is already filled (with {self.scores[b]})")
        legal = self.placements(dice)
        match = next((p for p in legal if p.box == name), None)
        if match is None:
            allowed = ", ".join(p.box for p in legal)
            why = "the fill order" if self.rules.forced_order else "the Joker rule"
            raise IllegalMoveError(f"{dice} may not go in {name} under {why}; allowed: {allowed}")
        return self.place(match)

    def place(self, placement: Placement) -> ScoreCard:
        """The card after a legal placement of :meth:`placements` (its score and bonus), unchecked:
        for callers that hold the placements already (:meth:`score` checks)."""
        scores = list(self.scores)
        scores[self.rules.box_index[placement.box]] = placement.score
        return ScoreCard(self.rules, tuple(scores), self.yahtzee_bonus_count + (1 if placement.bonus else 0))

    def rows(self) -> list[tuple[str, int | None]]:
        """The card as printed: boxes, subtotals and bonuses, in order."""
        r = self.rules
        out: list[tuple[str, int | None]] = [(r.box_names[i], self.scores[i]) for i in r.upper_indices]
        if r.upper_indices:
            out.append(("upper_total", self.upper_total))
        if r.has_upper_bonus:
            out.append(("upper_bonus", self.upper_bonus))
        out += [(r.box_names[i], self.scores[i]) for i in r.lower_indices]
        if r.bonus:
            out.append((BONUS_KEY, self.yahtzee_bonus_points))
        out.append(("total", self.total))
        return out

    def format(self, preview: dict[str, int] | None = None) -> str:
        """A printable card; open boxes show ``(n)`` previews when given."""
        lines = []
        for name, value in self.rows():
            if value is None:
                shown = f"({preview[name]})" if preview and name in preview else "-"
            else:
                shown = str(value)
            lines.append(f"  {name:<16}{shown:>6}")
        return "\n".join(lines)

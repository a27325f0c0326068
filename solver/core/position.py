"""A position: a card, five dice and the rolls left -- what every advisor is asked about."""

from __future__ import annotations

from dataclasses import dataclass

from .bounded import shown, whole_value
from .card import ScoreCard
from .dice import Dice, dice_class
from .errors import UsageError
from .rules import RuleSet, get_rules
from .triple_card import TripleCard, parse_card


@dataclass(frozen=True)
class Position:
    """Rule set, card, dice and rolls left (0, 1 or 2); the card is a :class:`ScoreCard` or,
    under ``+triple``, a :class:`TripleCard`."""

    card: ScoreCard | TripleCard
    dice: Dice
    rolls_left: int

    def __post_init__(self) -> None:
        if self.rolls_left not in (0, 1, 2):
            raise UsageError(f"rolls left must be 0, 1 or 2, got {shown(self.rolls_left)}")
        if len(self.dice.values) != self.rules.n_dice:
            raise UsageError(
                f"{self.rules.id} plays {self.rules.n_dice} dice, got {len(self.dice.values)}: {self.dice}"
            )
        if self.card.is_complete:
            raise UsageError(f"the card is full, there is no move to make: {self.card}")

    @property
    def rules(self) -> RuleSet:
        return self.card.rules

    @classmethod
    def parse(
        cls, card: str | ScoreCard | TripleCard | None, dice: str | Dice, rolls_left, rules=None
    ) -> Position:
        """A position from text (or values); ``rules`` defaults to a given card's, else ``yahtzee``."""
        if rules is None and isinstance(card, ScoreCard | TripleCard):
            rules = card.rules
        rules = get_rules(rules)
        rolls_left = whole_value(rolls_left, "rolls left", 0, 2)
        card = card if isinstance(card, ScoreCard | TripleCard) else parse_card(card, rules)
        if card.rules != rules:
            raise UsageError(f"the card is a {card.rules.id} card, the position is {rules.id}")
        return cls(card, dice_class(rules.n_dice).parse(dice), rolls_left)

    def __str__(self) -> str:
        return f"{self.rules.id} [{self.card}] dice {self.dice}, {self.rolls_left} rolls left"

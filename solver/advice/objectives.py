"""What an advice ranks by: the objectives, small frozen values, and the protocol that takes them.

Every advisor answers ``advise(position, objective) -> Advice`` (:class:`solver.advice.advisor.Advising`):

* :class:`ExpectedScore` -- the expected final score (``ev``: the points still to come);
  on the triple card the triple player's one-turn lookahead over the columns' exact
  values estimates it (best-known, not proven optimal: the advice's ``note`` says so);
* :class:`AtLeast` ``(T)`` -- P(final >= T) under target play (the target table);
* :class:`Win` ``(opponents' cards)`` -- P(win) + P(tie) / 2 against those cards.

Each objective has a text form, ``str()`` and :func:`parse_objective` (``ev``,
``target:300``, ``win:CARD|CARD``), and names the option field that holds its value
(:attr:`field`: ``ev``, ``p_target``, ``p_win``).  The triple card is a card, not an
objective: its lookahead is how its advisor values the expected score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from ..core.bounded import parse_target, shown
from ..core.card import ScoreCard
from ..core.errors import UsageError

if TYPE_CHECKING:
    from ..core.rules import RuleSet


@dataclass(frozen=True)
class ExpectedScore:
    """Rank by the expected final score (``ev``, the points still to come)."""

    #: the :class:`~solver.advice.advisor.Option` field that holds the objective's value
    field: ClassVar[str] = "ev"

    def __str__(self) -> str:
        return "ev"


@dataclass(frozen=True)
class AtLeast:
    """Rank by P(final >= ``target``) under target play (ties within
    :data:`~solver.advice.advisor.TARGET_TIE` by expected score)."""

    target: int
    field: ClassVar[str] = "p_target"

    def __post_init__(self) -> None:
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise UsageError(f"a target is a score of 1 or more, got {shown(self.target)}")

    def __str__(self) -> str:
        return f"target:{self.target}"


@dataclass(frozen=True)
class Win:
    """Rank by P(win) + P(tie) / 2 against ``opponents`` (their cards, in seat order after the
    player to move; ties within :data:`~solver.advice.advisor.TARGET_TIE` by expected score)."""

    opponents: tuple[ScoreCard, ...]
    field: ClassVar[str] = "p_win"

    def __post_init__(self) -> None:
        object.__setattr__(self, "opponents", tuple(self.opponents))
        if not self.opponents:
            raise UsageError("playing to win needs at least one opponent's card")
        for card in self.opponents:
            if not isinstance(card, ScoreCard):
                raise UsageError(f"an opponent's card is a ScoreCard, got {shown(card)}")

    def __str__(self) -> str:
        return "win:" + "|".join(str(card) or "-" for card in self.opponents)


Objective = ExpectedScore | AtLeast | Win
#: the default objective (a value: every ``ExpectedScore()`` is equal to it)
EXPECTED_SCORE = ExpectedScore()


def parse_objective(text: str, rules: str | RuleSet | None = None) -> Objective:
    """An objective from its text: ``ev``, ``target:T`` or ``win:CARD|CARD|...`` (``-`` the empty
    card; the cards of ``rules``).  Raises :class:`UsageError` naming the text."""
    if not isinstance(text, str):
        raise UsageError(f"an objective is text like 'ev', 'target:300' or 'win:CARD', got {shown(text)}")
    kind, sep, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    if kind == "ev" and not sep:
        return EXPECTED_SCORE
    if kind == "target" and sep:
        return AtLeast(parse_target(rest, f"objective {shown(text)}"))
    if kind == "win" and sep:
        return Win(tuple(ScoreCard.parse(part, rules) for part in rest.split("|")))
    raise UsageError(f"unknown objective {shown(text)}: ev, target:T or win:CARD|CARD|...")


class Ranking(Protocol):
    """What :func:`check_objective` reads of an advisor (the whole protocol is
    :class:`solver.advice.advisor.Advising`): its rule set and the objective types it answers."""

    rules: RuleSet
    objectives: tuple[type, ...]


def check_objective(advisor: Ranking, objective) -> None:
    """A :class:`UsageError` unless ``advisor`` answers ``objective``."""
    if not isinstance(objective, advisor.objectives):
        answers = ", ".join(kind.__name__ for kind in advisor.objectives)
        what = str(objective) if isinstance(objective, ExpectedScore | AtLeast | Win) else shown(objective)
        raise UsageError(
            f"the {type(advisor).__name__} of {advisor.rules.id} does not rank by {what} (it answers "
            f"{answers})"
        )

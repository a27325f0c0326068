"""yahtzee-solver: exact expected-score-optimal Yahtzee and Yatzy.

Light to import: ``import solver`` and a single-position hint load neither numpy
nor numba; numpy comes with bulk work (batch advice, simulation, play), numba only
when a table is built or a batch job runs.  Main entry points::

    from solver import get_rules, ScoreCard, Dice, Advisor, Position
    advisor = Advisor.load("yahtzee", build_if_missing=True)
    advice = advisor.advise(Position.parse("ones=3", "33456", 2))
"""

from .advice.advisor import Advice, Advisor, Option
from .core import VERSION
from .core.card import Placement, ScoreCard
from .core.dice import Dice
from .core.errors import (
    CardError,
    DiceError,
    IllegalMoveError,
    MissingTableError,
    SolverError,
    TableError,
    UnknownRulesError,
    UsageError,
)
from .core.position import Position
from .core.rules import RULE_SETS, RuleSet, get_rules

__version__ = VERSION

__all__ = [
    "Advice",
    "Advisor",
    "CardError",
    "Dice",
    "DiceError",
    "IllegalMoveError",
    "MissingTableError",
    "Option",
    "Placement",
    "Position",
    "RULE_SETS",
    "RuleSet",
    "ScoreCard",
    "SolverError",
    "TableError",
    "UnknownRulesError",
    "UsageError",
    "get_rules",
    "__version__",
]

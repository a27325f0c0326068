"""The triple card (modifier ``triple``): three columns of the base card, weighted x1, x2, x3.

Each turn fills one open box of any column; every rule of the base (upper bonus,
five-of-a-kind bonus, Joker) is judged within the chosen column, and every score of a
column, its bonuses included, is multiplied by the column's weight (``shared/RULES.md``).

Notation: ``BOX@COLUMN=SCORE`` entries, columns 1..3, e.g. ``ones@1=3,fours@3=12``, plus
``yahtzee_bonus@2=100`` for a column's five-of-a-kind bonuses.  ``str(card)`` writes the
entries column by column in card order, so ``TripleCard.parse(str(card)) == card``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bounded import parse_whole, shown, whole_value
from .card import ScoreCard
from .dice import Dice
from .errors import CardError, IllegalMoveError, UsageError
from .rules import RuleSet, get_rules

COLUMN_SEP = "@"
_EMPTY_WORDS = {"", "-", "empty", "none"}


def triple_rules(rules: RuleSet | str | None) -> RuleSet:
    rules = get_rules(rules)
    if not rules.triple:
        raise UsageError(f"{rules.id} is not a triple card (add +triple, e.g. {rules.id}+triple)")
    return rules


# --- the card -------------------------------------------------------------------
@dataclass(frozen=True)
class TripleCard:
    """Three single-card columns of the base rule set (``columns[c]`` is column ``c + 1``)."""

    rules: RuleSet
    columns: tuple[ScoreCard, ...]

    def __post_init__(self) -> None:
        if not self.rules.triple:
            raise UsageError(f"{self.rules.id} is not a triple card")
        if len(self.columns) != len(self.rules.weights):
            raise CardError(f"a triple card has {len(self.rules.weights)} columns, got {len(self.columns)}")
        single = self.rules.single
        if any(col.rules != single for col in self.columns):
            raise CardError(f"the columns of a {self.rules.id} card are {single.id} cards")

    @classmethod
    def empty(cls, rules: RuleSet | str | None = "triple") -> TripleCard:
        rules = triple_rules(rules)
        return cls(rules, tuple(ScoreCard.empty(rules.single) for _ in rules.weights))

    @classmethod
    def parse(cls, text: str | None, rules: RuleSet | str | None = "triple") -> TripleCard:
        """Read ``"ones@1=3,fours@3=12,yahtzee_bonus@2=100"``; raises :class:`CardError`."""
        rules = triple_rules(rules)
        if isinstance(text, TripleCard):
            return text
        if text is not None and not isinstance(text, str):
            raise CardError(f"a triple card is text like 'ones@1=3,fours@3=12', got {text!r}")
        text = (text or "").strip()
        n_col = len(rules.weights)
        if text.lower() in _EMPTY_WORDS:
            return cls.empty(rules)
        parts: list[list[str]] = [[] for _ in range(n_col)]
        for entry in text.replace(";", ",").split(","):
            entry = entry.strip()
            if not entry:
                continue
            key, sep, value = entry.partition("=")
            name, at, column = key.partition(COLUMN_SEP)
            if not sep or not at:
                raise CardError(
                    f"card entry {shown(entry)} is not of the form BOX{COLUMN_SEP}COLUMN=SCORE "
                    f"(e.g. ones{COLUMN_SEP}1=3; columns 1..{n_col})"
                )
            try:
                number = parse_whole(column, "column", 1, n_col, error=CardError)
            except CardError:
                raise CardError(
                    f"card entry {shown(entry)}: column {shown(column.strip())} is not one of 1..{n_col}"
                ) from None
            parts[number - 1].append(f"{name.strip()}={value.strip()}")
        columns = []
        for c, entries in enumerate(parts):
            try:
                columns.append(ScoreCard.parse(",".join(entries), rules.single))
            except CardError as exc:
                raise CardError(f"column {c + 1}: {exc}") from None
        return cls(rules, tuple(columns))

    def __str__(self) -> str:
        out = []
        for c, col in enumerate(self.columns, start=1):
            for entry in str(col).split(","):
                if entry:
                    key, _, value = entry.partition("=")
                    out.append(f"{key}{COLUMN_SEP}{c}={value}")
        return ",".join(out)

    # --- totals and moves ---------------------------------------------------
    @property
    def weights(self) -> tuple[int, ...]:
        return self.rules.weights

    @property
    def column_totals(self) -> tuple[int, ...]:
        """Each column's weighted total (bonuses included)."""
        return tuple(w * col.total for w, col in zip(self.weights, self.columns, strict=True))

    @property
    def total(self) -> int:
        return sum(self.column_totals)

    @property
    def is_complete(self) -> bool:
        return all(col.is_complete for col in self.columns)

    @property
    def n_filled(self) -> int:
        return sum(col.n_filled for col in self.columns)

    @property
    def open_columns(self) -> tuple[int, ...]:
        """0-based indices of the columns with an open box."""
        return tuple(c for c, col in enumerate(self.columns) if not col.is_complete)

    def column_index(self, column) -> int:
        """A 1-based column number (int or text) as a 0-based index; raises IllegalMoveError."""
        n_col = len(self.weights)
        try:
            return whole_value(column, "column", 1, n_col, error=IllegalMoveError) - 1
        except IllegalMoveError:
            raise IllegalMoveError(f"column {shown(column)} is not one of 1..{n_col}") from None

    def placements(self, dice: Dice | str) -> list[tuple[int, object]]:
        """Every legal ``(column, Placement)`` (0-based column) for a roll."""
        dice = Dice.parse(dice)
        return [(c, p) for c in self.open_columns for p in self.columns[c].placements(dice)]

    def score(self, column, box: str, dice: Dice | str) -> TripleCard:
        """The card after putting ``dice`` in ``box`` of ``column`` (1-based)."""
        c = self.column_index(column)
        cols = list(self.columns)
        try:
            cols[c] = cols[c].score(box, dice)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"column {c + 1}: {exc}") from None
        return TripleCard(self.rules, tuple(cols))

    def format(self, preview: dict[tuple[int, str], int] | None = None) -> str:
        """The card in three columns (under 80 characters); open boxes show ``(n)`` previews
        keyed by ``(column index, box)`` when given."""
        rows = [col.rows() for col in self.columns]
        head = f"  {'':<16}" + "".join(f"{f'col {c + 1} x{w}':>10}" for c, w in enumerate(self.weights))
        lines = [head]
        for i, (name, _) in enumerate(rows[0]):
            cells = []
            for c in range(len(self.columns)):
                value = rows[c][i][1]
                if value is None:
                    shown = f"({preview[(c, name)]})" if preview and (c, name) in preview else "-"
                else:
                    shown = str(value)
                cells.append(f"{shown:>10}")
            lines.append(f"  {name:<16}" + "".join(cells))
        lines.append(f"  {'weighted':<16}" + "".join(f"{t:>10}" for t in self.column_totals))
        lines.append(f"  {'TOTAL':<16}{self.total:>10}")
        return "\n".join(lines)

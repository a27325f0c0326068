"""The triple card (modifier ``triple``): three columns of the base card, weighted x1, x2, x3.

Each turn fills one open box of any column; every rule of the base (upper bonus,
five-of-a-kind bonus, Joker) is judged within the chosen column, and every score of a
column, its bonuses included, is multiplied by the column's weight (``docs/rules.md``).

Notation: ``BOX@COLUMN=SCORE`` entries, columns 1..3, e.g. ``ones@1=3,fours@3=12``, plus
``yahtzee_bonus@2=100`` for a column's five-of-a-kind bonuses.  ``str(card)`` writes the
entries column by column in card order, so ``TripleCard.parse(str(card)) == card``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bounded import parse_whole, shown, whole_value
from .card import Placement, ScoreCard, card_text
from .dice import Dice
from .errors import CardError, IllegalMoveError, UsageError
from .rules import RuleSet, get_rules

COLUMN_SEP = "@"


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
        text = card_text(text, "ones@1=3,fours@3=12")
        n_col = len(rules.weights)
        if text is None:
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

    # --- the card protocol of :class:`~solver.core.card.ScoreCard`, boxes named ``BOX@COLUMN`` ----
    def key(self, column: int, box: str) -> str:
        """The name of ``box`` in ``column`` (1-based): ``fours@3``."""
        return f"{box}{COLUMN_SEP}{column}"

    def split_key(self, key: str) -> tuple[int, str]:
        """``"fours@3"`` -> ``(2, "fours")`` (the 0-based column); raises IllegalMoveError."""
        box, at, column = str(key).partition(COLUMN_SEP)
        if not at:
            raise IllegalMoveError(
                f"say the column of {shown(key)}: BOX{COLUMN_SEP}COLUMN, e.g. fours{COLUMN_SEP}3"
            )
        c = self.column_index(column.strip())
        if box not in self.rules.single.box_names:
            raise IllegalMoveError(
                f"unknown box {shown(box)} (boxes: {', '.join(self.rules.single.box_names)})"
            )
        return c, box

    @property
    def box_names(self) -> tuple[str, ...]:
        """Every box of the card, column by column in card order (``ones@1`` .. ``chance@3``)."""
        return tuple(
            self.key(c + 1, b) for c in range(len(self.columns)) for b in self.rules.single.box_names
        )

    @property
    def open_boxes(self) -> tuple[str, ...]:
        return tuple(self.key(c + 1, b) for c, col in enumerate(self.columns) for b in col.open_boxes)

    def get(self, key: str) -> int | None:
        """The score in box ``key`` (``fours@3``), None while open."""
        c, box = self.split_key(key)
        return self.columns[c].get(box)

    def column_placements(self, dice: Dice | str) -> list[tuple[int, Placement]]:
        """Every legal ``(column, Placement)`` (0-based column, the column's own box names)."""
        dice = Dice.parse(dice)
        return [(c, p) for c in self.open_columns for p in self.columns[c].placements(dice)]

    def placements(self, dice: Dice | str) -> list[Placement]:
        """Every legal placement of a roll, its box named ``BOX@COLUMN``, the score as the
        column writes it (the column's weight applies to the total)."""
        return [Placement(self.key(c + 1, p.box), p.score, p.bonus) for c, p in self.column_placements(dice)]

    def preview(self, dice: Dice | str) -> dict[str, int]:
        """What each open box would score now (legal placements only), by ``BOX@COLUMN``."""
        return {p.box: p.score for p in self.placements(dice)}

    def score(self, key: str, dice: Dice | str) -> TripleCard:
        """The card after putting ``dice`` in box ``key`` (``fours@3``)."""
        c, box = self.split_key(key)
        cols = list(self.columns)
        try:
            cols[c] = cols[c].score(box, dice)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"column {c + 1}: {exc}") from None
        return TripleCard(self.rules, tuple(cols))

    def format(self, preview: dict[str, int] | None = None) -> str:
        """The card in its columns, within 80 characters and 20 rows (17 for ``yahtzee+triple``:
        a terminal of 24 keeps the dice and the prompt in view).  Boxes are numbered in card
        order (``s 4@3`` scores fours in column 3); open boxes show ``(n)`` -- what the dice would
        add to the weighted total there: the points of ``preview`` (keyed by ``BOX@COLUMN``, as
        :meth:`preview` gives them) times the column's weight -- or ``x`` where the Joker rule forbids
        them; before a roll (``preview`` None) ``.``.  The upper total reads ``12/63`` until the
        bonus is reached (``63 +35``); the last row is every column's weighted total and the sum."""
        single = self.rules.single
        cols = range(len(self.columns))
        width = 11
        forbidden = False

        def box(i: int) -> str:
            nonlocal forbidden
            cells = []
            for c in cols:
                value = self.columns[c].scores[i]
                if value is not None:
                    text = str(value)
                elif preview is None:
                    text = "."
                elif self.key(c + 1, single.box_names[i]) in preview:  # weighted, as the web shows it
                    text = f"({self.weights[c] * preview[self.key(c + 1, single.box_names[i])]})"
                else:
                    text, forbidden = "x", True
                cells.append(f"{text:>{width}}")
            return f"  {i + 1:>2} {single.box_names[i]:<16}" + "".join(cells)

        def row(label: str, values) -> str:
            return f"     {label:<16}" + "".join(f"{v!s:>{width}}" for v in values)

        lines = [
            f"  {'':<19}" + "".join(f"{f'col {c + 1} x{w}':>{width}}" for c, w in enumerate(self.weights))
        ]
        lines += [box(i) for i in single.upper_indices]
        if single.has_upper_bonus:
            lines.append(
                row(
                    "upper total",
                    [
                        f"{col.upper_total} +{col.upper_bonus}"
                        if col.upper_bonus
                        else f"{col.upper_total}/{single.upper_threshold}"
                        for col in self.columns
                    ],
                )
            )
        elif single.upper_indices:
            lines.append(row("upper total", [col.upper_total for col in self.columns]))
        lines += [box(i) for i in single.lower_indices]
        if single.bonus:
            label = "yahtzee bonus" if single.joker != "none" else "extra bonus"
            lines.append(row(label, [col.yahtzee_bonus_points for col in self.columns]))
        lines.append(row("weighted total", self.column_totals) + f"  = {self.total}")
        if forbidden:
            lines.append("  x = not allowed for these dice (Joker rule)")
        return "\n".join(lines)


def empty_card(rules: RuleSet | str | None) -> ScoreCard | TripleCard:
    """The empty card of a rule set: a :class:`ScoreCard`, or a :class:`TripleCard` for ``+triple``."""
    rules = get_rules(rules)
    return TripleCard.empty(rules) if rules.triple else ScoreCard.empty(rules)


def parse_card(text, rules: RuleSet | str | None = None) -> ScoreCard | TripleCard:
    """A card of a rule set from its notation (``ones=3`` or, on the triple card, ``ones@1=3``)."""
    rules = get_rules(rules)
    return TripleCard.parse(text, rules) if rules.triple else ScoreCard.parse(text, rules)


#: the most entries :func:`fit_card` reads (a triple card of the largest rule set has fewer)
MAX_FIT_ENTRIES = 128


def fit_card(
    text, rules: RuleSet | str | None = None
) -> tuple[ScoreCard | TripleCard, list[tuple[str, str]]]:
    """What a card written down under one rule set keeps under ``rules``: ``(card, left_out)``.

    The entries are taken in their order, each kept when the card with it is still one
    :func:`parse_card` accepts; ``left_out`` lists each other entry with the reason it gave
    (a box the card does not have, a score the box cannot hold, a bonus without its
    five of a kind, a fill order broken ...).  A card in the notation but too long is a
    :class:`CardError`."""
    rules = get_rules(rules)
    entries = [e.strip() for e in (card_text(text, "ones=3,fours=12") or "").replace(";", ",").split(",")]
    entries = [e for e in entries if e]
    if len(entries) > MAX_FIT_ENTRIES:
        raise CardError(f"a card has at most {MAX_FIT_ENTRIES} entries, got {len(entries)}")
    kept: list[str] = []
    left_out: list[tuple[str, str]] = []
    card = parse_card("", rules)
    for entry in entries:
        try:
            card = parse_card(",".join([*kept, entry]), rules)
        except CardError as exc:
            left_out.append((entry, str(exc)))
        else:
            kept.append(entry)
    return card, left_out

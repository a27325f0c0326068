"""The terminal's cards and sheets: one card in two columns (:func:`format_card`), every player's
card side by side (:func:`format_sheet`, the triple card's :func:`format_column_sheet`) within 80
columns, and the colours of a colour terminal (:class:`Style`)."""

from __future__ import annotations

from itertools import zip_longest

from ..core.text import fill, pad
from ..core.triple_card import TripleCard
from . import visible_len


def format_card(card, preview: dict[str, int], rolled: bool, style: Style | None = None) -> str:
    """The card in two columns (upper | lower), boxes numbered in card order.

    Filled boxes show their score; open boxes show ``(n)``, what the dice would
    score there now, or ``x`` where the Joker rule (or forced order) forbids them.
    With an upper bonus, ``upper pace`` says how far the upper boxes filled so far
    are above (``+3``) or below par, three of each face (which makes 63).
    On a colour terminal (``style``) filled boxes are bold, previews dim.  The triple
    card shows its three weighted columns (:meth:`TripleCard.format`).
    """
    if isinstance(card, TripleCard):
        return card.format(preview if rolled else None)
    rules = card.rules
    style = style or Style(False)

    def cell(i: int) -> str:
        name, score = rules.box_names[i], card.scores[i]
        if score is not None:
            value = f"{score} "
            return f"{i + 1:>2} {name:<16}" + style.filled(f"{value:>6}")
        elif not rolled:
            value = "."
        elif name in preview:
            value = f"({preview[name]})"
            return f"{i + 1:>2} {name:<16}" + style.preview(f"{value:>6}")
        else:
            value = "x"
        return f"{i + 1:>2} {name:<16}{value:>6}"

    def line(label: str, value) -> str:
        return f"   {label:<16}{value!s:>6}"

    left = [cell(i) for i in rules.upper_indices]
    if rules.has_upper_bonus:
        left += [
            line("upper total", f"{card.upper_total}/{rules.upper_threshold}"),
            line("upper bonus", card.upper_bonus),
        ]
        pace = upper_pace(card)
        if pace is not None and not card.upper_bonus:
            text = f"{pace:+d}" if pace else "par"
            left.append(f"   {'upper pace':<16}" + style.pace(f"{text:>6}", pace))
    elif rules.upper_indices:
        left.append(line("upper total", card.upper_total))
    right = [cell(i) for i in rules.lower_indices]
    if rules.bonus:
        right.append(
            line("yahtzee bonus" if rules.joker != "none" else "extra bonus", card.yahtzee_bonus_points)
        )
    right.append(line("total", card.total))
    width = max((visible_len(s) for s in left), default=0)  # a card may have no upper rows
    out = [
        f"  {a}{' ' * (width - visible_len(a))}   | {b}".rstrip()
        for a, b in zip_longest(left, right, fillvalue="")
    ]
    if rolled and any(
        s is None and n not in preview for n, s in zip(rules.box_names, card.scores, strict=True)
    ):
        out.append(
            "  x = not allowed for these dice ("
            + ("fill order" if rules.forced_order else "Joker rule")
            + ")"
        )
    return "\n".join(out)


def upper_pace(card) -> int | None:
    """The upper total against par (three of each face filled so far); ``None`` before any upper box."""
    rules = card.rules
    filled = [i for i in rules.upper_indices if card.scores[i] is not None]
    if not filled:
        return None
    faces = {name: f for f, name in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)}
    par = sum(3 * faces.get(rules.box_names[i], 0) for i in filled)
    return sum(card.scores[i] for i in filled) - par


def format_sheet(game, style: Style | None = None) -> str:
    """Every player's card side by side (box rows, one column per player), within 80 columns."""
    style = style or Style(False)
    rules = game.rules
    if rules.triple:
        return format_column_sheet(game)
    col = sheet_column(game.players)
    lines = sheet_header(game.players, col)

    def row(label: str, values) -> str:
        return f"  {label[:17]:<17}" + " ".join(f"{v!s:>{col}}" for v in values)

    for i, box in enumerate(rules.box_names):
        if i == len(rules.upper_indices) and rules.upper_indices:
            if rules.has_upper_bonus:
                lines.append(row("upper bonus", [c.upper_bonus for c in game.cards]))
        lines.append(row(box, ["-" if c.scores[i] is None else c.scores[i] for c in game.cards]))
    if rules.bonus:
        lines.append(row("yahtzee bonus", [c.yahtzee_bonus_points for c in game.cards]))
    lines.append(row("total", [c.total for c in game.cards]))
    return "\n".join(lines)


#: the most rows a name takes in a sheet's header (wrapped at its spaces)
HEADER_ROWS = 3


def sheet_column(players) -> int:
    """The width of a player's column in the sheets: the longest name (its longest word when the
    whole does not fit), at most what 80 columns leave each player, at least 5."""
    room = max(5, (80 - 2 - 17) // max(len(players), 1) - 1)
    longest = max(visible_len(p.name) for p in players)
    if longest > room:
        longest = max(visible_len(w) for p in players for w in p.name.split())
    return max(5, min(room, longest))


def _header_cell(name: str, col: int) -> list[str] | None:
    """``name`` over a column ``col`` wide: itself, or wrapped at its spaces onto at most
    :data:`HEADER_ROWS` rows (``Computer`` over ``(perfect)``); ``None`` when that would cut a word."""
    if visible_len(name) <= col:
        return [name]
    rows = fill(name, col).split("\n")
    if len(rows) > HEADER_ROWS or any(visible_len(r) > col for r in rows):
        return None
    return rows


def sheet_header(players, col: int) -> list[str]:
    """The sheets' header rows: each name right-aligned over its column, a name wider than the
    column on two or three rows (at its spaces).  A name that does not fit so (a word wider than
    the column: eight players leave 6 columns each) is never cut: its column is headed by the
    player's seat (``#4``) and a key above the header gives the whole name (``#4 Bartholomew the
    Bold``), within 80 columns."""
    cells = [_header_cell(p.name, col) for p in players]
    keyed = [(i, p.name) for i, (p, c) in enumerate(zip(players, cells, strict=True)) if c is None]
    cells = [[f"#{i + 1}"] if c is None else c for i, c in enumerate(cells)]
    height = max(len(c) for c in cells)
    cells = [[""] * (height - len(c)) + c for c in cells]
    lines = []
    if keyed:
        line = ""
        for i, name in keyed:  # an entry is never split between two lines
            entry = f"#{i + 1} {name}"
            if line and visible_len(line) + 3 + visible_len(entry) > 78:
                lines.append("  " + line)
                line = ""
            line += ("   " if line else "") + entry
        lines.append("  " + line)
    return lines + [
        ("  " + " " * 17 + " ".join(pad(c[r], col, ">") for c in cells)).rstrip() for r in range(height)
    ]


#: a triple sheet's cell: ``123 (13/13)``
TRIPLE_CELL = 11


def format_column_sheet(game) -> str:
    """Every player's columns (weighted totals) and total side by side: the triple card's sheet
    (each card's boxes: ``card`` in the game).  More players than 80 columns take side by side
    (six or more): a row per player instead, a name too long for its row on a row of its own."""
    cells = [
        [
            *(
                f"{card.column_totals[c]} ({card.columns[c].n_filled}/{game.rules.single.n_boxes})"
                for c in range(len(game.rules.weights))
            ),
            str(card.total),
        ]
        for card in game.cards
    ]
    labels = [f"column {c + 1} x{w}" for c, w in enumerate(game.rules.weights)] + ["total"]
    if 2 + 17 + len(game.players) * (TRIPLE_CELL + 1) > 80:
        return _player_rows(game.players, labels, cells)
    col = max(sheet_column(game.players), TRIPLE_CELL - 1)  # "123 (13/13)" fits beside the label
    lines = sheet_header(game.players, col)
    for r, label in enumerate(labels):
        lines.append(f"  {label:<17}" + " ".join(f"{row[r]:>{col}}" for row in cells))
    return "\n".join(lines)


def _player_rows(players, labels: list[str], cells: list[list[str]]) -> str:
    """A sheet turned round: a row per player (its name, then one cell per label), within 80
    columns; a name wider than the room left is on a line of its own, its cells below it."""
    widths = [max(TRIPLE_CELL, len(label.replace("column ", "col "))) for label in labels]
    room = 80 - 2 - sum(w + 1 for w in widths)
    name_col = min(room, max(visible_len(p.name) for p in players))
    heads = [label.replace("column ", "col ") for label in labels]
    lines = [
        ("  " + " " * name_col + "".join(f" {h:>{w}}" for h, w in zip(heads, widths, strict=True))).rstrip()
    ]
    for p, row in zip(players, cells, strict=True):
        values = "".join(f" {v:>{w}}" for v, w in zip(row, widths, strict=True))
        if visible_len(p.name) > name_col:
            lines.append("  " + p.name)
            lines.append("  " + " " * name_col + values)
        else:
            lines.append("  " + pad(p.name, name_col) + values)
    return "\n".join(lines)


class Style:
    """ANSI colours for a colour terminal; plain text otherwise (pipes, ``NO_COLOR``, ``TERM=dumb``)."""

    def __init__(self, enabled: bool):
        self.enabled = bool(enabled)

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def filled(self, text: str) -> str:
        return self._wrap("1", text)

    def preview(self, text: str) -> str:
        return self._wrap("36", text)

    def held(self, text: str) -> str:
        return self._wrap("1;7", text)

    def pace(self, text: str, pace: int) -> str:
        return self._wrap("32" if pace >= 0 else "31", text)

"""Text as a terminal shows it: the columns a line takes (wide characters two, colour codes
none), padding and clipping to columns, and wrapping at words to a width in columns.

Every surface that lays text out for a fixed-width screen (the terminal's game, ``review``,
``stats``) counts with these, so that a name in CJK or with an emoji lines up and wraps like
any other.  :mod:`textwrap` counts characters, not columns.
"""

from __future__ import annotations

import re
import shutil
import unicodedata

#: the widest a line is laid out, also on a wider terminal (a progress bar, a table)
MAX_COLUMNS = 80

_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def columns(text: str) -> int:
    """The columns ``text`` takes on a terminal: ANSI colour codes and combining marks take none,
    East Asian wide and full-width characters two (a CJK name, most emoji), others one."""
    text = _COLOUR.sub("", text)
    if text.isascii():
        return len(text)
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def pad(text: str, width: int, align: str = "<") -> str:
    """``text`` padded with spaces to ``width`` columns, on the right (``<``) or left (``>``):
    what ``f"{name:<12}"`` does, in columns."""
    gap = " " * max(0, width - columns(text))
    return text + gap if align == "<" else gap + text


def clip(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` columns, ``~`` marking the cut."""
    if columns(text) <= width:
        return text
    out = ""
    for ch in text:
        if columns(out + ch) > width - 1:
            break
        out += ch
    return out + "~"


def fill(
    text: str, width: int, *, initial_indent: str = "", subsequent_indent: str = "", commas: bool = False
) -> str:
    """``text`` wrapped at spaces to ``width`` columns (:func:`columns`), as :func:`textwrap.fill`
    with ``break_long_words=False``: the spaces inside a line kept (a table's aligned columns), a
    word longer than a line alone on its line.  ``commas``: a line may also break after a comma
    (a card written ``ones=3,fours=12,...`` has no spaces)."""
    pattern = r"\s+|[^\s,]*,|[^\s,]+" if commas else r"\s+|\S+"
    lines: list[str] = []
    current, bare, gap = initial_indent, True, ""  # bare: nothing but the indent yet
    for chunk in re.findall(pattern, text.strip()):
        if chunk.isspace():
            gap = " " * len(chunk.replace("\n", " ").replace("\t", " "))
            continue
        if bare or columns(current + gap + chunk) <= width:
            current += ("" if bare else gap) + chunk
        else:
            lines.append(current)
            current = subsequent_indent + chunk
        bare, gap = False, ""
    lines.append(current)
    return "\n".join(line.rstrip() for line in lines)


def bar_columns() -> int:
    """The width of a progress bar: the terminal's (``$COLUMNS`` first), at most
    :data:`MAX_COLUMNS` -- tqdm trims its line to that, a long rule id included."""
    return max(20, min(MAX_COLUMNS, shutil.get_terminal_size((MAX_COLUMNS, 24)).columns))

"""Whole numbers read from users, files and requests, bounded before they are converted.

Python's ``int()`` refuses text of more than 4,300 digits with a ``ValueError`` of its own, and
accepts forms nobody means (``"٣"``, ``"1_000"``, ``" +5"``, ``True``, ``2.0``).  Everything that
reads a number from outside the program goes through :func:`parse_whole` (text) or
:func:`whole_value` (a JSON value: a number or decimal text), which accept plain ASCII digits
only, look at the length first and raise :class:`~solver.core.errors.UsageError` naming the value
(one line, the value shortened) when it is not a whole number within ``[low, high]``.
"""

from __future__ import annotations

from .errors import UsageError, printable

#: the most characters of a refused value quoted in an error message
SHOWN = 40


def shown(value) -> str:
    """``repr(value)`` for an error message: one line, at most :data:`SHOWN` characters (an
    integer too long to write, which ``repr`` itself refuses, by its size)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    return clipped(repr(value))


def clipped(text: str, limit: int = SHOWN) -> str:
    """``text`` as it is (no quotes) for an error message such as ``extra-bonus=...: needs ...``:
    one line, at most ``limit`` characters."""
    text = printable(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_whole(text: str, what: str, low: int, high: int, *, error: type[UsageError] = UsageError) -> int:
    """``text`` (ASCII digits, an optional leading ``-`` when ``low < 0``, spaces around ignored)
    as an int within ``[low, high]``; else ``error`` naming ``what`` and the value."""
    if not isinstance(text, str):
        raise error(f"{what} must be a whole number from {low} to {high}, got {shown(text)}")
    body = text.strip()
    digits = body[1:] if body.startswith("-") and low < 0 else body
    # at most as many digits as the bounds have, plus leading zeros within reason: the length
    # is checked before int() ever sees the text
    limit = max(len(str(abs(low))), len(str(abs(high)))) + 20
    if not digits or len(digits) > limit or not (digits.isascii() and digits.isdigit()):
        raise error(f"{what} must be a whole number from {low} to {high}, got {shown(text)}")
    number = int(body)
    if not low <= number <= high:
        raise error(f"{what} must be from {low} to {high}, got {shown(text)}")
    return number


def whole_value(value, what: str, low: int, high: int, *, error: type[UsageError] = UsageError) -> int:
    """A JSON value that must be a whole number within ``[low, high]``: an ``int`` (never a
    ``bool`` or a float such as ``2.0``) or decimal text (a query string's)."""
    if isinstance(value, str):
        return parse_whole(value, what, low, high, error=error)
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(f"{what} must be a whole number from {low} to {high}, got {shown(value)}")
    if not low <= value <= high:
        raise error(f"{what} must be from {low} to {high}, got {shown(value)}")
    return value


def json_int(max_digits: int, too_long):
    """A ``parse_int`` for :func:`json.loads`: an integer of at most ``max_digits`` digits (a sign
    aside) is converted; for a longer one, before ``int()`` sees it, ``too_long(digits)`` is
    called with its number of digits: what it returns stands for the number, or it raises."""

    def parse(text: str):
        digits = len(text.lstrip("-"))
        return too_long(digits) if digits > max_digits else int(text)

    return parse


#: the largest target score read from a user (more than any rule set scores)
MAX_TARGET = 100_000


def parse_target(text: str, what: str) -> int:
    """``T`` of ``target:T`` (a bot, a policy): a score from 1 to :data:`MAX_TARGET`, read by
    :func:`~solver.core.bounded.parse_whole`; else a :class:`UsageError` that starts with ``what``."""
    try:
        return parse_whole(text, "the target", 1, MAX_TARGET)
    except UsageError:
        raise UsageError(
            f"{what}: the target must be a score from 1 to {MAX_TARGET}, as in target:300"
        ) from None

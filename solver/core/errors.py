"""One family of exceptions; each carries the offending input in its message.

The CLI turns any :class:`SolverError` into one line on stderr.  Usage errors
(bad dice, bad card, unknown rule set, illegal move) exit with code 2; runtime
problems such as a corrupt table exit with code 1.
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters, newlines and other unprintable
    characters (bidi overrides, ...) written as Python escapes (``\\n``, ``\\x1b``, ``\\u202e``)."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is the machine out of memory (often a small ``ulimit -v``), never a damaged
    file: a :class:`MemoryError`, an :class:`OSError` ``ENOMEM`` (``mmap`` of a table) or a
    compiled library that could not be mapped (numpy's ``ImportError``: "failed to map segment").

    Table loaders let such errors through instead of calling the table unreadable, and the CLI
    says "out of memory" (exit 1) for them: one place decides what is out of memory."""
    import errno

    if isinstance(exc, MemoryError):
        return True
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOMEM
    if isinstance(exc, ImportError):
        text = str(exc)
        return "failed to map segment" in text or "cannot allocate memory" in text.lower()
    return False


class SolverError(Exception):
    """Base class of every error the package raises on purpose."""

    exit_code = 1


class UsageError(SolverError, ValueError):
    """The user gave something that is not valid input (exit code 2)."""

    exit_code = 2


class DiceError(UsageError):
    """Dice that are not five values from 1 to 6."""


class CardError(UsageError):
    """A score card that cannot be parsed or cannot occur in a game."""


class UnknownRulesError(UsageError):
    """A rule-set id that is not known."""


class IllegalMoveError(UsageError):
    """A move the rules forbid (a filled box, a placement the Joker rule forbids)."""


class TableError(SolverError):
    """A table file that is missing, corrupt, truncated or does not match its manifest."""


class MissingTableError(TableError):
    """No table has been built yet for a rule set."""


class MissingExtraError(SolverError, ImportError):
    """An optional dependency (an extra such as ``rl`` or ``export``) is not installed; the
    message is one line saying how to install it."""

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


#: what mends a table, in words of no surface: what ``str()`` of a :class:`TableError` ends with.
#: Each surface words the fix itself from the error's fields (the CLI: the command to run, see
#: ``solver/cli/remedy.py``; the web: ``solver/web/remedy.py``), never from this text.
FIX_WORDS = {
    "build": "build it",
    "rebuild": "rebuild it",
    "replace": "remove it, then build the table",
    "reinstall": "reinstall the package, or build the table into the tables folder (which comes first)",
    "elsewhere": "choose another tables folder",
}


class TableError(SolverError):
    """A table file that is missing, corrupt, truncated, stale or does not match its manifest.

    ``detail`` says what is wrong; the fields say which table and what mends it, for a surface to
    word: ``rules`` (the :class:`~solver.core.rules.RuleSet`, None where unknown), ``kind``
    (``"values"``, ``"target"`` or ``"opponent"``: :data:`solver.engine.store.KINDS`), ``folder``
    (the tables folder it is in or belongs in: a :class:`~pathlib.Path`, None for the table
    shipped with the package or where unknown) and ``fix``, a key of :data:`FIX_WORDS` --
    ``"build"`` (missing), ``"rebuild"`` (damaged or stale), ``"replace"`` (a FIFO, device or
    folder where a table file should be), ``"reinstall"`` (the shipped table damaged),
    ``"elsewhere"`` (a folder that cannot be written: build into another) -- or None (nothing a
    build mends: a permission, a full disk).  ``str()`` is the detail and the fix in
    :data:`FIX_WORDS`' plain words.
    """

    def __init__(
        self, detail: str, *, rules=None, kind: str | None = None, folder=None, fix: str | None = None
    ):
        if fix is not None and fix not in FIX_WORDS:
            raise ValueError(f"unknown fix {fix!r}")
        self.detail, self.rules, self.kind, self.folder, self.fix = detail, rules, kind, folder, fix
        super().__init__(detail if fix is None else f"{detail}; {FIX_WORDS[fix]}")

    def __reduce__(self):  # keyword fields survive a pickle (a worker process's error)
        fields = {"rules": self.rules, "kind": self.kind, "folder": self.folder, "fix": self.fix}
        return _restore, (type(self), self.detail, fields)


class MissingTableError(TableError):
    """No table of ``kind`` has been built yet for the rule set ``rules`` in ``folder`` (None: none
    comes with the package).  Its fix is always ``"build"``."""

    def __init__(self, rules, kind: str, folder=None, detail: str | None = None):
        if detail is None:
            what = "table" if kind == "values" else f"{kind} table" if kind == "target" else f"{kind} model"
            where = f"in {folder}" if folder is not None else "comes with the package"
            detail = f"no {what} for {rules.id} {where}"
        super().__init__(detail, rules=rules, kind=kind, folder=folder, fix="build")

    def __reduce__(self):
        return type(self), (self.rules, self.kind, self.folder, self.detail)


def _restore(cls, detail, fields):
    return cls(detail, **fields)


class MissingExtraError(SolverError, ImportError):
    """An optional dependency (an extra such as ``rl`` or ``export``) is not installed; the
    message is one line saying how to install it."""

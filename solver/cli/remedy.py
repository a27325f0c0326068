"""How the command line says what mends a table: the one place it words ``yahtzee tables build``.

The engine's :class:`~solver.core.errors.TableError` carries what is wrong (``detail``), which table
(``rules``, ``kind``, ``folder``) and its ``fix``; :func:`error_text` turns that into the command
to run, and every other CLI message that points at a build takes its command from
:func:`build_command`.  (The web words its own: :mod:`solver.web.remedy`.)
"""

from __future__ import annotations

import os

from ..core.errors import SolverError, TableError


def build_command(
    rules=None,
    *,
    target: bool = False,
    t_max: str | int | None = None,
    force: bool = False,
    folder: str | os.PathLike | None = None,
    every: bool = False,
) -> str:
    """``yahtzee tables build [--rules R] [--all] [--target] [--t-max N] [--force] [--tables F]``:
    ``rules`` a :class:`~solver.core.rules.RuleSet` or its id, ``every`` for ``--all``."""
    words = ["yahtzee tables build"]
    if rules is not None:
        words.append(f"--rules {getattr(rules, 'id', rules)}")
    if every:
        words.append("--all")
    if target:
        words.append("--target")
    if t_max is not None:
        words.append(f"--t-max {t_max}")
    if force:
        words.append("--force")
    if folder is not None:
        words.append(f"--tables {folder}")
    return " ".join(words)


def fix_text(exc: TableError) -> str | None:
    """What mends the table of ``exc``, as the command line says it (None: nothing a build mends)."""
    target = exc.kind == "target"
    if exc.fix == "build":
        return f"build it with: {build_command(exc.rules, target=target, folder=exc.folder)}"
    if exc.fix == "rebuild":
        return f"rebuild it with: {build_command(exc.rules, target=target, force=True, folder=exc.folder)}"
    if exc.fix == "replace":
        return (
            f"remove it, then build the table: {build_command(exc.rules, target=target, folder=exc.folder)}"
        )
    if exc.fix == "reinstall":
        return (
            "reinstall the package, or build the table into the tables folder (which comes first): "
            f"{build_command(exc.rules, target=target)}"
        )
    if exc.fix == "elsewhere":
        return "choose another with --tables"
    return None


def error_text(exc: SolverError) -> str:
    """What the command line says of ``exc``: its message, a table's fix as the command to run."""
    if isinstance(exc, TableError):
        fix = fix_text(exc)
        return exc.detail if fix is None else f"{exc.detail}; {fix}"
    return str(exc)

"""How the web app says what mends a table: the one place it words a build.

The engine's :class:`~solver.core.errors.TableError` says what is wrong and carries which table
(``rules``, ``kind``, ``folder``) and its ``fix``; here they become the web's words: the page's
Build button and ``POST /api/tables`` for a value table, and for what only the server's keeper can
do (a target table: minutes; a damaged table) the command to run on the server.  (The command
line words its own: :mod:`solver.cli.remedy`.)
"""

from __future__ import annotations

from ..core.errors import SolverError, TableError


def server_command(rules, *, target: bool = False, force: bool = False, folder=None) -> str:
    """The command the server's keeper runs to build (``force``: rebuild) a table of ``rules``."""
    words = ["yahtzee tables build"] + (
        [f"--rules {getattr(rules, 'id', rules)}"] if rules is not None else []
    )
    words += ["--target"] if target else []
    words += ["--force"] if force else []
    words += [f"--tables {folder}"] if folder is not None else []
    return " ".join(words)


def missing_table(rules) -> str:
    """The 409 of a rule set whose value table is not built on this server (the page offers the build)."""
    return (
        f"no table for {rules.id} on this server yet: press Build to make it (a minute or "
        f"so), or on the server run {server_command(rules)}"
    )


def missing_target(rules, folder=None) -> str:
    """The 409 of a rule set whose target table is not built (never built in a request: minutes)."""
    return (
        f"no target table for {rules.id} on this server; build it (a few minutes for yahtzee) "
        f"with: {server_command(rules, target=True, folder=folder)}"
    )


def needs_target(rules, what: str) -> str:
    """A request refused because ``what`` (``level win``) needs the rule set's target table."""
    return f"{what} needs the target table: {server_command(rules, target=True)}"


def error_text(exc: SolverError) -> str:
    """The web's text of ``exc``: a table's fix as what the server's keeper does about it."""
    if not isinstance(exc, TableError) or exc.fix is None:
        return str(exc)
    target = exc.kind == "target"
    if exc.fix == "build":
        fix = f"build it with: {server_command(exc.rules, target=target, folder=exc.folder)}"
    elif exc.fix == "rebuild":
        fix = f"rebuild it with: {server_command(exc.rules, target=target, force=True, folder=exc.folder)}"
    elif exc.fix == "replace":
        fix = (
            f"remove it, then build the table: {server_command(exc.rules, target=target, folder=exc.folder)}"
        )
    elif exc.fix == "reinstall":
        fix = (
            "reinstall the package, or build the table into the tables folder (which comes first): "
            f"{server_command(exc.rules, target=target)}"
        )
    else:
        return str(exc)
    return f"{exc.detail}; {fix}"

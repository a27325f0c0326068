"""Command line: ``yahtzee <command> ...`` (also ``python -m solver``).

Every command lives in :mod:`solver.commands` as a module with ``register(subparsers)``;
heavy imports happen inside the command, so ``yahtzee hint`` starts fast.
Results go to stdout, progress and errors to stderr.  Exit codes: 0 ok,
1 runtime failure, 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .errors import SolverError

# command word -> module of solver.commands that registers it
COMMAND_MODULES = {
    "hint": "hint",
    "value": "hint",
    "tables": "tables",
    "simulate": "simulate",
    "play": "play",
    "review": "review",
    "rules": "rules",
}


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``command`` only that command's module is imported.

    Registering a command may import what its help text needs, so ``yahtzee hint``
    registers just ``hint`` and starts fast; ``yahtzee --help`` registers all.
    """
    from . import __version__

    parser = _Parser(
        prog="yahtzee",
        description="Exact optimal Yahtzee and Yatzy: hints, tables, simulation, play.",
    )
    parser.add_argument("--version", action="version", version=f"yahtzee-solver {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    if command in COMMAND_MODULES:
        modules = [COMMAND_MODULES[command]]
    else:
        modules = list(dict.fromkeys(COMMAND_MODULES.values()))
    for name in modules:
        importlib.import_module(f".commands.{name}", __package__).register(sub)
    return parser


def _command_of(argv: list[str]) -> str | None:
    """The command word of ``argv`` (the first argument not starting with '-')."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (tests call it in-process)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_of(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse --help / usage errors
        return int(exc.code or 0)
    try:
        return int(args.func(args) or 0)
    except SolverError as exc:
        print(f"yahtzee: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("yahtzee: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

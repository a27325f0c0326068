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

COMMAND_MODULES = ("hint", "tables", "simulate", "play", "review")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(
        prog="yahtzee",
        description="Exact optimal Yahtzee and Yatzy: hints, tables, simulation, play.",
    )
    parser.add_argument("--version", action="version", version=f"yahtzee-solver {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f".commands.{name}", __package__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.commands.{name}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (tests call it in-process)."""
    parser = build_parser()
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

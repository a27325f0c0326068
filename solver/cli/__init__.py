"""The command line: :func:`main` (:mod:`solver.cli.entry`) and one module per command, each with
``register(subparsers)``; the helpers below are the options the commands share."""

from __future__ import annotations

import argparse

#: the most digits of a whole-number option with no bounds of its own (an int64 holds them)
DIGITS = 18


def whole(low: int | None = None, high: int | None = None):
    """An argparse ``type``: a whole number read by :func:`solver.core.bounded.parse_whole` (ASCII
    digits, the length checked before ``int()``), from ``low`` to ``high`` (default: at most
    :data:`DIGITS` digits, either sign: the command checks the range it needs); else one short
    line naming the value, as argparse words it (``argument --games: invalid int value: ...``)."""
    lo = -(10**DIGITS - 1) if low is None else low
    hi = 10**DIGITS - 1 if high is None else high
    wanted = f"of at most {DIGITS} digits" if low is None and high is None else f"from {lo} to {hi}"

    def whole_number(text: str) -> int:
        from ..core.bounded import parse_whole, shown
        from ..core.errors import UsageError

        try:
            return parse_whole(text, "the value", lo, hi)
        except UsageError:
            raise argparse.ArgumentTypeError(
                f"invalid int value: {shown(text)} (a whole number {wanted})"
            ) from None

    return whole_number


def decimal(low: float, high: float):
    """An argparse ``type``: a decimal number such as ``3`` or ``0.5`` (ASCII digits and one dot,
    at most 12 characters: no ``nan``, ``inf``, ``1e400``, ``٣`` or ``1_0``), from ``low`` to
    ``high``; else one short line naming the value."""

    def number(text: str) -> float:
        import re

        from ..core.bounded import shown

        body = text.strip() if isinstance(text, str) else ""
        if len(body) <= 12 and body.isascii() and re.fullmatch(r"[0-9]+(?:\.[0-9]+)?|\.[0-9]+", body):
            value = float(body)
            if low <= value <= high:
                return value
        raise argparse.ArgumentTypeError(
            f"invalid number value: {shown(text)} (a number from {low:g} to {high:g})"
        )

    return number


def add_rules(parser: argparse.ArgumentParser, many: str | None = None) -> None:
    """``--rules ID``; with ``many`` (the help text) ``--rules ID [ID ...]``."""
    if many:
        parser.add_argument("--rules", nargs="+", metavar="SPEC", help=many)
    else:
        parser.add_argument(
            "--rules",
            default=None,
            metavar="SPEC",
            help="rule set: BASE+MOD+... e.g. yatzy+all-rolls (default: yahtzee; see: yahtzee rules)",
        )


def add_seed_and_threads(
    parser: argparse.ArgumentParser, threads_help: str = "worker threads (default: all cores)"
) -> None:
    """``--seed S`` (the dice streams' whole range, default 0) and ``--threads N`` of a batch command."""
    from ..core.streams import MAX_SEED

    parser.add_argument(
        "--seed",
        type=whole(0, MAX_SEED),
        default=0,
        metavar="S",
        help=f"dice seed, 0 to {MAX_SEED} (default 0)",
    )
    parser.add_argument("--threads", type=whole(), default=None, metavar="N", help=threads_help)


def add_tables(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tables",
        metavar="DIR",
        default=None,
        help="folder of table files (default: $YAHTZEE_TABLES, tables/ of a checkout, or the user cache)",
    )


from .entry import build_parser, main  # noqa: E402  (the helpers above are what the commands import)

__all__ = ["build_parser", "main"]

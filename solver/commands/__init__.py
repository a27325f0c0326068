"""One module per CLI command, each with ``register(subparsers)`` (see :mod:`solver.cli`)."""

from __future__ import annotations

import argparse


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


def add_tables(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tables",
        metavar="DIR",
        default=None,
        help="folder of table files (default: $YAHTZEE_TABLES, tables/ of a checkout, or the user cache)",
    )

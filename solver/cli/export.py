"""``yahtzee export``: positions with the value of every option, for training bots (Parquet or JSON lines)."""

from __future__ import annotations

import sys

from . import add_quiet, add_rules, add_seed, add_tables, whole

SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}


def register(sub) -> None:
    from ..play.export import MAX_GAMES, MAX_POSITIONS

    p = sub.add_parser(
        "export",
        help="write positions with the value of every option (Parquet or JSON lines) for training bots",
        description=(
            "Write positions with every option's value, exactly the options of hint --json (best "
            "first, with ev, expected_final, regret, best), as Parquet (needs the export extra: "
            "pyarrow) or JSON lines. Positions: every decision of a bot's seeded games (--bot, "
            "--games, --seed; also game, turn, roll and chosen: the bot's option) or --spread: "
            "random reachable cards with random dice and rolls left (see the README). "
            "The file is written atomically."
        ),
    )
    p.add_argument(
        "out", metavar="OUT", help="file to write (.parquet or .jsonl; - for JSON lines on stdout)"
    )
    p.add_argument("--format", choices=("parquet", "jsonl"), default=None, help="default: from OUT's suffix")
    p.add_argument("--bot", metavar="NAME", default=None, help="every decision of this bot's games")
    p.add_argument(
        "--games",
        type=whole(),
        default=None,
        metavar="N",
        help=f"the bot's games 0 .. N-1 (default 1000, at most {MAX_GAMES:,})",
    )
    p.add_argument("--spread", action="store_true", help="positions spread over reachable cards")
    p.add_argument(
        "--positions",
        type=whole(),
        default=None,
        metavar="N",
        help=f"positions to write (--spread: default 100000; a bot: at most N), at most {MAX_POSITIONS:,}",
    )
    add_seed(p)
    add_rules(p)
    add_tables(p)
    add_quiet(p)
    p.set_defaults(func=run_export)


def output_format(out: str, given: str | None) -> str:
    """``--format``, else the one OUT's suffix names (``-``: JSON lines)."""
    import os

    from ..core.errors import UsageError

    if given is not None:
        return given
    if out == "-":
        return "jsonl"
    suffix = os.path.splitext(out)[1].lower()
    if suffix not in SUFFIXES:
        raise UsageError(f"cannot tell the format of {out!r} from its suffix: give --format parquet or jsonl")
    return SUFFIXES[suffix]


def run_export(args) -> int:
    import time

    from ..core.errors import UsageError
    from ..play.export import export_positions

    if args.bot is None and not args.spread:
        raise UsageError("say which positions: --bot NAME (its games' decisions) or --spread")
    if args.bot is not None and args.spread:
        raise UsageError("give --bot or --spread, not both")
    if args.spread and args.games is not None:
        raise UsageError("--games is for --bot; --spread draws --positions N positions")
    fmt = output_format(args.out, args.format)
    start = time.perf_counter()
    n = export_positions(
        args.out,
        args.rules,
        fmt=fmt,
        bot=args.bot,
        games=args.games,
        positions=args.positions,
        seed=args.seed,
        tables_dir=args.tables,
        progress=not args.quiet,
    )
    seconds = time.perf_counter() - start
    where = "stdout" if args.out == "-" else args.out
    line = f"wrote {n:,} positions to {where} in {seconds:.1f} s ({n / max(seconds, 1e-9):,.0f}/s)"
    print(line, file=sys.stderr if args.out == "-" else sys.stdout)
    return 0

"""``yahtzee match``: full multi-player games between bots; who wins, and how often."""

from __future__ import annotations

import argparse
import json

from . import (
    add_json,
    add_quiet,
    add_rules,
    add_seed_and_threads,
    add_tables,
    add_worst,
    bot_descriptions,
    check_threads,
    whole,
)
from .remedy import build_command


def register(sub) -> None:
    from ..play.match import MAX_GAMES, MAX_PLAYERS, MAX_WORST

    p = sub.add_parser(
        "match",
        help="play bots against each other in full multi-player games and report win rates",
        description=(
            "Play full games between 2 to "
            f"{MAX_PLAYERS} bots, taking turns in seat order; the seats rotate between games and "
            "each player rolls its own seeded dice (same seed, same results, any thread count). "
            "Reports wins, ties and losses per bot with standard errors, mean scores and the "
            "head-to-head matrix. Bots: " + bot_descriptions() + "; or module:attr for your own."
        ),
    )
    add_rules(p)
    p.add_argument("--bots", required=True, metavar="A,B[,C...]", help="the players, comma-separated")
    p.add_argument(
        "--games",
        type=whole(),
        default=10_000,
        metavar="N",
        help=f"games (default 10000, at most {MAX_GAMES:,})",
    )
    add_seed_and_threads(p)
    p.add_argument(
        "--grade",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="grade the decisions of the last seat's last turn for P(win) (exact there: every "
        "opponent has finished) against the best choices, from the target table (default: when "
        "it is built)",
    )
    add_worst(
        p,
        "write each bot's costliest graded decisions as JSON lines (positions that yahtzee hint "
        "--batch reads, with the opponents' cards for hint --opponent-card, the game, the loss in "
        "P(win), the move played and the best)",
        DEFAULT_WORST,
        MAX_WORST,
        " per bot",
    )
    add_json(p)
    add_quiet(p)
    add_tables(p)
    p.set_defaults(func=run_match)


DEFAULT_WORST = 20  # decisions per bot written by --worst


def grades(args, rules) -> bool:
    """Whether ``match`` grades the last turns: ``--grade``/``--no-grade``, else when the rule
    set's target table is built (or ``--worst`` asks for the worst decisions)."""
    from ..core.errors import UsageError
    from ..engine.target import target_paths

    if args.worst is not None and args.grade is False:
        raise UsageError("--worst writes graded decisions: it does not go with --no-grade")
    if args.grade is False:
        return False
    if args.grade or args.worst is not None:
        if rules.triple:
            raise UsageError("--grade and --worst grade against a target table: the triple card has none")
        return True
    return not rules.triple and all(path.is_file() for path in target_paths(rules, args.tables))


def run_match(args) -> int:
    from ..core.errors import UsageError
    from ..core.rules import get_rules
    from ..play.bots import BOTS, MATCH_BOTS
    from ..play.match import MAX_GAMES, MAX_PLAYERS, grading_summary, play_match, worst_match_positions
    from .simulate import check_output, write_worst

    rules = get_rules(args.rules)
    names = [b.strip() for b in args.bots.split(",")]
    if any(not n for n in names):
        raise UsageError(f"--bots {args.bots!r}: an empty bot name (write them as A,B)")
    if not 2 <= len(names) <= MAX_PLAYERS:
        raise UsageError(f"--bots needs 2 to {MAX_PLAYERS} bots, got {len(names)}")
    for name in names:
        low = name.lower()
        if low not in BOTS and low not in MATCH_BOTS and not low.startswith("target:") and ":" not in name:
            known = ", ".join([*BOTS, *MATCH_BOTS])
            raise UsageError(f"unknown bot {name!r} (known: {known}, target:T, or module:attr)")
    if args.games < 1 or args.games > MAX_GAMES:
        raise UsageError(f"--games must be 1 to {MAX_GAMES:,}, got {args.games}")
    check_threads(args.threads)
    grade = grades(args, rules)
    if args.worst is not None:
        check_output("--worst", args.worst)
    result = play_match(
        rules,
        names,
        args.games,
        args.seed,
        threads=args.threads,
        tables_dir=args.tables,
        progress=not args.quiet,
        grade=grade,
        worst=args.worst_count if args.worst is not None else 0,
    )
    summary = result.summary()
    if grade:
        summary["last_turn"] = grading_summary(result)
    worst_lines = worst_match_positions(result) if args.worst is not None else None
    if args.json:
        if worst_lines is not None:
            summary["worst"] = {"path": args.worst, "decisions": len(worst_lines)}
        print(json.dumps(summary, allow_nan=False))
    else:
        print(format_summary(summary))
        if grade:
            print("\n".join(grading_lines(summary["last_turn"])))
        elif args.grade is None and not rules.triple and rules.n_dice == 5:
            # not asked either way, and the table is missing (six dice have no target tables yet)
            print("(the last turns are not graded: no target table in the tables folder;")
            print(f" build it with: {build_command(rules, target=True)})")
    if worst_lines is not None:
        write_worst(
            args, worst_lines, "  (their advice, by P(win): yahtzee hint --opponent-card CARD ... per line)"
        )
    return 0


def grading_lines(rows: list[dict]) -> list[str]:
    """The text report of the graded last turns (:func:`solver.play.match.grading_summary`)."""
    lines = [
        "",
        "last turn of the last seat, every opponent finished (exact), graded for P(win)",
        "(a tie half) against the best choices:",
        f"{'bot':<{NAME}} {'games':>8} {'decisions':>9} {'loss per game':>16} {'chance':>8} {'got':>8}",
    ]
    for r in rows:
        lines.append(
            f"{short(r.get('name', r['bot']), NAME):<{NAME}} {r['graded_games']:>8,} {r['graded_keeps'] + r['graded_boxes']:>9,} "
            f"{100 * r['loss_per_graded_game']:>7.3f}% ± {100 * r['standard_error']:.3f} "
            f"{100 * r['chance_at_last_turn']:>7.2f}% {100 * r['achieved']:>7.2f}%"
        )
    lines.append("(games: those it played last; chance: P(win) at the start of that turn with")
    lines.append(" the best play; got: what it won, a tie half)")
    return lines


#: the width of the bot column of the match tables (within 80 columns)
NAME = 20


def short(name: str, width: int) -> str:
    """A bot's name in a column of ``width``: a long command (``cmd:...``, ``module:attr``) keeps
    its end, a long name (what a program called itself) its start."""
    if len(name) <= width:
        return name
    if ":" in name:
        return "~" + name[-(width - 1) :]
    return name[: width - 1] + "~"


def format_summary(s: dict) -> str:
    lines = [
        f"{s['games']:,} games of {s['rules']} (seed {s['seed']}, seats rotated, {s['engine']} engine, "
        f"{s['seconds']:.1f} s)",
        "",
        f"{'bot':<{NAME}} {'win+tie/2':>16} {'wins':>8} {'ties':>7} {'losses':>8} {'mean':>7} {'sd':>6}",
    ]
    for p in s["players"]:
        wt = p["win_or_half_tie"]
        lines.append(
            f"{short(p.get('name', p['bot']), NAME):<{NAME}} {100 * wt['rate']:>8.2f}% ± {100 * wt['standard_error']:.2f} "
            f"{100 * p['win']['rate']:>7.2f}% {100 * p['tie']['rate']:>6.2f}% {100 * p['loss']['rate']:>7.2f}% "
            f"{p['mean_score']:>7.1f} {p['sd_score']:>6.1f}"
        )
    lines.append("")
    lines.append("by seat (win+tie/2; seat 1 plays first):")
    for p in s["players"]:
        cells = "  ".join(
            f"seat {x['seat'] + 1}: {100 * x['win_or_half_tie']['rate']:.2f}%" for x in p["by_seat"]
        )
        lines.append(f"  {short(p.get('name', p['bot']), NAME - 2):<{NAME - 2}} {cells}")
    if len(s["players"]) > 2:
        lines.append("")
        lines.append("head to head (row beats column, ties half):")
        names = [p.get("name", p["bot"]) for p in s["players"]]  # the columns numbered as the rows
        lines.append(" " * (NAME + 2) + "".join(f"{k + 1:>9}" for k in range(len(names))))
        for k, (name, row) in enumerate(zip(names, s["head_to_head"], strict=True)):
            cells = "".join(f"{'-':>9}" if c is None else f"{100 * c['rate']:>8.2f}%" for c in row)
            lines.append(f"{k + 1} {short(name, NAME):<{NAME}}{cells}")
    lines.append("(± one standard error)")
    return "\n".join(lines)

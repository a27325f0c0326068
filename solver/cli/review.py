"""``yahtzee review GAME.json``: every decision of a saved game beside the optimal one."""

from __future__ import annotations

import json

from . import add_data, add_json, add_tables


def register(sub) -> None:
    p = sub.add_parser(
        "review",
        help="replay a saved game: each decision beside the optimal one and what it cost",
        description="Replay a saved game (from yahtzee play) and rank every keep and box against the optimum.",
    )
    p.add_argument(
        "game",
        metavar="GAME.json",
        nargs="?",
        help="a saved game (see the games/ folder of the data folder)",
    )
    p.add_argument("--last", action="store_true", help="the game finished last (from the data folder)")
    add_data(p, "data folder for --last (default as yahtzee play)")
    p.add_argument("--player", metavar="NAME", help="review only this player (default: every player)")
    p.add_argument("--mistakes", action="store_true", help="list only the decisions that lost points")
    add_json(p)
    add_tables(p)
    p.set_defaults(func=run_review)


def run_review(args) -> int:
    from ..advice import load_advisor
    from ..core.errors import UsageError, printable
    from ..play.records import load_game
    from ..play.review import format_review, review_game, review_report

    if args.last == (args.game is not None):
        raise UsageError("review needs GAME.json or --last (not both)")
    if args.last:
        from ..play.records import data_dir, last_finished_path

        args.game = last_finished_path(args.data)
        if args.game is None:
            raise UsageError(f"no finished game in {data_dir(args.data)} to review")
    game = load_game(args.game)
    chosen = None
    if args.player is not None:
        names = [p.name for p in game.players]
        if args.player not in names:
            shown = ", ".join(map(printable, names))
            raise UsageError(f"no player {args.player!r} in {printable(args.game)} (players: {shown})")
        chosen = [names.index(args.player)]
    advisor = load_advisor(game.rules, args.tables, build_if_missing=True, progress=True)
    reviews = review_game(game, advisor, chosen, _target_advisor(game, advisor, args.tables))
    win = _win_effects(game, advisor, args.tables)
    if args.json:
        print(json.dumps(review_report(game, advisor, reviews, str(args.game), win)))
    else:
        print(format_review(game, reviews, only_mistakes=args.mistakes, win=win, note=advisor.note))
    return 0


def _win_effects(game, advisor, tables_dir):
    """Each scored turn's effect on the player's chance to win (multi-player games whose rule
    set has a target table; None otherwise: the table is not built for a review)."""
    from ..play.review import reviews_win

    if not reviews_win(game):
        return None
    from ..core.errors import MissingTableError
    from ..engine.target import load_target
    from ..play.bots import WinBot
    from ..play.review import win_effects

    try:
        table = load_target(game.rules, tables_dir)
    except MissingTableError:
        return None
    return win_effects(game, WinBot(advisor, table))


def _target_advisor(game, advisor, tables_dir):
    """For a solo game played for a target (:func:`solver.play.review.review_target`): the
    target advisor, when its table is built (else None: the review is by expected score only)."""
    from ..play.review import review_target

    if review_target(game) is None:
        return None
    from ..advice.advisor import TargetAdvisor
    from ..core.errors import MissingTableError
    from ..engine.target import load_target

    try:
        return TargetAdvisor(advisor, load_target(game.rules, tables_dir, light=True))
    except MissingTableError:
        return None

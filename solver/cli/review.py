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
    from ..play.review import format_review, review_game

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
        info = {
            k: v for k, v in game.info.items() if k in ("mode", "dice", "seed", "date", "level", "target")
        }
        print(
            json.dumps(
                {
                    "game": str(args.game),
                    "rules": game.rules.id,
                    "finished": game.is_over,
                    **info,
                    **({"note": advisor.note} if advisor.note else {}),
                    "players": [r.to_json() for r in reviews],
                    **(
                        {"p_win_by_turn": [{"turn": t, "before": b, "after": a} for t, (b, a) in win.items()]}
                        if win
                        else {}
                    ),
                }
            )
        )
    else:
        print(format_review(game, reviews, only_mistakes=args.mistakes, win=win, note=advisor.note))
    return 0


def _win_effects(game, advisor, tables_dir):
    """Each scored turn's effect on the player's chance to win (multi-player games whose rule
    set has a target table; None otherwise: the table is not built for a review)."""
    if len(game.players) < 2 or game.rules.order == "choose" or game.rules.triple:
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
    """For a solo game played for a target (``play --solo`` with a record or ``--target``): the
    target advisor, when its table is built (else None: the review is by expected score only)."""
    from ..core.bounded import MAX_TARGET

    target = game.info.get("target")
    if (
        game.rules.triple
        or len(game.players) != 1
        or type(target) is not int
        or not 1 <= target <= MAX_TARGET
    ):
        return None  # none, or not a target the game could have had (a hand-edited file)
    from ..advice.advisor import TargetAdvisor
    from ..core.errors import MissingTableError
    from ..engine.target import load_target

    try:
        return TargetAdvisor(advisor, load_target(game.rules, tables_dir, light=True))
    except MissingTableError:
        return None

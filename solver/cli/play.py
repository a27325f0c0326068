"""``yahtzee play``: a line-based game over stdin/stdout (solo, vs computer, hot-seat, daily, real dice).

The game itself is :class:`solver.play.game.Game`; this module only reads commands,
prints the dice and the card, and saves the game (:mod:`solver.play.records`).  The
advisor is loaded only for hints, the coach, the perfect computer player and
the daily summary (tables are built when missing, with progress on stderr).

Exit codes: 0 when the game ends or the player quits (Ctrl-D at a terminal is
``q``), 1 when piped input ends before the game does (the game is saved as
abandoned), 130 on Ctrl-C (saved too).  ``--resume`` continues a saved game.
"""

from __future__ import annotations

import os
import sys
import textwrap
from itertools import zip_longest
from pathlib import Path

from ..core.card import ScoreCard
from ..core.errors import IllegalMoveError, SolverError, UsageError
from ..core.streams import MAX_SEED
from ..core.triple_card import TripleCard
from ..play import session as session_rules
from ..play.session import HUMAN, LEVELS, describe_bot_turn
from . import add_data, add_rules, add_tables, add_target, fit, visible_len, whole

#: the win level plays to beat you, not for points: its figure is its share of wins (ties half)
#: against the perfect player, measured by ``python benchmarks/bench_win.py``
WIN_LEVEL_RATE = 0.5183  # 400,000 games of yahtzee match --bots win,optimal, seed 1
#: each level's mean score, measured by ``python benchmarks/bench_levels.py`` (yahtzee
#: simulate --bot BOT --games 100000 --seed 1); shown in --help and the README
LEVEL_MEANS = {"easy": 162.4, "medium": 217.3, "hard": 251.4, "perfect": 254.6}
NUMBER_WORDS = {6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}

HELP = """\
commands:
  r, roll, Enter        roll the dice that are not held (up to 3 rolls a turn;
                        the first is mandatory)
  h 1 3, hold 1 3       hold or release dice by position (1 to 5)
  k 3 3 5, keep 3 3 5   hold dice by their faces
  u, release            release all held dice
  s 9, s full_house     score the dice in a box: by number, name, a start of
                        an open box's name ('full') or an alias: aces 3k 4k fh
                        ss/sm ls/lg ch y, Yatzy's 1p 2p; on the triple card the
                        box and its column: s fours@3, s fh 2
  undo                  take back the last box (solo games; the game no longer
                        counts for records)
  hint, ?               the solver's three best options now (the game no longer
                        counts for records)
  card, c               the card, with what each open box would score now
  cards                 every player's card side by side
  help                  this list
  quit, q, Ctrl-D       stop now; the game is saved (play --resume goes on)
the card: (12) what the dice would score in an open box, x a box the Joker
  rule (or the fill order) forbids for these dice, . an open box before the
  roll; upper pace: the upper boxes filled so far against three of each face
  (which makes 63): +3 is ahead of the bonus, -4 behind"""

HELP_REAL = """\
real dice: type the dice you rolled on the table: all five on a turn's first
  roll (e.g. 33456), then only the rerolled ones (e.g. 45) or all five again;
  'r 45' works too.  Hold with h before rerolling, or type all five and the
  dice that stayed the same count as kept."""


def register(sub) -> None:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal (solo, vs computer, hot-seat, daily challenge, real dice)",
        description="Play Yahtzee or Yatzy with a plain line-based interface (type 'help' in the game).",
    )
    p.add_argument("--solo", action="store_true", help="play alone and beat your record (the default)")
    p.add_argument("--vs-computer", action="store_true", help="you start, the computer plays second")
    p.add_argument(
        "--level",
        choices=tuple(LEVELS),
        default=None,
        help="computer strength (implies --vs-computer), its mean yahtzee score measured by simulate: "
        + ", ".join(f"{k} ~{v:.0f}" for k, v in LEVEL_MEANS.items())
        + f"; win: the hardest, plays to beat you (wins {100 * WIN_LEVEL_RATE:.1f}%% against perfect)"
        + "; default medium",
    )
    p.add_argument(
        "--players",
        metavar="NAMES",
        help='hot-seat: comma-separated names, e.g. "Ann,Ben"; computer:LEVEL adds a computer '
        '(e.g. "Ann,Ben,computer:win")',
    )
    p.add_argument(
        "--daily",
        nargs="?",
        const="today",
        metavar="DATE",
        help="the daily challenge of DATE (YYYY-MM-DD, default today): everyone gets the same dice",
    )
    p.add_argument("--real-dice", action="store_true", help="type the dice rolled on a real table (a coach)")
    p.add_argument("--coach", action="store_true", help="after each decision, say what it cost vs the best")
    p.add_argument(
        "--seed",
        type=whole(0, MAX_SEED),
        metavar="S",
        help=f"dice seed (0 to {MAX_SEED}), for a reproducible game",
    )
    add_target(
        p,
        "solo: show your chance of reaching T as you go, and the move that maximises it "
        "(default: your record + 1, when the target table is built: yahtzee tables build --target)",
    )
    p.add_argument(
        "--resume",
        nargs="?",
        const="last",
        metavar="GAME.json",
        help="go on with the last unfinished game (or the named one) where it stopped",
    )
    add_rules(p)
    add_tables(p)
    add_data(p)
    p.set_defaults(func=run_play)


def run_play(args) -> int:
    from ..core.rules import get_rules
    from ..play.daily import parse_date, released_date
    from ..play.game import Game, Player

    if args.resume is not None:
        return resume_play(args)
    rules = get_rules(args.rules)
    levels = session_rules.levels(rules)
    if args.level is not None and args.level not in levels:
        raise UsageError(f"--level {args.level}: the {rules.id} computer is one of {', '.join(levels)}")
    if rules.triple and args.target is not None:
        raise UsageError("--target does not take the triple card (no target tables for it)")
    if args.players is not None:
        try:
            seated = session_rules.players_from_names(args.players, rules, programs=True)
        except UsageError as exc:
            raise UsageError(f"--players {args.players!r}: {exc}") from None
    else:
        seated = [Player(HUMAN)]
    names = [p.name for p in seated]
    if args.level is not None and not args.vs_computer:
        if args.solo or len(names) > 1:
            raise UsageError("--level is the computer's strength: it goes with --vs-computer")
        args.vs_computer = True  # --level hard means a game against the hard computer
    if args.solo and (args.vs_computer or len(names) > 1):
        raise UsageError("--solo is one player alone; drop --vs-computer / extra --players")
    if args.target is not None and (args.vs_computer or len(names) > 1 or args.daily is not None):
        raise UsageError("--target goes with a solo game")
    if args.target is not None and args.target < 1:
        raise UsageError(f"--target must be a score of 1 or more, got {args.target}")
    if args.real_dice and (args.daily is not None or args.seed is not None):
        raise UsageError("--real-dice takes the dice from your table; it cannot go with --daily or --seed")
    if args.real_dice and args.vs_computer:
        raise UsageError("--real-dice cannot go with --vs-computer (the computer needs dice of its own)")
    if args.daily is not None and args.seed is not None:
        raise UsageError("--daily has its own dice; it cannot go with --seed")
    date = released_date(parse_date(args.daily)) if args.daily is not None else None
    players = list(seated)
    level = None
    if args.vs_computer:
        level = args.level or "medium"
        players.append(Player(f"Computer ({level})", "bot", levels[level]))
    if date is not None:
        mode = "daily"
    elif args.vs_computer:
        mode = "vs-computer"
    elif len(players) > 1:
        mode = "hot-seat"
    else:
        mode = "solo"
    info: dict = {"mode": mode}
    if level:
        info["level"] = level
    if args.coach:
        info["coach"] = True
        if mode in ("solo", "daily"):
            info["assisted"] = ["coach"]
    earlier = _earlier_play(mode, rules.id, args.seed, date, args.data)
    if earlier is not None:
        info["replay"] = True
    game = Game.new(rules, players, seed=args.seed, date=date, real_dice=args.real_dice, info=info)
    session = PlaySession(game, coach=args.coach, tables_dir=args.tables, data=args.data)
    session.earlier = earlier
    session.asked_target = args.target
    session.programs = True  # cmd: players come from this command line (a resumed game runs none)
    try:
        return session.run()
    finally:
        session.close_bots()


def _earlier_play(mode: str, rules_id: str, seed, date, data):
    """:func:`solver.play.session.earlier_play`; a store that cannot be read is a warning."""
    try:
        return session_rules.earlier_play(mode, rules_id, seed, date, data)
    except SolverError as exc:
        sys.stderr.write(f"yahtzee: warning: {exc}\n")
    return None


def resume_play(args) -> int:
    """``--resume [GAME.json]``: load the game (the last unfinished one of the data folder by
    default), replay it against its dice and go on where it stopped."""
    from ..play.game import Game, GameRecordError
    from ..play.records import read_game_file, unfinished_game

    given = [
        name
        for name, value in (
            ("--solo", args.solo),
            ("--vs-computer", args.vs_computer),
            ("--level", args.level),
            ("--players", args.players),
            ("--daily", args.daily),
            ("--real-dice", args.real_dice),
            ("--coach", args.coach),
            ("--seed", args.seed),
            ("--rules", args.rules),
        )
        if value not in (None, False)
    ]
    if given:
        raise UsageError(f"--resume goes on with a saved game as it was; drop {', '.join(given)}")
    if args.resume == "last":
        found = unfinished_game(args.data)
        if found is None:
            from ..play.records import data_dir

            raise UsageError(f"no unfinished game to resume in {data_dir(args.data)}")
        path, data = found
    else:
        path, data = args.resume, read_game_file(args.resume)
    if isinstance(data, dict) and data.get("status") == "finished":
        raise UsageError(f"{path}: this game is finished; review it with: yahtzee review {path}")
    try:
        game = Game.from_dict(data)
    except GameRecordError as exc:
        raise GameRecordError(f"{path}: {exc}") from None
    if game.is_over:
        raise UsageError(f"{path}: this game is over; review it with: yahtzee review {path}")
    session = PlaySession(
        game, coach=bool(game.info.get("coach")), tables_dir=args.tables, data=args.data, path=Path(path)
    )
    return session.run()


class _Quit(Exception):
    pass


class PlaySession:
    """Reads commands, drives the :class:`~solver.play.game.Game`, prints the table, saves the game."""

    def __init__(
        self,
        game,
        *,
        coach=False,
        tables_dir=None,
        data=None,
        inp=None,
        out=None,
        err=None,
        path=None,
        color=None,
    ):
        self.game = game
        self.coach = coach
        self.tables_dir = tables_dir
        self.data = data
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        try:
            self.interactive = self.inp.isatty()
        except (AttributeError, ValueError):
            self.interactive = False
        if color is None:
            color = _color_wanted(self.out)
        self.style = Style(color)
        self._advisor = None
        self.hinted = None  # (turn, roll, box) of the last hint's best box: scoring it asks nothing
        self.noted = False  # the advisor's note shown (once a game)
        self._win = None  # the win bot for P(win) on screen (False: no target table)
        self.programs = False  # whether cmd: players may run (seated by this command line)
        self._bots: dict[int, object] = {}
        self.resumed = path is not None
        self.path = path
        self.earlier = None  # the earlier play of these dice, when this game is a replay
        self._autosave_failed = False
        self._store_failed = False
        self._daily_optimal = None
        self._best_bot = None  # the optimal (or triple) player, for the daily and the triple card's end
        self.stored = None  # what the database kept when the game finished (records.Stored)
        self.asked_target = None  # --target
        self.target = None  # solo: the score to reach (the record + 1 by default)
        self._target_advisor = None
        self.rng = session_rules.bots_rng(game)

    # --- output ----------------------------------------------------------------
    def say(self, text: str = "") -> None:
        self.out.write("\n".join(fit(line) for line in text.split("\n")) + "\n")

    def refuse(self, reason: str) -> None:
        self.say(f"! {reason}")

    def read(self, prompt: str) -> str:
        if self.interactive:  # line editing and history where readline is available
            _enable_readline()
            try:
                return input(prompt).strip()
            except EOFError:  # Ctrl-D: like q, on a line of its own
                self.out.write("\n")
                raise _Quit from None
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            raise EOFError
        self.out.write(line if line.endswith("\n") else line + "\n")  # echo, so piped transcripts read well
        return line.strip()

    # --- helpers needing tables ----------------------------------------------------
    @property
    def advisor(self):
        if self._advisor is None:
            from ..advice import load_advisor

            self._advisor = load_advisor(
                self.game.rules, self.tables_dir, build_if_missing=True, progress=True
            )
        return self._advisor

    def bot(self, index: int):
        if index not in self._bots:
            from ..play.bots import get_bot
            from ..play.protocol import is_protocol_bot

            name = self.game.players[index].bot
            # the computer players of play are builtin bots -- a saved game names no module to
            # import nor program to run -- or a bot program seated by this command line
            program = self.programs and is_protocol_bot(name)
            self._bots[index] = get_bot(name, self.game.rules, self.tables_dir, user_bots=program)
        return self._bots[index]

    def close_bots(self) -> None:
        """End the bot programs this game started (their processes reaped)."""
        for bot in self._bots.values():
            close = getattr(bot, "close", None)
            if callable(close):
                close()

    def win_bot(self):
        """The win bot's tables for P(win) on screen, or None when its target table is not built
        (it is never built for this: a few minutes for yahtzee; ``yahtzee tables build --target``)."""
        if self.game.rules.triple:
            return None  # no target tables for the triple card
        if self._win is None:
            from ..core.errors import MissingTableError
            from ..engine.target import load_target
            from ..play.bots import WinBot

            try:
                table = load_target(self.game.rules, self.tables_dir)
            except MissingTableError:
                self._win = False
            else:
                self._win = WinBot(self.advisor, table)
        return self._win or None

    def show_chances(self) -> None:
        """Each player's chance to win from here (multi-player games, target table present)."""
        g = self.game
        if len(g.players) < 2 or g.is_over or g.rules.order == "choose":
            return
        bot = self.win_bot()
        if bot is None:
            return
        chances = bot.win.chances(g.cards)
        self.say(
            "  chances to win: "
            + ", ".join(f"{p.name} {100 * c:.1f}%" for p, c in zip(g.players, chances, strict=True))
        )

    # --- the game loop -----------------------------------------------------------------
    def run(self) -> int:
        from ..play.records import new_game_path

        if self.path is None:
            self.path = new_game_path(self.game, self.data)
        try:
            self.intro()
            self.prepare()
        except _Quit:  # Ctrl-D at the question about a table: the game never started
            self.say(self.not_started())
            return 0
        except KeyboardInterrupt:  # Ctrl-C during a table's build (nothing half-built is kept)
            self.err.write(f"\ninterrupted: {self.not_started()}\n")
            raise
        g = self.game
        self.say("type help for the commands" + (", r to roll" if not g.needs_values else ""))
        if g.needs_values:
            self.say(HELP_REAL)
        try:
            while not self.game.is_over:
                round_ = self.game.round
                if self.game.player.is_bot:
                    self.bot_turn()
                else:
                    self.human_turn()
                self.autosave()
                self.show_chances()
                if len(self.game.players) > 1 and self.game.round > round_ and not self.game.is_over:
                    self.say("")
                    if any(p.is_bot for p in self.game.players):  # the computer's turn stays on screen
                        totals = " | ".join(f"{name} {total}" for name, total in self.game.totals())
                        self.say(f"after round {round_}: {totals}   (cards: the whole sheet)")
                    else:
                        self.say(format_sheet(self.game, self.style))
        except _Quit:
            self.save("abandoned")
            self.say(f"game abandoned; saved to {self.path} (yahtzee play --resume goes on with it)")
            return 0
        except EOFError:
            self.save("abandoned")
            self.say(f"end of input: game saved as abandoned to {self.path}")
            return 1
        except KeyboardInterrupt:
            self.save("abandoned")
            self.err.write(f"\ngame saved as abandoned to {self.path}\n")
            raise
        except BaseException as error:
            # Anything unexpected: keep the game, then let the error through.
            try:
                self.save("abandoned")
            except Exception as exc:  # noqa: BLE001 - the original error matters more
                self.err.write(f"yahtzee: could not save the game: {exc}\n")
            else:
                if isinstance(error, SolverError):  # its one line says where the game went
                    error.args = (f"{error}; game saved as abandoned to {self.path}",)
                else:
                    self.err.write(f"game saved as abandoned to {self.path}\n")
            raise
        game = self.game
        optimal = None
        if self.keeps_daily():
            from ..play.records import save_game

            save_game(game, self.path, "finished")  # the file first: kept even if the optimum fails
            optimal = self.daily_optimal()  # the day's result is stored with the game, in one transaction
        self.save("finished", optimal)
        self.finish()
        return 0

    def not_started(self) -> str:
        """What stopping before the first turn leaves: no game file, no row in the database (a
        resumed game's file as it was)."""
        if self.resumed:
            return f"the game did not go on; {self.path} is as it was"
        return "the game had not started: nothing saved"

    def prepare(self) -> None:
        """Before the first turn (nothing saved yet): the tables the game needs, built now with
        their progress bar, not in the middle of a turn.  A computer playing to win needs the
        target table: announced and, at a terminal, offered to play without it (the perfect
        computer plays instead)."""
        from ..play.game import Player

        g = self.game
        if any(p.bot == "win" for p in g.players) and (
            self.target_table(
                "the computer playing to win plays by it",
                "the perfect computer (the best expected score) plays instead",
            )
            is None
        ):
            for i, p in enumerate(g.players):
                if p.bot == "win":
                    g.players[i] = Player(p.name.replace("(win)", "(perfect)"), "bot", LEVELS["perfect"])
            if g.info.get("level") == "win":
                g.info["level"] = "perfect"
        if self.coach or g.info.get("mode") == "daily" or self.interactive:
            _ = self.advisor
        for i, p in enumerate(g.players):
            if p.is_bot:
                self.bot(i)

    def target_table(self, why: str, without: str):
        """The target table of the game's rules, built first when missing: the build is announced
        (what, about how big and how long; ``why`` the game wants it), and at a terminal the player
        may play now without it (``without`` says what that means): then ``None``.  Ctrl-C stops the
        build within a second or so (:class:`solver.core.threads.Workers`), nothing half-built kept."""
        from ..core.errors import MissingTableError
        from ..engine.target import build_estimate_text, get_target, load_target

        rules = self.game.rules
        try:
            return load_target(rules, self.tables_dir, light=True)
        except MissingTableError:
            pass
        self.say(f"the {rules.id} target table is not built yet: {why}.")
        self.say(
            f"Building it takes {build_estimate_text(rules)}, once (yahtzee tables build --rules "
            f"{rules.id} --target does the same; Ctrl-C stops it)."
        )
        if self.interactive:
            answer = self.read("build it now (b), or play now without it (p)? [b/p]> ")
            if answer.lower() not in ("b", "build", "y", "yes"):
                self.say(f"playing without it: {without}")
                return None
        self.say("building the target table ...")
        return get_target(rules, self.tables_dir, build_if_missing=True, light=True, progress=True)

    def intro(self) -> None:
        g = self.game
        info = g.info
        mode = info["mode"]
        words = {
            "solo": "solo game",
            "vs-computer": f"game against the computer ({info.get('level')})",
            "hot-seat": "hot-seat game for " + ", ".join(p.name for p in g.players),
            "daily": f"daily challenge {info.get('date')}",
        }
        dice = {"seeded": f"seed {info.get('seed')}", "real": "real dice", "daily": "the day's dice"}
        self.say(f"{g.rules.title} ({g.rules.id}): {words.get(mode, mode)}, {dice.get(info.get('dice'), '')}")
        if self.resumed:
            done = sum(t.is_complete for t in g.turns)
            self.say(f"resumed from {self.path}: {done} turn{'s' if done != 1 else ''} played")
        best = None
        if self.record_eligible():
            from ..play.records import solo_best

            try:
                best = solo_best(g.rules.id, self.data)
            except SolverError as exc:
                self.err.write(f"yahtzee: warning: {exc}\n")
        for line in session_rules.start_messages(g, self.earlier, best):
            self.say(line)
        if best and self.asked_target is None:  # a record to beat (the game may set one)
            self.set_target(best["score"] + 1, "beat your record", explicit=False)
        if self.is_solo() and self.asked_target is not None:
            self.set_target(self.asked_target, "reach the target", explicit=True)
        elif self.is_solo() and self.target is None and type(g.info.get("target")) is int:  # a resumed game
            goal = g.info.get("target_goal")
            self.set_target(g.info["target"], goal if isinstance(goal, str) else "reach it", explicit=False)

    def set_target(self, target: int, goal: str, *, explicit: bool) -> None:
        """Play with a target: P(reach it) on screen and its move in hints.  The target table is
        built now when asked for (``--target``); for the record it is used only when built."""
        from ..core.errors import MissingTableError
        from ..engine.target import load_target

        g = self.game
        if g.rules.triple:
            return  # no target tables for the triple card
        if explicit:
            table = self.target_table(
                f"--target {target} shows your chance of reaching it as you go, and the move that "
                "maximises it",
                "no chances shown, hints for the best expected score",
            )
            if table is None:
                return
        else:
            try:
                table = load_target(g.rules, self.tables_dir, light=True)
            except MissingTableError:  # the record's target: its chances only when the table is there
                self.say(
                    f"(build the target table to see your chances of doing it as you go: "
                    f"yahtzee tables build --rules {g.rules.id} --target)"
                )
                return
        if target - g.card.total > table.t_max:
            self.say(f"(the target table holds targets up to {table.t_max}: no chances shown for {target})")
            return
        from ..advice.advisor import TargetAdvisor

        self._target_advisor = TargetAdvisor(self.advisor, table)
        self.target, self.target_goal = target, goal
        g.info["target"], g.info["target_goal"] = target, goal

    def target_line(self) -> str | None:
        """``chance to beat your record (255): 23.4%`` at the start of a turn (solo with a target)."""
        if self._target_advisor is None or self.game.is_over:
            return None
        p = self._target_advisor.probability(self.game.card, self.target)
        return f"  chance to {self.target_goal} ({self.target}): {100 * p:.1f}%"

    # what the game counts for: the rules shared with the web app (solver.play.session)
    def is_solo(self) -> bool:
        return session_rules.is_solo(self.game)

    def record_eligible(self) -> bool:
        return session_rules.record_eligible(self.game)

    def keeps_daily(self) -> bool:
        return session_rules.keeps_daily(self.game)

    def mark_assisted(self, how: str) -> None:
        """A hint, the coach or an undo: the game no longer counts for the record (said once)."""
        if session_rules.mark_assisted(self.game, how):
            self.say(session_rules.assisted_message(how))

    # --- saving ---------------------------------------------------------------------------
    def save(self, status: str, daily_optimal: float | None = None) -> None:
        """Write the game file, then keep the game (and, once finished, its records) in the database,
        in one transaction; a database failure is a warning (the file is saved)."""
        from ..play.records import save_game, store_game

        save_game(self.game, self.path, status)
        if self._store_failed:
            return
        try:
            self.stored = store_game(
                self.game,
                self.path,
                status,
                self.data,
                solo_record=self.record_eligible(),
                daily_optimal=daily_optimal,
                daily_result=self.keeps_daily(),
            )
        except SolverError as exc:
            self._store_failed = True
            self.err.write(f"yahtzee: warning: {exc}\n")

    def autosave(self) -> None:
        if self._autosave_failed or self.game.is_over:
            return
        try:
            self.save("in_progress")
        except SolverError as exc:
            self._autosave_failed = True
            self.err.write(f"yahtzee: warning: {exc} (the game goes on)\n")

    # --- display --------------------------------------------------------------------------
    def header(self) -> None:
        g = self.game
        self.say("")
        self.say(f"--- {g.player.name}: turn {g.round} of {g.n_rounds} (total {g.card.total}) ---")
        line = self.target_line()
        if line is not None:
            self.say(line)

    def show_dice(self) -> None:
        g = self.game
        left = g.rolls_left
        self.say("  die    " + "  ".join(str(i) for i in range(1, 6)))
        self.say(
            "  face   "
            + "  ".join(self.style.held(str(d)) if h else str(d) for d, h in zip(g.dice, g.held, strict=True))
            + f"     {left} roll{'s' if left != 1 else ''} left"
        )
        if any(g.held):
            self.say("  held   " + "  ".join("^" if h else " " for h in g.held).rstrip())

    def show_card(self) -> None:
        g = self.game
        self.say(format_card(g.card, g.preview(), g.has_rolled, self.style))

    # --- a person's turn ---------------------------------------------------------------------
    def prompt(self) -> str:
        g = self.game
        if not g.has_rolled:
            what = "type the five dice" if g.needs_values else "r to roll"
        else:
            left = g.rolls_left
            what = f"{left} roll{'s' if left != 1 else ''} left" if left else "choose a box"
        who = f"{g.player.name}, " if len(g.players) > 1 else ""
        return f"{who}{what}> "

    def human_turn(self) -> None:
        g = self.game
        player, round_ = g.current, g.round
        self.header()
        if g.has_rolled:  # a resumed or undone turn: where it stood
            self.show_dice()
            self.show_card()
        while self.game is g and g.current == player and g.round == round_ and not g.is_over:
            line = self.read(self.prompt())
            try:
                self.command(line)
            except SolverError as exc:  # refused with the reason; the prompt repeats
                self.refuse(str(exc))

    def command(self, line: str) -> None:
        g = self.game
        if not line:  # Enter rolls (real dice need their values)
            if g.needs_values:
                raise IllegalMoveError("empty input: type the dice you rolled (help lists the commands)")
            if g.has_rolled and g.rolls_left == 0:
                raise IllegalMoveError("no rolls left: choose a box (s 9 or s full_house)")
            return self.cmd_roll([])
        word, *rest = line.split()
        word = word.lower()
        compact = line.replace(" ", "").replace(",", "")
        if g.needs_values and (word in ("r", "roll") or compact.isdecimal()):
            typed = "".join(rest) if word in ("r", "roll") else compact
            if typed.isdecimal() and len(typed) > 5:
                n = len(typed)
                raise IllegalMoveError(
                    f"that's {NUMBER_WORDS.get(n, n)} dice: type the {g.dice_to_roll or 5} dice rolled"
                )
        if g.needs_values and _looks_like_dice(line):
            return self.cmd_roll([line])
        if word in ("r", "roll"):
            return self.cmd_roll(rest)
        if word in ("h", "hold"):
            g.toggle_hold(_split_numbers(rest))
            return self.show_dice()
        if word in ("k", "keep"):
            if not rest:
                raise IllegalMoveError("say which faces to keep, e.g. k 3 3 5 (u releases all)")
            from ..core.dice import parse_faces

            g.keep_faces(parse_faces(" ".join(rest), allow_any_count=True))
            return self.show_dice()
        if word in ("u", "release", "unhold"):
            g.set_held([])
            return self.show_dice()
        if word in ("s", "score"):
            return self.cmd_score(rest)
        if word in ("hint", "?"):
            return self.cmd_hint()
        if word in ("card", "c"):
            if g.has_rolled:
                self.show_dice()
            return self.show_card()
        if word == "cards":
            return self.say(format_sheet(g, self.style))
        if word == "undo":
            return self.cmd_undo()
        if word == "help":
            self.say(HELP)
            if g.needs_values:
                self.say(HELP_REAL)
            return None
        if word in ("quit", "q", "exit"):
            raise _Quit
        if line.replace(" ", "").isdecimal():
            raise IllegalMoveError(f"{line!r}: to hold dice type h {line}, to score a box type s {line}")
        raise IllegalMoveError(f"unknown command {word!r} (help lists them)")

    def _decision(self, **kw):
        from ..play.game import Decision

        g = self.game
        return Decision(turn=len(g.turns), player=g.current, round=g.round, card=g.card, **kw)

    def cmd_roll(self, rest: list[str]) -> None:
        g = self.game
        values = None
        if g.needs_values:
            n = g.dice_to_roll
            if n == 0:
                raise IllegalMoveError("all five dice are held: release some to roll again, or choose a box")
            if not rest:
                raise IllegalMoveError(
                    f"type the {'five' if n == 5 else n} dice you rolled, e.g. r {'33456'[:n]}"
                )
            values = self._inferred_values(" ".join(rest)) or _real_values(" ".join(rest), n, g.held_faces)
        elif rest:
            raise IllegalMoveError(f"r takes no values (these dice come from the game): {' '.join(rest)!r}")
        keep = None
        if g.has_rolled:
            keep = self._decision(
                roll=g.rolls_used, dice=g.sorted_dice, rolls_left=g.rolls_left, keep=g.held_faces
            )
        g.roll(values)
        if keep is not None and self.coach:
            self.coach_say(keep)
        self.show_dice()
        self.show_card()

    def _inferred_values(self, text: str) -> tuple[int, ...] | None:
        """Real dice, nothing held, all five typed after a roll: the dice that stayed the same
        count as kept (held now), the others as rerolled; returns the rerolled values."""
        from ..core.dice import parse_faces

        g = self.game
        if not g.has_rolled or any(g.held):
            return None
        faces = parse_faces(text, allow_any_count=True)
        if len(faces) != 5:
            return None
        rest, same = list(faces), []
        for f in g.dice:
            if f in rest:
                rest.remove(f)
                same.append(f)
        if len(same) == 5:
            raise IllegalMoveError("the five dice are the ones already on the table: to stop, score a box")
        if same:
            g.set_held(g.positions_of(same))
            self.say(f"  kept {' '.join(map(str, sorted(same)))} (the dice that stayed the same)")
        return tuple(rest)

    def cmd_undo(self) -> None:
        new, last, costs_record = session_rules.undo(self.game)
        if costs_record:
            self.say(session_rules.assisted_message("undo"))
        self.game = new
        self.say(f"undone: {last.score} in {last.box}; back to turn {new.round}")

    def cmd_score(self, rest: list[str]) -> None:
        g = self.game
        if not rest:
            raise IllegalMoveError("say which box: s 9 or s full_house")
        name = g.box_name(" ".join(rest))
        if not g.has_rolled:
            raise IllegalMoveError("roll first: the first roll of a turn is mandatory")
        preview = g.preview()
        hinted = self.hinted == (len(g.turns), g.rolls_used, name)  # the hint's own move: not asked
        if self.interactive and preview.get(name) == 0 and any(preview.values()) and not hinted:
            answer = self.read(f"score 0 in {name}? these dice score points in another box (y/n)> ")
            if answer.lower() not in ("y", "yes"):
                return self.say("not scored: choose a box")
        card, dice, used, left = g.card, g.sorted_dice, g.rolls_used, g.rolls_left
        decisions = []
        if left > 0:
            decisions.append(self._decision(roll=used, dice=dice, rolls_left=left, keep=dice.values))
        decisions.append(self._decision(roll=used, dice=dice, rolls_left=0, box=name))
        turn = g.score(name)
        new_card = g.cards[turn.player]
        bonus = f" (+{turn.bonus} Yahtzee bonus)" if turn.bonus else ""
        self.say(
            f"{_verb(g.players[turn.player].name, 'scores')} {turn.score} in {name}{bonus}: total {new_card.total}"
        )
        if isinstance(new_card, ScoreCard) and new_card.upper_bonus and not card.upper_bonus:
            self.say(f"upper section reached {g.rules.upper_threshold}: +{g.rules.upper_bonus} bonus!")
        if self.coach:
            for d in decisions:
                self.coach_say(d)

    def coach_say(self, decision) -> None:
        from ..play.review import describe, judge

        j = judge(self.advisor, decision)
        mine = describe(j.chosen)
        if not j.is_mistake:
            self.say(f"  coach: {mine}: best move (0 points lost)")
        else:
            self.say(f"  coach: {mine} cost {j.loss:.2f} expected points; best: {j.best.describe()}")

    def cmd_hint(self) -> None:
        from ..core.position import Position

        g = self.game
        if not g.has_rolled:
            raise IllegalMoveError("roll first: nothing to decide before the first roll")
        if self.interactive and session_rules.record_eligible(g):  # asked once: a hint costs the record
            answer = self.read(
                "a hint means this game no longer counts for your record; hint anyway? (y/n)> "
            )
            if answer.lower() not in ("y", "yes"):
                return self.say("no hint: the game still counts for your record")
        advice = self.advisor.advise(Position(g.card, g.sorted_dice, g.rolls_left))
        self.mark_assisted("hint")
        rows = [(hint_text(o, g.rules), o) for o in advice.options[:3]]
        best = advice.options[0]
        box = best.box if best.keep is None else (best.stop_category if len(best.keep) == 5 else None)
        self.hinted = (len(g.turns), g.rolls_used, box) if box is not None else None
        width = max(len(t) for t, _ in rows)
        self.say(
            f"hint ({g.rolls_left} roll{'s' if g.rolls_left != 1 else ''} left): expected final score, loss"
        )
        for i, (text, o) in enumerate(rows, start=1):
            loss = "best" if o.best else f"-{o.regret:.2f}"
            self.say(f"  {i}. {text:<{width}}  {o.expected_final:7.2f}  {loss}")
        if self.advisor.note and not self.noted:  # once a game: what the advice is
            self.noted = True
            self.say(textwrap.fill(f"  ({self.advisor.note})", 80, subsequent_indent="   "))
        if self._target_advisor is not None:
            position = Position(g.card, g.sorted_dice, g.rolls_left)
            aimed = self._target_advisor.advise(position, self.target)
            top, ev_move = aimed.options[0], advice.options[0]
            same = (top.keep, top.category) == (ev_move.keep, ev_move.category)
            ev_p = next(
                o.p_target for o in aimed.options if (o.keep, o.category) == (ev_move.keep, ev_move.category)
            )
            if same:
                self.say(f"  to {self.target_goal}: the same move ({100 * top.p_target:.1f}%)")
            else:
                self.say(
                    f"  to {self.target_goal} ({self.target}): {hint_text(top, g.rules)}  "
                    f"{100 * top.p_target:.1f}% (the move above: {100 * ev_p:.1f}%)"
                )
        self.win_hint(advice)

    def win_hint(self, advice) -> None:
        """In a multi-player game: the move that maximises P(win), when it is not the expected-score move."""
        g = self.game
        if len(g.players) < 2 or g.rules.order == "choose":
            return
        bot = self.win_bot()
        if bot is None:
            return
        others = [g.cards[(g.current + k) % len(g.cards)] for k in range(1, len(g.cards))]
        win = bot.win.advise(advice.position, others)
        ev_best = advice.options[0]
        top = win.options[0]
        if top.best and any(o.best and _same_option(o, ev_best) for o in win.options):
            return  # the expected-score move is also a best move to win
        p_ev = next(o.p_win for o in win.options if _same_option(o, ev_best))
        self.say(
            f"  to win: {hint_text(top, g.rules)} -- P(win) {100 * top.p_win:.1f}% "
            f"(the expected-score move: {100 * p_ev:.1f}%)"
        )

    # --- the computer's turn ----------------------------------------------------------------------
    def bot_turn(self) -> None:
        from ..play.game import play_bot_turn

        g = self.game
        self.header()
        index = g.current
        turn = play_bot_turn(g, self.bot(index), self.rng)
        self.say(describe_bot_turn(turn))
        bonus = f" (+{turn.bonus} Yahtzee bonus)" if turn.bonus else ""
        self.say(
            f"  {g.players[index].name} scores {turn.score} in {turn.box}{bonus}: total {g.cards[index].total}"
        )

    # --- the end ---------------------------------------------------------------------------------
    def finish(self) -> None:
        g = self.game
        self.say("")
        self.say("=== game over ===")
        width = max(len(p.name) for p in g.players)
        for name, total in g.totals():
            self.say(f"  {name:<{width}}  {total:>4}")
        winners = g.winners()
        if len(g.players) > 1:
            if len(winners) == 1:
                self.say(f"{_verb(winners[0], 'wins')}!")
            else:
                self.say(f"tie: {' and '.join(winners)} share the win with {max(t for _, t in g.totals())}")
            self.say(format_sheet(g, self.style))
        else:
            self.say(format_card(g.cards[0], {}, False, self.style))
        if self.is_solo():
            self.report_record()
        if g.info.get("mode") == "daily":
            self.daily_summary()
        elif g.rules.triple:
            self.compare_on_same_dice()
        self.say(f"game saved to {self.path}")
        self.say(f"review it with: yahtzee review {self.path}")

    def report_record(self) -> None:
        message = session_rules.record_message(self.game, self.stored)
        if message is not None:
            self.say(message)

    def daily_optimal(self) -> int:
        """The optimal player's score on the day's dice (computed once)."""
        if self._daily_optimal is None:
            from ..play.daily import optimal_game

            g = self.game
            game = optimal_game(g.info["date"], g.rules, self.tables_dir, bot=self.optimal_bot())
            self._daily_optimal = game.cards[0].total
        return self._daily_optimal

    def daily_summary(self) -> None:
        from ..play.daily import share_text

        g = self.game
        date = g.info["date"]
        optimal = self.daily_optimal()
        self.say("")
        self.say("--- to share ---")
        for p, card in zip(g.players, g.cards, strict=True):
            if not p.is_bot:
                notes = ["replay"] if g.info.get("replay") else []
                notes += [f"assisted: {', '.join(g.info['assisted'])}"] if g.info.get("assisted") else []
                self.say(share_text(date, g.rules, p.name, card, optimal, notes))
                self.say("")

    def compare_on_same_dice(self) -> None:
        """The end of a triple game: what the triple player (the best-known) scores on each
        person's dice, roll by roll the same (a daily says it in its summary; real dice cannot)."""
        from ..play.daily import best_bot_name
        from ..play.game import same_dice_game

        g = self.game
        name = best_bot_name(g.rules)
        for i, p in enumerate(g.players):
            if p.is_bot:
                continue
            other = same_dice_game(g, i, self.optimal_bot(), name)
            if other is None:
                return  # real dice: no stream to replay
            mine, best = g.cards[i].total, other.cards[0].total
            whose = "your" if p.name == HUMAN else f"{p.name}'s"
            self.say(
                f"the {name} player (best-known) scored {best} on {whose} dice: "
                f"{p.name} {mine} ({mine - best:+d})"
            )

    def optimal_bot(self):
        """The best player of the rule set (the optimal one; the triple player on the triple card):
        the game's own computer when it is that player."""
        from ..play.daily import best_bot_name, optimal_bot

        for i, p in enumerate(self.game.players):
            if p.bot == best_bot_name(self.game.rules):
                return self.bot(i)
        if self._best_bot is None:
            self._best_bot = optimal_bot(self.game.rules, self.tables_dir)
        return self._best_bot


def _same_option(a, b) -> bool:
    return (a.keep, a.category) == (b.keep, b.category)


def format_card(card, preview: dict[str, int], rolled: bool, style: Style | None = None) -> str:
    """The card in two columns (upper | lower), boxes numbered in card order.

    Filled boxes show their score; open boxes show ``(n)``, what the dice would
    score there now, or ``x`` where the Joker rule (or forced order) forbids them.
    With an upper bonus, ``upper pace`` says how far the upper boxes filled so far
    are above (``+3``) or below par, three of each face (which makes 63).
    On a colour terminal (``style``) filled boxes are bold, previews dim.  The triple
    card shows its three weighted columns (:meth:`TripleCard.format`).
    """
    if isinstance(card, TripleCard):
        return card.format(preview if rolled else None)
    rules = card.rules
    style = style or Style(False)

    def cell(i: int) -> str:
        name, score = rules.box_names[i], card.scores[i]
        if score is not None:
            value = f"{score} "
            return f"{i + 1:>2} {name:<16}" + style.filled(f"{value:>6}")
        elif not rolled:
            value = "."
        elif name in preview:
            value = f"({preview[name]})"
            return f"{i + 1:>2} {name:<16}" + style.preview(f"{value:>6}")
        else:
            value = "x"
        return f"{i + 1:>2} {name:<16}{value:>6}"

    def line(label: str, value) -> str:
        return f"   {label:<16}{value!s:>6}"

    left = [cell(i) for i in rules.upper_indices]
    if rules.has_upper_bonus:
        left += [
            line("upper total", f"{card.upper_total}/{rules.upper_threshold}"),
            line("upper bonus", card.upper_bonus),
        ]
        pace = upper_pace(card)
        if pace is not None and not card.upper_bonus:
            text = f"{pace:+d}" if pace else "par"
            left.append(f"   {'upper pace':<16}" + style.pace(f"{text:>6}", pace))
    elif rules.upper_indices:
        left.append(line("upper total", card.upper_total))
    right = [cell(i) for i in rules.lower_indices]
    if rules.bonus:
        right.append(
            line("yahtzee bonus" if rules.joker != "none" else "extra bonus", card.yahtzee_bonus_points)
        )
    right.append(line("total", card.total))
    width = max((visible_len(s) for s in left), default=0)  # a card may have no upper rows
    out = [
        f"  {a}{' ' * (width - visible_len(a))}   | {b}".rstrip()
        for a, b in zip_longest(left, right, fillvalue="")
    ]
    if rolled and any(
        s is None and n not in preview for n, s in zip(rules.box_names, card.scores, strict=True)
    ):
        out.append(
            "  x = not allowed for these dice ("
            + ("fill order" if rules.forced_order else "Joker rule")
            + ")"
        )
    return "\n".join(out)


def _verb(name: str, verb: str) -> str:
    """``You score`` but ``Ann scores``."""
    return f"{name} {verb[:-1] if name == HUMAN else verb}"


def _split_numbers(tokens: list[str]) -> list[str]:
    """``["1", "3"]``, ``["1,3"]`` and ``["13"]`` all mean dice 1 and 3."""
    out: list[str] = []
    for t in tokens:
        parts = [p for p in t.replace(",", " ").split() if p]
        for p in parts:
            out.extend(list(p) if p.isdecimal() and len(p) > 1 else [p])
    return out


def _looks_like_dice(line: str) -> bool:
    compact = line.replace(" ", "").replace(",", "")
    return compact.isdecimal() and 1 <= len(compact) <= 5


def _real_values(text: str, n: int, held_faces: tuple[int, ...]) -> tuple[int, ...]:
    """The values of the rerolled dice from what the player typed: the ``n`` new dice, or all five on the table."""
    from ..core.dice import is_sub_multiset, parse_faces

    faces = parse_faces(text, allow_any_count=True)
    if len(faces) == n:
        return faces
    if len(faces) == 5 and n < 5:
        if not is_sub_multiset(held_faces, faces):
            raise IllegalMoveError(
                f"you hold {' '.join(map(str, held_faces))}, but the five dice typed ({text.strip()}) do not include them"
            )
        rest = list(faces)
        for f in held_faces:
            rest.remove(f)
        return tuple(rest)
    want = "five dice" if n == 5 else f"the {n} rerolled dice (or all five on the table)"
    raise IllegalMoveError(f"type {want}; got {len(faces)}: {text.strip()!r}")


def hint_text(option, rules) -> str:
    """A hint option in words with the command that plays it: absolute, so that following it
    never depends on what is held already (``k 2 2 2 2``, ``u`` then ``r``, ``s 10``)."""
    if option.keep is None:  # on a card of columns the box by name and column (fours@3)
        command = option.box if option.column is not None else rules.box_names.index(option.category) + 1
        return f"{option.describe()} [s {command}]"
    if len(option.keep) == 5:
        if option.stop_category is None:
            return "stop and score"
        # on a card of columns the box as it names it (fours@3), on one card its number
        n = option.stop_category if rules.triple else rules.box_names.index(option.stop_category) + 1
        return f"stop: score {option.stop_score} in {option.stop_category} [s {n}]"
    if not option.keep:
        return "reroll all five dice [u, r]"
    return f"{option.describe()} [k {' '.join(map(str, option.keep))}]"


def upper_pace(card) -> int | None:
    """The upper total against par (three of each face filled so far); ``None`` before any upper box."""
    rules = card.rules
    filled = [i for i in rules.upper_indices if card.scores[i] is not None]
    if not filled:
        return None
    faces = {name: f for f, name in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)}
    par = sum(3 * faces.get(rules.box_names[i], 0) for i in filled)
    return sum(card.scores[i] for i in filled) - par


def format_sheet(game, style: Style | None = None) -> str:
    """Every player's card side by side (box rows, one column per player), within 80 columns."""
    style = style or Style(False)
    rules = game.rules
    n = len(game.players)
    if rules.triple:
        return format_column_sheet(game)
    col = max(5, min(12, (80 - 2 - 17) // max(n, 1) - 1))
    names = [p.name if len(p.name) <= col else p.name[: col - 1] + "~" for p in game.players]
    lines = ["  " + " " * 17 + " ".join(f"{nm:>{col}}" for nm in names)]

    def row(label: str, values) -> str:
        return f"  {label[:17]:<17}" + " ".join(f"{v!s:>{col}}" for v in values)

    for i, box in enumerate(rules.box_names):
        if i == len(rules.upper_indices) and rules.upper_indices:
            if rules.has_upper_bonus:
                lines.append(row("upper bonus", [c.upper_bonus for c in game.cards]))
        lines.append(row(box, ["-" if c.scores[i] is None else c.scores[i] for c in game.cards]))
    if rules.bonus:
        lines.append(row("yahtzee bonus", [c.yahtzee_bonus_points for c in game.cards]))
    lines.append(row("total", [c.total for c in game.cards]))
    return "\n".join(lines)


def format_column_sheet(game) -> str:
    """Every player's columns (weighted totals) and total side by side: the triple card's sheet
    (each card's boxes: ``card`` in the game)."""
    col = max(5, min(12, (80 - 2 - 17) // max(len(game.players), 1) - 1))
    names = [p.name if len(p.name) <= col else p.name[: col - 1] + "~" for p in game.players]
    lines = ["  " + " " * 17 + " ".join(f"{nm:>{col}}" for nm in names)]
    for c, w in enumerate(game.rules.weights):
        values = [
            f"{card.column_totals[c]} ({card.columns[c].n_filled}/{game.rules.single.n_boxes})"
            for card in game.cards
        ]
        lines.append(f"  {f'column {c + 1} x{w}':<17}" + " ".join(f"{v:>{col}}" for v in values))
    lines.append(f"  {'total':<17}" + " ".join(f"{card.total:>{col}}" for card in game.cards))
    return "\n".join(lines)


class Style:
    """ANSI colours for a colour terminal; plain text otherwise (pipes, ``NO_COLOR``, ``TERM=dumb``)."""

    def __init__(self, enabled: bool):
        self.enabled = bool(enabled)

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def filled(self, text: str) -> str:
        return self._wrap("1", text)

    def preview(self, text: str) -> str:
        return self._wrap("36", text)

    def held(self, text: str) -> str:
        return self._wrap("1;7", text)

    def pace(self, text: str, pace: int) -> str:
        return self._wrap("32" if pace >= 0 else "31", text)


def _color_wanted(out) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError):
        return False


_READLINE = False


def _enable_readline() -> None:
    """Line editing and history for input() where the readline module exists (not on Windows)."""
    global _READLINE
    if not _READLINE:
        _READLINE = True
        try:
            import readline  # noqa: F401 - importing it is what turns line editing on
        except ImportError:
            pass

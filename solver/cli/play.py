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
from pathlib import Path

from ..core.errors import IllegalMoveError, SolverError, UsageError
from ..core.streams import MAX_SEED
from ..core.text import clip, pad
from ..play import events as ev
from ..play import session as session_rules
from ..play import words
from ..play.session import HUMAN, LEVELS, ComputerTurnError
from . import add_data, add_rules, add_tables, add_target, fit, visible_len, whole
from .remedy import build_command
from .sheets import Style, format_card, format_sheet

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
        f"(default: your record + 1, when the target table is built: {build_command(target=True)})",
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
    from ..play.records import new_game_path
    from ..play.session import GameTables, Session

    if args.resume is not None:
        return resume_play(args)
    rules = get_rules(args.rules)
    levels = session_rules.levels(rules)
    if args.level is not None and args.level not in levels:
        raise UsageError(f"--level {args.level}: {session_rules.no_such_level(rules, args.level)}")
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
    earlier = _earlier_play(mode, rules.id, args.seed, date, args.data)
    if earlier is not None:
        info["replay"] = True
    game = Game.new(rules, players, seed=args.seed, date=date, real_dice=args.real_dice, info=info)
    if args.coach:
        game.info = game.info.replace(coach=True)
        session_rules.mark_assisted(game, "coach")
    # cmd: players come from this command line (a resumed game runs none)
    tables = GameTables(args.tables, programs=True)
    session = Session(game, new_game_path(game, args.data), tables, data=args.data, earlier=earlier)
    try:
        session.name_programs()  # seated under the names they give themselves
        return Terminal(session, asked_target=args.target).run()
    finally:
        session.close()


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
    from ..play.session import GameTables, Session

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
    session = Session(game, Path(path), GameTables(args.tables), data=args.data, resumed=True)
    try:
        return Terminal(session).run()
    finally:
        session.close()


class _Quit(Exception):
    pass


class Terminal:
    """The game at a terminal: reads lines, turns them into the :class:`~solver.play.session.Session`'s
    commands, and prints the events it answers (the dice, the card, the computer's turn, ...).
    The game's flow, its saving and its records are the session's."""

    def __init__(self, session, *, asked_target=None, inp=None, out=None, err=None, color=None):
        self.session = session
        self.asked_target = asked_target  # --target
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
        self.hinted = None  # (turn, roll, box) of the last hint's best box: scoring it asks nothing
        self.win_estimate: str | None = None  # how long the win level's background build takes, in words

    @property
    def game(self):
        return self.session.game

    # --- input and output ----------------------------------------------------------------
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

    # --- the game loop -----------------------------------------------------------------------
    def run(self) -> int:
        s = self.session
        try:
            self.show(s.open())
            self.choose_aim()
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
            return self.play()
        finally:
            if s.win_pending:  # the game's end ends the build (close() stops it)
                self.say(
                    "the target table was still being built: it stops with the game "
                    f"({build_command(g.rules, target=True)} builds it once)"
                )

    def play(self) -> int:
        """The game from its first turn to its end (or a stop): the exit status."""
        s = self.session
        try:
            self.show(s.begin())
            while not self.game.is_over:
                line = self.read(self.prompt())
                try:
                    self.command(line)
                except ComputerTurnError:
                    raise
                except SolverError as exc:  # refused with the reason; the prompt repeats
                    self.refuse(_with_build_command(exc))
        except _Quit:
            saved = self.abandon()
            if saved is None:
                self.say("game stopped: nothing was played, nothing saved")
            else:
                self.say(self.stopped_line())
            return 0
        except EOFError:
            saved = self.abandon()
            self.say("end of input: " + ("nothing saved" if saved is None else self.stopped_line()))
            return 1
        except KeyboardInterrupt:
            saved = self.abandon()
            self.err.write(f"\ninterrupted: {'nothing saved' if saved is None else self.stopped_line()}\n")
            raise
        except BaseException as error:
            # Anything unexpected: keep the game, then let the error through.
            try:
                saved = self.abandon()
            except Exception as exc:  # noqa: BLE001 - the original error matters more
                self.err.write(f"yahtzee: could not save the game: {exc}\n")
            else:
                if saved is not None and isinstance(error, SolverError):  # its one line says so
                    error.args = (f"{error}; {self.stopped_line()}",)
                elif saved is not None:
                    self.err.write(self.stopped_line() + "\n")
            raise
        return 0

    def in_games(self) -> bool:
        """Whether the game's file is in the data folder's games (not a file resumed from elsewhere)."""
        from ..play.records import games_dir

        s = self.session
        if not s.resumed or s.path is None:
            return True
        try:
            folder = os.path.realpath(games_dir(s.data))
            return os.path.commonpath([os.path.realpath(s.path), folder]) == folder
        except ValueError:  # another drive
            return False

    def where(self) -> str:
        """Where the game's file is, in words (a path is 90-160 characters: it would wrap)."""
        if not self.in_games():
            return "back to the file it came from"
        return "with your games" if self.session.data is None else "in --data"

    def data_option(self) -> str:
        return "" if self.session.data is None else " --data DIR"

    def resume_command(self) -> str:
        if not self.in_games():
            return "yahtzee play --resume FILE"
        return f"yahtzee play --resume{self.data_option()}"

    def stopped_line(self) -> str:
        """The game stopped before its end, saved: where, and how to go on with it."""
        go_on = "goes on with it" if self.session.data is None else "goes on"
        return f"game stopped and saved {self.where()} ({self.resume_command()} {go_on})"

    def abandon(self) -> str | None:
        """The game saved as abandoned: the file (``None``: nothing was played)."""
        events = self.session.abandon()
        self.show(events)
        return next(e.saved for e in events if isinstance(e, ev.Abandoned))

    def not_started(self) -> str:
        """What stopping before the first turn leaves: no game file, no row in the database (a
        resumed game's file as it was)."""
        if self.session.resumed:
            return "the game did not go on; its file is as it was"
        return "the game had not started: nothing saved"

    def prepare(self) -> None:
        """Before the first turn (nothing saved yet): the tables the game needs, built now with
        their progress bar, not in the middle of a turn.  A computer playing to win needs the
        target table: at a terminal the game starts at once and the table is built in the
        background (the computer plays for expected score until it is ready, then to win:
        :meth:`Session.play_win_later`); piped input waits for it (a script's game is then the
        same for the same seed and moves)."""
        s = self.session
        if s.wants_target_table:
            later = s.tables.win_later(self.game.rules) if self.interactive else None
            if later is not None:
                from ..engine.target import build_estimate_text

                self.win_estimate = build_estimate_text(self.game.rules)
                self.show(s.play_win_later(later))
            else:
                self.target_table("the computer playing to win plays by it", "")
        # the daily's target needs the table: read (built) before the game -- six dice's is never
        # built for a game, and the day is summed up without the target when it is missing
        daily = self.game.info.mode == "daily" and self.game.rules.n_dice == 5
        if s.coach or daily or self.interactive:
            _ = s.advisor
        s.prepare()

    def target_table(self, why: str, without: str):
        """The target table of the game's rules, built first when missing: the build is announced
        (what, about how big and how long; ``why`` the game wants it), and at a terminal the player
        may play now without it (``without`` says what that means): then ``None``.  Ctrl-C stops the
        build within a second or so (:class:`solver.core.threads.Workers`), nothing half-built kept."""
        from ..core.errors import MissingTableError
        from ..engine.target import build_estimate_text, get_target, load_target

        rules, tables_dir = self.game.rules, self.session.tables.tables_dir
        try:
            return load_target(rules, tables_dir, light=True)
        except MissingTableError:
            pass
        self.say(f"the {rules.id} target table is not built yet: {why}.")
        self.say(
            f"Building it takes {build_estimate_text(rules)}, once ({build_command(rules, target=True)} "
            "does the same; Ctrl-C stops it)."
        )
        if self.interactive:
            answer = self.read("build it now (b), or play now without it (p)? [b/p]> ")
            if answer.lower() not in ("b", "build", "y", "yes"):
                self.say(f"playing without it: {without}")
                return None
        self.say("building the target table ...")
        return get_target(rules, tables_dir, build_if_missing=True, light=True, progress=True)

    def choose_aim(self) -> None:
        """Solo: play for a target -- the one asked (``--target``, its table built now when
        missing), else the record + 1 or a resumed game's target (when the table is built)."""
        s, g = self.session, self.game
        if g.rules.triple or not s.is_solo:
            return
        best = s.record_to_beat
        if best is not None and self.asked_target is None:
            self.set_aim(best + 1, "beat your record", explicit=False)
        if self.asked_target is not None:
            self.set_aim(self.asked_target, "reach the target", explicit=True)
        elif s.aim is None and g.info.target is not None:  # a resumed game
            goal = g.info.target_goal
            self.set_aim(g.info.target, goal if isinstance(goal, str) else "reach it", explicit=False)

    def set_aim(self, target: int, goal: str, *, explicit: bool) -> None:
        from ..core.errors import MissingTableError
        from ..engine.target import load_target

        rules = self.game.rules
        if explicit:
            table = self.target_table(
                f"--target {target} shows your chance of reaching it as you go, and the move that maximises it",
                "no chances shown, hints for the best expected score",
            )
            if table is None:
                return
        else:
            try:
                table = load_target(rules, self.session.tables.tables_dir, light=True)
            except MissingTableError:  # the record's target: its chances only when the table is there
                table = None
        self.show(self.session.set_aim(target, goal, table))

    # --- display -----------------------------------------------------------------------------
    def show(self, events) -> None:
        """Print what happened (the coach's verdicts on one command: one line)."""
        events = list(events)
        for i, e in enumerate(events):
            if isinstance(e, ev.Judged):
                if i + 1 < len(events) and isinstance(events[i + 1], ev.Judged):
                    continue  # said with the verdict after it
                run = [e]
                while i - len(run) >= 0 and isinstance(events[i - len(run)], ev.Judged):
                    run.insert(0, events[i - len(run)])
                self.say("  " + words.coach_line(run))
                continue
            render = getattr(self, f"on_{e.kind}", None)
            if render is not None:
                render(e)

    def on_opened(self, e: ev.Opened) -> None:
        words = {
            "solo": "solo game",
            "vs-computer": f"game against the computer ({e.level})",
            "hot-seat": "hot-seat game for " + ", ".join(e.players),
            "daily": f"daily challenge {e.date}",
        }
        dice = {"seeded": f"seed {e.seed}", "real": "real dice", "daily": "the day's dice"}
        self.say(f"{e.title} ({e.rules}): {words.get(e.mode, e.mode)}, {dice.get(e.dice, '')}")
        if e.resumed_turns is not None:
            n = e.resumed_turns
            self.say(f"game resumed where it stopped: {n} turn{'s' if n != 1 else ''} played")

    def on_win_pending(self, e: ev.WinPending) -> None:
        self.say(
            f"the {e.rules} target table is not built yet: it is being built in the background "
            f"({self.win_estimate or 'minutes'}; {build_command(self.game.rules, target=True)} "
            "does the same, once)."
        )
        self.say(words.win_pending_line(e) + ".")

    def on_plays_to_win(self, e: ev.PlaysToWin) -> None:
        self.say(words.plays_to_win_line(e))

    def on_replay(self, e: ev.Replay) -> None:
        self.say(words.replay_line(e))

    def on_assisted(self, e: ev.Assisted) -> None:
        self.say(words.assisted_line(e))

    def on_record_to_beat(self, e: ev.RecordToBeat) -> None:
        self.say(words.record_to_beat_line(e))

    def on_warned(self, e: ev.Warned) -> None:
        self.err.write(f"yahtzee: warning: {e.text}\n")

    def on_aim(self, e: ev.Aim) -> None:
        if e.problem == "no-table":
            self.say(
                "(build the target table to see your chances of doing it as you go: "
                f"{build_command(self.game.rules, target=True)})"
            )
        elif e.problem == "beyond-table":
            self.say(f"(the target table holds targets up to {e.t_max}: no chances shown for {e.target})")

    def on_turn_started(self, e: ev.TurnStarted) -> None:
        self.say("")
        self.say(f"--- {e.name}: turn {e.round} of {e.n_rounds} (total {e.total}) ---")
        if e.p_target is not None:
            self.say(f"  chance to {e.goal} ({e.target}): {100 * e.p_target:.1f}%")
        g = self.game
        if (
            not e.is_bot and g.has_rolled and g.current == e.player
        ):  # a resumed or undone turn: where it stood
            self.show_dice()
            self.show_card()

    def on_rolled(self, e: ev.Rolled) -> None:
        if e.is_bot:
            self.say(words.bot_roll_line(e))
            return
        if e.inferred:
            self.say(f"  kept {' '.join(map(str, e.kept))} (the dice that stayed the same)")
        self.show_dice()
        self.show_card()

    def on_held(self, e: ev.Held) -> None:
        self.show_dice()

    def on_scored(self, e: ev.Scored) -> None:
        if e.is_bot:
            if e.stopped:
                self.say("  stops")
            self.say(f"  {words.scored_line(e)}")
            return
        self.say(words.scored_line(e))
        if e.upper_bonus:
            self.say(words.upper_bonus_line(e))

    def on_undone(self, e: ev.Undone) -> None:
        self.say(words.undone_line(e))

    def on_chances(self, e: ev.Chances) -> None:
        self.say("  " + words.chances_line(e))

    def on_round_over(self, e: ev.RoundOver) -> None:
        self.say("")
        if e.with_bots:  # the computer's turn stays on screen
            totals = " | ".join(f"{name} {total}" for name, total in e.totals)
            self.say(f"after round {e.round}: {totals}   (cards: the whole sheet)")
        else:
            self.say(format_sheet(self.game, self.style))

    def on_hinted(self, e: ev.Hinted) -> None:
        g = self.game
        options = e.advice.options
        rows = [(hint_text(o, g.rules), o) for o in options[:3]]
        best = options[0]
        box = best.box if best.keep is None else (best.stop_category if len(best.keep) == g.n_dice else None)
        self.hinted = (len(g.turns), g.rolls_used, box) if box is not None else None
        width = max(len(t) for t, _ in rows)
        self.say(
            f"hint ({g.rolls_left} roll{'s' if g.rolls_left != 1 else ''} left): expected final score, loss"
        )
        for i, (text, o) in enumerate(rows, start=1):
            loss = "best" if o.best else f"-{o.regret:.2f}"
            self.say(f"  {i}. {text:<{width}}  {o.expected_final:7.2f}  {loss}")
        if e.note:  # once a game: what the advice is
            self.say(textwrap.fill(f"  ({e.note})", 80, subsequent_indent="   "))
        for a in e.aimed:
            if a.objective == "target" and a.same:
                self.say(f"  to {a.goal}: the same move ({100 * a.p:.1f}%)")
            elif a.objective == "target":
                self.say(
                    f"  to {a.goal} ({a.target}): {hint_text(a.option, g.rules)}  "
                    f"{100 * a.p:.1f}% (the move above: {100 * a.p_ev:.1f}%)"
                )
            elif not a.same:
                self.say(
                    f"  to win: {hint_text(a.option, g.rules)} -- P(win) {100 * a.p:.1f}% "
                    f"(the expected-score move: {100 * a.p_ev:.1f}%)"
                )

    def on_game_over(self, e: ev.GameOver) -> None:
        g = self.game
        self.say("")
        self.say("=== game over ===")
        width = max(visible_len(name) for name, _ in e.totals)
        for name, total in e.totals:
            self.say(f"  {pad(name, width)}  {total:>4}")
        if len(e.totals) > 1:
            self.say(words.winner_line(e))
            self.say(format_sheet(g, self.style))
        else:
            self.say(format_card(g.cards[0], {}, False, self.style))
        if e.record is not None:
            self.say(words.record_line(e.record))
        if e.shares:
            self.say("")
            self.say("--- to share ---")
            for _, text in e.shares:
                self.say(text)
                self.say("")
        for same in e.same_dice:
            self.say(words.same_dice_line(same))
        if e.path is not None:
            self.say(f"game saved {self.where()}; review it: yahtzee review --last{self.data_option()}")

    def show_dice(self) -> None:
        g = self.game
        left = g.rolls_left
        self.say("  die    " + "  ".join(str(i) for i in range(1, g.n_dice + 1)))
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

    # --- a person's commands -------------------------------------------------------------------
    def prompt(self) -> str:
        g = self.game
        if not g.has_rolled:
            what = f"type the {g.dice_word} dice" if g.needs_values else "r to roll"
        else:
            left = g.rolls_left
            what = f"{left} roll{'s' if left != 1 else ''} left" if left else "choose a box"
        who = (
            f"{clip(g.player.name, 24)}, " if len(g.players) > 1 else ""
        )  # a long name: the prompt stays short
        return f"{who}{what}> "

    def command(self, line: str) -> None:
        g, s = self.game, self.session
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
            if typed.isdecimal() and len(typed) > g.n_dice:
                n = len(typed)
                raise IllegalMoveError(
                    f"that's {NUMBER_WORDS.get(n, n)} dice: type the {g.dice_to_roll or g.n_dice} dice rolled"
                )
        if g.needs_values and _looks_like_dice(line, g.n_dice):
            return self.cmd_roll([line])
        if word in ("r", "roll"):
            return self.cmd_roll(rest)
        if word in ("h", "hold"):
            return self.show(s.hold(_split_numbers(rest), toggle=True))
        if word in ("k", "keep"):
            if not rest:
                raise IllegalMoveError("say which faces to keep, e.g. k 3 3 5 (u releases all)")
            from ..core.dice import parse_faces

            return self.show(s.keep(parse_faces(" ".join(rest), allow_any_count=True)))
        if word in ("u", "release", "unhold"):
            return self.show(s.hold([]))
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

    def cmd_roll(self, rest: list[str]) -> None:
        g = self.game
        if not g.needs_values:
            if rest:
                raise IllegalMoveError(
                    f"r takes no values (these dice come from the game): {' '.join(rest)!r}"
                )
            return self.show(self.session.roll())
        from ..core.dice import parse_faces

        n = g.dice_to_roll
        if n == 0:
            raise IllegalMoveError(
                f"all {g.dice_word} dice are held: release some to roll again, or choose a box"
            )
        if not rest:
            raise IllegalMoveError(
                f"type the {g.dice_word if n == g.n_dice else n} dice you rolled, e.g. r {'334566'[:n]}"
            )
        text = " ".join(rest)
        if g.has_rolled and not any(g.held):
            faces = parse_faces(text, allow_any_count=True)
            if len(faces) == g.n_dice:  # all of them typed: the dice that stayed the same count as kept
                return self.show(self.session.roll(faces, whole_table=True))
        return self.show(self.session.roll(_real_values(text, n, g.held_faces, g.n_dice)))

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
        self.show(self.session.score(name))

    def cmd_undo(self) -> None:
        if self.interactive and self.session.undo_costs_record:  # asked once: an undo costs the record
            answer = self.read(
                "an undo means this game no longer counts for your record; undo anyway? (y/n)> "
            )
            if answer.lower() not in ("y", "yes"):
                return self.say("not undone: the game still counts for your record")
        self.show(self.session.undo())

    def cmd_hint(self) -> None:
        g = self.game
        if not g.has_rolled:
            raise IllegalMoveError("roll first: nothing to decide before the first roll")
        if self.interactive and self.session.hint_costs_record:  # asked once: a hint costs the record
            answer = self.read(
                "a hint means this game no longer counts for your record; hint anyway? (y/n)> "
            )
            if answer.lower() not in ("y", "yes"):
                return self.say("no hint: the game still counts for your record")
        self.show(self.session.hint())


def _split_numbers(tokens: list[str]) -> list[str]:
    """``["1", "3"]``, ``["1,3"]`` and ``["13"]`` all mean dice 1 and 3."""
    out: list[str] = []
    for t in tokens:
        parts = [p for p in t.replace(",", " ").split() if p]
        for p in parts:
            out.extend(list(p) if p.isdecimal() and len(p) > 1 else [p])
    return out


def _with_build_command(exc) -> str:
    """An error's line; a missing table's names its build (a game never builds six dice's)."""
    from ..core.errors import MissingTableError
    from .remedy import build_command

    if isinstance(exc, MissingTableError) and exc.kind == "values":
        return f"{exc.detail}; build it (minutes for six dice): {build_command(exc.rules, folder=exc.folder)}"
    return str(exc)


def _looks_like_dice(line: str, n_dice: int = 5) -> bool:
    compact = line.replace(" ", "").replace(",", "")
    return compact.isdecimal() and 1 <= len(compact) <= n_dice


def _real_values(text: str, n: int, held_faces: tuple[int, ...], n_dice: int = 5) -> tuple[int, ...]:
    """The values of the rerolled dice from what the player typed: the ``n`` new dice, or all
    ``n_dice`` on the table."""
    from ..core.dice import is_sub_multiset, parse_faces

    faces = parse_faces(text, allow_any_count=True)
    if len(faces) == n:
        return faces
    if len(faces) == n_dice and n < n_dice:
        if not is_sub_multiset(held_faces, faces):
            raise IllegalMoveError(
                f"you hold {' '.join(map(str, held_faces))}, but the {n_dice} dice typed ({text.strip()}) do not include them"
            )
        rest = list(faces)
        for f in held_faces:
            rest.remove(f)
        return tuple(rest)
    whole = "six" if n_dice == 6 else "five"
    want = f"{whole} dice" if n == n_dice else f"the {n} rerolled dice (or all {whole} on the table)"
    raise IllegalMoveError(f"type {want}; got {len(faces)}: {text.strip()!r}")


def hint_text(option, rules) -> str:
    """A hint option in words with the command that plays it: absolute, so that following it
    never depends on what is held already (``k 2 2 2 2``, ``u`` then ``r``, ``s 10``)."""
    if option.keep is None and option.column is not None:  # the box by name and column (fours@3)
        bonus = f" (+{option.bonus} Yahtzee bonus)" if option.bonus else ""
        weighted = option.weight * (option.score + option.bonus)
        return f"score {option.score} in {option.box}{bonus}, x{option.weight} = {weighted} [s {option.box}]"
    if option.keep is None:
        return f"{option.describe()} [s {rules.box_names.index(option.category) + 1}]"
    if len(option.keep) == rules.n_dice:
        if option.stop_category is None:
            return "stop and score"
        if rules.triple:  # the box as the card names it (fours@3), with what it weighs there
            box, points = option.stop_category, option.stop_score
            weight = rules.weights[int(box.rpartition("@")[2]) - 1]
            return f"stop: score {points} in {box}, x{weight} = {weight * points} [s {box}]"
        n = rules.box_names.index(option.stop_category) + 1
        return f"stop: score {option.stop_score} in {option.stop_category} [s {n}]"
    if not option.keep:
        return f"reroll all {'six' if rules.n_dice == 6 else 'five'} dice [u, r]"
    return f"{option.describe()} [k {' '.join(map(str, option.keep))}]"


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

"""``yahtzee play``: a line-based game over stdin/stdout (solo, vs computer, hot-seat, daily, real dice).

The game itself is :class:`solver.game.Game`; this module only reads commands,
prints the dice and the card, and saves the game (:mod:`solver.records`).  The
advisor is loaded only for hints, the coach, the perfect computer player and
the daily summary (tables are built when missing, with progress on stderr).

Exit codes: 0 when the game ends or the player quits, 1 when the input ends
before the game does (the game is saved as abandoned), 130 on Ctrl-C (saved too).
"""

from __future__ import annotations

import random
import sys
from itertools import zip_longest

from ..errors import IllegalMoveError, SolverError, UsageError
from . import add_rules, add_tables

LEVELS = {"easy": "random", "medium": "greedy", "hard": "heuristic", "perfect": "optimal"}
HUMAN = "You"

HELP = """\
commands:
  r, roll               roll the dice that are not held (up to 3 rolls a turn; the first is mandatory)
  h 1 3, hold 1 3       hold or release dice by position (1 to 5)
  k 3 3 5, keep 3 3 5   hold dice by their faces
  u, release            release all held dice
  s 9, s full_house     score the dice in a box, by number or name (a unique start such as 'full' works)
  hint, ?               the solver's three best options now
  card, c               the card, with what each open box would score now in (brackets)
  help                  this list
  quit, q               stop now; the game is saved as abandoned"""

HELP_REAL = """\
real dice: type the dice you rolled on the table: all five on a turn's first roll (e.g. 33456),
  then only the rerolled ones (e.g. 45) or all five again; 'r 45' works too.  Hold with h before
  rerolling, so the game knows which dice you kept."""


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
        default="medium",
        help="computer strength: easy (random), medium (greedy), hard (heuristic), perfect (optimal); "
        "default medium",
    )
    p.add_argument("--players", metavar="NAMES", help='hot-seat: comma-separated names, e.g. "Ann,Ben"')
    p.add_argument(
        "--daily",
        nargs="?",
        const="today",
        metavar="DATE",
        help="the daily challenge of DATE (YYYY-MM-DD, default today): everyone gets the same dice",
    )
    p.add_argument("--real-dice", action="store_true", help="type the dice rolled on a real table (a coach)")
    p.add_argument("--coach", action="store_true", help="after each decision, say what it cost vs the best")
    p.add_argument("--seed", type=int, metavar="S", help="dice seed, for a reproducible game")
    add_rules(p)
    add_tables(p)
    p.add_argument(
        "--data",
        metavar="DIR",
        default=None,
        help="folder for saved games and records (default $YAHTZEE_DATA, else $XDG_DATA_HOME/yahtzee-solver)",
    )
    p.set_defaults(func=run_play)


def run_play(args) -> int:
    from ..daily import parse_date
    from ..game import Game, Player
    from ..rules import get_rules

    rules = get_rules(args.rules)
    if rules.triple:  # the triple card has its own small game (solver.triple_game)
        from ..triple_game import run_triple_play

        return run_triple_play(args, rules)
    if args.players is not None:
        names = [n.strip() for n in args.players.split(",") if n.strip()]
        if not names:
            raise UsageError(f"--players needs at least one name, got {args.players!r}")
        for n in names:
            if not n.isprintable():
                raise UsageError(f"player name {n!r} has control characters; use printable names")
    else:
        names = [HUMAN]
    if args.solo and (args.vs_computer or len(names) > 1):
        raise UsageError("--solo is one player alone; drop --vs-computer / extra --players")
    if args.real_dice and (args.daily is not None or args.seed is not None):
        raise UsageError("--real-dice takes the dice from your table; it cannot go with --daily or --seed")
    if args.real_dice and args.vs_computer:
        raise UsageError("--real-dice cannot go with --vs-computer (the computer needs dice of its own)")
    if args.daily is not None and args.seed is not None:
        raise UsageError("--daily has its own dice; it cannot go with --seed")
    date = parse_date(args.daily) if args.daily is not None else None
    players = [Player(n) for n in names]
    level = None
    if args.vs_computer:
        level = args.level
        players.append(Player(f"Computer ({level})", "bot", LEVELS[level]))
    if date is not None:
        mode = "daily"
    elif args.vs_computer:
        mode = "vs-computer"
    elif len(names) > 1:
        mode = "hot-seat"
    else:
        mode = "solo"
    info: dict = {"mode": mode}
    if level:
        info["level"] = level
    if args.coach:
        info["coach"] = True
    game = Game.new(rules, players, seed=args.seed, date=date, real_dice=args.real_dice, info=info)
    return PlaySession(game, coach=args.coach, tables_dir=args.tables, data=args.data).run()


class _Quit(Exception):
    pass


class PlaySession:
    """Reads commands, drives the :class:`~solver.game.Game`, prints the table, saves the game."""

    def __init__(self, game, *, coach=False, tables_dir=None, data=None, inp=None, out=None, err=None):
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
        self._advisor = None
        self._bots: dict[int, object] = {}
        self.path = None
        self._autosave_failed = False
        self._store_failed = False
        self._daily_optimal = None
        self.stored = None  # what the database kept when the game finished (records.Stored)
        info = game.info
        seed = info.get("seed")
        seed_text = info.get("date") or ("real" if seed is None else seed)
        self.rng = random.Random(f"{game.rules.id} {seed_text}")

    # --- output ----------------------------------------------------------------
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def refuse(self, reason: str) -> None:
        self.say(f"! {reason}")

    def read(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        if self.interactive:
            return input().strip()
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
            from ..advisor import Advisor

            self._advisor = Advisor.load(
                self.game.rules, self.tables_dir, build_if_missing=True, progress=True
            )
        return self._advisor

    def bot(self, index: int):
        if index not in self._bots:
            from ..bots import get_bot

            self._bots[index] = get_bot(self.game.players[index].bot, self.game.rules, self.tables_dir)
        return self._bots[index]

    # --- the game loop -----------------------------------------------------------------
    def run(self) -> int:
        from ..records import new_game_path

        game = self.game
        self.path = new_game_path(game, self.data)
        self.intro()
        try:
            if self.coach:
                _ = self.advisor
            for i, p in enumerate(game.players):
                if p.is_bot:
                    self.bot(i)
            while not game.is_over:
                if game.player.is_bot:
                    self.bot_turn()
                else:
                    self.human_turn()
                self.autosave()
        except _Quit:
            self.save("abandoned")
            self.say(f"game abandoned; saved to {self.path}")
            return 0
        except EOFError:
            self.save("abandoned")
            self.say(f"end of input: game saved as abandoned to {self.path}")
            return 1
        except KeyboardInterrupt:
            self.save("abandoned")
            self.err.write(f"\ngame saved as abandoned to {self.path}\n")
            raise
        except BaseException:
            # Anything unexpected: keep the game, then let the error through.
            try:
                self.save("abandoned")
            except Exception as exc:  # noqa: BLE001 - the original error matters more
                self.err.write(f"yahtzee: could not save the game: {exc}\n")
            else:
                self.err.write(f"game saved as abandoned to {self.path}\n")
            raise
        optimal = None
        if self.counts_for_record() and game.info.get("mode") == "daily":
            from ..records import save_game

            save_game(game, self.path, "finished")  # the file first: kept even if the optimum fails
            optimal = self.daily_optimal()  # the day's result is stored with the game, in one transaction
        self.save("finished", optimal)
        self.finish()
        return 0

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
        if self.counts_for_record():
            from ..records import solo_best

            try:
                best = solo_best(g.rules.id, self.data)
            except SolverError as exc:
                self.err.write(f"yahtzee: warning: {exc}\n")
                best = None
            if best:
                self.say(f"your record for {g.rules.id}: {best['score']} ({best.get('date', '?')}); beat it!")
            else:
                self.say(f"no record yet for {g.rules.id}: set one!")
        self.say("type help for the commands" + (", r to roll" if not g.needs_values else ""))
        if g.needs_values:
            self.say(HELP_REAL)

    def counts_for_record(self) -> bool:
        g = self.game
        return len(g.players) == 1 and not g.players[0].is_bot and g.info.get("dice") != "real"

    # --- saving ---------------------------------------------------------------------------
    def save(self, status: str, daily_optimal: float | None = None) -> None:
        """Write the game file, then keep the game (and, once finished, its records) in the database,
        in one transaction; a database failure is a warning (the file is saved)."""
        from ..records import save_game, store_game

        save_game(self.game, self.path, status)
        if self._store_failed:
            return
        try:
            self.stored = store_game(
                self.game,
                self.path,
                status,
                self.data,
                solo_record=self.counts_for_record(),
                daily_optimal=daily_optimal,
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

    def show_dice(self) -> None:
        g = self.game
        left = g.rolls_left
        self.say("  die    " + "  ".join(str(i) for i in range(1, 6)))
        self.say(
            "  face   "
            + "  ".join(str(d) for d in g.dice)
            + f"     {left} roll{'s' if left != 1 else ''} left"
        )
        if any(g.held):
            self.say("  held   " + "  ".join("^" if h else " " for h in g.held).rstrip())

    def show_card(self) -> None:
        g = self.game
        self.say(format_card(g.card, g.preview(), g.has_rolled))

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
        while g.current == player and g.round == round_ and not g.is_over:
            line = self.read(self.prompt())
            try:
                self.command(line)
            except SolverError as exc:  # refused with the reason; the prompt repeats
                self.refuse(str(exc))

    def command(self, line: str) -> None:
        g = self.game
        if not line:
            raise IllegalMoveError("empty input: type a command (help lists them)")
        word, *rest = line.split()
        word = word.lower()
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
            from ..dice import parse_faces

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
        from ..game import Decision

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
            values = _real_values(" ".join(rest), n, g.held_faces)
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

    def cmd_score(self, rest: list[str]) -> None:
        g = self.game
        if not rest:
            raise IllegalMoveError("say which box: s 9 or s full_house")
        name = g.box_name(" ".join(rest))
        if not g.has_rolled:
            raise IllegalMoveError("roll first: the first roll of a turn is mandatory")
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
        if new_card.upper_bonus and not card.upper_bonus:
            self.say(f"upper section reached {g.rules.upper_threshold}: +{g.rules.upper_bonus} bonus!")
        if self.coach:
            for d in decisions:
                self.coach_say(d)

    def coach_say(self, decision) -> None:
        from ..review import describe, judge

        j = judge(self.advisor, decision)
        mine = describe(j.chosen)
        if not j.is_mistake:
            self.say(f"  coach: {mine}: best move (0 points lost)")
        else:
            self.say(f"  coach: {mine} cost {j.loss:.2f} expected points; best: {j.best.describe()}")

    def cmd_hint(self) -> None:
        from ..advisor import Position

        g = self.game
        if not g.has_rolled:
            raise IllegalMoveError("roll first: nothing to decide before the first roll")
        advice = self.advisor.advise(Position(g.card, g.sorted_dice, g.rolls_left))
        self.say(f"hint ({g.rolls_left} roll{'s' if g.rolls_left != 1 else ''} left):")
        for i, o in enumerate(advice.options[:3], start=1):
            text = o.describe()
            if o.keep is not None and 0 < len(o.keep) < 5:
                text += f" [h {' '.join(map(str, g.positions_of(o.keep)))}]"
            loss = "best" if o.best else f"-{o.regret:.2f}"
            self.say(f"  {i}. {text:<46} expected final {o.expected_final:7.2f}  {loss}")

    # --- the computer's turn ----------------------------------------------------------------------
    def bot_turn(self) -> None:
        from ..game import play_bot_turn

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
        else:
            self.say(format_card(g.cards[0], {}, False))
        if self.counts_for_record():
            self.report_record()
        if g.info.get("mode") == "daily":
            self.daily_summary()
        self.say(f"game saved to {self.path}")
        self.say(f"review it with: yahtzee review {self.path}")

    def report_record(self) -> None:
        g = self.game
        score = g.cards[0].total
        if self.stored is None:  # the database could not be written (warned already)
            return
        previous, is_new = self.stored.previous, self.stored.is_new_record
        if is_new and previous:
            self.say(f"new record for {g.rules.id}: {score} (was {previous['score']})!")
        elif is_new:
            self.say(f"first record for {g.rules.id}: {score}")
        else:
            self.say(
                f"your record for {g.rules.id} stays {previous['score']} ({previous['score'] - score} more next time)"
            )

    def daily_optimal(self) -> int:
        """The optimal player's score on the day's dice (computed once)."""
        if self._daily_optimal is None:
            from ..daily import optimal_game

            g = self.game
            game = optimal_game(g.info["date"], g.rules, self.tables_dir, bot=self.optimal_bot())
            self._daily_optimal = game.cards[0].total
        return self._daily_optimal

    def daily_summary(self) -> None:
        from ..daily import share_text

        g = self.game
        date = g.info["date"]
        optimal = self.daily_optimal()
        self.say("")
        self.say("--- to share ---")
        for p, card in zip(g.players, g.cards, strict=True):
            if not p.is_bot:
                self.say(share_text(date, g.rules, p.name, card, optimal))
                self.say("")

    def optimal_bot(self):
        for i, p in enumerate(self.game.players):
            if p.bot == "optimal":
                return self.bot(i)
        from ..daily import optimal_bot

        return optimal_bot(self.game.rules, self.tables_dir)


def describe_bot_turn(turn) -> str:
    """The computer's rolls and keeps in words."""
    lines = []
    for k, roll in enumerate(turn.rolls):
        dice = " ".join(map(str, roll.dice))
        if k == 0:
            lines.append(f"  rolls  {dice}")
        else:
            prev = turn.rolls[k - 1].dice
            kept = " ".join(str(f) for f in sorted(prev[p - 1] for p in roll.held)) or "nothing"
            lines.append(f"  keeps {kept}, rolls again: {dice}")
    if len(turn.rolls) < 3:
        lines.append("  stops")
    return "\n".join(lines)


def format_card(card, preview: dict[str, int], rolled: bool) -> str:
    """The card in two columns (upper | lower), boxes numbered in card order.

    Filled boxes show their score; open boxes show ``(n)``, what the dice would
    score there now, or ``x`` where the Joker rule (or forced order) forbids them.
    """
    rules = card.rules

    def cell(i: int) -> str:
        name, score = rules.box_names[i], card.scores[i]
        if score is not None:
            value = f"{score} "
        elif not rolled:
            value = "."
        elif name in preview:
            value = f"({preview[name]})"
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
    elif rules.upper_indices:
        left.append(line("upper total", card.upper_total))
    right = [cell(i) for i in rules.lower_indices]
    if rules.bonus:
        right.append(
            line("yahtzee bonus" if rules.joker != "none" else "extra bonus", card.yahtzee_bonus_points)
        )
    right.append(line("total", card.total))
    width = max((len(s) for s in left), default=0)  # a card may have no upper rows
    out = [f"  {a:<{width}}   | {b}".rstrip() for a, b in zip_longest(left, right, fillvalue="")]
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
    from ..dice import is_sub_multiset, parse_faces

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

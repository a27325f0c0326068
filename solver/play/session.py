"""One game's flow for every surface: :class:`Session`, and what a game counts for.

A :class:`Session` owns a game in play -- solo, against the computer at any level, hot-seat,
the daily, real dice, the coach, undo, resume, the triple card -- for the terminal
(``yahtzee play``) and the web app alike: it takes a player's commands (roll, hold, score,
hint, undo, the coach, quit), plays the computers' turns, saves the game and its records,
and answers each command with the :mod:`~solver.play.events` that happened.  The surfaces
only parse input and render those events.

A game sets the solo record only when it is one person alone in solo mode, on fresh seeded
dice (not a replay of a seed played before, not real dice, not a daily) and unassisted (no
hint, coach or undo); a daily's result is kept as the day's only for the first game of that
day.  These functions read the game's ``info`` (as saved in its file) and nothing else, so
both surfaces decide alike.
"""

from __future__ import annotations

import random
import threading
from typing import TYPE_CHECKING

from ..core.errors import SolverError
from . import events as ev
from .game_tables import GameTables, WinTablesLater  # noqa: F401 - the sessions' tables, part of this API
from .words import HUMAN  # noqa: F401 - the one person's name, part of this module's API

if TYPE_CHECKING:
    import os

    from .game import Game, Player, Turn

#: the computer's levels (``play --vs-computer --level``, the web's) and the bot each one is
LEVELS = {"easy": "frequent", "medium": "greedy", "hard": "heuristic", "perfect": "optimal", "win": "win"}
#: the triple card's computer levels: its own players (:data:`solver.play.triple.TRIPLE_BOTS`)
TRIPLE_LEVELS = {"easy": "random", "medium": "greedy", "hard": "heuristic", "perfect": "triple"}
#: six dice (Maxi Yatzy): the bots that play them so far (no ``win``: no target tables for six dice)
SIX_DICE_LEVELS = {"easy": "frequent", "medium": "greedy", "hard": "heuristic", "perfect": "optimal"}


def levels(rules) -> dict[str, str]:
    """The computer's levels for a rule set (level -> bot name)."""
    if rules.n_dice != 5:
        return SIX_DICE_LEVELS
    return TRIPLE_LEVELS if rules.triple else LEVELS


def no_such_level(rules, level: str) -> str:
    """Why ``level`` is not a computer level of ``rules`` (one line, naming the levels it has)."""
    table = ", ".join(levels(rules))
    if rules.n_dice != 5 and level == "win":
        return f"the win level does not take six dice yet (no target tables); the {rules.id} computer is one of {table}"
    return f"the {rules.id} computer is one of {table}"


def is_solo(game: Game) -> bool:
    """One person alone (solo mode, seeded or real dice; not a daily)."""
    return len(game.players) == 1 and not game.players[0].is_bot and (game.info.mode or "solo") == "solo"


def record_eligible(game: Game) -> bool:
    """Whether the game may set the solo record: solo, unassisted, on fresh (not replayed, not real) dice."""
    info = game.info
    return is_solo(game) and info.dice == "seeded" and not info.replay and not info.assisted


def keeps_daily(game: Game) -> bool:
    """Whether the game's result is offered as the day's (one person, a daily, not a replay)."""
    return (
        len(game.players) == 1
        and not game.players[0].is_bot
        and game.info.mode == "daily"
        and not game.info.replay
    )


def mark_assisted(game: Game, how: str) -> bool:
    """Mark the game assisted by ``how`` (``hint``, ``coach``, ``undo``); True when this costs it
    the record (it was eligible until now: the surface says so, once)."""
    if how in game.info.assisted:
        return False
    was_eligible = record_eligible(game)
    game.info = game.info.with_help(how)
    return was_eligible


def bots_rng(game: Game) -> random.Random:
    """The random choices of a game's computer players, seeded by the game's dice (its date or
    seed), so that a game resumed or replayed on the same dice plays them alike."""
    info = game.info
    seed = info.seed
    seed_text = info.date or ("real" if seed is None else seed)
    return random.Random(f"{game.rules.id} {seed_text}")


def earlier_play(mode: str, rules_id: str, seed, date, data: str | os.PathLike | None = None):
    """What makes a new game a replay: the kept daily result of that day, or (a seed the player
    chose) a stored game on the same dice; ``None`` for fresh dice.  A store that cannot be read
    raises :class:`~solver.core.errors.SolverError` (the caller warns and plays on)."""
    from .records import daily_played, seed_played

    if mode == "daily":
        return daily_played(date, rules_id, data)
    if mode == "solo" and seed is not None and seed_played(rules_id, seed, data):
        return {"seed": seed}
    return None


#: the most players at one table, and the longest name (a name is printed in every sheet)
MAX_PLAYERS = 8
MAX_NAME = 40


def players_from_names(names, rules, *, programs: bool = False) -> list[Player]:
    """The players of a hot-seat table from their names (``"Ann,Ben"`` or a list), in seat order;
    ``computer:LEVEL`` seats a computer of that level and (``programs``: the user's own command
    line, never a request or a file) ``cmd:PROGRAM`` a bot program (:mod:`solver.play.protocol`).
    Refused (:class:`UsageError`, naming
    the name): no name, a name with control characters or over :data:`MAX_NAME` columns (a wide character two),
    more than :data:`MAX_PLAYERS` players, an unknown level, only computers."""
    from ..core.bounded import shown
    from ..core.errors import UsageError
    from ..core.text import columns
    from .game import Player

    if isinstance(names, str):
        names = names.split(",")
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise UsageError(f"players are names like 'Ann,Ben', got {shown(names)}")
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise UsageError("players needs at least one name")
    if len(names) > MAX_PLAYERS:
        raise UsageError(f"{len(names)} players: at most {MAX_PLAYERS} sit at one table")
    table = levels(rules)
    players = []
    for n in names:
        if not n.isprintable():
            raise UsageError(f"player name {n!r} has control characters; use printable names")
        head, sep, rest = n.partition(":")
        if sep and head.strip().lower() == "cmd":
            if not programs:
                raise UsageError(f"player {shown(n)}: bot programs are seated from the command line only")
            players.append(Player(f"Bot {len(players) + 1}", "bot", f"cmd:{rest.strip()}"))
        elif sep and head.strip().lower() == "computer":
            level = rest.strip().lower()
            if level not in table:
                if rules.n_dice != 5 and level == "win":
                    raise UsageError(f"player {n!r}: {no_such_level(rules, level)}")
                raise UsageError(f"player {n!r}: the computer's level is one of {', '.join(table)}")
            players.append(Player(f"Computer ({level})", "bot", table[level]))
        elif columns(n) > MAX_NAME:  # a wide character takes two columns on every sheet
            wide = "" if n.isascii() else " (a wide character counts two)"
            raise UsageError(f"player name {shown(n)} is longer than {MAX_NAME} characters{wide}")
        else:
            players.append(Player(n))
    if all(p.is_bot for p in players):
        raise UsageError("players needs at least one person besides the computers")
    if len({p.name for p in players}) != len(players):
        raise UsageError(f"two players have the same name in {', '.join(p.name for p in players)}")
    return players


def undo(game: Game) -> tuple[Game, Turn, bool]:
    """Take back the last box of a solo game: ``(the game before it, the turn taken back,
    whether this cost the record)``, the new game marked assisted by ``undo`` (as
    :func:`mark_assisted`; its ``info`` kept); refused
    (:class:`~solver.core.errors.IllegalMoveError`) in dailies and games with others, or
    before the first box."""
    from ..core.errors import IllegalMoveError

    if not is_solo(game):
        raise IllegalMoveError("undo is for solo games (not dailies or games against others)")
    if not any(t.is_complete for t in game.turns):
        raise IllegalMoveError("nothing to undo: no box is filled yet")
    last = next(t for t in reversed(game.turns) if t.is_complete)
    new = game.without_last_score()
    new.info = game.info
    return new, last, mark_assisted(new, "undo")


class ComputerTurnError(SolverError):
    """A computer player failed in its turn (a bot program's bad answer, a table that cannot be
    read): not a move the person may retry -- the game stops (saved) with this error."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


class Session:
    """A game in play (see the module doc): commands in, :mod:`~solver.play.events` out.

    ``game``: the :class:`~solver.play.game.Game` (new or loaded); ``path``: its file (created
    at the first save; ``None``: the game is not saved); ``tables``: a :class:`GameTables` (or an object with its methods);
    ``data``: the data folder of the records; ``resumed``: the game was loaded from ``path``;
    ``earlier``: what :func:`earlier_play` found (the dice were played before).

    Every command returns the events it caused and keeps them as :attr:`last`; an illegal one
    raises :class:`~solver.core.errors.SolverError` and changes nothing.  :attr:`moves` counts
    the commands that changed the game (a surface with several views of one game, the web's
    tabs, refuses a move made on an older one); :attr:`lock` serialises surfaces that serve
    many threads.
    """

    def __init__(self, game: Game, path, tables, *, data=None, resumed: bool = False, earlier=None):
        self.game = game
        self.path = path
        self.tables = tables
        self.data = data
        self.resumed = resumed
        self.earlier = earlier
        self.rng = bots_rng(game)  # the bots' choices: a resumed or replayed game plays them alike
        self.status = "in_progress"
        self.moves = 0
        self.last: list[ev.Event] = []
        self.warnings: list[str] = []
        self.outcome: ev.GameOver | None = None
        self.stored = None  # what the database kept when the game finished (records.Stored)
        self.lock = threading.Lock()
        self._bots: dict[int, object] = {}
        self._best = None
        self._noted = False  # the advisor's note given (once a game)
        self._aim = None  # (target, goal, TargetAdvisor): solo play with a target
        self._store_failed = False
        self._save_failed = False
        self._record = None  # the solo record when the game may beat it (found at open)
        self._chances = None  # (the position, its chances to win)
        self._review = None  # (turns, the review)
        self._win_later: WinTablesLater | None = None  # the win level's tables still being made

    # --- what the surfaces ask ------------------------------------------------------------
    @property
    def coach(self) -> bool:
        return bool(self.game.info.coach)

    @property
    def advisor(self):
        return self.tables.advisor(self.game.rules)

    @property
    def is_solo(self) -> bool:
        return is_solo(self.game)

    @property
    def hint_costs_record(self) -> bool:
        """Whether a hint now would cost the game the record (a surface may ask first)."""
        return record_eligible(self.game)

    @property
    def undo_costs_record(self) -> bool:
        """Whether an undo now would cost the game the record (a surface may ask first)."""
        return self.can_undo and record_eligible(self.game)

    @property
    def can_undo(self) -> bool:
        g = self.game
        return not g.is_over and is_solo(g) and any(t.is_complete for t in g.turns)

    @property
    def wants_target_table(self) -> bool:
        """A computer plays to win: it needs the target table."""
        return any(p.bot == "win" for p in self.game.players)

    @property
    def aim(self) -> tuple[int, str] | None:
        """``(target, goal)`` of solo play with a target, or ``None``."""
        return None if self._aim is None else self._aim[:2]

    def bot(self, index: int):
        """The computer player of seat ``index`` (made once; a missing table raises); the ``win``
        level while its tables are being made (:meth:`play_win_later`): the optimal player."""
        if index not in self._bots:
            name = self.game.players[index].bot
            if name == "win" and self._win_later is not None:
                name = LEVELS["perfect"]
            self._bots[index] = self.tables.bot(name, self.game.rules)
        return self._bots[index]

    @property
    def win_pending(self) -> bool:
        """The ``win`` level's tables are still being made (:meth:`play_win_later`): its computer
        plays for expected score until its first turn after they are ready."""
        return self._win_later is not None and not self._win_later.ready()

    def play_win_later(self, later: WinTablesLater) -> list[ev.Event]:
        """Start now, the ``win`` level's tables being made in the background (``later``): its
        computer plays for expected score (the ``optimal`` bot) until they are ready, then to
        win from its next turn (:class:`~solver.play.events.PlaysToWin`; the turns played before
        are saved as the game's ``win_from``).  Its moves so depend on when the making ends: a
        seed reproduces the dice and, given the same ``win_from``, every move."""
        g = self.game
        out: list[ev.Event] = []
        for i, p in enumerate(g.players):
            if p.bot == "win":
                self._bots.pop(i, None)
                out.append(ev.WinPending(i, p.name, g.rules.id, later.what, later.seconds))
        if out:
            self._win_later = later
            g.info = g.info.replace(win_from=self._win_turns())
        return self._done(out, moved=False, append=True)

    def _win_turns(self) -> int:
        """The turns the computer playing to win has played so far."""
        g = self.game
        return max((g.cards[i].n_filled for i, p in enumerate(g.players) if p.bot == "win"), default=0)

    def _switch_to_win(self) -> list[ev.Event]:
        """Before a computer's turn: when the ``win`` level's tables are ready, it plays to win
        from now on (said once); when their making failed, a warning, and expected score to the end."""
        later = self._win_later
        if later is None or not later.ready():
            return []
        self._win_later = None
        g = self.game
        turns = self._win_turns()
        if later.error is not None:
            for i, p in enumerate(g.players):  # the optimal player to the end, never a build in a turn
                if p.bot == "win":
                    self._bots[i] = self.tables.bot(LEVELS["perfect"], g.rules)
            g.info = g.info.replace(win_from=g.rules.n_turns)
            return [
                self._warn(
                    f"the {g.rules.id} target table could not be made ({later.error}): the computer "
                    "plays for the best expected score to the end"
                )
            ]
        out: list[ev.Event] = []
        for i, p in enumerate(g.players):
            if p.bot == "win":
                self._bots[i] = self.tables.bot("win", g.rules)
                out.append(ev.PlaysToWin(i, p.name, turns))
        g.info = g.info.replace(win_from=turns)
        self._chances = None  # the chances to win can be worked out now
        return out

    def close(self) -> None:
        """End the bot programs this game started (their processes reaped) and the making of the
        ``win`` level's tables (a child build) when it is still going."""
        if self._win_later is not None:
            self._win_later.stop()
        for bot in self._bots.values():
            close = getattr(bot, "close", None)
            if callable(close):
                close()

    def name_programs(self) -> None:
        """Start the game's bot programs now and seat each under the name it gave in ``ready``
        (instead of ``Bot 2``): cut to :data:`MAX_NAME` characters, numbered when another
        player has it already; a program that gave none keeps its seat's name."""
        from .game import Player
        from .protocol import ProtocolBot, is_protocol_bot

        g = self.game
        for i, p in enumerate(g.players):  # only the programs made now: the others when the game starts
            if not (p.is_bot and is_protocol_bot(p.bot)) or not isinstance(self.bot(i), ProtocolBot):
                continue
            name = self.bot(i).start()
            if name is None:
                continue
            base = name = name[:MAX_NAME]
            taken = {q.name for k, q in enumerate(g.players) if k != i}
            k = 2
            while name in taken:
                suffix = f" #{k}"
                name = base[: MAX_NAME - len(suffix)].rstrip() + suffix
                k += 1
            g.players[i] = Player(name, "bot", p.bot)

    def prepare(self) -> None:
        """Make the computer players now (their tables loaded, a missing one raised), not in the
        middle of a turn."""
        for i, p in enumerate(self.game.players):
            if p.is_bot:
                self.bot(i)

    # --- the start --------------------------------------------------------------------------
    def open(self) -> list[ev.Event]:
        """The game as it starts: what it is, whether it is a replay or assisted, the record
        to beat.  A records database that cannot be read is a warning."""
        g, info = self.game, self.game.info
        out: list[ev.Event] = [
            ev.Opened(
                rules=g.rules.id,
                title=g.rules.title,
                mode=info.mode or "solo",
                level=info.level,
                players=tuple(p.name for p in g.players),
                dice=info.dice,
                seed=info.seed,
                date=info.date,
                path=str(self.path),
                resumed_turns=sum(t.is_complete for t in g.turns) if self.resumed else None,
            )
        ]
        if info.mode == "daily" and self.earlier is not None:
            out.append(ev.Replay("daily", date=info.date, score=self.earlier.get("score")))
        elif is_solo(g) and info.replay:
            out.append(ev.Replay("solo", seed=info.seed))
        elif is_solo(g) and info.assisted:
            out.append(ev.Assisted(tuple(info.assisted), costs_record=False))
        if record_eligible(g):
            from .records import solo_best

            try:
                best = solo_best(g.rules.id, self.data)
            except SolverError as exc:
                best = None
                out.append(self._warn(str(exc)))
            self._record = best
            out.append(
                ev.RecordToBeat(
                    g.rules.id,
                    None if best is None else best["score"],
                    None if best is None else best.get("date"),
                )
            )
        return self._done(out, moved=False, append=True)

    @property
    def record_to_beat(self) -> int | None:
        """The solo record this game may beat (found by :meth:`open`), or ``None``."""
        return None if self._record is None else self._record["score"]

    def set_aim(self, target: int, goal: str, table) -> list[ev.Event]:
        """Play for ``target`` (solo): P(reaching it) at each turn's start and its move in hints;
        ``table``: the target table (``None``: not built, no aim)."""
        g = self.game
        if g.rules.triple or not is_solo(g):
            return []
        if table is None:
            return [ev.Aim(target, goal, problem="no-table")]
        if target - g.card.total > table.t_max:
            return [ev.Aim(target, goal, problem="beyond-table", t_max=table.t_max)]
        from ..advice.advisor import TargetAdvisor

        self._aim = (target, goal, TargetAdvisor(self.advisor, table))
        g.info = g.info.replace(target=target, target_goal=goal)
        return [ev.Aim(target, goal)]

    def begin(self) -> list[ev.Event]:
        """Play starts (or goes on): the computers' turns when one is to move, then the turn of
        the person to move."""
        out = self._advance([])
        return self._done(out, moved=bool(out and not isinstance(out[0], ev.TurnStarted)), append=True)

    def start(self) -> list[ev.Event]:
        """:meth:`open` then :meth:`begin`, for a surface with nothing to ask in between."""
        return self.open() + self.begin()

    def chances(self) -> tuple[float, ...] | None:
        """Each player's chance to win from here (P(win) + P(tie)/2, adding up to 1, seat order),
        in games of two or more on a rule set whose target table is built (never built for
        this; not the triple card nor a chosen fill order); ``None`` otherwise."""
        g = self.game
        key = (len(g.turns), g.current, g.is_over)
        if self._chances is not None and self._chances[0] == key:
            return self._chances[1]
        value = None
        if len(g.players) > 1 and not g.is_over and g.rules.order != "choose":
            try:
                win = self._win_advisor()
            except SolverError:  # a damaged target table: the game goes on without the figures
                win = None
            if win is not None:
                value = tuple(float(c) for c in win.chances(list(g.cards)))
        # kept while the position stands; none is not kept: the tables may be ready at the next ask
        self._chances = None if value is None else (key, value)
        return value

    # --- the commands -----------------------------------------------------------------------
    def roll(self, values=None, *, whole_table: bool = False) -> list[ev.Event]:
        """Roll the dice not held (real dice: ``values``, the faces of the dice rolled).
        ``whole_table``: real dice, all the faces typed after a roll with nothing held -- the
        dice that stayed the same count as kept, the others as rerolled."""
        from ..core.errors import IllegalMoveError

        g = self.game
        self._check_playing()
        inferred = False
        if whole_table and g.needs_values and g.has_rolled and not any(g.held) and len(values) == g.n_dice:
            rest, same = list(values), []
            for f in g.dice:
                if f in rest:
                    rest.remove(f)
                    same.append(f)
            if len(same) == g.n_dice:
                raise IllegalMoveError(
                    f"the {g.dice_word} dice are the ones already on the table: to stop, score a box"
                )
            if same:
                g.set_held(g.positions_of(same))
                inferred = True
            values = tuple(rest)
        keep = None
        if g.has_rolled:
            keep = self._decision(
                roll=g.rolls_used, dice=g.sorted_dice, rolls_left=g.rolls_left, keep=g.held_faces
            )
        kept = tuple(sorted(g.held_faces)) if g.has_rolled else ()
        g.roll(values)
        # the verdict on the keep first: it was decided before this roll
        out: list[ev.Event] = [
            *(self._judge([keep]) if keep is not None else []),
            self._rolled(kept, inferred),
        ]
        return self._done(out)

    def hold(self, positions, *, toggle: bool = False) -> list[ev.Event]:
        """Hold the dice at ``positions`` (1..5; ``toggle``: flip those, keep the others)."""
        self._check_playing()
        g = self.game
        (g.toggle_hold if toggle else g.set_held)(positions)
        return self._done([ev.Held(g.current, tuple(g.dice), tuple(g.held))], append=True)

    def keep(self, faces) -> list[ev.Event]:
        """Hold dice by their faces."""
        self._check_playing()
        g = self.game
        g.keep_faces(faces)
        return self._done([ev.Held(g.current, tuple(g.dice), tuple(g.held))], append=True)

    def score(self, box) -> list[ev.Event]:
        """Score the dice in ``box`` (a name, a number, an alias); then the computers play, and
        the game is saved (or finished)."""
        from ..core.errors import IllegalMoveError

        self._check_playing()
        g = self.game
        name = g.box_name(box)
        if not g.has_rolled:
            raise IllegalMoveError("roll first: the first roll of a turn is mandatory")
        card, dice, used, left, round_ = g.card, g.sorted_dice, g.rolls_used, g.rolls_left, g.round
        decisions = []
        if left > 0:
            decisions.append(self._decision(roll=used, dice=dice, rolls_left=left, keep=dice.values))
        decisions.append(self._decision(roll=used, dice=dice, rolls_left=0, box=name))
        turn = g.score(name)
        out: list[ev.Event] = [self._scored(turn, card, stopped=left > 0)]
        out += self._judge(decisions)
        out += self._after_turn(round_)
        return self._done(self._advance(out))

    def undo(self) -> list[ev.Event]:
        """Take back the last box (solo games): the game is marked assisted and saved as it now stands."""
        self._check_playing()
        new, last, costs_record = undo(self.game)
        self.game = new
        out: list[ev.Event] = []
        if costs_record:
            out.append(ev.Assisted(tuple(new.info.assisted), costs_record=True))
        out.append(ev.Undone(last.box, last.score, new.round))
        self._save("in_progress", out)
        out.append(self._turn_started())
        return self._done(out)

    def hint(self) -> list[ev.Event]:
        """The advice of the position to move (the game is marked assisted: no record), with the
        move for the aim (solo with a target) and to win (two or more players, target table built)."""
        from ..advice.advisor import checked_advice
        from ..advice.objectives import AtLeast, Win
        from ..core.errors import IllegalMoveError
        from ..core.position import Position

        self._check_playing()
        g = self.game
        if not g.has_rolled:
            raise IllegalMoveError("roll first: nothing to decide before the first roll")
        position = Position(g.card, g.sorted_dice, g.rolls_left)
        advice = checked_advice(self.advisor, position)
        out: list[ev.Event] = self._assist("hint")
        note = None
        if self.advisor.note and not self._noted:
            self._noted, note = True, self.advisor.note
        aimed = []
        ev_move = advice.options[0]
        if self._aim is not None:
            target, goal, target_advisor = self._aim
            options = target_advisor.advise(position, AtLeast(target)).options
            top = options[0]
            p_ev = next(o.p_target for o in options if _same_option(o, ev_move))
            aimed.append(
                ev.AimedMove("target", top, top.p_target, p_ev, _same_option(top, ev_move), target, goal)
            )
        win = self._win_advisor()
        if win is not None and len(g.players) > 1 and g.rules.order != "choose":
            others = [g.cards[(g.current + k) % len(g.cards)] for k in range(1, len(g.cards))]
            options = win.advise(position, Win(tuple(others))).options
            top = options[0]
            same = top.best and any(o.best and _same_option(o, ev_move) for o in options)
            p_ev = next(o.p_win for o in options if _same_option(o, ev_move))
            aimed.append(ev.AimedMove("win", top, top.p_win, p_ev, same))
        out.append(ev.Hinted(advice, note, tuple(aimed)))
        return self._done(out, moved=False, append=True)

    def set_coach(self, on: bool) -> list[ev.Event]:
        """The coach on or off; on, the game is marked assisted."""
        self._check_playing()
        self.game.info = self.game.info.replace(coach=bool(on))
        return self._done(self._assist("coach") if on else [], append=True)

    def abandon(self) -> list[ev.Event]:
        """Stop before the end: the game is saved as abandoned (when anything was played)."""
        self.status = "abandoned"
        saved = None
        if self.game.turns or self.resumed:
            out: list[ev.Event] = []
            if self._save("abandoned", out):
                saved = str(self.path)
            return self._done([*out, ev.Abandoned(saved)])
        return self._done([ev.Abandoned(None)])

    def review(self):
        """Each person's decisions beside the best (:func:`solver.play.review.review_game`), once
        the game is over (worked out once)."""
        from .review import review_game

        if self._review is None or self._review[0] != len(self.game.turns):
            humans = [i for i, p in enumerate(self.game.players) if not p.is_bot]
            self._review = (len(self.game.turns), review_game(self.game, self.advisor, humans))
        return self._review[1]

    # --- inside ------------------------------------------------------------------------------
    def _check_playing(self) -> None:
        from ..core.errors import IllegalMoveError

        if self.status != "in_progress" or self.game.is_over:
            status = "finished" if self.game.is_over else self.status
            raise IllegalMoveError(f"the game is {status}: start a new one")

    def _done(self, out: list[ev.Event], *, moved: bool = True, append: bool = False) -> list[ev.Event]:
        """``out`` becomes what the game shows as its last move (``append``: added to it: the
        move only adds to what happened, e.g. a hint or a hold)."""
        self.last = [*self.last, *out] if append else out
        if moved:
            self.moves += 1
        return out

    def _warn(self, text: str) -> ev.Warned:
        self.warnings.append(text)
        return ev.Warned(text)

    def _decision(self, **kw):
        from .game import Decision

        g = self.game
        return Decision(turn=len(g.turns), player=g.current, round=g.round, card=g.card, **kw)

    def _player(self, index: int) -> tuple[int, str, bool]:
        p = self.game.players[index]
        return index, p.name, p.is_bot

    def _rolled(self, kept: tuple[int, ...], inferred: bool = False) -> ev.Rolled:
        g = self.game
        return ev.Rolled(*self._player(g.current), g.rolls_used, tuple(g.dice), kept, g.rolls_left, inferred)

    def _scored(self, turn, card_before, *, stopped: bool) -> ev.Scored:
        from ..core.card import ScoreCard

        g = self.game
        card = g.cards[turn.player]
        reached = isinstance(card, ScoreCard) and card.upper_bonus and not card_before.upper_bonus
        return ev.Scored(
            *self._player(turn.player),
            box=turn.box,
            points=turn.score,
            bonus=turn.bonus,
            total=card.total,
            upper_bonus=g.rules.upper_bonus if reached else 0,
            upper_threshold=g.rules.upper_threshold if reached else None,
            stopped=stopped,
            weight=_weight(g.rules, turn.box),
        )

    def _turn_started(self) -> ev.TurnStarted:
        g = self.game
        target = goal = p = None
        if self._aim is not None and not g.player.is_bot:
            target, goal, target_advisor = self._aim
            p = target_advisor.probability(g.card, target)
        return ev.TurnStarted(*self._player(g.current), g.round, g.n_rounds, g.card.total, target, goal, p)

    def _assist(self, how: str) -> list[ev.Event]:
        """Mark the game assisted by ``how``; the event when this costs it the record (saved
        then, once a box is filled, so that resuming it elsewhere knows)."""
        if not mark_assisted(self.game, how):
            return []
        out: list[ev.Event] = [ev.Assisted(tuple(self.game.info.assisted), costs_record=True)]
        if any(t.is_complete for t in self.game.turns):
            self._save("in_progress", out)
        return out

    def _judge(self, decisions) -> list[ev.Event]:
        """The coach's verdicts (when it is on)."""
        if not self.coach:
            return []
        from .review import judge

        out: list[ev.Event] = []
        for d in decisions:
            j = judge(self.advisor, d)
            out.append(ev.Judged("keep" if d.is_keep else "box", j.chosen, j.best, j.loss, j.is_mistake))
        return out

    def _win_advisor(self):
        g = self.game
        if len(g.players) < 2 or g.rules.triple:
            return None
        parts = self.tables.win_parts(g.rules)
        if parts is None:
            return None
        from ..advice.win import WinAdvisor

        return WinAdvisor(*parts)

    def _after_turn(self, round_before: int) -> list[ev.Event]:
        """After a turn: the chances to win (two or more players, target table built) and, when
        the round is over, the totals."""
        g = self.game
        out: list[ev.Event] = []
        if len(g.players) < 2 or g.is_over:
            return out
        chances = self.chances()
        if chances is not None:
            out.append(ev.Chances(tuple(p.name for p in g.players), chances))
        if g.round > round_before:
            with_bots = any(p.is_bot for p in g.players)
            out.append(ev.RoundOver(round_before, tuple(g.totals()), with_bots))
        return out

    def _advance(self, out: list[ev.Event]) -> list[ev.Event]:
        """The computers' turns up to a person's (or the end); the game saved or finished."""
        from .game import play_bot_turn

        g = self.game
        played = bool(out)
        while not g.is_over and g.player.is_bot:
            index, round_ = g.current, g.round
            out += self._switch_to_win()
            out.append(self._turn_started())
            card = g.card
            try:
                turn = play_bot_turn(g, self.bot(index), self.rng)
            except ComputerTurnError:
                raise
            except SolverError as exc:
                raise ComputerTurnError(str(exc), exc.exit_code) from exc
            kept: tuple[int, ...] = ()
            for k, roll in enumerate(turn.rolls):
                if k:
                    before = turn.rolls[k - 1].dice
                    kept = tuple(sorted(before[p - 1] for p in roll.held))
                out.append(
                    ev.Rolled(*self._player(index), k + 1, tuple(roll.dice), kept, len(turn.rolls) - k - 1)
                )
            out.append(self._scored(turn, card, stopped=len(turn.rolls) < 3))
            out += self._after_turn(round_)
            played = True
        if g.is_over:
            out.append(self._finish(out))
        else:
            if played:
                self._save("in_progress", out)
            out.append(self._turn_started())
        return out

    def _save(self, status: str, out: list[ev.Event], daily_optimal=None, *, store: bool = True) -> bool:
        """The game file, then (``store``) the database, which decides the records; a failure is
        a warning event (each said once): the game goes on.  True when the file was written."""
        from .records import save_game, store_game

        if self._win_later is not None:  # the computer still plays for expected score: so far
            self.game.info = self.game.info.replace(win_from=self._win_turns())
        if self.path is None:  # a game that is not kept (a test's, a what-if)
            return False
        try:
            save_game(self.game, self.path, status)
        except SolverError as exc:
            if not self._save_failed or status != "in_progress":
                out.append(self._warn(str(exc) + (" (the game goes on)" if status == "in_progress" else "")))
            self._save_failed = True
            return False
        if not store or self._store_failed:
            return True
        try:
            self.stored = store_game(
                self.game,
                self.path,
                status,
                self.data,
                solo_record=record_eligible(self.game),
                daily_optimal=daily_optimal,
                daily_result=keeps_daily(self.game),
            )
        except SolverError as exc:
            self._store_failed = True
            out.append(self._warn(str(exc)))
        return True

    def _finish(self, out: list[ev.Event]) -> ev.GameOver:
        """The end: the file saved first (kept even if the day's optimum fails), the records
        stored once with the day's optimum, the summary -- with the best player's score on the
        same dice (the triple card, a solo game on seeded dice)."""
        from .daily import share_text

        g, info = self.game, self.game.info
        self.status = "finished"
        optimal = None
        if info.mode == "daily":
            self._save("finished", out, store=False)
            from .daily import optimal_game

            try:
                optimal = optimal_game(info.date, g.rules, bot=self._best_bot()).cards[0].total
            except SolverError as exc:
                if g.rules.n_dice == 5:
                    raise
                # six dice: the maxi table is never built for a game; the day is summed up
                # (records, share text) without the optimal player's score
                out.append(self._warn(f"no optimal player's score for the day: {exc}"))
        saved = self._save("finished", out, optimal)
        record = None
        if is_solo(g) and self.stored is not None:
            record = _record_outcome(g, self.stored)
        shares, same = [], []
        if optimal is not None or info.mode == "daily":
            notes = ["replay"] if info.replay else []
            notes += [f"assisted: {', '.join(info.assisted)}"] if info.assisted else []
            for p, card in zip(g.players, g.cards, strict=True):
                if not p.is_bot:
                    shares.append((p.name, share_text(info.date, g.rules, p.name, card, optimal, notes)))
        elif g.rules.triple:
            same = self._same_dice()
        elif is_solo(g) and info.dice == "seeded":  # a plain solo game: the optimal player on its dice
            try:
                same = self._same_dice()
            except SolverError as exc:  # its table cannot be read: the game is over all the same
                out.append(self._warn(f"no comparison with the optimal player: {exc}"))
        self.outcome = ev.GameOver(
            totals=tuple(g.totals()),
            winners=tuple(g.winners()),
            path=str(self.path) if saved else None,
            record=record,
            date=info.date,
            optimal=optimal,
            shares=tuple(shares),
            same_dice=tuple(same),
        )
        return self.outcome

    def _same_dice(self) -> list[ev.SameDice]:
        """The best player of the rule set on each person's dice, roll by roll the same (none on
        real dice: no stream to replay)."""
        from .daily import best_bot_name
        from .game import same_dice_game

        g = self.game
        name = best_bot_name(g.rules)
        same = []
        for i, p in enumerate(g.players):
            if p.is_bot:
                continue
            other = same_dice_game(g, i, self._best_bot(), name)
            if other is None:
                break
            same.append(ev.SameDice(p.name, name, g.cards[i].total, other.cards[0].total))
        return same

    def _best_bot(self):
        """The best player of the rule set: the game's own computer when it is that player."""
        from .daily import best_bot_name

        best = best_bot_name(self.game.rules)
        for i, p in enumerate(self.game.players):
            if p.bot == best:
                return self.bot(i)
        if self._best is None:
            self._best = self.tables.best_bot(self.game.rules)
        return self._best


def _weight(rules, box: str) -> int | None:
    """The weight of the column of ``box`` (``fours@3``) on the triple card; ``None`` elsewhere."""
    if not rules.triple:
        return None
    from ..core.triple_card import COLUMN_SEP

    return rules.weights[int(box.rpartition(COLUMN_SEP)[2]) - 1]


def _same_option(a, b) -> bool:
    return (a.keep, a.category) == (b.keep, b.category)


def _record_outcome(game: Game, stored) -> ev.RecordOutcome:
    """What a finished solo game did to the record (``stored``: :func:`solver.play.records.store_game`'s answer)."""
    info = game.info
    why = None
    if not record_eligible(game):
        why = (
            "real dice"
            if info.dice == "real"
            else "a replay"
            if info.replay
            else f"assisted: {', '.join(info.assisted)}"
        )
    previous = stored.previous["score"] if stored.previous else None
    return ev.RecordOutcome(game.rules.id, game.cards[0].total, why, previous, bool(stored.is_new_record))

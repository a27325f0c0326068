"""Bots in any language: a program that plays over JSON lines on its stdin and stdout.

``--bot cmd:"node mybot.js"`` (``simulate``, ``match --bots``, ``play --players``) starts the
program once and asks it for decisions, like a UCI chess engine.  Every message is one JSON
object on one line (UTF-8, ``\\n`` at the end).  The README's "Bots in any language" is the
reference; in short::

    tool -> bot  {"type": "start", "protocol": 1, "rules": "yahtzee", "boxes": [...], ...}
    bot  -> tool {"type": "ready", "name": "my bot"}
    tool -> bot  {"type": "decide", "positions": [POSITION, ...]}
    bot  -> tool {"type": "decisions", "moves": [{"keep": [3, 3]} or {"box": "chance"}, ...]}
    ...
    tool -> bot  {"type": "quit"}            (then stdin closes; the bot exits)

A ``POSITION`` is a decision of one game: ``decision`` (``keep`` with rolls left, ``box`` with
none), ``game``, ``turn`` (1-based), ``roll`` (1-3), ``card`` (our notation), ``scores`` (one per
box, ``null`` when open), ``total``, ``dice`` (five faces, sorted), ``rolls_left``, ``boxes``
(``box`` decisions: each legal box and what it would score now, Yahtzee bonus included) and, in a
match, ``opponents`` (their cards).  The answers come in the positions' order, one per position.
A simulation sends the positions of many games at once (:data:`BATCH` games per message), so a
fast bot is not held back by round trips.

Whatever the bot does wrong -- an answer later than ``timeout`` seconds, a line that is not JSON,
the wrong number of moves, a keep that is not among the dice, an illegal box, an exit -- is a
:class:`BotError` naming the game and the decision, and the process is always reaped
(:meth:`ProtocolBot.close`: ``quit``, 2 s, then killed).
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import signal
import subprocess
import time
import weakref

from ..core import dice as D
from ..core.bounded import clipped, shown
from ..core.card import ScoreCard
from ..core.dice import Dice
from ..core.errors import IllegalMoveError, UsageError
from ..core.rules import RuleSet
from .turn import BotTurn, keep_fault

#: the protocol's version, sent in ``start``
PROTOCOL = 1
#: the prefix of a protocol bot's name: ``cmd:node mybot.js``
PREFIX = "cmd:"
#: games whose decisions go in one ``decide`` message of a simulation
BATCH = 512
#: the longest line read from a bot (bytes): a batch's answers are well under it
MAX_LINE = 16 * 1024 * 1024
#: the most characters of the name a bot gives in ``ready`` that are shown (a longer one is cut)
MAX_NAME = 40
#: seconds a bot has to start (``ready``) and to answer each message
DEFAULT_TIMEOUT = 10.0


#: the most characters of a bot's answer quoted in a message
QUOTED = 100


def quoted(value) -> str:
    """What a bot sent (a decoded answer or a part of one) quoted as JSON, the protocol's own
    notation (``{"keep": "33"}``, not Python's ``{'keep': '33'}``): one line of at most
    :data:`QUOTED` characters, encoded only as far as that (an answer may be 16 MB)."""
    text, size = [], 0
    try:
        for chunk in json.JSONEncoder(ensure_ascii=False).iterencode(value):
            text.append(chunk)
            size += len(chunk)
            if size > QUOTED:
                break
    except (TypeError, ValueError, RecursionError):  # not what json.loads gives: not a bot's
        return shown(value)
    return clipped("".join(text), QUOTED)


class BotError(UsageError):
    """A protocol bot that did not play by the protocol: one line naming the game and decision."""


def is_protocol_bot(name) -> bool:
    return isinstance(name, str) and name.strip().lower().startswith(PREFIX)


def position_json(
    card: ScoreCard, dice: Dice, rolls_left: int, game: int, opponents=None, placements=None
) -> dict:
    """One decision as the bot reads it (see the module docstring); ``placements``: the card's
    legal placements of ``dice`` when the caller has them (a box decision lists them)."""
    out = {
        "decision": "keep" if rolls_left > 0 else "box",
        "game": game,
        "turn": card.n_filled + 1,
        "roll": 3 - rolls_left,  # a keep after roll 1 or 2; a box after the turn's last roll
        "card": str(card),
        "scores": list(card.scores),
        "total": card.total,
        "dice": list(dice.values),
        "rolls_left": rolls_left,
    }
    if rolls_left == 0:
        legal = card.placements(dice) if placements is None else placements
        out["boxes"] = {p.box: p.score + p.bonus for p in legal}
    if opponents is not None:
        out["opponents"] = [str(c) for c in opponents]
    return out


def _what(positions: list[dict]) -> str:
    if len(positions) == 1:
        return where(positions[0])
    return f"{len(positions)} decisions from {where(positions[0])}"


def where(position: dict) -> str:
    """``game 17, turn 3, the keep after roll 2`` (or ``the box``): a decision named for a message."""
    head = f"game {position['game']}, turn {position['turn']}"
    return (
        f"{head}, the keep after roll {position['roll']}"
        if position["decision"] == "keep"
        else f"{head}, the box"
    )


class ProtocolBot:
    """A bot program speaking the JSON-lines protocol (see the module docstring).

    ``command``: the program and its arguments (``node mybot.js``; split like a shell would,
    never run through one).  The process starts on the first decision and lives until
    :meth:`close` (or the end of a ``with`` block, or the interpreter's exit)."""

    def __init__(self, command: str, rules: RuleSet, timeout: float | None = None):
        self.command = command.strip()
        try:
            self.argv = shlex.split(self.command)
        except ValueError as exc:  # an unclosed quote
            raise UsageError(f"cmd:{shown(self.command)}: {exc}") from None
        if not self.argv:
            raise UsageError('cmd: needs a program to run, e.g. cmd:"node mybot.js"')
        if rules.triple:
            raise UsageError("protocol bots play single-card rule sets (not the triple card)")
        self.rules = rules
        self.timeout = float(DEFAULT_TIMEOUT if timeout is None else timeout)
        self.name = PREFIX + self.command
        self.bot_name: str | None = None  # the name the bot gave in ``ready``
        self.game = 0  # the game the single-position calls belong to (set by the caller)
        self.opponents: tuple | None = None
        self._proc: subprocess.Popen | None = None
        self._buffer = b""
        self.decisions = 0  # decisions answered, for the throughput figure

    # --- the process ---------------------------------------------------------------------
    def start(self) -> str | None:
        """Start the program now, not at the first decision (a no-op when it runs): the name it
        gave in ``ready`` (:attr:`bot_name`), or None when it gave none."""
        if self._proc is None:
            self._start()
        return self.bot_name

    @property
    def shown_name(self) -> str:
        """How tables and games name the bot: the name it gave in ``ready``, else its command."""
        return self.bot_name or self.name

    def _start(self) -> None:
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,  # the bot's own messages go to ours, for its author
                close_fds=True,
                # its own process group: what it starts is ended with it (see _reap), and a
                # Ctrl-C at the terminal is ours to handle, not sent to the bot as well
                **({"process_group": 0} if os.name == "posix" else {}),
            )
        except OSError as exc:
            raise BotError(f"bot {shown(self.command)} could not start: {exc.strerror or exc}") from None
        self._proc = proc
        self._finalizer = weakref.finalize(self, _reap, proc)
        os.set_blocking(proc.stdin.fileno(), False)
        os.set_blocking(proc.stdout.fileno(), False)
        r = self.rules
        self._send(
            {
                "type": "start",
                "protocol": PROTOCOL,
                "rules": r.id,
                "boxes": list(r.box_names),
                "upper_boxes": [r.box_names[i] for i in r.upper_indices],
                "n_turns": r.n_turns,
                "all_rolls": r.all_rolls,
            },
            "the start",
        )
        answer = self._receive("the start")
        if answer.get("type") != "ready":
            raise BotError(
                f'bot {self.name}: answered the start with {quoted(answer)}, not {{"type": "ready"}}'
            )
        name = answer.get("name")
        name = name.strip() if isinstance(name, str) else ""
        self.bot_name = clipped(name, MAX_NAME) if name and name.isprintable() else None

    def _exited(self, what: str) -> BotError:
        code = None
        if self._proc is not None:  # its output closed: it is exiting (or goes on without it)
            code = _exit_status(self._proc, 1.0)
        status = "exited" if code is None else f"exited with code {code}"
        return BotError(f"bot {self.name} {status} at {what}")

    def _ready(self, sel: selectors.BaseSelector, deadline: float, what: str) -> bool:
        """Whether the bot's pipe is ready before ``deadline``; a bot that exits meanwhile is a
        :class:`BotError` at once (a process it started may hold its pipes open: no end of file)."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if sel.select(min(left, 0.25)):
                return True
            if _exit_status(self._proc, 0) is not None:
                raise self._exited(what)

    def _send(self, message: dict, what: str) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        deadline = time.monotonic() + self.timeout
        fd = self._proc.stdin.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while data:
                if not self._ready(sel, deadline, what):
                    raise BotError(
                        f"bot {self.name} stopped reading its input at {what} ({self.timeout:g} s)"
                    )
                try:
                    n = os.write(fd, data)
                except (BrokenPipeError, ConnectionResetError):
                    raise self._exited(what) from None
                except BlockingIOError:
                    continue
                data = data[n:]

    def _receive(self, what: str) -> dict:
        deadline = time.monotonic() + self.timeout
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if len(self._buffer) > MAX_LINE:
                    raise BotError(f"bot {self.name} sent a line over {MAX_LINE} bytes at {what}")
                if not self._ready(sel, deadline, what):
                    raise BotError(f"bot {self.name} did not answer {what} within {self.timeout:g} s")
                try:
                    chunk = os.read(fd, 1 << 20)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise self._exited(what)
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):
            raise BotError(
                f"bot {self.name} answered {what} with a line that is not JSON: {quoted(line.decode(errors='replace'))}"
            ) from None
        if not isinstance(answer, dict):
            raise BotError(f"bot {self.name} answered {what} with {quoted(answer)}, not a JSON object")
        return answer

    def close(self) -> None:
        """Tell the bot to quit, wait 2 s, then end it and what it started; always reaps it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            data = b'{"type":"quit"}\n'
            os.write(proc.stdin.fileno(), data)
        except OSError:
            pass
        _reap(proc)
        self._finalizer.detach()

    def __enter__(self) -> ProtocolBot:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- decisions -------------------------------------------------------------------------
    def decide(self, positions: list[dict]) -> list[dict]:
        """The bot's moves for ``positions`` (:func:`position_json`), in order, each checked to
        be a keep (``keep``: faces) or a box (``box``: a name) as the position asks; legality
        is the caller's to check (it knows the dice)."""
        self.ask(positions)
        return self.answers(positions)

    def ask(self, positions: list[dict]) -> None:
        """Send ``positions``: the first half of :meth:`decide` (a caller may send a second batch
        before it reads the first one's :meth:`answers`, so that the bot thinks while it works)."""
        if self._proc is None:
            self._start()
        self._send({"type": "decide", "positions": positions}, _what(positions))

    def answers(self, positions: list[dict]) -> list[dict]:
        """The moves for the positions of the oldest :meth:`ask` not answered yet (see :meth:`decide`)."""
        what = _what(positions)
        answer = self._receive(what)
        moves = answer.get("moves")
        if answer.get("type") != "decisions" or not isinstance(moves, list):
            raise BotError(
                f'bot {self.name} answered {what} with {quoted(answer)}, not {{"type": "decisions", "moves": [...]}}'
            )
        if len(moves) != len(positions):
            raise BotError(
                f"bot {self.name} answered {len(positions)} decisions from {where(positions[0])} with {len(moves)} moves"
            )
        for move, position in zip(moves, positions, strict=True):
            key = "keep" if position["decision"] == "keep" else "box"
            value = move.get(key) if isinstance(move, dict) else None
            ok = (
                isinstance(value, list) and len(value) <= D.N_DICE and all(type(f) is int for f in value)
                if key == "keep"
                else isinstance(value, str) and len(value) <= 100
            )
            if not ok:
                raise BotError(
                    f'bot {self.name} at {where(position)}: answered {quoted(move)}, not {{"{key}": ...}}'
                )
        self.decisions += len(positions)
        return moves

    def __repr__(self) -> str:
        return f"ProtocolBot({self.command!r})"

    def see_opponents(self, cards) -> None:
        self.opponents = tuple(cards)

    def choose_keep(self, card, dice, rolls_left, rng):
        position = position_json(card, dice, rolls_left, self.game, self.opponents)
        [move] = self.decide([position])
        return check_keep(self, position, move["keep"], dice)

    def choose_box(self, card, dice, rng):
        legal = card.placements(dice)
        position = position_json(card, dice, 0, self.game, self.opponents, placements=legal)
        [move] = self.decide([position])
        return check_box(self, position, move["box"], dice, [p.box for p in legal])


def check_keep(bot: ProtocolBot, position: dict, keep, dice: Dice) -> tuple[int, ...]:
    """``keep`` sorted, if it may be kept from ``dice`` (:func:`~solver.play.turn.keep_fault`),
    else the :class:`BotError` naming the bot and the decision."""
    keep = tuple(sorted(keep))
    fault = keep_fault(keep, dice, bot.rules)
    if fault is not None:
        raise BotError(f"bot {bot.name} at {where(position)}: {fault}")
    return keep


#: seconds a bot has to exit once its input is closed (``quit`` sent)
QUIT_GRACE = 2.0
#: seconds what is left of its process group has after SIGTERM, before SIGKILL
TERM_GRACE = 0.5


def check_box(bot: ProtocolBot, position: dict, box: str, dice: Dice, legal) -> str:
    """``box`` if it is among ``legal`` (the card's boxes open for ``dice``), else the
    :class:`BotError` naming the bot, the decision and the boxes it could have named."""
    if box not in legal:
        raise BotError(
            f"bot {bot.name} at {where(position)}: {quoted(box)} is not a legal box "
            f"for {dice} on this card (legal: {', '.join(legal)})"
        )
    return box


def _reap(proc: subprocess.Popen) -> None:
    """Close the bot's pipes, give it :data:`QUIT_GRACE` s to exit, then end its whole process
    group -- the processes it started too, which would otherwise go on holding our stderr --
    with SIGTERM and, after :data:`TERM_GRACE` s, SIGKILL; always waits for the bot.

    The bot is waited for without being reaped (``WNOWAIT``) until the group is signalled: the
    exited bot's pid, the group's id, cannot be given to another process meanwhile."""
    for pipe in (proc.stdin, proc.stdout):
        try:
            pipe.close()
        except OSError:
            pass
    if os.name != "posix" or proc.returncode is not None:  # no group to end (or reaped already)
        try:
            proc.wait(timeout=QUIT_GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return
    _exit_status(proc, QUIT_GRACE)
    _signal_group(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + TERM_GRACE
    while time.monotonic() < deadline and _group_alive(proc.pid):
        time.sleep(0.01)
    _signal_group(proc.pid, signal.SIGKILL)
    proc.wait()


def _exit_status(proc: subprocess.Popen, seconds: float) -> int | None:
    """The bot's exit code (minus the signal that ended it) if it exits within ``seconds``,
    else None; on POSIX it is left unreaped (a zombie) for :func:`_reap` to end its group first."""
    if os.name != "posix":
        try:
            return proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None
    deadline = time.monotonic() + seconds
    while True:
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # reaped already
            return proc.returncode
        if info is not None:
            return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.01)


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):  # the group is gone (or no longer the bot's)
        pass


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` other than an exited one still runs (Linux: from
    /proc; elsewhere: whether the group exists, its exited leader included)."""
    if not os.path.isdir("/proc/self"):
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (name) ": state, ppid, pgrp
        if len(fields) > 2 and fields[0] not in (b"Z", b"X") and int(fields[2]) == pgid:
            return True
    return False


def program_turn(turn: BotTurn, bot: ProtocolBot, game: int, opponents=None):
    """A bot program's turn (:class:`~solver.play.turn.BotTurn`) as a generator: yields ``(bot,
    position)`` for each decision and is sent the move; returns the card after the turn -- the
    turn :meth:`BotTurn.play` plays with :meth:`ProtocolBot.choose_keep` and
    :meth:`~ProtocolBot.choose_box`, decision for decision.  ``opponents``: the other players'
    cards shown in each position (a match)."""
    while turn.rolls_left:
        position = position_json(turn.card, turn.dice, turn.rolls_left, game, opponents)
        move = yield bot, position
        try:
            turn.keep(move["keep"])  # checked there: a keep among the dice, five only when allowed
        except IllegalMoveError as exc:
            raise BotError(f"bot {bot.name} at {where(position)}: {exc}") from None
    legal = turn.placements
    position = position_json(turn.card, turn.dice, 0, game, opponents, placements=legal)
    move = yield bot, position
    return turn.box(check_box(bot, position, move["box"], turn.dice, [p.box for p in legal]), legal)


def lockstep(steps: dict) -> dict:
    """Games played side by side: ``steps`` maps each game to a generator of its decisions (as
    :func:`program_turn` yields them: ``(bot program, position)``, sent the move back), in game
    order; returns what each generator returned, by game.  Each step every game waiting on a
    program gives its position and each program is asked for all of them in two messages (the
    second sent before the first is answered: the program thinks while the answers are applied;
    several programs think at once).  A generator that asks nothing finishes at once."""
    waiting: dict = {}  # game -> (the program it waits on, the position); in game order
    finished: dict = {}

    def advance(g, move) -> None:
        try:
            waiting[g] = steps[g].send(move)
        except StopIteration as stop:
            waiting.pop(g, None)
            finished[g] = stop.value

    for g in steps:
        advance(g, None)
    while waiting:
        asked = []
        for bot in dict.fromkeys(bot for bot, _ in waiting.values()):  # each program once, in order
            mine = [g for g, (b, _) in waiting.items() if b is bot]
            half = (len(mine) + 1) // 2
            for part in (mine[:half], mine[half:]):
                if part:
                    positions = [waiting[g][1] for g in part]
                    bot.ask(positions)
                    asked.append((bot, part, positions))
        for bot, part, positions in asked:
            for g, move in zip(part, bot.answers(positions), strict=True):
                advance(g, move)
    return finished

"""What a game counts for: the rules the terminal (``yahtzee play``) and the web app share.

A game sets the solo record only when it is one person alone in solo mode, on fresh seeded
dice (not a replay of a seed played before, not real dice, not a daily) and unassisted (no
hint, coach or undo); a daily's result is kept as the day's only for the first game of that
day.  These functions read the game's ``info`` (as saved in its file) and nothing else, so
both surfaces decide alike.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os

    from .game import Game, Player, Turn

#: the computer's levels (``play --vs-computer --level``, the web's) and the bot each one is
LEVELS = {"easy": "frequent", "medium": "greedy", "hard": "heuristic", "perfect": "optimal", "win": "win"}
#: the triple card's computer levels: its own players (:data:`solver.play.triple.TRIPLE_BOTS`)
TRIPLE_LEVELS = {"easy": "random", "medium": "greedy", "hard": "heuristic", "perfect": "triple"}
#: the name of the one person of a solo game (and of "you" against the computer)
HUMAN = "You"


def levels(rules) -> dict[str, str]:
    """The computer's levels for a rule set (level -> bot name)."""
    return TRIPLE_LEVELS if rules.triple else LEVELS


def is_solo(game: Game) -> bool:
    """One person alone (solo mode, seeded or real dice; not a daily)."""
    return len(game.players) == 1 and not game.players[0].is_bot and game.info.get("mode", "solo") == "solo"


def record_eligible(game: Game) -> bool:
    """Whether the game may set the solo record: solo, unassisted, on fresh (not replayed, not real) dice."""
    info = game.info
    return (
        is_solo(game) and info.get("dice") == "seeded" and not info.get("replay") and not info.get("assisted")
    )


def keeps_daily(game: Game) -> bool:
    """Whether the game's result is offered as the day's (one person, a daily, not a replay)."""
    return (
        len(game.players) == 1
        and not game.players[0].is_bot
        and game.info.get("mode") == "daily"
        and not game.info.get("replay")
    )


def mark_assisted(game: Game, how: str) -> bool:
    """Mark the game assisted by ``how`` (``hint``, ``coach``, ``undo``); True when this costs it
    the record (it was eligible until now: the surface says so, once)."""
    used = list(game.info.get("assisted") or [])
    if how in used:
        return False
    was_eligible = record_eligible(game)
    game.info["assisted"] = used + [how]
    return was_eligible


def start_messages(game: Game, earlier, best) -> list[str]:
    """What a surface says as a game starts: that it is a replay (``earlier``: what
    :func:`earlier_play` found) or assisted, and -- when it may set the record -- the record to
    beat (``best``: :func:`solver.play.records.solo_best`, ``None`` for none yet)."""
    info, rules_id = game.info, game.rules.id
    lines = []
    if info.get("mode") == "daily" and earlier is not None:
        lines.append(
            f"you played the daily challenge of {info.get('date')} already ({earlier['score']} points): "
            "this replay is not kept as the day's result"
        )
    elif is_solo(game) and info.get("replay"):
        lines.append(f"you played seed {info.get('seed')} before: this replay does not count for your record")
    elif is_solo(game) and info.get("assisted"):
        lines.append(f"assisted game ({', '.join(info['assisted'])}): it does not count for your record")
    if record_eligible(game):
        lines.append(
            f"your record for {rules_id}: {best['score']} ({best.get('date', '?')}); beat it!"
            if best
            else f"no record yet for {rules_id}: set one!"
        )
    return lines


def assisted_message(how: str) -> str:
    """What a surface says when ``how`` (hint, coach, undo) costs a game the record."""
    return f"({how} used: this game is marked assisted and does not count for your record)"


def record_message(game: Game, stored) -> str | None:
    """The end of a solo game in words: the record it set, or why it does not count (real dice, a
    replay, assisted); ``stored`` is what :func:`solver.play.records.store_game` returned (``None``:
    the database could not be written, nothing to say)."""
    if not is_solo(game) or stored is None:
        return None
    info, score, rules_id = game.info, game.cards[0].total, game.rules.id
    previous, is_new = stored.previous, stored.is_new_record
    if not record_eligible(game):
        why = (
            "real dice"
            if info.get("dice") == "real"
            else "a replay"
            if info.get("replay")
            else f"assisted: {', '.join(info.get('assisted') or [])}"
        )
        return f"{score} points ({why}): not counted for your record"
    if is_new and previous:
        return f"new record for {rules_id}: {score} (was {previous['score']})!"
    if is_new:
        return f"first record for {rules_id}: {score}"
    if previous["score"] == score:
        return f"you tied your record for {rules_id}: {score} (one more point beats it)"
    gap = previous["score"] - score + 1
    return f"your record for {rules_id} stays {previous['score']} ({gap} more points beat it)"


def bots_rng(game: Game) -> random.Random:
    """The random choices of a game's computer players, seeded by the game's dice (its date or
    seed), so that a game resumed or replayed on the same dice plays them alike."""
    info = game.info
    seed = info.get("seed")
    seed_text = info.get("date") or ("real" if seed is None else seed)
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
    the name): no name, a name with control characters or over :data:`MAX_NAME` characters,
    more than :data:`MAX_PLAYERS` players, an unknown level, only computers."""
    from ..core.bounded import shown
    from ..core.errors import UsageError
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
                raise UsageError(f"player {n!r}: the computer's level is one of {', '.join(table)}")
            players.append(Player(f"Computer ({level})", "bot", table[level]))
        elif len(n) > MAX_NAME:
            raise UsageError(f"player name {shown(n)} is longer than {MAX_NAME} characters")
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
    new.info = dict(game.info)
    return new, last, mark_assisted(new, "undo")


def describe_bot_turn(turn: Turn) -> str:
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

"""The English both surfaces share: the events of :mod:`solver.play.events` in words.

The terminal and the web app each lay out a game their own way (the terminal's dice rows and
card, the web's table), but the sentences a player reads -- a replay, the record, a box scored,
a computer's keeps, an undo, the chances to win -- are worded here once.  ``label`` says how a
box is named: the box name itself in the terminal (``full_house``, what ``s`` takes), the
web's :func:`solver.core.card.box_label` (``Full house``).
"""

from __future__ import annotations

from collections.abc import Callable

from . import events as ev

#: the name of the one person of a solo game (and of "you" against the computer)
HUMAN = "You"


def verb(name: str, word: str) -> str:
    """``You score`` but ``Ann scores``."""
    return f"{name} {word[:-1] if name == HUMAN else word}"


def replay_line(e: ev.Replay) -> str:
    if e.mode == "daily":
        return (
            f"you played the daily challenge of {e.date} already ({e.score} points): "
            "this replay is not kept as the day's result"
        )
    return f"you played seed {e.seed} before: this replay does not count for your record"


def assisted_line(e: ev.Assisted) -> str:
    """A help that costs the record, said once; a game that starts assisted, said at its start."""
    if e.costs_record:
        return f"({e.helps[-1]} used: this game is marked assisted and does not count for your record)"
    return f"assisted game ({', '.join(e.helps)}): it does not count for your record"


def win_pending_line(e: ev.WinPending) -> str:
    """The ``win`` level starts before its tables are ready (the terminal adds the estimate)."""
    making = "built" if e.what == "build" else "loaded"
    return (
        f"{e.name} plays for the best expected score until its win table is {making}, "
        "then to win: you will be told"
    )


def plays_to_win_line(e: ev.PlaysToWin) -> str:
    """The ``win`` level's tables are ready: it plays to win from now on."""
    if e.turns == 0:
        return f"{e.name}'s win table is ready: it plays to win from its first turn"
    n = e.turns
    return (
        f"{e.name}'s win table is ready: it now plays to win "
        f"(its first {n} turn{'s' if n != 1 else ''} played for the best expected score)"
    )


def record_to_beat_line(e: ev.RecordToBeat) -> str:
    if e.score is None:
        return f"no record yet for {e.rules}: set one!"
    return f"your record for {e.rules}: {e.score} ({e.date or '?'}); beat it!"


def scored_line(e: ev.Scored, label: Callable[[str], str] = str) -> str:
    """``You score 25 in full_house: total 120``; on the triple card with what it weighs
    (``You score 50 in yahtzee@3, x3 = 150: total 230``)."""
    bonus = f" (+{e.bonus} Yahtzee bonus)" if e.bonus else ""
    weighted = f", x{e.weight} = {e.weight * (e.points + e.bonus)}" if e.weight is not None else ""
    return f"{verb(e.name, 'scores')} {e.points} in {label(e.box)}{bonus}{weighted}: total {e.total}"


def upper_bonus_line(e: ev.Scored) -> str:
    return f"upper section reached {e.upper_threshold}: +{e.upper_bonus} bonus!"


def bot_roll_line(e: ev.Rolled) -> str:
    """A computer's roll: ``  rolls 1 2 3 4 5`` or ``  keeps 3 3, rolls again: 3 3 1 5 6``."""
    dice = " ".join(map(str, e.dice))
    if e.roll == 1:
        return f"  rolls  {dice}"
    kept = " ".join(map(str, e.kept)) or "nothing"
    return f"  keeps {kept}, rolls again: {dice}"


def bot_turn_lines(rolls: list[ev.Rolled], scored: ev.Scored) -> list[str]:
    """A computer's whole turn of rolls, ``  stops`` when it stopped with rolls left."""
    return [bot_roll_line(r) for r in rolls] + (["  stops"] if scored.stopped else [])


def undone_line(e: ev.Undone, label: Callable[[str], str] = str) -> str:
    return f"undone: {e.points} in {label(e.box)}; back to turn {e.round}"


def chances_line(e: ev.Chances) -> str:
    return "chances to win: " + ", ".join(
        f"{n} {100 * c:.1f}%" for n, c in zip(e.names, e.chances, strict=True)
    )


def record_line(r: ev.RecordOutcome) -> str:
    """The end of a solo game and the record in words."""
    if r.why_not is not None:
        return f"{r.score} points ({r.why_not}): not counted for your record"
    if r.is_new and r.previous is not None:
        return f"new record for {r.rules}: {r.score} (was {r.previous})!"
    if r.is_new:
        return f"first record for {r.rules}: {r.score}"
    if r.previous == r.score:
        return f"you tied your record for {r.rules}: {r.score} (one more point beats it)"
    return f"your record for {r.rules} stays {r.previous} ({r.previous - r.score + 1} more points beat it)"


def same_dice_line(s: ev.SameDice) -> str:
    """``the optimal player scored 231 on your dice: You 212 (-19)`` (the triple card's player
    is the best known, not proven optimal: ``the triple player (best-known) ...``)."""
    whose = "your" if s.name == HUMAN else f"{s.name}'s"
    known = "" if s.bot == "optimal" else " (best-known)"
    return f"the {s.bot} player{known} scored {s.best} on {whose} dice: {s.name} {s.score} ({s.score - s.best:+d})"


def winner_line(over: ev.GameOver) -> str:
    """Who won a game of two or more."""
    if len(over.winners) == 1:
        return f"{verb(over.winners[0], 'wins')}!"
    best = max(t for _, t in over.totals)
    return f"tie: {' and '.join(over.winners)} share the win with {best}"


def coach_line(judged: list[ev.Judged], label: Callable[[str], str] = str) -> str:
    """The coach's verdict on one command, in one line: a keep (``coach: keep 3 5 cost 1.69
    expected points; best: keep 3 3, reroll three dice``) or a box -- with the stop before it
    when the player stopped with rolls left (``coach: stop: chance (19) cost ...``), the two
    decisions' losses added (together, what the command lost against the best move)."""
    from .review import describe

    box = next((j for j in judged if j.decision == "box"), None)
    main = box if box is not None else judged[-1]
    mine = describe(main.choice, label)
    if box is not None and len(judged) > 1:
        mine = f"stop: {mine}"
    wrong = next((j for j in judged if j.mistake), None)
    if wrong is None:
        return f"coach: {mine}: best move (0 points lost)"
    loss = sum(j.loss for j in judged)
    return f"coach: {mine} cost {loss:.2f} expected points; best: {wrong.best.describe(label)}"

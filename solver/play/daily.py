"""The daily challenge: one dice sequence per date for everyone, and the summary to share.

The dice of date ``D`` come from :class:`solver.core.streams.DailyStream` (version 1:
sha256 of ``"yahtzee-solver daily v1 D n"`` for blocks ``n = 0, 1, ...``, bytes
below 252 taken as ``1 + b % 6``).  Each roll takes the next five dice of the
sequence, also for held dice, so choices change the score but never the luck;
the optimal player's score on the same sequence is the day's target.
"""

from __future__ import annotations

import datetime as _dt

from ..core.card import box_label
from ..core.errors import UsageError
from ..core.rules import RuleSet, get_rules
from .game import Game, Player, play_out


def parse_date(text: str | None) -> str:
    """An ISO date ``YYYY-MM-DD`` (``None``, ``""`` or ``today`` give today's local date)."""
    if text is None or str(text).strip().lower() in ("", "today"):
        return _dt.date.today().isoformat()
    try:
        return _dt.date.fromisoformat(str(text).strip()).isoformat()
    except ValueError:
        raise UsageError(f"daily date {text!r} is not an ISO date like 2026-10-17") from None


def released_date(date: str) -> str:
    """``date`` (ISO) when its daily challenge is out: today or earlier (local date); a usage
    error for a day still to come (everyone gets the day's dice on the day)."""
    today = _dt.date.today().isoformat()
    if date > today:
        raise UsageError(f"the daily challenge of {date} is not out yet (today is {today})")
    return date


def optimal_bot(rules: RuleSet, tables_dir=None):
    """The optimal bot of :mod:`solver.play.bots` (its table is built when missing, progress on
    stderr; six dice: never built, a missing table raises); on the triple card the best-known
    player, ``triple``."""
    from .bots import get_bot

    return get_bot(best_bot_name(rules), rules, tables_dir, build_if_missing=rules.n_dice == 5)


def best_bot_name(rules: RuleSet) -> str:
    """The bot whose score on the day's dice is the day's target."""
    return "triple" if rules.triple else "optimal"


def optimal_game(date: str, rules: str | RuleSet | None = None, tables_dir=None, bot=None) -> Game:
    """The optimal player's game on the dice of ``date``."""
    rules = get_rules(rules)
    # six dice too: the optimal player reads the maxi table (never built for a game: a missing
    # one raises, and the day is summed up without its target -- solver.play.session)
    bot = bot or optimal_bot(rules, tables_dir)
    name = best_bot_name(rules)
    return play_out(Game.new(rules, [Player(name, "bot", name)], date=date, info={"mode": "daily"}), bot)


def game_name(rules: RuleSet) -> str:
    """The game's name for people: ``Yahtzee``, ``Yatzy`` or ``Yacht`` (the base of the rule set)."""
    return rules.id.split("+")[0].split("-")[0].capitalize()


def share_line(date: str, rules: RuleSet, name: str, score: int, optimal=None, notes=()) -> str:
    """The day's result in one line, to paste in a chat: ``Yahtzee daily 2026-10-17: Ann 179,
    optimal player 251 (-72)`` (the rule set in brackets after the date when it is not the plain
    game: ``Yatzy daily 2026-10-17 (yatzy+all-rolls): ...``); ``optimal`` (the best player's score on the same dice,
    the triple player's on the triple card) and ``notes`` (``replay``, ``assisted: hint``) when
    known."""
    marks = f" ({'; '.join(notes)})" if notes else ""
    game = game_name(rules)
    which = "" if rules.id == game.lower() else f" ({rules.id})"  # the rules when not the plain game's
    line = f"{game} daily {date}{which}: {name} {score}{marks}"
    if optimal is not None:
        best = round(optimal)
        line += f", {'triple' if rules.triple else 'optimal'} player {best} ({score - best:+d})"
    return line


def share_text(date: str, rules: RuleSet, name: str, card, optimal: int | None, notes=()) -> str:
    """The summary of a daily game to paste anywhere: :func:`share_line`, then the card -- every
    box named for people (``Ones 3 | Twos 6 | ...``), or on the triple card the columns' weighted totals."""
    lines = [share_line(date, rules, name, card.total, optimal, notes)]
    if rules.triple:  # the columns' weighted totals
        lines.append(
            " | ".join(
                f"column {c + 1} x{w} {t}"
                for c, (w, t) in enumerate(zip(rules.weights, card.column_totals, strict=True))
            )
        )
        return "\n".join(lines)
    boxes = [
        f"{box_label(n)} {'-' if s is None else s}" for n, s in zip(rules.box_names, card.scores, strict=True)
    ]
    upper = [boxes[i] for i in rules.upper_indices]
    if rules.has_upper_bonus:
        upper.append(f"Upper bonus {card.upper_bonus}")
    if upper:
        lines.append(" | ".join(upper))
    lower = " | ".join(boxes[i] for i in rules.lower_indices)
    if rules.bonus:
        lower += f" | Yahtzee bonus {card.yahtzee_bonus_points}"
    lines.append(lower)
    return "\n".join(lines)

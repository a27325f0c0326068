"""The play page's view of a game: a :class:`~solver.play.session.Session` as JSON.

:func:`game_state` is what ``GET /api/games/ID`` and every move answer: the game (dice, holds,
every card, each open box's preview and why a box is refused), and the last move's events
rendered (:func:`render_events`: sentences for people, the coach's verdicts, the events as
data).  Only rendering: the game's flow is the session's.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..core.card import box_label, placement_note
from ..core.errors import SolverError
from ..play import words


def game_state(game_id: str, session, review=None) -> dict:
    """The game as the play page shows it (JSON-ready): the game itself, and the last move's
    events rendered (``events``: sentences; ``coach``: the verdicts; ``moves``: the events
    as data).  ``review``: how a finished game's review is made (``session`` in, its JSON or
    ``None`` out; default :func:`session_review`)."""
    g = session.game
    rules = g.rules
    over = g.is_over
    shown = 0 if over else g.current  # whose card has the previews: the player to move
    # the legal boxes of the roll, once: what each scores (the preview) and its Yahtzee bonus
    placements = {} if over or g.dice is None else {p.box: p for p in g.card.placements(g.sorted_dice)}
    preview = {box: p.score for box, p in placements.items()}
    reasons: dict[str, str] = {}
    if g.has_rolled and not over:
        for name in g.card.open_boxes:
            if name not in preview:
                try:
                    g.card.score(name, g.sorted_dice)
                except SolverError as exc:
                    reasons[name] = people_words(str(exc), g.card.box_names)
    cards = [{"name": p.name, "kind": p.kind} | card_json(c) for p, c in zip(g.players, g.cards, strict=True)]
    boxes = []
    card = g.cards[shown]
    upper = {rules.single.box_names[i] for i in rules.single.upper_indices}
    for name in card.box_names:  # ``fours`` or, on the triple card, ``fours@3``
        category, _, column = name.partition("@")
        boxes.append(
            {
                "name": name,
                "label": box_label(name),
                "upper": category in upper,
                "score": card.get(name),
                "preview": preview.get(name),
                "bonus": placements[name].bonus if name in placements else 0,  # besides its score
                "allowed": name in preview,
                "reason": reasons.get(name),
            }
            | ({"column": int(column), "category": category} if column else {})
        )
    info = g.info
    humans_turn = not over and not g.players[shown].is_bot
    end = session.outcome
    path = session.path
    out = {
        "id": game_id,
        "version": session.moves,
        "rules": rules.id,
        "title": rules.title,
        "mode": info.mode,
        "level": info.level,
        # the win level's tables still being read: its computer plays for expected score until then
        "win_pending": session.win_pending,
        "date": info.date,
        "seed": info.seed,
        "status": "finished" if over else session.status,
        "over": over,
        "round": min(g.round, g.n_rounds),
        "n_rounds": g.n_rounds,
        "current": shown,
        "player": g.players[shown].name,
        "dice": None if over or g.dice is None else list(g.dice),
        "held": list(g.held),
        "n_dice": g.n_dice,  # five; six in Maxi Yatzy
        "rolls_left": g.rolls_left,
        "must_use_all_rolls": rules.all_rolls,
        # real dice: the page asks for the faces of the dice rolled (how many: dice_to_roll)
        "real_dice": g.needs_values if not over else False,
        "dice_to_roll": g.dice_to_roll,
        "can_undo": humans_turn and session.can_undo,
        # why the Joker rule (or a fill order) forbids some open boxes, once for the card
        "placement_note": placement_note(g.card, g.sorted_dice) if humans_turn and g.has_rolled else None,
        "chances": session.chances(),
        "coach_on": session.coach,
        "upper_threshold": rules.upper_threshold if rules.has_upper_bonus and not rules.triple else None,
        "weights": list(rules.weights),
        "boxes": boxes,
        "players": cards,
        "warnings": list(session.warnings),
        "winners": g.winners() if over else [],
        "path": str(path),
        "review_command": f"yahtzee review {path}",
        "saved": path.name,  # the name of the saved game: /review?game=NAME
        "record": None if end is None or end.record is None else words.record_line(end.record),
        "share": end.shares[0][1] if end is not None and end.shares else None,
        "optimal": None if end is None else end.optimal,
        "same_dice": [] if end is None else [words.same_dice_line(s) for s in end.same_dice],
        "review": (review or session_review)(session) if over else None,
    }
    return out | render_events(session.last)


def render_events(events) -> dict:
    """The last move's events for the play page: ``events`` in sentences (boxes named for
    people, a computer's turn as its rolls), ``coach`` the verdicts, ``moves`` the events as data."""
    from ..play import events as ev
    from ..play.review import describe

    lines: list[str] = []
    coach: list[dict] = []
    rolls: list = []
    for e in events:
        if isinstance(e, ev.Opened) and e.resumed_turns is not None:
            n = e.resumed_turns
            # the saved game by its name, not the data folder's full path
            lines.append(f"resumed from {Path(e.path).name}: {n} turn{'s' if n != 1 else ''} played")
        elif isinstance(e, ev.Replay):
            lines.append(words.replay_line(e))
        elif isinstance(e, ev.Assisted):
            lines.append(words.assisted_line(e))
        elif isinstance(e, ev.RecordToBeat):
            lines.append(words.record_to_beat_line(e))
        elif isinstance(e, ev.WinPending):
            lines.append(words.win_pending_line(e))
        elif isinstance(e, ev.PlaysToWin):
            lines.append(words.plays_to_win_line(e))
        elif isinstance(e, ev.Rolled) and e.is_bot:
            rolls.append(e)
        elif isinstance(e, ev.Scored):
            if e.is_bot:
                lines.append(f"{e.name}:\n" + "\n".join(words.bot_turn_lines(rolls, e)))
                rolls = []
            lines.append(words.scored_line(e, box_label))
            if e.upper_bonus and not e.is_bot:
                lines.append(words.upper_bonus_line(e))
        elif isinstance(e, ev.Undone):
            lines.append(words.undone_line(e, box_label))
        elif isinstance(e, ev.Abandoned):
            lines.append("game abandoned")
        elif isinstance(e, ev.Judged):
            coach.append(
                {
                    "decision": e.decision,  # keep or box: a stop-and-score is one of each
                    "choice": describe(e.choice, box_label),
                    "best": describe(e.best, box_label),
                    "loss": round(e.loss, 6),
                    "mistake": e.mistake,
                }
            )
    moves = [e.to_json() for e in events if not isinstance(e, (ev.Hinted, ev.Warned))]
    return {"events": lines, "coach": coach, "moves": moves}


def people_words(text: str, names) -> str:
    """``text`` with the internal box names in it (``three_of_a_kind``, ``fours@3``) as people
    read them (``Three of a kind``, ``Fours (column 3)``)."""
    known = sorted({n for n in names} | {n.partition("@")[0] for n in names}, key=len, reverse=True)
    if not known:
        return text
    pattern = re.compile(r"(?<![\w@])(" + "|".join(re.escape(n) for n in known) + r")(?![\w@])")
    return pattern.sub(lambda m: box_label(m.group(1)), text)


def card_json(card) -> dict:
    """A card as the pages read it: its boxes' scores, upper total and bonuses, total; a card of
    columns (the triple card) as its columns, each with its weight."""
    if hasattr(card, "columns"):
        columns = [card_json(col) | {"weight": w} for w, col in zip(card.weights, card.columns, strict=True)]
        return {
            "card": str(card),
            "columns": columns,
            # the play page's one table: every box in ``box_names`` order, the weighted bonuses
            "scores": [card.get(name) for name in card.box_names],
            "upper_total": None,
            "upper_bonus": sum(
                w * col.upper_bonus for w, col in zip(card.weights, card.columns, strict=True)
            ),
            "yahtzee_bonus": sum(
                w * col.yahtzee_bonus_points for w, col in zip(card.weights, card.columns, strict=True)
            ),
            "total": card.total,
        }
    return {
        "card": str(card),
        "scores": list(card.scores),
        "upper_total": card.upper_total,
        "upper_bonus": card.upper_bonus,
        "yahtzee_bonus": card.yahtzee_bonus_points,
        "total": card.total,
    }


def session_review(session) -> list[dict]:
    """A finished game's review as the page shows it: each person's decisions, boxes named for
    people."""
    return [r.to_json(box_label) for r in session.review()]

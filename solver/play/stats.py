"""Statistics of the games finished in a data folder (``yahtzee stats``, the web's stats page).

Per rule set: how many games and in which mode, the average (and unassisted, fresh-dice
average), the best and the record, the hot-seat games (counted apart: whose card is the
person's is not known), the upper-bonus and five-of-a-kind rates, a histogram of
the scores in bins of :data:`BIN` points; and the daily results with the streak.  Only the
person's own card counts: the first player of a solo, daily or vs-computer game.
"""

from __future__ import annotations

import datetime as dt
import os
import sys

from ..core.triple_card import parse_card

#: width of a histogram bin, in points
BIN = 25
#: the modes whose first player is the person whose statistics these are
MODES = ("solo", "daily", "vs-computer")


def statistics(
    data: str | os.PathLike | None = None, rules_id: str | None = None, *, history: int | None = None
) -> dict:
    """``{"rules": {RULES: summary}, "daily": daily summary}`` (what ``yahtzee stats --json``
    prints): every rule set with a finished game of the person (or just ``rules_id``, a
    canonical id); ``history`` keeps only the last so many daily results (``played`` still
    counts them all).  Stored games that cannot be read are skipped with a warning on stderr."""
    from .records import daily_results, finished_games, solo_best

    games = finished_games(data, rules_id)
    dailies = daily_results(data, rules_id)
    by_rules: dict[str, list[dict]] = {}
    hot_seat: dict[str, int] = {}  # whose card is the person's is not known: counted apart
    for g in games:
        if my_score(g) is not None and _readable(g):
            by_rules.setdefault(g["rules"], []).append(g)
        elif g.get("mode") == "hot-seat" and isinstance(g.get("rules"), str):
            hot_seat[g["rules"]] = hot_seat.get(g["rules"], 0) + 1
    ids = sorted(set(by_rules) | set(hot_seat) | ({rules_id} if rules_id else set()))
    records = {rid: solo_best(rid, data) for rid in ids}
    result = {
        "rules": {
            rid: summarise(rid, by_rules.get(rid, []), records.get(rid)) | {"hot_seat": hot_seat.get(rid, 0)}
            for rid in ids
        },
        "daily": daily_summary(dailies, history),
    }
    for entry in result["daily"]["history"]:
        entry["share"] = daily_share(entry, games)
    return result


def daily_share(entry: dict, games: list[dict]) -> str | None:
    """A kept daily result as the one line a player pastes (:func:`solver.play.daily.share_line`),
    marked assisted when its game was (the first finished daily game of that day and rule set
    with that score, not a replay); None for a rule set this version does not know."""
    from ..core.errors import SolverError
    from ..core.rules import get_rules
    from .daily import share_line

    try:
        rules = get_rules(entry["rules"])
    except SolverError:
        return None
    game = next(
        (
            g
            for g in games
            if g.get("mode") == "daily"
            and not g.get("replay")
            and g.get("date") == entry["date"]
            and g.get("rules") == entry["rules"]
            and my_score(g) == entry["score"]
        ),
        None,
    )
    assisted = game.get("assisted") if game is not None else None
    notes = [f"assisted: {', '.join(map(str, assisted))}"] if isinstance(assisted, list) and assisted else []
    return share_line(entry["date"], rules, str(entry["name"]), entry["score"], entry.get("optimal"), notes)


def my_score(game: dict) -> int | None:
    """The score of the person in a finished game (the first player, when a person)."""
    players, final = game.get("players") or [], game.get("final") or []
    if not isinstance(players, list) or not isinstance(final, list):
        return None
    if game.get("mode") not in MODES or not players or not final:
        return None
    first = players[0]
    if isinstance(first, dict) and first.get("kind", "human") != "human":
        return None
    score = final[0].get("score") if isinstance(final[0], dict) else None
    return score if isinstance(score, int) and not isinstance(score, bool) else None


def _readable(game: dict) -> bool:
    """Whether a stored game's rule set and the person's final card can be read (a row of the
    database that is not one this program wrote is skipped with a warning)."""
    from ..core.bounded import clipped, shown
    from ..core.errors import SolverError
    from ..core.rules import get_rules

    try:
        if not isinstance(game.get("rules"), str):
            raise SolverError(f"rules {shown(game.get('rules'))} is not a rule set")
        card_text = game["final"][0].get("card")
        if not isinstance(card_text, str):
            raise SolverError(f"the final card {shown(card_text)} is not a card")
        card = parse_card(card_text, get_rules(game["rules"]))
        if card.total != my_score(game):
            raise SolverError(f"the final card makes {card.total}, the score says {my_score(game)}")
    except SolverError as exc:
        why = clipped(str(exc), 200)
        when = shown(game.get("saved_at"))
        sys.stderr.write(f"yahtzee: warning: a stored game (saved_at {when}) is skipped: {why}\n")
        return False
    return True


def summarise(rules_id: str, games: list[dict], record: dict | None) -> dict:
    """One rule set's figures from its finished games (each readable: :func:`statistics` checks)."""
    from ..core.rules import get_rules

    rules = get_rules(rules_id)
    scores = [my_score(g) for g in games]
    bonus = yahtzees = 0.0
    for g in games:
        card = parse_card(g["final"][0]["card"], rules)
        columns = getattr(card, "columns", (card,))  # the triple card: the share of its columns
        for col in columns:
            rows = [
                i
                for i, n in enumerate(col.rules.box_names)
                if n in ("yahtzee", "yatzy", "yacht", "maxi_yatzy")
            ]
            bonus += bool(col.upper_bonus) / len(columns)
            yahtzees += any((col.scores[i] or 0) > 0 for i in rows) / len(columns)
    n = len(scores)
    fresh = [sc for sc, g in zip(scores, games, strict=True) if _fresh(g)]
    fair = [sc for sc, g in zip(scores, games, strict=True) if _fresh(g) and not g.get("assisted")]
    histogram: dict[str, int] = {}
    for s in sorted(scores):
        lo = s // BIN * BIN
        key = f"{lo}-{lo + BIN - 1}"
        histogram[key] = histogram.get(key, 0) + 1
    return {
        "games": n,
        "by_mode": {m: sum(g.get("mode") == m for g in games) for m in MODES},
        "assisted": sum(bool(g.get("assisted")) for g in games),
        "replays": sum(bool(g.get("replay")) for g in games),
        "real_dice": sum(g.get("dice") == "real" for g in games),
        "average": round(sum(scores) / n, 2) if n else None,
        "unassisted_average": round(sum(fair) / len(fair), 2) if fair else None,
        "best": max(fresh) if fresh else None,  # on the program's dice, never a replay
        "record": record["score"] if record else None,
        "upper_bonus_rate": round(bonus / n, 4) if n else None,
        "five_of_a_kind_rate": round(yahtzees / n, 4) if n else None,
        "histogram": histogram,
    }


def daily_summary(dailies: list[dict], history: int | None = None) -> dict:
    """The kept daily results and the streak: consecutive days up to the last one played
    (``streak`` is 0 once a day has been missed since; ``last_streak`` is that run's length)."""
    days = sorted({d["date"] for d in dailies})
    streak = 0
    if days:
        last = dt.date.fromisoformat(days[-1])
        have = set(days)
        while (last - dt.timedelta(days=streak)).isoformat() in have:
            streak += 1
        if last < dt.date.today() - dt.timedelta(days=1):
            current = 0
        else:
            current = streak
    else:
        current = 0
    kept = dailies if history is None else dailies[len(dailies) - min(history, len(dailies)) :]
    return {"played": len(dailies), "streak": current, "last_streak": streak, "history": kept}


def _fresh(game: dict) -> bool:
    """Whether a game was played on fresh dice of the program's: not typed in from a table (real
    dice prove nothing), not a seed played before."""
    return game.get("dice") != "real" and not game.get("replay")

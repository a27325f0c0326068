"""``yahtzee stats``: your games from the records database -- counts, averages, best, record,
bonus and Yahtzee rates, the daily history and streak, a histogram of the scores."""

from __future__ import annotations

import json
import sys

from ..core.triple_card import parse_card
from . import add_data, add_json, add_rules

#: width of a histogram bin, in points
BIN = 25
BAR = 40


def register(sub) -> None:
    p = sub.add_parser(
        "stats",
        help="your statistics: games, average, best, record, bonus rates, daily streak, histogram",
        description="Statistics of the games you finished (solo, daily and against the computer: "
        "your own card), from the records database of the data folder.",
    )
    add_rules(p, one="one rule set (default: every one played)")
    add_json(p)
    add_data(p)
    p.set_defaults(func=run_stats)


def run_stats(args) -> int:
    from ..core.rules import get_rules
    from ..play.records import daily_results, finished_games, solo_best

    rules_id = get_rules(args.rules).id if args.rules is not None else None
    games = finished_games(args.data, rules_id)
    dailies = daily_results(args.data, rules_id)
    by_rules: dict[str, list[dict]] = {}
    for g in games:
        if _my_score(g) is not None and _readable(g):
            by_rules.setdefault(g["rules"], []).append(g)
    ids = sorted(set(by_rules) | ({rules_id} if rules_id else set()))
    records = {rid: solo_best(rid, args.data) for rid in ids}
    result = {
        "rules": {rid: summarise(rid, by_rules.get(rid, []), records.get(rid)) for rid in ids},
        "daily": daily_summary(dailies),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(format_stats(result))
    return 0


def _my_score(game: dict) -> int | None:
    """The score of the person in a finished game (the first player, when a person)."""
    players, final = game.get("players") or [], game.get("final") or []
    if not isinstance(players, list) or not isinstance(final, list):
        return None
    if game.get("mode") not in ("solo", "daily", "vs-computer") or not players or not final:
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
        if card.total != _my_score(game):
            raise SolverError(f"the final card makes {card.total}, the score says {_my_score(game)}")
    except SolverError as exc:
        why = clipped(str(exc), 200)
        when = shown(game.get("saved_at"))
        sys.stderr.write(f"yahtzee: warning: a stored game (saved_at {when}) is skipped: {why}\n")
        return False
    return True


def summarise(rules_id: str, games: list[dict], record: dict | None) -> dict:
    from ..core.rules import get_rules

    rules = get_rules(rules_id)
    scores = [_my_score(g) for g in games]
    bonus = yahtzees = 0.0
    for g in games:
        card = parse_card(g["final"][0]["card"], rules)
        columns = getattr(card, "columns", (card,))  # the triple card: the share of its columns
        for col in columns:
            rows = [i for i, n in enumerate(col.rules.box_names) if n in ("yahtzee", "yatzy", "yacht")]
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
        "by_mode": {m: sum(g.get("mode") == m for g in games) for m in ("solo", "daily", "vs-computer")},
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


def daily_summary(dailies: list[dict]) -> dict:
    """The kept daily results and the streak: consecutive days up to the last one played."""
    import datetime as dt

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
    return {"played": len(dailies), "streak": current, "last_streak": streak, "history": dailies}


def format_stats(result: dict) -> str:
    lines = []
    if not result["rules"]:
        lines.append("no finished games yet: yahtzee play")
    for rid, s in result["rules"].items():
        lines.append(f"{rid}: {s['games']} game{'s' if s['games'] != 1 else ''} finished")
        if not s["games"]:
            continue
        modes = ", ".join(f"{v} {k}" for k, v in s["by_mode"].items() if v)
        real = f", {s['real_dice']} on real dice" if s["real_dice"] else ""
        lines.append(f"  modes        {modes} ({s['assisted']} assisted, {s['replays']} replays{real})")
        fair = s["unassisted_average"]
        lines.append(
            f"  average      {s['average']:.1f} ({'-' if fair is None else f'{fair:.1f}'} unassisted, "
            f"no replays, no real dice)   best {s['best'] if s['best'] is not None else '-'}   "
            f"record {s['record'] or '-'}"
        )
        lines.append(
            f"  upper bonus  {s['upper_bonus_rate']:.0%}   five of a kind {s['five_of_a_kind_rate']:.0%}"
        )
        top = max(s["histogram"].values())
        for key, count in s["histogram"].items():
            bar = "#" * max(1, round(count * BAR / top))
            lines.append(f"  {key:>9}  {bar} {count}")
    d = result["daily"]
    if d["played"]:
        lines.append(f"daily: {d['played']} played, streak {d['streak']} (last run {d['last_streak']} days)")
        for entry in d["history"][-10:]:
            opt = f" (optimal {entry['optimal']:.0f})" if entry.get("optimal") is not None else ""
            lines.append(f"  {entry['date']}  {entry['rules']}  {entry['score']}{opt}")
    return "\n".join(lines)


def _fresh(game: dict) -> bool:
    """Whether a game was played on fresh dice of the program's: not typed in from a table (real
    dice prove nothing), not a seed played before."""
    return game.get("dice") != "real" and not game.get("replay")

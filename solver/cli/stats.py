"""``yahtzee stats``: your games from the records database -- counts, averages, best, record,
bonus and Yahtzee rates, the daily history and streak, a histogram of the scores."""

from __future__ import annotations

import json

from . import add_data, add_json, add_rules, fit_text

#: the longest bar of the histogram, in characters
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
    from ..play.stats import statistics

    rules_id = get_rules(args.rules).id if args.rules is not None else None
    result = statistics(args.data, rules_id)
    if args.json:
        print(json.dumps(result))
    else:
        print(fit_text(format_stats(result), hang=15))  # under the figures (a long rule id wraps)
    return 0


def plural(n: int, word: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def format_stats(result: dict) -> str:
    from ..play.stats import BIN

    lines = []
    if not result["rules"]:
        lines.append("no finished games yet: yahtzee play")
    for rid, s in result["rules"].items():
        hot = s.get("hot_seat", 0)
        apart = f" (and {plural(hot, 'hot-seat game')}, not in these figures)" if hot else ""
        lines.append(f"{rid}: {plural(s['games'], 'game')} finished{apart}")
        if not s["games"]:
            continue
        modes = ", ".join(f"{v} {k}" for k, v in s["by_mode"].items() if v)
        real = f", {s['real_dice']} on real dice" if s["real_dice"] else ""
        lines.append(
            f"  modes        {modes} ({s['assisted']} assisted, {plural(s['replays'], 'replay')}{real})"
        )
        fair = s["unassisted_average"]
        fair_text = "none yet" if fair is None else f"{fair:.1f}"
        lines.append(f"  average      {s['average']:.1f}; unassisted on fresh dice: {fair_text}")
        best = "no game on fresh dice yet" if s["best"] is None else f"{s['best']} on fresh dice"
        record = "no solo record yet" if s["record"] is None else f"solo record {s['record']}"
        lines.append(f"  best         {best} (no replays, no real dice); {record}")
        from ..core.rules import get_rules

        kind = "six of a kind" if get_rules(rid).n_dice == 6 else "five of a kind"  # all the dice
        lines.append(f"  upper bonus  {s['upper_bonus_rate']:.0%}   {kind} {s['five_of_a_kind_rate']:.0%}")
        lines.append(f"  scores of all {plural(s['games'], 'game')}, in bins of {BIN} points:")
        top = max(s["histogram"].values())
        for key, count in s["histogram"].items():
            bar = "#" * max(1, round(count * BAR / top))
            lines.append(f"  {key:>9}  {bar} {count}")
    d = result["daily"]
    if d["played"]:
        lines.append(
            f"daily: {d['played']} played, streak {d['streak']} (last run {plural(d['last_streak'], 'day')})"
        )
        for entry in d["history"][-10:]:
            opt = f" (optimal {entry['optimal']:.0f})" if entry.get("optimal") is not None else ""
            lines.append(f"  {entry['date']}  {entry['rules']}  {entry['score']}{opt}")
    return "\n".join(lines)

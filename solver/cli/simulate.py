"""``yahtzee simulate``: play many seeded games with a bot and report its strength."""

from __future__ import annotations

import argparse
import json

from . import (
    add_json,
    add_png,
    add_quiet,
    add_rules,
    add_seed_and_threads,
    add_tables,
    add_target,
    add_worst,
    bot_descriptions,
    check_png,
    check_threads,
    fit,
    fit_text,
    whole,
    write_png_after_report,
)

HIST_BIN = 25  # points per bin of the text histogram


def register(sub) -> None:
    from ..play.simulate import MAX_GAMES, MAX_WORST

    p = sub.add_parser(
        "simulate",
        help="play many seeded games with a bot and report its strength",
        description=(
            "Play many seeded games and report the score distribution. Game g of seed S always gets "
            "the same dice (each roll takes the next five dice of its stream, also for kept dice), so "
            "--vs compares two bots on identical luck. Bots: "
            + bot_descriptions()
            + "; or module:attr for your own. "
            "On the triple card (--rules triple): triple, tuned, floor, heuristic, greedy, random."
        ),
    )
    add_rules(p)
    p.add_argument("--bot", default="optimal", metavar="NAME", help="bot to measure (default: optimal)")
    p.add_argument(
        "--games",
        type=whole(),
        default=100_000,
        metavar="N",
        help=f"games to play (default 100000, at most {MAX_GAMES:,}: results are kept per game)",
    )
    add_seed_and_threads(p, "worker threads (default: all cores; the scores do not depend on it)")
    p.add_argument("--vs", metavar="BOT", default=None, help="also play BOT on the same dice and compare")
    add_json(p, "print one JSON object (report and settings)")
    add_png(p, "--hist", "write a histogram of final scores")
    add_target(p, "also report the share of games scoring at least T (default with --bot target:T: T)")
    p.add_argument(
        "--regret",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="grade every decision against the table and report the strength gap to optimal both "
        "ways: the decisions' loss (without the luck of the dice) beside the score difference "
        "with optimal on the same dice (default: when the rule set has a table, built or shipped "
        "with the package; --regret builds a missing one)",
    )
    add_worst(
        p,
        "write the costliest decisions as JSON lines (positions that yahtzee hint --batch FILE "
        "reads, with the game, turn, loss, the move played and the best)",
        DEFAULT_WORST,
        MAX_WORST,
    )
    p.add_argument(
        "--workers",
        type=whole(1, 256),
        default=None,
        metavar="N",
        help="split the games over N local processes, this one included (the same results as one "
        "process); each worker takes a second or more to start, so for short runs one process, with "
        "its threads, is faster (a note says so)",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help='play the games on a Dask cluster, e.g. tcp://host:8786 (pip install -e ".[cluster]"; '
        "the same results as one process)",
    )
    add_quiet(p)
    add_tables(p)
    p.set_defaults(func=run_simulate)


DEFAULT_WORST = 100  # decisions written by --worst


def grades(args, rules) -> bool:
    """Whether ``simulate`` grades the decisions: ``--regret``/``--no-regret``, else when the rule
    set has a table -- built in the tables folder or shipped with the package -- (or ``--worst``
    asks for the worst decisions)."""
    from ..core.errors import UsageError

    if args.worst is not None and args.regret is False:
        raise UsageError("--worst writes graded decisions: it does not go with --no-regret")
    if args.regret is not None:
        return args.regret
    if args.worst is not None:
        return True
    from ..engine.tables import table_available

    return table_available(rules, args.tables)


def check_output(option: str, path: str) -> None:
    """Before the work: ``path`` can be written (its folder exists, it is no folder itself)."""
    import os

    from ..core.errors import UsageError

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{option} {path!r}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise UsageError(f"{option} {path!r} is a folder")


def target_shares(results, target: int) -> dict:
    """The share of games scoring at least ``target`` per bot (with its standard error) and,
    for two bots on the same dice, the paired difference of the shares."""
    import numpy as np

    hits = [(r.scores >= target).astype(np.float64) for r in results]
    n = len(hits[0])
    out = {
        "target": target,
        "shares": [
            {
                "bot": r.bot,
                "share_at_least_target": float(h.mean()),
                "standard_error": float(h.std() / np.sqrt(n)),
            }
            for r, h in zip(results, hits, strict=True)
        ],
    }
    if len(hits) == 2:
        d = hits[0] - hits[1]
        out["paired_difference"] = float(d.mean())
        out["paired_standard_error"] = float(d.std() / np.sqrt(n))
    return out


def _check_bot_name(name: str) -> None:
    from ..core.errors import UsageError
    from ..play.bots import BOTS, MATCH_BOTS

    if name.strip().lower() not in BOTS and name.strip().lower() not in MATCH_BOTS and ":" not in name:
        raise UsageError(f"unknown bot {name!r} (known: {', '.join(BOTS)}, or module:attr for your own)")


def run_split(args, rules, name: str, grade: bool, worst: int, progress: bool):
    """``--workers N`` / ``--cluster ADDRESS``: the games split by ranges
    (:func:`solver.play.distributed.simulate_parallel`), with a progress bar."""
    import sys

    from ..engine.playout import progress_ticks
    from ..play.distributed import simulate_parallel

    with progress_ticks(progress, args.games, f"{name} on {rules.id}") as tick:
        result = simulate_parallel(
            rules,
            name,
            args.games,
            args.seed,
            workers=args.workers,
            cluster=args.cluster,
            tables_dir=args.tables,
            regret=grade,
            worst=worst,
            progress=tick,
        )
    note = getattr(result.split, "note", None)
    if note is not None:
        sys.stderr.write(fit(f"yahtzee: {note}") + "\n")
    return result


def run_simulate(args) -> int:
    import time

    from ..core.errors import UsageError
    from ..core.rules import get_rules
    from ..play.simulate import MAX_GAMES, paired, simulate

    rules = get_rules(args.rules)
    if args.games < 1:
        raise UsageError(f"--games must be 1 or more, got {args.games}")
    if args.games > MAX_GAMES:
        raise UsageError(
            f"--games must be at most {MAX_GAMES:,} (the results are kept per game; play more as "
            f"several runs with other seeds), got {args.games:,}"
        )
    check_threads(args.threads)
    if rules.triple:
        return run_triple_simulate(args, rules)
    _check_bot_name(args.bot)
    if args.vs is not None:
        _check_bot_name(args.vs)
    if args.hist:
        check_png("--hist", args.hist)
    target = args.target
    if target is None and args.bot.strip().lower().startswith("target:"):
        from ..core.bounded import parse_target, shown

        target = parse_target(args.bot.split(":", 1)[1], f"bot {shown(args.bot)}")
    if target is not None and target < 1:
        raise UsageError(f"--target must be a score of 1 or more, got {target}")

    if args.workers is not None and args.cluster is not None:
        raise UsageError("--workers and --cluster: choose one (local processes, or a Dask cluster)")
    if args.cluster is not None:  # its form, before any work
        from ..play.distributed import parse_cluster_address

        parse_cluster_address(args.cluster)
    if rules.n_dice != 5:  # six dice: the optimal and the table-free bots
        from ..play.simulate import SIX_DICE_BOTS

        for name in [args.bot] + ([args.vs] if args.vs is not None else []):
            if name.strip().lower() not in SIX_DICE_BOTS:
                raise UsageError(
                    f"bot {name!r} does not play six dice yet ({rules.id}): {', '.join(SIX_DICE_BOTS)}"
                )
    graded = grades(args, rules)
    if args.worst is not None:
        check_output("--worst", args.worst)

    start = time.perf_counter()
    progress = not args.quiet
    results = []
    for i, name in enumerate([args.bot] + ([args.vs] if args.vs is not None else [])):
        worst = args.worst_count if args.worst is not None and i == 0 else 0
        # the optimal bot loses nothing: graded only when asked (--regret, --worst)
        grade = graded and (name.strip().lower() != "optimal" or bool(args.regret) or worst > 0)
        if args.workers is not None or args.cluster is not None:  # split by game ranges
            results.append(run_split(args, rules, name, grade, worst, progress))
            continue
        results.append(
            simulate(  # by name: a bot program started by simulate is ended by it
                rules,
                name,
                args.games,
                args.seed,
                threads=args.threads,
                progress=progress,
                tables_dir=args.tables,
                regret=grade,
                worst=worst,
            )  # fmt: skip
        )
    graded_any = any(r.regret is not None for r in results)
    gaps = strength_gaps(results, args, progress) if graded_any else [None] * len(results)
    seconds = time.perf_counter() - start
    pair = paired(results[0], results[1]) if len(results) == 2 else None
    shares = target_shares(results, target) if target is not None else None
    worst_lines = None
    if args.worst is not None:
        from ..play.simulate import worst_positions

        worst_lines = worst_positions(results[0])
    # the report first: a histogram that cannot be written (full disk) must not lose it
    if args.json:
        out = report_json(results, pair, seconds, args.hist)
        for key, result, gap in zip(("stats", "vs_stats"), results, gaps, strict=False):
            if result.regret is not None:
                out[key]["regret"] = regret_json(result, gap)
        if worst_lines is not None:
            out["worst"] = {"path": args.worst, "decisions": len(worst_lines)}
        if shares is not None:
            out["target"] = target
            for key, share in zip(("stats", "vs_stats"), shares["shares"], strict=False):
                out[key]["share_at_least_target"] = share["share_at_least_target"]
                out[key]["share_standard_error"] = share["standard_error"]
            if "paired_difference" in shares:
                out["paired"]["share_difference"] = shares["paired_difference"]
                out["paired"]["share_standard_error"] = shares["paired_standard_error"]
        print(json.dumps(out, allow_nan=False))
    else:
        print(fit_text(format_report(results, pair, seconds, args.hist)))
        if shares is not None:
            print(fit_text(format_shares(shares, results[0].games)))
        for result, gap in zip(results, gaps, strict=True):
            if result.regret is not None:
                print(fit_text("\n".join(regret_lines(result, gap))))
        if not graded and args.regret is None:  # not asked either way, and no table to grade by
            print(
                fit_text(
                    f"(decisions not graded: {rules.id} has no table, built or shipped; --regret builds one)",
                    hang=1,
                )
            )
    if worst_lines is not None:
        write_worst(args, worst_lines)
    if args.hist:
        _write_histogram(args, results)
    return 0


def strength_gaps(results, args, progress: bool) -> list:
    """Each graded bot's gap to optimal both ways (:func:`solver.play.simulate.strength_gap`),
    against the optimal bot on the same dice (played for it unless one of ``results`` is it);
    None for the optimal bot itself and a bot not graded."""
    from ..play.simulate import simulate, strength_gap

    optimal = next((r for r in results if r.bot == "optimal"), None)
    if optimal is None:
        optimal = simulate(
            results[0].rules, "optimal", args.games, args.seed, threads=args.threads,
            progress=progress, tables_dir=args.tables,
        )  # fmt: skip
    return [None if r.bot == "optimal" or r.regret is None else strength_gap(r, optimal) for r in results]


def regret_json(result, gap) -> dict:
    """The ``regret`` object of a graded bot's ``--json`` stats."""
    from ..play.simulate import regret_summary

    out = regret_summary(result)
    if gap is not None:
        out["strength_gap"] = gap
    return out


def regret_lines(result, gap, per_line: int = 4) -> list[str]:
    """The text report of a graded bot: the decisions' loss beside the score difference with
    optimal, whether they agree, and the loss by turn and by box (every line <= 80 columns)."""
    from ..play.simulate import regret_summary

    s = regret_summary(result)
    keeps, boxes = s["keeps"]["loss_per_game"], s["boxes"]["loss_per_game"]
    split = f"keeps {keeps:.3f}, boxes {boxes:.3f}"
    if "direction" in s:
        split += f", direction {s['direction']['loss_per_game']:.3f}"
    lines = [
        "",
        f"{result.bot}: its decisions graded by the table (value {s['optimal_value']:.4f}):",
        f"  loss          {s['loss_per_game']:8.3f} points a game   se {s['standard_error']:.3f}",
        f"                ({split})",
    ]
    if gap is not None:
        verdict = "they agree" if abs(gap["z"]) <= AGREE_Z else "they DISAGREE"
        lines += [
            f"  score gap     {gap['score_difference']:8.3f} points a game   "
            f"se {gap['score_difference_standard_error']:.3f} (optimal, same dice)",
            f"  {verdict}: difference {gap['difference']:+.3f}, se "
            f"{gap['difference_standard_error']:.3f} (z {gap['z']:+.2f});",
            f"  the loss's standard error is {gap['se_ratio']:.1f}x smaller",
        ]
    lines.append("  loss by turn (keeps + box, points a game):")
    cells = [
        f"{t['turn']:>4} {t['keep_two_rolls_left'] + t['keep_one_roll_left']:.3f}+{t['box']:.3f}"
        for t in s["by_turn"]
    ]
    lines += ["  " + "  ".join(cells[i : i + per_line]) for i in range(0, len(cells), per_line)]
    lines.append("  loss by box (the turn that filled it: keeps + box):")
    width = max(len(name) for name in s["by_box"])
    cells = [f"{name:<{width}} {v['keeps']:.3f}+{v['box']:.3f}" for name, v in s["by_box"].items()]
    per = max(1, 76 // (len(cells[0]) + 3))
    lines += ["    " + "   ".join(cells[i : i + per]) for i in range(0, len(cells), per)]
    return lines


AGREE_Z = 3.0  # the loss and the score difference agree within this many standard errors


def write_worst(args, lines: list[dict], advice: str | None = None) -> None:
    """``--worst``: the costliest decisions as JSON lines, once the report is on stdout (then, but
    for ``--json``, where they went and ``advice``: how to see their advice)."""
    import sys

    from ..core.errors import SolverError
    from ..core.fileio import atomic_write_text

    sys.stdout.flush()
    text = "".join(json.dumps(line, allow_nan=False) + "\n" for line in lines)
    try:
        atomic_write_text(args.worst, text)
    except OSError as exc:
        raise SolverError(f"cannot write --worst {args.worst!r}: {exc.strerror or exc}") from None
    if not args.json:
        print(fit(f"{len(lines)} costliest decisions written to {args.worst}"))
        print(advice or fit(f"  (their advice: yahtzee hint --batch {args.worst})"))


def _stats_json(result) -> dict:
    from ..play.simulate import histogram

    edges, counts = histogram(result.scores, HIST_BIN)
    return {
        "bot": result.bot,
        **({"name": result.name} if result.name is not None else {}),
        "engine": result.engine,
        "seconds": round(result.seconds, 3),
        "cpu_seconds": round(result.cpu_seconds, 3),
        "games_per_second": round(result.games / result.seconds, 1) if result.seconds > 0 else None,
        **result.summary(),
        "histogram": {
            "bin_width": HIST_BIN,
            "edges": edges.tolist(),
            "counts": counts.tolist(),
            "last_bin_open": True,
        },
    }


def report_json(results, pair, seconds: float, hist_path: str | None) -> dict:
    from ..core.streams import STREAM_VERSION

    first = results[0]
    out = {
        "rules": first.rules.id,
        "bot": first.bot,
        "vs": results[1].bot if len(results) > 1 else None,
        "games": first.games,
        "seed": first.seed,
        "threads": first.threads,
        "processes": first.processes,
        "seconds": round(seconds, 3),
        "dice_stream": f"seeded v{STREAM_VERSION}",
        "stats": _stats_json(first),
    }
    if len(results) > 1:
        out["vs_stats"] = _stats_json(results[1])
        out["paired"] = pair
    if hist_path:
        out["hist"] = hist_path
    return out


def _threads(result) -> str:
    """``4 threads``, or ``2 processes of 1 thread`` for a run split over processes."""
    if result.processes > 1:
        return f"{result.processes} processes of 1 thread"
    return f"{result.threads} thread{'s' if result.threads != 1 else ''}"


def _summary_lines(result) -> list[str]:
    s = result.summary()
    rules = result.rules
    rate = result.games / result.seconds if result.seconds > 0 else float("inf")
    lines = [
        f"{rules.id}: {result.shown_bot}, {result.games:,} games (seed {result.seed}, {_threads(result)}, "
        f"{result.engine}) in {result.seconds:.2f} s "
        f"({rate:,.0f} games/s)",
        f"  mean          {s['mean']:8.2f}   sd {s['std']:.2f}, se {s['standard_error']:.3f}, "
        f"95% CI {s['ci95'][0]:.2f} .. {s['ci95'][1]:.2f}",
        f"  min {s['min']}, p5 {s['p5']:g}, p25 {s['p25']:g}, median {s['p50']:g}, p75 {s['p75']:g}, "
        f"p95 {s['p95']:g}, max {s['max']}",
        f"  upper bonus   {100 * s['upper_bonus_rate']:6.2f}% of games",
    ]
    if rules.n_dice == 5:  # six dice have no row paying 50 (their mean per box shows maxi_yatzy)
        lines.append(f"  Yahtzee       {100 * s['yahtzee_rate']:6.2f}% of games (at least one scored 50)")
    if rules.bonus:
        lines.append(f"  bonuses       {s['mean_yahtzee_bonuses']:7.4f} extra-Yahtzee bonuses per game")
    lines.append("  mean per box:")
    items = list(s["box_means"].items())
    width = max(len(k) for k, _ in items)
    for i in range(0, len(items), 3):
        lines.append("    " + "   ".join(f"{k:<{width}} {v:7.3f}" for k, v in items[i : i + 3]))
    return lines


def _text_histogram(result, bar: int = 50) -> list[str]:
    from ..play.simulate import histogram

    edges, counts = histogram(result.scores, HIST_BIN, top=99.0)
    peak = max(int(counts.max()), 1)
    lines = [f"  histogram of final scores ({HIST_BIN}-point bins; the last bin is open-ended):"]
    mean = float(result.scores.mean())
    for i, c in enumerate(counts):
        lo, hi = int(edges[i]), int(edges[i + 1]) - 1
        label = f"{lo}+" if i == len(counts) - 1 else f"{lo}-{hi}"
        mark = " <- mean" if lo <= mean < hi + 1 else ""
        pct = 100 * c / result.games
        lines.append(f"    {label:>9} {pct:5.1f}% {'#' * round(bar * c / peak)}{mark}")
    return lines


def format_report(results, pair, seconds: float, hist_path: str | None) -> str:
    lines: list[str] = []
    for result in results:
        lines += _summary_lines(result)
        if not hist_path:
            lines += _text_histogram(result)
        lines.append("")
    if pair is not None:
        lines += _paired_lines(pair, results[0].games)
        lines.append("")
    lines.append(f"total {seconds:.2f} s")
    return "\n".join(lines).rstrip("\n")


def _paired_lines(pair: dict, games: int, tie_share: bool = True) -> list[str]:
    """Two bots on the same dice (:func:`solver.play.simulate.paired`): the mean difference and
    who won how often; ``tie_share``: the ties as a share too (the triple card's report gives
    only their count)."""
    a, b = pair["bot"], pair["vs"]
    ties = f"{pair['ties']:,}" + (f" ({100 * pair['ties'] / games:.1f}%)" if tie_share else "")
    return [
        f"{a} vs {b} on the same dice ({games:,} games):",
        f"  difference    {pair['mean_difference']:+8.2f} points per game   se {pair['standard_error']:.3f}, "
        f"95% CI {pair['ci95'][0]:+.2f} .. {pair['ci95'][1]:+.2f}",
        f"  {a} wins {pair['wins']:,} ({100 * pair['wins'] / games:.1f}%), ties {ties}, "
        f"{b} wins {pair['losses']:,} ({100 * pair['losses'] / games:.1f}%)",
    ]


def format_shares(shares: dict, games: int) -> str:
    t = shares["target"]
    lines = [f"share of games scoring at least {t} ({games:,} games):"]
    for share in shares["shares"]:
        lines.append(
            f"  {share['bot']:<14} {100 * share['share_at_least_target']:7.3f}%   se {100 * share['standard_error']:.3f}%"
        )
    if "paired_difference" in shares:
        lines.append(
            f"  difference     {100 * shares['paired_difference']:+7.3f}%   se {100 * shares['paired_standard_error']:.3f}% (paired)"
        )
    return "\n".join(lines)


def _write_histogram(args, results) -> None:
    """``--hist``: the PNG of :func:`draw_histogram`, once the report is on stdout."""

    def draw(plt):
        return draw_histogram(plt, results)

    write_png_after_report("--hist", args.hist, draw, "histogram", args.json)


def draw_histogram(plt, results):
    """The figure of ``--hist``: a histogram of final scores, each bot's mean marked, drawn with
    ``plt`` (matplotlib.pyplot)."""
    import numpy as np

    top = max(float(np.percentile(r.scores, 99.9)) for r in results)
    lo = min(int(r.scores.min()) for r in results)
    bins = np.arange(lo // 5 * 5, top + 10, 5)
    fig, ax = plt.subplots(figsize=(9, 5), dpi=110)
    colors = ("tab:blue", "tab:orange")
    for result, color in zip(results, colors, strict=False):
        mean = float(result.scores.mean())
        ax.hist(
            np.minimum(result.scores, bins[-1] - 1),
            bins=bins,
            alpha=0.55 if len(results) > 1 else 0.85,
            color=color,
            label=f"{result.bot} (mean {mean:.2f})",
        )
        ax.axvline(mean, color=color, linestyle="--", linewidth=1.5)
    first = results[0]
    ax.set_title(f"{first.rules.id}: final scores of {first.games:,} games (seed {first.seed})")
    ax.set_xlabel("final score (last bin: that score or more)")
    ax.set_ylabel("games")
    ax.legend()
    fig.tight_layout()
    return fig


def run_triple_simulate(args, rules) -> int:
    """``simulate --rules ...+triple``: the triple card's players (:mod:`solver.advice.triple`)."""
    import time

    from ..core.errors import UsageError
    from ..play.simulate import paired
    from ..play.triple import check_bot, simulate_triple

    if getattr(args, "target", None) is not None:
        raise UsageError("--target does not take the triple card")
    if args.regret or args.worst is not None:
        raise UsageError("--regret and --worst grade against a table: the triple card has none of its own")
    names = [check_bot(args.bot)] + ([check_bot(args.vs)] if args.vs is not None else [])
    if args.hist:
        check_png("--hist", args.hist)
    start = time.perf_counter()
    results = [
        simulate_triple(
            rules,
            name,
            args.games,
            args.seed,
            threads=args.threads,
            tables_dir=args.tables,
            progress=not args.quiet,
        )
        for name in names
    ]
    seconds = time.perf_counter() - start
    pair = paired(results[0], results[1]) if len(results) == 2 else None
    single = rules.single
    floor = None if single.reference_value is None else sum(rules.weights) * single.reference_value
    if args.json:
        out = {
            "rules": rules.id,
            "bot": results[0].bot,
            "vs": results[1].bot if pair else None,
            "games": results[0].games,
            "seed": args.seed,
            "threads": results[0].threads,
            "seconds": round(seconds, 3),
            "floor": floor,
            "stats": _triple_stats_json(results[0]),
        }
        if pair:
            out["vs_stats"] = _triple_stats_json(results[1])
            out["paired"] = pair
        print(json.dumps(out, allow_nan=False))
    else:
        lines = []
        for r in results:
            s = r.summary()
            rate = r.games / r.seconds if r.seconds > 0 else float("inf")
            lines.append(
                f"{rules.id}: {r.bot}, {r.games:,} games (seed {r.seed}, {r.threads} "
                f"thread{'s' if r.threads != 1 else ''}) in {r.seconds:.2f} s ({rate:,.0f} games/s)"
            )
            lines.append(
                f"  mean          {s['mean']:8.2f}   sd {s['std']:.2f}, se {s['standard_error']:.3f}"
            )
            lines.append(f"  min {s['min']}, median {s['median']:g}, max {s['max']}")
            cols = ", ".join(f"x{w} {m:.2f}" for w, m in zip(rules.weights, s["column_means"], strict=True))
            lines.append(f"  column means (weighted): {cols}")
        if floor is not None:
            lines.append(
                f"floor (each column in turn, played optimally): {floor:.4f} = 6 x {single.reference_value}"
            )
        if pair is not None:
            lines += _paired_lines(pair, results[0].games, tie_share=False)
        lines.append(f"total {seconds:.2f} s")
        print(fit_text("\n".join(lines)))
    if args.hist:
        _write_histogram(args, results)
    return 0


def _triple_stats_json(result) -> dict:
    return {
        "bot": result.bot,
        "seconds": round(result.seconds, 3),
        "games_per_second": round(result.games / result.seconds, 1) if result.seconds > 0 else None,
        **result.summary(),
    }

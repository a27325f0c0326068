"""``yahtzee distribution``: the exact distribution of the final score from a position.

The numbers come from :func:`solver.engine.distribution.score_distribution`; this module reads the
position, picks the policy (:func:`policy_distribution`), and prints text, JSON
(:func:`distribution_json`, also what the web app's ``/api/distribution`` answers) or a PNG.
"""

from __future__ import annotations

import contextlib
import json
import sys

from ..engine.distribution import POLICIES, check_targets, parse_policy, read_position
from . import (
    add_json,
    add_png,
    add_rules,
    add_tables,
    check_png,
    fit,
    fit_head,
    whole,
    write_png_after_report,
)


def register(sub) -> None:
    from ..engine.distribution import DEFAULT_TARGETS

    p = sub.add_parser(
        "distribution",
        help="exact distribution of the final score from a position",
        description=(
            "The exact probability of every final score from a position (a card at the start of a "
            "turn, or a card with dice and rolls left) when the rest of the game is played by the "
            "expected-score-optimal strategy (ties broken as the optimal bot breaks them: the keep "
            "with most dice, the first box in card order)."
        ),
    )
    add_rules(p)
    p.add_argument("--card", default=None, help="filled boxes, e.g. 'ones=3,fours=12' (default: empty)")
    p.add_argument(
        "--dice", default=None, help="five dice, e.g. 33456: the turn has begun (with --rolls-left)"
    )
    p.add_argument("--rolls-left", type=whole(), default=None, choices=(0, 1, 2), help="rolls left this turn")
    p.add_argument("--policy", default="ev", metavar="POLICY", help=f"how the rest is played: {POLICIES}")
    p.add_argument(
        "--at-least",
        type=whole(),
        nargs="+",
        default=None,
        metavar="T",
        help=f"report P(final >= T) for these scores (default {' '.join(map(str, DEFAULT_TARGETS))})",
    )
    add_json(p)
    add_png(p, "--plot", "draw the distribution to a PNG")
    add_tables(p)
    p.set_defaults(func=run_distribution)


def policy_distribution(
    card, values, policy: str, *, roll=None, rolls_left: int = 2, tables_dir=None, progress=None
):
    """The :class:`~solver.engine.distribution.Distribution` of ``card`` under ``policy`` (the one place
    that dispatches on it); ``progress(1)`` is told each turn pushed forward."""
    from ..engine import distribution as dist_module

    kind, target = parse_policy(policy)
    if kind == "ev":
        return dist_module.score_distribution(
            card, values, roll=roll, rolls_left=rolls_left, progress=progress
        )
    from ..engine.target import load_target

    table = load_target(card.rules, tables_dir)
    dist_module.check_policy_target(table, card, target)
    return dist_module.target_distribution(
        card, values, table.arrays(), target, roll=roll, rolls_left=rolls_left, progress=progress
    )


def distribution_json(dist, targets) -> dict:
    """What ``distribution --json`` prints (and ``/api/distribution`` answers); a damaged table
    (NaN, probabilities that do not add up to 1) raises :class:`~solver.core.errors.TableError`."""
    from ..engine.turn import check_finite

    what = dist.card or "the empty card"
    total = dist.total_probability
    check_finite(dist.rules, [dist.mean, dist.sd, total], what)
    if abs(total - 1.0) > 1e-6:
        check_finite(dist.rules, [float("nan")], what)
    return dist.to_json(targets)


def distribution_answer(
    rules, card, dice, rolls_left, policy, targets, values_of, tables_dir=None, progress=None
):
    """``(dist, json)`` of a position given as text: what ``distribution --json`` prints and
    ``/api/distribution`` answers.  ``values_of(rules)`` gives the expected-score table's values
    (called once the position is known to be valid)."""
    targets = check_targets(targets, "--at-least")
    kind, _ = parse_policy(policy)
    card, roll, rolls_left = read_position(rules, card, dice, rolls_left, ("--dice", "--rolls-left"))
    if kind == "target":  # no target table is built for six dice
        card.rules.require_five_dice("distribution --policy target:T")
    values = values_of(card.rules)
    turns = card.rules.n_turns - card.n_filled
    with progress_bar(progress, turns) as tick:
        dist = policy_distribution(
            card, values, policy, roll=roll, rolls_left=rolls_left, tables_dir=tables_dir, progress=tick
        )
    return dist, distribution_json(dist, targets)


@contextlib.contextmanager
def progress_bar(progress: bool, turns: int):
    """A ``tick`` per turn pushed forward: a bar on stderr that shows only after a second."""
    if not progress:
        yield None
        return
    from tqdm import tqdm

    from ..core.text import bar_columns

    with tqdm(
        total=turns, desc="distribution", unit="turn", delay=1.0, leave=False, ncols=bar_columns()
    ) as bar:
        yield bar.update


def run_distribution(args) -> int:
    from ..engine.tables import get_table

    if args.plot:
        check_png("--plot", args.plot)

    def values_of(rules):
        # six dice: read in place (the cards still reachable are read, not the 638 MB unpacked)
        light = rules.n_dice != 5
        return get_table(rules, args.tables, build_if_missing=True, progress=True, light=light).values

    dist, out = distribution_answer(
        args.rules, args.card, args.dice, args.rolls_left, args.policy, args.at_least, values_of, args.tables,
        progress=sys.stderr.isatty(),  # a bar, once it takes more than a second; none in a pipe (a web job)
    )  # fmt: skip
    targets = check_targets(args.at_least, "--at-least")
    if args.json:
        print(json.dumps(out, allow_nan=False))
    else:
        where = "" if args.dice is None else f" | dice {_dice_words(args.dice)} | {_rolls(args.rolls_left)}"
        print(format_distribution(dist, targets, where))
    if args.plot:

        def draw(plt):
            return draw_plot(plt, dist)

        write_png_after_report("--plot", args.plot, draw, "plot", args.json)
    return 0


def _dice_words(dice: str) -> str:
    from ..core.dice import Dice

    return " ".join(map(str, Dice.parse(dice).values))


def _rolls(n: int) -> str:
    return {0: "no rolls left", 1: "1 roll left", 2: "2 rolls left"}[n]


POLICY_WORDS = {"ev": "expected-score play"}


def format_distribution(dist, targets, where: str = "") -> str:
    """The distribution as text: summary, outcomes, P(>= T) and a compact histogram."""
    from ..engine.distribution import PERCENTILES

    rules = dist.rules
    policy = POLICY_WORDS.get(dist.policy, dist.policy.replace("target:", "playing for at least "))
    lines = [fit_head(f"{rules.id} | {dist.card or 'empty card'}{where} | policy {dist.policy} ({policy})")]
    lines.append(
        f"  on the card {dist.start_total}; final score: mean {dist.mean:.4f}, standard deviation {dist.sd:.4f}"
    )
    lines.append(fit("  percentiles: " + ", ".join(f"p{q} {dist.percentile(q)}" for q in PERCENTILES)))
    if dist.upper_bonus is not None:
        lines.append(f"  P(upper bonus)  {dist.upper_bonus:.6f}")
    if dist.rows_at_50:
        rows = ", ".join(rules.box_names[b] for b in rules.five_kind_rows)
        lines.append(fit(f"  P(k five-of-a-kind rows at 50) [{rows}]: {_counts(dist.rows_at_50)}"))
        if rules.bonus and dist.bonuses:
            lines.append(fit(f"  P(k Yahtzee bonuses of +{rules.bonus}): {_counts(dist.bonuses)}"))
    for t in targets:
        lines.append(f"  P(final >= {t:>3})  {dist.p_at_least(t):.6f}")
    lines += text_histogram(dist)
    return "\n".join(lines)


def _counts(probabilities, smallest: float = 1e-6) -> str:
    """``k=0 0.91755, k=1 0.0704, ...``: the counts down to ``smallest``, the rest summed."""
    shown, rest, first_rest = [], 0.0, None
    for k, p in enumerate(probabilities):
        if p >= smallest:
            shown.append(f"k={k} {p:.6g}")
        elif p > 0:
            rest += p
            first_rest = k if first_rest is None else first_rest
    if first_rest is not None:
        shown.append(f"k>={first_rest} {rest:.2g}")
    return ", ".join(shown)


def text_histogram(dist, bar: int = 40, bins: int = 16) -> list[str]:
    """The pmf in about ``bins`` bins of a round width, from the 0.5th to the 99.5th percentile;
    the first bin also holds every lower score, the last every higher one."""
    import numpy as np

    lo_score, hi_score = dist.percentile(0.5), dist.percentile(99.5)
    width = next((w for w in (1, 2, 5, 10, 20, 25, 50) if (hi_score - lo_score) / w <= bins), 100)
    starts = list(range(lo_score // width * width, hi_score // width * width + 1, width))
    cdf = np.concatenate(([0.0], np.cumsum(dist.pmf)))
    below = [0.0] + [float(cdf[min(s, len(dist.pmf))]) for s in starts[1:]] + [1.0]  # P(final < start)
    mass = [below[i + 1] - below[i] for i in range(len(starts))]
    peak = max(max(mass), 1e-300)
    mean = dist.mean
    lines = [f"  distribution of the final score ({width}-point bins):"]
    for i, (a, m) in enumerate(zip(starts, mass, strict=True)):
        last = i == len(starts) - 1
        if len(starts) == 1:
            label = "all"
        elif last:
            label = f"{a}+"
        elif i == 0:
            label = f"<={starts[1] - 1}"
        else:
            label = f"{a}" if width == 1 else f"{a}-{a + width - 1}"
        inside = (i == 0 or a <= mean) and (last or mean < starts[i + 1])
        mark = " <- mean" if inside else ""
        lines.append(f"    {label:>9} {100 * m:6.2f}% {'#' * round(bar * m / peak)}{mark}".rstrip())
    return lines


def draw_plot(plt, dist):
    """The figure of ``--plot``: a bar chart of the pmf with the mean marked, drawn with ``plt``
    (matplotlib.pyplot)."""
    import textwrap

    import numpy as np

    nonzero = np.flatnonzero(dist.pmf)
    lo, hi = int(nonzero[0]), int(nonzero[-1])
    scores = np.arange(lo, hi + 1)
    fig, ax = plt.subplots(figsize=(9, 5), dpi=110)
    ax.bar(scores, dist.pmf[lo : hi + 1], width=1.0, color="tab:blue", alpha=0.85)
    mean = dist.mean
    ax.axvline(
        mean, color="tab:orange", linestyle="--", linewidth=1.5, label=f"mean {mean:.2f} (sd {dist.sd:.2f})"
    )
    ax.set_title(
        f"{textwrap.shorten(dist.rules.id, 90)}\n{textwrap.shorten(dist.card or 'empty card', 90)}: "
        f"exact final-score distribution, policy {dist.policy}",
        fontsize=10,
    )
    ax.set_xlabel("final score")
    ax.set_ylabel("probability")
    ax.legend()
    fig.tight_layout()
    return fig

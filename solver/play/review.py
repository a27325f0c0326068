"""Review a game: every decision beside the optimal one and what it cost.

A decision (:class:`solver.play.game.Decision`) is a keep after a roll with rolls
left (keeping all five = stop and score) or the box chosen.  The advisor ranks
all options of the position; the loss of a decision is its regret: the best
option's expected score minus the chosen option's, in expected final points.
Losses of one game add up: the sum is how many points the player's choices
cost on average against optimal play from the same positions.

The same :func:`judge` drives ``yahtzee play --coach``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..advice.advisor import Advisor, Option
from ..advice.objectives import AtLeast
from ..core.errors import printable
from ..core.position import Position
from ..core.text import fill
from .game import Decision, Game

MISTAKE = 1e-6  # a loss above this counts as a mistake (ties count as best)


@dataclass(frozen=True)
class Judgement:
    """One decision with the option chosen and the best one."""

    decision: Decision
    chosen: Option
    best: Option
    p_chosen: float | None = None  # P(final >= target) after the chosen option, playing for the target
    p_best: float | None = None  # ... after the option that maximises it

    @property
    def loss(self) -> float:
        return max(0.0, self.chosen.regret)

    @property
    def is_mistake(self) -> bool:
        return self.loss > MISTAKE

    def to_json(self, label: Callable[[str], str] = str) -> dict:
        """The decision as ``review --json`` writes it; ``label``: how ``choice`` and ``best`` name
        a box (the box name itself; the web passes :func:`solver.core.card.box_label`)."""
        d = self.decision
        return {
            "turn": d.turn,
            "round": d.round,
            "roll": d.roll,
            "kind": "keep" if d.is_keep else "box",
            "card": str(d.card),
            "dice": str(d.dice),
            "rolls_left": d.rolls_left,
            "choice": describe(self.chosen, label),
            "best": describe(self.best, label),
            "loss": round(self.loss, 6),
            "expected_final_choice": round(self.chosen.expected_final, 6),
            "expected_final_best": round(self.best.expected_final, 6),
        } | (
            {"p_target_choice": self.p_chosen, "p_target_best": self.p_best}
            if self.p_chosen is not None
            else {}
        )


def describe(option: Option, label: Callable[[str], str] = str) -> str:
    """Short words for an option: ``keep 3 3 5``, ``stop: full_house (25)``, ``reroll all``, ``fours (12)``
    (``label``: how a box is named, e.g. ``Full house`` by :func:`solver.core.card.box_label`)."""
    if option.keep is None:
        extra = f" +{option.bonus}" if option.bonus else ""
        return f"{label(option.box)} ({option.score}{extra})"
    if len(option.keep) == option.n_dice:  # the box stopping implies, where the advisor names it
        return (
            "stop and score"
            if option.stop_category is None
            else f"stop: {label(option.stop_category)} ({option.stop_score})"
        )
    if not option.keep:
        return "reroll all"
    return "keep " + " ".join(map(str, option.keep))


def judge(advisor: Advisor, decision: Decision, target_advisor=None, target: int | None = None) -> Judgement:
    """The chosen option of ``decision`` and the best one, from the advisor; with a
    :class:`~solver.advice.advisor.TargetAdvisor` and ``target``, also P(final >= target) after the
    chosen option and after the best one for the target."""
    position = Position(decision.card, decision.dice, decision.rolls_left)
    advice = advisor.advise(position)
    if decision.is_keep:
        chosen = advice.option_for(keep=decision.keep)
    else:
        chosen = advice.option_for(category=decision.box)
    if target_advisor is None or target is None:
        return Judgement(decision, chosen, advice.best)
    aimed = target_advisor.advise(position, AtLeast(target))
    mine = (
        aimed.option_for(keep=decision.keep) if decision.is_keep else aimed.option_for(category=decision.box)
    )
    return Judgement(decision, chosen, advice.best, mine.p_target, aimed.options[0].p_target)


def verdict_word(average: float, total: float) -> str:
    if total < 0.005:
        return "perfect play"
    if average < 0.1:
        return "excellent"
    if average < 0.3:
        return "good"
    if average < 0.8:
        return "fair"
    return "room to improve"


@dataclass(frozen=True)
class PlayerReview:
    name: str
    score: int
    complete: bool
    judgements: tuple[Judgement, ...]

    @property
    def total_loss(self) -> float:
        return sum(j.loss for j in self.judgements)

    @property
    def mistakes(self) -> tuple[Judgement, ...]:
        return tuple(j for j in self.judgements if j.is_mistake)

    @property
    def average_loss(self) -> float:
        return self.total_loss / len(self.judgements) if self.judgements else 0.0

    @property
    def worst(self) -> Judgement | None:
        return max(self.judgements, key=lambda j: j.loss, default=None)

    def verdict(self, label: Callable[[str], str] = str) -> str:
        n, m = len(self.judgements), len(self.mistakes)
        if not n:
            return f"{printable(self.name)}: no decisions to review"
        line = (
            f"{printable(self.name)}: {self.score} points{'' if self.complete else ' (unfinished)'}; "
            f"{n} decisions, {m} mistake{'s' if m != 1 else ''}, expected loss {self.total_loss:.2f} points "
            f"({self.average_loss:.3f} per decision): {verdict_word(self.average_loss, self.total_loss)}"
        )
        worst = self.worst
        if worst is not None and worst.is_mistake:
            d = worst.decision
            line += f"; biggest: turn {d.round} ({describe(worst.chosen, label)}, -{worst.loss:.2f})"
        return line

    def to_json(self, label: Callable[[str], str] = str) -> dict:
        """The review as ``review --json`` writes it (``label``: see :meth:`Judgement.to_json`)."""
        return {
            "name": self.name,
            "score": self.score,
            "complete": self.complete,
            "decisions": [j.to_json(label) for j in self.judgements],
            "n_decisions": len(self.judgements),
            "mistakes": len(self.mistakes),
            "total_loss": round(self.total_loss, 6),
            "average_loss": round(self.average_loss, 6),
            "verdict": self.verdict(label),
            "rating": verdict_word(self.average_loss, self.total_loss) if self.judgements else None,
        }


def review_game(
    game: Game, advisor: Advisor, players: list[int] | None = None, target_advisor=None
) -> list[PlayerReview]:
    """A :class:`PlayerReview` for each player (or those given by index), in seat order; with a
    target advisor, a solo game that played for a target (``game.info.target``) also gets
    each decision's P(final >= target)."""
    out = []
    target = game.info.target if target_advisor is not None and len(game.players) == 1 else None
    for i, p in enumerate(game.players):
        if players is not None and i not in players:
            continue
        judgements = tuple(judge(advisor, d, target_advisor, target) for d in game.decisions(i))
        out.append(PlayerReview(p.name, game.cards[i].total, game.cards[i].is_complete, judgements))
    return out


#: the width of a terminal: every line of the review fits (a long box name wraps under its column)
WIDTH = 80


def format_review(
    game: Game,
    reviews: list[PlayerReview],
    *,
    only_mistakes: bool = False,
    win: dict | None = None,
    note: str | None = None,
) -> str:
    """A table of every decision (or only the mistakes) per player, then one verdict line each,
    within :data:`WIDTH` columns; ``note`` says what the advice is where it is not exact (the
    triple card's).  A row: turn, roll (``box`` for the box), dice, the expected points lost,
    ``*`` for a mistake, with a target P(>= target) after the choice and after the best one for
    it, in a game of several players P(win) before and after each box, then the choice and the
    optimal one (the last column: a long one wraps under itself)."""
    info = game.info
    head = [game.rules.id, printable(str(info.mode or "game"))]
    # only what the replay checked: a seed or date counts when the dice came from it
    if info.dice == "daily" and info.date:
        head.append(f"daily {printable(str(info.date))}")
    if info.dice == "seeded" and info.seed is not None:
        head.append(f"seed {info.seed}")
    if info.dice == "real":
        head.append("real dice")
    lines = [fill("Review: " + ", ".join(head), WIDTH, subsequent_indent="  ")]
    if note:
        lines.append(fill(f"compared with {note}", WIDTH, subsequent_indent="  "))
    target = info.target
    for r in reviews:
        lines.append("")
        lines.append(f"{printable(r.name)}: {r.score} points")
        rows = [j for j in r.judgements if j.is_mistake or not only_mistakes]
        with_p = any(j.p_chosen is not None for j in r.judgements)
        legend = []
        if with_p:
            legend.append(
                f"P(>={target}): your chance of {printable(str(info.target_goal or 'the target'))} "
                "after each choice (best: after the best choice for it)"
            )
        if win:
            legend.append("P(win): your chance to win before -> after each box (ties count half)")
        lines += [fill(t, WIDTH, initial_indent="  ", subsequent_indent="    ") for t in legend]
        if not rows:
            if only_mistakes and r.judgements:
                lines.append("  no mistakes")
            continue
        extra_head = (f"{'P(>=' + str(target) + ')':>8} {'best':>6}  " if with_p else "") + (
            f"{'P(win)':<14}  " if win else ""
        )
        # the choice's column: as wide as the longest choice, at most half of what is left of the
        # line (a longer choice pushes the optimal one, which then goes on a line of its own)
        fixed = 26 + len(extra_head)
        choice = min(max(len(describe(j.chosen)) for j in rows), max(12, (WIDTH - fixed - 2) // 2))
        lines.append(
            f"  {'turn':>4} {'roll':>4} {'dice':<5} {'loss':>5}   {extra_head}{'your choice':<{choice}}  optimal"
        )
        for j in rows:
            d = j.decision
            mine, best = describe(j.chosen), describe(j.best) if j.is_mistake else "(best)"
            roll = str(d.roll) if d.is_keep else "box"
            start = (
                f"  {d.round:>4} {roll:>4} {str(d.dice):<5} {j.loss:5.2f}{' * ' if j.is_mistake else '   '}"
            )
            if with_p:
                start += (
                    f"{100 * j.p_chosen:7.2f}% {100 * j.p_best:5.1f}%  "
                    if j.p_chosen is not None
                    else " " * 17
                )
            if win:
                before, after = win.get(d.turn, (None, None)) if not d.is_keep else (None, None)
                start += f"{100 * before:5.1f}%->{100 * after:5.1f}%  " if before is not None else " " * 16
            start += f"{mine:<{choice}}  "
            if len(start) + len(best) <= WIDTH:
                lines.append(start + best)
            else:  # on the next line, under the optimal column where it fits there
                lines += [start.rstrip(), " " * min(fixed + choice + 2, WIDTH - len(best)) + best]
    lines.append("")
    lines.extend(fill(r.verdict(), WIDTH, subsequent_indent="  ") for r in reviews)
    return "\n".join(lines)


def win_effects(game: Game, bot) -> dict[int, tuple[float, float]]:
    """Multi-player games: for each scored turn (1-based index in ``game.turns``), the player's
    chance to win (P(win) + P(tie)/2, :meth:`solver.advice.win.WinAdvisor.chances`) before the turn and
    after it, against the other cards as they stood then."""
    from ..core.card import ScoreCard

    n = len(game.players)
    cards = [ScoreCard.empty(game.rules) for _ in range(n)]
    out = {}
    for t, turn in enumerate(game.turns, start=1):
        if not turn.is_complete:
            break
        p = turn.player
        cards[p] = turn.card_before
        before = bot.win.chances(cards)[p]
        cards[p] = turn.card_before.score(turn.box, turn.dice)
        after = bot.win.chances(cards)[p]
        out[t] = (before, after)
    return out


#: the saved game's facts a review report repeats (``yahtzee review --json``)
REPORT_INFO = ("mode", "dice", "seed", "date", "level", "target")


def review_target(game: Game) -> int | None:
    """The target a solo game played for (``play --solo`` with a record or ``--target``), whose
    review also gives each decision's P(final >= target); None for none, or for one the game
    could not have had (a hand-edited file)."""
    from ..core.bounded import MAX_TARGET

    target = game.info.target
    if (
        game.rules.triple
        or len(game.players) != 1
        or type(target) is not int
        or not 1 <= target <= MAX_TARGET
    ):
        return None
    return target


def reviews_win(game: Game) -> bool:
    """Whether a review gives each scored turn's effect on the chance to win (a multi-player
    game of a rule set with target tables; the caller adds it only when the table is built)."""
    return len(game.players) >= 2 and game.rules.order != "choose" and not game.rules.triple


def review_report(
    game: Game,
    advisor: Advisor,
    reviews: list[PlayerReview],
    source: str,
    win: dict[int, tuple[float, float]] | None = None,
    label: Callable[[str], str] = str,
) -> dict:
    """The review as ``yahtzee review --json`` prints it: ``game`` (``source``, the file),
    ``rules``, ``finished``, the game's :data:`REPORT_INFO`, the advisor's ``note`` (the triple
    card's), ``players`` (:meth:`PlayerReview.to_json` each, its boxes named by ``label``) and,
    with ``win`` (:func:`win_effects`), ``p_win_by_turn``."""
    info = {k: v for k, v in game.info.to_dict().items() if k in REPORT_INFO}
    return {
        "game": source,
        "rules": game.rules.id,
        "finished": game.is_over,
        **info,
        **({"note": advisor.note} if advisor.note else {}),
        "players": [r.to_json(label) for r in reviews],
        **(
            {"p_win_by_turn": [{"turn": t, "before": b, "after": a} for t, (b, a) in win.items()]}
            if win
            else {}
        ),
    }

"""Playing to win: the chance to win of a position against the opponents' cards.

The opponent model: each opponent's final score is its estimate (:func:`estimated_final`: total
+ expected points to come under optimal play) with a normal spread that narrows with its open
boxes (:func:`spread_table`); the best opponent's final mixes those (:func:`best_opponent_spread`).
:class:`WinAdvisor` values a turn by the target table over that mix (exact when every opponent
has finished) and ranks every option of a position by P(win) + P(tie) / 2; the ``win`` bot of
:mod:`solver.play.bots` plays by it.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dice as D
from ..core.card import ScoreCard
from ..core.errors import UsageError
from ..engine.turn import WinTurnValues, mixed_win_value
from .advisor import TargetAdvisor, probability_of, ranked_by_probability

#: a tie counts this much of a win
WIN_TIE = 0.5


def optimal_scores(advisor, games: int) -> np.ndarray:
    """(games,) int64: the final scores of seeded games ``0 .. games - 1`` (seed 0) of optimal
    play by ``advisor``'s table (the numba engine: what ``simulate --bot optimal`` plays)."""
    from ..core.threads import resolve_threads
    from ..engine.playout import run_games

    rules = advisor.rules
    direction = advisor.direction() if rules.order == "choose" else None
    out = run_games(
        rules, "table", games, 0, 0, resolve_threads(None), lambda n: None, False, games,
        values=advisor.table.values, direction=direction,
    )  # fmt: skip
    return out["scores"]


def estimated_final(card, values) -> int:
    """A player's final score as the win bot estimates it: the card's total plus the expected
    points still to come under optimal play (``values``, the expected-score table), rounded
    (half up); the total itself once the card is full.  The twin of the numba engine's
    estimate in :mod:`solver.match`."""
    mask, u, f = card.state
    return int(math.floor(card.total + float(values[mask, u, f]) + 0.5))


#: The spread of an opponent's remaining score assumed by the win bot: a normal of standard
#: deviation ``sd(full game) x sqrt(open boxes / boxes)``, cut at SPREAD_CUT deviations.
SPREAD_CUT = 3.0
SPREAD_GAMES = 20_000  # optimal games (seed 0) that measure sd(full game) per rule set
SPREAD_SCALE = 1.0  # a factor on that standard deviation


_SPREADS: dict = {}


def spread_table(advisor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(qs, qlen, half)``: per number ``k`` of open boxes (0 .. n_boxes), the assumed
    distribution of an opponent's final score around its estimate (:func:`estimated_final`):
    P(final = estimate - half[k] + j) = ``qs[k, j]`` for ``j < qlen[k]`` -- a discretised normal
    (see :data:`SPREAD_CUT`); ``k = 0`` (a finished card) is certain: ``qs[0] = [1]``."""
    rules = advisor.rules
    if rules in _SPREADS:
        return _SPREADS[rules]
    sd_full = SPREAD_SCALE * float(optimal_scores(advisor, SPREAD_GAMES).std())
    n = rules.n_boxes
    halves = [0] + [int(math.ceil(SPREAD_CUT * sd_full * math.sqrt(k / n))) for k in range(1, n + 1)]
    qs = np.zeros((n + 1, 2 * max(halves) + 1))
    qlen = np.array([2 * h + 1 for h in halves], dtype=np.int64)
    qs[0, 0] = 1.0
    for k in range(1, n + 1):
        sd, h = sd_full * math.sqrt(k / n), halves[k]

        def cdf(x: float, sd=sd) -> float:
            return 0.5 * (1.0 + math.erf(x / (sd * math.sqrt(2.0))))

        row = [cdf(d + 0.5) - cdf(d - 0.5) for d in range(-h, h + 1)]
        total = math.fsum(row)
        qs[k, : 2 * h + 1] = [v / total for v in row]
    qs.setflags(write=False)
    out = _SPREADS[rules] = (qs, qlen, np.array(halves, dtype=np.int64))
    return out


def best_opponent_spread(advisor, cards) -> tuple[int, list[float], int]:
    """``(b0, q, floor)``: P(best opponent final = max(b0 + j, floor)) = ``q[j]``, the opponents
    independent, each as :func:`spread_table` says (one opponent: its row of the table,
    unchanged), ``floor`` the best opponent total so far (no final is below it)."""
    rules, values = advisor.rules, advisor.table.values
    floor = max(card.total for card in cards)
    qs, qlen, half = spread_table(advisor)
    rows = []
    for card in cards:
        k = rules.n_boxes - card.n_filled
        rows.append((estimated_final(card, values) - int(half[k]), qs[k, : qlen[k]]))
    if len(rows) == 1:
        return rows[0][0], rows[0][1].tolist(), floor
    lo = max(b for b, _ in rows)  # the best is at least every opponent's lowest
    hi = max(b + len(q) - 1 for b, q in rows)
    grid = np.arange(lo, hi + 1)
    cdf = np.ones(len(grid))
    for b, q in rows:
        c = np.concatenate(([0.0], np.cumsum(q)))
        cdf *= c[np.clip(grid - b + 1, 0, len(q))]
    pmf = np.diff(np.concatenate(([0.0], cdf)))
    return lo, pmf.tolist(), floor


class WinAdvisor:
    """Ranks the options of a position by the chance to win against the opponents' cards
    (``p_win`` = P(win) + P(tie) / 2 when taking the option and then playing to win: exact when
    every opponent has finished, else the approximation above).  ``advisor`` is the rule set's
    expected-score :class:`~solver.advice.advisor.Advisor`, ``table`` its target table.  Options
    within :data:`solver.advice.advisor.TARGET_TIE` rank by expected score."""

    TIE = WIN_TIE
    #: plays to win when at most this many boxes are open (before: for expected score)
    HORIZON = 99

    def __init__(self, advisor, table):
        self.advisor, self.table, self.rules = advisor, table, advisor.rules
        self.target_advisor = TargetAdvisor(advisor, table)
        self._turn_cache: dict = {}

    def turn_values(self, card: ScoreCard, opponents) -> WinTurnValues | None:
        """The win values of a turn on ``card`` (:class:`~solver.engine.turn.WinTurnValues`), or
        None where playing for expected score is as good: no opponents, the first turn under
        ``order=choose``, no opponent able to reach this total, or no chance left."""
        if not opponents or (self.rules.order == "choose" and card.filled_mask == 0):
            return None
        if self.rules.n_boxes - card.n_filled > self.HORIZON:
            return None
        b0, q, floor = best_opponent_spread(self.advisor, opponents)
        if max(b0 + len(q) - 1, floor) < card.total:  # no opponent can reach this total
            return None
        key = (card.state, card.total, b0, tuple(q), floor)
        tv = self._turn_cache.get(key)
        if tv is None:
            if len(self._turn_cache) > 16:
                self._turn_cache.clear()
            tv = WinTurnValues(self.rules, card.state, self.table, card.total, b0, q, self.TIE, floor)
            self._turn_cache[key] = tv
        return tv if tv.start_value > 0.0 else None

    def chance(self, card: ScoreCard, opponents) -> float:
        """P(win) + P(tie) / 2 from the start of a turn on ``card``."""
        b0, q, floor = best_opponent_spread(self.advisor, list(opponents))
        return mixed_win_value(self.table, card.state, b0 - card.total, q, self.TIE, floor - card.total)

    def chances(self, cards: list[ScoreCard]) -> list[float]:
        """Each player's chance to win from here (P(win) + P(tie) / 2), the cards in seat order,
        adding up to 1 (ties counted half): each player is valued at the start of its next turn
        against the others (every player assumed to play to win from here), then the figures are
        made to agree -- a player whose opponents have all finished keeps its exact value and the
        others share the rest in proportion; otherwise, each being its own approximation, all
        are scaled to add up to 1."""
        raw = [self.chance(card, [c for k, c in enumerate(cards) if k != s]) for s, card in enumerate(cards)]
        unfinished = [s for s, card in enumerate(cards) if not card.is_complete]
        fixed = unfinished[0] if len(unfinished) == 1 else None  # the one whose opponents finished
        rest = [s for s in range(len(cards)) if s != fixed]
        share = 1.0 - (raw[fixed] if fixed is not None else 0.0)
        total = sum(raw[s] for s in rest)
        out = list(raw)
        for s in rest:
            out[s] = share * raw[s] / total if total > 0 else share / len(rest)
        return out

    def advise(self, position, opponents: list[ScoreCard]):
        opponents = list(opponents)
        for opp in opponents:
            if opp.rules != self.rules:
                raise UsageError(f"an opponent's card is of {opp.rules.id}, the position of {self.rules.id}")
        base = self.advisor.advise(position)
        card, dice = position.card, position.dice
        tv = self.turn_values(card, opponents)
        constant = None if tv is not None else self.chance(card, opponents)
        stop = None
        scored = []
        for option in base.options:
            if tv is None:
                p = constant
            else:
                p = probability_of(tv, option, position.rolls_left, self.rules)
                if option.keep is not None and len(option.keep) == D.N_DICE:
                    stop = self.target_advisor.stop_placement(tv, card, dice)
            scored.append((p, option))
        return ranked_by_probability(position, scored, "p_win", stop)


def clairvoyant_bound(advisor, table, progress=None) -> dict:
    """The clairvoyant bound on P(win) + P(tie) / 2 against expected-score play, two players.

    A player told the opponent's final score ``S`` in advance can do no better than play for it
    exactly: it wins ``W(S + 1)`` (``W(t)``: the target table's largest P(final >= t) from the
    empty card) and at most ties or wins ``W(S)``, so no strategy beats
    ``sum_S P_opp(S) (W(S) + W(S + 1)) / 2``, ``P_opp`` the exact distribution of expected-score
    play's final score (:func:`solver.engine.distribution.score_distribution`).  Beyond the
    table's ``t_max``, ``W(t_max)`` stands in for ``W(t)`` (it is larger): the bound stays one.
    Returns ``bound``, ``t_max``, ``beyond`` (the opponent's probability of ``S >= t_max``, where
    that happens) and ``opponent_mean``."""
    from ..engine.distribution import score_distribution

    rules = advisor.rules
    card = ScoreCard.empty(rules)
    pmf = score_distribution(card, advisor.table.values, outcomes=False, progress=progress).pmf
    t_max = table.t_max
    reach = np.array([table.probability(card.state, min(t, t_max)) for t in range(len(pmf) + 1)])
    half = 0.5 * (reach[:-1] + reach[1:])
    return {
        "rules": rules.id,
        "bound": float(math.fsum((pmf * half).tolist())),
        "t_max": t_max,
        "beyond": float(pmf[t_max:].sum()),
        "opponent_mean": float((pmf * np.arange(len(pmf))).sum()),
    }

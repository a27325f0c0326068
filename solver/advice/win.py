"""Playing to win: the chance to win of a position against the opponents' cards.

The opponent model (:class:`OpponentModel`): each opponent's final score is its total plus the
points still to come from its card under expected-score play, with their distribution per
card state (:func:`solver.engine.distribution.solve_residuals`: exact with a few boxes open, a
normal of the exact mean and spread before); the best opponent's final mixes those
(:func:`best_opponent`).
:class:`WinAdvisor` values a turn by the target table over that mix (exact when every opponent
has finished) and ranks every option of a position by P(win) + P(tie) / 2; the ``win`` bot of
:mod:`solver.play.bots` plays by it.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.card import ScoreCard
from ..core.errors import UsageError
from ..core.position import Position
from ..engine.turn import WinTurnValues, mixed_win_value, tie_mixed
from .advisor import Advice, TargetAdvisor, ranked_by_objective
from .objectives import AtLeast, ExpectedScore, Objective, Win, check_objective

#: a tie counts this much of a win
WIN_TIE = 0.5


class OpponentModel:
    """The distribution of a player's final score under expected-score play, from its card: the
    card's total plus the points still to come from its state (:class:`~solver.engine.
    distribution.Residuals`, exact to :data:`~solver.engine.distribution.RESIDUAL_EPS` per
    end of each row)."""

    def __init__(self, rules, residuals):
        self.rules, self.residuals = rules, residuals

    def final(self, card: ScoreCard) -> tuple[int, np.ndarray]:
        """``(b0, q)``: P(the final score of ``card`` = ``b0 + j``) = ``q[j]`` (a finished card:
        its total, surely)."""
        if card.is_complete:
            return card.total, np.ones(1)
        lo, row = self.residuals.row(card.state)
        return card.total + lo, row


_MODELS: dict = {}


def opponent_model(advisor, folder=None) -> OpponentModel:
    """The :class:`OpponentModel` of ``advisor``'s rule set and table: once per process and
    table, read from ``folder`` (the target table's) or solved and kept there
    (:func:`~solver.engine.opponent.get_residuals`)."""
    from ..engine.opponent import get_residuals

    key = (advisor.rules, id(advisor.table))
    held = _MODELS.get(key)
    if held is None or held[0] is not advisor.table:
        if len(_MODELS) >= 4:
            _MODELS.clear()
        sha = getattr(getattr(advisor.table, "manifest", None), "sha256", None)  # a table of the store's
        res = get_residuals(advisor.rules, advisor.table.values, folder, sha)
        held = _MODELS[key] = (advisor.table, OpponentModel(advisor.rules, res))
    return held[1]


def best_opponent(model: OpponentModel, cards) -> tuple[int, np.ndarray]:
    """``(b0, q)``: P(the best final score of ``cards`` = ``b0 + j``) = ``q[j]``, each card's
    final as ``model`` says, the cards independent (one card: its row, unchanged)."""
    rows = [model.final(card) for card in cards]
    if len(rows) == 1:
        return rows[0]
    lo = max(b for b, _ in rows)  # the best is at least every opponent's lowest
    hi = max(b + len(q) - 1 for b, q in rows)
    grid = np.arange(lo, hi + 1)
    cdf = np.ones(len(grid))
    for b, q in rows:
        c = np.concatenate(([0.0], np.cumsum(q, dtype=np.float64)))
        cdf *= c[np.clip(grid - b + 1, 0, len(q))]
    return lo, np.diff(np.concatenate(([0.0], cdf)))


class WinAdvisor:
    """Ranks the options of a position by the chance to win against the opponents' cards
    (``p_win`` = P(win) + P(tie) / 2 when taking the option and then playing to win: exact when
    every opponent has finished, else the mix over the opponent model above).  ``advisor`` is the rule set's
    expected-score :class:`~solver.advice.advisor.Advisor`, ``table`` its target table.  Options
    within :data:`solver.advice.advisor.TARGET_TIE` rank by expected score.  By
    :class:`~solver.advice.objectives.AtLeast` and
    :class:`~solver.advice.objectives.ExpectedScore` it gives its target advisor's advice."""

    TIE = WIN_TIE
    note: str | None = None
    objectives: tuple[type, ...] = (ExpectedScore, AtLeast, Win)

    def __init__(self, advisor, table):
        self.advisor, self.table, self.rules = advisor, table, advisor.rules
        self.target_advisor = TargetAdvisor(advisor, table)
        self.model = opponent_model(advisor, getattr(table, "path", None) and table.path.parent)
        self._turn_cache: dict = {}

    def turn_values(self, card: ScoreCard, opponents) -> WinTurnValues | None:
        """The win values of a turn on ``card`` (:class:`~solver.engine.turn.WinTurnValues`), or
        None where playing for expected score is as good: no opponents, the first turn under
        ``order=choose``, no opponent able to reach this total, or no chance left."""
        if not opponents or (self.rules.order == "choose" and card.filled_mask == 0):
            return None
        b0, q = best_opponent(self.model, opponents)
        if b0 + len(q) - 1 < card.total:  # no opponent can reach this total
            return None
        key = (card.state, card.total, b0, q.tobytes())
        tv = self._turn_cache.get(key)
        if tv is None:
            if len(self._turn_cache) > 16:
                self._turn_cache.clear()
            tv = WinTurnValues(self.rules, card.state, self.table, card.total, b0, q, self.TIE)
            self._turn_cache[key] = tv
        return tv if tv.start_value > 0.0 else None

    def chance(self, card: ScoreCard, opponents) -> float:
        """P(win) + P(tie) / 2 from the start of a turn on ``card``.

        Once every opponent has finished, the value of the turn played for the mixture itself
        (its own dynamic program, the target table after it): exact on the card's last turn.
        Otherwise the table's row mixed over the opponent model, which plays each opponent
        final by its own strategy after this turn (an upper bound of one strategy's value)."""
        opponents = list(opponents)
        if opponents and all(opp.is_complete for opp in opponents):
            tv = self.turn_values(card, opponents)
            if tv is not None:
                return tv.value
        b0, q = best_opponent(self.model, opponents)
        return mixed_win_value(self.table, card.state, b0 - card.total, *tie_mixed(q, self.TIE))

    def chances(self, cards: list[ScoreCard]) -> list[float]:
        """Each player's chance to win from here (P(win) + P(tie) / 2), the cards in seat order,
        adding up to 1 (ties counted half): each player is valued at the start of its next turn
        against the others (every player assumed to play to win from here), then the figures are
        made to agree -- a player whose opponents have all finished keeps its value (exact on its
        last turn, see :meth:`chance`) and the others share the rest in proportion; otherwise, each being its own approximation, all
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

    def advise(self, position: Position, objective: Objective) -> Advice:
        """Every option of ``position``: by :class:`~solver.advice.objectives.Win` ranked by P(win)
        + P(tie) / 2 against its opponents' cards (``p_win``), then expected score."""
        if not isinstance(objective, Win):
            check_objective(self, objective)
            return self.target_advisor.advise(position, objective)
        opponents = list(objective.opponents)
        for opp in opponents:
            if opp.rules != self.rules:
                raise UsageError(f"an opponent's card is of {opp.rules.id}, the position of {self.rules.id}")
        card = position.card
        tv = self.turn_values(card, opponents)
        constant = self.chance(card, opponents) if tv is None else 0.0
        return ranked_by_objective(
            position,
            self.advisor.advise(position),
            objective,
            tv,
            constant,
            self.target_advisor.stop_placement,
        )


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

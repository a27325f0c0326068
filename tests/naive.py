"""A slow, obviously-correct reference solver for small games (pure Python, no numpy, no kernels).

It plays the game exactly as the rules describe it and shares nothing with
:mod:`solver.engine.kernels` but :meth:`RuleSet.placements` (where a roll may go and what
it scores there; tested on its own against the rule texts).

* A state between turns is ``(filled, upper, holds_50)``: the bitmask of filled boxes,
  the upper total (only whether it reaches the threshold matters, so it is kept at
  most at the threshold; 0 when there is no upper bonus) and whether a five-of-a-kind
  row holds 50 (only where a bonus depends on it).
* ``all-rolls``: with rerolls left the player must reroll at least one die.
* ``order=choose``: the direction is chosen before the first roll, so the empty card
  is worth the better of the two directed games; afterwards the filled boxes show it.
* A turn is played by brute force: the first roll's outcomes, and every reroll's
  outcomes, are enumerated over ordered dice (6**n of them), so probabilities are
  counted, not computed from formulas.  With dice in hand and ``n`` rerolls left the
  player either stops and scores, or keeps any sub-multiset of the dice (fewer than
  five) and rerolls the rest; everything is memoised per state.
"""

from __future__ import annotations

import itertools
from collections import Counter, deque
from fractions import Fraction
from functools import cache

from solver.core.rules import RuleSet

Dice = tuple[int, ...]  # sorted faces
State = tuple[int, int, bool]


@cache
def outcomes(n: int) -> tuple[tuple[Dice, float], ...]:
    """Distinct results of rolling ``n`` dice with their probabilities, by counting 6**n orders."""
    counts = Counter(tuple(sorted(t)) for t in itertools.product(range(1, 7), repeat=n))
    total = 6**n
    return tuple((dice, float(Fraction(c, total))) for dice, c in sorted(counts.items()))


@cache
def proper_subkeeps(dice: Dice) -> tuple[Dice, ...]:
    """Every distinct multiset of fewer than all of ``dice`` (what may be kept for a reroll)."""
    subs = {tuple(sorted(c)) for n in range(len(dice)) for c in itertools.combinations(dice, n)}
    return tuple(sorted(subs))


@cache
def after_reroll(keep: Dice, n_dice: int = 5) -> tuple[tuple[Dice, float], ...]:
    """The ``n_dice`` dice one may hold after keeping ``keep`` and rolling the others, with
    probabilities."""
    return tuple((tuple(sorted(keep + new)), p) for new, p in outcomes(n_dice - len(keep)))


def counts_of(dice: Dice) -> tuple[int, ...]:
    return tuple(dice.count(f) for f in range(1, 7))


class NaiveTurn:
    """The within-turn values of one state (expected points still to come, this turn included;
    with ``worth`` given, what a placement is worth is ``worth(points, next_state)``)."""

    def __init__(self, solver: NaiveSolver, state: State, worth=None):
        self.solver, self.state = solver, state
        self.worth = worth or (lambda points, nxt: points + solver.value(nxt))
        self._hold: dict[tuple[Dice, int], float] = {}
        self._reroll: dict[tuple[Dice, int], float] = {}
        self._stop: dict[Dice, float] = {}

    def stop(self, dice: Dice) -> float:
        """Best over the legal placements of ``dice`` of the points now plus the next state's value."""
        best = self._stop.get(dice)
        if best is None:
            best = self._stop[dice] = max(
                self.worth(points, nxt) for points, nxt in self.solver.moves(self.state, dice)
            )
        return best

    def hold(self, dice: Dice, rerolls: int) -> float:
        """Value of holding ``dice`` (five) with ``rerolls`` rerolls still allowed, playing on optimally."""
        key = (dice, rerolls)
        best = self._hold.get(key)
        if best is None:
            must_roll = rerolls > 0 and self.solver.rules.all_rolls
            best = float("-inf") if must_roll else self.stop(dice)
            if rerolls > 0:
                for keep in proper_subkeeps(dice):
                    best = max(best, self.reroll(keep, rerolls))
            self._hold[key] = best
        return best

    def reroll(self, keep: Dice, rerolls: int) -> float:
        """Value of keeping ``keep`` (fewer than five dice) and rerolling the rest now."""
        key = (keep, rerolls)
        value = self._reroll.get(key)
        if value is None:
            value = self._reroll[key] = sum(
                p * self.hold(dice, rerolls - 1) for dice, p in after_reroll(keep, self.solver.rules.n_dice)
            )
        return value

    @property
    def value(self) -> float:
        """Before the first roll: roll all the dice (five, or six), then two rerolls are allowed."""
        return sum(p * self.hold(dice, 2) for dice, p in outcomes(self.solver.rules.n_dice))


class NaiveSolver:
    def __init__(self, rules: RuleSet):
        self.rules = rules
        self.full = (1 << rules.n_boxes) - 1
        self.rows = [b for b, box in enumerate(rules.boxes) if box.scorer.kind == "five_kind"]
        self.has_upper_bonus = rules.upper_bonus > 0 and any(box.is_upper for box in rules.boxes)
        self._values: dict[State, float] = {}
        self._turns: dict[State, NaiveTurn] = {}

    def moves(self, state: State, dice: Dice) -> list[tuple[int, State]]:
        """``(points earned now, next state)`` for every legal placement of ``dice``."""
        filled, upper, holds_50 = state
        rules = self.rules
        out = []
        for box, score, bonus in rules.placements(filled, counts_of(dice), holds_50):
            assert not filled >> box & 1, "a filled box was offered"
            points = score + bonus
            new_upper, new_holds = upper, holds_50
            if rules.boxes[box].face > 0 and self.has_upper_bonus:
                new_upper = upper + score
                if upper < rules.upper_threshold <= new_upper:
                    points += rules.upper_bonus
                new_upper = min(new_upper, rules.upper_threshold)
            if box in self.rows and score == 50 and rules.bonus > 0:
                new_holds = True
            out.append((points, (filled | 1 << box, new_upper, new_holds)))
        assert out, f"no legal placement for {dice} in state {state}"
        return out

    def turn(self, state: State) -> NaiveTurn:
        if state not in self._turns:
            self._turns[state] = NaiveTurn(self, state)
        return self._turns[state]

    def value(self, state: State) -> float:
        """Expected points still to come from the start of a turn in ``state``."""
        if state[0] == self.full:
            return 0.0
        if state[0] == 0 and self.rules.order == "choose":
            return max(NaiveSolver(self.rules.directed(d)).value(state) for d in ("down", "up"))
        if state not in self._values:
            self._values[state] = self.turn(state).value
            del self._turns[state]  # the within-turn memo is no longer needed
        return self._values[state]

    def reachable_states(self) -> set[State]:
        """Every state some sequence of rolls and legal placements leads to from the empty card."""
        start: State = (0, 0, False)
        seen = {start}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            if state[0] == self.full:
                continue
            for dice, _ in outcomes(self.rules.n_dice):
                for _, nxt in self.moves(state, dice):
                    if nxt not in seen:
                        seen.add(nxt)
                        queue.append(nxt)
        return seen


class NaiveTargetSolver(NaiveSolver):
    """The largest probability of scoring at least ``t`` more points, by the same brute force:
    a placement is worth the next state's probability of the points still needed."""

    def __init__(self, rules: RuleSet):
        super().__init__(rules)
        self._probabilities: dict[tuple[State, int], float] = {}

    def probability(self, state: State, t: int) -> float:
        if t <= 0:
            return 1.0
        if state[0] == self.full:
            return 0.0
        if state[0] == 0 and self.rules.order == "choose":  # one solver per direction, reused for every t
            if not hasattr(self, "_directed"):
                self._directed = [NaiveTargetSolver(self.rules.directed(d)) for d in ("down", "up")]
            return max(solver.probability(state, t) for solver in self._directed)
        key = (state, t)
        if key not in self._probabilities:
            worth = lambda points, nxt: self.probability(nxt, t - points)  # noqa: E731
            self._probabilities[key] = NaiveTurn(self, state, worth).value
        return self._probabilities[key]


class NaiveDuel:
    """Two players, A moving first, by brute force over every roll: A's largest P(win) + P(tie)/2
    against B playing for expected score (``opponent="ev"``: keeps within 1e-9 of the best
    expected score, the one keeping most dice, then the lexicographically last; boxes within
    1e-9, the first in card order) or against B maximising its own chance (``"self"``);
    ``seat=1``: the one playing for expected score is A.  A state is ``(a, b, d)``: both card
    states and A's total - B's; every value is A's chance."""

    TOL = 1e-9

    def __init__(self, rules: RuleSet, opponent: str = "ev", seat: int = 0):
        self.solver = NaiveSolver(rules)
        self.a_ev = opponent == "ev" and seat == 1
        self.b_ev = opponent == "ev" and seat == 0
        self.seat = seat
        self._a: dict = {}
        self._b: dict = {}
        self._ev: dict = {}

    def end(self, d: int) -> float:
        return 1.0 if d > 0 else 0.5 if d == 0 else 0.0

    def a_value(self, a: State, b: State, d: int) -> float:
        """At the start of A's turn."""
        if a[0] == self.solver.full:
            return self.end(d)
        key = (a, b, d)
        if key not in self._a:
            if self.a_ev:
                value = sum(p * self.b_value(nxt, b, d + g) for (nxt, g), p in self.ev_turn(a).items())
            else:
                worth = lambda points, nxt: self.b_value(nxt, b, d + points)  # noqa: E731
                value = NaiveTurn(self.solver, a, worth).value
            self._a[key] = value
        return self._a[key]

    def value(self) -> float:
        """The chance of the one playing to win (seat ``seat``) from the empty cards."""
        start = (0, 0, False)
        first = self.a_value(start, start, 0)
        return 1.0 - first if self.seat == 1 else first

    def b_value(self, a: State, b: State, d: int) -> float:
        """At the start of B's turn (A's chance)."""
        key = (a, b, d)
        if key not in self._b:
            if self.b_ev:
                value = sum(p * self.a_value(a, nxt, d - g) for (nxt, g), p in self.ev_turn(b).items())
            else:
                worth = lambda points, nxt: 1.0 - self.a_value(a, nxt, d - points)  # noqa: E731
                value = 1.0 - NaiveTurn(self.solver, b, worth).value
            self._b[key] = value
        return self._b[key]

    def ev_turn(self, state: State) -> dict[tuple[State, int], float]:
        """``{(next state, points): probability}`` of one turn of expected-score play."""
        if state not in self._ev:
            self._ev[state] = play_turn(NaiveTurn(self.solver, state), self.TOL)
        return self._ev[state]


def play_turn(turn: NaiveTurn, tol: float = 1e-9) -> dict[tuple[State, int], float]:
    """``{(next state, points): probability}`` of one turn from ``turn.state`` played by the
    values of ``turn`` (its ``worth``): keeps within ``tol`` of the best, the one keeping most
    dice, then the lexicographically last (stopping keeps all five); boxes within ``tol``, the
    first in card order -- the bots' tie rules.  Five dice, or six (the rule set's)."""
    out: dict = {}
    n_dice = turn.solver.rules.n_dice
    held = dict(outcomes(n_dice))  # the dice in hand and their probability, two rerolls left
    for rerolls in (2, 1, 0):
        rolled: dict = {}
        for dice, p in held.items():
            keep = _keep(turn, dice, rerolls, tol)
            if keep is None:
                _place(turn, dice, p, out, tol)
                continue
            for after, q in after_reroll(keep, n_dice):
                rolled[after] = rolled.get(after, 0.0) + p * q
        held = rolled
    return out


def _keep(turn: NaiveTurn, dice: Dice, rerolls: int, tol: float) -> Dice | None:
    """What play by ``turn``'s values keeps (None: it stops and scores)."""
    options = []  # (value, order, keep): stopping is keeping all the dice
    if not (rerolls > 0 and turn.solver.rules.all_rolls):
        options.append((turn.stop(dice), (len(dice), dice), None))
    if rerolls > 0:
        options += [(turn.reroll(k, rerolls), (len(k), k), k) for k in proper_subkeeps(dice)]
    best = max(v for v, _, _ in options)
    return max((o for o in options if o[0] >= best - tol), key=lambda o: o[1])[2]


def _place(turn: NaiveTurn, dice: Dice, p: float, out: dict, tol: float) -> None:
    moves = turn.solver.moves(turn.state, dice)
    worths = [turn.worth(points, nxt) for points, nxt in moves]
    top = max(worths)
    points, nxt = next(m for m, w in zip(moves, worths, strict=True) if w >= top - tol)
    out[(nxt, points)] = out.get((nxt, points), 0.0) + p


class NaivePolicy:
    """The exact expected score of a player who plays every turn by a value table ``values``
    (``values[filled, upper, flag]``, the layout of a table: a placement is worth its points
    plus the next state's value), ties as the bots break them: the expectation, by brute force
    over every roll, of the points it actually scores (the table is its guide, not its score)."""

    def __init__(self, rules: RuleSet, values):
        self.solver = NaiveSolver(rules)
        self.values = values
        self._expected: dict[State, float] = {}

    def worth(self, points: int, nxt: State) -> float:
        filled, upper, holds_50 = nxt
        flag = int(holds_50) if self.solver.rules.n_flags == 2 else 0
        return points + float(self.values[filled, upper, flag])

    def expected(self, state: State = (0, 0, False)) -> float:
        """The points still to come from the start of a turn in ``state`` (not under order=choose)."""
        if state[0] == self.solver.full:
            return 0.0
        if state not in self._expected:
            turn = NaiveTurn(self.solver, state, self.worth)
            self._expected[state] = sum(
                p * (points + self.expected(nxt)) for (nxt, points), p in play_turn(turn).items()
            )
        return self._expected[state]


def win_last_turn(solver: NaiveSolver, state: State, need: int, tie: float = 0.5) -> NaiveTurn:
    """A player's last turn against a known best opponent final, ``need`` being that final minus
    the player's total: a placement earning more than ``need`` points wins (1), exactly
    ``need`` ties (``tie``), less loses (0) -- P(win) + ``tie`` x P(tie) by brute force."""

    def worth(points: int, nxt: State) -> float:
        return 1.0 if points > need else tie if points == need else 0.0

    return NaiveTurn(solver, state, worth)

"""The exact two-player game on small cards: P(win) + P(tie) / 2 by a dynamic program over
both cards, whose turn it is and the score difference.

Player A moves first, then B, in turn, each with its own card.  A game state is ``(a, b, d)``:
A's card state, B's card state (``(mask, upper, flag)``, the upper total through
:func:`~solver.engine.distribution.representative_upper`) and ``d`` = A's total - B's total.
``VA[a, b, d]`` is A's P(win) + P(tie) / 2 at the start of A's turn (both cards with the same
number of boxes filled), ``VB[a, b, d]`` at the start of B's (A one box ahead).  At the end,
1 for ``d > 0``, 1/2 for ``d = 0``, 0 below.

* A's turn: A plays to maximise ``VA``: the turn recursion of :class:`~solver.engine.turn.TurnValues`
  (the same keeps, rolls and placements through :meth:`RuleSet.placements` and
  :meth:`RuleSet.step`), with a placement earning ``x`` points and leading to ``a'`` worth
  ``VB[a', b, d + x]``, over every ``(b, d)`` at once as numpy columns.
* B's turn, ``opponent="ev"``: B plays for expected score (the ``optimal`` bot, ties included:
  :func:`~solver.engine.distribution.turn_outcomes` from the value table): a chance node over its
  next state and points.  ``opponent="self"``: B maximises its own chance, ``1 - VA`` (zero-sum).

``d`` runs over ``-D .. D`` (``D`` = :func:`~solver.engine.distribution.max_points`, more than
any total): a shift past the ends reads the end value, which only states no game reaches do.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ..core import dice as D
from ..core.errors import UsageError
from ..core.rules import RuleSet
from .distribution import max_points, representative_upper, turn_outcomes

#: a tie counts this much of a win
TIE = 0.5
#: lanes (columns) per within-turn solve: bounds the scratch arrays (462 x LANES floats, a few)
LANES = 4096


def card_states(rules: RuleSet) -> list[list[tuple[int, int, int]]]:
    """The card states a game reaches, by number of filled boxes (level 0 .. n_boxes), each
    level sorted; upper totals through :func:`representative_upper`."""
    rep = representative_upper(rules)
    start = (0, 0, 0)
    seen = {start}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        for nxt in successors(rules, state, rep).values():
            for s in nxt:
                if s[1] not in seen:
                    seen.add(s[1])
                    queue.append(s[1])
    levels: list[list] = [[] for _ in range(rules.n_boxes + 1)]
    for s in seen:
        levels[s[0].bit_count()].append(s)
    return [sorted(level) for level in levels]


def successors(rules: RuleSet, state, rep=None) -> dict[int, list[tuple[int, tuple[int, int, int]]]]:
    """Per roll index (0..251): the ``(points, next_state)`` of every legal placement (points
    with the roll's five-of-a-kind bonus and the upper bonus; upper totals through ``rep``)."""
    if rep is None:
        rep = representative_upper(rules)
    mask, _, flag = state
    if mask == rules.full_mask:
        return {}
    out = {}
    for r, counts in enumerate(D.KEEP_FACE_COUNTS[D.ROLL_OFFSET :]):
        moves = []
        for box, score, bonus in rules.placements(mask, counts, bool(flag)):
            points, (m, u, f) = rules.step(state, box, score)
            moves.append((points + bonus, (m, int(rep[m, u]), f)))
        out[r] = moves
    return out


def _keep_levels() -> list[np.ndarray]:
    """Keep indices by number of dice (0..5)."""
    size = D.KEEP_SIZE
    return [np.flatnonzero(size == s) for s in range(D.N_DICE + 1)]


def turn_start_values(r0: np.ndarray, all_rolls: bool) -> np.ndarray:
    """The value before the first roll of a turn whose placements are worth ``r0`` (252, L)
    (the best placement of each roll with no rolls left): the recursion of
    :class:`~solver.engine.turn.TurnValues` (keep and reroll twice, or stop; under
    ``all-rolls`` every reroll throws a die) on every column at once.  Returns (L,)."""
    levels = _keep_levels()
    n = r0.shape[1]
    x = np.full((D.N_KEEPS + 1, n), -np.inf)  # row N_KEEPS: -inf, where a face is not in a keep
    x[D.ROLL_OFFSET : D.N_KEEPS] = r0
    remove = np.where(D.REMOVE_DIE < 0, D.N_KEEPS, D.REMOVE_DIE)

    def average(x: np.ndarray) -> None:  # E(K) = mean over faces of E(K + face)
        for s in range(D.N_DICE - 1, -1, -1):
            k = levels[s]
            x[k] = x[D.ADD_DIE[k]].sum(axis=1) / D.N_FACES

    def best_subkeep(x: np.ndarray) -> np.ndarray:  # B(K) = max(x(K), max over faces of B(K - face))
        y = x.copy()
        for s in range(1, D.N_DICE + 1):
            k = levels[s]
            below = y[remove[k]].max(axis=1)
            y[k] = below if (all_rolls and s == D.N_DICE) else np.maximum(x[k], below)
        return y

    average(x)
    x = best_subkeep(x)
    average(x)
    x = best_subkeep(x)
    return D.ROLL_PROB @ x[D.ROLL_OFFSET : D.N_KEEPS]


class Shifts:
    """Index arrays that move a value along ``d`` by ``g`` points (clipped at the ends)."""

    def __init__(self, width: int):
        self.width = width
        self._cache: dict[int, np.ndarray] = {}

    def __call__(self, g: int) -> np.ndarray:
        idx = self._cache.get(g)
        if idx is None:
            idx = self._cache[g] = np.clip(np.arange(self.width) + g, 0, self.width - 1)
        return idx


def _mover_turn(rules, state, nxt_index, after, shifts, sign) -> np.ndarray:
    """The start-of-turn value of the player to move in ``state`` for every column of
    ``after[i']`` (shape (n_next, ..., width)): a placement earning ``x`` and leading to the
    state of index ``i'`` is worth ``after[i'][..., d + sign x]``."""
    moves = successors(rules, state)
    keys: dict[tuple[int, int], int] = {}
    per_roll = []
    for r in range(D.N_ROLLS):
        per_roll.append([keys.setdefault((x, nxt_index[s]), len(keys)) for x, s in moves[r]])
    cols = after.shape[1:]
    worth = np.empty((len(keys) + 1, *cols))
    for (x, i), k in keys.items():
        worth[k] = after[i][..., shifts(sign * x)]
    worth[-1] = -np.inf
    width = max(len(p) for p in per_roll)
    idx = np.full((D.N_ROLLS, width), len(keys))
    for r, p in enumerate(per_roll):
        idx[r, : len(p)] = p
    flat = worth.reshape(len(keys) + 1, -1)
    out = np.empty(flat.shape[1])
    for c in range(0, flat.shape[1], LANES):
        r0 = flat[idx, c : c + LANES].max(axis=1)
        out[c : c + LANES] = turn_start_values(r0, rules.all_rolls)
    return out.reshape(cols)


def solve_duel(rules: RuleSet, values=None, opponent: str = "ev", seat: int = 0) -> dict:
    """The exact game of two players of ``rules``, one of them maximising its P(win) + P(tie)/2
    from seat ``seat`` (0: it moves first, A; 1: second, B), the other playing for expected
    score by the table ``values`` (``opponent="ev"``) or against it (``"self"``: zero-sum, every
    turn its best for itself; both seats give one game then).  Returns ``value`` (the
    maximiser's chance from the empty cards), ``width`` (the size of the ``d`` range), ``states``
    (card states per level) and ``VA`` (per level ``k``: A's chance at the start of A's turn,
    (len(states[k]), len(states[k]), width), ``d`` at index ``d + D``)."""
    if rules.triple or rules.order == "choose":
        raise UsageError(f"the exact duel does not take {rules.id} (triple card or order=choose)")
    if opponent not in ("ev", "self") or seat not in (0, 1):
        raise UsageError(f"opponent {opponent!r}, seat {seat!r}: needs ev or self, seat 0 or 1")
    if opponent == "ev" and values is None:
        raise UsageError("the exact duel against expected-score play needs the value table")
    a_plays = "ev" if opponent == "ev" and seat == 1 else "best"
    b_plays = "ev" if opponent == "ev" and seat == 0 else "best"
    levels = card_states(rules)
    n = rules.n_boxes
    top = max_points(rules)
    width = 2 * top + 1
    shifts = Shifts(width)
    index = [{s: i for i, s in enumerate(level)} for level in levels]
    d = np.arange(width) - top
    end = np.where(d > 0, 1.0, np.where(d == 0, TIE, 0.0))
    va: list = [None] * (n + 1)
    va[n] = np.broadcast_to(end, (len(levels[n]), len(levels[n]), width)).copy()
    for k in range(n - 1, -1, -1):
        nxt = va[k + 1]  # (A at k + 1, B at k + 1, width)
        vb = np.empty((len(levels[k + 1]), len(levels[k]), width))  # B to move: A at k + 1, B at k
        if b_plays == "ev":
            for j, outcomes in enumerate(turn_outcomes(rules, values, levels[k])):
                acc = np.zeros((len(levels[k + 1]), width))
                for s, g, p in outcomes:
                    acc += p * nxt[:, index[k + 1][s]][:, shifts(-g)]
                vb[:, j] = acc
        else:
            after = 1.0 - np.moveaxis(nxt, 1, 0)  # B's own chance: (B at k + 1, A at k + 1, width)
            for j, s in enumerate(levels[k]):  # its placements lower d
                vb[:, j] = 1.0 - _mover_turn(rules, s, index[k + 1], after, shifts, -1)
        here = np.empty((len(levels[k]), len(levels[k]), width))
        if a_plays == "ev":
            for i, outcomes in enumerate(turn_outcomes(rules, values, levels[k])):
                acc = np.zeros((len(levels[k]), width))
                for s, g, p in outcomes:
                    acc += p * vb[index[k + 1][s]][:, shifts(g)]
                here[i] = acc
        else:
            for i, s in enumerate(levels[k]):
                here[i] = _mover_turn(rules, s, index[k + 1], vb, shifts, 1)
        va[k] = here
    first = float(va[0][0, 0, top])
    return {"value": 1.0 - first if seat == 1 else first, "width": width, "states": levels, "VA": va}

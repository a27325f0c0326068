"""Matches: full multi-player games between bots, and who wins them.

Game ``g`` of a match of ``P`` bots under seed ``S``:

* **Seats rotate**: rotation ``r = g mod P``; seat ``s`` (``0`` plays first) holds bot
  ``(r + s) mod P`` of the list, so over ``P`` consecutive games every bot plays every seat.
* **Each player has its own dice**: seat ``s`` of game ``g`` rolls the seeded stream of
  :mod:`solver.core.streams` with seed :func:`seat_seed` ``(S, s, r)`` and game index ``g // P``
  (each roll takes the next five dice of that stream, also for held dice).  A player's
  dice never depend on the other players' decisions, and the results depend only on
  ``(rules, bots, S, g)``: not on the thread count nor on the engine.
* Players take their turns in seat order; before each of its turns a bot with a
  ``see_opponents(cards)`` method is given the other players' cards (:class:`ScoreCard`,
  in seat order from the next player on) -- the ``win`` bot uses them; bots without the
  method (the other builtin bots, most user bots) ignore the opponents.
* The highest final score wins; players sharing it tie.

Two engines play the same games: numba, when every bot is a builtin bot of the numba
engine of :mod:`solver.play.simulate` and at most one is ``win`` (turn-synchronous over all
games: the opponent's row of the opponent model is updated after every turn, the ``win``
bot's turns run the win kernels of :mod:`solver.engine.kernels` with a target per game), and Python
(any bots: one game after another).  A match with a bot program (``cmd:``,
:mod:`solver.play.protocol`) and otherwise builtin bots plays its Python games in lockstep,
:data:`~solver.play.protocol.BATCH` at a time, so that the program is asked for the decisions
of all of them in one message (:func:`~solver.play.protocol.lockstep`): the same games, decision for decision,
as one after another -- each game has its own dice and random choices, and a builtin bot's turn
(shown the opponents' cards first) runs whole before another game's.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..advice.win import WIN_TIE, WinAdvisor
from ..core.card import ScoreCard
from ..core.errors import UsageError
from ..core.rules import RuleSet, get_rules
from ..core.streams import MASK64, SeededStream, check_seed, mix64
from ..core.threads import Workers, resolve_threads
from ..engine import arrays as A
from ..engine.playout import (
    STATE_WIDTH,
    Grader,
    RegretRecorder,
    WinGrader,
    game_totals_of,
    lane_states,
    progress_ticks,
    simple_turn,
    table_turn,
    target_turn,
    win_turn,
)
from . import protocol
from .bots import WinBot, bot_name
from .protocol import ProtocolBot, lockstep, program_turn
from .simulate import (
    card_before_turn,
    fast_kind,
    game_rng,
    mean_and_se,
    resolve_bot,
    worst_line,
    worst_position,
)
from .turn import BotTurn, show_opponents

MAX_PLAYERS = 8
MAX_GAMES = 20_000_000  # per call (scores are kept per game and seat)
MAX_WORST = 100_000  # the most worst decisions a graded match keeps per bot
SEAT_DOMAIN = 0x5345415453  # "SEATS"


def seat_seed(seed: int, seat: int, rotation: int) -> int:
    """The dice seed of seat ``seat`` in the games of rotation ``rotation`` (64-bit)."""
    return mix64((seed & MASK64) ^ mix64(SEAT_DOMAIN ^ (seat << 8) ^ rotation)) & MASK64


def seating(game: int, n_players: int) -> list[int]:
    """The bot index at each seat of game ``game`` (seat 0 plays first)."""
    r = game % n_players
    return [(r + s) % n_players for s in range(n_players)]


@dataclass
class MatchResult:
    """``scores[g, i]``: the final score of bot ``i`` (the order of ``bots``) in game ``g``;
    ``seats[g, i]``: its seat (0 plays first)."""

    rules: RuleSet
    bots: list[str]
    seed: int
    scores: np.ndarray
    seats: np.ndarray
    engine: str
    threads: int
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    #: the last seat's last turns graded for P(win) (``play_match(..., grade=True)``), else None
    grading: LastTurnGrading | None = None
    #: how tables name each bot (:func:`shown_names`: a program's own name); empty: ``bots``
    names: list[str] = field(default_factory=list)

    def shown(self, i: int) -> str:
        """How tables name bot ``i``."""
        return self.names[i] if self.names else self.bots[i]

    @property
    def games(self) -> int:
        return int(self.scores.shape[0])

    def summary(self) -> dict:
        return summarize(self)


class LastTurnGrading:
    """The decisions of the last seat's last turn, graded for P(win) + P(tie) / 2.

    There every opponent has finished, so the best opponent final ``B`` is known and the value
    of each option is exact: what it wins (1), ties (1/2) or loses (0) under the best play of
    the rest of the turn (:class:`~solver.engine.playout.WinGrader`, from the target table).
    No other position of a match is exact: before, the opponents' finals depend on how they
    will play.  ``recorders[i]`` (:class:`~solver.engine.playout.RegretRecorder`, indexed by
    match game) holds bot ``i``'s graded turns, in P(win) instead of points: the losses of
    each game (0 where the bot did not sit last), the luck, the worst decisions; ``final_cards``
    ``{game: [ScoreCard by bot]}`` the games of the worst decisions (their opponents' cards).
    """

    def __init__(self, rules: RuleSet, bots: int, games: int, worst: int, table, tables_dir=None):
        self.rules, self.table, self.tables_dir, self.tie = rules, table, tables_dir, WIN_TIE
        self.recorders = [RegretRecorder(rules, games, worst) for _ in range(bots)]  # 24 bytes a game each
        self.advisor = None  # the expected-score advisor the worst positions are shown with
        self.final_cards: dict[int, list[ScoreCard]] = {}
        self.target = table.arrays()

    def grader(self, workers) -> WinGrader:
        return WinGrader(workers, self.rules, self.target, self.tie)

    def worst_games(self) -> set[int]:
        return {int(g) for r in self.recorders for g in r.worst_decisions()["game"]}


def grading_summary(result: MatchResult) -> list[dict]:
    """Per bot (JSON-ready): its graded last turns -- ``graded_games`` (the games it sat last),
    ``graded_keeps``/``graded_boxes`` (decisions), ``loss_per_graded_game`` (P(win) lost against
    the best choices, with ``standard_error``), ``loss_per_game`` (over all its games: how much
    higher its match score would be), ``chance_at_last_turn`` (P(win) + P(tie) / 2 at the start
    of that turn with the best play) and ``achieved`` (what it got: the chance minus the
    losses plus the luck, game by game)."""
    g = result.grading
    if g is None:
        raise UsageError("this match did not grade the last turns (play_match(..., grade=True))")
    s = result.scores
    top = s.max(axis=1)
    n_top = (s == top[:, None]).sum(axis=1)
    last = result.seats.shape[1] - 1
    out = []
    for i, (name, rec) in enumerate(zip(result.bots, g.recorders, strict=True)):
        at = result.seats[:, i] == last
        n = int(at.sum())
        points = np.where(s[:, i] == top, np.where(n_top == 1, 1.0, g.tie), 0.0)[at]
        loss = rec.game_loss[at]
        mean, se = mean_and_se(loss) if n else (0.0, 0.0)
        all_mean, all_se = mean_and_se(rec.game_loss)
        start = points + loss - rec.game_luck[at]
        decisions = rec.turn_decisions[-1]
        out.append(
            {
                "bot": name,
                "name": result.shown(i),
                "graded_games": n,
                "graded_keeps": int(decisions[0] + decisions[1]),
                "graded_boxes": int(decisions[2]),
                "loss_per_graded_game": mean,
                "standard_error": se,
                "keep_loss_per_graded_game": float(rec.game_keep_loss[at].mean()) if n else 0.0,
                "loss_per_game": all_mean,
                "loss_per_game_standard_error": all_se,
                "chance_at_last_turn": float(start.mean()) if n else 0.0,
                "achieved": float(points.mean()) if n else 0.0,
            }
        )
    return out


def worst_match_positions(result: MatchResult) -> list[dict]:
    """The costliest graded decisions of a match, by bot and costliest first, as positions that
    ``hint --batch`` reads (``rules``, ``card``, ``dice``, ``rolls_left``), with ``bot``,
    ``game``, ``turn``, ``loss`` (P(win)), the ``opponent_cards`` (finished: ``hint
    --opponent-card`` ranks the position by P(win)) and the option ``played`` and the ``best``
    one (each as ``hint --json --opponent-card`` shows an option)."""
    from ..advice.advisor import Advisor
    from ..advice.objectives import Win

    g = result.grading
    if g is None:
        raise UsageError("this match did not grade the last turns (play_match(..., grade=True))")
    advisor = g.advisor if g.advisor is not None else Advisor.load(result.rules, g.tables_dir)
    win = WinAdvisor(advisor, g.table)
    out = []
    for i, (name, rec) in enumerate(zip(result.bots, g.recorders, strict=True)):
        w = rec.worst_decisions()
        for k in range(len(w["loss"])):
            game = int(w["game"][k])
            position, played = worst_position(result.rules, w, k)
            opponents = [c for b, c in enumerate(g.final_cards[game]) if b != i]
            advice = win.advise(position, Win(tuple(opponents)))
            out.append(
                {"bot": name}
                | worst_line(position, w, k, game)
                | {
                    "opponent_cards": [str(c) for c in opponents],
                    "played": advice.option_for(**played).to_json(),
                    "best": advice.best.to_json(),
                }
            )
    return out


def _rate(x: np.ndarray) -> dict:
    n = len(x)
    p = float(x.mean()) if n else 0.0
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    return {"rate": p, "standard_error": se}


def summarize(result: MatchResult) -> dict:
    """Per bot: wins, ties, losses (rates and standard errors), its match score (wins + ties
    / 2), mean and spread of its scores, per seat; the head-to-head matrix."""
    s = result.scores
    n, p = s.shape
    top = s.max(axis=1)
    n_top = (s == top[:, None]).sum(axis=1)
    per_bot = []
    for i, name in enumerate(result.bots):
        mine = s[:, i]
        win = (mine == top) & (n_top == 1)
        tie = (mine == top) & (n_top > 1)
        loss = mine < top
        points = win + 0.5 * tie
        seats = []
        for seat in range(p):
            at = result.seats[:, i] == seat
            seats.append({"seat": seat, "games": int(at.sum()), "win_or_half_tie": _rate(points[at])})
        per_bot.append(
            {
                "bot": name,
                "name": result.shown(i),
                "wins": int(win.sum()),
                "ties": int(tie.sum()),
                "losses": int(loss.sum()),
                "win": _rate(win.astype(np.float64)),
                "tie": _rate(tie.astype(np.float64)),
                "loss": _rate(loss.astype(np.float64)),
                "win_or_half_tie": _rate(points),
                "mean_score": float(mine.mean()),
                "sd_score": float(mine.std(ddof=1)) if n > 1 else 0.0,
                "by_seat": seats,
            }
        )
    h2h = []
    for i in range(p):
        row = []
        for j in range(p):
            if i == j:
                row.append(None)
                continue
            d = np.sign(s[:, i] - s[:, j]).astype(np.float64)
            row.append(_rate(0.5 + 0.5 * d))  # a beaten b: 1, tie: 1/2
        h2h.append(row)
    return {
        "rules": result.rules.id,
        "games": n,
        "seed": result.seed,
        "bots": list(result.bots),
        "engine": result.engine,
        "threads": result.threads,
        "seconds": round(result.seconds, 3),
        "players": per_bot,
        "head_to_head": h2h,
    }


# --- the Python engine ------------------------------------------------------------


def play_match_game(rules: RuleSet, bots: list, seed: int, game: int, last_turn=None) -> list[ScoreCard]:
    """Game ``game`` of the match (Python engine); returns the final cards by bot index.
    ``last_turn`` (a row of ``N_MOVES`` ints) records the last seat's last turn
    (:func:`~solver.play.simulate.play_turn`)."""
    return lockstep({game: _game_steps(rules, bots, seed, game, last_turn)})[game]  # asks nothing


def _game_steps(rules: RuleSet, bots: list, seed: int, game: int, last_turn=None, batched=False):
    """Game ``game`` as a generator of the bot programs' decisions: with ``batched`` each
    program's turn yields them (:func:`~solver.play.protocol.program_turn`, to be played in
    :func:`~solver.play.protocol.lockstep`), the other bots' turns are played at once (shown
    the opponents first, with no other game in between); without, every turn is played at once.
    Returns the final cards by bot index."""
    p = len(bots)
    order = seating(game, p)
    r, j = game % p, game // p
    streams = [SeededStream(seat_seed(seed, s, r), j) for s in range(p)]
    rngs = [game_rng(seat_seed(seed, s, r), j) for s in range(p)]
    cards = [ScoreCard.empty(rules) for _ in range(p)]
    for turn in range(rules.n_turns):
        for s in range(p):
            bot = bots[order[s]]
            played = BotTurn(
                cards[s], streams[s], last_turn if turn == rules.n_turns - 1 and s == p - 1 else None
            )
            if batched and isinstance(bot, ProtocolBot):
                opponents = [cards[(s + k) % p] for k in range(1, p)]
                cards[s] = yield from program_turn(played, bot, game, opponents)
            else:
                show_opponents(bot, cards, s)
                cards[s] = played.play(bot, rngs[s])
    out = [None] * p
    for s in range(p):
        out[order[s]] = cards[s]
    return out


def _played(rules, bots, games, seed, moves=None):
    """``(game, final cards by bot)`` of every game in order (Python engine): in lockstep,
    :data:`~solver.play.protocol.BATCH` games at a time, when a bot program plays beside builtin
    bots only (:func:`_lockstep_ok`), else one game after another; ``moves`` ((games, N_MOVES)
    ints) records each game's last turn of the last seat."""
    batched = _lockstep_ok(bots)
    size = protocol.BATCH if batched else 1
    for start in range(0, games, size):
        ids = range(start, min(games, start + size))
        if not batched:
            for bot in bots:
                if hasattr(bot, "game"):  # a bot program names the game in what it is sent
                    bot.game = start
        finished = lockstep(
            {g: _game_steps(rules, bots, seed, g, None if moves is None else moves[g], batched) for g in ids}
        )
        for g in ids:
            yield g, finished[g]


def _lockstep_ok(bots: list) -> bool:
    """Whether the games can be played side by side: a bot program among the bots and every
    other bot one of this package's (whose decisions depend on nothing but the position, its
    game's random choices and the opponents' cards it is shown before its turn)."""
    programs = [b for b in bots if isinstance(b, ProtocolBot)]
    others = [b for b in bots if not isinstance(b, ProtocolBot)]
    return bool(programs) and all(type(b).__module__.startswith("solver.") for b in others)


def _run_python(rules, bots, games, seed, tick, grading: LastTurnGrading | None = None) -> np.ndarray:

    p = len(bots)
    scores = np.empty((games, p), dtype=np.int64)
    moves = None
    if grading is not None:  # the last seat's last turn of each game: state before, need, moves
        before = np.empty((games, 3), dtype=np.int64)
        need = np.empty(games, dtype=np.int64)
        moves = np.empty((games, A.N_MOVES), dtype=np.int16)
        after = np.empty((games, rules.n_boxes), dtype=np.int16)
        bonuses = np.empty(games, dtype=np.int64)
        worst = grading.recorders[0].n_worst > 0
        kept: dict[int, list[ScoreCard]] = {}
    for g, cards in _played(rules, bots, games, seed, moves):
        scores[g] = [c.total for c in cards]
        if grading is not None:
            last = cards[seating(g, p)[-1]]
            after[g] = [-1 if x is None else x for x in last.scores]
            bonuses[g] = last.yahtzee_bonus_count
            card = card_before_turn(rules, after[g], int(bonuses[g]), moves[g])
            before[g] = card.state
            need[g] = max(c.total for c in cards if c is not last) - card.total
            if worst:
                kept[g] = cards
        tick(1)
    if grading is not None:
        with Workers(1) as workers:
            graded = grading.grader(workers).grade(before[:, 0], before[:, 1], before[:, 2], need, moves)
        bot_of = np.array([seating(g, p)[-1] for g in range(games)], dtype=np.int64)
        for i, rec in enumerate(grading.recorders):
            rows = np.flatnonzero(bot_of == i)
            rec.add_turn(rules.n_turns - 1, rows, moves[rows], graded[rows], after[rows], bonuses[rows])
        grading.final_cards = {g: kept[g] for g in grading.worst_games()} if worst else {}
    return scores


# --- the numba engine -------------------------------------------------------------
def _opponent_rows(state, ids, opp, residuals, ra, nb) -> None:
    """``opp["b0"][ids]``, ``opp["q0"][ids]``, ``opp["qn"][ids]``: where the final score of each
    game of ``state`` lies (:class:`solver.advice.win.OpponentModel`): ``b0 + j`` with
    probability ``residuals.p[q0 + j]``, ``j < qn``."""
    cap, n_flags = residuals.off.shape[1] - 1, residuals.off.shape[2]
    mask, u, f = lane_states(state, nb, cap, n_flags)
    opp["b0"][ids] = game_totals_of(state, ra, nb) + residuals.lo[mask, u, f]
    opp["q0"][ids] = residuals.off[mask, u, f]
    opp["qn"][ids] = residuals.length[mask, u, f]


def _fast_ok(rules: RuleSet, bots: list) -> list[str] | None:
    """The numba kinds of the bots, or None when the match needs the Python engine."""
    if rules.order == "choose":
        return None
    kinds = []
    for bot in bots:
        if type(bot) is WinBot and bot.rules == rules:
            kinds.append("win")
        else:
            kind = fast_kind(bot, rules)
            if kind is None:
                return None
            kinds.append(kind)
    if "win" in kinds and len(bots) != 2:
        return None  # the numba win bot plays against one opponent
    return kinds if kinds.count("win") <= 1 else None


def _run_numba(rules, bots, kinds, games, seed, n_threads, tick, grading: LastTurnGrading | None = None):
    from ..engine.dp import kernel_values, rule_arrays

    nb = rules.n_boxes
    p = len(bots)
    ra = rule_arrays(rules)
    no_moves = np.empty((0, A.N_MOVES), dtype=np.int16)  # the turns are not recorded
    win_target = residuals = q = None
    for bot, kind in zip(bots, kinds, strict=True):
        if kind == "win":
            win_target = bot.table.arrays()
            residuals = bot.win.model.residuals
            q = kernel_values(residuals.p, np.float32)
    groups = {}
    for r in range(p):
        n = len(range(r, games, p))
        for s in range(p):
            i = (r + s) % p
            bot, kind = bots[i], kinds[i]
            state = np.zeros((n, max(STATE_WIDTH, nb + A.STATE_EXTRA)), dtype=np.int32)
            state[:, :nb] = -1
            entry = {
                "bot": bot,
                "kind": kind,
                "state": state,
                "ids": np.arange(n, dtype=np.int64),
                "seed_mixed": np.uint64(mix64(seat_seed(seed, s, r))),
                "b0": np.zeros(n, dtype=np.int64),
                "q0": np.zeros(n, dtype=np.int64),
                "qn": np.zeros(n, dtype=np.int64),
                "total": np.zeros(n, dtype=np.int64),  # each game's points so far
            }
            if kind in ("table", "target", "win"):
                entry["values"] = kernel_values(
                    bot.optimal.values if kind in ("target", "win") else bot.values
                )
            if kind == "target":
                entry["target"] = bot.table.arrays()
            if residuals is not None:  # what the win bot reads of its opponent
                _opponent_rows(state, entry["ids"], entry, residuals, ra, nb)
            groups[s, r] = entry
    turns = rules.n_turns
    cap, n_flags = rules.upper_cap, rules.n_flags
    with Workers(n_threads) as workers:
        win_grader = grading.grader(workers) if grading is not None else None
        for turn in range(turns):
            for s in range(p):
                for r in range(p):
                    e = groups[s, r]
                    state, ids, kind, sm = e["state"], e["ids"], e["kind"], e["seed_mixed"]
                    n = len(ids)
                    if n == 0:
                        continue
                    # the last seat's last turn, every opponent finished: graded for P(win)
                    rec = None
                    if grading is not None and turn == turns - 1 and s == p - 1:
                        rec = Grader(workers, rules, None)  # records the moves only
                        before = np.empty((n, 3), dtype=np.int64)  # by id: (mask, u, f) before the turn
                        before[ids] = np.column_stack(lane_states(state, nb, cap, n_flags))
                        need = np.empty(n, dtype=np.int64)  # by id: the best opponent final - total
                        best = np.max([groups[o, r]["total"] for o in range(p - 1)], axis=0)
                        need[ids] = best[ids] - game_totals_of(state, ra, nb)
                    if kind == "win" and turn < e["bot"].start_turn:  # expected score until then
                        spare, spare_ids = np.empty_like(state), np.empty_like(ids)
                        table_turn(workers, e["values"], state, ids, spare, spare_ids, sm, 0, ra, rec)
                        state, ids = spare, spare_ids
                    elif kind == "win":
                        opp = groups[1 - s, r]
                        state, ids = win_turn(
                            workers, e["values"], win_target, q, WinBot.TIE, opp, state, ids, sm, ra, rec
                        )
                    elif kind == "target":
                        state, ids = target_turn(
                            workers, e["values"], e["target"], e["bot"].target, state, ids, sm, 0, ra, rec
                        )
                    elif kind == "table":
                        spare, spare_ids = np.empty_like(state), np.empty_like(ids)
                        table_turn(workers, e["values"], state, ids, spare, spare_ids, sm, 0, ra, rec)
                        state, ids = spare, spare_ids
                    else:
                        moves = no_moves if rec is None else rec.new_moves(n)
                        simple_turn(workers, kind, turn, state, sm, 0, ra, moves)
                        if rec is not None:
                            rec.moves = moves
                    e["state"], e["ids"] = state, ids
                    e["total"][ids] = game_totals_of(state, ra, nb)
                    if residuals is not None:
                        _opponent_rows(state, ids, e, residuals, ra, nb)
                    if rec is not None:
                        b = before[ids]
                        graded = win_grader.grade(b[:, 0], b[:, 1], b[:, 2], need[ids], rec.moves)
                        grading.recorders[(r + s) % p].add_turn(
                            turn, ids * p + r, rec.moves, graded, state[:, :nb], state[:, nb + A.COL_BONUSES]
                        )
            tick(games * (turn + 1) // turns - games * turn // turns)
    scores = np.empty((games, p), dtype=np.int64)
    for (s, r), e in groups.items():
        i = (r + s) % p
        g = e["ids"] * p + r
        scores[g, i] = game_totals_of(e["state"], ra, nb)
    if grading is not None:  # the final cards of the games of the worst decisions
        for game in grading.worst_games():
            r, j = game % p, game // p
            cards: list = [None] * p
            for s in range(p):
                e = groups[s, r]
                row = e["state"][int(np.flatnonzero(e["ids"] == j)[0])]
                scores_row = [int(x) for x in row[:nb]]
                cards[(r + s) % p] = ScoreCard(rules, tuple(scores_row), int(row[nb + A.COL_BONUSES]))
            grading.final_cards[game] = cards
    return scores


def play_match(
    rules: RuleSet | str | None,
    bots: list,
    games: int = 10_000,
    seed: int = 0,
    *,
    threads: int | None = None,
    tables_dir=None,
    engine: str = "auto",
    progress: bool | Callable[[int], None] = False,
    build_if_missing: bool = True,
    grade: bool = False,
    worst: int = 0,
) -> MatchResult:
    """Play ``games`` games between ``bots`` (names or :class:`Bot` objects, 2 to 8).

    ``grade``: also grade the decisions of the last seat's last turn for P(win) + P(tie) / 2
    (:class:`LastTurnGrading`; needs the target table, a win bot's or the rule set's:
    :class:`~solver.core.errors.MissingTableError` with the command that builds it), keeping
    each bot's ``worst`` costliest decisions (:func:`worst_match_positions`)."""
    rules = get_rules(rules)
    if rules.n_dice != 5:
        _check_six_dice_bots(rules, bots, grade or bool(worst))
    games = int(games)
    seed = check_seed(seed)
    if not 2 <= len(bots) <= MAX_PLAYERS:
        raise UsageError(f"a match needs 2 to {MAX_PLAYERS} bots, got {len(bots)}")
    if games < 1:
        raise UsageError(f"games must be 1 or more, got {games}")
    if games > MAX_GAMES:
        raise UsageError(f"games must be at most {MAX_GAMES:,} per match, got {games:,}")
    if engine not in ("auto", "numba", "python"):
        raise UsageError(f"engine must be auto, numba or python, got {engine!r}")
    made = [resolve_bot(bot, rules, tables_dir, build_if_missing, bool(progress)) for bot in bots]
    shared = [b for k, b in enumerate(made) if any(b is c for c in made[:k])]
    if any(callable(getattr(b, "see_opponents", None)) for b in shared):
        raise UsageError("give each player its own bot object (the same object twice shares its state)")
    kinds = _fast_ok(rules, made)
    if engine == "numba" and kinds is None:
        raise UsageError("these bots have no numba engine together (user bots, two win bots, order=choose)")
    use_numba = kinds is not None and engine != "python"
    n_threads = resolve_threads(threads) if use_numba else 1
    worst = int(worst)
    if not 0 <= worst <= MAX_WORST:
        raise UsageError(f"worst must be 0 to {MAX_WORST:,} decisions, got {worst:,}")
    grading = None
    if grade:
        win_bot = next((b for b in made if type(b) is WinBot), None)
        if win_bot is not None:
            table = win_bot.table
        else:
            from ..engine.target import get_target

            table = get_target(rules, tables_dir, build_if_missing=False)
        grading = LastTurnGrading(rules, len(made), games, worst, table, tables_dir)
        grading.advisor = None if win_bot is None else win_bot.advisor

    start, start_cpu = time.perf_counter(), time.process_time()
    try:
        with progress_ticks(progress, games, "match") as tick:
            if use_numba:
                scores = _run_numba(rules, made, kinds, games, int(seed), n_threads, tick, grading)
            else:
                scores = _run_python(rules, made, games, int(seed), tick, grading)
    finally:  # the bot programs started here end here (a bot object given is the caller's)
        for name, bot in zip(bots, made, strict=True):
            if isinstance(name, str) and callable(getattr(bot, "close", None)):
                bot.close()
    p = len(made)
    seats = np.empty((games, p), dtype=np.int64)
    g = np.arange(games)
    for i in range(p):
        seats[:, i] = (i - g % p) % p
    return MatchResult(
        rules=rules,
        bots=[bot_name(b) for b in made],
        seed=int(seed),
        scores=scores,
        seats=seats,
        engine="numba" if use_numba else "python",
        threads=n_threads,
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - start_cpu,
        grading=grading,
        names=shown_names(made),
    )


def _check_six_dice_bots(rules: RuleSet, bots: list, graded: bool) -> None:
    """Six dice (Maxi Yatzy): the builtin bots that simulate six dice play a match (both engines);
    the win and target bots (no target tables for six dice), bot programs and user bots do not
    yet, nor the grading (from a target table).  A usage error of one line otherwise."""
    from .simulate import SIX_DICE_BOTS

    plays = f"a {rules.id} match plays the bots {', '.join(SIX_DICE_BOTS)}"
    for bot in bots:
        name = bot.strip().lower() if isinstance(bot, str) else bot_name(bot)
        if name not in SIX_DICE_BOTS:
            shown = bot if isinstance(bot, str) else bot_name(bot)
            raise UsageError(f"bot {shown!r} does not play six dice in a match yet: {plays}")
    if graded:
        raise UsageError(
            f"{rules.id}: --grade and --worst need a target table, none for six dice yet; {plays}"
        )


def shown_names(bots: list) -> list[str]:
    """How tables name ``bots``: a bot program by the name it gave in ``ready`` (else its
    command), any other bot by its name; a name that two bots share numbered by their order
    (``example (Python) #1``, ``... #2``)."""
    names = [getattr(b, "shown_name", None) or bot_name(b) for b in bots]
    count, seen = Counter(names), Counter()
    out = []
    for name in names:
        if count[name] > 1:
            seen[name] += 1
            name = f"{name} #{seen[name]}"
        out.append(name)
    return out

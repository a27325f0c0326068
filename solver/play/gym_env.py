"""Gymnasium environments: a game of Yahtzee (any rule set with a table) for training bots.

Needs the ``rl`` extra (``pip install -e ".[rl]"``).  Two environments, registered with
Gymnasium when this module is imported (``gymnasium.make("solver.play.gym_env:YahtzeeSolver-v0")``
imports it on demand):

* :class:`YahtzeeEnv` (``YahtzeeSolver-v0``): one player, one game an episode; the reward
  of a step is the points it scores (the box, the upper bonus when it is reached, a Yahtzee
  bonus), so an episode's rewards add up to the final score.
* :class:`YahtzeeVsBotEnv` (``YahtzeeSolverVsBot-v0``): a two-player game against any bot
  (:func:`solver.play.bots.get_bot`: ``optimal``, ``win``, ``heuristic``, ``module:attr``,
  ``cmd:PROGRAM`` ...), whose turns are played inside the environment between the agent's;
  the observation adds the opponent's card, and the reward comes at the end: 1 for a win,
  0.5 for a tie, 0 for a loss (``reward="points"``: the agent's points, as above).

The game is the one game model (:class:`solver.play.game.Game`): the card applies the
rules, and every roll takes the next five dice of a seeded stream
(:class:`solver.core.streams.SeededStream`).

**Six dice** (Maxi Yatzy, ``maxi``): the same spaces sized from the rule set -- ``dice`` (6,),
64 keep actions (``0..63``, ``63`` holds all six: :attr:`YahtzeeEnv.stop_action`), the boxes from
``64`` (:attr:`YahtzeeEnv.n_keep_actions`), ``Discrete(64 + n_boxes)``; every "five" and "31"
below reads "six" and "63" there.

**Seeding.**  ``reset(seed=S, options={"game": g})`` plays game ``g`` (default 0) under dice
seed ``S`` (0 to 2^64 - 1); a ``reset()`` without a seed plays the next game of the same
seed (``g + 1``), so a run is reproducible from its first seed; with no seed ever given the
seed is drawn from Gymnasium's ``np_random``.  Single player: game ``g`` has the dice of
``yahtzee simulate --seed S`` game ``g`` (a bot that plays as the agent does scores the same).
Against a bot: game ``g`` is game ``g`` of ``yahtzee match --bots AGENT,OPPONENT --seed S``
-- seats rotate (the agent plays first in even games, second in odd ones) and each seat has
its own dice stream (:func:`solver.play.match.seat_seed`).

**Observation** (``observation="dict"``, the default: a :class:`gymnasium.spaces.Dict` of
int64 :class:`~gymnasium.spaces.Box` entries; ``"flat"``: the same values concatenated in
this order into one int64 ``Box``):

* ``dice`` (5,): the five dice, sorted, 1..6 (after the last box: the dice scored);
* ``rolls_left`` (1,): rolls left this turn, 0..2 (0 after keeping all five dice);
* ``scores`` (n_boxes,): each box's score in card order (``rules.box_names``), -1 when open;
* ``upper_total``, ``yahtzee_bonuses``, ``total`` (1,) each: the upper boxes' sum, the
  Yahtzee bonuses earned (a count) and the card's total (bonuses included);
* against a bot also ``opponent_scores``, ``opponent_upper_total``,
  ``opponent_yahtzee_bonuses`` and ``opponent_total``.

**Actions** (``Discrete(32 + n_boxes)``):

* ``0..31`` -- a keep: bit ``i`` holds die ``i`` of the sorted ``dice`` (bit 0 the first);
  the rest are rolled again.  ``31`` holds all five: stop rolling, the next step chooses a
  box (with ``rolls_left`` 0).  Not with no rolls left, and under ``all-rolls`` never ``31``.
* ``32 + b`` -- score box ``b`` (``rules.box_names[b]``) with the dice showing.  Legal when
  the card takes the dice there (open, the Joker rule, a fill order) and, under
  ``all-rolls``, once the rolls are used.

**Action mask** (:meth:`YahtzeeEnv.action_masks`, the convention of sb3-contrib's
``MaskablePPO``; also ``info["action_mask"]``): bool (32 + n_boxes,), the distinct options of
the position, exactly the options the advisor ranks.  With rolls left: one keep per distinct
multiset of dice to keep (the leftmost dice of each face; another pattern keeping the same
faces, such as bit 1 instead of bit 0 of ``33456``, is accepted too and does the same); with
none left: the legal boxes.  Scoring a box with rolls left (stop and score in one step) is
accepted where the rules allow it but not in the mask, since keeping all five does it.
An action that is not legal raises :class:`~solver.core.errors.IllegalMoveError`.

**Info**: ``action_mask``; after a step ``regret`` (when ``regret=True``, the default): the
exact loss of the step in expected points, the table's value of the best option of the
position minus that of the one chosen (0.0 for a best move; a box scored with rolls left
loses what stopping and that box lose together), and ``best_action`` (the mask's action of
the best option, for imitation); ``total`` (the agent's card total).  Against a bot the
regret is the expected-score loss (the table's), not the loss in chances to win.  After
``reset``: ``seed`` and ``game``.

The triple card (``+triple``) is not offered here: its card of three columns has no exact
table.  The advisor (:class:`solver.advice.advisor.Advisor`) is plain Python: numba is not
imported unless a table has to be built first (``build_if_missing``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..core import dice as D
from ..core.bounded import shown, whole_value
from ..core.card import ScoreCard
from ..core.dice import dice_class
from ..core.errors import IllegalMoveError, MissingExtraError, UsageError
from ..core.position import Position
from ..core.rules import RuleSet, get_rules
from ..core.streams import MAX_SEED, SeededStream, check_seed
from ..engine.turn import regret_of
from .game import Game, Player, play_bot_turn

RL_HINT = (
    'the Gymnasium environments need the rl extra: pip install -e ".[rl]" (in a checkout) '
    'or pip install "yahtzee-solver[rl]"'
)

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError:  # one line saying how to get it, not a traceback into our imports
    raise MissingExtraError(RL_HINT) from None

ENV_ID = "YahtzeeSolver-v0"
VS_BOT_ENV_ID = "YahtzeeSolverVsBot-v0"
#: the keep actions: every subset of the five dice (bit i = die i of the sorted dice); six dice
#: (Maxi Yatzy) have 64 (:attr:`YahtzeeEnv.n_keep_actions`)
N_KEEP_ACTIONS = 1 << D.N_DICE
#: the keep action that holds all five dice: stop rolling (six dice: 63, :attr:`YahtzeeEnv.stop_action`)
STOP = N_KEEP_ACTIONS - 1
#: the most game indices a seed has (as ``yahtzee simulate``: whole numbers below 2^63)
MAX_GAME = (1 << 63) - 1


@lru_cache(maxsize=2)
def _pattern_tables(
    n_dice: int = D.N_DICE,
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[bool, ...], ...]]:
    """Per roll (252 of five dice, 462 of six; sorted dice) and hold pattern (``2**n_dice``): the
    keep index it holds (of :func:`solver.core.dice.layer`), and whether the pattern is the
    canonical one of its keep (the leftmost dice of each face)."""
    dice = D.layer(n_dice)
    keeps, canonical = [], []
    for roll in dice.rolls:
        row_keep, row_canon = [], []
        for pattern in range(1 << n_dice):
            held = [roll[i] for i in range(n_dice) if pattern >> i & 1]
            row_keep.append(dice.keep_index[tuple(held)])
            row_canon.append(pattern == canonical_pattern(roll, held))
        keeps.append(tuple(row_keep))
        canonical.append(tuple(row_canon))
    return tuple(keeps), tuple(canonical)


def canonical_pattern(dice, keep) -> int:
    """The keep action of the faces ``keep`` from the sorted ``dice``: the leftmost die of each
    face kept; raises :class:`IllegalMoveError` when ``keep`` is not among the dice."""
    dice = tuple(dice)
    pattern = 0
    for face in set(keep):
        want = list(keep).count(face)
        where = [i for i, d in enumerate(dice) if d == face]
        if len(where) < want:
            raise IllegalMoveError(f"cannot keep {shown(sorted(keep))} from the dice {shown(list(dice))}")
        for i in where[:want]:
            pattern |= 1 << i
    return pattern


def keep_action(dice, keep) -> int:
    """The action (0..31; six dice 0..63) that keeps the faces ``keep`` of the sorted ``dice``
    (all five: 31, stop; all six: 63)."""
    return canonical_pattern(tuple(sorted(dice)), tuple(keep))


def box_action(rules: RuleSet | str, box: str) -> int:
    """The action that scores ``box`` (a name of ``rules.box_names``)."""
    rules = get_rules(rules)
    if box not in rules.box_index:
        raise IllegalMoveError(f"unknown box {shown(box)} (boxes: {', '.join(rules.box_names)})")
    return (1 << rules.n_dice) + rules.box_index[box]


def _plain(value):
    """A numpy integer as a Python ``int`` (a seed or game index from numpy code); else ``value``."""
    return int(value) if isinstance(value, np.integer) else value


def _count_space(high: int, n: int = 1) -> spaces.Box:
    # a count that stays 0 (no Yahtzee bonus in yatzy) still gets a range: spaces of one point
    # are a mistake to Gymnasium's checker
    return spaces.Box(low=0, high=max(high, 1), shape=(n,), dtype=np.int64)


class YahtzeeEnv(gym.Env):
    """One player's game of ``rules`` (see the module docstring for spaces, seeding and info).

    ``tables_dir``: where the rule set's table is (built first when missing and
    ``build_if_missing``); ``regret=False`` leaves the regret out and reads no table.
    ``observation``: ``"dict"`` or ``"flat"``; ``render_mode``: ``None`` or ``"ansi"``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        rules: RuleSet | str | None = "yahtzee",
        *,
        tables_dir=None,
        regret: bool = True,
        observation: str = "dict",
        render_mode: str | None = None,
        build_if_missing: bool = True,
    ):
        super().__init__()
        self.rules = get_rules(rules)
        if self.rules.triple:
            raise UsageError(
                f"{self.rules.id}: the Gymnasium environments play single cards (the triple card has no "
                "exact table)"
            )
        if observation not in ("dict", "flat"):
            raise UsageError(f"observation must be 'dict' or 'flat', got {shown(observation)}")
        if render_mode not in (None, "ansi"):
            raise UsageError(f"render_mode must be None or 'ansi', got {shown(render_mode)}")
        self.render_mode = render_mode
        self.observation_kind = observation
        self.advisor = None
        if regret:
            from ..advice.advisor import Advisor

            self.advisor = Advisor.load(
                self.rules, tables_dir, build_if_missing=build_if_missing, progress=False
            )
        n = self.rules.n_boxes
        #: the dice (five; six under Maxi Yatzy), their keep actions and the one holding all
        self.n_dice = self.rules.n_dice
        self.n_keep_actions = 1 << self.n_dice
        self.stop_action = self.n_keep_actions - 1
        self._dice_layer = D.layer(self.n_dice)
        self._patterns = _pattern_tables(self.n_dice)
        self.n_actions = self.n_keep_actions + n
        self.action_space = spaces.Discrete(self.n_actions)
        self._parts = self._observation_parts()
        dict_space = spaces.Dict(self._parts)
        if observation == "dict":
            self.observation_space = dict_space
        else:
            low = np.concatenate([s.low for s in self._parts.values()])
            high = np.concatenate([s.high for s in self._parts.values()])
            self.observation_space = spaces.Box(low=low, high=high, dtype=np.int64)
        self.dice_seed: int | None = None
        self.game_index = 0
        self.game: Game | None = None
        self.agent = 0  # the agent's player index in the game
        self._next_game = 0
        self._stopped = False
        self._mask: np.ndarray | None = None
        self._last_dice: tuple[int, ...] = (1,) * self.n_dice

    # --- spaces ------------------------------------------------------------------
    def _card_parts(self, prefix: str = "") -> dict[str, spaces.Box]:
        rules = self.rules
        top = [max(s) for s in rules.possible_scores]
        upper = sum(top[i] for i in rules.upper_indices)
        bonuses = rules.n_turns if rules.bonus else 0
        total = sum(top) + (rules.upper_bonus if rules.has_upper_bonus else 0) + bonuses * rules.bonus
        return {
            f"{prefix}scores": spaces.Box(
                low=-1, high=np.array(top, dtype=np.int64), shape=(rules.n_boxes,), dtype=np.int64
            ),
            f"{prefix}upper_total": _count_space(upper),
            f"{prefix}yahtzee_bonuses": _count_space(bonuses),
            f"{prefix}total": _count_space(total),
        }

    def _observation_parts(self) -> dict[str, spaces.Box]:
        return {
            "dice": spaces.Box(low=1, high=D.N_FACES, shape=(self.n_dice,), dtype=np.int64),
            "rolls_left": _count_space(2),
        } | self._card_parts()

    # --- the state ---------------------------------------------------------------
    @property
    def card(self) -> ScoreCard:
        """The agent's card."""
        return self.game.cards[self.agent]

    @property
    def dice(self) -> tuple[int, ...]:
        """The agent's five dice, sorted (after the game: the dice scored last)."""
        if self.game is not None and self.game.dice is not None and self.game.current == self.agent:
            return self.game.sorted_dice.values
        return self._last_dice

    @property
    def rolls_left(self) -> int:
        """Rolls left to the agent now (0 once it kept all five, or the game is over)."""
        game = self.game
        if game is None or game.is_over or self._stopped:
            return 0
        return game.rolls_left

    def _card_obs(self, card: ScoreCard, prefix: str = "") -> dict[str, np.ndarray]:
        scores = np.array([-1 if s is None else s for s in card.scores], dtype=np.int64)
        return {
            f"{prefix}scores": scores,
            f"{prefix}upper_total": np.array([card.upper_total], dtype=np.int64),
            f"{prefix}yahtzee_bonuses": np.array([card.yahtzee_bonus_count], dtype=np.int64),
            f"{prefix}total": np.array([card.total], dtype=np.int64),
        }

    def _observation_dict(self) -> dict[str, np.ndarray]:
        return {
            "dice": np.array(self.dice, dtype=np.int64),
            "rolls_left": np.array([self.rolls_left], dtype=np.int64),
        } | self._card_obs(self.card)

    def _observation(self):
        obs = self._observation_dict()
        if self.observation_kind == "dict":
            return obs
        return np.concatenate([obs[k] for k in self._parts])

    def action_masks(self) -> np.ndarray:
        """bool (32 + n_boxes,): the legal actions, one per distinct option (see the module
        docstring); a copy of the mask of the current position, made once a step."""
        if self._mask is None:
            self._mask = self._legal_actions()
        return self._mask.copy()

    def _legal_actions(self) -> np.ndarray:
        mask = np.zeros(self.n_actions, dtype=bool)
        game = self.game
        if game is None or game.is_over:
            return mask
        dice = self.dice
        if self.rolls_left > 0:
            layer = self._dice_layer
            mask[: self.n_keep_actions] = self._patterns[1][layer.keep_index[dice] - layer.roll_offset]
            if self.rules.all_rolls:
                mask[self.stop_action] = False
        else:
            card = self.card
            counts = dice_class(self.n_dice)(dice).counts
            for b, _, _ in self.rules.placements(card.filled_mask, counts, card.yahtzee_holds_50):
                mask[self.n_keep_actions + b] = True
        return mask

    # --- the game ----------------------------------------------------------------
    def _new_game(self, seed: int, game: int) -> Game:
        return Game(
            self.rules,
            [Player("agent")],
            [SeededStream(seed, game)],
            {"dice": "seeded", "seed": seed, "game": game},
        )

    def _play_others(self) -> None:
        """Play the other players' turns up to the agent's (none alone)."""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            seed = check_seed(_plain(seed))
        super().reset(seed=seed)
        options = dict(options or {})
        if seed is not None:
            self.dice_seed, self._next_game = seed, 0
        elif self.dice_seed is None:  # never seeded: a seed from Gymnasium's generator
            self.dice_seed, self._next_game = (
                int(self.np_random.integers(0, MAX_SEED, endpoint=True, dtype=np.uint64)),
                0,
            )
        game = options.pop("game", self._next_game)
        if options:
            raise UsageError(f"unknown reset option(s): {', '.join(map(shown, options))} (known: game)")
        self.game_index = whole_value(_plain(game), "game", 0, MAX_GAME)
        self._next_game = self.game_index + 1
        self.game = self._new_game(self.dice_seed, self.game_index)
        self._stopped = False
        self._play_others()
        self.game.roll()
        self._mask = None
        info = {"action_mask": self.action_masks(), "seed": self.dice_seed, "game": self.game_index}
        return self._observation(), info

    def step(self, action):
        game = self.game
        if game is None:
            raise UsageError("call reset() before step()")
        if game.is_over:
            raise IllegalMoveError("the game is over: call reset()")
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalMoveError(
                f"an action is a whole number from 0 to {self.n_actions - 1}, got {shown(action)}"
            )
        action = int(action)
        if not 0 <= action < self.n_actions:
            raise IllegalMoveError(f"action {action} is not one of 0 to {self.n_actions - 1}")
        card, dice, rolls_left = self.card, self.dice, self.rolls_left
        position_rolls = rolls_left
        info: dict[str, Any] = {}
        reward = 0.0
        if action < self.n_keep_actions:
            if rolls_left == 0:
                raise IllegalMoveError(f"no rolls left: score a box (actions {self.n_keep_actions} and up)")
            layer = self._dice_layer
            keep = layer.keeps[self._patterns[0][layer.keep_index[dice] - layer.roll_offset][action]]
            if len(keep) == self.n_dice:
                if self.rules.all_rolls:
                    raise IllegalMoveError(f"{self.rules.id} uses all three rolls: roll again")
                self._stopped = True
            else:
                game.keep_faces(keep)
                game.roll()
            if self.advisor is not None:
                info |= self._regret(card, dice, position_rolls, keep=keep)
        else:
            box = self.rules.box_names[action - self.n_keep_actions]
            if rolls_left > 0 and self.rules.all_rolls:
                raise IllegalMoveError(f"{self.rules.id} uses all three rolls: roll again before scoring")
            before = card.total
            game.score(box)  # the card checks the box (open, the Joker rule, a fill order)
            self._last_dice = dice
            self._stopped = False
            reward = float(self.card.total - before)
            if self.advisor is not None:
                info |= self._regret(card, dice, position_rolls, box=box)
            self._play_others()
            if not game.is_over:
                game.roll()
        terminated = game.is_over
        reward = self._reward(reward, terminated)
        self._mask = None
        info |= {"action_mask": self.action_masks(), "total": self.card.total}
        return self._observation(), reward, terminated, False, info

    def _reward(self, points: float, terminated: bool) -> float:
        return points

    def _regret(self, card: ScoreCard, dice, rolls_left: int, keep=None, box=None) -> dict:
        """The step's exact loss and the best option's action (see the module docstring)."""
        advise, position = self.advisor.advise, Position(card, dice_class(self.n_dice)(dice), rolls_left)
        advice = advise(position)
        best = advice.options[0]
        best_ev = best.ev
        if keep is not None:
            chosen = advice.option_for(keep=keep).ev
        elif rolls_left == 0:
            chosen = advice.option_for(category=box).ev
        else:  # stop and score in one step: the box's value with no rolls left (the best of all if more)
            boxes = advise(Position(card, position.dice, 0))
            chosen = boxes.option_for(category=box).ev
            best_ev = max(best_ev, boxes.options[0].ev)
        if best.keep is not None:
            best_action = keep_action(dice, best.keep)
        else:
            best_action = box_action(self.rules, best.category)
        return {"regret": regret_of(best_ev, chosen), "best_action": best_action}

    def clone(self) -> YahtzeeEnv:
        """An independent copy of the environment as it stands, for lookahead: stepped with the
        same actions it gives the same observations, rewards and info as this one would, and
        stepping it leaves this one as it was.  Cheap (tens of microseconds): the game is
        copied (:meth:`solver.play.game.Game.copy`), the rest shared -- the rules, spaces and
        the advisor with its table (read only); against a bot, the opponent bot too, whose
        random choices are copied (a bot program's process stays this environment's to end)."""
        import copy

        new = copy.copy(self)
        new.game = None if self.game is None else self.game.copy()
        new._mask = None if self._mask is None else self._mask.copy()
        if self._np_random is not None:  # the seeds of unseeded resets: the same ones
            new._np_random = copy.deepcopy(self._np_random)
        return new

    def render(self):
        if self.render_mode != "ansi" or self.game is None:
            return None
        dice = " ".join(map(str, self.dice))
        return f"{self.card.format()}\n  dice {dice}, {self.rolls_left} rolls left\n"


class YahtzeeVsBotEnv(YahtzeeEnv):
    """A two-player game of ``rules`` against ``opponent`` (a bot name for
    :func:`~solver.play.bots.get_bot`, or a bot object), whose turns are played inside the
    environment between the agent's (see the module docstring).

    ``reward``: ``"win"`` (at the end: 1 win, 0.5 tie, 0 loss; 0 before) or ``"points"`` (the
    agent's points as they are scored).  ``info["outcome"]`` at the end: ``win``, ``tie`` or ``loss``.
    A bot program (``cmd:...``) named here is ended by :meth:`close`.
    """

    def __init__(
        self,
        rules: RuleSet | str | None = "yahtzee",
        opponent="optimal",
        *,
        reward: str = "win",
        tables_dir=None,
        regret: bool = True,
        observation: str = "dict",
        render_mode: str | None = None,
        build_if_missing: bool = True,
    ):
        from .simulate import resolve_bot

        if reward not in ("win", "points"):
            raise UsageError(f"reward must be 'win' or 'points', got {shown(reward)}")
        self.reward_kind = reward
        rules = get_rules(rules)
        self._owns_opponent = isinstance(opponent, str)
        self.opponent = resolve_bot(opponent, rules, tables_dir, build_if_missing, False)
        self._rng = None
        super().__init__(
            rules,
            tables_dir=tables_dir,
            regret=regret,
            observation=observation,
            render_mode=render_mode,
            build_if_missing=build_if_missing,
        )

    def _observation_parts(self) -> dict[str, spaces.Box]:
        return super()._observation_parts() | self._card_parts("opponent_")

    def _observation_dict(self) -> dict[str, np.ndarray]:
        return super()._observation_dict() | self._card_obs(self.game.cards[1 - self.agent], "opponent_")

    def _new_game(self, seed: int, game: int) -> Game:
        """Game ``game`` of a match of the agent (bot 0) against the opponent (bot 1), as
        :func:`solver.play.match.play_match_game` seats and seeds it."""
        from .bots import bot_name
        from .match import seat_seed, seating
        from .simulate import game_rng

        order = seating(game, 2)
        rotation, index = game % 2, game // 2
        self.agent = order.index(0)
        opponent_seat = 1 - self.agent
        self._rng = game_rng(seat_seed(seed, opponent_seat, rotation), index)
        players = [Player("agent") if who == 0 else Player("opponent", "bot", None) for who in order]
        streams = [SeededStream(seat_seed(seed, s, rotation), index) for s in range(2)]
        info = {"dice": "seeded", "seed": seed, "game": game, "opponent": bot_name(self.opponent)}
        return Game(self.rules, players, streams, info)

    def _play_others(self) -> None:
        game = self.game
        while not game.is_over and game.current != self.agent:
            play_bot_turn(game, self.opponent, self._rng)

    def _outcome(self) -> str:
        mine, theirs = self.card.total, self.game.cards[1 - self.agent].total
        return "win" if mine > theirs else "tie" if mine == theirs else "loss"

    def _reward(self, points: float, terminated: bool) -> float:
        if self.reward_kind == "points":
            return points
        return {"win": 1.0, "tie": 0.5, "loss": 0.0}[self._outcome()] if terminated else 0.0

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        if terminated:
            info["outcome"] = self._outcome()
        return obs, reward, terminated, truncated, info

    def clone(self) -> YahtzeeVsBotEnv:
        new = super().clone()
        if self._rng is not None:
            new._rng = type(self._rng)()
            new._rng.setstate(self._rng.getstate())
        new._owns_opponent = False  # the opponent is shared: closed by the original only
        return new

    def close(self) -> None:
        closer = getattr(self.opponent, "close", None)
        if self._owns_opponent and callable(closer):
            closer()  # a bot program's process is reaped
        super().close()


def register_envs() -> None:
    """Register :data:`ENV_ID` and :data:`VS_BOT_ENV_ID` with Gymnasium (once; done on import)."""
    for env_id, cls in ((ENV_ID, "YahtzeeEnv"), (VS_BOT_ENV_ID, "YahtzeeVsBotEnv")):
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=f"{__name__}:{cls}", nondeterministic=False)


register_envs()

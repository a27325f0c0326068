"""A game of Yahtzee or Yatzy as a UI-free model: players, turns, rolls, holds, boxes.

A :class:`Game` knows the rule set, the players (each with a card: a
:class:`~solver.core.card.ScoreCard`, or on the triple card a
:class:`~solver.core.triple_card.TripleCard` whose boxes are named ``BOX@COLUMN``), the
turn order and where the dice come from.  It is the one game model of every card shape.
The user interface (``yahtzee play``), the bots and the review all drive the
same few methods:

* :meth:`Game.roll` -- roll the dice that are not held (the first roll of a turn
  is mandatory, at most three rolls a turn).  Every roll takes the next five
  dice of the player's stream, also for held dice (see :mod:`solver.core.streams`),
  or values typed in from a real table.
* :meth:`Game.toggle_hold`, :meth:`Game.set_held`, :meth:`Game.keep_faces` --
  which dice (by position 1..5) stay for the next roll.
* :meth:`Game.score` -- put the dice in a box; the card applies the Joker rule
  and the bonuses and refuses illegal boxes with the reason.

Every event is recorded in :attr:`Game.turns` (each roll with the held positions,
the values it took and the resulting dice; the box, its score and bonus), so a
game can be saved (:meth:`Game.to_dict`), loaded and checked again
(:meth:`Game.from_dict`, which names the first bad entry of a bad file) and
reviewed decision by decision (:meth:`Game.decisions`).

This module only uses the rule set, card, dice and stream layers; the advisor is
never imported here, the bots only for the names of the builtin bots (the only ones a
saved game may name: a file is data, never code to import).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ..core.bounded import clipped, parse_whole, shown
from ..core.card import ScoreCard, box_key
from ..core.dice import N_DICE, N_FACES, Dice, dice_class
from ..core.errors import IllegalMoveError, SolverError, UsageError
from ..core.rules import RuleSet, get_rules
from ..core.streams import STREAM_VERSION, DailyStream, SeededStream, next_dice
from ..core.triple_card import COLUMN_SEP, TripleCard, empty_card
from .game_info import DATE_PATTERN, WORD_PATTERN, GameInfo  # noqa: F401 - the patterns: part of this API
from .turn import GameTurn, show_opponents

MAX_ROLLS = 3
FORMAT = "yahtzee-solver game"
#: 2: any card, the triple card's boxes named ``BOX@COLUMN``; version 1 files (single cards) and
#: the triple card's old files (:data:`OLD_TRIPLE_FORMAT`) still load
FORMAT_VERSION = 2
READS_VERSIONS = (1, 2)
OLD_TRIPLE_FORMAT = "yahtzee-solver triple game"
STATUSES = ("in_progress", "finished", "abandoned")
#: a game mode or computer level as saved (``solo``, ``vs-computer``, ``hard``, ...): a plain word,


#: what players type for a box -> the boxes it may mean, the first on the card wins
BOX_ALIASES: dict[str, tuple[str, ...]] = {
    "aces": ("ones",), "1s": ("ones",), "deuces": ("twos",), "2s": ("twos",), "treys": ("threes",),
    "3s": ("threes",), "4s": ("fours",), "5s": ("fives",), "6s": ("sixes",),
    "1p": ("one_pair",), "pair": ("one_pair",), "2p": ("two_pairs",),
    "3k": ("three_of_a_kind",), "3ok": ("three_of_a_kind",), "toak": ("three_of_a_kind",),
    "4k": ("four_of_a_kind",), "4ok": ("four_of_a_kind",), "foak": ("four_of_a_kind",),
    "fh": ("full_house",), "house": ("full_house",),
    "ss": ("small_straight", "little_straight"), "sm": ("small_straight", "little_straight"),
    "ls": ("large_straight", "little_straight"), "lg": ("large_straight", "big_straight"),
    "bs": ("big_straight",), "ch": ("chance", "choice"),
    "y": ("yahtzee", "yatzy", "yacht"), "yahtzee": ("yatzy", "yacht"), "yatzy": ("yahtzee", "yacht"),
}  # fmt: skip


class GameRecordError(UsageError):
    """A saved game that cannot be read or replayed; the message names the first bad entry."""


@dataclass(frozen=True)
class Player:
    """A seat at the table: a person (``kind="human"``) or a bot (``kind="bot"``, ``bot`` its name)."""

    name: str
    kind: str = "human"
    bot: str | None = None

    @property
    def is_bot(self) -> bool:
        return self.kind == "bot"

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind} | ({"bot": self.bot} if self.bot else {})


@dataclass(frozen=True)
class Roll:
    """One roll: the positions held (1..5), the values it took, the five dice after it (by position)."""

    held: tuple[int, ...]
    values: tuple[int, ...]
    dice: tuple[int, ...]

    def to_dict(self) -> dict:
        return {"held": list(self.held), "values": list(self.values), "dice": list(self.dice)}


@dataclass
class Turn:
    """One player's turn: its rolls and, once scored, the box, its score and any Yahtzee bonus."""

    player: int
    round: int
    card_before: ScoreCard
    rolls: list[Roll] = field(default_factory=list)
    box: str | None = None
    score: int | None = None
    bonus: int = 0

    @property
    def is_complete(self) -> bool:
        return self.box is not None

    @property
    def dice(self) -> Dice:
        return dice_class(len(self.rolls[-1].dice))(self.rolls[-1].dice)

    def to_dict(self, players: Sequence[Player]) -> dict:
        out: dict = {
            "player": players[self.player].name,
            "round": self.round,
            "rolls": [r.to_dict() for r in self.rolls],
        }
        if self.box is not None:
            out |= {"box": self.box, "score": self.score, "bonus": self.bonus}
        return out


@dataclass(frozen=True)
class Decision:
    """A choice a player made, for review: a keep (``keep`` set; all five = stop) or a box.

    ``turn`` is the 1-based index of the turn in :attr:`Game.turns`, ``roll`` the
    roll the decision followed (1..3), ``card`` the card before the turn's box.
    """

    turn: int
    player: int
    round: int
    roll: int
    card: ScoreCard
    dice: Dice
    rolls_left: int
    keep: tuple[int, ...] | None = None
    box: str | None = None

    @property
    def is_keep(self) -> bool:
        return self.keep is not None


def _faces(values, what: str = "die") -> tuple[int, ...]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= N_FACES:
            raise IllegalMoveError(f"{what} {shown(v)} is not a face from 1 to {N_FACES}")
        out.append(v)
    return tuple(out)


def _positions(positions, n_dice: int = N_DICE) -> tuple[int, ...]:
    """Die positions 1..``n_dice`` (numbers or their text); an illegal move otherwise."""
    out = []
    for p in positions:
        if isinstance(p, str):
            text = p.strip()
            try:
                p = parse_whole(text, "die number", 1, n_dice, error=IllegalMoveError)
            except IllegalMoveError:
                if text.isascii() and text.isdigit():
                    raise IllegalMoveError(
                        f"die number {clipped(text)} is out of range (the dice are numbered 1 to {n_dice})"
                    ) from None
                raise IllegalMoveError(
                    f"die number {shown(text)} is not a number from 1 to {n_dice}"
                ) from None
        if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= n_dice:
            raise IllegalMoveError(
                f"die number {shown(p)} is out of range (the dice are numbered 1 to {n_dice})"
            )
        out.append(p)
    return tuple(out)


def _show(values) -> str:
    """Dice as ``33456``; anything else (read from a file) as its shortened ``repr``."""
    if all(type(v) is int and 0 <= v <= 9 for v in values):
        return "".join(map(str, values)) or "(none)"
    return shown(list(values))


def single_box_name(card: ScoreCard, token: str | int) -> str:
    """The box of a single card meant by ``token``: a number (1-based, card order), a name, an
    alias players use (``aces``, ``3k``, ``fh``, ``ss``, ``ch``, ``y``, Yatzy's ``1p`` ...; see
    :data:`BOX_ALIASES`) or a start of a name that is unique among the open boxes (among all
    when none is open)."""
    names = card.rules.box_names
    if isinstance(token, int) and not isinstance(token, bool):
        if not 1 <= token <= len(names):
            raise IllegalMoveError(f"box number {shown(token)} is not on the card (1 to {len(names)})")
        return names[token - 1]
    text = box_key(token)
    if not text:
        raise IllegalMoveError("say which box, by name or number")
    if text.isdecimal():
        try:
            return names[parse_whole(text, "box number", 1, len(names), error=IllegalMoveError) - 1]
        except IllegalMoveError:
            raise IllegalMoveError(
                f"box number {clipped(text)} is not on the card (1 to {len(names)})"
            ) from None
    if text in names:
        return text
    targets = BOX_ALIASES.get(text, ())
    # the first target on the card, and its further rows (yatzy_2, ...): the first open one
    target = next((t for t in targets if t in names), None)
    if target is not None:
        rows = [n for n in names if n == target or n.removeprefix(target + "_").isdecimal()]
        return next((n for n in rows if card.scores[names.index(n)] is None), target)
    starts = [n for n in names if n.startswith(text)]
    open_starts = [n for n, v in zip(names, card.scores, strict=True) if v is None and n in starts]
    if open_starts:
        starts = open_starts
    if len(starts) == 1:
        return starts[0]
    if starts:
        raise IllegalMoveError(f"{token!r} could be {', '.join(starts)}: say which")
    raise IllegalMoveError(f"unknown box {token!r} (boxes: {', '.join(names)})")


def column_box_name(card: TripleCard, token: str | int) -> str:
    """The box of a card of columns meant by ``token``: ``BOX@COLUMN`` or ``BOX COLUMN`` (the box
    as :func:`single_box_name` reads it within that column: ``4s@3``, ``full 2``), or a box
    alone where only one column has it open; the answer is ``BOX@COLUMN`` (``fours@3``)."""
    text = str(token).strip()
    if COLUMN_SEP in text:
        box, _, column = text.rpartition(COLUMN_SEP)
    else:
        words = text.split()
        box, column = (
            (" ".join(words[:-1]), words[-1]) if len(words) > 1 and words[-1].isdecimal() else (text, None)
        )
    if column is not None:
        c = card.column_index(column.strip())
        return card.key(c + 1, single_box_name(card.columns[c], box.strip()))
    found = {}
    for c in card.open_columns:
        try:
            name = single_box_name(card.columns[c], box)
        except IllegalMoveError:
            continue
        if card.columns[c].get(name) is None:
            found[c] = name
    if len(found) == 1:
        ((c, name),) = found.items()
        return card.key(c + 1, name)
    if found:
        raise IllegalMoveError(
            f"{shown(text)} is open in columns {', '.join(str(c + 1) for c in found)}: say which, e.g. "
            + f"s {next(iter(found.values()))}{COLUMN_SEP}{next(iter(found)) + 1}"
        )
    single_box_name(card.columns[0], box)  # an unknown box: its own message
    raise IllegalMoveError(f"{shown(text)} is filled in every column")


class Game:
    """The state of one game; see the module docstring.

    ``streams`` gives each player's dice source (an object with ``next_five()``),
    or ``None`` for dice typed in (:meth:`roll` then needs the values).  ``info``
    is free metadata (mode, seed, date, level, ...) saved with the game.
    """

    def __init__(
        self,
        rules: str | RuleSet | None,
        players: Sequence[Player | str],
        streams: Sequence | None = None,
        info: GameInfo | dict | None = None,
    ):
        self.rules = get_rules(rules)
        #: how many dice the game rolls (five; six in Maxi Yatzy) and their class
        self.n_dice = self.rules.n_dice
        self.dice_type = dice_class(self.n_dice)
        self.players = [p if isinstance(p, Player) else Player(str(p)) for p in players]
        if not self.players:
            raise UsageError("a game needs at least one player")
        names = [p.name for p in self.players]
        for name in names:
            if not name.strip():
                raise UsageError("a player name cannot be empty")
            if names.count(name) > 1:
                raise UsageError(f"two players are called {shown(name)}; names must differ")
        self.streams = list(streams) if streams is not None else [None] * len(self.players)
        if len(self.streams) != len(self.players):
            raise UsageError(f"{len(self.players)} players but {len(self.streams)} dice streams")
        self.info = GameInfo.parse(info)
        self.cards = [empty_card(self.rules) for _ in self.players]
        self.turns: list[Turn] = []
        self.current = 0
        self.round = 1
        self.dice: tuple[int, ...] | None = None
        self.held = [False] * self.n_dice

    # --- construction ----------------------------------------------------
    @classmethod
    def new(
        cls,
        rules: str | RuleSet | None,
        players: Sequence[Player | str],
        *,
        seed: int | None = None,
        date: str | None = None,
        real_dice: bool = False,
        info: GameInfo | dict | None = None,
    ) -> Game:
        """A game with its dice source: ``date`` (daily challenge: every player gets that day's
        dice), ``seed`` (player ``i`` gets seeded game ``i``) or ``real_dice`` (typed in)."""
        n = len(players)
        if sum((seed is not None, date is not None, bool(real_dice))) > 1:
            raise UsageError("choose one dice source: a seed, a daily date, or real dice")
        meta = GameInfo.parse(info).to_dict()
        if date is not None:
            streams = [DailyStream(date) for _ in range(n)]
            meta |= {"dice": "daily", "date": str(date), "stream_version": STREAM_VERSION}
        elif real_dice:
            streams = [None] * n
            meta |= {"dice": "real"}
        else:
            if seed is None:
                import secrets

                seed = secrets.randbits(32)
            streams = [SeededStream(int(seed), game=i) for i in range(n)]
            meta |= {"dice": "seeded", "seed": int(seed), "stream_version": STREAM_VERSION}
        return cls(rules, players, streams, meta)

    def copy(self) -> Game:
        """An independent copy of the game as it stands (for lookahead): its own cards, turns,
        dice and dice streams, each stream at the same point -- the copy rolls what the game
        would roll next.  The rules, players and info (values that do not change) are shared."""
        import copy

        new = object.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.players = list(self.players)
        new.streams = [copy.copy(s) if type(s) is SeededStream else copy.deepcopy(s) for s in self.streams]
        new.cards = list(self.cards)  # ScoreCards are values: a move makes a new one
        new.turns = [
            Turn(t.player, t.round, t.card_before, list(t.rolls), t.box, t.score, t.bonus) for t in self.turns
        ]
        new.held = list(self.held)
        return new

    # --- state -------------------------------------------------------------
    @property
    def n_rounds(self) -> int:
        return self.rules.n_turns

    @property
    def is_over(self) -> bool:
        return all(c.is_complete for c in self.cards)

    @property
    def player(self) -> Player:
        return self.players[self.current]

    @property
    def card(self) -> ScoreCard:
        """The card of the player whose turn it is."""
        return self.cards[self.current]

    @property
    def turn(self) -> Turn | None:
        """The turn in progress (rolled at least once, not yet scored), or ``None``."""
        if self.turns and not self.turns[-1].is_complete:
            return self.turns[-1]
        return None

    @property
    def rolls_used(self) -> int:
        turn = self.turn
        return len(turn.rolls) if turn else 0

    @property
    def rolls_left(self) -> int:
        return MAX_ROLLS - self.rolls_used

    @property
    def has_rolled(self) -> bool:
        return self.dice is not None

    @property
    def sorted_dice(self) -> Dice:
        if self.dice is None:
            raise IllegalMoveError("roll first: the first roll of a turn is mandatory")
        return self.dice_type(self.dice)

    @property
    def held_positions(self) -> tuple[int, ...]:
        return tuple(i + 1 for i, h in enumerate(self.held) if h)

    @property
    def held_faces(self) -> tuple[int, ...]:
        if self.dice is None:
            return ()
        return tuple(sorted(self.dice[i] for i, h in enumerate(self.held) if h))

    @property
    def dice_word(self) -> str:
        """The dice count in words, for messages: ``five`` (``six`` in Maxi Yatzy)."""
        return "six" if self.n_dice == 6 else "five"

    @property
    def dice_to_roll(self) -> int:
        """How many dice the next roll throws (five on a turn's first roll)."""
        return self.n_dice if self.dice is None else self.held.count(False)

    @property
    def needs_values(self) -> bool:
        """Whether the current player's dice are typed in (real dice)."""
        return self.streams[self.current] is None

    def preview(self) -> dict[str, int]:
        """What each box the dice may legally go in would score now (empty before the first roll)."""
        return self.card.preview(self.sorted_dice) if self.dice is not None else {}

    def totals(self) -> list[tuple[str, int]]:
        return [(p.name, c.total) for p, c in zip(self.players, self.cards, strict=True)]

    def winners(self) -> list[str]:
        """The names with the highest total (several on a tie)."""
        best = max(c.total for c in self.cards)
        return [p.name for p, c in zip(self.players, self.cards, strict=True) if c.total == best]

    # --- moves ---------------------------------------------------------------
    def _check_playing(self) -> None:
        if self.is_over:
            raise IllegalMoveError("the game is over")

    def roll(self, values: Sequence[int] | None = None) -> Roll:
        """Roll every die not held; returns the recorded :class:`Roll`.

        ``values`` are the dice thrown (real dice, or replaying a saved game): at
        least as many as dice rolled, at most five; the rolled dice take them in
        position order.  Without ``values`` the next five of the player's stream
        are used.
        """
        self._check_playing()
        if self.rolls_used >= MAX_ROLLS:
            raise IllegalMoveError(f"no rolls left this turn ({MAX_ROLLS} used): choose a box")
        n = self.dice_to_roll
        if n == 0:
            if self.rules.all_rolls:
                raise IllegalMoveError(
                    f"all {self.dice_word} dice are held: release at least one to roll again"
                )
            raise IllegalMoveError(
                f"all {self.dice_word} dice are held: release some to roll again, or choose a box"
            )
        if values is None:
            stream = self.streams[self.current]
            if stream is None:
                raise UsageError(f"real dice: give the {n} dice rolled")
            values = tuple(next_dice(stream, self.n_dice))
        else:
            values = _faces(tuple(values))
            if not n <= len(values) <= self.n_dice:
                want = (
                    f"{self.dice_word} dice"
                    if n == self.n_dice
                    else f"{n} to {self.n_dice} values for the {n} dice rolled"
                )
                raise IllegalMoveError(f"need {want}, got {len(values)}: {_show(values)}")
        held = self.held_positions if self.dice is not None else ()
        fresh = iter(values)
        old = self.dice or (0,) * self.n_dice
        dice = tuple(old[i] if (i + 1) in held else next(fresh) for i in range(self.n_dice))
        roll = Roll(held, tuple(values), dice)
        if self.turn is None:
            self.turns.append(Turn(self.current, self.round, self.card))
        self.turns[-1].rolls.append(roll)
        self.dice = dice
        return roll

    def _check_can_hold(self) -> None:
        self._check_playing()
        if self.dice is None:
            raise IllegalMoveError("roll first: there are no dice to hold yet")
        if self.rolls_left == 0:
            raise IllegalMoveError("no rolls left to hold dice for: choose a box")

    def toggle_hold(self, positions: Sequence[int | str]) -> tuple[int, ...]:
        """Hold or release the dice at ``positions`` (1..5); returns the positions now held."""
        self._check_can_hold()
        chosen = _positions(positions, self.n_dice)
        if not chosen:
            raise IllegalMoveError(f"say which dice to hold by number (1 to {self.n_dice}), e.g. h 1 3")
        for p in sorted(set(chosen)):
            self.held[p - 1] = not self.held[p - 1]
        return self.held_positions

    def set_held(self, positions: Sequence[int | str]) -> tuple[int, ...]:
        """Hold exactly the dice at ``positions`` (an empty list releases all)."""
        self._check_can_hold()
        chosen = set(_positions(positions, self.n_dice))
        self.held = [(i + 1) in chosen for i in range(self.n_dice)]
        return self.held_positions

    def positions_of(self, faces: Sequence[int]) -> tuple[int, ...]:
        """Positions that hold ``faces`` (a multiset), preferring dice already held, then leftmost."""
        if self.dice is None:
            raise IllegalMoveError("roll first: there are no dice yet")
        faces = _faces(tuple(faces), "face")
        order = sorted(range(self.n_dice), key=lambda i: (not self.held[i], i))
        free = list(order)
        chosen = []
        for f in faces:
            i = next((i for i in free if self.dice[i] == f), None)
            if i is None:
                raise IllegalMoveError(
                    f"cannot keep {' '.join(map(str, sorted(faces)))}: the dice are {_show(self.dice)}"
                )
            free.remove(i)
            chosen.append(i + 1)
        return tuple(sorted(chosen))

    def keep_faces(self, faces: Sequence[int]) -> tuple[int, ...]:
        """Hold dice showing ``faces`` (a multiset, e.g. ``(3, 3, 5)``); returns the positions held."""
        self._check_can_hold()
        return self.set_held(self.positions_of(faces))

    def box_name(self, token: str | int) -> str:
        """The box meant by ``token`` on the current player's card: see :func:`single_box_name`
        and, on the triple card, :func:`column_box_name` (``fours@3``)."""
        if isinstance(self.card, TripleCard):
            return column_box_name(self.card, token)
        return single_box_name(self.card, token)

    def score(self, box: str | int) -> Turn:
        """Put the dice in ``box`` (name, unique start of a name, or number 1..); returns the finished turn.

        Raises :class:`IllegalMoveError` before the first roll, for a filled box,
        or for a box the Joker rule (or forced order) forbids, saying why.
        """
        self._check_playing()
        name = self.box_name(box)
        if self.dice is None:
            raise IllegalMoveError("roll first: the first roll of a turn is mandatory")
        if self.rules.all_rolls and self.rolls_left > 0:
            raise IllegalMoveError(
                f"{self.rules.id} uses all three rolls: roll again before scoring "
                f"({self.rolls_left} roll{'s' if self.rolls_left > 1 else ''} left)"
            )
        dice = self.dice_type(self.dice)
        card = self.card
        placement = next((p for p in card.placements(dice) if p.box == name), None)
        new_card = card.score(name, dice)  # raises with the reason when illegal
        turn = self.turns[-1]
        turn.box, turn.score, turn.bonus = name, placement.score, placement.bonus
        self.cards[self.current] = new_card
        self._next_player()
        return turn

    def _next_player(self) -> None:
        self.dice = None
        self.held = [False] * self.n_dice
        self.current += 1
        if self.current == len(self.players):
            self.current = 0
            self.round += 1

    def without_last_score(self) -> Game:
        """The game as it was before the last box was filled (the dice and holds of that
        moment, a later roll dropped): a new :class:`Game`, replayed from :meth:`to_dict`."""
        data = self.to_dict("in_progress")
        turns = data["turns"]
        if turns and "box" not in turns[-1]:
            turns.pop()
        if not turns:
            raise IllegalMoveError("nothing to undo: no box is filled yet")
        for key in ("box", "score", "bonus"):
            turns[-1].pop(key, None)
        game = Game.from_dict(data)
        if self.streams and all(s is None for s in self.streams):
            game.streams = [None] * len(game.players)
        return game

    # --- review ----------------------------------------------------------------
    def decisions(self, player: int | None = None) -> Iterator[Decision]:
        """Every decision made so far (optionally one player's), in play order.

        After roll ``k`` with rolls left, the decision is the dice held for roll
        ``k + 1`` -- or, if the player scored instead, keeping all five (stop).
        Then the box.  A turn abandoned before scoring gives only its keeps.
        """
        for t, turn in enumerate(self.turns, start=1):
            if player is not None and turn.player != player:
                continue
            for k, roll in enumerate(turn.rolls, start=1):
                dice = self.dice_type(roll.dice)
                rolls_left = MAX_ROLLS - k
                common = dict(
                    turn=t, player=turn.player, round=turn.round, roll=k, card=turn.card_before, dice=dice
                )
                if k < len(turn.rolls):
                    nxt = turn.rolls[k].held
                    keep = tuple(sorted(roll.dice[p - 1] for p in nxt))
                    yield Decision(rolls_left=rolls_left, keep=keep, **common)
                elif turn.box is not None:
                    if rolls_left > 0:
                        yield Decision(rolls_left=rolls_left, keep=dice.values, **common)
                    yield Decision(rolls_left=0, box=turn.box, **common)

    # --- saving and loading ------------------------------------------------------
    def to_dict(self, status: str | None = None) -> dict:
        """The game as a JSON-ready dict (see :mod:`solver.play.records` for where it is saved)."""
        if status is None:
            status = "finished" if self.is_over else "in_progress"
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        info = {k: v for k, v in self.info.to_dict().items() if k not in _RESERVED}
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "rules": self.rules.id,
            "status": status,
            **info,
            "players": [p.to_dict() for p in self.players],
            "turns": self._turns_dict(),
            "final": [
                {"name": p.name, "score": c.total, "card": str(c)}
                for p, c in zip(self.players, self.cards, strict=True)
            ],
            "winners": self.winners() if self.is_over else [],
        }

    def _turns_dict(self) -> list[dict]:
        """The turns as saved; a turn in play keeps the dice held (``holding``, positions 1..5),
        so that a resumed game goes on with them held."""
        turns = [t.to_dict(self.players) for t in self.turns]
        if turns and not self.turns[-1].is_complete and any(self.held):
            turns[-1]["holding"] = list(self.held_positions)
        return turns

    @classmethod
    def from_dict(cls, data) -> Game:
        """Replay a saved game, checking every entry; raises :class:`GameRecordError` at the first bad one."""
        return _load(cls, data)


_RESERVED = {"format", "format_version", "rules", "status", "players", "turns", "final", "winners"}


def _read_rules(value) -> RuleSet:
    """The rule set a saved game names (``None``: the default one)."""
    if value is not None and not isinstance(value, str):
        raise GameRecordError(f"rules: {shown(value)} is not a rule set")
    try:
        return get_rules(value)
    except SolverError as exc:
        raise GameRecordError(f"rules: {exc}") from None


def _read_player(i: int, p, kind: str | None = None) -> Player:
    """Player ``i`` (1-based) of a saved game: a name and, for a computer, a builtin bot -- never
    a module to import (files are data).  ``kind``: what the file does not say (the old triple
    files: a player with a bot is a bot); else the file's ``kind``, ``human`` by default."""
    from .bots import builtin_bot_names, is_builtin_bot

    err = GameRecordError
    if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].strip():
        raise err(f"player {i}: need an object with a non-empty name")
    bot = p.get("bot")
    kind = kind or p.get("kind", "human")
    if kind not in ("human", "bot"):
        raise err(f"player {i}: kind {shown(kind)} is not human or bot")
    if bot is not None and not isinstance(bot, str):
        raise err(f"player {i}: bot {shown(bot)} is not a bot name")
    if bot is not None and not is_builtin_bot(bot):
        raise err(
            f"player {i}: bot {shown(bot)} is not a builtin bot ({builtin_bot_names()}); a saved game "
            "names only those: give a bot of your own on the command line (--bot module:attr)"
        )
    return Player(p["name"], kind, bot)


def _load(cls, data) -> Game:
    err = GameRecordError
    if not isinstance(data, dict):
        raise err("a saved game must be a JSON object")
    if data.get("format") == OLD_TRIPLE_FORMAT:
        return _load_old_triple(cls, data)
    version = data.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version not in READS_VERSIONS:
        raise err(f"format_version: {shown(version)} is not supported (expected {FORMAT_VERSION})")
    rules = _read_rules(data.get("rules"))
    players_raw = data.get("players")
    if not isinstance(players_raw, list) or not players_raw:
        raise err("players: need a non-empty list of players")
    players = [
        _read_player(i, {"name": p} if isinstance(p, str) else p) for i, p in enumerate(players_raw, 1)
    ]
    info = GameInfo.parse({k: v for k, v in data.items() if k not in _RESERVED}, error=err)
    try:
        game = cls(rules, players, None, info)
    except SolverError as exc:
        raise err(f"players: {exc}") from None
    status = data.get("status", "finished")
    if status not in STATUSES:
        raise err(f"status: {shown(status)} is not one of {', '.join(STATUSES)}")
    turns = data.get("turns")
    if not isinstance(turns, list):
        raise err("turns: need a list of turns")
    streams = _check_streams(game)
    for t, entry in enumerate(turns, start=1):
        where = f"turn {t}" + (
            f" ({clipped(game.player.name)}, round {game.round})" if len(players) > 1 else ""
        )
        if game.is_over:
            raise err(f"{where}: the game is already over after turn {t - 1}")
        if not isinstance(entry, dict):
            raise err(f"{where}: need an object with rolls and box")
        name = entry.get("player", game.player.name)
        if name != game.player.name:
            raise err(f"{where}: it is {clipped(game.player.name)}'s turn, the file says {shown(name)}")
        rolls = entry.get("rolls")
        if not isinstance(rolls, list) or not rolls:
            raise err(f"{where}: no rolls (the first roll of a turn is mandatory)")
        if len(rolls) > MAX_ROLLS:
            raise err(f"{where}: {len(rolls)} rolls, at most {MAX_ROLLS} are allowed")
        for k, r in enumerate(rolls, start=1):
            _replay_roll(game, r, f"{where} roll {k}", streams)
        box = entry.get("box")
        if box is None:
            if t != len(turns) or status == "finished":
                raise err(f"{where}: no box chosen (only the last turn of an unfinished game may stop early)")
            _replay_holding(game, entry.get("holding"), where)
            continue
        if "holding" in entry:
            raise err(f"{where}: dice held ('holding') after the box was chosen")
        if not isinstance(box, str):
            raise err(f"{where}: box {shown(box)} is not a box name")
        dice = game.sorted_dice
        try:
            if box not in game.card.box_names:
                raise IllegalMoveError(f"unknown box {shown(box)} (boxes: {', '.join(game.card.box_names)})")
            done = game.score(box)
        except SolverError as exc:
            raise err(f"{where}: {exc}") from None
        for key, got in (("score", done.score), ("bonus", done.bonus)):
            if key not in entry:
                continue
            if not _is_whole(entry[key]):
                raise err(f"{where}: {key} {shown(entry[key])} is not a whole number")
            if entry[key] != got:
                raise err(f"{where}: {dice} in {box} gives {key} {got}, the file says {shown(entry[key])}")
    if status == "finished" and not game.is_over:
        raise err(f"status: the file says finished, but the game stops after {len(turns)} turns")
    final = data.get("final")
    if status == "finished" and isinstance(final, list):
        for k, entry in enumerate(final, start=1):
            if isinstance(entry, dict) and "name" in entry and "score" in entry:
                if not isinstance(entry["name"], str):
                    raise err(f"final entry {k}: name {shown(entry['name'])} is not a player name")
                got = dict(game.totals()).get(entry["name"])
                if got is not None and (not _is_whole(entry["score"]) or got != entry["score"]):
                    raise err(
                        f"final: {clipped(entry['name'])} scored {got}, the file says {shown(entry['score'])}"
                    )
    if streams is not None:
        game.streams = streams  # where the replay left them: the game goes on with the next dice
    return game


def _replay_holding(game: Game, holding, where: str) -> None:
    """The dice held in the turn a saved game stopped in (``None``: none)."""
    if holding is None:
        return
    if (
        not isinstance(holding, list)
        or len(holding) > game.n_dice
        or not all(_is_whole(p) and 1 <= p <= game.n_dice for p in holding)
        or len(set(holding)) != len(holding)
    ):
        raise GameRecordError(
            f"{where}: holding {shown(holding)} is not a list of die positions 1 to {game.n_dice}"
        )
    if game.rolls_left == 0:
        raise GameRecordError(f"{where}: dice held ('holding') with no roll left")
    game.set_held(holding)


def _load_old_triple(cls, data: dict) -> Game:
    """A game the triple card's old game saved (:data:`OLD_TRIPLE_FORMAT`, ``version`` 1: each
    turn's sorted rolls, the faces kept between them, the column and the box), replayed move by
    move through this model -- every roll checked against its stream -- so it plays, resumes and
    reviews like any game (saved again, it is a version 2 file)."""
    err = GameRecordError
    if not _is_whole(data.get("version")) or data.get("version") != 1:
        raise err(f"version: {shown(data.get('version'))} is not an old triple game's version (1)")
    if not isinstance(data.get("rules"), str):  # the old files always named it
        raise err(f"rules: {shown(data.get('rules'))} is not a rule set")
    rules = _read_rules(data["rules"])
    if not rules.triple:
        raise err(f"rules: {rules.id} is not a triple card")
    raw = data.get("players")
    if not isinstance(raw, list) or not 1 <= len(raw) <= 8:
        raise err("players: need a list of 1 to 8 players")
    players = [
        _read_player(i, p, "bot" if isinstance(p, dict) and p.get("bot") else "human")
        for i, p in enumerate(raw, 1)
    ]
    info = {k: data[k] for k in ("mode", "dice", "seed", "date", "level") if k in data}
    if info.get("dice") not in ("seeded", "daily"):
        raise err(f"dice: {shown(info.get('dice'))} is not seeded or daily")
    info = GameInfo.parse(info | {"stream_version": STREAM_VERSION}, error=err)
    try:
        game = cls(rules, players, None, info)
    except SolverError as exc:
        raise err(f"players: {exc}") from None
    game.streams = _check_streams(game)
    status = data.get("status", "finished")
    if status not in STATUSES:
        raise err(f"status: {shown(status)} is not one of {', '.join(STATUSES)}")
    turns = data.get("turns")
    if not isinstance(turns, list) or len(turns) > rules.n_turns * len(players):
        raise err(f"turns: need a list of at most {rules.n_turns * len(players)} turns")
    for n, entry in enumerate(turns, start=1):
        try:
            if not isinstance(entry, dict):
                raise IllegalMoveError("need an object with rolls, keeps, column and box")
            if entry.get("player") != game.current or not _is_whole(entry.get("player")):
                raise IllegalMoveError(f"player {shown(entry.get('player'))} plays out of turn")
            rolls, keeps = entry.get("rolls"), entry.get("keeps")
            if not (isinstance(rolls, list) and isinstance(keeps, list) and 1 <= len(rolls) <= MAX_ROLLS):
                raise IllegalMoveError(f"a turn has 1 to {MAX_ROLLS} rolls and a list of keeps")
            if len(keeps) != len(rolls) - 1:
                raise IllegalMoveError("one keep between two rolls")
            for k, want in enumerate(rolls):
                if k:
                    if not isinstance(keeps[k - 1], list):
                        raise IllegalMoveError(f"keep {k}: {shown(keeps[k - 1])} is not a list of faces")
                    game.keep_faces(_faces(keeps[k - 1], "kept face"))
                game.roll()
                got = tuple(sorted(game.dice))
                if not isinstance(want, list) or tuple(sorted(_faces(want))) != got:
                    raise IllegalMoveError(f"roll {k + 1}: {shown(want)} is not the stream's {_show(got)}")
            column, box = entry.get("column"), entry.get("box")
            if not _is_whole(column) or not isinstance(box, str):
                raise IllegalMoveError(
                    f"column {shown(column)} and box {shown(box)} are not a box of the card"
                )
            game.score(f"{box}{COLUMN_SEP}{column}")
        except SolverError as exc:
            raise err(f"turn {n}: {exc}") from None
    if status == "finished" and not game.is_over:
        raise err(f"status: the file says finished, but the game stops after {len(turns)} turns")
    return game


def _check_streams(game: Game) -> list | None:
    """Fresh streams to check the recorded values against: every seeded or daily game is checked.

    A game that says its dice are ``seeded`` or ``daily`` gets the dice of that stream; its
    ``stream_version``, when there, must be the whole number 1 (the only version): another
    number, a float such as ``2.0``, a string or a bool is refused, and a forged file fails at
    the first roll that the stream did not give.  Real dice (``"dice": "real"``) and files
    without a ``dice`` entry are not checked.
    """
    info = game.info  # its dice source and stream version checked when it was read (GameInfo.parse)
    n = len(game.players)
    if info.dice == "daily":
        if not isinstance(info.date, str):
            raise GameRecordError(f"date: {shown(info.date)} is not a date")
        return [DailyStream(info.date) for _ in range(n)]
    if info.dice == "seeded":
        if not _is_whole(info.seed):
            raise GameRecordError(f"seed: {shown(info.seed)} is not a whole number")
        return [SeededStream(info.seed, game=i) for i in range(n)]
    return None


def _is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _replay_roll(game: Game, r, where: str, streams) -> None:
    err = GameRecordError
    if not isinstance(r, dict):
        raise err(f"{where}: need an object with held, values and dice")
    held, values = r.get("held", []), r.get("values")
    if not isinstance(held, list):
        raise err(f"{where}: held must be a list of die numbers")
    if not isinstance(values, list):
        raise err(f"{where}: values must be a list of dice")
    try:
        if game.dice is None:
            if held:
                raise IllegalMoveError(f"the first roll of a turn cannot hold dice (held {shown(held)})")
        else:
            if len(set(_positions(held, game.n_dice))) != len(held):
                raise IllegalMoveError(f"held {shown(held)} names a die twice")
            game.set_held(held)
        values = _faces(values)
        if streams is not None:
            expected = tuple(next_dice(streams[game.current], game.n_dice))
            if values != expected:
                source = (
                    f"seed {game.info.seed}"
                    if game.info.dice == "seeded"
                    else (f"the daily dice of {game.info.date}")
                )
                raise IllegalMoveError(
                    f"values {_show(values)} are not the dice of {source} ({_show(expected)})"
                )
        roll = game.roll(values)
    except SolverError as exc:
        raise err(f"{where}: {exc}") from None
    dice = r.get("dice")
    if dice is not None and (not isinstance(dice, list) or tuple(dice) != roll.dice):
        text = _show(dice) if isinstance(dice, list) else shown(dice)
        raise err(
            f"{where}: dice {text} do not follow from holding {_show(roll.held)} and rolling {_show(roll.values)}"
            f" (that gives {_show(roll.dice)})"
        )


def play_bot_turn(game: Game, bot, rng) -> Turn:
    """Play the current player's whole turn with ``bot`` (``choose_keep`` / ``choose_box``, the
    turn of :class:`~solver.play.turn.GameTurn`); a bot with ``see_opponents`` is first given the
    other players' cards (seat order from the next)."""
    show_opponents(bot, game.cards, game.current)
    return GameTurn(game).play(bot, rng)


def play_out(game: Game, bot, rng=None) -> Game:
    """Play every remaining turn of ``game`` with ``bot`` (all its players); returns the game.
    ``rng`` (default ``random.Random(0)``) only matters to a bot that draws."""
    import random

    rng = rng or random.Random(0)
    while not game.is_over:
        play_bot_turn(game, bot, rng)
    return game


def same_dice_game(game: Game, index: int, bot, name: str) -> Game | None:
    """The game ``bot`` (called ``name``) plays alone on the dice player ``index`` of ``game`` got:
    the same stream (seeded game ``index``, or the day's dice), roll by roll, so a player's
    choices are compared with the bot's on the same luck; ``None`` for real dice."""
    streams = _check_streams(game)
    if streams is None:
        return None
    keep = ("dice", "seed", "date", "stream_version")
    info = {k: v for k, v in game.info.to_dict().items() if k in keep} | {"mode": "solo"}
    return play_out(Game(game.rules, [Player(name, "bot", name)], [streams[index]], info), bot)

"""What happens in a game, as data: the events a :class:`~solver.play.session.Session` returns.

Every command a player gives a session (roll, hold, score, hint, undo, ...) answers with a list
of these frozen values, in the order things happened: the dice rolled, a computer's keeps and
rerolls, a box scored with its points, the coach's verdict, the chances to win, the end of the
game with its summary.  They are facts, not sentences: the terminal (:mod:`solver.cli.play`)
and the web app (:mod:`solver.web.service`) render them, each in its own way, and
:mod:`solver.play.words` holds the English both surfaces share.  ``to_json()`` gives an event
as JSON-ready data (``{"kind": ..., ...}``), what the web's ``moves`` list carries.

Players are seat indices (0-based) and names; dice are faces 1..6 in die order; boxes are the
rule set's box names (``full_house``, on the triple card ``fours@3``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar


@dataclass(frozen=True)
class Event:
    """One thing that happened (see the module doc)."""

    kind: ClassVar[str] = "event"

    def to_json(self) -> dict:
        """``{"kind": ..., field: value, ...}`` with tuples as lists; options and advice as their JSON."""
        out: dict = {"kind": self.kind}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _plain(value):
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {k: _plain(v) for k, v in asdict(value).items()}
    return value


@dataclass(frozen=True)
class Opened(Event):
    """A game starts (or goes on after ``--resume``): ``resumed_turns`` is ``None`` for a new
    game, else the turns played before."""

    kind: ClassVar[str] = "opened"
    rules: str
    title: str
    mode: str
    level: str | None
    players: tuple[str, ...]
    dice: str | None  # seeded, daily or real
    seed: int | None
    date: str | None
    path: str
    resumed_turns: int | None = None


@dataclass(frozen=True)
class Replay(Event):
    """The game's dice were played before: a daily already kept as the day's (``score``: its
    result) or, solo, a chosen seed played before (``seed``).  A replay counts for nothing."""

    kind: ClassVar[str] = "replay"
    mode: str
    date: str | None = None
    score: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class Assisted(Event):
    """The game is assisted by ``helps`` (hint, coach, undo): it no longer counts for the record.
    ``costs_record``: this help is what cost it (said once); False for a game that started so."""

    kind: ClassVar[str] = "assisted"
    helps: tuple[str, ...]
    costs_record: bool


@dataclass(frozen=True)
class RecordToBeat(Event):
    """The game may set the solo record of ``rules``: the record now (``score``, ``date``; both
    ``None`` when there is none yet)."""

    kind: ClassVar[str] = "record_to_beat"
    rules: str
    score: int | None
    date: str | None


@dataclass(frozen=True)
class Aim(Event):
    """Solo play with a target: P(final >= ``target``) on screen and its move in hints
    (``goal``: what reaching it means, e.g. ``beat your record``).  ``problem`` says why there is
    no aim after all: ``no-table`` (the target table is not built) or ``beyond-table`` (the
    table holds targets up to ``t_max`` only)."""

    kind: ClassVar[str] = "aim"
    target: int
    goal: str
    problem: str | None = None
    t_max: int | None = None


@dataclass(frozen=True)
class TurnStarted(Event):
    """A player's turn begins (or, after an undo or a resume, goes on where it stood):
    ``p_target`` the solo player's chance of reaching the aim from here."""

    kind: ClassVar[str] = "turn_started"
    player: int
    name: str
    is_bot: bool
    round: int
    n_rounds: int
    total: int
    target: int | None = None
    goal: str | None = None
    p_target: float | None = None


@dataclass(frozen=True)
class Rolled(Event):
    """Dice rolled: ``roll`` the roll of the turn (1..3), ``dice`` the five after it, ``kept``
    the faces held through it (sorted; empty on a turn's first roll), ``rolls_left``.
    ``inferred``: real dice, five faces typed after a roll -- the dice that stayed the same
    counted as kept."""

    kind: ClassVar[str] = "rolled"
    player: int
    name: str
    is_bot: bool
    roll: int
    dice: tuple[int, ...]
    kept: tuple[int, ...]
    rolls_left: int
    inferred: bool = False


@dataclass(frozen=True)
class Held(Event):
    """The dice held changed: ``held`` a flag per die."""

    kind: ClassVar[str] = "held"
    player: int
    dice: tuple[int, ...]
    held: tuple[bool, ...]


@dataclass(frozen=True)
class Scored(Event):
    """A box filled: ``points`` in ``box``, ``bonus`` the Yahtzee bonus it earned besides,
    ``total`` the card's total after it, ``upper_bonus`` the upper bonus it just reached (0: none),
    ``stopped`` whether the player stopped with rolls left; on the triple card ``weight`` the
    box's column's weight (the total rises by ``weight * (points + bonus)``)."""

    kind: ClassVar[str] = "scored"
    player: int
    name: str
    is_bot: bool
    box: str
    points: int
    bonus: int
    total: int
    upper_bonus: int = 0
    upper_threshold: int | None = None
    stopped: bool = False
    weight: int | None = None  # the triple card: the column's weight (the total rises by weight x points)


@dataclass(frozen=True)
class Judged(Event):
    """The coach's verdict on one decision: the option chosen, the best one, what the choice
    lost in expected final points (``mistake``: more than a rounding error).  ``decision`` is
    ``keep`` or ``box``."""

    kind: ClassVar[str] = "judged"
    decision: str
    choice: object  # solver.advice.advisor.Option
    best: object
    loss: float
    mistake: bool

    def to_json(self) -> dict:
        from .review import describe

        return {
            "kind": self.kind,
            "decision": self.decision,
            "choice": describe(self.choice),
            "best": describe(self.best),
            "loss": round(self.loss, 6),
            "mistake": self.mistake,
        }


@dataclass(frozen=True)
class Undone(Event):
    """The last box taken back (``points`` in ``box``): play goes on at ``round``."""

    kind: ClassVar[str] = "undone"
    box: str
    points: int
    round: int


@dataclass(frozen=True)
class Chances(Event):
    """Each player's chance to win from here (P(win) + P(tie)/2, adding up to 1), in seat order."""

    kind: ClassVar[str] = "chances"
    names: tuple[str, ...]
    chances: tuple[float, ...]


@dataclass(frozen=True)
class RoundOver(Event):
    """Every player has played round ``round`` (games of two or more): the totals, seat order."""

    kind: ClassVar[str] = "round_over"
    round: int
    totals: tuple[tuple[str, int], ...]
    with_bots: bool


@dataclass(frozen=True)
class AimedMove(Event):
    """Part of a hint: the move that maximises the objective ``objective`` (``target`` or
    ``win``) with its probability ``p``, and ``p_ev``, the probability after the expected-score
    move; ``same``: the two moves are the same."""

    kind: ClassVar[str] = "aimed_move"
    objective: str
    option: object
    p: float
    p_ev: float
    same: bool
    target: int | None = None
    goal: str | None = None

    def to_json(self) -> dict:
        from .review import describe

        out = {f.name: getattr(self, f.name) for f in fields(self)}
        return {"kind": self.kind} | out | {"option": describe(self.option)}


@dataclass(frozen=True)
class Hinted(Event):
    """A hint: the advice of the position to move (``advice``: its options, best first), the
    advisor's ``note`` (the first hint of a game), and the moves of other objectives
    (:class:`AimedMove`) where the game has them."""

    kind: ClassVar[str] = "hinted"
    advice: object  # solver.advice.advisor.Advice
    note: str | None = None
    aimed: tuple[AimedMove, ...] = ()


@dataclass(frozen=True)
class WinPending(Event):
    """The computer playing to win (seat ``player``) has no target table yet: it is being made
    in the background (``what``: ``build`` or ``load``; ``seconds``: the estimate, ``None`` when
    unknown) and the game starts at once, the computer playing for expected score meanwhile."""

    kind: ClassVar[str] = "win_pending"
    player: int
    name: str
    rules: str
    what: str
    seconds: float | None = None


@dataclass(frozen=True)
class PlaysToWin(Event):
    """The target table is ready: the computer of seat ``player`` plays to win from its next
    turn on, after ``turns`` turns played for expected score (saved as the game's ``win_from``)."""

    kind: ClassVar[str] = "plays_to_win"
    player: int
    name: str
    turns: int


@dataclass(frozen=True)
class Warned(Event):
    """Something the game goes on without: a file or the database that could not be written."""

    kind: ClassVar[str] = "warned"
    text: str


@dataclass(frozen=True)
class Abandoned(Event):
    """The game stopped before its end; ``saved``: the file it was saved to (``None``: nothing
    was played, nothing saved)."""

    kind: ClassVar[str] = "abandoned"
    saved: str | None


@dataclass(frozen=True)
class RecordOutcome:
    """What a finished solo game did to the record: ``why_not`` says why it does not count
    (``real dice``, ``a replay``, ``assisted: hint, undo``; ``None``: it counts), ``previous`` the
    record before (``None``: none yet), ``is_new`` whether it set one."""

    rules: str
    score: int
    why_not: str | None
    previous: int | None
    is_new: bool


@dataclass(frozen=True)
class SameDice:
    """The best-known player's score on a person's dice, roll by roll the same."""

    name: str
    bot: str
    score: int
    best: int


@dataclass(frozen=True)
class GameOver(Event):
    """The end: every player's total (seat order), the winners, the record (solo), the daily's
    result (``optimal``: the best player's score on the day's dice; ``shares``: per person, the
    text to paste), the best player's score on the same dice (the triple card, a solo game on
    seeded dice: ``same_dice``), the saved file."""

    kind: ClassVar[str] = "game_over"
    totals: tuple[tuple[str, int], ...]
    winners: tuple[str, ...]
    path: str
    record: RecordOutcome | None = None
    date: str | None = None
    optimal: int | None = None
    shares: tuple[tuple[str, str], ...] = ()
    same_dice: tuple[SameDice, ...] = ()

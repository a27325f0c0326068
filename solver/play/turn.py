"""The Python turn of a bot, played by one driver wherever a bot plays in Python.

A turn is the first roll, up to two keeps -- each followed by a roll of the other dice, unless
the bot keeps all five --, then the box.  :class:`BotTurn` rolls, holds the decision awaited
(``rolls_left`` 2 or 1: a keep; 0: the box), checks and applies each answer and records the
moves; who answers is the caller's business:

* :meth:`BotTurn.play` asks a bot object in process (``choose_keep`` / ``choose_box``):
  ``simulate``'s Python engine (:func:`solver.play.simulate.play_turn`), a match's Python games;
* :class:`GameTurn` is the same turn on a :class:`~solver.play.game.Game` (its dice, holds and
  records, any card shape): :func:`solver.play.game.play_bot_turn`, hence the terminal and web
  sessions, ``export``, the gym environment, the daily and review's same-dice games;
* :func:`solver.play.protocol.program_turn` asks a bot program for each decision in turn,
  many games' decisions in one message (:func:`solver.play.protocol.lockstep`): the bot
  programs of ``simulate`` and ``match``.

Every roll takes the next five dice of the stream (the rolled dice take the first of them), so a
bot's game depends only on its decisions and the stream, whichever caller plays it.
"""

from __future__ import annotations

from ..core import dice as D
from ..core.card import Placement, ScoreCard
from ..core.dice import Dice, dice_class, is_sub_multiset
from ..core.errors import IllegalMoveError
from ..core.rules import RuleSet
from ..core.streams import next_dice, reroll_keep


def bot_name(bot) -> str:
    """How messages name ``bot``: its ``name``, else its class's name."""
    return str(getattr(bot, "name", None) or type(bot).__name__)


def keep_fault(keep: tuple[int, ...], dice: Dice, rules: RuleSet) -> str | None:
    """Why ``keep`` (sorted faces) cannot be kept from ``dice`` under ``rules``, or None."""
    if not is_sub_multiset(keep, dice.values):
        return f"kept {list(keep)} from dice {dice}, not among the dice"
    if len(keep) == rules.n_dice and rules.all_rolls:
        return f"kept all {'six' if rules.n_dice == 6 else 'five'} dice; {rules.id} uses all three rolls"
    return None


def show_opponents(bot, cards: list, seat: int) -> None:
    """Hand ``bot`` (at ``seat`` of ``cards``) the other players' cards, in seat order from the
    next player on, when it has ``see_opponents`` (the ``win`` bot); other bots ignore them."""
    hook = getattr(bot, "see_opponents", None)
    if callable(hook):
        p = len(cards)
        hook([cards[(seat + k) % p] for k in range(1, p)])


class BotTurn:
    """One turn on ``card`` with dice from ``stream`` (an object with ``next_five()``), rolled
    on construction.

    ``dice`` are the dice to decide on, ``rolls_left`` the decision awaited (2 or 1: a keep, 0:
    the box), ``after`` the result of the box once the turn is over (else None).  ``moves`` (a
    row of ``N_MOVES`` ints, :mod:`solver.engine.arrays` ``MOVE_ROLL1 .. MOVE_BOX``) is filled
    with the turn's rolls, keeps and box when the turn ends (-1 for a roll or keep not made),
    as :class:`solver.engine.playout.Grader` reads them.
    """

    def __init__(self, card: ScoreCard, stream, moves=None):
        self.card, self.stream, self.moves = card, stream, moves
        self.rolls_left = 2
        self.after = None
        self.dice = self._roll(None)
        # the codes of arrays.MOVE_ROLL1 ..: the first roll, its keep, the second roll, its keep
        self.codes = [D.ROLL_OFFSET + self.dice.index, -1, -1, -1] if moves is not None else None

    @property
    def placements(self) -> list[Placement]:
        """The boxes the dice may go in now, in card order, with their scores."""
        return self.card.placements(self.dice)

    def keep(self, faces) -> None:
        """Keep ``faces`` (a multiset among the dice; all five: stop) and roll the others;
        :class:`IllegalMoveError` saying why for a keep that is not allowed."""
        keep = tuple(sorted(map(int, faces)))
        fault = keep_fault(keep, self.dice, self.card.rules)
        if fault is not None:
            raise IllegalMoveError(fault)
        if self.codes is not None:
            self.codes[1 if self.rolls_left == 2 else 3] = D.keep_index(keep, self.card.rules.n_dice)
        if len(keep) == self.card.rules.n_dice:
            self.rolls_left = 0
            return
        self.dice = self._roll(keep)
        self.rolls_left -= 1
        if self.codes is not None and self.rolls_left == 1:
            self.codes[2] = D.ROLL_OFFSET + self.dice.index

    def box(self, box, placements: list[Placement] | None = None):
        """Put the dice in ``box`` and end the turn; returns (and sets ``after`` to) the card
        after it.  ``placements``: :attr:`placements` when the caller has them already.  A box
        the dice may not go in raises :class:`IllegalMoveError` with the card's reason."""
        legal = self.placements if placements is None else placements
        placement = next((p for p in legal if p.box == box), None)
        # a box named otherwise (a number) or an illegal one: the card reads it, or says why not
        after = self.card.place(placement) if placement is not None else self.card.score(box, self.dice)
        if self.moves is not None:
            filled = (after.filled_mask ^ self.card.filled_mask).bit_length() - 1
            self.moves[:] = (*self.codes, D.ROLL_OFFSET + self.dice.index, filled)
        self.after = after
        return after

    def play(self, bot, rng):
        """The whole turn asked of ``bot`` in process (``choose_keep`` / ``choose_box``, given
        ``rng``); returns :meth:`box`'s result.  A keep or box that is not allowed raises
        :class:`IllegalMoveError` naming the bot."""
        while self.rolls_left:
            faces = bot.choose_keep(self.card, self.dice, self.rolls_left, rng)
            try:
                self.keep(faces)
            except IllegalMoveError as exc:
                raise IllegalMoveError(f"bot {bot_name(bot)} {exc}") from None
        box = bot.choose_box(self.card, self.dice, rng)
        try:
            return self.box(box)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"bot {bot_name(bot)} chose an illegal box: {exc}") from None

    def _roll(self, keep: tuple[int, ...] | None) -> Dice:
        """The dice after rolling all but ``keep`` (None: the turn's first roll, all of them); a
        roll takes as many dice of the stream as the rule set has (five; six in Maxi Yatzy)."""
        n = self.card.rules.n_dice
        if n != 5:
            fresh = next_dice(self.stream, n)
            return dice_class(n)(fresh if keep is None else tuple(keep) + fresh[: n - len(keep)])
        five = self.stream.next_five()
        return Dice(five) if keep is None else Dice(reroll_keep(keep, five))


class GameTurn(BotTurn):
    """The current player's turn of ``game`` (:class:`~solver.play.game.Game`), played through
    the game's moves: its own dice stream, holds and records (every card shape: on the triple
    card the boxes are ``BOX@COLUMN``); :meth:`box` returns the game's finished
    :class:`~solver.play.game.Turn`.  The moves are not recorded in arrays."""

    def __init__(self, game):
        self.game = game
        super().__init__(game.card, None)

    def box(self, box, placements=None):
        self.after = self.game.score(box)  # the game checks the box and says why not
        return self.after

    def _roll(self, keep) -> Dice:
        if keep is not None:
            self.game.keep_faces(keep)
        self.game.roll()
        return self.game.sorted_dice

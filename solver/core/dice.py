"""Dice combinatorics: five (or six, :func:`layer`) six-sided dice as multisets.

Order never matters for scoring, so dice are multisets.  There are 462
multisets of 0 to 5 dice ("keeps") and 252 of exactly 5 dice ("rolls").  Keeps
are indexed by size first (0, 1, ..., 5 dice), then lexicographically by their
sorted faces, so the 252 rolls are the keeps ``ROLL_OFFSET .. 461`` and roll
index ``r`` is keep index ``ROLL_OFFSET + r``.

The dice layer is built once at import, in a few milliseconds, as plain Python
tuples (what a single hint needs, without numpy):

* ``KEEPS``          (462) sorted faces of each keep; ``ROLLS = KEEPS[ROLL_OFFSET:]``
* ``KEEP_FACE_COUNTS`` (462) how many dice of each face 1..6 a keep holds
* ``KEEP_PLUS``      (210) for each keep of fewer than 5 dice, the keep index of
  ``K + face`` for faces 1..6 (always a larger index: one more die)
* ``KEEP_MINUS``     (462) the keep indices of ``K - face`` for the distinct faces
  of ``K``, in face order (always smaller indices)
* ``ROLL_PROBS``     (252) probability of each roll from five fresh dice
* ``ROLL_SUBKEEPS``  (252) the distinct sub-multisets of each roll, in keep order

The same as numpy arrays, for the kernels and batch work, made on first use
(``import numpy`` costs more than the rest of a hint):

* ``KEEP_COUNTS``  (462, 6) int64   -- how many dice of each face 1..6 a keep holds
* ``KEEP_SIZE``    (462,)   int64   -- number of dice in a keep
* ``ADD_DIE``      (462, 6) int64   -- keep index of ``K + face``; -1 when K has 5 dice
* ``REMOVE_DIE``   (462, 6) int64   -- keep index of ``K - face``; -1 when face is not in K
* ``ROLL_PROB``    (252,)   float64 -- probability of each roll from five fresh dice
* ``SUBKEEPS``     (252, 32) int64  -- distinct sub-multisets of each roll, -1 padded
* ``N_SUBKEEPS``   (252,)   int64   -- how many of those are used
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from dataclasses import dataclass
from typing import ClassVar

from .bounded import clipped, parse_whole, shown
from .errors import DiceError

N_DICE = 5
N_FACES = 6
#: the dice counts the engine knows: five (the Yahtzee family) and six (Maxi Yatzy)
DICE_COUNTS = (5, 6)
_FACES = range(1, N_FACES + 1)
_ARRAY_NAMES = ("KEEP_COUNTS", "KEEP_SIZE", "ADD_DIE", "REMOVE_DIE", "ROLL_PROB", "SUBKEEPS", "N_SUBKEEPS")


def _without(keep: tuple[int, ...], face: int) -> tuple[int, ...]:
    i = keep.index(face)
    return keep[:i] + keep[i + 1 :]


class DiceLayer:
    """The keeps and rolls of ``n_dice`` six-sided dice (the module docstring's tuples and,
    on first use of :attr:`arrays`, its numpy arrays), indexed the same way for every count:
    by size, then lexicographically.  The keeps of at most five dice are a prefix of the six-dice
    keeps, so a keep has the same index in both layers.  Five dice: 462 keeps, 252 rolls; six:
    924 keeps, 462 rolls.  Made once per count (:func:`layer`)."""

    def __init__(self, n_dice: int) -> None:
        self.n_dice = n_dice
        keeps: list[tuple[int, ...]] = []
        for size in range(n_dice + 1):
            keeps.extend(itertools.combinations_with_replacement(_FACES, size))
        self.keeps: tuple[tuple[int, ...], ...] = tuple(keeps)
        self.keep_index: dict[tuple[int, ...], int] = {keep: i for i, keep in enumerate(self.keeps)}
        self.n_keeps = len(self.keeps)
        self.roll_offset = sum(1 for k in self.keeps if len(k) < n_dice)
        self.n_rolls = self.n_keeps - self.roll_offset
        self.rolls = self.keeps[self.roll_offset :]
        self.keep_face_counts = tuple(tuple(k.count(f) for f in _FACES) for k in self.keeps)
        self.keep_plus = tuple(
            tuple(self.keep_index[tuple(sorted(k + (f,)))] for f in _FACES)
            for k in self.keeps[: self.roll_offset]
        )
        self.keep_minus = tuple(
            tuple(self.keep_index[_without(k, f)] for f in _FACES if f in k) for k in self.keeps
        )
        self.roll_probs = tuple(self._roll_prob(roll) for roll in self.rolls)
        # the sub-multisets of a sorted roll are its combinations (sorted too), listed in keep order
        self.roll_subkeeps = tuple(
            tuple(
                sorted(
                    {self.keep_index[c] for n in range(n_dice + 1) for c in itertools.combinations(roll, n)}
                )
            )
            for roll in self.rolls
        )
        self._arrays: dict | None = None

    def _roll_prob(self, roll: tuple[int, ...]) -> float:
        ways = math.factorial(self.n_dice)
        for f in _FACES:
            ways //= math.factorial(roll.count(f))
        return ways / N_FACES**self.n_dice

    @property
    def arrays(self) -> dict:
        """The numpy arrays of the module docstring by name (read-only; numpy imported here)."""
        if self._arrays is None:
            self._arrays = self._build_arrays()
        return self._arrays

    def _build_arrays(self) -> dict:
        import numpy as np

        n_keeps, offset = self.n_keeps, self.roll_offset
        counts = np.array(self.keep_face_counts, dtype=np.int64)
        size = np.array([len(k) for k in self.keeps], dtype=np.int64)
        add = np.full((n_keeps, N_FACES), -1, dtype=np.int64)
        add[:offset] = self.keep_plus
        remove = np.full((n_keeps, N_FACES), -1, dtype=np.int64)
        for i, keep in enumerate(self.keeps):
            for f, j in zip(sorted(set(keep)), self.keep_minus[i], strict=True):
                remove[i, f - 1] = j
        prob = np.array(self.roll_probs, dtype=np.float64)
        subkeeps = np.full((self.n_rolls, 2**self.n_dice), -1, dtype=np.int64)
        for r, subs in enumerate(self.roll_subkeeps):
            subkeeps[r, : len(subs)] = subs
        n_sub = np.array([len(subs) for subs in self.roll_subkeeps], dtype=np.int64)
        arrays = (counts, size, add, remove, prob, subkeeps, n_sub)
        for a in arrays:
            a.setflags(write=False)
        return dict(zip(_ARRAY_NAMES, arrays, strict=True))


_LAYERS: dict[int, DiceLayer] = {}


def layer(n_dice: int = N_DICE) -> DiceLayer:
    """The dice layer of ``n_dice`` dice (one of :data:`DICE_COUNTS`), made on first use."""
    found = _LAYERS.get(n_dice)
    if found is None:
        if n_dice not in DICE_COUNTS:
            raise ValueError(f"no dice layer for {n_dice} dice (known: {DICE_COUNTS})")
        found = _LAYERS.setdefault(n_dice, DiceLayer(n_dice))  # a racing thread's equal layer is dropped
    return found


_FIVE = layer(N_DICE)
KEEPS: tuple[tuple[int, ...], ...] = _FIVE.keeps
KEEP_INDEX: dict[tuple[int, ...], int] = _FIVE.keep_index
N_KEEPS = _FIVE.n_keeps  # 462
ROLL_OFFSET = _FIVE.roll_offset  # 210
N_ROLLS = _FIVE.n_rolls  # 252
ROLLS: tuple[tuple[int, ...], ...] = _FIVE.rolls
KEEP_FACE_COUNTS: tuple[tuple[int, ...], ...] = _FIVE.keep_face_counts
KEEP_PLUS: tuple[tuple[int, ...], ...] = _FIVE.keep_plus
KEEP_MINUS: tuple[tuple[int, ...], ...] = _FIVE.keep_minus
ROLL_PROBS: tuple[float, ...] = _FIVE.roll_probs
ROLL_SUBKEEPS: tuple[tuple[int, ...], ...] = _FIVE.roll_subkeeps


def __getattr__(name: str):
    # PEP 562: the numpy arrays are made (and numpy imported) on first use only
    if name in _ARRAY_NAMES:
        module = globals()
        for key, array in _FIVE.arrays.items():
            module.setdefault(key, array)
        return module[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ARRAY_NAMES))


# between dice: spaces and commas; a "-" only between two faces ("3-3-4-5-6"), never before
# one ("-1" is no face) nor after
_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True, order=True)
class Dice:
    """Five dice, kept sorted (order never changes a score); :class:`SixDice` six.

    ``Dice.parse("33456")``, ``Dice.parse("3 3 4 5 6")`` and ``Dice.parse("3,3,4,5,6")``
    are the same; ``str()`` gives the compact form ``"33456"``.
    """

    values: tuple[int, ...]
    #: how many dice (a class's: :func:`dice_class`)
    n_dice: ClassVar[int] = N_DICE

    def __post_init__(self) -> None:
        values = tuple(self.values)
        if len(values) != self.n_dice:
            raise DiceError(f"need exactly {self.n_dice} dice, got {len(values)}: {_show(values)}")
        for v in values:
            if not _is_integer(v) or not 1 <= v <= N_FACES:
                raise DiceError(f"die value {shown(v)} is not a face from 1 to {N_FACES}")
        object.__setattr__(self, "values", tuple(sorted(int(v) for v in values)))

    @classmethod
    def parse(cls, text: str | Dice | list[int] | tuple[int, ...]) -> Dice:
        """Read dice from ``"33456"``, ``"3 3 4 5 6"``, ``"3,3,4,5,6"`` or a sequence of ints."""
        if isinstance(text, Dice):
            if len(text.values) != cls.n_dice:
                raise DiceError(f"need exactly {cls.n_dice} dice, got {len(text.values)}: {text}")
            return text
        if not isinstance(text, str):
            try:
                values = tuple(text)
            except TypeError:
                raise DiceError(
                    f"dice must be text like '33456' or a sequence of faces, got {text!r}"
                ) from None
            return cls(values)
        return cls(parse_faces(text, n_dice=cls.n_dice))

    @classmethod
    def from_index(cls, roll_index: int) -> Dice:
        return cls(layer(cls.n_dice).rolls[roll_index])

    @property
    def index(self) -> int:
        """Roll index into the solver's arrays: 0..251 (five dice), 0..461 (six)."""
        d = layer(self.n_dice)
        return d.keep_index[self.values] - d.roll_offset

    @property
    def counts(self) -> tuple[int, ...]:
        """How many dice show each face 1..6."""
        return tuple(self.values.count(f) for f in range(1, N_FACES + 1))

    @property
    def is_yahtzee(self) -> bool:
        return self.values[0] == self.values[-1]

    def __str__(self) -> str:
        return "".join(map(str, self.values))

    def __iter__(self):
        return iter(self.values)


class SixDice(Dice):
    """Six dice (Maxi Yatzy), kept sorted: ``SixDice.parse("334566")``."""

    n_dice: ClassVar[int] = 6


def dice_class(n_dice: int) -> type[Dice]:
    """The dice class of ``n_dice`` dice: :class:`Dice` (five) or :class:`SixDice`."""
    if n_dice == 6:
        return SixDice
    if n_dice != N_DICE:
        raise ValueError(f"no dice of {n_dice}")
    return Dice


def _is_integer(v) -> bool:
    """An int or a numpy integer, not a bool (numpy is only looked for when already imported)."""
    if isinstance(v, int):
        return not isinstance(v, bool)
    np = sys.modules.get("numpy")
    return np is not None and isinstance(v, np.integer)


def _show(values) -> str:
    """The faces for a message, one line (an integer too long to write by its size)."""
    text = "".join(shown(v) if isinstance(v, int) and v.bit_length() > 128 else str(v) for v in values)
    return clipped(text) or "(none)"


def parse_faces(text: str, *, allow_any_count: bool = False, n_dice: int = N_DICE) -> tuple[int, ...]:
    """Parse faces written as ``"3345"``, ``"3 3 4 5"`` or ``"3,3,4,5"``.

    Raises :class:`DiceError` naming the first value that is not a face 1..6,
    and (unless ``allow_any_count``) when there are not exactly ``n_dice`` (five).
    """
    tokens = []
    for chunk in _SEPARATORS.split(text.strip()):
        parts = chunk.split("-")
        if len(parts) > 1 and not all(parts):  # "-1", "3-", "3--4": a minus sign, not a separator
            raise DiceError(f"die value {shown(chunk)} is not a face from 1 to {N_FACES} (in {shown(text)})")
        tokens.extend(p for p in parts if p)
    if len(tokens) == 1 and tokens[0].isdecimal():
        tokens = list(tokens[0])
    faces = []
    for token in tokens:
        try:
            faces.append(parse_whole(token, "die value", 1, N_FACES, error=DiceError))
        except DiceError:
            raise DiceError(
                f"die value {shown(token)} is not a face from 1 to {N_FACES} (in {shown(text)})"
            ) from None
    if not allow_any_count and len(faces) != n_dice:
        raise DiceError(f"need exactly {n_dice} dice, got {len(faces)}: {shown(text)}")
    return tuple(faces)


def is_sub_multiset(keep, values) -> bool:
    """Whether the faces ``keep`` (a multiset) are all among ``values``."""
    rest = list(values)
    for f in keep:
        if f not in rest:
            return False
        rest.remove(f)
    return True


def keep_index(faces, n_dice: int = N_DICE) -> int:
    """Keep index of a multiset of 0..5 faces (0..``n_dice``: the same index for every count)."""
    key = tuple(sorted(int(f) for f in faces))
    try:
        return layer(n_dice).keep_index[key]
    except KeyError:
        raise DiceError(f"not a set of at most {n_dice} dice: {_show(key)}") from None

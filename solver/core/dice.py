"""Dice combinatorics: five six-sided dice as multisets.

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

from .bounded import clipped, parse_whole, shown
from .errors import DiceError

N_DICE = 5
N_FACES = 6


def _enumerate_keeps() -> list[tuple[int, ...]]:
    keeps: list[tuple[int, ...]] = []
    for size in range(N_DICE + 1):
        keeps.extend(itertools.combinations_with_replacement(range(1, N_FACES + 1), size))
    return keeps


KEEPS: tuple[tuple[int, ...], ...] = tuple(_enumerate_keeps())
KEEP_INDEX: dict[tuple[int, ...], int] = {keep: i for i, keep in enumerate(KEEPS)}
N_KEEPS = len(KEEPS)  # 462
ROLL_OFFSET = sum(1 for k in KEEPS if len(k) < N_DICE)  # 210
N_ROLLS = N_KEEPS - ROLL_OFFSET  # 252
ROLLS: tuple[tuple[int, ...], ...] = KEEPS[ROLL_OFFSET:]
_FACES = range(1, N_FACES + 1)


def _without(keep: tuple[int, ...], face: int) -> tuple[int, ...]:
    i = keep.index(face)
    return keep[:i] + keep[i + 1 :]


KEEP_FACE_COUNTS: tuple[tuple[int, ...], ...] = tuple(tuple(k.count(f) for f in _FACES) for k in KEEPS)
KEEP_PLUS: tuple[tuple[int, ...], ...] = tuple(
    tuple(KEEP_INDEX[tuple(sorted(k + (f,)))] for f in _FACES) for k in KEEPS[:ROLL_OFFSET]
)
KEEP_MINUS: tuple[tuple[int, ...], ...] = tuple(
    tuple(KEEP_INDEX[_without(k, f)] for f in _FACES if f in k) for k in KEEPS
)


def _roll_prob(roll: tuple[int, ...]) -> float:
    ways = math.factorial(N_DICE)
    for f in _FACES:
        ways //= math.factorial(roll.count(f))
    return ways / N_FACES**N_DICE


ROLL_PROBS: tuple[float, ...] = tuple(_roll_prob(roll) for roll in ROLLS)
# the sub-multisets of a sorted roll are its combinations (sorted too), listed in keep order
ROLL_SUBKEEPS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({KEEP_INDEX[c] for n in range(N_DICE + 1) for c in itertools.combinations(roll, n)}))
    for roll in ROLLS
)

_ARRAY_NAMES = ("KEEP_COUNTS", "KEEP_SIZE", "ADD_DIE", "REMOVE_DIE", "ROLL_PROB", "SUBKEEPS", "N_SUBKEEPS")


def _build_arrays() -> dict:
    """The numpy arrays of the module docstring, from the tuples (read-only)."""
    import numpy as np

    counts = np.array(KEEP_FACE_COUNTS, dtype=np.int64)
    size = np.array([len(k) for k in KEEPS], dtype=np.int64)
    add = np.full((N_KEEPS, N_FACES), -1, dtype=np.int64)
    add[:ROLL_OFFSET] = KEEP_PLUS
    remove = np.full((N_KEEPS, N_FACES), -1, dtype=np.int64)
    for i, keep in enumerate(KEEPS):
        for f, j in zip(sorted(set(keep)), KEEP_MINUS[i], strict=True):
            remove[i, f - 1] = j
    prob = np.array(ROLL_PROBS, dtype=np.float64)
    subkeeps = np.full((N_ROLLS, 2**N_DICE), -1, dtype=np.int64)
    for r, subs in enumerate(ROLL_SUBKEEPS):
        subkeeps[r, : len(subs)] = subs
    n_sub = np.array([len(subs) for subs in ROLL_SUBKEEPS], dtype=np.int64)
    arrays = (counts, size, add, remove, prob, subkeeps, n_sub)
    for a in arrays:
        a.setflags(write=False)
    return dict(zip(_ARRAY_NAMES, arrays, strict=True))


def __getattr__(name: str):
    # PEP 562: the numpy arrays are made (and numpy imported) on first use only
    if name in _ARRAY_NAMES:
        module = globals()
        for key, array in _build_arrays().items():
            module.setdefault(key, array)  # should two threads race here, both see the first arrays
        return module[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ARRAY_NAMES))


# between dice: spaces and commas; a "-" only between two faces ("3-3-4-5-6"), never before
# one ("-1" is no face) nor after
_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True, order=True)
class Dice:
    """Five dice, kept sorted (order never changes a score).

    ``Dice.parse("33456")``, ``Dice.parse("3 3 4 5 6")`` and ``Dice.parse("3,3,4,5,6")``
    are the same; ``str()`` gives the compact form ``"33456"``.
    """

    values: tuple[int, ...]

    def __post_init__(self) -> None:
        values = tuple(self.values)
        if len(values) != N_DICE:
            raise DiceError(f"need exactly {N_DICE} dice, got {len(values)}: {_show(values)}")
        for v in values:
            if not _is_integer(v) or not 1 <= v <= N_FACES:
                raise DiceError(f"die value {shown(v)} is not a face from 1 to {N_FACES}")
        object.__setattr__(self, "values", tuple(sorted(int(v) for v in values)))

    @classmethod
    def parse(cls, text: str | Dice | list[int] | tuple[int, ...]) -> Dice:
        """Read dice from ``"33456"``, ``"3 3 4 5 6"``, ``"3,3,4,5,6"`` or a sequence of ints."""
        if isinstance(text, Dice):
            return text
        if not isinstance(text, str):
            try:
                values = tuple(text)
            except TypeError:
                raise DiceError(
                    f"dice must be text like '33456' or a sequence of faces, got {text!r}"
                ) from None
            return cls(values)
        return cls(parse_faces(text))

    @classmethod
    def from_index(cls, roll_index: int) -> Dice:
        return cls(ROLLS[roll_index])

    @property
    def index(self) -> int:
        """Roll index 0..251 into the solver's arrays."""
        return KEEP_INDEX[self.values] - ROLL_OFFSET

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


def parse_faces(text: str, *, allow_any_count: bool = False) -> tuple[int, ...]:
    """Parse faces written as ``"3345"``, ``"3 3 4 5"`` or ``"3,3,4,5"``.

    Raises :class:`DiceError` naming the first value that is not a face 1..6,
    and (unless ``allow_any_count``) when there are not exactly five.
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
    if not allow_any_count and len(faces) != N_DICE:
        raise DiceError(f"need exactly {N_DICE} dice, got {len(faces)}: {shown(text)}")
    return tuple(faces)


def is_sub_multiset(keep, values) -> bool:
    """Whether the faces ``keep`` (a multiset) are all among ``values``."""
    rest = list(values)
    for f in keep:
        if f not in rest:
            return False
        rest.remove(f)
    return True


def keep_index(faces) -> int:
    """Keep index of a multiset of 0..5 faces."""
    key = tuple(sorted(int(f) for f in faces))
    try:
        return KEEP_INDEX[key]
    except KeyError:
        raise DiceError(f"not a set of at most {N_DICE} dice: {_show(key)}") from None

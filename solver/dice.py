"""Dice combinatorics: five six-sided dice as multisets.

Order never matters for scoring, so dice are multisets.  There are 462
multisets of 0 to 5 dice ("keeps") and 252 of exactly 5 dice ("rolls").  Keeps
are indexed by size first (0, 1, ..., 5 dice), then lexicographically by their
sorted faces, so the 252 rolls are the keeps ``ROLL_OFFSET .. 461`` and roll
index ``r`` is keep index ``ROLL_OFFSET + r``.

The arrays below are the whole dice layer used by the solver (all built once
at import, in a few milliseconds, with plain Python):

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
from dataclasses import dataclass

import numpy as np

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


def _build_arrays():
    counts = np.zeros((N_KEEPS, N_FACES), dtype=np.int64)
    size = np.zeros(N_KEEPS, dtype=np.int64)
    add = np.full((N_KEEPS, N_FACES), -1, dtype=np.int64)
    remove = np.full((N_KEEPS, N_FACES), -1, dtype=np.int64)
    for i, keep in enumerate(KEEPS):
        size[i] = len(keep)
        for face in keep:
            counts[i, face - 1] += 1
        for face in range(1, N_FACES + 1):
            if len(keep) < N_DICE:
                add[i, face - 1] = KEEP_INDEX[tuple(sorted(keep + (face,)))]
            if face in keep:
                rest = list(keep)
                rest.remove(face)
                remove[i, face - 1] = KEEP_INDEX[tuple(rest)]
    prob = np.zeros(N_ROLLS, dtype=np.float64)
    subkeeps = np.full((N_ROLLS, 2**N_DICE), -1, dtype=np.int64)
    n_sub = np.zeros(N_ROLLS, dtype=np.int64)
    for r in range(N_ROLLS):
        ways = math.factorial(N_DICE)
        for c in counts[ROLL_OFFSET + r]:
            ways //= math.factorial(int(c))
        prob[r] = ways / N_FACES**N_DICE
    # the sub-multisets of a roll are the keeps with no more of any face (in keep order)
    contained = (counts[None, :, :] <= counts[ROLL_OFFSET:, None, :]).all(axis=2)
    for r in range(N_ROLLS):
        subs = np.flatnonzero(contained[r])
        n_sub[r] = len(subs)
        subkeeps[r, : len(subs)] = subs
    for a in (counts, size, add, remove, prob, subkeeps, n_sub):
        a.setflags(write=False)
    return counts, size, add, remove, prob, subkeeps, n_sub


KEEP_COUNTS, KEEP_SIZE, ADD_DIE, REMOVE_DIE, ROLL_PROB, SUBKEEPS, N_SUBKEEPS = _build_arrays()

_SEPARATORS = re.compile(r"[\s,\-]+")


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
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not 1 <= v <= N_FACES:
                raise DiceError(f"die value {v!r} is not a face from 1 to {N_FACES}")
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


def _show(values) -> str:
    return "".join(str(v) for v in values) or "(none)"


def parse_faces(text: str, *, allow_any_count: bool = False) -> tuple[int, ...]:
    """Parse faces written as ``"3345"``, ``"3 3 4 5"`` or ``"3,3,4,5"``.

    Raises :class:`DiceError` naming the first value that is not a face 1..6,
    and (unless ``allow_any_count``) when there are not exactly five.
    """
    stripped = text.strip()
    tokens = [t for t in _SEPARATORS.split(stripped) if t]
    if len(tokens) == 1 and tokens[0].isdecimal():
        tokens = list(tokens[0])
    faces = []
    for token in tokens:
        if not token.isdecimal() or not 1 <= int(token) <= N_FACES:
            raise DiceError(f"die value {token!r} is not a face from 1 to {N_FACES} (in {text!r})")
        faces.append(int(token))
    if not allow_any_count and len(faces) != N_DICE:
        raise DiceError(f"need exactly {N_DICE} dice, got {len(faces)}: {text!r}")
    return tuple(faces)


def keep_index(faces) -> int:
    """Keep index of a multiset of 0..5 faces."""
    key = tuple(sorted(int(f) for f in faces))
    try:
        return KEEP_INDEX[key]
    except KeyError:
        raise DiceError(f"not a set of at most {N_DICE} dice: {_show(key)}") from None

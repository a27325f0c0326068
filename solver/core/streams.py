"""Dice streams: where the luck comes from, so that decisions never change it.

Every roll takes the **next five dice** of a stream, also when some dice are
held: the rerolled dice, in position order, take the first values of those five
and the rest are discarded.  Two players (or bots) fed the same stream therefore
see the same five values on every roll, whatever they hold.

Seeded stream (version 1; simulation and seeded games).  The ``k``-th die
(``k = 0, 1, ...``) of game ``g`` under seed ``s`` is::

    h   = mix(mix(mix(s) ^ g) ^ k)            # 64-bit unsigned arithmetic
    die = 1 + (((h >> 11) * 6) >> 53)

where ``mix`` is the SplitMix64 finaliser (add 0x9E3779B97F4A7C15, then the
xor-shift-multiply steps 30/0xBF58476D1CE4E5B9, 27/0x94D049BB133111EB, 31).
It is plain integer arithmetic, identical on every machine and version, and
``solver.engine.kernels`` has a numba twin that must agree bit for bit.

Daily stream (version 1; the daily challenge of date ``D``, ISO ``YYYY-MM-DD``):
block ``n`` is ``sha256(f"yahtzee-solver daily v1 {D} {n}")``; its 32 bytes are
read in order, bytes ``>= 252`` are skipped (252 = 6 * 42 keeps the faces
uniform) and each other byte ``b`` gives the die ``1 + b % 6``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

MASK64 = (1 << 64) - 1
STREAM_VERSION = 1
#: the largest dice seed (a seed is a 64-bit unsigned number: 0 to 2^64 - 1)
MAX_SEED = MASK64


def check_seed(seed) -> int:
    """``seed`` if it is a whole number from 0 to :data:`MAX_SEED`; else a usage error (never
    reduced modulo 2^64: two seeds must not give the same dice)."""
    from .bounded import whole_value

    return whole_value(seed, "seed", 0, MAX_SEED)


def mix64(x: int) -> int:
    """SplitMix64 step: add the golden gamma, then finalise."""
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def seeded_die(seed: int, game: int, k: int) -> int:
    """The ``k``-th die of game ``game`` under ``seed`` (see the module docstring)."""
    h = mix64(mix64(mix64(seed & MASK64) ^ (game & MASK64)) ^ (k & MASK64))
    return 1 + (((h >> 11) * 6) >> 53)


class SeededStream:
    """The seeded dice stream of one game."""

    def __init__(self, seed: int, game: int = 0):
        self.seed, self.game, self.drawn = int(seed), int(game), 0
        # the game's part of every die's hash, once (seeded_die recomputes it per die)
        self._base = mix64(mix64(self.seed & MASK64) ^ (self.game & MASK64))

    def next_five(self) -> tuple[int, ...]:
        return self.next_dice(5)

    def next_dice(self, n: int) -> tuple[int, ...]:
        """The next ``n`` dice (a roll of six dice takes six: Maxi Yatzy, as the kernels)."""
        k, base = self.drawn, self._base
        self.drawn += n
        return tuple(1 + (((mix64(base ^ (k + i)) >> 11) * 6) >> 53) for i in range(n))


class DailyStream:
    """The dice of the daily challenge of one date (``YYYY-MM-DD``)."""

    def __init__(self, date: str):
        self.date = str(date)
        self._block = 0
        self._buffer: list[int] = []
        self.drawn = 0

    def _die(self) -> int:
        while not self._buffer:
            digest = hashlib.sha256(
                f"yahtzee-solver daily v{STREAM_VERSION} {self.date} {self._block}".encode()
            ).digest()
            self._block += 1
            self._buffer = [1 + b % 6 for b in digest if b < 252]
        return self._buffer.pop(0)

    def next_five(self) -> tuple[int, ...]:
        return self.next_dice(5)

    def next_dice(self, n: int) -> tuple[int, ...]:
        self.drawn += n
        return tuple(self._die() for _ in range(n))


class ListStream:
    """Dice given in advance (replaying a saved game, real dice typed in)."""

    def __init__(self, dice: Sequence[int]):
        self._dice = list(dice)
        self.drawn = 0

    def next_five(self) -> tuple[int, ...]:
        return self.next_dice(5)

    def next_dice(self, n: int) -> tuple[int, ...]:
        if self.drawn + n > len(self._dice):
            raise IndexError("the dice list is used up")
        out = tuple(self._dice[self.drawn : self.drawn + n])
        self.drawn += n
        return out


def next_dice(stream, n: int) -> tuple[int, ...]:
    """The next roll of ``n`` dice from ``stream``: its ``next_dice(n)``, or for five dice its
    ``next_five()`` alone (a stream written before six dice).  Every roll takes all ``n``."""
    if n == 5 and not hasattr(stream, "next_dice"):
        return tuple(stream.next_five())
    return tuple(stream.next_dice(n))


def reroll_keep(keep: Sequence[int], five: Sequence[int]) -> tuple[int, ...]:
    """Multiset form for bots: the kept faces plus the first ``5 - len(keep)`` of ``five``, sorted."""
    return tuple(sorted(list(keep) + list(five[: 5 - len(keep)])))


def mix64_array(x):
    """:func:`mix64` of each element of a uint64 numpy array (it wraps modulo 2^64, as the
    masks of :func:`mix64` do)."""
    import numpy as np

    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def stream_dice(base, drawn):
    """(n, 5) int64: dice ``drawn .. drawn + 4`` of the streams ``base`` ((n,) uint64: ``mix(mix(s)
    ^ g)`` of each game), ``drawn`` (n,) the dice each stream has given so far."""
    import numpy as np

    k = np.asarray(drawn, dtype=np.uint64)[:, None] + np.arange(5, dtype=np.uint64)
    h = mix64_array(base[:, None] ^ k)
    return (1 + (((h >> np.uint64(11)) * np.uint64(6)) >> np.uint64(53))).astype(np.int64)


def seeded_dice(seed: int, games, drawn):
    """The next five dice of many seeded streams at once, the numpy twin of
    :meth:`SeededStream.next_five`: ``games`` (n,) game indices under ``seed``, ``drawn`` (n,)
    the dice each stream has given so far; returns (n, 5) int64 faces."""
    import numpy as np

    base = mix64_array(np.uint64(mix64(int(seed) & MASK64)) ^ np.asarray(games, dtype=np.uint64))
    return stream_dice(base, drawn)

"""The seeded dice streams (see :mod:`solver.core.streams`, seeded stream version 1): the
``k``-th die of game ``g`` under seed ``s`` is ``1 + (((h >> 11) * 6) >> 53)`` with ``h =
mix(base[g] ^ k)`` and ``base[g] = mix(mix(s) ^ g)``, ``mix`` the SplitMix64 step.  Every roll
takes the next five dice; the rerolled dice take the first of them in order (held dice discard
theirs), so the multiset after a roll is ``keep + first (5 - |keep|) of the five``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def mix64(x):
    """SplitMix64 step (uint64 in, uint64 out); twin of :func:`solver.core.streams.mix64`."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def die_of(base, k):
    """The ``k``-th die of the game whose stream base is ``base`` (uint64)."""
    h = mix64(base ^ np.uint64(k))
    return 1 + np.int64(((h >> np.uint64(11)) * np.uint64(6)) >> np.uint64(53))


@njit(cache=True, inline="always")
def stream_base(seed_mixed, game):
    """Stream base of game ``game``: ``mix(seed_mixed ^ game)`` where ``seed_mixed = mix(seed)``."""
    return mix64(seed_mixed ^ np.uint64(game))


@njit(cache=True)
def stream_dice(seed_mixed, game0, k0, out):
    """``out[i, j]`` = die ``k0 + j`` of game ``game0 + i`` (for tests against :mod:`solver.core.streams`)."""
    for i in range(out.shape[0]):
        base = stream_base(seed_mixed, game0 + i)
        for j in range(out.shape[1]):
            out[i, j] = die_of(base, k0 + j)


@njit(cache=True, inline="always")
def uniform(base, j, n):
    """A uniform integer in ``0 .. n-1`` from the ``j``-th value of a decision stream."""
    h = mix64(base ^ np.uint64(j))
    return np.int64(((h >> np.uint64(11)) * np.uint64(n)) >> np.uint64(53))


@njit(cache=True, inline="always")
def reroll(base, k, keep, add_die, keep_size):
    """Keep index of ``keep`` plus the first ``n - |keep|`` of dice ``k .. k+n-1``: a roll of all
    ``n`` dice (five, or six: the size of the last keep)."""
    for i in range(keep_size[keep_size.shape[0] - 1] - keep_size[keep]):
        keep = add_die[keep, die_of(base, k + i) - 1]
    return keep

"""Running a GIL-free kernel over disjoint ranges in threads.

The kernels of :mod:`solver.engine.kernels` release the GIL (``nogil=True``) instead of using
numba's ``parallel=True``: compiling a parallel kernel costs seconds on a first run,
threads cost nothing to compile.  Work is cut into contiguous ranges; every item
(a lane, a game) is computed by the same operations whatever range it falls in, so
results never depend on the thread count.

An interrupt (Ctrl-C) while the pieces run cancels the pieces not started yet: the pool
then waits only for the ones running (a fraction of a second each where the callers cut
their work finely, see :func:`piece_count`), never for the rest of the range.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor


def default_threads() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: the most worker threads asked for (more than this many threads only costs memory: each has a stack)
MAX_THREADS = 256


def resolve_threads(threads: int | None) -> int:
    """``threads`` checked (1 to :data:`MAX_THREADS`), or the default."""
    from .bounded import whole_value

    if threads is None:
        return default_threads()
    return whole_value(threads, "threads", 1, MAX_THREADS)


class Workers:
    """A pool of ``threads`` threads that runs ``work(lo, hi)`` over a range cut in pieces."""

    def __init__(self, threads: int | None = None):
        self.threads = resolve_threads(threads)
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None

    def run(self, work: Callable[[int, int], object], lo: int, hi: int, pieces: int | None = None) -> None:
        """Call ``work`` on ``pieces`` (default: 4 per thread) contiguous parts of ``lo .. hi``."""
        n = hi - lo
        if n <= 0:
            return
        pieces = min(n, pieces or 4 * self.threads)
        cuts = [lo + n * i // pieces for i in range(pieces + 1)]
        if self._pool is None or pieces == 1:
            for a, b in zip(cuts, cuts[1:], strict=False):
                work(a, b)
            return
        futures = [self._pool.submit(work, a, b) for a, b in zip(cuts, cuts[1:], strict=False)]
        try:
            for future in futures:
                future.result()
        except BaseException:
            # Ctrl-C (or a piece's error): the pieces not started yet are dropped, not run
            for future in futures:
                future.cancel()
            raise

    def close(self, cancel: bool = False) -> None:
        """Wait for the running pieces; ``cancel``: drop the ones not started yet."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=cancel)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind, *exc) -> None:
        self.close(cancel=kind is not None)


def piece_count(items: int, threads: int, per_piece: int, at_least: int = 4) -> int:
    """How many pieces to cut ``items`` into: ``at_least`` per thread, and more where needed to
    keep each piece to ``per_piece`` items -- a piece is the most an interrupt waits for."""
    return max(1, min(items, max(at_least * threads, -(-items // max(1, per_piece)))))

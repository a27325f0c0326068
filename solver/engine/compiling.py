"""A progress bar while numba compiles: what a first run waits for, in words, from its first second.

numba compiles a kernel the first time it is called with new argument types (then loads it from
its on-disk cache).  The package ships the first commands' kernels compiled for a portable x86-64
level (:mod:`solver.engine.kernels.cache`), so on most x86-64 hosts a fresh install compiles
none of them; elsewhere (another CPU, a kernel source edited since they were shipped, a kernel
or signature not shipped) it is most of a first command's time -- measured (CPU
seconds, numba 0.68, ``NUMBA_OPT=1``): the value table's solver about 7, the table bots' game
kernels about 13, the distribution's about 21, the triple-card player about 15 -- and nothing
else moves meanwhile.  :func:`install` (called by :mod:`solver.engine.kernels` once it is
imported: it costs nothing and imports nothing more) listens to numba's ``numba:compile``
events; while :func:`enable` is on (the command line turns it on unless ``--quiet``), every
top-level compilation shows a tqdm bar on stderr: ``compiling the game kernels (first run only)``
with the seconds spent against an estimate -- the CPU seconds measured here for that kernel,
stretched by the machine's load (a shared machine compiles slower).  A compilation under a
second (a small helper) shows nothing; a kernel loaded from the cache raises no event at all.

:func:`compiling` is the same bar around any block; :func:`shown` turns the bars on for a block
(:func:`solver.engine.tables.build_table` around the solver's first call, whatever :func:`enable`
says, with its own ``progress``: a bar only if numba compiles, none when it loads).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator

#: the words of each kernel module's compilation (``solver.engine.kernels.<module>``)
WORDS = {
    "dp": "the solver",
    "games": "the game kernels",
    "grading": "the grading kernels",
    "options": "the batch advice",
    "outcomes": "the distribution kernels",
    "target_outcomes": "the target distribution kernels",
    "target": "the target solver",
    "triple": "the triple-card player",
    "win": "the win player",
    "simd": "the win player",
    "streams": "the dice streams",
    "turn": "the turn kernels",
}
#: CPU seconds measured for a top-level kernel's compilation (numba 0.68, NUMBA_OPT=1, a quiet
#: x86-64 core; the callee kernels it compiles included); others: :data:`DEFAULT_ESTIMATE`
ESTIMATES = {
    "solve_blocks": 7.5,
    "group_tables": 7.6,
    "play_table_games": 3.8,
    "group_games": 1.4,
    "turn_outcomes": 21.0,
    "triple_games": 15.6,
}
DEFAULT_ESTIMATE = 5.0
#: seconds before a bar shows (shorter compilations pass silently)
DELAY = 0.7
_state = {"enabled": False, "installed": False, "depth": 0, "bar": None}


def enable(on: bool = True) -> None:
    """Show (or stop showing) a bar for every compilation from now on in this process."""
    _state["enabled"] = bool(on)


@contextlib.contextmanager
def shown(on: bool = True) -> Iterator[None]:
    """:func:`enable` for the block only (a build that shows its own bars, under any command)."""
    before = _state["enabled"]
    _state["enabled"] = before or bool(on)
    try:
        yield
    finally:
        _state["enabled"] = before


def load_factor() -> float:
    """How much longer than its CPU seconds a single-threaded job takes now: 1 on a machine with a
    core to spare, ``(load + 1) / cores`` when every core is taken (a shared machine)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 1.0
    return max(1.0, (load + 1.0) / (os.cpu_count() or 1))


class _Bar:
    """A bar of seconds spent against an estimate, redrawn by its own thread until :meth:`stop`."""

    def __init__(self, what: str, estimate: float) -> None:
        self.what = what
        self.estimate = max(1.0, estimate * load_factor())
        self.start = time.perf_counter()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(DELAY,), daemon=True)
        self.thread.start()

    def _run(self, delay: float) -> None:
        if self.done.wait(delay):
            return
        from tqdm import tqdm

        total = self.estimate
        with tqdm(
            total=round(total),
            desc=f"compiling {self.what} (first run only; about {total:.0f} s)",
            unit="s",
            leave=False,
            # never wider than 80 columns (nor than the terminal): a wide bar wraps into new lines
            ncols=min(80, shutil.get_terminal_size((80, 24)).columns),
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s",
            file=sys.stderr,
        ) as bar:
            while True:
                spent = time.perf_counter() - self.start
                if spent > bar.total:  # longer than estimated: the bar stays just short of full
                    bar.total = round(spent * 1.2)
                bar.n = spent
                bar.refresh()
                if self.done.wait(0.5):
                    return

    def stop(self) -> None:
        self.done.set()
        self.thread.join()


@contextlib.contextmanager
def compiling(what: str, estimate: float = DEFAULT_ESTIMATE, show: bool = True) -> Iterator[None]:
    """A bar ``compiling <what>`` while the block runs (shown after :data:`DELAY` seconds)."""
    bar = _Bar(what, estimate) if show else None
    outer, _state["bar"] = _state["bar"], bar or _state["bar"]  # no second bar from the listener
    try:
        yield
    finally:
        _state["bar"] = outer
        if bar is not None:
            bar.stop()


def install() -> None:
    """Listen to numba's compilations (once a process); a bar shows for each while :func:`enable`."""
    if _state["installed"]:
        return
    from numba.core import event

    class Listener(event.Listener):
        # numba compiles under one global lock: one compilation (and its nested ones) at a time
        def on_start(self, ev) -> None:
            _state["depth"] += 1
            if _state["depth"] == 1 and _state["enabled"] and _state["bar"] is None:
                func = ev.data["dispatcher"].py_func
                module = func.__module__.rsplit(".", 1)[-1]
                what = WORDS.get(module, "the solver's kernels")
                _state["bar"] = _Bar(what, ESTIMATES.get(func.__name__, DEFAULT_ESTIMATE))

        def on_end(self, ev) -> None:
            _state["depth"] -= 1
            if _state["depth"] == 0 and _state["bar"] is not None:
                bar, _state["bar"] = _state["bar"], None
                bar.stop()

    event.register("numba:compile", Listener())
    _state["installed"] = True

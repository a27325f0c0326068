"""Estimates before a long value-table build (six dice): how long, how much disk and memory.

Timed on this machine as loaded now by :func:`solver.engine.target.machine_probe` (the target
build's probe), scaled from the figures measured for ``maxi``.
"""

from __future__ import annotations

from ..core.rules import RuleSet

#: what building the maxi table takes, measured on the 2-core machine (``benchmarks/bench_maxi.py``):
#: the DP's CPU seconds, its peak memory, its file; other six-dice rule sets scale by their states
MAXI_CPU_SECONDS = (
    110.0  # the whole command: 109.9 CPU s at load 2.4-3.2, the DP 102.7 at load 6-8 (2026-12-03)
)
MAXI_PEAK_BYTES = 1_450_000_000  # the whole command: 1,383-1,397 MiB measured
MAXI_STATES = 36_864_000


def build_estimate_text(rules: RuleSet, threads: int | None = None) -> str:
    """Before a six-dice build: its states, and about how long it takes on this machine as loaded
    now (:func:`solver.engine.target.machine_probe`), how much disk and memory it needs."""
    from ..core.threads import resolve_threads
    from .packed import packed_length
    from .target import machine_probe

    states = packed_length(rules)
    n = resolve_threads(threads)
    seconds = MAXI_CPU_SECONDS * states / MAXI_STATES / n * machine_probe(threads)
    when = (
        f"about {5 * round(seconds / 5):.0f} seconds" if seconds < 90 else f"about {seconds / 60:.0f} minutes"
    )
    size = 8 * states / 2**20
    peak = MAXI_PEAK_BYTES * states / MAXI_STATES / 2**30
    return (
        f"building {rules.id}: {states:,} states, {when} on {n} core{'s' if n != 1 else ''} "
        f"(as loaded now), {size:.0f} MiB of disk ({peak:.1f} GiB of memory while it builds)"
    )

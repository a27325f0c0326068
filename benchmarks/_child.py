"""Run a measurement in a fresh Python process (so its peak memory is its own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass


def run_json_child(code: str, args: list[str], numba_cache: str) -> dict:
    """Run ``python -c code *args`` with ``NUMBA_CACHE_DIR=numba_cache``; parse its last stdout line as JSON."""
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=dict(os.environ, NUMBA_CACHE_DIR=numba_cache),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@dataclass(frozen=True)
class Measured:
    """One child process: wall and CPU seconds (user + system), peak resident memory (bytes)."""

    wall: float
    cpu: float
    peak: int
    returncode: int
    stdout: str
    stderr: str


def run_measured(argv: list[str], env: dict | None = None, cwd: str | None = None) -> Measured:
    """Run ``argv`` and measure it alone: its own rusage (``os.wait4``), not that of every child
    so far as ``RUSAGE_CHILDREN`` gives (whose peak memory is the largest child's).  The peak
    is at least this process's own resident size when it forked (Linux carries the high-water
    mark across ``exec``): measure peaks from a small process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        return Measured(
            wall,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss * 1024,  # KiB on Linux
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )


def load_average() -> str:
    """The machine's 1-, 5- and 15-minute load averages (it is shared: say how busy it was)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def bench_folders(rules: str, tables: str | None):
    """``(tables, table, numba_cache)``: the tables folder (a temporary one unless given) with
    ``rules``' table built, the table, and the numba cache the children share (``$NUMBA_CACHE_DIR``,
    else a temporary one)."""
    from solver.engine.tables import get_table

    tables = tables or tempfile.mkdtemp(prefix="bench-tables-")
    table = get_table(rules, tables, build_if_missing=True, progress=False)
    return tables, table, os.environ.get("NUMBA_CACHE_DIR") or tempfile.mkdtemp(prefix="numba-bench-")

"""Run a measurement in a fresh Python process (so its peak memory is its own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile


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


def bench_folders(rules: str, tables: str | None):
    """``(tables, table, numba_cache)``: the tables folder (a temporary one unless given) with
    ``rules``' table built, the table, and the numba cache the children share (``$NUMBA_CACHE_DIR``,
    else a temporary one)."""
    from solver.engine.tables import get_table

    tables = tables or tempfile.mkdtemp(prefix="bench-tables-")
    table = get_table(rules, tables, build_if_missing=True, progress=False)
    return tables, table, os.environ.get("NUMBA_CACHE_DIR") or tempfile.mkdtemp(prefix="numba-bench-")

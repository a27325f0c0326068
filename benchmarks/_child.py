"""Run a measurement in a fresh Python process (so its peak memory is its own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys


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

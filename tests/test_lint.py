"""ruff's lint and format checks over the whole checkout (the settings in pyproject.toml), so
the README's test command -- and CI with it -- runs them too."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(exe).exists():
        pytest.fail('ruff is missing: it comes with the test extra (pip install -e ".[test]")')
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_ruff_check():
    proc = ruff("check", ".")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]


def test_ruff_format():
    proc = ruff("format", "--check", ".")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]

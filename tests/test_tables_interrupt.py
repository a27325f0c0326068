"""An interrupted table build leaves no table behind, half-written or otherwise."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import pytest


def read_until(proc: subprocess.Popen, text: str, timeout: float) -> str:
    """What ``proc`` wrote to its stderr up to and including ``text`` (read without blocking past
    ``timeout`` seconds in all)."""
    fd, seen, deadline = proc.stderr.fileno(), b"", time.monotonic() + timeout
    while text.encode() not in seen:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 4096) if ready else b""
        assert chunk, f"no {text!r} on stderr within {timeout} s: {seen.decode(errors='replace')}"
        seen += chunk
    return seen.decode(errors="replace")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_build_leaves_no_table(tmp_path, sig):
    folder = tmp_path / "tables"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "solver",
            "tables",
            "build",
            "--rules",
            "yatzy",
            "--tables",
            str(folder),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        # SIGINT is the child's to handle, whatever this run inherited: started in the background
        # (``&``), a shell ignores it for its commands, and an ignored signal stays ignored in children
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # the signal comes once the bar has started: inside the build itself (a fixed wait raced a
    # fast machine, where the whole command is over in a second)
    seen = read_until(proc, "building yatzy:", timeout=60)
    assert proc.poll() is None, "the build finished before it could be interrupted"
    proc.send_signal(sig)
    _, rest = proc.communicate(timeout=60)
    err = seen + rest
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert "Traceback" not in err
        leftovers = list(folder.iterdir()) if folder.exists() else []
        assert leftovers == []  # not even a temporary file
    else:
        assert proc.returncode == -signal.SIGKILL
    names = [p.name for p in folder.iterdir()] if folder.exists() else []
    assert "yatzy.npy" not in names and "yatzy.json" not in names
    # the next build in the folder removes what a killed write left behind
    from solver.engine.tables import build_table

    build_table("yatzy+lower-only", folder, progress=False)
    assert sorted(p.name for p in folder.iterdir()) == ["yatzy+lower-only.json", "yatzy+lower-only.npy"]

"""An interrupted table build leaves no table behind, half-written or otherwise."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest


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
            "--quiet",
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
    time.sleep(1.0)  # inside imports, compilation or the build itself: never finished by now
    assert proc.poll() is None, "the build finished before it could be interrupted"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
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

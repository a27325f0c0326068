"""Table files forged in tests: a manifest made to vouch for files changed beside it, as a forger
(or a careless tool) would, so that a test reaches the checks after the checksums."""

from __future__ import annotations

import json
from pathlib import Path

from solver.engine.store import sha256_file


def reseal(manifest_path: Path) -> None:
    """Recompute the sha256 of every array the manifest (the store's form) lists, from its file."""
    manifest_path = Path(manifest_path)
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["arrays"].values():
        entry["sha256"] = sha256_file(manifest_path.parent / entry["file"])
    manifest_path.write_text(json.dumps(manifest))

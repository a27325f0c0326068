"""(Re)write the numba cache of the kernels shipped with the package (``solver/engine/shipped/kernels/``).

A fresh install's first command otherwise compiles its kernels (7 to 21 CPU seconds each, see
:mod:`solver.engine.compiling`).  This script runs the first command of each kind (:data:`COMMANDS`)
in child processes with an empty numba cache and the portable target
(:data:`solver.engine.kernels.cache.PORTABLE_CPU`), then copies numba's files and writes a
manifest (numba and Python versions, the target, the stamp of the kernel sources, each file's
sha256).  The package copies them into the user's cache where they answer
(:func:`solver.engine.kernels.cache.seed`); any edit of a kernel source makes them stale -- they are
then ignored and the kernels compile as before -- until this script runs again
(``tests/test_shipped_kernels.py`` fails until then).

    python scripts/ship_kernels.py            # compile, rewrite the shipped files
    python scripts/ship_kernels.py --check    # is the shipped cache fresh for these sources? (exit 1 if not)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the commands whose kernels are shipped: the first of each kind a new user runs
COMMANDS = (
    ["hint", "--rules", "yatzy", "--dice", "33456", "--rolls-left", "2"],
    ["simulate", "--games", "5000", "--quiet"],
    ["simulate", "--games", "5000", "--bot", "greedy", "--quiet"],
    ["simulate", "--games", "5000", "--bot", "heuristic", "--quiet"],
    ["distribution"],
    ["match", "--bots", "optimal,optimal", "--games", "100", "--quiet"],
    ["match", "--bots", "heuristic,optimal", "--games", "100", "--quiet"],
    ["simulate", "--rules", "triple", "--bot", "triple", "--games", "100", "--quiet"],
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the shipped cache is fresh")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ["NUMBA_CPU_NAME"], os.environ["NUMBA_CPU_FEATURES"] = "x86-64-v3", ""
    os.environ["YAHTZEE_SHIPPED_KERNELS"] = "0"  # nothing seeded into this process's cache
    from solver.engine.kernels import cache

    if args.check:
        fresh = cache.shipped_manifest() is not None
        print(f"the shipped kernels {'are' if fresh else 'are NOT'} fresh for these kernel sources")
        return 0 if fresh else 1
    with tempfile.TemporaryDirectory(prefix="ship-kernels-") as root:
        env = dict(
            os.environ,
            PYTHONPATH=str(ROOT),
            NUMBA_CACHE_DIR=str(Path(root) / "numba"),
            YAHTZEE_TABLES=str(Path(root) / "tables"),
            YAHTZEE_SHIPPED_KERNELS="0",  # compile everything afresh, the old shipped files unread
        )
        for command in COMMANDS:
            print("compiling for", " ".join(command), flush=True)
            proc = subprocess.run([sys.executable, "-m", "solver", *command], env=env, cwd=root)
            if proc.returncode:
                print(f"failed ({proc.returncode}): {' '.join(command)}", file=sys.stderr)
                return 1
        folders = [
            p for p in (Path(root) / "numba").iterdir() if p.is_dir() and p.name.startswith("kernels_")
        ]
        if len(folders) != 1:
            print(f"expected one cache folder of the kernels, found {folders}", file=sys.stderr)
            return 1
        files = sorted(p for p in folders[0].iterdir() if p.suffix in (".nbi", ".nbc"))
        cache.SHIPPED.mkdir(parents=True, exist_ok=True)
        for old in cache.SHIPPED.iterdir():
            old.unlink()
        for path in files:
            (cache.SHIPPED / path.name).write_bytes(path.read_bytes())
    import llvmlite.binding as ll
    import numba

    manifest = {
        "numba_version": numba.__version__,
        "python": f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}",
        "sources_stamp": cache.sources_stamp(),
        "triple": ll.get_process_triple(),
        "cpu_name": numba.config.CPU_NAME,
        "cpu_features": numba.config.CPU_FEATURES,
        "commands": [" ".join(c) for c in COMMANDS],
        "files": {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(cache.SHIPPED.iterdir())
        },
    }
    cache.SHIPPED_MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in cache.SHIPPED.iterdir())
    print(f"wrote {len(manifest['files'])} files ({size / 2**20:.1f} MiB) into {cache.SHIPPED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

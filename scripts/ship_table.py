"""(Re)write the table shipped with the package from a fresh build.

The package ships the default rule set's table (``solver/engine/shipped/yahtzee.npy`` and
``yahtzee.json``), so that a fresh install's first hint reads it instead of compiling the solver
and building it (see the README's Tables section).  This script builds the table in a temporary
folder -- never the user's tables folder nor the checkout's ``tables/`` -- and copies the two
files the build wrote (the manifest records the ``.npy``'s sha256, checked on every load).
Run it when the table's bytes change (a new format version, a rule-set description, the DP's
arithmetic): ``tests/test_shipped_table.py`` fails until then.

    python scripts/ship_table.py            # rebuild; rewrite the shipped files if the bytes differ
    python scripts/ship_table.py --check    # rebuild and compare, byte for byte (exit 1 if they differ)
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from solver.core.errors import TableError
from solver.core.fileio import atomic_write
from solver.core.rules import get_rules
from solver.engine.tables import build_table, load_shipped, shipped_paths, table_paths

#: the rule sets whose tables the package ships
SHIPPED = ("yahtzee",)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with a fresh build, write nothing")
    args = parser.parse_args()
    failures = 0
    for spec in SHIPPED:
        rules = get_rules(spec)
        with tempfile.TemporaryDirectory(prefix="ship-table-") as folder:
            build_table(rules, folder, progress=True)
            npy, manifest = (path.read_bytes() for path in table_paths(rules, folder))
        shipped_npy, manifest_path = shipped_paths(rules)
        if args.check:
            try:
                load_shipped(rules, light=True)  # every check a user's load makes
                same = shipped_npy.read_bytes() == npy
            except TableError as exc:
                print(f"{rules.id}: {exc}")
                same = False
            print(
                f"{rules.id}: the shipped table {'is' if same else 'is NOT'} the fresh build, byte for byte"
            )
            failures += not same
            continue
        if shipped_npy.is_file() and shipped_npy.read_bytes() == npy:
            if load_shipped(rules).manifest.legacy:  # every check a user's load makes
                atomic_write(manifest_path, lambda fh, data=manifest: fh.write(data))
                print(f"{rules.id}: the shipped table is already the fresh build's; its manifest rewritten")
                continue  # (in the store's form: the same values, files and checksums)
            print(f"{rules.id}: the shipped table is already the fresh build's, byte for byte: kept")
            continue
        for path, data in ((shipped_npy, npy), (manifest_path, manifest)):
            atomic_write(path, lambda fh, data=data: fh.write(data))
        table = load_shipped(rules)  # every check a user's load makes
        print(
            f"{rules.id}: wrote {shipped_npy} ({len(npy) / 2**20:.1f} MiB; empty card "
            f"{table.empty_card_value:.7f}) and {manifest_path.name}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

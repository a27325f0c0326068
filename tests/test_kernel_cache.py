"""numba's on-disk cache of the kernels is keyed by all the kernels' sources
(:mod:`solver.engine.kernels.cache`): a kernel that inlines a rule of another file is compiled
again once that file changes -- numba alone would load the stale machine code -- and is loaded
from the cache while nothing changes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# placement_values (kernels/options.py) inlines objective (kernels/rules.py)
CHILD = """
import json
import numpy as np
from solver.core.rules import get_rules
from solver.engine import dp, kernels

rules = get_rules("yahtzee+lower-only")
values = dp.kernel_values(np.zeros((1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)))
one = np.zeros(1, dtype=np.int64)
ev, scores = np.empty((1, rules.n_boxes)), np.empty((1, rules.n_boxes), dtype=np.int64)
kernels.placement_values(one, one, one, one + 251, values, dp.rule_arrays(rules), ev, scores, one.copy())
stats = kernels.placement_values.stats
print(json.dumps({"best": ev.max(), "hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values())}))
"""


def run_child(package: Path, cache: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(package), "NUMBA_CACHE_DIR": str(cache)}
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=package, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.subprocess
def test_editing_an_inlined_kernel_of_another_file_recompiles_its_callers(tmp_path):
    package = tmp_path / "src"
    shutil.copytree(
        ROOT / "solver", package / "solver", ignore=shutil.ignore_patterns("__pycache__", "static")
    )
    cache = tmp_path / "numba-cache"
    first = run_child(package, cache)
    assert first["misses"] == 1 and first["hits"] == 0, first  # compiled and saved
    again = run_child(package, cache)
    assert again == {**first, "hits": 1, "misses": 0}, again  # nothing changed: loaded
    rules = package / "solver" / "engine" / "kernels" / "rules.py"
    source = rules.read_text(encoding="utf-8")
    assert source.count("return points + next_value\n") == 1
    rules.write_text(source.replace("return points + next_value\n", "return points + next_value + 1.0\n"))
    edited = run_child(package, cache)
    assert edited["misses"] == 1 and edited["hits"] == 0, edited  # the caller compiled again
    assert edited["best"] == first["best"] + 1.0  # with the edited rule, not the stale one


def test_every_kernel_is_stamped_with_all_the_kernel_sources():
    """Each kernel's cache locator stamps it with the hash of every kernel source (the files of the
    package and engine/arrays.py), not its own file's; other functions keep numba's locators."""
    import hashlib

    from numba import njit

    from solver.engine import kernels
    from solver.engine.kernels import cache, games, rules, win

    names = sorted(p.name for p in cache.SOURCES)
    assert "arrays.py" in names and {"rules.py", "turn.py", "win.py", "cache.py"} <= set(names)
    digest = hashlib.sha256()
    for path in cache.SOURCES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for kernel in (kernels.turn_tables, games.play_table_games, rules.step, win.mixed_win_value):
        locator = kernel._cache._impl.locator
        assert type(locator) in cache.LOCATORS
        assert locator.get_source_stamp() == ("kernel sources", digest.hexdigest())

    @njit(cache=True)
    def elsewhere(x):  # a function of another file: numba's own stamp (this file's)
        return x

    assert type(elsewhere._cache._impl.locator) not in cache.LOCATORS

"""The numba cache of the kernels shipped with the package (``solver/engine/shipped/kernels/``,
:mod:`solver.engine.kernels.cache`): fresh for these sources, copied into the user's cache only
where it answers (the same numba, Python, kernel sources, target and bytes), merged with what
the user's cache holds, never loaded on another target nor after an edit of a kernel source."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from solver.engine import kernels  # noqa: F401 -- the portable target chosen, as any command does
from solver.engine.kernels import cache

ROOT = Path(__file__).resolve().parent.parent
PORTABLE = cache.portable_host()
SHIPPED_FOR = json.loads(cache.SHIPPED_MANIFEST.read_text(encoding="utf-8"))
#: the shipped kernels are for this numba and this Python (another compiles as before)
FOR_THIS_NUMBA = (SHIPPED_FOR["numba_version"], SHIPPED_FOR["python"]) == (
    numba.__version__,
    f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}",
)
needs_portable = pytest.mark.skipif(
    not (PORTABLE and FOR_THIS_NUMBA),
    reason="the host cannot run x86-64-v3 code, or the kernels were shipped for another numba or Python",
)


def shipped_entries() -> dict[str, dict]:
    """Each shipped index file's entries, by file name."""
    entries = {}
    for path in sorted(cache.SHIPPED.glob("*.nbi")):
        with open(path, "rb") as fh:
            assert pickle.load(fh) == numba.__version__
            stamp, overloads = pickle.loads(fh.read())
        entries[path.name] = overloads
    return entries


def index_of(path: Path) -> tuple:
    with open(path, "rb") as fh:
        version = pickle.load(fh)
        return (version, *pickle.loads(fh.read()))


@needs_portable
def test_the_shipped_kernels_are_fresh_for_these_sources():
    """What ``scripts/ship_kernels.py --check`` checks: rerun the script when this fails."""
    assert numba.config.CPU_NAME == cache.PORTABLE_CPU and numba.config.CPU_FEATURES == ""
    manifest = cache.shipped_manifest()
    assert manifest is not None, "the shipped kernels are stale: python scripts/ship_kernels.py"
    names = {p.name for p in cache.SHIPPED.iterdir()} - {cache.SHIPPED_MANIFEST.name}
    assert set(manifest["files"]) == names
    for overloads in shipped_entries().values():
        for key, data_name in overloads.items():
            assert key[1] == ("x86_64-unknown-linux-gnu", cache.PORTABLE_CPU, "")  # nothing native
            assert data_name in names
    kernels_shipped = {name.split("-")[0] for name in names if name.endswith(".nbi")}
    # the first commands' top-level kernels (issue 36): the value table, the games, the distribution
    assert {"dp.solve_blocks", "games.play_table_games", "outcomes.turn_outcomes", "triple.triple_games"} <= (
        kernels_shipped
    )


def test_the_portable_target_only_where_the_host_runs_it():
    full = cache.PORTABLE_FEATURES | {"avx512f"}
    assert cache.portable_host("x86_64-unknown-linux-gnu", full)
    assert not cache.portable_host("x86_64-unknown-linux-gnu", full - {"avx2"})
    assert not cache.portable_host("x86_64-unknown-linux-gnu", full - {"fma"})
    assert not cache.portable_host("x86_64-unknown-linux-gnu", frozenset())
    assert not cache.portable_host("aarch64-unknown-linux-gnu", full)


def test_a_target_of_the_users_own_is_kept(monkeypatch):
    monkeypatch.setattr(cache, "portable_host", lambda: True)
    mine = {"NUMBA_CPU_NAME": "generic"}
    assert not cache.choose_target(mine)
    assert mine == {"NUMBA_CPU_NAME": "generic"}
    features = {"NUMBA_CPU_FEATURES": "+avx2"}
    assert not cache.choose_target(features)
    assert features == {"NUMBA_CPU_FEATURES": "+avx2"}
    monkeypatch.setattr(cache, "portable_host", lambda: False)
    none = {}
    assert not cache.choose_target(none) and none == {}


@needs_portable
def test_seeding_an_empty_cache_copies_every_shipped_entry_once(tmp_path):
    added = cache.seed(tmp_path)
    entries = shipped_entries()
    assert added == sum(len(o) for o in entries.values()) > 0
    stamp = ("kernel sources", cache.sources_stamp())
    for name, overloads in entries.items():
        assert index_of(tmp_path / name) == (numba.__version__, stamp, overloads)
        for data_name in overloads.values():
            assert (tmp_path / data_name).read_bytes() == (cache.SHIPPED / data_name).read_bytes()
    assert cache.seed(tmp_path) == 0  # done once for these sources (a marker says so)
    assert list(tmp_path.glob("*.tmp.*")) == []


@needs_portable
def test_seeding_keeps_the_users_own_entries(tmp_path):
    """An index of the user's own (fresh) gets the shipped entries beside its own, its data file
    untouched; a stale one is replaced."""
    entries = shipped_entries()
    name = sorted(entries)[0]
    shipped_data = next(iter(entries[name].values()))
    mine = {("a signature", ("triple", "cpu", ""), ("code", "")): shipped_data}  # the same file name
    stamp = ("kernel sources", cache.sources_stamp())
    (tmp_path / name).write_bytes(pickle.dumps(numba.__version__) + pickle.dumps((stamp, mine)))
    (tmp_path / shipped_data).write_bytes(b"the user's own machine code")
    stale = sorted(entries)[1]
    (tmp_path / stale).write_bytes(pickle.dumps(numba.__version__) + pickle.dumps((("old",), mine)))
    assert cache.seed(tmp_path) == sum(len(o) for o in entries.values())
    version, _, merged = index_of(tmp_path / name)
    assert merged[next(iter(mine))] == shipped_data and len(merged) == len(entries[name]) + 1
    assert (tmp_path / shipped_data).read_bytes() == b"the user's own machine code"
    for key, data_name in entries[name].items():
        assert (tmp_path / merged[key]).read_bytes() == (cache.SHIPPED / data_name).read_bytes()
    assert index_of(tmp_path / stale)[2] == entries[stale]


@pytest.fixture
def shipped_copy(tmp_path, monkeypatch):
    """A copy of the shipped cache that the package reads instead of its own (to damage it)."""
    folder = tmp_path / "shipped"
    shutil.copytree(cache.SHIPPED, folder)
    monkeypatch.setattr(cache, "SHIPPED", folder)
    monkeypatch.setattr(cache, "SHIPPED_MANIFEST", folder / cache.SHIPPED_MANIFEST.name)
    return folder


@needs_portable
@pytest.mark.parametrize(
    "damage", ["data", "index", "manifest", "missing", "stamp", "numba", "python", "triple", "target"]
)
def test_nothing_is_seeded_from_a_shipped_cache_that_does_not_answer(
    shipped_copy, tmp_path, damage, monkeypatch
):
    target = tmp_path / "user"
    target.mkdir()
    manifest = json.loads(cache.SHIPPED_MANIFEST.read_text())
    if damage in ("data", "index"):
        path = next(
            p for p in sorted(shipped_copy.iterdir()) if p.suffix == (".nbc" if damage == "data" else ".nbi")
        )
        raw = bytearray(path.read_bytes())
        raw[len(raw) // 2] ^= 1
        path.write_bytes(bytes(raw))
    elif damage == "manifest":
        cache.SHIPPED_MANIFEST.write_text("{not json")
    elif damage == "missing":
        next(shipped_copy.glob("*.nbc")).unlink()
    elif damage == "stamp":  # a kernel source edited since the cache was shipped
        monkeypatch.setattr(cache, "sources_stamp", lambda: "0" * 64)
    elif damage in ("numba", "python", "triple"):  # shipped for another numba, Python or platform
        manifest[{"numba": "numba_version", "python": "python", "triple": "triple"}[damage]] = "0.0"
        cache.SHIPPED_MANIFEST.write_text(json.dumps(manifest))
    elif damage == "target":  # this process compiles for another CPU: the entries would not match
        monkeypatch.setattr(numba.config, "CPU_NAME", None)
    assert cache.seed(target) == 0
    assert list(target.glob("*.nb?")) == []


def test_seeding_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("YAHTZEE_SHIPPED_KERNELS", "0")
    assert cache.seed(tmp_path) == 0
    assert list(tmp_path.iterdir()) == []


# a small kernel compiled (or loaded) for its shipped signature in a fresh process
CHILD = """
import json, pickle, sys
from solver.engine import kernels
from solver.engine.kernels import cache, outcomes
with open(cache.SHIPPED / sys.argv[1], "rb") as fh:
    pickle.load(fh)
    (key, _), = pickle.loads(fh.read())[1].items()
outcomes.group_by_row.compile(key[0])
stats = outcomes.group_by_row.stats
print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values())}))
"""


def run_child(tmp_path: Path, package: Path = ROOT, **env) -> dict:
    index = next(p.name for p in cache.SHIPPED.glob("outcomes.group_by_row-*.nbi"))
    tmp_path.mkdir(parents=True, exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CPU", "YAHTZEE_SHIPPED"))}
    environ.pop("NUMBA_DISABLE_JIT", None)
    environ |= {"PYTHONPATH": str(package), "NUMBA_CACHE_DIR": str(tmp_path / "numba"), **env}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, index],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@needs_portable
@pytest.mark.subprocess
def test_a_fresh_cache_loads_the_shipped_kernel_and_never_on_another_target(tmp_path):
    assert run_child(tmp_path / "fresh") == {"hits": 1, "misses": 0}  # seeded, then loaded
    # the same cache, the shipped entries in it: another target compiles its own
    assert run_child(tmp_path / "fresh", NUMBA_CPU_NAME="generic") == {"hits": 0, "misses": 1}
    assert run_child(tmp_path / "off", YAHTZEE_SHIPPED_KERNELS="0") == {"hits": 0, "misses": 1}


@needs_portable
@pytest.mark.subprocess
def test_an_edited_kernel_source_compiles_instead_of_loading_the_shipped_code(tmp_path):
    package = tmp_path / "src"
    shutil.copytree(
        ROOT / "solver", package / "solver", ignore=shutil.ignore_patterns("__pycache__", "static")
    )
    rules = package / "solver" / "engine" / "kernels" / "rules.py"
    rules.write_text(rules.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert run_child(tmp_path / "edited", package) == {"hits": 0, "misses": 1}

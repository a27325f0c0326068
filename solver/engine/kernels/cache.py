"""numba's on-disk cache, guarded for a package of kernels.

numba keys a cached kernel by its own source file only: when a kernel in one file calls (or
inlines) a kernel of another, an edit of the callee leaves the caller's cached machine code as
it was -- stale, and silently wrong.  Here every kernel of the package is stamped instead with
one hash of all the kernels' sources (every file of the package and :mod:`solver.engine.arrays`,
whose constants and named tuples are compiled in): an edit of any of them makes numba compile
every kernel again on its next call, and nothing else changes (the cache's folders, its file
names, its other keys).

:func:`install` puts the locators first in numba's list, each answering only for functions of
this package (numba asks the next one for any other function); the package installs them before
its first kernel is defined.

The package may also ship a cache of its kernels (``solver/engine/shipped/kernels/``, written by
``scripts/ship_kernels.py``) so that a fresh install's first command loads them instead of
compiling them (7 to 21 CPU seconds each).  Machine code is only portable to CPUs that have its
instructions, so the shipped kernels are compiled for one fixed x86-64 level,
:data:`PORTABLE_CPU` (AVX2 and FMA, no AVX-512), and :func:`choose_target` makes numba compile
for that same level on every host that has all of its instructions (:data:`PORTABLE_FEATURES`,
as LLVM reads them from the CPU and the OS) -- then numba's own key of a cached kernel (the
signature, the target triple, the CPU name and features, the bytecode) matches the shipped
one's.  On any other host (no AVX2, another architecture, a user's own ``NUMBA_CPU_NAME``)
nothing changes and the shipped entries never match: numba compiles.  :func:`seed` copies the
shipped entries into the user's numba cache (never loaded from the package folder, never
written there), only where they are fresh: the same numba version, the same Python, the same
stamp of the kernel sources, each file's sha256 as the shipped manifest records it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import sys
import uuid
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent
#: what the kernels are compiled from: the package's files and the arrays module they read
SOURCES = (*sorted(PACKAGE.glob("*.py")), PACKAGE.parent / "arrays.py")


@functools.cache
def sources_stamp() -> str:
    """The sha256 of every kernel source (name and bytes, in a fixed order), once a process."""
    digest = hashlib.sha256()
    for path in SOURCES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class _KernelSources:
    """A locator for the package's kernels: the stamp of all the kernels' sources, not the file's."""

    def get_source_stamp(self):
        return ("kernel sources", sources_stamp())

    @classmethod
    def from_function(cls, py_func, py_file):
        if Path(py_file).resolve().parent != PACKAGE:
            return None  # not a kernel of the package: numba's own locators
        return super().from_function(py_func, py_file)


def _numba_locators() -> list[type]:
    """numba's file-backed locators, in its order (the names differ across numba versions)."""
    found = []
    for name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"):
        cls = getattr(caching, name, None) or getattr(caching, "_" + name, None)
        if cls is not None:
            found.append(cls)
    return found


LOCATORS = tuple(
    type(f"Kernel{c.__name__.lstrip('_')}", (_KernelSources, c), {"__module__": __name__})
    for c in _numba_locators()
)


def install() -> None:
    """Put :data:`LOCATORS` first in numba's list of cache locators (once)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    classes = impl._locator_classes
    for cls in reversed(LOCATORS):
        if cls not in classes:
            classes.insert(0, cls)


# --- the portable target and the shipped cache --------------------------------------------------
#: the x86-64 level of the shipped kernels (LLVM's name: Haswell's instructions, AVX2 and FMA)
PORTABLE_CPU = "x86-64-v3"
#: what a host must have to run code for :data:`PORTABLE_CPU` (LLVM's feature names; ``avx`` is
#: reported only where the OS saves the AVX registers)
PORTABLE_FEATURES = frozenset(
    "avx avx2 bmi bmi2 cmov cx16 cx8 f16c fma fxsr lzcnt mmx movbe popcnt sahf sse sse2 sse3 "
    "sse4.1 sse4.2 ssse3 xsave".split()
)
#: the shipped cache: numba's files as ``scripts/ship_kernels.py`` compiled them, and a manifest
SHIPPED = PACKAGE.parent / "shipped" / "kernels"
SHIPPED_MANIFEST = SHIPPED / "manifest.json"


def host_features() -> frozenset[str]:
    """The instructions the host's CPU and OS offer, as LLVM names them (empty if unknown)."""
    try:
        import llvmlite.binding as ll

        return frozenset(name for name, on in ll.get_host_cpu_features().items() if on)
    except Exception:  # noqa: BLE001 -- no feature list: the host is not taken for portable
        return frozenset()


def portable_host(triple: str | None = None, features: frozenset[str] | None = None) -> bool:
    """Whether code compiled for :data:`PORTABLE_CPU` runs here: an x86-64 process on a CPU with
    every one of :data:`PORTABLE_FEATURES`."""
    if triple is None:
        import llvmlite.binding as ll

        triple = ll.get_process_triple()
    if not triple.startswith("x86_64"):
        return False
    return PORTABLE_FEATURES <= (host_features() if features is None else features)


def choose_target(environ=os.environ) -> bool:
    """Compile for :data:`PORTABLE_CPU` (``NUMBA_CPU_NAME``, ``NUMBA_CPU_FEATURES`` empty: the
    level's own instructions) when the host runs it and the user chose no target of their own;
    numba's configuration is read again.  Returns whether the portable target is in use."""
    if "NUMBA_CPU_NAME" in environ or "NUMBA_CPU_FEATURES" in environ:
        return environ.get("NUMBA_CPU_NAME") == PORTABLE_CPU and environ.get("NUMBA_CPU_FEATURES") == ""
    if not portable_host():
        return False
    environ["NUMBA_CPU_NAME"], environ["NUMBA_CPU_FEATURES"] = PORTABLE_CPU, ""
    import numba

    numba.config.reload_config()
    return True


def _probe() -> None:
    """A function of this package's folder: asks the locators where its kernels are cached."""


def user_cache_dir() -> Path | None:
    """Where numba caches this package's kernels (the first locator that answers, as numba
    chooses: ``NUMBA_CACHE_DIR``, the package's ``__pycache__`` if writable, the user's cache)."""
    for cls in LOCATORS:
        try:
            locator = cls.from_function(_probe, str(PACKAGE / "__init__.py"))
        except OSError:
            locator = None
        if locator is not None:
            return Path(locator.get_cache_path())
    return None


def shipped_manifest() -> dict | None:
    """The shipped cache's manifest when it answers for this process -- the same numba, Python,
    kernel sources and target -- else None (nothing shipped, or stale: numba compiles)."""
    import llvmlite.binding as ll
    import numba

    try:
        manifest = json.loads(SHIPPED_MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    want = {
        "numba_version": numba.__version__,
        "python": f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}",
        "sources_stamp": sources_stamp(),
        "triple": ll.get_process_triple(),
        "cpu_name": numba.config.CPU_NAME,
        "cpu_features": numba.config.CPU_FEATURES,
    }
    if not isinstance(manifest, dict) or any(manifest.get(k) != v for k, v in want.items()):
        return None
    files = manifest.get("files")
    return manifest if isinstance(files, dict) and files else None


def _read_index(path: Path) -> dict | None:
    """The entries of numba's index file at ``path`` if it is fresh (this numba, these sources)."""
    import numba

    try:
        with open(path, "rb") as fh:
            version = pickle.load(fh)
            if version != numba.__version__:
                return None
            stamp, overloads = pickle.loads(fh.read())
    except FileNotFoundError:
        return None
    return overloads if stamp == _KernelSources().get_source_stamp() else None


def _write(path: Path, data: bytes) -> None:
    """``data`` into ``path`` atomically (a reader sees the old file or the new, never half)."""
    tmp = path.with_name(f"{path.name}.tmp.{uuid.uuid4().hex[:16]}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def seed(target: Path | None = None) -> int:
    """Add the shipped cache's entries to the user's numba cache (``target``, by default
    :func:`user_cache_dir`) where they are missing and :func:`shipped_manifest` answers; returns
    how many were added.  Once done for these sources a marker file says so (one ``stat`` a
    process afterwards).  Anything wrong -- a file that does not match its sha256, a folder that
    cannot be written, an index that cannot be read -- adds nothing more: numba compiles."""
    if os.environ.get("YAHTZEE_SHIPPED_KERNELS") == "0":  # compile everything (benchmarks, the ship script)
        return 0
    manifest = shipped_manifest()
    target = target if target is not None else user_cache_dir()
    if manifest is None or target is None:
        return 0
    marker = target / f"shipped-{sources_stamp()[:16]}-{manifest['cpu_name']}.done"
    if marker.exists():
        return 0
    try:
        blobs = {}
        for name, sha in manifest["files"].items():
            if Path(name).name != name:
                return 0
            blobs[name] = (SHIPPED / name).read_bytes()
            if hashlib.sha256(blobs[name]).hexdigest() != sha:
                return 0
        from numba.core.serialize import dumps

        added = 0
        for index_name in sorted(n for n in blobs if n.endswith(".nbi")):
            with open(SHIPPED / index_name, "rb") as fh:
                pickle.load(fh)
                _, shipped = pickle.loads(fh.read())
            mine = _read_index(target / index_name)
            if mine is None:  # none, or stale: the shipped files as they are
                for data_name in shipped.values():
                    _write(target / data_name, blobs[data_name])
                _write(target / index_name, blobs[index_name])
                added += len(shipped)
                continue
            merged, used = dict(mine), set(mine.values())
            for key, data_name in shipped.items():
                if key in merged:
                    continue
                name, i = data_name, 0
                while name in used:  # numba numbers its own data files from 1: shipped ones apart
                    i += 1
                    name = data_name.replace(".nbc", f".shipped{i}.nbc")
                _write(target / name, blobs[data_name])
                merged[key], used = name, used | {name}
                added += 1
            if len(merged) > len(mine):
                import numba

                stamp = _KernelSources().get_source_stamp()
                _write(
                    target / index_name,
                    pickle.dumps(numba.__version__, protocol=-1) + dumps((stamp, merged)),
                )
        marker.touch()
        return added
    except Exception:  # noqa: BLE001 -- whatever went wrong, every command still runs: numba compiles
        return 0

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
"""

from __future__ import annotations

import functools
import hashlib
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

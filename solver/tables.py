"""Table files: one memory-mappable ``<rules>.npy`` of state values plus ``<rules>.json``.

Where tables live, first match wins:

1. an explicit directory (``--tables DIR`` on the command line, ``tables_dir=`` in Python);
2. the ``YAHTZEE_TABLES`` environment variable;
3. ``tables/`` of a source checkout (the package sits next to ``pyproject.toml``);
4. the user cache: ``$XDG_CACHE_HOME/yahtzee-solver/tables`` (``~/.cache/...``), never site-packages.

Files are written atomically (temporary file in the same folder, fsync, rename),
so an interrupted build leaves the previous table or none, never half of one.
On load the manifest is checked against the rule set, the array's shape and
dtype, and its sha256; any mismatch raises :class:`TableError` saying how to rebuild.

A table's values are a read-only numpy memmap, or with ``light=True`` a
:class:`ValueFile`: the same file read through :mod:`mmap` as Python floats, for
a single hint, which then never imports numpy (about half of its start-up).
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import MissingTableError, TableError
from .rules import RuleSet, get_rules

if TYPE_CHECKING:
    import numpy as np

FORMAT_VERSION = 2  # 2: rule sets as base + modifiers (canonical ids, no upper totals without a bonus)
ENV_VAR = "YAHTZEE_TABLES"
_PACKAGE_DIR = Path(__file__).resolve().parent


def package_version() -> str:
    from . import __version__

    return __version__


def default_tables_dir() -> Path:
    """The folder used when none is given (see the module docstring for the order)."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    checkout = _PACKAGE_DIR.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "tables").is_dir():
        return checkout / "tables"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "yahtzee-solver" / "tables"


def resolve_dir(tables_dir: str | os.PathLike | None) -> Path:
    return Path(tables_dir).expanduser() if tables_dir else default_tables_dir()


def table_paths(rules: RuleSet, tables_dir: str | os.PathLike | None = None) -> tuple[Path, Path]:
    folder = resolve_dir(tables_dir)
    return folder / f"{rules.id}.npy", folder / f"{rules.id}.json"


def built_rule_sets(tables_dir: str | os.PathLike | None = None) -> list[RuleSet]:
    """The rule sets with a table file in the folder (named by canonical spec), in name order."""
    from .errors import UsageError

    folder = resolve_dir(tables_dir)
    found = []
    for npy in sorted(folder.glob("*.npy")) if folder.is_dir() else []:
        try:
            rules = get_rules(npy.stem)
        except UsageError:
            continue  # not a table of ours
        if rules.id == npy.stem:
            found.append(rules)
    return found


def _rebuild_hint(rules: RuleSet, folder: Path) -> str:
    return f"rebuild it with: yahtzee tables build --rules {rules.id} --force --tables {folder}"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class ValueFile:
    """A table's ``.npy`` file read through :mod:`mmap`, without numpy.

    ``values[mask, u, f]`` is a Python float, the same as
    ``float(np.load(path, mmap_mode="r")[mask, u, f])``; only whole-index lookups are
    supported (``np.asarray(values)`` gives the numpy array, without a copy).  ``shape``
    and ``dtype`` (numpy's name for it) are read from the header as :func:`numpy.load`
    reads them; lookups need a 3-d float64 array.
    """

    __slots__ = ("path", "shape", "dtype", "descr", "fortran_order", "_mmap", "_offset", "_data", "_strides")

    _MAGIC = b"\x93NUMPY"
    _HEADER = re.compile(
        r"\{\s*(?:(?:'descr':\s*'(?P<descr>[^']*)'|'fortran_order':\s*(?P<fortran>True|False)"
        r"|'shape':\s*\((?P<shape>[0-9,\s]*)\))\s*,?\s*){3}\}\s*"
    )
    _DESCR = re.compile(r"(?P<order>[<>|=]?)(?P<kind>[fiub])(?P<size>[1248])")
    _KINDS = {"f": "float", "i": "int", "u": "uint"}
    _NATIVE = ("", "|", "=", "<" if sys.byteorder == "little" else ">")

    @classmethod
    def open(cls, path: str | os.PathLike) -> ValueFile:
        """Read the header and map the data; ``ValueError`` if the file is corrupt or truncated."""
        path = Path(path)
        with open(path, "rb") as fh:
            head = fh.read(12)
            if len(head) < 10 or not head.startswith(cls._MAGIC):
                raise ValueError("not a .npy file: no magic string")
            if head[6] == 1:
                start, length = 10, int.from_bytes(head[8:10], "little")
            elif head[6] in (2, 3) and len(head) == 12:
                start, length = 12, int.from_bytes(head[8:12], "little")
            else:
                raise ValueError(f"unsupported .npy format version {head[6]}.{head[7]}")
            fh.seek(start)
            raw = fh.read(length)
            header = raw.decode("utf-8" if head[6] == 3 else "latin1")
            match = cls._HEADER.fullmatch(header) if len(raw) == length else None
            kind = cls._DESCR.fullmatch(match["descr"]) if match and match["descr"] is not None else None
            if kind is None or match["fortran"] is None or match["shape"] is None:
                raise ValueError(f"unreadable .npy header {header.strip()!r}")
            shape = tuple(int(n) for n in match["shape"].replace(",", " ").split())
            offset, size = start + length, int(kind["size"])
            for n in shape:
                size *= n
            actual = os.fstat(fh.fileno()).st_size
            if actual != offset + size:  # np.load only notices a short file; save_table writes it exactly
                raise ValueError(
                    f"{max(actual - offset, 0)} bytes of data, {size} expected for shape {shape}"
                )
            buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        self = object.__new__(cls)
        self.path, self.shape, self.descr = path, shape, match["descr"]
        self.fortran_order = match["fortran"] == "True"
        if kind["kind"] == "b":
            self.dtype = "bool"
        elif kind["order"] in cls._NATIVE or kind["size"] == "1":
            self.dtype = f"{cls._KINDS[kind['kind']]}{8 * int(kind['size'])}"
        else:
            self.dtype = self.descr  # as numpy names a non-native byte order: '>f8'
        self._mmap, self._offset = buffer, offset
        self._data = memoryview(buffer)[offset:].cast("d") if self.dtype == "float64" else None
        if len(shape) == 3:
            a, b, c = shape
            self._strides = (1, a, a * b) if self.fortran_order else (b * c, c, 1)
        else:
            self._strides = None
        return self

    def __getitem__(self, index: tuple[int, int, int]) -> float:
        i, j, k = index
        a, b, c = self.shape
        if not (-a <= i < a and -b <= j < b and -c <= k < c):
            raise IndexError(f"index {index} is out of bounds for shape {self.shape}")
        s0, s1, s2 = self._strides
        return self._data[i % a * s0 + j % b * s1 + k % c * s2]

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        order = "F" if self.fortran_order else "C"
        array = np.ndarray(self.shape, self.descr, buffer=self._mmap, offset=self._offset, order=order)
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        return array.copy() if copy else array

    def __repr__(self) -> str:
        return f"ValueFile({str(self.path)!r}, shape={self.shape}, dtype={self.dtype})"


@dataclass(frozen=True)
class Table:
    """A loaded value table: ``values[mask, u, f]`` (see :mod:`solver.dp`) and its manifest.

    ``values`` is a read-only numpy memmap, or a :class:`ValueFile` when loaded with ``light=True``.
    """

    rules: RuleSet
    values: np.ndarray | ValueFile
    manifest: dict
    path: Path

    @property
    def empty_card_value(self) -> float:
        return float(self.values[0, 0, 0])

    def value(self, mask: int, upper: int, flag: int) -> float:
        return float(self.values[mask, upper, flag])


def expected_shape(rules: RuleSet) -> tuple[int, int, int]:
    return (1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)


def load_table(
    rules: str | RuleSet | None = None,
    tables_dir: str | os.PathLike | None = None,
    *,
    check_hash: bool = True,
    light: bool = False,
) -> Table:
    """Open the table of ``rules`` (memory-mapped, read-only) after checking it.

    ``light``: the values are a :class:`ValueFile` (plain Python floats, numpy not
    imported) rather than a numpy memmap -- for a few lookups, such as one hint.
    Raises :class:`MissingTableError` when it is not built and :class:`TableError`
    when it is corrupt, truncated or built for different rules.
    """
    rules = get_rules(rules)
    npy, manifest_path = table_paths(rules, tables_dir)
    folder = npy.parent
    if not npy.exists() or not manifest_path.exists():
        raise MissingTableError(
            f"no table for {rules.id} in {folder}; build it with: "
            f"yahtzee tables build --rules {rules.id} --tables {folder}"
        )
    try:
        manifest = json.loads(manifest_path.read_text())
        if not isinstance(manifest, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        raise TableError(
            f"manifest {manifest_path} is unreadable ({exc}); {_rebuild_hint(rules, folder)}"
        ) from None
    problems = []
    if manifest.get("format_version") != FORMAT_VERSION:
        problems.append(f"format version {manifest.get('format_version')!r}, expected {FORMAT_VERSION}")
    if manifest.get("rules") != rules.describe():
        built_for = manifest.get("rules")
        built_id = built_for.get("id", "?") if isinstance(built_for, dict) else "?"
        problems.append(f"built for different rules ({built_id})")
    if check_hash and manifest.get("sha256") != sha256_file(npy):
        problems.append("sha256 does not match (corrupt or modified file)")
    if problems:
        raise TableError(
            f"table {npy} does not match its manifest: {'; '.join(problems)}; {_rebuild_hint(rules, folder)}"
        )
    try:
        if light:
            values = ValueFile.open(npy)
        else:
            import numpy as np

            values = np.load(npy, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise TableError(
            f"table {npy} is corrupt or truncated ({exc}); {_rebuild_hint(rules, folder)}"
        ) from None
    if values.shape != expected_shape(rules) or str(values.dtype) != "float64":
        raise TableError(
            f"table {npy} has shape {values.shape} {values.dtype}, expected {expected_shape(rules)} float64; "
            f"{_rebuild_hint(rules, folder)}"
        )
    return Table(rules, values, manifest, npy)


def save_table(
    rules: RuleSet, values: np.ndarray, tables_dir=None, *, build_seconds: float, cpu_seconds: float
) -> Table:
    """Write ``values`` and its manifest atomically; returns the loaded table."""
    import platform

    import numba
    import numpy as np

    from .fileio import atomic_write, atomic_write_text

    npy, manifest_path = table_paths(rules, tables_dir)
    try:
        atomic_write(npy, lambda fh: np.save(fh, values, allow_pickle=False))
    except OSError as exc:
        raise TableError(f"cannot write the table {npy}: {exc.strerror or exc}") from None
    manifest = {
        "format_version": FORMAT_VERSION,
        "rules": rules.describe(),
        "shape": list(values.shape),
        "dtype": str(values.dtype),
        "layout": "values[filled_mask, min(upper_total, threshold), yahtzee_holds_50]; NaN = unreachable",
        "sha256": sha256_file(npy),
        "empty_card_value": float(values[0, 0, 0]),
        "reference_value": rules.reference_value,
        "build_seconds": round(build_seconds, 3),
        "build_cpu_seconds": round(cpu_seconds, 3),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "package_version": package_version(),
        "numpy_version": np.__version__,
        "numba_version": numba.__version__,
        "python_version": platform.python_version(),
    }
    try:
        atomic_write_text(manifest_path, json.dumps(manifest, indent=2) + "\n")
    except OSError as exc:
        raise TableError(f"cannot write the manifest {manifest_path}: {exc.strerror or exc}") from None
    return load_table(rules, tables_dir, check_hash=False)  # the sha256 above was read back from disk


def _check_writable(folder: Path) -> None:
    """Fail before a build, not after it, when the table folder cannot be written."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise TableError(
            f"cannot write tables to {folder}: {exc.strerror or exc} (choose another with --tables)"
        ) from None


def build_table(
    rules: str | RuleSet | None = None,
    tables_dir=None,
    *,
    progress: bool = True,
    threads: int | None = None,
) -> Table:
    """Solve ``rules`` and save its table (tqdm progress bar on stderr when ``progress``).

    The recorded build time excludes numba's one-time compilation of the kernels.
    """
    import sys
    import threading

    from tqdm import tqdm

    from . import dp

    rules = get_rules(rules)
    _check_writable(table_paths(rules, tables_dir)[0].parent)
    n_masks = sum(len(level) for level in dp.masks_by_level(rules))
    notice = threading.Timer(
        1.0, lambda: print("compiling the solver (first run only; cached afterwards) ...", file=sys.stderr)
    )
    if progress:
        notice.start()
    try:
        dp.load_kernels(rules)
    finally:
        notice.cancel()
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    with tqdm(
        total=n_masks,
        desc=f"building {rules.id}",
        unit="mask",
        disable=not progress,
        leave=False,
        dynamic_ncols=True,
    ) as bar:
        values = dp.solve(rules, progress=bar.update, threads=threads)
    wall, cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
    return save_table(rules, values, tables_dir, build_seconds=wall, cpu_seconds=cpu)


def get_table(
    rules=None,
    tables_dir=None,
    *,
    build_if_missing: bool = False,
    progress: bool = True,
    light: bool = False,
) -> Table:
    """Load a table, building it first when missing and ``build_if_missing``.

    ``light``: the values without numpy, see :func:`load_table`.
    """
    try:
        return load_table(rules, tables_dir, light=light)
    except MissingTableError:
        if not build_if_missing:
            raise
    table = build_table(rules, tables_dir, progress=progress)
    return load_table(rules, tables_dir, light=True, check_hash=False) if light else table


def verify_table(rules: str | RuleSet, tables_dir=None, tolerance: float = 1e-6) -> list[str]:
    """Problems with a built table (empty list when it checks out)."""
    rules = get_rules(rules)
    try:
        table = load_table(rules, tables_dir)
    except TableError as exc:
        return [str(exc)]
    problems = []
    value = table.empty_card_value
    if table.manifest.get("empty_card_value") != value:
        problems.append(
            f"empty-card value {value} differs from the manifest's {table.manifest.get('empty_card_value')}"
        )
    if rules.reference_value is not None and abs(value - rules.reference_value) > tolerance:
        problems.append(
            f"empty-card value {value:.7f} differs from the reference {rules.reference_value:.7f}"
        )
    return problems

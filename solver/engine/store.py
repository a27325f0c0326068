"""The table store: where every kind of table lives, how its files are named, written, read,
checked and found stale -- one manifest schema, one loader, one stale rule, one missing-table error.

Three kinds of table (:data:`KINDS`), each a few ``.npy`` arrays and one JSON manifest in a
tables folder, named by the rule set's canonical id:

* ``values``: the expected-score table, ``<id>.npy`` (float64, dense: :mod:`solver.engine.tables`);
* ``target``: ``<id>.target.npy`` (float32 rows) and ``<id>.target-index.npy`` (int64), the
  probabilities of reaching each target (:mod:`solver.engine.target`);
* ``opponent``: ``<id>.opponent.npy`` and ``<id>.opponent-index.npy``, the opponent model (the
  points still to come under expected-score play: :mod:`solver.engine.opponent`), solved from a
  value table and kept as a cache beside the target table.

The manifest (format :data:`FORMAT_VERSION`)::

    {"format_version": 3, "kind": "target", "rules": {...the rule set's describe()...},
     "arrays": {"values": {"file": "<id>.target.npy", "dtype": "float32", "shape": [n], "sha256": "..."},
                "index": {"file": "<id>.target-index.npy", "dtype": "int64", "shape": [...], "sha256": "..."}},
     ...the kind's facts: build times, t_max, check values...}

The manifests written before it (a value table's format 2 with ``sha256``/``shape``/``dtype``, a
target table's format 2 with ``values_sha256``/``index_sha256``, an opponent model's format 1)
are read as the same :class:`Manifest` (:data:`Kind.legacy`): tables built then load as they
are, without a rebuild.

Loading (:func:`open_files`, the same for every kind and both readers): every file a regular
file (never a FIFO, a device or a folder: no hang), the manifest a small JSON object, not stale
(:func:`stale_reasons`), each array's entry as the kind wants it, the checksums (those the kind
checks on every load; all with ``check_hash``), each ``.npy`` header exactly the manifest's
dtype and shape, each file exactly that long; then the kind's own check of the values (a
Bellman step on states drawn afresh: :func:`solver.engine.tables.check_sampled_bellman`,
:func:`solver.engine.target.check_sampled_target`, :func:`solver.engine.opponent.means_problem`).
A missing table is a :class:`~solver.core.errors.MissingTableError` carrying the rule set, the
kind and the folder; anything else wrong a :class:`~solver.core.errors.TableError` with the fix
(rebuild, replace, reinstall) for a surface to word -- the store names no command.

Files are written atomically (:func:`solver.core.fileio.atomic_write`): an interrupted build
leaves the previous table or none, never half of one.  Arrays are read through :class:`ValueFile`
(:mod:`mmap`, no numpy: a single hint never imports it) and, for the kernels, as numpy views of
the same map.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.bounded import clipped, shown
from ..core.errors import MissingTableError, TableError, UsageError, out_of_memory
from ..core.fileio import NotRegularFileError, atomic_write_text, file_kind, json_depth_ok, open_regular

if TYPE_CHECKING:
    from ..core.rules import RuleSet

#: 3: one schema for every kind (``kind``, ``arrays`` with each file's dtype, shape and sha256)
FORMAT_VERSION = 3
ENV_VAR = "YAHTZEE_TABLES"
_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # solver/
MAX_MANIFEST_BYTES = 1 << 20  # a manifest is about 1 KiB (a target table's, with its check values, 30)
MAX_JSON_DEPTH = 32  # a manifest nests 4 deep


# --- where tables live ---------------------------------------------------------------------------
def default_tables_dir() -> Path:
    """The folder used when none is given, first match wins: ``$YAHTZEE_TABLES``; ``tables/`` of a
    source checkout (the package next to ``pyproject.toml``); the user cache
    (``$XDG_CACHE_HOME/yahtzee-solver/tables``, ``~/.cache/...``), never site-packages."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    checkout = _PACKAGE_DIR.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "tables").is_dir():
        return checkout / "tables"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "yahtzee-solver" / "tables"


def resolve_dir(tables_dir: str | os.PathLike | None) -> Path:
    """The tables folder (``tables_dir``, else :func:`default_tables_dir`); :class:`UsageError`
    when the path exists and is not a folder."""
    folder = Path(tables_dir).expanduser() if tables_dir else default_tables_dir()
    if folder.exists() and not folder.is_dir():
        if tables_dir:
            source = "the tables folder"
        else:
            source = f"${ENV_VAR}" if os.environ.get(ENV_VAR) else "the default tables path"
        raise UsageError(f"{source} names {folder}, which is not a folder")
    return folder


# --- the kinds of table --------------------------------------------------------------------------
@dataclass(frozen=True)
class ArraySpec:
    """One array file of a kind of table: ``name`` (its key in the manifest's ``arrays``), the
    file name's ``suffix`` after the stem, ``dtype`` (numpy's name) and ``descr`` (the ``.npy``
    header's), ``hashed`` (its sha256 checked on every load; the others only with
    ``check_hash``: a target table's 500 MB of values) and ``shape`` (the rule set's fixed
    shape, or None: one dimension, as long as the manifest says)."""

    name: str
    suffix: str
    dtype: str
    descr: str
    hashed: bool
    shape: Callable[[RuleSet], tuple[int, ...]] | None = None


def value_shape(rules: RuleSet) -> tuple[int, int, int]:
    """``(2**n_boxes, upper_cap + 1, n_flags)``: a value table's shape, one value per state."""
    return (1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)


def stored_value_shape(rules: RuleSet) -> tuple[int, ...]:
    """The shape of a value table's file: :func:`value_shape`, or for a packed table (six dice,
    :mod:`solver.engine.packed`) one value per state the DP computes."""
    from .packed import is_packed, packed_length

    return (packed_length(rules),) if is_packed(rules) else value_shape(rules)


def index_shape(rules: RuleSet) -> tuple[int, int, int, int]:
    """A ragged table's index: three integers per state (see its kind's module)."""
    return (*value_shape(rules), 3)


@dataclass(frozen=True)
class Kind:
    """A kind of table: ``name`` (the manifest's ``kind``), the files' ``stem`` after the rule
    set's id, ``title`` (how messages name it), its ``arrays`` (the first one names the table
    in messages), ``legacy`` (the format version of the manifests written before
    :data:`FORMAT_VERSION`, read too) and ``retired`` (older formats, refused with a note)."""

    name: str
    stem: str
    title: str
    arrays: tuple[ArraySpec, ...]
    legacy: int
    retired: Mapping[int, str] = field(default_factory=dict)

    def paths(self, rules: RuleSet, folder: str | os.PathLike) -> tuple[Path, ...]:
        """The files of this kind's table of ``rules`` in ``folder``: each array's, then the
        manifest's (never :meth:`Path.with_suffix`: the rule set's id may hold a dot)."""
        folder = Path(folder)
        stem = f"{rules.id}{self.stem}"
        return (*(folder / f"{stem}{a.suffix}" for a in self.arrays), folder / f"{stem}.json")


VALUES = Kind(
    "values",
    "",
    "table",
    (ArraySpec("values", ".npy", "float64", "<f8", hashed=False, shape=stored_value_shape),),
    2,
)
TARGET = Kind(
    "target",
    ".target",
    "target table",
    (
        ArraySpec("values", ".npy", "float32", "<f4", hashed=False),
        ArraySpec("index", "-index.npy", "int64", "<i8", hashed=True, shape=index_shape),
    ),
    2,
    {1: "this version reads format 2 and later: float32, half the size"},
)
OPPONENT = Kind(
    "opponent",
    ".opponent",
    "opponent model",
    (
        ArraySpec("values", ".npy", "float32", "<f4", hashed=True),
        ArraySpec("index", "-index.npy", "int64", "<i8", hashed=True, shape=index_shape),
    ),
    1,
)
#: every kind of table, by name
KINDS = {kind.name: kind for kind in (VALUES, TARGET, OPPONENT)}


def kind_of(name: str) -> Kind:
    """The :class:`Kind` named ``name`` (a key of :data:`KINDS`)."""
    return KINDS[name]


# --- the manifest ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ArrayEntry:
    """A manifest's record of one array file: its ``file`` name, ``dtype``, ``shape`` and
    ``sha256`` as written (None where a manifest of an older form did not record it)."""

    file: object = None
    dtype: object = None
    shape: object = None
    sha256: object = None

    def to_json(self) -> dict:
        return {"file": self.file, "dtype": self.dtype, "shape": self.shape, "sha256": self.sha256}


_HEAD = ("format_version", "kind", "rules", "arrays")


@dataclass(frozen=True)
class Manifest:
    """A table's manifest, of any form the store reads: ``format_version``, ``kind`` and
    ``rules`` as written (checked by :func:`stale_reasons`), ``arrays`` (an :class:`ArrayEntry`
    per array of the kind, by name) and the kind's other ``facts`` (build times, ``t_max``,
    check values ...), which ``manifest[key]`` and ``manifest.get(key)`` read."""

    format_version: object
    kind: object
    rules: object
    arrays: Mapping[str, ArrayEntry]
    facts: Mapping[str, object]
    legacy: bool = False  # of the form before the store's (its entries name no files)

    @classmethod
    def parse(cls, data: dict, kind: Kind) -> Manifest:
        """``data`` (a manifest's JSON object) as the manifest of a table of ``kind``: the store's
        form (``arrays``) or, without ``arrays``, the kind's form before it (:data:`Kind.legacy`).
        Never raises: what does not fit stays as written, for :func:`stale_reasons` to name."""
        if "arrays" in data:
            raw = data["arrays"] if isinstance(data["arrays"], dict) else {}
            arrays = {}
            for spec in kind.arrays:
                entry = raw.get(spec.name)
                entry = entry if isinstance(entry, dict) else {}
                arrays[spec.name] = ArrayEntry(
                    entry.get("file"), entry.get("dtype"), entry.get("shape"), entry.get("sha256")
                )
            facts = {k: v for k, v in data.items() if k not in _HEAD}
            return cls(data.get("format_version"), data.get("kind"), data.get("rules"), arrays, facts)
        # the form before: a kind's files recorded by keys of their own, no file names
        if kind is VALUES:  # format 2: the one array's keys at the top
            arrays = {"values": ArrayEntry(None, data.get("dtype"), data.get("shape"), data.get("sha256"))}
            legacy_keys = ("shape", "dtype", "sha256")
        else:  # a target table's format 2, an opponent model's format 1: ``<array>_sha256``
            arrays = {
                s.name: ArrayEntry(None, s.dtype, data.get(f"{s.name}_shape"), data.get(f"{s.name}_sha256"))
                for s in kind.arrays
            }
            legacy_keys = tuple(f"{s.name}_{k}" for s in kind.arrays for k in ("shape", "sha256"))
        facts = {k: v for k, v in data.items() if k not in _HEAD and k not in legacy_keys}
        version, written_kind = data.get("format_version"), data.get("kind", kind.name)
        return cls(version, written_kind, data.get("rules"), arrays, facts, legacy=True)

    @property
    def sha256(self) -> str | None:
        """The sha256 of the table's first array (a value table's values: what the opponent
        model records it was solved from)."""
        sha = next(iter(self.arrays.values())).sha256
        return sha if isinstance(sha, str) else None

    def __getitem__(self, key: str):
        return self.facts[key]

    def __contains__(self, key: str) -> bool:
        return key in self.facts

    def get(self, key: str, default=None):
        return self.facts.get(key, default)

    def to_json(self) -> dict:
        """The manifest in the store's form (what :func:`save` writes)."""
        head = {"format_version": FORMAT_VERSION, "kind": self.kind, "rules": self.rules}
        return head | {"arrays": {k: e.to_json() for k, e in self.arrays.items()}} | dict(self.facts)


def sha256_file(path: Path) -> str:
    """The sha256 of the regular file at ``path`` (hex)."""
    digest = hashlib.sha256()
    with open_regular(path) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_manifest(path: Path) -> dict:
    """The manifest at ``path`` as a dict; :class:`OSError` when it cannot be read,
    :class:`ValueError` when it is not a manifest (too big, too deep, not a JSON object)."""
    with open_regular(path, MAX_MANIFEST_BYTES) as fh:
        raw = fh.read(MAX_MANIFEST_BYTES + 1)
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ValueError(f"more than {MAX_MANIFEST_BYTES} bytes")
    text = raw.decode("utf-8")
    if not json_depth_ok(text, MAX_JSON_DEPTH):
        raise ValueError(f"JSON nested more than {MAX_JSON_DEPTH} deep")
    manifest = json.loads(text)
    if not isinstance(manifest, dict):
        raise ValueError(f"a JSON {type(manifest).__name__}, not an object")
    return manifest


def stale_reasons(
    manifest: Manifest, kind: Kind, rules: RuleSet, settings: Mapping | None = None
) -> list[str]:
    """Why a stored table does not answer for ``rules`` (empty when it does) -- the one stale rule
    of every kind: a format the store does not read, another kind, another rule set (its
    :meth:`~solver.core.rules.RuleSet.describe`), or ``settings`` (the facts the kind's build
    depends on: the opponent model's parameters and the sha256 of the value table it was solved
    from) other than the manifest's.  A stale table is rebuilt, never read."""
    reasons = []
    version = manifest.format_version
    if type(version) is not int or version != (kind.legacy if manifest.legacy else FORMAT_VERSION):
        if manifest.legacy and version == FORMAT_VERSION:
            reasons.append(f"format version {FORMAT_VERSION} without its arrays")
        else:
            reasons.append(f"format version {shown(version)}, expected {FORMAT_VERSION}")
    if manifest.kind != kind.name:
        reasons.append(f"a manifest of kind {shown(manifest.kind)}, not {kind.name!r}")
    if manifest.rules != rules.describe():
        built_for = manifest.rules
        built_id = built_for.get("id", "?") if isinstance(built_for, dict) else "?"
        reasons.append(f"built for different rules ({clipped(str(built_id))})")
    for key, want in (settings or {}).items():
        if manifest.get(key) != want:
            reasons.append(f"{key} {shown(manifest.get(key))}, not {want!r}")
    return reasons


# --- reading ---------------------------------------------------------------------------------------
@dataclass
class StoredFiles:
    """A table's files, opened and checked up to the values (:func:`open_files`): the
    ``manifest``, each array as a :class:`ValueFile` (``files``, by name) and ``paths`` (the
    arrays', then the manifest's).  ``folder`` is None for the table shipped with the package.
    :meth:`damaged` is the error of values that turn out wrong."""

    kind: Kind
    rules: RuleSet
    manifest: Manifest
    files: dict[str, ValueFile]
    paths: tuple[Path, ...]
    folder: Path | None

    @property
    def path(self) -> Path:
        """The first array's file: how messages name the table."""
        return self.paths[0]

    def error(self, detail: str, fix: str | None = "rebuild") -> TableError:
        """A :class:`TableError` of this table (the shipped one's fix is a reinstall)."""
        return table_error(self.kind, self.rules, self.folder, detail, fix)

    def damaged(self, problem: str) -> TableError:
        """The error of this table's values found wrong by ``problem``."""
        return self.error(f"{self.kind.title} {self.path} is damaged: {problem}")

    def close(self) -> None:
        for f in self.files.values():
            f.close()


def table_error(kind: Kind, rules: RuleSet, folder: Path | None, detail: str, fix: str | None) -> TableError:
    """The :class:`TableError` of a table of ``kind``: with ``folder`` None (the shipped table),
    what mends a damaged file is reinstalling the package."""
    if folder is None and fix in ("rebuild", "replace"):
        fix = "reinstall"
    return TableError(detail, rules=rules, kind=kind.name, folder=folder, fix=fix)


def missing(kind: Kind, rules: RuleSet, folder: str | os.PathLike) -> bool:
    """Whether a file of the table of ``kind`` is not in ``folder`` (a broken link counts as there)."""
    return not all(os.path.lexists(p) for p in kind.paths(rules, folder))


def open_files(
    kind: Kind,
    rules: RuleSet,
    folder: Path,
    *,
    check_hash: bool = True,
    settings: Mapping | None = None,
    shipped: bool = False,
) -> StoredFiles:
    """The table of ``kind`` for ``rules`` in ``folder``, checked up to its values (see the module
    docstring): :class:`MissingTableError` when a file is not there, :class:`TableError` for
    anything else wrong (the OS's refusals, a special file, a manifest stale or not one, a
    checksum, a header, a short or long file); out of memory (``mmap`` under a small ``ulimit
    -v``) goes through as it is.  ``check_hash``: every array's sha256 (else only those the
    kind checks on every load); ``settings``: see :func:`stale_reasons`; ``shipped``: the files
    come with the package (their fix: reinstall)."""
    folder = Path(folder)
    where = None if shipped else folder
    paths = kind.paths(rules, folder)
    if not all(os.path.lexists(p) for p in paths):
        if shipped:
            raise MissingTableError(rules, kind.name, None)
        raise MissingTableError(rules, kind.name, folder)

    def fail(detail: str, fix: str | None = "rebuild") -> TableError:
        return table_error(kind, rules, where, detail, fix)

    for path in paths:  # before anything is opened: a FIFO would block, a device never end
        try:
            info = os.stat(path)
        except OSError as exc:
            raise fail(f"cannot read {path}: {exc.strerror or exc}", None) from None
        if not stat.S_ISREG(info.st_mode):
            raise fail(f"{path} is {file_kind(info.st_mode)}, not a regular file", "replace")
    main, manifest_path = paths[0], paths[-1]
    try:
        with _reading("the manifest", manifest_path, fail):
            manifest = Manifest.parse(read_manifest(manifest_path), kind)
    except (ValueError, RecursionError) as exc:
        raise fail(f"manifest {manifest_path} is unreadable ({one_line(exc)})") from None
    note = kind.retired.get(manifest.format_version) if type(manifest.format_version) is int else None
    if note is not None and manifest.kind == kind.name:
        raise fail(f"{kind.title} {main} has the old format {manifest.format_version} ({note})")
    problems = stale_reasons(manifest, kind, rules, settings)
    if not problems:
        problems = _entry_problems(manifest, kind, rules, paths)
    if not problems:
        for spec, path in zip(kind.arrays, paths, strict=False):
            if not (spec.hashed or check_hash):
                continue
            try:
                with _reading(f"the {kind.title}", path, fail):
                    digest = sha256_file(path)
            except ValueError as exc:
                raise fail(f"{kind.title} {path} is unusable ({exc})") from None
            if manifest.arrays[spec.name].sha256 != digest:
                whose = "" if len(kind.arrays) == 1 else f"the {_possessive(spec.name)} "
                problems.append(f"{whose}sha256 does not match (corrupt or modified file)")
    if problems:
        raise fail(f"{kind.title} {main} does not match its manifest: {'; '.join(problems)}")
    files: dict[str, ValueFile] = {}
    try:
        for spec, path in zip(kind.arrays, paths, strict=False):
            try:
                with _reading(f"the {kind.title}", path, fail):
                    files[spec.name] = opened = ValueFile.open(path)
            except (ValueError, EOFError) as exc:
                raise fail(f"{kind.title} {path} is corrupt or truncated ({exc})") from None
            entry = manifest.arrays[spec.name]
            shape = spec.shape(rules) if spec.shape is not None else entry.shape
            if shape is None:  # an older manifest that did not record it: one dimension
                shape = opened.shape if len(opened.shape) == 1 else (-1,)
            if (opened.descr, opened.fortran_order, opened.shape) != (spec.descr, False, tuple(shape)):
                raise fail(
                    f"{kind.title} {path} has the header descr {opened.descr!r}, fortran_order "
                    f"{opened.fortran_order}, shape {opened.shape}; expected {spec.descr!r}, False, {tuple(shape)}"
                )
    except BaseException:
        for f in files.values():
            f.close()
        raise
    return StoredFiles(kind, rules, manifest, files, paths, where)


def _entry_problems(manifest: Manifest, kind: Kind, rules: RuleSet, paths: tuple[Path, ...]) -> list[str]:
    """What is wrong with the manifest's record of the arrays: another dtype, a shape that is not
    the rule set's (or not one dimension of whole numbers), a file name that is not the file's."""
    problems = []
    for spec, path in zip(kind.arrays, paths, strict=False):
        entry = manifest.arrays[spec.name]
        shape = entry.shape
        if shape is None:  # only a manifest of the form before records none (an opponent model's)
            good = manifest.legacy
        elif spec.shape is not None:
            good = shape == list(spec.shape(rules))
        else:
            good = isinstance(shape, list) and len(shape) == 1 and type(shape[0]) is int and shape[0] >= 0
        if not good or entry.dtype != spec.dtype:
            whose = "" if len(kind.arrays) == 1 else f"the {_possessive(spec.name)} "
            problems.append(f"{whose}shape {shown(shape)} {shown(entry.dtype)} in the manifest")
        if not manifest.legacy and entry.file != path.name:
            problems.append(f"the {spec.name} file named {shown(entry.file)}, not {path.name!r}")
    return problems


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


@contextlib.contextmanager
def _reading(what: str, path: Path, fail: Callable[..., TableError]) -> Iterator[None]:
    """Turn the system's refusals to read ``what`` at ``path`` into one-line table errors:
    a special file (to be replaced) or an OS error (permissions, I/O: nothing a build mends)."""
    try:
        yield
    except NotRegularFileError as exc:
        raise fail(str(exc), "replace") from None
    except OSError as exc:
        if out_of_memory(exc):  # mmap under a small ulimit -v: the table is fine (the CLI says so)
            raise
        raise fail(f"cannot read {what} {path}: {exc.strerror or exc}", None) from None


def one_line(exc: BaseException) -> str:
    """An exception's text on one line, at most 300 characters (for a message)."""
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())[:300]


# --- writing ---------------------------------------------------------------------------------------
def save(kind: Kind, rules: RuleSet, folder: Path, arrays: Mapping, facts: Mapping) -> Manifest:
    """Write the table of ``kind`` for ``rules`` into ``folder``: each of ``arrays`` (numpy, by
    :class:`ArraySpec` name; written by :func:`numpy.save` as they are) and then the manifest with
    ``facts``, each file atomically; :class:`TableError` (no fix: the folder's trouble) when a
    file cannot be written.  Returns the manifest written."""
    import numpy as np

    from ..core.fileio import atomic_write, atomic_write_text

    paths = kind.paths(rules, folder)
    entries = {}
    for spec, path in zip(kind.arrays, paths, strict=False):
        array = arrays[spec.name]
        if str(array.dtype) != spec.dtype:
            raise ValueError(f"a {kind.title} stores {spec.name} as {spec.dtype}, not {array.dtype}")
        try:
            atomic_write(path, lambda fh, array=array: np.save(fh, array, allow_pickle=False))
            sha = sha256_file(path)  # read back from disk
        except OSError as exc:
            raise table_error(
                kind, rules, folder, f"cannot write the {kind.title} {path}: {exc.strerror or exc}", None
            ) from None
        entries[spec.name] = ArrayEntry(path.name, spec.dtype, list(array.shape), sha)
    manifest = Manifest(FORMAT_VERSION, kind.name, rules.describe(), entries, dict(facts))
    try:
        atomic_write_text(paths[-1], json.dumps(manifest.to_json(), indent=2) + "\n")
    except OSError as exc:
        raise table_error(
            kind, rules, folder, f"cannot write the manifest {paths[-1]}: {exc.strerror or exc}", None
        ) from None
    return manifest


# --- what is there ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stored:
    """A table in a folder (:func:`stored`): its ``kind``, the rule set's ``rules_id`` (canonical)
    and its files (``paths``: the arrays', then the manifest's; all there)."""

    kind: Kind
    rules_id: str
    paths: tuple[Path, ...]

    @property
    def size(self) -> int:
        """Bytes on disk of the arrays."""
        return sum(p.stat().st_size for p in self.paths[:-1])


def stored(folder: str | os.PathLike | None) -> list[Stored]:
    """Every table the store made in ``folder`` (every file of it there, named by a rule set's
    canonical id), in name order, each rule set's kinds in :data:`KINDS` order."""
    from ..core.rules import get_rules

    folder = resolve_dir(folder)
    found = []
    names = sorted(p.name for p in folder.glob("*.json")) if folder.is_dir() else []
    for name in names:
        stem = name[: -len(".json")]
        kind = next((k for k in (TARGET, OPPONENT) if k.stem and stem.endswith(k.stem)), VALUES)
        rules_id = stem[: len(stem) - len(kind.stem)]
        try:
            rules = get_rules(rules_id)
        except UsageError:
            continue  # not a table of ours
        if rules.id != rules_id or rules.triple:
            continue
        paths = kind.paths(rules, folder)
        if all(os.path.lexists(p) for p in paths):
            found.append(Stored(kind, rules_id, paths))
    order = list(KINDS)
    return sorted(found, key=lambda s: (s.rules_id, order.index(s.kind.name)))


#: what goes with a table when it is removed: the opponent model is the win bots' cache kept
#: beside the target table (:mod:`solver.engine.opponent`), no use without it
COMPANIONS: Mapping[str, tuple[str, ...]] = {"target": ("opponent",)}


def remove(
    kinds: tuple[Kind, ...], rules: RuleSet, folder: str | os.PathLike | None
) -> list[tuple[Path, int]]:
    """Delete the tables of ``kinds`` of ``rules`` in ``folder`` -- every file of each, the
    manifest last, and what an interrupted write left of them, plus each kind's
    :data:`COMPANIONS` -- and return ``(path, bytes)`` of each file removed.  Only the store's
    own file names are touched (never a folder, nor the package's shipped table); a file that
    is not a regular file or a link is left, and so is a folder of that name."""
    from ..core.fileio import remove_stale_temporaries_of

    folder = resolve_dir(folder)
    names = [k.name for k in kinds]
    for kind in kinds:
        names += [c for c in COMPANIONS.get(kind.name, ()) if c not in names]
    removed = []
    for name in names:
        for path in kind_of(name).paths(rules, folder):
            try:
                info = path.lstat()
            except OSError:
                continue
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                continue
            path.unlink()
            removed.append((path, info.st_size))
            remove_stale_temporaries_of(path)
    return removed


# --- the array files -------------------------------------------------------------------------------
class ValueFile:
    """A table's ``.npy`` file read through :mod:`mmap`, without numpy.

    ``values[mask, u, f]`` is a Python float, the same as
    ``float(np.load(path, mmap_mode="r")[mask, u, f])``; only whole-index lookups are
    supported (``np.asarray(values)`` gives the numpy array, without a copy).  ``shape``
    and ``dtype`` (numpy's name for it) are read from the header as :func:`numpy.load`
    reads them; lookups need a float64, float32 or int64 array (one integer per dimension).
    """

    __slots__ = (
        "path",
        "shape",
        "dtype",
        "descr",
        "fortran_order",
        "_mmap",
        "_offset",
        "_data",
        "_strides",
        "identity",
    )

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
        with open_regular(path) as fh:
            head = fh.read(12)
            if len(head) < 10 or not head.startswith(cls._MAGIC):
                raise ValueError("not a .npy file: no magic string")
            if head[6] == 1:
                start, length = 10, int.from_bytes(head[8:10], "little")
            elif head[6] in (2, 3) and len(head) == 12:
                start, length = 12, int.from_bytes(head[8:12], "little")
            else:
                raise ValueError(f"unsupported .npy format version {head[6]}.{head[7]}")
            if length > 1 << 16:
                raise ValueError(f".npy header of {length} bytes")
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
            if actual != offset + size:  # np.load only notices a short file; save writes it exactly
                raise ValueError(
                    f"{max(actual - offset, 0)} bytes of data, {size} expected for shape {shape}"
                )
            buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            info = os.fstat(fh.fileno())
        self = object.__new__(cls)
        self.path, self.shape, self.descr = path, shape, match["descr"]
        # the file mapped, as the system knows it: any write to it changes the ctime at least
        self.identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        self.fortran_order = match["fortran"] == "True"
        if kind["kind"] == "b":
            self.dtype = "bool"
        elif kind["order"] in cls._NATIVE or kind["size"] == "1":
            self.dtype = f"{cls._KINDS[kind['kind']]}{8 * int(kind['size'])}"
        else:
            self.dtype = self.descr  # as numpy names a non-native byte order: '>f8'
        self._mmap, self._offset = buffer, offset
        code = {"float64": "d", "float32": "f", "int64": "q"}.get(self.dtype)
        self._data = memoryview(buffer)[offset:].cast(code) if code else None
        strides, step = [], 1
        for n in reversed(shape) if not self.fortran_order else shape:
            strides.append(step)
            step *= n
        self._strides = tuple(reversed(strides)) if not self.fortran_order else tuple(strides)
        return self

    def __getitem__(self, index):
        """One entry (a Python float or int): ``index`` one integer per dimension."""
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) != len(self.shape):
            raise IndexError(f"index {index} does not name one entry of shape {self.shape}")
        flat = 0
        for i, n, stride in zip(index, self.shape, self._strides, strict=True):
            if not -n <= i < n:
                raise IndexError(f"index {index} is out of bounds for shape {self.shape}")
            flat += i % n * stride
        return self._data[flat]

    @property
    def buffer(self) -> mmap.mmap:
        """The whole file, mapped read-only."""
        return self._mmap

    @property
    def offset(self) -> int:
        """Where the data starts in the file (after the header)."""
        return self._offset

    def close(self) -> None:
        """Unmap the file (no lookups afterwards)."""
        if self._data is not None:
            self._data.release()
            self._data = None
        self._mmap.close()

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        order = "F" if self.fortran_order else "C"
        array = np.ndarray(self.shape, self.descr, buffer=self._mmap, offset=self._offset, order=order)
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        return array.copy() if copy else array

    def __repr__(self) -> str:
        return f"ValueFile({str(self.path)!r}, shape={self.shape}, dtype={self.dtype})"


# --- the value-level check, remembered ------------------------------------------------------------
#: bump when a kind's check of the values changes: what an older check passed is checked again
VALUE_CHECK_VERSION = 1
#: the memo's bounds: it is a cache (deleting it costs one check of each table again)
CHECKED_MAX_BYTES = 1 << 16
CHECKED_MAX_ENTRIES = 64


def checked_file() -> Path:
    """``$XDG_CACHE_HOME/yahtzee-solver/checked-tables.json`` (``~/.cache/...``): the table files
    whose values passed the check on load, each by its path and :attr:`ValueFile.identity`."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "yahtzee-solver" / "checked-tables.json"


def _checked_entries() -> dict[str, list]:
    try:
        with open_regular(checked_file(), max_bytes=CHECKED_MAX_BYTES) as fh:
            text = fh.read().decode("utf-8")
        entries = json.loads(text) if json_depth_ok(text, 3) else None
    except (OSError, ValueError):  # none yet, unreadable or not JSON: nothing remembered
        return {}
    return entries if isinstance(entries, dict) else {}


def _memo_key(values: ValueFile) -> tuple[str, list]:
    return str(Path(values.path).resolve()), [VALUE_CHECK_VERSION, *values.identity]


def passed_value_check(values: ValueFile) -> bool:
    """Whether this very file (the same path, device, inode, size, mtime and ctime) passed the
    check of its values before (:func:`remember_value_check`): a single hint then draws fewer
    Bellman steps (the full draw is 80 ms of a Maxi Yatzy hint's 0.25 s).  Any write to the
    file since, a copy or a new build changes its identity: it gets the full draw again."""
    path, identity = _memo_key(values)
    return _checked_entries().get(path) == identity


def remember_value_check(values: ValueFile) -> None:
    """Remember that the values of this file passed the check (the newest
    :data:`CHECKED_MAX_ENTRIES` files); a cache that cannot be written is no error."""
    path, identity = _memo_key(values)
    entries = _checked_entries()
    entries.pop(path, None)
    entries[path] = identity
    kept = dict(list(entries.items())[-CHECKED_MAX_ENTRIES:])
    try:
        atomic_write_text(checked_file(), json.dumps(kept))
    except OSError:
        pass


def release_pages(array) -> None:
    """Let go of this process's pages of the file that ``array`` (a numpy view of a
    :class:`ValueFile`'s map, at any depth) maps: the next reads fault them in again from the
    page cache (or the disk) and see the same bytes.  The map is read-only, so nothing is lost.
    A scan of a whole table (the checks on load) leaves it resident otherwise, counted in the
    process's memory until it ends.  Nothing for an array that maps no file, or where the
    platform has no ``madvise(MADV_DONTNEED)``."""
    base = array
    while base is not None and not isinstance(base, mmap.mmap):
        base = getattr(base, "base", None)
    if base is not None and hasattr(base, "madvise") and hasattr(mmap, "MADV_DONTNEED") and not base.closed:
        base.madvise(mmap.MADV_DONTNEED)

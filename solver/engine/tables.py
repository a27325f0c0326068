"""Value tables: one memory-mappable ``<rules>.npy`` of state values plus ``<rules>.json``,
kept by the table store (:mod:`solver.engine.store`: where tables live, the manifest, the loader).

Where tables live, first match wins:

1. an explicit directory (``--tables DIR`` on the command line, ``tables_dir=`` in Python);
2. the ``YAHTZEE_TABLES`` environment variable;
3. ``tables/`` of a source checkout (the package sits next to ``pyproject.toml``);
4. the user cache: ``$XDG_CACHE_HOME/yahtzee-solver/tables`` (``~/.cache/...``), never site-packages.

That folder's table comes first; where it has none, the table shipped with the package
(``yahtzee``'s, package data in ``shipped/``, checked as any table is, byte for byte a fresh
build's) is read instead (:func:`find_table`, behind every :func:`get_table`), so that a fresh
install's first hint needs no build and no numba.  Builds always write into the folder; the
shipped files are written by ``scripts/ship_table.py`` only.

On load the store checks the files, the manifest against the rule set, the array's shape,
dtype and sha256; then this module every value's range (:func:`value_pattern`) and the Bellman
equation on a few dozen states drawn afresh (:func:`check_sampled_bellman`: values changed with
the checksum recomputed; a single hint draws fewer of a file that passed before:
:data:`RECHECK_SAMPLE`); any mismatch raises :class:`TableError` with its fix (rebuild).

A table's values are a read-only numpy memmap, or with ``light=True`` a
:class:`ValueFile`: the same file read through :mod:`mmap` as Python floats, for
a single hint, which then never imports numpy (about half of its start-up).
"""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..core.errors import MissingTableError, TableError, out_of_memory
from ..core.fileio import open_regular
from ..core.rules import REFERENCE_TOLERANCES, RuleSet, get_rules
from . import store
from .packed import PackedValues, is_packed, pack, packed_problem, slots, unpack
from .store import (
    VALUES,
    StoredFiles,
    ValueFile,
    one_line,
    passed_value_check,
    remember_value_check,
    resolve_dir,
    value_shape,
)

T = TypeVar("T")

if TYPE_CHECKING:
    import numpy as np


def package_version() -> str:
    from ..core import VERSION

    return VERSION


def table_paths(rules: RuleSet, tables_dir: str | os.PathLike | None = None) -> tuple[Path, Path]:
    """``(<id>.npy, <id>.json)``: the value table of ``rules`` in the tables folder."""
    return VALUES.paths(rules, resolve_dir(tables_dir))


def built_rule_sets(tables_dir: str | os.PathLike | None = None) -> list[RuleSet]:
    """The rule sets with a value table in the folder (named by canonical spec), in name order."""
    return [get_rules(s.rules_id) for s in store.stored(tables_dir) if s.kind is VALUES]


@dataclass(frozen=True)
class Table:
    """A loaded value table: ``values[mask, u, f]`` (see :mod:`solver.engine.dp`) and its manifest.

    ``values`` is a read-only numpy memmap, or a :class:`ValueFile` when loaded with ``light=True``.
    """

    rules: RuleSet
    values: np.ndarray | ValueFile
    manifest: store.Manifest
    path: Path

    @property
    def shipped(self) -> bool:
        """Whether this is the table shipped with the package (:func:`load_shipped`)."""
        return self.path.parent == SHIPPED_DIR

    @property
    def folder(self) -> Path | None:
        """The tables folder the table is in; None for the one shipped with the package."""
        return None if self.shipped else self.path.parent

    def error(self, detail: str) -> TableError:
        """The :class:`TableError` of this table found wrong by ``detail`` (fix: rebuild; the
        shipped table's: reinstall)."""
        return store.table_error(VALUES, self.rules, self.folder, detail, "rebuild")

    @property
    def empty_card_value(self) -> float:
        return float(self.values[0, 0, 0])

    def value(self, mask: int, upper: int, flag: int) -> float:
        return float(self.values[mask, upper, flag])


#: a value table's shape: ``(2**n_boxes, upper_cap + 1, n_flags)``
expected_shape = value_shape


# What every value of a table must look like, judged by its last byte (little-endian
# float64: the sign and the exponent's top seven bits) so that both readers check all
# of a file at C speed without numpy.  The DP's values of the states it computes
# (see :func:`solver.engine.dp.level_lanes`) are points still to come: at least 1.7 in every
# rule set (the worst single box, ``ones`` under ``all-rolls``), at most a few
# thousand; unreachable states hold NaN; the full card's row is all 0.0.
_IN_RANGE, _ZERO, _NAN, _OTHER = b"v", b"0", b"n", b"?"
_RANGE_BYTES = (0x3F, 0x40)  # 2**-15 <= value < 2**17


def _value_classes() -> bytes:
    table = bytearray(_OTHER * 256)
    for byte in range(_RANGE_BYTES[0], _RANGE_BYTES[1] + 1):
        table[byte] = _IN_RANGE[0]
    table[0x00] = _ZERO[0]
    table[0x7F] = table[0xFF] = _NAN[0]
    return bytes(table)


_CLASSES = _value_classes()
_PATTERNS: dict[str, bytes] = {}


def value_pattern(rules: RuleSet) -> bytes:
    """One byte per state of a table of ``rules`` in file order: ``v`` where the DP computes
    a value (a card the fill order can reach, an upper total its filled upper boxes can
    make, the flag only with a five-of-a-kind row filled), ``n`` (NaN) where it does not,
    ``0`` on the full card.  Plain Python, cached per rule set."""
    cached = _PATTERNS.get(rules.id)
    if cached is not None:
        return cached
    cap, n_flags = rules.upper_cap, rules.n_flags
    row = (cap + 1) * n_flags
    upper_part = sum(1 << b for b in rules.upper_indices)
    rows_cache: dict[tuple[int, bool], bytes] = {}
    totals_of: dict[int, frozenset[int]] = {0: frozenset({0})}
    parts = []
    full, five_rows, free = rules.full_mask, rules.rows_mask, rules.order == "free"
    for mask in range(1 << rules.n_boxes):
        if mask == full:
            parts.append(_ZERO * row)
            continue
        if not free and not rules.is_reachable_mask(mask):
            parts.append(_NAN * row)
            continue
        key = (mask & upper_part, bool(mask & five_rows))
        pattern = rows_cache.get(key)
        if pattern is None:
            totals = _upper_totals(rules, key[0], totals_of)
            pattern = b"".join(
                _IN_RANGE if u in totals and (f == 0 or key[1]) else _NAN
                for u in range(cap + 1)
                for f in range(n_flags)
            )
            rows_cache[key] = pattern
        parts.append(pattern)
    cached = _PATTERNS[rules.id] = b"".join(parts)
    return cached


def _upper_totals(rules: RuleSet, bits: int, memo: dict[int, frozenset[int]]) -> frozenset[int]:
    """The upper totals (capped) the filled upper boxes ``bits`` (box bits) can make: those of
    ``bits`` less its highest box plus 0-5 times that box's face."""
    totals = memo.get(bits)
    if totals is None:
        top = bits.bit_length() - 1
        face, cap = rules.boxes[top].face, rules.upper_cap
        rest = _upper_totals(rules, bits & ~(1 << top), memo)
        totals = memo[bits] = frozenset(min(cap, t + c * face) for t in rest for c in range(rules.n_dice + 1))
    return totals


def _check_values(buffer, offset: int, rules: RuleSet) -> str | None:
    """What is wrong with the values of a table file (``buffer``: its bytes, the data from
    ``offset``, C order, ``'<f8'``), or ``None``: every state as :func:`value_pattern` says."""
    expected = value_pattern(rules)
    got = buffer[offset + 7 :: 8].translate(_CLASSES)
    row = len(expected) >> rules.n_boxes
    full = offset + 8 * rules.full_mask * row
    if got == expected and buffer[full : full + 8 * row] == bytes(8 * row):
        return None
    bad = [i for i, (x, y) in enumerate(zip(got, expected, strict=True)) if x != y] or [rules.full_mask * row]
    i = bad[0]
    value = struct.unpack_from("<d", buffer, offset + 8 * i)[0]
    state = (i // row, i % row // rules.n_flags, i % rules.n_flags)
    want = {_IN_RANGE[0]: "a value from 2**-15 to 2**17", _NAN[0]: "NaN (unreachable)"}.get(
        expected[i], "0.0"
    )
    return f"{len(bad)} states hold impossible values (the first, {state}, holds {value!r}, not {want})"


#: States whose Bellman equation every load checks (:func:`check_sampled_bellman`), drawn
#: afresh each time: this many uniformly from all the table's states (with replacement), so
#: that a table whose equation fails on a share ``p`` of its states loads with probability at
#: most ``(1 - p) ** LOAD_SAMPLE`` (p = 0.25: 1.0%, p = 0.5: 1.5e-5), plus one state of each
#: level (0 to n_boxes - 1 boxes filled: the empty card, cards near the end), which uniform
#: draws hardly ever meet.  About 0.4-1 ms a state on one core (``yahtzee``: 30 states, 20 ms;
#: ``benchmarks/bench_load_check.py``).
LOAD_SAMPLE = 16
#: how far from one backward step a stored value may be, relative to it (at least 1): the
#: step is the build's float64 arithmetic, so a genuine table is off in the last bits only
BELLMAN_TOLERANCE = 1e-9


def sample_states(
    rules: RuleSet, uniform: int = LOAD_SAMPLE, rng=None, levels=None
) -> list[tuple[int, int, int]]:
    """``(mask, u, f)`` states a table of ``rules`` holds a computed value for (:func:`value_pattern`;
    the full card excluded): one of each level in ``levels`` (numbers of boxes filled; default
    all, ``0 .. n_boxes - 1``), a random card with that many boxes filled (under a fill order the
    cards it can reach) and a random upper total and flag of it, then ``uniform`` states drawn
    uniformly from all of them.  ``rng``: a :class:`random.Random` (default: a fresh one, seeded
    by the system).  Plain Python: the table's layout from its cached pattern."""
    import random

    rng = rng if rng is not None else random.Random()
    n = rules.n_boxes
    row, n_flags, computed = (rules.upper_cap + 1) * rules.n_flags, rules.n_flags, _IN_RANGE[0]
    if is_packed(rules):  # the pattern of 80 M states would cost seconds: ask the packing per state
        pattern = _PackedPattern(rules)
    else:
        pattern = value_pattern(rules)
    forced = rules.order != "free"
    ordered = [  # under a fill order: the cards it reaches, by level (a prefix or a suffix of the card)
        sorted(
            m for m in {(1 << k) - 1, rules.full_mask ^ ((1 << (n - k)) - 1)} if rules.is_reachable_mask(m)
        )
        for k in range(n)
    ]

    def state(i: int) -> tuple[int, int, int]:
        return i // row, i % row // n_flags, i % n_flags

    states = []
    for k in range(n) if levels is None else levels:
        mask = rng.choice(ordered[k]) if forced else sum(1 << b for b in rng.sample(range(n), k))
        lanes = [j for j in range(row) if pattern[mask * row + j] == computed]
        if lanes:  # every card a game reaches has one (u = 0 at least); nothing else is drawn
            states.append(state(mask * row + rng.choice(lanes)))
    masks = [m for level in ordered for m in level]
    target = len(states) + uniform
    while len(states) < target:  # rejection: uniform over the cards' (u, f) rows, then kept if computed
        mask = rng.choice(masks) if forced else rng.randrange(rules.full_mask)
        i = mask * row + rng.randrange(row)
        if pattern[i] == computed:
            states.append(state(i))
    return states


class _PackedPattern:
    """:func:`value_pattern`'s bytes of a packed table, one state at a time (``pattern[i]``): the
    DP computes a state where the card is reachable, not full, and its upper total stored."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules, self.row, self.slots = rules, rules.upper_cap + 1, slots(rules)

    def __getitem__(self, i: int) -> int:
        rules = self.rules
        mask, u = divmod(i, self.row)
        if mask == rules.full_mask or not rules.is_reachable_mask(mask):
            return _NAN[0]
        bits = sum(1 << (rules.boxes[b].face - 1) for b in rules.upper_indices if mask >> b & 1)
        return _IN_RANGE[0] if self.slots[bits][1][u] >= 0 else _NAN[0]


def check_sampled_bellman(
    rules: RuleSet,
    values,
    uniform: int = LOAD_SAMPLE,
    rng=None,
    tolerance: float | None = None,
    levels=None,
) -> str | None:
    """What is wrong with the values of a table of ``rules`` on states drawn by
    :func:`sample_states` (``uniform``, ``rng``, ``levels``), or ``None``: each state's stored value against
    one backward step from the stored values of the states after it
    (:func:`solver.engine.turn.backed_up_value`), to ``tolerance`` (default
    :data:`BELLMAN_TOLERANCE`) relative to the value.  ``values``: a :class:`ValueFile` or array.

    A table whose values were changed and its checksum recomputed passes the byte checks (its
    values still look like values) but not this: no change keeps the equation but on the states
    after the change too, and the full card's 0 (checked on every load) pins the last level."""
    from .turn import backed_up_value

    tolerance = BELLMAN_TOLERANCE if tolerance is None else tolerance
    states = sample_states(rules, uniform, rng, levels)
    bad = []
    for state in states:
        stored, expected = float(values[state]), backed_up_value(rules, state, values)
        if not abs(stored - expected) <= tolerance * max(1.0, abs(expected)):
            bad.append((state, stored, expected))
    if not bad:
        return None
    state, stored, expected = bad[0]
    return (
        f"{len(bad)} of {len(states)} sampled states break the Bellman equation (e.g. {state}: "
        f"{stored!r} stored, {expected!r} from the states after it)"
    )


def reachable_states(rules: str | RuleSet):
    """The ``(mask, upper, flag)`` index arrays (numpy) of the states the DP computes, the
    full card's included (see :func:`value_pattern`)."""
    import numpy as np

    rules = get_rules(rules)
    rules.require_single("a table")
    pattern = np.frombuffer(value_pattern(rules), dtype=np.uint8).reshape(expected_shape(rules))
    return np.nonzero(pattern != _NAN[0])


def load_table(
    rules: str | RuleSet | None = None,
    tables_dir: str | os.PathLike | None = None,
    *,
    check_hash: bool = True,
    light: bool = False,
) -> Table:
    """Open the table of ``rules`` in the tables folder (memory-mapped, read-only) after checking it.

    ``light``: the values are a :class:`ValueFile` (plain Python floats, numpy not
    imported) rather than a numpy memmap -- for a few lookups, such as one hint.
    Raises :class:`MissingTableError` when it is not built and :class:`TableError`
    when it is corrupt, truncated or built for different rules.  (:func:`find_table`
    also looks at the table shipped with the package.)

    Both ways make the same checks, in one code path: the store's (:func:`solver.engine.store.
    open_files`: regular files, never a FIFO, device or folder; a small JSON manifest matching
    the rule set; the sha256, unless ``check_hash=False``; the ``.npy`` header exactly ``'<f8'``,
    C order and the rule set's shape; exactly that many bytes), then every value as
    :func:`value_pattern` says (finite and in range on every reachable state, NaN elsewhere, 0.0
    on the full card), and the values of states drawn afresh following from the states after
    them (:func:`check_sampled_bellman`).
    """
    rules = get_rules(rules)
    rules.require_single("a table")
    if light and is_packed(rules):
        # a single hint's read of a six-dice table: its 295 MB's sha256 alone would take most of a
        # second; every value's byte and the sampled Bellman steps are still checked
        check_hash = False
    files = store.open_files(VALUES, rules, resolve_dir(tables_dir), check_hash=check_hash)
    return _checked(files, light)


#: The tables that come with the package (package data, ``pyproject.toml``): the default rule
#: set's, the ``.npy`` and manifest its build wrote, read as a tables folder's are (8 MiB; the
#: wheel, the sdist and git store it deflated, about 2.4 MB).  ``scripts/ship_table.py`` writes
#: them from a fresh build and ``tests/test_shipped_table.py`` holds them to one, byte for byte.
SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"


def shipped_paths(rules: RuleSet) -> tuple[Path, Path]:
    """The shipped ``(<spec>.npy, <spec>.json)`` of a rule set (there or not)."""
    return VALUES.paths(rules, SHIPPED_DIR)


def has_shipped(rules: str | RuleSet | None) -> bool:
    """Whether the package ships a table of ``rules`` (``yahtzee``'s)."""
    rules = get_rules(rules)
    return not rules.triple and not store.missing(VALUES, rules, SHIPPED_DIR)


def table_available(rules: str | RuleSet | None, tables_dir: str | os.PathLike | None = None) -> bool:
    """Whether :func:`find_table` has a table of ``rules`` to read without building one: the
    tables folder's files, else the one shipped with the package (not read nor checked here)."""
    rules = get_rules(rules)
    return all(path.is_file() for path in table_paths(rules, tables_dir)) or has_shipped(rules)


def load_shipped(
    rules: str | RuleSet | None = None, *, check_hash: bool = True, light: bool = False
) -> Table:
    """The table of ``rules`` shipped with the package, checked as :func:`load_table` checks a
    table of the tables folder.  Raises :class:`MissingTableError` when none is shipped and
    :class:`TableError` when it is damaged (its fix: reinstall the package; a table built into
    the tables folder comes first anyway)."""
    rules = get_rules(rules)
    rules.require_single("a table")
    files = store.open_files(VALUES, rules, SHIPPED_DIR, check_hash=check_hash, shipped=True)
    return _checked(files, light)


def find_table(
    rules: str | RuleSet | None = None,
    tables_dir: str | os.PathLike | None = None,
    *,
    check_hash: bool = True,
    light: bool = False,
) -> Table:
    """The table of ``rules``: the tables folder's (:func:`load_table`); when the folder has none,
    the one shipped with the package (:func:`load_shipped`, ``yahtzee``'s).  A table in the
    folder comes first -- a damaged one is an error, not a reason to read the shipped one --
    and the two are the same bytes anyway (CI builds and compares them).  Raises
    :class:`MissingTableError` (the folder's) when neither is there."""
    try:
        return load_table(rules, tables_dir, check_hash=check_hash, light=light)
    except MissingTableError:
        if not has_shipped(rules):
            raise
    return load_shipped(rules, check_hash=check_hash, light=light)


def _checked(files: StoredFiles, light: bool) -> Table:
    """The value table of ``files`` (opened by the store) once its values check out (see
    :func:`load_table`): a :class:`ValueFile`, or with numpy (not ``light``) a memmap of it."""
    rules, npy = files.rules, files.path
    values = files.files["values"]
    if is_packed(rules):
        return _checked_packed(files, light)
    problem = _check_values(values.buffer, values.offset, rules)
    if problem is None:  # values in range: do they follow from each other?
        problem = _bellman_problem(rules, values, values, light)
    if problem is not None:
        files.close()
        raise files.damaged(problem)
    if not light:
        import numpy as np

        try:
            with open_regular(npy) as fh:
                array = np.memmap(
                    fh, dtype="<f8", mode="r", offset=values.offset, shape=values.shape, order="C"
                )
        except (OSError, ValueError) as exc:
            if out_of_memory(exc):
                raise
            raise files.error(f"cannot read the table {npy}: {one_line(exc)}", None) from None
        finally:
            values.close()
        values = array
    return Table(rules, values, files.manifest, npy)


#: States drawn afresh (uniformly) when the light reader loads a file whose full draw passed
#: before (:func:`~solver.engine.store.passed_value_check`): still no fixed set a forger could
#: leave alone, at a quarter of the cost (six dice: 16 ms where the full draw takes 80 ms)
RECHECK_SAMPLE = 8


def _bellman_problem(rules: RuleSet, values, file: ValueFile, light: bool) -> str | None:
    """:func:`check_sampled_bellman` of ``values`` (read from ``file``).  The light reader (a
    single hint) draws the full sample until a file passes it, then :data:`RECHECK_SAMPLE`
    states of it on each load while the file is unchanged (the same path, inode, size, mtime
    and ctime); the full readers draw the full sample on every load."""
    if light and passed_value_check(file):
        return check_sampled_bellman(rules, values, RECHECK_SAMPLE, levels=())
    problem = check_sampled_bellman(rules, values)
    if light and problem is None:
        remember_value_check(file)
    return problem


#: The most values a packed table's light read checks byte by byte (32 MB, about 50 ms); a larger
#: one (Maxi Yatzy's 36.9 M: half a second) is checked by its header and size, the full card's
#: zeros, the sampled Bellman steps and each value as it is read (:class:`PackedValues`), so that
#: a single hint starts in a tenth of a second.  Not caught then: a few values damaged where
#: neither the sample nor the hint reads -- every other reader checks every value.
LIGHT_FULL_CHECK = 1 << 22


def _checked_packed(files: StoredFiles, light: bool) -> Table:
    """A packed table (six dice: :mod:`solver.engine.packed`) once its values check out: every
    stored value in range (NaN on the cards a fill order cannot reach, 0.0 on the full card) and
    sampled states against one backward step, as a dense table's.  ``light`` (free fill order):
    the values read in place (:class:`~solver.engine.packed.PackedValues`, no numpy), the bytes
    checked as :func:`_check_values` does up to :data:`LIGHT_FULL_CHECK` values, beyond it each
    value as it is read; else unpacked into the DP's dense layout in memory, what the kernels
    read, every value checked."""
    rules, npy = files.rules, files.path
    entry = files.files["values"]
    if light and rules.order == "free":
        full_bits = sum(1 << (rules.boxes[b].face - 1) for b in rules.upper_indices)
        n, last = entry.shape[0], len(slots(rules)[full_bits][0])  # the full card: the last values, 0.0
        problem = None
        if entry.buffer[entry.offset + 8 * (n - last) :] != bytes(8 * last):
            problem = f"the full card's {last} stored values are not all 0.0"
        elif n <= LIGHT_FULL_CHECK:
            got = entry.buffer[entry.offset + 7 :: 8].translate(_CLASSES)
            want = _IN_RANGE * (n - last) + _ZERO * last
            if got != want:
                bad = next(i for i, (x, y) in enumerate(zip(got, want, strict=True)) if x != y)
                problem = f"stored value {bad} of {n} is impossible ({entry[bad]!r})"
        # a large table's values are range-checked as they are read (the sampled states' below,
        # then the hint's own): what the hint uses is checked, the rest is the full reader's
        values = PackedValues(rules, entry, damaged=None if n <= LIGHT_FULL_CHECK else files.damaged)
        if problem is None:
            problem = _bellman_problem(rules, values, entry, light)
        if problem is not None:
            files.close()
            raise files.damaged(problem)
        return Table(rules, values, files.manifest, npy)
    import numpy as np

    try:
        with open_regular(npy) as fh:
            stored = np.memmap(fh, dtype="<f8", mode="r", offset=entry.offset, shape=entry.shape, order="C")
        problem = packed_problem(rules, stored)
        dense = unpack(rules, stored) if problem is None else None
        del stored
    except (OSError, ValueError) as exc:
        files.close()
        if out_of_memory(exc):
            raise
        raise files.error(f"cannot read the table {npy}: {one_line(exc)}", None) from None
    if problem is None:
        problem = check_sampled_bellman(rules, dense)
    files.close()
    if problem is not None:
        raise files.damaged(problem)
    return Table(rules, dense, files.manifest, npy)


def save_table(
    rules: RuleSet, values: np.ndarray, tables_dir=None, *, build_seconds: float, cpu_seconds: float
) -> Table:
    """Write ``values`` and its manifest atomically (:func:`solver.engine.store.save`); returns
    the loaded table.  A packed table (six dice) is written packed: ``values`` dense, or packed
    already (:func:`solver.engine.packed.pack`, one dimension)."""
    import platform

    import numba
    import numpy as np

    if is_packed(rules) and values.ndim != 1:
        values = pack(rules, values)
    first = float(values[0] if values.ndim == 1 else values[0, 0, 0])  # the empty card's first state
    layout = "values[filled_mask, min(upper_total, threshold), yahtzee_holds_50]; NaN = unreachable"
    if is_packed(rules):
        layout = "packed: the DP's states card by card in mask order (solver.engine.packed)"
    facts = {
        "layout": layout,
        "empty_card_value": first,
        "reference_value": rules.reference_value,
        "build_seconds": round(build_seconds, 3),
        "build_cpu_seconds": round(cpu_seconds, 3),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "package_version": package_version(),
        "numpy_version": np.__version__,
        "numba_version": numba.__version__,
        "python_version": platform.python_version(),
    }
    store.save(VALUES, rules, resolve_dir(tables_dir), {"values": values}, facts)
    return load_table(rules, tables_dir, check_hash=False)  # the sha256 was read back from disk


def check_writable(folder: Path) -> None:
    """Fail before a build, not after it, when the table folder cannot be written (the fix:
    another folder)."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise TableError(
            f"cannot write tables to {folder}: {exc.strerror or exc}", folder=folder, fix="elsewhere"
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
    from ..core.fileio import remove_stale_temporaries
    from . import dp
    from .compiling import shown

    rules = get_rules(rules)
    rules.require_single("a table")
    folder = table_paths(rules, tables_dir)[0].parent
    check_writable(folder)
    remove_stale_temporaries(folder, (".npy", ".json"))  # left by a build that was killed
    # a bar only if numba compiles (the shipped kernels or its cache load without a word)
    with shown(progress):
        dp.load_kernels(rules)
    solved = timed_solve(
        rules, f"building {rules.id}", lambda tick: dp.solve(rules, progress=tick, threads=threads), progress
    )
    values, wall, cpu = solved
    del solved
    if is_packed(rules):  # the dense table goes before the packed one is loaded (unpacked) again
        values = pack(rules, values)
    return save_table(rules, values, tables_dir, build_seconds=wall, cpu_seconds=cpu)


def timed_solve(rules: RuleSet, what: str, solve: Callable, progress: bool):
    """``(values, wall seconds, CPU seconds)`` of ``solve(tick)``, a dynamic program over the rule
    set's masks that calls ``tick(n)`` as it finishes ``n`` of them (a bar on stderr with
    ``progress``): how every table, value or target, is built."""
    from tqdm import tqdm

    from ..core.text import bar_columns
    from . import dp

    n_masks = sum(len(level) for level in dp.masks_by_level(rules))
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    with tqdm(
        total=n_masks, desc=what, unit="mask", disable=not progress, leave=False, ncols=bar_columns()
    ) as bar:
        values = solve(bar.update)
    return values, time.perf_counter() - start_wall, time.process_time() - start_cpu


def get_or_build(load: Callable[[], T], build: Callable[[], T], build_if_missing: bool) -> T:
    """The one get-or-build of every table, value or target: ``load()``; when the table is missing
    and ``build_if_missing``, ``build()`` (which answers what ``load()`` would have)."""
    try:
        return load()
    except MissingTableError:
        if not build_if_missing:
            raise
    return build()


def get_table(
    rules=None,
    tables_dir=None,
    *,
    build_if_missing: bool = False,
    progress: bool = True,
    light: bool = False,
) -> Table:
    """Load a table (:func:`find_table`: the tables folder's, else the one shipped with the
    package), building it into the folder first when neither is there and ``build_if_missing``.

    ``light``: the values without numpy, see :func:`load_table`.
    """

    def build() -> Table:
        table = build_table(rules, tables_dir, progress=progress)
        return load_table(rules, tables_dir, light=True, check_hash=False) if light else table

    return get_or_build(lambda: find_table(rules, tables_dir, light=light), build, build_if_missing)


def verify_table(
    rules: str | RuleSet,
    tables_dir=None,
    tolerance: float = 1e-6,
    *,
    sample: int = 200,
    seed: int | None = None,
    full: bool = False,
) -> list[str]:
    """The problems of :func:`table_problems` in words (empty when the table checks out)."""
    return [str(e) for e in table_problems(rules, tables_dir, tolerance, sample=sample, seed=seed, full=full)]


def table_problems(
    rules: str | RuleSet,
    tables_dir=None,
    tolerance: float = 1e-6,
    *,
    sample: int = 200,
    seed: int | None = None,
    full: bool = False,
) -> list[TableError]:
    """Problems with a table, each a :class:`TableError` (empty list when it checks out): the
    tables folder's, or where the folder has none the one shipped with the package
    (:func:`find_table`).

    Beyond what :func:`load_table` checks: the empty card against the manifest and the
    reference value; the Bellman equation on ``sample`` reachable states drawn at random
    (``seed``), each state's value recomputed from the values of the states after it by
    :class:`solver.advice.advisor.TurnValues` (to 1e-9); with ``full``, the whole table rebuilt in
    memory and compared bit for bit.
    """
    rules = get_rules(rules)
    rules.require_single("a table")
    try:
        table = find_table(rules, tables_dir)
    except TableError as exc:
        return [exc]
    problems = []
    value = table.empty_card_value
    if table.manifest.get("empty_card_value") != value:
        problems.append(
            TableError(
                f"empty-card value {value} differs from the manifest's {table.manifest.get('empty_card_value')}"
            )
        )
    # a reference published in float32 (maxi's) holds to its own precision only
    tolerance = max(tolerance, REFERENCE_TOLERANCES.get(rules.id, 0.0))
    if rules.reference_value is not None and abs(value - rules.reference_value) > tolerance:
        problems.append(
            TableError(f"empty-card value {value:.7f} differs from the reference {rules.reference_value:.7f}")
        )
    problems += _check_bellman(table, sample, seed)
    if full:
        problems += _compare_rebuilt(table)
    return problems


def _check_bellman(table: Table, sample: int, seed: int | None) -> list[TableError]:
    """The Bellman equation on ``sample`` random reachable states (the full card excluded)."""
    import numpy as np

    from .turn import backed_up_value

    rules = table.rules
    rng = np.random.default_rng(seed)
    if is_packed(rules):  # 55 M reachable states: drawn by rejection, not listed (1.3 GB of indices)
        values = np.asarray(table.values)
        drawn: dict[tuple[int, int, int], None] = {}  # in the order drawn: the first ``sample`` kept
        while len(drawn) < sample:
            m = rng.integers(0, rules.full_mask, size=4 * sample)
            u = rng.integers(0, values.shape[1], size=4 * sample)
            ok = ~np.isnan(values[m, u, 0])
            drawn.update(dict.fromkeys((int(a), int(b), 0) for a, b in zip(m[ok], u[ok], strict=True)))
        states = {(0, 0, 0)} | set(list(drawn)[:sample])
    else:
        m, u, f = reachable_states(rules)
        keep = m != rules.full_mask
        m, u, f = m[keep], u[keep], f[keep]
        picks = rng.choice(len(m), size=min(sample, len(m)), replace=False) if sample > 0 else []
        states = {(0, 0, 0)} | {(int(m[i]), int(u[i]), int(f[i])) for i in picks}
    bad = []
    for state in sorted(states):
        stored, expected = float(table.values[state]), backed_up_value(rules, state, table.values)
        if not abs(stored - expected) <= BELLMAN_TOLERANCE * max(1.0, abs(expected)):
            bad.append((state, stored, expected))
    if not bad:
        return []
    state, stored, expected = bad[0]
    return [
        table.error(
            f"{len(bad)} of {len(states)} sampled states break the Bellman equation (e.g. {state}: "
            f"{stored!r} stored, {expected!r} from the states after it)"
        )
    ]


def _compare_rebuilt(table: Table) -> list[TableError]:
    """The table against a rebuild in memory, bit for bit (NaN on the same unreachable states)."""
    import numpy as np

    from . import dp

    rules = table.rules
    dp.load_kernels(rules)
    rebuilt = dp.solve(rules)
    stored = np.asarray(table.values)
    differ = stored.view(np.uint64) != rebuilt.view(np.uint64)
    if not differ.any():
        return []
    first = tuple(int(i[0]) for i in np.nonzero(differ))
    return [
        table.error(
            f"{int(differ.sum())} values differ from a rebuild (first at {first}: {stored[first]!r} stored, "
            f"{rebuilt[first]!r} rebuilt)"
        )
    ]

"""Play for a target score: the largest probability of scoring at least ``t`` more points.

:func:`solve_target` computes, for every reachable state between turns ``(mask, u, f)``
and every ``t = 1 .. t_max``, ``W(state, t)``: the probability of scoring at least ``t``
more points under the strategy that maximises exactly that probability (``W = 1`` for
``t <= 0``).  It is the dynamic program of :mod:`solver.engine.dp` with another objective
(:func:`solver.engine.kernels.target_objective`); see the section "Play for a target" of
:mod:`solver.engine.kernels` for the storage layout: :class:`TargetValues`.

A state whose upper total can no longer reach the bonus shares its row with the
smallest such total of its mask (their futures are the same, see
:func:`solver.engine.dp.level_lanes`).  A table stores probabilities in float32 (7
significant digits; every value within 2**-25 < 3e-8 of the float64 DP, which the build
runs, two levels of it in memory at a time), and of each row only the middle between its
run of 1.0 (certain targets) and its run of 0 (out of reach), so a stored table holds
each distinct probability once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.bounded import shown
from ..core.errors import TableError, UsageError
from ..core.rules import RuleSet, get_rules

if TYPE_CHECKING:  # numpy is imported where it is used: a single hint reads the table without it
    import numpy as np

DEFAULT_T_MAX = 500  # every target up to 500 points from the empty card
MAX_T_MAX = 5000  # the largest ``--t-max`` a target table is built for
T_CHUNK = 128  # targets per block of the DP (one state, consecutive targets)
#: blocks per piece of work at most: a block takes 0.2 to 1.5 ms (yahtzee, one core), so a
#: piece is well under a second -- what Ctrl-C waits for (the pieces not started are dropped)
PIECE_BLOCKS = 512
#: how far a stored (float32) probability may be from the float64 DP's: 2**-25 (< 3e-8) from
#: rounding, with room for the float64 sums' own 1e-15; the README promises 1e-7
FLOAT32_SLACK = 1e-7


@dataclass(frozen=True)
class TargetValues:
    """``W(state, t)``: 1 for ``t <= lead[state]``, ``w[off[state] + t - 1]`` for ``lead[state] <
    t <= length[state]``, 0 beyond (``t >= 1``).

    ``w`` float32 (a table, :func:`solve_target`) or float64 (``exact=True``), shape (n,);
    ``off``/``lead``/``length`` int64 of shape ``(2**n_boxes, upper_cap + 1, n_flags)``:
    ``off`` is where ``t = 1`` would be (the first value stored is ``w[off + lead]``), -1 on
    unreachable states; ``t_max`` the largest target stored.
    """

    w: np.ndarray
    off: np.ndarray
    lead: np.ndarray
    length: np.ndarray
    t_max: int

    def probability(self, state: tuple[int, int, int], t: int) -> float:
        """``W(state, t)``: the largest probability of at least ``t`` more points from ``state``."""
        if t > self.t_max:
            raise ValueError(f"targets up to {self.t_max} points are stored, not {t}")
        if t <= int(self.lead[state]):
            return 1.0
        return float(self.w[int(self.off[state]) + t - 1]) if t <= int(self.length[state]) else 0.0

    def row(self, state: tuple[int, int, int]) -> np.ndarray:
        """``W(state, t)`` for ``t = 0 .. t_max`` (float64, ``t_max + 1``)."""
        import numpy as np

        out = np.zeros(self.t_max + 1)
        lead, length, off = int(self.lead[state]), int(self.length[state]), int(self.off[state])
        out[: lead + 1] = 1.0
        out[lead + 1 : length + 1] = self.w[off + lead : off + length]
        return out


def solve_target(
    rules: RuleSet,
    t_max: int = DEFAULT_T_MAX,
    progress: Callable[[int], None] | None = None,
    threads: int | None = None,
    *,
    exact: bool = False,
) -> TargetValues:
    """``W`` of every reachable state for targets ``1 .. t_max``.

    The DP runs in float64 throughout, from the targets past the points sure to come (W = 1
    up to them, exactly; :func:`solver.engine.kernels.points_to_come`); a level (the states
    with the same number of boxes filled) reads only the level after it, so only those two
    are held in float64.  Each
    level, once solved, is stored as a table stores it: float32 (within 2**-25 < 3e-8 of
    the float64 value), each row without its run of 1.0 and its run of 0 (in float32) --
    or, with ``exact``, as computed (float64, whole rows: the reference of the tests).
    A state stores the targets up to the most points it can still score (beyond, W = 0);
    a state whose upper total is hopeless shares its mask's representative row.
    ``progress(n)`` is called after each level with the number of masks done; the result
    does not depend on ``threads`` (the rows are in level order, lanes in mask order).
    """
    import numpy as np

    from ..core.threads import Workers, piece_count
    from . import arrays as A
    from . import dp, kernels

    shape = (1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)
    levels = dp.masks_by_level(rules)
    plans = [dp.level_lanes(rules, masks) for masks in levels]
    args = dp.rule_arrays(rules)
    choose = rules.order == "choose"
    directed = [dp.rule_arrays(rules.directed(d)) for d in ("down", "up")] if choose else []

    # the most points still to come (how many targets each state stores) and the points sure to
    # come (W = 1 up to them: those targets are not computed)
    most = np.zeros(shape, dtype=np.int64)
    sure = np.zeros(shape, dtype=np.int64)

    def points_of_level(lanes, level_args, most=most, sure=sure) -> None:
        # a level's lanes read only the level after it: any cut of them gives the same integers
        def work_on(i0: int, i1: int) -> None:
            kernels.points_to_come(*(a[i0:i1] for a in lanes), most, sure, level_args)

        workers.run(work_on, 0, len(lanes[0]), pieces=piece_count(len(lanes[0]), workers.threads, 4096))

    with Workers(threads) as workers:
        for masks, (lanes, (copy_mask, copy_u, copy_from)) in zip(levels, plans, strict=True):
            if choose and masks.tolist() == [0]:  # the direction is chosen first: the better one
                both = []
                for level_args in directed:
                    points_of_level(lanes, level_args)
                    both.append((most[lanes].copy(), sure[lanes].copy()))
                most[lanes] = np.maximum(both[0][0], both[1][0])
                sure[lanes] = np.maximum(both[0][1], both[1][1])
            else:
                points_of_level(lanes, args)
            for points in (most, sure):
                points[copy_mask, copy_u] = points[copy_mask, copy_from]
    # the float64 rows of the DP, targets past the sure ones: a level in one half of ``work``,
    # the level after it in the other
    lane_lens = [np.minimum(most[lanes], t_max) for lanes, _ in plans]
    lane_sure = [np.minimum(sure[lanes], n) for (lanes, _), n in zip(plans, lane_lens, strict=True)]
    del most, sure, points_of_level  # (its defaults hold them)
    half = max((int((n - k).sum()) for n, k in zip(lane_lens, lane_sure, strict=True)), default=0)
    work = np.zeros(2 * half)
    work_off = np.zeros(shape, dtype=np.int64)  # the full card: no row, W = 0 for every t >= 1
    work_len = np.zeros(shape, dtype=np.int64)
    work_lead = np.zeros(shape, dtype=np.int64)
    # the stored table, level by level
    off = np.full(shape, -1, dtype=np.int64)
    lead = np.zeros(shape, dtype=np.int64)
    length = np.zeros(shape, dtype=np.int64)
    off[rules.full_mask] = 0
    # the table's values, level after level: room for every value computed (a row loses its
    # runs of 1.0 and 0 when stored); the pages never written are never taken from the system
    out = np.empty(sum(int((n - k).sum()) for n, k in zip(lane_lens, lane_sure, strict=True)),
                   dtype=np.float64 if exact else np.float32)  # fmt: skip
    used = 0

    def solve_level(lanes, level_args) -> None:
        lane_len, lane_lead = work_len[lanes], work_lead[lanes]
        chunks = (lane_len - lane_lead + T_CHUNK - 1) // T_CHUNK
        block_state = np.repeat(np.arange(len(lane_len), dtype=np.int64), chunks)
        first_block = np.repeat(np.cumsum(chunks) - chunks, chunks)
        block_t0 = 1 + lane_lead[block_state]
        block_t0 += T_CHUNK * (np.arange(len(block_state), dtype=np.int64) - first_block)
        block_n = np.minimum(T_CHUNK, lane_len[block_state] + 1 - block_t0)

        states, table = A.States(*lanes), A.TargetArrays(work, work_off, work_lead, work_len)

        def work_on(i0: int, i1: int) -> None:
            kernels.solve_target_blocks(block_state, block_t0, block_n, i0, i1, states, table, level_args)

        pieces = piece_count(len(block_state), workers.threads, PIECE_BLOCKS, at_least=16)
        workers.run(work_on, 0, len(block_state), pieces=pieces)

    def store_level(lanes, starts, computed, lane_sure) -> None:
        """The level's rows ``work[starts[i] : starts[i] + computed[i]]`` (targets past the sure
        ones) into the table."""
        nonlocal used
        if exact:
            a, b = int(starts[0]) if len(starts) else 0, int((starts + computed).max(initial=0))
            out[used : used + b - a] = work[a:b]
            off[lanes], lead[lanes] = used + starts - a - lane_sure, lane_sure
            length[lanes] = lane_sure + computed
            used += b - a
            return
        row_lead, row_end = np.empty_like(computed), np.empty_like(computed)
        kernels.trim_rows(work, starts, computed, row_lead, row_end)
        middle = row_end - row_lead
        dst = np.cumsum(middle) - middle
        n = int(middle.sum())
        kernels.pack_rows(work, starts, row_lead, row_end, out[used : used + n], dst)
        lead[lanes], length[lanes] = lane_sure + row_lead, lane_sure + row_end
        off[lanes] = used + dst - lead[lanes]
        used += n

    with Workers(threads) as workers:
        for level, (masks, (lanes, (copy_mask, copy_u, copy_from)), lane_len, lane_lead) in enumerate(
            zip(levels, plans, lane_lens, lane_sure, strict=True)
        ):
            computed = lane_len - lane_lead
            starts = half * (level % 2) + np.cumsum(computed) - computed
            work_off[lanes], work_lead[lanes], work_len[lanes] = starts - lane_lead, lane_lead, lane_len
            for a in (work_off, work_lead, work_len):
                a[copy_mask, copy_u] = a[copy_mask, copy_from]
            if choose and masks.tolist() == [0]:
                # the direction is chosen before the first roll: the better of the two
                span = slice(half * (level % 2), half * (level % 2) + int(computed.sum()))
                solve_level(lanes, directed[0])
                down = work[span].copy()
                solve_level(lanes, directed[1])
                work[span] = np.fmax(down, work[span])
            else:
                solve_level(lanes, args)
            store_level(lanes, starts, computed, lane_lead)
            for a in (off, lead, length):
                a[copy_mask, copy_u] = a[copy_mask, copy_from]
            if progress is not None:
                progress(len(masks))
    return TargetValues(out[:used], off, lead, length, t_max)


# --- table files (the table store's kind "target": solver.engine.store.TARGET) ---------------
def target_paths(rules: RuleSet, tables_dir=None):
    """``(values, index, manifest)`` paths of the target table of ``rules``."""
    from .store import TARGET, resolve_dir

    return TARGET.paths(rules, resolve_dir(tables_dir))


@dataclass(frozen=True)
class TargetTable:
    """A loaded target table: ``probability(state, t)`` as :class:`TargetValues`, from files.

    ``w`` and ``index`` are numpy memmaps, or :class:`~solver.engine.tables.ValueFile` when loaded
    with ``light=True`` (a single hint: no numpy).  ``index[mask, u, f]`` is ``(start, length,
    lead)``: W = 1 for ``t <= lead``, ``w[start + t - lead - 1]`` for ``lead < t <= length``, 0
    beyond (``t >= 1``).
    """

    rules: RuleSet
    w: object
    index: object
    manifest: object  # a solver.engine.store.Manifest
    path: object
    folder: object = None  # the tables folder (a Path)

    @property
    def t_max(self) -> int:
        return int(self.manifest["t_max"])

    def probability(self, state: tuple[int, int, int], t: int) -> float:
        """The largest probability of at least ``t`` more points from ``state`` (start of a turn)."""
        if t <= 0:
            return 1.0
        if t > self.t_max:
            raise UsageError(
                f"the {self.rules.id} target table holds targets up to {self.t_max} points, not {t}"
            )
        off, lead, length = self.span(state)
        if t <= lead:
            return 1.0
        return self.stored(off, t) if t <= length else 0.0

    def span(self, state: tuple[int, int, int]) -> tuple[int, int, int]:
        """``(off, lead, length)`` of ``state``'s row of targets (W = 1 for ``t <= lead``,
        ``w[off + t - 1]`` up to ``length``, 0 beyond), checked against the values and
        ``t_max``: a damaged index is a :class:`TableError`, never an IndexError or a wrong 0
        (a table read without numpy, for one hint, is checked this way, entry by entry)."""
        mask, u, f = state
        start, length, lead = (int(self.index[mask, u, f, k]) for k in range(3))
        if not (
            0 <= lead <= length <= self.t_max and 0 <= start and start + length - lead <= self.w.shape[0]
        ):
            raise self.damaged(
                f"state {state} has the row (start {start}, length {length}, lead {lead}), outside "
                f"the {self.w.shape[0]} values or longer than t_max {self.t_max}"
            )
        return start - lead, lead, length

    def stored(self, off: int, t: int) -> float:
        """The probability of target ``t`` in the row at ``off`` (``lead < t <=`` its length, see
        :meth:`span`), checked to be one: a :class:`TableError` otherwise."""
        p = float(self.w[off + t - 1])
        if not 0.0 <= p <= 1.0:
            raise self.damaged(f"it holds {p!r} as a probability")
        return p

    def damaged(self, problem: str) -> TableError:
        """The :class:`TableError` of this table damaged by ``problem`` (fix: rebuild)."""
        from .store import TARGET, table_error

        return table_error(
            TARGET, self.rules, self.folder, f"target table {self.path} is damaged: {problem}", "rebuild"
        )

    def arrays(self) -> TargetValues:
        """The table as numpy arrays for the kernels (no copy)."""
        import numpy as np

        from . import dp

        index = np.asarray(self.index)
        lead = np.ascontiguousarray(index[..., 2])
        return TargetValues(
            dp.kernel_values(self.w, np.float32),
            index[..., 0] - lead,
            lead,
            np.ascontiguousarray(index[..., 1]),
            self.t_max,
        )


def _index_array(values: TargetValues) -> np.ndarray:
    import numpy as np

    reachable = values.off >= 0
    start = np.where(reachable, values.off + values.lead, 0)
    return np.stack([start, values.length, values.lead], axis=-1).astype(np.int64)


def save_target(
    rules: RuleSet,
    values: TargetValues,
    tables_dir=None,
    *,
    build_seconds: float,
    cpu_seconds: float,
    peak_bytes: int,
    ev_play: dict | None = None,
) -> None:
    """Write a target table (float32 values, :func:`solve_target`) and its manifest atomically
    (:func:`solver.engine.store.save`)."""
    import time

    import numpy as np

    from . import store
    from .tables import package_version

    if values.w.dtype != np.float32:
        raise ValueError("a target table stores float32 values (solve_target without exact)")
    empty = (0, 0, 0)
    facts = {
        "t_max": values.t_max,
        "layout": "W(state, t) = 1 for t <= index[mask, u, f, 2], values[index[mask, u, f, 0] + t - index[mask, u, f, 2] - 1] for t <= index[mask, u, f, 1], else 0 (t >= 1); float32, within 3e-8 of the float64 DP",
        "empty_card": {
            str(t): values.probability(empty, t)
            for t in (100, 200, 250, 300, 350, 400, 500)
            if t <= values.t_max
        },
        "build_seconds": round(build_seconds, 3),
        "build_cpu_seconds": round(cpu_seconds, 3),
        "build_peak_bytes": int(peak_bytes),
        "ev_play_empty_card": ev_play or {},
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "package_version": package_version(),
    }
    arrays = {"values": values.w, "index": _index_array(values)}
    store.save(store.TARGET, rules, store.resolve_dir(tables_dir), arrays, facts)


#: what building the yahtzee target table (targets up to 500) takes, measured on a 2-core machine
#: (``benchmarks/bench_target.py``: the whole ``tables build --target`` command): its size on
#: disk, its peak memory and its CPU time; other rule sets scale by their number of states
YAHTZEE_TARGET_BYTES = 548_187_100
YAHTZEE_TARGET_PEAK_BYTES = 1_390_000_000
YAHTZEE_TARGET_CPU_SECONDS = 120.0  # 100-139 CPU s measured on two days (2026-12-01, -02)


#: the probe's CPU seconds per thread on the machine that measured
#: :data:`YAHTZEE_TARGET_CPU_SECONDS` (:func:`machine_probe`: 0.134-0.172 s on 5 runs at load 4.3, 2026-12-02)
PROBE_REFERENCE_CPU_SECONDS = 0.14
PROBE_SIZE = 1 << 20  # numbers each thread sorts, :data:`PROBE_ROUNDS` times
PROBE_ROUNDS = 2


def machine_probe(threads: int | None = None) -> float:
    """How many times longer than on the measuring machine (quiet) a build's work takes here and
    now: ``threads`` threads (default: all cores) each sort :data:`PROBE_SIZE` numbers
    :data:`PROBE_ROUNDS` times (numpy releases the GIL, like the kernels), about a tenth of a
    second.  The probe's CPU seconds against :data:`PROBE_REFERENCE_CPU_SECONDS` give this
    machine's speed; its wall seconds against its CPU seconds per thread, the share of the cores
    the other programs leave it (a loaded machine)."""
    import threading
    import time

    import numpy as np

    from ..core.threads import resolve_threads

    n = resolve_threads(threads)
    numbers = np.random.default_rng(0).random(PROBE_SIZE)

    def sort_it() -> None:
        for _ in range(PROBE_ROUNDS):
            np.sort(numbers, kind="quicksort")

    np.sort(numbers[:1024])  # the code warm
    workers = [threading.Thread(target=sort_it) for _ in range(n)]
    wall, cpu = time.perf_counter(), time.process_time()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    per_thread = max(cpu / n, 1e-6)
    speed = per_thread / PROBE_REFERENCE_CPU_SECONDS  # > 1: a slower machine than the measuring one
    shared = max(1.0, wall / per_thread)  # > 1: the threads waited for a core
    return speed * shared


def build_estimate(rules, threads: int | None = None, *, probe: bool = False) -> tuple[int, float]:
    """``(bytes, seconds)``: about how big the target table of ``rules`` is on disk and how long its build takes on ``threads`` cores (default: all), scaled
    from the yahtzee figures by the number of states, ``2**n_boxes * (upper_cap + 1) * n_flags``
    -- an upper bound for smaller cards (they reach fewer targets), within half for larger ones.
    Cheap: nothing is solved (an exact count costs half a minute for yahtzee).  With ``probe`` the
    seconds are this machine's, as loaded now (:func:`machine_probe`, a tenth of a second)."""
    from ..core.threads import resolve_threads

    rules = get_rules(rules)
    yahtzee = get_rules("yahtzee")
    ratio = _states(rules) / _states(yahtzee)
    seconds = YAHTZEE_TARGET_CPU_SECONDS * ratio / resolve_threads(threads)
    if probe:
        seconds *= machine_probe(threads)
    return int(YAHTZEE_TARGET_BYTES * ratio), seconds


def _states(rules: RuleSet) -> int:
    return (1 << rules.n_boxes) * (rules.upper_cap + 1) * rules.n_flags


def build_estimate_text(rules, threads: int | None = None) -> str:
    """:func:`build_estimate` in words, timed on this machine as loaded now (a probe): ``about 60
    seconds on 2 cores and 523 MiB of disk (1.3 GiB of memory while it builds)`` (the peak scaled
    as the size)."""
    from ..core.threads import resolve_threads

    size, seconds = build_estimate(rules, threads, probe=True)
    if seconds < 5:
        when = "a few seconds"
    elif seconds < 90:
        when = f"about {5 * round(seconds / 5):.0f} seconds"
    else:
        when = f"about {round(seconds / 60):.0f} minutes"
    n = resolve_threads(threads)
    peak = size * YAHTZEE_TARGET_PEAK_BYTES / YAHTZEE_TARGET_BYTES

    def amount(b: float) -> str:
        return f"{b / 2**30:.1f} GiB" if b >= 2**30 else f"{max(1, round(b / 2**20))} MiB"

    cores = f"{n} core{'s' if n != 1 else ''}"
    return f"{when} on {cores} and {amount(size)} of disk ({amount(peak)} of memory while it builds)"


def get_target(
    rules,
    tables_dir=None,
    *,
    build_if_missing: bool = False,
    progress: bool = True,
    light: bool = False,
    announce: Callable[[str], object] | None = None,
) -> TargetTable:
    """The target table of ``rules`` (:func:`load_target`), built first when missing and
    ``build_if_missing`` (``announce`` is told so first: a build takes minutes); the one
    get-or-build of target tables, as :func:`solver.engine.tables.get_table` is of value tables."""
    from .tables import get_or_build

    def build() -> TargetTable:
        if announce is not None:
            announce(
                f"building the {get_rules(rules).id} target table (once; {build_estimate_text(rules)}) ..."
            )
        build_target(rules, tables_dir, progress=progress)
        return load_target(rules, tables_dir, light=light)

    return get_or_build(lambda: load_target(rules, tables_dir, light=light), build, build_if_missing)


def load_target(rules, tables_dir=None, *, light: bool = False, check_hash: bool = False) -> TargetTable:
    """Open the target table of ``rules`` after checking it against its manifest.

    Always: the store's checks (:func:`solver.engine.store.open_files`: both files regular
    ``.npy`` files of the manifest's shapes, exact sizes, the index's checksum), ``t_max`` in
    range and against the empty card (see :func:`_check_empty_card`) and a Bellman step on a few
    states drawn afresh (:func:`check_sampled_target`).  With numpy (not ``light``): every
    index entry (offset and length inside the values, length at most ``t_max``) and every
    probability (in [0, 1]), once; ``light`` (a single hint, no numpy): each entry and
    probability as a lookup reads it (:meth:`TargetTable.span`, :meth:`TargetTable.stored`) -- a
    scan of the whole index would double a hint's time.  ``check_hash``: also the checksum of
    the values (a second or more for ``yahtzee``; done by ``tables verify``).  Raises
    :class:`MissingTableError` / :class:`TableError`; out of memory (``mmap`` under a small
    ``ulimit -v``) goes through as it is (not a damaged table).
    """
    from . import store

    rules = get_rules(rules)
    rules.require_single("a target table")
    files = store.open_files(store.TARGET, rules, store.resolve_dir(tables_dir), check_hash=check_hash)
    w, index = files.files["values"], files.files["index"]
    t_max = files.manifest.get("t_max")
    if type(t_max) is not int or not 1 <= t_max <= MAX_T_MAX:
        files.close()
        raise files.error(f"target table {files.path} does not match its manifest: t_max {shown(t_max)}")
    if not light:
        import numpy as np

        w_array = np.asarray(w)
        index_array = np.asarray(index)
        start, length, lead = index_array[..., 0], index_array[..., 1], index_array[..., 2]
        if (
            (start < 0).any()
            or (lead < 0).any()
            or (length < lead).any()
            or (length > t_max).any()
            or (start + length - lead > len(w_array)).any()
        ):
            raise files.damaged("an index entry out of range")
        # every probability, once (the kernels read them unchecked); NaN fails both comparisons
        if len(w_array) and not (w_array.min() >= 0.0 and w_array.max() <= 1.0):
            raise files.damaged("values outside [0, 1]")
        store.release_pages(w_array)  # the scan's pages (half a GB for yahtzee): read again as used
        w, index = w_array, index_array
    table = TargetTable(rules, w, index, files.manifest, files.path, files.folder)
    _check_empty_card(table)
    problem = check_sampled_target(table)
    if problem is not None:
        raise table.damaged(problem)
    return table


class _ReadOnce:
    """A target table's :meth:`TargetTable.probability` with each state's row (its index entry,
    checked) read once: a turn reads the rows of its next states many times, one per score."""

    def __init__(self, table: TargetTable):
        self.table, self._spans = table, {}

    def probability(self, state: tuple[int, int, int], t: int) -> float:
        span = self._spans.get(state)
        if span is None:
            span = self._spans[state] = self.table.span(state)
        off, lead, length = span
        if t <= lead:  # t <= 0 included
            return 1.0
        return self.table.stored(off, t) if t <= length else 0.0


def target_backed_up(table: TargetTable, state: tuple[int, int, int], t: int) -> float:
    """``W(state, t)`` from the stored probabilities of the states after it: one backward step of
    the target DP (:class:`solver.engine.turn.TargetTurnValues`; under ``order=choose`` the empty
    card takes the better direction, as the build does)."""
    from .turn import TargetTurnValues

    rules, table = table.rules, _ReadOnce(table)
    if rules.order == "choose" and state[0] == 0:
        return max(TargetTurnValues(rules.directed(d), state, table, t).value for d in ("down", "up"))
    return TargetTurnValues(rules, state, table, t).value


#: States whose Bellman equation (at one target each) every load of a target table checks
#: (:func:`check_sampled_target`): this many uniformly, so that a table broken on a share ``p``
#: of its states (at the targets they store) loads with probability at most ``(1 - p) ** 4``
#: (p = 0.5: 6%; p = 0.8: 0.2%), and one of each of :func:`target_load_levels`.  Fewer than a value
#: table's (:data:`solver.engine.tables.LOAD_SAMPLE`, every level): a target hint loads both
#: tables, and the two checks together are held to 30 ms (``benchmarks/bench_load_check.py``)
TARGET_LOAD_SAMPLE = 4


def target_load_levels(rules: RuleSet) -> tuple[int, ...]:
    """The levels (boxes filled) each load of a target table draws a state of: the first two
    and the last two, which uniform draws hardly ever meet."""
    n = rules.n_boxes
    return tuple(sorted({0, min(1, n - 1), max(n - 2, 0), n - 1}))


def check_sampled_target(table: TargetTable, uniform: int = TARGET_LOAD_SAMPLE, rng=None) -> str | None:
    """What is wrong with a target table's probabilities on a fresh draw, or ``None``: the states
    of :func:`solver.engine.tables.sample_states` (one of each of :func:`target_load_levels`,
    ``uniform`` uniformly; ``rng`` a :class:`random.Random`, default a fresh one), each with a target drawn uniformly
    from the ones its row stores (neither certain nor out of reach: what the values file holds,
    whose sha256 a load does not check), against :func:`target_backed_up` to
    :data:`FLOAT32_SLACK`.  A state whose row stores none is skipped (its 1s and 0s come from
    the index, which its sha256 checks)."""
    import random

    from .tables import sample_states

    rng = rng if rng is not None else random.Random()
    bad, n = [], 0
    for state in sample_states(table.rules, uniform, rng, target_load_levels(table.rules)):
        _, lead, length = table.span(state)
        if length <= lead:
            continue
        t = rng.randint(lead + 1, length)
        n += 1
        stored, expected = table.probability(state, t), target_backed_up(table, state, t)
        # both within 2**-25 of the float64 DP (see verify_target)
        if not abs(stored - expected) <= FLOAT32_SLACK:
            bad.append((state, t, stored, expected))
    if not bad:
        return None
    state, t, stored, expected = bad[0]
    return (
        f"{len(bad)} of {n} sampled (state, target) pairs break the Bellman equation (e.g. {state}, "
        f"t={t}: {stored!r} stored, {expected!r} from the states after it)"
    )


def _check_empty_card(table: TargetTable) -> None:
    """The manifest's ``t_max`` against what the build stored with it: the probabilities of
    expected-score play from the empty card, one per target ``1 .. t_max`` (a manifest that
    claims more targets than the table holds would answer 0 for every option), none above
    the table's own (the best probability of each target; 0 beyond the empty card's row)."""
    t_max = table.t_max
    ev_play = table.manifest.get("ev_play_empty_card")
    if not isinstance(ev_play, dict) or len(ev_play) != t_max:
        held = len(ev_play) if isinstance(ev_play, dict) else 0
        raise table.damaged(f"the manifest's t_max {t_max} does not match its {held} check values")
    off, lead, length = table.span((0, 0, 0))
    for t in range(1, t_max + 1):
        p_ev = ev_play.get(str(t))
        best = 1.0 if t <= lead else table.stored(off, t) if t <= length else 0.0
        if type(p_ev) not in (int, float) or not 0.0 <= p_ev <= best + FLOAT32_SLACK:
            raise table.damaged(
                f"P(>= {t}) from the empty card is {best!r}, expected-score play gets {shown(p_ev)}"
            )


def build_target(
    rules, tables_dir=None, *, t_max: int = DEFAULT_T_MAX, progress: bool = True, threads: int | None = None
) -> TargetTable:
    """Solve the target DP of ``rules`` for targets up to ``t_max`` and save it (tqdm bar)."""
    import resource

    from ..core.fileio import remove_stale_temporaries
    from .tables import check_writable, timed_solve

    rules = get_rules(rules)
    rules.require_single("a target table")
    folder = target_paths(rules, tables_dir)[0].parent
    check_writable(folder)
    remove_stale_temporaries(folder, (".npy", ".json"))
    # what expected-score play reaches from the empty card, for ``value --target`` at once;
    # first, so that its memory is given back before the DP's is taken (the peak is the larger)
    from ..core.card import ScoreCard
    from .compiling import shown
    from .distribution import score_distribution
    from .tables import get_table

    with shown(progress):  # a bar while the kernels compile (a first run), under any command
        ev_table = get_table(rules, tables_dir, build_if_missing=True, progress=progress)
        dist = score_distribution(
            ScoreCard.empty(rules), ev_table.values, outcomes=False, threads=threads, points_at_most=t_max
        )
        ev_play = {str(t): dist.p_at_least(t) for t in range(1, t_max + 1)}
        del dist, ev_table
        values, wall, cpu = timed_solve(
            rules,
            f"building {rules.id} target table",
            lambda tick: solve_target(rules, t_max, progress=tick, threads=threads),
            progress,
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    save_target(
        rules, values, tables_dir, build_seconds=wall, cpu_seconds=cpu, peak_bytes=peak, ev_play=ev_play
    )
    del values  # before the load checks every value (its pages are the file's, mapped)
    return load_target(rules, tables_dir)


def verify_target(rules, tables_dir=None, *, sample: int = 100, seed: int | None = None) -> list[str]:
    """The problems of :func:`target_problems` in words (empty when the table checks out)."""
    return [str(e) for e in target_problems(rules, tables_dir, sample=sample, seed=seed)]


def target_problems(
    rules, tables_dir=None, *, sample: int = 100, seed: int | None = None
) -> list[TableError]:
    """Problems with a built target table, each a :class:`TableError` (empty when it checks out):
    both checksums, the index, the empty card against the manifest, and ``sample`` random (state,
    target) pairs recomputed from the states after them by :class:`solver.advice.advisor.TargetTurnValues`."""
    import random

    from .tables import reachable_states

    rules = get_rules(rules)
    rules.require_single("a target table")
    try:
        table = load_target(rules, tables_dir, check_hash=True)
    except TableError as exc:
        return [exc]
    problems = []
    for t, p in table.manifest.get("empty_card", {}).items():
        if table.probability((0, 0, 0), int(t)) != p:
            problems.append(TableError(f"P(>= {t}) from the empty card differs from the manifest's {p}"))
    m, u, f = reachable_states(rules)
    states = [(int(a), int(b), int(c)) for a, b, c in zip(m, u, f, strict=True) if a != rules.full_mask]
    rng = random.Random(seed)
    picks = [(rng.choice(states), rng.randint(1, table.t_max)) for _ in range(sample)] + [
        ((0, 0, 0), min(200, table.t_max))
    ]
    bad = []
    for state, t in picks:
        stored, expected = table.probability(state, t), target_backed_up(table, state, t)
        # both within 2**-25 of the float64 DP: the stored value and (Bellman's max and mean
        # move no value further than the largest move of their inputs) the recomputed one
        if not abs(stored - expected) <= FLOAT32_SLACK:
            bad.append((state, t, stored, expected))
    if bad:
        state, t, stored, expected = bad[0]
        problems.append(
            table.damaged(
                f"{len(bad)} of {len(picks)} sampled (state, target) pairs break the Bellman equation "
                f"(e.g. {state}, t={t}: {stored!r} stored, {expected!r} from the states after it)"
            )
        )
    return problems

"""The opponent model on disk: the :class:`~solver.engine.distribution.Residuals` of a value table
(the points still to come under expected-score play, per state), kept in the table store as the
kind ``opponent`` (:data:`solver.engine.store.OPPONENT`) beside the target table, whose win bots
read it.

It is a cache: solved in half a minute of CPU (``yahtzee``) from the value table, so a model that
is missing, stale (another value table, by its sha256, or other parameters: the store's one stale
rule) or damaged is solved again and stored, never an error.  Every read checks what the store
checks of every table (both checksums, the headers, exact sizes) and, with the value table, the
means of rows drawn afresh (:func:`residual_means_problem`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core.errors import TableError
from ..core.rules import RuleSet
from . import store
from .distribution import (
    RESIDUAL_CUT,
    RESIDUAL_EPS,
    RESIDUAL_EXACT_OPEN,
    RESIDUAL_MEAN_STEPS,
    RESIDUAL_SD_STEP,
    Residuals,
    max_points,
    solve_residuals,
)


def residual_paths(rules: RuleSet, folder):
    """``(values, index, manifest)`` paths of the stored :class:`Residuals` of ``rules``."""
    return store.OPPONENT.paths(rules, folder)


def residual_settings(table_sha: str) -> dict:
    """What a stored model must have been solved with to be read (the store's stale rule): the
    value table (its sha256) and this version's parameters of the rows."""
    return {
        "value_table_sha256": table_sha,
        "exact_open": RESIDUAL_EXACT_OPEN,
        "eps": RESIDUAL_EPS,
        "sd_step": RESIDUAL_SD_STEP,
        "mean_steps": RESIDUAL_MEAN_STEPS,
        "cut": RESIDUAL_CUT,
    }


#: states whose stored row :func:`residual_means_problem` holds to the value table on each read
RESIDUAL_LOAD_SAMPLE = 64
#: how far a row's mean may be from the value table's value of its state: an exact row drops at
#: most ``RESIDUAL_EPS`` off each end and holds float32 (measured: within 6e-5 on reduced games);
#: a normal row's mean is on a grid of 1 / RESIDUAL_MEAN_STEPS point (within 1/8, measured 0.126)
RESIDUAL_MEAN_SLACK = (1e-3, 0.5 / RESIDUAL_MEAN_STEPS + 0.075)


def residual_means_problem(rules: RuleSet, res: Residuals, values, rng=None) -> str | None:
    """What is wrong with ``res`` against the value table ``values`` it models, or ``None``: on
    states drawn afresh (:func:`solver.engine.tables.sample_states`, one of each level and
    :data:`RESIDUAL_LOAD_SAMPLE` uniformly), the mean of each state's row of points to come is the
    expected-score value of the state (the model is of expected-score play) to
    :data:`RESIDUAL_MEAN_SLACK`.  A row moved or scaled by a forger fails it; a row reshaped
    around the same mean does not (the rows past ``exact_open`` open boxes are normals, no
    Bellman step reproduces them)."""
    from .tables import sample_states

    bad = []
    states = sample_states(rules, RESIDUAL_LOAD_SAMPLE, rng)
    for state in states:
        lo, row = res.row(state)
        mean = float(np.dot(np.arange(lo, lo + len(row), dtype=np.float64), row.astype(np.float64)))
        value = float(values[state])
        slack = RESIDUAL_MEAN_SLACK[rules.n_boxes - state[0].bit_count() > res.exact_open]
        if not abs(mean - value) <= slack:
            bad.append((state, mean, value))
    if not bad:
        return None
    state, mean, value = bad[0]
    return f"{len(bad)} of {len(states)} sampled rows have means off their values (e.g. {state}: {mean!r}, not {value!r})"


def load_residuals(rules: RuleSet, folder, table_sha: str, values=None) -> Residuals | None:
    """The :class:`Residuals` stored in ``folder`` for the value table of sha256 ``table_sha``,
    or None when there are none, they are stale (another table or other settings) or anything
    about them does not check out (they are solved again then): the store's checks
    (:func:`solver.engine.store.open_files`: both files' sha256 against the manifest, their
    headers), every index entry inside the values, every value a probability, and with the
    value table ``values`` the means of rows drawn afresh (:func:`residual_means_problem`)."""
    try:
        files = store.open_files(store.OPPONENT, rules, Path(folder), settings=residual_settings(table_sha))
    except TableError:
        return None
    p, idx = np.array(files.files["values"]), np.array(files.files["index"])
    files.close()
    off, lo, length = (np.ascontiguousarray(idx[..., k]) for k in range(3))
    reach = off >= 0
    top = max_points(rules)
    if not (
        (length[reach] >= 1).all()
        and (off[reach] + length[reach] <= len(p)).all()
        and (np.abs(lo[reach]) <= top).all()
        and (length[reach] <= 4 * top + 8).all()
        and len(p)
        and p.min() >= 0.0
        and p.max() <= 1.0
    ):
        return None
    res = Residuals(p, off, lo, length, RESIDUAL_EXACT_OPEN, RESIDUAL_EPS)
    if values is not None and residual_means_problem(rules, res, values) is not None:
        return None
    return res


def save_residuals(rules: RuleSet, res: Residuals, folder, table_sha: str) -> None:
    """Store ``res`` in ``folder`` (atomically; a :class:`TableError` when it cannot be written)."""
    index = np.stack([res.off, res.lo, res.length], axis=-1)
    store.save(
        store.OPPONENT, rules, Path(folder), {"values": res.p, "index": index}, residual_settings(table_sha)
    )


def get_residuals(rules: RuleSet, values, folder=None, table_sha: str | None = None) -> Residuals:
    """The :class:`Residuals` of the value table ``values`` (sha256 ``table_sha``): read from
    ``folder`` when stored there, else solved (:func:`solve_residuals`: half a minute of CPU for
    ``yahtzee``) and stored there when the folder can be written (else kept in memory only)."""
    if folder is not None and table_sha:
        stored = load_residuals(rules, folder, table_sha, values)
        if stored is not None:
            return stored
    res = solve_residuals(rules, values)
    if folder is not None and table_sha:
        try:
            save_residuals(rules, res, folder, table_sha)
        except TableError:  # a read-only tables folder: solved again by the next process
            pass
    return res

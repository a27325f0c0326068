"""The kernels in plain Python: every kernel runs with ``NUMBA_DISABLE_JIT=1`` and computes what
it computes compiled, bit for bit.

:func:`workload` plays a tiny game (three boxes: sixes, yahtzee, chance, with the Joker and the
Yahtzee bonus) through every engine path that reaches a kernel -- the value and target DPs, the
distributions, the opponent model, every bot's games with their grading, a match of the win bot,
the triple card, batch advice and an export -- and returns what each produced.
:func:`test_every_kernel_runs_with_the_jit_off_and_computes_the_same` runs it in a child process
with the JIT off (each kernel's first call recorded) and here compiled, and compares.

For coverage of the kernels' lines run the same subset under coverage with the JIT off::

    NUMBA_DISABLE_JIT=1 coverage run tests/test_kernels_plain.py /tmp/out.npz
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNEL_DIR = ROOT / "solver" / "engine" / "kernels"
#: sixes, yahtzee, chance of Yahtzee's card: the Joker, the Yahtzee bonus, an upper box
TINY = "yahtzee+without=ones,twos,threes,fours,fives,three_of_a_kind,four_of_a_kind,full_house,small_straight,large_straight"
#: sixes, chance and Maxi Yatzy of six dice: the six-dice turn (the lanes played from their blocks)
TINY_SIX = "maxi+without=ones,twos,threes,fours,fives,one_pair,two_pairs,three_pairs,three_of_a_kind,four_of_a_kind,five_of_a_kind,small_straight,large_straight,full_straight,full_house,villa,tower"
T_MAX = 60  # the target table's targets (a tiny game scores up to a few hundred)
GAMES = 12


def workload(folder: Path) -> dict[str, np.ndarray]:
    """Everything the tiny game's engine paths compute, as named arrays (tables in ``folder``)."""
    import pyarrow.parquet as pq

    from solver.advice.batch import BatchAdvisor
    from solver.core.card import ScoreCard
    from solver.core.rules import get_rules
    from solver.core.streams import MASK64, mix64
    from solver.engine import arrays as A
    from solver.engine import kernels
    from solver.engine.distribution import score_distribution, target_distribution, turn_outcomes
    from solver.engine.dp import kernel_values, rule_arrays
    from solver.engine.opponent import get_residuals
    from solver.engine.options import placement_values
    from solver.engine.tables import build_table
    from solver.engine.target import build_target
    from solver.play.export import export_positions
    from solver.play.match import play_match
    from solver.play.simulate import simulate
    from solver.play.triple import simulate_triple

    rules = get_rules(TINY)
    out: dict[str, np.ndarray] = {}
    table = build_table(rules, folder, progress=False)
    values = kernel_values(table.values)
    out["values"] = np.asarray(table.values)
    target = build_target(rules, folder, t_max=T_MAX, progress=False).arrays()
    for name in ("w", "off", "lead", "length"):
        out[f"target.{name}"] = np.asarray(getattr(target, name))
    residuals = get_residuals(rules, values)
    out["residuals.p"], out["residuals.off"] = residuals.p, residuals.off
    empty = ScoreCard.empty(rules)
    out["distribution"] = score_distribution(empty, values).pmf
    out["distribution.target"] = target_distribution(empty, values, target, 40).pmf
    # a turn with more outcomes than the kernel first makes room for: the empty card of Yahtzee
    # (by a table of random values: the rolls go to many boxes)
    yahtzee = get_rules("yahtzee")
    noise = np.random.default_rng(2).random((1 << yahtzee.n_boxes, yahtzee.upper_cap + 1, yahtzee.n_flags))
    (first,) = turn_outcomes(yahtzee, noise, [(0, 0, 0)])
    out["outcomes.yahtzee"] = np.array([(*s, g, p) for s, g, p in first])
    for bot in ("optimal", "greedy", "random", "frequent", f"target:{T_MAX // 2}"):
        result = simulate(
            rules, bot, GAMES, seed=3, tables_dir=folder, engine="numba", keep_cards=True, regret=True
        )
        out[f"simulate.{bot}"] = result.cards
        out[f"simulate.{bot}.loss"] = result.regret.game_loss
    six = get_rules(TINY_SIX)
    build_table(six, folder, progress=False)
    out["simulate.six"] = simulate(six, "optimal", GAMES, seed=3, tables_dir=folder, keep_cards=True).cards
    match = play_match(
        rules, ["win", "optimal"], GAMES, seed=5, tables_dir=folder, engine="numba", grade=True
    )
    out["match"] = match.scores
    out["match.loss"] = np.concatenate([r.game_loss for r in match.grading.recorders])
    for bot in ("triple", "random"):
        out[f"triple.{bot}"] = simulate_triple(
            f"{TINY}+triple", bot, 4, seed=7, tables_dir=folder
        ).column_scores
    for fmt in ("jsonl", "parquet"):  # JSON lines from the advice, Parquet from the flat options
        export = folder / f"export.{fmt}"
        export_positions(export, rules, fmt=fmt, bot="optimal", games=2, tables_dir=folder)
        data = (
            export.read_bytes() if fmt == "jsonl" else json.dumps(pq.read_table(export).to_pylist()).encode()
        )
        out[f"export.{fmt}"] = np.frombuffer(data, dtype=np.uint8)
    advisor = BatchAdvisor(table)
    advisor.python_states = 0
    n = 40
    rng = np.random.default_rng(11)
    mask, u, f = (np.asarray(x) for x in zip(*[s for s in _states(values)][:n], strict=True))
    roll = rng.integers(0, 252, len(mask)).astype(np.int64)
    ranked = advisor.rank_states(mask, u, f, roll, np.full(len(mask), 2), np.zeros(len(mask)))
    out["advice.keep_ev"] = ranked.keep_ev
    out["placements"] = placement_values(rules, values, mask, u, f, roll)[0]
    # the kernels no engine path calls today: the streams' test twin, the start values the match's
    # chance test stands for, the target tables that track the best box
    dice = np.empty((3, 10), dtype=np.int64)
    kernels.stream_dice(np.uint64(mix64(9 & MASK64)), 0, 0, dice)
    out["stream_dice"] = dice
    table_arrays = A.TargetArrays(target.w, target.off, target.lead, target.length)
    start = np.empty(len(mask))
    q = kernel_values(residuals.p[:4] / residuals.p[:4].sum(), np.float32)
    opp = A.Opponents(
        np.arange(len(mask)) % 50 - 10, np.zeros(len(mask), np.int64), np.full(len(mask), 4), q, 0.5
    )
    kernels.mixed_start_values(A.States(mask, u, f), opp, table_arrays, start)
    out["mixed_start_values"] = start
    lanes = np.flatnonzero(mask == mask[0])
    e0, e1 = np.empty((462, len(lanes))), np.empty((462, len(lanes)))
    best_box = np.empty((252, len(lanes)), dtype=np.int64)
    need = 1 + np.arange(len(lanes), dtype=np.int64) % T_MAX
    ra = rule_arrays(rules)
    kernels.target_turn_tables(int(mask[0]), u[lanes], f[lanes], need, table_arrays, ra, e0, e1, best_box)
    out["target_turn_tables"], out["target_turn_tables.box"] = e1, best_box
    return out


def _states(values):
    """The reachable states ``(mask, u, f)`` of a value table, not the full card, by mask."""
    full = values.shape[0] - 1
    for m, u, f in np.argwhere(~np.isnan(values)):
        if m != full:
            yield int(m), int(u), int(f)


def kernel_names() -> set[str]:
    """``file:name`` of every ``@njit`` function of the kernels package."""
    import ast

    names = set()
    for path in sorted(KERNEL_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any(
                "njit" in ast.unparse(d) for d in node.decorator_list
            ):
                names.add(f"{path.stem}:{node.name}")
    return names


def record_kernel_calls() -> set[str]:
    """With the JIT off (each kernel a plain function): the set that fills with ``file:name`` of each
    kernel as it is first called.  Every module of the package that holds a kernel -- the kernels'
    own modules, the engine's -- gets a wrapper that records the call and puts the kernel back."""
    import importlib
    import inspect

    from numba.core import config

    assert config.DISABLE_JIT, "the kernels are plain functions only with NUMBA_DISABLE_JIT=1"
    kernels = {}
    for path in KERNEL_DIR.glob("*.py"):
        module = importlib.import_module(
            f"solver.engine.kernels.{path.stem}" if path.stem != "__init__" else "solver.engine.kernels"
        )
        for name, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == module.__name__ and path.stem != "__init__":
                kernels[obj] = f"{path.stem}:{name}"
    called: set[str] = set()
    holders = [m for name, m in list(sys.modules.items()) if name.startswith("solver.") and m is not None]
    for fn, label in kernels.items():
        places = [(m, k) for m in holders for k, v in list(vars(m).items()) if v is fn]

        def wrapper(*args, _fn=fn, _label=label, _places=places, **kwargs):
            called.add(_label)
            for m, k in _places:
                setattr(m, k, _fn)
            return _fn(*args, **kwargs)

        for m, k in places:
            setattr(m, k, wrapper)
    return called


def main(out_path: str) -> None:
    """Run :func:`workload` (with the JIT off: recording the kernels called) into ``out_path`` (.npz),
    the kernels called in ``out_path + ".json"``."""
    import tempfile

    from numba.core import config

    import solver.advice.batch  # noqa: F401  (every module that may hold a kernel, before recording)
    import solver.engine.distribution  # noqa: F401
    import solver.engine.kernels  # noqa: F401
    import solver.engine.options  # noqa: F401
    import solver.engine.playout  # noqa: F401
    import solver.engine.target  # noqa: F401

    # the SplitMix64 steps wrap around on purpose (uint64; numpy warns of it, in every thread)
    warnings.filterwarnings("ignore", "overflow encountered in scalar", RuntimeWarning)
    called = record_kernel_calls() if config.DISABLE_JIT else set()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        out = workload(Path(folder))
    np.savez(out_path, **out)
    Path(out_path + ".json").write_text(
        json.dumps({"called": sorted(called), "seconds": time.perf_counter() - start}), encoding="utf-8"
    )


def test_the_simd_sums_in_plain_python_are_the_compiled_ones():
    """:func:`~solver.engine.kernels.win.mixed_win_value` in plain Python (its four running sums a
    tuple) against its compiled self: the same bits on float32 and float64 tables, every length."""
    from solver.engine.kernels.win import mixed_win_value

    rng = np.random.default_rng(1)
    m = 23
    qt = rng.random(m) / m
    qc = np.cumsum(qt)
    for w in (rng.random(200).astype(np.float32), rng.random(200)):
        for n, lead, length in ((-5, 3, 40), (0, 0, 9), (4, 2, 30), (7, 10, 11), (1, 0, 150), (2, 5, 4)):
            got = mixed_win_value.py_func(w, 17, lead, length, n, qt, qc, m)
            want = mixed_win_value(w, 17, lead, length, n, qt, qc, m)
            assert np.float64(got).tobytes() == np.float64(want).tobytes(), (w.dtype, n, lead, length)


@pytest.mark.subprocess
def test_every_kernel_runs_with_the_jit_off_and_computes_the_same(tmp_path):
    """The tiny game's workload with ``NUMBA_DISABLE_JIT=1`` in a child process (under 30 s):
    every kernel is called, and every array is the one the compiled kernels make here."""
    pytest.importorskip("pyarrow")
    out = tmp_path / "plain.npz"
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, str(out)], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(Path(str(out) + ".json").read_text(encoding="utf-8"))
    assert time.perf_counter() - start < 60, report  # the subset stays small (about 20 s alone)
    missing = sorted(kernel_names() - set(report["called"]))
    assert not missing, f"kernels never called with the JIT off: {missing}"
    plain = np.load(out)
    compiled = workload(tmp_path / "compiled")
    assert sorted(plain.files) == sorted(compiled)
    for name, want in compiled.items():
        got = plain[name]
        assert got.dtype == want.dtype and got.shape == want.shape, name
        assert got.tobytes() == np.ascontiguousarray(want).tobytes(), name


if __name__ == "__main__":
    main(sys.argv[1])

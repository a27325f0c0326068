"""First runs that tell the truth: the bar while numba compiles (solver.engine.compiling), shown for a
slow compilation, in words; the target build's estimate timed on the machine at hand (a probe)."""

from __future__ import annotations

import time

import numba
import pytest

from solver.engine import compiling, kernels  # noqa: F401  (kernels: the listener installed)


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(compiling, "DELAY", 0.0)
    yield
    compiling.enable(False)


def test_a_slow_block_shows_what_it_compiles_and_a_quick_one_nothing(capsys, monkeypatch):
    monkeypatch.setattr(compiling, "DELAY", 0.05)
    with compiling.compiling("the solver", estimate=3.0):
        time.sleep(0.4)
    err = capsys.readouterr().err
    assert "compiling the solver (first run only; about" in err and " s" in err
    monkeypatch.setattr(compiling, "DELAY", 5.0)
    with compiling.compiling("the solver", estimate=3.0):
        pass
    assert capsys.readouterr().err == ""


def test_a_compilation_shows_a_bar_only_while_enabled(capsys, quick):
    def twice(x):
        return 2 * x

    compiling.enable(False)
    assert numba.njit(twice)(2) == 4
    assert "compiling" not in capsys.readouterr().err
    compiling.enable(True)
    assert numba.njit(twice)(3) == 6  # a new dispatcher: compiled again
    assert "compiling the solver's kernels (first run only" in capsys.readouterr().err


def test_the_estimate_grows_with_the_load(monkeypatch):
    monkeypatch.setattr(compiling.os, "getloadavg", lambda: (7.0, 0.0, 0.0))
    monkeypatch.setattr(compiling.os, "cpu_count", lambda: 2)
    assert compiling.load_factor() == 4.0
    monkeypatch.setattr(compiling.os, "getloadavg", lambda: (0.2, 0.0, 0.0))
    assert compiling.load_factor() == 1.0


def test_the_target_build_estimate_is_timed_on_this_machine(monkeypatch):
    from solver.engine import target

    _, static = target.build_estimate("yahtzee", threads=2)
    monkeypatch.setattr(target, "machine_probe", lambda threads=None: 4.0)  # a loaded machine
    _, probed = target.build_estimate("yahtzee", threads=2, probe=True)
    assert probed == 4 * static
    assert "about 4 minutes" in target.build_estimate_text("yahtzee", threads=2)  # 4 x 60 s


def test_the_probe_measures_a_factor_in_a_fraction_of_a_second():
    import time

    from solver.engine.target import machine_probe

    start = time.perf_counter()
    factor = machine_probe(threads=2)
    assert 0.05 < factor < 100 and time.perf_counter() - start < 5


def test_a_build_shows_compilations_for_its_block_only(capsys, quick):
    def thrice(x):
        return 3 * x

    compiling.enable(False)
    with compiling.shown(True):
        assert numba.njit(thrice)(1) == 3
    assert "compiling the solver's kernels" in capsys.readouterr().err
    assert numba.njit(thrice)(2) == 6  # after the block: nothing
    assert "compiling" not in capsys.readouterr().err


def test_the_bar_never_passes_80_columns(capsys, quick, monkeypatch):
    """The longest words of a bar with a three-digit estimate, redrawn: no line over 80 columns
    (a wider one wraps, and every redraw leaves a line behind; it was 83 for the batch advice)."""
    import re

    monkeypatch.setattr(compiling, "load_factor", lambda: 1.0)
    with compiling.compiling("the solver's kernels of the batch advice", estimate=250.0):
        time.sleep(0.7)
    drawn = [
        re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", part) for part in re.split(r"[\r\n]", capsys.readouterr().err)
    ]
    assert any("compiling" in line for line in drawn)
    assert max(len(line) for line in drawn) <= 80, max(drawn, key=len)

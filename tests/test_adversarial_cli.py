"""Adversarial cases of the command line (issue 10, parts 2-5): lines in = lines out in batch,
no NaN or infinity in JSON, bounded simulations, and one line instead of a traceback.

Subprocess cases use the small rule sets ``yacht+lower-only`` and ``yahtzee+lower-only``
(tables built once for the module); the ones that compile numba kernels cold are ``slow``.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from clirun import run
from tablefiles import reseal

from solver.advice.batch import advise_json_lines
from solver.cli.entry import main
from solver.play.simulate import MAX_GAMES

pytestmark = pytest.mark.subprocess  # nearly every test runs the CLI as a child process

SMALL = "yacht+lower-only"
OTHER = "yahtzee+lower-only"
GOOD = b'{"dice": "33456", "rolls_left": 2}'

slow = pytest.mark.slow


@pytest.fixture(scope="module")
def tdir(tmp_path_factory) -> Path:
    """A tables folder with the two small rule sets' tables, built once for the module."""
    from solver.engine.tables import build_table

    folder = tmp_path_factory.mktemp("adversarial-tables")
    for rid in (SMALL, OTHER):
        build_table(rid, folder, progress=False)
    return folder


def damaged_copy(tdir: Path, folder: Path, rid: str, value: float) -> Path:
    """``folder`` with a copy of the tables of ``tdir`` whose table ``rid`` holds ``value`` on
    every state but the empty card, the manifest's sha256 recomputed (a forged, consistent file)."""
    folder.mkdir(exist_ok=True)
    for name in os.listdir(tdir):
        shutil.copy(tdir / name, folder / name)
    npy = folder / f"{rid}.npy"
    values = np.load(npy)
    values[1:] = value
    np.save(npy, values)
    reseal(folder / f"{rid}.json")
    return folder


def strict_json(text: str):
    """``json.loads`` that refuses NaN and infinities (what other JSON parsers do)."""

    def refuse(name):
        raise AssertionError(f"{name} in JSON output: {text[:200]}")

    return json.loads(text, parse_constant=refuse)


def one_line_error(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err and err.startswith("yahtzee: error:")


def process(*args, stdin=None, env=None, preexec_fn=None, stdout=subprocess.PIPE, stderr=subprocess.PIPE):
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "solver", *args],
        input=stdin,
        stdout=stdout,
        stderr=stderr,
        env=full_env,
        preexec_fn=preexec_fn,
        timeout=300,
        cwd=Path(__file__).parent.parent,
    )


# --------------------------------------------------------------------------- batch: lines in = lines out

TRICKY = [
    GOOD,
    b'{"dice": "33456",\r "rolls_left": 1}',  # a lone \r inside a line
    b"",  # blank
    b"   \t",  # blank too
    b'{"dice": "11111", "rolls_left": 0, "card": "Zo\xc3\xab"}',  # UTF-8, a bad card
    b'{"dice": "11111", "rolls_left": 0, "card": "\xff\xfe"}',  # not UTF-8
    b'{"dice": "66666", "rolls_left": 0}\r',  # CRLF
    b"\r",
    b"\x00",
    b'{"dice": "12345", "rolls_left": 2, "rules": "yahtzee+lower-only"}',
]


def answers(out: bytes) -> list[dict]:
    assert out.endswith(b"\n")
    return [strict_json(line) for line in out.decode("ascii").split("\n")[:-1]]


def check_tricky(results: list[dict]) -> None:
    assert len(results) == len(TRICKY)
    assert "options" in results[0] and results[1]["rolls_left"] == 1 and "options" in results[1]
    assert results[2] == {"error": "line 3: blank line"} and results[3] == {"error": "line 4: blank line"}
    assert results[4]["error"].startswith("line 5:") and "Zo" in results[4]["error"]
    assert results[5]["error"].startswith("line 6: not UTF-8")
    assert results[6]["dice"] == "66666" and "options" in results[6]
    assert results[7] == {"error": "line 8: blank line"}
    assert set(results[8]) == {"error"} and results[8]["error"].startswith("line 9:")
    assert results[9]["rules"] == OTHER


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
def test_batch_file_lines_in_lines_out(tdir, tmp_path, capsys, ending):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + ending.join(TRICKY) + ending)  # with a UTF-8 BOM
    code, out, err = run(capsys, "hint", "--batch", str(path), "--rules", SMALL, "--tables", str(tdir))
    assert code == 0 and err == ""
    results = answers(out.encode())
    check_tricky(results)
    assert results[0]["rules"] == SMALL  # the BOM did not break the first line


def test_batch_stdin_lines_in_lines_out(tdir):
    """The same bytes through a pipe give the same answers as the file (one per line)."""
    proc = process(
        "hint",
        "--batch",
        "-",
        "--rules",
        SMALL,
        "--tables",
        str(tdir),
        stdin=b"\xef\xbb\xbf" + b"\n".join(TRICKY),
    )
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    check_tricky(answers(proc.stdout))


def test_batch_no_final_newline_and_empty_input(tdir, tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    path.write_bytes(GOOD + b"\n" + GOOD)
    code, out, _ = run(capsys, "hint", "--batch", str(path), "--rules", SMALL, "--tables", str(tdir))
    assert code == 0 and len(answers(out.encode())) == 2
    path.write_bytes(b"")
    assert run(capsys, "hint", "--batch", str(path), "--tables", str(tdir)) == (0, "", "")
    path.write_bytes(b"\n")  # one blank line: one answer
    code, out, _ = run(capsys, "hint", "--batch", str(path), "--tables", str(tdir))
    assert answers(out.encode()) == [{"error": "line 1: blank line"}]


def test_batch_api_takes_bytes_and_text(tdir):
    lines = ["\ufeff" + GOOD.decode() + "\r\n", "\n", b"\xc3(\n"]
    out = [json.loads(s) for s in advise_json_lines(lines, SMALL, tdir)]
    assert "options" in out[0] and out[1] == {"error": "line 2: blank line"}
    assert out[2]["error"].startswith("line 3: not UTF-8 (byte 0xc3 at column 1)")


def mixed_lines() -> list[bytes]:
    other = b'{"dice": "33456", "rolls_left": 2, "rules": "yahtzee+lower-only"}'
    small0 = b'{"dice": "33456", "rolls_left": 0, "card": "choice=20"}'
    return [GOOD, other, small0, other, b"{bad"]


@pytest.mark.parametrize("damage", ["truncated", "nan", "-inf", "inf", "folder"])
def test_batch_bad_table_errors_only_its_lines(tdir, tmp_path, capsys, damage):
    """A damaged table for one rule set errors only the lines of that rule set (same chunk)."""
    folder = tmp_path / "tables"
    if damage in ("nan", "-inf", "inf"):
        damaged_copy(tdir, folder, OTHER, float(damage))
    else:
        damaged_copy(tdir, folder, OTHER, 0.0)  # a copy; damaged below
        npy = folder / f"{OTHER}.npy"
        if damage == "truncated":
            npy.write_bytes(npy.read_bytes()[:300])
        else:
            npy.unlink()
            npy.mkdir()
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(mixed_lines()) + b"\n")
    code, out, err = run(capsys, "hint", "--batch", str(path), "--rules", SMALL, "--tables", str(folder))
    assert code == 0, err
    results = answers(out.encode())
    assert len(results) == 5
    assert "options" in results[0] and "options" in results[2]  # the good table's lines
    for r, n in ((results[1], 2), (results[3], 4)):
        assert set(r) == {"error"} and r["error"].startswith(f"line {n}:") and OTHER in r["error"]
    assert set(results[4]) == {"error"}


# --------------------------------------------------------------------------- no NaN, no infinity


@pytest.mark.parametrize("value", ["nan", "-inf", "inf"])
@pytest.mark.parametrize("as_json", [False, True])
def test_hint_on_a_non_finite_table_is_one_error(tdir, tmp_path, capsys, value, as_json):
    folder = damaged_copy(tdir, tmp_path / "t", SMALL, float(value))
    argv = ["hint", "--rules", SMALL, "--dice", "33456", "--rolls-left", "2", "--tables", str(folder)]
    code, out, err = run(capsys, *argv, *(["--json"] if as_json else []))
    assert code == 1 and out == "" and one_line_error(err), err
    assert SMALL in err


def test_hint_json_in_a_process_never_prints_nan(tdir, tmp_path):
    """Through the numpy-free reader of a real process, too."""
    folder = damaged_copy(tdir, tmp_path / "t", SMALL, float("nan"))
    for extra in (["--json"], []):
        proc = process("hint", "--rules", SMALL, "--dice", "33456", "--rolls-left", "0", "--card", "choice=20",
                       "--tables", str(folder), *extra)  # fmt: skip
        assert proc.returncode == 1 and proc.stdout == b"" and b"Traceback" not in proc.stderr
        assert len(proc.stderr.splitlines()) == 1


@pytest.mark.parametrize("value", ["nan", "-inf"])
def test_value_on_a_non_finite_table(tdir, tmp_path, capsys, value):
    folder = damaged_copy(tdir, tmp_path / "t", SMALL, float(value))
    code, out, err = run(
        capsys, "value", "--rules", SMALL, "--card", "choice=20", "--json", "--tables", str(folder)
    )
    assert code == 1 and out == "" and one_line_error(err), err


def test_all_rolls_never_prints_the_stop_option(tmp_path, capsys):
    """Under all-rolls stopping early is no option (its value is -inf): never printed."""
    rid = "yacht+all-rolls+lower-only"
    code, out, err = run(capsys, "hint", "--rules", rid, "--dice", "66666", "--rolls-left", "2", "--json",
                         "--top", "0", "--tables", str(tmp_path))  # fmt: skip
    assert code == 0, err
    data = strict_json(out)
    assert [6, 6, 6, 6, 6] not in [o["keep"] for o in data["options"]]
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"rules": rid, "dice": "66666", "rolls_left": 1}) + "\n")
    code, out, err = run(capsys, "hint", "--batch", str(path), "--tables", str(tmp_path))
    assert code == 0 and [6, 6, 6, 6, 6] not in [o["keep"] for o in strict_json(out)["options"]]


# --------------------------------------------------------------------------- simulate


def test_simulate_games_cap_is_a_usage_error(capsys, tmp_path):
    code, out, err = run(
        capsys, "simulate", "--games", str(10**12), "--bot", "random", "--tables", str(tmp_path)
    )
    assert code == 2 and out == "" and f"{MAX_GAMES:,}" in err and len(err.splitlines()) == 1
    code, out, err = run(capsys, "simulate", "--help")
    assert code == 0 and f"{MAX_GAMES:,}" in out.replace("\n", " ").replace(" " * 2, " ")


def test_simulate_api_games_cap():
    from solver.core.errors import UsageError
    from solver.play.simulate import simulate

    with pytest.raises(UsageError, match="at most"):
        simulate(SMALL, "random", games=MAX_GAMES + 1)


@pytest.mark.parametrize("as_json", [False, True])
def test_simulate_hist_to_dev_full_prints_the_report_first(tdir, tmp_path, capsys, as_json):
    pytest.importorskip("matplotlib")
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    # through a link, so that a version that replaced the path would replace the link, not /dev/full
    png = tmp_path / "full.png"
    png.symlink_to("/dev/full")
    argv = ["simulate", "--rules", SMALL, "--bot", "random", "--games", "200", "--quiet", "--hist", str(png)]
    code, out, err = run(capsys, *argv, "--tables", str(tdir), *(["--json"] if as_json else []))
    assert code == 1 and one_line_error(err) and "not a regular file" in err
    if as_json:
        assert strict_json(out)["games"] == 200
    else:
        assert "random, 200 games" in out and "histogram written" not in out
    assert png.is_symlink() and stat.S_ISCHR(os.stat("/dev/full").st_mode)  # never replaced by a file


def _limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


@slow  # matplotlib and numba in a fresh process: a few seconds
def test_simulate_hist_on_a_full_disk(tdir, tmp_path):
    """A file-size limit makes the PNG write fail like a full disk: report, then one error line."""
    pytest.importorskip("matplotlib")
    png = tmp_path / "h.png"
    argv = ["simulate", "--rules", SMALL, "--bot", "random", "--games", "500", "--quiet", "--hist", str(png)]
    warm = process(*argv, "--tables", str(tdir))  # compile and cache the kernels without the limit
    assert warm.returncode == 0, warm.stderr
    png.unlink()
    proc = process(*argv, "--tables", str(tdir), preexec_fn=_limit_file_size)
    assert proc.returncode == 1, proc.stderr
    assert b"random, 500 games" in proc.stdout and b"Traceback" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and b"--hist" in proc.stderr
    assert not png.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# --------------------------------------------------------------------------- one line, never a traceback


@pytest.mark.parametrize(
    "spec", ["math:sqrt", "solver.play.bots:Bot", "json:dumps", "os:path", "solver.core.dice:N_DICE"]
)
def test_not_a_bot(capsys, tdir, spec):
    code, out, err = run(capsys, "simulate", "--rules", SMALL, "--bot", spec, "--games", "5", "--quiet",
                         "--tables", str(tdir))  # fmt: skip
    assert code == 2 and out == "" and one_line_error(err) and "not a bot" in err


def test_stdout_on_dev_full(tdir):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    tables = ["--rules", SMALL, "--tables", str(tdir)]
    for args in (
        ["hint", "--dice", "33456", "--rolls-left", "2", *tables],
        ["rules", SMALL],
        ["value", *tables],
    ):
        with open("/dev/full", "wb") as full:
            proc = process(*args, stdout=full)
        assert proc.returncode == 1 and b"Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith(b"yahtzee: error:") and len(proc.stderr.splitlines()) == 1


def _close_stdout():
    os.close(1)


def _close_stderr():
    os.close(2)


def test_stdout_closed(tdir):
    proc = process("hint", "--rules", SMALL, "--dice", "33456", "--rolls-left", "2", "--tables", str(tdir),
                   preexec_fn=_close_stdout)  # fmt: skip
    assert proc.returncode == 1 and b"stdout is closed" in proc.stderr and b"Traceback" not in proc.stderr


def test_stdout_reader_goes_away(tdir):
    """``| head``: the reader closes the pipe early; exit 0, nothing on stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "hint", "--batch", "-", "--rules", SMALL, "--tables", str(tdir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    proc.stdout.close()  # nothing read: the reader is gone at once
    _, err = proc.communicate((GOOD + b"\n") * 3000, timeout=300)
    assert proc.returncode == 0 and b"Traceback" not in err, err


def test_stderr_closed_before_a_progress_bar(tdir, tmp_path):
    """stderr closed from the start: the table build's progress bar and the report survive."""
    proc = process("hint", "--rules", SMALL, "--dice", "33456", "--rolls-left", "2", "--tables", str(tmp_path),
                   preexec_fn=_close_stderr)  # fmt: skip
    assert proc.returncode == 0 and b"Best:" in proc.stdout
    assert (tmp_path / f"{SMALL}.npy").exists()


def test_stderr_reader_goes_away_while_a_progress_bar_runs(tdir):
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "simulate", "--rules", SMALL, "--bot", "random", "--games", "200000",
         "--tables", str(tdir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    proc.stderr.close()  # the progress bar's reader is gone
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0 and b"random, 200,000 games" in out


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_narrow_output_encoding(tdir, encoding):
    """Names like "Zoë" and "—" on an ASCII or latin-1 terminal: replaced, never a crash."""
    env = {"PYTHONIOENCODING": encoding}
    proc = process("play", "--rules", SMALL, "--players", "Zoë,Ann—", "--seed", "1", "--tables", str(tdir),
                   stdin=b"q\n", env=env)  # fmt: skip
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    assert b"Zo" in proc.stdout
    proc = process("hint", "--rules", "Zoë—", "--dice", "33456", "--rolls-left", "2", env=env)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1 and b"Traceback" not in proc.stderr


def test_c_locale(tdir):
    env = {"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": ""}
    proc = process("play", "--rules", SMALL, "--players", "Zoë,Ann—", "--seed", "1", "--tables", str(tdir),
                   stdin=b"q\n", env=env)  # fmt: skip
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr


def _limit_memory(megabytes: int):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))
        # an interrupt must be one in the child, whatever the test run inherited: a command started
        # in the background (``&``) ignores SIGINT, and so would every process it starts
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    return limit


def test_out_of_memory_is_one_line(tdir):
    """More games than the memory limit holds (under the cap): "out of memory", exit 1."""
    if sys.platform != "linux":
        pytest.skip("RLIMIT_AS is enforced on Linux")
    proc = process("simulate", "--rules", SMALL, "--bot", "random", "--games", str(MAX_GAMES), "--quiet",
                   "--threads", "1", "--tables", str(tdir), preexec_fn=_limit_memory(1500))  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert b"Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert b"out of memory" in proc.stderr


@slow  # a cold numba compilation per limit
@pytest.mark.parametrize("megabytes", [300, 400, 500])
def test_small_address_space_for_the_compiler(tdir, tmp_path, megabytes):
    """Under ``ulimit -v`` too small for numba/LLVM: the report or one line, never a traceback."""
    if sys.platform != "linux":
        pytest.skip("RLIMIT_AS is enforced on Linux")
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba"), "YAHTZEE_SHIPPED_KERNELS": "0"}  # compiled, not loaded
    proc = process("simulate", "--rules", SMALL, "--games", "100", "--quiet", "--threads", "1",
                   "--tables", str(tdir), env=env, preexec_fn=_limit_memory(megabytes))  # fmt: skip
    assert b"Traceback" not in proc.stderr, proc.stderr[-2000:]
    if proc.returncode != 0:
        assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1, proc.stderr
        assert b"ulimit -v" in proc.stderr


def test_error_lines_escape_control_characters_of_what_the_user_gave(capsys, tmp_path):
    """A path with a newline or an escape sequence must not reach the terminal raw."""

    bad = tmp_path / "game\x1b[2J\nfile.json"
    assert main(["review", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "\\x1b" in err and "\\n" in err


# --------------------------------------------------------------------------- numbers are bounded (issue 19)

BIG = "9" * 5000  # past Python's 4,300-digit limit of int()
UINT64 = str(2**64)


def short_one_line(err: bytes) -> bool:
    """One line on stderr, no traceback, the refused value shortened (not 5,000 digits)."""
    lines = err.decode("utf-8", "replace").strip().splitlines()
    return len(lines) == 1 and "Traceback" not in lines[0] and len(lines[0]) < 400


@pytest.mark.parametrize(
    "args, needle",
    [
        # dice, card text, rule-spec modifiers, target:T bots and policies, the triple card's columns
        (["hint", "--dice", f"1,2,3,4,{BIG}", "--rolls-left", "2"], "die value"),
        (["hint", "--dice", "3 3 4 5 -1", "--rolls-left", "2"], "-1"),
        (["hint", "--dice", "-3 3 4 5 1", "--rolls-left", "2"], "-3"),
        (["hint", "--dice", "33456", "--rolls-left", "2", "--card", f"full_house={BIG}"], "full_house"),
        (["value", "--card", f"choice=2{BIG}"], "choice"),
        (["rules", f"yatzy+extra-bonus={BIG}"], "extra-bonus"),
        (["rules", f"yatzy+yatzy-rows={BIG}"], "yatzy-rows"),
        (["simulate", "--bot", f"target:{BIG}", "--games", "1", "--quiet"], "target"),
        (["simulate", "--bot", "random", "--vs", f"target:{BIG}", "--games", "1", "--quiet"], "target"),
        (["match", "--bots", f"target:{BIG},random", "--games", "1", "--quiet"], "target"),
        (["distribution", "--policy", f"target:{BIG}"], "target"),
        (
            [
                "hint",
                "--rules",
                "yacht+lower-only+triple",
                "--card",
                f"choice@{BIG}=3",
                "--dice",
                "33456",
                "--rolls-left",
                "1",
            ],
            "column",
        ),  # fmt: skip
        # seeds: simulate and match take play's range, 0 to 2^64 - 1
        (["simulate", "--bot", "random", "--games", "1", "--quiet", "--seed", "-1"], "--seed"),
        (["simulate", "--bot", "random", "--games", "1", "--quiet", "--seed", UINT64], UINT64),
        (["match", "--bots", "random,frequent", "--games", "1", "--quiet", "--seed", "-1"], "--seed"),
        (["match", "--bots", "random,frequent", "--games", "1", "--quiet", "--seed", UINT64], UINT64),
        # argparse's whole-number options
        (["simulate", "--games", BIG], "--games"),
        (["simulate", "--seed", BIG], "--seed"),
        (["simulate", "--threads", BIG], "--threads"),
        (["simulate", "--bot", "random", "--games", "1", "--quiet", "--threads", "100000"], "threads"),
        (["simulate", "--target", BIG], "--target"),
        (["match", "--bots", "random,frequent", "--games", BIG], "--games"),
        (["match", "--bots", "random,frequent", "--threads", BIG], "--threads"),
        (["hint", "--dice", "33456", "--rolls-left", BIG], "--rolls-left"),
        (["hint", "--dice", "33456", "--rolls-left", "2", "--top", BIG], "--top"),
        (["hint", "--dice", "33456", "--rolls-left", "2", "--target", BIG], "--target"),
        (["value", "--target", BIG], "--target"),
        (["distribution", "--at-least", "100", BIG], "--at-least"),
        (["distribution", "--dice", "33456", "--rolls-left", BIG], "--rolls-left"),
        (["play", "--seed", BIG], "--seed"),
        (["play", "--target", BIG], "--target"),
        (["tables", "build", "--target", "--t-max", BIG], "--t-max"),
        (["tables", "build", "--threads", BIG], "--threads"),
        (["tables", "verify", "--sample", BIG], "--sample"),
        (["tables", "verify", "--seed", BIG], "--seed"),
    ],
)
def test_numbers_from_the_command_line_are_bounded(tmp_path, args, needle):
    """A number of 5,000 digits (or out of range: a negative die, a seed outside 0..2^64-1) is
    one short line naming it and exit 2, never a traceback from ``int()``."""
    if args[0] != "rules":
        args = [*args, "--tables", str(tmp_path / "tables")]
        args += [] if "--rules" in args else ["--rules", SMALL]
        args += ["--data", str(tmp_path / "data")] if args[0] == "play" else []
    proc = process(*args, stdin=b"q\n")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert short_one_line(proc.stderr), proc.stderr[-2000:]
    assert needle in proc.stderr.decode() and proc.stdout == b""


@pytest.mark.parametrize(
    "option, value",
    [
        ("--port", BIG),
        ("--port", "\u0663"),  # an Arabic-Indic 3: port 3 before
        ("--port", "1_0"),  # port 10 before
        ("--port", "65536"),
        ("--job-memory", "1" + "0" * 400),  # "got inf" before
        ("--job-memory", "\u0663"),
        ("--job-memory", "nan"),
        ("--job-seconds", "1e400"),
        ("--job-seconds", "0.5"),
    ],
)
def test_serve_numbers_are_bounded(tmp_path, option, value):
    """``yahtzee serve``'s numbers are read as the other commands' are: refused with one short line
    naming the value, before any port is bound (a server listening on port 3 never ends)."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "solver", "serve", option, value, "--tables", str(tmp_path), "--port", "0"]
            if option != "--port"
            else [sys.executable, "-m", "solver", "serve", option, value, "--tables", str(tmp_path)],
            capture_output=True,
            timeout=30,
            cwd=Path(__file__).parent.parent,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"serve {option} {value[:10]!r} started a server")
    assert proc.returncode == 2 and short_one_line(proc.stderr), proc.stderr[-2000:]
    assert option in proc.stderr.decode() and proc.stdout == b""


def test_numbers_typed_in_a_game_are_bounded(tdir, tmp_path):
    """``s BOX`` with a 5,000-digit number and ``k`` with one, or with a negative face: a refusal
    line each (the game goes on), never a traceback nor a die held for "-3"."""
    lines = ["r", f"s {BIG}", f"k 1 {BIG}", "k -3", "k 3-", "q"]
    proc = process("play", "--seed", "1", "--rules", SMALL, "--tables", str(tdir), "--data", str(tmp_path),
                   stdin="".join(line + "\n" for line in lines).encode())  # fmt: skip
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr[-2000:]
    refusals = [line for line in proc.stdout.decode().splitlines() if line.startswith("! ")]
    assert len(refusals) == 4, proc.stdout.decode()[-3000:]
    assert all(len(line) < 200 for line in refusals), refusals
    assert "box number" in refusals[0] and "die value" in refusals[1]
    assert "'-3'" in refusals[2] and "'3-'" in refusals[3]


# --------------------------------------------------------------------------- out of memory is not a damaged table


@pytest.fixture(scope="module")
def target_tables(tdir, tmp_path_factory) -> Path:
    """The tables of ``tdir`` and the target table of ``SMALL`` (targets up to 100)."""
    from solver.engine.target import build_target

    folder = tmp_path_factory.mktemp("target-tables")
    for path in tdir.iterdir():
        shutil.copy(path, folder / path.name)
    build_target(SMALL, folder, t_max=100, progress=False)
    return folder


HINT = ["hint", "--rules", SMALL, "--dice", "33456", "--rolls-left", "1"]


@pytest.mark.parametrize("target", [True, False])
def test_out_of_memory_mapping_a_table_is_not_a_damaged_table(target_tables, capsys, monkeypatch, target):
    """``mmap`` refused for want of memory (``ENOMEM``, what a small ``ulimit -v`` gives) says
    "out of memory", exit 1: never that a good table is unreadable nor to rebuild it."""
    import errno

    from solver.engine import tables

    opened = tables.ValueFile.open

    def refuse(cls, path):
        if (".target" in str(path)) == target:
            raise OSError(errno.ENOMEM, "Cannot allocate memory")
        return opened(path)

    monkeypatch.setattr(tables.ValueFile, "open", classmethod(refuse))
    code, out, err = run(
        capsys, *HINT, *(["--target", "80"] if target else []), "--tables", str(target_tables)
    )
    assert code == 1 and out == "" and one_line_error(err), err
    assert "out of memory" in err and "rebuild" not in err and "--force" not in err, err


def test_out_of_memory_under_ulimit_for_a_large_target_table(target_tables, tmp_path):
    """The same for real: a target table larger than the address space (sparse: its values file
    takes no room on disk), ``hint --target`` under ``RLIMIT_AS``."""
    import json

    if sys.platform != "linux":
        pytest.skip("RLIMIT_AS is enforced on Linux")
    for path in target_tables.iterdir():
        shutil.copy(path, tmp_path / path.name)
    w_path = tmp_path / f"{SMALL}.target.npy"
    values = np.load(w_path)
    n = 3 << 28  # 6 GiB of float64
    big = np.lib.format.open_memmap(w_path, mode="w+", dtype="<f8", shape=(n,))
    big[: len(values)] = values
    big.flush()
    del big
    manifest_path = tmp_path / f"{SMALL}.target.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["arrays"]["values"]["shape"] = [n]  # its checksum is checked by tables verify, not by a hint
    manifest_path.write_text(json.dumps(manifest))
    proc = process(*HINT, "--target", "80", "--tables", str(tmp_path), preexec_fn=_limit_memory(2000))
    assert proc.returncode == 1, proc.stderr
    assert short_one_line(proc.stderr) and b"out of memory" in proc.stderr, proc.stderr
    assert b"--force" not in proc.stderr


def test_blas_that_cannot_start_is_out_of_memory_not_an_interrupt(tdir, tmp_path):
    """Under a small ``ulimit -v`` OpenBLAS, loaded by ``import numpy``, cannot create its threads
    and raises SIGINT itself: ``play --coach`` said "interrupted" (exit 130). Here a stand-in
    numpy does what OpenBLAS does, in a process whose address space is limited."""
    if sys.platform != "linux":
        pytest.skip("RLIMIT_AS is enforced on Linux")
    fake = tmp_path / "fake"
    (fake / "numpy" / "_core").mkdir(parents=True)
    (fake / "numpy" / "__init__.py").write_text("from ._core import multiarray  # noqa: F401\n")
    (fake / "numpy" / "_core" / "__init__.py").write_text("")
    (fake / "numpy" / "_core" / "multiarray.py").write_text(
        "import os\nimport signal\n\nos.kill(os.getpid(), signal.SIGINT)\n"
    )
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(fake), os.environ.get("PYTHONPATH")) if p)}
    proc = process("play", "--coach", "--seed", "1", "--rules", SMALL, "--tables", str(tdir), "--data",
                   str(tmp_path / "data"), stdin=b"r\nq\n", env=env, preexec_fn=_limit_memory(8000))  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    last = proc.stderr.decode().strip().splitlines()[-1]
    assert b"Traceback" not in proc.stderr and "out of memory" in last and "ulimit -v" in last, proc.stderr


@pytest.mark.parametrize("command", ["play", "simulate"])
def test_numpy_that_cannot_start_under_ulimit_is_one_line(tdir, tmp_path, command):
    """Under ``ulimit -v`` of 80-150 MB numpy's OpenBLAS cannot start: it printed its own line and
    ended the process (``simulate``: exit 1, "OpenBLAS error: Memory allocation still failed"), or
    raised SIGINT after its thread errors (``play``: "interrupted: the game had not started" too).
    Each limit, with OpenBLAS's thread count the default or 8: the command works, or one
    ``yahtzee: error:`` line saying out of memory, exit 1."""
    if sys.platform != "linux":
        pytest.skip("RLIMIT_AS is enforced on Linux")
    args = {
        "play": ["play", "--coach", "--seed", "1", "--data", str(tmp_path / "data")],
        "simulate": ["simulate", "--bot", "frequent", "--games", "10", "--quiet", "--threads", "1"],
    }[command]
    failed = 0
    for megabytes in (80, 110, 150):
        for threads in (None, "8"):
            env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
            if threads:
                env["OPENBLAS_NUM_THREADS"] = threads
            proc = subprocess.run(
                [sys.executable, "-m", "solver", *args, "--rules", SMALL, "--tables", str(tdir)],
                input=b"r\nq\n", capture_output=True, env=env, timeout=120,
                preexec_fn=_limit_memory(megabytes), cwd=Path(__file__).parent.parent,
            )  # fmt: skip
            where = f"{megabytes} MB, OPENBLAS_NUM_THREADS={threads}: {proc.stderr[-1500:]!r}"
            if proc.returncode == 0:
                continue
            failed += 1
            lines = proc.stderr.decode().strip().splitlines()
            assert proc.returncode == 1 and len(lines) == 1, where
            assert lines[0].startswith("yahtzee: error: ") and "ulimit -v" in lines[0], where
    assert failed, "no limit was small enough to fail: the test tested nothing"


def test_an_error_quoting_a_huge_value_is_one_bounded_line(tmp_path):
    """A 5,000-character path in a message: one line of at most 1,000 characters that still ends
    with the reason."""
    proc = process("review", str(tmp_path / ("x" * 5000)))
    lines = proc.stderr.decode().strip().splitlines()
    assert proc.returncode in (1, 2) and len(lines) == 1 and len(lines[0]) <= 1000, proc.stderr[-300:]
    assert " ... " in lines[0] and "long" in lines[0].lower()


# --------------------------------------------------------------------------- a Dask cluster's address (issue 32)


@pytest.mark.parametrize(
    "address, words",
    [
        ("garbage", "no port"),
        ("tcp://127.0.0.1", "no port"),
        ("http://127.0.0.1:8786", "the scheme 'http' is not one of tcp://, tls://"),
        ("", "empty"),
        ("tcp://host:abc", "the port 'abc' is not a number from 1 to 65535"),
        ("tcp://host:65536", "the port '65536'"),
        ("tcp://host:" + "9" * 5000, "is not a number from 1 to 65535"),
        ("tcp://a b:8786", "not HOST:PORT"),
        ("tcp://host:1:2", "not HOST:PORT"),
    ],
)
def test_a_bad_cluster_address_is_one_line(capsys, tmp_path, address, words):
    """``simulate --cluster`` with an address that is not ``tcp://HOST:PORT``: one line naming it,
    exit 2, before anything connects (it was Dask's 54-line traceback, exit 1)."""
    code, out, err = run(capsys, "simulate", "--rules", SMALL, "--games", "10", "--quiet",
                         "--cluster", address, "--tables", str(tmp_path))  # fmt: skip
    assert code == 2 and out == "" and one_line_error(err), err[-2000:]
    assert words in err and "cluster address" in err and len(err) < 400, err


def test_a_refused_cluster_is_known_at_once(capsys, tmp_path):
    """A local port where nothing listens: "Connection refused" at once, not after Dask's 30 s."""
    import socket
    import time

    pytest.importorskip("distributed")
    with socket.socket() as sock:  # a port free a moment ago: nothing listens there now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    start = time.monotonic()
    code, out, err = run(capsys, "simulate", "--rules", SMALL, "--games", "10", "--quiet",
                         "--cluster", f"tcp://127.0.0.1:{port}", "--tables", str(tmp_path))  # fmt: skip
    assert code == 2 and one_line_error(err), err[-2000:]
    assert f"tcp://127.0.0.1:{port}" in err and "refused" in err.lower(), err
    assert time.monotonic() - start < 10

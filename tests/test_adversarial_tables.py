"""Adversarial table files (issue 10, parts 2-4 and 6): every reader refuses them in one line.

Special files in place of a table (a FIFO, ``/dev/zero``, a folder) never hang a reader;
manifests nested 100,000 deep or not objects are refused; damaged values with the
manifest's sha256 recomputed are caught by both readers (the numpy-free one of a single
hint and the numpy one) with the same verdict, and by ``tables verify`` (Bellman
equation on a sample, ``--full`` rebuild); builds honour the umask, clean up what a
killed write left, and say so plainly when a path is not a folder or cannot be read.
Small rule sets keep it fast; the full ``yahtzee`` table only where marked ``slow``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest
from tablefiles import reseal

from solver.cli.entry import main
from solver.core.errors import TableError, UsageError
from solver.core.rules import get_rules
from solver.engine import dp
from solver.engine.tables import (
    build_table,
    load_table,
    reachable_states,
    table_paths,
    value_pattern,
    verify_table,
)

SPEC = "yahtzee+lower-only"  # 7 boxes with the bonus flag: (128, 1, 2), built in milliseconds
REPO = Path(__file__).resolve().parent.parent


def _state_mask(rules) -> np.ndarray:
    """The states the DP computes, from :func:`solver.engine.dp.level_lanes` itself (the reference
    :func:`solver.engine.tables.value_pattern` is checked against): the full card, each level's
    lanes and the hopeless totals it copies."""
    mask = np.zeros((1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags), dtype=bool)
    mask[rules.full_mask] = True
    for masks in dp.masks_by_level(rules):
        (m, u, f), (cm, cu, cfrom) = dp.level_lanes(rules, masks)
        mask[m, u, f] = True
        for flag in range(rules.n_flags):  # a copy has the flags of the total it copies
            mask[cm, cu, flag] = mask[cm, cfrom, flag]
    return mask


def bounded(fn, *args, seconds: float = 20.0, **kwargs):
    """``fn(*args, **kwargs)`` in a daemon thread: a call that hangs fails the test instead of
    blocking the run.  Returns its result or re-raises its exception."""
    box: dict = {}

    def target():
        try:
            box["result"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{fn.__name__} still running after {seconds} s: it hangs"
    if "error" in box:
        raise box["error"]
    return box["result"]


def cli(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    code = bounded(main, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def small(tmp_path) -> Path:
    folder = tmp_path / "tables"
    build_table(SPEC, folder, progress=False)
    return folder


def paths(folder: Path, spec: str = SPEC) -> tuple[Path, Path]:
    return table_paths(get_rules(spec), folder)


def rehash(folder: Path, spec: str = SPEC) -> None:
    """Recompute the manifest's sha256, as a forger (or a careless tool) would."""
    reseal(paths(folder, spec)[1])


def good_values(folder: Path, spec: str = SPEC) -> np.ndarray:
    return np.load(paths(folder, spec)[0]).copy()


def late_reachable(spec: str = SPEC) -> tuple[np.ndarray, ...]:
    """Index arrays of the reachable states in the last third of the file (the full card excluded)."""
    rules = get_rules(spec)
    mask = _state_mask(rules).copy()
    mask[rules.full_mask] = False
    flat = np.flatnonzero(mask.reshape(-1))
    late = flat[len(flat) * 2 // 3 :]
    return np.unravel_index(late, mask.shape)


def flip_bits(values: np.ndarray, where, bit: int) -> np.ndarray:
    bits = values.view(np.uint64).copy()
    bits[where] ^= np.uint64(1) << np.uint64(bit)
    return bits.view(np.float64)


# --- special files instead of table files: no hang, one line ---------------------------


def _make_special(path: Path, kind: str) -> str:
    """Put a FIFO, a link to /dev/zero or a folder at ``path``; returns how the error names it."""
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
        return "FIFO"
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
        return "character device"
    path.mkdir()
    return "folder"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
@pytest.mark.parametrize("which", ["npy", "json"])
def test_special_file_in_place_of_a_table_file(small, capsys, kind, which):
    if kind == "dev-zero" and not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    npy, manifest_path = paths(small)
    named = _make_special(npy if which == "npy" else manifest_path, kind)
    for light in (True, False):
        with pytest.raises(TableError) as info:
            bounded(load_table, SPEC, small, light=light)
        assert named in str(info.value) and "\n" not in str(info.value)
    # the single hint (numpy-free reader) and verify (numpy reader): exit 1, one line, no hang
    code, _, err = cli(capsys, "value", "--rules", SPEC, "--tables", str(small))
    assert code == 1 and named in one_line_error(err)
    code, out, _ = cli(capsys, "tables", "verify", "--rules", SPEC, "--tables", str(small))
    assert code == 1 and named in out and len(out.strip().splitlines()) == 1
    code, out, _ = cli(capsys, "tables", "list", "--tables", str(small))
    assert code == 0 and "broken" in out


# --- manifests -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a": ' * 100_000 + "1" + "}" * 100_000,
        "[1, 2, 3]",
        "null",
        '"a string"',
        "{" + " " * (2 << 20) + "}",  # 2 MiB: no manifest is that big
        "\udcff",  # not UTF-8 once written with surrogateescape
    ],
    ids=["deep-list", "deep-object", "list", "null", "string", "huge", "not-utf8"],
)
def test_manifest_that_is_not_one(small, capsys, text):
    manifest_path = paths(small)[1]
    manifest_path.write_bytes(text.encode("utf-8", "surrogateescape"))
    for light in (True, False):
        with pytest.raises(TableError) as info:
            load_table(SPEC, small, light=light)
        message = str(info.value)
        assert "unreadable" in message and "rebuild" in message and "\n" not in message
        assert len(message) < 1000
    code, _, err = cli(capsys, "value", "--rules", SPEC, "--tables", str(small))
    assert code == 1 and "unreadable" in one_line_error(err)


@pytest.mark.parametrize("version", [True, 2.0, "2", None])
def test_manifest_format_version_must_be_the_integer(small, version):
    manifest_path = paths(small)[1]
    manifest = json.loads(manifest_path.read_text())
    manifest["format_version"] = version
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(TableError, match="format version"):
        load_table(SPEC, small)


# --- damaged values, sha256 recomputed: both readers refuse, with the same verdict ------------


def _damage(folder: Path, how: str) -> None:
    npy = paths(folder)[0]
    values = good_values(folder)
    if how == "exponent-flips-late":  # e.g. ev 2.4e79 in a hint
        np.save(npy, flip_bits(values, late_reachable(), 62))
    elif how == "sign-flip-late":
        np.save(npy, flip_bits(values, tuple(i[-1:] for i in late_reachable()), 63))
    elif how == "one-nan-late":
        where = tuple(i[-1:] for i in late_reachable())
        values[where] = np.nan
        np.save(npy, values)
    elif how == "one-inf-late":
        where = tuple(i[-1:] for i in late_reachable())
        values[where] = -np.inf
        np.save(npy, values)
    elif how == "all-nan":
        np.save(npy, np.full_like(values, np.nan))
    elif how == "unreachable-finite":
        unreachable = np.nonzero(~_state_mask(get_rules(SPEC)))
        values[tuple(i[:1] for i in unreachable)] = 7.0
        np.save(npy, values)
    elif how == "full-card-not-zero":
        values[get_rules(SPEC).full_mask, 0, 0] = 1e-300
        np.save(npy, values)
    elif how == "fortran-order":
        np.save(npy, np.asfortranarray(values))
    elif how == "big-endian":
        np.save(npy, values.astype(">f8"))
    elif how == "float32":
        np.save(npy, values.astype("<f4"))
    elif how == "other-shape":
        np.save(npy, values.reshape(values.shape[0] // 2, 2, values.shape[2]))
    elif how == "16-extra-bytes":
        npy.write_bytes(npy.read_bytes() + bytes(16))
    elif how == "header-garbage":
        data = bytearray(npy.read_bytes())
        data[10:20] = b"{'x': 1}  "
        npy.write_bytes(bytes(data))
    else:
        raise AssertionError(how)
    rehash(folder)


DAMAGES = [
    "exponent-flips-late",
    "sign-flip-late",
    "one-nan-late",
    "one-inf-late",
    "all-nan",
    "unreachable-finite",
    "full-card-not-zero",
    "fortran-order",
    "big-endian",
    "float32",
    "other-shape",
    "16-extra-bytes",
    "header-garbage",
]


@pytest.mark.parametrize("how", DAMAGES)
def test_damaged_table_with_recomputed_sha256(small, capsys, how):
    _damage(small, how)
    verdicts = []
    for light in (True, False):
        with pytest.raises(TableError) as info:
            load_table(SPEC, small, light=light)
        verdicts.append(str(info.value))
    light_verdict, numpy_verdict = verdicts
    assert light_verdict == numpy_verdict  # one validation path, one verdict
    assert "rebuild" in light_verdict and "\n" not in light_verdict
    # without the checksum the values are still checked
    with pytest.raises(TableError):
        load_table(SPEC, small, check_hash=False, light=True)
    assert verify_table(SPEC, small)
    # hint (numpy-free), value, verify (numpy): exit 1 and one line
    code, out, err = cli(
        capsys,
        "hint",
        "--rules",
        SPEC,
        "--dice",
        "33456",
        "--rolls-left",
        "2",
        "--card",
        "",
        "--tables",
        str(small),
    )
    assert code == 1 and out == "" and "rebuild" in one_line_error(err)
    code, out, err = cli(capsys, "value", "--rules", SPEC, "--tables", str(small), "--card", "chance=20")
    assert code == 1 and out == "" and "rebuild" in one_line_error(err)
    code, out, _ = cli(capsys, "tables", "verify", "--rules", SPEC, "--tables", str(small))
    assert code == 1 and out.startswith(f"{SPEC}: FAIL") and len(out.strip().splitlines()) == 1


@pytest.mark.slow  # every state of several rule sets: in CI, not the fast loop
def test_the_value_pattern_is_the_states_the_dp_computes():
    for spec in [
        SPEC,
        "yacht+lower-only",
        "yatzy+order=choose",
        "yahtzee+order=up",
        "yahtzee",
        "yatzy+all-rolls",
    ]:
        rules = get_rules(spec)
        pattern = np.frombuffer(value_pattern(rules), dtype=np.uint8).reshape(_state_mask(rules).shape)
        assert np.array_equal(pattern != ord("n"), _state_mask(rules)), spec
        reachable = np.zeros(pattern.shape, dtype=bool)
        reachable[reachable_states(rules)] = True
        assert np.array_equal(reachable, _state_mask(rules)), spec


def test_a_good_table_passes_verify(small, capsys):
    assert verify_table(SPEC, small) == []
    assert verify_table(SPEC, small, full=True) == []
    code, out, _ = cli(
        capsys, "tables", "verify", "--rules", SPEC, "--tables", str(small), "--full", "--seed", "1"
    )
    assert code == 0 and out.strip() == f"{SPEC}: ok"


def test_mantissa_flips_in_late_states_fail_load_and_verify(small, capsys):
    # the values stay plausible (a relative change of 2**-12), so only the values themselves can
    # tell: the load's Bellman check on a sample (156 of the 190 states break the equation, so a
    # load misses it with probability below 0.18**16 < 1e-11, see tests/test_table_values.py)
    npy = paths(small)[0]
    np.save(npy, flip_bits(good_values(small), late_reachable(), 40))
    rehash(small)
    for light in (True, False):
        with pytest.raises(TableError, match="sampled states break the Bellman equation"):
            load_table(SPEC, small, light=light)
    problems = verify_table(SPEC, small, seed=1)
    assert len(problems) == 1 and "Bellman" in problems[0]
    code, out, _ = cli(capsys, "tables", "verify", "--rules", SPEC, "--tables", str(small))
    assert code == 1 and "Bellman" in out and len(out.strip().splitlines()) == 1


def test_one_flipped_bit_fails_verify_full(small, capsys):
    npy = paths(small)[0]
    where = tuple(i[-1:] for i in late_reachable())
    np.save(npy, flip_bits(good_values(small), where, 0))
    rehash(small)
    assert verify_table(SPEC, small, sample=0) == []  # no state sampled: the checks before hold
    problems = verify_table(SPEC, small, sample=0, full=True)
    assert len(problems) == 1 and "differ from a rebuild" in problems[0]
    state = tuple(int(i[0]) for i in where)
    assert str(state) in problems[0]
    code, out, _ = cli(capsys, "tables", "verify", "--rules", SPEC, "--tables", str(small), "--full")
    assert code == 1 and "rebuild" in out


def test_verify_checks_the_bellman_equation_on_a_full_table(tables_dir):
    tables_dir.table("yahtzee")
    assert verify_table("yahtzee", tables_dir, sample=300, seed=7) == []


@pytest.mark.slow
def test_verify_full_on_a_full_table(tables_dir):
    tables_dir.table("yatzy")
    assert verify_table("yatzy", tables_dir, full=True) == []


# --- files written by builds, paths that are not folders, unreadable files ----------------


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_builds_honour_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        build_table(SPEC, tmp_path, progress=False)
    finally:
        os.umask(old)
    for path in paths(tmp_path):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path.name


def _run_unprivileged(argv: list[str]) -> tuple[int, str]:
    """``main(argv)`` in a forked child running as a user the files' permissions apply to
    (``nobody`` when the tests run as root, who may read anything); its exit code and stderr."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read_end)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = main(argv)
            os.write(write_end, json.dumps([code, err.getvalue()]).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    assert data, "the unprivileged child failed"
    code, err = json.loads(data)
    return code, err


@pytest.mark.parametrize("which", ["json", "npy"])
def test_unreadable_file_is_not_advised_force(which):
    # a folder others can enter (the pytest tmp_path of root is not)
    folder = Path(tempfile.mkdtemp(prefix="yahtzee-perm-"))
    try:
        folder.chmod(0o755)
        build_table(SPEC, folder, progress=False)
        npy, manifest_path = paths(folder)
        for path in (npy, manifest_path):
            path.chmod(0o644)
        (manifest_path if which == "json" else npy).chmod(0o000)
        code, err = _run_unprivileged(["value", "--rules", SPEC, "--tables", str(folder)])
        assert code == 1, err
        line = one_line_error(err)
        assert "cannot read the" in line and "Permission denied" in line
        assert "--force" not in line
    finally:
        for path in folder.iterdir():
            path.chmod(0o644)
            path.unlink()
        folder.rmdir()


def test_tables_path_that_is_a_file(tmp_path, capsys, monkeypatch):
    file = tmp_path / "tables.txt"
    file.write_text("not a folder")
    monkeypatch.setenv("YAHTZEE_TABLES", str(file))
    for argv in (["tables", "build", "--rules", SPEC], ["value", "--rules", SPEC], ["tables", "verify"]):
        code, _, err = cli(capsys, *argv)
        line = one_line_error(err)
        assert code == 2 and "YAHTZEE_TABLES" in line and "not a folder" in line and "File exists" not in line
    monkeypatch.delenv("YAHTZEE_TABLES")
    code, _, err = cli(capsys, "tables", "build", "--rules", SPEC, "--tables", str(file))
    assert code == 2 and "--tables" in one_line_error(err)
    with pytest.raises(UsageError):
        load_table(SPEC, file)
    assert file.read_text() == "not a folder"


def test_a_killed_write_is_cleaned_up_by_the_next_build(tmp_path):
    npy = paths(tmp_path)[0]
    tmp_path.mkdir(exist_ok=True)
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, signal, sys\n"
            "from solver.core.fileio import atomic_write\n"
            "def write(fh):\n"
            "    fh.write(b'x' * 1000); fh.flush(); os.kill(os.getpid(), signal.SIGKILL)\n"
            "atomic_write(sys.argv[1], write)\n",
            str(npy),
        ],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert killed.returncode == -9
    leftovers = [p.name for p in tmp_path.iterdir()]
    assert len(leftovers) == 1 and leftovers[0].endswith(".tmp") and leftovers[0].startswith(f".{npy.name}.")
    # a temporary file of a live writer (this process) and files not ours stay
    live = tmp_path / f".{SPEC}.json.{os.getpid()}.abcd1234.tmp"
    live.write_text("{}")
    other = tmp_path / ".notes.tmp"
    other.write_text("mine")
    build_table(SPEC, tmp_path, progress=False)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted([other.name, live.name, npy.name, f"{SPEC}.json"])
    assert load_table(SPEC, tmp_path).empty_card_value > 0


def test_atomic_write_never_replaces_a_special_file(tmp_path):
    """As root a rename would replace a FIFO or a device node (e.g. /dev/full) with a plain file."""
    from solver.core.fileio import atomic_write_text

    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        atomic_write_text(fifo, "{}")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temporary file left
    link = tmp_path / "full"
    link.symlink_to("/dev/full")
    with pytest.raises(OSError, match="not a regular file"):
        atomic_write_text(link, "{}")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)

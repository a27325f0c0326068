"""The command line, in-process through ``solver.cli.entry`` and a few real subprocesses.

Every call passes ``--tables`` so nothing is written outside temporary folders.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from clirun import run

YAHTZEE_REFERENCE = 254.5877287  # docs/rules.md
JSON_KEYS = {"rules", "card", "dice", "rolls_left", "decision", "options"}


@pytest.fixture(scope="module")
def tdir(tables_dir) -> str:
    """The session tables folder with the yahtzee and yatzy-forced tables built."""
    tables_dir.table("yahtzee")
    tables_dir.table("yatzy-forced")
    return str(tables_dir)


def golden_entry(golden, rules, rolls_left):
    return next(g for g in golden if g["rules"] == rules and g["rolls_left"] == rolls_left)


def golden_key(option: dict) -> str:
    if "keep" in option:
        return "keep " + " ".join(map(str, option["keep"]))
    return f"score {option['category']}"


def check_advice_json(data: dict) -> None:
    assert set(data) == JSON_KEYS
    options = data["options"]
    assert options
    evs = [o["ev"] for o in options]
    assert evs == sorted(evs, reverse=True), "options are sorted by ev, best first"
    best = evs[0]
    for o in options:
        assert {"ev", "expected_final", "regret", "best"} <= set(o)
        assert o["regret"] == pytest.approx(best - o["ev"], abs=1e-8)
        assert o["best"] == (o["regret"] <= 1e-9)
        assert ("keep" in o) == (data["decision"] == "keep")
        assert ("category" in o) == (data["decision"] == "score")
    assert options[0]["best"] and options[0]["regret"] == 0
    assert data["decision"] == ("score" if data["rolls_left"] == 0 else "keep")


# --------------------------------------------------------------------------- hint


def test_hint_text(capsys, tdir):
    code, out, err = run(capsys, "hint", "--dice", "33456", "--rolls-left", "2", "--card", "ones=3,fours=12",
                         "--tables", tdir)  # fmt: skip
    assert code == 0
    assert "Best:" in out
    assert "yahtzee" in out
    assert "Traceback" not in out + err
    lines = out.splitlines()
    assert len(lines) >= 4


def test_hint_top_all(capsys, tdir):
    code, out, _ = run(capsys, "hint", "--dice", "12345", "--rolls-left", "1", "--top", "0", "--tables", tdir)
    assert code == 0
    # 1 2 3 4 5 has 2**5 = 32 distinct keeps, all listed
    assert sum(1 for line in out.splitlines() if line.strip().startswith(("keep", "reroll"))) == 32


@pytest.mark.parametrize("rolls_left", [0, 1, 2])
def test_hint_json_matches_golden(capsys, tdir, golden, rolls_left):
    g = golden_entry(golden, "yahtzee", rolls_left)
    code, out, err = run(capsys, "hint", "--dice", g["dice"], "--rolls-left", str(rolls_left), "--card", g["card"],
                         "--json", "--tables", tdir)  # fmt: skip
    assert code == 0 and err == ""
    data = json.loads(out)
    check_advice_json(data)
    assert data["rules"] == "yahtzee"
    assert data["dice"] == g["dice"]
    assert data["rolls_left"] == rolls_left
    got = {golden_key(o): o["ev"] for o in data["options"]}
    assert set(got) == set(g["options"])
    for key, ev in g["options"].items():
        assert got[key] == pytest.approx(ev, abs=1e-6)
    assert data["options"][0]["ev"] == pytest.approx(g["best_ev"], abs=1e-6)


def test_hint_json_joker_example(capsys, tdir):
    # rule book: five 4s, yahtzee box 0, fours filled: only the lower boxes, large straight 40
    code, out, _ = run(capsys, "hint", "--dice", "44444", "--rolls-left", "0", "--card", "fours=12,yahtzee=0",
                       "--json", "--tables", tdir)  # fmt: skip
    assert code == 0
    data = json.loads(out)
    check_advice_json(data)
    scores = {o["category"]: o["score"] for o in data["options"]}
    assert scores == {"three_of_a_kind": 20, "four_of_a_kind": 20, "full_house": 25, "small_straight": 30,
                      "large_straight": 40, "chance": 20}  # fmt: skip
    assert data["card"] == "fours=12,yahtzee=0"
    for o in data["options"]:
        assert o["expected_final"] == pytest.approx(12 + o["ev"], abs=1e-8)


def test_hint_other_rules(capsys, tdir, golden):
    g = golden_entry(golden, "yatzy-forced", 2)
    code, out, _ = run(capsys, "hint", "--rules", "yatzy-forced", "--dice", g["dice"], "--rolls-left", "2",
                       "--card", g["card"], "--json", "--tables", tdir)  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["rules"] == "yatzy+order=down"  # the canonical spelling of yatzy-forced
    assert data["options"][0]["ev"] == pytest.approx(g["best_ev"], abs=1e-6)


FULL_CARD = (
    "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three_of_a_kind=20,four_of_a_kind=20,"
    "full_house=25,small_straight=30,large_straight=40,yahtzee=50,chance=20"
)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--dice", "33457", "--rolls-left", "2"], "'7'"),
        (["--dice", "33450", "--rolls-left", "2"], "'0'"),
        (["--dice", "3345", "--rolls-left", "2"], "3345"),
        (["--dice", "334566", "--rolls-left", "2"], "334566"),
        (["--dice", "3x456", "--rolls-left", "2"], "3x456"),
        (["--dice", "33456", "--rolls-left", "3"], "--rolls-left"),
        (["--dice", "33456", "--rolls-left", "two"], "two"),
        (["--dice", "33456", "--rolls-left", "2", "--rules", "mega-yatzy"], "mega-yatzy"),
        (["--dice", "33456", "--rolls-left", "2", "--rules", "maxi-yatzy"], "need exactly 6 dice"),
        (["--dice", "33456", "--rolls-left", "2", "--rules", "yahtzee+extra-bonus=50"], "extra-bonus"),
        (["--dice", "33456", "--rolls-left", "2", "--rules", "yatzy+order=sideways"], "order=sideways"),
        (["--dice", "33456", "--rolls-left", "2", "--card", "twos=3"], "twos=3"),
        (["--dice", "33456", "--rolls-left", "2", "--card", "full_house=20"], "full_house=20"),
        (["--dice", "33456", "--rolls-left", "2", "--card", "bananas=3"], "bananas"),
        (["--dice", "33456", "--rolls-left", "2", "--card", "ones=3,ones=2"], "ones"),
        (["--dice", "33456", "--rolls-left", "0", "--card", FULL_CARD], "full"),
        (["--dice", "33456", "--rolls-left", "2", "--rules", "yatzy-forced", "--card", "twos=4"], "ones"),
        (["--dice", "33456", "--rolls-left", "2", "--top", "-1"], "-1"),
        (["--rolls-left", "2"], "--dice"),
        (["--dice", "33456"], "--rolls-left"),
        (["--dice", "33456", "--rolls-left", "2", "--batch", "x.jsonl"], "--batch"),
    ],
)
def test_hint_usage_errors(capsys, tmp_path, args, needle):
    code, out, err = run(capsys, "hint", *args, "--tables", str(tmp_path / "tables"))
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1, err
    assert needle in err
    assert "Traceback" not in err
    assert not (tmp_path / "tables").exists(), "a usage error must not build a table"


def test_unknown_command_and_help(capsys):
    code, out, err = run(capsys, "frobnicate")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "frobnicate" in err
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "hint" in out
    code, out, _ = run(capsys, "hint", "--help")
    assert code == 0 and "--dice" in out


# --------------------------------------------------------------------------- value


def test_value_json(capsys, tdir):
    code, out, err = run(capsys, "value", "--json", "--tables", tdir)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["rules"] == "yahtzee"
    assert data["card"] == ""
    assert data["ev"] == pytest.approx(YAHTZEE_REFERENCE, abs=1e-6)
    assert data["expected_final"] == pytest.approx(YAHTZEE_REFERENCE, abs=1e-6)
    code, out, _ = run(capsys, "value", "--card", "fours=12,ones=3", "--json", "--tables", tdir)
    data = json.loads(out)
    assert data["card"] == "ones=3,fours=12"
    assert data["expected_final"] == pytest.approx(15 + data["ev"], abs=1e-8)
    assert 0 < data["ev"] < YAHTZEE_REFERENCE


def test_value_text_and_errors(capsys, tdir):
    code, out, _ = run(capsys, "value", "--tables", tdir)
    assert code == 0 and "254.5877" in out
    code, out, err = run(capsys, "value", "--card", "twos=3", "--tables", tdir)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "twos=3" in err


# --------------------------------------------------------------------------- tables


def test_tables_list(capsys, tdir, tmp_path):
    code, out, _ = run(capsys, "tables", "list", "--tables", tdir)
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.split()[:1] == ["yahtzee"])
    assert "built" in line and "254.5877287" in line
    code, out, _ = run(capsys, "tables", "list", "--tables", str(tmp_path))
    assert code == 0
    assert "missing" in out and "built" not in out


def test_tables_verify(capsys, tdir, tmp_path):
    code, out, _ = run(capsys, "tables", "verify", "--rules", "yahtzee", "--tables", tdir)
    assert code == 0
    assert "yahtzee: ok" in out
    # a damaged copy fails, with the way to rebuild
    for ext in ("npy", "json"):
        shutil.copy(f"{tdir}/yahtzee.{ext}", tmp_path / f"yahtzee.{ext}")
    npy = tmp_path / "yahtzee.npy"
    data = bytearray(npy.read_bytes())
    data[-8] ^= 0xFF
    npy.write_bytes(bytes(data))
    code, out, _ = run(capsys, "tables", "verify", "--tables", str(tmp_path))
    assert code == 1
    assert "FAIL" in out and "rebuild" in out
    # nothing built at all
    code, out, err = run(capsys, "tables", "verify", "--tables", str(tmp_path / "empty"))
    assert code == 1 and err


def test_tables_build(capsys, tmp_path):
    folder = str(tmp_path / "built")
    code, out, _ = run(capsys, "tables", "build", "--rules", "yatzy-forced", "--quiet", "--tables", folder)
    assert code == 0 and "yatzy+order=down" in out
    code, out, _ = run(capsys, "tables", "build", "--rules", "yatzy-forced", "--quiet", "--tables", folder)
    assert code == 0 and "already built" in out
    assert sorted(p.name for p in (tmp_path / "built").iterdir()) == [
        "yatzy+order=down.json",
        "yatzy+order=down.npy",
    ]
    code, out, err = run(capsys, "tables", "build", "--rules", "yacht+bogus", "--tables", folder)
    assert code == 2 and out == "" and "bogus" in err and len(err.splitlines()) == 1


def test_corrupt_table_is_a_runtime_error(capsys, tdir, tmp_path):
    for ext in ("npy", "json"):
        shutil.copy(f"{tdir}/yahtzee.{ext}", tmp_path / f"yahtzee.{ext}")
    npy = tmp_path / "yahtzee.npy"
    npy.write_bytes(npy.read_bytes()[:1000])
    code, out, err = run(capsys, "hint", "--dice", "33456", "--rolls-left", "2", "--tables", str(tmp_path))
    assert code == 1
    assert out == ""
    assert len(err.splitlines()) == 1 and "rebuild" in err and "Traceback" not in err


# --------------------------------------------------------------------------- batch


def test_hint_batch(capsys, tdir, tmp_path, golden):
    g0 = golden_entry(golden, "yahtzee", 0)
    g1 = golden_entry(golden, "yatzy-forced", 1)
    lines = [
        json.dumps({"card": g0["card"], "dice": g0["dice"], "rolls_left": 0}),
        json.dumps({"card": "", "dice": "33457", "rolls_left": 2}),
        "",
        json.dumps({"rules": "yatzy-forced", "card": g1["card"], "dice": g1["dice"], "rolls_left": 1}),
        "not json at all",
        json.dumps({"dice": "33456"}),
    ]
    batch = tmp_path / "positions.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "hint", "--batch", str(batch), "--tables", tdir)
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == 6  # one per line, in order
    first, bad, blank, second, not_json, missing = results
    assert blank == {"error": "line 3: blank line"}
    check_advice_json(first)
    check_advice_json(second)
    assert first["options"][0]["ev"] == pytest.approx(g0["best_ev"], abs=1e-6)
    assert second["rules"] == "yatzy+order=down"
    assert second["options"][0]["ev"] == pytest.approx(g1["best_ev"], abs=1e-6)
    assert set(bad) == {"error"} and "7" in bad["error"]
    assert set(not_json) == {"error"}
    assert set(missing) == {"error"} and "rolls_left" in missing["error"]
    # the same position through --json gives the same object
    code, out, _ = run(capsys, "hint", "--dice", g0["dice"], "--rolls-left", "0", "--card", g0["card"], "--json",
                       "--tables", tdir)  # fmt: skip
    assert json.loads(out) == first


def test_hint_batch_bad_json_types(capsys, tdir, tmp_path):
    lines = [
        {"dice": 33456, "rolls_left": 2},
        {"dice": "33456", "rolls_left": 2, "card": 5},
        {"dice": "33456", "rolls_left": None},
        {"dice": "33456", "rolls_left": 2, "rules": 7},
        [1, 2, 3],
        {"dice": [3, 3, 4, 5, 6], "rolls_left": "2"},
    ]
    batch = tmp_path / "types.jsonl"
    batch.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    code, out, err = run(capsys, "hint", "--batch", str(batch), "--tables", tdir)
    assert code == 0, err
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == len(lines)
    for n, result in enumerate(results[:-1], start=1):
        assert set(result) == {"error"} and f"line {n}" in result["error"]
    check_advice_json(results[-1])
    assert results[-1]["dice"] == "33456"


def test_hint_batch_stdin(capsys, tdir, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO('{"dice": "11111", "rolls_left": 0, "card": "ones=3"}\n'))
    code, out, _ = run(capsys, "hint", "--batch", "-", "--tables", tdir)
    assert code == 0
    data = json.loads(out)
    check_advice_json(data)
    assert "ones" not in {o["category"] for o in data["options"]}


def test_hint_batch_missing_file(capsys, tmp_path):
    code, out, err = run(capsys, "hint", "--batch", str(tmp_path / "nope.jsonl"), "--tables", str(tmp_path))
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "nope.jsonl" in err


# --------------------------------------------------------------------------- real processes


def run_process(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "solver", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_subprocess_hint_json(tdir, tmp_path):
    proc = run_process(
        "hint", "--dice", "3 3 4 5 6", "--rolls-left", "1", "--json", "--tables", tdir, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    check_advice_json(data)
    assert data["dice"] == "33456"


def test_subprocess_usage_error(tmp_path):
    proc = run_process(
        "hint", "--dice", "33457", "--rolls-left", "2", "--tables", str(tmp_path), cwd=tmp_path
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "7" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.subprocess
def test_subprocess_tables_list_and_version(tdir, tmp_path):
    proc = run_process("tables", "list", "--tables", tdir, cwd=tmp_path)
    assert proc.returncode == 0
    assert "yahtzee" in proc.stdout and "built" in proc.stdout
    proc = run_process("--version", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip()

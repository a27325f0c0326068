"""The clairvoyant bound (``yahtzee bound``): no strategy beats it, so the win bot's measured
rate against optimal play stays under it, and playing for expected score (1/2) is below it."""

from __future__ import annotations

import json

import pytest

from solver.advice.advisor import Advisor
from solver.advice.win import clairvoyant_bound
from solver.cli.entry import main
from solver.engine.target import build_target, load_target
from solver.play.match import play_match

SMALL = "yatzy+lower-only"  # a target table of every score it can reach (t_max 320)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    from solver.engine.tables import build_table

    folder = tmp_path_factory.mktemp("bound-tables")  # its own: others expect no target table
    build_table(SMALL, folder, progress=False)
    build_target(SMALL, folder, t_max=320, progress=False)
    return folder


@pytest.mark.slow
def test_the_bound_is_above_what_the_win_bot_wins(small):
    advisor = Advisor.load(SMALL, small)
    out = clairvoyant_bound(advisor, load_target(SMALL, small))
    assert out["beyond"] == 0.0 and out["opponent_mean"] == pytest.approx(advisor.table.empty_card_value)
    result = play_match(SMALL, ["win", "optimal"], games=20_000, seed=4, tables_dir=small)
    rate = result.summary()["players"][0]["win_or_half_tie"]
    assert 0.5 < rate["rate"] < out["bound"] + 3 * rate["standard_error"]
    assert out["bound"] < 0.6  # knowing the score helps, but not that much


def test_the_bound_from_the_command_line(small, capsys):
    assert main(["bound", "--rules", SMALL, "--tables", str(small), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"] == SMALL and 0.5 < out["bound"] < 0.6
    assert main(["bound", "--rules", SMALL, "--tables", str(small)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"{100 * out['bound']:.2f}%" in lines[1] and all(len(line) <= 80 for line in lines)
    assert main(["bound", "--rules", "triple", "--tables", str(small)]) == 2

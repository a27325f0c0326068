"""Play for a target score: the numba DP against the naive brute force, hand counts, references."""

from __future__ import annotations

import numpy as np
import pytest
from naive import NaiveTargetSolver, outcomes
from tablefiles import reseal
from test_dp_naive import CHANCE, ONES, SIXES, _without_all_but, dp_index

from solver.core.rules import RuleSet, get_rules
from solver.engine.target import FLOAT32_SLACK, solve_target

# reduced games small enough for the brute force at every target
TARGET_GAMES = {
    "lower-only": _without_all_but("yatzy+lower-only", "small_straight,yatzy,chance"),
    "upper-bonus": RuleSet(
        "mini-upper3",
        "ones, sixes, chance; bonus 35 at 8",
        (ONES, SIXES, CHANCE),
        upper_bonus=35,
        upper_threshold=8,
    ),
    "order=choose": _without_all_but("yacht+order=choose", "sixes,little_straight,choice"),
    "all-rolls": _without_all_but("yatzy+all-rolls", "fives,one_pair,yatzy"),
}
# games with a five-of-a-kind bonus (large scores): the brute force at a sample of targets
SAMPLED_GAMES = {
    "joker-forced": (_without_all_but("yahtzee", "sixes,yahtzee,chance"), (1, 20, 45, 50, 80, 130, 180, 230)),
    "extra-bonus": (
        _without_all_but("yatzy+extra-bonus=50", "two_pairs,yatzy,chance"),
        (1, 30, 60, 100, 130),
    ),
}


def _most_points(rules) -> int:
    """More points than any game of ``rules`` can score (every box's best, every bonus)."""
    best = sum(max(rules.scores_by_box[b]) for b in range(rules.n_boxes))
    return best + rules.upper_bonus + rules.bonus * rules.n_boxes + 60


def _check_against_naive(rules, targets_of) -> None:
    naive = NaiveTargetSolver(rules)
    t_max = _most_points(rules)
    values = solve_target(rules, t_max, exact=True)  # the float64 DP, whole rows
    small = solve_target(rules, t_max)  # as a table stores it: float32, rows trimmed
    assert values.w.dtype == np.float64 and small.w.dtype == np.float32
    for state in sorted(naive.reachable_states(), key=lambda s: -bin(s[0]).count("1")):
        index = dp_index(rules, state)
        row = values.row(index)
        assert np.abs(small.row(index) - row).max() <= 2.0**-25  # float32 rounding, nothing more
        assert row[-1] == 0.0  # out of reach
        for t in targets_of(t_max):
            want = naive.probability(state, t)
            assert row[t] == pytest.approx(want, abs=1e-12), (rules.id, state, t)
            assert small.probability(index, t) == pytest.approx(want, abs=FLOAT32_SLACK)


def test_stored_table_within_1e7_of_the_float64_dp_and_smaller():
    """The table as stored (float32, each row without its runs of 1.0 and 0) against the float64
    DP at every reachable state and every target; the same bytes whatever the thread count."""
    rules = get_rules("yatzy+lower-only")
    exact = solve_target(rules, 120, exact=True)
    small = solve_target(rules, 120, threads=2)
    worst = 0.0
    for state in zip(*np.nonzero(exact.off >= 0), strict=True):
        worst = max(worst, float(np.abs(small.row(state) - exact.row(state)).max()))
    assert 0.0 < worst <= 2.0**-25 < FLOAT32_SLACK
    assert (small.lead > 0).sum() > 100  # rows do start with certain targets, not stored
    assert small.w.nbytes < exact.w.nbytes / 2
    one = solve_target(rules, 120, threads=1)
    for a, b in ((one.w, small.w), (one.off, small.off), (one.lead, small.lead), (one.length, small.length)):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TARGET_GAMES))
def test_target_dp_equals_naive_on_every_state_and_target(name):
    rules = TARGET_GAMES[name]
    _check_against_naive(rules, lambda t_max: range(0, t_max - 59))  # every target up to the most points


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SAMPLED_GAMES))
def test_target_dp_equals_naive_with_bonuses(name):
    rules, targets = SAMPLED_GAMES[name]
    _check_against_naive(rules, lambda t_max: targets)


def test_reference_value_yatzy_lower_only():
    """RULES.md: under target play, ``yatzy+lower-only`` reaches 100 with probability 0.9034747."""
    values = solve_target(get_rules("yatzy+lower-only"), 120)
    assert values.probability((0, 0, 0), 100) == pytest.approx(0.9034747, abs=5e-8)


def test_last_turn_yahtzee_box():
    """One box left, the Yahtzee box: P(50 more) is the published chance of five of a kind in
    three rolls (2,783,176 of 6**10 ordered outcomes, optimal keeping); 51 is out of reach."""
    rules = _without_all_but("yahtzee", "chance,yahtzee")
    values = solve_target(rules, 60, exact=True)  # the DP's float64 arithmetic
    state = (1 << rules.box_names.index("chance"), 0, 0)
    assert values.probability(state, 50) == pytest.approx(2783176 / 60466176, abs=1e-12)
    assert values.probability(state, 51) == 0.0
    assert values.probability(state, 0) == 1.0


def test_last_turn_chance_box():
    """One box left, chance: the chance of at least ``t`` with three rolls.  With ``t`` = 30
    only 66666 does it: keep every six, so P = P(six sixes chase ends with five) -- counted
    over the dice."""
    rules = _without_all_but("yahtzee", "chance,yahtzee")
    values = solve_target(rules, 60, exact=True)  # the DP's float64 arithmetic
    state = (1 << rules.box_names.index("yahtzee"), 0, 0)
    dist = {0: 1.0}  # sixes held after each roll, keeping every six
    for _ in range(3):
        new: dict[int, float] = {}
        for have, p in dist.items():
            for dice, q in outcomes(5 - have):
                k = have + dice.count(6)
                new[k] = new.get(k, 0.0) + p * q
        dist = new
    assert values.probability(state, 30) == pytest.approx(dist[5], abs=1e-15)
    assert values.probability(state, 5) == pytest.approx(1.0, abs=1e-12)  # chance scores at least 5
    assert values.probability(state, 31) == 0.0


# --- table files, commands, the target bot ------------------------------------------------
SMALL = "yatzy+lower-only"  # its target table builds in well under a second


@pytest.fixture(scope="module")
def target_dir(tmp_path_factory):
    from solver.engine.target import build_target

    folder = tmp_path_factory.mktemp("target-tables")
    build_target(SMALL, folder, t_max=200, progress=False)
    return folder


def test_table_round_trip_and_verify(target_dir):
    from solver.engine.target import load_target, verify_target

    values = solve_target(get_rules(SMALL), 200)
    for light in (False, True):
        table = load_target(SMALL, target_dir, light=light)
        assert table.t_max == 200
        for state in [(0, 0, 0), (0b101, 0, 0), (0b111111110, 0, 0)]:
            for t in (-3, 0, 1, 50, 100, 150, 200):
                assert table.probability(state, t) == values.probability(state, t)
    assert verify_target(SMALL, target_dir, sample=30, seed=1) == []


def test_damaged_tables_are_refused(target_dir, tmp_path):
    import shutil

    from solver.core.errors import TableError, UsageError
    from solver.engine.target import load_target, target_paths

    rules = get_rules(SMALL)
    for path in target_paths(rules, target_dir):
        shutil.copy(path, tmp_path / path.name)
    w_path, index_path, _ = target_paths(rules, tmp_path)
    data = bytearray(index_path.read_bytes())
    data[-8] ^= 0xFF
    index_path.write_bytes(bytes(data))
    with pytest.raises(TableError, match="sha256"):
        load_target(SMALL, tmp_path)
    with open(w_path, "ab") as fh:  # the values: caught by the checksum of tables verify
        fh.write(b"\0" * 8)
    with pytest.raises(TableError):
        load_target(SMALL, tmp_path, check_hash=True)
    with pytest.raises(UsageError, match="up to 200"):
        load_target(SMALL, target_dir).probability((0, 0, 0), 201)


def test_hint_and_value_target_cli(target_dir, capsys):
    import json

    from solver.cli.entry import main

    args = ["--rules", SMALL, "--tables", str(target_dir)]
    assert main(["value", *args, "--target", "100", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["p_target"] == pytest.approx(0.9034747, abs=5e-8)
    assert out["p_target"] > out["p_target_ev_play"] > 0.8  # expected-score play reaches 100 less often
    assert main(["hint", *args, "--dice", "33456", "--rolls-left", "1", "--card", "chance=20,yatzy=0",
                 "--target", "100", "--json"]) == 0  # fmt: skip
    advice = json.loads(capsys.readouterr().out)
    assert advice["target"] == 100
    p = [o["p_target"] for o in advice["options"]]
    assert p == sorted(p, reverse=True) and 0 < p[-1] <= p[0] < 1
    assert advice["options"][0]["best"]
    # the ranking differs from expected-score play here: the EV-best keep is not the target's best
    ev_best = max(advice["options"], key=lambda o: o["ev"])
    assert ev_best["p_target"] < p[0]
    assert main(["hint", *args, "--dice", "33456", "--rolls-left", "0", "--card", "chance=20,yatzy=0",
                 "--target", "100"]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "target 100" in text and "P(>=100)" in text
    assert main(["hint", *args, "--dice", "33456", "--rolls-left", "0", "--target", "0"]) == 2
    assert "--target" in capsys.readouterr().err
    # beyond the table (200 more points) but within the card's reach (219): capped, said so
    assert main(["hint", *args, "--dice", "33456", "--rolls-left", "2", "--target", "210"]) == 0
    text = capsys.readouterr().out
    assert "P(>=210)" in text and "note: the target table holds final scores up to 200" in text
    assert all(len(line) <= 80 for line in text.splitlines()[-3:])
    # beyond the card's reach: 0, no error, the options in the expected-score order
    assert main(["hint", *args, "--dice", "33456", "--rolls-left", "0", "--target", "400", "--json"]) == 0
    far = json.loads(capsys.readouterr().out)
    assert "capped_at" not in far and {o["p_target"] for o in far["options"]} == {0.0}
    assert main(["value", *args, "--target", "400", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p_target"] == 0.0


def test_the_most_a_card_can_still_score():
    """``most_to_come``: never fewer points than a game can still score (the target table's
    rows, as long as the card's reach, agree), exact where it is known: 1575 is the largest
    Yahtzee score, 374 the largest Yatzy score."""
    from solver.core.card import ScoreCard

    assert ScoreCard.parse("", "yahtzee").most_to_come == 1575
    assert ScoreCard.parse("", "yatzy").most_to_come == 374
    assert ScoreCard.parse("yahtzee=0", "yahtzee").most_to_come == 1575 - 1250  # no bonus any more
    assert ScoreCard.parse("chance=20", SMALL).most_to_come == 189  # no bonus in this game
    card = ScoreCard.parse("ones=1,twos=2,threes=3,fours=4,fives=5", "yahtzee")
    assert card.most_to_come == 30 + 235 + 700  # sixes, the lower boxes, 7 bonuses; 63 out of reach


@pytest.mark.parametrize("seed", range(6))
def test_most_to_come_is_at_least_the_target_tables_reach(target_dir, seed):
    """Each stored row of the target table is as long as the most points its state can still
    score (capped at t_max): ``most_to_come`` is never shorter, on cards of random games."""
    import random

    from solver.core.card import ScoreCard
    from solver.core.dice import Dice
    from solver.engine.target import load_target

    table = load_target(SMALL, target_dir, light=True)
    rng = random.Random(seed)
    card = ScoreCard.empty(SMALL)
    while not card.is_complete:
        length = table.span(card.state)[2]
        assert card.most_to_come >= length
        if length < table.t_max:  # the row ends where the reach does: one more is out of reach
            assert table.probability(card.state, length + 1) == 0.0
        dice = Dice.parse("".join(str(rng.randint(1, 6)) for _ in range(5)))
        card = card.score(rng.choice(card.placements(dice)).box, dice)


def test_a_target_beyond_the_table_is_capped_not_refused(target_dir, tmp_path):
    """A target more points away than the table holds is answered, not refused: out of the
    card's reach, 0 for every option (ranked by expected score); within it, the probability of
    the largest target the table holds, an upper bound (``capped_at`` says so), checked
    against the exact probabilities of a larger table."""
    from solver.advice.advisor import Advisor, TargetAdvisor
    from solver.advice.objectives import AtLeast
    from solver.core.position import Position
    from solver.engine.tables import build_table
    from solver.engine.target import build_target, load_target

    build_target(SMALL, tmp_path, t_max=60, progress=False)
    advisor = Advisor(build_table(SMALL, tmp_path, progress=False))
    short = TargetAdvisor(advisor, load_target(SMALL, tmp_path, light=True))
    full = TargetAdvisor(advisor, load_target(SMALL, target_dir, light=True))  # t_max 200
    position = Position.parse("chance=20", "66655", 1, SMALL)
    key = lambda o: (o.keep, o.category)  # noqa: E731
    capped = short.advise(position, AtLeast(150))
    assert capped.capped_at == 80 and capped.to_json()["capped_at"] == 80
    at_80 = {key(o): o.p_target for o in full.advise(position, AtLeast(80)).options}
    exact = {key(o): o.p_target for o in full.advise(position, AtLeast(150)).options}
    assert full.advise(position, AtLeast(150)).capped_at is None
    for o in capped.options:
        assert o.p_target == pytest.approx(at_80[key(o)], abs=1e-12)
        assert o.p_target >= exact[key(o)] - 1e-12
    assert max(o.p_target - exact[key(o)] for o in capped.options) > 0.1  # a bound, not the answer
    assert short.probability(position.card, 150) == pytest.approx(full.probability(position.card, 80))
    # the card holds 20 and can score 189 more: 210 is out of reach, whatever the table
    plain = [key(o) for o in advisor.advise(position).options]
    for advisor_ in (short, full):
        far = advisor_.advise(position, AtLeast(210))
        assert far.capped_at is None and {o.p_target for o in far.options} == {0.0}
        assert [key(o) for o in far.options] == plain
        assert advisor_.probability(position.card, 210) == 0.0
    assert full.advise(position, AtLeast(209)).options[0].p_target > 0  # the very most is reachable


def test_target_bot_matches_the_exact_probability_and_beats_optimal(target_dir):
    from solver.play.simulate import simulate

    games, target = 20_000, 100
    exact = solve_target(get_rules(SMALL), 120).probability((0, 0, 0), target)
    aimed = simulate(SMALL, "target:100", games, seed=11, tables_dir=target_dir)
    plain = simulate(SMALL, "optimal", games, seed=11, tables_dir=target_dir)
    hits, base = aimed.scores >= target, plain.scores >= target
    share = hits.mean()
    assert abs(share - exact) < 4 * np.sqrt(exact * (1 - exact) / games)
    diff = hits.astype(float) - base.astype(float)
    assert diff.mean() > 4 * diff.std() / np.sqrt(games)  # paired: on the same dice


@pytest.mark.slow  # Python against numba, game by game: in CI, not the fast loop
def test_target_bot_python_and_numba_play_the_same_games(target_dir):
    from solver.play.simulate import simulate

    a = simulate(SMALL, "target:100", 300, seed=5, tables_dir=target_dir, engine="numba")
    b = simulate(SMALL, "target:100", 300, seed=5, tables_dir=target_dir, engine="python")
    assert (a.scores == b.scores).all()


def test_simulate_target_share_cli(target_dir, capsys):
    import json

    from solver.cli.entry import main

    code = main(["simulate", "--rules", SMALL, "--tables", str(target_dir), "--bot", "target:100", "--vs",
                 "optimal", "--games", "3000", "--seed", "2", "--json", "--quiet"])  # fmt: skip
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["target"] == 100
    assert out["stats"]["share_at_least_target"] > out["vs_stats"]["share_at_least_target"]
    assert out["paired"]["share_difference"] > 0
    assert main(["simulate", "--rules", SMALL, "--bot", "target:x", "--games", "10"]) == 2
    assert "target" in capsys.readouterr().err


def test_review_of_a_game_played_for_a_target(target_dir, tmp_path, capsys):
    """A solo game that played for a target: review shows each decision's P(reach it); the
    target bot's own choices are the best for it."""
    import json
    import random

    from solver.cli.entry import main
    from solver.play.bots import get_bot
    from solver.play.game import Game, play_bot_turn
    from solver.play.records import save_game

    bot = get_bot("target:100", SMALL, target_dir)
    game = Game.new(
        SMALL, ["Pat"], seed=4, info={"mode": "solo", "target": 100, "target_goal": "beat your record"}
    )
    while not game.is_over:
        play_bot_turn(game, bot, random.Random(0))
    path = save_game(game, tmp_path / "g.json")
    assert main(["review", str(path), "--json", "--tables", str(target_dir)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["target"] == 100
    decisions = out["players"][0]["decisions"]
    assert decisions and all("p_target_choice" in d for d in decisions)
    for d in decisions:  # the target bot plays for the target: its choice is (one of) the best for it
        assert d["p_target_choice"] == pytest.approx(d["p_target_best"], abs=1e-9)
    assert main(["review", str(path), "--tables", str(target_dir)]) == 0
    assert "P(>=100)" in capsys.readouterr().out


def test_play_solo_with_a_target_shows_the_chance(target_dir, tmp_path, monkeypatch, capsys):
    import io

    from solver.cli.entry import main

    monkeypatch.setattr("sys.stdin", io.StringIO("r\nhint\nq\n"))
    code = main(["play", "--rules", SMALL, "--seed", "5", "--target", "100", "--tables", str(target_dir),
                 "--data", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    p = solve_target(get_rules(SMALL), 120).probability((0, 0, 0), 100)
    assert f"chance to reach the target (100): {100 * p:.1f}%" in out
    assert "to reach the target" in out.split("hint (2 rolls left)")[1]
    assert main(["play", "--rules", SMALL, "--target", "100", "--vs-computer"]) == 2


# --- damaged target tables: one error line, never a wrong answer (issue 19) -------------------
def _forged_copy(target_dir, folder, damage):
    """``folder`` with a copy of the tables of ``target_dir`` whose target table ``damage`` changes
    (``damage(w, index, manifest)`` in place), the manifest's checksums recomputed to match: a
    consistent forgery that only the values themselves give away."""
    import json
    import shutil

    from solver.engine.target import target_paths

    folder.mkdir(exist_ok=True)
    for path in target_dir.iterdir():
        shutil.copy(path, folder / path.name)
    w_path, index_path, manifest_path = target_paths(get_rules(SMALL), folder)
    w, index = np.load(w_path), np.load(index_path)
    manifest = json.loads(manifest_path.read_text())
    damage(w, index, manifest)
    np.save(w_path, w)
    np.save(index_path, index)
    manifest_path.write_text(json.dumps(manifest))
    reseal(manifest_path)
    return folder


def _beyond_the_empty_card(value):
    """Every probability but those of the empty card's row (read at load) set to ``value``."""

    def damage(w, index, manifest):
        start, length, lead = index[0, 0, 0]
        keep = w[start : start + length - lead].copy()
        w[:] = value
        w[start : start + length - lead] = keep

    return damage


def _index(column, value):
    """Every index entry but the empty card's (read at load): ``column`` 0 (offset) or 1 (length)."""

    def damage(w, index, manifest):
        index[1:, ..., column] = value if column else index[1:, ..., column] + value

    return damage


def _t_max(w, index, manifest):
    manifest["t_max"] = 300  # built for 200: every option would have P = 0 at targets above 200


DAMAGES = {
    "offset 10^12": _index(0, 10**12),
    "length -5": _index(1, -5),
    "length past t_max": _index(1, 201),
    "probability 2.5": _beyond_the_empty_card(2.5),
    "probability -0.3": _beyond_the_empty_card(-0.3),
    "probability nan": _beyond_the_empty_card(float("nan")),
    "t_max overstated": _t_max,
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_hint_target_on_a_damaged_table_is_one_error(target_dir, tmp_path, capsys, damage):
    """``hint --target`` reads the table without numpy: each damage is one line "damaged",
    exit 1, with the rebuild command; never a traceback nor probabilities that are none."""
    from solver.cli.entry import main

    folder = _forged_copy(target_dir, tmp_path / "tables", DAMAGES[damage])
    target = "250" if damage == "t_max overstated" else "100"
    code = main(["hint", "--rules", SMALL, "--tables", str(folder), "--dice", "33456", "--rolls-left", "1",
                 "--card", "chance=20,yatzy=0", "--target", target, "--json"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 1 and out == "", out[:300]
    assert len(err.splitlines()) == 1 and "damaged" in err and "--target" in err and "--force" in err, err


@pytest.mark.parametrize(
    "damage", ["probability 2.5", "probability -0.3", "probability nan", "t_max overstated"]
)
def test_loading_a_damaged_target_table_with_numpy_is_refused(target_dir, tmp_path, damage):
    """The bots' load (numpy arrays the kernels read unchecked) checks every probability once."""
    from solver.core.errors import TableError
    from solver.engine.target import load_target

    folder = _forged_copy(target_dir, tmp_path / "tables", DAMAGES[damage])
    with pytest.raises(TableError, match="damaged"):
        load_target(SMALL, folder)


def test_a_table_of_the_old_format_is_refused_with_the_rebuild_command(target_dir, tmp_path):
    """Format 1 (float64 whole rows, before the float32 tables): one line, the command that rebuilds it."""
    from solver.cli.remedy import error_text
    from solver.core.errors import TableError
    from solver.engine.target import load_target

    def old_format(w, index, manifest):
        manifest["format_version"] = 1

    folder = _forged_copy(target_dir, tmp_path / "tables", old_format)
    for light in (False, True):
        with pytest.raises(TableError, match="old format 1") as caught:
            load_target(SMALL, folder, light=light)
        assert "\n" not in str(caught.value) and (caught.value.kind, caught.value.fix) == (
            "target",
            "rebuild",
        )
        command = error_text(caught.value)  # the CLI's words for the fix
        assert "--target" in command and "--force" in command


def test_verify_a_table_built_for_targets_below_200(tmp_path, capsys):
    """``tables verify`` checks a table within its own targets (it asked for t=200 of every one)."""
    from solver.cli.entry import main
    from solver.engine.target import build_target, verify_target

    build_target(SMALL, tmp_path, t_max=150, progress=False)
    assert verify_target(SMALL, tmp_path, sample=20, seed=3) == []
    assert main(["tables", "verify", "--rules", SMALL, "--tables", str(tmp_path), "--sample", "20"]) == 0
    assert f"{SMALL}: ok" in capsys.readouterr().out

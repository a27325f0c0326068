"""Forged values, not only forged bytes (issue 32): every load checks the Bellman equation on
states drawn afresh (:func:`solver.engine.tables.check_sampled_bellman`).

A table whose values were changed and whose sha256 was recomputed passes the byte checks
(its values still look like values); the load now recomputes a few dozen of them, one
backward step from the stored values after them, and refuses the table in one line naming
the rebuild command.  The draw: one state of each level and :data:`LOAD_SAMPLE` uniformly from
all states, so a table broken on a share ``p`` of its states loads with probability at most
``(1 - p) ** LOAD_SAMPLE``.  Checked here: genuine tables hold the equation on every state
(reduced games of every base and modifier; the full built-in rule sets, ``slow``, on a large
sample), so no draw refuses them; +60 on every state with ``chance`` filled is refused, on the
full ``yahtzee`` table and on every reduced game; a forged small share is found as often as
the bound says; the draws are fresh, span the levels and are uniform.
"""

from __future__ import annotations

import json
import random
import shutil

import numpy as np
import pytest
from tablefiles import reseal
from test_adversarial_tables import cli, one_line_error

from solver.core.errors import TableError
from solver.core.rules import RULE_SETS, get_rules
from solver.engine import store
from solver.engine import tables as T
from solver.engine.tables import (
    LOAD_SAMPLE,
    build_table,
    check_sampled_bellman,
    load_table,
    reachable_states,
    sample_states,
    table_paths,
    value_pattern,
)
from solver.engine.turn import backed_up_value

#: reduced games covering every base and modifier (each builds and scans in under a second):
#: hopeless and capped upper totals (shared values), the Joker modes, fill orders, all-rolls,
#: extra bonuses and two yatzy rows
REDUCED = [
    "yahtzee+without=ones,twos,threes,three_of_a_kind,four_of_a_kind,small_straight,large_straight,full_house",
    "yahtzee+without=threes,fours,fives,sixes,four_of_a_kind,small_straight,large_straight",
    "yahtzee-free-joker+order=choose+without=ones,twos,threes,four_of_a_kind,small_straight,chance",
    "yahtzee-no-joker+order=down+without=twos,threes,fours",
    "yahtzee-no-bonus+without=ones,twos,threes,fours,fives,full_house,small_straight",
    "yatzy+lower-only",
    "yatzy+all-rolls+extra-bonus=50+yatzy-rows=2+lower-only+without=one_pair,two_pairs,four_of_a_kind,"
    "small_straight,large_straight,full_house",
    "yatzy-forced+without=ones,twos,one_pair,two_pairs",
    "yacht+extra-bonus=100+order=up",
    "yacht+without=ones,twos,threes,fours",
]
FULL = [pytest.param(rid, marks=pytest.mark.slow) for rid in [*sorted(RULE_SETS), "yacht"]]
SMALL = "yahtzee+lower-only"  # 190 states: exact shares, scans in milliseconds
HINT = ["hint", "--dice", "33456", "--rolls-left", "2", "--card", "ones=3"]


def computed_states(rules) -> list[tuple[int, int, int]]:
    """Every state a table of ``rules`` holds a computed value for, the full card excluded."""
    m, u, f = reachable_states(rules)
    return [(int(a), int(b), int(c)) for a, b, c in zip(m, u, f, strict=True) if a != rules.full_mask]


def broken_states(rules, values) -> list[tuple[int, int, int]]:
    """The states whose stored value is not one backward step from the values after them."""
    out = []
    for s in computed_states(rules):
        stored, expected = float(values[s]), backed_up_value(rules, s, values)
        if not abs(stored - expected) <= T.BELLMAN_TOLERANCE * max(1.0, abs(expected)):
            out.append(s)
    return out


def forge(folder, spec: str, change) -> np.ndarray:
    """Rewrite the table of ``spec`` in ``folder`` with ``change(values)`` applied and its manifest's
    sha256 recomputed, as a forger would: the byte checks pass, only the values can tell."""
    rules = get_rules(spec)
    npy, manifest_path = table_paths(rules, folder)
    values = np.load(npy).copy()
    change(values)
    np.save(npy, values)
    reseal(manifest_path)
    return values


def plus_60_on(box: int, rules):
    """+60 on every state with ``box`` filled (the full card's 0 kept: the byte checks pin it)."""

    def change(values):
        filled = (np.arange(len(values)) >> box) & 1 == 1
        filled[rules.full_mask] = False
        values[filled] += 60.0

    return change


def forged_box(rules) -> int:
    """``chance`` on a free card; under a fill order (which may fill ``chance`` last, on the full
    card only) the middle box."""
    if rules.order == "free" and "chance" in rules.box_index:
        return rules.box_index["chance"]
    return rules.n_boxes // 2


# --- genuine tables are never refused --------------------------------------------------


@pytest.mark.parametrize("spec", REDUCED)
def test_every_state_of_a_genuine_table_holds_the_equation(tables_dir, spec):
    """Every computed state, so no draw of a load can refuse a genuine table (shared values
    of hopeless and capped upper totals included)."""
    table = tables_dir.table(spec)
    assert broken_states(table.rules, table.values) == []
    for light in (True, False):
        load_table(spec, tables_dir, light=light)


@pytest.mark.parametrize("rid", FULL)
def test_a_genuine_full_table_passes_a_large_sample(tables_dir, rid):
    table = tables_dir.table(rid)
    light = load_table(rid, tables_dir, light=True)
    rng = random.Random(rid)
    assert check_sampled_bellman(table.rules, light.values, uniform=1000, rng=rng) is None
    assert check_sampled_bellman(table.rules, table.values, uniform=100, rng=rng) is None  # numpy memmap


def test_the_shipped_table_passes_a_large_sample():
    table = T.load_shipped("yahtzee", light=True)
    assert check_sampled_bellman(table.rules, table.values, uniform=300, rng=random.Random(5)) is None


# --- forged values are refused ---------------------------------------------------------


@pytest.fixture
def forged_yahtzee(tmp_path):
    """The shipped yahtzee table copied into a folder, +60 on every state with ``chance`` filled."""
    rules = get_rules("yahtzee")
    for src, dst in zip(T.shipped_paths(rules), table_paths(rules, tmp_path), strict=True):
        shutil.copyfile(src, dst)
    forge(tmp_path, "yahtzee", plus_60_on(rules.box_index["chance"], rules))
    return tmp_path


def test_plus_60_with_chance_filled_is_refused_in_one_line(forged_yahtzee, capsys, monkeypatch):
    rebuild = f"rebuild it with: yahtzee tables build --rules yahtzee --force --tables {forged_yahtzee}"
    for light in (True, False):
        with pytest.raises(TableError) as info:
            load_table("yahtzee", forged_yahtzee, light=light)
        message, error = str(info.value), info.value
        assert "sampled states break the Bellman equation" in message and message.endswith("; rebuild it")
        assert (error.rules.id, error.kind, error.folder, error.fix) == (
            "yahtzee",
            "values",
            forged_yahtzee,
            "rebuild",
        )
        assert "\n" not in message
    code, out, err = cli(capsys, *HINT, "--tables", str(forged_yahtzee))
    line = one_line_error(err)
    assert code == 1 and out == "" and line.startswith("yahtzee: error: ") and line.endswith(rebuild)
    code, out, err = cli(capsys, "value", "--card", "chance=20", "--tables", str(forged_yahtzee))
    assert code == 1 and out == "" and one_line_error(err).endswith(rebuild)
    code, out, _ = cli(capsys, "tables", "verify", "--rules", "yahtzee", "--tables", str(forged_yahtzee))
    assert code == 1 and out.startswith("yahtzee: FAIL") and "Bellman" in out
    # only the values tell: without the check the forged table loads and changes the advice
    monkeypatch.setattr(T, "check_sampled_bellman", lambda *args, **kwargs: None)
    last_roll = ["hint", "--dice", "33456", "--rolls-left", "0", "--card", "ones=3", "--json"]
    code, forged, _ = cli(capsys, *last_roll, "--tables", str(forged_yahtzee))
    code_shipped, shipped, _ = cli(capsys, *last_roll, "--tables", str(forged_yahtzee / "none"))
    assert code == code_shipped == 0
    assert best_box(forged) == "chance" and best_box(shipped) == "small_straight"


def best_box(hint_json: str) -> str:
    (best,) = [o for o in json.loads(hint_json)["options"] if o["best"]]
    return best["category"]


@pytest.mark.parametrize("spec", [*REDUCED, *FULL])
def test_plus_60_is_refused_on_every_rule_set(tmp_path, tables_dir, spec):
    """+60 on every state with ``chance`` (:func:`forged_box`) filled: refused by every load, of
    every rule set.  Where a scan of every state is quick, the chance that a load misses it,
    from the states it breaks and the draw's law, is below 1e-9; on the full tables the level
    draws meet broken states every time (the empty card of a free card, under a fill order
    the card that fills the box next)."""
    genuine(tables_dir, spec, tmp_path)
    rules = get_rules(spec)
    values = forge(tmp_path, spec, plus_60_on(forged_box(rules), rules))
    if rules.n_boxes <= 10:
        assert miss_probability(rules, broken_states(rules, values)) < 1e-9
    for _ in range(5):
        for light in (True, False):
            with pytest.raises(TableError, match="break the Bellman equation.*; rebuild it$"):
                load_table(spec, tmp_path, light=light)


def genuine(tables_dir, spec: str, folder) -> None:
    """A genuine table of ``spec`` (built once a session) copied into ``folder``."""
    table = tables_dir.table(spec)
    for src, dst in zip(table_paths(table.rules, tables_dir), table_paths(table.rules, folder), strict=True):
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)


def miss_probability(rules, broken) -> float:
    """The chance that a load's draw (:func:`sample_states`) meets none of the ``broken`` states:
    each level's draw (a card of the level, uniformly, then one of its states) and the uniform
    draws, independent."""
    broken, by_mask = set(broken), {}
    states = computed_states(rules)
    for s in states:
        by_mask.setdefault(s[0], []).append(s)
    miss = (1 - len(broken) / len(states)) ** LOAD_SAMPLE
    for k in range(rules.n_boxes):
        level = [lanes for m, lanes in by_mask.items() if m.bit_count() == k]
        miss *= sum(sum(s not in broken for s in lanes) / len(lanes) for lanes in level) / len(level)
    return miss


# --- a small forged share: found as often as the bound says; each load draws afresh -------


@pytest.fixture
def one_state_forged(tmp_path):
    """The small table with one mid-game state's value raised by 1 point: the equation breaks
    there and on the states before it that can lead to it (a small share)."""
    rules = get_rules(SMALL)
    build_table(SMALL, tmp_path, progress=False)
    target = next(s for s in computed_states(rules) if s[0].bit_count() == 4 and s[2] == 0)

    def change(values):
        values[target] += 1.0

    values = forge(tmp_path, SMALL, change)
    return tmp_path, rules, values


def test_a_small_forged_share_is_found_within_the_bound(one_state_forged):
    """Misses of 200 seeded draws: within the bound ``(1 - p) ** LOAD_SAMPLE`` and near the
    exact chance (:func:`miss_probability`), 4 standard deviations either way."""
    _, rules, values = one_state_forged
    broken = broken_states(rules, values)
    p = len(broken) / len(computed_states(rules))
    assert 0 < p < 0.15  # a small share
    bound, exact = (1 - p) ** LOAD_SAMPLE, miss_probability(rules, broken)
    assert exact <= bound  # the level draws only add
    trials = 200
    misses = sum(
        check_sampled_bellman(rules, values, rng=random.Random(seed)) is None for seed in range(trials)
    )

    def spread(q: float) -> float:
        return 4 * (trials * q * (1 - q)) ** 0.5

    assert misses <= trials * bound + spread(bound)
    assert abs(misses - trials * exact) <= spread(exact)


def test_each_load_draws_afresh(one_state_forged):
    """The same forged file loads sometimes and is refused other times: no fixed set of states
    a forger could leave alone (the chance that 60 loads all agree is below 1e-6)."""
    folder, rules, values = one_state_forged
    miss = miss_probability(rules, broken_states(rules, values))
    assert 0.2 < miss < 0.8
    outcomes = set()
    for _ in range(60):
        try:
            load_table(SMALL, folder, light=True)
            outcomes.add("loaded")
        except TableError:
            outcomes.add("refused")
    assert outcomes == {"loaded", "refused"}


# --- the draw ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec", [SMALL, "yahtzee", "yatzy+order=choose", "yahtzee+order=up", "yacht+extra-bonus=100+order=down"]
)
def test_the_draw_spans_every_level_and_only_computed_states(spec):
    rules = get_rules(spec)
    pattern, row = value_pattern(rules), (rules.upper_cap + 1) * rules.n_flags
    first, second = sample_states(rules), sample_states(rules)
    assert len(first) == rules.n_boxes + LOAD_SAMPLE
    assert [m.bit_count() for m, _, _ in first[: rules.n_boxes]] == list(range(rules.n_boxes))
    for m, u, f in first + second:
        assert m != rules.full_mask and pattern[m * row + u * rules.n_flags + f] == ord("v")
        assert rules.is_reachable_mask(m)
    if spec != "yacht+extra-bonus=100+order=down":  # 13 states: two draws may agree
        assert first != second  # fresh each time


@pytest.mark.parametrize("spec", [SMALL, "yatzy-forced+without=ones,twos,one_pair,two_pairs"])
def test_the_uniform_draws_are_uniform(spec):
    """Chi-squared of 100 draws a state against the 0.999 quantile: ``(1 - p) ** k`` needs it."""
    rules = get_rules(spec)
    states = computed_states(rules)
    draws = sample_states(rules, uniform=100 * len(states), rng=random.Random(1))[rules.n_boxes :]
    counts = {s: 0 for s in states}
    for s in draws:
        counts[s] += 1
    expected = len(draws) / len(states)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    dof = len(states) - 1
    assert chi2 < dof + 3.1 * (2 * dof) ** 0.5 + 10  # the 0.999 quantile is below this


# --- target tables: the same check on their probabilities ------------------------------------

TARGET_GAMES = ["yatzy+lower-only", REDUCED[0]]  # the second: upper bonus, flag, capped totals


@pytest.fixture(scope="module")
def target_folder(tmp_path_factory):
    from solver.engine.target import build_target

    folder = tmp_path_factory.mktemp("target-tables")
    for spec in TARGET_GAMES:
        build_target(spec, folder, t_max=200, progress=False)
    return folder


@pytest.mark.parametrize("spec", TARGET_GAMES)
def test_a_genuine_target_table_passes_a_large_sample(target_folder, spec):
    from solver.engine.target import check_sampled_target, load_target, target_load_levels

    n = get_rules(spec).n_boxes
    assert target_load_levels(get_rules(spec)) == (0, 1, n - 2, n - 1)
    for light in (True, False):
        table = load_target(spec, target_folder, light=light)
        assert check_sampled_target(table, uniform=200, rng=random.Random(spec)) is None
    for _ in range(10):
        load_target(spec, target_folder, light=True)


def test_forged_target_probabilities_are_refused_in_one_line(target_folder, tmp_path, capsys):
    """+0.05 on every stored probability (at most 1), the values' sha256 recomputed: the index,
    its checksum and the empty card's check values still pass; the Bellman check does not."""
    from solver.engine.target import load_target, target_paths

    spec = TARGET_GAMES[0]
    rules = get_rules(spec)
    for src in target_paths(rules, target_folder):
        shutil.copyfile(src, tmp_path / src.name)
    w_path, _, manifest_path = target_paths(rules, tmp_path)
    w = np.load(w_path)
    np.save(w_path, np.minimum(w + np.float32(0.05), np.float32(1.0)))
    reseal(manifest_path)
    rebuild = f"rebuild it with: yahtzee tables build --rules {spec} --target --force --tables {tmp_path}"
    for _ in range(3):
        for light in (True, False):
            with pytest.raises(TableError) as info:
                load_target(spec, tmp_path, light=light)
            message, error = str(info.value), info.value
            assert "sampled (state, target) pairs break the Bellman equation" in message
            assert message.endswith("; rebuild it") and "\n" not in message
            assert (error.rules.id, error.kind, error.folder, error.fix) == (
                spec,
                "target",
                tmp_path,
                "rebuild",
            )
    build_table(spec, tmp_path, progress=False)  # the value table beside it is genuine
    argv = ["hint", "--rules", spec, "--dice", "33456", "--rolls-left", "1", "--target", "100"]
    code, out, err = cli(capsys, *argv, "--tables", str(tmp_path))
    assert code == 1 and out == "" and one_line_error(err).endswith(rebuild)


# --- the opponent model: its rows' means against the value table ----------------------------


@pytest.mark.parametrize("spec", ["yatzy+lower-only", REDUCED[0], REDUCED[2]])
def test_a_forged_opponent_model_is_solved_again(tables_dir, tmp_path, spec):
    """Every row moved 3 points up, the index's sha256 recomputed: read back without the value
    table it passes every other check; with it, the means of the rows drawn are off (None:
    solved again, the genuine rows).  A genuine model passes every draw (exact rows and normal
    ones: these games have more open boxes than the exact rows cover)."""
    from solver.engine.distribution import solve_residuals
    from solver.engine.opponent import (
        get_residuals,
        load_residuals,
        residual_means_problem,
        residual_paths,
        save_residuals,
    )

    table = tables_dir.table(spec)
    rules, values = table.rules, table.values
    res = solve_residuals(rules, values)
    assert rules.n_boxes > res.exact_open
    assert residual_means_problem(rules, res, values, rng=random.Random(1)) is None
    save_residuals(rules, res, tmp_path, "abc")
    for _ in range(10):
        assert load_residuals(rules, tmp_path, "abc", values) is not None
    _, index_path, manifest_path = residual_paths(rules, tmp_path)
    index = np.load(index_path)
    index[..., 1] += 3
    np.save(index_path, index)
    reseal(manifest_path)
    assert load_residuals(rules, tmp_path, "abc") is not None  # only the values tell
    assert load_residuals(rules, tmp_path, "abc", values) is None
    again = get_residuals(rules, values, tmp_path, "abc")
    np.testing.assert_array_equal(again.lo, res.lo)
    assert load_residuals(rules, tmp_path, "abc", values) is not None  # stored again, genuine


# --- the light reader remembers a file that passed -----------------------------------------


@pytest.fixture
def draws(monkeypatch, tmp_path):
    """The small table built in a fresh folder, a fresh cache (the memo's folder) and every
    draw of a load as ``(uniform, levels)``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "tables"
    build_table(SMALL, folder, progress=False)
    seen, draw = [], T.sample_states

    def spy(rules, uniform=LOAD_SAMPLE, rng=None, levels=None):
        seen.append((uniform, levels))
        return draw(rules, uniform, rng, levels)

    monkeypatch.setattr(T, "sample_states", spy)
    return folder, seen


def test_a_light_load_of_a_file_that_passed_draws_fewer_states_afresh(draws):
    folder, seen = draws
    load_table(SMALL, folder, light=True)
    assert seen == [(LOAD_SAMPLE, None)] and store.checked_file().is_file()
    load_table(SMALL, folder, light=True)
    load_table(SMALL, folder, light=True)
    assert seen[1:] == [(T.RECHECK_SAMPLE, ())] * 2
    load_table(SMALL, folder, light=False)  # the full readers: the full draw every time
    assert seen[3:] == [(LOAD_SAMPLE, None)]


def test_a_file_rewritten_after_it_passed_gets_the_full_draw_again(draws):
    folder, seen = draws
    load_table(SMALL, folder, light=True)
    forge(folder, SMALL, plus_60_on(forged_box(get_rules(SMALL)), get_rules(SMALL)))
    with pytest.raises(TableError, match="break the Bellman equation"):
        load_table(SMALL, folder, light=True)
    assert seen == [(LOAD_SAMPLE, None)] * 2


@pytest.mark.parametrize(
    "memo", ["not json", "[1, 2]", '{"a": ' * 40, "x" * (store.CHECKED_MAX_BYTES + 1), None]
)
def test_a_bad_or_unwritable_memo_is_only_a_cache(draws, monkeypatch, tmp_path, memo):
    """Garbage, a list, deep nesting or an oversized file: the full draw, no error, and the
    memo written anew; a folder in its place or a cache folder that cannot be made: the full
    draw on every load, the load works all the same."""
    folder, seen = draws
    path = store.checked_file()
    path.parent.mkdir(parents=True)
    if memo is None:
        path.mkdir()
    else:
        path.write_text(memo)
    load_table(SMALL, folder, light=True)
    load_table(SMALL, folder, light=True)
    assert seen == [(LOAD_SAMPLE, None), (LOAD_SAMPLE, None) if memo is None else (T.RECHECK_SAMPLE, ())]
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder / f"{SMALL}.json"))  # a file: no folder under it
    load_table(SMALL, folder, light=True)
    load_table(SMALL, folder, light=True)
    assert seen[2:] == [(LOAD_SAMPLE, None)] * 2

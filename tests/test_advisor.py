"""The advisor: hand-checked positions, properties over random legal positions, ``value`` and ``hint``.

Hand-checked: the last box left, the Joker cases of the rule book (forced, free and no
Joker), a roll that fits several boxes, and the rule book's turn example
(its seed page 000: small straight filled, 2-3-4-5-x, then 2-2-3-4-5, then
2-2-2-3-3).  test_cli.py covers the CLI's formats and errors; here the CLI is checked
against the advisor.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.advice.advisor import Advice, Option
from solver.cli.entry import main
from solver.core import dice as D
from solver.core.card import ScoreCard
from solver.core.dice import Dice
from solver.core.errors import IllegalMoveError
from solver.core.position import Position
from solver.core.rules import get_rules
from solver.engine.turn import TIE_TOLERANCE

UPPER_FULL_63 = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18"  # exactly the bonus


@pytest.fixture(scope="module")
def yahtzee(tables_dir):
    return tables_dir.advisor("yahtzee")


def advise(advisor, card, dice, rolls_left) -> Advice:
    return advisor.advise(Position.parse(card, dice, rolls_left, advisor.rules))


def scores_of(advice: Advice) -> dict[str, int]:
    return {o.category: o.score for o in advice.options}


def check_consistent(advice: Advice) -> None:
    """Sorted best first, regrets and flags consistent, expected_final = card + ev."""
    options = advice.options
    best = options[0].ev
    assert options[0].best and options[0].regret == 0.0
    for a, b in zip(options, options[1:], strict=False):
        assert a.ev >= b.ev
    total = advice.position.card.total
    for o in options:
        assert o.ev <= best
        tie = best - o.ev <= TIE_TOLERANCE  # a tie loses nothing: regret 0, not 1e-14
        assert o.regret == (0.0 if tie else best - o.ev) and o.regret >= 0
        assert o.best == tie == (o.regret == 0.0)
        assert o.expected_final == total + o.ev
        assert (o.keep is not None) == (advice.position.rolls_left > 0)


# --------------------------------------------------------------------------- the last box


@pytest.mark.parametrize(
    "open_box, dice, score, bonus",
    [
        ("chance", "23456", 20, 0),
        ("yahtzee", "55555", 50, 0),
        ("yahtzee", "12345", 0, 0),
        ("sixes", "66612", 18, 35),  # 45 + 18 reaches 63: the upper bonus comes with the box
        ("full_house", "22333", 25, 0),
        ("large_straight", "12346", 0, 0),
    ],
)
def test_last_box_left(yahtzee, open_box, dice, score, bonus):
    rules = yahtzee.rules
    full = ScoreCard.parse(
        "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=12,three_of_a_kind=20,four_of_a_kind=0,"
        "full_house=25,small_straight=30,large_straight=40,yahtzee=0,chance=22",
        rules,
    )
    scores = list(full.scores)
    scores[rules.box_index[open_box]] = None
    card = ScoreCard(rules, tuple(scores))
    advice = advise(yahtzee, card, dice, 0)
    (only,) = advice.options
    assert (only.category, only.score, only.bonus) == (open_box, score, 0)
    assert only.ev == score + bonus  # nothing comes after the last box
    assert only.expected_final == card.total + score + bonus
    assert only.best and only.regret == 0
    assert advice.decision == "score"
    # with rolls left, stopping is worth the same, and no keep beats the best one
    for rolls_left in (1, 2):
        keeps = advise(yahtzee, card, dice, rolls_left)
        check_consistent(keeps)
        assert keeps.option_for(keep=Dice.parse(dice).values).ev == score + bonus


def test_last_box_after_a_yahtzee_bonus(yahtzee):
    """Only threes open, 50 in the Yahtzee box, five 3s: threes (forced Joker) and +100."""
    card = ScoreCard.parse(
        "ones=3,twos=6,fours=12,fives=15,sixes=18,three_of_a_kind=20,four_of_a_kind=0,"
        "full_house=25,small_straight=30,large_straight=40,yahtzee=50,chance=22",
        "yahtzee",
    )
    (only,) = advise(yahtzee, card, "33333", 0).options
    assert (only.category, only.score, only.bonus) == ("threes", 15, 100)
    assert only.ev == 15 + 35 + 100  # 54 + 15 = 69 reaches the upper bonus too
    assert "+100" in only.describe()


# --------------------------------------------------------------------------- Joker


def placement_ev(advisor, card: ScoreCard, box: str, score: int, bonus: int) -> float:
    """score + bonuses + V[next state], straight from the table (the advisor's definition)."""
    rules = advisor.rules
    b = rules.box_index[box]
    mask, upper, flag = card.state
    gain = score + bonus
    if rules.boxes[b].is_upper:
        gain += rules.upper_bonus if upper < rules.upper_threshold <= upper + score else 0
        upper = min(upper + score, rules.upper_cap)
    return gain + advisor.table.value(mask | (1 << b), upper, flag)


LOWER_JOKER_SCORES = {
    "three_of_a_kind": 20, "four_of_a_kind": 20, "full_house": 25, "small_straight": 30,
    "large_straight": 40, "chance": 20,
}  # fmt: skip


def test_forced_joker_rule_book_example(yahtzee):
    # rule book: five 4s, 0 in the Yahtzee box, fours filled -> any open lower box, Joker scores
    card = ScoreCard.parse("ones=2,fours=12,yahtzee=0", "yahtzee")
    advice = advise(yahtzee, card, "44444", 0)
    check_consistent(advice)
    assert scores_of(advice) == LOWER_JOKER_SCORES  # twos, threes, fives, sixes are open but refused
    for o in advice.options:
        assert o.bonus == 0
        assert o.ev == pytest.approx(placement_ev(yahtzee, card, o.category, o.score, 0), abs=1e-12)
    # fours open: the Joker must go there
    advice = advise(yahtzee, "yahtzee=0", "44444", 0)
    assert scores_of(advice) == {"fours": 20}
    # fours and every lower box filled: an open upper box, for 0
    card = "fours=12,three_of_a_kind=20,four_of_a_kind=0,full_house=25,small_straight=30,large_straight=0,yahtzee=0,chance=20"
    assert scores_of(advise(yahtzee, card, "44444", 0)) == {
        "ones": 0,
        "twos": 0,
        "threes": 0,
        "fives": 0,
        "sixes": 0,
    }


def test_yahtzee_bonus_adds_100_to_every_option(yahtzee):
    with_50 = ScoreCard.parse("ones=2,fours=12,yahtzee=50", "yahtzee")
    advice = advise(yahtzee, with_50, "44444", 0)
    check_consistent(advice)
    assert scores_of(advice) == LOWER_JOKER_SCORES
    for o in advice.options:
        assert o.bonus == 100
        without = placement_ev(yahtzee, with_50, o.category, o.score, 0)
        assert o.ev - without == pytest.approx(100, abs=1e-9)
    # the bonus is in the value of rolling five 4s before the last roll too (keep all five = stop)
    stop = advise(yahtzee, with_50, "44444", 1).option_for(keep=(4, 4, 4, 4, 4))
    assert stop.ev == advice.best.ev


def test_free_and_no_joker(tables_dir):
    free = tables_dir.advisor("yahtzee-free-joker")
    card = "ones=2,fours=12,yahtzee=0"
    advice = advise(free, card, "44444", 0)
    check_consistent(advice)
    # free Joker: any open box; fours filled, so the lower boxes pay Joker scores
    assert scores_of(advice) == {"twos": 0, "threes": 0, "fives": 0, "sixes": 0} | LOWER_JOKER_SCORES
    # fours open: still any box, but no Joker scores (a full house is not scored for five 4s)
    open_fours = scores_of(advise(free, "yahtzee=0", "44444", 0))
    assert open_fours["fours"] == 20 and open_fours["full_house"] == 0 and open_fours["large_straight"] == 0
    assert len(open_fours) == 12

    none = tables_dir.advisor("yahtzee-no-joker")
    advice = advise(none, "ones=2,fours=12,yahtzee=50", "44444", 0)
    check_consistent(advice)
    got = scores_of(advice)
    assert got["full_house"] == got["small_straight"] == got["large_straight"] == 0
    assert got["three_of_a_kind"] == got["four_of_a_kind"] == got["chance"] == 20
    assert len(got) == 10 and all(o.bonus == 100 for o in advice.options)  # the bonus stays


# --------------------------------------------------------------------------- several boxes


def test_a_roll_that_fits_several_boxes(yahtzee):
    advice = advise(yahtzee, "", "22233", 0)
    check_consistent(advice)
    got = scores_of(advice)
    assert len(got) == 13  # every box of the empty card is legal
    assert {k: v for k, v in got.items() if v} == {
        "twos": 6, "threes": 6, "three_of_a_kind": 12, "full_house": 25, "chance": 12,
    }  # fmt: skip
    assert advice.best.category == "full_house"
    # a roll worth 0 everywhere but chance and an upper box still lists every open box
    advice = advise(yahtzee, "chance=20", "11246", 0)
    assert len(advice.options) == 12 and scores_of(advice)["ones"] == 2
    with pytest.raises(IllegalMoveError):
        advice.option_for(category="chance")


# --------------------------------------------------------------------------- the rule book's turn


@pytest.mark.parametrize("card", ["small_straight=30", "fours=16,fives=20,sixes=24,small_straight=30"])
def test_rule_book_turn_example(yahtzee, card):
    """Small straight filled.  Roll 1: 2-3-4-5-5; roll 2: 2-2-3-4-5; roll 3: 2-2-2-3-3.

    The book rerolls one die for the large straight first, names "keep 2 3 4 5" and "keep the
    two 2s" after the second roll, and scores the full house (25) over twos (6) and three of
    a kind (12).  The solver: keep 2 3 4 5 both times, then the full house.
    """
    first = advise(yahtzee, card, "23455", 2)
    check_consistent(first)
    assert first.best.keep == (2, 3, 4, 5)
    assert first.best.describe() == "keep 2 3 4 5, reroll one die"

    second = advise(yahtzee, card, "22345", 1)
    check_consistent(second)
    straight, twos = second.option_for(keep=(2, 3, 4, 5)), second.option_for(keep=(2, 2))
    assert straight.best and straight is second.options[0]
    assert not twos.best and twos.regret == pytest.approx(straight.ev - twos.ev)
    assert 1 < twos.regret < 5  # a real loss, not a tie

    third = advise(yahtzee, card, "22233", 0)
    check_consistent(third)
    named = {c: third.option_for(category=c) for c in ("twos", "three_of_a_kind", "full_house")}
    assert {c: o.score for c, o in named.items()} == {"twos": 6, "three_of_a_kind": 12, "full_house": 25}
    assert third.best is named["full_house"]
    assert named["full_house"].ev > named["twos"].ev > named["three_of_a_kind"].ev


# --------------------------------------------------------------------------- properties

RULES_FOR_PROPERTIES = ("yahtzee", "yatzy-forced", "yahtzee-free-joker")
dice_st = st.one_of(
    st.tuples(*[st.integers(1, 6)] * 5),
    st.integers(1, 6).map(lambda f: (f,) * 5),  # five of a kind: Joker and bonus paths
)


@st.composite
def positions(draw, rule_ids=RULES_FOR_PROPERTIES):
    """A position of a random legal game: random rolls placed in random legal boxes."""
    rules = get_rules(draw(st.sampled_from(rule_ids)))
    card = ScoreCard.empty(rules)
    for _ in range(draw(st.integers(0, rules.n_boxes - 1))):
        roll = Dice(draw(dice_st))
        placement = draw(st.sampled_from(card.placements(roll)))
        card = card.score(placement.box, roll)
    return Position(card, Dice(draw(dice_st)), draw(st.integers(0, 2)))


@given(position=positions())  # examples: the profile of tests/conftest.py
def test_properties_of_advice(tables_dir, position):
    advisor = tables_dir.advisor(position.rules)
    advice = advisor.advise(position)
    check_consistent(advice)
    evs = [o.ev for o in advice.options]
    assert max(evs) == advice.best.ev
    for a in advice.options:  # ties (within tolerance) are all marked best
        assert a.best == (advice.best.ev - a.ev <= TIE_TOLERANCE)
    if position.rolls_left:
        assert len(advice.options) == D.N_SUBKEEPS[position.dice.index]
        stop = advice.option_for(keep=position.dice.values)
        scored = advisor.advise(Position(position.card, position.dice, 0))
        assert stop.ev == scored.best.ev  # keeping all five = scoring the best box now
        # stopping names the box it implies: the best box with no rolls left
        implied = scored.best
        assert (stop.stop_category, stop.stop_score) == (implied.category, implied.score)
        assert stop.describe().endswith(f"stop and score {implied.score} in {implied.category}")
        assert stop.to_json()["stop_and_score"] == {"category": implied.category, "score": implied.score}
    else:
        legal = {p.box: p.score for p in position.card.placements(position.dice)}
        assert scores_of(advice) == legal
        # the best placement is the R0 of the turn recursion behind the table, for this roll
        tv = advisor.turn(position.card)
        assert advice.best.ev == tv.r0[position.dice.index]


@settings(max_examples=25)
@given(position=positions())
def test_value_before_rolling_is_the_average_of_best_first_rolls(tables_dir, position):
    advisor = tables_dir.advisor(position.rules)
    card = position.card
    best = np.array([advisor.advise(Position(card, Dice(roll), 2)).best.ev for roll in D.ROLLS])
    expected = float(D.ROLL_PROB @ best)
    mask, u, f = card.state
    assert expected == pytest.approx(advisor.table.value(mask, u, f), abs=1e-9)
    assert expected == pytest.approx(advisor.card_value(card), abs=1e-9)
    assert advisor.turn(card).value == pytest.approx(advisor.card_value(card), abs=1e-9)


# --------------------------------------------------------------------------- Advice and Option objects


def test_deferred_advice_is_an_ordinary_advice(yahtzee):
    import pickle

    position = Position.parse("ones=3", "33456", 2)
    eager = yahtzee.advise(position)
    calls = []

    def build():
        calls.append(1)
        return eager.options

    lazy = Advice.deferred(position, build)
    assert not calls
    assert lazy.position is position
    assert lazy == eager and repr(lazy) == repr(eager) and hash(lazy) == hash(eager)
    assert lazy.best == eager.best and lazy.to_json() == eager.to_json()
    _ = lazy.options
    assert calls == [1]  # built once
    again = pickle.loads(pickle.dumps(Advice.deferred(position, lambda: eager.options)))
    assert again == eager
    with pytest.raises(AttributeError):
        lazy.not_an_attribute  # noqa: B018
    first = Advice.deferred(position, build, lambda: eager.options[0])
    assert first.best == eager.best and len(calls) == 1  # best without building the rest


def test_fast_options_equal_constructed_ones():
    made = Option._ranked([3.5, 2.0], 10, keeps=[(1, 2), ()])
    assert made == (
        Option(ev=3.5, expected_final=13.5, regret=0.0, best=True, keep=(1, 2), loss=0.0),
        Option(ev=2.0, expected_final=12.0, regret=1.5, best=False, keep=(), loss=1.5),
    )
    boxes = Option._ranked([7.0, 7.0 - 1e-10], 0, categories=["ones", "twos"], scores=[1, 2], bonus=100)
    assert [o.best for o in boxes] == [True, True]  # a tie within the tolerance
    low = 7.0 - 1e-10
    assert boxes[1] == Option(low, low, 0.0, True, category="twos", score=2, bonus=100, loss=0.0)  # no loss
    assert hash(boxes[0]) == hash(Option(7.0, 7.0, 0.0, True, category="ones", score=1, bonus=100, loss=0.0))
    assert [o.value for o in boxes] == [7.0, low]  # under expected score, the value is ev


# --------------------------------------------------------------------------- value and hint


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_value_json_agrees_with_the_advisor(capsys, tables_dir, yahtzee):
    tdir = str(tables_dir)
    card = "ones=3,fours=12,yahtzee=50,yahtzee_bonus=100"
    code, out, err = run_cli(capsys, "value", "--card", card, "--json", "--tables", tdir)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert set(data) == {"rules", "card", "ev", "expected_final"}
    assert data["card"] == card and data["rules"] == "yahtzee"
    assert data["ev"] == pytest.approx(yahtzee.card_value(card), abs=1e-9)
    assert data["expected_final"] == pytest.approx(165 + data["ev"], abs=1e-8)
    # a full card: nothing to come, the total with both bonuses
    full = UPPER_FULL_63 + ",three_of_a_kind=20,four_of_a_kind=0,full_house=25,small_straight=30,"
    full += "large_straight=40,yahtzee=50,chance=22,yahtzee_bonus=200"
    code, out, _ = run_cli(capsys, "value", "--card", full, "--json", "--tables", tdir)
    assert code == 0
    assert json.loads(out) == {
        "rules": "yahtzee",
        "card": full,
        "ev": 0.0,
        "expected_final": 63 + 35 + 187 + 200,
    }


def test_hint_json_equals_the_advisor(capsys, tables_dir, yahtzee):
    code, out, _ = run_cli(capsys, "hint", "--dice", "44444", "--rolls-left", "0", "--card",
                           "ones=2,fours=12,yahtzee=50", "--json", "--tables", str(tables_dir))  # fmt: skip
    assert code == 0
    assert json.loads(out) == advise(yahtzee, "ones=2,fours=12,yahtzee=50", "44444", 0).to_json()
    assert all(o["bonus"] == 100 for o in json.loads(out)["options"])


def test_hint_subprocess_text_without_numba(tables_dir, tmp_path):
    tables_dir.table("yahtzee")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "solver", "hint", "--dice", "22345", "--rolls-left", "1",
         "--card", "small_straight=30", "--tables", str(tables_dir)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "yahtzee | small_straight=30 | dice 2 2 3 4 5 | 1 roll left"
    assert lines[1] == "Best: keep 2 3 4 5, reroll one die"
    modules = [
        ln.rsplit("|", 1)[-1].strip() for ln in proc.stderr.splitlines() if ln.startswith("import time:")
    ]
    assert "solver.advice.advisor" in modules
    assert not [m for m in modules if m == "numba" or m.startswith("numba.")], "hint must not import numba"
    assert "solver.engine.kernels" not in modules

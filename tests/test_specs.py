"""Rule-set specs (``BASE+MOD+MOD...``) and the rules' two implementations.

* Parsing: the canonical spelling, aliases, and every conflict ``docs/rules.md`` names
  as a usage error (one line, naming the conflict).
* What the modifiers do to a rule set, by hand.
* The fill order (``RuleSet.allowed_bits``, ``is_reachable_mask``) and the Bellman step
  (``RuleSet.step``) on hand-checked cases.
* The numba twins in :mod:`solver.engine.kernels` (fill order, Joker placement, scores, bonus,
  step), through their testable entry ``placement_values``, against the plain-Python
  functions of :class:`solver.core.rules.RuleSet` on every (mask, roll, flag) of small rule
  sets that cover each base and each modifier, and on a sample of the full Yahtzee card.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from clirun import only

from solver.core import dice as D
from solver.core.errors import UnknownRulesError, UsageError
from solver.core.rules import BASES, MODIFIERS, RuleSet, describe_modifiers, get_rules

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "spellings, canonical",
    [
        (["yatzy+all-rolls+extra-bonus=50", "yatzy+extra-bonus=50+all-rolls", " Yatzy + EXTRA-BONUS=50 + All-Rolls ",
          "yatzy+extra-bonus=050+all-rolls", "yatzy\t+all-rolls\n+extra-bonus=50"],
         "yatzy+all-rolls+extra-bonus=50"),
        (["yatzy-forced", "yatzy+order=down", "YATZY-FORCED", "Yatzy + Order=Down"], "yatzy+order=down"),
        (["yatzy-forced+all-rolls", "yatzy+order=down+all-rolls", "yatzy+all-rolls+order=down"],
         "yatzy+all-rolls+order=down"),
        (["yatzy+without=chance,ones", "yatzy+without=ones,chance", "yatzy+without=Chance,ONES",
          "yatzy+without=chance,ones,chance"], "yatzy+without=ones,chance"),
        (["yatzy+without=full-house", "yatzy+without=full_house"], "yatzy+without=full_house"),
        (["yatzy+yatzy-rows=3+extra-bonus=100+order=choose+lower-only",
          "yatzy+lower-only+order=choose+extra-bonus=100+yatzy-rows=03"],
         "yatzy+extra-bonus=100+yatzy-rows=3+order=choose+lower-only"),
        (["yacht+order=up+extra-bonus=50", "yacht+extra-bonus=50+order=up"], "yacht+extra-bonus=50+order=up"),
        (["yahtzee", "YAHTZEE", " yahtzee "], "yahtzee"),
    ],
)  # fmt: skip
def test_canonical_spelling(spellings, canonical):
    want = get_rules(canonical)
    assert want.id == canonical == str(want)
    for spelling in spellings:
        rules = get_rules(spelling)
        assert rules.id == canonical, spelling
        assert rules is want, spelling  # one object per canonical spec
        assert rules == want


def test_yatzy_forced_is_yatzy_in_card_order():
    assert get_rules("yatzy-forced") is get_rules("yatzy+order=down")
    rules = get_rules("yatzy-forced")
    assert rules.order == "down" and rules.forced_order
    assert rules.box_names == get_rules("yatzy").box_names
    assert rules.reference_value == pytest.approx(122.5585274)
    assert rules.modifiers == ("order=down",) and rules.base == "yatzy"
    assert get_rules("yatzy").reference_value == pytest.approx(248.4399894)
    assert get_rules("yacht").reference_value == pytest.approx(166.9550677)


def test_default_rules():
    assert get_rules(None) is get_rules("yahtzee")
    rules = get_rules("yahtzee")
    assert get_rules(rules) is rules


@pytest.mark.parametrize(
    "spec, canonical",
    [
        ("triple", "yahtzee+triple"),
        ("TRIPLE", "yahtzee+triple"),
        ("yahtzee+triple", "yahtzee+triple"),
        ("yatzy+triple", "yatzy+triple"),
        ("triple+all-rolls", "yahtzee+all-rolls+triple"),
    ],
)
def test_triple_is_accepted_with_its_single_column_rules(spec, canonical):
    rules = get_rules(spec)
    assert rules.id == canonical and rules.triple and rules.weights == (1, 2, 3)
    assert not rules.single.triple and rules.single.id == canonical.replace("+triple", "")
    assert rules.n_turns == 3 * rules.single.n_turns


_YATZY_LOWER = ",".join(n for n in get_rules("yatzy").box_names if n not in UPPER)


@pytest.mark.parametrize(
    "spec, needles",
    [
        # modifiers that do not fit the base
        ("yahtzee+extra-bonus=50", ["extra-bonus", "yahtzee"]),
        ("yahtzee-no-bonus+extra-bonus=50", ["extra-bonus", "yahtzee-no-bonus"]),
        ("yacht+yatzy-rows=2", ["yatzy-rows", "yacht"]),
        ("yahtzee+yatzy-rows=2", ["yatzy-rows", "yahtzee"]),
        ("yahtzee-free-joker+yatzy-rows=3", ["yatzy-rows", "yahtzee-free-joker"]),
        # bad values
        ("yatzy+yatzy-rows=1", ["yatzy-rows=1"]),
        ("yatzy+yatzy-rows=two", ["yatzy-rows=two"]),
        ("yatzy+extra-bonus=0", ["extra-bonus=0"]),
        ("yatzy+extra-bonus=-5", ["extra-bonus=-5"]),
        ("yatzy+extra-bonus", ["extra-bonus"]),
        ("yatzy+order=sideways", ["order=sideways"]),
        ("yatzy+order", ["order"]),
        ("yatzy+all-rolls=yes", ["all-rolls"]),
        ("yatzy+lower-only=1", ["lower-only"]),
        # unknown names
        ("yatzy+bogus", ["bogus"]),
        ("yatzy+", ["modifier"]),
        ("bogus+all-rolls", ["bogus"]),
        ("mega-yatzy", ["mega-yatzy"]),
        # a modifier twice
        ("yatzy+all-rolls+all-rolls", ["all-rolls", "twice"]),
        ("yatzy+order=down+order=up", ["order", "twice"]),
        ("yatzy-forced+order=up", ["order", "twice"]),
        # boxes that are not there
        ("yatzy+without=bananas", ["bananas"]),
        ("yatzy+without=yahtzee", ["yahtzee"]),
        ("yahtzee+without=yatzy_2", ["yatzy_2"]),
        ("yatzy+lower-only+without=ones", ["ones"]),
        ("yatzy+without=", ["without"]),
        ("yatzy+without=ones,,twos", ["without"]),
        # nothing left to play
        ("yatzy+without=" + ",".join(get_rules("yatzy").box_names), ["no boxes"]),
        ("yacht+without=" + ",".join(get_rules("yacht").box_names), ["no boxes"]),
        ("yatzy+lower-only+without=" + _YATZY_LOWER, ["no boxes"]),
        # a bonus with no row to earn it
        ("yatzy+extra-bonus=50+without=yatzy", ["extra-bonus", "yatzy row"]),
        ("yacht+extra-bonus=100+without=yacht", ["extra-bonus"]),
        # too many rows for the kernels
        ("yatzy+yatzy-rows=18", ["18"]),
    ],
)
def test_conflicts_are_one_line_usage_errors(spec, needles):
    with pytest.raises(UsageError) as info:
        get_rules(spec)
    message = str(info.value)
    assert "\n" not in message, message
    for needle in needles:
        assert needle in message, (spec, needle, message)


def test_unknown_names_are_unknown_rules_errors():
    for spec in ("yatzy+bogus", "bogus", "mega-yatzy", "triple-yahtzee"):
        with pytest.raises(UnknownRulesError):
            get_rules(spec)


# --------------------------------------------------------------------------- what the modifiers do


def test_base_parameters():
    yacht = get_rules("yacht")
    assert yacht.box_names == UPPER + (
        "full_house", "four_of_a_kind", "little_straight", "big_straight", "choice", "yacht",
    )  # fmt: skip
    assert (yacht.upper_bonus, yacht.has_upper_bonus, yacht.upper_cap) == (0, False, 0)
    assert (yacht.bonus, yacht.joker, yacht.n_flags) == (0, "none", 1)
    assert (yacht.order, yacht.all_rolls) == ("free", False)
    assert yacht.five_kind_rows == (11,) and yacht.rows_mask == 1 << 11
    assert yacht.n_turns == 12
    yahtzee = get_rules("yahtzee")
    assert yahtzee.five_kind_rows == (11,) and yahtzee.n_flags == 2 and yahtzee.upper_cap == 63


def test_extra_bonus():
    for base in ("yatzy", "yacht"):
        rules = get_rules(f"{base}+extra-bonus=70")
        assert rules.bonus == 70 and rules.joker == "none" and rules.n_flags == 2
        assert rules.box_names == get_rules(base).box_names


def test_yatzy_rows():
    rules = get_rules("yatzy+yatzy-rows=3")
    names = rules.box_names
    assert names == get_rules("yatzy").box_names + ("yatzy_2", "yatzy_3")
    assert rules.five_kind_rows == (14, 15, 16)
    assert rules.rows_mask == 0b111 << 14
    assert rules.bonus == 0 and rules.n_flags == 1 and rules.n_turns == 17
    assert [rules.box_score(b, (0, 0, 0, 5, 0, 0)) for b in rules.five_kind_rows] == [50, 50, 50]
    # the extra rows follow yatzy even when it is not the last row of a shortened card
    cut = get_rules("yatzy+yatzy-rows=2+without=chance,yatzy")
    assert cut.box_names[-1] == "yatzy_2" and cut.five_kind_rows == (13,)


def test_lower_only_and_without():
    lower = get_rules("yatzy+lower-only")
    assert lower.box_names == get_rules("yatzy").box_names[6:]
    assert not lower.upper_indices and not lower.has_upper_bonus and lower.upper_cap == 0
    assert lower.reference_value == pytest.approx(127.3762117)
    cut = get_rules("yatzy+without=ones,twos,chance")
    assert "ones" not in cut.box_names and "chance" not in cut.box_names and cut.n_boxes == 12
    assert cut.upper_threshold == 63 and cut.upper_bonus == 50 and cut.has_upper_bonus
    no_upper = get_rules("yahtzee+without=" + ",".join(UPPER))
    assert not no_upper.has_upper_bonus and no_upper.upper_cap == 0
    no_row = get_rules("yahtzee+without=yahtzee")
    assert (no_row.bonus, no_row.joker, no_row.n_flags, no_row.rows_mask) == (0, "none", 1, 0)


def test_order_and_all_rolls():
    for order in ("down", "up", "choose"):
        rules = get_rules(f"yacht+order={order}")
        assert rules.order == order and rules.forced_order
        if order == "choose":  # the direction chosen before the first roll
            assert rules.directed("down").order == "down" and rules.directed("up").order == "up"
        else:
            assert rules.directed("down") is rules
    assert get_rules("yatzy+all-rolls").all_rolls and not get_rules("yatzy").all_rolls
    assert not get_rules("yatzy").forced_order


@pytest.mark.parametrize(
    "spec",
    ["yahtzee", "yahtzee-free-joker", "yatzy", "yacht+extra-bonus=100+order=up", "yatzy+yatzy-rows=3+all-rolls",
     "yatzy+lower-only+order=choose", "yahtzee-no-bonus+without=ones,chance"],
)  # fmt: skip
def test_card_text_mentions_every_box(spec):
    rules = get_rules(spec)
    text = rules.card_text()
    assert text.splitlines()[0].startswith(rules.id)
    for name in rules.box_names:
        assert name in text, name
    assert f"turns: {rules.n_turns}" in text
    assert ("all three" in text) == rules.all_rolls
    if rules.has_upper_bonus:
        assert f"+{rules.upper_bonus}" in text and str(rules.upper_threshold) in text
    else:
        assert "upper bonus: none" in text
    if rules.bonus:
        assert f"+{rules.bonus}" in text
    if rules.reference_value is not None:
        assert f"{rules.reference_value:.7f}" in text


def test_describe_modifiers_lists_every_base_and_modifier():
    text = "\n".join(describe_modifiers())
    for base in BASES:
        assert base in text
    assert "yatzy-forced" in text
    for mod in MODIFIERS.values():
        assert mod.syntax in text and mod.name in text
    # every modifier and base of RULES.md
    assert set(MODIFIERS) >= {"all-rolls", "extra-bonus", "yatzy-rows", "order", "lower-only", "without"}
    assert "triple" in MODIFIERS
    yahtzees = {"yahtzee", "yahtzee-free-joker", "yahtzee-no-joker", "yahtzee-no-bonus"}
    assert set(BASES) == yahtzees | {"yatzy", "yacht", "maxi"}


# --------------------------------------------------------------------------- the fill order by hand


def kernel_legal_bits(rules: RuleSet, mask: int, dice: str, flag: int = 0) -> int:
    """The boxes ``placement_values`` finds legal for ``dice`` on a card with filled ``mask``."""
    from solver.engine import dp, kernels

    one = np.ones(1, dtype=np.int64)
    ev, scores = np.empty((1, rules.n_boxes)), np.empty((1, rules.n_boxes), dtype=np.int64)
    bonus = np.empty(1, dtype=np.int64)
    values = np.zeros((1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags))
    r = D.Dice.parse(dice).index
    ra = dp.rule_arrays(rules)
    kernels.placement_values(one * mask, one * 0, one * flag, one * r, values, ra, ev, scores, bonus)
    return sum(1 << b for b in range(rules.n_boxes) if scores[0, b] >= 0)


def five_boxes(order: str) -> RuleSet:
    """A five-box card (bits 0..4 = ones, twos, threes, full_house, choice)."""
    return only("yacht" if order == "free" else f"yacht+order={order}", "ones,twos,threes,full_house,choice")


@pytest.mark.parametrize(
    "order, mask, allowed",
    [
        ("free", 0b00000, 0b11111),
        ("free", 0b00101, 0b11010),
        ("free", 0b11111, 0),
        ("down", 0b00000, 0b00001),
        ("down", 0b00011, 0b00100),
        ("down", 0b01111, 0b10000),
        ("down", 0b11111, 0),
        ("up", 0b00000, 0b10000),
        ("up", 0b11000, 0b00100),
        ("up", 0b11110, 0b00001),
        ("up", 0b11111, 0),
        ("choose", 0b00000, 0b10001),  # both directions are still open
        ("choose", 0b00001, 0b00010),  # went down
        ("choose", 0b00111, 0b01000),
        ("choose", 0b01111, 0b10000),
        ("choose", 0b10000, 0b01000),  # went up
        ("choose", 0b11100, 0b00010),
        ("choose", 0b11110, 0b00001),
        ("choose", 0b11111, 0),
    ],
)
def test_allowed_bits_by_hand(order, mask, allowed):
    rules = five_boxes(order)
    assert rules.n_boxes == 5
    assert rules.allowed_bits(mask) == allowed
    assert kernel_legal_bits(rules, mask, "12346") == allowed  # an ordinary roll may go in any allowed box


@pytest.mark.parametrize(
    "order, reachable",
    [
        ("free", range(32)),
        ("down", [0b00000, 0b00001, 0b00011, 0b00111, 0b01111, 0b11111]),
        ("up", [0b00000, 0b10000, 0b11000, 0b11100, 0b11110, 0b11111]),
        ("choose", [0b00000, 0b00001, 0b00011, 0b00111, 0b01111, 0b10000, 0b11000, 0b11100, 0b11110, 0b11111]),
    ],
)  # fmt: skip
def test_reachable_masks_by_hand(order, reachable):
    rules = five_boxes(order)
    assert [m for m in range(32) if rules.is_reachable_mask(m)] == list(reachable)


# --------------------------------------------------------------------------- the Bellman step by hand


def test_step_by_hand():
    yahtzee = get_rules("yahtzee")
    fours, fives, chance, row = (yahtzee.box_index[n] for n in ("fours", "fives", "chance", "yahtzee"))
    assert yahtzee.step((0, 60, 0), fours, 4) == (4 + 35, (1 << fours, 63, 0))  # reaches 63: +35 now
    assert yahtzee.step((0, 63, 0), fives, 25) == (25, (1 << fives, 63, 0))  # reached before: no bonus
    assert yahtzee.step((0, 40, 0), fours, 20) == (20, (1 << fours, 60, 0))
    assert yahtzee.step((0, 40, 1), chance, 22) == (22, (1 << chance, 40, 1))
    assert yahtzee.step((0, 0, 0), row, 50) == (50, (1 << row, 0, 1))  # the flag: the row holds 50
    assert yahtzee.step((0, 0, 0), row, 0) == (0, (1 << row, 0, 0))
    no_bonus = get_rules("yahtzee-no-bonus")
    assert no_bonus.step((0, 0, 0), row, 50) == (50, (1 << row, 0, 0))  # no bonus, no flag
    yatzy = get_rules("yatzy")
    assert yatzy.step((0, 55, 0), yatzy.box_index["sixes"], 18) == (18 + 50, (1 << 5, 63, 0))
    yacht = get_rules("yacht")
    assert yacht.step((0, 0, 0), 5, 30) == (30, (1 << 5, 0, 0))  # no upper bonus, no upper total kept
    rows = get_rules("yatzy+yatzy-rows=2+extra-bonus=50")
    y1, y2 = rows.box_index["yatzy"], rows.box_index["yatzy_2"]
    assert rows.step((1 << y1, 10, 1), y2, 0) == (0, (1 << y1 | 1 << y2, 10, 1))  # a 0 keeps the flag
    assert rows.step((1 << y1, 10, 0), y2, 50) == (50, (1 << y1 | 1 << y2, 10, 1))
    no_ones = get_rules("yatzy+without=ones")
    assert no_ones.step((0, 60, 0), 0, 4) == (4 + 50, (1, 63, 0))  # twos is box 0 now; still 63


# --------------------------------------------------------------------------- kernels vs plain Python

TWIN_RULES = {
    # the bases, cut down (a Joker needs an upper box of the face, lower boxes and the row)
    "yahtzee": only("yahtzee", "sixes,full_house,large_straight,yahtzee,chance"),
    "yahtzee-free-joker": only("yahtzee-free-joker", "fives,small_straight,full_house,yahtzee,chance"),
    "yahtzee-no-joker": only("yahtzee-no-joker", "threes,full_house,large_straight,yahtzee"),
    "yahtzee-no-bonus": only("yahtzee-no-bonus", "ones,four_of_a_kind,small_straight,yahtzee"),
    "yatzy": only("yatzy", "sixes,two_pairs,full_house,yatzy"),
    "yacht": only("yacht", "sixes,four_of_a_kind,little_straight,yacht"),
    # every modifier
    "lower-only": only("yahtzee+lower-only", "three_of_a_kind,full_house,yahtzee,chance"),
    "all-rolls": only("yatzy+all-rolls", "ones,small_straight,chance,yatzy"),
    "extra-bonus": only("yacht+extra-bonus=100", "sixes,big_straight,choice,yacht"),
    "yatzy-rows": only("yatzy+yatzy-rows=2", "sixes,three_of_a_kind,yatzy,yatzy_2"),
    "yatzy-rows+extra-bonus": only("yatzy+yatzy-rows=3+extra-bonus=50", "fives,chance,yatzy,yatzy_2,yatzy_3"),
    "order=down": only("yahtzee+order=down", "sixes,full_house,yahtzee,chance"),
    "order=up": only("yahtzee-free-joker+order=up", "sixes,large_straight,yahtzee,chance"),
    "order=choose": only("yahtzee+order=choose", "twos,fives,small_straight,yahtzee,chance"),
    "order=choose+extra-bonus": only("yatzy+extra-bonus=50+order=choose", "threes,one_pair,yatzy,chance"),
}  # fmt: skip

COUNTS = [D.Dice(roll).counts for roll in D.ROLLS]
FIVE_KIND = [max(c) == D.N_DICE for c in COUNTS]


def check_placement_values(rules: RuleSet, masks, seed: int) -> int:
    """``placement_values`` on every (mask, roll, flag) of ``masks``, each with a random upper
    total, against ``RuleSet.placements`` and ``RuleSet.step``: the legal boxes, their scores,
    the roll's bonus and ``points + values[next state] + bonus``.  Returns how many positions
    had a five of a kind with every five-of-a-kind row filled (Joker, bonus)."""
    from solver.engine import dp, kernels

    rng = random.Random(seed)
    shape = (1 << rules.n_boxes, rules.upper_cap + 1, rules.n_flags)
    values = np.random.default_rng(seed).uniform(0, 300, shape)
    positions = [
        (m, r, f, rng.randrange(rules.upper_cap + 1))
        for m in masks
        for r in range(D.N_ROLLS)
        for f in range(rules.n_flags)
    ]
    ms, rs, fs, us = (np.array(col, dtype=np.int64) for col in zip(*positions, strict=True))
    n, nb = len(positions), rules.n_boxes
    ev, scores, bonus = np.empty((n, nb)), np.empty((n, nb), dtype=np.int64), np.empty(n, dtype=np.int64)
    kernels.placement_values(ms, us, fs, rs, values, dp.rule_arrays(rules), ev, scores, bonus)
    ev, scores, bonus = ev.tolist(), scores.tolist(), bonus.tolist()
    table = values.tolist() if values.size < 100_000 else values  # the same doubles, faster to index
    full = rules.full_mask
    want_ev, want_scores, bad = [], [], []
    for i, (mask, r, flag, upper) in enumerate(positions):
        row_ev, row_scores = [-np.inf] * nb, [-1] * nb
        found = rules.placements(mask, COUNTS[r], bool(flag))
        for b, s, roll_bonus in found:
            points, (nmask, nu, nf) = rules.step((mask, upper, flag), b, s)
            row_ev[b] = points + table[nmask][nu][nf] + roll_bonus
            row_scores[b] = s
            if nmask != mask | 1 << b or roll_bonus != bonus[i]:  # the bonus is the roll's, wherever it goes
                bad.append(positions[i])
        if not found and mask != full:  # only a full card has no placement
            bad.append(positions[i])
        want_ev.append(row_ev)
        want_scores.append(row_scores)
    bad += [positions[i] for i in range(n) if scores[i] != want_scores[i] or ev[i] != want_ev[i]]
    assert not bad, [(m, D.ROLLS[r], f, u) for m, r, f, u in bad[:5]]
    rows = rules.rows_mask
    return sum(1 for m, r, _, _ in positions if FIVE_KIND[r] and rows and m & rows == rows)


#: the costliest twins (five boxes, or many rolls' Joker and bonus positions): CI checks them, the
#: fast loop the other eight (every base but yahtzee's, which the full card's test below checks)
SLOW_TWINS = {"yahtzee", "yahtzee-free-joker", "yahtzee-no-joker", "yatzy-rows+extra-bonus", "all-rolls",
              "order=up", "order=choose"}  # fmt: skip


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_TWINS else n for n in sorted(TWIN_RULES)]
)
def test_placement_values_kernel_equals_the_rules_on_every_position(name):
    rules = TWIN_RULES[name]
    assert rules.n_boxes <= 5
    masks = range(1 << rules.n_boxes)
    if rules.order == "choose":  # the direction shows in the filled boxes of a reachable card only
        masks = [m for m in masks if rules.is_reachable_mask(m)]
    special = check_placement_values(rules, masks, seed=len(name))
    if rules.rows_mask:  # five of a kind with every row filled (Joker, bonus) was seen
        assert special > 0


def test_placement_values_kernel_equals_the_rules_on_the_full_yahtzee_card():
    rules = get_rules("yahtzee")
    rng = random.Random(5)
    rows = rules.rows_mask
    masks = [0, rules.full_mask] + rng.sample(range(rules.full_mask), 12)
    masks += [m | rows for m in rng.sample(range(rules.full_mask), 12)]  # Joker and bonus positions
    assert check_placement_values(rules, sorted(set(masks)), seed=1) > 0


def test_rule_arrays_describe_the_rule_set():
    from solver.engine import dp

    rules = TWIN_RULES["yatzy-rows+extra-bonus"]
    ra = dp.rule_arrays(rules)
    assert ra.score.shape == (D.N_ROLLS, rules.n_boxes)
    assert ra.five_kind.tolist() == [0, 0, 1, 1, 1]
    assert ra.box_face.tolist() == [5, 0, 0, 0, 0]
    assert ra.rows_mask == 0b11100 and ra.bonus == 50 and ra.joker_mode == 0
    assert ra.order == 0 and ra.all_rolls == 0 and ra.upper_cap == 63
    assert dp.rule_arrays(TWIN_RULES["all-rolls"]).all_rolls == 1
    orders = [dp.rule_arrays(get_rules(f"yacht+order={o}")).order for o in ("down", "up", "choose")]
    assert orders == [1, 2, 3]

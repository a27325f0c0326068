"""The one advisor protocol: ``advise(position, objective)`` over every objective and advisor.

* Each objective against the advisors before the protocol: ``data/objective-golden.jsonl`` holds
  the advice of random positions of small rule sets by expected score, P(final >= T), P(win)
  against one or two opponents' cards and on the triple card, written at commit 8e36609 by the
  call forms of then (``data/make_objective_golden.py``): the same options, in the same order,
  with the same values and the same ``hint --json`` object.
* The protocol over every objective: each advisor answers the objectives it names and refuses
  the others with one clear error; each advice is ranked by its objective's value, each option
  carries that value and its loss against the best, every objective ranks the same options.
* One JSON schema: ``hint --json``, each ``hint --batch`` line and ``/api/hint`` are the same
  object for the same position (the triple card's included).
"""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

import pytest

from solver.advice.advisor import TARGET_TIE, Advisor, TargetAdvisor, checked_advice
from solver.advice.batch import advise_json_lines
from solver.advice.objectives import EXPECTED_SCORE, AtLeast, ExpectedScore, Win, parse_objective
from solver.advice.triple import TripleAdvisor
from solver.advice.win import WinAdvisor
from solver.cli.entry import main
from solver.core.card import ScoreCard
from solver.core.errors import UsageError
from solver.core.position import Position
from solver.core.rules import get_rules
from solver.engine.tables import build_table
from solver.engine.target import build_target, load_target
from solver.engine.turn import TIE_TOLERANCE

GOLDEN = [json.loads(line) for line in (Path(__file__).parent / "data" / "objective-golden.jsonl").open()]
T_MAX = 200  # as data/make_objective_golden.py built the target tables
TRIPLE = "yatzy+lower-only+triple"


class Advisors:
    """The advisors of the golden file's rule sets, their tables built in one folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._made: dict = {}

    def __call__(self, rid: str):
        """``(Advisor, TargetAdvisor, WinAdvisor)`` of a single card, ``TripleAdvisor`` of the triple."""
        if rid not in self._made:
            rules = get_rules(rid)
            if rules.triple:
                self._made[rid] = TripleAdvisor(build_table(rules.single, self.folder, progress=False), rules)
            else:
                advisor = Advisor(build_table(rules, self.folder, progress=False))
                build_target(rules, self.folder, t_max=T_MAX, progress=False)
                target = TargetAdvisor(advisor, load_target(rules, self.folder, light=True))
                self._made[rid] = (advisor, target, WinAdvisor(advisor, load_target(rules, self.folder)))
        return self._made[rid]

    def by(self, rid: str, objective):
        """The advisor of ``rid`` made for ``objective``."""
        made = self(rid)
        if isinstance(made, TripleAdvisor):
            return made
        return made[{ExpectedScore: 0, AtLeast: 1, Win: 2}[type(objective)]]


@pytest.fixture(scope="module")
def advisors(tmp_path_factory) -> Advisors:
    return Advisors(tmp_path_factory.mktemp("objective-tables"))


def position_of(g: dict) -> Position:
    return Position.parse(g["card"], g["dice"], g["rolls_left"], g["rules"])


def assert_same_json(got, want, where) -> None:
    """Equal objects with the keys in the same order; points within 2e-9 (rounded to 1e-9 each),
    probabilities within 1e-12."""
    assert type(got) is type(want), (where, got, want)
    if isinstance(want, dict):
        assert list(got) == list(want), (where, list(got), list(want))
        for key in want:
            assert_same_json(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same_json(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        tolerance = 1e-12 if where.endswith((".p_target", ".p_win")) else 2e-9
        assert abs(got - want) <= tolerance, (where, got, want)
    else:
        assert got == want, (where, got, want)


# --------------------------------------------------------------------------- each objective as before


def test_the_golden_file_covers_every_objective_and_decision():
    kinds = {
        (type(parse_objective(g["objective"], g["rules"])), get_rules(g["rules"]).triple) for g in GOLDEN
    }
    assert kinds == {(ExpectedScore, False), (AtLeast, False), (Win, False), (ExpectedScore, True)}
    assert {g["rolls_left"] for g in GOLDEN} == {0, 1, 2}
    wins = [parse_objective(g["objective"], g["rules"]) for g in GOLDEN if g["objective"].startswith("win")]
    assert {len(w.opponents) for w in wins} == {1, 2}


@pytest.mark.parametrize("g", GOLDEN, ids=lambda g: f"{g['rules']}:{g['objective'][:12]}:{g['dice']}")
def test_each_objective_gives_the_advice_of_before(advisors, g):
    objective = parse_objective(g["objective"], g["rules"])
    position = position_of(g)
    advice = checked_advice(advisors.by(g["rules"], objective), position, objective)
    assert advice.objective == objective
    assert_same_json(advice.to_json(), g["advice"], "advice")


# --------------------------------------------------------------------------- the protocol


def objectives_of(g: dict) -> list:
    """Every objective of the golden position ``g`` (its own and the others of the file for it)."""
    if get_rules(g["rules"]).triple:
        return [EXPECTED_SCORE]
    return [parse_objective(h["objective"], g["rules"]) for h in GOLDEN if h["rules"] == g["rules"]][:3] + [
        parse_objective(g["objective"], g["rules"])
    ]


def label(option) -> tuple:
    return (option.keep, option.column, option.category, option.score)


@pytest.mark.parametrize("g", GOLDEN[::3] + [g for g in GOLDEN if get_rules(g["rules"]).triple])
def test_every_advisor_ranks_by_every_objective_it_answers(advisors, g):
    position = position_of(g)
    made = advisors(g["rules"])
    every = (made,) if isinstance(made, TripleAdvisor) else made
    ev_labels = {label(o) for o in every[0].advise(position).options}
    for advisor in every:
        for objective in objectives_of(g):
            if not isinstance(objective, advisor.objectives):
                with pytest.raises(UsageError, match=f"does not rank by {re.escape(str(objective))} "):
                    advisor.advise(position, objective)
                continue
            advice = advisor.advise(position, objective)
            assert advice.objective == objective and advice.position == position
            options = advice.options
            assert {label(o) for o in options} == ev_labels  # the same options, ranked otherwise
            best = options[0].value
            tie = TIE_TOLERANCE if isinstance(objective, ExpectedScore) else TARGET_TIE
            for before, o in zip(options, options[1:], strict=False):
                if isinstance(objective, ExpectedScore):
                    assert before.value >= o.value
                else:  # ties (to 1e-12) by expected score
                    assert round(before.value, 12) > round(o.value, 12) or (
                        round(before.value, 12) == round(o.value, 12) and before.ev >= o.ev
                    )
            base = advice.floor_expected_final if advice.note else position.card.total
            for o in options:
                assert o.value == getattr(o, objective.field)
                assert o.loss == best - o.value and o.loss >= 0
                assert o.best == (o.loss <= tie)
                assert o.expected_final == base + o.ev
                if isinstance(objective, ExpectedScore):
                    assert o.loss == o.regret and o.p_target is None and o.p_win is None
            assert checked_advice(advisor, position, objective) == advice


def test_an_objective_an_advisor_does_not_answer_is_one_clear_error(advisors):
    g = GOLDEN[0]
    position = position_of(g)
    advisor, target, _ = advisors(g["rules"])
    with pytest.raises(UsageError, match=r"^the Advisor of yatzy\+lower-only does not rank by target:100"):
        advisor.advise(position, AtLeast(100))
    with pytest.raises(UsageError, match=r"does not rank by win:- \(it answers ExpectedScore, AtLeast\)"):
        target.advise(position, Win((ScoreCard.empty(g["rules"]),)))
    triple = advisors(TRIPLE)
    triple_position = next(position_of(h) for h in GOLDEN if h["rules"] == TRIPLE)
    with pytest.raises(UsageError, match="TripleAdvisor .* does not rank by target:300"):
        triple.advise(triple_position, AtLeast(300))
    with pytest.raises(UsageError, match="does not rank by 'ev'"):
        advisor.advise(position, "ev")  # text is parsed first (parse_objective), not taken as one


def test_objectives_are_values_with_a_text_form():
    rules = "yatzy+lower-only"
    cards = (ScoreCard.parse("chance=20", rules), ScoreCard.empty(rules))
    for objective in (ExpectedScore(), AtLeast(300), Win(cards), Win(cards[:1])):
        assert parse_objective(str(objective), rules) == objective
        assert hash(parse_objective(str(objective), rules)) == hash(objective)
    assert (
        str(Win(cards)) == "win:chance=20|-"
        and str(AtLeast(300)) == "target:300"
        and str(EXPECTED_SCORE) == "ev"
    )
    assert ExpectedScore() == EXPECTED_SCORE and parse_objective(" EV ") is EXPECTED_SCORE
    assert Win(list(cards)).opponents == cards  # kept as a tuple
    for bad, message in [
        ("target:0", "objective 'target:0': the target must be a score from 1 to"),
        ("target:abc", "objective 'target:abc'"),
        ("lose", "unknown objective 'lose'"),
        ("ev:1", "unknown objective 'ev:1'"),
        ("win:ones=3", "unknown box 'ones'"),
        (3, "an objective is text like"),
    ]:
        with pytest.raises(UsageError, match=message):
            parse_objective(bad, rules)
    for bad in (0, -5, 2.5, True):
        with pytest.raises(UsageError, match="a target is a score of 1 or more"):
            AtLeast(bad)
    with pytest.raises(UsageError, match="at least one opponent"):
        Win(())


def test_advice_keeps_its_objective_through_pickle(advisors):
    g = next(g for g in GOLDEN if g["objective"].startswith("target"))
    _, target, _ = advisors(g["rules"])
    objective = parse_objective(g["objective"], g["rules"])
    advice = target.advise(position_of(g), objective)
    again = pickle.loads(pickle.dumps(advice))
    assert again == advice and again.objective == objective and again.target == objective.target


# --------------------------------------------------------------------------- one JSON schema


def hint_json(capsys, folder, g: dict, *extra: str) -> str:
    code = main(["hint", "--rules", g["rules"], "--card", g["card"] or "-", "--dice", g["dice"],
                 "--rolls-left", str(g["rolls_left"]), "--json", "--tables", str(folder), *extra])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize("kind", ["ev", "target", "win", "triple"])
def test_hint_json_is_the_protocols_advice(advisors, capsys, kind):
    g = next(
        g
        for g in GOLDEN
        if g["objective"].startswith(kind if kind != "triple" else "ev")
        and (get_rules(g["rules"]).triple == (kind == "triple"))
    )
    objective = parse_objective(g["objective"], g["rules"])
    extra: list[str] = []
    if isinstance(objective, AtLeast):
        extra = ["--target", str(objective.target)]
    elif isinstance(objective, Win):
        for card in objective.opponents:
            extra += ["--opponent-card", str(card) or "-"]
    advisors(g["rules"])  # the tables, built
    out = hint_json(capsys, advisors.folder, g, *extra)
    advice = checked_advice(advisors.by(g["rules"], objective), position_of(g), objective)
    assert out == json.dumps(advice.to_json()) + "\n"


@pytest.mark.parametrize("rid", ["yahtzee+lower-only", TRIPLE])
def test_hint_json_batch_lines_and_api_hint_are_one_object(advisors, capsys, rid):
    """The same position through ``hint --json``, ``hint --batch`` and ``/api/hint``: the same
    object (the triple card's with its floor value and note everywhere)."""
    from solver.web.service import Service

    advisors(rid)
    service = Service(advisors.folder, None, progress=False)
    for g in [g for g in GOLDEN if g["rules"] == rid and g["objective"] == "ev"][:4]:
        out = hint_json(capsys, advisors.folder, g)
        position = {k: g[k] for k in ("rules", "card", "dice", "rolls_left")}
        (line,) = advise_json_lines([json.dumps(position)], tables_dir=advisors.folder)
        assert line + "\n" == out
        assert json.dumps(service.hint(position)) + "\n" == out
        if get_rules(rid).triple:
            assert (
                "floor_expected_final" in json.loads(line)
                and "not proven optimal" in json.loads(line)["note"]
            )

"""Writes ``objective-golden.jsonl`` (stdout): the advice of random positions of small rule sets by
each objective, ``hint --json``'s object for each (``tests/test_objectives.py`` reads it).

The file in the repository was written before the one advisor protocol, at commit 8e36609, by the
call forms of then: ``Advisor.advise(position)``, ``TargetAdvisor.advise(position, T)``,
``WinAdvisor.advise(position, cards)`` and ``TripleAdvisor.advise(position)`` (its JSON with
``floor_expected_final`` and ``note`` added, as ``hint --json`` did).  This script writes the same
file, byte for byte, through ``advise(position, objective)``:
``python tests/data/make_objective_golden.py > tests/data/objective-golden.jsonl``.
"""

import json
import random
import sys
import tempfile

from solver.advice.advisor import Advisor, TargetAdvisor
from solver.advice.objectives import parse_objective
from solver.advice.triple import TripleAdvisor
from solver.advice.win import WinAdvisor
from solver.core.card import ScoreCard
from solver.core.dice import Dice
from solver.core.position import Position
from solver.core.rules import get_rules
from solver.core.triple_card import TripleCard
from solver.engine.tables import build_table
from solver.engine.target import build_target, load_target

#: the rule sets, each with the positions drawn (and the triple card on the first one's base)
RULES = [("yatzy+lower-only", 14), ("yahtzee+lower-only", 14)]
TRIPLE, TRIPLE_POSITIONS = "yatzy+lower-only+triple", 8
T_MAX = 200  # the target tables' (tests/test_objectives.py builds the same)


def positions(rules, n: int, seed: int, empty) -> list[Position]:
    """``n`` positions met in random legal games (five of a kind one roll in five)."""
    rng = random.Random(seed)

    def roll() -> Dice:
        if rng.random() < 0.2:
            return Dice((rng.randint(1, 6),) * 5)
        return Dice(tuple(rng.randint(1, 6) for _ in range(5)))

    out: list[Position] = []
    while len(out) < n:
        card = empty
        while not card.is_complete and len(out) < n:
            if rng.random() < 0.4:
                out.append(Position(card, roll(), rng.randrange(3)))
            dice = roll()
            card = card.score(rng.choice(card.placements(dice)).box, dice)
    return out


def line(p: Position, objective: str, advice) -> str:
    return json.dumps({"rules": p.rules.id, "card": str(p.card), "dice": str(p.dice),
                       "rolls_left": p.rolls_left, "objective": objective, "advice": advice.to_json()})  # fmt: skip


def main() -> None:
    folder = tempfile.mkdtemp()
    out = []
    for rid, n in RULES:
        table = build_table(rid, folder, progress=False)
        build_target(rid, folder, t_max=T_MAX, progress=False)
        advisor = Advisor(table)
        target = TargetAdvisor(advisor, load_target(rid, folder, light=True))
        win = WinAdvisor(advisor, load_target(rid, folder))
        rng = random.Random(5)
        others = positions(rid, 40, 12, ScoreCard.empty(rid))
        for p in positions(rid, n, 11, ScoreCard.empty(rid)):
            out.append(line(p, "ev", advisor.advise(p)))
            text = f"target:{p.card.total + rng.choice([20, 60, 100, 150])}"
            out.append(line(p, text, target.advise(p, parse_objective(text, rid))))
            cards = [rng.choice(others).card for _ in range(rng.choice([1, 1, 2]))]
            text = "win:" + "|".join(str(c) or "-" for c in cards)
            out.append(line(p, text, win.advise(p, parse_objective(text, rid))))
    triple = TripleAdvisor(build_table(RULES[0][0], folder, progress=False), get_rules(TRIPLE))
    for p in positions(TRIPLE, TRIPLE_POSITIONS, 13, TripleCard.empty(TRIPLE)):
        out.append(line(p, "ev", triple.advise(p)))
    sys.stdout.write("".join(text + "\n" for text in out))


if __name__ == "__main__":
    main()

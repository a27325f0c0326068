"""A protocol bot that answers with one of yahtzee-solver's own Python bots (argv[1], e.g. greedy):
the protocol's plumbing is then checked game by game against that bot played in process."""

import json
import random
import sys

from solver.core.card import ScoreCard
from solver.core.dice import Dice
from solver.core.rules import get_rules
from solver.play.bots import get_bot

bot = rules = None
rng = random.Random(0)  # the wrapped bots are deterministic: they never draw from it
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        rules = get_rules(message["rules"])
        bot = get_bot(sys.argv[1], rules, progress=False)
        answer = {"type": "ready", "name": f"wrapped {sys.argv[1]}"}
    elif message["type"] == "decide":
        moves = []
        for p in message["positions"]:
            card, dice = ScoreCard.parse(p["card"], rules), Dice(p["dice"])
            if p["decision"] == "keep":
                moves.append({"keep": list(bot.choose_keep(card, dice, p["rolls_left"], rng))})
            else:
                moves.append({"box": bot.choose_box(card, dice, rng)})
        answer = {"type": "decisions", "moves": moves}
    else:
        break
    print(json.dumps(answer), flush=True)

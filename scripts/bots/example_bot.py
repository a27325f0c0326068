#!/usr/bin/env python3
"""An example bot speaking yahtzee-solver's JSON-lines protocol (README: "Bots in any language").

    yahtzee simulate --bot cmd:"python3 scripts/bots/example_bot.py" --games 2000

It keeps every die of its most frequent face (ties: the higher face) and stops on five of a kind,
then scores the box that pays most now (ties: the first in card order).  Standard library only:
copy it and make it smarter.
"""

import json
import sys
from collections import Counter


def keep(position: dict, all_rolls: bool) -> list[int]:
    counts = Counter(position["dice"])
    face, n = max(counts.items(), key=lambda item: (item[1], item[0]))
    if n == 5 and all_rolls:  # this rule set rolls three times: throw one die again
        n = 4
    return [face] * n


def box(position: dict) -> str:
    legal = position["boxes"]  # every legal box and what it scores now, in card order
    return max(legal, key=lambda name: legal[name])  # max keeps the first of equal scores


def main() -> None:
    all_rolls = False
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            all_rolls = message["all_rolls"]
            answer = {"type": "ready", "name": "example (Python)"}
        elif message["type"] == "decide":
            moves = [
                {"keep": keep(p, all_rolls)} if p["decision"] == "keep" else {"box": box(p)}
                for p in message["positions"]
            ]
            answer = {"type": "decisions", "moves": moves}
        else:  # "quit"
            return
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

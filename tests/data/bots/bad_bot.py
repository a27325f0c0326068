"""A protocol bot that goes wrong in one way (argv[1]) at its n-th decide message (argv[2], default 3).

With a third argument, a file: the bot first starts a child that sleeps a minute, holding the
bot's stderr, and writes the child's pid there (a bot that leaves a process behind)."""

import json
import os
import subprocess
import sys
import time

how = sys.argv[1]
at = int(sys.argv[2]) if len(sys.argv) > 2 else 3
seen = 0
if len(sys.argv) > 3:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with open(sys.argv[3] + ".part", "w") as fh:
        fh.write(str(child.pid))
    os.replace(sys.argv[3] + ".part", sys.argv[3])
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        if how == "no-ready":
            print(json.dumps({"type": "hello"}), flush=True)
            continue
        print(json.dumps({"type": "ready"}), flush=True)
        continue
    if message["type"] != "decide":
        break
    seen += 1
    positions = message["positions"]
    moves = [
        {"keep": p["dice"]} if p["decision"] == "keep" else {"box": next(iter(p["boxes"]))} for p in positions
    ]
    if seen == at:
        if how == "sleep":
            time.sleep(60)
        elif how == "crash":
            sys.exit(3)
        elif how == "garbage":
            print("this is not JSON", flush=True)
            continue
        elif how == "short":
            moves = moves[:-1]
        elif how == "illegal-keep":
            moves = [
                {"keep": [7, 7]} if p["decision"] == "keep" else m
                for p, m in zip(positions, moves, strict=True)
            ]
        elif how == "illegal-box":
            moves = [
                {"box": "nowhere"} if p["decision"] == "box" else m
                for p, m in zip(positions, moves, strict=True)
            ]
        elif how == "string-keep":
            moves = [
                {"keep": "33"} if p["decision"] == "keep" else m
                for p, m in zip(positions, moves, strict=True)
            ]
        elif how == "huge-box":  # the first box decision's answer: 5,000 characters
            k = next(k for k, p in enumerate(positions) if p["decision"] == "box")
            moves[k] = {"box": "\u00e9" * 5000}
        elif how == "wrong-kind":
            moves = [{"box": "chance"} for _ in positions]
    print(json.dumps({"type": "decisions", "moves": moves}), flush=True)

"""Bot-program benchmark: decisions per second over the JSON-lines protocol (``--bot cmd:...``).

Each run is a fresh Python process playing ``--games`` seeded games of ``yahtzee`` against a bot
program: a trivial one (keeps the dice, scores the first legal box: what the protocol itself
costs), then the example bots of ``scripts/bots/`` (Python, and JavaScript when node is
there).  Medians over ``--repeat`` runs of the wall time, the CPU seconds of both processes
(ours and the bot's) and our peak memory.

``--match``: the same bots in ``yahtzee match`` instead, each program against a second copy
of itself (two processes: nothing but the protocol and the game in Python), ``--games`` games
a run; decisions/s counts both programs' decisions.

    python benchmarks/bench_protocol.py [--games 4000] [--repeat 3] [--match]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from _child import run_json_child

ROOT = Path(__file__).resolve().parents[1]

TRIVIAL = r"""
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "start":
        a = {"type": "ready", "name": "trivial"}
    elif m["type"] == "decide":
        a = {"type": "decisions", "moves": [
            {"keep": p["dice"]} if p["decision"] == "keep" else {"box": next(iter(p["boxes"]))}
            for p in m["positions"]]}
    else:
        break
    sys.stdout.write(json.dumps(a) + "\n")
    sys.stdout.flush()
"""

CHILD = r"""
import json, resource, sys, time
from solver.play.protocol import ProtocolBot
from solver.play.simulate import simulate
from solver.core.rules import get_rules
command, games = sys.argv[1], int(sys.argv[2])
bot = ProtocolBot(command, get_rules("yahtzee"))
wall0, cpu0 = time.perf_counter(), time.process_time()
r = simulate("yahtzee", bot, games, seed=1)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
bot.close()
child = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "wall": wall, "cpu": cpu, "bot_cpu": child.ru_utime + child.ru_stime, "decisions": bot.decisions,
    "mean": r.summary()["mean"], "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""

MATCH_CHILD = r"""
import json, resource, sys, time
from solver.play.protocol import ProtocolBot
from solver.play.match import play_match
from solver.core.rules import get_rules
command, games = sys.argv[1], int(sys.argv[2])
bots = [ProtocolBot(command, get_rules("yahtzee")) for _ in range(2)]
wall0, cpu0 = time.perf_counter(), time.process_time()
r = play_match("yahtzee", bots, games, seed=1)
wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
for bot in bots:
    bot.close()
child = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "wall": wall, "cpu": cpu, "bot_cpu": child.ru_utime + child.ru_stime,
    "decisions": sum(b.decisions for b in bots),
    "mean": float(r.scores[:, 0].mean()), "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--match", action="store_true", help="in a match against itself, not a simulation")
    args = parser.parse_args()
    child_code = MATCH_CHILD if args.match else CHILD
    with tempfile.TemporaryDirectory() as tmp:
        trivial = Path(tmp) / "trivial_bot.py"
        trivial.write_text(TRIVIAL)
        bots = {
            "trivial (Python)": f"{sys.executable} {trivial}",
            "example (Python)": f"{sys.executable} {ROOT / 'scripts' / 'bots' / 'example_bot.py'}",
        }
        if shutil.which("node"):
            bots["example (JavaScript)"] = f"node {ROOT / 'scripts' / 'bots' / 'example_bot.js'}"
        cache = os.environ.get("NUMBA_CACHE_DIR", tmp)
        what = "match games (the program against itself)" if args.match else "games"
        print(
            f"{args.games:,} {what} of yahtzee per run, medians of {args.repeat} runs; load {os.getloadavg()[0]:.2f}"
        )
        print(
            f"{'bot':<22} {'decisions/s':>12} {'wall s':>8} {'our CPU s':>10} {'bot CPU s':>10} {'peak MB':>8} {'mean':>7}"
        )
        for label, command in bots.items():
            runs = [run_json_child(child_code, [command, str(args.games)], cache) for _ in range(args.repeat)]
            med = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "bot_cpu", "peak_mb")}
            rate = statistics.median(r["decisions"] / r["wall"] for r in runs)
            print(
                f"{label:<22} {rate:>12,.0f} {med['wall']:>8.2f} {med['cpu']:>10.2f} {med['bot_cpu']:>10.2f} "
                f"{med['peak_mb']:>8.0f} {runs[0]['mean']:>7.1f}"
            )


if __name__ == "__main__":
    main()

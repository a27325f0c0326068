"""Gymnasium lookahead benchmark: ``env.clone()`` against ``copy.deepcopy(env)`` mid-game.

Each environment (alone, and against ``greedy``) is reset with a seed and stepped 15 times
(the last legal action each step), then copied ``--repeat`` times each way.  Prints the
medians of wall and CPU seconds per copy and the process's peak memory; needs the rl extra.

    python benchmarks/bench_gym_clone.py [--repeat 2000]
"""

from __future__ import annotations

import argparse
import copy
import os
import resource
import statistics
import time

import numpy as np

from solver.play.gym_env import YahtzeeEnv, YahtzeeVsBotEnv


def timed(fn, n: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(n):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    print(f"medians per copy, load {os.getloadavg()[0]:.2f}")
    print(f"{'environment':<18} {'how':<10} {'wall us':>10} {'CPU us':>10}")
    for env in (YahtzeeEnv("yahtzee"), YahtzeeVsBotEnv("yahtzee", "greedy")):
        env.reset(seed=1)
        for _ in range(15):
            env.step(int(np.flatnonzero(env.action_masks())[-1]))
        for how, fn, n in (
            ("clone", env.clone, args.repeat),
            ("deepcopy", lambda env=env: copy.deepcopy(env), 20),
        ):
            wall, cpu = timed(fn, n)
            print(f"{type(env).__name__:<18} {how:<10} {1e6 * wall:>10,.0f} {1e6 * cpu:>10,.0f}")
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()

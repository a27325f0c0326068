"""Web app benchmark: a hint answered by ``yahtzee serve`` (the bar: median <= 50 ms at the server).

Starts the real server (uvicorn, the app of :mod:`solver.web.app`) on a free localhost port,
with the table loaded once as ``yahtzee serve`` does, and times ``GET /api/hint`` over HTTP
from this process (one kept-alive connection, as a browser has):

* *new card states*: positions from random legal games, nearly every one a card state the
  advisor has not seen (its turn values computed for the request: the slow case);
* *same position*: one position asked again and again (the turn values cached);
* ``POST /api/games/{id}/roll`` + ``/score``: a move in a game, for comparison.

    python benchmarks/bench_web.py [--requests 300] [--tables DIR]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import sys
import threading
import time
from urllib.parse import urlencode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_advice import random_positions  # noqa: E402

from solver.core.rules import get_rules  # noqa: E402


def start_server(tables):
    import tempfile

    import uvicorn

    from solver.web.app import create_app
    from solver.web.server import uvicorn_config
    from solver.web.service import Service

    # the games it plays are saved in a folder of its own, never the user's
    service = Service(tables, tempfile.mkdtemp(prefix="bench-web-"), progress=True)
    service.prepare("yahtzee")  # built when missing and loaded once, before serving (as yahtzee serve does)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # asyncio sets TCP_NODELAY
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    server = uvicorn.Server(uvicorn_config(create_app(service=service)))  # as yahtzee serve runs it
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, sock.getsockname()[1]


def timed(con, method: str, path: str, body: bytes | None = None) -> tuple[float, dict]:
    t = time.perf_counter()
    con.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
    response = con.getresponse()
    data = response.read()
    elapsed = time.perf_counter() - t
    if response.status != 200:
        raise SystemExit(f"{method} {path}: {response.status} {data[:200]!r}")
    return elapsed, json.loads(data)


def report(name: str, times: list[float]) -> float:
    ms = sorted(t * 1000 for t in times)
    median = statistics.median(ms)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    print(f"{name:<34} n={len(ms):<5} median {median:7.2f} ms   p90 {p90:7.2f} ms   max {ms[-1]:7.2f} ms")
    return median


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--tables", default=None)
    args = ap.parse_args(argv)
    server, port = start_server(args.tables)
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    rules = get_rules("yahtzee")
    positions = random_positions(rules, args.requests, seed=7)
    new_states = []
    for p in positions:
        query = urlencode({"dice": str(p.dice), "rolls_left": p.rolls_left, "card": str(p.card)})
        new_states.append(timed(con, "GET", f"/api/hint?{query}")[0])
    same = [
        timed(con, "GET", "/api/hint?dice=33456&rolls_left=2&card=ones%3D3%2Cfours%3D12")[0]
        for _ in range(args.requests)
    ]
    moves = []
    for _ in range(max(1, args.requests // 26)):
        _, state = timed(con, "POST", "/api/games", b'{"mode": "solo"}')
        while not state["over"]:
            t, state = timed(con, "POST", f"/api/games/{state['id']}/roll", b"{}")
            moves.append(t)
            box = next(b["name"] for b in state["boxes"] if b["allowed"])
            t, state = timed(
                con, "POST", f"/api/games/{state['id']}/score", json.dumps({"box": box}).encode()
            )
            moves.append(t)
    con.close()
    print(f"yahtzee serve on 127.0.0.1:{port}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    median = report("GET /api/hint (new card states)", new_states)
    report("GET /api/hint (same position)", same)
    report("game moves (roll, score; saves)", moves)
    verdict = "ok" if median <= 50 else "OVER THE BAR"
    print(f"hint median {median:.2f} ms against the bar of 50 ms: {verdict}")
    server.should_exit = True
    return 0 if median <= 50 else 1


if __name__ == "__main__":
    sys.exit(main())

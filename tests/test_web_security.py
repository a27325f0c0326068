"""What ``yahtzee serve`` guarantees against hostile pages and clients (the README's security
paragraph): only this machine's names on loopback, a token beyond it, same-origin JSON for
every POST, no side effects on GET, long work bounded and stopped when the client goes, slow
clients cut off, caches bounded."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

import pytest
from webserver import Client, need_web, raw_get, serve

need_web()

from solver.web.app import create_app  # noqa: E402
from solver.web.heavy import HeavyWork  # noqa: E402
from solver.web.service import Service  # noqa: E402

EVIL = "http://evil.example"


@pytest.fixture(scope="module")
def site(tables, tmp_path_factory):
    data = tmp_path_factory.mktemp("security-data")
    service = Service(tables, data, progress=False)
    with serve(create_app(service=service)) as base:
        yield base, service, data


def saved(data) -> list:
    return sorted(p for p in data.rglob("*") if p.is_file()) if data.exists() else []


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purposes (its parent reaps it in a moment)
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().split(")")[-1].split()[0] != "Z"


# --- only the user's own pages can act ------------------------------------------------------------
@pytest.mark.parametrize(
    "headers, status",
    [
        ({"Content-Type": "text/plain", "Origin": EVIL}, 403),  # the "simple request" of another site
        ({"Content-Type": "text/plain"}, 415),  # not JSON, even from no site at all
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),  # a form post
        ({"Content-Type": "application/json", "Origin": EVIL}, 403),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, 403),
        ({"Content-Type": "application/json", "Origin": "null"}, 403),
    ],
)
def test_cross_site_and_non_json_posts_change_nothing(site, headers, status):
    base, _, data = site
    before = saved(data)
    r = Client(base).post("/api/games", content=b'{"mode": "solo"}', headers=headers)
    assert r.status_code == status, r.text
    assert list(r.json()) == ["error"] and "\n" not in r.text.strip()
    assert saved(data) == before


def test_same_origin_posts_act(site):
    base, _, _ = site
    host = urlsplit(base).netloc
    for headers in (
        {"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},
        {},  # a program that is no browser (curl, a bot) sends neither
    ):
        r = Client(base).post("/api/games", json={"mode": "solo", "seed": 1}, headers=headers)
        assert r.status_code == 200, r.text


def raw_post(base: str, path: str, header_lines: list[str], body: bytes) -> tuple[int, bytes]:
    """A POST with exactly these header lines (a header may come twice, as no library sends it)."""
    url = urlsplit(base)
    head = "".join(f"{line}\r\n" for line in [f"POST {path} HTTP/1.1", f"Host: {url.netloc}", *header_lines])
    with socket.create_connection((url.hostname, url.port), timeout=10) as s:
        s.sendall(f"{head}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, rest = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), rest


@pytest.mark.parametrize(
    "lines, status",
    [
        ([f"Origin: {EVIL}", "Origin: http://127.0.0.1:{port}", "Content-Type: application/json"], 403),
        (["Origin: http://127.0.0.1:{port}", f"Origin: {EVIL}", "Content-Type: application/json"], 403),
        (["Content-Type: text/plain", "Content-Type: application/json"], 415),
        (
            ["Sec-Fetch-Site: cross-site", "Sec-Fetch-Site: same-origin", "Content-Type: application/json"],
            403,
        ),
    ],
)
def test_a_header_sent_twice_counts_with_both_values(site, lines, status):
    base, _, data = site
    port = urlsplit(base).port
    before = saved(data)
    got, body = raw_post(base, "/api/games", [line.format(port=port) for line in lines], b'{"mode": "solo"}')
    assert got == status and list(json.loads(body)) == ["error"], body
    assert saved(data) == before


@pytest.mark.parametrize("headers", [{"Sec-Fetch-Site": "cross-site"}, {"Origin": EVIL}, {"Origin": "null"}])
def test_another_sites_get_starts_no_long_work(site, headers):
    """An ``<img src=http://127.0.0.1:8000/api/distribution>`` on another site would hold the queue
    of long jobs (and gigabytes) for as long as the page stays open."""
    base, service, _ = site
    r = Client(base).get("/api/distribution", headers=headers)
    assert r.status_code == 403 and "cross-site" in r.json()["error"], r.text
    assert service.heavy.running_pid is None
    # the server's own page (or a program) still reaches it
    r = Client(base).get(
        "/api/distribution", params={"at_least": "0"}, headers={"Sec-Fetch-Site": "same-origin"}
    )
    assert r.status_code == 400 and "at_least" in r.json()["error"]


def test_head_reads_the_query_string_as_get_does(site):
    import http.client

    url = urlsplit(site[0])
    con = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    con.request("HEAD", "/api/hint?dice=33456&rolls_left=2")
    r = con.getresponse()
    r.read()
    con.close()
    assert r.status == 200


def test_host_refusals_are_json(site):
    base, _, _ = site
    for host in ("evil.com", "evil.com:80", "127.0.0.1.evil.com", "localhost.evil.com", "[::1]evil.com"):
        status, body = raw_get(base, "/api/rules", host=host)
        assert status == 400 and "DNS rebinding" in json.loads(body)["error"]
    port = int(base.rsplit(":", 1)[1].strip("/"))
    for host in ("localhost", f"LOCALHOST:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "localhost."):
        assert raw_get(base, "/api/rules", host=host)[0] == 200, host


def test_the_host_header_is_parsed_strictly(site):
    """A name or an address and at most the server's own port: the port part is checked too
    (``localhost:PORT@evil.com`` named evil.com to a browser's eye and localhost to a loose parse)."""
    base, _, _ = site
    port = int(base.rsplit(":", 1)[1].strip("/"))
    other = port + 1 if port < 65535 else port - 1
    for host in (
        f"localhost:{port}@evil.com",
        f"localhost:{port}/evil",
        f"localhost:{port}:{port}",
        f"localhost:{other}",
        f"127.0.0.1:{other}",
        f"[::1]:{other}",
        "localhost:",
        "localhost:0",
        "localhost:99999999",
        f"localhost: {port}",
        "local host",
        f"[::1]:{port}x",
        "[localhost]",
        "",
    ):
        status, body = raw_get(base, "/api/rules", host=host)
        assert status == 400 and "DNS rebinding" in json.loads(body)["error"], host


def start_serve(tables, data, *args, env=None):
    """``yahtzee serve --port 0 ARGS``: the process, its printed address and its stderr so far."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "solver",
            "serve",
            "--port",
            "0",
            "--tables",
            tables,
            "--data",
            str(data),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, **(env or {})),
    )
    line = proc.stdout.readline()
    assert line.startswith("yahtzee web app: "), (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, line.split()[3]


def stop(proc) -> str:
    proc.terminate()
    _, err = proc.communicate(timeout=20)
    return err


@pytest.mark.subprocess
@pytest.mark.parametrize("host", ["127.1", "LOCALHOST", "0x7f000001", "127.0.0.1"])
def test_loopback_spellings_keep_the_rebinding_check(tables, tmp_path, host):
    proc, url = start_serve(tables, tmp_path / "data", "--host", host)
    try:
        assert url.startswith("http://127.0.0.1:")  # the address actually bound
        assert raw_get(url.rstrip("/"), "/api/rules", host="evil.com")[0] == 400
        assert raw_get(url.rstrip("/"), "/api/rules", host="127.0.0.1")[0] == 200
    finally:
        err = stop(proc)
    assert "other machines" not in err and "Traceback" not in err


@pytest.mark.subprocess
def test_beyond_loopback_every_request_needs_the_token(tables, tmp_path):
    proc, url = start_serve(tables, tmp_path / "data", "--host", "0.0.0.0")
    try:
        parts = urlsplit(url)
        token = parts.query.removeprefix("token=")
        assert len(token) >= 24
        base = f"http://127.0.0.1:{parts.port}"
        assert raw_get(base, "/api/rules", host="anything.example")[0] == 403  # no token: refused
        assert raw_get(base, "/?token=wrong" + token[5:])[0] == 403
        status, _ = raw_get(base, f"/api/rules?token={token}", host="phone.lan")
        assert status == 200
    finally:
        err = stop(proc)
    assert "other machines can reach this server" in err and "token" in err


@pytest.fixture(scope="module")
def token_site(tables, tmp_path_factory):
    service = Service(tables, tmp_path_factory.mktemp("token-data"), progress=False)
    token = "t0k3n-for-the-tests-only_xyz"
    with serve(create_app(service=service, local_names=None, token=token)) as base:
        yield base, token


def test_token_by_query_cookie_or_bearer(token_site):
    import http.client

    base, token = token_site
    client = Client(base)
    assert client.get("/api/rules").status_code == 403
    assert client.get("/").status_code == 403
    assert client.get("/api/rules", headers={"Authorization": f"Bearer {token}x"}).status_code == 403
    assert client.get("/api/rules", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    # a page opened with the printed address: redirected to itself without the token, cookie set
    url = urlsplit(base)
    con = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    con.request("GET", f"//evil.example/play?token={token}&x=1")
    r = con.getresponse()
    r.read()
    assert r.status == 303 and r.getheader("Location") == "/evil.example/play?x=1"
    cookie = r.getheader("Set-Cookie")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    con.close()
    jar = {"Cookie": cookie.split(";", 1)[0]}
    assert client.get("/play", headers=jar).status_code == 200
    assert client.post("/api/games", json={"mode": "solo"}, headers=jar).status_code == 200
    # the token does not lift the origin check
    assert client.post("/api/games", json={}, headers=jar | {"Origin": EVIL}).status_code == 403


# --- no side effects on GET, no table built by a request --------------------------------------------
def test_no_request_builds_a_table(tmp_path):
    folder = tmp_path / "tables"  # no table at all: every rule set is missing
    folder.mkdir()
    service = Service(str(folder), tmp_path / "data", progress=False)
    started = time.monotonic()
    with serve(create_app(service=service)) as base:
        client = Client(base)
        r = client.get("/api/hint", params={"dice": "33456", "rolls_left": "2", "rules": "yacht"})
        assert r.status_code == 409 and r.json()["build"] == "yacht", r.text
        r = client.post("/api/value", json={"rules": "yatzy+extra-bonus=7"})
        assert r.status_code == 409 and "POST /api/tables" in r.json()["error"]
        assert client.post("/api/games", json={"rules": "yacht"}).status_code == 409
        assert client.get("/api/distribution", params={"rules": "yacht"}).status_code == 409
        # yahtzee's table comes with the package: answered, and nothing built either
        assert client.get("/api/hint", params={"dice": "33456", "rolls_left": "2"}).status_code == 200
        assert client.get("/api/tables").status_code == 405  # building is a POST
    assert time.monotonic() - started < 5 and not list(folder.iterdir())


def test_hint_on_a_finished_game_is_409(site):
    base, _, _ = site
    client = Client(base)
    state = client.post("/api/games", json={"seed": 5}).json()
    gid = state["id"]
    while not state["over"]:
        state = client.post(f"/api/games/{gid}/roll", json={}).json()
        box = next(b["name"] for b in state["boxes"] if b["allowed"])
        state = client.post(f"/api/games/{gid}/score", json={"box": box}).json()
    r = client.post(f"/api/games/{gid}/hint", json={})
    assert r.status_code == 409 and "finished" in r.json()["error"]


# --- long work is bounded --------------------------------------------------------------------------
@pytest.fixture
def heavy_site(tables, tmp_path):
    service = Service(tables, tmp_path / "data", progress=False, heavy=HeavyWork(max_waiting=0))
    with serve(create_app(service=service)) as base:
        yield base, service


def post_and_leave(base: str, path: str, body: dict, after_s: float) -> None:
    """Send a POST, then close the connection without reading the answer."""
    url = urlsplit(base)
    data = json.dumps(body).encode()
    with socket.create_connection((url.hostname, url.port)) as s:
        s.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        time.sleep(after_s)


@pytest.mark.slow
def test_long_work_stops_when_the_client_goes_and_hints_answer_meanwhile(heavy_site):
    base, service = heavy_site
    # the empty card's distribution: seconds of work in a child process
    leaver = threading.Thread(target=post_and_leave, args=(base, "/api/distribution", {}, 1.5))
    leaver.start()
    deadline = time.monotonic() + 10
    while service.heavy.running_pid is None and time.monotonic() < deadline:
        time.sleep(0.02)
    pid = service.heavy.running_pid
    assert pid is not None
    # meanwhile: hints answer at once, and a second long job is refused (no room to wait)
    started = time.monotonic()
    assert Client(base).get("/api/hint", params={"dice": "33456", "rolls_left": "2"}).status_code == 200
    assert time.monotonic() - started < 2
    r = Client(base).post("/api/distribution", json={})
    assert r.status_code == 503 and "busy" in r.json()["error"]
    leaver.join()
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid), "the job went on after its client left"


@pytest.mark.slow
def test_long_work_has_a_memory_ceiling_and_a_deadline(tables, tmp_path):
    for heavy, words in (
        (HeavyWork(memory_bytes=400 * 1024**2), "more memory"),
        (HeavyWork(seconds=1.0), "longer than"),
    ):
        service = Service(tables, tmp_path / "data", progress=False, heavy=heavy)
        with serve(create_app(service=service)) as base:
            r = Client(base).post("/api/distribution", json={})
        assert r.status_code == 422 and words in r.json()["error"], r.text
        assert heavy.running_pid is None


# --- slow clients are cut off ----------------------------------------------------------------------
def test_a_trickling_request_head_is_cut_off(site, monkeypatch):
    from solver.web.server import TimedH11Protocol

    base, _, _ = site
    monkeypatch.setattr(TimedH11Protocol, "head_timeout_s", 1.0)
    url = urlsplit(base)
    with socket.create_connection((url.hostname, url.port), timeout=5) as s:
        started = time.monotonic()
        closed = False
        for byte in b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100:
            try:
                s.sendall(bytes([byte]))
                time.sleep(0.2)
                s.setblocking(False)
                try:
                    if s.recv(1) == b"":
                        closed = True
                        break
                except BlockingIOError:
                    pass
                finally:
                    s.setblocking(True)
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed and time.monotonic() - started < 4
    assert Client(base).get("/api/rules").status_code == 200  # the server is fine


def test_a_trickling_body_is_a_408(site, monkeypatch):
    from solver.web import app as app_module

    base, _, _ = site
    monkeypatch.setattr(app_module, "BODY_TIMEOUT_S", 0.5)
    url = urlsplit(base)
    with socket.create_connection((url.hostname, url.port), timeout=10) as s:
        s.sendall(
            b"POST /api/value HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 50\r\n\r\n{"
        )
        for _ in range(4):
            time.sleep(0.3)
            s.sendall(b" ")
        answer = s.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 408") and "did not arrive" in answer


# --- caches are bounded ----------------------------------------------------------------------------
def test_rule_set_cache_is_bounded():
    import tracemalloc

    from solver.core.rules import get_rules

    get_rules("yatzy+extra-bonus=1")
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for n in range(2, 1000):
        assert get_rules(f"yatzy+extra-bonus={n}").id == f"yatzy+extra-bonus={n}"
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 8 * 1024**2, f"{grown / 1024**2:.1f} MiB kept for 1,000 rule sets"
    assert get_rules("yahtzee") is get_rules("yahtzee")


def test_out_of_memory_is_said_as_such(tables, tmp_path, monkeypatch):
    """A request that runs the machine out of memory is a 503 saying so (never "rebuild the table")."""
    from solver.advice.advisor import Advisor

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(Advisor, "load", no_memory)
    service = Service(tables, tmp_path / "data", progress=False)
    with serve(create_app(service=service)) as base:
        r = Client(base).get("/api/hint", params={"dice": "33456", "rolls_left": "2", "rules": "yatzy"})
    assert r.status_code == 503 and "out of memory" in r.json()["error"]
    assert "rebuild" not in r.json()["error"]


def test_seeds_of_the_whole_stream_range(site):
    base, _, _ = site
    client = Client(base)
    assert client.post("/api/games", json={"seed": 2**64 - 1}).status_code == 200  # as yahtzee play
    assert client.post("/api/games", json={"seed": 2**64}).status_code == 400


def test_idle_sockets_cannot_lock_the_server_out(site):
    """Sockets opened and left without a whole request head are not what fills the server: past
    MAX_IDLE the oldest is closed, and real requests are answered all along."""
    from solver.web.server import MAX_IDLE

    base, _, _ = site
    url = urlsplit(base)
    idle = []
    try:
        for _ in range(MAX_IDLE * 3):
            s = socket.create_connection((url.hostname, url.port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\n")  # and nothing more
            idle.append(s)
        started = time.monotonic()
        assert Client(base).get("/api/rules").status_code == 200
        assert time.monotonic() - started < 2
    finally:
        for s in idle:
            s.close()


def test_a_pipelined_request_is_answered_whole(tables_dir, site, monkeypatch):
    """Two requests sent at once on one connection: the second (a job of a second or more) is
    answered, not cut by the head deadline meant for a client that sends nothing."""
    from solver.web.server import TimedH11Protocol

    tables_dir.table("yatzy+lower-only")
    base, _, _ = site
    monkeypatch.setattr(TimedH11Protocol, "head_timeout_s", 0.3)
    url = urlsplit(base)
    head = "Host: 127.0.0.1\r\n"
    with socket.create_connection((url.hostname, url.port), timeout=30) as s:
        s.sendall(
            f"GET /api/rules HTTP/1.1\r\n{head}\r\n"
            f"GET /api/distribution?rules=yatzy%2Blower-only&card=chance%3D20 HTTP/1.1\r\n{head}\r\n".encode()
        )
        answer = b""
        while answer.count(b"HTTP/1.1 200") < 2:
            chunk = s.recv(65536)
            assert chunk, f"the connection was closed: {answer[-300:]!r}"
            answer += chunk


@pytest.mark.subprocess
def test_a_job_dies_with_its_server(tmp_path):
    """The job's child is killed by the kernel when the server dies (no orphan computing on)."""
    from solver.web.heavy import CHILD

    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, os\n"
            "child = subprocess.Popen([sys.executable, '-P', '-c', sys.argv[1], 'simulate', '--bot', 'random',"
            " '--games', '50000000', '--rules', 'yacht+lower-only', '--quiet'],"
            " env=dict(os.environ, YAHTZEE_JOB_PARENT=str(os.getpid())))\n"
            "print(child.pid, flush=True)\n"
            "child.wait()\n",
            CHILD,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    pid = int(server.stdout.readline())
    time.sleep(1.0)
    assert alive(pid)
    server.kill()
    server.wait()
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid), "the job outlived its server"


def test_seeds_past_2_63_are_replays_too(site):
    base, _, data = site
    client = Client(base)
    seed = 2**64 - 7
    state = client.post("/api/games", json={"seed": seed}).json()
    client.post(f"/api/games/{state['id']}/roll", json={})
    box = next(b["name"] for b in client.get(f"/api/games/{state['id']}").json()["boxes"] if b["allowed"])
    client.post(f"/api/games/{state['id']}/score", json={"box": box})  # saved: its dice are known
    again = client.post("/api/games", json={"seed": seed}).json()
    assert again["events"] == [f"you played seed {seed} before: this replay does not count for your record"]


def test_the_guard_lets_no_websocket_through():
    """Whatever routes come later, a websocket never reaches the app past the guard unchecked."""
    import asyncio

    from solver.web.guard import Guard

    reached, sent = [], []

    async def app(scope, receive, send):
        reached.append(scope)

    async def send(message):
        sent.append(message)

    scope = {"type": "websocket", "headers": [(b"host", b"evil.example")], "path": "/"}
    asyncio.run(Guard(app)(scope, None, send))
    assert not reached and sent == [{"type": "websocket.close", "code": 1008}]

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


def raw_request(base: str, head: bytes) -> tuple[int, bytes]:
    """Send ``head`` (a request line and headers, ``\\r\\n``-separated, the blank line added) as
    bytes, exactly; the answer's status and body."""
    url = urlsplit(base)
    with socket.create_connection((url.hostname, url.port), timeout=10) as s:
        s.sendall(head + b"\r\n\r\n")
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer:
                head_part, _, body = answer.partition(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":")[1])
                        for line in head_part.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    None,
                )
                if length is not None and len(body) >= length:
                    break
    head_part, _, body = answer.partition(b"\r\n\r\n")
    return int(head_part[9:12]), body


#: Host headers that name another site (or nothing) in a form a loose parse takes for this one;
#: PORT is the server's port, OTHER another
FORGED_HOSTS = [
    "localhost:PORT@evil.com",
    "user@localhost:PORT",
    "localhost:PORT/evil",
    "localhost:PORT?x",
    "localhost:PORT#x",
    "localhost:PORT:PORT",
    "localhost:PORT evil.com",
    "localhost:PORT,evil.com",
    "localhost,evil.com",
    "localhost\\evil.com",
    "localhost%2eevil.com",
    "localhost:OTHER",
    "127.0.0.1:OTHER",
    "[::1]:OTHER",
    "localhost:",
    "localhost:0",
    "localhost:+PORT",
    "localhost:-PORT",
    "localhost:99999999",
    "localhost:65536",
    "localhost: PORT",
    "local host",
    "[::1]:PORTx",
    "[::1",
    "::1",
    "[localhost]",
    "[::1%25lo]:PORT",
    "[::ffff:127.0.0.1]",
    "127.1",
    "0x7f000001",
    "2130706433",
    ".localhost",
    "localhost..",
    "-localhost",
    "xn--localhost",
    "",
]


@pytest.mark.parametrize("form", FORGED_HOSTS)
def test_forged_host_headers_are_refused(site, form):
    base, _, _ = site
    port = int(base.rsplit(":", 1)[1].strip("/"))
    host = form.replace("PORT", str(port)).replace("OTHER", str(port + 1 if port < 65535 else port - 1))
    status, body = raw_get(base, "/api/rules", host=host)
    assert status == 400 and "DNS rebinding" in json.loads(body)["error"], host


@pytest.mark.parametrize(
    "host",
    [
        "localhost:\uff18\uff10\uff10\uff10".encode(),  # fullwidth digits
        "l\u043ecalhost".encode(),  # a Cyrillic o
        "localhost:PORT\u00a0".encode(),
        b"localhost:PORT\x00evil.com",
        b"localhost\r\nHost: evil.com",
    ],
    ids=["fullwidth-port", "cyrillic-o", "nbsp", "nul", "two-hosts"],
)
def test_host_headers_with_other_bytes_are_refused(site, host):
    """Bytes beyond ASCII, a NUL or a second Host line: a 400 JSON error, never this site."""
    base, _, _ = site
    port = str(int(base.rsplit(":", 1)[1].strip("/"))).encode()
    head = b"GET /api/rules HTTP/1.1\r\nHost: " + host.replace(b"PORT", port)
    status, body = raw_request(base, head)
    assert status == 400 and json.loads(body)["error"], body[:200]


@pytest.mark.parametrize(
    "head",
    [
        b"GET /api/\xff HTTP/1.1\r\nHost: 127.0.0.1",
        b"G\xc3\xa9T /api/rules HTTP/1.1\r\nHost: 127.0.0.1",
        b"POST /api/hint HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: -1",
        b"POST /api/hint HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1x",
        b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2",
        b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip",
        b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon",
        b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nX-\xff: 1",
        b"GET /api/rules HTTP/1.1",  # HTTP/1.1 without a Host
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS hello on the plain port
    ],
    ids=[
        "target-byte",
        "method-utf8",
        "length-minus-1",
        "length-1x",
        "two-lengths",
        "gzip",
        "no-colon",
        "name-byte",
        "no-host",
        "tls",
    ],
)
def test_a_malformed_request_is_a_400_json_error(site, head):
    """A request line or header the HTTP parser refuses: the API's 400 JSON error, not h11's text."""
    base, _, _ = site
    status, body = raw_request(base, head)
    assert status == 400 and "malformed HTTP request" in json.loads(body)["error"], body[:200]
    assert Client(base).get("/api/rules").status_code == 200


def test_a_client_gone_mid_body_is_one_log_line(site):
    """A client that closes its connection halfway through a POST body: one warning line in the
    server's log (method, path, bytes received), no traceback, and the server answers on.  A
    path's encoded line break stays on that line."""
    import logging
    from urllib.parse import unquote

    from solver.web.params import one_line

    base, _, _ = site
    paths = ("/api/hint", "/api/games", "/api/distribution", "/api/games/x%0aWARNING:%20forged/roll")
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("uvicorn")
    logger.addHandler(handler)
    try:
        url = urlsplit(base)
        for n, path in enumerate(paths, 1):
            with socket.create_connection((url.hostname, url.port), timeout=5) as s:
                s.sendall(
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    'Content-Length: 100\r\n\r\n{"dice"'.encode()
                )
                time.sleep(0.2)
            deadline = time.monotonic() + 5
            while len(records) < n and time.monotonic() < deadline:
                time.sleep(0.02)
        assert Client(base).get("/api/rules").status_code == 200
    finally:
        logger.removeHandler(handler)
    lines = [r.getMessage() for r in records]
    assert len(records) == len(paths), lines
    for record, path in zip(records, paths, strict=True):
        message = record.getMessage()
        assert record.exc_info is None and "\n" not in message, message
        assert message.startswith(f"POST {one_line(unquote(path))}: "), message
        assert "went away" in message and "7 of 100 bytes" in message, message


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
        assert r.status_code == 409 and "press Build" in r.json()["error"]
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


#: a job's child that works for a while and answers (the queue is what is tested, not the CLI)
SLOW_JOB = "import time; time.sleep(1.5); print('{}')"


@pytest.mark.slow  # 3 jobs of 1.5 s in turn; the same bound one event loop deep stays in the fast loop
def test_the_job_queue_bound_holds_for_simultaneous_arrivals(tables, tmp_path, monkeypatch):
    """30 long requests sent at once (30 connections opened together) to a queue of one running
    and 2 waiting: 3 are answered, 27 refused at once with a 503 JSON and Retry-After -- the
    admission and the count are one step, so no arrival slips in between another's check and
    its enqueue (half of them were queued: 14 jobs one after the other)."""
    from webserver import burst

    from solver.web import heavy

    monkeypatch.setattr(heavy, "CHILD", SLOW_JOB)
    service = Service(tables, tmp_path / "data", progress=False, heavy=HeavyWork(max_waiting=2))
    with serve(create_app(service=service)) as base:
        burst(base, ["/api/rules"] * 30)  # the worker threads started: the arrivals come together
        seen = burst(base, ["/api/distribution"] * 30, timeout=120)
    assert (seen.count(200), seen.count(503)) == (3, 27), sorted(set(seen.statuses), key=str)
    assert not seen.errors, seen.errors[:3]


def test_the_job_queue_admits_in_one_step(monkeypatch):
    """The same, one event loop deep: 10 jobs started in the same instant, 1 runs and 2 wait."""
    import asyncio

    from solver.web import heavy

    monkeypatch.setattr(heavy, "CHILD", SLOW_JOB.replace("1.5", "0.1"))
    work = HeavyWork(max_waiting=2)

    async def still_there() -> bool:
        return False

    async def arrive_together():
        return await asyncio.gather(*(work.run([], still_there) for _ in range(10)), return_exceptions=True)

    results = asyncio.run(arrive_together())
    refused = [r for r in results if isinstance(r, heavy.JobRefused)]
    assert len(refused) == 7 and all(r.status == 503 for r in refused), results
    assert all(r.returncode == 0 for r in results if not isinstance(r, Exception)), results


# --- slow clients are cut off ----------------------------------------------------------------------
def test_a_trickling_request_head_is_cut_off(site, monkeypatch):
    from solver.web.server import TimedH11Protocol

    base, _, _ = site
    monkeypatch.setattr(TimedH11Protocol, "head_timeout_s", 0.5)
    url = urlsplit(base)
    with socket.create_connection((url.hostname, url.port), timeout=5) as s:
        started = time.monotonic()
        closed = False
        for byte in b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100:
            try:
                s.sendall(bytes([byte]))
                time.sleep(0.1)  # a byte well within the deadline each time: the head's whole time counts
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
    monkeypatch.setattr(app_module, "BODY_TIMEOUT_S", 0.3)
    url = urlsplit(base)
    with socket.create_connection((url.hostname, url.port), timeout=10) as s:
        s.sendall(
            b"POST /api/value HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 50\r\n\r\n{"
        )
        for _ in range(6):  # a byte every 0.1 s, past the 0.3 s the whole body has
            time.sleep(0.1)
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


def test_idle_sockets_cannot_lock_the_server_out(site, monkeypatch):
    """Sockets opened and left without a whole request head are not what fills the server: past
    the connection budget the one idle longest is closed, and real requests are answered all
    along."""
    from solver.web.server import TimedH11Protocol

    base, _, _ = site
    monkeypatch.setattr(TimedH11Protocol, "max_connections", 32)
    url = urlsplit(base)
    idle = []
    try:
        for _ in range(32 * 3):
            s = socket.create_connection((url.hostname, url.port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\n")  # and nothing more
            idle.append(s)
        time.sleep(0.3)  # their bytes read: idle (a socket whose unread bytes wait is not)
        started = time.monotonic()
        assert Client(base).get("/api/rules").status_code == 200
        assert time.monotonic() - started < 2
        time.sleep(0.2)
        closed = []
        for s in idle:
            s.setblocking(False)
            try:
                closed.append(s.recv(1) == b"")
            except BlockingIOError:
                closed.append(False)
        assert sum(closed) >= 32 * 2, f"{sum(closed)} of the {len(idle)} idle sockets closed"
        assert all(closed[:32]), "the longest idle go first"
    finally:
        for s in idle:
            s.close()


@pytest.fixture
def many_files():
    """Room for the test process to hold both ends of 500+ connections (``ulimit -n``)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4096
    if soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < 1400:
            pytest.skip(f"the open-file limit (ulimit -n {hard}) is too low for 500 connections")
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


HINT_PATHS = [
    f"/api/hint?dice={dice}&rolls_left={rolls}&card=ones%3D3"
    for dice in ("33456", "11111", "12345", "22366", "14556")
    for rolls in (0, 1, 2)
]


@pytest.mark.parametrize("connect_first", [False, True], ids=["at-once", "connected-first"])
def test_a_burst_of_connections_is_answered_every_one(site, many_files, connect_first):
    """300 connections opened at once, each with a hint request, 200 idle connections held open
    meanwhile: every request is answered (a 200, or a 503 JSON with Retry-After), none reset, and
    no idle connection is cut before its own deadline while there is room.  Connected first:
    all 300 are accepted before any request arrives (they look idle for a moment)."""
    from webserver import burst

    base, _, _ = site
    paths = [HINT_PATHS[i % len(HINT_PATHS)] for i in range(300)]
    seen = burst(base, paths, idle=200, connect_first=connect_first)
    assert seen.count(None) == 0, f"{seen.count(None)} of 300 reset or unanswered"
    assert seen.count(200) + seen.count(503) == 300, sorted(set(seen.statuses))
    assert not seen.errors, seen.errors[:3]
    assert seen.idle_closed == 0, f"{seen.idle_closed} of 200 idle connections cut with room to spare"


def test_past_capacity_a_503_json_with_retry_after(monkeypatch):
    """More requests in flight than the server answers at once: the rest are a 503 JSON error
    with Retry-After at once, never a reset nor uvicorn's plain text."""
    import asyncio

    from webserver import burst

    from solver.web import server

    monkeypatch.setattr(server, "MAX_IN_FLIGHT", 8)

    async def slow(scope, receive, send):  # every request in flight for 0.5 s
        await asyncio.sleep(0.5)
        body = b'{"ok": true}'
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"12")]})
        await send({"type": "http.response.body", "body": body})

    with serve(slow) as base:
        seen = burst(base, ["/"] * 60, connect_first=True)
    assert seen.count(None) == 0 and not seen.errors, seen.errors[:3]
    assert seen.count(200) >= 8 and seen.count(503) >= 30, (seen.count(200), seen.count(503))
    assert max(seen.seconds) < 5


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


def test_a_child_crashing_under_the_cap_is_the_cap(monkeypatch):
    """Native code failing an allocation under the cap crashes the child (SIGSEGV): the cap's 422,
    not a 503 "the computation failed" (CI met it: distribution at a 400 MB cap)."""
    import asyncio

    from solver.web import heavy

    monkeypatch.setattr(heavy, "CHILD", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")

    async def still_there() -> bool:
        return False

    with pytest.raises(heavy.JobRefused) as refused:
        asyncio.run(HeavyWork().run([], still_there))
    assert refused.value.status == 422 and "more memory" in str(refused.value)


@pytest.mark.parametrize(
    "line, refused",
    [
        ("yahtzee: error: out of memory (Cannot allocate memory); is memory limited (ulimit -v)?", True),
        (
            "yahtzee: error: cannot start a thread (can't start new thread); is memory limited (ulimit -v)? "
            "try --threads 1",
            True,
        ),
        ("yahtzee: error: cannot read or write 'x': is memory limited (ulimit -v)?", False),
        ("my bot says: is memory limited (ulimit -v)?", False),
    ],
)
def test_the_memory_cap_is_named_however_the_child_meets_it(monkeypatch, line, refused):
    """A child that meets the cap starting a thread gets the cap's 422 too (it got a 503 'cannot
    start a thread' under load); a line that is not the CLI's own words for the cap stays the child's."""
    import asyncio

    from solver.web import heavy

    job = f"import sys; print({line!r}, file=sys.stderr); sys.exit(1)"
    monkeypatch.setattr(heavy, "CHILD", job)

    async def still_there() -> bool:
        return False

    try:
        result = asyncio.run(HeavyWork().run([], still_there))
    except heavy.JobRefused as exc:
        assert refused and exc.status == 422 and "more memory" in str(exc)
    else:
        assert not refused and result.returncode == 1 and result.error_line == line

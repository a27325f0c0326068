"""Test helpers for the web app: a real uvicorn server on a free localhost port, in a thread."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

WEB_SKIP = (
    'the web extra is not installed (pip install -e ".[test]" or ".[web]" brings starlette and uvicorn)'
)


def need_web() -> None:
    """Skip the calling test module when the web extra is missing."""
    pytest.importorskip("starlette", reason=WEB_SKIP)
    pytest.importorskip("uvicorn", reason=WEB_SKIP)


@contextlib.contextmanager
def serve(app) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 and a free port; yields the base URL (no trailing /)."""
    import uvicorn

    from solver.web.server import uvicorn_config

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY per connection
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(app))  # as yahtzee serve runs it
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test web server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def raw_get(base: str, path: str, host: str | None = None) -> tuple[int, bytes]:
    """GET ``path`` exactly as written (no ``..`` clean-up, as a hostile client sends it)."""
    import http.client
    from urllib.parse import urlsplit

    url = urlsplit(base)
    con = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        con.putrequest("GET", path, skip_host=host is not None)
        if host is not None:
            con.putheader("Host", host)
        con.endheaders()
        response = con.getresponse()
        return response.status, response.read()
    finally:
        con.close()


class Answer:
    """An HTTP answer: ``status_code``, ``headers`` (lower-case names), ``text``, ``json()``."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes):
        self.status_code, self.headers, self.content = status, headers, body

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self):
        import json

        return json.loads(self.content)


class Client:
    """A small HTTP client for a test server (standard library only; one connection per request)."""

    def __init__(self, base: str):
        self.base = base

    def request(self, method: str, path: str, params=None, json=None, content=None, headers=None) -> Answer:
        import http.client
        import json as _json
        from urllib.parse import urlencode, urlsplit

        url = urlsplit(self.base)
        if params:
            path += "?" + urlencode(params)
        headers = dict(headers or {})
        if json is not None:
            content = _json.dumps(json).encode()
            headers.setdefault("Content-Type", "application/json")
        if method == "POST" and content is None:
            content = b""
        con = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        try:
            con.request(method, path, body=content, headers=headers)
            response = con.getresponse()
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            con.close()

    def get(self, path: str, params=None, **kw) -> Answer:
        return self.request("GET", path, params=params, **kw)

    def post(self, path: str, json=None, content=None, headers=None) -> Answer:
        return self.request("POST", path, json=json, content=content, headers=headers)

    def delete(self, path: str) -> Answer:
        return self.request("DELETE", path)


BROWSER_SKIP = (
    "no browser for the browser tests: install Debian's chromium and chromium-driver "
    "(apt-get install chromium chromium-driver; .ci/run does) and selenium (in the test extra)"
)


def chrome(width: int = 1200, height: int = 1600):
    """A headless Chromium driven by Selenium, or a skip saying what is missing."""
    import os
    import shutil

    required = bool(os.environ.get("YAHTZEE_REQUIRE_BROWSER"))  # .ci/run, once it has the browser
    if required:
        import selenium  # noqa: F401 - must be there: the test extra brings it
    else:
        pytest.importorskip("selenium", reason=BROWSER_SKIP)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    binary = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver = shutil.which("chromedriver") or next(
        (p for p in ("/usr/lib/chromium/chromedriver", "/usr/bin/chromedriver") if os.path.exists(p)), None
    )
    if binary is None or driver is None:
        if required:
            pytest.fail(f"YAHTZEE_REQUIRE_BROWSER is set but {BROWSER_SKIP}")
        pytest.skip(BROWSER_SKIP)
    options = Options()
    options.binary_location = binary
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--no-first-run",
        f"--window-size={width},{height}",
        "--force-device-scale-factor=1",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


#: where the browser tests save their screenshots (the README's: ``YAHTZEE_SCREENSHOTS=docs``)
SHOTS = os.environ.get("YAHTZEE_SCREENSHOTS")


def wait(condition, what: str, timeout: float = 15.0):
    """Wait until ``condition()`` is truthy (exceptions count as not yet); returns its value."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as exc:  # noqa: BLE001 - the page is still changing
            last = exc
        time.sleep(0.03)
    raise AssertionError(f"timed out waiting for {what}" + (f" ({last!r})" if last else ""))


def shot(driver, name: str, width: int = 1100, height: int | None = None) -> None:
    """Save a screenshot of the whole page under $YAHTZEE_SCREENSHOTS (when set); with
    ``height``, of what a screen of ``width`` x ``height`` shows without scrolling."""
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    size = driver.get_window_size()
    if height is not None:
        set_viewport(driver, width, height)
        driver.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.3)
        driver.save_screenshot(str(Path(SHOTS) / name))
        driver.set_window_size(size["width"], size["height"])
        return
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(max(height + 140, 600), 4000))
    time.sleep(0.2)
    driver.save_screenshot(str(Path(SHOTS) / name))
    driver.set_window_size(size["width"], size["height"])


def set_viewport(driver, width: int, height: int) -> None:
    """The window sized so that the page sees exactly ``width`` x ``height`` CSS pixels."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])


def open_page(driver, url: str) -> None:
    driver.get(url)
    wait(lambda: driver.execute_script("return document.body.dataset.ready") == "1", f"{url} to load")


def cli_json(capsys, *argv) -> dict:
    """What ``yahtzee ARGV`` prints as JSON (it must succeed), read through pytest's ``capsys``."""
    import json

    from solver.cli.entry import main

    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


class Burst:
    """What :func:`burst` saw: per connection its HTTP status (``None``: reset, or closed or left
    unanswered) and seconds from its ``connect`` (or its request's sending, ``connect_first``) to
    the answer's end; ``errors``, answers not as promised; the held idle connections the server
    closed meanwhile."""

    def __init__(self, statuses: list[int | None], seconds: list[float], errors: list[str], idle_closed: int):
        self.statuses, self.seconds, self.errors, self.idle_closed = statuses, seconds, errors, idle_closed

    def count(self, status: int | None) -> int:
        return sum(1 for s in self.statuses if s == status)


def burst(
    base: str, paths: list[str], idle: int = 0, timeout: float = 60.0, connect_first: bool = False
) -> Burst:
    """Open one connection per path all at once (non-blocking, from one thread: every request is on
    its way before the first answer), send each ``GET path`` (``Connection: close``), read every
    answer; ``idle`` connections are opened first and held, sending nothing, the whole time.
    ``connect_first``: every connection is established (and accepted by the server, given
    time to) before the first request is sent, as clients that open their connections ahead do.

    A 503 must be JSON with ``Retry-After`` and a 200 JSON, else its error is listed."""
    import json
    import selectors
    from urllib.parse import urlsplit

    url = urlsplit(base)
    address = (url.hostname, url.port)
    held = [socket.create_connection(address, timeout=10) for _ in range(idle)]
    sel = selectors.DefaultSelector()
    n = len(paths)
    statuses: list[int | None] = [None] * n
    seconds = [0.0] * n
    errors: list[str] = []
    started = [0.0] * n
    out: list[bytes] = []
    got = [bytearray() for _ in range(n)]
    for i, path in enumerate(paths):
        out.append(f"GET {path} HTTP/1.1\r\nHost: {url.hostname}\r\nConnection: close\r\n\r\n".encode())
        started[i] = time.perf_counter()
        if connect_first:  # the handshake done, then the request sent after the last one's
            try:
                s = socket.create_connection(address, timeout=10)
            except OSError:  # refused or timed out: no answer
                continue
            s.setblocking(False)
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex(address)
        sel.register(s, selectors.EVENT_WRITE, i)
    if connect_first:
        time.sleep(0.5)  # the server has accepted them all: now every request arrives at once
        started = [time.perf_counter()] * n  # each request timed from its sending
    open_ = len(sel.get_map())
    deadline = time.monotonic() + timeout
    while open_ and time.monotonic() < deadline:
        for key, events in sel.select(timeout=1.0):
            i, s = key.data, key.fileobj
            done = False
            try:
                if events & selectors.EVENT_WRITE:
                    sent = s.send(out[i])
                    out[i] = out[i][sent:]
                    if not out[i]:
                        sel.modify(s, selectors.EVENT_READ, i)
                    continue
                chunk = s.recv(65536)
                if chunk:
                    got[i] += chunk
                    continue
                done = True  # the server closed: the answer (if any) is whole
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:  # reset (ECONNRESET, EPIPE) or refused: no answer
                got[i] = bytearray()
                done = True
            if done:
                seconds[i] = time.perf_counter() - started[i]
                sel.unregister(s)
                s.close()
                open_ -= 1
                head, _, body = bytes(got[i]).partition(b"\r\n\r\n")
                if head.startswith(b"HTTP/1.1 "):
                    statuses[i] = int(head[9:12])
                    headers = head.decode("latin-1").lower()
                    try:
                        json.loads(body)
                    except ValueError:
                        errors.append(f"{statuses[i]}: not JSON: {body[:80]!r}")
                    if statuses[i] == 503 and "\r\nretry-after:" not in headers:
                        errors.append(f"503 without Retry-After: {head[:200]!r}")
    for key in list(sel.get_map().values()):  # past the timeout: unanswered
        key.fileobj.close()
    sel.close()
    idle_closed = 0
    for s in held:
        s.setblocking(False)
        try:
            idle_closed += s.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            idle_closed += 1
        s.close()
    return Burst(statuses, seconds, errors, idle_closed)

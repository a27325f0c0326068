"""uvicorn, set up for ``yahtzee serve``: slow and idle clients are cut off.

uvicorn closes an idle keep-alive connection after a few seconds, but a client that sends a
request head one byte at a time resets that timer with every byte and holds its connection
for good.  :class:`TimedH11Protocol` gives each request head a deadline,
:data:`HEAD_TIMEOUT_S` from the connection's start or the previous answer (the body has its
own, :data:`solver.web.app.BODY_TIMEOUT_S`, read by the app), and keeps at most
:data:`MAX_IDLE` connections waiting for a head: a new one beyond that closes the one that
waited longest among those with nothing to read.  A connection whose request has arrived --
its bytes in the socket, not yet read because the server is busy with a burst -- is not idle
and is never cut: a burst of hundreds of connections opened at once is answered, every one.
So idle sockets cannot fill the server, and requests in flight are never what is cut.

Past :data:`MAX_IN_FLIGHT` requests being answered at once, a request is answered at once
with a 503 JSON error and ``Retry-After`` (:class:`Capacity`), never a reset; a malformed
request (a request line or header h11 refuses: non-ASCII bytes, a negative
``Content-Length``) gets a 400 JSON error.
"""

from __future__ import annotations

import json
from collections import OrderedDict

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has to send a whole request line and headers
HEAD_TIMEOUT_S = 10.0
#: connections kept while they wait for a request head (the oldest idle one beyond this is closed)
MAX_IDLE = 256
#: requests answered at once; beyond, a 503 JSON error with Retry-After (:class:`Capacity`)
MAX_IN_FLIGHT = 512
#: seconds a client refused for capacity is asked to wait (``Retry-After``)
RETRY_AFTER_S = 1
#: connections the kernel queues before the server accepts them (``listen``; capped by somaxconn)
LISTEN_BACKLOG = 1024
#: seconds Ctrl-C waits for requests under way (a long job among them) before closing them
GRACEFUL_SHUTDOWN_S = 2


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for every request head and a cap on the
    connections waiting for one (see the module doc)."""

    head_timeout_s = HEAD_TIMEOUT_S
    max_idle = MAX_IDLE
    #: per server (its uvicorn state), the connections waiting for a head, oldest first
    _waiting_for_head: dict[int, OrderedDict] = {}

    def connection_made(self, transport) -> None:
        self._head_deadline = None
        super().connection_made(transport)
        self._wait_for_head()

    def _idle(self) -> OrderedDict:
        return self._waiting_for_head.setdefault(id(self.server_state), OrderedDict())

    def _wait_for_head(self) -> None:
        self._cancel_head_deadline()
        self._head_deadline = self.loop.call_later(self.head_timeout_s, self._head_too_slow)
        idle = self._idle()
        idle[id(self)] = self
        if len(idle) > self.max_idle:
            # the oldest with nothing to read: one whose request has arrived is not idle
            for key, waiting in list(idle.items())[: len(idle) - self.max_idle + 16]:
                if len(idle) <= self.max_idle:
                    break
                if key != id(self) and not waiting._has_bytes_waiting():
                    waiting._close_idle()

    def _has_bytes_waiting(self) -> bool:
        """Whether the client has sent bytes the server has not read yet (its request arrived)."""
        import fcntl
        import struct
        import termios

        sock = self.transport.get_extra_info("socket")
        try:
            pending = fcntl.ioctl(sock.fileno(), termios.FIONREAD, struct.pack("i", 0))
        except (AttributeError, OSError, ValueError):  # closed, or not a socket this can ask
            return False
        return struct.unpack("i", pending)[0] > 0

    def _cancel_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None
        self._idle().pop(id(self), None)

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        self._close_idle()

    def _close_idle(self) -> None:
        self._cancel_head_deadline()
        if not self.transport.is_closing():
            self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._cancel_head_deadline()  # a whole head arrived: the request is being answered

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # the next head has its own deadline -- unless it was pipelined and is being answered
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._wait_for_head()

    def connection_lost(self, exc) -> None:
        self._cancel_head_deadline()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot read (a malformed request line or header): a 400 JSON error, as
        every other refusal, instead of uvicorn's plain text."""
        body = json.dumps(
            {
                "error": "malformed HTTP request: a request line or header this server cannot read "
                "(non-ASCII bytes, a bad Content-Length, ...)"
            }
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        try:
            for event in (
                h11.Response(status_code=400, headers=headers),
                h11.Data(data=body),
                h11.EndOfMessage(),
            ):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:  # a response had begun already: nothing more can be said
            pass
        self.transport.close()


class Capacity:
    """ASGI middleware: at most ``limit`` requests answered at once; beyond, a 503 JSON error
    with ``Retry-After`` at once (never a reset nor a wait without end)."""

    def __init__(self, app, limit: int = MAX_IN_FLIGHT, retry_after: int = RETRY_AFTER_S):
        self.app, self.limit, self.retry_after = app, limit, retry_after
        self.in_flight = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.in_flight >= self.limit:
            body = json.dumps(
                {
                    "error": f"the server is answering {self.in_flight} requests; try again in {self.retry_after} s"
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 503,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"retry-after", str(self.retry_after).encode()),
                        (b"cache-control", b"no-store"),
                    ],
                }
            )
            return await send({"type": "http.response.body", "body": body})
        self.in_flight += 1  # one event loop: the check and the count are one step
        try:
            return await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1


def uvicorn_config(app, **options):
    """The uvicorn configuration ``yahtzee serve`` (and the tests' server) runs ``app`` with."""
    import uvicorn

    settings = {
        "log_level": "warning",
        "lifespan": "off",
        "http": TimedH11Protocol,
        "limit_concurrency": None,  # Capacity answers past MAX_IN_FLIGHT, in JSON
        "timeout_keep_alive": 5,
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_S,
    }
    return uvicorn.Config(Capacity(app), **(settings | options))

"""uvicorn, set up for ``yahtzee serve``: everyone it accepts is answered, slow clients are cut off.

uvicorn closes an idle keep-alive connection after a few seconds, but a client that sends a
request head one byte at a time resets that timer with every byte and holds its connection
for good.  :class:`TimedH11Protocol` gives each request head a deadline,
:data:`HEAD_TIMEOUT_S` from the connection's start or the previous answer (the body has its
own, :data:`solver.web.app.BODY_TIMEOUT_S`, read by the app).

Connections are cut for room only when room is truly needed: past :func:`connection_budget`
connections open at once (the open-file limit, ``ulimit -n``, less a reserve), a new one
closes the connection that has waited longest for a request head with nothing to read.  A
connection whose request has arrived -- its bytes in the socket, not yet read because the
server is busy with a burst -- is not idle, nor is one being answered: neither is ever cut.
So hundreds of connections opened at once are all answered, idle ones held meanwhile stay
open until their own deadline, and idle sockets cannot fill the server's files.  The kernel
queues :data:`LISTEN_BACKLOG` connections before they are accepted.

Past :data:`MAX_IN_FLIGHT` requests being answered at once, a request is answered at once
with a 503 JSON error and ``Retry-After`` (:class:`Capacity`), never a reset; a malformed
request (a request line or header h11 refuses: non-ASCII bytes, a negative
``Content-Length``) gets a 400 JSON error.
"""

from __future__ import annotations

import json
import weakref
from collections import OrderedDict

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has to send a whole request line and headers
HEAD_TIMEOUT_S = 10.0
#: open files kept free of connections (tables, a job's pipes, the log, the threads' files)
FD_RESERVE = 128
#: the most connections held at once, however high the open-file limit (a few KiB each)
MAX_CONNECTIONS = 4096
#: requests answered at once; beyond, a 503 JSON error with Retry-After (:class:`Capacity`)
MAX_IN_FLIGHT = 512
#: seconds a client refused for capacity is asked to wait (``Retry-After``)
RETRY_AFTER_S = 1
#: connections the kernel queues before the server accepts them (``listen``; capped by somaxconn)
LISTEN_BACKLOG = 1024
#: seconds Ctrl-C waits for requests under way (a long job among them) before closing them
GRACEFUL_SHUTDOWN_S = 2


def connection_budget() -> int:
    """Connections this process may hold at once: its open-file limit (``ulimit -n``, the soft
    one) less :data:`FD_RESERVE`, at most :data:`MAX_CONNECTIONS`, at least 32."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft == resource.RLIM_INFINITY:
            soft = MAX_CONNECTIONS + FD_RESERVE
    except (ImportError, OSError, ValueError):  # no such limit here: assume the usual 1024
        soft = 1024
    return max(32, min(MAX_CONNECTIONS, soft - FD_RESERVE))


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for every request head and room made, when the
    connections exceed the budget, by closing the longest idle one (see the module doc)."""

    head_timeout_s = HEAD_TIMEOUT_S
    #: connections held at once before an idle one is closed for a new one (None: the budget)
    max_connections: int | None = None
    #: per server (its uvicorn state), the connections waiting for a head, longest waiting first
    _waiting_for_head: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def connection_made(self, transport) -> None:
        self._head_deadline = None
        super().connection_made(transport)
        self._wait_for_head()
        self._make_room()

    def _idle(self) -> OrderedDict:
        idle = self._waiting_for_head.get(self.server_state)
        if idle is None:
            idle = self._waiting_for_head[self.server_state] = OrderedDict()
        return idle

    def _wait_for_head(self) -> None:
        self._cancel_head_deadline()
        self._head_deadline = self.loop.call_later(self.head_timeout_s, self._head_too_slow)
        self._idle()[id(self)] = self

    def _make_room(self) -> None:
        """Past the budget, close the connections that have waited longest for a head with
        nothing to read, until the open ones are back within it (one whose request has
        arrived, or is being answered, is never closed)."""
        budget = self.max_connections or connection_budget()
        if len(self.connections) <= budget:
            return
        # those closed a moment ago are still counted until the loop reports them lost
        excess = sum(1 for c in self.connections if not c.transport.is_closing()) - budget
        for waiting in list(self._idle().values()):
            if excess <= 0:
                break
            if (
                waiting is not self
                and not waiting.transport.is_closing()
                and not waiting._has_bytes_waiting()
            ):
                waiting._close_idle()
                excess -= 1

    def _has_bytes_waiting(self) -> bool:
        """Whether the client has sent bytes the server has not read yet (its request arrived)."""
        import struct

        sock = self.transport.get_extra_info("socket")
        try:
            import fcntl
            import termios

            pending = fcntl.ioctl(sock.fileno(), termios.FIONREAD, struct.pack("i", 0))
        except (ImportError, AttributeError, OSError, ValueError):  # closed, or no way to ask here
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
    """ASGI middleware: at most ``limit`` (default :data:`MAX_IN_FLIGHT`) requests answered at
    once; beyond, a 503 JSON error with ``Retry-After`` at once (never a reset nor a wait
    without end)."""

    def __init__(self, app, limit: int | None = None, retry_after: int = RETRY_AFTER_S):
        self.app, self.limit, self.retry_after = app, limit, retry_after
        self.in_flight = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.in_flight >= (MAX_IN_FLIGHT if self.limit is None else self.limit):
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

"""uvicorn, set up for ``yahtzee serve``: slow and idle clients are cut off.

uvicorn closes an idle keep-alive connection after a few seconds, but a client that sends a
request head one byte at a time resets that timer with every byte and holds its connection
for good.  :class:`TimedH11Protocol` gives each request head a deadline,
:data:`HEAD_TIMEOUT_S` from the connection's start or the previous answer (the body has its
own, :data:`solver.web.app.BODY_TIMEOUT_S`, read by the app), and keeps at most
:data:`MAX_IDLE` connections waiting for a head: a new one beyond that closes the one that
waited longest.  So idle sockets (a few dozen opened and left) cannot fill the server, and
requests in flight are never what is cut.
"""

from __future__ import annotations

from collections import OrderedDict

from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has to send a whole request line and headers
HEAD_TIMEOUT_S = 10.0
#: connections kept while they wait for a request head (the oldest beyond this is closed)
MAX_IDLE = 32
#: requests in flight at once plus idle connections; beyond, uvicorn answers 503
MAX_CONCURRENCY = 256
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
        while len(idle) > self.max_idle:
            _, oldest = idle.popitem(last=False)
            oldest._close_idle()

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


def uvicorn_config(app, **options):
    """The uvicorn configuration ``yahtzee serve`` (and the tests' server) runs ``app`` with."""
    import uvicorn

    settings = {
        "log_level": "warning",
        "lifespan": "off",
        "http": TimedH11Protocol,
        "limit_concurrency": MAX_CONCURRENCY,
        "timeout_keep_alive": 5,
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_S,
    }
    return uvicorn.Config(app, **(settings | options))

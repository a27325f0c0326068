"""uvicorn, set up for ``yahtzee serve``: slow clients are cut off, connections are bounded.

uvicorn closes an idle keep-alive connection after a few seconds, but a client that sends a
request head one byte at a time resets that timer with every byte and holds its connection
(and a slot) for good.  :class:`TimedH11Protocol` gives each request head a deadline,
:data:`HEAD_TIMEOUT_S` from the connection's start or the previous answer; the body has its
own (:data:`solver.web.app.BODY_TIMEOUT_S`, read by the app).
"""

from __future__ import annotations

from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has to send a whole request line and headers
HEAD_TIMEOUT_S = 10.0
#: connections served at once; more get a 503 (uvicorn's limit_concurrency)
MAX_CONNECTIONS = 64


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for every request head (see the module doc)."""

    head_timeout_s = HEAD_TIMEOUT_S

    def connection_made(self, transport) -> None:
        self._head_deadline = None
        super().connection_made(transport)
        self._arm_head_deadline()

    def _arm_head_deadline(self) -> None:
        self._cancel_head_deadline()
        self._head_deadline = self.loop.call_later(self.head_timeout_s, self._head_too_slow)

    def _cancel_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._cancel_head_deadline()  # a whole head arrived: the request is being answered

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_deadline()  # the next request's head, if any, has its own deadline

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
        "limit_concurrency": MAX_CONNECTIONS,
        "timeout_keep_alive": 5,
    }
    return uvicorn.Config(app, **(settings | options))

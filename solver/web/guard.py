"""Who may talk to ``yahtzee serve``: the checks made before any page or API call runs.

One ASGI middleware, :class:`Guard`, in this order (each refusal is a one-line JSON error):

1. **Host** (against DNS rebinding): on a loopback address, only ``Host`` headers naming this
   machine (``localhost``, ``127.0.0.1``, ``::1`` or the bound address) with no port or this
   server's port are answered (:func:`parse_host`: a name or an address, an optional port,
   nothing else); 400 otherwise.  Beyond loopback the token does this job.
2. **Token** (serving beyond loopback): every request carries the server's secret, as the
   ``token`` query parameter (the address printed at start), a ``Bearer`` authorization or the
   cookie set by the first request that had it; compared in constant time; 403 otherwise.
   A page opened with ``?token=`` is redirected to the same address without it, the cookie
   set (``HttpOnly``, ``SameSite=Strict``).
3. **Same origin** (against cross-site requests): a request that is not ``GET``/``HEAD`` must
   not come from another site (its ``Origin``, when sent, is this server's; its
   ``Sec-Fetch-Site``, when sent, is ``same-origin`` or ``none``; 403 otherwise), and a
   ``POST`` must be JSON (``Content-Type: application/json``; 415 otherwise), which a
   cross-site form or ``text/plain`` "simple request" cannot be without a CORS preflight
   this server never grants.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
from urllib.parse import parse_qsl, urlencode

#: the ``Host`` names of this machine, answered on a loopback address
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
#: methods that never change anything (no side effects on GET)
SAFE_METHODS = ("GET", "HEAD")


def is_loopback(address: str) -> bool:
    """Whether a bound address (as ``getsockname`` gives it) is reachable from this machine only."""
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


#: a host name as a ``Host`` header may carry it: labels of letters, digits and hyphens
_HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?")


def parse_host(header: str) -> tuple[str, int | None] | None:
    """``(name, port)`` of a ``Host`` header, the name lower case (``[::1]:8000`` gives ``("::1",
    8000)``, ``localhost`` gives ``("localhost", None)``), or ``None`` when it is not a name or an
    address with an optional port: ``localhost:8000@evil.example``, ``localhost:80:80``,
    ``[::1]evil.example``, a port that is not 1 to 65535 digits."""
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        if end < 0:
            return None
        name, rest = header[1:end], header[end + 1 :]
        try:
            ipaddress.IPv6Address(name.split("%", 1)[0])
        except ValueError:
            return None
    else:
        name, sep, port_text = header.partition(":")
        rest = sep + port_text
        if not name or not _HOST_NAME.fullmatch(name):
            return None
        name = name.rstrip(".")  # "localhost." is localhost, fully qualified
    if not rest:
        return name, None
    digits = rest[1:]
    if rest[0] != ":" or not (digits.isascii() and digits.isdigit()) or len(digits) > 5:
        return None
    port = int(digits)
    return (name, port) if 0 < port <= 65535 else None


def cookie_name(port: int | None) -> str:
    """The token's cookie, one per port (cookies do not tell ports apart; servers on two ports do)."""
    return f"yahtzee_token_{port or 0}"


class Guard:
    """The checks of the module doc around the ASGI app ``app``.

    ``local_names``: the ``Host`` names answered (``None``: any, when serving beyond loopback);
    ``token``: the secret every request must carry (``None``: none needed, on loopback).
    """

    def __init__(self, app, *, local_names: tuple[str, ...] | None = LOCAL_NAMES, token: str | None = None):
        self.app = app
        self.local_names = None if local_names is None else {n.lower() for n in local_names}
        self.token = token

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":  # none is served: refused before any route could see it
            return await send({"type": "websocket.close", "code": 1008})
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = request_headers(scope)
        host = headers.get("host", "")
        parsed = parse_host(host)
        port = _port(scope)
        if self.local_names is not None and (
            parsed is None or parsed[0] not in self.local_names or parsed[1] not in (None, port)
        ):
            return await refuse(
                send,
                400,
                f"Host {host!r} is not this server's: on localhost it answers only localhost names "
                "(a guard against DNS rebinding)",
            )
        set_cookie = None
        if self.token is not None:
            supplied, from_query = self._supplied_token(scope, headers)
            if supplied is None or not hmac.compare_digest(supplied.encode(), self.token.encode()):
                return await refuse(
                    send,
                    403,
                    "this server needs its token: open the address yahtzee serve printed (with ?token=...)",
                )
            if from_query:
                set_cookie = (
                    f"{cookie_name(_port(scope))}={self.token}; HttpOnly; SameSite=Strict; Path=/"
                ).encode("latin-1")
                if scope["method"] == "GET" and not scope["path"].startswith("/api/"):
                    return await _redirect_without_token(scope, send, set_cookie)
                scope = dict(scope, query_string=_without_token(scope).encode("latin-1"))  # not a field
        if scope["method"] not in SAFE_METHODS:
            problem = cross_site(headers, scope.get("scheme", "http"))
            if problem is not None:
                return await refuse(send, 403, problem)
            kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            # POST is the one method a page on another site may send without a preflight
            if scope["method"] == "POST" and kind != "application/json":
                return await refuse(
                    send,
                    415,
                    f"{scope['method']} requests must send JSON (Content-Type: application/json), "
                    f"got {kind or 'no Content-Type'!r}",
                )
        if set_cookie is None:
            return await self.app(scope, receive, send)

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                message = dict(message, headers=[*message.get("headers", []), (b"set-cookie", set_cookie)])
            await send(message)

        return await self.app(scope, receive, send_with_cookie)

    def _supplied_token(self, scope, headers) -> tuple[str | None, bool]:
        """``(token, came_in_the_query)`` of a request, or ``(None, False)`` when it has none."""
        query = scope.get("query_string", b"").decode("latin-1")
        for key, value in parse_qsl(query, keep_blank_values=True):
            if key == "token":
                return value, True
        auth = headers.get("authorization", "")
        if auth[:7].lower() == "bearer ":
            return auth[7:].strip(), False
        wanted = cookie_name(_port(scope))
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == wanted:
                return value, False
        return None, False


def request_headers(scope) -> dict[str, str]:
    """A request's headers by lower-case name.  A header sent twice keeps both values, joined as
    HTTP joins them (``, ``; ``; `` for cookies): ``Origin: evil`` then ``Origin: ours`` is no
    origin of ours, and two ``Content-Type`` lines are no JSON."""
    headers: dict[str, str] = {}
    for k, v in scope["headers"]:
        name, value = k.decode("latin-1").lower(), v.decode("latin-1")
        if name in headers:
            value = headers[name] + ("; " if name == "cookie" else ", ") + value
        headers[name] = value
    return headers


def cross_site(headers: dict[str, str], scheme: str) -> str | None:
    """Why a state-changing request is refused as cross-site, or None when it is this site's own
    (or comes from a program that is no browser: it sends neither header)."""
    site = headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in ("same-origin", "none"):
        return f"cross-site request refused (Sec-Fetch-Site: {site!r}): only this server's own pages can act"
    origin = headers.get("origin")
    if origin is not None:
        expected = f"{scheme}://{headers.get('host', '').strip().lower()}"
        if origin.strip().lower() != expected:
            return f"cross-site request refused (Origin {origin!r} is not {expected!r})"
    return None


def _port(scope) -> int | None:
    server = scope.get("server")
    return server[1] if server and len(server) > 1 else None


async def refuse(send, status: int, message: str) -> None:
    """Answer ``status`` with ``{"error": message}`` (the API's error shape)."""
    from .params import one_line

    body = json.dumps({"error": one_line(message)}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _without_token(scope) -> str:
    """The request's query string less its ``token`` parameter."""
    query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    return urlencode([(k, v) for k, v in query if k != "token"])


async def _redirect_without_token(scope, send, set_cookie: bytes) -> None:
    query = _without_token(scope)
    raw = (scope.get("raw_path") or scope["path"].encode("utf-8")).decode("latin-1")
    # one leading slash: "//evil.example/" (or "/\\evil.example/") would be another site
    location = "/" + raw.lstrip("/\\") + (f"?{query}" if query else "")
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                (b"location", location.encode("latin-1", "replace")),
                (b"set-cookie", set_cookie),
                (b"content-length", b"0"),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})

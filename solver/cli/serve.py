"""``yahtzee serve``: the local web app (advisor and game in the browser, JSON API under /api/)."""

from __future__ import annotations

import sys

from . import add_data, add_rules, add_tables, decimal, whole

WEB_HINT = 'yahtzee serve needs the web extra: pip install -e ".[web]" (in a checkout) or pip install "yahtzee-solver[web]"'


def register(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="the advisor and the game in the browser (a local web server)",
        description="Start a local web server with the advisor page (/), the play page (/play) and a "
        "JSON API (/api/hint, /api/value, /api/games, ...). Needs the web extra.",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; beyond loopback, e.g. 0.0.0.0 "
        "for a phone at the table, every request needs the token printed in the address)",
    )
    p.add_argument(
        "--port", type=whole(0, 65535), default=8000, help="port (default 8000; 0 picks a free one)"
    )
    p.add_argument("--open", action="store_true", help="open the advisor page in the web browser")
    add_rules(p, one="rule set whose table is loaded (built when missing) before serving (default: yahtzee)")
    add_tables(p)
    add_data(p)
    p.add_argument(
        "--job-memory",
        type=decimal(0.25, 1024),
        default=None,
        metavar="GIB",
        help="memory ceiling of one long computation (a distribution, a table build), in GiB (default 3)",
    )
    p.add_argument(
        "--job-seconds",
        type=decimal(1, 86400),
        default=None,
        metavar="S",
        help="time limit of one long computation, in seconds (default 120)",
    )
    p.set_defaults(func=run)


def _check_extra() -> None:
    from ..core.errors import SolverError

    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise SolverError(WEB_HINT) from None


#: a fixed token for serving beyond loopback (default: a new random one at every start)
TOKEN_VAR = "YAHTZEE_SERVE_TOKEN"


def run(args) -> int:
    import os
    import secrets
    import socket

    from ..core.errors import SolverError, UsageError

    _check_extra()
    from ..web import heavy
    from ..web.app import create_app
    from ..web.guard import LOCAL_NAMES, is_loopback
    from ..web.server import LISTEN_BACKLOG
    from ..web.service import ApiError, Service

    memory = heavy.MEMORY_BYTES if args.job_memory is None else args.job_memory * 1024**3
    seconds = heavy.SECONDS if args.job_seconds is None else args.job_seconds
    service = Service(args.tables, args.data, heavy=heavy.HeavyWork(memory, seconds))
    try:
        service.prepare(args.rules)  # loaded (built when missing) once, before the first request
    except ApiError as exc:
        raise (UsageError if exc.status == 400 else SolverError)(exc.message) from None
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    # IPPROTO_TCP: asyncio then sets TCP_NODELAY on each connection (no 40 ms Nagle wait per answer)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host.strip("[]"), args.port))
        sock.listen(LISTEN_BACKLOG)  # before the address is printed: a client may connect at once
    except (OSError, UnicodeError) as exc:
        sock.close()
        raise SolverError(
            f"cannot listen on {args.host} port {args.port}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    address, port = sock.getsockname()[:2]
    # decided by the address actually bound: 127.1, LOCALHOST and 0x7f000001 are loopback too
    local = is_loopback(address)
    if local:
        token = None
        app = create_app(service=service, local_names=(*LOCAL_NAMES, address.lower()))
        shown = f"[{address}]" if family == socket.AF_INET6 else address
        url = f"http://{shown}:{port}/"
        print(f"yahtzee web app: {url}  (advisor {url}, game {url}play; Ctrl-C stops)", flush=True)
    else:
        token = os.environ.get(TOKEN_VAR) or secrets.token_urlsafe(24)
        if len(token) < 16 or not token.isascii() or not token.replace("-", "").replace("_", "").isalnum():
            sock.close()
            raise UsageError(f"${TOKEN_VAR} must be at least 16 letters, digits, - or _")
        app = create_app(service=service, local_names=None, token=token)
        name = socket.gethostname() if address in ("0.0.0.0", "::") else address
        shown = f"[{name}]" if ":" in name else name
        url = f"http://{shown}:{port}/?token={token}"
        print(f"yahtzee web app: {url}  (open this address, token included; Ctrl-C stops)", flush=True)
        print(
            f"yahtzee: warning: listening on {address} port {port}: other machines can reach this "
            "server; it answers only requests that carry its token",
            file=sys.stderr,
        )
    if args.open:
        import threading
        import webbrowser

        threading.Timer(0.5, webbrowser.open, (url,)).start()
    return serve_socket(app, sock)


def serve_socket(app, sock) -> int:
    """Run uvicorn on a bound, listening socket until Ctrl-C (or SIGTERM): exit code 0."""
    import uvicorn

    from ..web.server import uvicorn_config

    server = uvicorn.Server(uvicorn_config(app))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shuts down gracefully, then passes Ctrl-C on: the normal stop
        pass
    print("yahtzee web app stopped", file=sys.stderr, flush=True)
    return 0

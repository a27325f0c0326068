"""``yahtzee serve``: the local web app (advisor and game in the browser, JSON API under /api/)."""

from __future__ import annotations

import sys

from . import add_tables

WEB_HINT = 'yahtzee serve needs the web extra: pip install -e ".[web]" (in a checkout) or pip install "yahtzee-solver[web]"'


def register(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="the advisor and the game in the browser (a local web server)",
        description="Start a local web server with the advisor page (/), the play page (/play) and a "
        "JSON API (/api/hint, /api/value, /api/games, ...). Needs the web extra.",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--open", action="store_true", help="open the advisor page in the web browser")
    p.add_argument(
        "--rules",
        default=None,
        metavar="SPEC",
        help="rule set whose table is loaded (built when missing) before serving (default: yahtzee)",
    )
    add_tables(p)
    p.add_argument(
        "--data",
        metavar="DIR",
        default=None,
        help="folder for saved games and records (default $YAHTZEE_DATA, else $XDG_DATA_HOME/yahtzee-solver)",
    )
    p.set_defaults(func=run)


def _check_extra() -> None:
    from ..errors import SolverError

    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise SolverError(WEB_HINT) from None


def run(args) -> int:
    import socket

    from ..errors import SolverError, UsageError

    _check_extra()
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0 to 65535, got {args.port}")
    from ..web.app import LOCAL_HOSTS, create_app
    from ..web.service import ApiError, Service

    service = Service(args.tables, args.data)
    try:
        service.advisor(args.rules)  # loaded (or built) once, before the first request
    except ApiError as exc:
        raise (UsageError if exc.status == 400 else SolverError)(exc.message) from None
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    # IPPROTO_TCP: asyncio then sets TCP_NODELAY on each connection (no 40 ms Nagle wait per answer)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host.strip("[]"), args.port))
        sock.listen(128)  # before the address is printed: a client may connect at once
    except (OSError, UnicodeError) as exc:
        sock.close()
        raise SolverError(
            f"cannot listen on {args.host} port {args.port}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    port = sock.getsockname()[1]
    local = args.host in LOCAL_HOSTS
    hosts = list(LOCAL_HOSTS) if local else ["*"]
    app = create_app(service=service, allowed_hosts=hosts)
    shown = f"[{args.host.strip('[]')}]" if family == socket.AF_INET6 else args.host
    url = f"http://{shown}:{port}/"
    print(f"yahtzee web app: {url}  (advisor {url}, game {url}play; Ctrl-C stops)", flush=True)
    if not local:
        print(
            f"yahtzee: warning: listening on {args.host}: other machines can reach this server",
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

    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shuts down gracefully, then passes Ctrl-C on: the normal stop
        pass
    print("yahtzee web app stopped", file=sys.stderr, flush=True)
    return 0

"""The Starlette application of ``yahtzee serve`` (needs the ``web`` extra).

Pages: ``/`` (the advisor) and ``/play`` (a game), plain HTML, CSS and JavaScript from
``static/`` (nothing from elsewhere: it works offline).  The JSON API is under ``/api/``;
see the README's "Web app" section.  Every error is a 4xx (or a 503 for a damaged table)
with one JSON line ``{"error": "..."}``, never a traceback.
"""

from __future__ import annotations

import json
import os

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Match, Mount, Route
from starlette.staticfiles import StaticFiles

from ..fileio import json_depth_ok
from . import STATIC_DIR
from .service import MAX_BODY, MAX_DEPTH, ApiError, Service, one_line

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def error_response(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": one_line(message)}, status_code=status)


async def read_json(request: Request) -> dict:
    """The request's JSON object (``{}`` for an empty body); at most :data:`MAX_BODY` bytes."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdecimal() or int(length) > MAX_BODY):
        raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes")
    if not body.strip():
        return {}
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not UTF-8 text") from None
    if not json_depth_ok(text, MAX_DEPTH):
        raise ApiError(400, f"the request body is nested more than {MAX_DEPTH} deep")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        where = (
            f" (line {exc.lineno} column {exc.colno}: {exc.msg})"
            if isinstance(exc, json.JSONDecodeError)
            else ""
        )
        raise ApiError(400, f"the request body is not valid JSON{where}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


async def params_of(request: Request) -> dict:
    """A GET's query string, or a POST's JSON body."""
    if request.method == "GET":
        return dict(request.query_params)
    return await read_json(request)


def create_app(
    tables_dir: str | os.PathLike | None = None,
    data: str | os.PathLike | None = None,
    *,
    service: Service | None = None,
    allowed_hosts: list[str] | None = None,
) -> Starlette:
    """The web app; ``allowed_hosts`` (default: localhost names only, against DNS rebinding)
    are the ``Host`` headers answered (``["*"]`` for any, when serving beyond localhost)."""
    service = service or Service(tables_dir, data)

    def api(method):
        """An endpoint that runs ``method(params, request)`` in a worker thread, errors as JSON."""

        async def endpoint(request: Request) -> Response:
            try:
                params = await params_of(request)
                result = await run_in_threadpool(method, params, request)
            except ApiError as exc:
                return error_response(exc.status, exc.message)
            return Response(
                json.dumps(result, allow_nan=False), media_type="application/json", headers=NO_STORE
            )

        return endpoint

    def page(name: str):
        async def endpoint(request: Request) -> Response:
            return FileResponse(STATIC_DIR / name, headers=NO_STORE)

        return endpoint

    async def not_found(request: Request) -> Response:
        for route in routes:
            if route is not catch_all and isinstance(route, Route):
                match, _ = route.matches(request.scope)
                if match == Match.PARTIAL:  # the path is known, the method is not
                    allowed = ", ".join(sorted(route.methods or ()))
                    return error_response(
                        405, f"{request.method} is not allowed on {request.url.path} (allowed: {allowed})"
                    )
        return error_response(404, f"no API endpoint {request.url.path} (see the README's Web app section)")

    catch_all = Route("/api/{rest:path}", not_found, methods=["GET", "POST", "PUT", "DELETE", "PATCH"])

    routes = [
        Route("/", page("index.html")),
        Route("/play", page("play.html")),
        Route("/api/hint", api(lambda p, r: service.hint(p)), methods=["GET", "POST"]),
        Route("/api/value", api(lambda p, r: service.value(p)), methods=["GET", "POST"]),
        Route("/api/distribution", api(lambda p, r: service.distribution(p)), methods=["GET", "POST"]),
        # Where /api/win goes once the CLI has it (mirroring its --json output through the same
        # function): not served yet.
        Route("/api/rules", api(lambda p, r: service.rules_info(p) if p else service.rules_list())),
        Route("/api/games", api(lambda p, r: service.new_game(p)), methods=["POST"]),
        Route(
            "/api/games/{game_id}",
            api(lambda p, r: _no_params(p) or service.game_state(r.path_params["game_id"])),
        ),
        Route(
            "/api/games/{game_id}/hint",
            api(lambda p, r: _no_params(p) or service.game_hint(r.path_params["game_id"])),
        ),
        Route(
            "/api/games/{game_id}/{action}",
            api(lambda p, r: service.act(r.path_params["game_id"], r.path_params["action"], p)),
            methods=["POST"],
        ),
        catch_all,
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return error_response(exc.status_code, exc.detail or "error")

    async def server_error(request: Request, exc: Exception) -> Response:
        return error_response(500, f"internal error ({type(exc).__name__}); the server's log has the details")

    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or list(LOCAL_HOSTS))]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    app.state.service = service
    return app


NO_STORE = {"Cache-Control": "no-store"}


def _no_params(params: dict) -> None:
    if params:
        raise ApiError(400, f"unknown field {next(iter(params))!r}: this endpoint takes none")

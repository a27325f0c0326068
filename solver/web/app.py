"""The Starlette application of ``yahtzee serve`` (needs the ``web`` extra).

Pages: ``/`` (the advisor), ``/play`` (a game), ``/review`` (a saved game's review) and
``/stats`` (your statistics), plain HTML, CSS and JavaScript from
``static/`` (nothing from elsewhere: it works offline).  The JSON API is under ``/api/``;
see the README's "Web app" section.  Every error is a 4xx (or a 503 for a damaged table)
with one JSON line ``{"error": "..."}``, never a traceback.  :class:`solver.web.guard.Guard`
decides first who may ask at all (host, token, same origin); long work goes through the
bounded queue of :mod:`solver.web.heavy`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Match, Mount, Route
from starlette.staticfiles import StaticFiles

from ..core.bounded import json_int
from ..core.errors import out_of_memory
from ..core.fileio import json_depth_ok
from . import STATIC_DIR
from .guard import LOCAL_NAMES, SAFE_METHODS, Guard, cross_site, request_headers
from .heavy import ClientGone, JobRefused
from .params import ApiError, one_line
from .service import MAX_BODY, MAX_DEPTH, Service

#: seconds a client has to send a request's whole body (the head has its own deadline:
#: :data:`solver.web.server.HEAD_TIMEOUT_S`)
BODY_TIMEOUT_S = 10.0
#: the most digits of a number in a request body (a seed has 19)
MAX_DIGITS = 30
#: the server's log (uvicorn's: one line per event, as uvicorn's own)
log = logging.getLogger("uvicorn.error")


def error_response(
    status: int, message: str, extra: dict | None = None, headers: dict | None = None
) -> JSONResponse:
    return JSONResponse({"error": one_line(message)} | dict(extra or {}), status_code=status, headers=headers)


def _too_long(digits: int):
    raise ApiError(400, f"the request body holds a number of {digits} digits (at most {MAX_DIGITS})")


def _no_constant(name: str):
    raise ApiError(400, f"the request body holds {name}, which is not a JSON number")


async def read_json(request: Request) -> dict:
    """The request's JSON object (``{}`` for an empty body); at most :data:`MAX_BODY` bytes.
    A client that goes away before its whole body arrived is one line in the log and
    :class:`ClientGone` (nothing to answer), never a traceback."""
    length = request.headers.get("content-length")
    if length is not None and (
        not (length.isascii() and length.isdigit()) or len(length) > 12 or int(length) > MAX_BODY
    ):
        raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes")
    body = bytearray()
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):  # a client trickling its body is cut off
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BODY:
                    raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes")
    except TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {BODY_TIMEOUT_S:g} s") from None
    except ClientDisconnect:
        of = f" of {length}" if length is not None else ""
        log.warning(
            "%s %s: the client went away before its whole body arrived (%d%s bytes); nothing done",
            request.method,
            one_line(request.scope["path"]),  # a %0a in the path is no second line
            len(body),
            of,
        )
        raise ClientGone from None
    if not body.strip():
        return {}
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not UTF-8 text") from None
    if not json_depth_ok(text, MAX_DEPTH):
        raise ApiError(400, f"the request body is nested more than {MAX_DEPTH} deep")
    try:
        data = json.loads(text, parse_int=json_int(MAX_DIGITS, _too_long), parse_constant=_no_constant)
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
    """A GET's (or HEAD's) query string, or a POST's JSON body."""
    if request.method in SAFE_METHODS:
        return dict(request.query_params)
    return await read_json(request)


def create_app(
    tables_dir: str | os.PathLike | None = None,
    data: str | os.PathLike | None = None,
    *,
    service: Service | None = None,
    local_names: tuple[str, ...] | None = LOCAL_NAMES,
    token: str | None = None,
) -> Starlette:
    """The web app.  ``local_names``: the ``Host`` names answered (default: this machine's, against
    DNS rebinding; ``None``: any, when serving beyond loopback, where ``token`` -- the secret
    every request must carry -- protects it); see :class:`solver.web.guard.Guard`."""
    service = service or Service(tables_dir, data)

    def api(method):
        """An endpoint that runs ``method(params, request)`` in a worker thread, errors as JSON."""

        async def endpoint(request: Request) -> Response:
            try:
                params = await params_of(request)
                result = await run_in_threadpool(method, params, request)
            except ApiError as exc:
                return error_response(exc.status, exc.message, exc.extra)
            except ClientGone:
                return Response(status_code=499)  # nobody reads it: the client has gone
            return json_answer(result)

        return endpoint

    def job(prepare, finish):
        """An endpoint for long work: ``prepare(params)`` (in a worker thread) checks the request
        and gives the CLI argv to run as a bounded job (or None: nothing to run), ``finish(params,
        stdout)`` the answer.  The job stops when the client goes.  Another site's page may not
        start one with a GET either (an ``<img>`` pointing here would hold the queue)."""

        async def endpoint(request: Request) -> Response:
            problem = cross_site(request_headers(request.scope), request.scope.get("scheme", "http"))
            if problem is not None:
                return error_response(403, problem)
            try:
                params = await params_of(request)
                argv = await run_in_threadpool(prepare, params)
                stdout = None
                if argv is not None:
                    result = await service.heavy.run(argv, request.is_disconnected)
                    if result.returncode != 0:
                        raise ApiError(
                            400 if result.returncode == 2 else 503, _cli_message(result.error_line)
                        )
                    stdout = result.stdout
                return json_answer(await run_in_threadpool(finish, params, stdout))
            except ApiError as exc:
                return error_response(exc.status, exc.message, exc.extra)
            except JobRefused as exc:
                wait = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
                return error_response(exc.status, exc.message, headers=wait)
            except ClientGone:
                return Response(status_code=499)  # nobody reads it: the client has gone

        return endpoint

    def distribution_answer(params, stdout: bytes) -> dict:
        try:
            return json.loads(stdout)
        except ValueError:  # never seen: the CLI prints one JSON object or fails with exit 1
            raise ApiError(503, "the distribution job ended without an answer") from None

    def build_answer(params, stdout: bytes | None) -> dict:
        rules_id, _ = service.build_job(params)
        service.advisor(rules_id)  # read now: the next hint is answered at once
        return {"rules": rules_id, "built": stdout is not None, "ready": True}

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
        Route("/review", page("review.html")),
        Route("/stats", page("stats.html")),
        Route("/api/hint", api(lambda p, r: service.hint(p)), methods=["GET", "POST"]),
        Route("/api/value", api(lambda p, r: service.value(p)), methods=["GET", "POST"]),
        Route(
            "/api/distribution", job(service.distribution_job, distribution_answer), methods=["GET", "POST"]
        ),
        Route("/api/tables", job(lambda p: service.build_job(p)[1], build_answer), methods=["POST"]),
        # Where /api/win goes once the CLI has it (mirroring its --json output through the same
        # function): not served yet.
        Route("/api/rules", api(lambda p, r: service.rules_info(p) if p else service.rules_list())),
        Route("/api/games", api(lambda p, r: service.new_game(p)), methods=["POST"]),
        Route(
            "/api/games/{game_id}",
            api(lambda p, r: _no_params(p) or service.game_state(r.path_params["game_id"])),
        ),
        Route(
            "/api/games/{game_id}/{action}",
            api(lambda p, r: service.act(r.path_params["game_id"], r.path_params["action"], p)),
            methods=["POST"],
        ),
        # saved games: listed, resumed, reviewed; the statistics (README "Web app")
        Route("/api/saved-games", api(lambda p, r: service.saved_list(p))),
        Route(
            "/api/saved-games/{name}/resume",
            api(lambda p, r: _no_params(p) or service.resume_game(r.path_params["name"])),
            methods=["POST"],
        ),
        Route("/api/review", api(lambda p, r: service.review(p))),
        Route("/api/stats", api(lambda p, r: service.stats(p))),
        catch_all,
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return error_response(exc.status_code, exc.detail or "error")

    async def server_error(request: Request, exc: Exception) -> Response:
        if out_of_memory(exc):  # the machine, not the request nor a table: say so, never "rebuild"
            return error_response(503, f"the server is out of memory ({type(exc).__name__}); try again later")
        return error_response(500, f"internal error ({type(exc).__name__}); the server's log has the details")

    middleware = [Middleware(Guard, local_names=local_names, token=token)]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    app.state.service = service
    return app


NO_STORE = {"Cache-Control": "no-store"}


def json_answer(result: dict) -> Response:
    return Response(json.dumps(result, allow_nan=False), media_type="application/json", headers=NO_STORE)


def _cli_message(line: str) -> str:
    """A CLI job's error line without the ``yahtzee: error:`` it starts with."""
    return line.removeprefix("yahtzee: ").removeprefix("error: ") or "the computation failed"


def _no_params(params: dict) -> None:
    if params:
        raise ApiError(400, f"unknown field {next(iter(params))!r}: this endpoint takes none")

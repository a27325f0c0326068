"""A request's JSON fields read and bounded, and the API's one refusal (:class:`ApiError`): what
every endpoint of :mod:`solver.web.service` checks before it does anything."""

from __future__ import annotations

from ..core.errors import SolverError, TableError, UsageError, printable
from . import remedy


class ApiError(Exception):
    """A request the API refuses: HTTP ``status``, a one-line ``message`` and ``extra`` fields of
    the JSON answer (``{"build": RULES}`` where building a table would help)."""

    def __init__(self, status: int, message: str, extra: dict | None = None):
        super().__init__(message)
        self.status = status
        self.message = one_line(message)
        self.extra = dict(extra or {})


def one_line(text: str) -> str:
    """``text`` on one line, control characters escaped, at most 300 characters."""
    text = printable(str(text))
    return text if len(text) <= 300 else text[:297] + "..."


def records_error(exc: SolverError) -> ApiError:
    """:func:`api_error`, with the records database or a game file that cannot be read a 503
    (the machine's trouble, not the request's)."""
    from ..play.records import GameFileError, RecordsError

    if isinstance(exc, (GameFileError, RecordsError)):
        return ApiError(503, str(exc))
    return api_error(exc)


def api_error(exc: SolverError) -> ApiError:
    """The HTTP answer to a :class:`SolverError`: 400 for bad input, 503 for a table problem."""
    if isinstance(exc, UsageError):
        return ApiError(400, str(exc))
    if isinstance(exc, TableError):
        return ApiError(503, remedy.error_text(exc))
    return ApiError(500, str(exc))


def check_fields(params: dict, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> None:
    """``params`` is a JSON object of the ``allowed`` fields only, with every ``required`` one."""
    if not isinstance(params, dict):
        raise ApiError(400, "the request must be a JSON object")
    unknown = [k for k in params if k not in allowed]
    if unknown:
        raise ApiError(400, f"unknown field {unknown[0]!r} (fields: {', '.join(allowed)})")
    missing = [k for k in required if k not in params]
    if missing:
        raise ApiError(400, f"missing field {missing[0]!r}")


def text_field(params: dict, key: str, default: str | None = None) -> str | None:
    """The text field ``key`` of ``params`` (``default`` when absent or null)."""
    value = params.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ApiError(400, f"{key} must be text, got {value!r}")
    return value


def dice_field(value) -> str:
    """Dice as text: ``"33456"``, ``"3 3 4 5 6"`` or a list of five whole numbers."""
    if isinstance(value, list):
        if len(value) > 5 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ApiError(400, f"dice must be five faces from 1 to 6, got {value!r}")
        return " ".join(map(str, value))
    if not isinstance(value, str):
        raise ApiError(400, f"dice must be text like '33456' or a list of faces, got {value!r}")
    return value


def whole_field(value, key: str, low: int, high: int, *, text: bool = True) -> int:
    """A whole number within ``[low, high]``, given as a number or (``text``) as decimal text (a
    query string's), bounded before it is converted (:func:`solver.core.bounded.whole_value`)."""
    from ..core.bounded import shown, whole_value

    if not text and isinstance(value, str):
        raise ApiError(400, f"{key} must be a whole number from {low} to {high}, got {shown(value)}")
    try:
        return whole_value(value, key, low, high)
    except UsageError as exc:
        raise ApiError(400, str(exc)) from None


def rolls_left_field(value) -> int:
    """``rolls_left``: 0, 1 or 2."""
    return whole_field(value, "rolls_left", 0, 2)


def target_field(value) -> int | None:
    """The optional ``target`` of a hint: a score of 1 or more."""
    return None if value is None else whole_field(value, "target", 1, 100_000)


def scores_field(value) -> list[int] | None:
    """``at_least``: a list of scores, one score, or text like ``"250,300"`` (a query string)."""
    if value is None:
        return None
    if isinstance(value, str):
        items = [v for v in value.replace(",", " ").split() if v]
    elif isinstance(value, list):
        items = value
    else:
        items = [value]
    if not items or len(items) > 50:
        raise ApiError(400, f"at_least must be 1 to 50 scores, got {value!r}")
    return [whole_field(v, "at_least", 1, 100_000) for v in items]

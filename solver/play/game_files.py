"""Saved game files: written atomically, read defensively (files are data, never code).

A game's file is :meth:`solver.play.game.Game.to_dict` as JSON text, one top-level key per
line and one turn per line (:func:`dumps_game`), written atomically (temporary file, fsync,
rename: :func:`save_game`).  :func:`read_game_file` opens only a regular file of at most
:data:`MAX_GAME_BYTES`, refuses JSON nested deeper than :data:`MAX_GAME_DEPTH` and numbers of
more than :data:`MAX_DIGITS` digits; :func:`load_game` replays it.  Where the files live, and
the database that keeps them with the records, is :mod:`solver.play.records`.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..core.bounded import json_int
from ..core.errors import SolverError
from ..core.fileio import NotRegularFileError, atomic_write_text, file_kind, json_depth_ok, open_regular
from .game import Game, GameRecordError

#: a saved game is a few kilobytes (a 13-turn solo game about 4 KB); anything bigger is not one
MAX_GAME_BYTES = 1 << 20
#: a saved game is nested 4 deep (game, turns, turn, rolls, roll, dice); allow some slack
MAX_GAME_DEPTH = 32
#: the longest whole number a saved game or a record holds (a seed has at most 20 digits)
MAX_DIGITS = 40


class GameFileError(SolverError):
    """A game file that the operating system cannot read or write (permissions, I/O error, a
    full disk; exit code 1)."""


def _too_long(digits: int):
    raise ValueError(f"a number of {digits} digits")


def loads(text: str):
    """JSON read from a file or the database (numbers of at most :data:`MAX_DIGITS` digits)."""
    return json.loads(text, parse_int=json_int(MAX_DIGITS, _too_long))


def dumps_game(record: dict) -> str:
    """JSON text of a saved game: one top-level key per line, one turn per line (easy to read and diff)."""
    parts = []
    for key, value in record.items():
        if key in ("turns", "players", "final") and isinstance(value, list) and value:
            inner = ",\n".join("  " + json.dumps(v) for v in value)
            parts.append(f" {json.dumps(key)}: [\n{inner}\n ]")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def game_record(game: Game, status: str | None) -> dict:
    """What a game's file holds: :meth:`Game.to_dict` and when it was saved."""
    record = game.to_dict(status)
    record["saved_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    return record


def save_game(game: Game, path: str | os.PathLike, status: str | None = None) -> Path:
    """Write the game file atomically (status ``finished``/``abandoned``/``in_progress``); returns the path.

    This writes only the file; :func:`solver.play.records.store_game` keeps the game (and its records) in the database.
    """
    record = game_record(game, status)
    path = Path(path)
    try:
        atomic_write_text(path, dumps_game(record))
    except OSError as exc:
        raise GameFileError(f"cannot save the game to {path}: {exc.strerror or exc}") from None
    return path


def read_game_file(path: str | os.PathLike) -> dict:
    """The JSON of a saved game.

    Only a regular file of at most :data:`MAX_GAME_BYTES` is opened (a FIFO, a
    device such as ``/dev/zero`` or a folder is refused before reading, so
    nothing blocks); JSON nested deeper than :data:`MAX_GAME_DEPTH` is refused, and
    so is a number of more than :data:`MAX_DIGITS` digits.
    Bad files raise :class:`GameRecordError` (exit 2); an operating-system
    failure (permissions, I/O) raises :class:`GameFileError` (exit 1).
    """
    path = Path(path)
    too_big = f"game file {path} is larger than {MAX_GAME_BYTES} bytes: not a saved game"
    try:
        with open_regular(path, MAX_GAME_BYTES) as fh:
            raw = fh.read(MAX_GAME_BYTES + 1)
    except FileNotFoundError:
        raise GameRecordError(f"cannot read game file {path}: no such file") from None
    except NotRegularFileError:
        kind = file_kind(os.stat(path).st_mode)
        if kind == "a folder":
            raise GameRecordError(f"game file {path} is a folder, not a saved game") from None
        raise GameRecordError(f"game file {path} is {kind}, not a regular file: not a saved game") from None
    except ValueError:
        raise GameRecordError(too_big) from None
    except OSError as exc:
        raise GameFileError(f"cannot read game file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_GAME_BYTES:
        raise GameRecordError(too_big)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise GameRecordError(f"game file {path} is not UTF-8 text") from None
    if not json_depth_ok(text, MAX_GAME_DEPTH):
        raise GameRecordError(f"game file {path} is nested more than {MAX_GAME_DEPTH} deep: not a saved game")
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise GameRecordError(f"game file {path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except ValueError as exc:  # a number too long
        raise GameRecordError(f"game file {path} holds {exc}: not a saved game") from None


def load_game(path: str | os.PathLike) -> Game:
    """Read and replay a saved game; the error names the file and its first bad entry."""
    data = read_game_file(path)
    try:
        return Game.from_dict(data)
    except GameRecordError as exc:
        raise GameRecordError(f"{path}: {exc}") from None

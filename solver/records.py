"""Saved games and personal records, in the user's data folder.

The folder is, first match wins: an explicit ``data_dir`` (``--data DIR``),
``$YAHTZEE_DATA``, ``$XDG_DATA_HOME/yahtzee-solver``, ``~/.local/share/yahtzee-solver``.
Inside it:

* ``games/<time>-<mode>-<rules>-<id>.json`` -- one file per game, finished or
  abandoned (the format is :meth:`solver.game.Game.to_dict`: rule set, mode,
  seed or date, players, every roll with its held dice and values, every box,
  final scores, format version), written atomically (temporary file, fsync,
  rename) so that ``yahtzee review`` can read it and a user can copy it;
* ``yahtzee.db`` -- a SQLite database (WAL mode) holding the same games (their
  JSON text, in the ``games`` table), the best solo score per rule set, the
  daily results and the statistics derived from the games.  Every change is one
  ``BEGIN IMMEDIATE`` transaction with a busy timeout, so games finishing at the
  same moment in several processes never lose a record: the store of a finished
  game, its solo record and its daily result are one transaction.

Schema (version 1)::

    meta(key TEXT PRIMARY KEY, value TEXT)           -- schema_version, records_json_migrated
    games(id INTEGER PRIMARY KEY, path TEXT UNIQUE, rules TEXT, mode TEXT, status TEXT,
          dice TEXT, seed INTEGER, date TEXT, players TEXT, scores TEXT, saved_at TEXT,
          json TEXT)                                   -- players/scores: JSON lists
    solo_best(rules TEXT PRIMARY KEY, score INTEGER, date TEXT, game TEXT)
    daily(date TEXT, rules TEXT, name TEXT, score INTEGER, optimal REAL,
          PRIMARY KEY (date, rules))                   -- the first finished game of a day counts

A ``records.json`` of an earlier version is migrated once, in the transaction that
creates the database (its best scores and daily results), then renamed
``records.json.migrated``.  An unreadable ``records.json`` is left as it is and no
records are kept until it is fixed or removed.

Game files are read defensively (:func:`read_game_file`): only regular files, at
most :data:`MAX_GAME_BYTES`, JSON nested at most :data:`MAX_GAME_DEPTH` deep.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import SolverError
from .fileio import NotRegularFileError, atomic_write_text, file_kind, json_depth_ok, open_regular
from .game import Game, GameRecordError

ENV_VAR = "YAHTZEE_DATA"
APP_NAME = "yahtzee-solver"
DB_FILE = "yahtzee.db"
RECORDS_FILE = "records.json"  # the 1.x records file, migrated into the database once
MIGRATED_SUFFIX = ".migrated"
RECORDS_VERSION = 1
SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 60.0
#: a saved game is a few kilobytes (a 13-turn solo game about 4 KB); anything bigger is not one
MAX_GAME_BYTES = 1 << 20
#: a saved game is nested 4 deep (game, turns, turn, rolls, roll, dice); allow some slack
MAX_GAME_DEPTH = 32

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS games (
        id INTEGER PRIMARY KEY,
        path TEXT UNIQUE,
        rules TEXT NOT NULL,
        mode TEXT,
        status TEXT NOT NULL,
        dice TEXT,
        seed INTEGER,
        date TEXT,
        players TEXT NOT NULL,
        scores TEXT NOT NULL,
        saved_at TEXT NOT NULL,
        json TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS games_rules ON games (rules, mode, status)",
    """CREATE TABLE IF NOT EXISTS solo_best (
        rules TEXT PRIMARY KEY, score INTEGER NOT NULL, date TEXT, game TEXT)""",
    """CREATE TABLE IF NOT EXISTS daily (
        date TEXT NOT NULL, rules TEXT NOT NULL, name TEXT, score INTEGER NOT NULL, optimal REAL,
        PRIMARY KEY (date, rules))""",
)


class RecordsError(SolverError):
    """The records database cannot be read or written (exit code 1)."""


class GameFileError(SolverError):
    """A game file that the operating system cannot read (permissions, I/O error; exit code 1)."""


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """The data folder (see the module docstring for the order); not created here."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / APP_NAME


def games_dir(data: str | os.PathLike | None = None) -> Path:
    return data_dir(data) / "games"


def db_path(data: str | os.PathLike | None = None) -> Path:
    return data_dir(data) / DB_FILE


def records_path(data: str | os.PathLike | None = None) -> Path:
    """Where the records live: the database (``records.json`` of 1.x is only migrated)."""
    return db_path(data)


def legacy_records_path(data: str | os.PathLike | None = None) -> Path:
    return data_dir(data) / RECORDS_FILE


def new_game_path(game: Game, data: str | os.PathLike | None = None) -> Path:
    """A fresh file name for ``game`` under ``games/`` (time, mode, rule set, random id)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    mode = str(game.info.get("mode", "game"))
    return games_dir(data) / f"{stamp}-{mode}-{game.rules.id}-{secrets.token_hex(3)}.json"


def _today() -> str:
    return time.strftime("%Y-%m-%d")


# --- the database --------------------------------------------------------------------
def _fail(what: str, path: Path, exc: BaseException) -> RecordsError:
    return RecordsError(f"cannot {what} the records database {path}: {exc}")


@contextlib.contextmanager
def _transaction(data: str | os.PathLike | None = None) -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction on the database (created, and records.json migrated, if new).

    Commits when the block ends, rolls back on any exception (Ctrl-C included).
    """
    path = db_path(data)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise _fail("open", path, exc) from None
    migrated = None
    try:
        _begin_immediate(con, path)
        try:
            migrated = _ensure_schema(con, data)
            yield con
            con.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise _fail("update", path, exc) from None
            raise
    finally:
        con.close()
    if migrated is not None:
        with contextlib.suppress(OSError):
            os.replace(migrated, str(migrated) + MIGRATED_SUFFIX)


def _begin_immediate(con: sqlite3.Connection, path: Path) -> None:
    """WAL mode, then ``BEGIN IMMEDIATE`` (the write lock), waiting up to :data:`BUSY_TIMEOUT_S`.

    SQLite answers "database is locked" at once, without calling the busy handler,
    in a few cases (switching a new database to WAL while another process does the
    same, a WAL file being recovered): those are retried here until the deadline.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            if con.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = FULL")
            con.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if ("locked" not in text and "busy" not in text) or time.monotonic() > deadline:
                raise _fail("open", path, exc) from None
            time.sleep(0.005 + 0.045 * secrets.randbelow(1000) / 1000)
        except sqlite3.Error as exc:
            raise _fail("open", path, exc) from None


@contextlib.contextmanager
def _reading(data: str | os.PathLike | None = None) -> Iterator[sqlite3.Connection | None]:
    """A read snapshot (``None`` when there is no database and nothing to migrate yet)."""
    path = db_path(data)
    if not path.exists() and not legacy_records_path(data).exists():
        yield None
        return
    if not _is_ready(path):
        with _transaction(data):  # create the tables and migrate records.json (or say why not)
            pass
    try:
        con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as exc:
        raise _fail("open", path, exc) from None
    try:
        con.execute("BEGIN")
        yield con
        con.execute("COMMIT")
    except sqlite3.Error as exc:
        raise _fail("read", path, exc) from None
    finally:
        con.close()


def _is_ready(path: Path) -> bool:
    """Whether the database exists with its tables and the one-time migration done."""
    if not path.exists():
        return False
    try:
        con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error:
        return False
    try:
        return con.execute("SELECT 1 FROM meta WHERE key = 'records_json_migrated'").fetchone() is not None
    except sqlite3.Error:
        return False
    finally:
        con.close()


def _ensure_schema(con: sqlite3.Connection, data) -> Path | None:
    """Create the tables (inside the open transaction); returns records.json when it was migrated."""
    for statement in _SCHEMA:
        con.execute(statement)
    row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        con.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    elif row[0] != str(SCHEMA_VERSION):
        raise RecordsError(
            f"the records database {db_path(data)} has schema version {row[0]}; "
            f"this version of yahtzee reads version {SCHEMA_VERSION}"
        )
    if con.execute("SELECT 1 FROM meta WHERE key = 'records_json_migrated'").fetchone():
        return None
    legacy = legacy_records_path(data)
    old = _read_legacy(legacy)
    if old is not None:
        for rules_id, entry in old["solo_best"].items():
            if isinstance(entry, dict) and _is_int(entry.get("score")):
                _offer_solo(con, rules_id, entry["score"], entry.get("date"), entry.get("game"))
        for key, entry in old["daily"].items():
            date, _, rules_id = str(key).partition(" ")
            if isinstance(entry, dict) and _is_int(entry.get("score")) and rules_id:
                con.execute(
                    "INSERT OR IGNORE INTO daily VALUES (?, ?, ?, ?, ?)",
                    (date, rules_id, str(entry.get("name")), entry["score"], _num(entry.get("optimal"))),
                )
    con.execute(
        "INSERT INTO meta VALUES ('records_json_migrated', ?)", (time.strftime("%Y-%m-%dT%H:%M:%S%z"),)
    )
    return legacy if old is not None else None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _num(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _read_legacy(path: Path) -> dict | None:
    """The 1.x records.json (``None`` when absent); an unreadable one stops the migration."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordsError(
            f"cannot read {path} to migrate it: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    try:
        records = json.loads(text)
        if not isinstance(records, dict):
            raise ValueError("not a JSON object")
    except (ValueError, RecursionError) as exc:
        raise RecordsError(
            f"records file {path} is unreadable ({exc}); it was left as it is: "
            "fix or remove it to keep records again"
        ) from None
    if not isinstance(records.get("solo_best"), dict):
        records["solo_best"] = {}
    if not isinstance(records.get("daily"), dict):
        records["daily"] = {}
    _rename_aliases(records)
    return records


def _rename_aliases(records: dict) -> None:
    """Records kept under another name of a rule set (1.0's ``yatzy-forced``) count under its
    canonical spelling (``yatzy+order=down``), as games are recorded now."""
    from .rules import ALIASES

    solo, daily = records["solo_best"], records["daily"]
    for alias, spec in ALIASES.items():
        if alias in solo and spec not in solo:
            solo[spec] = solo.pop(alias)
        for key in [k for k in daily if k.endswith(" " + alias)]:
            daily.setdefault(key[: -len(alias)] + spec, daily.pop(key))


def _offer_solo(con, rules_id: str, score: int, date, game) -> tuple[dict | None, bool]:
    row = con.execute("SELECT score, date, game FROM solo_best WHERE rules = ?", (rules_id,)).fetchone()
    previous = None if row is None else {"score": row[0], "date": row[1], "game": row[2]}
    is_new = previous is None or score > previous["score"]
    if is_new:
        con.execute(
            "INSERT OR REPLACE INTO solo_best VALUES (?, ?, ?, ?)",
            (rules_id, int(score), date, str(game) if game else None),
        )
    return previous, is_new


def _offer_daily(con, date: str, rules_id: str, name: str, score: int, optimal) -> dict | None:
    row = con.execute(
        "SELECT name, score, optimal FROM daily WHERE date = ? AND rules = ?", (date, rules_id)
    ).fetchone()
    if row is not None:
        return {"name": row[0], "score": row[1], "optimal": row[2]}
    con.execute("INSERT INTO daily VALUES (?, ?, ?, ?, ?)", (date, rules_id, name, int(score), _num(optimal)))
    return None


# --- games -----------------------------------------------------------------------------
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


def _game_record(game: Game, status: str | None) -> dict:
    record = game.to_dict(status)
    record["saved_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    return record


def save_game(game: Game, path: str | os.PathLike, status: str | None = None) -> Path:
    """Write the game file atomically (status ``finished``/``abandoned``/``in_progress``); returns the path.

    This writes only the file; :func:`store_game` keeps the game (and its records) in the database.
    """
    record = _game_record(game, status)
    path = Path(path)
    try:
        atomic_write_text(path, dumps_game(record))
    except OSError as exc:
        raise RecordsError(f"cannot save the game to {path}: {exc.strerror or exc}") from None
    return path


@dataclass(frozen=True)
class Stored:
    """What :func:`store_game` did: the previous solo best and whether this game beat it; the
    daily result kept earlier that day (``None`` when this game's result is the one kept)."""

    previous: dict | None = None
    is_new_record: bool = False
    daily_earlier: dict | None = None


def store_game(
    game: Game,
    path: str | os.PathLike | None,
    status: str | None = None,
    data: str | os.PathLike | None = None,
    *,
    solo_record: bool = False,
    daily_optimal: float | None = None,
    daily_result: bool | None = None,
) -> Stored:
    """Keep the game in the database, in one transaction with its records.

    ``path`` (the game file) identifies the game: storing it again replaces the
    row.  When the game is finished and ``solo_record`` is true, its score is
    offered as the rule set's solo best, and when it is finished and ``daily_result``
    (default: ``solo_record``) is true, a daily game (``info["mode"] == "daily"``) keeps
    its result as the day's (first finished game counts), with ``daily_optimal`` the
    optimal player's score.
    """
    if daily_result is None:
        daily_result = solo_record
    record = _game_record(game, status)
    status = record["status"]
    info = game.info
    names = [p.name for p in game.players]
    scores = [c.total for c in game.cards]
    seed = info.get("seed") if _is_int(info.get("seed")) and info.get("dice") == "seeded" else None
    row = (
        str(path) if path else None,
        game.rules.id,
        str(info.get("mode", "game")),
        status,
        str(info.get("dice")) if info.get("dice") is not None else None,
        seed if seed is None or -(2**63) <= seed < 2**63 else None,
        str(info["date"]) if info.get("date") else None,
        json.dumps(names),
        json.dumps(scores),
        record["saved_at"],
        dumps_game(record),
    )
    with _transaction(data) as con:
        if path:
            con.execute("DELETE FROM games WHERE path = ?", (str(path),))
        con.execute(
            "INSERT INTO games (path, rules, mode, status, dice, seed, date, players, scores, saved_at, json)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        )
        if status != "finished" or not (solo_record or daily_result):
            return Stored()
        previous, is_new = None, False
        if solo_record:
            previous, is_new = _offer_solo(con, game.rules.id, scores[0], _today(), path)
        else:
            row = con.execute("SELECT score, date, game FROM solo_best WHERE rules = ?", (game.rules.id,))
            row = row.fetchone()
            previous = None if row is None else {"score": row[0], "date": row[1], "game": row[2]}
        earlier = None
        if daily_result and info.get("mode") == "daily" and info.get("date"):
            earlier = _offer_daily(con, str(info["date"]), game.rules.id, names[0], scores[0], daily_optimal)
        return Stored(previous, is_new, earlier)


def stored_games(data: str | os.PathLike | None = None, rules_id: str | None = None) -> list[dict]:
    """The games in the database, oldest first: ``{"id", "path", "rules", "mode", "status", "players",
    "scores", "saved_at"}`` (see :func:`export_game` for the game itself)."""
    with _reading(data) as con:
        if con is None:
            return []
        sql = "SELECT id, path, rules, mode, status, players, scores, saved_at FROM games"
        rows = con.execute(
            sql + (" WHERE rules = ?" if rules_id else "") + " ORDER BY id", (rules_id,) if rules_id else ()
        ).fetchall()
    keys = ("id", "path", "rules", "mode", "status", "players", "scores", "saved_at")
    out = [dict(zip(keys, r, strict=True)) for r in rows]
    for g in out:
        g["players"], g["scores"] = json.loads(g["players"]), json.loads(g["scores"])
    return out


def export_game(game_id: int, dest: str | os.PathLike, data: str | os.PathLike | None = None) -> Path:
    """Write a stored game as the JSON file ``yahtzee review`` reads (atomically); returns ``dest``."""
    with _reading(data) as con:
        row = (
            None if con is None else con.execute("SELECT json FROM games WHERE id = ?", (game_id,)).fetchone()
        )
    if row is None:
        raise RecordsError(f"no stored game {game_id} in {db_path(data)}")
    dest = Path(dest)
    try:
        atomic_write_text(dest, row[0])
    except OSError as exc:
        raise RecordsError(f"cannot export the game to {dest}: {exc.strerror or exc}") from None
    return dest


def import_game(path: str | os.PathLike, data: str | os.PathLike | None = None) -> Game:
    """Check a game file (replaying it, as ``review`` does) and keep it in the database.

    An imported game never sets a record: only games played here do.
    """
    game = load_game(path)
    data_json = read_game_file(path)
    store_game(game, Path(path).resolve(), data_json.get("status"), data)
    return game


def read_game_file(path: str | os.PathLike) -> dict:
    """The JSON of a saved game.

    Only a regular file of at most :data:`MAX_GAME_BYTES` is opened (a FIFO, a
    device such as ``/dev/zero`` or a folder is refused before reading, so
    nothing blocks); JSON nested deeper than :data:`MAX_GAME_DEPTH` is refused.
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
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise GameRecordError(f"game file {path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None


def load_game(path: str | os.PathLike) -> Game:
    """Read and replay a saved game; the error names the file and its first bad entry."""
    data = read_game_file(path)
    try:
        return Game.from_dict(data)
    except GameRecordError as exc:
        raise GameRecordError(f"{path}: {exc}") from None


# --- records -----------------------------------------------------------------------
def load_records(data: str | os.PathLike | None = None) -> dict:
    """All records as one dict (``{"format_version", "solo_best": {rules: {score, date, game}},
    "daily": {"DATE RULES": {name, score, optimal}}}``); raises :class:`RecordsError` when unreadable."""
    out = {"format_version": RECORDS_VERSION, "solo_best": {}, "daily": {}}
    with _reading(data) as con:
        if con is None:
            return out
        for rules_id, score, date, game in con.execute("SELECT rules, score, date, game FROM solo_best"):
            out["solo_best"][rules_id] = {"score": score, "date": date, "game": game}
        for date, rules_id, name, score, optimal in con.execute("SELECT * FROM daily"):
            out["daily"][f"{date} {rules_id}"] = {"name": name, "score": score, "optimal": optimal}
    return out


def save_records(records: dict, data: str | os.PathLike | None = None) -> Path:
    """Replace every record by ``records`` (the :func:`load_records` shape), in one transaction."""
    with _transaction(data) as con:
        con.execute("DELETE FROM solo_best")
        con.execute("DELETE FROM daily")
        for rules_id, entry in records.get("solo_best", {}).items():
            _offer_solo(con, rules_id, entry["score"], entry.get("date"), entry.get("game"))
        for key, entry in records.get("daily", {}).items():
            date, _, rules_id = key.partition(" ")
            _offer_daily(con, date, rules_id, entry.get("name"), entry["score"], entry.get("optimal"))
    return db_path(data)


def solo_best(rules_id: str, data: str | os.PathLike | None = None) -> dict | None:
    """The best solo game of a rule set (``{"score", "date", "game"}``), or ``None``."""
    with _reading(data) as con:
        if con is None:
            return None
        row = con.execute("SELECT score, date, game FROM solo_best WHERE rules = ?", (rules_id,)).fetchone()
    return None if row is None else {"score": row[0], "date": row[1], "game": row[2]}


def record_solo(
    rules_id: str, score: int, game_path: str | os.PathLike | None, data: str | os.PathLike | None = None
) -> tuple[dict | None, bool]:
    """Offer a finished solo score; returns (the previous best or ``None``, whether this is a new record)."""
    with _transaction(data) as con:
        return _offer_solo(con, rules_id, int(score), _today(), game_path)


def record_daily(
    date: str,
    rules_id: str,
    name: str,
    score: int,
    optimal: float | None,
    data: str | os.PathLike | None = None,
) -> dict | None:
    """Keep a daily result (the first finished game of the day counts); returns the earlier one, if any."""
    with _transaction(data) as con:
        return _offer_daily(con, date, rules_id, name, score, optimal)


def statistics(rules_id: str, data: str | os.PathLike | None = None) -> dict:
    """Finished solo games of a rule set: ``{"games", "best", "average"}`` (from the games table)."""
    with _reading(data) as con:
        row = (
            None
            if con is None
            else con.execute(
                "SELECT COUNT(*), MAX(json_extract(scores, '$[0]')), AVG(json_extract(scores, '$[0]'))"
                " FROM games WHERE rules = ? AND mode = 'solo' AND status = 'finished'",
                (rules_id,),
            ).fetchone()
        )
    if not row or not row[0]:
        return {"games": 0, "best": None, "average": None}
    return {"games": row[0], "best": row[1], "average": row[2]}


def daily_played(date: str, rules_id: str, data: str | os.PathLike | None = None) -> dict | None:
    """The kept result of the daily of ``date`` (``{"name", "score", "optimal"}``), or ``None``."""
    with _reading(data) as con:
        row = (
            None
            if con is None
            else con.execute(
                "SELECT name, score, optimal FROM daily WHERE date = ? AND rules = ?", (date, rules_id)
            ).fetchone()
        )
    return None if row is None else {"name": row[0], "score": row[1], "optimal": row[2]}


def seed_played(rules_id: str, seed: int, data: str | os.PathLike | None = None) -> bool:
    """Whether a game of ``rules_id`` on seeded dice ``seed`` is in the database (a replay's dice are known)."""
    if not -(2**63) <= seed < 2**63:
        return False
    with _reading(data) as con:
        if con is None:
            return False
        row = con.execute(
            "SELECT 1 FROM games WHERE rules = ? AND dice = 'seeded' AND seed = ? LIMIT 1", (rules_id, seed)
        ).fetchone()
    return row is not None


def unfinished_game(data: str | os.PathLike | None = None) -> tuple[str, dict] | None:
    """The game saved last that is not finished (in progress or abandoned): ``(path, game JSON)``."""
    with _reading(data) as con:
        row = (
            None
            if con is None
            else con.execute(
                "SELECT path, json FROM games WHERE status != 'finished' AND path IS NOT NULL"
                " ORDER BY id DESC LIMIT 1"
            ).fetchone()
        )
    return None if row is None else (row[0], json.loads(row[1]))


def last_finished_path(data: str | os.PathLike | None = None) -> str | None:
    """The file of the game finished last (``yahtzee review --last``), or ``None``."""
    with _reading(data) as con:
        row = (
            None
            if con is None
            else con.execute(
                "SELECT path FROM games WHERE status = 'finished' AND path IS NOT NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
        )
    return None if row is None else row[0]


def finished_games(data: str | os.PathLike | None = None, rules_id: str | None = None) -> list[dict]:
    """Every finished game (of one rule set), oldest first, as its saved JSON."""
    with _reading(data) as con:
        if con is None:
            return []
        sql = "SELECT json FROM games WHERE status = 'finished'"
        args: tuple = ()
        if rules_id:
            sql, args = sql + " AND rules = ?", (rules_id,)
        rows = con.execute(sql + " ORDER BY id", args).fetchall()
    return [json.loads(r[0]) for r in rows]


def daily_results(data: str | os.PathLike | None = None, rules_id: str | None = None) -> list[dict]:
    """The kept daily results, oldest date first: ``{"date", "rules", "name", "score", "optimal"}``."""
    with _reading(data) as con:
        if con is None:
            return []
        sql = "SELECT date, rules, name, score, optimal FROM daily"
        args: tuple = ()
        if rules_id:
            sql, args = sql + " WHERE rules = ?", (rules_id,)
        rows = con.execute(sql + " ORDER BY date", args).fetchall()
    keys = ("date", "rules", "name", "score", "optimal")
    return [dict(zip(keys, r, strict=True)) for r in rows]

"""Saved games and personal records, in the user's data folder.

The folder is, first match wins: an explicit ``data_dir`` (``--data DIR``),
``$YAHTZEE_DATA``, ``$XDG_DATA_HOME/yahtzee-solver``, ``~/.local/share/yahtzee-solver``.
Inside it:

* ``games/<time>-<mode>-<rules>-<id>.json`` -- one file per game, finished or
  abandoned (the format is :meth:`solver.play.game.Game.to_dict`: rule set, mode,
  seed or date, players, every roll with its held dice and values, every box,
  final scores, format version), written atomically (temporary file, fsync,
  rename) so that ``yahtzee review`` can read it and a user can copy it;
* ``yahtzee.db`` -- a SQLite database (WAL mode) holding the same games (their
  JSON text, in the ``games`` table), the best solo score per rule set, the
  daily results and the statistics derived from the games.  Every change is one
  ``BEGIN IMMEDIATE`` transaction with a busy timeout, so games finishing at the
  same moment in several processes never lose a record: the store of a finished
  game, its solo record and its daily result are one transaction.

Schema (version 2)::

    meta(key TEXT PRIMARY KEY, value TEXT)           -- schema_version, records_json_migrated
    games(id INTEGER PRIMARY KEY, path TEXT UNIQUE, rules TEXT, mode TEXT, status TEXT,
          dice TEXT, seed INTEGER, date TEXT, players TEXT, scores TEXT, saved_at TEXT,
          json TEXT)                                   -- players/scores: JSON lists
    solo_best(rules TEXT PRIMARY KEY, score INTEGER, date TEXT, game TEXT)
    daily(date TEXT, rules TEXT, name TEXT, score INTEGER, optimal REAL,
          PRIMARY KEY (date, rules))                   -- the first finished game of a day counts

The ``path`` of a game (and the ``game`` of a solo best) in this data folder's games
folder is kept relative to the data folder (``games/NAME.json``), so that a copy of the whole
folder, used with ``--data COPY``, names and writes its own files; a file elsewhere (an
imported game) keeps its absolute path.  A path read back is used (resumed, reviewed) only if
it lies, symlinks resolved, inside this data folder's games folder (:func:`game_path`); an
absolute path into another data folder's games folder (version 1 kept absolute paths) stands
for this folder's file of that name when there is one.  A version-1 database is migrated to
that form once.

A ``records.json`` of an earlier version is migrated once, in the transaction that
creates the database (its best scores and daily results), then renamed
``records.json.migrated``.  An unreadable ``records.json`` (not a regular file, more than
:data:`MAX_RECORDS_BYTES`, not JSON) is left as it is and no records are kept until it is
fixed or removed; an entry in it that is not a record (a score that is not a whole number
from 0 to :data:`MAX_SCORE`) is skipped with a warning.

The database is read defensively too: a row that is not what this program writes (a game
column that is not JSON, a score that is text, NULLs) is skipped with a one-line warning on
stderr, and the rest of the store keeps working.

Game files are read defensively (:func:`read_game_file`): only regular files, at
most :data:`MAX_GAME_BYTES`, JSON nested at most :data:`MAX_GAME_DEPTH` deep, numbers of at
most :data:`MAX_DIGITS` digits.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
import secrets
import sqlite3
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.bounded import clipped, json_int, shown
from ..core.errors import SolverError, printable
from ..core.fileio import NotRegularFileError, atomic_write_text, open_regular
from .game import DATE_PATTERN, WORD_PATTERN, Game
from .game_files import (  # noqa: F401 - the game files' API, used with the records'
    MAX_DIGITS,
    MAX_GAME_BYTES,
    MAX_GAME_DEPTH,
    GameFileError,
    dumps_game,
    game_record,
    load_game,
    loads,
    read_game_file,
    save_game,
)

ENV_VAR = "YAHTZEE_DATA"
APP_NAME = "yahtzee-solver"
DB_FILE = "yahtzee.db"
RECORDS_FILE = "records.json"  # the 1.x records file, migrated into the database once
MIGRATED_SUFFIX = ".migrated"
RECORDS_VERSION = 1
#: 2: game paths relative to the data folder (1: as given, absolute)
SCHEMA_VERSION = 2
BUSY_TIMEOUT_S = 60.0
#: the 1.x records.json holds a few entries per rule set and day
MAX_RECORDS_BYTES = 1 << 24
#: a score or an optimal score kept as a record: no rule set comes near
MAX_SCORE = 1_000_000

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
    mode = game.info.mode or "game"
    mode = mode if isinstance(mode, str) and WORD_PATTERN.fullmatch(mode) else "game"  # a word, never a path
    return games_dir(data) / f"{stamp}-{mode}-{game.rules.id}-{secrets.token_hex(3)}.json"


def _inside(path: str | os.PathLike, folder: str | os.PathLike) -> bool:
    """Whether ``path``, symlinks resolved, lies inside ``folder`` (resolved too)."""
    try:
        real, base = os.path.realpath(path), os.path.realpath(folder)
        return real != base and os.path.commonpath([real, base]) == base
    except (OSError, ValueError):  # a NUL in the path, a loop of symlinks
        return False


def stored_path(path: str | os.PathLike | None, data: str | os.PathLike | None = None) -> str | None:
    """How the database names the game file ``path``: ``games/NAME.json`` (relative to the data
    folder) for a file in this data folder's games folder, else its absolute path."""
    if not path:
        return None
    games = games_dir(data)
    lexical, base = os.path.abspath(path), os.path.abspath(games)
    if lexical != base and os.path.commonpath([lexical, base]) == base:
        return Path("games", os.path.relpath(lexical, base)).as_posix()
    if _inside(lexical, games):
        return Path("games", os.path.relpath(os.path.realpath(lexical), os.path.realpath(games))).as_posix()
    return lexical


def game_path(stored, data: str | os.PathLike | None = None) -> Path | None:
    """The game file a database row names, only if it lies (symlinks resolved) inside this data
    folder's games folder; ``None`` for anything else (the file is then never read or written).

    A relative path is relative to the data folder.  An absolute path into another data folder's
    games folder (a copied data folder of version 1, which kept absolute paths) stands for the file
    of that name in this folder's, when there is one.
    """
    if not isinstance(stored, str) or not stored:
        return None
    path = Path(stored)
    games = games_dir(data)
    candidate = path if path.is_absolute() else data_dir(data) / path
    if _inside(candidate, games):
        return candidate
    if path.is_absolute() and path.parent.name == games.name:
        rebased = games / path.name
        if rebased.is_file() and _inside(rebased, games):
            return rebased
    return None


def _shown_path(stored, data) -> str | None:
    """A stored path as the user sees it: ``DATA/games/NAME.json`` for a relative one."""
    if not isinstance(stored, str) or not stored:
        return None
    return stored if Path(stored).is_absolute() else str(data_dir(data) / stored)


def _path_text(text) -> str:
    """A path read from the database, for a message (a very long one shortened)."""
    return text if isinstance(text, str) and len(text) <= 256 else shown(text)


def _warn(message: str) -> None:
    """A bad row or record skipped: one line on stderr (the rest of the store keeps working)."""
    sys.stderr.write(f"yahtzee: warning: {printable(message)}\n")


def _is_date(text) -> bool:
    """Whether ``text`` is a day as kept in the records (``YYYY-MM-DD``, a real date)."""
    if not (isinstance(text, str) and DATE_PATTERN.fullmatch(text)):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _score(value) -> int | None:
    """A score as kept in the records: a whole number from 0 to :data:`MAX_SCORE`, else None."""
    return value if _is_int(value) and 0 <= value <= MAX_SCORE else None


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
    """Whether the database exists with its tables, this schema version and the one-time migration done."""
    if not path.exists():
        return False
    try:
        con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error:
        return False
    try:
        row = con.execute(
            "SELECT COUNT(*) FROM meta WHERE key = 'records_json_migrated'"
            " OR (key = 'schema_version' AND value = ?)",
            (str(SCHEMA_VERSION),),
        ).fetchone()
        return row[0] == 2
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
    elif row[0] == "1":
        _relative_paths(con, data)
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
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
            score = _score(entry.get("score")) if isinstance(entry, dict) else None
            if score is None:
                _warn(
                    f"{legacy}: the record of {shown(rules_id)} is not a score from 0 to {MAX_SCORE}: skipped"
                )
                continue
            _offer_solo(con, rules_id, score, _text(entry.get("date")), _text(entry.get("game")))
        for key, entry in old["daily"].items():
            date, _, rules_id = str(key).partition(" ")
            score = _score(entry.get("score")) if isinstance(entry, dict) else None
            if score is None or not rules_id or not _is_date(date):
                _warn(f"{legacy}: the daily result {shown(key)} is not a score of a day: skipped")
                continue
            con.execute(
                "INSERT OR IGNORE INTO daily VALUES (?, ?, ?, ?, ?)",
                (date, rules_id, str(entry.get("name")), score, _optimal(entry.get("optimal"), key, legacy)),
            )
    con.execute(
        "INSERT INTO meta VALUES ('records_json_migrated', ?)", (time.strftime("%Y-%m-%dT%H:%M:%S%z"),)
    )
    return legacy if old is not None else None


def _relative_paths(con: sqlite3.Connection, data) -> None:
    """Version 1 to 2: the paths of game files in this data folder's games folder (or, in a copied
    folder, in the original's, where the copy has the file) become relative to the data folder."""
    for select, update in (
        # a later row of the same file replaces an earlier one
        ("SELECT id, path FROM games WHERE path IS NOT NULL ORDER BY id",
         "UPDATE OR REPLACE games SET path = ? WHERE id = ?"),
        ("SELECT rules, game FROM solo_best WHERE game IS NOT NULL",
         "UPDATE solo_best SET game = ? WHERE rules = ?"),
    ):  # fmt: skip
        for key, text in con.execute(select).fetchall():
            found = game_path(os.path.abspath(text), data) if isinstance(text, str) and text else None
            if found is not None:
                con.execute(update, (stored_path(found, data), key))


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


def _num(value) -> float | None:
    """An optimal score: a finite number from 0 to :data:`MAX_SCORE`, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and 0 <= value <= MAX_SCORE else None


def _optimal(value, key, where) -> float | None:
    """:func:`_num`, with a warning when ``value`` is there but not an optimal score."""
    number = _num(value)
    if number is None and value is not None:
        _warn(f"{where}: the optimal score {shown(value)} of {shown(key)} is not a score: left out")
    return number


def _read_legacy(path: Path) -> dict | None:
    """The 1.x records.json (``None`` when absent); an unreadable one stops the migration."""
    keep = "it was left as it is: fix or remove it to keep records again"
    try:
        with open_regular(path, MAX_RECORDS_BYTES) as fh:
            raw = fh.read(MAX_RECORDS_BYTES + 1)
        text = raw.decode("utf-8")
    except FileNotFoundError:
        return None
    except NotRegularFileError as exc:
        raise RecordsError(f"records file {exc}; {keep}") from None
    except UnicodeDecodeError:
        raise RecordsError(f"records file {path} is not UTF-8 text; {keep}") from None
    except ValueError as exc:  # too big
        raise RecordsError(f"records file {exc}; {keep}") from None
    except OSError as exc:
        raise RecordsError(f"cannot read {path} to migrate it: {exc.strerror or exc}") from None
    try:
        if len(raw) > MAX_RECORDS_BYTES:
            raise ValueError(f"more than {MAX_RECORDS_BYTES} bytes")
        # a number too long for a score reads as None (its entry is skipped)
        records = json.loads(text, parse_int=json_int(MAX_DIGITS, lambda digits: None))
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
    from ..core.rules import ALIASES

    solo, daily = records["solo_best"], records["daily"]
    for alias, spec in ALIASES.items():
        if alias in solo and spec not in solo:
            solo[spec] = solo.pop(alias)
        for key in [k for k in daily if k.endswith(" " + alias)]:
            daily.setdefault(key[: -len(alias)] + spec, daily.pop(key))


def _solo_row(row, rules_id, data, warn: bool = True) -> dict | None:
    """A ``solo_best`` row (score, date, game) as a record, or None (a warning) when it is not one."""
    if row is None:
        return None
    score = _score(row[0])
    if score is None:
        if warn:
            _warn(
                f"the record of {shown(rules_id)} in {db_path(data)} has score {shown(row[0])}, "
                f"not a whole number from 0 to {MAX_SCORE}: skipped"
            )
        return None
    return {"score": score, "date": _text(row[1]), "game": _shown_path(row[2], data)}


def _offer_solo(con, rules_id: str, score: int, date, game, data=None) -> tuple[dict | None, bool]:
    row = con.execute("SELECT score, date, game FROM solo_best WHERE rules = ?", (rules_id,)).fetchone()
    previous = _solo_row(row, rules_id, data, warn=False)  # a record that is not one is replaced
    is_new = previous is None or score > previous["score"]
    if is_new:
        con.execute(
            "INSERT OR REPLACE INTO solo_best VALUES (?, ?, ?, ?)",
            (rules_id, int(score), date, str(game) if game else None),
        )
    return previous, is_new


def _daily_row(row, data, warn: bool = True) -> dict | None:
    """A ``daily`` row (date, rules, name, score, optimal) as a result, or None (a warning) when
    it is not one; an optimal score that is not one is left out."""
    date, rules_id, name, score, optimal = row
    if not _is_date(date) or not isinstance(rules_id, str) or _score(score) is None:
        if warn:
            _warn(
                f"the daily result ({shown(date)}, {shown(rules_id)}, score {shown(score)}) in {db_path(data)}"
                f" is not a day's result (YYYY-MM-DD, a rule set, a score from 0 to {MAX_SCORE}): skipped"
            )
        return None
    number = _num(optimal)
    if number is None and optimal is not None and warn:
        _warn(
            f"the daily result {date} {shown(rules_id)} in {db_path(data)}: optimal {shown(optimal)} left out"
        )
    return {"date": date, "rules": rules_id, "name": _text(name), "score": score, "optimal": number}


def _day_result(entry: dict) -> dict:
    """A :func:`_daily_row` entry as a day's result is given out: ``{"name", "score", "optimal"}``."""
    return {k: entry[k] for k in ("name", "score", "optimal")}


def _offer_daily(con, date: str, rules_id: str, name: str, score: int, optimal, data=None) -> dict | None:
    row = con.execute(
        "SELECT date, rules, name, score, optimal FROM daily WHERE date = ? AND rules = ?", (date, rules_id)
    ).fetchone()
    if row is not None:
        earlier = _daily_row(row, data, warn=False)
        if earlier is not None:
            return _day_result(earlier)
    con.execute(  # a row that is not a result is replaced
        "INSERT OR REPLACE INTO daily VALUES (?, ?, ?, ?, ?)",
        (date, rules_id, name, int(score), _num(optimal)),
    )
    return None


# --- games -----------------------------------------------------------------------------
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
    (default: ``solo_record``) is true, a daily game (``info.mode == "daily"``) keeps
    its result as the day's (first finished game counts), with ``daily_optimal`` the
    optimal player's score.
    """
    if daily_result is None:
        daily_result = solo_record
    record = game_record(game, status)
    status = record["status"]
    info = game.info
    names = [p.name for p in game.players]
    scores = [c.total for c in game.cards]
    seed = info.seed if _is_int(info.seed) and info.dice == "seeded" else None
    where = stored_path(path, data)
    row = (
        where,
        game.rules.id,
        str(info.mode or "game"),
        status,
        str(info.dice) if info.dice is not None else None,
        _seed_column(seed),
        str(info.date) if info.date else None,
        json.dumps(names),
        json.dumps(scores),
        record["saved_at"],
        dumps_game(record),
    )
    with _transaction(data) as con:
        if path:  # the row of this file, under the name it has now or had (version 1: as given)
            con.execute("DELETE FROM games WHERE path IN (?, ?)", (where, str(path)))
        con.execute(
            "INSERT INTO games (path, rules, mode, status, dice, seed, date, players, scores, saved_at, json)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        )
        if status != "finished" or not (solo_record or daily_result):
            return Stored()
        previous, is_new = None, False
        if solo_record:
            previous, is_new = _offer_solo(con, game.rules.id, scores[0], _today(), where, data)
        else:
            row = con.execute("SELECT score, date, game FROM solo_best WHERE rules = ?", (game.rules.id,))
            previous = _solo_row(row.fetchone(), game.rules.id, data, warn=False)
        earlier = None
        if daily_result and info.mode == "daily" and info.date:
            earlier = _offer_daily(
                con, str(info.date), game.rules.id, names[0], scores[0], daily_optimal, data
            )
        return Stored(previous, is_new, earlier)


def stored_games(data: str | os.PathLike | None = None, rules_id: str | None = None) -> list[dict]:
    """The games in the database, oldest first: ``{"id", "path", "rules", "mode", "status", "players",
    "scores", "saved_at"}`` (see :func:`export_game` for the game itself).  ``path`` is where the
    row says the file is (``DATA/games/NAME.json``); :func:`game_path` says whether it may be used.
    A row whose players or scores are not JSON lists is skipped with a warning."""
    with _reading(data) as con:
        if con is None:
            return []
        sql = "SELECT id, path, rules, mode, status, players, scores, saved_at FROM games"
        rows = con.execute(
            sql + (" WHERE rules = ?" if rules_id else "") + " ORDER BY id", (rules_id,) if rules_id else ()
        ).fetchall()
    keys = ("id", "path", "rules", "mode", "status", "players", "scores", "saved_at")
    out = []
    for r in rows:
        g = dict(zip(keys, r, strict=True))
        g["players"], g["scores"] = (
            _row_json(g["id"], "players", g["players"]),
            _row_json(g["id"], "scores", g["scores"]),
        )
        if isinstance(g["players"], list) and isinstance(g["scores"], list):
            g["path"] = _shown_path(g["path"], data)
            out.append(g)
    return out


def _row_json(row_id, column: str, text):
    """The JSON of a column of games row ``row_id``, or None with a warning when it is not JSON."""
    where = f"game {row_id} of the records database: the {column} column"
    if not isinstance(text, str) or len(text) > MAX_GAME_BYTES:
        what = "NULL" if text is None else "not text" if not isinstance(text, str) else "too long"
        _warn(f"{where} is {what}: skipped")
        return None
    try:
        return loads(text)
    except (ValueError, RecursionError) as exc:
        why = clipped(str(exc), 100)
        _warn(f"{where} is not JSON ({why}): skipped")
        return None


def _row_game(row_id, text) -> dict | None:
    """The saved game of games row ``row_id``, or None with a warning when it is not one."""
    game = _row_json(row_id, "json", text)
    if game is not None and not isinstance(game, dict):
        _warn(f"game {row_id} of the records database is not a saved game (a JSON object): skipped")
        return None
    return game


def _row_path(row_id, text, data) -> Path | None:
    """The game file of games row ``row_id`` (:func:`game_path`), or None with a warning."""
    path = game_path(text, data)
    if path is None:
        _warn(
            f"game {row_id} of the records database names the file {_path_text(text)}, outside "
            f"{games_dir(data)}: skipped (game files are read and written there only)"
        )
    return path


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


# --- records -----------------------------------------------------------------------
def load_records(data: str | os.PathLike | None = None) -> dict:
    """All records as one dict (``{"format_version", "solo_best": {rules: {score, date, game}},
    "daily": {"DATE RULES": {name, score, optimal}}}``); raises :class:`RecordsError` when unreadable."""
    out = {"format_version": RECORDS_VERSION, "solo_best": {}, "daily": {}}
    with _reading(data) as con:
        if con is None:
            return out
        solo = con.execute("SELECT rules, score, date, game FROM solo_best").fetchall()
        daily = con.execute("SELECT date, rules, name, score, optimal FROM daily").fetchall()
    for rules_id, *row in solo:  # a row that is not a record is skipped with a warning
        entry = _solo_row(row, rules_id, data)
        if entry is not None and isinstance(rules_id, str):
            out["solo_best"][rules_id] = entry
    for row in daily:
        entry = _daily_row(row, data)
        if entry is not None:
            out["daily"][f"{entry['date']} {entry['rules']}"] = _day_result(entry)
    return out


def save_records(records: dict, data: str | os.PathLike | None = None) -> Path:
    """Replace every record by ``records`` (the :func:`load_records` shape), in one transaction."""
    with _transaction(data) as con:
        con.execute("DELETE FROM solo_best")
        con.execute("DELETE FROM daily")
        for rules_id, entry in records.get("solo_best", {}).items():
            game = stored_path(entry.get("game"), data)
            _offer_solo(con, rules_id, entry["score"], entry.get("date"), game, data)
        for key, entry in records.get("daily", {}).items():
            date, _, rules_id = key.partition(" ")
            _offer_daily(con, date, rules_id, entry.get("name"), entry["score"], entry.get("optimal"), data)
    return db_path(data)


def solo_best(rules_id: str, data: str | os.PathLike | None = None) -> dict | None:
    """The best solo game of a rule set (``{"score", "date", "game"}``), or ``None``."""
    with _reading(data) as con:
        if con is None:
            return None
        row = con.execute("SELECT score, date, game FROM solo_best WHERE rules = ?", (rules_id,)).fetchone()
    return _solo_row(row, rules_id, data)


def record_solo(
    rules_id: str, score: int, game_path: str | os.PathLike | None, data: str | os.PathLike | None = None
) -> tuple[dict | None, bool]:
    """Offer a finished solo score; returns (the previous best or ``None``, whether this is a new record)."""
    with _transaction(data) as con:
        return _offer_solo(con, rules_id, int(score), _today(), stored_path(game_path, data), data)


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
        return _offer_daily(con, date, rules_id, name, score, optimal, data)


def statistics(rules_id: str, data: str | os.PathLike | None = None) -> dict:
    """Finished solo games of a rule set: ``{"games", "best", "average"}`` (from the games table)."""
    with _reading(data) as con:
        row = (
            None
            if con is None
            else con.execute(
                "SELECT COUNT(*), MAX(json_extract(scores, '$[0]')), AVG(json_extract(scores, '$[0]'))"
                " FROM games WHERE rules = ? AND mode = 'solo' AND status = 'finished' AND json_valid(scores)",
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
                "SELECT date, rules, name, score, optimal FROM daily WHERE date = ? AND rules = ?",
                (date, rules_id),
            ).fetchone()
        )
    entry = None if row is None else _daily_row(row, data)
    return None if entry is None else _day_result(entry)


def _seed_column(seed) -> int | None:
    """A seed (0 to 2**64 - 1) as SQLite's signed 64-bit INTEGER holds it: the same bits, so a seed
    of 2**63 or more is stored (and found again) too; ``None`` for anything else."""
    if not _is_int(seed) or not 0 <= seed < 2**64:
        return None
    return seed - 2**64 if seed >= 2**63 else seed


def seed_played(rules_id: str, seed: int, data: str | os.PathLike | None = None) -> bool:
    """Whether a game of ``rules_id`` on seeded dice ``seed`` is in the database (a replay's dice are known)."""
    column = _seed_column(seed)
    if column is None:
        return False
    with _reading(data) as con:
        if con is None:
            return False
        row = con.execute(
            "SELECT 1 FROM games WHERE rules = ? AND dice = 'seeded' AND seed = ? LIMIT 1", (rules_id, column)
        ).fetchone()
    return row is not None


@dataclass(frozen=True)
class SavedGame:
    """A game of the database whose file lies in this data folder's games folder.

    ``name`` is the file's name (``<time>-<mode>-<rules>-<id>.json``): what a page or a request
    names the game by (stable while it is played on, unlike the row: that is replaced at every
    save); ``path`` the file (:func:`game_path` checked); ``rules``, ``mode``, ``status``,
    ``date`` (a daily's), ``players`` (names), ``scores`` and ``saved_at`` the row's columns;
    ``game`` the saved JSON kept in the database with it."""

    name: str
    path: Path
    rules: str
    mode: str | None
    status: str
    date: str | None
    players: list
    scores: list
    saved_at: str | None
    game: dict


#: the most saved games one listing (:func:`saved_games`) gives: the newest
MAX_LISTED = 100


def _saved_rows(data, where: str, args: tuple = (), limit: int = MAX_LISTED) -> list[SavedGame]:
    """The newest games rows matching ``where`` whose file is in this data folder's games folder
    and whose columns are what this program writes (the others skipped with a warning), at most
    ``limit`` of them."""
    out: list[SavedGame] = []
    with _reading(data) as con:
        if con is None:
            return out
        rows = con.execute(
            "SELECT id, path, rules, mode, status, date, players, scores, saved_at, json FROM games"
            f" WHERE path IS NOT NULL AND {where} ORDER BY id DESC",
            args,
        )
        for row_id, text, rules, mode, status, date, players, scores, saved_at, game_json in rows:
            path = _row_path(row_id, text, data)  # read only as far as needed
            if path is None:
                continue
            players, scores = _row_json(row_id, "players", players), _row_json(row_id, "scores", scores)
            game = (
                _row_game(row_id, game_json)
                if isinstance(players, list) and isinstance(scores, list)
                else None
            )
            if game is None or not isinstance(rules, str):
                continue
            out.append(
                SavedGame(
                    path.name,
                    path,
                    rules,
                    _text(mode),
                    str(status),
                    _text(date),
                    players,
                    scores,
                    _text(saved_at),
                    game,
                )
            )
            if len(out) >= limit:
                break
    return out


def saved_games(
    data: str | os.PathLike | None = None, *, finished: bool = False, limit: int = MAX_LISTED
) -> list[SavedGame]:
    """The newest unfinished games (in progress or abandoned: what ``play --resume`` goes on
    with) or, with ``finished``, the newest finished ones; at most ``limit``
    (:data:`MAX_LISTED`), newest first.  Rows whose file is not in this data folder's games
    folder, or whose game is not JSON, are skipped with a warning."""
    limit = max(1, min(int(limit), MAX_LISTED))
    return _saved_rows(data, "status = 'finished'" if finished else "status != 'finished'", limit=limit)


def saved_game(name: str, data: str | os.PathLike | None = None) -> SavedGame | None:
    """The game of the database whose file is ``games/NAME`` of this data folder (any status),
    or ``None``.  ``name`` is a file name, never a path: anything else is a
    :class:`~solver.core.errors.UsageError` (the file read is the database's, checked by
    :func:`game_path`, never one a caller names)."""
    from ..core.errors import UsageError

    if (
        not isinstance(name, str)
        or not 1 <= len(name) <= 255
        or not name.endswith(".json")
        or name.startswith(".")
        or any(c in name for c in "/\\\0")
        or not name.isprintable()
    ):
        raise UsageError(f"{shown(name)} is not the name of a saved game (NAME.json in {games_dir(data)})")
    found = _saved_rows(data, "path = ?", (f"games/{name}",), limit=1)
    return found[0] if found else None


def unfinished_game(data: str | os.PathLike | None = None) -> tuple[str, dict] | None:
    """The game saved last that is not finished (in progress or abandoned): ``(path, game JSON)``.

    Rows whose file is not in this data folder's games folder (:func:`game_path`), or whose game
    is not JSON, are skipped with a warning: resuming never writes anywhere else."""
    found = saved_games(data, limit=1)
    return (str(found[0].path), found[0].game) if found else None


def last_finished_path(data: str | os.PathLike | None = None) -> str | None:
    """The file of the game finished last (``yahtzee review --last``), or ``None``; rows whose file
    is not in this data folder's games folder are skipped with a warning."""
    with _reading(data) as con:
        rows = (
            []
            if con is None
            else con.execute(
                "SELECT id, path FROM games WHERE status = 'finished' AND path IS NOT NULL ORDER BY id DESC"
            ).fetchall()
        )
    for row_id, text in rows:
        path = _row_path(row_id, text, data)
        if path is not None:
            return str(path)
    return None


def _select(data, sql: str, rules_id: str | None, order: str) -> list:
    """The rows of ``sql`` (of one rule set, with ``rules_id``) ordered by ``order``; none when
    there is no database yet."""
    with _reading(data) as con:
        if con is None:
            return []
        args: tuple = ()
        if rules_id:
            sql, args = sql + (" AND" if " WHERE " in sql else " WHERE") + " rules = ?", (rules_id,)
        return con.execute(f"{sql} ORDER BY {order}", args).fetchall()


def finished_games(data: str | os.PathLike | None = None, rules_id: str | None = None) -> list[dict]:
    """Every finished game (of one rule set), oldest first, as its saved JSON (rows that are not
    saved games skipped with a warning)."""
    rows = _select(data, "SELECT id, json FROM games WHERE status = 'finished'", rules_id, "id")
    games = [_row_game(row_id, text) for row_id, text in rows]
    return [g for g in games if g is not None]


def daily_results(data: str | os.PathLike | None = None, rules_id: str | None = None) -> list[dict]:
    """The kept daily results, oldest date first: ``{"date", "rules", "name", "score", "optimal"}``
    (rows that are not results skipped with a warning)."""
    rows = _select(data, "SELECT date, rules, name, score, optimal FROM daily", rules_id, "date")
    results = [_daily_row(r, data) for r in rows]
    return [r for r in results if r is not None]

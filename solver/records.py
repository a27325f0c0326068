"""Saved games and personal records, in the user's data folder.

The folder is, first match wins: an explicit ``data_dir`` (``--data DIR``),
``$YAHTZEE_DATA``, ``$XDG_DATA_HOME/yahtzee-solver``, ``~/.local/share/yahtzee-solver``.
Inside it:

* ``games/<time>-<mode>-<rules>-<id>.json`` -- one file per game, finished or
  abandoned (the format is :meth:`solver.game.Game.to_dict`: rule set, mode,
  seed or date, players, every roll with its held dice and values, every box,
  final scores, format version);
* ``records.json`` -- the best solo score per rule set, and the daily results.

Every write goes to a temporary file in the same folder, is flushed to disk and
then renamed over the target (``os.replace``), so a crash or Ctrl-C leaves the
previous file or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path

from .errors import SolverError
from .fileio import atomic_write_text
from .game import Game, GameRecordError

ENV_VAR = "YAHTZEE_DATA"
APP_NAME = "yahtzee-solver"
RECORDS_FILE = "records.json"
RECORDS_VERSION = 1


class RecordsError(SolverError):
    """The records file cannot be read or written (exit code 1)."""


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


def new_game_path(game: Game, data: str | os.PathLike | None = None) -> Path:
    """A fresh file name for ``game`` under ``games/`` (time, mode, rule set, random id)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    mode = str(game.info.get("mode", "game"))
    return games_dir(data) / f"{stamp}-{mode}-{game.rules.id}-{secrets.token_hex(3)}.json"


def save_game(game: Game, path: str | os.PathLike, status: str | None = None) -> Path:
    """Write the game atomically (status ``finished``/``abandoned``/``in_progress``); returns the path."""
    record = game.to_dict(status)
    record["saved_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    path = Path(path)
    try:
        atomic_write_text(path, dumps_game(record))
    except OSError as exc:
        raise RecordsError(f"cannot save the game to {path}: {exc.strerror or exc}") from None
    return path


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


def read_game_file(path: str | os.PathLike) -> dict:
    """The JSON of a saved game; unreadable files raise :class:`GameRecordError` (exit 2)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GameRecordError(f"cannot read game file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise GameRecordError(f"game file {path} is not UTF-8 text") from None
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
def records_path(data: str | os.PathLike | None = None) -> Path:
    return data_dir(data) / RECORDS_FILE


def load_records(data: str | os.PathLike | None = None) -> dict:
    """The records (an empty set when none are saved yet); raises :class:`RecordsError` when unreadable."""
    path = records_path(data)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"format_version": RECORDS_VERSION, "solo_best": {}, "daily": {}}
    except OSError as exc:
        raise RecordsError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        records = json.loads(text)
        if not isinstance(records, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        raise RecordsError(f"records file {path} is unreadable ({exc}); it was left as it is") from None
    records.setdefault("format_version", RECORDS_VERSION)
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


def save_records(records: dict, data: str | os.PathLike | None = None) -> Path:
    path = records_path(data)
    try:
        atomic_write_text(path, json.dumps(records, indent=1, sort_keys=True) + "\n")
    except OSError as exc:
        raise RecordsError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def solo_best(rules_id: str, data: str | os.PathLike | None = None) -> dict | None:
    """The best solo game of a rule set (``{"score", "date", "game"}``), or ``None``."""
    entry = load_records(data)["solo_best"].get(rules_id)
    return entry if isinstance(entry, dict) and isinstance(entry.get("score"), int) else None


def record_solo(
    rules_id: str, score: int, game_path: str | os.PathLike | None, data: str | os.PathLike | None = None
) -> tuple[dict | None, bool]:
    """Offer a finished solo score; returns (the previous best or ``None``, whether this is a new record)."""
    records = load_records(data)
    previous = records["solo_best"].get(rules_id)
    if not (isinstance(previous, dict) and isinstance(previous.get("score"), int)):
        previous = None
    is_new = previous is None or score > previous["score"]
    if is_new:
        records["solo_best"][rules_id] = {
            "score": int(score),
            "date": time.strftime("%Y-%m-%d"),
            "game": str(game_path) if game_path else None,
        }
        save_records(records, data)
    return previous, is_new


def record_daily(
    date: str,
    rules_id: str,
    name: str,
    score: int,
    optimal: float | None,
    data: str | os.PathLike | None = None,
) -> dict | None:
    """Keep a daily result (the first finished game of the day counts); returns the earlier one, if any."""
    records = load_records(data)
    key = f"{date} {rules_id}"
    earlier = records["daily"].get(key)
    if isinstance(earlier, dict):
        return earlier
    records["daily"][key] = {"name": name, "score": int(score), "optimal": optimal}
    save_records(records, data)
    return None

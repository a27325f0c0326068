"""What a game is besides its moves: :class:`GameInfo`, a frozen, typed value saved with it.

The mode, the dice source (a seed, the day's dice, real dice), the computer's level, the help
used (hint, coach, undo), whether the dice were played before, the target of solo play: read
by the session, the records, the review and the statistics.  A saved game's entries are
checked by :meth:`GameInfo.parse` before anything reads them (files are data); entries this
version does not know are kept as they were read and written back.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ..core.bounded import MAX_TARGET, shown, whole_value
from ..core.errors import UsageError
from ..core.streams import MAX_SEED, STREAM_VERSION

#: a word of a saved game's metadata (a mode, a level, a kind of help): never a path or markup
WORD_PATTERN = re.compile(r"[a-z][a-z0-9-]{0,31}")
#: the most turns a game's ``win_from`` may name (a card has far fewer boxes)
MAX_TURNS = 1000
#: a date of a saved game (the daily's): YYYY-MM-DD
DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True)
class GameInfo:
    """A game's metadata.  ``mode``: solo, vs-computer, hot-seat or daily (``None``: a file
    that does not say); ``dice``: seeded, daily or real; ``seed`` / ``date``: the seeded game's
    seed, the daily's date; ``stream_version``: the dice stream's version; ``level``: the
    computer's; ``client``: ``web`` for a game played in the browser; ``coach``: the coach is
    on; ``assisted``: the help used, in order; ``replay``: the dice were played before;
    ``target`` / ``target_goal``: solo play for a score; ``win_from``: the computer playing to
    win played its first ``win_from`` turns for expected score (its target table was being made
    in the background); ``extra``: entries this version does not know, ``(key, value)`` as read."""

    mode: str | None = None
    dice: str | None = None
    seed: int | None = None
    date: str | None = None
    stream_version: int | None = None
    level: str | None = None
    client: str | None = None
    coach: bool = False
    assisted: tuple[str, ...] = ()
    replay: bool = False
    target: int | None = None
    target_goal: str | None = None
    win_from: int | None = None
    extra: tuple[tuple[str, object], ...] = ()

    @classmethod
    def parse(cls, data: dict | GameInfo | None, *, error: type[Exception] = UsageError) -> GameInfo:
        """The info of a dict (a saved game's entries besides its moves, or what a surface
        gives ``Game.new``), checked: the mode and level are words, the date is ``YYYY-MM-DD``,
        the seed and the target whole numbers in range (never a bool or a float; a seed of
        2**64 + 1 is not seed 1), ``assisted`` a list of words; ``error`` is raised otherwise."""
        if isinstance(data, GameInfo):
            return data
        data = dict(data or {})
        for key, what in (("mode", "a game mode"), ("level", "a computer level")):
            if key in data and not (isinstance(data[key], str) and WORD_PATTERN.fullmatch(data[key])):
                raise error(f"{key}: {shown(data[key])} is not {what}")
        if "date" in data and not (isinstance(data["date"], str) and DATE_PATTERN.fullmatch(data["date"])):
            raise error(f"date: {shown(data['date'])} is not a date")
        if "seed" in data:
            if not _is_whole(data["seed"]):
                raise error(f"seed: {shown(data['seed'])} is not a whole number")
            whole_value(data["seed"], "seed", 0, MAX_SEED, error=error)
        if "target" in data:
            whole_value(data["target"], "target", 1, MAX_TARGET, error=error)
        if "win_from" in data:
            if not _is_whole(data["win_from"]):
                raise error(f"win_from: {shown(data['win_from'])} is not a whole number")
            whole_value(data["win_from"], "win_from", 0, MAX_TURNS, error=error)
        assisted = data.get("assisted")
        if assisted is not None and not (
            isinstance(assisted, (list, tuple))
            and all(isinstance(a, str) and WORD_PATTERN.fullmatch(a) for a in assisted)
        ):
            raise error(f"assisted: {shown(assisted)} is not a list of the help used (hint, coach, undo)")
        dice = data.get("dice")
        if dice is not None and dice not in ("seeded", "daily", "real"):
            raise error(f"dice: {shown(dice)} is not seeded, daily or real")
        if dice in ("seeded", "daily") and "stream_version" in data:
            version = data["stream_version"]
            if not _is_whole(version) or version != STREAM_VERSION:
                raise error(
                    f"stream_version: {shown(version)} is not a dice stream this version can replay"
                    f" (it knows {STREAM_VERSION})"
                )
        known = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        values = {k: data[k] for k in known if k in data}
        values["coach"] = bool(values.get("coach", False))
        values["replay"] = bool(values.get("replay", False))
        values["assisted"] = tuple(assisted or ())
        for key in ("client", "target_goal"):
            if key in values and not isinstance(values[key], str):
                values[key] = str(values[key])
        extra = tuple((k, v) for k, v in data.items() if k not in known)
        return cls(**values, extra=extra)

    def to_dict(self) -> dict:
        """The entries saved in the game's file: those that are set, in this order."""
        out: dict = {}
        for f in dataclasses.fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if value is None or value is False or value == ():
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out | dict(self.extra)

    def replace(self, **changes) -> GameInfo:
        """A copy with ``changes`` (``info.replace(coach=True)``)."""
        return dataclasses.replace(self, **changes)

    def with_help(self, how: str) -> GameInfo:
        """A copy with ``how`` (hint, coach, undo) added to the help used (once)."""
        return self if how in self.assisted else self.replace(assisted=(*self.assisted, how))


def _is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)

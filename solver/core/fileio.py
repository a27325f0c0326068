"""Atomic file writes: a temporary file in the same folder, fsync, then rename.

A reader sees the old file or the new one, never half of one; an interrupted
write (Ctrl-C) removes its temporary file, and one killed outright leaves a hidden
``.name.PID.*.tmp`` file behind, which :func:`remove_stale_temporaries` (run by
the next table build in that folder) or :func:`remove_stale_temporaries_of` (run by the next
write of that file, e.g. an export) deletes once process PID is gone.  The file
gets the mode a plain ``open`` would give it: ``0o666`` less the umask.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

_TEMPORARY = re.compile(r"\..+?(?:\.(?P<pid>[0-9]+))?\.[A-Za-z0-9_]+\.tmp")
_UNTAGGED_AGE = 3600.0  # seconds: a temporary file without a writer's PID (written by 1.x) this old is stale


def current_umask() -> int:
    """The process umask (read from /proc where it can be, without changing it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> None:
    """Write ``path`` through ``write(fileobj)`` on a temporary file, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):  # never rename over a device, FIFO or folder
        raise OSError(errno.EEXIST, "exists and is not a regular file", str(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fchmod(fh.fileno(), 0o666 & ~current_umask())  # mkstemp makes it 0600
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    except (OverflowError, ValueError):
        return False  # a number no process can have
    return True


def remove_stale_temporaries(folder: str | os.PathLike, suffixes: tuple[str, ...]) -> list[Path]:
    """Delete the temporary files :func:`atomic_write` left in ``folder`` for files ending in one
    of ``suffixes`` when the process that wrote them is gone (killed mid-write); returns them."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        if not match or not any(f"{suffix}." in entry.name for suffix in suffixes):
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        if match["pid"] is not None:
            if _alive(int(match["pid"])):
                continue
        else:
            try:
                if time.time() - entry.stat(follow_symlinks=False).st_mtime < _UNTAGGED_AGE:
                    continue
            except OSError:
                continue
        try:
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            pass
    return removed


def remove_stale_temporaries_of(path: str | os.PathLike) -> list[Path]:
    """Delete what :func:`atomic_write` left of ``path`` when it was killed mid-write (``kill -9``,
    a power cut): the hidden ``.NAME.PID.xxxxxxxx.tmp`` files beside it -- exactly that name,
    PID and mkstemp's 8 characters -- whose process PID is gone; returns them.  Another program's
    file, a folder or link of that name and a live writer's file are kept."""
    path = Path(path)
    pattern = re.compile(re.escape(f".{path.name}.") + r"(?P<pid>[0-9]{1,10})\.[a-z0-9_]{8}\.tmp")
    removed = []
    try:
        entries = [e for e in os.scandir(path.parent) if e.name.startswith(f".{path.name}.")]
    except OSError:
        return removed
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if not match or not entry.is_file(follow_symlinks=False) or _alive(int(match["pid"])):
            continue
        try:
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            pass
    return removed


def file_kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


class NotRegularFileError(ValueError):
    """A FIFO, device, folder or socket where a file should be."""


def open_regular(path: str | os.PathLike, max_bytes: int | None = None):
    """Open ``path`` for reading in binary mode, only if it is a regular file (no FIFO,
    device or folder: those could block or never end) of at most ``max_bytes``.

    Raises :class:`OSError` for what the system refuses (missing, permission denied),
    :class:`NotRegularFileError` for a special file and :class:`ValueError` for one too big.
    """
    path = os.fspath(path)
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFileError(f"{path} is {file_kind(info.st_mode)}, not a regular file")
    # O_NONBLOCK: should a FIFO replace the file between stat and open, open does not block
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(f"{path} is {file_kind(info.st_mode)}, not a regular file")
        if max_bytes is not None and info.st_size > max_bytes:
            raise ValueError(f"{path} is {info.st_size} bytes, more than the {max_bytes} allowed")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def json_depth_ok(text: str, limit: int) -> bool:
    """Whether the JSON text nests at most ``limit`` deep (brackets outside strings), checked
    before parsing: :func:`json.loads` recurses once per level."""
    depth = 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        t = token.group()
        if t in "[{":
            depth += 1
            if depth > limit:
                return False
        elif t in "]}":
            depth -= 1
    return True

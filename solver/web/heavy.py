"""Long computations of ``yahtzee serve`` (a distribution, a table build), bounded.

A distribution from an early card under target play takes minutes and gigabytes; a table
build seconds to minutes.  The server never runs such work in its own process: each job is
the CLI itself (``python -m solver distribution --json ...``, ``python -m solver tables
build ...``, so the answer is exactly the CLI's) in a child process that

* runs one at a time (the others wait in a short queue; past it, a 503 at once, with
  ``Retry-After``),
* has an address-space ceiling (``RLIMIT_AS``, :attr:`HeavyWork.memory_bytes`) and a
  deadline (:attr:`HeavyWork.seconds`): past either it stops, and the request says so,
* is killed as soon as the client that asked goes away (while it waits, too).

Hints and everything else keep answering meanwhile: they never wait for this queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from dataclasses import dataclass

#: default address-space ceiling of one job (the distribution from the empty ``yahtzee``
#: card under expected-score play needs about 2 GB resident)
MEMORY_BYTES = 3 * 1024**3
#: default wall-clock limit of one job, in seconds
SECONDS = 120.0
#: jobs that may wait for the running one; more are refused at once
MAX_WAITING = 4
#: seconds a client refused for a full queue is asked to wait (``Retry-After``)
RETRY_AFTER_S = 10
#: the most output read back from a job (a distribution's JSON is a few tens of KiB)
MAX_OUTPUT = 8 * 1024 * 1024
#: how often a waiting or running job checks whether its client is still there, in seconds
POLL_S = 0.1
#: the child: the CLI (``python -m solver ARGS``), which the kernel kills if the server dies first
#: (Linux ``PR_SET_PDEATHSIG``; it may have died before that was set: then the child stops)
CHILD = """
import os, signal, sys
parent = int(os.environ.get("YAHTZEE_JOB_PARENT", "0"))
try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
except (OSError, AttributeError):
    pass
if parent and os.getppid() != parent:
    sys.exit(1)
import runpy
sys.argv[0] = "yahtzee"
runpy.run_module("solver", run_name="__main__", alter_sys=True)
"""


class JobRefused(Exception):
    """A job that did not run or did not finish: HTTP ``status``, a one-line ``message`` and,
    for a full queue, the seconds to wait before trying again (``retry_after``)."""

    def __init__(self, status: int, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


class ClientGone(Exception):
    """The client went away; the job was stopped (nothing to answer)."""


@dataclass(frozen=True)
class JobResult:
    """What the CLI child did: its exit code, stdout and the last line of its stderr."""

    returncode: int
    stdout: bytes
    error_line: str


class HeavyWork:
    """The queue of long jobs of one server (see the module doc)."""

    def __init__(
        self, memory_bytes: int = MEMORY_BYTES, seconds: float = SECONDS, max_waiting: int = MAX_WAITING
    ):
        self.memory_bytes, self.seconds, self.max_waiting = (
            int(memory_bytes),
            float(seconds),
            int(max_waiting),
        )
        self._slot: asyncio.Lock | None = None
        self._admitted = 0  # the job running and those waiting for it
        #: the process id of the job running now (None when none), for tests and the log
        self.running_pid: int | None = None

    async def run(self, argv: list[str], disconnected) -> JobResult:
        """Run ``python -m solver *argv`` as a bounded job; ``disconnected()`` (awaitable) tells
        whether the client has gone.  Raises :class:`JobRefused` or :class:`ClientGone`."""
        if self._slot is None:
            self._slot = asyncio.Lock()
        # admitted = the one running + those waiting, counted before any await: requests that
        # arrive together are admitted one at a time, the queue bound holds for all of them
        if self._admitted >= 1 + self.max_waiting:
            raise JobRefused(
                503,
                f"the server is busy with long computations ({self._admitted - 1} waiting); "
                f"try again in {RETRY_AFTER_S} s",
                retry_after=RETRY_AFTER_S,
            )
        self._admitted += 1
        try:
            while True:
                try:
                    await asyncio.wait_for(self._slot.acquire(), POLL_S)
                    break
                except TimeoutError:
                    if await disconnected():
                        raise ClientGone from None
            try:
                return await self._run_child(argv, disconnected)
            finally:
                self._slot.release()
        finally:
            self._admitted -= 1

    async def _run_child(self, argv: list[str], disconnected) -> JobResult:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-P",  # the current folder is not put on the child's sys.path: nothing there is imported
            "-c",
            CHILD,
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own process group: killed as a whole
            env=dict(os.environ, YAHTZEE_JOB_PARENT=str(os.getpid())),
        )
        self.running_pid = proc.pid
        limit_memory(proc.pid, self.memory_bytes)
        out = asyncio.ensure_future(_read_at_most(proc.stdout, MAX_OUTPUT))
        err = asyncio.ensure_future(_read_at_most(proc.stderr, MAX_OUTPUT, keep="tail"))
        ended = asyncio.ensure_future(proc.wait())  # one waiter, polled (never one per poll)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        try:
            while not ended.done():
                await asyncio.wait({ended}, timeout=POLL_S)
                if ended.done():
                    break
                if await disconnected():
                    raise ClientGone
                if loop.time() > deadline:
                    raise JobRefused(
                        422,
                        f"this takes longer than the server's limit of {self.seconds:g} s per request; "
                        "run it in the terminal (yahtzee ...) instead",
                    )
            stdout, stderr = await out, await err
        finally:
            if proc.returncode is None:
                _kill_group(proc.pid)
                await proc.wait()
            for task in (out, err, ended):
                task.cancel()
            self.running_pid = None
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        last = next((line for line in reversed(lines) if line.strip()), "")
        # the CLI's own words for the machine's limits (exit 1), never a user's text that says so
        # (a thread that cannot start under the cap is the cap too: its line goes on "try --threads
        # 1"); and a crash of native code (numba, LLVM) failing an allocation under the cap: at a
        # 400 MB cap under load `yahtzee distribution` died of SIGSEGV in 2 runs of 8, the others
        # exiting 1 with the out-of-memory line
        if (
            proc.returncode == 1
            and (
                last.startswith("yahtzee: error: out of memory")
                or (last.startswith("yahtzee: error: ") and "; is memory limited (ulimit -v)?" in last)
            )
        ) or proc.returncode in CAP_CRASHES:
            raise JobRefused(
                422,
                f"this needs more memory than the server allows one request ({self.memory_bytes / 1024**3:.3g} GiB); "
                "run it in the terminal (yahtzee ...) instead",
            )
        return JobResult(proc.returncode, stdout, last)


#: how a child dies when native code fails an allocation under the address-space cap
CAP_CRASHES = frozenset(-s for s in (signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT))


def limit_memory(pid: int, memory_bytes: int) -> None:
    """Cap the address space of process ``pid`` (Linux ``prlimit``; elsewhere, the deadline alone)."""
    try:
        import resource

        resource.prlimit(pid, resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    except (ImportError, AttributeError, OSError, ValueError):  # no prlimit here, or it has ended
        pass


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def _read_at_most(stream, limit: int, keep: str = "head") -> bytes:
    """Everything ``stream`` gives, keeping its first (``keep="head"``: an answer) or its last
    (``"tail"``: the error line after the progress bars) ``limit`` bytes; the rest is read and
    dropped, so the child never blocks on a full pipe."""
    kept = bytearray()
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            return bytes(kept)
        if keep == "tail":
            kept += chunk
            del kept[: max(0, len(kept) - limit)]
        elif len(kept) < limit:
            kept += chunk[: limit - len(kept)]

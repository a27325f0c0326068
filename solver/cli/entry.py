"""Command line: ``yahtzee <command> ...`` (also ``python -m solver``).

Every command lives in :mod:`solver.cli` as a module with ``register(subparsers)``;
heavy imports happen inside the command, so ``yahtzee hint`` starts fast.
Results go to stdout, progress and errors to stderr.  Exit codes: 0 ok,
1 runtime failure, 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..core.errors import SolverError, out_of_memory, printable

# command word -> module of solver.cli that registers it
COMMAND_MODULES = {
    "hint": "hint",
    "value": "hint",
    "tables": "tables",
    "simulate": "simulate",
    "match": "match",
    "play": "play",
    "review": "review",
    "rules": "rules",
    "stats": "stats",
    "distribution": "distribution",
    "serve": "serve",
    "export": "export",
    "bound": "bound",
}


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``command`` only that command's module is imported.

    Registering a command may import what its help text needs, so ``yahtzee hint``
    registers just ``hint`` and starts fast; ``yahtzee --help`` registers all.
    """
    from ..core import VERSION

    parser = _Parser(
        prog="yahtzee",
        description="Exact optimal Yahtzee and Yatzy: hints, tables, simulation, play.",
    )
    parser.add_argument("--version", action="version", version=f"yahtzee-solver {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    if command in COMMAND_MODULES:
        modules = [COMMAND_MODULES[command]]
    else:
        modules = list(dict.fromkeys(COMMAND_MODULES.values()))
    for name in modules:
        importlib.import_module(f".{name}", __package__).register(sub)
    return parser


def _command_of(argv: list[str]) -> str | None:
    """The command word of ``argv`` (the first argument not starting with '-')."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (tests call it in-process).

    Whatever happens, one line on stderr instead of a traceback: besides the
    :class:`SolverError` family, a closed or full stdout (exit 1; a closed pipe such as
    ``| head`` exits 0), out of memory and a failing numba compiler (exit 1, e.g. under a
    small ``ulimit -v``).  Output that the terminal's encoding cannot show is replaced
    (``?``), and a stderr that goes away (a progress bar's reader closed) is ignored.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    _open_missing_std_fds()
    saved = sys.stdout, sys.stderr
    sys.stderr = _Guarded(_replacing(sys.stderr))
    if sys.stdout is None:
        _say("yahtzee: error: stdout is closed: there is nowhere to write the results")
        sys.stderr = saved[1]
        return 1
    sys.stdout = _replacing(sys.stdout)
    try:
        return _run(argv)
    finally:
        sys.stdout, sys.stderr = saved


def _with_compile_bar(args, command: str | None) -> int:
    """``args.func(args)``, a bar on stderr while numba compiles a kernel (:mod:`solver.engine.compiling`)
    unless ``--quiet``; not under ``play`` and ``serve``, whose screens are their own."""
    from ..engine import compiling

    compiling.enable(command not in ("play", "serve") and not getattr(args, "quiet", False))
    try:
        return args.func(args) or 0
    finally:
        compiling.enable(False)


def _run(argv: list[str]) -> int:
    try:
        short = _numpy_cannot_start()
        if short is not None:
            _say(f"yahtzee: error: {short}")
            return 1
        parser = build_parser(_command_of(argv))
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # argparse --help / usage errors
            code = int(exc.code or 0)
        else:
            _refuse_six_dice(args, _command_of(argv))
            code = int(_with_compile_bar(args, _command_of(argv)))
        sys.stdout.flush()  # a full disk shows here, not after main has returned
        return code
    except SolverError as exc:  # a message may quote a path or name the user gave: escape it
        from .remedy import error_text

        _say(f"yahtzee: error: {printable(error_text(exc))}")
        return exc.exit_code
    except KeyboardInterrupt as exc:
        if _blas_could_not_start(exc):
            _flush_or_drop()
            _say(f"yahtzee: error: {BLAS_FAILED}")
            return 1
        _say("yahtzee: interrupted")
        return 130
    except BrokenPipeError:  # the reader went away (``| head``): nothing more to say
        _drop_stdout()
        return 0
    except Exception as exc:
        message = _failure(exc)
        if message is None:
            raise
        _flush_or_drop()
        _say(f"yahtzee: error: {printable(message)}")
        return 1


def _refuse_six_dice(args, command: str | None) -> None:
    """A usage error when a command that does not take six dice yet is given a six-dice rule set
    (``--rules maxi``): one line naming the commands that do, not a crash deep inside."""
    from ..core.rules import SIX_DICE_COMMANDS, get_rules

    specs = getattr(args, "rules", None)
    if specs is None:
        return
    sub = getattr(args, "tables_command", None)
    words = (command, sub) if command == "tables" and isinstance(sub, str) else (command,)
    target = getattr(args, "target", None) not in (None, False)  # hint's T, tables build's flag
    if words in SIX_DICE_COMMANDS and not target:
        return
    for spec in [specs] if isinstance(specs, str) else specs:
        get_rules(spec).require_five_dice(f"yahtzee {' '.join(words)}" + (" --target" if target else ""))


def _failure(exc: BaseException) -> str | None:
    """One line for an exception that is the machine's, not a bug: None for a bug (traceback)."""
    limit = "is memory limited (ulimit -v)?"
    if out_of_memory(exc):  # before OSError: ENOMEM is not a file that cannot be read
        if isinstance(exc, ImportError):
            detail = "a compiled library could not be loaded"
        else:
            detail = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
        return f"out of memory{f' ({detail})' if detail else ''}; {limit}"
    if _raised_in(exc, ("numba", "llvmlite")):
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return f"the numba compiler failed ({type(exc).__name__}: {first}); {limit}"
    if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc):
        return f"cannot start a thread ({exc}); {limit} try --threads 1"
    if isinstance(exc, OSError):
        where = f" {exc.filename!r}" if exc.filename else (" the output" if _stdout_failed(exc) else "")
        return f"cannot read or write{where}: {exc.strerror or exc}"
    return None


#: what stands for OpenBLAS's own words when it cannot start under a small ``ulimit -v``
BLAS_FAILED = (
    "out of memory: numpy's BLAS library could not start (it ends or interrupts the process "
    "then); is memory limited (ulimit -v)? OPENBLAS_NUM_THREADS=1 may help"
)
#: the variables OpenBLAS reads its thread count from, in its order
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _address_space_limited() -> bool:
    try:
        import resource

        return resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY
    except (ImportError, OSError, ValueError):  # not on Unix
        return False


def _numpy_cannot_start() -> str | None:
    """Under a limited address space (``ulimit -v``) and before numpy is imported: the line to
    say if ``import numpy`` cannot start, else None (also where nothing is limited: no cost).

    ``import numpy`` loads OpenBLAS, which starts a thread per core, each with its buffer; where
    they do not fit, it prints its own lines and either raises SIGINT (see
    :func:`_blas_could_not_start`) or calls C's ``exit(1)``, which no Python code sees.  So here
    OpenBLAS gets one thread (numpy's BLAS does nothing here that threads speed up) unless the
    user chose a number, and the import is tried first in a forked child whose output is
    dropped; numpy is then imported here, in the same address space: exact, and only paid
    (about 0.1 s) under a limit."""
    import os

    if "numpy" in sys.modules or not _address_space_limited() or not hasattr(os, "fork"):
        return None
    if not any(os.environ.get(name) for name in BLAS_THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"  # read when OpenBLAS loads, here and in children
    failed = BLAS_FAILED
    if os.environ.get("OPENBLAS_NUM_THREADS") == "1":  # no advice to do what is done
        failed = failed.partition("? ")[0] + "?"
    try:
        pid = os.fork()
    except OSError:  # no process to spare: the import below tells
        pid = None
    if pid == 0:  # the child: import numpy, say nothing, report by the exit status only
        code = 1  # OpenBLAS's own exit, its interrupt, and out of memory however numpy words it
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            import numpy  # noqa: F401

            code = 0
        except ImportError as exc:
            code = 1 if out_of_memory(exc) else 3  # missing or broken: the real import says so
        except BaseException:  # noqa: BLE001, S110 - e.g. SystemError from numpy's C init, short of memory
            pass
        finally:
            os._exit(code)
    if pid is not None:
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) in (1, -2):  # -2: killed by its interrupt
            return failed
    # numpy now, in the address space the child had: what the command imports later takes room
    # that OpenBLAS's buffer may need, and it would end the process with its own line
    try:
        import numpy  # noqa: F401
    except ImportError as exc:
        if out_of_memory(exc):
            return failed
        raise
    except (KeyboardInterrupt, MemoryError, SystemError):  # short of memory all the same
        return failed
    return None


def _blas_could_not_start(exc: KeyboardInterrupt) -> bool:
    """Whether an interrupt is OpenBLAS's, not Ctrl-C: loaded by ``import numpy``, it raises
    SIGINT itself when it cannot create its threads (a small ``ulimit -v``), so the interrupt
    arrives in numpy's module code while the address space is limited."""
    import os

    tb = exc.__traceback__
    if tb is None or not _address_space_limited():
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    return code.co_name == "<module>" and "numpy" in os.path.normpath(code.co_filename).split(os.sep)


def _raised_in(exc: BaseException, packages: tuple[str, ...]) -> bool:
    """Whether ``exc`` was raised in (or passed through) one of ``packages``."""
    import os

    if type(exc).__module__.split(".")[0] in packages:
        return True
    tb = exc.__traceback__
    while tb is not None:
        parts = os.path.normpath(tb.tb_frame.f_code.co_filename).split(os.sep)
        if any(p in parts for p in packages):
            return True
        tb = tb.tb_next
    return False


def _stdout_failed(exc: OSError) -> bool:
    import errno

    return exc.errno in (errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EPIPE, errno.EBADF)


#: the longest error line written (a message that quotes a 5,000-character path or value is cut)
MAX_LINE = 1000


def _say(line: str) -> None:
    """A line on stderr (at most :data:`MAX_LINE` characters), if there is one to write to."""
    if len(line) > MAX_LINE:  # cut in the middle: the end often says why
        line = line[: MAX_LINE * 2 // 3] + " ... " + line[-(MAX_LINE // 3 - 5) :]
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def _flush_or_drop() -> None:
    """Deliver what stdout holds, or drop it if it cannot be written."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _drop_stdout()


def _drop_stdout() -> None:
    """Point the process's stdout at /dev/null so the interpreter's last flush cannot fail again
    (only when ``sys.stdout`` is the process's own: not under a test's capture)."""
    import os

    if sys.stdout is not sys.__stdout__:
        return
    try:
        fd = sys.__stdout__.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def _open_missing_std_fds() -> None:
    """Give a closed stdin/stdout/stderr descriptor /dev/null, so that no file this process opens
    takes its number (and receives what was meant for the terminal); ``sys.stdout`` stays None."""
    import os

    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            except OSError:
                pass
    if sys.stderr is None:
        try:
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115 - lives as long as the process
        except OSError:
            pass


def _replacing(stream):
    """``stream``, replacing what its encoding cannot show (an ASCII or latin-1 terminal and
    "—" or "Zoë") instead of raising :class:`UnicodeEncodeError`."""
    import codecs

    reconfigure = getattr(stream, "reconfigure", None)
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        strict = getattr(stream, "errors", "strict") == "strict"  # stderr's default is backslashreplace
        if reconfigure is not None and strict and codecs.lookup(encoding).name != "utf-8":
            reconfigure(errors="replace")
    except (LookupError, ValueError, OSError):
        pass
    return stream


class _Guarded:
    """stderr that never raises: progress and messages are lost, not the command, when the
    reader of stderr goes away (a closed pipe) or it cannot be written."""

    def __init__(self, stream):
        self._stream = stream
        self._broken = stream is None

    def write(self, text: str) -> int:
        if not self._broken:
            try:
                return self._stream.write(text)
            except (OSError, ValueError):
                self._broken = True
        return len(text)

    def flush(self) -> None:
        if not self._broken:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._broken = True

    def isatty(self) -> bool:
        try:
            return not self._broken and self._stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name):
        return getattr(self._stream, name)


if __name__ == "__main__":
    sys.exit(main())

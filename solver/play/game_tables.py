"""Where a game's tables come from (:class:`GameTables`: the advisor, the computer players, the
target table behind the chances to win and the ``win`` level) and the ``win`` level's tables made
in the background while the game goes on (:class:`WinTablesLater`); a
:class:`~solver.play.session.Session` is given its tables by the surface."""

from __future__ import annotations

import threading


class WinTablesLater:
    """The ``win`` level's tables being made in the background (a target table built by a child
    process, or read from its file) while the game goes on: the computer plays for expected
    score until they are ready (:meth:`Session.play_win_later`).

    ``make()`` runs in a daemon thread and returns when the tables are ready (its value is not
    used: the session asks its tables object for the ``win`` bot then); ``what``: ``build`` or
    ``load``; ``seconds``: the estimate (``None``: unknown); ``stop()``: what ends the making
    early (the child build stopped when the game stops).  :meth:`ready` is whether the making
    is over, :attr:`error` the one line of one that failed."""

    def __init__(self, make, *, what: str = "build", seconds: float | None = None, stop=None):
        self.what, self.seconds = what, seconds
        self.error: str | None = None
        self._stop = stop
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(make,), name="win-tables", daemon=True)
        self._thread.start()

    def _run(self, make) -> None:
        try:
            make()
        except BaseException as exc:  # noqa: BLE001 - any failure is the game's warning, in one line
            self.error = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        finally:
            self._done.set()

    def ready(self) -> bool:
        """Whether the making is over (done, or failed: :attr:`error`)."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the making to end; whether it has."""
        return self._done.wait(timeout)

    def stop(self) -> None:
        """End the making now (the game is over or stopped); nothing half-made is kept."""
        if self._stop is not None and not self._done.is_set():
            self._stop()


class GameTables:
    """Where a session's tables come from: the advisor, the computer players, the target table
    behind the chances to win and the ``win`` level.

    ``build``: a missing value table is built (progress on stderr, ``progress``) -- the
    terminal's way; the web app never builds in a request.  ``programs``: ``cmd:`` seats may
    run their program (the user's own command line, never a saved game or a request).  A
    surface with tables shared between games (the web app) passes an object with the same
    four methods.
    """

    def __init__(self, tables_dir=None, *, build: bool = True, progress: bool = True, programs: bool = False):
        self.tables_dir, self.build, self.progress, self.programs = tables_dir, build, progress, programs
        self._advisors: dict[str, object] = {}
        self._win: dict[str, tuple | None] = {}

    def _builds(self, rules) -> bool:
        """Whether a missing table of ``rules`` is built here: never six dice's (Maxi Yatzy's
        takes minutes, not the moments a game waits; the message names its build command)."""
        return self.build and rules.n_dice == 5

    def advisor(self, rules):
        """The expected-score advisor of ``rules``."""
        if rules.id not in self._advisors:
            from ..advice import load_advisor

            self._advisors[rules.id] = load_advisor(
                rules, self.tables_dir, build_if_missing=self._builds(rules), progress=self.progress
            )
        return self._advisors[rules.id]

    def bot(self, name: str, rules):
        """The computer player ``name`` (a builtin bot, or a ``cmd:`` program when ``programs``)."""
        from .bots import WinBot, get_bot
        from .protocol import is_protocol_bot

        if name == "win":
            parts = self.win_parts(rules)
            if parts is not None:
                return WinBot(*parts)
        program = self.programs and is_protocol_bot(name)
        return get_bot(
            name,
            rules,
            self.tables_dir,
            build_if_missing=self._builds(rules),
            progress=self.progress,
            user_bots=program,
        )

    def win_parts(self, rules):
        """``(advisor, target table)`` of ``rules``, or ``None`` when the target table is not built
        (never built for this: minutes; ``yahtzee tables build --target``) or the rule set has none."""
        if rules.triple:
            return None
        if rules.id not in self._win:
            from ..core.errors import MissingTableError
            from ..engine.target import load_target

            try:
                table = load_target(rules, self.tables_dir)
            except MissingTableError:
                self._win[rules.id] = None
            else:
                self._win[rules.id] = (self.advisor(rules), table)
        return self._win[rules.id]

    def win_later(self, rules) -> WinTablesLater | None:
        """The ``win`` level's tables made in the background: the target table built by a child
        process (``yahtzee tables build --target --quiet``: the game's process stays free, a
        Ctrl-C at the prompt is the game's), then read with the opponent model.  ``None`` when
        it is built already or the rule set has none (the triple card)."""
        if rules.triple or self.win_parts(rules) is not None:
            return None
        import os
        import signal
        import subprocess
        import sys

        from ..core.errors import TableError
        from ..engine.target import build_estimate

        command = [
            sys.executable,
            "-m",
            "solver",
            "tables",
            "build",
            "--target",
            "--quiet",
            "--rules",
            rules.id,
        ]
        if self.tables_dir is not None:
            command += ["--tables", os.fspath(self.tables_dir)]
        child = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # the terminal's Ctrl-C goes to the game, which stops the build
        )

        def make() -> None:
            _, err = child.communicate()
            if child.returncode != 0:
                said = [line for line in err.decode(errors="replace").splitlines() if line.strip()]
                raise TableError(said[-1] if said else f"the build stopped (exit status {child.returncode})")
            self._win.pop(rules.id, None)  # read afresh: built now
            parts = self.win_parts(rules)
            if parts is None:
                raise TableError("the build ended without its table")
            from ..advice.win import WinAdvisor

            WinAdvisor(*parts)  # the opponent model solved now, not in the computer's turn

        def stop() -> None:
            if child.poll() is not None:
                return
            if os.name == "posix":
                child.send_signal(signal.SIGINT)  # the build's own Ctrl-C: nothing half-built is kept
            else:  # pragma: no cover - Windows
                child.terminate()
            try:
                child.wait(5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()

        return WinTablesLater(make, what="build", seconds=build_estimate(rules, probe=True)[1], stop=stop)

    def best_bot(self, rules):
        """The best player of the rule set (the optimal one; the triple player on the triple card)."""
        from .bots import get_bot
        from .daily import best_bot_name

        return get_bot(
            best_bot_name(rules),
            rules,
            self.tables_dir,
            build_if_missing=self._builds(rules),
            progress=self.progress,
        )

"""A simulation split by game ranges: over local worker processes or a Dask cluster.

Games are independent and seeded by index (game ``g`` of seed ``s`` has its own dice stream),
so ``games`` games starting at ``game0`` can be played as pieces ``[a, b)`` anywhere and put
back together in game order: the per-game results are exactly those of one local run (same
scores, same bonuses, same per-game losses when graded), and every statistic computed from
them is too.  Sums kept per turn and per box (the regret's breakdown) are added piece by piece,
so they agree with a local run to the last bits of the additions only.

* ``workers=N``: ``N`` local processes, this one included: ``N - 1`` spawned workers
  (``concurrent.futures``; each imports the package and loads the compiled kernels from the
  numba cache, a second or more) and this process, which plays pieces from the first while
  the workers start and take pieces from the last (:func:`_run_local`): a worker that is
  slow to start costs the run no more than its own pieces, and a run too short for workers to
  pay is said so (:attr:`Split.note`).
* ``cluster="tcp://HOST:8786"`` (or a ``distributed.Client``): the pieces are tasks of a Dask
  distributed cluster (``pip install -e ".[cluster]"``); each worker needs this package and
  reads its tables from its own tables folder (built there when missing, atomically).

The bot is given by name (``optimal``, ``module:attr`` importable on the workers, a
``cmd:PROGRAM`` present on them: each piece starts its own program), never as an object.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.errors import SolverError, UsageError
from ..core.rules import get_rules
from .simulate import Regret, SimulationResult, simulate

#: the most pieces a run is split into (each costs a task and a result to send back)
MAX_PIECES = 4096
#: the address schemes of a scheduler taken (Dask's default is tcp; tls takes Dask's TLS config)
SCHEMES = ("tcp", "tls")
#: seconds to open a TCP connection to the scheduler (a refused one is known at once)
CONNECT_TIMEOUT = 10.0
#: seconds to wait for the scheduler's answer once connected
CLIENT_TIMEOUT = 30.0
#: seconds a run waits with no worker at all (a nanny restarts a dead one within a few) before
#: it stops saying so
NO_WORKER_GRACE = 20.0
#: seconds between two looks at the cluster's workers while pieces are pending
WATCH_INTERVAL = 1.0


def parse_cluster_address(address) -> tuple[str, str, int]:
    """``tcp://HOST:PORT`` (or ``HOST:PORT``, or ``tls://HOST:PORT``; an IPv6 host in brackets)
    as ``(scheme, host, port)``, checked before anything connects: else one
    :class:`~solver.core.errors.UsageError` naming the address and what is wrong."""
    import re

    from ..core.bounded import shown

    def refuse(why: str):
        return UsageError(
            f"cluster address {shown(address)}: {why}; give the scheduler's tcp://HOST:PORT, "
            "e.g. tcp://10.0.0.5:8786"
        )

    if not isinstance(address, str) or not address.strip():
        raise refuse("empty")
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    scheme = scheme.lower()
    if scheme not in SCHEMES:
        raise refuse(f"the scheme {shown(scheme)} is not one of {', '.join(s + '://' for s in SCHEMES)}")
    match = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}))(?::([^:]*))?", rest)
    if match is None:
        raise refuse("not HOST:PORT (a host name, an IPv4 address or an [IPv6] one, then :PORT)")
    host, port = match.group(1), match.group(2)
    if port is None:
        raise refuse("no port (the scheduler listens on 8786 unless told otherwise)")
    if not (port.isascii() and port.isdigit() and len(port) <= 5 and 1 <= int(port) <= 65535):
        raise refuse(f"the port {shown(port)} is not a number from 1 to 65535")
    return scheme, host.strip("[]"), int(port)


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """A TCP connection to the scheduler of ``address`` opens within ``timeout`` s, else one
    :class:`~solver.core.errors.UsageError`: a refused port or an unknown host is known at once
    (Dask's own client would try for :data:`CLIENT_TIMEOUT` s)."""
    import socket

    _, host, port = parse_cluster_address(address)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except socket.gaierror as exc:
        raise UsageError(
            f"cannot reach the Dask scheduler at {address}: unknown host ({exc.strerror})"
        ) from None
    except TimeoutError:
        raise UsageError(
            f"cannot reach the Dask scheduler at {address}: no answer within {timeout:g} s"
        ) from None
    except OSError as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}") from None


def split_games(games: int, game0: int, pieces: int) -> list[tuple[int, int]]:
    """``pieces`` ranges ``(first game, number of games)`` covering ``game0 .. game0 + games - 1``
    in order, as equal as can be (the first ones one game longer)."""
    pieces = max(1, min(int(pieces), int(games)))
    size, extra = divmod(int(games), pieces)
    out, start = [], int(game0)
    for k in range(pieces):
        n = size + (1 if k < extra else 0)
        out.append((start, n))
        start += n
    return out


def play_piece(rules_id: str, bot: str, seed: int, first: int, n: int, options: dict) -> SimulationResult:
    """One piece, in a worker: games ``first .. first + n - 1`` on one thread, the table (the
    regret's, 8 MB for yahtzee) left out of what is sent back."""
    result = simulate(rules_id, bot, n, seed, game0=first, threads=1, progress=False, **options)
    if result.regret is not None:
        result.regret.table = None
    return result


#: pieces per local process (this one included).  Measured (yahtzee, heuristic, graded, 20,000
#: games, one thread): a piece has a cost of its own -- the grading's turn tables of its
#: distinct states, about 0.3 CPU s, so 16 pieces of 1,250 games cost 6.6 CPU s against 1.4
#: for one piece of 20,000 -- while a worker takes 1-5 s to start (import, kernels from the
#: cache): two pieces a process let this one take a slow worker's share without many pieces
PIECES_PER_PROCESS = 2


@dataclass
class Split:
    """How a split run went: ``processes`` (this one and the workers), ``pieces``, those the
    workers played (``by_workers``), the seconds the first worker took to be ready
    (``worker_start``, None when none was), the games this process played itself and their
    seconds (``here_games``, ``here_seconds``); the run's ``seconds`` and ``games``."""

    processes: int
    pieces: int
    by_workers: int
    worker_start: float | None
    here_games: int = 0
    here_seconds: float = 0.0
    seconds: float = 0.0
    games: int = 0

    @property
    def note(self) -> str | None:
        """A sentence when the workers did not pay: starting them took half the run or more (a
        process imports the package and loads the compiled kernels before its first piece)."""
        workers = self.processes - 1
        if workers < 1 or (self.worker_start is not None and self.worker_start < 0.5 * self.seconds):
            return None
        start = "never started" if self.worker_start is None else f"took {self.worker_start:.1f} s to start"
        return (
            f"--workers did not pay: the worker process{'es' if workers > 1 else ''} {start} of the "
            f"run's {self.seconds:.1f} s and played {self.by_workers} of {self.pieces} pieces (this one "
            f"{self.here_games:,} games in {self.here_seconds:.1f} s); for a run this short one process, "
            "with its threads, is faster"
        )


def simulate_parallel(
    rules,
    bot: str,
    games: int,
    seed: int = 0,
    *,
    game0: int = 0,
    workers: int | None = None,
    cluster=None,
    pieces: int | None = None,
    tables_dir=None,
    regret: bool = False,
    worst: int = 0,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """:func:`~solver.play.simulate.simulate` split into ``pieces`` game ranges (default: four per
    worker) run by ``workers`` local processes or on ``cluster`` (see the module docstring);
    ``progress(n)`` is called as pieces of ``n`` games finish.  The result is in game order."""
    rules = get_rules(rules)
    if not isinstance(bot, str):
        raise UsageError("a simulation split over processes names its bot (a name, module:attr or cmd:...)")
    if (workers is None) == (cluster is None):
        raise UsageError("give either workers (local processes) or a cluster, not both")
    if workers is not None and not 1 <= int(workers) <= 256:
        raise UsageError(f"workers must be 1 to 256, got {workers}")
    n_workers = int(workers) if workers is not None else None
    if isinstance(cluster, str):
        parse_cluster_address(cluster)  # before anything is built or imported
    with contextlib.ExitStack() as owned:
        client = None
        if cluster is not None:
            client = _client(cluster)
            if client is not cluster:  # a client made here is closed here, also when the run fails
                owned.callback(client.close)
            n_workers = max(1, len(client.nthreads()))
        per = PIECES_PER_PROCESS if client is None else 4
        count = min(MAX_PIECES, pieces if pieces is not None else per * n_workers)
        ranges = split_games(games, game0, count)
        # the bot made here once, so that the tables it plays by (a value or target table) are built
        # here, once, not by every worker at the same time; a bot program is not started by this
        from ..engine.tables import get_table
        from .bots import get_bot

        made = get_bot(bot, rules, tables_dir, build_if_missing=True, progress=False)
        if callable(getattr(made, "close", None)):
            made.close()
        del made  # its table freed before the pieces load theirs (six dice: 638 MB each)
        if regret:
            get_table(rules, tables_dir, build_if_missing=True, progress=False)
        options = {
            "tables_dir": None if tables_dir is None else os.fspath(tables_dir),
            "regret": regret,
            "worst": worst,
        }
        args = [(rules.id, bot, int(seed), first, n, options) for first, n in ranges]
        start_wall = time.perf_counter()
        if client is not None:
            done = _run_dask(client, args, progress)
            threads = sum(client.nthreads().values()) or n_workers
            split = Split(n_workers, len(args), len(args), None)
        else:
            done, split = _run_local(n_workers, args, progress)
            threads = n_workers  # each process plays one piece at a time, on one thread
    merged = merge_results(done)
    merged.threads, merged.processes, merged.split = min(threads, len(args)), split.processes, split
    merged.seconds = time.perf_counter() - start_wall  # the run's, not its longest piece's
    split.seconds, split.games = merged.seconds, int(games)
    if merged.regret is not None:
        merged.regret.table = get_table(rules, tables_dir, build_if_missing=False, progress=False)
    return merged


def _client(cluster):
    try:
        from distributed import Client
    except ImportError:
        raise UsageError('a cluster run needs Dask distributed: pip install -e ".[cluster]"') from None
    if isinstance(cluster, Client):
        return cluster
    if not isinstance(cluster, str):
        raise UsageError(f"cluster is a scheduler address like tcp://host:8786, got {cluster!r}")
    scheme, host, port = parse_cluster_address(cluster)
    address = f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"
    check_reachable(address)
    try:
        return Client(address, timeout=CLIENT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def _worker_ready(rules_id: str, bot: str, seed: int, first: int, n: int, options: dict) -> float:
    """A worker's start (the pool's initializer): one game of the run's bot, so that the package
    and the bot's kernels are loaded before it takes a piece."""
    play_piece(rules_id, bot, seed, first, 1, {**options, "worst": 0})
    return 0.0


def _ready() -> bool:
    """A task that completes once a worker has started (after :func:`_worker_ready`)."""
    return True


def _run_local(n_workers: int, args: list, progress) -> tuple[list[SimulationResult], Split]:
    """The pieces ``args`` over this process and ``n_workers - 1`` spawned workers: this process
    plays them from the first on, each worker, once it has started, from the last on (a piece
    is handed to a worker only when one is idle, so none waits behind a worker still
    starting); the results in piece order and how the run went (:class:`Split`)."""
    import multiprocessing
    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    out: dict[int, SimulationResult] = {}
    todo = deque(range(len(args)))
    n_pool = min(n_workers - 1, len(args) - 1)

    here = [0, 0.0]  # the games this process played, their seconds

    def finished(k: int, result: SimulationResult) -> None:
        out[k] = result
        if progress is not None:
            progress(args[k][4])

    def play_here(k: int) -> None:
        t = time.perf_counter()
        finished(k, play_piece(*args[k]))
        here[0] += args[k][4]
        here[1] += time.perf_counter() - t

    if n_pool < 1:
        for k in todo:
            play_here(k)
        return [out[k] for k in range(len(args))], Split(1, len(args), 0, None, *here)
    context = multiprocessing.get_context("spawn")  # no forked numba threads or open pipes
    start = time.perf_counter()
    worker_start = None
    by_workers = 0
    with ProcessPoolExecutor(n_pool, mp_context=context, initializer=_worker_ready, initargs=args[0]) as pool:
        running = {pool.submit(_ready): None for _ in range(n_pool)}  # done: a worker is idle
        try:
            while todo or any(k is not None for k in running.values()):
                for future in [f for f in running if f.done()]:
                    k = running.pop(future)
                    result = future.result()
                    if k is None:
                        worker_start = worker_start or time.perf_counter() - start
                    else:
                        finished(k, result)
                        by_workers += 1
                    if todo:  # that worker is idle: its next piece, from the last
                        k = todo.pop()
                        running[pool.submit(play_piece, *args[k])] = k
                if todo:
                    play_here(todo.popleft())
                elif any(k is not None for k in running.values()):
                    wait([f for f, k in running.items() if k is not None], return_when=FIRST_COMPLETED)
        finally:
            for future in running:  # a worker that never started: nothing left for it
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)
    return [out[k] for k in range(len(args))], Split(n_pool + 1, len(args), by_workers, worker_start, *here)


def _run_dask(client, args: list, progress) -> list[SimulationResult]:
    """The pieces as tasks of ``client``'s cluster, in order; a cluster left with no worker for
    :data:`NO_WORKER_GRACE` s, a piece whose workers kept dying (Dask's ``KilledWorker``) or a
    lost scheduler is one :class:`~solver.core.errors.SolverError` (the pieces cancelled)."""
    import time

    from distributed import wait

    futures = [client.submit(play_piece, *a, pure=False) for a in args]
    index = {f.key: k for k, f in enumerate(futures)}
    out: dict[int, SimulationResult] = {}
    pending = set(futures)
    alone_since: float | None = None
    try:
        while pending:
            try:
                done, pending = wait(pending, timeout=WATCH_INTERVAL, return_when="FIRST_COMPLETED")
            except TimeoutError:
                done = set()
            for future in done:
                k = index[future.key]
                out[k] = future.result()
                if progress is not None:
                    progress(args[k][4])
            if done or client.nthreads():
                alone_since = None
                continue
            alone_since = time.monotonic() if alone_since is None else alone_since
            if time.monotonic() - alone_since >= NO_WORKER_GRACE:
                raise SolverError(
                    f"the Dask cluster at {client.scheduler.address} has no worker left ({len(pending)} of "
                    f"{len(args)} pieces unplayed, none for {NO_WORKER_GRACE:g} s): start workers and run again"
                )
    except SolverError:
        client.cancel(futures)
        raise
    except Exception as exc:
        client.cancel(futures)
        if not _from_dask(exc):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise SolverError(f"the Dask cluster failed: {type(exc).__name__}: {first}") from None
    return [out[k] for k in range(len(args))]


def _from_dask(exc: BaseException) -> bool:
    """Whether ``exc`` is the cluster's (a worker killed, a lost scheduler), not a piece's own error."""
    from distributed import KilledWorker

    return isinstance(exc, (KilledWorker, OSError, TimeoutError)) or type(exc).__module__.split(".")[0] in (
        "distributed",
        "tornado",
        "asyncio",
        "concurrent",
    )


def merge_results(parts: list[SimulationResult]) -> SimulationResult:
    """Consecutive pieces (in game order) of one run as one result: per-game arrays joined,
    sums added, the worst decisions the costliest of all the pieces' (their games renumbered)."""
    first = parts[0]
    for a, b in zip(parts, parts[1:], strict=False):
        if b.game0 != a.game0 + a.games or (b.rules, b.bot, b.seed) != (a.rules, a.bot, a.seed):
            raise ValueError("the pieces are not consecutive ranges of one run")
    join = lambda name: np.concatenate([getattr(p, name) for p in parts])  # noqa: E731
    cards = None if any(p.cards is None for p in parts) else join("cards")
    return SimulationResult(
        rules=first.rules,
        bot=first.bot,
        name=first.name,
        seed=first.seed,
        game0=first.game0,
        scores=join("scores"),
        upper_bonus=join("upper_bonus"),
        yahtzee=join("yahtzee"),
        yahtzee_bonuses=join("yahtzee_bonuses"),
        box_sums=np.sum([p.box_sums for p in parts], axis=0),
        threads=max(p.threads for p in parts),  # at once: the caller knows how many ran side by side
        engine=first.engine,
        seconds=max(p.seconds for p in parts),
        cpu_seconds=sum(p.cpu_seconds for p in parts),
        cards=cards,
        regret=_merge_regret(parts) if first.regret is not None else None,
    )


def _merge_regret(parts: list[SimulationResult]) -> Regret:
    regrets = [p.regret for p in parts]
    join = lambda name: np.concatenate([getattr(r, name) for r in regrets])  # noqa: E731
    add = lambda name: np.sum([getattr(r, name) for r in regrets], axis=0)  # noqa: E731
    worst: dict = {}
    offset = 0
    pieces = []
    for p in parts:
        w = dict(p.regret.worst)
        w["game"] = w["game"] + offset  # an index into the joined per-game arrays
        pieces.append(w)
        offset += p.games
    keep = max((len(w["loss"]) for w in pieces), default=0)
    if pieces:
        worst = {k: np.concatenate([w[k] for w in pieces]) for k in pieces[0]}
        # the costliest first; ties by game, turn, decision (as one run orders them)
        order = np.lexsort((worst["stage"], worst["turn"], worst["game"], -worst["loss"]))[:keep]
        worst = {k: v[order] for k, v in worst.items()}
    direction = None if regrets[0].game_direction_loss is None else join("game_direction_loss")
    return Regret(
        value=regrets[0].value,
        game_loss=join("game_loss"),
        game_keep_loss=join("game_keep_loss"),
        game_direction_loss=direction,
        game_luck=join("game_luck"),
        turn_loss=add("turn_loss"),
        turn_decisions=add("turn_decisions"),
        box_loss=add("box_loss"),
        box_turns=add("box_turns"),
        worst=worst,
    )

"""Where the solving happens: the chunk task, and the local worker-process pool that runs it.

A survey hands :class:`ChunkTask` values to an :class:`Executor` and gets back, for each,
either one row per deal or :class:`TaskFailed`.  Tasks and rows are plain picklable data
and :func:`solve_chunk` is a module-level function, so another backend (a Dask cluster,
say) can run exactly the same work by implementing the four methods of ``Executor``.

The local backend is a small pool of its own rather than ProcessPoolExecutor because a
worker that dies (segfault, OOM kill) must be pinned on the one task it was running;
ProcessPoolExecutor fails every task in flight with BrokenProcessPool and cannot say which
one killed it.  Workers are spawned, not forked, so they never inherit the parent's
threads or locks.

This module is what a worker imports, so it stays light: no pyarrow, no tqdm.
"""

from __future__ import annotations

import functools
import importlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from dataclasses import dataclass
from logging.handlers import QueueHandler
from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple, Union

from multiprocessing_logging import MultiProcessingHandler

from .rules import Rules
from .solver import SOLVED, Limits, Result

#: Test hook: a worker that reaches this deal kills itself with SIGKILL, as a segfault or
#: the OOM killer would, so tests can check that a survey survives a dying worker.
CRASH_DEAL_ENV = "FCSURVEY_TEST_CRASH_DEAL"

ERROR = "error"  # the status of a deal that got no verdict, beside the solver's three
PACKAGE_LOGGER = "fcsurvey"
SPAWN = multiprocessing.get_context("spawn")
SHUTDOWN_GRACE_S = 2.0

log = logging.getLogger(__name__)

Row = Dict[str, Any]


@dataclass(frozen=True)
class ChunkTask:
    """Deals to solve (ascending inclusive ranges) and how to solve them."""

    deals: Tuple[Tuple[int, int], ...]
    rules: Rules
    limits: Limits
    solutions: bool
    solver: str  # "module:function", importable in a worker


@dataclass(frozen=True)
class TaskFailed:
    """A task that produced no rows: its worker died or it raised."""

    reason: str


@functools.lru_cache(maxsize=None)
def load_solver(path: str) -> Callable[..., Result]:
    """The function named by ``"module:function"``; ValueError if there is none."""
    module, _, name = path.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load solver {path!r}: {exc}") from None


def result_row(deal: int, result: Result, solutions: bool) -> Row:
    """A dataset row for one verdict (the rule columns are the store's business)."""
    solved = result.status == SOLVED
    return {"deal": deal, "status": result.status,
            "moves": result.moves if solved else None,
            "atomic_moves": result.atomic_moves if solved else None,
            "solution": result.solution if solved and solutions else None,
            "states": result.states, "elapsed_ms": result.elapsed_s * 1000.0,
            "limit": result.limit, "error": None}


def failed_row(deal: int, reason: str) -> Row:
    """A dataset row for a deal that got no verdict."""
    return {"deal": deal, "status": ERROR, "error": reason}


def solve_chunk(task: ChunkTask) -> List[Row]:
    """Solve every deal of ``task``; a deal whose solve raises becomes an ``error`` row."""
    solve = load_solver(task.solver)
    crash_deal = int(os.environ.get(CRASH_DEAL_ENV, 0))
    rows = []
    for lo, hi in task.deals:
        for deal in range(lo, hi + 1):
            if deal == crash_deal:
                os.kill(os.getpid(), signal.SIGKILL)
            try:
                result = solve(deal, task.rules, task.limits)
            except Exception as exc:  # one deal's bug must not cost its chunk
                log.exception("deal %d: the solver raised", deal)
                rows.append(failed_row(deal, f"{type(exc).__name__}: {exc}"))
                continue
            rows.append(result_row(deal, result, task.solutions))
            log.debug("deal %d: %s, %d moves, %d states, %.3f s", deal, result.status,
                      result.moves, result.states, result.elapsed_s)
    return rows


class SharedLogHandler(MultiProcessingHandler):
    """multiprocessing-logging's handler, with a queue that spawned workers can share.

    The library makes its queue from the default start method's context (fork on Linux),
    whose locks cannot be pickled into spawned processes, so it is swapped for a spawn
    queue before any record is sent; the receiving thread rereads ``self.queue`` on every
    poll.  Every worker of a :class:`LocalPool` sends its records here.
    """

    def __init__(self, sub_handler: logging.Handler) -> None:
        super().__init__("fcsurvey-log", sub_handler=sub_handler)
        self.queue = SPAWN.Queue(-1)
        # A worker killed while writing may leave the queue's lock held; never let the
        # exit of this process wait on it.
        self.queue.cancel_join_thread()


def _log_targets() -> List[Tuple[Any, int]]:
    """(queue, level) of each shared handler on the package logger, for the workers."""
    return [(h.queue, h.level) for h in logging.getLogger(PACKAGE_LOGGER).handlers
            if isinstance(h, SharedLogHandler)]


def _exit_with_parent() -> None:
    """Die when the parent does, even mid-solve (a SIGKILLed parent cannot clean up)."""
    multiprocessing.connection.wait([multiprocessing.parent_process().sentinel])  # type: ignore[union-attr]
    os._exit(1)


def _worker_main(conn: Any, fn: Callable[[Any], Any], log_targets: Sequence[Tuple[Any, int]]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    threading.Thread(target=_exit_with_parent, daemon=True).start()
    if log_targets:
        logger = logging.getLogger(PACKAGE_LOGGER)
        logger.propagate = False
        logger.setLevel(min(level for _, level in log_targets))
        for queue, level in log_targets:
            queue.cancel_join_thread()  # see SharedLogHandler
            handler = QueueHandler(queue)
            handler.setLevel(level)
            logger.addHandler(handler)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            reply = (True, fn(task))
        except Exception as exc:
            log.exception("task failed")
            reply = (False, f"{type(exc).__name__}: {exc}")
        conn.send(reply)


class Executor:
    """What a survey needs from a backend; tasks are identified by the caller's keys."""

    def idle(self) -> int:
        """How many tasks can be submitted now without queueing."""
        raise NotImplementedError

    def submit(self, key: Hashable, task: ChunkTask) -> None:
        raise NotImplementedError

    def wait(self, timeout: Optional[float]) -> List[Tuple[Hashable, Union[List[Row], TaskFailed]]]:
        """Outcomes of the tasks that finished, waiting up to ``timeout`` for the first."""
        raise NotImplementedError

    def close(self, cancel: bool = False) -> None:
        """Stop the workers: let them finish, or (``cancel``) kill them now."""
        raise NotImplementedError

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        self.close(cancel=exc_type is not None)


@dataclass
class _Worker:
    process: Any
    conn: Any
    key: Optional[Hashable] = None  # the task it is running


def _death_reason(process: Any) -> str:
    process.join(SHUTDOWN_GRACE_S)
    code = process.exitcode
    if code is None:
        process.kill()
        return "worker process stopped answering"
    if code < 0:
        return f"worker process killed by {signal.Signals(-code).name}"
    return f"worker process exited with status {code}"


class LocalPool(Executor):
    """Up to ``workers`` spawned processes on this machine, each running one task at a time.

    Workers start on first use and a dead one is replaced on the next submit, so a
    crash costs only the task it was running.
    """

    def __init__(self, workers: int, fn: Callable[[Any], Any] = solve_chunk) -> None:
        self.size = workers
        self.fn = fn
        self._workers: List[_Worker] = []
        self._log_targets = _log_targets()
        self._started = 0

    def idle(self) -> int:
        return self.size - sum(w.key is not None for w in self._workers)

    def _start(self) -> _Worker:
        self._started += 1
        parent_end, child_end = SPAWN.Pipe()
        process = SPAWN.Process(target=_worker_main, args=(child_end, self.fn, self._log_targets),
                                name=f"worker-{self._started}", daemon=True)
        process.start()
        child_end.close()
        worker = _Worker(process, parent_end)
        self._workers.append(worker)
        return worker

    def _discard(self, worker: _Worker) -> None:
        self._workers.remove(worker)
        worker.conn.close()

    def submit(self, key: Hashable, task: ChunkTask) -> None:
        for worker in [w for w in self._workers if w.key is None]:
            try:
                worker.conn.send(task)
            except OSError:  # it died while idle
                self._discard(worker)
                continue
            worker.key = key
            return
        worker = self._start()
        worker.conn.send(task)
        worker.key = key

    def wait(self, timeout: Optional[float]) -> List[Tuple[Hashable, Union[List[Row], TaskFailed]]]:
        busy = [w for w in self._workers if w.key is not None]
        if not busy:
            return []
        ready = set(multiprocessing.connection.wait(
            [w.conn for w in busy] + [w.process.sentinel for w in busy], timeout))
        return [self._collect(w) for w in busy if w.conn in ready or w.process.sentinel in ready]

    def _collect(self, worker: _Worker) -> Tuple[Hashable, Union[List[Row], TaskFailed]]:
        key, worker.key = worker.key, None
        try:
            if worker.conn.poll():
                ok, value = worker.conn.recv()
                return key, value if ok else TaskFailed(value)
        except (EOFError, OSError):
            pass
        self._discard(worker)
        return key, TaskFailed(_death_reason(worker.process))

    def close(self, cancel: bool = False) -> None:
        for worker in self._workers:
            if cancel:
                worker.process.terminate()
            else:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
        for worker in self._workers:
            worker.process.join(SHUTDOWN_GRACE_S)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._workers = []

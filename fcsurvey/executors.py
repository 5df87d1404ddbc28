"""The backends that run chunk tasks (task.py): here, or on a Dask cluster.

A survey hands tasks to an :class:`Executor` and gets back, for each, the task's value
(rows, or task.ChunkWritten when the worker wrote the chunk file itself) or
:class:`TaskFailed`, and on the way the events the task reports (which deal and phase a
worker is on, each deal's status).  A backend runs any picklable task with a
``run(report)`` method, so every backend runs exactly the same work: :class:`LocalPool`
on this machine, :class:`DaskExecutor` on a Dask cluster.

The local backend is a small pool of its own rather than ProcessPoolExecutor because a
worker that dies (segfault, OOM kill) must be pinned on the one task it was running;
ProcessPoolExecutor fails every task in flight with BrokenProcessPool and cannot say which
one killed it.  Workers are spawned, not forked, so they never inherit the parent's
threads or locks.  Each sends its task's events up the same pipe as its result, so the
survey hears of every deal as it ends; on Dask they come as Dask events.  Local workers
left with nothing to do lend their cores to the proofs still running (offer.py); Dask's
do not.

This module is what a worker imports, so it stays light: no pyarrow, no tqdm, and Dask is
imported only when a :class:`DaskExecutor` is made, so the package works without the
``dask`` extra.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import re
import shutil
import signal
import tempfile
import threading
import uuid
from dataclasses import dataclass
from logging.handlers import QueueHandler
from typing import Any, Callable, Dict, Hashable, Iterator, List, Mapping, Optional, Sequence, Tuple

from multiprocessing_logging import MultiProcessingHandler

from .offer import OFFER_ENV, write_offer


PACKAGE_LOGGER = "fcsurvey"
SPAWN = multiprocessing.get_context("spawn")
#: What a local worker sends up its pipe: batches of its task's events, then its result.
EVENTS, RESULT, FAILURE = "events", "result", "failure"
#: A worker sends its task's events at most this often, in one message: a survey of fast
#: deals then costs a list append a deal, not a message and a wakeup of the parent.
REPORT_EVERY_S = 0.2
SHUTDOWN_GRACE_S = 2.0
DASK_HINT = "running on Dask needs the dask extra: pip install '.[dask]' from a checkout"
DASK_EVENTS = "fcsurvey-events"  # the Dask event topic that carries tasks' events to the client
SCHEDULER_CONNECT_TIMEOUT_S = 10  # a wrong --scheduler address fails this soon
#: The protocols a Dask client reaches a remote scheduler by (distributed's comm backends
#: but ``inproc``, which is within one process).
SCHEDULER_PROTOCOLS = ("tcp", "tls", "ucx", "ws", "wss")
#: A scheduler address as a Dask client takes it: [PROTOCOL://]HOST:PORT, an IPv6 host in [].
SCHEDULER_ADDRESS = re.compile(r"(?:(?:" + "|".join(SCHEDULER_PROTOCOLS) + r")://)?"
                               r"(?:\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+):([0-9]{1,5})")
MAX_PORT = 65535
LOCAL_HOST = "127.0.0.1"          # a local Dask cluster listens on loopback only
#: Local workers (of the pool or of a local Dask cluster) start with glibc's malloc backing
#: its heap with transparent huge pages, a tunable read only when a process starts (other C
#: libraries ignore it).  A long layered proof holds gigabytes of small hash buckets, and
#: with 2 MiB pages its lookups miss the TLB far less: about 10% more positions a second on
#: deal 982 with 2 cells.
TUNABLES_ENV, HUGE_PAGES_TUNABLE = "GLIBC_TUNABLES", "glibc.malloc.hugetlb"

log = logging.getLogger(__name__)


class ExecutorError(ValueError):
    """A backend that cannot run the survey: Dask missing, no scheduler at the address, or
    a worker that cannot write into the output directory."""


@dataclass(frozen=True)
class TaskFailed:
    """A task that produced no rows: its worker died or it raised."""

    reason: str


#: What a backend gives back for a task: its value, or TaskFailed.
Outcome = Any
#: An event a task reported (task.PhaseStarted, task.DealFinished), passed on as it came.
Event = Any


def run_task(task: Any, report: Callable[[Event], None]) -> Any:
    """What a worker does with a task: run it, passing on what it reports."""
    return task.run(report)


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


class _Reporter:
    """A worker's report: keeps its task's events and hands them to ``send`` in batches
    every REPORT_EVERY_S, from a thread of its own (which runs while the C core holds no
    GIL), so a survey of fast deals costs a list append a deal, not a message each."""

    def __init__(self, send: Callable[[List[Event]], None]) -> None:
        self._send = send
        self.lock = threading.RLock()  # held while sending: what is sent after a flush comes after it
        self.events: List[Event] = []

    def __call__(self, event: Event) -> None:
        with self.lock:
            self.events.append(event)

    def flush(self) -> None:
        """Send the events kept so far."""
        with self.lock:
            if self.events:
                self._send(self.events)
                self.events = []

    def keep_sending(self, stop: threading.Event) -> None:
        """Flush every REPORT_EVERY_S until ``stop`` is set (or there is no one to send to)."""
        while not stop.wait(REPORT_EVERY_S):
            try:
                self.flush()
            except OSError:  # the parent is gone; _exit_with_parent ends this process
                return


def _worker_main(conn: Any, fn: Callable[[Any, Callable[[Event], None]], Any],
                 log_targets: Sequence[Tuple[Any, int]], offer: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    os.environ[OFFER_ENV] = offer  # where this worker's proofs hear of idle cores (offer.py)
    threading.Thread(target=_exit_with_parent, daemon=True).start()
    if log_targets:
        logger = logging.getLogger(PACKAGE_LOGGER)
        logger.propagate = False
        logger.setLevel(min(level for _, level in log_targets))
        for log_queue, level in log_targets:
            log_queue.cancel_join_thread()  # see SharedLogHandler
            handler = QueueHandler(log_queue)
            handler.setLevel(level)
            logger.addHandler(handler)

    report = _Reporter(lambda events: conn.send((EVENTS, events)))
    threading.Thread(target=report.keep_sending, args=(threading.Event(),), daemon=True).start()
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            reply = (RESULT, fn(task, report))
        except Exception as exc:
            log.exception("task failed")
            reply = (FAILURE, f"{type(exc).__name__}: {exc}")
        with report.lock:
            report.flush()
            conn.send(reply)


class Executor:
    """What a survey needs from a backend; tasks are identified by the caller's keys."""

    #: Whether the survey should give tasks a sink so that workers write their own chunk
    #: files: worth it when rows would otherwise cross a network into one process.
    writes_chunks = False

    def idle(self) -> int:
        """How many tasks can be submitted now without queueing."""
        raise NotImplementedError

    def submit(self, key: Hashable, task: Any) -> None:
        raise NotImplementedError

    def wait(self, timeout: Optional[float]) -> List[Tuple[Hashable, Outcome]]:
        """Outcomes of the tasks that finished and events the running ones reported
        (``(key, event)``, before their task's outcome), waiting up to ``timeout`` for the
        first of either."""
        raise NotImplementedError

    def lend_idle(self) -> None:
        """Offer the cores of idle workers to the tasks still running (offer.py): the survey
        calls it whenever it has submitted all it can.  A backend that cannot (Dask, whose
        workers may be other machines) does nothing."""

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
    offer: str  # its offer file (offer.py)
    key: Optional[Hashable] = None  # the task it is running
    offered: int = 1  # the threads its offer file names


def core_shares(cores: int, busy: int) -> List[int]:
    """The threads each of ``busy`` workers is offered out of ``cores``: as even shares as
    whole numbers allow, the first ones taking what is left over, ``cores`` in all (at
    least one each)."""
    return [max(cores // busy + (i < cores % busy), 1) for i in range(busy)]


def _death_reason(process: Any) -> str:
    process.join(SHUTDOWN_GRACE_S)
    code = process.exitcode
    if code is None:
        process.kill()
        return "worker process stopped answering"
    if code < 0:
        return f"worker process killed by {signal.Signals(-code).name}"
    return f"worker process exited with status {code}"


def with_huge_pages(environ: Mapping[str, str]) -> Optional[Dict[str, str]]:
    """``environ`` with HUGE_PAGES_TUNABLE on, for a process to start with; None when its
    tunables set it already, on or off (a choice made stands)."""
    before = environ.get(TUNABLES_ENV)
    if before and HUGE_PAGES_TUNABLE in before:
        return None
    return {**environ, TUNABLES_ENV: f"{before}:{HUGE_PAGES_TUNABLE}=1" if before else f"{HUGE_PAGES_TUNABLE}=1"}


@contextlib.contextmanager
def _huge_pages_for_new_processes() -> Iterator[None]:
    """Processes started within have HUGE_PAGES_TUNABLE on, unless the tunables this
    process has set it already."""
    before = os.environ.get(TUNABLES_ENV)
    env = with_huge_pages(os.environ)
    if env is None:
        yield
        return
    os.environ[TUNABLES_ENV] = env[TUNABLES_ENV]
    try:
        yield
    finally:
        if before is None:
            del os.environ[TUNABLES_ENV]
        else:
            os.environ[TUNABLES_ENV] = before


class LocalPool(Executor):
    """Up to ``workers`` spawned processes on this machine, each running one task at a time.

    Workers start on first use and a dead one is replaced on the next submit, so a
    crash costs only the task it was running.  ``fn(task, report)`` is what a worker does
    with a task; every event it reports comes back from :meth:`wait`.  Each worker has an
    offer file (offer.py) in a directory of the pool's own, which :meth:`lend_idle` rewrites.
    """

    def __init__(self, workers: int, fn: Callable[[Any, Callable[[Event], None]], Any] = run_task) -> None:
        self.size = workers
        self.fn = fn
        self._workers: List[_Worker] = []
        self._log_targets = _log_targets()
        self._started = 0
        self._offers: Optional[str] = None  # the offer files' directory, made with the first worker

    def idle(self) -> int:
        return self.size - sum(w.key is not None for w in self._workers)

    def _start(self) -> _Worker:
        self._started += 1
        if self._offers is None:
            self._offers = tempfile.mkdtemp(prefix="fcsurvey-offers-")
        offer = os.path.join(self._offers, f"worker-{self._started}")
        write_offer(offer, 1)
        parent_end, child_end = SPAWN.Pipe()
        process = SPAWN.Process(target=_worker_main, args=(child_end, self.fn, self._log_targets, offer),
                                name=f"worker-{self._started}", daemon=True)
        with _huge_pages_for_new_processes():
            process.start()
        child_end.close()
        worker = _Worker(process, parent_end, offer)
        self._workers.append(worker)
        return worker

    def _discard(self, worker: _Worker) -> None:
        self._workers.remove(worker)
        worker.conn.close()

    def submit(self, key: Hashable, task: Any) -> None:
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

    def lend_idle(self) -> None:
        """Offer each busy worker its share of the pool's workers (:func:`core_shares`), and
        an idle one a single thread: a proof running while others have nothing left to do
        goes on on their cores too, and no more threads run in all than workers (once a
        proof that must give some back has read its offer, within a round and a second)."""
        busy = [w for w in self._workers if w.key is not None]
        shares = dict(zip(map(id, busy), core_shares(self.size, len(busy)))) if busy else {}
        for worker in self._workers:
            share = shares.get(id(worker), 1)
            if share == worker.offered:
                continue
            try:
                write_offer(worker.offer, share)
            except OSError as exc:  # its proofs go on with the threads they have
                log.debug("cannot offer %s %d threads: %s", worker.process.name, share, exc)
                continue
            worker.offered = share
            if share > 1:
                log.debug("%s offered %d threads", worker.process.name, share)

    def wait(self, timeout: Optional[float]) -> List[Tuple[Hashable, Outcome]]:
        busy = [w for w in self._workers if w.key is not None]
        if not busy:
            return []
        ready = set(multiprocessing.connection.wait(
            [w.conn for w in busy] + [w.process.sentinel for w in busy], timeout))
        return [item for w in busy if w.conn in ready or w.process.sentinel in ready
                for item in self._collect(w)]

    def _collect(self, worker: _Worker) -> List[Tuple[Hashable, Outcome]]:
        """What ``worker`` has sent (events, maybe its result), or its death."""
        key, got = worker.key, []
        try:
            while worker.conn.poll():
                kind, value = worker.conn.recv()
                if kind == EVENTS:
                    got += [(key, event) for event in value]
                    continue
                worker.key = None
                return got + [(key, value if kind == RESULT else TaskFailed(value))]
            if worker.process.is_alive():
                return got
        except (EOFError, OSError):
            pass
        worker.key = None
        self._discard(worker)
        return got + [(key, TaskFailed(_death_reason(worker.process)))]

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
        if self._offers is not None:
            shutil.rmtree(self._offers, ignore_errors=True)
            self._offers = None


def import_distributed() -> Any:
    """Dask's ``distributed`` package, or ExecutorError with the install hint: Dask is an
    optional extra, imported only when a survey asks for it."""
    try:
        import distributed
    except ImportError:
        raise ExecutorError(DASK_HINT) from None
    return distributed


def check_scheduler_address(address: str) -> None:
    """ExecutorError unless ``address`` has the form of a Dask scheduler's address, checked
    before anything starts: Dask's own complaint ("missing port") comes as a bare ValueError,
    and only once the dataset is open."""
    match = SCHEDULER_ADDRESS.fullmatch(address)
    if match is None or not 1 <= int(match.group(1)) <= MAX_PORT:
        raise ExecutorError(f"a Dask scheduler address is [PROTOCOL://]HOST:PORT, e.g. tcp://head:8786 "
                            f"(PROTOCOL one of {', '.join(SCHEDULER_PROTOCOLS)}); got {address!r}")


def dask_setup(worker: Any) -> None:
    """Dask's preload hook, run in each worker of a local cluster as it starts (restarts
    included): Ctrl-C reaches the whole process group, and is the survey's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _dask_task(task: Any, log_level: Optional[int]) -> Any:
    """A task run on a Dask worker, logging at the level the client forwards, its events
    sent to the client as Dask events of DASK_EVENTS (pickled: Dask's messages are msgpack)."""
    if log_level is not None:
        logging.getLogger(PACKAGE_LOGGER).setLevel(log_level)
    worker = import_distributed().get_worker()
    key = worker.get_current_task()
    report = _Reporter(lambda events: worker.log_event(DASK_EVENTS, {"task": key, "events": pickle.dumps(events)}))
    stop = threading.Event()
    sender = threading.Thread(target=report.keep_sending, args=(stop,), daemon=True)
    sender.start()
    try:
        return task.run(report)
    finally:
        stop.set()
        sender.join()
        report.flush()


class DaskExecutor(Executor):
    """The workers of a Dask cluster: a local cluster of ``workers`` processes started here,
    or the running cluster whose scheduler is at ``scheduler``.

    Past one machine, an existing distributed engine schedules, restarts dead workers and
    retries their tasks; this class only feeds it.  Workers write their chunk files
    themselves (so the output directory must be storage every worker shares) and send back
    a task.ChunkWritten, so the client handles summaries, not rows, however large the
    cluster; a task's events come as Dask events, a batch every REPORT_EVERY_S.  A task whose worker dies is retried by Dask; after
    ``distributed.scheduler.allowed-failures`` deaths (3 by default) it fails with
    KilledWorker, which becomes :class:`TaskFailed` and the survey's own retry-then-split
    pins the deal.

    No more tasks are in flight than the cluster has threads, as with the local pool: Dask
    blames a death on every task assigned to the dying worker, queued ones included, so a
    deeper queue could get an innocent deal recorded as an error.  Workers should run one
    thread each (``dask worker --nthreads 1``) for the same reason.
    """

    writes_chunks = True

    def __init__(self, workers: Optional[int] = None, scheduler: Optional[str] = None) -> None:
        self._dask = distributed = import_distributed()
        self._cluster = None
        if scheduler is None:
            with _huge_pages_for_new_processes():
                self._cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                                         processes=True, host=LOCAL_HOST,
                                                         dashboard_address=None, preload=[__name__])
        else:
            check_scheduler_address(scheduler)
        try:
            self.client = distributed.Client(self._cluster or scheduler,
                                             timeout=SCHEDULER_CONNECT_TIMEOUT_S)
        except OSError as exc:
            raise ExecutorError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        self._futures: Dict[Any, Hashable] = {}  # dask Future -> the caller's key
        self._events: "queue.SimpleQueue[Any]" = queue.SimpleQueue()  # filled by Dask's thread
        self.client.subscribe_topic(DASK_EVENTS, self._events.put)
        self._threads = self._count_threads()
        self.where = (f"a local Dask cluster of {len(self.client.nthreads())} workers" if scheduler is None
                      else f"the Dask cluster at {scheduler} ({self._threads} worker threads)")
        if not self._threads:
            log.warning("the Dask cluster has no workers yet; tasks wait until some join")
        targets = _log_targets()
        self._log_level = min((level for _, level in targets), default=None)
        if self._log_level is not None:
            self.client.forward_logging(PACKAGE_LOGGER, self._log_level)

    def __str__(self) -> str:
        return self.where

    def _count_threads(self) -> int:
        return sum(self.client.nthreads().values())

    def idle(self) -> int:
        # One task even when no worker has joined yet: it waits on the scheduler.
        return max(max(self._threads, 1) - len(self._futures), 0)

    def submit(self, key: Hashable, task: Any) -> None:
        first, last = task.deals[0][0], task.deals[-1][1]
        future = self.client.submit(_dask_task, task, self._log_level,
                                    key=f"fcsurvey-deals-{first}-{last}-{uuid.uuid4().hex}")
        self._futures[future] = key

    def wait(self, timeout: Optional[float]) -> List[Tuple[Hashable, Outcome]]:
        if not self._futures:
            return []
        try:
            done = self._dask.wait(list(self._futures), timeout=timeout, return_when="FIRST_COMPLETED").done
        except self._dask.TimeoutError:
            done = set()
        except self._dask.CancelledError as exc:
            raise ExecutorError(f"the Dask cluster dropped the survey's tasks ({exc}); finished "
                                f"chunks are kept, run the same command again to resume") from None
        heard = self._heard()
        outcomes = [(self._futures.pop(future), self._outcome(future)) for future in done]
        if done:
            self._threads = self._count_threads()  # after a death, fewer threads until it restarts
        return heard + outcomes

    def _heard(self) -> List[Tuple[Hashable, Event]]:
        """The events that have come in from tasks still in flight (those of a finished
        task may come after its outcome, too late to matter: they are dropped)."""
        keys = {future.key: key for future, key in self._futures.items()}
        heard = []
        while True:
            try:
                _, message = self._events.get_nowait()
            except queue.Empty:
                return heard
            if message["task"] in keys:
                heard += [(keys[message["task"]], event) for event in pickle.loads(message["events"])]

    def _outcome(self, future: Any) -> Outcome:
        if future.status == "finished":
            return future.result()
        exc = future.exception()
        if isinstance(exc, ExecutorError):  # the cluster is misconfigured: stop, do not retry
            raise exc
        if isinstance(exc, self._dask.KilledWorker):
            deaths = exc.allowed_failures + 1
            return TaskFailed(f"{deaths} Dask worker{'s' if deaths > 1 else ''} died running it")
        return TaskFailed(f"{type(exc).__name__}: {exc}")

    def close(self, cancel: bool = False) -> None:
        # Closing the client releases its tasks; a running task cannot be interrupted, so on a
        # cluster of our own closing it stops the workers, on another it lets them finish.
        # After a failure the scheduler may be gone: then nothing more is asked of it.
        self._futures.clear()
        if not cancel:
            self.client.unsubscribe_topic(DASK_EVENTS)
        if self._log_level is not None and not cancel:
            self.client.unforward_logging(PACKAGE_LOGGER)
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()

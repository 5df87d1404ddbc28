"""The chunk task: what a worker does with a chunk of deals, whatever backend runs it.

A survey hands :class:`ChunkTask` values to a backend (executors.py) and gets back, for
each, one row per deal, or :class:`ChunkWritten` when the worker wrote the chunk file
itself (the task then names a :class:`ChunkSink`).  The per-deal policy lives here: which
solves a deal gets (one, or :mod:`fcsurvey.difficulty`'s several), a solve that raises
becoming an ``error`` row instead of costing the chunk, and the events that tell the
survey, as they happen, which deal and which phase a worker is on and what each deal
ended as.  Tasks, rows and events are plain picklable data.

This module is what a worker imports, so it stays light: no pyarrow, no tqdm (a worker
that writes chunk files imports the store when it first writes).
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import signal
import socket
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple, Union

from .dealset import DealSet
from .difficulty import Solve, decide, kings_won, min_cells
from .executors import ExecutorError
from .limits import Limits
from .offer import worker_offer
from .rules import Rules
from .schema import Row, difficulty_columns, failed_row, result_row
from .solver import CHECKPOINT_EVERY_S, PHASES, PROOF, SEARCH, Result, core_build

#: Test hook: a worker that reaches this deal kills itself with SIGKILL, as a segfault or
#: the OOM killer would, so tests can check that a survey survives a dying worker.
CRASH_DEAL_ENV = "FCSURVEY_TEST_CRASH_DEAL"

#: What a phase is called in progress messages, by the solver phases a solve runs.
PHASE_NAMES = {(SEARCH,): "search", (PROOF,): "proof", PHASES: "solve"}

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChunkSink:
    """Where a worker writes its chunk file itself: the dataset directory (absolute, and the
    same path on every worker) and when the run started, which every file records."""

    path: str
    run_started: float


@dataclass(frozen=True)
class ChunkWritten:
    """A task whose worker wrote its chunk file: the file's name (relative to the dataset),
    its deals, counts by status, size and time, all the caller needs to report progress and to
    log the file as finished (store.Dataset.record)."""

    name: str
    counts: Dict[str, int]
    deals: Tuple[Tuple[int, int], ...]
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class PhaseStarted:
    """A worker began a solve of ``deal``: ``phase`` says which, e.g. ``2-cell proof``."""

    deal: int
    phase: str


@dataclass(frozen=True)
class DealFinished:
    """A worker finished ``deal``, as ``status``."""

    deal: int
    status: str


Event = Union[PhaseStarted, DealFinished]
Report = Callable[[Event], None]


def ignore(_event: Event) -> None:
    """The report of a backend that does not pass events on."""


@dataclass(frozen=True)
class ChunkTask:
    """Deals to solve (ascending inclusive ranges), how to solve them, and where the rows go:
    back to the caller, or (``sink``) into a chunk file the worker writes."""

    deals: Tuple[Tuple[int, int], ...]
    rules: Rules
    limits: Limits
    solutions: bool
    solver: str  # "module:function", importable in a worker, called like solver.solve
    sink: Optional[ChunkSink] = None
    difficulty: bool = False  # also find each deal's fewest cells and score (difficulty.py)
    checkpoints: Optional[str] = None  # directory for long proofs' checkpoints (store.PROOFS)
    checkpoint_every: float = CHECKPOINT_EVERY_S

    def run(self, report: Report = ignore) -> Union[List[Row], ChunkWritten]:
        """:func:`run_chunk` on this task: what every backend calls."""
        return run_chunk(self, report)


@functools.lru_cache(maxsize=None)
def load_solver(path: str) -> Callable[..., Result]:
    """The function named by ``"module:function"``; ValueError if there is none."""
    module, _, name = path.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load solver {path!r}: {exc}") from None


def phase_name(rules: Rules, phases: Tuple[str, ...], asked: Rules) -> str:
    """``2-cell proof``, or ``4-cell search (sequence single)`` for a narrower game than
    the ``asked`` rules: the phase of one solve as the Python side knows it."""
    name = f"{rules.cells}-cell {PHASE_NAMES.get(tuple(phases), '+'.join(phases))}"
    narrower = [f"{field} {value}" for field, value in rules.to_dict().items()
                if field != "cells" and value != asked.to_dict()[field]]
    return f"{name} ({', '.join(narrower)})" if narrower else name


def threads_text(phase: str, threads: int) -> str:
    """``2-cell solve on 2 threads``: a phase whose proof took the threads offered (one
    thread is said as the plain phase)."""
    return phase if threads == 1 else f"{phase} on {threads} threads"


def _taking(deal: int, phase: str, report: Report) -> Callable[[int], None]:
    """What a solve of ``deal`` calls when its proof goes on with another number of threads:
    a log line, and the phase renamed, which progress shows."""
    def took(threads: int) -> None:
        log.info("deal %d: %s now on %d thread%s", deal, phase, threads, "s" if threads > 1 else "")
        report(PhaseStarted(deal, threads_text(phase, threads)))
    return took


def _announcing(solve: Solve, asked: Rules, report: Report, offered: bool) -> Solve:
    """``solve``, reporting each call as a :class:`PhaseStarted` first (and, ``offered``
    threads, each time its proof takes another number of them)."""
    def announced(deal: int, rules: Rules, limits: Limits, **options: object) -> Result:
        phase = phase_name(rules, tuple(options.get("phases", PHASES)), asked)  # type: ignore[arg-type]
        report(PhaseStarted(deal, phase))
        if offered:
            options["on_threads"] = _taking(deal, phase, report)
        return solve(deal, rules, limits, **options)
    return announced


def _solve_deal(task: ChunkTask, deal: int, solve: Solve) -> Row:
    """One deal's row: its verdict, and with ``difficulty`` its fewest cells and score."""
    if task.difficulty:  # its verdict found as min_cells finds each count's
        result = decide(deal, task.rules, task.limits, solve)
        found = kings_won(deal, task.rules, min_cells(deal, task.rules, task.limits, solve, result),
                          task.limits, solve)
    else:
        result, found = solve(deal, task.rules, task.limits), None
    for verdict in [*found.verdicts.values(), *filter(None, [found.kings])] if found else [result]:
        if verdict.resumed:
            log.info("deal %d: a proof went on from its checkpoint", deal)
    log.debug("deal %d: %s, %d moves, %d states, %.3f s", deal, result.status,
              result.moves, result.states, result.elapsed_s)
    return {**result_row(deal, result, task.solutions), **(difficulty_columns(found) if found else {})}


def solve_chunk(task: ChunkTask, report: Report = ignore) -> List[Row]:
    """Solve every deal of ``task``, reporting each solve as it starts and each deal as it
    ends; a deal whose solve raises becomes an ``error`` row.  In a local worker, the
    solver is also given the worker's offer of idle cores (offer.py): the solver named by
    the task must then take ``offer`` and ``on_threads`` as solver.solve does."""
    solve = load_solver(task.solver)
    if task.checkpoints is not None:
        solve = functools.partial(solve, checkpoints=Path(task.checkpoints),
                                  checkpoint_every=task.checkpoint_every)
    offer = worker_offer()  # a local worker's: idle workers' cores (offer.py)
    if offer is not None:
        solve = functools.partial(solve, offer=offer)
    solve = _announcing(solve, task.rules, report, offer is not None)
    crash_deal = int(os.environ.get(CRASH_DEAL_ENV, 0))
    rows = []
    for lo, hi in task.deals:
        for deal in range(lo, hi + 1):
            if deal == crash_deal:
                os.kill(os.getpid(), signal.SIGKILL)
            try:
                row = _solve_deal(task, deal, solve)
            except Exception as exc:  # one deal's bug must not cost its chunk
                log.exception("deal %d: the solver raised", deal)
                row = failed_row(deal, f"{type(exc).__name__}: {exc}")
            rows.append(row)
            report(DealFinished(deal, row["status"]))
    return rows


def write_rows(sink: ChunkSink, rows: List[Row]) -> ChunkWritten:
    """Write ``rows`` as one chunk file of the dataset at ``sink`` and summarise them.

    The manifest is read from the directory itself, so a worker that does not share the
    caller's storage fails here, with a message saying so, instead of writing elsewhere.
    """
    from .store import Dataset, StoreError, read_manifest, relative  # pyarrow: only writing workers need it

    path = Path(sink.path)
    try:
        # No lock of its own: the survey that sent the task holds the directory's lock.
        # The file records this worker's build, which need not be the caller's.
        manifest = {**read_manifest(path), "core_build": core_build()}
        written = Dataset(path, None, manifest).write_chunk(rows, sink.run_started)
        stat = written.stat()
    except (OSError, StoreError) as exc:
        raise ExecutorError(f"a worker on {socket.gethostname()} cannot write its chunk into "
                            f"{path} ({exc}); --out must be storage every worker shares") from None
    deals = DealSet.from_sorted(sorted(r["deal"] for r in rows))
    return ChunkWritten(relative(path, written), dict(Counter(r["status"] for r in rows)), deals.ranges,
                        stat.st_size, stat.st_mtime_ns)


def run_chunk(task: ChunkTask, report: Report = ignore) -> Union[List[Row], ChunkWritten]:
    """The task every backend runs: solve the chunk, then return the rows or, if the task
    names a sink, write them there and return only their summary."""
    rows = solve_chunk(task, report)
    return rows if task.sink is None else write_rows(task.sink, rows)

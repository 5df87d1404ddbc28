"""Survey a set of deals: plan chunks, run them on workers.

Deals are grouped into chunks with fixed boundaries (chunk k holds the requested deals in
k*K+1 .. (k+1)*K, cut where a partition block of the store ends), so a rerun with the same
chunk size K finds the same files; deals already on disk are subtracted first, whatever
chunk size wrote them, so any rerun fills only the gaps.  Unless given, K is chosen from
the range and the rules (:func:`chunk_size_for`): about a minute of work a task, files of
up to a million deals.  The parent process only plans, writes files and reports; workers solve
(on a Dask cluster they also write their chunk files, so the parent sees only summaries).

A chunk whose worker dies is retried once (the death may have been the machine's, not
the deal's); if it dies again its deals are solved one per task, so only the deal that
kills its worker ends as an ``error`` row.  An ``error`` row is no verdict, so a rerun
solves its deal again and replaces the row inside its file (one atomic rename: never the
deal twice, never the file half-written).
"""

from __future__ import annotations

import bisect
import itertools
import logging
import os
import re
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Deque, Dict, Hashable, Iterator, List, Mapping, Optional, Tuple

from . import console
from .console import Progress, counts_text, duration, running_text
from .dealset import DealSet
from .executors import Executor, LocalPool, TaskFailed
from .rules import PRESETS, Rules
from .schema import ERROR, STATUSES, Row, failed_row
from .limits import DEFAULT_LENGTH, DEFAULT_MAX_STATES, Limits
from .plan import Plan, Profile, plan, remaining_s, sample
from .solver import CHECKPOINT_EVERY_S, core_build
from .store import BLOCK_DEALS, PROOFS, ChunkEntry, Dataset
from .task import ChunkSink, ChunkTask, ChunkWritten, DealFinished, PhaseStarted, load_solver

#: The chunk sizes a survey chooses from: each divides store.BLOCK_DEALS, so that chunks of
#: one size tile the partition blocks.
CHUNK_SIZES = (100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000,
               500_000, 1_000_000)
#: About the most work a task should be, in seconds: a killed run loses at most that much a
#: worker, and progress and the workers' balance stay smooth.
TASK_S = 60.0
#: A survey is cut into at least this many tasks, so that every local worker gets several.
MIN_TASKS = 8
#: Mean CPU seconds a deal, by free cells (more count as 4; none as 1), as stratified
#: samples of the whole numbering measured them (plan.py; docs/scale.md, "Per-deal costs"):
#: fewer cells mean more proofs of unsolvability, and a heavier tail.
DEAL_S = {4: 0.0006, 3: 0.003, 2: 0.04, 1: 0.02, 0: 0.02}
#: A ``--difficulty`` deal costs about this many plain ones (its fewest-cells solves).
DIFFICULTY_COST = 5.0
#: A survey of this many deals or more solves a stratified sample of them first (at most
#: ETA_SAMPLE_DEALS, in ETA_SAMPLE_BUDGET_S), whose costs its ETA weighs the deals left by.
ETA_SAMPLE_MIN_DEALS = 100_000
ETA_SAMPLE_DEALS = 400
ETA_SAMPLE_BUDGET_S = 10.0
DEFAULT_SOLVER = "fcsurvey.solver:solve"
#: Test hook: solve with this "module:function" instead of the real solver.
SOLVER_ENV = "FCSURVEY_TEST_SOLVER"
RESULTS_DIR = Path("results")
#: How often the run looks at its running deals, between events, to name the slow ones.
PROGRESS_TICK_S = 1.0

log = logging.getLogger(__name__)


class SurveyError(ValueError):
    """A survey that cannot start: bad settings, solver not found."""


# --- what to solve --------------------------------------------------------------------

def default_workers() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def default_out(deals: DealSet, rules: Rules, limits: Limits, difficulty: bool = False) -> Path:
    """``results/<variant>[_<changed rule>...][_<limit>][_difficulty]_<deals>``, e.g.
    ``results/freecell_1-32000`` or ``results/bakers-game_cells-3_states-1000000_1-1000``."""
    base = PRESETS.get(rules.variant, Rules()).to_dict()
    parts = [rules.variant]
    for name, value in rules.to_dict().items():
        if name != "variant" and value != base[name]:
            shown = ("on" if value else "off") if isinstance(value, bool) else value
            parts.append(f"{name.replace('_', '-')}-{shown}")
    if limits.max_states != DEFAULT_MAX_STATES:
        parts.append(f"states-{limits.max_states}")
    if limits.timeout is not None:
        parts.append(f"timeout-{limits.timeout:g}s")
    if limits.length != DEFAULT_LENGTH:
        parts.append(limits.length)
    if limits.searches_only:
        parts.append("searches-only")
    if difficulty:
        parts.append("difficulty")
    if len(deals.ranges) <= 3:
        parts.append(str(deals).replace(",", "_"))
    else:
        parts.append(f"{deals.ranges[0][0]}-{deals.ranges[-1][1]}-{len(deals)}-deals")
    return RESULTS_DIR / "_".join(parts)


def deal_cost(rules: Rules, difficulty: bool = False) -> float:
    """The mean seconds a deal under ``rules`` takes a worker, from DEAL_S."""
    return DEAL_S[min(rules.cells, max(DEAL_S))] * (DIFFICULTY_COST if difficulty else 1.0)


def chunk_size_for(deals: DealSet, rules: Rules, difficulty: bool = False) -> int:
    """The chunk size a survey of ``deals`` takes when none is given: the largest of
    CHUNK_SIZES whose chunks are about TASK_S of work at most and make MIN_TASKS at least
    (so 100,000 for 4-cell FreeCell over a million deals or more: files of 100,000 rows)."""
    cost = deal_cost(rules, difficulty)
    fitting = [s for s in CHUNK_SIZES if s * cost <= TASK_S and s * MIN_TASKS <= len(deals)]
    return max(fitting, default=CHUNK_SIZES[0])


def plan_chunks(deals: DealSet, size: int, block: int = BLOCK_DEALS) -> Iterator[Tuple[Tuple[int, int], ...]]:
    """The deals of each chunk k (those in k*size+1 .. (k+1)*size, cut at every multiple
    of ``block``, so that no chunk spans two of the store's blocks), lazily and in order."""
    current, pieces = None, []  # type: ignore[var-annotated]
    for lo, hi in deals.ranges:
        while lo <= hi:
            k = ((lo - 1) // size, (lo - 1) // block)
            end = min(hi, (k[0] + 1) * size, (k[1] + 1) * block)
            if k != current and pieces:
                yield tuple(pieces)
                pieces = []
            current = k
            pieces.append((lo, end))
            lo = end + 1
    if pieces:
        yield tuple(pieces)


def check_mode(limits: Limits, difficulty: bool) -> None:
    """SurveyError for settings that cannot go together: ``--difficulty`` proves each deal's
    fewest cells both ways, which searches only cannot."""
    if difficulty and limits.searches_only:
        raise SurveyError("--difficulty proves each deal's fewest cells, which needs the layered proof "
                          "that --searches-only leaves out: give one of them")


def solver_path(solver: Optional[str] = None) -> str:
    """The solver a survey calls: ``solver``, else SOLVER_ENV's, else the real one; SurveyError
    if it does not load."""
    path = solver or os.environ.get(SOLVER_ENV, DEFAULT_SOLVER)
    try:
        load_solver(path)
    except ValueError as exc:
        raise SurveyError(str(exc)) from None
    return path


def plan_survey(deals: DealSet, *, rules: Rules = PRESETS["freecell"], limits: Limits = Limits(),
                workers: Optional[int] = None, chunk_size: Optional[int] = None, solutions: bool = True,
                difficulty: bool = False, solver: Optional[str] = None) -> Plan:
    """The cost of the survey ``Survey(deals, ...)`` would run, measured on a stratified
    sample of ``deals`` (plan.py) in this process; nothing is written."""
    if not deals:
        raise SurveyError("no deals given")
    check_mode(limits, difficulty)
    return plan(deals, rules, limits, workers=workers or default_workers(),
                chunk_size=chunk_size or chunk_size_for(deals, rules, difficulty), solutions=solutions,
                difficulty=difficulty, solver=solver_path(solver))


# --- the run ------------------------------------------------------------------------------

@dataclass
class _Batch:
    """A twice-crashed chunk being solved one deal per task, collected for one file."""

    size: int
    rows: List[Row] = field(default_factory=list)


#: A run of deals counted, in a _Reported's bytes.
COUNTED_RUN = re.compile(rb"[^\x00]+")


class _Reported:
    """The status each deal of a task's ``deals`` has been counted as, a byte a deal: a
    cluster's thousand tasks of 100,000 deals in flight hold 100 MB, not a dict's gigabytes."""

    def __init__(self, deals: Tuple[Tuple[int, int], ...]) -> None:
        self._deals = deals
        self._lows = [lo for lo, _ in deals]
        self._starts = list(itertools.accumulate((hi - lo + 1 for lo, hi in deals), initial=0))
        self._codes = bytearray(self._starts[-1])  # 0: not counted, else 1 + index in STATUSES

    def _index(self, deal: int) -> int:
        at = bisect.bisect_right(self._lows, deal) - 1
        return self._starts[at] + deal - self._lows[at]

    def get(self, deal: int) -> Optional[str]:
        code = self._codes[self._index(deal)]
        return STATUSES[code - 1] if code else None

    def __setitem__(self, deal: int, status: str) -> None:
        self._codes[self._index(deal)] = STATUSES.index(status) + 1

    def counts(self) -> Counter:
        """How many deals have been counted as each status."""
        return Counter({status: n for code, status in enumerate(STATUSES, 1) for n in [self._codes.count(code)] if n})

    def counted(self) -> DealSet:
        """The deals counted so far."""
        return DealSet((lo + run.start() - start, lo + run.end() - 1 - start)
                       for (lo, hi), start in zip(self._deals, self._starts)
                       for run in COUNTED_RUN.finditer(self._codes, start, start + hi - lo + 1))


@dataclass
class _Job:
    """Deals sent as one task, and what becomes of their rows: a new chunk file, or (for
    ``error`` deals solved again) ``replaces``, the file whose rows they replace.
    ``reported`` holds the status of each deal progress has counted, shared with the jobs
    a failed one becomes, so that no deal is counted twice."""

    deals: Tuple[Tuple[int, int], ...]
    retries: int = 1
    batch: Optional[_Batch] = None
    replaces: Optional[Path] = None
    reported: Optional[_Reported] = None

    def __post_init__(self) -> None:
        if self.reported is None:
            self.reported = _Reported(self.deals)

    def __len__(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.deals)


@dataclass
class _Running:
    """The deal a task is on, the phase it is in, and since when (monotonic) it has run."""

    deal: int
    phase: str
    since: float


@dataclass
class SurveyReport:
    """What one run did."""

    out: Path
    written: int
    skipped: int
    counts: Dict[str, int]
    elapsed_s: float

    @property
    def deals_per_s(self) -> float:
        return self.written / self.elapsed_s if self.elapsed_s else 0.0

    @property
    def errors(self) -> int:
        """Deals that ended as ``error`` in this run: the same command solves them again."""
        return self.counts.get(ERROR, 0)

    def text(self) -> str:
        if not self.written:
            return f"Nothing to do: all {self.skipped:,} deals are already in {self.out}."
        retry = (f" {self.errors:,} of them got no verdict (error): run the same command again to retry them."
                 if self.errors else "")
        return (f"Surveyed {self.written:,} deals in {duration(self.elapsed_s)} "
                f"({self.deals_per_s:,.1f} deals/s): {counts_text(self.counts)}. "
                f"Results in {self.out} (see: fcsurvey summary {self.out}).{retry}")


class Survey:
    """One survey run: what to solve, where results go, and the loop that gets it done.

    Creating it checks everything that can be checked before work starts -- the solver
    loads, the output directory is usable and holds (if anything) results made with the
    same rules and limits -- and finds what is left to do, so :attr:`todo` is known before
    :meth:`run`: the deals not on disk, and the requested deals whose row is ``error``
    (:attr:`retried`), which are solved again and replace their rows in place.  It holds the
    directory's lock until ``run`` (called once) ends.  With ``difficulty`` every deal also
    gets its fewest cells and score (difficulty.py), at a cost of several extra solves a
    deal.  Long proofs save checkpoints in the dataset's ``.proofs`` directory every
    ``checkpoint_every`` seconds, so a killed survey, rerun, goes on with them where they were.
    """

    def __init__(self, deals: DealSet, out: Path, *, rules: Rules = PRESETS["freecell"],
                 limits: Limits = Limits(), workers: Optional[int] = None,
                 chunk_size: Optional[int] = None, solutions: bool = True,
                 force_new: bool = False, solver: Optional[str] = None, difficulty: bool = False,
                 checkpoint_every: float = CHECKPOINT_EVERY_S) -> None:
        if workers is not None and workers < 1:
            raise SurveyError(f"workers must be at least 1, got {workers}")
        if chunk_size is not None and chunk_size < 1:
            raise SurveyError(f"chunk size must be at least 1, got {chunk_size}")
        if not deals:
            raise SurveyError("no deals given")
        check_mode(limits, difficulty)
        self.solver = solver_path(solver)
        self.rules, self.limits = rules, limits
        self.workers = workers or default_workers()
        self.chunk_size = chunk_size or chunk_size_for(deals, rules, difficulty)
        self.solutions, self.difficulty = solutions, difficulty
        self.checkpoint_every = checkpoint_every
        self.dataset = Dataset.open(Path(out), rules, limits, deals, force_new=force_new,
                                    difficulty=difficulty, solutions=solutions, defer_manifest=True,
                                    build=core_build())
        self.out = self.dataset.path
        try:
            self.pending = deals - self.dataset.done()
            self.failed = [(path, within) for path, found in self.dataset.deals_with(ERROR)
                           for within in [found - (found - deals)] if within]
        except BaseException:
            self.dataset.close()
            raise
        self.retried = sum(len(within) for _, within in self.failed)
        self.todo = len(self.pending) + self.retried
        self.skipped = len(deals) - self.todo
        self.written = 0
        self.counts: Counter = Counter()
        self._progress_counts: Counter = Counter()
        self._running: Dict[Hashable, _Running] = {}
        self._named: Dict[Hashable, str] = {}  # the phase a slow deal was last logged in
        self._watched = 0.0  # when the running deals were last looked at
        self._profile: Optional[Profile] = None  # what each deal to do costs, for the ETA
        self._costs = [0.0, 0.0]  # the profile's cost of the deals done, and of all to do
        self._clock = 0.0  # when the run started (monotonic)

    def start_text(self, where: Optional[str] = None) -> str:
        """``Surveying 1,000 deals (0 already done) with 2 workers into DIR``, for the console."""
        retry = f"{self.retried:,} error deals solved again, " if self.retried else ""
        return (f"Surveying {self.todo:,} deals ({retry}{self.skipped:,} already done) with "
                f"{where or f'{self.workers} workers'} into {self.out}")

    def stopped_text(self) -> str:
        """What an interrupted run says: what it kept, and how to go on."""
        return (f"Stopped after {self.written:,} deals; finished chunks are kept in {self.out}. "
                f"Run the same command again to resume.")

    def _jobs(self) -> Iterator[_Job]:
        """Every task's deals: the error deals first (they may kill workers again, better
        known soon), then the deals not on disk, in chunk order."""
        for path, deals in self.failed:
            for chunk in plan_chunks(deals, self.chunk_size):
                yield _Job(chunk, replaces=path)
        for chunk in plan_chunks(self.pending, self.chunk_size):
            yield _Job(chunk)

    def run(self, progress: Optional[Progress] = None, executor: Optional[Executor] = None) -> SurveyReport:
        """Solve every pending deal, writing each chunk as it finishes.

        ``executor`` runs the tasks (and is closed at the end); by default a LocalPool of
        ``workers`` processes.  If its workers write chunk files themselves, every task but
        those of a twice-crashed chunk or of error deals solved again (collected here into
        their files) tells them where.  ``progress`` hears of each deal as it ends, and at
        least every PROGRESS_TICK_S of the deals running longer than console.SLOW_DEAL_S.
        Ctrl-C (KeyboardInterrupt) stops the workers at once and propagates; finished
        chunks stay on disk and no temp file is left behind.
        """
        started, clock = time.time(), time.monotonic()
        self._clock = clock
        if progress is not None and self.todo >= ETA_SAMPLE_MIN_DEALS:
            self._sample_costs()
        log.info("surveying %d deals (%d error deals solved again, %d already done) into %s "
                 "with %s; %s", self.todo, self.retried, self.skipped, self.out,
                 executor or f"{self.workers} workers", self.rules.describe())
        plan = self._jobs()
        waiting: Deque[_Job] = deque()  # retries and split chunks, ahead of the plan
        running: Dict[Hashable, _Job] = {}
        keys = itertools.count()
        try:
            if self.todo or not self.dataset.records_request():  # now that the executor started
                self.dataset.write_manifest()
            with executor or LocalPool(self.workers) as pool:
                sink = ChunkSink(str(self.out.absolute()), started) if pool.writes_chunks else None
                proofs = str(self.out.absolute() / PROOFS)
                while True:
                    while pool.idle():
                        job = waiting.popleft() if waiting else next(plan, None)
                        if job is None:
                            break
                        key = next(keys)
                        running[key] = job
                        own_file = job.batch is None and job.replaces is None
                        pool.submit(key, ChunkTask(job.deals, self.rules, self.limits, self.solutions,
                                                   self.solver, sink if own_file else None,
                                                   self.difficulty, proofs, self.checkpoint_every))
                    pool.lend_idle()  # what is left idle has nothing to do: its cores go to the proofs running
                    if not running:
                        break
                    for key, outcome in pool.wait(PROGRESS_TICK_S):
                        if isinstance(outcome, (PhaseStarted, DealFinished)):
                            if key in running:  # a backend may pass on an event late
                                self._heard(key, running[key], outcome, progress)
                        else:
                            self._finished(key, progress)
                            self._settle(running.pop(key), outcome, waiting, started, progress)
                    self._watch(progress)
        finally:
            self.dataset.close()
            if progress is not None:
                progress.close()
        return SurveyReport(self.out, self.written, self.skipped, dict(self.counts),
                            time.monotonic() - clock)

    def _heard(self, key: Hashable, job: _Job, event: Any, progress: Optional[Progress]) -> None:
        """An event of the task ``key``: a solve started, or a deal finished."""
        if isinstance(event, PhaseStarted):
            now = self._running.get(key)
            since = now.since if now is not None and now.deal == event.deal else time.monotonic()
            self._running[key] = _Running(event.deal, event.phase, since)
            if time.monotonic() - since >= console.SLOW_DEAL_S:  # a slow deal's new phase shows at once
                self._watch(progress, now=True)
            return
        self._finished(key, progress)
        self._tally(job, {event.deal: event.status}, progress)

    def _finished(self, key: Hashable, progress: Optional[Progress]) -> None:
        """Task ``key`` is off its deal; if progress named that deal, it drops it now."""
        self._running.pop(key, None)
        if self._named.pop(key, None) is not None:
            self._watch(progress, now=True)

    def _tally(self, job: _Job, statuses: Mapping[int, str], progress: Optional[Progress]) -> None:
        """Count deals of ``job`` as finished, each deal once whatever retries reported it."""
        new = 0
        for deal, status in statuses.items():
            before = job.reported.get(deal)  # type: ignore[union-attr]
            if before == status:
                continue
            if before is None:
                new += 1
                if self._profile is not None:
                    self._costs[0] += self._profile.deal_cost(deal)
            else:
                self._progress_counts[before] -= 1
            job.reported[deal] = status  # type: ignore[index]
            self._progress_counts[status] += 1
        if progress is not None:
            progress.update(new, self._progress_counts)
            self._estimate(progress)

    def _sample_costs(self) -> None:
        """Solve a small stratified sample of the deals to do (plan.py), here, so that the
        ETA weighs the deals left by what their part of the range costs."""
        todo = self.pending | DealSet(r for _, deals in self.failed for r in deals.ranges)
        drawn = sample(todo, self.rules, self.limits, solutions=self.solutions, difficulty=self.difficulty,
                       solver=self.solver, count=ETA_SAMPLE_DEALS, budget_s=ETA_SAMPLE_BUDGET_S)
        self._profile = drawn.profile()
        self._costs = [0.0, self._profile.cost(todo)]
        log.info("the ETA weighs the deals left by a stratified sample of %d of them (%s)",
                 len(drawn.picks), duration(drawn.elapsed_s))

    def _estimate(self, progress: Progress) -> None:
        """Tell ``progress`` the time left, by the profile, once there is one."""
        if self._profile is not None and self._costs[0]:
            progress.estimate(remaining_s(time.monotonic() - self._clock, *self._costs))

    def _watch(self, progress: Optional[Progress], now: bool = False) -> None:
        """Name the deals running longer than SLOW_DEAL_S to the progress (at most every
        PROGRESS_TICK_S, unless ``now``), and log each when it first gets slow and at every
        phase after that."""
        clock, slow = time.monotonic(), []
        if clock - self._watched < PROGRESS_TICK_S and not now:
            return
        self._watched = clock
        for key, deal in self._running.items():
            if clock - deal.since < console.SLOW_DEAL_S:
                continue
            slow.append(running_text(deal.deal, deal.phase, clock - deal.since))
            if self._named.get(key) != f"{deal.deal} {deal.phase}":
                self._named[key] = f"{deal.deal} {deal.phase}"
                log.info("%s so far", slow[-1])
        if progress is not None:
            progress.working(slow)

    def _settle(self, job: _Job, outcome: Any, waiting: Deque[_Job], started: float,
                progress: Optional[Progress]) -> None:
        if isinstance(outcome, ChunkWritten):
            unheard = Counter(outcome.counts) - job.reported.counts()  # type: ignore[union-attr]
            self._progress_counts.update(unheard)
            if self._profile is not None:
                self._costs[0] += self._profile.cost(DealSet(outcome.deals) - job.reported.counted())  # type: ignore[union-attr]
            if progress is not None:
                progress.update(sum(unheard.values()), self._progress_counts)
                self._estimate(progress)
            self.dataset.record(outcome.name, ChunkEntry(DealSet(outcome.deals), outcome.counts, outcome.size,
                                                         outcome.mtime_ns))
            self._record(outcome.name, outcome.counts)
            return
        if isinstance(outcome, TaskFailed):
            first, last = job.deals[0][0], job.deals[-1][1]
            if job.retries:
                log.warning("deals %d-%d: %s; retrying once", first, last, outcome.reason)
                waiting.append(_Job(job.deals, job.retries - 1, job.batch, job.replaces, job.reported))
                return
            if len(job) > 1:
                log.warning("deals %d-%d: %s again; solving them one at a time", first, last, outcome.reason)
                batch = _Batch(len(job))
                waiting.extend(_Job(((d, d),), 0, batch, job.replaces, job.reported) for d in DealSet(job.deals))
                return
            log.error("deal %d: %s; recorded as error", first, outcome.reason)
            outcome = [failed_row(first, outcome.reason)]
        rows: List[Row] = outcome
        self._tally(job, {r["deal"]: r["status"] for r in rows}, progress)
        if job.batch is not None:
            job.batch.rows += rows
            if len(job.batch.rows) < job.batch.size:
                return
            rows = job.batch.rows
        if job.replaces is not None:
            path = self.dataset.rewrite_chunk(job.replaces, rows, started)
        else:
            path = self.dataset.write_chunk(rows, started)
        self._record(path.name, Counter(r["status"] for r in rows))

    def _record(self, name: str, counts: Mapping[str, int]) -> None:
        """Count one chunk file written (or rewritten), here or by a worker."""
        self.counts.update(counts)
        self.written += sum(counts.values())
        log.info("wrote %s: %s", name, counts_text(counts))

"""Survey a set of deals: plan chunks, run them on workers, summarise.

Deals are grouped into chunks with fixed boundaries (chunk k holds the requested deals in
k*K+1 .. (k+1)*K), so a rerun with the same chunk size K finds the same files; deals
already on disk are subtracted first, whatever chunk size wrote them, so any rerun fills
only the gaps.  The parent process only plans, writes files and reports; workers solve
(on a Dask cluster they also write their chunk files, so the parent sees only summaries).

A chunk whose worker dies is retried once (the death may have been the machine's, not
the deal's); if it dies again its deals are solved one per task, so only the deal that
kills its worker ends as an ``error`` row.
"""

from __future__ import annotations

import itertools
import logging
import os
import statistics
import sys
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import (Any, Callable, Deque, Dict, Hashable, Iterator, List, Mapping, Optional, Protocol,
                    Tuple)

import pyarrow as pa
import pyarrow.compute as pc
from tqdm import tqdm

from .dealset import DealSet
from .executors import (PACKAGE_LOGGER, ChunkSink, ChunkTask, ChunkWritten, Executor, LocalPool,
                        SharedLogHandler, TaskFailed, load_solver)
from .rules import PRESETS, Rules
from .schema import DIFFICULTY_RANK, ERROR, SOLVED, STATUSES, UNKNOWN, UNSOLVABLE, Row, failed_row
from .solver import CHECKPOINT_EVERY_S, DEFAULT_MAX_STATES, Limits
from .store import PROOFS, Dataset, chunk_runs, read, read_manifest

DEFAULT_CHUNK_SIZE = 500  # ~1 s of work per chunk: smooth progress, few files (64 for 1-32000)
DEFAULT_SOLVER = "fcsurvey.solver:solve"
#: Test hook: solve with this "module:function" instead of the real solver.
SOLVER_ENV = "FCSURVEY_TEST_SOLVER"
RESULTS_DIR = Path("results")
PLAIN_PROGRESS_EVERY = 10  # chunks between progress lines when stderr is not a terminal
LIST_LIMIT = 50            # deals or gaps listed in a summary before "and N more"
HARDEST_SHOWN = 10         # hardest deals a summary of a --difficulty survey names

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
    if difficulty:
        parts.append("difficulty")
    if len(deals.ranges) <= 3:
        parts.append(str(deals).replace(",", "_"))
    else:
        parts.append(f"{deals.ranges[0][0]}-{deals.ranges[-1][1]}-{len(deals)}-deals")
    return RESULTS_DIR / "_".join(parts)


def plan_chunks(deals: DealSet, size: int) -> Iterator[Tuple[Tuple[int, int], ...]]:
    """The deals of each chunk k (those in k*size+1 .. (k+1)*size), lazily and in order."""
    current, pieces = None, []  # type: ignore[var-annotated]
    for lo, hi in deals.ranges:
        while lo <= hi:
            k = (lo - 1) // size
            end = min(hi, (k + 1) * size)
            if k != current and pieces:
                yield tuple(pieces)
                pieces = []
            current = k
            pieces.append((lo, end))
            lo = end + 1
    if pieces:
        yield tuple(pieces)


# --- progress and logging ---------------------------------------------------------------

def _counts_text(counts: Mapping[str, int]) -> str:
    shown = [s for s in STATUSES if s != ERROR or counts.get(ERROR)]
    return ", ".join(f"{counts.get(s, 0):,} {s}" for s in shown)


def _duration(seconds: float) -> str:
    """``2h 03m``, ``4m 12s`` or ``7.3s``."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s"


class Progress(Protocol):
    """Told about every chunk written; the survey itself stays quiet."""

    def update(self, deals: int, counts: Mapping[str, int]) -> None: ...

    def close(self) -> None: ...


class BarProgress:
    """A tqdm bar: deals done, deals/s, ETA and the running counts."""

    def __init__(self, total: int) -> None:
        self.bar = tqdm(total=total, unit="deal", file=sys.stderr, smoothing=0.05, dynamic_ncols=True)

    def update(self, deals: int, counts: Mapping[str, int]) -> None:
        self.bar.set_postfix_str(_counts_text(counts), refresh=False)
        self.bar.update(deals)

    def close(self) -> None:
        self.bar.close()


class LineProgress:
    """One plain line every ``every`` chunks, for logs and pipes where a bar would be noise."""

    def __init__(self, total: int, every: int = PLAIN_PROGRESS_EVERY) -> None:
        self.total, self.every = total, every
        self.done = self.chunks = 0
        self.started = time.monotonic()

    def update(self, deals: int, counts: Mapping[str, int]) -> None:
        self.done += deals
        self.chunks += 1
        if self.chunks % self.every:
            return
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed else 0.0
        eta = _duration((self.total - self.done) / rate) if rate else "?"
        print(f"{self.done:,}/{self.total:,} deals ({100 * self.done / self.total:.1f}%), "
              f"{rate:,.1f} deals/s, ETA {eta}; {_counts_text(counts)}", file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


def console_progress(total: int) -> Progress:
    """A bar when stderr is a terminal, plain lines otherwise."""
    return BarProgress(total) if sys.stderr.isatty() else LineProgress(total)


class _ConsoleHandler(logging.Handler):
    """Writes through tqdm so that log lines do not tear the progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:
            self.handleError(record)


def setup_logging(verbose: int, log_file: Optional[Path]) -> Callable[[], None]:
    """Route fcsurvey's log records, from this process and every worker, to the console
    (warnings, or everything at ``verbose`` >= 1) and to ``log_file``; returns the undo.

    Everything funnels through multiprocessing-logging's handler, so lines from several
    processes never interleave mid-line.  ``verbose`` 2 adds one line per deal.
    """
    level = logging.DEBUG if verbose >= 2 else logging.INFO
    console = _ConsoleHandler(level if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s [%(processName)s] %(message)s"))
    destinations: List[logging.Handler] = [console]
    if log_file is not None:
        try:
            to_file = logging.FileHandler(log_file, encoding="utf-8")
        except OSError as exc:
            raise SurveyError(f"cannot write log file {log_file}: {exc.strerror}") from None
        to_file.setLevel(level)
        to_file.setFormatter(logging.Formatter(
            "%(asctime)s %(levelname)s [%(processName)s] %(name)s: %(message)s"))
        destinations.append(to_file)
    logger = logging.getLogger(PACKAGE_LOGGER)
    level_before, propagate_before = logger.level, logger.propagate
    handlers = [SharedLogHandler(h) for h in destinations]
    for handler in handlers:
        logger.addHandler(handler)
    logger.setLevel(min(h.level for h in handlers))
    logger.propagate = False

    def undo() -> None:
        for handler in handlers:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(level_before)
        logger.propagate = propagate_before
    return undo


# --- the run ------------------------------------------------------------------------------

@dataclass
class _Batch:
    """A twice-crashed chunk being solved one deal per task, collected for one file."""

    size: int
    rows: List[Row] = field(default_factory=list)


@dataclass
class _Job:
    deals: Tuple[Tuple[int, int], ...]
    retries: int = 1
    batch: Optional[_Batch] = None

    def __len__(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.deals)


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

    def text(self) -> str:
        if not self.written:
            return f"Nothing to do: all {self.skipped:,} deals are already in {self.out}."
        return (f"Surveyed {self.written:,} deals in {_duration(self.elapsed_s)} "
                f"({self.deals_per_s:,.1f} deals/s): {_counts_text(self.counts)}. "
                f"Results in {self.out} (see: fcsurvey summary {self.out}).")


class Survey:
    """One survey run: what to solve, where results go, and the loop that gets it done.

    Creating it checks everything that can be checked before work starts -- the solver
    loads, the output directory is usable and holds (if anything) results made with the
    same rules and limits -- and subtracts what is already on disk, so :attr:`todo` is
    known before :meth:`run`.  It holds the directory's lock until ``run`` (called once)
    ends.  With ``difficulty`` every deal also gets its fewest cells and score
    (difficulty.py), at a cost of several extra solves a deal.  Long proofs save checkpoints
    in the dataset's ``.proofs`` directory every ``checkpoint_every`` seconds, so a killed
    survey, rerun, goes on with them where they were.
    """

    def __init__(self, deals: DealSet, out: Path, *, rules: Rules = PRESETS["freecell"],
                 limits: Limits = Limits(), workers: Optional[int] = None,
                 chunk_size: int = DEFAULT_CHUNK_SIZE, solutions: bool = True,
                 force_new: bool = False, solver: Optional[str] = None, difficulty: bool = False,
                 checkpoint_every: float = CHECKPOINT_EVERY_S) -> None:
        if workers is not None and workers < 1:
            raise SurveyError(f"workers must be at least 1, got {workers}")
        if chunk_size < 1:
            raise SurveyError(f"chunk size must be at least 1, got {chunk_size}")
        if not deals:
            raise SurveyError("no deals given")
        self.solver = solver or os.environ.get(SOLVER_ENV, DEFAULT_SOLVER)
        try:
            load_solver(self.solver)
        except ValueError as exc:
            raise SurveyError(str(exc)) from None
        self.rules, self.limits = rules, limits
        self.workers = workers or default_workers()
        self.chunk_size, self.solutions, self.difficulty = chunk_size, solutions, difficulty
        self.checkpoint_every = checkpoint_every
        self.dataset = Dataset.open(Path(out), rules, limits, deals, force_new=force_new,
                                    difficulty=difficulty, solutions=solutions, defer_manifest=True)
        self.out = self.dataset.path
        try:
            self.pending = deals - self.dataset.done()
        except BaseException:
            self.dataset.close()
            raise
        self.todo = len(self.pending)
        self.skipped = len(deals) - self.todo
        self.written = 0
        self.counts: Counter = Counter()

    def run(self, progress: Optional[Progress] = None, executor: Optional[Executor] = None) -> SurveyReport:
        """Solve every pending deal, writing each chunk as it finishes.

        ``executor`` runs the tasks (and is closed at the end); by default a LocalPool of
        ``workers`` processes.  If its workers write chunk files themselves, every task but
        those of a twice-crashed chunk (collected here into one file) tells them where.
        Ctrl-C (KeyboardInterrupt) stops the workers at once and propagates; finished
        chunks stay on disk and no temp file is left behind.
        """
        started, clock = time.time(), time.monotonic()
        log.info("surveying %d deals (%d already done) into %s with %s; %s", self.todo, self.skipped,
                 self.out, executor or f"{self.workers} workers", self.rules.describe())
        plan = (_Job(deals) for deals in plan_chunks(self.pending, self.chunk_size))
        waiting: Deque[_Job] = deque()  # retries and split chunks, ahead of the plan
        running: Dict[Hashable, _Job] = {}
        keys = itertools.count()
        try:
            self.dataset.write_manifest()  # only now that the executor has started
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
                        pool.submit(key, ChunkTask(job.deals, self.rules, self.limits, self.solutions,
                                                   self.solver, sink if job.batch is None else None,
                                                   self.difficulty, proofs, self.checkpoint_every))
                    if not running:
                        break
                    for finished, outcome in pool.wait(None):
                        self._settle(running.pop(finished), outcome, waiting, started, progress)
        finally:
            self.dataset.close()
            if progress is not None:
                progress.close()
        return SurveyReport(self.out, self.written, self.skipped, dict(self.counts),
                            time.monotonic() - clock)

    def _settle(self, job: _Job, outcome: Any, waiting: Deque[_Job], started: float,
                progress: Optional[Progress]) -> None:
        if isinstance(outcome, ChunkWritten):
            self._record(outcome.name, outcome.counts, progress)
            return
        if isinstance(outcome, TaskFailed):
            first, last = job.deals[0][0], job.deals[-1][1]
            if job.retries:
                log.warning("deals %d-%d: %s; retrying once", first, last, outcome.reason)
                waiting.append(_Job(job.deals, job.retries - 1, job.batch))
                return
            if len(job) > 1:
                log.warning("deals %d-%d: %s again; solving them one at a time", first, last, outcome.reason)
                batch = _Batch(len(job))
                waiting.extend(_Job(((d, d),), 0, batch) for d in DealSet(job.deals))
                return
            log.error("deal %d: %s; recorded as error", first, outcome.reason)
            outcome = [failed_row(first, outcome.reason)]
        rows: List[Row] = outcome
        if job.batch is not None:
            job.batch.rows += rows
            if len(job.batch.rows) < job.batch.size:
                return
            rows = job.batch.rows
        path = self.dataset.write_chunk(rows, started)
        self._record(path.name, Counter(r["status"] for r in rows), progress)

    def _record(self, name: str, counts: Mapping[str, int], progress: Optional[Progress]) -> None:
        """Count and report one chunk file written, here or by a worker."""
        deals = sum(counts.values())
        self.counts.update(counts)
        self.written += deals
        log.info("wrote %s: %s", name, _counts_text(counts))
        if progress is not None:
            progress.update(deals, self.counts)


# --- summary ------------------------------------------------------------------------------

def _listed(items: List[Any]) -> Dict[str, Any]:
    return {"count": len(items), "items": items[:LIST_LIMIT]}


def _listed_text(listed: Mapping[str, Any], show: Callable[[Any], str] = str) -> str:
    if not listed["count"]:
        return "none"
    text = ", ".join(show(i) for i in listed["items"])
    more = listed["count"] - len(listed["items"])
    return f"{text} (and {more:,} more)" if more else text


def summarize(path: Path) -> Dict[str, Any]:
    """Rules, coverage, verdict counts, notable deals, solution lengths and speed of the
    dataset at ``path``, as JSON-ready data (lists cut at LIST_LIMIT, with their counts)."""
    manifest = read_manifest(path)
    table = read(path)
    deals = table["deal"].to_pylist()
    present = DealSet.from_sorted(deals)
    requested = DealSet(tuple(r) for r in manifest["requested"])
    missing = requested - present
    by_status: Dict[str, List[int]] = {s: [] for s in STATUSES}
    for deal, status in zip(deals, table["status"].to_pylist()):
        by_status.setdefault(status, []).append(deal)
    moves = pc.filter(table["moves"], pc.equal(table["status"], SOLVED)).drop_null().to_pylist()
    runs: Dict[float, float] = {}  # run start -> its last chunk written
    for run_started, written in chunk_runs(path):
        runs[run_started] = max(written, runs.get(run_started, run_started))
    wall = sum(end - start for start, end in runs.items())
    return {
        "path": str(path),
        "fcsurvey_version": manifest["fcsurvey_version"],
        "generator": manifest["generator"],
        "rules": manifest["rules"],
        "limits": manifest["limits"],
        "deals": {"present": len(present), "requested": len(requested),
                  "first": requested.ranges[0][0] if requested else None,
                  "last": requested.ranges[-1][1] if requested else None,
                  "missing": len(missing), "gaps": _listed([list(r) for r in missing.ranges]),
                  "duplicate_rows": len(deals) - len(present)},
        "status": {s: len(found) for s, found in by_status.items()},
        **{s: _listed(by_status[s]) for s in (UNSOLVABLE, UNKNOWN, ERROR)},
        "moves": _stats(moves),
        "states": pc.sum(table["states"]).as_py() or 0,
        "solver_s": (pc.sum(table["elapsed_ms"]).as_py() or 0.0) / 1000.0,
        "wall_s": wall,
        "runs": len(runs),
        "deals_per_s": len(deals) / wall if wall else 0.0,
        "difficulty": _difficulty_summary(table) if DIFFICULTY_RANK in table.column_names else None,
    }


def _stats(values: List[float]) -> Optional[Dict[str, float]]:
    return {"min": min(values), "median": statistics.median(values), "mean": statistics.fmean(values),
            "max": max(values)} if values else None


def _difficulty_summary(table: pa.Table) -> Dict[str, Any]:
    """A --difficulty survey's min_cells counts ("none": no count up to 10 wins), the deals
    whose min_cells is not proven and the limits that stopped them, the score's spread, the
    hardest deals and the time the fewest-cells search took (error rows left out)."""
    rows = table.filter(pc.not_equal(table["status"], ERROR)).sort_by([(DIFFICULTY_RANK, "ascending")])
    cells = Counter(rows["min_cells"].to_pylist())
    inexact = rows.filter(pc.invert(rows["min_cells_exact"]))
    hardest = rows.filter(pc.is_valid(rows["difficulty"])).slice(0, HARDEST_SHOWN)
    return {
        "min_cells": {("none" if k is None else str(k)): cells[k]
                      for k in sorted(cells, key=lambda k: -1 if k is None else k)},
        "inexact": _listed(sorted(inexact["deal"].to_pylist())),
        "inexact_limits": dict(Counter(inexact["min_cells_limit"].drop_null().to_pylist())),
        "score": _stats(rows["difficulty"].drop_null().to_pylist()),
        "hardest": [{"deal": d, "difficulty": x, "min_cells": k} for d, x, k in zip(
            hardest["deal"].to_pylist(), hardest["difficulty"].to_pylist(), hardest["min_cells"].to_pylist())],
        "search_s": (pc.sum(rows["difficulty_ms"]).as_py() or 0.0) / 1000.0,
    }


def _difficulty_text(d: Mapping[str, Any]) -> List[str]:
    counts = ", ".join(f"{k}: {n:,}" for k, n in d["min_cells"].items())
    limits = ", ".join(f"{n:,} by the {limit} limit" for limit, n in d["inexact_limits"].items())
    proven = ("all proven" if not d["inexact"]["count"] else
              f"not proven for {_listed_text(d['inexact'])}" + (f" ({limits})" if limits else ""))
    score = d["score"]
    lines = [f"Min cells   {counts}; {proven}"]
    lines.append("Difficulty  " + ("no scores" if score is None else
                 f"min {score['min']:g}, median {score['median']:g}, mean {score['mean']:.3f}, "
                 f"max {score['max']:g}; hardest: "
                 + ", ".join(f"{h['deal']} ({h['difficulty']:g})" for h in d["hardest"])))
    return lines


def summary_text(summary: Mapping[str, Any]) -> str:
    """:func:`summarize`'s result for people."""
    d = summary
    deals, moves, limits = d["deals"], d["moves"], d["limits"]
    gaps = _listed_text(deals["gaps"], lambda r: str(DealSet([tuple(r)])))
    span = f"{deals['first']}-{deals['last']}" if deals["requested"] else "none"
    lines = [
        f"Dataset     {d['path']} (fcsurvey {d['fcsurvey_version']}, deals by {d['generator']})",
        f"Rules       {Rules.from_dict(d['rules']).describe()}",
        f"Limits      {limits['max_states']:,} states per deal, "
        + ("no timeout" if limits["timeout"] is None else f"{limits['timeout']:g} s per deal"),
        f"Deals       {deals['present']:,} of {deals['requested']:,} requested (within {span}); "
        + ("no gaps" if not deals["missing"] else f"{deals['missing']:,} missing: {gaps}"),
        f"Status      {_counts_text(d['status'])}",
        f"Unsolvable  {_listed_text(d[UNSOLVABLE])}",
        f"Unknown     {_listed_text(d[UNKNOWN])}",
    ]
    if d[ERROR]["count"]:
        lines.append(f"Error       {_listed_text(d[ERROR])}")
    if deals["duplicate_rows"]:
        lines.append(f"WARNING     {deals['duplicate_rows']:,} rows repeat a deal")
    lines.append("Moves       " + ("no solved deals" if moves is None else
                 f"min {moves['min']}, median {moves['median']:g}, mean {moves['mean']:.1f}, "
                 f"max {moves['max']} (solved deals)"))
    if d["difficulty"] is not None:
        lines += _difficulty_text(d["difficulty"])
    lines.append(f"States      {d['states']:,} in total")
    lines.append(f"Time        {_duration(d['wall_s'])} wall over {d['runs']} run(s), "
                 f"{d['deals_per_s']:,.1f} deals/s; {_duration(d['solver_s'])} in the solver"
                 + ("" if d["difficulty"] is None else
                    f", {_duration(d['difficulty']['search_s'])} more finding the fewest cells"))
    return "\n".join(lines)

"""What a survey will cost, measured before it runs, from a stratified sample of its deals.

The first deals of a range are no sample of the rest (a survey's start-up and its easy first
deals once made the ETA of the whole numbering 287 hours), so the deals are cut into
STRATA strata of equal size, in order, and sampled round after round: each round draws one
deal at random from every stratum, the strata in a random order.  Each drawn deal is solved
as a survey's worker solves it (task.solve_chunk: the same solves, the solution replayed)
and timed twice: the CPU time of the solving thread, what a dedicated core spends (the
core-hours, a cluster's wall time), and the wall time, what a worker of this machine takes
at its load of the moment (the wall time on ``--workers`` here).  Sampling stops after SAMPLE_DEALS deals or SAMPLE_BUDGET_S seconds, whichever
comes first, so a sample cut short by slow deals is still spread over the whole range.

The sample gives the mean seconds a deal (the mean of the strata's means), its spread, and
each stratum's mean (:class:`Profile`), which a running survey's ETA weighs its remaining
deals by; the sample's rows, written as a chunk file would be, give the bytes a deal and a
file cost.  The files a survey makes are counted exactly from its chunk plan.
"""

from __future__ import annotations

import bisect
import math
import random
import statistics
import tempfile
import time
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .console import duration
from .dealset import DealSet
from .limits import Limits
from .rules import Rules
from .schema import Row
from .task import ChunkTask

STRATA = 200
SAMPLE_DEALS = 2_000
SAMPLE_BUDGET_S = 60.0
#: The normal quantile of a two-sided 95% interval.
Z95 = 1.96
#: Cluster sizes every plan shows the wall time for, beside --workers.
CLUSTER_CORES = (100, 1_000)
BYTES_UNITS = ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"))


class _Positions:
    """The deals of a DealSet by position (0 for its lowest), without listing them."""

    def __init__(self, deals: DealSet) -> None:
        self.ranges = deals.ranges
        self.starts, total = [], 0
        for lo, hi in self.ranges:
            self.starts.append(total)
            total += hi - lo + 1
        self.total = total

    def __getitem__(self, index: int) -> int:
        at = bisect.bisect_right(self.starts, index) - 1
        return self.ranges[at][0] + index - self.starts[at]


class Profile:
    """Mean seconds a deal in each of the equal strata of ``deals`` (``None`` where the
    sample drew none, taken as the mean of the others): what a deal of any part of the
    range costs beside another."""

    def __init__(self, deals: DealSet, means: Sequence[Optional[float]]) -> None:
        self.deals, self.means = deals, tuple(means)
        self._positions = _Positions(deals)
        self._lows = [lo for lo, _ in deals.ranges]
        self._size = _stratum_size(len(deals), len(self.means))
        known = [m for m in self.means if m is not None]
        self._filled = [statistics.fmean(known) if m is None else m for m in self.means] if known else [0.0] * len(self.means)

    def _position(self, deal: int) -> int:
        """The position of ``deal``, one of the profile's deals, among them."""
        at = bisect.bisect_right(self._lows, deal) - 1
        return self._positions.starts[at] + deal - self._positions.ranges[at][0]

    def deal_cost(self, deal: int) -> float:
        """The estimated seconds of ``deal``, one of the profile's deals."""
        return self._filled[min(self._position(deal) // self._size, len(self._filled) - 1)]

    def cost(self, deals: DealSet) -> float:
        """The estimated seconds of work ``deals`` take (those of them among the profile's)."""
        total = 0.0
        for lo, hi in (self.deals - (self.deals - deals)).ranges:
            first, last = self._position(lo), self._position(hi)
            while first <= last:
                stratum = min(first // self._size, len(self._filled) - 1)
                end = last if stratum == len(self._filled) - 1 else min(last, (stratum + 1) * self._size - 1)
                total += (end - first + 1) * self._filled[stratum]
                first = end + 1
        return total


def remaining_s(elapsed_s: float, done_cost: float, total_cost: float) -> float:
    """The time left of a running survey that took ``elapsed_s`` for deals a profile costs
    ``done_cost`` of its ``total_cost``: the rate of the work so far, not of the deals, so
    that easy first deals do not make the rest look easy (nor hard ones hard)."""
    return elapsed_s * (total_cost - done_cost) / done_cost if done_cost else math.inf


def _stratum_size(total: int, strata: int) -> int:
    return max(1, math.ceil(total / strata))


def draw(deals: DealSet, count: int, strata: int = STRATA, seed: int = 0) -> List[Tuple[int, int]]:
    """(stratum, deal) of up to ``count`` distinct deals, in the order they are to be solved:
    round after round, one deal not drawn yet from every stratum, at random, the strata in
    random order."""
    positions = _Positions(deals)
    strata = min(strata, positions.total)
    size = _stratum_size(positions.total, strata)
    bounds = [(s * size, min((s + 1) * size, positions.total) - 1) for s in range(strata)]
    rng, drawn, seen = random.Random(seed), [], set()
    taken = [0] * strata
    while len(drawn) < min(count, positions.total):
        order = list(range(strata))
        rng.shuffle(order)
        for stratum in order:
            lo, hi = bounds[stratum]
            if taken[stratum] > hi - lo:
                continue  # every deal of it drawn
            index = rng.randint(lo, hi)
            while index in seen:
                index = rng.randint(lo, hi)
            seen.add(index)
            taken[stratum] += 1
            drawn.append((stratum, positions[index]))
            if len(drawn) == count:
                break
    return drawn


@dataclass(frozen=True)
class Sample:
    """The timed solves of a stratified sample: each deal's stratum, seconds and row."""

    deals: DealSet   # the deals sampled from
    strata: int
    picks: Tuple[Tuple[int, int, float, float], ...]  # (stratum, deal, CPU seconds, wall seconds)
    rows: Tuple[Row, ...]
    elapsed_s: float

    def seconds(self, wall: bool = False) -> List[float]:
        """Each sampled deal's CPU seconds, or with ``wall`` its wall seconds."""
        return [p[3] if wall else p[2] for p in self.picks]

    def profile(self, wall: bool = False) -> Profile:
        by_stratum: Dict[int, List[float]] = {}
        for (stratum, *_), seconds in zip(self.picks, self.seconds(wall)):
            by_stratum.setdefault(stratum, []).append(seconds)
        return Profile(self.deals, tuple(statistics.fmean(by_stratum[s]) if s in by_stratum else None
                                         for s in range(self.strata)))

    def mean(self, wall: bool = False) -> float:
        """Mean seconds a deal: the mean of the sampled strata's means (equal strata)."""
        return statistics.fmean(m for m in self.profile(wall).means if m is not None)

    def relative_error(self, wall: bool = False) -> float:
        """Half the 95% interval of :meth:`mean`, as a share of it, taken as for a simple
        random sample: stratifying only narrows it, so the interval is if anything too wide."""
        seconds = self.seconds(wall)
        if len(seconds) < 2 or not self.mean(wall):
            return 0.0
        return Z95 * statistics.stdev(seconds) / math.sqrt(len(seconds)) / self.mean(wall)

    def slowest(self) -> Tuple[int, float]:
        """The deal that took the most CPU time, and that time."""
        _, deal, seconds, _ = max(self.picks, key=lambda p: p[2])
        return deal, seconds


def sample(deals: DealSet, rules: Rules, limits: Limits, *, solutions: bool = True, difficulty: bool = False,
           solver: str, count: int = SAMPLE_DEALS, budget_s: float = SAMPLE_BUDGET_S) -> Sample:
    """Solve and time a stratified sample of ``deals`` in this process (see the module
    notes), stopping at ``count`` deals or after ``budget_s`` seconds."""
    started = time.monotonic()
    picks, rows = [], []
    for stratum, deal in draw(deals, count, seed=zlib.crc32(str(deals).encode())):
        task = ChunkTask(((deal, deal),), rules, limits, solutions, solver, difficulty=difficulty)
        cpu, clock = time.thread_time(), time.perf_counter()
        rows += task.run()  # type: ignore[arg-type]
        picks.append((stratum, deal, time.thread_time() - cpu, time.perf_counter() - clock))
        if time.monotonic() - started > budget_s:
            break
    return Sample(deals, min(STRATA, len(deals)), tuple(picks), tuple(rows), time.monotonic() - started)


def count_chunks(deals: DealSet, size: int, block: int) -> int:
    """How many chunk files survey.plan_chunks makes of ``deals``, counted, not listed: a
    chunk ends at every multiple of ``size`` and of ``block``."""
    def edges(lo: int, hi: int) -> int:  # multiples of size or block in lo..hi-1
        both = size * block // math.gcd(size, block)
        return sum((hi - 1) // step - (lo - 1) // step for step in (size, block)) - ((hi - 1) // both - (lo - 1) // both)
    total, last_key = 0, None
    for lo, hi in deals.ranges:
        first_key = ((lo - 1) // size, (lo - 1) // block)
        total += 1 + edges(lo, hi) - (first_key == last_key)
        last_key = ((hi - 1) // size, (hi - 1) // block)
    return total


def file_bytes(rows: Sequence[Row], rules: Rules, limits: Limits, solutions: bool, difficulty: bool) -> Tuple[float, float]:
    """(bytes a row, bytes a file besides its rows) of chunk files holding rows like
    ``rows``: the rows renumbered as consecutive deals (as a chunk's are) and written as a
    chunk file, against a file of one of them."""
    from .store import Dataset  # pyarrow: only a plan's end needs it

    ordered = [{**r, "deal": i + 1} for i, r in enumerate(sorted(rows, key=lambda r: r["deal"]))]
    with tempfile.TemporaryDirectory(prefix="fcsurvey-plan-") as scratch:
        sizes = []
        for part, chosen in (("one", ordered[:1]), ("all", ordered)):
            dataset = Dataset.open(Path(scratch) / part, rules, limits, DealSet([(1, len(ordered))]),
                                   solutions=solutions, difficulty=difficulty)
            try:
                sizes.append(dataset.write_chunk(chosen, 0.0).stat().st_size)
            finally:
                dataset.close()
    per_row = (sizes[1] - sizes[0]) / max(len(ordered) - 1, 1)
    return per_row, sizes[0] - per_row


def _bytes_text(n: float) -> str:
    for scale, unit in BYTES_UNITS:
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n:,.0f} bytes"


@dataclass(frozen=True)
class Plan:
    """What a survey of ``deals`` will cost: the sample's measures, scaled."""

    deals: DealSet
    sample: Sample
    chunk_size: int
    files: int
    row_bytes: float
    file_bytes: float
    workers: int

    def core_s(self, wall: bool = False) -> float:
        """Seconds of work in all: CPU seconds, or with ``wall`` a worker's seconds here."""
        return self.sample.mean(wall) * len(self.deals)

    def interval(self, seconds: float, wall: bool = False) -> Tuple[float, float]:
        """The 95% interval of ``seconds``, a quantity proportional to the mean."""
        error = self.sample.relative_error(wall)
        return seconds * max(1.0 - error, 0.0), seconds * (1.0 + error)

    def wall_s(self, cores: int, here: bool = False) -> float:
        """Wall time on ``cores`` workers, each running whole waves of equal tasks (a survey
        of fewer tasks than workers takes one task's time): dedicated cores, or (``here``)
        workers of this machine at the load the sample met."""
        return math.ceil(self.files / cores) * self.core_s(here) / self.files

    @property
    def bytes(self) -> float:
        return self.files * self.file_bytes + len(self.deals) * self.row_bytes

    def text(self) -> str:
        n, sample = len(self.deals), self.sample
        mean, (low, high) = sample.mean(), self.interval(sample.mean())
        slow_deal, slow_s = sample.slowest()
        counts = Counter(r["status"] for r in sample.rows)
        core_low, core_high = self.interval(self.core_s())
        lines = [
            f"Plan for {n:,} deals ({self.deals if len(self.deals.ranges) <= 3 else 'a list'}):",
            f"  sample     {len(sample.picks):,} deals from {sample.strata:,} strata over the whole range, "
            f"solved in {duration(sample.elapsed_s)}: "
            + ", ".join(f"{c:,} {s}" for s, c in sorted(counts.items())),
            f"  per deal   {mean * 1e3:.3f} ms of CPU mean (95%: {low * 1e3:.3f}-{high * 1e3:.3f}), median "
            f"{statistics.median(sample.seconds()) * 1e3:.3f} ms, slowest {slow_s * 1e3:,.1f} ms (deal {slow_deal}); "
            f"{sample.mean(wall=True) / mean:.2f}x that in wall time at this machine's load",
            f"  work       {self.core_s() / 3600:,.2f} core-hours (95%: {core_low / 3600:,.2f}-{core_high / 3600:,.2f})",
            f"  output     {self.files:,} files of up to {self.chunk_size:,} deals, about "
            f"{_bytes_text(self.bytes)} ({self.bytes / n:.1f} bytes a deal)",
        ]
        here = self.wall_s(self.workers, here=True)
        here_low, here_high = self.interval(here, wall=True)
        lines.append(f"  wall time  {duration(here)} on {self.workers:,} workers here "
                     f"(95%: {duration(here_low)}-{duration(here_high)})")
        for cores in (self.workers, *[c for c in CLUSTER_CORES if c != self.workers]):
            wall = self.wall_s(cores)
            wall_low, wall_high = self.interval(wall)
            lines.append(f"  wall time  {duration(wall)} on {cores:,} dedicated cores "
                         f"(95%: {duration(wall_low)}-{duration(wall_high)})")
        return "\n".join(lines)


def plan(deals: DealSet, rules: Rules, limits: Limits, *, workers: int, chunk_size: int, solutions: bool = True,
         difficulty: bool = False, solver: str, count: int = SAMPLE_DEALS,
         budget_s: float = SAMPLE_BUDGET_S) -> Plan:
    """The plan of a survey of ``deals`` in chunks of ``chunk_size`` on ``workers`` workers."""
    from .store import BLOCK_DEALS

    drawn = sample(deals, rules, limits, solutions=solutions, difficulty=difficulty, solver=solver,
                   count=count, budget_s=budget_s)
    per_row, per_file = file_bytes(drawn.rows, rules, limits, solutions, difficulty)
    return Plan(deals, drawn, chunk_size, count_chunks(deals, chunk_size, BLOCK_DEALS), per_row, per_file, workers)

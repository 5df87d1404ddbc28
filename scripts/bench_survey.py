#!/usr/bin/env python
"""Benchmark a whole survey end to end: ``fcsurvey survey`` versus fc-solve's range solver.

Run from the repository root with the package installed::

    python scripts/bench_survey.py                     # deals 1-32000, 2 workers, solutions on
    python scripts/bench_survey.py --deals 1-2000 --fc-solve-args "-l lg"
    python scripts/bench_survey.py --executor dask     # a local Dask cluster, then the local pool

fcsurvey runs as a separate process exactly as a user would run it (into a temporary
directory), so the figure includes start-up, worker spawning, Parquet writing and the
summary check.  While it runs, the script samples every worker's peak resident set
(VmHWM in /proc) to report peak RSS per worker.  With ``--executor dask`` the survey runs on
a local Dask cluster of as many workers and then, straight after on the same range, on the
local pool, and the script prints the ratio of the two rates: the overhead of Dask (and of
starting a cluster) measured under the same load.

When ``freecell-solver-range-parallel-solve`` is installed (Debian package
freecell-solver-bin; a benchmark-only comparison, never a dependency) the same range
is split into one contiguous part per worker and solved by that many concurrent
processes; the script prints both rates and their ratio.  fc-solve prints no solutions
in this mode, so the comparison favours it slightly.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from fcsurvey.dealset import parse_deals
from fcsurvey.summary import summarize

FC_SOLVE_RANGE = "freecell-solver-range-parallel-solve"
DEFAULT_FC_SOLVE_ARGS = "-l lg"  # fc-solve's "lucky gerbil" preset: its fast general-purpose setting
SAMPLE_S = 0.05
LOCAL = "local"
EXECUTORS = (LOCAL, "dask")  # fcsurvey survey --executor choices


def children(pid: int) -> List[int]:
    """Processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                pass
    return found


def peak_rss_kib(pid: int) -> Optional[int]:
    """VmHWM of ``pid`` in KiB, or None once it is gone."""
    try:
        for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def is_worker(pid: int) -> bool:
    try:
        return b"multiprocessing.spawn" in (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False


def run_fcsurvey(deals: str, workers: int, executor: str, out: Path) -> Tuple[float, Dict[int, int]]:
    """Wall seconds and peak RSS (KiB) of each worker of one survey run."""
    command = [sys.executable, "-m", "fcsurvey", "survey", deals, "--workers", str(workers),
               "--executor", executor, "--out", str(out)]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peaks: Dict[int, int] = {}
    while proc.poll() is None:
        for pid in children(proc.pid):
            if pid in peaks or is_worker(pid):
                rss = peak_rss_kib(pid)
                if rss is not None:
                    peaks[pid] = max(rss, peaks.get(pid, 0))
        time.sleep(SAMPLE_S)
    wall = time.perf_counter() - started
    if proc.returncode:
        sys.exit(f"fcsurvey failed with exit status {proc.returncode}")
    return wall, peaks


def run_fc_solve(first: int, last: int, processes: int, extra: List[str]) -> Tuple[float, int, List[int]]:
    """Wall seconds, 'Unsolved'/'Intractable' count and peak RSS (KiB) of each process."""
    size = -(-(last - first + 1) // processes)
    parts = [(lo, min(last, lo + size - 1)) for lo in range(first, last + 1, size)]
    logs = [tempfile.TemporaryFile("w+") for _ in parts]
    started = time.perf_counter()
    procs = [subprocess.Popen([FC_SOLVE_RANGE, str(lo), str(hi), str(hi - lo + 1), *extra],
                              stdout=log, stderr=subprocess.STDOUT)
             for (lo, hi), log in zip(parts, logs)]
    peaks = [os.wait4(p.pid, 0)[2].ru_maxrss for p in procs]  # wait4: each child's own peak
    wall = time.perf_counter() - started
    unsolved = 0
    for log in logs:
        log.seek(0)
        unsolved += sum(line.startswith(("Unsolved", "Intractable")) for line in log)
        log.close()
    return wall, unsolved, peaks


def bench_fcsurvey(deals: str, count: int, workers: int, executor: str) -> float:
    """Survey ``deals`` into a temporary directory, print the figures, return deals/s."""
    with tempfile.TemporaryDirectory(prefix="bench_survey_") as tmp:
        out = Path(tmp) / "dataset"
        wall, peaks = run_fcsurvey(deals, workers, executor, out)
        summary = summarize(out)
    rate = count / wall
    print(f"fcsurvey   {count:,} deals in {wall:.1f} s = {rate:,.1f} deals/s "
          f"({workers} workers, --executor {executor}, solutions on)")
    print(f"           status: {', '.join(f'{n:,} {s}' for s, n in summary['status'].items())}")
    print(f"           unsolvable: {summary['unsolvable']['items'][:10]}")
    worker_mib = ", ".join(f"{kib / 1024:.0f}" for kib in peaks.values()) or "not sampled"
    print(f"           peak RSS per worker (MiB): {worker_mib}")
    return rate


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", default="1-32000", help="one range of deals (default 1-32000)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes for both (default 2)")
    parser.add_argument("--executor", choices=EXECUTORS, default=LOCAL,
                        help="fcsurvey's backend (default local); any other is followed by a "
                             "local run and the ratio of the two rates")
    parser.add_argument("--fc-solve-args", default=DEFAULT_FC_SOLVE_ARGS,
                        help=f"arguments for fc-solve (default {DEFAULT_FC_SOLVE_ARGS!r})")
    args = parser.parse_args(argv)
    wanted = parse_deals(args.deals)
    if len(wanted.ranges) != 1:
        parser.error("--deals must be one range, e.g. 1-32000")
    (first, last), count = wanted.ranges[0], len(wanted)

    ours = bench_fcsurvey(args.deals, count, args.workers, args.executor)
    if args.executor != LOCAL:
        local = bench_fcsurvey(args.deals, count, args.workers, LOCAL)
        print(f"ratio      {args.executor} / {LOCAL} = {ours / local:.2f}")

    if shutil.which(FC_SOLVE_RANGE) is None:
        print(f"fc-solve   {FC_SOLVE_RANGE} not installed (apt-get install freecell-solver-bin); no ratio")
        return 0
    fc_wall, unsolved, fc_peaks = run_fc_solve(first, last, args.workers, shlex.split(args.fc_solve_args))
    theirs = count / fc_wall
    print(f"fc-solve   {count:,} deals in {fc_wall:.1f} s = {theirs:,.1f} deals/s "
          f"({args.workers} processes, {args.fc_solve_args!r}, no solutions); {unsolved} unsolved")
    print(f"           peak RSS per process (MiB): {', '.join(f'{k / 1024:.0f}' for k in fc_peaks)}")
    print(f"ratio      fcsurvey / fc-solve = {ours / theirs:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

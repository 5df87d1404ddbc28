"""Simulate a cluster-sized survey on a local Dask cluster: per-task overhead and the
client's memory.

Runs the real survey loop (fcsurvey.survey.Survey on a DaskExecutor, workers writing
their chunk files, the client logging each) over ``--tasks`` one-deal chunks, solved by
the instant stand-in solver (FCSURVEY_TEST_SOLVER=fake_solver:solve, from tests/), so
that everything measured is overhead: Dask's scheduling, the task's round trip, the
worker's file write and the client's log line.  The client's resident memory is sampled
every second; it must stay flat however many tasks there are, since no more tasks are in
flight than the cluster has threads (executors.DaskExecutor) and the chunk plan is lazy.

    python scripts/sim_dask.py                        # 100,000 tasks on 2 workers
    python scripts/sim_dask.py --tasks 10000 --workers 4 --dir /dev/shm

Prints the wall time, the overhead a task (wall time x workers / tasks), the client's CPU
a task (it runs the scheduler too), and its memory at each tenth of the run and at peak.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
STAND_IN = "fake_solver:solve"
SAMPLE_EVERY_S = 1.0


def rss_mb() -> float:
    """This process's resident memory now, in MB (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dir", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir() else None,
                        help="where the dataset goes (default: /dev/shm, so that disks do not time the run)")
    args = parser.parse_args()
    os.environ["FCSURVEY_TEST_SOLVER"] = STAND_IN
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, str(TESTS))

    from fcsurvey import store
    from fcsurvey.dealset import DealSet
    from fcsurvey.executors import DaskExecutor
    from fcsurvey.survey import Survey

    scratch = Path(tempfile.mkdtemp(prefix="fcsurvey-dask-sim-", dir=args.dir))
    samples = []
    stop = threading.Event()

    def sample_memory() -> None:
        while not stop.wait(SAMPLE_EVERY_S):
            samples.append((time.monotonic(), rss_mb()))
    try:
        job = Survey(DealSet([(1, args.tasks)]), scratch / "out", workers=args.workers, chunk_size=1,
                     solutions=False)
        pool = DaskExecutor(args.workers)
        before = rss_mb()
        threading.Thread(target=sample_memory, daemon=True).start()
        started, cpu = time.monotonic(), time.process_time()
        report = job.run(executor=pool)
        wall, cpu = time.monotonic() - started, time.process_time() - cpu
        stop.set()
        assert report.written == args.tasks, report.text()
        assert len(store.read_log(scratch / "out")[0]) == args.tasks
        print(f"{args.tasks:,} one-deal tasks on a local Dask cluster of {args.workers} workers: "
              f"{wall:,.1f} s wall, {args.tasks / wall:,.0f} tasks/s")
        print(f"overhead a task: {wall * args.workers / args.tasks * 1e3:.2f} ms of a worker's time "
              f"(wall x workers / tasks; the stand-in solver takes none)")
        print(f"client CPU a task (survey loop, chunk log, and the scheduler, which runs in it): "
              f"{cpu / args.tasks * 1e3:.2f} ms")
        tenths = [samples[min(len(samples) - 1, i * len(samples) // 10)][1] for i in range(10)] if samples else []
        print(f"client memory: {before:,.0f} MB before the run; at each tenth of it "
              + ", ".join(f"{m:,.0f}" for m in tenths) + f" MB; peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:,.0f} MB")
    finally:
        stop.set()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

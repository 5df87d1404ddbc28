"""Simulate a cluster-sized survey on Dask: per-task overhead and the client's memory.

Runs the real survey loop (fcsurvey.survey.Survey on a DaskExecutor, workers writing
their chunk files, the client logging each) over ``--tasks`` one-deal chunks, solved by
the instant stand-in solver (FCSURVEY_TEST_SOLVER=fake_solver:solve, from tests/), so
that everything measured is overhead: Dask's scheduling, the task's round trip, the
worker's file write and the client's log line.  The client's resident memory is sampled
every second; it must stay flat however many tasks there are, since no more tasks are in
flight than the cluster has threads (executors.DaskExecutor) and the chunk plan is lazy.

By default the cluster is laid out as on real machines (README, "On a cluster"): a
``dask scheduler`` process and ``dask worker --nthreads 1`` processes started here, the
survey connecting with ``--scheduler``, so the client's memory is the client's alone and
the scheduler's is sampled apart.  ``--local-cluster`` runs the scheduler inside the client
instead, as ``--executor dask`` without ``--scheduler`` does.

    python scripts/sim_dask.py                        # 100,000 tasks on 2 workers
    python scripts/sim_dask.py --tasks 10000 --workers 4 --dir /dev/shm
    python scripts/sim_dask.py --tasks 5000 --local-cluster

Prints the wall time, the overhead a task (wall time x workers / tasks), the client's and the
scheduler's CPU a task, and their memory at each tenth of the run and at peak.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
STAND_IN = "fake_solver:solve"
SAMPLE_EVERY_S = 1.0
START_TIMEOUT_S = 60.0


def rss_mb(pid: str = "self") -> float:
    """A process's resident memory now, in MB (Linux); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except FileNotFoundError:
        return 0.0


def cpu_s(pid: int) -> float:
    """A process's user and system CPU seconds so far (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_cluster(workers: int, where: Path) -> Tuple[str, List[subprocess.Popen]]:
    """A ``dask scheduler`` and ``workers`` one-thread ``dask worker`` processes, as the
    README starts them on real machines; the scheduler's address and the processes
    (scheduler first)."""
    bin_dir = Path(sys.executable).parent
    address_file = where / "scheduler.json"
    scheduler = subprocess.Popen([str(bin_dir / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(address_file)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    processes = [scheduler]
    deadline = time.monotonic() + START_TIMEOUT_S
    while not address_file.exists():
        if time.monotonic() > deadline or scheduler.poll() is not None:
            raise RuntimeError("the dask scheduler did not start")
        time.sleep(0.2)
    time.sleep(0.2)  # the file is written in one go, but give the writer its close
    address = json.loads(address_file.read_text())["address"]
    processes.append(subprocess.Popen([str(bin_dir / "dask"), "worker", address, "--nworkers", str(workers),
                                       "--nthreads", "1", "--no-dashboard"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return address, processes


def wait_for_workers(executor: Any, workers: int) -> None:
    """Until ``workers`` worker threads have joined the scheduler."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while sum(executor.client.nthreads().values()) < workers:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {sum(executor.client.nthreads().values())} of {workers} dask workers joined")
        time.sleep(0.2)


def tenths(samples: Sequence[float]) -> str:
    """The samples at each tenth of the run, as ``106, 109, ...``."""
    picked = [samples[min(len(samples) - 1, i * len(samples) // 10)] for i in range(10)] if samples else []
    return ", ".join(f"{m:,.0f}" for m in picked)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--local-cluster", action="store_true",
                        help="run the scheduler inside the client (a LocalCluster) instead of in a process of its own")
    parser.add_argument("--dir", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir() else None,
                        help="where the dataset goes (default: /dev/shm, so that disks do not time the run)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the cluster is stopped below
    os.environ["FCSURVEY_TEST_SOLVER"] = STAND_IN
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, str(TESTS))

    from fcsurvey import store
    from fcsurvey.dealset import DealSet
    from fcsurvey.executors import DaskExecutor
    from fcsurvey.survey import Survey

    scratch = Path(tempfile.mkdtemp(prefix="fcsurvey-dask-sim-", dir=args.dir))
    processes: List[subprocess.Popen] = []
    client_mb: List[float] = []
    scheduler_mb: List[float] = []
    stop = threading.Event()
    try:
        if args.local_cluster:
            pool = DaskExecutor(args.workers)
            layout = f"a local Dask cluster of {args.workers} workers, the scheduler in the client"
        else:
            address, processes = start_cluster(args.workers, scratch)
            pool = DaskExecutor(scheduler=address)
            wait_for_workers(pool, args.workers)
            layout = f"a scheduler process and {args.workers} one-thread worker processes"
        scheduler_pid = str(processes[0].pid) if processes else None

        def sample_memory() -> None:
            while not stop.wait(SAMPLE_EVERY_S):
                client_mb.append(rss_mb())
                if scheduler_pid is not None:
                    scheduler_mb.append(rss_mb(scheduler_pid))
        job = Survey(DealSet([(1, args.tasks)]), scratch / "out", workers=args.workers, chunk_size=1,
                     solutions=False)
        before = rss_mb()
        scheduler_before = rss_mb(scheduler_pid) if scheduler_pid else 0.0
        threading.Thread(target=sample_memory, daemon=True).start()
        scheduler_cpu = cpu_s(processes[0].pid) if processes else 0.0
        started, cpu = time.monotonic(), time.process_time()
        report = job.run(executor=pool)
        wall, cpu = time.monotonic() - started, time.process_time() - cpu
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3  # before the checks below read the log
        scheduler_cpu = cpu_s(processes[0].pid) - scheduler_cpu if processes else 0.0
        stop.set()
        client_mb.append(rss_mb())  # a run shorter than a sample still has one
        if scheduler_pid is not None:
            scheduler_mb.append(rss_mb(scheduler_pid))
        assert report.written == args.tasks, report.text()
        assert len(store.read_log(scratch / "out")[0]) == args.tasks
        print(f"{args.tasks:,} one-deal tasks on {layout}: {wall:,.1f} s wall, {args.tasks / wall:,.0f} tasks/s, "
              f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end")
        print(f"overhead a task: {wall * args.workers / args.tasks * 1e3:.2f} ms of a worker's time "
              f"(wall x workers / tasks; the stand-in solver takes none)")
        inside = ", and the scheduler, which runs in it" if args.local_cluster else ""
        print(f"client CPU a task (survey loop, chunk log{inside}): {cpu / args.tasks * 1e3:.2f} ms")
        if processes:
            print(f"scheduler CPU a task: {scheduler_cpu / args.tasks * 1e3:.2f} ms")
        print(f"client memory: {before:,.0f} MB before the run; at each tenth of it {tenths(client_mb)} MB; "
              f"peak {peak_mb:,.0f} MB")
        if scheduler_mb:
            print(f"scheduler memory: {scheduler_before:,.0f} MB before the run; at each tenth of it "
                  f"{tenths(scheduler_mb)} MB; peak {max(scheduler_mb):,.0f} MB (sampled)")
    finally:
        stop.set()
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

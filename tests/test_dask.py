"""``--executor dask``: the same datasets as the local pool, a killed worker retried by Dask,
a deal that kills workers recorded as an error, and a running scheduler with its own workers.

The Dask tests skip when the ``dask`` extra is not installed; the checks of the options and
of the install hint run everywhere.  Every cluster binds 127.0.0.1 only, and every process a
test starts is stopped when it ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow.compute as pc
import pytest

import fake_solver
from fcsurvey import store
from fcsurvey.dealset import DealSet, parse_deals
from fcsurvey.executors import DASK_HINT
from fcsurvey.limits import Limits
from fcsurvey.survey import Survey
from fcsurvey.task import CRASH_DEAL_ENV

from conftest import FAKE_SOLVER, cli, data, fake_env, fcsurvey, leftovers, wait_for

STALL_MARKER_ENV = "FCSURVEY_TEST_STALL_MARKER"
STALL_DEAL = 120
STALL_S = 30.0      # the stalled worker is killed long before this
PROCESS_WAIT_S = 30.0


@pytest.fixture
def distributed():
    return pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def local_2000(tmp_path_factory):
    """Deals 1-2000 surveyed by the local pool."""
    out = tmp_path_factory.mktemp("local")
    Survey(parse_deals("1-2000"), out, workers=2).run()
    return data(out)


def stall_once(deal: int, rules: object = None, limits: Limits = Limits(), **_checkpoints: object):
    """fake_solver's verdicts, except that the first worker to reach STALL_DEAL writes its pid
    to the marker file and waits there to be killed; the retry then passes through."""
    marker = Path(os.environ[STALL_MARKER_ENV])
    if deal == STALL_DEAL and not marker.exists():
        temp = marker.with_suffix(".tmp")
        temp.write_text(str(os.getpid()))
        temp.replace(marker)
        time.sleep(STALL_S)
    return fake_solver.solve(deal, rules, limits)


# --- options, everywhere ---------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--scheduler", "tcp://127.0.0.1:8786"], "Error: --scheduler needs --executor dask"),
    (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"],
     "Error: --workers sizes a local cluster; with --scheduler the cluster's own workers run the survey"),
])
def test_dask_options_are_checked_before_any_work(capsys, tmp_path, args, message):
    assert cli(capsys, "survey", "1-3", "--out", tmp_path / "out", *args) == (2, "", message + "\n")
    assert not (tmp_path / "out").exists()


def test_without_dask_the_hint_is_one_error_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes `import distributed` fail
    code, out, err = cli(capsys, "survey", "1-3", "--executor", "dask", "--out", tmp_path / "out")
    assert (code, out, err) == (2, "", f"Error: {DASK_HINT}\n")
    assert not (tmp_path / "out").exists()


# --- on Dask ---------------------------------------------------------------------------------------

def test_a_local_dask_cluster_gives_the_local_pools_dataset(distributed, tmp_path, local_2000):
    out, log = tmp_path / "out", tmp_path / "survey.log"
    proc = fcsurvey("survey", "1-2000", "--executor", "dask", "--workers", "2", "--out", out,
                    "-vv", "--log-file", log, env=os.environ, cwd=tmp_path)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "with a local Dask cluster of 2 workers into" in stderr
    assert stdout.startswith("Surveyed 2,000 deals in ")
    assert "fcsurvey.task: deal 2000: solved" in log.read_text()  # forwarded by the workers
    assert data(out).equals(local_2000)
    assert leftovers(out) == []
    assert not store.check(out).repaired  # the client logged every file its workers wrote


def test_a_killed_worker_is_retried_by_dask(distributed, tmp_path, monkeypatch, caplog):
    from fcsurvey.executors import DaskExecutor

    marker = tmp_path / "stalled.pid"
    monkeypatch.setenv(STALL_MARKER_ENV, str(marker))  # before the workers start
    deals, solver = parse_deals("1-400"), f"{__name__}:stall_once"
    Survey(deals, tmp_path / "local", workers=2, chunk_size=50, solver=FAKE_SOLVER).run()

    def kill_the_stalled_worker():
        deadline = time.monotonic() + PROCESS_WAIT_S
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        if marker.exists():
            os.kill(int(marker.read_text()), signal.SIGKILL)

    killer = threading.Thread(target=kill_the_stalled_worker)
    pool = DaskExecutor(workers=2)
    killer.start()
    try:
        report = Survey(deals, tmp_path / "dask", chunk_size=50, solver=solver).run(executor=pool)
    finally:
        killer.join()
    assert marker.exists(), "no worker reached the stall deal"
    assert report.written == 400 and "error" not in report.counts
    assert "retrying" not in caplog.text  # Dask retried it; the survey saw no failure
    assert data(tmp_path / "dask").equals(data(tmp_path / "local"))
    # Every file is logged; one the retried task wrote again after its line (Dask may run a
    # task twice) has another time than logged, which a resume checks (opens) again.
    checked = store.check(tmp_path / "dask")
    assert (checked.files, checked.vanished, checked.missing) == (8, 0, DealSet())


def test_a_local_dask_clusters_workers_start_with_huge_pages_for_malloc(distributed, monkeypatch):
    from fcsurvey.executors import DaskExecutor

    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    with DaskExecutor(workers=1) as pool:
        assert pool.client.submit(os.getenv, "GLIBC_TUNABLES").result() == "glibc.malloc.hugetlb=1"
    assert "GLIBC_TUNABLES" not in os.environ


def test_a_deal_that_kills_workers_ends_as_error(distributed, tmp_path):
    out = tmp_path / "out"
    env = {**fake_env(), CRASH_DEAL_ENV: "57",
           "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}  # no Dask retries: a quicker test
    proc = fcsurvey("survey", "1-100", "--chunk-size", "20", "--executor", "dask", "--workers", "2",
                    "--out", out, env=env, cwd=tmp_path)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr  # a deal without a verdict
    assert "deals 41-60: 1 Dask worker died running it; retrying once" in stderr
    table = store.read(out)
    assert table["deal"].to_pylist() == list(range(1, 101))
    errors = table.filter(pc.equal(table["status"], "error")).to_pylist()
    assert [(r["deal"], r["error"]) for r in errors] == [(57, "1 Dask worker died running it")]
    assert "deals-0000000041-0000000060.parquet" in [p.name for p in store.chunk_files(out)]
    del env[CRASH_DEAL_ENV]  # the same command solves 57 again, in its file
    files = store.chunk_files(out)
    proc = fcsurvey("survey", "1-100", "--chunk-size", "20", "--executor", "dask", "--workers", "2",
                    "--out", out, env=env, cwd=tmp_path)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "Surveying 1 deals (1 error deals solved again, 99 already done)" in stderr
    table = store.read(out)
    assert table["deal"].to_pylist() == list(range(1, 101)) and "error" not in table["status"].to_pylist()
    assert store.chunk_files(out) == files


def start(*args, cwd):
    """``dask ARGS...`` as its own process."""
    return subprocess.Popen([sys.executable, "-m", "dask", *map(str, args)], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(processes):
    """Terminate ``processes``, killing any still running after PROCESS_WAIT_S."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(PROCESS_WAIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_a_running_scheduler_and_its_workers_serve_scheduler(distributed, tmp_path, local_2000):
    out, address_file = tmp_path / "out", tmp_path / "scheduler.json"
    Survey(parse_deals("1-100"), out, workers=1, chunk_size=50).run()  # a run to resume
    scheduler = start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                      "--scheduler-file", address_file, cwd=tmp_path)
    workers = []
    try:
        wait_for(address_file.exists, scheduler, timeout=PROCESS_WAIT_S)
        workers += [start("worker", "--scheduler-file", address_file, "--host", "127.0.0.1",
                          "--nthreads", "1", "--no-dashboard", cwd=tmp_path) for _ in range(2)]
        address = json.loads(address_file.read_text())["address"]
        with distributed.Client(address, timeout=PROCESS_WAIT_S) as client:
            client.wait_for_workers(2, timeout=PROCESS_WAIT_S)

        refused = fcsurvey("survey", "1-300", "--cells", "3", "--executor", "dask", "--scheduler",
                           address, "--out", out, env=os.environ, cwd=tmp_path)
        _, stderr = refused.communicate(timeout=PROCESS_WAIT_S)
        assert refused.returncode == 2 and "holds results made with other rules" in stderr

        proc = fcsurvey("survey", "1-300", "--executor", "dask", "--scheduler", address, "--out", out,
                        env=os.environ, cwd=tmp_path)
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
        assert (f"Surveying 200 deals (100 already done) with the Dask cluster at {address} "
                f"(2 worker threads) into") in stderr
    finally:
        stop(workers)  # before the scheduler, or they wait for it to come back
        stop([scheduler])
    assert data(out).equals(local_2000.slice(0, 300))


def test_the_cluster_simulation_prints_overhead_and_memory(distributed):
    """scripts/sim_dask.py, a few tasks: the real survey loop on a scheduler process and
    worker processes, and each of its figures printed."""
    script = Path(__file__).resolve().parent.parent / "scripts" / "sim_dask.py"
    run = subprocess.run([sys.executable, str(script), "--tasks", "40", "--workers", "1"],
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("40 one-deal tasks on a scheduler process and 1 one-thread worker processes:")
    assert [line.split(":")[0] for line in lines[1:]] == [
        "overhead a task", "client CPU a task (survey loop, chunk log)", "scheduler CPU a task",
        "client memory", "scheduler memory"]
    assert "peak" in lines[-2] and "peak" in lines[-1]

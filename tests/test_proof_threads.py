"""The layered proof on several threads (docs/solver.md, "Threads"): the same verdict and, with
the usual empty-column rule (where a layer's parts are its connected pieces), exactly the
positions one thread visits and expands, on as many threads as asked, with slices and spilling,
and across checkpoints saved with one number of threads and resumed with another.  How fast it
goes is measured by scripts/bench_proof.py --threads, not here.  Near the edge of its room a
proof on threads may run out where one thread does not (1-cell deal 27 at --max-states 5000 on 3
threads, about one run in two), so the rooms here are well clear of it."""

from __future__ import annotations

import os
import shutil
import threading
import time
from typing import Any, Callable, Tuple

import pytest

from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.limits import Limits
from fcsurvey.rules import preset
from fcsurvey.schema import UNKNOWN, UNSOLVABLE
from fcsurvey.solver import MAX_THREADS, PROOF, SolverError, checkpoint_path, solve

from conftest import cli, golden_expanded, golden_states, kill_mid_proof

ONE_CELL = preset("freecell", cells=1)
#: The layered proof of 1-cell deal 1706 visits 2,365,759 positions, whatever its room
#: (tests/golden_counts.json), and of 1-cell deal 27, 234,772.
PROOF_1706 = golden_states("deal 1706, 1 cell, max_states 10000", "layered_proof")
PROOF_27 = golden_states("deal 27, 1 cell, max_states 10000", "layered_proof")


def proof_alone(number: int, max_states: int, threads: int):
    """The layered proof of a 1-cell deal from its start, on ``threads`` threads."""
    return solve(number, ONE_CELL, Limits(max_states=max_states), phases=(PROOF,), threads=threads)


#: Where Linux lists a process's threads; the thread counts below are read there.
TASKS = "/proc/self/task"
needs_tasks = pytest.mark.skipif(not os.path.isdir(TASKS), reason=f"no {TASKS} to count threads in")


def with_threads_seen(call: Callable[[], Any]) -> Tuple[Any, int]:
    """``call()`` and the most threads the process had during it beyond those before it,
    sampled every millisecond from a thread of its own (the C core releases the GIL): the
    proof on N threads runs N - 1 beside the caller's, so a count that is asked for but not
    used shows here, where verdicts and counts, the same on any number, cannot show it."""
    stop, most = threading.Event(), [0]

    def sample() -> None:
        while not stop.is_set():
            most[0] = max(most[0], len(os.listdir(TASKS)))
            time.sleep(0.001)
    sampler = threading.Thread(target=sample)
    sampler.start()
    while not most[0]:
        time.sleep(0.001)
    before = len(os.listdir(TASKS))
    try:
        result = call()
    finally:
        stop.set()
        sampler.join()
    return result, most[0] - before


@needs_tasks
@pytest.mark.parametrize("threads", [2, 3])
def test_threads_visit_the_positions_one_thread_visits(tmp_path, monkeypatch, threads):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    # Deal 27 with room for 40,000 positions, in memory.
    small, extra = with_threads_seen(lambda: proof_alone(27, 10_000, threads))
    assert (small.status, small.limit, small.states, small.expanded) == (UNSOLVABLE, None, PROOF_27, PROOF_27)
    assert extra == threads - 1
    # Deal 1706 with room for 80,000 (each thread's shard a share of it): groups bigger than
    # a shard's room come back from disk in slices, sifted with the parts visited.
    sliced, extra = with_threads_seen(lambda: proof_alone(1706, 20_000, threads))
    assert (sliced.status, sliced.limit, sliced.states, sliced.expanded) == (UNSOLVABLE, None, PROOF_1706,
                                                                               PROOF_1706)
    assert extra == threads - 1
    assert list(tmp_path.iterdir()) == []  # the spill files go with the proof
    # 1706's needed the disk: with nowhere to spill, it does not finish.
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
    nowhere = proof_alone(1706, 20_000, threads)
    assert (nowhere.status, nowhere.limit) == (UNKNOWN, "disk")


@needs_tasks
def test_one_thread_runs_on_the_callers_alone():
    result, extra = with_threads_seen(lambda: proof_alone(27, 10_000, 1))
    assert (result.status, result.states, extra) == (UNSOLVABLE, PROOF_27, 0)


@needs_tasks
def test_a_whole_solve_on_threads_counts_as_on_one():
    # The searches run on one thread whatever `threads` says; the proof adds the same count.
    result, extra = with_threads_seen(lambda: solve(27, ONE_CELL, Limits(max_states=10_000), threads=2))
    one = solve(27, ONE_CELL, Limits(max_states=10_000))
    assert (result.status, result.states) == (UNSOLVABLE, golden_states("deal 27, 1 cell, max_states 10000"))
    assert (result.states, result.expanded) == (one.states, one.expanded)
    assert extra == 1


@needs_tasks
def test_a_checkpoint_saved_on_two_threads_goes_on_with_any_number(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    golden = "deal 1706, 1 cell, max_states 50000"
    saved = checkpoint_path(tmp_path / "two", Position.from_deal(deal(1706, ONE_CELL)), ONE_CELL)
    kill_mid_proof(saved, 1706, "preset('freecell', cells=1)", 50_000, threads=2)
    again = tmp_path / "one" / saved.name
    again.parent.mkdir()
    shutil.copy(saved, again)
    for where, threads in ((saved.parent, 2), (again.parent, 1)):
        resumed, extra = with_threads_seen(
            lambda: solve(1706, ONE_CELL, Limits(max_states=50_000), checkpoints=where, threads=threads))
        # The same positions, counted the same: nothing lost, nothing visited twice.
        assert (resumed.status, resumed.resumed, resumed.states, resumed.expanded) == (
            UNSOLVABLE, True, golden_states(golden), golden_expanded(golden)), threads
        assert extra == threads - 1
        assert list(where.iterdir()) == []


@pytest.mark.parametrize("threads", [0, -1, MAX_THREADS + 1, True, 1.5, "2"])
def test_a_thread_count_out_of_range_is_refused(threads):
    with pytest.raises(SolverError, match="threads must be"):
        solve(1, threads=threads)


@pytest.mark.parametrize("given, why", [("0", "0 is not in the range"), ("x", "'x' is not a valid"),
                                        (str(MAX_THREADS + 1), f"{MAX_THREADS + 1} is not in the range")])
def test_bad_threads_on_the_command_line_get_one_error_line(capsys, given, why):
    code, out, err = cli(capsys, "solve", "1", "--threads", given)
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: Invalid value for '--threads': ") and why in lines[0], err


def test_the_command_line_proves_on_threads(capsys):
    code, out, _ = cli(capsys, "solve", "27", "--cells", "1", "--max-states", "10000", "--threads", "2")
    assert code == 1 and ": unsolvable" in out.splitlines()[0]
    assert f"positions: {golden_states('deal 27, 1 cell, max_states 10000'):,} stored" in out

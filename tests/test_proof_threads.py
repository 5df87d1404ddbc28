"""The layered proof on several threads (docs/solver.md, "Threads"): the same verdict and, with
the usual empty-column rule (where a layer's parts are its connected pieces), exactly the
positions one thread visits and expands, with slices and spilling, and across checkpoints
saved with one number of threads and resumed with another.  How fast it goes is measured by
scripts/bench_proof.py --threads, not here."""

from __future__ import annotations

import shutil

import pytest

from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.limits import Limits
from fcsurvey.rules import preset
from fcsurvey.schema import UNSOLVABLE
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


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_visit_the_positions_one_thread_visits(tmp_path, monkeypatch, threads):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    # Deal 27 with room for 40,000 positions: its higher layers go to disk.
    small = proof_alone(27, 10_000, threads)
    assert (small.status, small.limit, small.states, small.expanded) == (UNSOLVABLE, None, PROOF_27, PROOF_27)
    # Deal 1706 with room for 80,000 (each thread's shard a share of it): groups bigger than
    # a shard's room come back from disk in slices, sifted with the parts visited.
    sliced = proof_alone(1706, 20_000, threads)
    assert (sliced.status, sliced.limit, sliced.states, sliced.expanded) == (UNSOLVABLE, None, PROOF_1706,
                                                                               PROOF_1706)
    assert list(tmp_path.iterdir()) == []  # the spill files go with the proof


def test_a_whole_solve_on_threads_counts_as_on_one():
    # The searches run on one thread whatever `threads` says; the proof adds the same count.
    result = solve(27, ONE_CELL, Limits(max_states=10_000), threads=2)
    one = solve(27, ONE_CELL, Limits(max_states=10_000))
    assert (result.status, result.states) == (UNSOLVABLE, golden_states("deal 27, 1 cell, max_states 10000"))
    assert (result.states, result.expanded) == (one.states, one.expanded)


def test_a_checkpoint_saved_on_two_threads_goes_on_with_any_number(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    golden = "deal 1706, 1 cell, max_states 50000"
    saved = checkpoint_path(tmp_path / "two", Position.from_deal(deal(1706, ONE_CELL)), ONE_CELL)
    kill_mid_proof(saved, 1706, "preset('freecell', cells=1)", 50_000, threads=2)
    again = tmp_path / "one" / saved.name
    again.parent.mkdir()
    shutil.copy(saved, again)
    for where, threads in ((saved.parent, 2), (again.parent, 1)):
        resumed = solve(1706, ONE_CELL, Limits(max_states=50_000), checkpoints=where, threads=threads)
        # The same positions, counted the same: nothing lost, nothing visited twice.
        assert (resumed.status, resumed.resumed, resumed.states, resumed.expanded) == (
            UNSOLVABLE, True, golden_states(golden), golden_expanded(golden)), threads
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

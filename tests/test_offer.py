"""Idle workers' cores offered to a running layered proof (fcsurvey/offer.py, docs/solver.md,
"Threads"): the proof goes on with the threads its offer names, through a checkpoint, with
exactly the counts and verdict of a proof run through on one thread; a local survey whose
last deal is a long proof puts its idle worker on it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from fcsurvey import console, offer, store
from fcsurvey.executors import LocalPool, core_shares
from fcsurvey.limits import Limits
from fcsurvey.rules import preset
from fcsurvey.schema import UNSOLVABLE
from fcsurvey.solver import PROOF, solve

from conftest import cli, golden_expanded, golden_phases, golden_states, phase_states

ONE_CELL = preset("freecell", cells=1)
#: Whole solves of 1-cell deals ending in a layered proof of about half a second (27, whose
#: higher layers go to disk) and of a few seconds (1706).
SPILLING_27, ROOMY_1706 = "deal 27, 1 cell, max_states 10000", "deal 1706, 1 cell, max_states 50000"


@pytest.fixture
def offered(tmp_path, monkeypatch):
    """An offer file, read by the proofs of this process every 50 ms."""
    monkeypatch.setattr(offer, "OFFER_EVERY_S", 0.05)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    return tmp_path / "offer"


def test_a_proof_offered_a_second_thread_takes_it_and_counts_as_on_one(offered, tmp_path):
    offer.write_offer(offered, 2)
    heard = []
    result = solve(27, ONE_CELL, Limits(max_states=10_000), offer=offered, on_threads=heard.append)
    assert heard == [2]  # read mid-proof, 50 ms in: the proof resumed on two threads
    assert (result.status, result.limit, result.resumed) == (UNSOLVABLE, None, False)
    assert phase_states(result) == golden_phases(SPILLING_27)
    one = solve(27, ONE_CELL, Limits(max_states=10_000))  # on one thread, never stopped
    assert (result.states, result.expanded) == (one.states, one.expanded)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["offer"]  # no checkpoint, no spill file left


def test_a_proof_on_two_threads_offered_one_gives_one_back(offered, tmp_path):
    offer.write_offer(offered, 1)
    heard, proofs = [], tmp_path / "proofs"
    result = solve(1706, ONE_CELL, Limits(max_states=50_000), threads=2, offer=offered,
                   checkpoints=proofs, on_threads=heard.append)
    assert heard == [1]
    assert (result.status, result.limit) == (UNSOLVABLE, None)
    assert (result.states, result.expanded) == (golden_states(ROOMY_1706), golden_expanded(ROOMY_1706))
    assert list(proofs.iterdir()) == []  # the checkpoint it went on from goes with the proof
    assert result.elapsed_s >= result.phase_counts["layered_proof"].time_s  # both stretches counted


def test_the_proof_alone_takes_an_offer_too(offered):
    offer.write_offer(offered, 3)
    heard = []
    result = solve(27, ONE_CELL, Limits(max_states=10_000), phases=(PROOF,), offer=offered,
                   on_threads=heard.append)
    assert heard == [3]
    assert (result.status, result.states) == (UNSOLVABLE, golden_states(SPILLING_27, "layered_proof"))


@pytest.mark.parametrize("content", [None, "", "many", "0", "65"])
def test_an_offer_of_no_threads_changes_nothing(offered, content):
    if content is not None:
        offered.write_text(content)
    heard = []
    result = solve(27, ONE_CELL, Limits(max_states=10_000), offer=offered, on_threads=heard.append)
    assert heard == []
    assert (result.status, result.states) == (UNSOLVABLE, golden_states(SPILLING_27))


def test_a_time_limit_covers_every_stretch(offered, monkeypatch):
    # The offer is read half a second into the proof, which takes several whatever the
    # machine (1-cell deal 5804's: 3.8 s on two idle cores, 6.7 s on one; 1706's, used
    # before, took under 1.5 s on two idle cores): the proof resumed on two threads has
    # what is left of the 1.5 s, not 1.5 s more.
    monkeypatch.setattr(offer, "OFFER_EVERY_S", 0.5)
    offer.write_offer(offered, 2)
    heard = []
    result = solve(5804, ONE_CELL, Limits(max_states=200_000, timeout=1.5), offer=offered, on_threads=heard.append)
    assert (heard, result.status, result.limit) == ([2], "unknown", "time")
    assert result.elapsed_s < 2.0


def test_cores_are_shared_evenly_among_the_busy_workers():
    assert core_shares(2, 1) == [2]
    assert core_shares(2, 2) == [1, 1]
    assert core_shares(5, 2) == [3, 2]
    assert core_shares(3, 3) == [1, 1, 1]
    assert all(sum(core_shares(cores, busy)) == cores for cores in range(1, 9) for busy in range(1, cores + 1))


def offered_once_let_go(release: str, _report: object) -> object:
    """A pool task that holds its worker until the file ``release`` exists, then gives the
    threads its worker is offered."""
    while not Path(release).exists():
        time.sleep(0.01)
    return offer.read_offer(offer.worker_offer())


def outcome_of(pool: LocalPool, key: str) -> object:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for got, value in pool.wait(1.0):
            if got == key:
                return value
    raise AssertionError(f"task {key} did not finish")


def test_the_local_pool_offers_idle_cores_to_its_busy_workers(tmp_path):
    pool = LocalPool(3, fn=offered_once_let_go)
    with pool:
        pool.submit("a", str(tmp_path / "a"))
        pool.submit("b", str(tmp_path / "b"))
        pool.lend_idle()  # three workers, two busy: 2 and 1
        (tmp_path / "a").touch()
        assert outcome_of(pool, "a") == 2
        pool.lend_idle()  # one busy: all three
        (tmp_path / "b").touch()
        assert outcome_of(pool, "b") == 3
        offers = Path(pool._workers[0].offer).parent
        pool.lend_idle()  # none busy: one each, for their next tasks
        assert sorted(p.read_text() for p in offers.iterdir()) == ["1\n", "1\n"]
    assert not offers.exists()


def test_a_survey_puts_its_idle_worker_on_its_last_long_proof(capsys, tmp_path, monkeypatch):
    # One deal and two workers: the second has nothing to do from the start, and the deal's
    # proof (a few seconds) reads its offer of 2 threads a second in.
    monkeypatch.setattr(console, "SLOW_DEAL_S", 0.3)
    monkeypatch.setattr(console, "PLAIN_PROGRESS_EVERY_S", 0.0)
    out = tmp_path / "out"
    code, _, err = cli(capsys, "survey", "1706", "--cells", "1", "--max-states", "50000", "--workers", "2",
                       "--out", out, "-v")
    assert code == 0, err
    assert "INFO [worker-1] deal 1706: 1-cell solve now on 2 threads" in err
    assert "; deal 1706: 1-cell solve on 2 threads, " in err  # the progress line names it so
    row = store.read(out).to_pylist()[0]
    # The row of a survey with one worker, whose proof runs on one thread (elapsed_ms aside).
    assert (row["deal"], row["status"], row["states"], row["limit"]) == (
        1706, UNSOLVABLE, golden_states(ROOMY_1706), None)
    assert list((out / store.PROOFS).iterdir()) == []

"""The layered proof spells out a win it reaches (proof/trail.h; docs/solver.md, "Spelling out
a win").

The proof keeps no paths, only a trail on disk of which round took which entry and which round
made each child new to a higher layer; on a win it searches the chain of rounds back to the root
and joins the paths. Until build 21e5734 such a proof ended ``unknown`` (limit ``states``).
Each case starts part of the way along a win of an Eight Off deal (8 cells: small parts, so the
proof is quick) and runs the proof alone (``phases=("proof",)``), as a solve does once its
searches run out of room. ``solve_position`` replays every solution it returns in the rules
engine; the tests replay it once more to the end.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.limits import Limits
from fcsurvey.notation import format_board
from fcsurvey.replay import validate, walk
from fcsurvey.rules import Rules, preset
from fcsurvey.schema import SOLVED, STATES_LIMIT, UNKNOWN
from fcsurvey.solver import PROOF, SEARCH, checkpoint_path, solve, solve_position

#: Room for the searches that find the wins the cases start along.
SEARCH_ROOM = Limits(max_states=100_000)
#: Room for the proof: each case's parts fit in it.
PROOF_ROOM = Limits(max_states=20_000)


def along_a_win(rules: Rules, number: int, share: float) -> Position:
    """The position ``share`` of the way through a win of deal ``number`` the searches find."""
    searched = solve(number, rules, SEARCH_ROOM, phases=(SEARCH,))
    assert searched.status == SOLVED
    positions: List[Position] = [pos for _, pos in walk(deal(number, rules), rules, searched.solution)]
    return positions[int(len(positions) * share)]


def assert_spelled_out(start: Position, rules: Rules, result) -> None:
    """The proof won from ``start`` with a solution the rules engine replays to the end, after
    work of its own (a start autoplay wins is solved before any phase, with nothing expanded)."""
    assert result.status == SOLVED, (result.status, result.limit)
    assert result.expanded > 0 and result.phase_counts["layered_proof"].states > 0
    assert validate(start, rules, result.solution).ok


# (foundation return, deal, share along its win): proofs of some 40,000 to 60,000 positions
CASES = [(True, 6, 0.5), (False, 3, 0.5)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("foundation_return, number, share", CASES)
def test_a_proof_that_reaches_a_win_spells_it_out(foundation_return, number, share, threads):
    rules = preset("eight-off", foundation_return=foundation_return)
    start = along_a_win(rules, number, share)
    proof = solve_position(start, rules, PROOF_ROOM, phases=(PROOF,), threads=threads)
    assert_spelled_out(start, rules, proof)
    # a proof with less room than the parts need stops instead, proving nothing
    short = solve_position(start, rules, Limits(max_states=500), phases=(PROOF,), threads=threads)
    assert (short.status, short.limit) == (UNKNOWN, STATES_LIMIT)


def kill_mid_proof_from(saved: Path, start: Position, rules: str, room: int) -> None:
    """Run the proof alone from ``start`` (under ``rules``, a ``preset(...)`` expression) in
    another process, saving checkpoints at ``saved`` every 50 ms, and kill it once one is saved."""
    board = format_board(start, eval(rules, {"preset": preset}))
    code = ("from fcsurvey.limits import Limits; from fcsurvey.rules import preset; "
            "from fcsurvey.notation import parse_board; from fcsurvey.solver import solve_position; "
            f"rules = {rules}; "
            f"solve_position(parse_board({board!r}, rules), rules, Limits(max_states={room}), "
            f"checkpoints={str(saved.parent)!r}, checkpoint_every=0.05, phases=('proof',))")
    proc = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 60
    while not (saved.exists() and saved.stat().st_size > 10_000):
        assert proc.poll() is None and time.monotonic() < deadline, "no checkpoint while it ran"
        time.sleep(0.005)
    proc.kill()
    proc.wait()


# On 2 threads as well, among the long tests: the proof is proved twice (the second time whole).
@pytest.mark.parametrize("threads", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_proof_resumed_from_its_checkpoint_spells_its_win_out(tmp_path, monkeypatch, threads):
    # Eight Off deal 2 with foundation return, a third of the way along a win: the proof visits
    # some 177,000 positions before it wins.  Killed after a checkpoint, resumed, it has no trail
    # of what came before the checkpoint, so once it wins it proves the deal again from the root
    # with a whole trail, and spells that win out; the checkpoint goes.
    rules_text = "preset('eight-off', foundation_return=True)"
    rules = preset("eight-off", foundation_return=True)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    start = along_a_win(rules, 2, 1 / 3)
    saved = checkpoint_path(tmp_path / "proofs", start, rules)
    kill_mid_proof_from(saved, start, rules_text, 20_000)
    resumed = solve_position(start, rules, PROOF_ROOM, checkpoints=saved.parent, phases=(PROOF,), threads=threads)
    assert resumed.resumed
    assert_spelled_out(start, rules, resumed)
    assert list(saved.parent.iterdir()) == []
    # nothing is left on disk by the trail (its files are unlinked when made)
    assert [p.name for p in tmp_path.iterdir()] == ["proofs"]

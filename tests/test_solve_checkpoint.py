"""``fcsurvey solve --checkpoint PATH`` and ``solve(..., checkpoint=PATH)``: a long proof run by
hand, killed, goes on from its checkpoint when the same command is run again, with the counts of
an uninterrupted run; a checkpoint of another solve is refused, not used and not overwritten."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fcsurvey import solver
from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.limits import Limits, SolverError
from fcsurvey.rules import preset
from fcsurvey.schema import UNSOLVABLE

from conftest import (checkpoint_header_size, golden_expanded, golden_states, kill_once_saved, kill_mid_proof, run_cli,
                      with_checkpoint_crc)

#: proof/checkpoint.c's layout: the body's layers end with this layer number.
END_OF_LAYERS = 0xFFFFFFFF
#: 1-cell deal 1706 with room for 50,000: a layered proof of a few seconds.
NUMBER, CELLS, ROOM = 1706, 1, 50_000
GOLDEN = "deal 1706, 1 cell, max_states 50000"
SOLVE = ("solve", str(NUMBER), "--cells", str(CELLS), "--max-states", str(ROOM), "--json")


def killed_cli_solve(saved: Path) -> None:
    """The CLI's solve of deal 1706, saving at ``saved`` every 50 ms, killed mid-proof."""
    kill_once_saved([sys.executable, "-m", "fcsurvey", *SOLVE, "--checkpoint", str(saved),
                     "--checkpoint-every", "0.05"], saved)


def test_a_killed_cli_solve_rerun_goes_on_with_the_counts_of_one_run(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    saved = tmp_path / "1706.proof"
    killed_cli_solve(saved)
    resumed = run_cli(*SOLVE, "--checkpoint", saved)
    fresh = run_cli(*SOLVE)
    assert (resumed.returncode, fresh.returncode) == (1, 1), resumed.stderr + fresh.stderr
    again, once = json.loads(resumed.stdout), json.loads(fresh.stdout)
    assert (again["status"], again["resumed"], once["resumed"]) == (UNSOLVABLE, True, False)
    # Nothing lost, nothing visited twice; the searches' counts come back from the checkpoint.
    assert (again["states"], again["expanded"]) == (once["states"], once["expanded"]) == (
        golden_states(GOLDEN), golden_expanded(GOLDEN))
    assert again["phase_counts"]["layered_proof"]["states"] == once["phase_counts"]["layered_proof"]["states"]
    assert not saved.exists()  # a verdict takes its checkpoint away


def test_the_text_verdict_says_it_went_on_from_the_checkpoint(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    saved = tmp_path / "1706.proof"
    killed_cli_solve(saved)
    resumed = run_cli(*SOLVE[:-1], "--checkpoint", saved)
    assert resumed.returncode == 1, resumed.stderr
    counts = resumed.stdout.splitlines()[1]
    assert counts.startswith(f"positions: {golden_states(GOLDEN):,} stored, {golden_expanded(GOLDEN):,} expanded; ")
    assert counts.endswith(" s (went on from the checkpoint)")


@pytest.mark.parametrize("other", [
    ("solve", "27", "--cells", "1"),  # another deal
    ("solve", str(NUMBER), "--cells", "2"),  # other rules
    ("solve", str(NUMBER), "--cells", "1", "--build", "suit"),
])
def test_a_checkpoint_of_another_solve_is_refused_and_kept(tmp_path, monkeypatch, other):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    saved = tmp_path / "1706.proof"
    killed_cli_solve(saved)
    before = saved.read_bytes()
    result = run_cli(*other, "--checkpoint", saved)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1, result.stderr
    assert "is not a checkpoint of this solve" in result.stderr
    assert saved.read_bytes() == before  # neither used nor overwritten


def test_a_checkpoint_of_another_build_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    saved = tmp_path / "1706.proof"
    rules = preset("freecell", cells=CELLS)
    killed_cli_solve(saved)
    monkeypatch.setattr(solver, "_build_id", lambda: b"another build of the core")
    with pytest.raises(SolverError, match="is not a checkpoint of this solve"):
        solver.solve(NUMBER, rules, Limits(max_states=ROOM), checkpoint=saved)


def test_a_file_that_is_no_checkpoint_is_refused(tmp_path):
    saved = tmp_path / "notes.txt"
    saved.write_text("not a proof\n")
    result = run_cli("solve", "27", "--cells", "1", "--checkpoint", saved)
    assert result.returncode == 2 and result.stderr == (
        f"Error: {str(saved)!r} is not a checkpoint of this solve (another deal, rules or build, damaged, or "
        "not a checkpoint): remove it or give another path\n")
    assert saved.read_text() == "not a proof\n"


def test_a_damaged_checkpoint_is_refused_and_kept(tmp_path, monkeypatch):
    """One flipped bit in its keys: a key lost or changed would leave positions unvisited."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    saved = tmp_path / "1706.proof"
    killed_cli_solve(saved)
    data = bytearray(saved.read_bytes())
    data[len(data) // 2] ^= 0x01
    saved.write_bytes(bytes(data))
    result = run_cli(*SOLVE, "--checkpoint", saved)
    assert result.returncode == 2 and "is not a checkpoint of this solve (another deal, rules or build, " \
        "damaged, or not a checkpoint)" in result.stderr, result.stderr
    assert saved.read_bytes() == bytes(data)


def layer_blocks(body: bytes):
    """The (offset, layer) of each layer block of a checkpoint's body (after its header):
    uint32 layer, uint64 key count, then each key as a length byte and its bytes."""
    at, blocks = 0, []
    while True:
        number = int.from_bytes(body[at:at + 4], "little")
        if number == END_OF_LAYERS:
            return blocks
        blocks.append((at, number))
        keys, at = int.from_bytes(body[at + 4:at + 12], "little"), at + 12
        for _ in range(keys):
            at += 1 + body[at]


def test_a_move_down_a_layer_is_raised_not_taken_for_a_proof(tmp_path, monkeypatch):
    """The layered proof's argument is that no move lowers a layer, so a finished layer is
    never needed again.  A checkpoint whose lowest layer's keys are moved above the others
    (its CRC set anew) makes their moves go down a layer: the core stops and solve raises,
    where it would have given `unsolvable` with positions never visited."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    saved = tmp_path / "1706.proof"
    killed_cli_solve(saved)
    data = saved.read_bytes()
    start = checkpoint_header_size(data)
    body = bytearray(data[start:])
    blocks = layer_blocks(bytes(body))
    lowest = min(number for _, number in blocks)
    assert max(number for _, number in blocks) > lowest  # keys wait in more than one layer
    for at, number in blocks:
        if number == lowest:
            body[at:at + 4] = (max(n for _, n in blocks) + 1).to_bytes(4, "little")
    saved.write_bytes(with_checkpoint_crc(data[:start] + body, start))
    with pytest.raises(solver.ProofBroken, match="a move that goes down a layer"):
        solver.solve(NUMBER, preset("freecell", cells=CELLS), Limits(max_states=ROOM), checkpoint=saved)


def test_the_api_file_resumes_a_checkpoint_the_directory_api_saved(tmp_path, monkeypatch):
    # One format: a checkpoint a survey's proof saved is taken by a solve given its file.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    rules = preset("freecell", cells=CELLS)
    saved = solver.checkpoint_path(tmp_path / "proofs", Position.from_deal(deal(NUMBER, rules)), rules)
    kill_mid_proof(saved, NUMBER, f"preset('freecell', cells={CELLS})", ROOM)
    result = solver.solve(NUMBER, rules, Limits(max_states=ROOM), checkpoint=saved)
    assert (result.status, result.resumed, result.states) == (UNSOLVABLE, True, golden_states(GOLDEN))
    assert not saved.exists()


def test_a_checkpoint_file_and_directory_together_are_refused(tmp_path):
    with pytest.raises(SolverError, match="not both"):
        solver.solve(27, preset("freecell", cells=1), Limits(max_states=10_000), checkpoint=tmp_path / "a.proof",
                     checkpoints=tmp_path)


@pytest.mark.parametrize("every", ["0", "-1", "x"])
def test_a_bad_checkpoint_interval_is_one_error_line(every):
    result = run_cli("solve", "1", "--checkpoint-every", every)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("Error: ") and "--checkpoint-every" in result.stderr

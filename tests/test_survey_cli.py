"""``fcsurvey survey`` and ``fcsurvey summary`` end to end: bad input, refusal, logging,
and surveys killed or interrupted mid-run (those run the CLI as a real process)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fcsurvey import console, store
from conftest import cli, fake_env, fcsurvey, golden_states, leftovers, wait_for


def children(pid):
    """Processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
        except (OSError, IndexError):
            pass
    return found


def alive(pid):
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["10-1"], "Error: bad deals '10-1': the range runs backwards (did you mean 1-10?)"),
    (["1-x"], "Error: bad deals '1-x': deal number must be an integer, got 'x'"),
    (["0-5"], "Error: bad deals '0-5': deal number must be 1 to 8,589,934,591, got 0"),
    (["--deals-file", "/nonexistent/deals.txt"],
     "Error: cannot read deals file /nonexistent/deals.txt: No such file or directory"),
    (["1-5", "--workers", "0"], "Error: Invalid value for '--workers': 0 is not in the range x>=1."),
    ([], "Error: give the deals either as DEALS (e.g. 1-32000) or with --deals-file"),
    (["1-5", "--deals-file", "/dev/null"],
     "Error: give the deals either as DEALS (e.g. 1-32000) or with --deals-file, not both"),
    (["1-5", "--chunk-size", "0"], "Error: Invalid value for '--chunk-size': 0 is not in the range x>=1."),
])
def test_bad_input_is_one_error_line(capsys, args, message):
    code, out, err = cli(capsys, "survey", *args)
    assert (code, out, err) == (2, "", message + "\n")


def test_unwritable_out_is_one_error_line(capsys, tmp_path):
    (tmp_path / "file").write_text("")
    code, out, err = cli(capsys, "survey", "1-5", "--out", tmp_path / "file" / "out")
    assert (code, out) == (2, "")
    assert err == f"Error: cannot use {tmp_path}/file/out as the output directory: Not a directory\n"


def test_summary_of_something_else_is_one_error_line(capsys, tmp_path):
    assert cli(capsys, "summary", tmp_path) == (
        2, "", f"Error: {tmp_path} is not an fcsurvey dataset (no _fcsurvey.json)\n")


# --- a real survey through the CLI ------------------------------------------------------------

def test_survey_then_summary(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(console, "PLAIN_PROGRESS_EVERY_S", 0.0)  # a line a deal: stderr is no terminal
    code, out, err = cli(capsys, "survey", "11982,1-20", "--out", tmp_path, "--chunk-size", "2",
                         "--workers", "2")
    assert code == 0
    assert out.startswith("Surveyed 21 deals in ") and "20 solved, 1 unsolvable, 0 unknown" in out
    assert err.startswith("Surveying 21 deals (0 already done) with 2 workers into ")
    assert "20/21 deals (95.2%), " in err
    code, out, _ = cli(capsys, "summary", tmp_path)
    assert code == 0 and "Unsolvable  11982\n" in out and "no gaps" in out
    code, out, _ = cli(capsys, "summary", tmp_path, "--json")
    summary = json.loads(out)
    assert summary["status"] == {"solved": 20, "unsolvable": 1, "unknown": 0, "error": 0}
    assert summary["unsolvable"] == {"count": 1, "items": [11982]}


def test_other_rules_are_refused_unless_force_new(capsys, tmp_path):
    assert cli(capsys, "survey", "1-3", "--out", tmp_path, "--workers", "1")[0] == 0
    code, out, err = cli(capsys, "survey", "1-3", "--out", tmp_path, "--cells", "3")
    assert (code, out) == (2, "")
    assert err.startswith(f"Error: {tmp_path} holds results made with other rules or limits "
                          f"(rules.cells 4 (dataset) vs 3 (asked)); use --force-new")
    assert err.count("\n") == 1
    code, out, err = cli(capsys, "survey", "1-3", "--out", tmp_path, "--cells", "3", "--force-new",
                         "--workers", "1")
    assert code == 0
    assert store.read(tmp_path)["cells"].to_pylist() == [3, 3, 3]


def test_log_file_collects_every_process(capsys, tmp_path):
    log = tmp_path / "survey.log"
    code, _, err = cli(capsys, "survey", "1-4", "--out", tmp_path / "out", "--workers", "1",
                       "-vv", "--log-file", log)
    assert code == 0
    text = log.read_text()
    assert "[MainProcess] fcsurvey.survey: surveying 4 deals" in text
    assert "[worker-1] fcsurvey.task: deal 3: solved" in text
    assert "DEBUG [worker-1] deal 4: solved" in err


# --- stopping and resuming --------------------------------------------------------------------

SLOW = ["1-3000", "--chunk-size", "100", "--workers", "2"]


def test_sigkilled_survey_resumes_to_one_row_per_deal(tmp_path):
    out = tmp_path / "out"
    proc = fcsurvey("survey", *SLOW, "--out", out, env=fake_env(delay=0.002), cwd=tmp_path)
    wait_for(lambda: len(store.chunk_files(out)) >= 3, proc)
    workers = children(proc.pid)
    proc.kill()
    proc.communicate()
    wait_for(lambda: not any(alive(pid) for pid in workers), timeout=5)  # workers follow the parent
    kept = len(store.read(out))
    assert 300 <= kept < 3000
    rerun = fcsurvey("survey", *SLOW, "--out", out, env=fake_env(), cwd=tmp_path)
    stdout, stderr = rerun.communicate(timeout=60)
    assert rerun.returncode == 0, stderr
    assert f"({kept:,} already done)" in stderr
    assert store.read(out)["deal"].to_pylist() == list(range(1, 3001))
    assert leftovers(out) == []


def test_ctrl_c_stops_quickly_keeps_chunks_and_says_how_to_resume(tmp_path):
    out = tmp_path / "out"
    proc = fcsurvey("survey", *SLOW, "--out", out, env=fake_env(delay=0.005), cwd=tmp_path)
    wait_for(lambda: len(store.chunk_files(out)) >= 2, proc)
    workers = children(proc.pid)
    proc.send_signal(signal.SIGINT)
    started = time.monotonic()
    _, stderr = proc.communicate(timeout=10)
    assert time.monotonic() - started < 3
    assert proc.returncode == 130
    assert "finished chunks are kept in" in stderr and "Run the same command again to resume." in stderr
    assert stderr.rstrip().endswith("Interrupted.")
    wait_for(lambda: not any(alive(pid) for pid in workers), timeout=5)
    assert leftovers(out) == []
    assert 200 <= len(store.read(out)) < 3000


def test_a_killed_survey_goes_on_with_a_long_proof_where_it_was(tmp_path):
    # 1-cell deal 1706 with --max-states 50000 ends in a layered proof of a few seconds;
    # saving every 0.05 s, the survey is killed once a checkpoint is on disk.
    out = tmp_path / "out"
    proofs = out / store.PROOFS
    code = ("from fcsurvey.survey import Survey; from fcsurvey.store import DealSet; "
            "from fcsurvey.rules import preset; from fcsurvey.limits import Limits; "
            f"Survey(DealSet([(1706, 1706)]), {str(out)!r}, rules=preset('freecell', cells=1), "
            "limits=Limits(max_states=50000), workers=1, checkpoint_every=0.05).run()")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: proofs.is_dir() and any(p.suffix == ".proof" for p in proofs.iterdir()), proc)
    workers = children(proc.pid)
    proc.kill()
    proc.communicate()
    wait_for(lambda: not any(alive(pid) for pid in workers), timeout=5)
    assert store.chunk_files(out) == []
    rerun = fcsurvey("survey", "1706", "--cells", "1", "--max-states", "50000", "--out", out, "-v",
                     env=os.environ, cwd=tmp_path)
    _, stderr = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, stderr
    assert "deal 1706: a proof went on from its checkpoint" in stderr
    row = store.read(out).to_pylist()[0]
    # The count of a proof never interrupted.
    assert (row["deal"], row["status"], row["states"]) == (
        1706, "unsolvable", golden_states("deal 1706, 1 cell, max_states 50000"))
    assert list(proofs.iterdir()) == []

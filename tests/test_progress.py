"""Visible long work: a survey's progress moves a deal at a time, names a deal that runs long
with its phase (in the plain lines, the bar and the -v log), keeps a plain line coming while
nothing finishes, and ``export`` shows a bar on a terminal without touching stdout.

The thresholds (a minute, thirty seconds) are console constants, cut here to fractions of a
second; stand-in solvers below sleep instead of searching."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fcsurvey import console, survey
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.solver import PROOF, SEARCH, Result
from fcsurvey.survey import SOLVER_ENV
from fcsurvey.task import ChunkTask, DealFinished, PhaseStarted, phase_name, solve_chunk

from conftest import cli

SLOW_DEAL = 5
SLOW_S = 2.5     # how long the stand-in solvers spend on SLOW_DEAL
NAMED_AFTER_S = 0.3


def solved(deal: int, states: int = 100) -> Result:
    return Result(SOLVED, "1h", 1, 1, states, states, 0.001)


def sleepy(deal: int, rules: object = None, limits: Limits = Limits(), **_options: object) -> Result:
    """Every deal takes a tenth of a second, SLOW_DEAL SLOW_S."""
    time.sleep(SLOW_S if deal == SLOW_DEAL else 0.1)
    return solved(deal)


def long_proof(deal: int, rules, limits: Limits = Limits(), phases=(SEARCH, PROOF), **_options: object) -> Result:
    """As the real solver on a hard deal: with the game's 4 cells, SLOW_DEAL's searches run out
    of room and its proof takes SLOW_S to find it unsolvable; 5 cells win at once."""
    if deal != SLOW_DEAL or rules.cells > 4:
        return solved(deal)
    if tuple(phases) == (PROOF,):
        time.sleep(SLOW_S)
        return Result(UNSOLVABLE, None, 0, 0, 1_000, 1_000, SLOW_S)
    return Result(UNKNOWN, None, 0, 0, 500, 500, 0.001, "states")


@pytest.fixture
def quick_console(monkeypatch):
    monkeypatch.setattr(console, "SLOW_DEAL_S", NAMED_AFTER_S)
    monkeypatch.setattr(console, "PLAIN_PROGRESS_EVERY_S", 0.0)


def test_progress_moves_a_deal_at_a_time(capsys, tmp_path, monkeypatch, quick_console):
    monkeypatch.setenv(SOLVER_ENV, "test_progress:sleepy")
    code, out, err = cli(capsys, "survey", "11-16", "--out", tmp_path, "--workers", "1")  # one chunk
    assert code == 0
    counts = [int(line.split("/")[0]) for line in err.splitlines() if line.endswith(" 0 error")]
    assert counts == sorted(counts) and set(counts) - {0} == {1, 2, 3, 4, 5, 6}  # not 6 at once at the end
    assert "3/6 deals (50.0%), " in err and "; 3 solved, 0 unsolvable, 0 unknown, 0 error" in err


def test_a_long_deal_is_named_with_its_phase_in_the_lines_and_the_log(capsys, tmp_path, monkeypatch,
                                                                      quick_console):
    monkeypatch.setenv(SOLVER_ENV, "test_progress:long_proof")
    code, out, err = cli(capsys, "survey", "4-6", "--out", tmp_path, "--workers", "1", "--difficulty", "-v")
    assert code == 0, err
    lines = err.splitlines()
    logged = [line for line in lines if line.startswith("INFO [MainProcess] deal 5: ")]
    assert logged and logged[0].startswith("INFO [MainProcess] deal 5: 4-cell proof, ")
    assert logged[0].endswith("s so far")
    plain = [line for line in lines if "/3 deals (" in line and "; deal 5: 4-cell proof, " in line]
    assert plain and all(line.startswith("1/3 deals (33.3%)") for line in plain)  # 4 done, 5 running
    assert not any("deal 4:" in line or "deal 6:" in line for line in lines if "/3 deals (" in line)


def test_without_a_terminal_a_line_comes_while_nothing_finishes(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(console, "PLAIN_PROGRESS_EVERY_S", 0.5)
    monkeypatch.setattr(survey, "PROGRESS_TICK_S", 0.1)
    monkeypatch.setenv(SOLVER_ENV, "test_progress:sleepy")
    code, out, err = cli(capsys, "survey", str(SLOW_DEAL), "--out", tmp_path, "--workers", "1")
    assert code == 0
    waiting = [line for line in err.splitlines() if line.startswith("0/1 deals (0.0%), 0.0 deals/s, ETA ?")]
    assert len(waiting) >= 3  # about one every 0.5 s of the 2.5 s deal


def test_the_bar_names_a_long_deal_in_its_postfix():
    shown = io.StringIO()
    bar = console.BarProgress(10, file=shown)
    bar.update(3, {"solved": 3})
    bar.working([console.running_text(982, "2-cell proof", 362.0)])
    bar.close()
    assert "3/10" in shown.getvalue()
    assert "3 solved, 0 unsolvable, 0 unknown, 0 error; deal 982: 2-cell proof, 6m 02s" in shown.getvalue()


def test_a_chunk_task_reports_each_phase_and_each_deal():
    heard = []
    task = ChunkTask(((4, 6),), PRESETS["freecell"], Limits(), False, "test_progress:long_proof", difficulty=True)
    rows = solve_chunk(task, heard.append)
    assert [r["deal"] for r in rows] == [4, 5, 6]
    five = [e for e in heard if e.deal == SLOW_DEAL]
    assert five == [PhaseStarted(5, "4-cell search"),
                    PhaseStarted(5, "4-cell search (sequence single)"),
                    PhaseStarted(5, "4-cell search (empty_fill kings)"),
                    PhaseStarted(5, "4-cell proof"),
                    PhaseStarted(5, "5-cell search"),
                    DealFinished(5, UNSOLVABLE)]
    assert heard[-1] == DealFinished(6, SOLVED)
    assert phase_name(PRESETS["freecell"].replace(cells=2), (PROOF,), PRESETS["freecell"]) == "2-cell proof"


def test_one_duration_format():
    assert [console.duration(s) for s in (7.25, 59.94, 59.97, 60, 252, 362, 7380)] == [
        "7.2s", "59.9s", "1m 00s", "1m 00s", "4m 12s", "6m 02s", "2h 03m"]


def test_export_shows_a_bar_on_a_terminal_and_keeps_stdout_clean(capsys, tmp_path, monkeypatch):
    assert cli(capsys, "survey", "1-30", "--out", tmp_path / "d", "--workers", "1")[0] == 0
    monkeypatch.setattr(console, "BAR_DELAY_S", 0.0)
    monkeypatch.setattr(console.sys.stderr, "isatty", lambda: True)
    code, out, err = cli(capsys, "export", tmp_path / "d")
    assert code == 0
    assert [r["deal"] for r in json.loads(out)] == list(range(1, 31))  # stdout: the export only
    assert "replaying solutions:   0%|          | 0/30" in err and "writing json: " in err
    monkeypatch.setattr(console.sys.stderr, "isatty", lambda: False)
    code, out, err = cli(capsys, "export", tmp_path / "d", "--format", "txt")
    assert (code, out.split(), err) == (0, [str(d) for d in range(1, 31)], "Exported 30 deals.\n")


def test_on_dask_progress_moves_a_deal_at_a_time_too(tmp_path):
    pytest.importorskip("distributed")
    tests = str(Path(__file__).parent)
    code = ("import fcsurvey.console as c; c.SLOW_DEAL_S = 0.3; c.PLAIN_PROGRESS_EVERY_S = 0.0; "
            "from fcsurvey.cli import main; "
            f"main(['survey', '1-6', '--out', {str(tmp_path / 'out')!r}, '--executor', 'dask', '--workers', '1'])")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")])),
           SOLVER_ENV: "test_progress:sleepy"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "/6 deals (" in line]
    assert any(line.startswith("4/6 deals (66.7%)") for line in lines)  # while 5 runs, before the chunk
    assert any(line.startswith("4/6 deals") and "; deal 5: 4-cell solve, " in line for line in lines)

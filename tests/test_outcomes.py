"""Honest outcomes, through ``fcsurvey survey``, ``summary`` and ``verify``: a deal that ends
as ``error`` makes the survey exit 1 and is solved again by the same command, which replaces
its row in place (one row a deal, no file left half-written); ``unknown`` is a normal
outcome; a summary counts both; a dataset made by another build says so."""

from __future__ import annotations

import json
import shutil

import pyarrow.compute as pc
import pytest

from fcsurvey import store, summary
from fcsurvey.cli import EXIT_ERROR_DEALS
from fcsurvey.dealset import DealSet
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS
from fcsurvey.solver import core_build
from fcsurvey.store import Dataset
from fcsurvey.survey import SOLVER_ENV
from fcsurvey.task import CRASH_DEAL_ENV

from conftest import DATA_COLUMNS, FAKE_SOLVER, RESULTS, cli, leftovers

SHIPPED = RESULTS / "freecell_1-32000"


def rows(out):
    return {r["deal"]: r for r in store.read(out).to_pylist()}


def test_error_is_exit_1_and_the_same_command_retries_it_in_place(capsys, tmp_path, monkeypatch):
    survey = ["survey", "50-65", "--out", tmp_path, "--chunk-size", "8", "--workers", "2"]
    monkeypatch.setenv(CRASH_DEAL_ENV, "57")  # every worker that reaches deal 57 dies
    code, out, err = cli(capsys, *survey)
    assert EXIT_ERROR_DEALS == 1 and code == 1
    assert "15 solved, 0 unsolvable, 0 unknown, 1 error" in out
    assert "1 of them got no verdict (error): run the same command again to retry them." in out
    assert rows(tmp_path)[57]["error"] == "worker process killed by SIGKILL"
    files = store.chunk_files(tmp_path)
    before = store.read(tmp_path).select(DATA_COLUMNS).filter(pc.not_equal(store.read(tmp_path)["deal"], 57))

    monkeypatch.delenv(CRASH_DEAL_ENV)
    code, out, err = cli(capsys, *survey)
    assert code == 0, err
    assert err.startswith("Surveying 1 deals (1 error deals solved again, 15 already done) with 2 workers")
    assert "1 solved, 0 unsolvable, 0 unknown, 0 error" in out
    table = store.read(tmp_path)
    assert table["deal"].to_pylist() == list(range(50, 66))  # exactly one row a deal
    assert rows(tmp_path)[57]["status"] == "solved" and rows(tmp_path)[57]["error"] is None
    assert store.chunk_files(tmp_path) == files and leftovers(tmp_path) == []
    assert table.select(DATA_COLUMNS).filter(pc.not_equal(table["deal"], 57)).equals(before)

    assert cli(capsys, *survey)[:2] == (0, f"Nothing to do: all 16 deals are already in {tmp_path}.\n")


def test_a_deal_that_errors_again_stays_one_error_row(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv(SOLVER_ENV, FAKE_SOLVER)
    survey = ["survey", "4238-4246", "--out", tmp_path, "--workers", "1"]
    for _ in range(2):  # the rerun solves 4242 again, and it raises again
        code, out, err = cli(capsys, *survey)
        assert code == 1 and "1 error" in out
    assert "Surveying 1 deals (1 error deals solved again, 8 already done)" in err
    assert store.read(tmp_path)["deal"].to_pylist() == list(range(4238, 4247))
    assert rows(tmp_path)[4242]["error"] == "RuntimeError: fake solver failure"


def test_only_requested_error_deals_are_retried(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv(SOLVER_ENV, FAKE_SOLVER)
    assert cli(capsys, "survey", "4240-4245", "--out", tmp_path, "--workers", "1")[0] == 1
    code, out, err = cli(capsys, "survey", "4243-4250", "--out", tmp_path, "--workers", "1")
    assert code == 0 and "Surveying 5 deals (3 already done)" in err  # 4242 was not asked for
    assert rows(tmp_path)[4242]["status"] == "error"


def test_unknown_is_a_normal_outcome_and_summary_counts_unknown_and_error(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv(SOLVER_ENV, FAKE_SOLVER)
    survey = ["survey", "4171-4250", "--out", tmp_path, "--workers", "2"]  # 4171 = 43 * 97
    assert cli(capsys, *survey)[0] == 1
    code, out, _ = cli(capsys, "summary", tmp_path)
    assert code == 0
    assert "Status      78 solved, 0 unsolvable, 1 unknown, 1 error\n" in out
    assert "Unknown     4171 (a limit stopped the search)\n" in out
    assert "Error       4242 (no verdict; rerun the survey to retry them)\n" in out
    code, out, _ = cli(capsys, "summary", tmp_path, "--json")
    made = json.loads(out)
    assert made["status"] == {"solved": 78, "unsolvable": 0, "unknown": 1, "error": 1}
    assert made["unknown"] == {"count": 1, "items": [4171]} and made["error"] == {"count": 1, "items": [4242]}

    code, out, err = cli(capsys, *survey)
    assert "Surveying 1 deals (1 error deals solved again, 79 already done)" in err
    code, out, _ = cli(capsys, "summary", tmp_path)
    assert "Status      78 solved, 0 unsolvable, 1 unknown, 1 error\n" in out


def test_a_dataset_made_by_this_build_says_so(capsys, tmp_path):
    assert cli(capsys, "survey", "1-3", "--out", tmp_path, "--workers", "1")[0] == 0
    assert store.read_manifest(tmp_path)["core_build"] == core_build()
    code, out, _ = cli(capsys, "summary", tmp_path)
    assert f"Made by     this build (fcsurvey {store.__version__}, core {core_build()})\n" in out
    made = json.loads(cli(capsys, "summary", tmp_path, "--json")[1])["builds"]
    assert made["other_build"] is False
    assert made["made_by"] == [{"fcsurvey_version": store.__version__, "core_build": core_build(), "chunks": 1}]


def test_a_dataset_made_by_another_build_says_so(capsys, tmp_path):
    old = Dataset.open(tmp_path, PRESETS["freecell"], Limits(), DealSet([(1, 2)]))  # as builds before the record
    old.write_chunk([{"deal": 1, "status": "solved", "states": 1}, {"deal": 2, "status": "solved", "states": 1}], 0.0)
    old.close()
    assert "core_build" not in store.read_manifest(tmp_path)
    code, out, _ = cli(capsys, "summary", tmp_path)
    assert code == 0
    assert (f"Made by     fcsurvey {store.__version__}, core not recorded (1 chunks) -- another build than "
            f"this one (fcsurvey {store.__version__}, core {core_build()}): its verdicts are that build's\n") in out
    # extended by this build, the dataset holds both, each counted
    assert cli(capsys, "survey", "3", "--out", tmp_path, "--workers", "1")[0] == 0
    made = summary.builds(tmp_path)
    assert made["other_build"] and sorted(m["chunks"] for m in made["made_by"]) == [1, 1]


def test_the_shipped_dataset_says_which_build_made_it(capsys, tmp_path):
    if not SHIPPED.is_dir() or "core_build" in store.read_manifest(SHIPPED):
        pytest.skip("no shipped dataset from before builds were recorded in this checkout")
    code, out, _ = cli(capsys, "summary", SHIPPED)
    assert code == 0
    assert "Made by     fcsurvey 0.1.0, core not recorded (64 chunks) -- another build than this one" in out


def test_verify_says_which_claims_it_checked_on_another_builds_data(capsys, tmp_path, monkeypatch):
    if not SHIPPED.is_dir() or "core_build" in store.read_manifest(SHIPPED):
        pytest.skip("no shipped dataset from before builds were recorded in this checkout")
    shutil.copytree(SHIPPED, tmp_path / "shipped")
    code, out, _ = cli(capsys, "verify", "--claim", "4cells-1-32000", "--dataset", tmp_path / "shipped")
    assert code == 0
    assert (f"4cells-1-32000: {tmp_path / 'shipped'} (reused; made by fcsurvey 0.1.0, core not recorded "
            f"(64 chunks) -- another build than this one") in out
    assert ("1 of 1 claims checked on data another build made (shipped or reused), not on this build's "
            "own survey: 4cells-1-32000\n") in out
    monkeypatch.chdir(tmp_path)  # no results/ here: verify surveys the claim with this build
    code, out, _ = cli(capsys, "verify", "--claim", "relaxed-11982", "--workers", "1")
    assert code == 0 and "another build" not in out

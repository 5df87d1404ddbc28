"""The survey library: deal lists, chunk planning, the run loop, resume, crashes, summary.

Runs use the real solver on small ranges; ``fake_solver`` (this directory is on the path
of spawned workers too) stands in only for verdicts small deals do not give.
"""

from __future__ import annotations

import os

import pyarrow.compute as pc
import pytest

from fcsurvey import store
from fcsurvey.dealset import DealError, DealSet, parse_deals, read_deals_file, requested_deals
from fcsurvey.executors import LocalPool
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS, preset
from fcsurvey.store import StoreError
from fcsurvey.summary import summarize, summary_text
from fcsurvey.survey import Survey, SurveyError, default_out, plan_chunks
from fcsurvey.task import CRASH_DEAL_ENV

from conftest import FAKE_SOLVER, data, leftovers


def run(deals, out, **kwargs):
    job = Survey(parse_deals(deals), out, **kwargs)
    return job, job.run()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Deals 1-200 surveyed once, one worker, one chunk size."""
    out = tmp_path_factory.mktemp("reference")
    run("1-200", out, workers=1, chunk_size=64)
    return data(out)


# --- what to solve --------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("1-32000", [(1, 32000)]),
    ("1..32000", [(1, 32000)]),
    ("11982", [(11982, 11982)]),
    (" 5 - 7 , 1..3,11982, 4", [(1, 7), (11982, 11982)]),
    ("8589934591", [(8589934591, 8589934591)]),
])
def test_parse_deals(text, expected):
    assert parse_deals(text).ranges == tuple(expected)


@pytest.mark.parametrize("text, message", [
    ("10-1", r"bad deals '10-1': the range runs backwards \(did you mean 1-10\?\)"),
    ("1-x", r"bad deals '1-x': deal number must be an integer, got 'x'"),
    ("0-5", r"bad deals '0-5': deal number must be 1 to 8,589,934,591, got 0"),
    ("1-8589934592", r"got 8,589,934,592"),
    ("-5", r"got -5"),
    ("", r"no deals given"),
])
def test_parse_deals_says_exactly_what_is_wrong(text, message):
    with pytest.raises(DealError, match=message):
        parse_deals(text)


def test_deals_file(tmp_path):
    path = tmp_path / "deals.txt"
    path.write_text("# hard ones\n11982\n\n617  # famous\n1-3\n")
    assert read_deals_file(path).ranges == ((1, 3), (617, 617), (11982, 11982))
    path.write_text("1\nseven\n")
    with pytest.raises(DealError, match=r"deals.txt, line 2: bad deals 'seven'"):
        read_deals_file(path)
    with pytest.raises(DealError, match=r"cannot read deals file .*missing.txt: No such file"):
        read_deals_file(tmp_path / "missing.txt")
    path.write_text("# nothing\n")
    with pytest.raises(DealError, match="no deals in"):
        read_deals_file(path)


def test_deals_come_from_exactly_one_place(tmp_path):
    with pytest.raises(DealError, match="either"):
        requested_deals(None, None)
    with pytest.raises(DealError, match="either"):
        requested_deals("1", tmp_path / "deals.txt")


def test_chunks_have_fixed_boundaries_whatever_is_requested():
    assert list(plan_chunks(parse_deals("1-1200"), 500)) == [((1, 500),), ((501, 1000),), ((1001, 1200),)]
    assert list(plan_chunks(parse_deals("450-520,600,1001"), 500)) == [
        ((450, 500),), ((501, 520), (600, 600)), ((1001, 1001),)]
    big = plan_chunks(DealSet([(1, 8_589_934_591)]), 500)  # lazy: no 17 million tuples
    assert next(big) == ((1, 500),)


def test_default_out_names_rules_limits_and_deals():
    assert str(default_out(parse_deals("1-32000"), PRESETS["freecell"], Limits())) == "results/freecell_1-32000"
    assert str(default_out(parse_deals("1-10,20"), preset("bakers-game", cells=3, foundation_return=True),
                           Limits(max_states=1000, timeout=2.5))) == \
        "results/bakers-game_cells-3_foundation-return-on_states-1000_timeout-2.5s_1-10_20"
    assert str(default_out(parse_deals("1,3,5,7"), PRESETS["freecell"], Limits())) == \
        "results/freecell_1-7-4-deals"


def test_bad_settings_are_refused_before_any_work(tmp_path):
    with pytest.raises(SurveyError, match="workers must be at least 1"):
        Survey(parse_deals("1"), tmp_path, workers=0)
    with pytest.raises(SurveyError, match="cannot load solver 'nowhere:solve'"):
        Survey(parse_deals("1"), tmp_path, solver="nowhere:solve")
    assert not list(tmp_path.iterdir())


# --- running ------------------------------------------------------------------------------

def test_survey_writes_one_row_per_deal(tmp_path, reference):
    job, report = run("1-200", tmp_path, workers=2, chunk_size=64)
    assert (job.todo, report.written, report.skipped) == (200, 200, 0)
    table = store.read(tmp_path)
    assert table["deal"].to_pylist() == list(range(1, 201))
    assert set(table["status"].to_pylist()) == {"solved"}
    assert pc.min(table["moves"]).as_py() > 0 and table["solution"].null_count == 0
    assert [p.name for p in sorted(tmp_path.glob("block=0000/deals-*"))] == [
        "deals-0000000001-0000000064.parquet", "deals-0000000065-0000000128.parquet",
        "deals-0000000129-0000000192.parquet", "deals-0000000193-0000000200.parquet"]
    assert data(tmp_path).equals(reference)  # 1 worker or 2: the same results


def test_rerun_with_another_chunk_size_fills_only_the_gaps(tmp_path, reference):
    run("1-50,120-130", tmp_path, workers=1, chunk_size=30)
    job, report = run("1-200", tmp_path, workers=2, chunk_size=47)
    assert (job.todo, report.skipped) == (200 - 61, 61)
    assert data(tmp_path).equals(reference)
    again, report = run("1-200", tmp_path, workers=2)
    assert again.todo == 0 and report.written == 0 and "Nothing to do" in report.text()


def test_a_dying_worker_costs_only_its_deal(tmp_path, reference, monkeypatch):
    monkeypatch.setenv(CRASH_DEAL_ENV, "123")
    job, report = run("1-200", tmp_path, workers=2, chunk_size=50)
    table = store.read(tmp_path)
    assert table["deal"].to_pylist() == list(range(1, 201))
    rows = {r["deal"]: r for r in table.to_pylist()}
    assert rows[123]["status"] == "error"
    assert rows[123]["error"] == "worker process killed by SIGKILL"
    assert report.counts == {"solved": 199, "error": 1}
    others = data(tmp_path).filter(pc.not_equal(table["deal"], 123))
    assert others.equals(reference.filter(pc.not_equal(reference["deal"], 123)))
    assert leftovers(tmp_path) == []


def test_a_solver_exception_is_an_error_row(tmp_path):
    run("4240-4245", tmp_path, workers=1, solver=FAKE_SOLVER)
    rows = {r["deal"]: r for r in store.read(tmp_path).to_pylist()}
    assert rows[4242]["status"] == "error"
    assert rows[4242]["error"] == "RuntimeError: fake solver failure"
    assert rows[4242]["moves"] is None and rows[4241]["status"] == "solved"


def test_limits_and_no_solutions_reach_the_rows(tmp_path):
    run("1-20", tmp_path, workers=1, limits=Limits(max_states=50), solutions=False)
    table = store.read(tmp_path)
    assert table["solution"].null_count == 20
    unknown = table.filter(pc.equal(table["status"], "unknown"))
    assert unknown.num_rows and set(unknown["limit"].to_pylist()) == {"states"}
    assert unknown["moves"].null_count == unknown.num_rows
    assert b'"max_states": 50' in table.schema.metadata[store.META_LIMITS.encode()]


def test_other_rules_are_refused_before_any_work(tmp_path):
    run("1-3", tmp_path, workers=1)
    with pytest.raises(StoreError, match="rules.cells 4 .dataset. vs 3 .asked."):
        Survey(parse_deals("1-5"), tmp_path, rules=preset("freecell", cells=3))
    assert store.read(tmp_path).num_rows == 3


# --- summary ------------------------------------------------------------------------------

def test_summary_counts_lists_and_gaps(tmp_path):
    run("1-10", tmp_path, workers=1, solver=FAKE_SOLVER, chunk_size=5)
    run("11900-12000,20000-30000", tmp_path, workers=2, solver=FAKE_SOLVER, chunk_size=5000)
    Survey(parse_deals("40-45"), tmp_path, solver=FAKE_SOLVER).dataset.write_manifest()  # started, none finished
    s = summarize(tmp_path)
    assert s["deals"] == {"present": 10 + 101 + 10001, "requested": 10 + 101 + 10001 + 6,
                          "first": 1, "last": 30000, "missing": 6,
                          "gaps": {"count": 1, "items": [[40, 45]]}}
    assert s["unsolvable"] == {"count": 1, "items": [11982]}
    assert s["unknown"]["count"] == 104 and len(s["unknown"]["items"]) == 50
    assert s["status"] == {"solved": 10112 - 105, "unsolvable": 1, "unknown": 104, "error": 0}
    assert s["moves"]["min"] == 20 and s["moves"]["max"] == 69
    assert s["runs"] == 2 and s["wall_s"] > 0 and s["deals_per_s"] > 0
    assert s["rules"]["variant"] == "freecell"
    text = summary_text(s)
    assert "Unsolvable  11982\n" in text
    assert "(and 54 more)" in text
    assert "6 missing: 40-45" in text
    assert "10,007 solved, 1 unsolvable, 104 unknown" in text


@pytest.mark.parametrize("given, seen", [
    (None, "glibc.malloc.hugetlb=1"),
    ("glibc.malloc.arena_max=2", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"),
    ("glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=0"),  # set by the user: it stands
])
def test_local_workers_start_with_huge_pages_for_malloc(monkeypatch, given, seen):
    if given is None:
        monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    else:
        monkeypatch.setenv("GLIBC_TUNABLES", given)
    with LocalPool(1, os.getenv) as pool:
        pool.submit("key", "GLIBC_TUNABLES")
        assert pool.wait(None) == [("key", seen)]
    assert os.environ.get("GLIBC_TUNABLES") == given  # this process keeps what it had

"""Difficulty bands (bands.py): the rule on proved facts, the kings-only question with the
real solver, the shipped dataset's split, and the point of it all: two search tunings
give other ``difficulty`` scores but the same bands."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fcsurvey import solver, store
from fcsurvey.bands import BANDS, EASY, EXPERT, HARD, MEDIUM, UNRATED, UNWINNABLE, band, band_column
from fcsurvey.dealset import parse_deals
from fcsurvey.deals import deal as make_deal
from fcsurvey.difficulty import MinCells, kings_rules, kings_won
from fcsurvey.limits import Limits, SolverError
from fcsurvey.replay import validate
from fcsurvey.rules import PRESETS
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.summary import summarize, summary_text
from fcsurvey.survey import Survey
from fcsurvey.task import ChunkTask, solve_chunk

from conftest import RESULTS, cli, run_cli

FREECELL = PRESETS["freecell"]
SHIPPED = RESULTS / "ms-freecell-1-32000"
#: A second tuning of the searches, as a later release might ship: other greedy and
#: complete-search weights (tuning.h's WEIGHTS), which store other counts for most deals.
RETUNED = "greedy.depth=5,greedy.cell=4,complete.depth=3,complete.blocked=2"
#: The limit the tuning comparisons solve with: proofs past it leave a deal unrated alike
#: under both tunings (a proof visits the same positions whatever the weights).
COMPARE_STATES = 1_000_000


# --- the rule --------------------------------------------------------------------------------

@pytest.mark.parametrize("facts, expected", [
    ((SOLVED, 0, True, None), EASY),
    ((SOLVED, 1, True, None), EASY),
    ((SOLVED, 2, True, True), MEDIUM),
    ((SOLVED, 2, True, False), HARD),
    ((SOLVED, 2, True, None), UNRATED),       # the kings-only question undecided
    ((SOLVED, 3, True, None), EXPERT),
    ((SOLVED, 4, True, None), EXPERT),
    ((UNSOLVABLE, 5, True, None), UNWINNABLE),
    ((UNKNOWN, 5, True, None), UNWINNABLE),   # 4 cells proved lost by the proof below 5
    ((UNSOLVABLE, None, True, None), UNWINNABLE),
    ((UNSOLVABLE, 6, False, None), UNWINNABLE),  # its own verdict is a proof
    ((SOLVED, 2, False, True), UNRATED),      # min_cells only an upper bound
    ((SOLVED, 3, False, None), UNRATED),
    ((UNKNOWN, None, False, None), UNRATED),
    (("error", None, None, None), UNRATED),
])
def test_band_of_the_facts(facts, expected):
    assert band(*facts, cells=4) == expected


def test_the_dataset_cells_only_decide_what_is_unwinnable():
    assert band(SOLVED, 3, True, None, cells=3) == EXPERT
    assert band(UNSOLVABLE, 3, True, None, cells=2) == UNWINNABLE
    assert band(SOLVED, 1, True, None, cells=2) == EASY


# --- the kings-only question, with the real solver ------------------------------------------

def proved(min_cells: int) -> MinCells:
    return MinCells(min_cells, True, None, None, {}, 0.0)


@pytest.mark.parametrize("deal, answer", [(236, True), (128, True), (17, False), (123, False)])
def test_kings_won_proves_its_answer(deal, answer):
    found = kings_won(deal, FREECELL, proved(2), Limits(max_states=COMPARE_STATES))
    assert found.kings_won is answer
    narrower = kings_rules(FREECELL, 2)
    assert narrower == FREECELL.replace(cells=2, empty_fill="kings")
    if answer:  # the win replays under kings-only columns, so under the real rules too
        assert validate(make_deal(deal, narrower), narrower, found.kings.solution).ok
        assert validate(make_deal(deal, FREECELL), FREECELL.replace(cells=2), found.kings.solution).ok
    else:  # the whole kings-only game visited
        assert found.kings.status == UNSOLVABLE and found.kings.limit is None


def test_kings_won_is_asked_only_of_a_proved_two():
    for found in (proved(1), proved(3), MinCells(2, False, "states", 10, {}, 0.0)):
        assert kings_won(4, FREECELL, found) is found
    # with kings-only columns already every win is a kings-only win: nothing to solve
    kings = kings_won(4, PRESETS["kings-only-bakers-game"], proved(2))
    assert (kings.kings_won, kings.kings) == (True, None)


def test_kings_won_undecided_within_the_limit_is_none():
    found = kings_won(132, FREECELL, proved(2), Limits(max_states=20_000))
    assert found.kings_won is None and found.kings.status == UNKNOWN


# --- the shipped dataset ----------------------------------------------------------------------

#: The split of deals 1-32,000 (docs/difficulty.md, "Bands").
SHIPPED_BANDS = {EASY: 6_289, MEDIUM: 8_699, HARD: 8_556, EXPERT: 6_618, UNWINNABLE: 1, UNRATED: 1_837}


@pytest.mark.skipif(not SHIPPED.exists(), reason="needs the shipped dataset")
def test_shipped_split():
    table = store.read(SHIPPED, columns=["deal", "status", "min_cells", "min_cells_exact", "kings_won"])
    table = table.append_column("band", band_column(table, FREECELL.cells))
    counts = Counter(table["band"].to_pylist())
    assert {name: counts[name] for name in BANDS} == SHIPPED_BANDS
    rows = {r["deal"]: r for r in table.select(["deal", "band", "min_cells", "kings_won"]).to_pylist()}
    assert rows[11982]["band"] == UNWINNABLE
    assert all(r["band"] == (EASY if r["min_cells"] <= 1 else EXPERT) for r in rows.values()
               if r["min_cells"] is not None and r["min_cells"] != 2 and r["deal"] != 11982)
    assert all(r["band"] == {True: MEDIUM, False: HARD, None: UNRATED}[r["kings_won"]]
               for r in rows.values() if r["min_cells"] == 2)


# --- two tunings: other scores, the same bands -----------------------------------------------

def in_process_rows(deals: str, weights: str) -> dict:
    """The rows a --difficulty survey's worker makes for ``deals``, solved in this process
    with ``weights`` in force, by deal."""
    task = ChunkTask(parse_deals(deals).ranges, FREECELL, Limits(max_states=COMPARE_STATES), False,
                     "fcsurvey.solver:solve", difficulty=True)
    with solver.weights(weights):
        return {r["deal"]: r for r in solve_chunk(task)}


def bands_of(rows: dict) -> dict:
    return {d: band(r["status"], r["min_cells"], r["min_cells_exact"], r["kings_won"], FREECELL.cells)
            for d, r in rows.items()}


def assert_same_bands(a: dict, b: dict, shipped: Path = SHIPPED) -> None:
    """Every deal both tunings rate in the same band, few left unrated by either (one may
    find a kings-only win the other does not: that only moves a deal out of ``unrated``),
    every proved min_cells the shipped one, and the difficulty scores not all equal: the
    tunings did search differently."""
    assert a.keys() == b.keys()
    bands_a, bands_b = bands_of(a), bands_of(b)
    differ = {d: (bands_a[d], bands_b[d]) for d in a if bands_a[d] != bands_b[d]}
    assert all(UNRATED in pair for pair in differ.values()), differ
    for bands in (bands_a, bands_b):
        assert Counter(bands.values())[UNRATED] <= len(a) // 20  # at most 5% with this low limit
    moved = [d for d in a if a[d]["difficulty"] != b[d]["difficulty"]]
    assert len(moved) >= len(a) // 4, "the second tuning should move many difficulty scores"
    if shipped.exists():
        ship = {r["deal"]: r for r in store.read(shipped, columns=["deal", "min_cells", "min_cells_exact"],
                                                 deals=parse_deals(f"{min(a)}-{max(a)}")).to_pylist()}
        for d, row in a.items():
            if row["min_cells_exact"]:
                assert row["min_cells"] == ship[d]["min_cells"], d


def test_two_tunings_same_bands_other_scores():
    deals = "2001-2040"
    default, retuned = in_process_rows(deals, ""), in_process_rows(deals, RETUNED)
    assert_same_bands(default, retuned)
    assert solver._fccore.weights() == solver._fccore.weights(True)  # restored after


@pytest.mark.slow
def test_two_tunings_same_bands_on_2000_deals(tmp_path):
    """The acceptance: a 2,000-deal sample (30001-32000) surveyed by the command line twice, with the
    tuned weights and with RETUNED (FCSURVEY_WEIGHTS), as two releases would."""
    tables = {}
    for name, weights in (("default", ""), ("retuned", RETUNED)):
        out = tmp_path / name
        env = {**os.environ, solver.WEIGHTS_ENV: weights}
        done = run_cli("survey", "30001-32000", "--difficulty", "--max-states", COMPARE_STATES, "--workers", 2,
                       "--no-solutions", "--out", out, env=env, timeout=3600)
        assert done.returncode == 0, done.stderr
        tables[name] = store.read(out)
    rows = {name: {r["deal"]: r for r in t.to_pylist()} for name, t in tables.items()}
    assert len(rows["default"]) == 2000
    assert_same_bands(rows["default"], rows["retuned"])
    pairs = list(zip(tables["default"]["band"].to_pylist(), tables["retuned"]["band"].to_pylist()))
    moved = sum(a != b for a, b in zip(*(tables[n]["difficulty"].to_pylist() for n in tables)))
    print(f"\nbands: {sum(a == b for a, b in pairs)} of {len(pairs)} the same, the rest unrated by one tuning;"
          f" {dict(Counter(a for a, _ in pairs))} (default); difficulty moved on {moved}")
    builds = {name: {m[b"fcsurvey.core_build"] for m in (pq.read_schema(f).metadata for f in store.chunk_files(
        tmp_path / name))} for name in tables}
    assert len(builds["default"] | builds["retuned"]) == 2  # each names the search it ran


# --- the weights knob -------------------------------------------------------------------------

def test_weights_change_the_search_and_the_build_not_the_verdict():
    tuned = solver.core_build()
    before = solver.solve(2017, FREECELL.replace(cells=2))
    with solver.weights(RETUNED):
        assert solver.core_build() != tuned
        greedy, complete = solver._fccore.weights()
        assert greedy[solver.WEIGHT_NAMES.index("depth")] == 5
        assert complete[solver.WEIGHT_NAMES.index("blocked")] == 2
        after = solver.solve(2017, FREECELL.replace(cells=2))
    assert solver.core_build() == tuned
    assert before.status == after.status == SOLVED and before.states != after.states


@pytest.mark.parametrize("text, message", [
    ("greedy.depth", "is not SET.NAME=N"), ("beam.depth=1", "is not SET.NAME=N"),
    ("greedy.speed=1", "is not SET.NAME=N"), ("greedy.depth=-1", "is not SET.NAME=N"),
    ("complete.depth=1001", "weights must be 0 to 1000"),
])
def test_bad_weights_are_refused(text, message):
    with pytest.raises(SolverError, match=message):
        with solver.weights(text):
            pass
    assert solver._fccore.weights() == solver._fccore.weights(True)


def test_bad_weights_in_the_environment_are_one_error_line(monkeypatch, capsys):
    monkeypatch.setenv(solver.WEIGHTS_ENV, "greedy.depth=x")
    solver._weights_from_env.cache_clear()  # read once a process: read it again here
    try:
        code, _, err = cli(capsys, "solve", "1")
    finally:
        solver._weights_from_env.cache_clear()
    assert code == 2
    assert err.startswith("Error: FCSURVEY_WEIGHTS: 'greedy.depth=x'") and err.count("\n") == 1
    assert solver._fccore.weights() == solver._fccore.weights(True)


# --- the column in datasets, old and new ------------------------------------------------------

#: Cheap deals of every kind: 2-cell deals won with kings-only columns (319, 324, 331) and
#: not (318, 321, 330), 1-cell 325, 0-cell 164, 3-cell the rest, 11982 lost with 4.
BAND_DEALS = "164,318-331,11982"
MEDIUM_DEALS, HARD_DEALS = [319, 324, 331], [318, 321, 330]
#: Columns that do not depend on when or how fast the deals were solved.
STABLE = ["deal", "status", "min_cells", "min_cells_exact", "kings_won", "difficulty", "band"]


@pytest.fixture(scope="module")
def surveyed(tmp_path_factory):
    out = tmp_path_factory.mktemp("bands") / "out"
    Survey(parse_deals(BAND_DEALS), out, workers=1, chunk_size=8, difficulty=True).run()
    return out


def test_survey_stores_kings_won_and_reads_the_band(surveyed):
    rows = {r["deal"]: r for r in store.read(surveyed).to_pylist()}
    assert {d: r["band"] for d, r in rows.items()} == bands_of(rows)
    assert {d: r["kings_won"] for d, r in rows.items() if r["min_cells"] == 2} == \
        {**{d: True for d in MEDIUM_DEALS}, **{d: False for d in HARD_DEALS}}
    assert all(r["kings_won"] is None for r in rows.values() if r["min_cells"] != 2)
    assert Counter(r["band"] for r in rows.values()) == {EASY: 2, MEDIUM: 3, HARD: 3, EXPERT: 7, UNWINNABLE: 1}
    summary = summarize(surveyed)
    assert summary["difficulty"]["bands"] == {EASY: 2, MEDIUM: 3, HARD: 3, EXPERT: 7, UNWINNABLE: 1}
    assert "\nBands       easy: 2, medium: 3, hard: 3, expert: 7, unwinnable: 1\n" in summary_text(summary)


def test_export_filters_and_sorts_by_band(surveyed, tmp_path, capsys):
    out = tmp_path / "hard.json"
    code, _, err = cli(capsys, "export", surveyed, "--where", "band = hard", "--out", out)
    assert code == 0, err
    records = json.loads(out.read_text())
    assert [r["deal"] for r in records] == HARD_DEALS and {r["band"] for r in records} == {HARD}
    code, text, _ = cli(capsys, "export", surveyed, "--sort", "band", "--format", "csv")
    order = [line.split(",")[2] for line in text.splitlines()[1:]]
    assert order == sorted(order, key=BANDS.index) and order[0] == EASY and order[-1] == UNWINNABLE
    code, _, err = cli(capsys, "export", surveyed, "--where", "band = tough")
    assert code == 2 and "band is one of easy, medium, hard, expert" in err


def strip_kings_won(path: Path) -> None:
    """Make dataset ``path`` as a survey made it before the bands: no kings_won column."""
    for f in store.chunk_files(path):
        table = pq.read_table(f)
        pq.write_table(table.drop_columns(["kings_won"]).replace_schema_metadata(table.schema.metadata), f)
    (path / store.CHUNK_LOG).unlink(missing_ok=True)


def test_a_dataset_from_before_the_bands_reads_unrated_and_can_be_filled(surveyed, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(surveyed, old)
    strip_kings_won(old)
    rows = {r["deal"]: r for r in store.read(old).to_pylist()}
    assert all(r["kings_won"] is None for r in rows.values())
    assert sorted(d for d, r in rows.items() if r["band"] == UNRATED) == sorted(MEDIUM_DEALS + HARD_DEALS)
    metadata = {f.name: pq.read_schema(f).metadata for f in store.chunk_files(old)}
    fresh = {r["deal"]: r["kings_won"] for r in store.read(surveyed).to_pylist() if r["kings_won"] is not None}
    assert store.fill_later_column(old, "kings_won", {**fresh, 99: True}) == 6
    assert {f.name: pq.read_schema(f).metadata for f in store.chunk_files(old)} == metadata
    assert store.read(old).select(STABLE) == store.read(surveyed).select(STABLE)
    # a survey resumes into a dataset of old and new files, as into any
    Survey(parse_deals("1"), old, workers=1, difficulty=True).run()
    assert store.read(old)["deal"].to_pylist()[0] == 1
    with pytest.raises(store.StoreError, match="is not a column that can be filled in later"):
        store.fill_later_column(old, "min_cells", {1: 3})

"""``--searches-only`` (``Limits(searches_only=True)``): the searches without the layered proof,
the cheap and load-independent mode the winnable tables are surveyed in (Issue 29, item 1).

A searches-only solve must be exactly the solve's ``search`` phase: the same verdict and
counts; it must still prove what the complete search exhausts; and a dataset made in it must
record it, so that it refuses a survey in the other mode and the other way round.
"""

from __future__ import annotations

import json

import pytest

from fcsurvey.limits import Limits, LimitsError
from fcsurvey.rules import preset
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.solver import SEARCH, SolverError, solve
from fcsurvey.store import StoreError
from fcsurvey.survey import Survey, SurveyError, default_out
from fcsurvey.dealset import parse_deals

from conftest import cli

THREE = preset("freecell", cells=3)
SEARCHES = Limits(max_states=100_000, searches_only=True)
#: 3-cell deals at 100,000 positions: 1617 is winnable but its complete search runs out of
#: room (the proof would take over); 775 is unsolvable, exhausted within the room.
OUT_OF_ROOM, EXHAUSTED = 1617, 775


def test_the_limits_record_it_only_when_set():
    assert "searches_only" not in Limits(max_states=5).to_dict()
    assert Limits(max_states=5, searches_only=True).to_dict() == {"max_states": 5, "timeout": None,
                                                                   "searches_only": True}
    with pytest.raises(LimitsError, match="searches_only must be True or False, got 1"):
        Limits(searches_only=1)  # type: ignore[arg-type]


def test_searches_only_is_the_search_phase_alone():
    alone = solve(OUT_OF_ROOM, THREE, SEARCHES, replay=False)
    phase = solve(OUT_OF_ROOM, THREE, Limits(max_states=100_000), phases=(SEARCH,), replay=False)
    assert (alone.status, alone.limit, alone.states) == (UNKNOWN, "states", phase.states)
    assert alone.phase_counts["layered_proof"].states == 0
    assert alone.states > 100_000  # the last try's eighth of the room came after the complete search


def test_it_still_proves_what_the_complete_search_exhausts_and_wins_what_it_finds():
    proved = solve(EXHAUSTED, THREE, SEARCHES, replay=False)
    assert (proved.status, proved.phase_counts["layered_proof"].states) == (UNSOLVABLE, 0)
    assert solve(OUT_OF_ROOM, THREE, Limits(max_states=1_000_000, searches_only=True)).status == SOLVED


def test_nothing_left_to_run_is_refused():
    with pytest.raises(SolverError, match="searches only, so the proof alone has nothing to run"):
        solve(1, THREE, SEARCHES, phases=("proof",))


def test_a_checkpoint_is_refused(tmp_path):
    with pytest.raises(SolverError, match="a checkpoint keeps a layered proof's progress"):
        solve(1, THREE, SEARCHES, checkpoint=tmp_path / "1.proof")
    assert not (tmp_path / "1.proof").exists()


def test_the_survey_records_the_mode_and_the_other_mode_is_refused(capsys, tmp_path):
    out = tmp_path / "t"
    code, printed, _ = cli(capsys, "survey", f"{EXHAUSTED},{OUT_OF_ROOM}", "--cells", "3", "--searches-only",
                           "--max-states", "100000", "--no-solutions", "--workers", "1", "--out", out)
    assert code == 0 and "0 solved, 1 unsolvable, 1 unknown" in printed
    assert json.loads((out / "_fcsurvey.json").read_text())["limits"] == {
        "max_states": 100_000, "timeout": None, "searches_only": True}
    code, printed, _ = cli(capsys, "summary", out)
    assert "Limits      100,000 states per deal, no timeout; searches only (no layered proof)" in printed
    code, printed, err = cli(capsys, "survey", "1", "--cells", "3", "--max-states", "100000",
                             "--no-solutions", "--workers", "1", "--out", out)
    assert (code, printed) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"Error: {out} holds results made with other rules or limits "
                          "(limits.searches_only true (dataset) vs null (asked))")


def test_a_whole_solve_dataset_refuses_a_searches_only_survey(tmp_path):
    out = tmp_path / "t"
    Survey(parse_deals("1-2"), out, rules=THREE, limits=Limits(max_states=100_000), workers=1).run()
    with pytest.raises(StoreError, match="limits.searches_only null .dataset. vs true"):
        Survey(parse_deals("1-2"), out, rules=THREE, limits=SEARCHES, workers=1)


def test_difficulty_needs_the_proof(capsys, tmp_path):
    code, printed, err = cli(capsys, "survey", "1", "--searches-only", "--difficulty", "--out", tmp_path / "d")
    assert (code, printed) == (2, "")
    assert err == ("Error: --difficulty proves each deal's fewest cells, which needs the layered proof "
                   "that --searches-only leaves out: give one of them\n")
    assert not (tmp_path / "d").exists()
    with pytest.raises(SurveyError, match="--difficulty proves"):
        Survey(parse_deals("1"), tmp_path / "d", limits=SEARCHES, difficulty=True)


def test_the_default_directory_says_so():
    assert str(default_out(parse_deals("1-100"), THREE, SEARCHES)) == \
        "results/freecell_cells-3_states-100000_searches-only_1-100"


def test_solve_on_the_command_line(capsys):
    code, printed, _ = cli(capsys, "solve", OUT_OF_ROOM, "--cells", "3", "--searches-only", "--max-states", "100000")
    assert code == 3 and "unknown (states limit)" in printed

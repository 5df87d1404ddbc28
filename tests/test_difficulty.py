"""The fewest-cells search and the difficulty score: the search's logic on scripted
verdicts, published facts with the real solver, and --difficulty surveys end to end."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from fcsurvey import store
from fcsurvey.cli import main
from fcsurvey.deals import deal as make_deal
from fcsurvey.dealset import parse_deals
from fcsurvey.difficulty import EFFORT_DIGITS, decide, fewest_cells_allowed, min_cells, narrower_rules, score
from fcsurvey.limits import Limits
from fcsurvey.replay import validate
from fcsurvey.rules import MAX_CELLS, PRESETS, preset
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.solver import PHASES, PROOF, SEARCH, Result, solve
from fcsurvey.store import MANIFEST, StoreError
from fcsurvey.summary import summarize, summary_text
from fcsurvey.survey import Survey, default_out
from fcsurvey.task import ChunkTask, solve_chunk

from conftest import NEED_FOUR, NEED_NONE, golden_states

FREECELL = PRESETS["freecell"]


class Scripted:
    """A solver giving a fixed verdict per cell count, recording what it was asked."""

    def __init__(self, verdicts):
        self.verdicts, self.asked, self.proofs, self.timeouts = verdicts, [], [], []

    def __call__(self, deal, rules, limits, phases=PHASES):
        self.asked.append(rules.cells)
        self.timeouts.append(limits.timeout)
        if PROOF in phases:
            self.proofs.append(rules.cells)
        status = self.verdicts[rules.cells]
        states = 100 * (rules.cells + 1)
        if status == SOLVED:
            return Result(SOLVED, "1h", 1, 1, states, states, 0.01)
        limit = "states" if status == UNKNOWN else None
        return Result(status, None, 0, 0, states, states, 0.02, limit)


def verdicts(**by_cells):
    """Scripted verdicts: ``up_to`` (inclusive) unsolvable, ``solved_from`` on solved, any
    ``unknown`` counts in between."""
    return {k: by_cells.get(str(k), SOLVED if k >= by_cells["solved_from"] else UNSOLVABLE)
            for k in range(MAX_CELLS + 1)}


# --- the search --------------------------------------------------------------------------

def test_goes_down_from_the_configured_count_until_a_proof():
    solver = Scripted(verdicts(solved_from=2))
    found = min_cells(7, FREECELL, solve=solver)
    assert (found.min_cells, found.exact, found.limit, found.states) == (2, True, None, 300)
    assert solver.asked == [4, 3, 2, 1]


def test_goes_up_while_unsolvable():
    solver = Scripted(verdicts(solved_from=6))
    found = min_cells(7, FREECELL, solve=solver)
    assert (found.min_cells, found.exact) == (6, True)
    assert solver.asked == [4, 5, 6]


def test_reuses_the_verdict_it_is_given_and_times_only_the_rest():
    solver = Scripted(verdicts(solved_from=3))
    given_verdict = solver(7, FREECELL, Limits())
    solver.asked.clear()
    found = min_cells(7, FREECELL, solve=solver, known=given_verdict)
    assert solver.asked == [3, 2]
    assert found.verdicts[4] == given_verdict
    assert found.search_s == pytest.approx(0.01 + 0.02)


def test_an_undecided_count_is_stepped_over_and_a_win_below_it_settles():
    solver = Scripted(verdicts(solved_from=1, **{"2": UNKNOWN}))
    found = min_cells(7, FREECELL, solve=solver)
    assert (found.min_cells, found.exact, found.limit) == (1, True, None)
    # 2 cells: the searches, the two narrower rules' searches, then the layered proof
    assert solver.asked == [4, 3, 2, 2, 2, 2, 1, 0]
    assert solver.proofs == [2]


def test_an_undecided_count_just_below_the_win_is_recorded():
    solver = Scripted(verdicts(solved_from=3, **{"2": UNKNOWN}))
    found = min_cells(7, FREECELL, solve=solver)
    assert (found.min_cells, found.exact, found.limit) == (3, False, "states")
    assert found.difficulty == score(3, 400)
    assert found.verdicts[2].states == 4 * 300  # every attempt counted


def test_narrower_rules_allow_only_moves_the_rules_allow():
    assert narrower_rules(FREECELL) == [FREECELL.replace(sequence="single"),
                                        FREECELL.replace(empty_fill="kings")]
    assert narrower_rules(PRESETS["forecell"]) == [PRESETS["forecell"].replace(sequence="single")]
    assert narrower_rules(preset("freecell", sequence="single", empty_fill="none")) == []


def test_an_undecided_count_is_won_under_narrower_rules():
    one = preset("freecell", cells=1)  # deal 245: more positions than 200,000 to a win, fewer with single cards
    result = decide(245, one, Limits(max_states=200_000))  # single cards get 25,000
    assert result.status == SOLVED and validate(make_deal(245, one), one, result.solution).ok
    # The searches, then single cards.
    assert result.states == golden_states("deal 245, 1 cell, decide, max_states 200000")


def test_a_winnable_deal_is_won_under_narrower_rules_before_any_layered_proof():
    # 9608 with one cell: the complete search finds no win in the room, and a layered proof,
    # which keeps no paths, would go on for hours only to end unknown.  Single cards win first.
    one, asked = preset("freecell", cells=1), []

    def spy(deal, rules, limits, phases):
        result = solve(deal, rules, limits, phases=phases)
        asked.append((rules.sequence, limits.max_states, phases, result.status, result.states))
        return result

    result = decide(9608, one, Limits(max_states=2_400_000), spy)
    golden = "deal 9608, 1 cell, decide, max_states 2400000"
    assert asked == [("limited", 2_400_000, (SEARCH,), UNKNOWN, golden_states(golden, "searches")),
                     ("single", 300_000, (SEARCH,), SOLVED, golden_states(golden, "single-card searches"))]
    assert result.status == SOLVED and validate(make_deal(9608, one), one, result.solution).ok
    assert result.states == golden_states(golden)


def full_rules_find_no_win(deal, rules, limits, phases=PHASES):
    """The real solver, except that where sequence moves are allowed its searches find no
    win and its proof gives up, as they do for 9608 with one cell."""
    if rules.sequence == "single":
        return solve(deal, rules, limits, phases=phases)
    return Result(UNKNOWN, None, 0, 0, 1_000, 1_000, 0.01, "states")


def test_a_difficulty_survey_takes_a_narrower_win_as_the_deals_own_verdict():
    task = ChunkTask(((1, 1),), FREECELL, Limits(max_states=80_000), True,
                     "test_difficulty:full_rules_find_no_win", difficulty=True)
    [row] = solve_chunk(task)
    assert row["status"] == SOLVED and validate(make_deal(1, FREECELL), FREECELL, row["solution"]).ok
    single = solve(1, FREECELL.replace(sequence="single"), Limits(max_states=10_000), phases=(SEARCH,))
    assert (row["moves"], row["states"]) == (single.moves, 1_000 + single.states)


def test_each_attempt_gets_the_time_the_ones_before_it_left():
    solver = Scripted(verdicts(solved_from=3, **{"2": UNKNOWN}))  # each attempt takes 0.02 s
    decide(7, preset("freecell", cells=2), Limits(timeout=0.07), solver)
    assert solver.asked == [2, 2, 2, 2] and solver.proofs == [2]
    assert solver.timeouts == pytest.approx([0.07, 0.05, 0.03, 0.01])
    solver = Scripted(verdicts(solved_from=3, **{"2": UNKNOWN}))
    result = decide(7, preset("freecell", cells=2), Limits(timeout=0.05), solver)
    assert solver.asked == [2, 2, 2] and solver.proofs == []  # 0.06 s gone: no proof
    assert (result.status, result.limit, result.states) == (UNKNOWN, "time", 3 * 300)


def test_a_narrower_win_that_does_not_replay_is_not_believed():
    asked = []

    def solver(deal, rules, limits, phases=PHASES):
        asked.append(phases)
        if rules != two:  # a narrower game "won" with one token
            return Result(SOLVED, "1h", 1, 1, 100, 100, 0.01)
        return Result(UNKNOWN, None, 0, 0, 100, 100, 0.01, "states")

    two = preset("freecell", cells=2)
    result = decide(7, two, solve=solver)
    assert (result.status, result.limit) == (UNKNOWN, "states")
    assert asked == [(SEARCH,), (SEARCH,), (SEARCH,), (PROOF,)]  # both refused, then the proof


def test_no_win_with_any_count():
    solver = Scripted({k: UNSOLVABLE for k in range(MAX_CELLS + 1)})
    found = min_cells(7, FREECELL, solve=solver)
    assert (found.min_cells, found.exact, found.difficulty) == (None, True, None)
    assert solver.asked == list(range(4, MAX_CELLS + 1))


def test_stops_at_the_fewest_cells_the_layout_allows():
    forecell = PRESETS["forecell"]  # deals four cards into the four cells
    assert fewest_cells_allowed(forecell) == 4 and fewest_cells_allowed(FREECELL) == 0
    solver = Scripted(verdicts(solved_from=0))
    found = min_cells(7, forecell, solve=solver)
    assert (found.min_cells, found.exact) == (4, True)
    assert solver.asked == [4]


# --- the score -----------------------------------------------------------------------------

@given(st.integers(0, MAX_CELLS - 1), st.integers(1, 2 ** 40), st.integers(1, 2 ** 40))
def test_score_is_monotone_in_min_cells_and_in_effort(cells, states, more):
    assert score(cells, states) < score(cells + 1, 1)
    assert cells <= score(cells, states) < cells + 1
    assert score(cells, states) <= score(cells, states + more)


def test_score_is_min_cells_plus_log_effort():
    assert score(2, 10 ** 5) == 2 + 5 / EFFORT_DIGITS
    assert score(0, 1) == 0


# --- published facts with the real solver --------------------------------------------------

@pytest.mark.parametrize("deal, cells", [(d, 0) for d in NEED_NONE] + [(d, 4) for d in NEED_FOUR]
                         + [(11982, 5)])
def test_published_fewest_cells(deal, cells):
    found = min_cells(deal, FREECELL)
    assert (found.min_cells, found.exact) == (cells, True)
    assert found.verdicts[cells].status == SOLVED
    if cells:
        assert found.verdicts[cells - 1].status == UNSOLVABLE


def test_a_win_only_narrower_rules_find_in_budget_settles_min_cells():
    """Deal 245 with 1 cell: no win in the searches' room of 200,000, one with single-card
    moves; 0 cells are proven unsolvable in 200."""
    found = min_cells(245, FREECELL, Limits(max_states=200_000))
    assert (found.min_cells, found.exact) == (1, True)
    assert found.verdicts[1].states == golden_states("deal 245, 1 cell, decide, max_states 200000")


def test_three_cells_configured_searches_up_to_four():
    found = min_cells(617, preset("freecell", cells=3))
    assert (found.min_cells, found.exact) == (4, True)
    assert sorted(found.verdicts) == [3, 4]


# --- --difficulty surveys ------------------------------------------------------------------

DEALS = ",".join(map(str, NEED_NONE + NEED_FOUR[:3] + (11982,))) + ",1-6"


@pytest.fixture(scope="module")
def surveyed(tmp_path_factory):
    out = tmp_path_factory.mktemp("difficulty") / "out"
    Survey(parse_deals(DEALS), out, workers=2, chunk_size=4, difficulty=True).run()
    return out


def test_difficulty_columns_and_rank(surveyed):
    table = store.read(surveyed)
    assert table.schema.names == store.DIFFICULTY_SCHEMA.names + [store.DIFFICULTY_RANK, store.BAND]
    rows = {r["deal"]: r for r in table.to_pylist()}
    assert {d: rows[d]["min_cells"] for d in (164, 892, 169, 178, 285, 11982)} == \
        {164: 0, 892: 0, 169: 4, 178: 4, 285: 4, 11982: 5}
    assert all(r["min_cells_exact"] and r["min_cells_limit"] is None for r in rows.values())
    assert rows[11982]["difficulty_rank"] == 1
    by_rank = sorted(rows.values(), key=lambda r: r["difficulty_rank"])
    assert [r["difficulty"] for r in by_rank] == sorted((r["difficulty"] for r in rows.values()), reverse=True)
    assert all(r["difficulty"] == score(r["min_cells"], r["min_cells_states"]) for r in rows.values())
    assert rows[169]["status"] == SOLVED and rows[11982]["status"] == UNSOLVABLE


def test_summary_shows_the_distribution(surveyed):
    summary = summarize(surveyed)
    assert summary["difficulty"]["min_cells"] == {"0": 2, "1": 2, "2": 2, "3": 2, "4": 3, "5": 1}
    assert summary["difficulty"]["inexact"] == {"count": 0, "items": []}
    assert summary["difficulty"]["hardest"][0] == {"deal": 11982, "difficulty": summary["difficulty"]["score"]["max"],
                                                   "min_cells": 5}
    text = summary_text(summary)
    assert "Min cells   0: 2, 1: 2, 2: 2, 3: 2, 4: 3, 5: 1; all proven\n" in text
    assert "; hardest: 11982 (" in text and "more finding the fewest cells" in text
    json.dumps(summary)


def test_modes_do_not_mix(surveyed, capsys):
    with pytest.raises(StoreError, match=r"difficulty true \(dataset\) vs false \(asked\)"):
        Survey(parse_deals("1"), surveyed)
    with pytest.raises(SystemExit) as stop:
        main(["survey", "1-3", "--out", str(surveyed)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and "difficulty true (dataset) vs false (asked)" in err
    assert err.count("\n") == 1


def test_plain_dataset_from_before_the_mode_still_resumes(tmp_path):
    out = tmp_path / "out"
    Survey(parse_deals("1-2"), out, workers=1).run()
    manifest = json.loads((out / MANIFEST).read_text())
    del manifest["difficulty"]  # as written before --difficulty existed
    (out / MANIFEST).write_text(json.dumps(manifest))
    job = Survey(parse_deals("1-3"), out, workers=1)
    assert job.todo == 1
    job.run()
    assert store.read(out).schema.names == store.SCHEMA.names
    assert summarize(out)["difficulty"] is None
    with pytest.raises(StoreError, match="difficulty false"):
        Survey(parse_deals("1-3"), out, difficulty=True)


def test_default_out_names_the_mode():
    assert str(default_out(parse_deals("1-32000"), FREECELL, Limits(), difficulty=True)) == \
        "results/freecell_difficulty_1-32000"

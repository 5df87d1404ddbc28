"""Per-phase counts: what each phase of a solve stored (or visited) and how long it took.

A solve's phases are the greedy tries, the complete search, the interlude, the last try
and the layered proof (fcsurvey/_core/search.h); their positions add up to ``states``.
"""

from __future__ import annotations

import json

from fcsurvey.rules import preset
from fcsurvey.solver import COUNTED_PHASES, Limits, solve

from conftest import golden_phases, run_cli


def states_by_phase(phases: dict) -> dict:
    return {name: phases[name]["states"] for name in COUNTED_PHASES}


def test_solve_json_prints_per_phase_positions_that_add_up_to_states() -> None:
    # 1-cell deal 1706 is unsolvable: the greedy tries give up, the complete search stores
    # 100,000 positions, the interlude runs dry, and the complete search goes on to the proof.
    result = run_cli("solve", "1706", "--cells", "1", "--json")
    assert result.returncode == 1, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["status"] == "unsolvable"
    assert list(verdict["phase_counts"]) == list(COUNTED_PHASES)
    assert states_by_phase(verdict["phase_counts"]) == golden_phases("deal 1706, 1 cell")
    assert sum(states_by_phase(verdict["phase_counts"]).values()) == verdict["states"]
    assert verdict["phase_counts"]["complete_search"]["time_s"] > 0
    assert verdict["phase_counts"]["layered_proof"]["time_s"] == 0


def test_the_layered_proof_visits_what_the_complete_search_stores_with_room() -> None:
    # With room for 50,000 positions the complete search runs out, the last try gets its
    # eighth of the room, and the layered proof visits every reachable position: exactly the
    # 2,365,759 the complete search stores when it has the room.
    result = solve(1706, preset("freecell", cells=1), Limits(max_states=50_000), replay=False)
    assert result.status == "unsolvable"
    counts = {name: phase.states for name, phase in result.phase_counts.items()}
    assert counts == golden_phases("deal 1706, 1 cell, max_states 50000")
    assert counts["layered_proof"] == golden_phases("deal 1706, 1 cell")["complete_search"]
    assert sum(counts.values()) == result.states
    assert result.phase_counts["layered_proof"].time_s > 0


def test_a_deal_the_first_greedy_try_wins_counts_only_there() -> None:
    result = solve(1, replay=False)
    assert result.status == "solved"
    assert result.phase_counts["greedy_tries"].states == result.states == golden_phases("deal 1, freecell")["greedy_tries"]
    assert all(result.phase_counts[name].states == 0 for name in COUNTED_PHASES[1:])
    assert all(result.phase_counts[name].time_s == 0 for name in COUNTED_PHASES[1:])


def test_the_complete_search_wins_after_the_interlude_runs_dry() -> None:
    # 3 cells, single-card moves, deal 253 (tests/test_solver.py has its verdict).
    result = solve(253, preset("freecell", cells=3, sequence="single"), replay=False)
    assert result.status == "solved"
    counts = {name: phase.states for name, phase in result.phase_counts.items()}
    assert counts == golden_phases("deal 253, 3 cells, single cards")
    assert sum(counts.values()) == result.states

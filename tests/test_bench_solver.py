"""scripts/bench_solver.py, on tiny inputs: its lengths are the solver's own, and every rate comes
by the wall clock and by CPU time (on a shared machine only the second compares)."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from fcsurvey.limits import DEFAULT_LENGTH, SHORT_LENGTH
from test_short import DEFAULT_1_20, SHORT_1_20

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_solver.py"
SPEC = importlib.util.spec_from_file_location("bench_solver", SCRIPT)
bench = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench)


@pytest.mark.parametrize("mode, expected", [(DEFAULT_LENGTH, DEFAULT_1_20[:3]), (SHORT_LENGTH, SHORT_1_20[:3])])
def test_lengths_are_the_solvers_with_both_rates(mode, expected):
    found, wall_rate, cpu_rate = bench.lengths(mode, 3)
    assert found == expected
    assert wall_rate > 0 and cpu_rate > 0


def test_length_line_judges_the_mean_against_the_target():
    line = bench.length_line("fcsurvey short", [77, 79], 10.0, 27.5, 78)
    assert re.search(r"mean  78\.00  max   79 +10\.0 deals/s, +27\.5 per CPU second  \(target mean <= 78: PASS\)",
                     line)
    assert line.endswith("PASS)")
    assert bench.length_line("x", [80], 1.0, 2.0, 78).endswith("FAIL)")


def test_optimal_runs_prove_par_in_child_processes_and_the_line_sums_them_up():
    runs, wall_s = bench.optimal_runs([2, 3], 20_000_000)
    assert [r.par for r in runs] == [73, 70]  # docs/known-results.md, "Proven par"
    assert all(r.cpu_s > 0 and r.peak_mb > 0 for r in runs) and wall_s > 0
    line = bench.optimal_line([bench.Run(73, 1.0, 90.0), bench.Run(None, 3.0, 300.0)], 8.0)
    assert line == "  proved 1 of 2, mean par 73.00; a deal: 4.0 s wall, 2.0 CPU s; peak memory of a solve 300 MB"


@pytest.mark.skipif(shutil.which(bench.FC_SOLVE_RANGE) is None, reason="fc-solve not installed")
def test_fc_solve_rate_counts_its_cpu_as_a_child():
    wall_rate, cpu_rate = bench.fc_solve_rate(1, 20)
    assert wall_rate > 0 and cpu_rate > 0

"""scripts/bench_proof.py, on tiny inputs: its figures are the solver's and fc-solve's own."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fcsurvey.rules import preset
from fcsurvey.schema import SOLVED
from fcsurvey.solver import solve

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_proof.py"
FIGURES = re.compile(r"wall ([\d,.]+) s \| cpu ([\d,.]+) s \| positions ([\d,]+) \| ([\d,]+)/s \| peak RSS (\S+) MiB")


def bench(*args: str) -> str:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          check=True).stdout


def part(out: str, name: str) -> list:
    """The verdict line and the figures line of part name."""
    lines = out.splitlines()
    at = next(i for i, text in enumerate(lines) if text.startswith(f"({name}) "))
    return lines[at:at + 2]


def test_proofs_and_survey_report_the_solver_figures():
    # Deal 11982 stands in for the three long proofs; 2-cell deals 1-4 for the survey.
    out = bench("--part", "a", "c", "d", "--deal", "11982", "--deals", "1-4", "--cap-s", "120")
    for name, cells in (("a", 2), ("c", 4)):
        result = solve(11982, preset("freecell", cells=cells), replay=False)
        verdict, figures = part(out, name)
        assert verdict == f"({name}) {cells}-cell deal 11982: {result.status}"
        assert f"positions {result.states:,} |" in figures
        assert float(FIGURES.search(figures).group(5)) > 0  # the solve's RSS, sampled
    two = [solve(n, preset("freecell", cells=2), replay=False).status for n in range(1, 5)]
    verdict, figures = part(out, "d")
    assert verdict == (f"(d) 2-cell deals 1-4, survey, 2 workers: 0 undecided ({4 - two.count(SOLVED)} unsolvable, "
                       f"{two.count(SOLVED)} solved, 4 of 4 written)")
    assert "all processes" in figures


def test_a_proof_stopped_at_the_cap_reports_how_far_it_got():
    verdict, figures = part(bench("--part", "a", "--cap-s", "1"), "a")
    assert verdict == "(a) 2-cell deal 982: not finished after 1 s (unknown (time limit))"
    figures = FIGURES.search(figures)
    assert int(figures.group(3).replace(",", "")) > 0 and float(figures.group(2)) > 0


@pytest.mark.skipif(shutil.which("freecell-solver-range-parallel-solve") is None, reason="fc-solve not installed")
def test_fc_solve_counts_the_deals_its_cap_leaves_undecided():
    # With 2 cells and 100,000 iterations a deal, fc-solve's atomic scan decides deals 2-5, not 1.
    out = bench("--part", "e", "--deals", "1-5", "--fc-caps", "1000", "100000")
    lines = out.splitlines()
    assert "(e) fc-solve 1-5, 2 cells, atomic, --max-iters 1,000: 5 undecided (5 at the cap, 0 unsolvable, 0 solved)" in lines
    assert "(e) fc-solve 1-5, 2 cells, atomic, --max-iters 100,000: 1 undecided (1 at the cap, 0 unsolvable, 4 solved)" in lines
    figures = [text for text in lines if text.startswith("    wall ")]
    assert figures[0].endswith("| at the cap: 1,2,3,4,5") and figures[1].endswith("| at the cap: 1")


def test_threads_run_the_proof_alone_on_one_thread_and_on_n():
    out = bench("--part", "b", "--deal", "27", "--cap-s", "120", "--threads", "2")
    alone = solve(27, preset("freecell", cells=1), phases=("proof",))
    verdicts = [text for text in out.splitlines() if text.startswith("(b) ")]
    assert verdicts[1:] == [f"(b) 1-cell deal 27, layered proof alone, {n}: {alone.status}"
                            for n in ("1 thread", "2 threads")]
    assert out.count(f"positions {alone.expanded:,} |") == 2
    assert "    2 threads against 1: positions/s x" in out


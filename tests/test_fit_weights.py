"""scripts/fit_weights.py on a tiny range: it starts from tuning.h's greedy weights, keeps only
steps that lower its objective, and reports the start and the fit on the check range."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from fcsurvey.solver import WEIGHT_NAMES

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fit_weights.py"
TUNED_GREEDY = [1, 3, 4, 0, 7, 6, 1, 1, 3]  # fcsurvey/_core/tuning.h, WEIGHTS, first column


def test_the_fit_only_takes_steps_that_lower_the_objective():
    out = subprocess.run([sys.executable, str(SCRIPT), "--deals", "1-5", "--steps", "2", "--check", "6-8"],
                         check=True, capture_output=True, text=True).stdout
    steps = re.findall(r"\[([\d, ]+)\] objective ([\d.]+)", out)
    weights = [[int(w) for w in text.split(",")] for text, _ in steps]
    objectives = [float(value) for _, value in steps]
    assert weights[0] == TUNED_GREEDY and len(weights[0]) == len(WEIGHT_NAMES)
    assert len(steps) >= 2 and all(b < a for a, b in zip(objectives, objectives[1:]))
    assert all(sum(x != y for x, y in zip(a, b)) == 1 for a, b in zip(weights, weights[1:]))  # one weight a step
    checks = re.findall(r"^deals 6-8, (start|fit): .*: mean ([\d.]+) tokens, (\d+) positions, 0 not solved", out, re.M)
    assert [name for name, _, _ in checks] == ["start", "fit"]


@pytest.mark.parametrize("args, named", [(["--deals", "x"], "--deals"), (["--start", "1,2"], "--start"),
                                         (["--steps", "0"], "--steps"), (["--check", "5-1"], "--check")])
def test_bad_arguments_are_one_error_line_and_exit_2(args, named):
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"fit_weights.py: error: argument {named}: ")

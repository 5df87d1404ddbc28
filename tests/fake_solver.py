"""Test stand-in for fcsurvey.solver.solve: instant verdicts that depend only on the deal.

Used (as ``fake_solver:solve``, with this directory on the path) where a test needs
verdicts the real solver does not give on small deals, or needs a survey slow enough to
stop mid-run: ``FAKE_SOLVER_DELAY`` seconds are slept per deal.
"""

from __future__ import annotations

import os
import time

from fcsurvey.limits import Limits
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.solver import Result

UNSOLVABLE_DEALS = {11982, 146692}
UNKNOWN_EVERY = 97   # deals divisible by this end as unknown (states limit)
RAISE_DEAL = 4242    # the solver raises on this deal


def solve(deal: int, rules: object = None, limits: Limits = Limits(), **_checkpoints: object) -> Result:
    time.sleep(float(os.environ.get("FAKE_SOLVER_DELAY", 0)))
    if deal == RAISE_DEAL:
        raise RuntimeError("fake solver failure")
    states = deal % 1000 + 1
    if deal in UNSOLVABLE_DEALS:
        return Result(UNSOLVABLE, None, 0, 0, states, states, 0.001)
    if deal % UNKNOWN_EVERY == 0:
        return Result(UNKNOWN, None, 0, 0, limits.max_states, states, 0.002, "states")
    moves = 20 + deal % 50
    solution = " ".join(f"{1 + (deal + i) % 8}h" for i in range(moves))
    return Result(SOLVED, solution, moves, moves + deal % 7, states, states, 0.0005)

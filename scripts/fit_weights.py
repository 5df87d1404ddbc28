"""Fit the greedy searches' weights (tuning.h, WEIGHTS, first column) by coordinate descent.

Run from a checkout with the package installed:

    python scripts/fit_weights.py                          # fit on deals 1001-9000 from tuning.h's
    python scripts/fit_weights.py --start 1,3,4,0,7,6,1,1,3 --check 1-1000

The objective is the total of solution tokens plus ``--per-position`` times the positions
stored, over the 4-cell deals of ``--deals``, every solve with the default limits and no
replay (the weights change which line a search finds and how soon, never a verdict): both
halves matter, so a fit does not buy shorter solutions with a slower search or the
reverse.  Positions, not seconds, because they are exact, where CPU time on a shared
machine moves by 10% from run to run; a large range because a few deals that need the
longer tries hold a third of the positions, so a small one fits to them.  One weight at
a time goes up or down by each step in turn, kept when the objective falls, until no step
does (docs/solver.md, "Greedy weights refitted").  The weights are put in force at run
time (``fcsurvey.solver.set_weights``), so no rebuild is needed.
"""

from __future__ import annotations

import argparse
import time
from typing import Dict, List, Sequence, Tuple

from fcsurvey._core import _fccore
from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS
from fcsurvey.schema import SOLVED
from fcsurvey.solver import WEIGHT_NAMES, set_weights, solve_position


def weights_text(values: Sequence[int]) -> str:
    """The greedy weight set as FCSURVEY_WEIGHTS takes it."""
    return ",".join(f"greedy.{name}={value}" for name, value in zip(WEIGHT_NAMES, values))


def measure(values: Sequence[int], positions: Sequence[Position]) -> Tuple[int, int, int, float]:
    """Tokens of the solutions, positions stored, deals not solved and CPU seconds of the
    solves of ``positions`` with the greedy weights ``values``."""
    rules = PRESETS["freecell"]
    set_weights(weights_text(values))
    tokens = states = unsolved = 0
    cpu = time.process_time()
    for position in positions:
        result = solve_position(position, rules, Limits(), replay=False)
        states += result.states
        if result.status == SOLVED:
            tokens += result.moves
        else:
            unsolved += 1
    return tokens, states, unsolved, time.process_time() - cpu


def deal_range(text: str) -> List[Position]:
    """The 4-cell layouts of deals FIRST-LAST (or one deal)."""
    first, _, last = text.partition("-")
    try:
        numbers = range(int(first), int(last or first) + 1)
        return [Position.from_deal(deal(n, PRESETS["freecell"])) for n in numbers] or _bad(text)
    except ValueError:
        return _bad(text)


def _bad(text: str) -> List[Position]:
    raise argparse.ArgumentTypeError(f"{text!r} is not a range of deal numbers FIRST-LAST")


def int_list(length: int = 0, least: int = 0):
    """An argparse type: comma-separated integers, at least ``least`` each (and ``length`` of
    them when given)."""
    def parse(text: str) -> List[int]:
        try:
            values = [int(v) for v in text.split(",")]
        except ValueError:
            values = []
        if not values or min(values) < least or (length and len(values) != length):
            count = f"{length} " if length else ""
            raise argparse.ArgumentTypeError(f"{text!r} is not {count}comma-separated integers >= {least}")
        return values
    return parse


def fit(start: Sequence[int], positions: Sequence[Position], per_position: float,
        steps: Sequence[int]) -> List[int]:
    """Coordinate descent from ``start``; prints each kept step and returns the weights."""
    seen: Dict[Tuple[int, ...], float] = {}

    def objective(values: Sequence[int]) -> float:
        key = tuple(values)
        if key not in seen:
            tokens, states, unsolved, _ = measure(values, positions)
            # A deal the searches leave unsolved is worse than any length (it has none).
            seen[key] = tokens + per_position * states + 10**6 * unsolved
        return seen[key]

    best, values = objective(start), list(start)
    print(f"start {values} objective {best:.1f}", flush=True)
    improved = True
    while improved:
        improved = False
        for step in steps:
            for i, name in enumerate(WEIGHT_NAMES):
                for change in (step, -step):
                    trial = list(values)
                    trial[i] += change
                    if trial[i] < 0:
                        continue
                    value = objective(trial)
                    if value < best:
                        best, values, improved = value, trial, True
                        print(f"  {name} {change:+d}: {values} objective {best:.1f}", flush=True)
    return values


def report(label: str, values: Sequence[int], positions: Sequence[Position]) -> None:
    tokens, states, unsolved, cpu = measure(values, positions)
    solved = len(positions) - unsolved
    print(f"{label}: {weights_text(values)}: mean {tokens / max(solved, 1):.3f} tokens, "
          f"{states:,} positions, {unsolved} not solved, {cpu:.2f} CPU s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=deal_range, default="1001-9000", help="training deals FIRST-LAST")
    parser.add_argument("--per-position", type=float, default=0.05,
                        help="objective: tokens + this times positions stored")
    parser.add_argument("--steps", type=int_list(least=1), default="1,2", help="step sizes, in the order tried")
    parser.add_argument("--start", type=int_list(len(WEIGHT_NAMES)), help="first weights, comma-separated in tuning.h's order "
                                        "(default: tuning.h's greedy weights)")
    parser.add_argument("--check", action="append", default=[], help="deals FIRST-LAST to report start "
                                                                      "and fit on (repeatable)")
    args = parser.parse_args()
    for text in args.check:  # refused before the fit starts, not after it
        try:
            deal_range(text)
        except argparse.ArgumentTypeError as exc:
            parser.error(f"argument --check: {exc}")
    start = args.start or list(_fccore.weights(True)[0])
    values = fit(start, args.deals, args.per_position, args.steps)
    for text in args.check:
        positions = deal_range(text)
        report(f"deals {text}, start", start, positions)
        report(f"deals {text}, fit", values, positions)


if __name__ == "__main__":
    main()

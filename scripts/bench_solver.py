"""Solver benchmark: fcsurvey's single-process speed side by side with fc-solve.

Run from a checkout with the package installed:

    python scripts/bench_solver.py                 # deals 1-32000, the full report
    python scripts/bench_solver.py --last 2000     # a quicker look

It prints, from one run on this machine: fcsurvey's deals/s over the range
with 4 free cells (solve, verdict and solution text replayed by the Python
engine, one process; and the search alone, without the replay), the same
range through ``freecell-solver-range-parallel-solve FIRST LAST 1 -l lg`` when
fc-solve is installed (Debian package freecell-solver-bin) and the ratio;
mean and max solution length over deals 1-1000; time and positions to prove
deal 11982 unsolvable; and the peak resident memory of this process.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import time

from fcsurvey.rules import PRESETS
from fcsurvey.schema import SOLVED, UNSOLVABLE
from fcsurvey.solver import solve

FC_SOLVE_RANGE = "freecell-solver-range-parallel-solve"
TARGET_RATIO = 1.0
TARGET_MEAN_MOVES = 100
LENGTH_SAMPLE = range(1, 1001)


def fcsurvey_rate(first: int, last: int, replay: bool = True) -> tuple[float, dict]:
    """Deals per second solving first..last in this process, and status counts."""
    rules = PRESETS["freecell"]
    counts: dict = {}
    start = time.perf_counter()
    for number in range(first, last + 1):
        status = solve(number, rules, replay=replay).status
        counts[status] = counts.get(status, 0) + 1
    return (last - first + 1) / (time.perf_counter() - start), counts


def fc_solve_rate(first: int, last: int) -> float | None:
    """Deals per second of fc-solve's lg preset on one process, or None."""
    if shutil.which(FC_SOLVE_RANGE) is None:
        return None
    start = time.perf_counter()
    subprocess.run([FC_SOLVE_RANGE, str(first), str(last), "1", "-l", "lg"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (last - first + 1) / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first", type=int, default=1)
    parser.add_argument("--last", type=int, default=32000)
    args = parser.parse_args()
    if not 1 <= args.first <= args.last:
        parser.error("need 1 <= --first <= --last")

    ours, counts = fcsurvey_rate(args.first, args.last)
    print(f"fcsurvey: deals {args.first}-{args.last}, 4 cells, one process, every solution replayed "
          f"by the Python engine: {ours:,.0f} deals/s {counts}")
    search_only, _ = fcsurvey_rate(args.first, args.last, replay=False)
    print(f"fcsurvey search alone (solve(replay=False), the C core's share): {search_only:,.0f} deals/s")
    theirs = fc_solve_rate(args.first, args.last)
    if theirs is None:
        print(f"fc-solve: {FC_SOLVE_RANGE} not installed (apt-get install freecell-solver-bin); no ratio")
    else:
        ratio = ours / theirs
        print(f"fc-solve -l lg, same range, one process: {theirs:,.0f} deals/s")
        print(f"ratio fcsurvey / fc-solve: {ratio:.2f} (target >= {TARGET_RATIO}: "
              f"{'PASS' if ratio >= TARGET_RATIO else 'FAIL'}); search alone: {search_only / theirs:.2f}")

    lengths = [r.moves for r in (solve(n) for n in LENGTH_SAMPLE) if r.status == SOLVED]
    mean = statistics.mean(lengths)
    print(f"solution length over deals 1-1000: mean {mean:.1f}, max {max(lengths)} moves "
          f"(target mean <= {TARGET_MEAN_MOVES}: {'PASS' if mean <= TARGET_MEAN_MOVES else 'FAIL'})")

    proof = solve(11982)
    print(f"deal 11982: {proof.status} in {proof.elapsed_s:.3f} s, {proof.states:,} positions stored "
          f"({proof.expanded:,} expanded)")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0 if proof.status == UNSOLVABLE else 1


if __name__ == "__main__":
    sys.exit(main())

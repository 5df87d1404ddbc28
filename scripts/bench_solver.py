"""Solver benchmark: fcsurvey's single-process speed side by side with fc-solve.

Run from a checkout with the package installed:

    python scripts/bench_solver.py                 # deals 1-32000, the full report
    python scripts/bench_solver.py --last 2000     # a quicker look

It prints, from one run on this machine: fcsurvey's deals/s over the range
with 4 free cells (solve, verdict and solution text replayed by the Python
engine, one process; and the search alone, without the replay), the same
range through ``freecell-solver-range-parallel-solve FIRST LAST 1 -l lg`` when
fc-solve is installed (Debian package freecell-solver-bin) and the ratio; side
by side over deals 1-1000 (``--length-deals``), mean and max solution length
and deals/s of the default mode, of ``--short``, and of fc-solve's ``-l lg``
solutions (its moves counted as ours are: one a line, every foundation move
written); over deals 1-100 (``--optimal-deals``), ``fcsurvey solve N --optimal``
one deal at a time in a child process: the deals whose par it proved, the mean
par, the mean time a deal and the largest peak memory of a solve; time and
positions to prove deal 11982 unsolvable; and the peak resident memory of this
process.

Every rate is given by the wall clock and by CPU time (this process's, or
fc-solve's as its child): on a shared machine the wall clock counts the time
other processes took, so the CPU rates are the ones that say what one core
does, and the CPU ratio is the one that compares the two solvers; the load
average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Sequence, Tuple

from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.limits import DEFAULT_LENGTH, SHORT_LENGTH, Limits
from fcsurvey.notation import format_board
from fcsurvey.rules import PRESETS
from fcsurvey.schema import SOLVED, UNSOLVABLE
from fcsurvey.solver import solve

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench_optimal, beside this script
from bench_optimal import Run, finish, start  # noqa: E402

FC_SOLVE_RANGE = "freecell-solver-range-parallel-solve"
FC_SOLVE = "fc-solve"
TARGET_RATIO = 1.0
#: Issue 28's targets: mean tokens over deals 1-1000 by mode, and --short's least speed.
TARGET_MEAN_MOVES = {DEFAULT_LENGTH: 85, SHORT_LENGTH: 78}
TARGET_SHORT_RATE = 20.0
LENGTH_DEALS = 1000
#: --optimal over deals 1..OPTIMAL_DEALS, at OPTIMAL_MAX_STATES positions a deal: the most deals
#: 1-100 need (deal 37: 3.4 GB peak; docs/known-results.md, "Proven par").
OPTIMAL_DEALS = 100
OPTIMAL_MAX_STATES = 150_000_000


def children_cpu() -> float:
    """CPU seconds the waited-for child processes of this one have taken so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load() -> str:
    """The load average, 1/5/15 min."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def fcsurvey_rate(first: int, last: int, replay: bool = True) -> Tuple[float, float, dict]:
    """Deals per wall second and per CPU second solving first..last in this process, and
    status counts."""
    rules = PRESETS["freecell"]
    counts: dict = {}
    start, cpu = time.perf_counter(), time.process_time()
    for number in range(first, last + 1):
        status = solve(number, rules, replay=replay).status
        counts[status] = counts.get(status, 0) + 1
    deals = last - first + 1
    return deals / (time.perf_counter() - start), deals / (time.process_time() - cpu), counts


def fc_solve_rate(first: int, last: int) -> Optional[Tuple[float, float]]:
    """Deals per wall second and per CPU second of fc-solve's lg preset on one process, or None."""
    if shutil.which(FC_SOLVE_RANGE) is None:
        return None
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run([FC_SOLVE_RANGE, str(first), str(last), "1", "-l", "lg"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deals = last - first + 1
    return deals / (time.perf_counter() - start), deals / (children_cpu() - cpu)


def lengths(mode: str, last: int) -> Tuple[List[int], float, float]:
    """Solution lengths (tokens) of deals 1..last solved in ``mode``, replayed, and deals per
    wall second and per CPU second."""
    start, cpu = time.perf_counter(), time.process_time()
    found = [r.moves for r in (solve(n, limits=Limits(length=mode)) for n in range(1, last + 1))
             if r.status == SOLVED]
    return found, last / (time.perf_counter() - start), last / (time.process_time() - cpu)


def fc_solve_lengths(last: int) -> Optional[Tuple[List[int], float, float]]:
    """fc-solve ``-l lg`` solution lengths of deals 1..last (its printed moves, one a token as
    ours: a sequence move is one line, every foundation move is printed) and deals per wall
    and per CPU second (its processes' own), or None."""
    if shutil.which(FC_SOLVE) is None:
        return None
    rules, found, spent, cpu = PRESETS["freecell"], [], 0.0, children_cpu()
    with tempfile.NamedTemporaryFile("w", suffix=".board") as board:
        for number in range(1, last + 1):
            board.seek(0)
            board.truncate()
            board.write(format_board(Position.from_deal(deal(number, rules)), rules) + "\n")
            board.flush()
            start = time.perf_counter()
            out = subprocess.run([FC_SOLVE, "-l", "lg", "-m", board.name], check=False,
                                 capture_output=True, text=True).stdout
            spent += time.perf_counter() - start
            if "This game is solveable" in out:
                found.append(sum(1 for line in out.splitlines() if line.startswith("Move")))
    return found, last / spent, last / (children_cpu() - cpu)


def length_line(name: str, found: List[int], rate: float, cpu_rate: float, target: Optional[int] = None) -> str:
    line = (f"  {name:<22} mean {statistics.mean(found):6.2f}  max {max(found):4d}  {rate:8,.1f} deals/s, "
            f"{cpu_rate:8,.1f} per CPU second")
    if target is not None:
        line += f"  (target mean <= {target}: {'PASS' if statistics.mean(found) <= target else 'FAIL'})"
    return line


def optimal_runs(deals: Sequence[int], max_states: int) -> Tuple[List[Run], float]:
    """``fcsurvey solve N --optimal`` of each deal, one child process at a time (so that the
    kernel gives each solve's CPU time and peak memory), and the wall seconds they took."""
    command = shutil.which("fcsurvey", path=os.path.dirname(sys.executable)) or "fcsurvey"
    runs, started = [], time.perf_counter()
    for number in deals:
        runs.append(finish(start(command, number, max_states, None)))
    return runs, time.perf_counter() - started


def optimal_line(runs: List[Run], wall_s: float) -> str:
    proved = [r.par for r in runs if r.par is not None]
    mean = f"{statistics.mean(proved):.2f}" if proved else "-"
    return (f"  proved {len(proved)} of {len(runs)}, mean par {mean}; a deal: {wall_s / len(runs):.1f} s wall, "
            f"{sum(r.cpu_s for r in runs) / len(runs):.1f} CPU s; peak memory of a solve "
            f"{max(r.peak_mb for r in runs):,.0f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first", type=int, default=1)
    parser.add_argument("--last", type=int, default=32000)
    parser.add_argument("--length-deals", type=int, default=LENGTH_DEALS,
                        help="deals 1..N for the solution lengths side by side")
    parser.add_argument("--optimal-deals", type=int, default=OPTIMAL_DEALS,
                        help="deals 1..N for --optimal's par (0: leave it out)")
    parser.add_argument("--optimal-max-states", type=int, default=OPTIMAL_MAX_STATES,
                        help="each --optimal solve's --max-states")
    args = parser.parse_args()
    if not 1 <= args.first <= args.last or args.length_deals < 1 or args.optimal_deals < 0:
        parser.error("need 1 <= --first <= --last, --length-deals >= 1 and --optimal-deals >= 0")

    print(f"load average at the start: {load()}")
    ours, ours_cpu, counts = fcsurvey_rate(args.first, args.last)
    print(f"fcsurvey: deals {args.first}-{args.last}, 4 cells, one process, every solution replayed "
          f"by the Python engine: {ours:,.0f} deals/s, {ours_cpu:,.0f} per CPU second {counts}")
    search_only, search_cpu, _ = fcsurvey_rate(args.first, args.last, replay=False)
    print(f"fcsurvey search alone (solve(replay=False), the C core's share): {search_only:,.0f} deals/s, "
          f"{search_cpu:,.0f} per CPU second")
    theirs = fc_solve_rate(args.first, args.last)
    if theirs is None:
        print(f"fc-solve: {FC_SOLVE_RANGE} not installed (apt-get install freecell-solver-bin); no ratio")
    else:
        ratio, cpu_ratio = ours / theirs[0], ours_cpu / theirs[1]
        print(f"fc-solve -l lg, same range, one process: {theirs[0]:,.0f} deals/s, {theirs[1]:,.0f} per CPU second")
        print(f"ratio fcsurvey / fc-solve: {ratio:.2f} by the wall clock, {cpu_ratio:.2f} by CPU time "
              f"(target >= {TARGET_RATIO}: {'PASS' if cpu_ratio >= TARGET_RATIO else 'FAIL'}); "
              f"search alone: {search_only / theirs[0]:.2f} and {search_cpu / theirs[1]:.2f}")

    print(f"solution length (tokens: a sequence move is one, every foundation move is written) over "
          f"deals 1-{args.length_deals}, one process, every solution replayed:")
    for mode in (DEFAULT_LENGTH, SHORT_LENGTH):
        found, rate, cpu_rate = lengths(mode, args.length_deals)
        print(length_line(f"fcsurvey {mode}", found, rate, cpu_rate, TARGET_MEAN_MOVES[mode]))
        if mode == SHORT_LENGTH:
            print(f"  --short speed on one core: {cpu_rate:.1f} deals per CPU second (target >= "
                  f"{TARGET_SHORT_RATE:g}: {'PASS' if cpu_rate >= TARGET_SHORT_RATE else 'FAIL'}); "
                  f"{rate:.1f} deals/s by the wall clock")
    theirs_lengths = fc_solve_lengths(args.length_deals)
    if theirs_lengths is None:
        print(f"  fc-solve: {FC_SOLVE} not installed; no lengths")
    else:
        print(length_line("fc-solve -l lg", *theirs_lengths))
    if args.optimal_deals:
        print(f"--optimal over deals 1-{args.optimal_deals}, --max-states {args.optimal_max_states:,}, "
              f"one solve at a time in its own process:")
        print(optimal_line(*optimal_runs(range(1, args.optimal_deals + 1), args.optimal_max_states)))

    proof = solve(11982)
    print(f"deal 11982: {proof.status} in {proof.elapsed_s:.3f} s, {proof.states:,} positions stored "
          f"({proof.expanded:,} expanded)")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    print(f"load average at the end: {load()}")
    return 0 if proof.status == UNSOLVABLE else 1


if __name__ == "__main__":
    sys.exit(main())

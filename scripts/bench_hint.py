#!/usr/bin/env python
"""Benchmark the hint engine on positions a player can reach (Issue 29, item 3).

Run from the repository root with the package installed::

    python scripts/bench_hint.py                       # deals 1-1000, 4 cells, seed 29
    python scripts/bench_hint.py --last 200 --seed 7 --timeout 0.5

Two samples of one position a deal, both seeded (a ``random.Random`` per deal):

* random play, the issue's: 0 to ``--max-plies`` moves picked uniformly among the rules
  engine's legal moves.  Random play soon fills the cells and gets stuck, so most of
  these positions are lost within a few moves and cheap to prove so;
* off a winning line, nearer what a player asks about: part of the solver's winning line
  of the deal, then 0 to 10 random legal moves.

Each position is asked for a hint through the public API, ``fcsurvey.hint(deal, played,
rules)``, which replays the played moves, solves from there in C and replays the line it
finds.  Each hint is timed whole, in CPU time of this one process (the solver runs on one
thread; CPU time does not count the time other processes take the core) and in wall time,
split into the C solve and the Python around it.  The script prints p50, p90, p99 and
the largest time per hint, the verdicts (winnable, lost: proved, unknown: the budget ran
out, won) with the share of lost positions detected, and PASS/FAIL of the random-play
sample against the targets p50 <= 5 ms and p99 <= 100 ms; exit code 0 on PASS.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from typing import List, Optional, Tuple

import fcsurvey
from fcsurvey.engine import Position, apply, legal_moves
from fcsurvey.hints import HINT_TIMEOUT_S, LOST, UNKNOWN, WINNABLE, WON, Hint, position_after
from fcsurvey.notation import move_to_token
from fcsurvey.rules import Rules, preset

TARGET_P50_MS = 5.0
TARGET_P99_MS = 100.0
DEFAULT_MAX_PLIES = 60
#: The most random moves the second sample makes after leaving a winning line.
OFF_LINE_PLIES = 10
#: A sampled position: the deal and the moves played to reach it.
Sample = Tuple[int, List[str]]


def random_play(position: Position, rules: Rules, plies: int, rng: random.Random) -> List[str]:
    """Up to ``plies`` random legal moves from ``position``, as tokens (fewer when a
    position has no legal move or the game is won)."""
    tokens = []
    for _ in range(plies):
        moves = legal_moves(position, rules)
        if not moves or position.is_won:
            break
        move = rng.choice(moves)
        tokens.append(move_to_token(move, position, rules))
        position = apply(position, move, rules)
    return tokens


def random_positions(first: int, last: int, rules: Rules, seed: int, max_plies: int) -> List[Sample]:
    """The issue's sample, one position a deal: 0 to ``max_plies`` random legal moves from
    the deal.  Random play soon fills the cells and gets stuck, so most are lost early."""
    samples = []
    for number in range(first, last + 1):
        rng = random.Random(seed * 1_000_003 + number)
        start = Position.from_deal(fcsurvey.deal(number, rules))
        samples.append((number, random_play(start, rules, rng.randint(0, max_plies), rng)))
    return samples


def off_line_positions(first: int, last: int, rules: Rules, seed: int, max_plies: int) -> List[Sample]:
    """Positions nearer real play, one a deal: a random number of moves along a winning line
    of the deal (the solver's), then 0 to ``OFF_LINE_PLIES`` random legal moves off it."""
    samples = []
    for number in range(first, last + 1):
        rng = random.Random(seed * 1_000_003 + number)
        solved = fcsurvey.solve(number, rules)
        line = solved.solution.split() if solved.solution else []
        played = line[:rng.randint(0, max(len(line) - 1, 0))]
        reached = position_after(number, played, rules)
        samples.append((number, played + random_play(reached, rules, rng.randint(0, OFF_LINE_PLIES), rng)))
    return samples


def percentile(values: List[float], share: float) -> float:
    """The nearest-rank percentile of ``values`` (share in 0..1)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered)) - 1))]


def measure(name: str, positions: List[Sample], rules: Rules, timeout: float) -> Tuple[float, float]:
    """Ask each position for a hint, print the figures, and return the CPU p50 and p99 in ms."""
    hints: List[Hint] = []
    cpu_ms: List[float] = []
    wall_ms: List[float] = []
    for number, played in positions:
        started, cpu = time.perf_counter(), time.process_time()
        found = fcsurvey.hint(number, played, rules, timeout=timeout)
        cpu_ms.append((time.process_time() - cpu) * 1000)
        wall_ms.append((time.perf_counter() - started) * 1000)
        hints.append(found)
    solve_ms = [h.elapsed_s * 1000 for h in hints]
    around_ms = [w - s for w, s in zip(wall_ms, solve_ms)]
    counts = Counter(h.status for h in hints)
    total = len(hints)
    undecided = counts[LOST] + counts[UNKNOWN]
    p50, p90, p99 = (percentile(cpu_ms, q) for q in (0.50, 0.90, 0.99))
    print(f"{name}: {total:,} positions, {statistics.mean(len(p) for _, p in positions):.1f} moves played "
          f"on average")
    print(f"  CPU ms per hint: p50 {p50:.2f}  p90 {p90:.2f}  p99 {p99:.2f}  max {max(cpu_ms):.1f}  "
          f"mean {statistics.mean(cpu_ms):.2f}  (total {sum(cpu_ms) / 1000:.1f} s)")
    print(f"  wall ms per hint: p50 {percentile(wall_ms, 0.5):.2f}  p99 {percentile(wall_ms, 0.99):.2f}  "
          f"max {max(wall_ms):.1f}; of it the C solve p50 {percentile(solve_ms, 0.5):.2f}  "
          f"p99 {percentile(solve_ms, 0.99):.2f}, the Python around it (replays, dealing) "
          f"p50 {percentile(around_ms, 0.5):.2f}  p99 {percentile(around_ms, 0.99):.2f}")
    print("  verdicts: " + ", ".join(f"{status} {counts[status]:,} ({counts[status] / total:.1%})"
                                     for status in (WINNABLE, LOST, UNKNOWN, WON)))
    detected = counts[LOST] / undecided if undecided else 1.0
    print(f"  lost positions detected: {counts[LOST]:,} proved lost ({counts[LOST] / total:.1%} of the "
          f"positions), {detected:.1%} of the {undecided:,} without a winning line (the rest unknown)")
    for status in (WINNABLE, LOST, UNKNOWN):
        chosen = [(c, h.states) for c, h in zip(cpu_ms, hints) if h.status == status]
        if chosen:
            print(f"  {status}: CPU ms p50 {percentile([c for c, _ in chosen], 0.5):.2f}, "
                  f"max {max(c for c, _ in chosen):.1f}; positions p50 "
                  f"{percentile([s for _, s in chosen], 0.5):,.0f}, max {max(s for _, s in chosen):,}")
    return p50, p99


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first", type=int, default=1, help="first deal (default 1)")
    parser.add_argument("--last", type=int, default=1000, help="last deal (default 1000)")
    parser.add_argument("--cells", type=int, default=4, help="free cells (default 4)")
    parser.add_argument("--seed", type=int, default=29, help="seed of the random play (default 29)")
    parser.add_argument("--max-plies", type=int, default=DEFAULT_MAX_PLIES,
                        help=f"most random moves before a hint (default {DEFAULT_MAX_PLIES})")
    parser.add_argument("--timeout", type=float, default=HINT_TIMEOUT_S,
                        help=f"each hint's budget in seconds (default {HINT_TIMEOUT_S}, the hint default)")
    args = parser.parse_args(argv)
    if not 1 <= args.first <= args.last:
        parser.error("need 1 <= --first <= --last")
    return args


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    rules = preset("freecell", cells=args.cells)
    fcsurvey.hint(1, (), rules)  # load the core and the replay tables before timing
    print(f"deals {args.first}-{args.last}, {args.cells} cells, seed {args.seed}, budget {args.timeout:g} s "
          f"a hint, one process on one thread")
    p50, p99 = measure(f"random play (0-{args.max_plies} random legal moves)",
                       random_positions(args.first, args.last, rules, args.seed, args.max_plies),
                       rules, args.timeout)
    measure(f"off a winning line (part of the solver's line, then 0-{OFF_LINE_PLIES} random moves)",
            off_line_positions(args.first, args.last, rules, args.seed, args.max_plies), rules, args.timeout)
    verdict = "PASS" if p50 <= TARGET_P50_MS and p99 <= TARGET_P99_MS else "FAIL"
    print(f"targets on random play, CPU time: p50 <= {TARGET_P50_MS:g} ms, p99 <= {TARGET_P99_MS:g} ms: {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())

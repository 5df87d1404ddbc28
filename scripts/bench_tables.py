"""What each pass of a winnable table costs and wins, measured on a range of deals.

    python scripts/bench_tables.py --cells 2 [--first 1 --last 2000] [--timeout-row S]

Solves the deals, in this one process, pass after pass as scripts/run_tables.py runs them
(searches only at each pass's positions, each pass over the deals the one before left
``unknown``), and prints per pass the CPU time, the verdicts and how many deals the published
fewest cells (``results/ms-freecell-1-32000``: winnable with ``c`` cells when ``min_cells`` is
at most ``c``) call winnable that no pass has won yet, with the CPU scaled to 1,000,000 deals.
``--timeout-row S`` adds, for comparison, a row of whole solves (the layered proof included)
at pass 1's positions with a timeout of S seconds, as last session's plan had it.  Every
verdict is checked against the published fewest cells.  The load average is printed first:
CPU time carries the cache contention of a loaded machine, wall time its waits.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import fcsurvey
from fcsurvey.limits import Limits
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.solver import core_build
from fcsurvey.store import read

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_tables import PASSES  # noqa: E402  (the passes this measures)

MIN_CELLS = Path(__file__).resolve().parent.parent / "results" / "ms-freecell-1-32000"
MILLION = 1_000_000


def cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def run(deals: Sequence[int], rules: fcsurvey.Rules, limits: Limits, winnable: Dict[int, bool]) -> Dict[int, str]:
    """Each deal's verdict under ``limits``; AssertionError if one contradicts the record."""
    verdicts = {}
    for deal in deals:
        status = fcsurvey.solve(deal, rules, limits, replay=False).status
        assert status != SOLVED or winnable[deal], f"deal {deal} solved, but the record says unsolvable"
        assert status != UNSOLVABLE or not winnable[deal], f"deal {deal} unsolvable, but the record says winnable"
        verdicts[deal] = status
    return verdicts


def row(name: str, limits: Limits, deals: List[int], verdicts: Dict[int, str], seconds: float,
        left: int, total: int, span: int) -> str:
    counts = Counter(verdicts.values())
    return (f"{name:<7} {limits.max_states:>10,} {'' if limits.timeout is None else f'{limits.timeout:g} s':>7} "
            f"{len(deals):>6,} {seconds:>8.1f} {counts[SOLVED]:>7,} {counts[UNSOLVABLE]:>10,} {counts[UNKNOWN]:>7,} "
            f"{left:>5,} of {total:,} {seconds * MILLION / span / 3600:>9.2f}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, choices=tuple(PASSES), required=True)
    parser.add_argument("--first", type=int, default=1)
    parser.add_argument("--last", type=int, default=2_000)
    parser.add_argument("--timeout-row", type=float, metavar="S")
    args = parser.parse_args(argv)
    if not 1 <= args.first <= args.last <= 32_000:
        parser.error("the record of fewest cells covers deals 1-32,000")
    rules = fcsurvey.preset("freecell", cells=args.cells)
    fewest = {r["deal"]: r["min_cells"] for r in read(MIN_CELLS, columns=["deal", "min_cells"]).to_pylist()}
    deals = list(range(args.first, args.last + 1))
    winnable = {d: fewest[d] is not None and fewest[d] <= args.cells for d in deals}
    total = sum(winnable.values())
    print(f"{args.cells}-cell deals {args.first}-{args.last}; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores; core {core_build()}")
    print(f"{'pass':<7} {'positions':>10} {'timeout':>7} {'deals':>6} {'CPU s':>8} {'solved':>7} {'unsolvable':>10} "
          f"{'unknown':>7} winnable left {'core-h/1M':>9}")
    if args.timeout_row:
        limits = Limits(max_states=PASSES[args.cells][0].max_states, timeout=args.timeout_row)
        began = cpu_s()
        verdicts = run(deals, rules, limits, winnable)
        left = sum(1 for d, s in verdicts.items() if s == UNKNOWN and winnable[d])
        print(row("whole", limits, deals, verdicts, cpu_s() - began, left, total, len(deals)))
    todo, won = deals, set()
    for step in PASSES[args.cells]:
        limits = Limits(max_states=step.max_states, searches_only=True)
        began = cpu_s()
        verdicts = run(todo, rules, limits, winnable)
        won |= {d for d, s in verdicts.items() if s == SOLVED}
        left = sum(1 for d in deals if winnable[d] and d not in won)
        print(row(step.name, limits, todo, verdicts, cpu_s() - began, left, total, len(deals)))
        todo = [d for d, s in verdicts.items() if s == UNKNOWN]
        if not todo:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())

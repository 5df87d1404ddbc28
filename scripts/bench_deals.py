#!/usr/bin/env python
"""Benchmark the deal generator: C core versus the pure-Python reference.

Run from the repository root with the package installed::

    python scripts/bench_deals.py                  # 2,000,000 C deals, best of 3
    python scripts/bench_deals.py --count 10000000 --python-count 50000

The C generator is timed with ``_fccore.deal_range_checksum(start, count)``,
which shuffles ``count`` consecutive deals without building Python objects;
the reference is timed with ``fcsurvey.deals.shuffled_deck`` over a smaller
sample from the same start.  Both report the best of ``--repeat`` runs.  The
script prints both rates, their ratio and PASS/FAIL against the target of
1,000,000 deals/s for C; the exit code is 0 on PASS and 1 on FAIL.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable, List, Optional

from fcsurvey.deals import shuffled_deck
from fcsurvey.dealset import MAX_DEAL
from fcsurvey._core import _fccore

TARGET_C_RATE = 1_000_000
DEFAULT_COUNT = 2_000_000


def best_time(work: Callable[[], object], repeat: int) -> float:
    """Shortest wall-clock time of ``repeat`` calls of ``work``."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def positive_int(text: str) -> int:
    value = int(text.replace(",", "").replace("_", ""))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=positive_int, default=DEFAULT_COUNT,
                        help=f"deals per C run (default {DEFAULT_COUNT:,}; the target needs >= 2,000,000)")
    parser.add_argument("--python-count", type=positive_int, default=20_000,
                        help="deals per pure-Python run (default 20,000)")
    parser.add_argument("--start", type=positive_int, default=1,
                        help="first deal number (default 1)")
    parser.add_argument("--repeat", type=positive_int, default=3,
                        help="runs of each; the best is reported (default 3)")
    args = parser.parse_args(argv)
    for name in ("count", "python_count"):
        if args.start - 1 + getattr(args, name) > MAX_DEAL:
            parser.error(f"--start {args.start} plus --{name.replace('_', '-')} "
                         f"{getattr(args, name)} goes past deal {MAX_DEAL:,}")
    return args


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if args.count < DEFAULT_COUNT:
        print(f"note: --count {args.count:,} is below the {DEFAULT_COUNT:,} the target calls for",
              file=sys.stderr)

    c_seconds = best_time(lambda: _fccore.deal_range_checksum(args.start, args.count), args.repeat)
    c_rate = args.count / c_seconds

    numbers = range(args.start, args.start + args.python_count)

    def python_run() -> None:
        for n in numbers:
            shuffled_deck(n)

    py_seconds = best_time(python_run, args.repeat)
    py_rate = args.python_count / py_seconds

    verdict = "PASS" if c_rate >= TARGET_C_RATE else "FAIL"
    print(f"C generator:      {c_rate:>14,.0f} deals/s  ({args.count:,} deals in {c_seconds:.3f} s, "
          f"best of {args.repeat})")
    print(f"Python reference: {py_rate:>14,.0f} deals/s  ({args.python_count:,} deals in "
          f"{py_seconds:.3f} s, best of {args.repeat})")
    print(f"ratio C / Python: {c_rate / py_rate:>14,.1f}x")
    print(f"target >= {TARGET_C_RATE:,} deals/s for C: {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())

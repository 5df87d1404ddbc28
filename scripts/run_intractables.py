"""Issue 26's intractable lists surveyed whole, in passes that resume across sessions.

    python scripts/run_intractables.py pass1 --cells 3 [--workers N] [survey options, e.g. -v]
    python scripts/run_intractables.py status [--cells K]

The record's lists of deals no program had decided (``known.INTRACTABLE_3_CELLS``, 78,323
deals with 3 free cells; ``known.INTRACTABLE_0_CELLS``, 174,390 with none) are spread over the
whole FreeCell Pro range.  A pass is one ``fcsurvey survey --deals-file`` run into
``results/runs/intractables-Kcells-passN``: each finished chunk is a file, and rerunning the
same pass goes on where it stopped.  The passes live in the repository, so that a session's
work is committed before its machine goes.

- ``pass1``: every deal of the list at 100,000 positions, searches only, no timeout and no
  solutions: about 0.1 CPU s a deal, and the same verdicts on any machine and under any load.
  It wins about one deal in six of either list (measured on 200 of each, docs/known-results.md)
  and never proves one unsolvable (the lists' deals do not fit in 100,000 positions).  One chunk
  per 10,000,000 deal numbers (the store's block): about 90 deals (3 cells) or 200 (0 cells).
- ``status``: each pass's counts by status.

A won deal's solution is not kept (files stay small); ``fcsurvey solve DEAL --cells K
--searches-only --max-states 100000`` gives it again, replayed by the rules engine, as
tests/test_decided_intractables.py does for a sample.  ``--sample N`` takes the list's first N
deals and ``--runs`` moves the passes elsewhere (the tests run both).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from fcsurvey import known, store
from fcsurvey.known import DealList

RUNS = Path("results/runs")
#: The lists by free cells.
LISTS: Dict[int, DealList] = {3: known.INTRACTABLE_3_CELLS, 0: known.INTRACTABLE_0_CELLS}
#: Pass 1's positions a deal (searches only), and its chunk: the store's block of deal numbers.
PASS1_MAX_STATES = 100_000
PASS1_CHUNK = store.BLOCK_DEALS


def run_dir(runs: Path, cells: int, name: str) -> Path:
    return runs / f"intractables-{cells}cells-{name}"


def deals_of(cells: int, sample: Optional[int]) -> List[int]:
    """The list's deals, or its first ``sample`` of them."""
    numbers = list(LISTS[cells].numbers())
    return numbers[:sample] if sample is not None else numbers


def pass1(runs: Path, cells: int, deals: Sequence[int], extra: List[str]) -> int:
    """Run (or resume) pass 1 over ``deals`` as one ``fcsurvey survey``."""
    out = run_dir(runs, cells, "pass1")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("".join(f"{n}\n" for n in deals))
    try:
        return subprocess.call([sys.executable, "-m", "fcsurvey", "survey", "--deals-file", f.name,
                                "--cells", str(cells), "--searches-only", "--max-states", str(PASS1_MAX_STATES),
                                "--no-solutions", "--chunk-size", str(PASS1_CHUNK), "--out", str(out), *extra])
    finally:
        os.unlink(f.name)


def status(runs: Path, cells: int, deals: Sequence[int]) -> None:
    out = run_dir(runs, cells, "pass1")
    found = (store.read(out, columns=["status"])["status"].to_pylist()
             if (out / store.MANIFEST).exists() else [])
    counts = Counter(found)
    print(f"{out}: {len(found):,} of {len(deals):,} deals"
          + (": " + ", ".join(f"{v:,} {k}" for k, v in sorted(counts.items())) if found else ": not started"))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="Other options go to fcsurvey survey (e.g. -v, --workers N).")
    parser.add_argument("step", choices=["pass1", "status"])
    parser.add_argument("--cells", type=int, choices=sorted(LISTS), help="Free cells (status: both by default).")
    parser.add_argument("--sample", type=int, default=None, help="Only the list's first N deals.")
    parser.add_argument("--runs", type=Path, default=RUNS, help=f"Where the passes live [default: {RUNS}].")
    args, extra = parser.parse_known_args(argv)
    if args.sample is not None and args.sample < 1:
        parser.error("--sample must be at least 1")
    if args.step == "status":
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        for cells in [args.cells] if args.cells is not None else sorted(LISTS, reverse=True):
            status(args.runs, cells, deals_of(cells, args.sample))
        return 0
    if args.cells is None:
        parser.error("pass1 needs --cells")
    return pass1(args.runs, args.cells, deals_of(args.cells, args.sample), extra)


if __name__ == "__main__":
    sys.exit(main())

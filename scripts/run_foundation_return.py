"""Issue 27's whole-range exploration, in passes that resume across sessions.

    python scripts/run_foundation_return.py pass1 [--workers N]
    python scripts/run_foundation_return.py pass2 [--below N] [--workers N]
    python scripts/run_foundation_return.py pass3 [--below N] [--workers N]
    python scripts/run_foundation_return.py status

The 102,075 deals unsolvable with 4 cells (``known.IMPOSSIBLE_4_CELLS``) are solved again
with foundation return on, as ``fcsurvey survey`` runs: each finished chunk is a file, and
rerunning the same pass goes on where it stopped.  The passes live in the repository, under
``results/runs/``, so that a session's work is committed before its machine goes.

- ``pass1``: every deal, with a 300 s timeout, so that the few deals whose proofs take long
  wait for pass 2 instead of holding a worker; one chunk per 10,000,000 deal numbers (about
  120 deals: a minute or two of work, a few kB on disk).
- ``pass2``: the deals pass 1 left ``unknown`` in the chunks it has finished so far (only
  those below ``--below N``, if given), at the default limits and no timeout.  It is
  incremental: a survey dataset takes a grown deal set (the store adds the new deals to
  those its manifest records as requested, tests/test_store.py, and refuses only other
  rules, limits or mode), so the same command, run again once pass 1 has grown, solves only
  the new unknowns, and run again after a stop goes on where it stopped (a proof from its
  last checkpoint, kept in the dataset's ``.proofs``, which git ignores).  A survey lends
  its idle workers' cores to the proofs still running, so a pass 2 of one deal with
  ``--workers 2`` runs its proof on two threads.
- ``pass3``: the deals pass 2 left ``unknown`` (below ``--below N``), as pass 2 but with
  room for PASS3_MAX_STATES positions, as the issue asks of deals the default limits leave
  undecided (raise the limits rather than leave them): 53687601, whose layered proof runs
  out of room at the default limits before it reaches the win, is won by the complete
  search with room for 50,000,000 (docs/known-results.md).  A worker may hold about 4 GB, the proof's spill and
  trail several times that on disk.
- ``status``: each pass's counts and solver time (the rows' ``elapsed_ms``), each pass's
  unknowns not yet in the next, the passes' verdicts together by bound (``(partial)`` where
  pass 1 has not reached it), the cards the solutions bring back down and the largest
  decided searches.

Then ``scripts/ship_foundation_return.py results/runs/foundation-return-pass1
results/runs/foundation-return-pass2 results/runs/foundation-return-pass3 [--below N]``
ships the decided rows, all of them or a slice below N, once every deal there is decided.
A timeout only stops a search, so a verdict reached under one is the one reached without it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from fcsurvey import known, store
from fcsurvey.dealset import DealSet
from fcsurvey.explore import RANGES, returned_cards
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE

RUNS = Path("results/runs")
PASS1, PASS2, PASS3 = (RUNS / f"foundation-return-pass{k}" for k in (1, 2, 3))
PASSES = (PASS1, PASS2, PASS3)
PASS1_TIMEOUT_S = 300
PASS3_MAX_STATES = 50_000_000  # the room that wins 53687601 (20,481,424 positions, build a433c3e), with some to spare
CHUNK_DEALS = 10_000_000  # deal numbers per chunk: the store's block, so one file a block
MS_PER_HOUR = 3_600_000
HARDEST = 5  # the largest decided searches status names


def survey(deals: Sequence[int], out: Path, extra: List[str], workers: Optional[int]) -> int:
    """Run ``fcsurvey survey`` over ``deals`` with foundation return into ``out``."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("".join(f"{n}\n" for n in deals))
    command = [sys.executable, "-m", "fcsurvey", "survey", "--deals-file", f.name, "--foundation-return",
               "--chunk-size", str(CHUNK_DEALS), "--out", str(out), *extra]
    if workers is not None:
        command += ["--workers", str(workers)]
    try:
        return subprocess.call(command)
    finally:
        Path(f.name).unlink()


def unknown_deals(dataset: Path) -> List[int]:
    """The deals ``dataset`` holds as ``unknown``."""
    rows = store.read(dataset, columns=["deal", "status"]).to_pylist()
    return sorted(r["deal"] for r in rows if r["status"] == UNKNOWN)


def next_deals(previous: Path, below: Optional[int]) -> List[int]:
    """The deals the pass after ``previous`` is to hold: its unknowns so far, below ``below``
    if given."""
    if not (previous / store.MANIFEST).exists():
        return []
    return [n for n in unknown_deals(previous) if below is None or n < below]


def requested(dataset: Path) -> DealSet:
    """The deals ``dataset``'s manifest says were asked of it (none before it starts)."""
    if not (dataset / store.MANIFEST).exists():
        return DealSet()
    return DealSet(tuple(r) for r in store.read_manifest(dataset)["requested"])


def status() -> None:
    """Counts by status of each pass; each pass's unknowns not yet given to the next; the
    passes' verdicts together by bound (partial where pass 1 has not reached the bound); the
    cards the solutions found bring back down; the largest decided searches; solver time."""
    final: Dict[int, dict] = {}  # a later pass's row over an earlier one's unknown
    for dataset in PASSES:
        if not (dataset / store.MANIFEST).exists():
            print(f"{dataset}: not started")
            continue
        rows = store.read(dataset, columns=["deal", "status", "states", "elapsed_ms", "solution"]).to_pylist()
        counts = Counter(r["status"] for r in rows)
        print(f"{dataset}: {len(rows):,} deals" + "".join(f", {v:,} {k}" for k, v in sorted(counts.items()))
              + f"; solver time {sum(r['elapsed_ms'] for r in rows) / MS_PER_HOUR:.2f} core-hours")
        for r in rows:
            if r["status"] != UNKNOWN or r["deal"] not in final:
                final[r["deal"]] = r
    if not final:
        return
    for k, (earlier, later) in enumerate(zip(PASSES, PASSES[1:]), start=1):
        waiting = list(DealSet.from_sorted(next_deals(earlier, None)) - requested(later))
        print(f"pass {k}'s unknowns not yet in pass {k + 1}: {len(waiting):,}"
              + (f" ({' '.join(map(str, waiting[:20]))}{' ...' if len(waiting) > 20 else ''})" if waiting else ""))
    wanted = known.IMPOSSIBLE_4_CELLS.numbers()
    print("| deals up to | in the list | done | solved | unsolvable | unknown |\n|---|---|---|---|---|---|")
    for bound in RANGES.values():
        among = [n for n in wanted if n <= bound]
        counts = Counter(final[n]["status"] for n in among if n in final)
        partial = " (partial)" if sum(counts.values()) < len(among) else ""
        print(f"| {bound:,}{partial} | {len(among):,} | {sum(counts.values()):,} | {counts[SOLVED]:,} | "
              f"{counts[UNSOLVABLE]:,} | {counts[UNKNOWN]:,} |")
    decided = [r for r in final.values() if r["status"] in (SOLVED, UNSOLVABLE)]
    returns = Counter(returned_cards(r["solution"]) for r in decided if r["status"] == SOLVED)
    print("cards brought back down in the solution found: " + ", ".join(f"{k}: {v:,}" for k, v in sorted(returns.items())))
    print("largest decided searches: " + "; ".join(
        f"{r['deal']} {r['status']} {r['states']:,} positions {r['elapsed_ms'] / 1000:.1f} s"
        for r in sorted(decided, key=lambda r: -r["states"])[:HARDEST]))
    print(f"undecided: {len(wanted) - len(decided):,} of {len(wanted):,} (pass 1 has reached deal {max(final):,})")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["pass1", "pass2", "pass3", "status"])
    parser.add_argument("--workers", type=int)
    parser.add_argument("--below", type=int, help="pass2, pass3: only the unknowns below this deal number")
    args = parser.parse_args(argv)
    if args.step == "pass1":
        return survey(known.IMPOSSIBLE_4_CELLS.numbers(), PASS1, ["--timeout", str(PASS1_TIMEOUT_S)], args.workers)
    if args.step in ("pass2", "pass3"):
        previous, out = (PASS1, PASS2) if args.step == "pass2" else (PASS2, PASS3)
        todo = next_deals(previous, args.below)
        if not todo:
            print(f"{previous} leaves no deal unknown" + (f" below {args.below:,}" if args.below else ""))
            return 0
        extra = [] if args.step == "pass2" else ["--max-states", str(PASS3_MAX_STATES)]
        return survey(todo, out, extra, args.workers)
    status()
    return 0


if __name__ == "__main__":
    sys.exit(main())

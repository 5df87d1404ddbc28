"""Issue 27's whole-range exploration, in passes that resume across sessions.

    python scripts/run_foundation_return.py pass1 [--workers N]
    python scripts/run_foundation_return.py pass2 [--workers N]
    python scripts/run_foundation_return.py status

The 102,075 deals unsolvable with 4 cells (``known.IMPOSSIBLE_4_CELLS``) are solved again
with foundation return on, as ``fcsurvey survey`` runs: each finished chunk is a file, and
rerunning the same pass goes on where it stopped.  The passes live in the repository, under
``results/runs/``, so that a session's work is committed before its machine goes.

- ``pass1``: every deal, with a 300 s timeout, so that the few deals whose proofs take long
  wait for pass 2 instead of holding a worker; one chunk per 10,000,000 deal numbers (about
  120 deals: a minute or two of work, a few kB on disk).
- ``pass2``: the deals pass 1 left ``unknown``, at the default limits and no timeout (a
  survey puts its idle workers on the proofs of its last deals).

Then ``scripts/ship_foundation_return.py results/runs/foundation-return-pass1
results/runs/foundation-return-pass2`` ships the decided rows.  A timeout only stops a search,
so a verdict reached under one is the one reached without it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import List, Optional, Sequence

from fcsurvey import known, store
from fcsurvey.schema import UNKNOWN

RUNS = Path("results/runs")
PASS1, PASS2 = RUNS / "foundation-return-pass1", RUNS / "foundation-return-pass2"
PASS1_TIMEOUT_S = 300
CHUNK_DEALS = 10_000_000  # deal numbers per chunk: the store's block, so one file a block


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


def status() -> None:
    """Counts by status of each pass, and how many deals neither has decided yet."""
    decided = set()
    for dataset in (PASS1, PASS2):
        if not (dataset / store.MANIFEST).exists():
            print(f"{dataset}: not started")
            continue
        rows = store.read(dataset, columns=["deal", "status"]).to_pylist()
        counts = Counter(r["status"] for r in rows)
        decided |= {r["deal"] for r in rows if r["status"] != UNKNOWN}
        print(f"{dataset}: {len(rows):,} deals: " + ", ".join(f"{v:,} {k}" for k, v in sorted(counts.items())))
    print(f"undecided: {len(known.IMPOSSIBLE_4_CELLS.numbers()) - len(decided):,} "
          f"of {len(known.IMPOSSIBLE_4_CELLS.numbers()):,}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["pass1", "pass2", "status"])
    parser.add_argument("--workers", type=int)
    args = parser.parse_args(argv)
    if args.step == "pass1":
        return survey(known.IMPOSSIBLE_4_CELLS.numbers(), PASS1, ["--timeout", str(PASS1_TIMEOUT_S)], args.workers)
    if args.step == "pass2":
        todo = unknown_deals(PASS1)
        if not todo:
            print(f"{PASS1} leaves no deal unknown")
            return 0
        return survey(todo, PASS2, [], args.workers)
    status()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Write results/lists/decided-*.txt: how fcsurvey decided the deals of a published intractable
list, one deal a line with its verdict and cost, from survey datasets of (samples of) the list
and from ``fcsurvey solve --json`` results of single deals.

    python scripts/decided_lists.py --cells 3 --dataset results/intractables/3cells-sample \\
        --solve-json /work/record-run/138026-c3.attempt0.json --out results/lists/decided-3cell-intractables.txt

The header counts each verdict and gives the cost per deal, so the file is the outcome as it
stands; a deal listed ``unknown`` names the limit that stopped it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Dict, List, Tuple

from fcsurvey import known, store
from fcsurvey.output import whole_file
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE

LISTS = {3: known.INTRACTABLE_3_CELLS, 0: known.INTRACTABLE_0_CELLS}
#: A deal's line: status, limit ("-" for none), positions, wall seconds.
Row = Tuple[str, str, int, float]


def from_dataset(path: Path) -> Dict[int, Row]:
    table = store.read(path, columns=["deal", "status", "limit", "states", "elapsed_ms"]).to_pylist()
    return {r["deal"]: (r["status"], r["limit"] or "-", r["states"], r["elapsed_ms"] / 1000) for r in table}


def from_solve(path: Path) -> Dict[int, Row]:
    r = json.loads(path.read_text())
    return {r["deal"]: (r["status"], r["limit"] or "-", r["states"], r["elapsed_s"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, choices=sorted(LISTS), required=True)
    parser.add_argument("--dataset", type=Path, action="append", default=[])
    parser.add_argument("--solve-json", type=Path, action="append", default=[])
    parser.add_argument("--note", action="append", default=[], help="a line for the header (repeat)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    listed = set(LISTS[args.cells].numbers())
    rows: Dict[int, Row] = {}
    for path in args.dataset:
        rows.update(from_dataset(path))
    for path in args.solve_json:
        rows.update(from_solve(path))
    strays = sorted(set(rows) - listed)
    if strays:
        raise SystemExit(f"deals not on the {args.cells}-cell intractable list: {strays[:5]}")
    counts = {s: sum(1 for r in rows.values() if r[0] == s) for s in (SOLVED, UNSOLVABLE, UNKNOWN)}
    lines: List[str] = [
        f"# FreeCell, {args.cells} free cells: deals of {LISTS[args.cells].file} ({len(listed):,} deals, "
        f"{LISTS[args.cells].source}) as fcsurvey decided them.",
        *(f"# {note}" for note in args.note),
        f"# {len(rows)} deals run: {counts[SOLVED]} solved, {counts[UNSOLVABLE]} unsolvable, "
        f"{counts[UNKNOWN]} unknown; {len(listed) - len(rows):,} of the list not run.",
        "# deal status limit positions wall_seconds",
    ]
    lines += [f"{deal} {status} {limit} {states} {seconds:.1f}"
              for deal, (status, limit, states, seconds) in sorted(rows.items())]
    with whole_file(args.out) as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}: {len(rows)} deals")


if __name__ == "__main__":
    main()

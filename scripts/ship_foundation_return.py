"""Ship the foundation-return exploration: one small dataset, a plain list and the figures.

    python scripts/ship_foundation_return.py SOURCE [SOURCE ...] [--below N]

Each SOURCE is a dataset of deals unsolvable with 4 cells, solved again with foundation
return on (``fcsurvey verify --explore foundation-return`` writes one into verify's cache; a
long run may be made in passes, for instance a first pass with ``--timeout`` that leaves the
slow deals ``unknown`` for a second, and a third with more room for what the second leaves).
Their decided rows go, unchanged, into one dataset whose limits are the most room any source
had and no timeout: a verdict reached under a timeout is the one the same build reaches
without it, since a timeout only stops a search; a verdict reached with more room is a proof
too (a replayed win, an exhausted search), only one the default room does not reach; and the
rows keep their states and times.
What is shipped is whole: every deal of the list (below ``--below`` if given, a slice) must
be decided in some source, or nothing is written (``Error:``, exit 2), so the shipped dataset
never passes an undecided deal off as absent.  Every solution is replayed by the rules engine
before it is shipped, and each must bring a card back down from a foundation, or the deal was
not unsolvable without foundation return: one that does not is reported.

It writes ``results/foundation-return-4cells`` (one file per 1,000,000,000 deal numbers and
source build; a slice goes to ``results/foundation-return-4cells_below-N``, its manifest's
requested deals being the slice's), ``results/lists/winnable-only-with-foundation-return.txt``
(one deal a line, under ``#`` lines saying which deals were looked at; a slice's says it is
one) and prints the Markdown figures for docs/known-results.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List, NoReturn, Optional, Sequence

import pyarrow.parquet as pq

from fcsurvey import known, store
from fcsurvey.output import whole_file
from fcsurvey.deals import deal as make_deal
from fcsurvey.dealset import MAX_DEAL, DealSet
from fcsurvey.explore import FOUNDATION_RETURN, returned_cards
from fcsurvey.limits import Limits
from fcsurvey.replay import validate
from fcsurvey.rules import Rules
from fcsurvey.schema import SOLVED, UNSOLVABLE

OUT = Path("results/foundation-return-4cells")
SLICE_OUT = "foundation-return-4cells_below-{below}"  # under OUT's parent: a slice is named as one
LIST = Path("results/lists/winnable-only-with-foundation-return.txt")
FILE_SPAN = 1_000_000_000  # deal numbers per shipped file
BOUNDS = (10_000_000, 100_000_000, 1_000_000_000, MAX_DEAL)
HARDEST = 10
EXIT_BAD_INPUT = 2  # as the fcsurvey commands' Error: lines
KEPT = ("deal", "status", "moves", "atomic_moves", "solution", "states", "elapsed_ms", "limit", "error")


def fail(message: str) -> NoReturn:
    """One ``Error:`` line on stderr and exit 2, as the fcsurvey commands do on bad input."""
    print(f"Error: {message}", file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def decided_rows(sources: Sequence[Path]) -> Dict[int, dict]:
    """Each deal's first decided row over ``sources``, with the build of its file and the
    room (max_states) of its source."""
    rows: Dict[int, dict] = {}
    for source in sources:
        try:
            manifest = store.read_manifest(source)
        except store.StoreError as exc:
            fail(str(exc))
        if Rules.from_dict(manifest["rules"]) != FOUNDATION_RETURN:
            fail(f"{source} was not solved with 4 cells and foundation return")
        room = manifest["limits"]["max_states"]
        for f in store.chunk_files(source):
            meta = pq.read_metadata(f).metadata or {}
            build = meta.get(store.META_BUILD.encode(), b"").decode() or None
            for row in pq.read_table(f, columns=list(KEPT), **store.READ_OPTIONS).to_pylist():
                if row["status"] in (SOLVED, UNSOLVABLE) and row["deal"] not in rows:
                    rows[row["deal"]] = {**row, "build": build, "room": room}
    return rows


def ship(rows: Dict[int, dict], out: Path) -> None:
    """Write the rows into ``out``, a file per FILE_SPAN deal numbers and build, under the
    most room any of them had."""
    groups: Dict[tuple, List[dict]] = {}
    for number, row in sorted(rows.items()):
        groups.setdefault((row["build"], (number - 1) // FILE_SPAN), []).append(row)
    requested = DealSet.from_sorted(sorted(rows))
    started, limits = time.time(), Limits(max_states=max(r["room"] for r in rows.values()))
    for (build, _), group in sorted(groups.items(), key=lambda item: item[0][1]):
        dataset = store.Dataset.open(out, FOUNDATION_RETURN, limits, requested, build=build)
        try:
            dataset.write_chunk([{k: r[k] for k in KEPT} for r in group], started)
        finally:
            dataset.close()


def figures(rows: Dict[int, dict], wanted: Sequence[int], findings: List[str], below: Optional[int] = None) -> str:
    """The Markdown summary: counts by bound (those a slice below ``below`` reaches, and its
    own), cards brought back, the hardest proofs."""
    solved = {n: r for n, r in rows.items() if r["status"] == SOLVED}
    lines = ["| deals below | unsolvable with 4 cells | winnable with foundation return | still unsolvable |",
             "|---|---|---|---|"]
    spans = [(bound, [n for n in wanted if n <= bound]) for bound in BOUNDS if below is None or bound <= below]
    if below is not None and below not in BOUNDS:
        spans.append((below, list(wanted)))  # the slice's own bound: all it holds
    for bound, among in spans:
        won = sum(n in solved for n in among)
        lines.append(f"| {bound:,} | {len(among):,} | {won:,} | {sum(n in rows for n in among) - won:,} |")
    returns = Counter(returned_cards(r["solution"]) for r in solved.values())
    lines += ["", "Cards brought back down in the solution found (not proved shortest): "
              + ", ".join(f"{k}: {v:,}" for k, v in sorted(returns.items())), "",
              "| hardest | verdict | positions | time |", "|---|---|---|---|"]
    for r in sorted(rows.values(), key=lambda r: -r["states"])[:HARDEST]:
        lines.append(f"| {r['deal']} | {r['status']} | {r['states']:,} | {r['elapsed_ms'] / 1000:.1f} s |")
    cpu_h = sum(r["elapsed_ms"] for r in rows.values()) / 3.6e6
    lines += ["", f"Solve time of the shipped rows together: {cpu_h:.2f} core-hours."]
    return "\n".join(lines + [""] + findings)


def list_header(wanted: Sequence[int], won: int, below: Optional[int]) -> str:
    """The ``#`` lines above the list: what it is, and of which deals, so that a slice's list
    is not taken for the whole answer (deals files skip ``#`` lines)."""
    among = (f"the {len(wanted):,} below {below:,} only (a slice: deals from {below:,} on are not in it)"
             if below is not None else f"all {len(wanted):,}")
    return (f"# FreeCell deals unsolvable with 4 cells under standard rules ({known.IMPOSSIBLE_4_CELLS.source}) "
            f"but winnable with foundation return: {won:,} of {among}.\n"
            "# Each solution is in the dataset shipped beside it (scripts/ship_foundation_return.py).\n")


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path)
    parser.add_argument("--below", type=int, help="ship only the deals below this number (a slice)")
    parser.add_argument("--out", type=Path, help=f"default {OUT}, or {OUT.parent / SLICE_OUT} for a slice")
    parser.add_argument("--list", type=Path, default=LIST)
    args = parser.parse_args(argv)
    if args.below is not None and not 1 < args.below <= MAX_DEAL:
        fail(f"--below must be 2 to {MAX_DEAL:,}, got {args.below}")
    out = args.out or (OUT if args.below is None else OUT.parent / SLICE_OUT.format(below=args.below))
    if out.exists():
        fail(f"{out} exists; move it away first")
    wanted = [n for n in known.IMPOSSIBLE_4_CELLS.numbers() if args.below is None or n < args.below]
    decided = decided_rows(args.sources)
    missing = [n for n in wanted if n not in decided]
    if missing:
        shown = " ".join(map(str, missing[:50])) + (" ..." if len(missing) > 50 else "")
        fail(f"{len(missing):,} of the {len(wanted):,} deals to ship are decided in no source: {shown}")
    rows = {n: decided[n] for n in wanted}
    findings = []
    for number, row in sorted(rows.items()):
        if row["status"] != SOLVED:
            continue
        check = validate(make_deal(number, FOUNDATION_RETURN), FOUNDATION_RETURN, row["solution"] or "")
        if not check.ok:
            fail(f"deal {number}'s solution does not replay: {check.verdict()}")
        if returned_cards(row["solution"]) == 0:
            findings.append(f"Finding: deal {number}'s solution brings no card back down from a foundation.")
    ship(rows, out)
    won = sorted(n for n, r in rows.items() if r["status"] == SOLVED)
    with whole_file(args.list) as f:
        f.write(list_header(wanted, len(won), args.below) + "".join(f"{n}\n" for n in won))
    print(figures(rows, wanted, findings, args.below))


if __name__ == "__main__":
    main()

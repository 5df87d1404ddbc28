"""Issue 29's winnable tables for 3, 2 and 1 free cells, in passes that resume across sessions.

    python scripts/run_tables.py pass1 --cells K [--workers N] [survey options, e.g. -v]
    python scripts/run_tables.py pass2 --cells K [--workers N] [...]
    python scripts/run_tables.py pass3 --cells 2 [--workers N] [...]
    python scripts/run_tables.py status [--cells K]
    python scripts/run_tables.py ship --cells K

Each pass is one ``fcsurvey survey --searches-only --no-solutions`` run into
``results/runs/tables-Kcells-passN`` (``tables-1cell-passN`` for one cell): each finished chunk
is a file, and rerunning the same pass goes on where it stopped.  The passes live in the
repository, so that a session's work is committed before its machine goes.  Searches only,
with no ``--timeout``, make every verdict the same on any machine and under any load (a pass
is cut by positions, not seconds), and cost a fraction of a whole solve: a table needs wins,
and a deal the searches cannot decide is simply left out.

- ``pass1``: deals 1-1,000,000 at 100,000 positions a deal, 10,000 deals a chunk file.
- ``pass2``: the deals pass 1 left ``unknown``, at 2,000,000 positions (164 MB a worker).
- ``pass3``, 2 cells only: the deals pass 2 left ``unknown``, at 10,000,000 positions (820 MB
  a worker), so that the table's share of winnable deals reaches the published rate's interval.
- ``status``: counts by status of each pass, and what the table would hold so far.
- ``ship``: once every pass is finished, ``fcsurvey export --format bitmap`` of each pass,
  OR-ed (fcsurvey.tables.union), into ``results/lists/winnable-Kcells-1-1000000.bin``, and the
  deals a pass proved unsolvable (the complete search exhausted them) into
  ``results/lists/unsolvable-Kcells-1-1000000.txt.gz``.

``--deals``, ``--runs`` and ``--lists`` move the whole thing elsewhere (the tests run it on
deals 1-200 in a scratch directory).  docs/game-makers.md gives the costs measured.
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from fcsurvey import store
from fcsurvey.dealset import DealSet, parse_deals
from fcsurvey.output import whole_file
from fcsurvey.schema import ERROR, SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.survey import CHUNK_SIZES
from fcsurvey.tables import load_table, union

RUNS, LISTS = Path("results/runs"), Path("results/lists")
DEALS = "1-1000000"
#: Exit status when a step cannot run yet (an earlier pass unfinished): as survey's 1.
EXIT_NOT_READY = 1


@dataclass(frozen=True)
class Pass:
    """One pass: its name, the positions a deal may store (searches only, no timeout), and
    about how many of its deals a chunk file holds (a later pass's deals are sparse, so its
    chunks are cut by deal numbers holding about that many)."""

    name: str
    max_states: int
    chunk_deals: int


#: Pass 1's chunks: 10,000 deals, a file of 75 kB and 12-80 s of one core.  Later passes'
#: chunks: a minute or a few of one core (about 0.5-1 s a deal at 2,000,000 positions, 10 s
#: at 10,000,000).
FIRST = Pass("pass1", 100_000, 10_000)
SECOND, THIRD = Pass("pass2", 2_000_000, 50), Pass("pass3", 10_000_000, 20)
#: The passes of each table (4 cells ships from results/freecell_1-1000000, a whole survey).
PASSES = {3: (FIRST, SECOND), 2: (FIRST, SECOND, THIRD), 1: (FIRST, SECOND)}


def cells_name(cells: int) -> str:
    """``3cells``, ``1cell``: how file and directory names say the free cells."""
    return "1cell" if cells == 1 else f"{cells}cells"


def run_dir(runs: Path, cells: int, step: Pass) -> Path:
    return runs / f"tables-{cells_name(cells)}-{step.name}"


def rows(dataset: Path) -> List[dict]:
    """Deal and status of each row of ``dataset`` (none if it is not started)."""
    if not (dataset / store.MANIFEST).exists():
        return []
    return store.read(dataset, columns=["deal", "status"]).to_pylist()


def unknown_after(runs: Path, cells: int, index: int, deals: DealSet) -> Tuple[Optional[List[int]], str]:
    """The deals pass ``index`` is to solve: all of ``deals`` for the first, else those the
    pass before left ``unknown``; ``None`` and why, when the pass before is not finished."""
    if index == 0:
        return list(deals), ""
    passes = PASSES[cells]
    before = run_dir(runs, cells, passes[index - 1])
    wanted, _ = unknown_after(runs, cells, index - 1, deals)
    if wanted is None:
        return None, f"{passes[index - 2].name} is not finished"
    found = rows(before)
    if not finished(found, wanted):
        return None, f"{before} holds {len(found):,} of its {len(wanted):,} deals: finish {passes[index - 1].name} first"
    return sorted(r["deal"] for r in found if r["status"] == UNKNOWN), ""


def finished(found: List[dict], wanted: Sequence[int]) -> bool:
    """Whether a pass's rows ``found`` give each of its ``wanted`` deals a verdict (an ``error``
    row is none: rerunning the pass solves it again)."""
    return len(found) == len(wanted) and all(r["status"] != ERROR for r in found)


def chunk_for(step: Pass, todo: Sequence[int], deals: DealSet) -> int:
    """The chunk size (deal numbers, one of the survey's) giving about ``step.chunk_deals`` of
    ``todo`` a chunk; pass 1's, which solves every deal, is ``step.chunk_deals`` itself."""
    span = deals.ranges[-1][1] - deals.ranges[0][0] + 1
    fitting = [s for s in CHUNK_SIZES if len(todo) * s >= step.chunk_deals * span]
    return min(fitting, default=CHUNK_SIZES[-1])


def run_pass(runs: Path, cells: int, index: int, deals: DealSet, extra: List[str]) -> int:
    """Run (or resume) pass ``index`` for ``cells`` as one ``fcsurvey survey``."""
    step = PASSES[cells][index]
    todo, why = unknown_after(runs, cells, index, deals)
    if todo is None:
        print(f"{step.name} cannot start: {why}", file=sys.stderr)
        return EXIT_NOT_READY
    if not todo:
        print(f"{PASSES[cells][index - 1].name} leaves no deal unknown: {step.name} has nothing to do")
        return 0
    out = run_dir(runs, cells, step)
    out.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "fcsurvey", "survey", "--cells", str(cells), "--searches-only",
               "--max-states", str(step.max_states), "--no-solutions", "--out", str(out)]
    chunk = ["--chunk-size", str(chunk_for(step, todo, deals))]
    if index == 0:
        return subprocess.call(command[:4] + [str(deals)] + command[4:] + chunk + extra)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("".join(f"{n}\n" for n in todo))
    try:
        return subprocess.call(command + ["--deals-file", f.name] + chunk + extra)
    finally:
        os.unlink(f.name)


def status(runs: Path, cells: int, deals: DealSet) -> None:
    """Each pass's counts, and what the table holds so far."""
    won, proved, decided = set(), set(), set()
    for index, step in enumerate(PASSES[cells]):
        out = run_dir(runs, cells, step)
        todo, why = unknown_after(runs, cells, index, deals)
        found = rows(out)
        if todo is None:
            print(f"{out}: waits ({why})")
            continue
        counts = Counter(r["status"] for r in found)
        won |= {r["deal"] for r in found if r["status"] == SOLVED}
        proved |= {r["deal"] for r in found if r["status"] == UNSOLVABLE}
        decided |= {r["deal"] for r in found if r["status"] != UNKNOWN}
        state = "finished" if finished(found, todo) else f"{100 * len(found) / max(len(todo), 1):.1f}% done"
        print(f"{out}: {len(found):,} of {len(todo):,} deals ({state}): "
              + (", ".join(f"{v:,} {k}" for k, v in sorted(counts.items()))
                 or ("not started" if todo else "nothing to do")))
    print(f"{cells_name(cells)} table so far: {len(won):,} winnable ({100 * len(won) / len(deals):.3f}% of "
          f"{len(deals):,}), {len(proved):,} proved unsolvable, {len(deals) - len(decided):,} undecided")


def export(dataset: Path, fmt: str, where: Optional[str], target: Path) -> None:
    """``fcsurvey export DATASET --format FMT [--where W] --out TARGET``, which must succeed."""
    command = [sys.executable, "-m", "fcsurvey", "export", str(dataset), "--format", fmt, "--out", str(target)]
    done = subprocess.run(command + (["--where", where] if where else []), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")


def ship(runs: Path, lists: Path, cells: int, deals: DealSet) -> int:
    """Write the table and the list of deals proved unsolvable, once every pass is finished."""
    done = []
    for index, step in enumerate(PASSES[cells]):
        todo, why = unknown_after(runs, cells, index, deals)
        if todo is None or not finished(rows(run_dir(runs, cells, step)), todo):
            print(f"cannot ship the {cells_name(cells)} table: {why or step.name + ' is not finished'}",
                  file=sys.stderr)
            return EXIT_NOT_READY
        if todo:
            done.append(run_dir(runs, cells, step))
    name = f"{cells_name(cells)}-{deals.ranges[0][0]}-{deals.ranges[-1][1]}"
    lists.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        tables, proved = [], set()
        for i, dataset in enumerate(done):
            export(dataset, "bitmap", None, Path(scratch) / f"{i}.bin")
            tables.append(load_table(Path(scratch) / f"{i}.bin"))
            export(dataset, "txt", "status = unsolvable", Path(scratch) / f"{i}.txt")
            proved |= {int(n) for n in (Path(scratch) / f"{i}.txt").read_text().split()}
    table = union(*tables)
    table_file, proved_file = lists / f"winnable-{name}.bin", lists / f"unsolvable-{name}.txt.gz"
    with whole_file(table_file, "wb") as out:
        out.write(table.to_bytes())
    with whole_file(proved_file, "wb") as out:
        out.write(gzip.compress("".join(f"{n}\n" for n in sorted(proved)).encode(), compresslevel=9, mtime=0))
    print(f"{table_file}: {len(table):,} winnable deals, {table_file.stat().st_size:,} bytes")
    print(f"{proved_file}: {len(proved):,} deals proved unsolvable, {proved_file.stat().st_size:,} bytes")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="Other options go to fcsurvey survey (e.g. -v, --log-file F).")
    names = list(dict.fromkeys(p.name for passes in PASSES.values() for p in passes))
    parser.add_argument("step", choices=names + ["status", "ship"])
    parser.add_argument("--cells", type=int, choices=tuple(PASSES), help="Free cells (status: all by default).")
    parser.add_argument("--deals", default=DEALS, help=f"The deals of the table [default: {DEALS}].")
    parser.add_argument("--runs", type=Path, default=RUNS, help=f"Where the passes live [default: {RUNS}].")
    parser.add_argument("--lists", type=Path, default=LISTS, help=f"Where ship writes [default: {LISTS}].")
    args, extra = parser.parse_known_args(argv)
    deals = parse_deals(args.deals)
    if extra and args.step in ("status", "ship"):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.step == "status":
        for cells in [args.cells] if args.cells else PASSES:
            status(args.runs, cells, deals)
        return 0
    if args.cells is None:
        parser.error(f"{args.step} needs --cells")
    if args.step == "ship":
        return ship(args.runs, args.lists, args.cells, deals)
    steps = [p.name for p in PASSES[args.cells]]
    if args.step not in steps:
        parser.error(f"the {cells_name(args.cells)} table is made in {', '.join(steps)}: it has no {args.step}")
    return run_pass(args.runs, args.cells, steps.index(args.step), deals, extra)


if __name__ == "__main__":
    sys.exit(main())

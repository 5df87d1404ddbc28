"""Measure the dataset layout: run ``fcsurvey survey DEALS --no-solutions`` into a fresh
directory, then print its wall time, file count, bytes a deal, and whether its verdicts
equal a reference dataset's row for row (by default the shipped results/freecell_1-1000000,
made with 500-deal chunks at the top of the directory).

    python scripts/bench_layout.py                       # deals 1-1000000, about 5 CPU-minutes
    python scripts/bench_layout.py --deals 1-32000 --reference results/freecell_1-32000

Exit status 1 if a verdict differs.  The run is the real CLI, so it also measures a
survey's start-up and its writes; keep the machine otherwise idle for a fair wall time.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.compute as pc

from fcsurvey import store
from fcsurvey.dealset import parse_deals

ROOT = Path(__file__).resolve().parent.parent
#: The columns that make a verdict: what the deal ended as and why.
VERDICT = ("deal", "status", "limit")


def dataset_bytes(path: Path) -> tuple:
    """(chunk files, their bytes, bytes of everything in the directory)."""
    files = store.chunk_files(path)
    return len(files), sum(f.stat().st_size for f in files), sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-1000000")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--reference", type=Path, default=ROOT / "results" / "freecell_1-1000000")
    parser.add_argument("--out", type=Path, default=None, help="kept afterwards (default: a temp dir, removed)")
    args = parser.parse_args()
    deals = parse_deals(args.deals)
    scratch = Path(tempfile.mkdtemp(prefix="fcsurvey-layout-"))
    out = args.out or scratch / "out"
    fcsurvey = Path(sys.executable).parent / "fcsurvey"
    try:
        started = time.monotonic()
        subprocess.run([str(fcsurvey), "survey", args.deals, "--no-solutions", "--workers", str(args.workers),
                        "--out", str(out)], check=True, stdout=sys.stderr)
        wall = time.monotonic() - started
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        files, chunk_bytes, all_bytes = dataset_bytes(out)
        ref_files, ref_bytes, _ = dataset_bytes(args.reference)
        print(f"survey {args.deals} --no-solutions --workers {args.workers}: {wall:,.1f} s wall, "
              f"{len(deals) / wall:,.0f} deals/s; {(used.ru_utime + used.ru_stime) / 3600:.3f} core-hours of CPU "
              f"(the survey and its workers; compare fcsurvey survey {args.deals} --plan)")
        print(f"new layout: {files:,} files, {chunk_bytes:,} bytes ({chunk_bytes / len(deals):.2f} bytes a deal; "
              f"{all_bytes:,} with manifest and log)")
        print(f"reference:  {ref_files:,} files, {ref_bytes:,} bytes ({ref_bytes / len(deals):.2f} bytes a deal)")
        ours = store.read(out, columns=list(VERDICT) + ["moves"])
        theirs = store.read(args.reference, columns=list(VERDICT) + ["moves"], deals=deals)
        same = ours.select(list(VERDICT)).equals(theirs.select(list(VERDICT)))
        moves = pc.sum(pc.cast(pc.equal(ours["moves"], theirs["moves"]), "int64")).as_py() if same else None
        print(f"verdicts ({', '.join(VERDICT)}) equal the reference's row for row: {'yes' if same else 'NO'}"
              + (f"; same move count on {moves:,} of {ours.num_rows:,} solved-or-not rows" if same else ""))
        return 0 if same else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""Measure a resumed survey's start-up on a dataset of many chunk records.

Makes a dataset of ``--chunks`` chunk files of ``--chunk-size`` deals (100,000 of 500 by
default: 50,000,000 deals in 5 block directories) whose chunk log names every one, then
times what a rerun does before solving anything: reading the log, listing the block
directories, and the whole of ``Survey(...)`` (the lock, the manifest, the deals left to
do).  The files are stand-ins of a few bytes: a file the log names with its size and
time is never opened, which the run checks (opening one raises).  For comparison it times
the way a dataset without a log is opened, every file's footer read, on the shipped
results/freecell_1-1000000 (2,000 files), per file.

    python scripts/bench_resume.py
    python scripts/bench_resume.py --chunks 1000000 --dir /scratch/x    # on the storage to be used
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from fcsurvey import store
from fcsurvey.dealset import DealSet
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS
from fcsurvey.store import ChunkEntry, Dataset
from fcsurvey.survey import Survey

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "results" / "freecell_1-1000000"
STAND_IN_SOLVER = "fcsurvey.survey:default_workers"  # loads; never called (nothing is solved)


def make(path: Path, chunks: int, size: int) -> DealSet:
    """A dataset of ``chunks`` stand-in files of ``size`` deals, every one in the log."""
    dataset = Dataset.open(path, PRESETS["freecell"], Limits(), DealSet([(1, chunks * size)]), solutions=False)
    lines = []
    for k in range(chunks):
        first, last = k * size + 1, (k + 1) * size
        name = store.chunk_name(dataset.manifest, first, last)
        f = path / name
        f.parent.mkdir(exist_ok=True)
        f.write_bytes(b"PAR1")
        lines.append(ChunkEntry.of(f, DealSet([(first, last)]), {"solved": size}).record(name))
    (path / store.CHUNK_LOG).write_bytes(b"".join(lines))
    dataset.close()
    return DealSet([(1, chunks * size)])


def timed(what: str, call):  # type: ignore[no-untyped-def]
    """``call()``, printing its wall time and this process's CPU time (on a loaded machine
    the CPU time is what the work costs)."""
    started, cpu = time.perf_counter(), time.process_time()
    value = call()
    print(f"{what}: {time.perf_counter() - started:.3f} s wall, {time.process_time() - cpu:.3f} s CPU")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--chunk-size", type=int, default=500)
    parser.add_argument("--dir", type=Path, default=None, help="where to make the dataset (default: a temp dir)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="fcsurvey-resume-", dir=args.dir))
    try:
        out = scratch / "out"
        done = timed(f"made {args.chunks:,} stand-in chunk files and their log", lambda: make(out, args.chunks,
                                                                                            args.chunk_size))
        print(f"log: {(out / store.CHUNK_LOG).stat().st_size:,} bytes")
        os.sync()

        def never(*_args, **_kwargs):  # type: ignore[no-untyped-def]
            raise AssertionError("a chunk file the log names was opened")
        opener, pq.ParquetFile = pq.ParquetFile, never  # type: ignore[misc]
        try:
            entries, _ = timed("read the chunk log", lambda: store.read_log(out))
            assert len(entries) == args.chunks
            timed("list the block directories", lambda: store.chunk_files(out))
            wanted = DealSet([(1, len(done) + 1000)])
            job = timed("Survey(...) start-up, all of it", lambda: Survey(wanted, out, solver=STAND_IN_SOLVER,
                                                                          solutions=False, workers=1))
        finally:
            pq.ParquetFile = opener  # type: ignore[misc]
        assert job.todo == 1000 and job.skipped == len(done)
        job.dataset.close()
        print(f"  {job.skipped:,} deals known done, {job.todo:,} to do")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if SHIPPED.is_dir():
        copy = Path(tempfile.mkdtemp(prefix="fcsurvey-legacy-"))
        try:
            shutil.copytree(SHIPPED, copy / "old")
            files = len(store.chunk_files(copy / "old"))
            started = time.perf_counter()
            dataset = Dataset.open(copy / "old", PRESETS["freecell"], Limits(), DealSet([(1, 1_000_000)]),
                                   solutions=False, defer_manifest=True)
            seconds = time.perf_counter() - started
            dataset.close()
            print(f"without a log (every footer read): {files:,} files of {SHIPPED.name} in {seconds:.2f} s, "
                  f"{seconds / files * 1e3:.2f} ms a file ({seconds / files * args.chunks:,.0f} s for "
                  f"{args.chunks:,})")
        finally:
            shutil.rmtree(copy, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

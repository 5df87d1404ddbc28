"""The on-disk survey dataset: a directory of zstd Parquet files, one per finished chunk.

A survey may be killed at any moment and rerun, so every file is written under a name
readers ignore (leading ``.``, trailing ``.tmp``), fsynced and renamed into place: a reader
sees a chunk whole or not at all, and a rerun learns what is done just by listing the
directory.  A manifest (``_fcsurvey.json``, ignored by pyarrow/pandas/DuckDB globs like
any ``_`` file) pins the rules and limits, so results made under different conditions never
mix.  One survey at a time may write a directory; it holds an advisory lock on it.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import __version__
from .deals import GENERATOR_NAME
from .rules import Rules
from .solver import Limits

MANIFEST = "_fcsurvey.json"
MANIFEST_FORMAT = 1
TEMP_PREFIX, TEMP_SUFFIX = ".", ".tmp"
#: Where a survey's long proofs keep their checkpoints (solver.solve_position), so that a
#: killed survey, rerun, goes on with a proof where it was; hidden from readers.
PROOFS = ".proofs"
CHUNK_NAME = "deals-{first:010d}-{last:010d}.parquet"
CHUNK_PATTERN = re.compile(r"deals-(\d{10})-(\d{10})\.parquet")
COMPRESSION = "zstd"

SCHEMA = pa.schema([
    ("deal", pa.uint64()),
    ("variant", pa.string()),
    ("cells", pa.uint8()),
    ("foundation_return", pa.bool_()),
    ("status", pa.string()),
    ("moves", pa.uint16()),
    ("atomic_moves", pa.uint16()),
    ("solution", pa.string()),
    ("states", pa.uint64()),
    ("elapsed_ms", pa.float32()),
    ("limit", pa.string()),
    ("error", pa.string()),
])

#: Extra columns of a ``--difficulty`` survey (see difficulty.py); ``difficulty_rank``
#: depends on the whole dataset, so :func:`read` derives it instead of storing it.
DIFFICULTY_SCHEMA = pa.schema(list(SCHEMA) + [
    ("min_cells", pa.uint8()),
    ("min_cells_exact", pa.bool_()),
    ("min_cells_limit", pa.string()),
    ("min_cells_states", pa.uint64()),
    ("difficulty", pa.float64()),
    ("difficulty_ms", pa.float32()),
])
DIFFICULTY_RANK = "difficulty_rank"
#: Identity fields newer than manifest format 1, with what a manifest without them means.
IDENTITY_DEFAULTS = {"difficulty": False}

#: Columns that repeat the dataset's rules on every row, so one file stands alone.
RULE_COLUMNS = ("variant", "cells", "foundation_return")

# Key-value metadata in each file's schema.
META_VERSION = "fcsurvey.version"
META_RULES = "fcsurvey.rules"
META_LIMITS = "fcsurvey.limits"
META_GENERATOR = "fcsurvey.generator"
META_RUN = "fcsurvey.run"  # per file: when its run started and when the file was written
META_BUILD = "fcsurvey.core_build"  # the digest of the C core that solved the file's deals


class StoreError(ValueError):
    """An output directory that cannot be used: unwritable, busy, or holding other results."""


class DealSet:
    """Deal numbers kept as sorted, disjoint, non-touching inclusive ranges.

    Surveys ask for ranges of up to 8.6 billion deals, so sets are never materialised:
    ``1-8589934591`` is one pair, and set operations walk the pairs.
    """

    __slots__ = ("ranges",)

    def __init__(self, ranges: Iterable[Tuple[int, int]] = ()) -> None:
        merged: List[Tuple[int, int]] = []
        for lo, hi in sorted(ranges):
            if merged and lo <= merged[-1][1] + 1:
                if hi > merged[-1][1]:
                    merged[-1] = (merged[-1][0], hi)
            else:
                merged.append((lo, hi))
        self.ranges: Tuple[Tuple[int, int], ...] = tuple(merged)

    @classmethod
    def from_sorted(cls, numbers: Iterable[int]) -> "DealSet":
        """The set of ascending ``numbers`` (as read from a dataset's deal column)."""
        runs: List[Tuple[int, int]] = []
        for n in numbers:
            if runs and n <= runs[-1][1] + 1:
                runs[-1] = (runs[-1][0], max(n, runs[-1][1]))
            else:
                runs.append((n, n))
        return cls(runs)

    def __len__(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.ranges)

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def __iter__(self) -> Iterator[int]:
        for lo, hi in self.ranges:
            yield from range(lo, hi + 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DealSet) and self.ranges == other.ranges

    def __or__(self, other: "DealSet") -> "DealSet":
        return DealSet(self.ranges + other.ranges)

    def __sub__(self, other: "DealSet") -> "DealSet":
        cut, j, out = other.ranges, 0, []
        for lo, hi in self.ranges:
            while j < len(cut) and cut[j][1] < lo:
                j += 1
            start, k = lo, j
            while k < len(cut) and cut[k][0] <= hi:
                if cut[k][0] > start:
                    out.append((start, cut[k][0] - 1))
                start = max(start, cut[k][1] + 1)
                k += 1
            if start <= hi:
                out.append((start, hi))
        return DealSet(out)

    def __str__(self) -> str:
        """The survey command's own syntax, e.g. ``1-500,617,1000-2000``."""
        return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in self.ranges)

    def __repr__(self) -> str:
        return f"DealSet({str(self)!r})"


def identity(rules: Rules, limits: Limits, difficulty: bool = False) -> Dict[str, Any]:
    """What must match for two runs' results to share one dataset."""
    return {"rules": rules.to_dict(), "limits": dataclasses.asdict(limits), "generator": GENERATOR_NAME,
            "difficulty": difficulty}


def schema_for(manifest: Mapping[str, Any]) -> pa.Schema:
    """The columns of a dataset's files: a ``--difficulty`` survey has more."""
    return DIFFICULTY_SCHEMA if manifest.get("difficulty") else SCHEMA


def difficulty_rank(difficulty: pa.ChunkedArray) -> pa.Array:
    """Rank 1 for the hardest deal; equal scores share a rank; null where there is no score."""
    ranks = pc.rank(difficulty, sort_keys="descending", tiebreaker="min")
    return pc.if_else(pc.is_null(difficulty), pa.scalar(None, pa.uint64()), ranks)


def chunk_files(path: Path) -> List[Path]:
    """The dataset's finished chunk files, in deal order."""
    try:
        names = sorted(os.listdir(path))
    except FileNotFoundError:
        return []
    return [Path(path) / name for name in names if CHUNK_PATTERN.fullmatch(name)]


def temp_files(path: Path) -> List[Path]:
    try:
        names = os.listdir(path)
    except FileNotFoundError:
        return []
    return [Path(path) / n for n in names if n.startswith(TEMP_PREFIX) and n.endswith(TEMP_SUFFIX)]


def read_manifest(path: Path) -> Dict[str, Any]:
    """The manifest of dataset ``path``; StoreError if there is none."""
    try:
        with open(Path(path) / MANIFEST, encoding="utf-8") as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise StoreError(f"{path} is not an fcsurvey dataset (no {MANIFEST})") from None
    except (OSError, ValueError) as exc:
        raise StoreError(f"cannot read {Path(path) / MANIFEST}: {exc}") from None
    if manifest.get("format") != MANIFEST_FORMAT:
        raise StoreError(f"{path} was written by an incompatible fcsurvey (manifest format "
                         f"{manifest.get('format')!r}, expected {MANIFEST_FORMAT})")
    return manifest


def schema_metadata(manifest: Mapping[str, Any]) -> Dict[str, str]:
    """The key-value metadata every file of the dataset carries (the core build only where
    the manifest records one: older datasets do not)."""
    build = {META_BUILD: manifest["core_build"]} if manifest.get("core_build") else {}
    return {
        META_VERSION: manifest["fcsurvey_version"],
        META_RULES: Rules.from_dict(manifest["rules"]).to_json(),
        META_LIMITS: json.dumps(manifest["limits"], sort_keys=True),
        META_GENERATOR: manifest["generator"],
        **build,
    }


def read(path: Path) -> pa.Table:
    """The whole dataset at ``path`` as one table sorted by deal.

    The schema metadata is the dataset's (version, rules, limits, generator), without the
    per-file run times.  A ``--difficulty`` dataset gets a ``difficulty_rank`` column too.
    """
    manifest = read_manifest(path)
    files = chunk_files(path)
    schema = schema_for(manifest)
    table = (pq.read_table([str(f) for f in files], schema=schema).sort_by("deal")
             if files else schema.empty_table())
    if manifest.get("difficulty"):
        table = table.append_column(DIFFICULTY_RANK, difficulty_rank(table["difficulty"]))
    return table.replace_schema_metadata(schema_metadata(manifest))


def chunk_runs(path: Path) -> List[Tuple[float, float]]:
    """(run started, file written) Unix times of every chunk file, for wall-time accounting."""
    runs = []
    for f in chunk_files(path):
        meta = pq.read_metadata(f).metadata or {}
        run = json.loads(meta.get(META_RUN.encode(), b"{}"))
        if "started" in run and "written" in run:
            runs.append((run["started"], run["written"]))
    return runs


def chunk_builds(path: Path) -> Dict[Tuple[Optional[str], Optional[str]], int]:
    """How many chunk files each (fcsurvey version, core build) made; ``None`` where a file
    does not say (files written before builds were recorded)."""
    builds: Dict[Tuple[Optional[str], Optional[str]], int] = {}
    for f in chunk_files(path):
        meta = pq.read_metadata(f).metadata or {}
        made = tuple(meta[k.encode()].decode() if k.encode() in meta else None for k in (META_VERSION, META_BUILD))
        builds[made] = builds.get(made, 0) + 1  # type: ignore[index]
    return builds


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomically(final: Path, write: Any) -> None:
    """Call ``write(file)`` on a temp file beside ``final``, fsync it, rename it into place."""
    temp = final.with_name(f"{TEMP_PREFIX}{final.name}{TEMP_SUFFIX}")
    try:
        with open(temp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, final)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(final.parent)


def _may_hold(file: Path, column: str, value: str) -> bool:
    """Whether ``column`` of ``file`` may hold ``value``, by its row groups' min/max
    statistics (True where a group has none)."""
    meta = pq.read_metadata(file)
    index = meta.schema.names.index(column)
    for g in range(meta.num_row_groups):
        stats = meta.row_group(g).column(index).statistics
        if stats is None or not stats.has_min_max or stats.min <= value <= stats.max:
            return True
    return False


def _differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> List[str]:
    """``rules.cells: 4 here, 3 asked`` lines for every field that differs."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key} {json.dumps(a)} (dataset) vs {json.dumps(b)} (asked)")
    return out


class Dataset:
    """An output directory opened for writing one survey's chunks.

    Opening it takes the directory's lock, clears temp files left by a killed run, and
    checks or creates the manifest; all of that happens before any deal is solved.
    """

    def __init__(self, path: Path, lock_fd: int, manifest: Dict[str, Any]) -> None:
        self.path = path
        self._lock_fd: Optional[int] = lock_fd
        self.manifest = manifest
        self.rules = Rules.from_dict(manifest["rules"])
        self.requested = DealSet(tuple(r) for r in manifest["requested"])
        self.schema = schema_for(manifest)
        self._metadata = schema_metadata(manifest)

    @classmethod
    def open(cls, path: Path, rules: Rules, limits: Limits, requested: DealSet, *,
             force_new: bool = False, difficulty: bool = False, build: Optional[str] = None) -> "Dataset":
        """Open (creating if needed) the dataset at ``path`` for results under ``rules`` and
        ``limits``, adding ``requested`` to the deals it is meant to cover; ``difficulty``
        datasets also hold the columns of DIFFICULTY_SCHEMA.  ``build`` (the solver's
        core_build) goes into the manifest and every file written from now on, so a reader
        can tell which build solved what.

        A directory holding results made with other rules or limits, or in the other mode,
        is refused unless ``force_new``, which deletes those results first.
        """
        path = Path(path)
        try:
            path.mkdir(parents=True, exist_ok=True)
            lock_fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise StoreError(f"cannot use {path} as the output directory: {exc.strerror}") from None
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(lock_fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EACCES):
                raise StoreError(f"another survey is writing to {path}; wait for it or stop it") from None
            raise
        try:
            return cls(path, lock_fd, cls._prepare(path, identity(rules, limits, difficulty), requested,
                                                   force_new, build))
        except BaseException:
            os.close(lock_fd)
            raise

    @staticmethod
    def _prepare(path: Path, wanted: Dict[str, Any], requested: DealSet,
                 force_new: bool, build: Optional[str]) -> Dict[str, Any]:
        if force_new:
            for f in chunk_files(path):
                f.unlink()
            shutil.rmtree(path / PROOFS, ignore_errors=True)
            (path / MANIFEST).unlink(missing_ok=True)
        for f in temp_files(path):
            f.unlink()
        if (path / MANIFEST).exists():
            manifest = read_manifest(path)
            diffs = _differences({k: manifest.get(k, IDENTITY_DEFAULTS.get(k)) for k in wanted}, wanted)
            if diffs:
                raise StoreError(f"{path} holds results made with other rules or limits "
                                 f"({'; '.join(diffs)}); use --force-new to delete them and start "
                                 f"afresh, or choose another --out")
            requested = requested | DealSet(tuple(r) for r in manifest["requested"])
        elif chunk_files(path):
            raise StoreError(f"{path} holds chunk files but no {MANIFEST}, so their rules are "
                             f"unknown; use --force-new to delete them, or choose another --out")
        manifest = {"format": MANIFEST_FORMAT, "fcsurvey_version": __version__, **wanted,
                    "requested": [list(r) for r in requested.ranges],
                    **({"core_build": build} if build else {})}
        text = json.dumps(manifest, indent=1, sort_keys=True).encode()
        try:
            _write_atomically(path / MANIFEST, lambda f: f.write(text))
        except OSError as exc:
            raise StoreError(f"cannot write to {path}: {exc.strerror}") from None
        return manifest

    def done(self) -> DealSet:
        """Every deal already in a finished chunk file, whatever chunk size made it.

        A file named ``deals-A-B`` holding B - A + 1 rows holds A..B; only other files
        (from comma lists or gap-filling reruns) need their deal column read.
        """
        ranges: List[Tuple[int, int]] = []
        for f in chunk_files(self.path):
            first, last = (int(g) for g in CHUNK_PATTERN.fullmatch(f.name).groups())  # type: ignore[union-attr]
            try:
                if pq.read_metadata(f).num_rows == last - first + 1:
                    ranges.append((first, last))
                else:
                    ranges += DealSet.from_sorted(pq.read_table(f, columns=["deal"])["deal"].to_pylist()).ranges
            except (OSError, pa.ArrowException) as exc:
                raise StoreError(f"chunk file {f} is unreadable ({exc}); delete it and rerun") from None
        return DealSet(ranges)

    def deals_with(self, status: str) -> List[Tuple[Path, DealSet]]:
        """Each chunk file holding rows of ``status``, with their deals (a survey solves its
        ``error`` deals again).  A file's statistics clear most files without reading a row."""
        found = []
        for f in chunk_files(self.path):
            try:
                if not _may_hold(f, "status", status):
                    continue
                rows = pq.read_table(f, columns=["deal", "status"])
            except (OSError, pa.ArrowException) as exc:
                raise StoreError(f"chunk file {f} is unreadable ({exc}); delete it and rerun") from None
            deals = rows.filter(pc.equal(rows["status"], status))["deal"].to_pylist()
            if deals:
                found.append((f, DealSet.from_sorted(sorted(deals))))
        return found

    def rewrite_chunk(self, path: Path, rows: Sequence[Mapping[str, Any]], run_started: float) -> Path:
        """Replace the rows of chunk file ``path`` that are for the deals of ``rows`` by them.

        The file keeps its deals, so its name, and is replaced by one atomic rename: a
        reader, or a run killed meanwhile, sees the old file or the new one, never both and
        never a deal twice."""
        new = {r["deal"] for r in rows}
        old = pq.read_table(path, schema=self.schema).to_pylist()
        held = [r["deal"] for r in old]
        stray = new - set(held)
        if stray:
            raise StoreError(f"{path} holds no row for deals {DealSet((d, d) for d in stray)}")
        if path.name != CHUNK_NAME.format(first=min(held), last=max(held)):
            raise StoreError(f"chunk file {path} is misnamed for its deals {min(held)}-{max(held)}; "
                             f"delete it and rerun")
        return self.write_chunk([r for r in old if r["deal"] not in new] + list(rows), run_started)

    def write_chunk(self, rows: Sequence[Mapping[str, Any]], run_started: float) -> Path:
        """Write one chunk's rows (a dict per deal, rule columns left out) atomically."""
        rows = sorted(rows, key=lambda r: r["deal"])
        constants = {"variant": self.rules.variant, "cells": self.rules.cells,
                     "foundation_return": self.rules.foundation_return}
        columns = {name: [constants[name]] * len(rows) if name in RULE_COLUMNS
                   else [r.get(name) for r in rows] for name in self.schema.names}
        run = json.dumps({"started": run_started, "written": time.time()})
        table = pa.table(columns, schema=self.schema).replace_schema_metadata({**self._metadata, META_RUN: run})
        final = self.path / CHUNK_NAME.format(first=rows[0]["deal"], last=rows[-1]["deal"])
        _write_atomically(final, lambda f: pq.write_table(table, f, compression=COMPRESSION))
        return final

    def close(self) -> None:
        """Release the directory's lock."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

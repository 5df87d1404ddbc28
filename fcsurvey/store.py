"""The on-disk survey dataset: a tree of zstd Parquet files, one per finished chunk.

A survey may be killed at any moment and rerun, so every file is written under a name
readers ignore (leading ``.``, trailing ``.tmp``), fsynced and renamed into place: a reader
sees a chunk whole or not at all.  A manifest (``_fcsurvey.json``, ignored by
pyarrow/pandas/DuckDB globs like any ``_`` file) pins the rules, limits and settings, and
every chunk file records them too: reading a dataset checks each file against the manifest
(and no deal may be in two files), so results made under different conditions never mix,
even when files are copied between directories by hand.  One survey at a time may write a
directory; it holds an advisory lock on it.  The row schema itself is schema.py's.

Ten billion rows need a layout of their own (the manifest's ``layout``): files sit in one
Hive-style directory per BLOCK_DEALS deals (``block=0000/``), which pyarrow, DuckDB and
Polars read as a ``block`` column, and hold several row groups; the deal column is
delta-encoded and the timings byte-split, so a file costs about 6.5 bytes a deal without
solutions.  Datasets made before (no ``layout``) keep every file at the top, and stay
readable and resumable as they are.

Every page of a chunk file carries a CRC-32 of its bytes, checked whenever it is read:
zstd does not notice a flipped bit in an integer column, so without it a damaged disk
block could turn a ``solved`` deal ``unsolvable`` and be read back as a verdict.  Files
written before the checksums have none; their pages are read unchecked.

What is done is known without opening a file: the survey appends one fsynced line per
finished chunk file to the chunk log (``_fcsurvey.log``, beside the manifest), each line
with the CRC-32 of its fields.  Resuming reads it and lists the directories; only a file
the log does not name (or names in a line whose CRC no longer holds), or names with
another size or time (a crash between rename and log line, a file copied in by hand), is opened
and checked.  :func:`check` compares every file with the log on demand
(``fcsurvey survey --check``) and rewrites the log from the files where they disagree.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import os
import re
import secrets
import shutil
import time
import zlib
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import __version__
from .bands import band_column
from .deals import GENERATOR_NAME
from .dealset import MAX_DEAL, MIN_DEAL, DealSet
from .rules import Rules, RulesError
from .limits import OPTIMAL_LENGTH, Limits
from .schema import BAND, DIFFICULTY_RANK, LATER_DIFFICULTY_COLUMNS, SOLVED, arrow_schema, column_values

MANIFEST = "_fcsurvey.json"
MANIFEST_FORMAT = 1
TEMP_PREFIX, TEMP_SUFFIX = ".", ".tmp"
#: Where a survey's long proofs keep their checkpoints (solver.solve_position), so that a
#: killed survey, rerun, goes on with a proof where it was; hidden from readers.
PROOFS = ".proofs"
CHUNK_NAME = "deals-{first:010d}-{last:010d}.parquet"
CHUNK_PATTERN = re.compile(r"deals-(\d{10})-(\d{10})\.parquet")
COMPRESSION = "zstd"
#: Readers and writers of chunk files: a checksum on every page, written and checked.
WRITE_OPTIONS = {"write_page_checksum": True}
READ_OPTIONS = {"page_checksum_verification": True}
#: The partition directories of a dataset with a layout: ``block=0000`` holds deals 1 to
#: BLOCK_DEALS, ``block=0001`` the next BLOCK_DEALS, ... (859 for the whole numbering).
PARTITION = "block"
BLOCK_DEALS = 10_000_000
PARTITION_NAME = PARTITION + "={:04d}"
PARTITION_PATTERN = re.compile(PARTITION + r"=(\d{4})")
#: Rows per row group: a file of 100,000 deals has four, which readers can skip by statistics.
ROW_GROUP_ROWS = 25_000
#: Encodings that shrink the columns zstd alone does badly on (measured on deals 1-1,000,000:
#: the deal column 3 bytes a row to nearly nothing, elapsed_ms 3.8 to 2.6); the rest are
#: dictionary-encoded, Parquet's default.  Both are in every Parquet reader's baseline.
ENCODINGS = {"deal": "DELTA_BINARY_PACKED", "elapsed_ms": "BYTE_STREAM_SPLIT", "difficulty_ms": "BYTE_STREAM_SPLIT"}
#: The append-only log of finished chunk files, one JSON line each (see the module notes).
CHUNK_LOG = "_fcsurvey.log"
LOG_CRC = "crc"  # each log line's CRC-32 of its other fields
LOG_FIELDS = {"chunk", "deals", "counts", "bytes", "mtime_ns"}

#: The Arrow schemas of a dataset's files, plain and ``--difficulty`` (columns in schema.py).
SCHEMA = arrow_schema()
DIFFICULTY_SCHEMA = arrow_schema(difficulty=True)
#: Identity fields newer than manifest format 1, with what a manifest without them means.
#: A manifest without ``solutions`` (fcsurvey 0.1.0) is told by its rows: see
#: :func:`_stored_solutions`.
IDENTITY_DEFAULTS = {"difficulty": False}


def layout() -> Dict[str, Any]:
    """The layout a new dataset records in its manifest (see the module notes)."""
    return {"partition": PARTITION, "block_deals": BLOCK_DEALS, "row_group_rows": ROW_GROUP_ROWS}


def chunk_name(manifest: Mapping[str, Any], first: int, last: int) -> str:
    """Where the chunk file of deals ``first``-``last`` lives, relative to the dataset: in
    its block's directory, or at the top for a dataset without a layout.  A chunk never
    spans two blocks (survey.plan_chunks cuts at their edges)."""
    name = CHUNK_NAME.format(first=first, last=last)
    shape = manifest.get("layout")
    if not shape:
        return name
    return f"{PARTITION_NAME.format((first - 1) // shape['block_deals'])}/{name}"


def is_difficulty(manifest: Mapping[str, Any]) -> bool:
    """Whether the dataset of ``manifest`` holds --difficulty columns (older manifests do not say: no)."""
    return bool(manifest.get("difficulty", IDENTITY_DEFAULTS["difficulty"]))

# Key-value metadata in each file's schema.
META_VERSION = "fcsurvey.version"
META_RULES = "fcsurvey.rules"
META_LIMITS = "fcsurvey.limits"
META_GENERATOR = "fcsurvey.generator"
META_SOLUTIONS = "fcsurvey.solutions"    # "true" or "false"; files of fcsurvey 0.1.0 lack it
META_DIFFICULTY = "fcsurvey.difficulty"  # the same; their columns tell
META_RUN = "fcsurvey.run"  # per file: when its run started and when the file was written
META_BUILD = "fcsurvey.core_build"  # the digest of the C core that solved the file's deals


class StoreError(ValueError):
    """A dataset that cannot be used: unwritable, busy, holding other results, or holding a
    chunk file that is unreadable, made for another dataset, or repeating another's deals."""


def identity(rules: Rules, limits: Limits, difficulty: bool = False, solutions: bool = True) -> Dict[str, Any]:
    """What must match for two runs' results to share one dataset."""
    return {"rules": rules.to_dict(), "limits": limits.to_dict(), "generator": GENERATOR_NAME,
            "difficulty": difficulty, "solutions": solutions}


def schema_for(manifest: Mapping[str, Any]) -> pa.Schema:
    """The columns of a dataset's files: a ``--difficulty`` survey has more."""
    if manifest["limits"].get("length") == OPTIMAL_LENGTH:
        return arrow_schema(bool(manifest.get("difficulty")), par=True)
    return DIFFICULTY_SCHEMA if manifest.get("difficulty") else SCHEMA


def difficulty_rank(difficulty: pa.ChunkedArray) -> pa.Array:
    """Rank 1 for the hardest deal; equal scores share a rank; null where there is no score."""
    ranks = pc.rank(difficulty, sort_keys="descending", tiebreaker="min")
    return pc.if_else(pc.is_null(difficulty), pa.scalar(None, pa.uint64()), ranks)


def _listing(path: Path) -> List[Tuple[str, os.DirEntry]]:
    """The dataset's chunk files, each as its name relative to the dataset and its
    directory entry, at the top and in its partition directories, in deal order; no file
    is opened (and no Path made: a resume lists hundreds of thousands)."""
    found: List[Tuple[str, os.DirEntry]] = []
    try:
        with os.scandir(path) as top:
            for entry in top:
                if entry.is_dir() and PARTITION_PATTERN.fullmatch(entry.name):
                    with os.scandir(entry.path) as inside:
                        found += [(f"{entry.name}/{e.name}", e) for e in inside if CHUNK_PATTERN.fullmatch(e.name)]
                elif CHUNK_PATTERN.fullmatch(entry.name):
                    found.append((entry.name, entry))
    except FileNotFoundError:
        return []
    return sorted(found, key=lambda named: named[1].name)


def _stat(entry: os.DirEntry) -> Optional[os.stat_result]:
    """The status of a listed file, or ``None`` where it cannot be had (a symbolic link to
    nothing): such a file is opened as one the log does not know, and named as unreadable."""
    try:
        return entry.stat()
    except OSError:
        return None


def chunk_files(path: Path) -> List[Path]:
    """The dataset's finished chunk files, in deal order."""
    return [Path(path) / name for name, _ in _listing(Path(path))]


def relative(path: Path, f: Path) -> str:
    """Chunk file ``f`` as the log and the layout name it: relative to dataset ``path``."""
    return f.relative_to(path).as_posix()


def temp_files(path: Path) -> List[Path]:
    """Temp files a killed run left, at the top and in the partition directories."""
    places = [Path(path)]
    try:
        places += [p for p in Path(path).iterdir() if p.is_dir() and PARTITION_PATTERN.fullmatch(p.name)]
    except FileNotFoundError:
        return []
    return [p / n for p in places for n in os.listdir(p) if n.startswith(TEMP_PREFIX) and n.endswith(TEMP_SUFFIX)]


def datasets_under(root: Path) -> List[Path]:
    """Every dataset directory below ``root`` (not looking inside datasets)."""
    found = []
    for directory, subdirs, files in os.walk(root):
        if MANIFEST in files:
            found.append(Path(directory))
            subdirs.clear()
        subdirs.sort()
    return found


def read_manifest(path: Path) -> Dict[str, Any]:
    """The manifest of dataset ``path``; StoreError if there is none."""
    try:
        with open(Path(path) / MANIFEST, encoding="utf-8") as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise StoreError(f"{path} is not an fcsurvey dataset (no {MANIFEST})") from None
    except (OSError, ValueError) as exc:
        raise StoreError(f"cannot read {Path(path) / MANIFEST}: {exc}") from None
    where = Path(path) / MANIFEST
    if not isinstance(manifest, dict):
        raise StoreError(f"{where} is not an fcsurvey manifest (a JSON object expected, got {type(manifest).__name__})")
    if manifest.get("format") != MANIFEST_FORMAT:
        raise StoreError(f"{path} was written by an incompatible fcsurvey (manifest format "
                         f"{manifest.get('format')!r}, expected {MANIFEST_FORMAT})")
    try:
        Rules.from_dict(manifest["rules"])
    except (KeyError, TypeError, RulesError) as exc:
        raise StoreError(f"{where} holds rules fcsurvey cannot play: {exc}") from None
    problem = _manifest_problem(manifest)
    if problem:
        raise StoreError(f"{where} is damaged: {problem}")
    return manifest


def _manifest_problem(manifest: Mapping[str, Any]) -> Optional[str]:
    """What is wrong with a manifest's fields besides its format and rules, or ``None``: a
    manifest edited or cut by hand must be refused by name, not met later as a crash."""
    for key, kind, called in (("fcsurvey_version", str, "a string"), ("generator", str, "a string"),
                              ("limits", dict, "an object"), ("requested", list, "an array")):
        if not isinstance(manifest.get(key), kind):
            return f"its {key!r} is missing or not {called}"
    for key, kinds, called in (("difficulty", (bool,), "true or false"), ("solutions", (bool, type(None)), "true, false or null"),
                               ("core_build", (str,), "a string")):
        if key in manifest and not isinstance(manifest[key], kinds):
            return f"its {key!r} is {json.dumps(manifest[key])}, not {called}"
    shape = manifest.get("layout")
    if shape is not None and not (isinstance(shape, dict) and shape.get("partition") == PARTITION
                                  and shape.get("block_deals") == BLOCK_DEALS):
        return (f"its 'layout' is {json.dumps(shape)}, not one this fcsurvey writes (partition "
                f"{PARTITION!r} of {BLOCK_DEALS} deals a block, or none)")
    for r in manifest["requested"]:
        if not (isinstance(r, list) and len(r) == 2 and all(type(n) is int for n in r)
                and MIN_DEAL <= r[0] <= r[1] <= MAX_DEAL):
            return f"its requested deals hold {r!r}, not a range of deal numbers {MIN_DEAL}-{MAX_DEAL}"
    return None


def schema_metadata(manifest: Mapping[str, Any]) -> Dict[str, str]:
    """The key-value metadata every file of the dataset carries (the core build only where
    the manifest records one: older datasets do not)."""
    metadata = {
        META_VERSION: manifest["fcsurvey_version"],
        META_RULES: Rules.from_dict(manifest["rules"]).to_json(),
        META_LIMITS: json.dumps(manifest["limits"], sort_keys=True),
        META_GENERATOR: manifest["generator"],
        META_DIFFICULTY: json.dumps(is_difficulty(manifest)),
    }
    if "solutions" in manifest:
        metadata[META_SOLUTIONS] = json.dumps(manifest["solutions"])
    if manifest.get("core_build"):
        metadata[META_BUILD] = manifest["core_build"]
    return metadata


# --- reading chunk files, each checked ------------------------------------------------------

#: How to repair a dataset holding a bad chunk file, said by every error about one.
REPAIR = "delete it and rerun the survey, which solves its deals again"
SHOWN_RANGES = 3  # ranges of repeated deals an error names
SHOWN_FILES = 3   # foreign files an error names


def _rules_fields(data: Any) -> Any:
    """Rules as the value of every field (defaults filled in), or ``data`` as it is when it
    is no rule set, so that it still shows in a difference."""
    try:
        return Rules.from_dict(data).to_dict()
    except (TypeError, ValueError):
        return data


def _expected(manifest: Mapping[str, Any]) -> Dict[str, Any]:
    """What every chunk file of the dataset of ``manifest`` must say about itself."""
    return {"rules": _rules_fields(manifest["rules"]), "limits": manifest["limits"],
            "generator": manifest["generator"],
            "difficulty": is_difficulty(manifest),
            "solutions": manifest.get("solutions")}


def _declared(schema: pa.Schema) -> Dict[str, Any]:
    """What a chunk file says about itself in its schema metadata; ``None`` for what it does
    not say.  Files of fcsurvey 0.1.0 do not say ``difficulty`` (their columns do) nor
    ``solutions``."""
    metadata = {k.decode(errors="replace"): v.decode(errors="replace") for k, v in (schema.metadata or {}).items()}

    def field(key: str) -> Any:
        text = metadata.get(key)
        try:
            return None if text is None else json.loads(text)
        except ValueError:
            return text
    return {"rules": _rules_fields(field(META_RULES)), "limits": field(META_LIMITS),
            "generator": metadata.get(META_GENERATOR),
            "difficulty": field(META_DIFFICULTY) if META_DIFFICULTY in metadata else "min_cells" in schema.names,
            "solutions": field(META_SOLUTIONS)}


def _column_differences(found: pa.Schema, wanted: pa.Schema) -> List[str]:
    """What keeps a file with columns ``found`` from being read as ``wanted`` (a column
    added to the schema later may be missing: it reads as nulls, see :func:`_read_columns`)."""
    types = {f.name: f.type for f in found}
    out = [f"no {f.name} column" if f.name not in types else f"{f.name} is {types[f.name]}, not {f.type}"
           for f in wanted if types.get(f.name) != f.type
           and not (f.name not in types and f.name in LATER_DIFFICULTY_COLUMNS)]
    return out + [f"an extra {name} column" for name in types if name not in wanted.names]


class _Chunks:
    """Opens the chunk files of the dataset of ``manifest``, each only once its footer shows
    that it belongs there: the rules, limits, deal generator and settings it records are the
    manifest's, and its columns the dataset's."""

    def __init__(self, manifest: Mapping[str, Any]) -> None:
        self.expected = _expected(manifest)
        self.schema = schema_for(manifest)
        # What is wrong with a footer ("" for nothing), by what it records: the files of a
        # dataset share a few, so each is judged once however many files there are.
        self._judged: Dict[Any, str] = {}

    @contextlib.contextmanager
    def open(self, f: Path) -> Iterator[pq.ParquetFile]:
        """Chunk file ``f``, checked.  Whatever cannot be read in it, footer or data, is a
        StoreError naming it."""
        try:
            with pq.ParquetFile(f, **READ_OPTIONS) as parquet:
                schema = parquet.schema_arrow
                key = (tuple(sorted((k, v) for k, v in (schema.metadata or {}).items() if k != META_RUN.encode())),
                       schema.remove_metadata())
                if key not in self._judged:
                    self._judged[key] = self._problem(schema)
                if self._judged[key]:
                    raise StoreError(f"chunk file {f} {self._judged[key]}; {REPAIR}")
                yield parquet
        except (OSError, pa.ArrowException) as exc:
            raise _unreadable(f, exc) from None

    def _problem(self, schema: pa.Schema) -> str:
        expected, declared = dict(self.expected), _declared(schema)
        if expected["solutions"] is None or declared["solutions"] is None:  # not recorded: not known to differ
            del expected["solutions"], declared["solutions"]
        diffs = _differences(expected, declared, names=("dataset", "chunk"))
        if diffs:
            return f"was made for another dataset ({'; '.join(diffs)})"
        columns = _column_differences(schema.remove_metadata(), self.schema)
        return f"does not have the dataset's columns ({'; '.join(columns)})" if columns else ""


def _unreadable(f: Path, exc: BaseException) -> StoreError:
    reason = " ".join(str(getattr(exc, "strerror", None) or exc).split())  # one line, whatever pyarrow says
    return StoreError(f"chunk file {f} is unreadable ({reason}); {REPAIR}")


def _name_span(f: Path) -> Tuple[int, int]:
    """The first and last deal chunk file ``f`` is named for."""
    first, last = CHUNK_PATTERN.fullmatch(f.name).groups()  # type: ignore[union-attr]
    return int(first), int(last)


def _deal_span(parquet: pq.ParquetFile) -> Optional[Tuple[int, int]]:
    """The lowest and highest deal of a chunk file by its footer's statistics, without
    reading its rows; ``None`` where they are missing."""
    column, span = parquet.schema_arrow.get_field_index("deal"), None
    for group in range(parquet.metadata.num_row_groups):
        stats = parquet.metadata.row_group(group).column(column).statistics
        if stats is None or not stats.has_min_max:
            return None
        span = (stats.min, stats.max) if span is None else (min(span[0], stats.min), max(span[1], stats.max))
    return span


def _check_named(root: Path, f: Path, span: Optional[Tuple[int, int]], manifest: Mapping[str, Any]) -> None:
    """StoreError if chunk file ``f`` holds deals outside those it is named for, where its
    footer tells, or lies in another directory than the layout puts them in: readers
    choose files by name, and a partitioned reader takes its ``block`` from the directory,
    so such a file would hide its deals or mislabel them."""
    first, last = _name_span(f)
    if span is not None and (span[0] < first or span[1] > last):
        raise StoreError(f"chunk file {f} holds deals {span[0]}-{span[1]}, not only the {first}-{last} of its "
                         f"name; {REPAIR}")
    where = chunk_name(manifest, first, last)
    if relative(root, f) != where:
        raise StoreError(f"chunk file {f} is not where this dataset keeps deals {first}-{last}: move it to "
                         f"{Path(root) / where}")


def _deal_set(f: Path, deals: pa.ChunkedArray) -> DealSet:
    """The deals of chunk file ``f`` (its deal column); StoreError if one is there twice."""
    if deals.null_count:
        raise StoreError(f"chunk file {f} has rows without a deal number; {REPAIR}")
    numbers = sorted(deals.to_pylist())
    twice = next((a for a, b in zip(numbers, numbers[1:]) if a == b), None)
    if twice is not None:
        raise StoreError(f"chunk file {f} holds deal {twice} more than once; {REPAIR}")
    return DealSet.from_sorted(numbers)


def _check_disjoint(chunks: Sequence[Tuple[Path, DealSet]]) -> None:
    """StoreError naming two chunk files that hold the same deal: a file copied under another
    name, or left by another run, is reported rather than read twice."""
    reach, owner = 0, -1  # the highest deal seen, and the chunk holding it
    for lo, hi, i in sorted((lo, hi, i) for i, (_, deals) in enumerate(chunks) for lo, hi in deals.ranges):
        if lo <= reach:
            (first, theirs), (second, ours) = chunks[owner], chunks[i]
            both = theirs - (theirs - ours)
            shown = str(DealSet(both.ranges[:SHOWN_RANGES])) + (", ..." if len(both.ranges) > SHOWN_RANGES else "")
            raise StoreError(f"chunk files {first} and {second} both hold deals {shown} ({len(both):,} deals); "
                             f"one of them is a copy or was left by another run: delete the one that does "
                             f"not belong (if unsure, both, and rerun the survey to solve their deals again)")
        if hi > reach:
            reach, owner = hi, i


def _repeats(deals: pa.ChunkedArray) -> bool:
    """Whether the ascending ``deals`` hold a number twice."""
    numbers = deals.combine_chunks()
    return len(numbers) > 1 and pc.any(pc.equal(numbers.slice(1), numbers.slice(0, len(numbers) - 1))).as_py()


def read(path: Path, columns: Optional[Sequence[str]] = None, deals: Optional[DealSet] = None) -> pa.Table:
    """Dataset ``path`` as one table sorted by deal: every column or only ``columns``, every
    deal or only those of ``deals``.

    Every chunk file is checked: one that cannot be read, that was made with other rules,
    limits, deal generator or settings than the manifest's (a chunk copied in from another
    dataset), that holds deals outside those of its name, or that holds a deal another file
    read holds too, is a StoreError naming it and saying how to repair the dataset, never
    a silent mix.  With ``deals``, only the footers of the other files are read, so a few
    deals of a huge dataset cost a few files' rows.

    The schema metadata is the dataset's (version, rules, limits, generator, settings),
    without the per-file run times.  A ``--difficulty`` dataset read whole gets a
    ``difficulty_rank`` column too (it ranks the whole dataset).
    """
    path = Path(path)
    manifest = read_manifest(path)
    chunks = _Chunks(manifest)
    wanted = list(chunks.schema.names if columns is None else columns)
    needed = wanted if "deal" in wanted else ["deal"] + wanted
    pieces: List[Tuple[Path, pa.Table]] = []
    for f in chunk_files(path):
        with chunks.open(f) as parquet:
            _check_named(path, f, _deal_span(parquet), manifest)
            first, last = _name_span(f)
            if deals is None or any(lo <= last and hi >= first for lo, hi in deals.ranges):
                pieces.append((f, _read_columns(parquet, needed, chunks.schema)))
    table = (pa.concat_tables([t for _, t in pieces]).sort_by("deal") if pieces
             else chunks.schema.empty_table().select(needed))
    if table["deal"].null_count or _repeats(table["deal"]):
        _check_disjoint([(f, _deal_set(f, t["deal"])) for f, t in pieces])
    if deals is not None:
        inside = None
        for lo, hi in deals.ranges:
            here = pc.and_(pc.greater_equal(table["deal"], lo), pc.less_equal(table["deal"], hi))
            inside = here if inside is None else pc.or_(inside, here)
        table = table.filter(inside) if inside is not None else table.slice(0, 0)
    table = table.select(wanted)
    if columns is None and deals is None and manifest.get("difficulty"):
        table = table.append_column(DIFFICULTY_RANK, difficulty_rank(table["difficulty"]))
    if columns is None and manifest.get("difficulty"):
        table = table.append_column(BAND, band_column(table, Rules.from_dict(manifest["rules"]).cells))
    return table.replace_schema_metadata(schema_metadata(manifest))


def _read_columns(parquet: pq.ParquetFile, names: Sequence[str], schema: pa.Schema) -> pa.Table:
    """Columns ``names`` of a checked chunk file, those it is too old to have (only
    LATER_DIFFICULTY_COLUMNS pass the check) as nulls of ``schema``'s type."""
    present = set(parquet.schema_arrow.names)
    table = parquet.read(columns=[n for n in names if n in present])
    for name in names:
        if name not in present:
            table = table.append_column(schema.field(name), pa.nulls(table.num_rows, schema.field(name).type))
    return table.select(list(names))


def chunk_runs(path: Path) -> List[Tuple[float, float]]:
    """(run started, file written) Unix times of every chunk file, for wall-time accounting."""
    chunks, runs = _Chunks(read_manifest(path)), []
    for f in chunk_files(path):
        with chunks.open(f) as parquet:
            run = json.loads((parquet.metadata.metadata or {}).get(META_RUN.encode(), b"{}"))
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


def _stored_solutions(path: Path) -> Optional[bool]:
    """Whether the rows of a dataset whose manifest does not say (fcsurvey 0.1.0's) keep
    their solutions: yes if one row has one, no if a solved deal has none, ``None`` while no
    solved deal tells."""
    for f in chunk_files(path):
        try:
            table = pq.read_table(f, columns=["status", "solution"], **READ_OPTIONS)
        except (OSError, pa.ArrowException) as exc:
            raise _unreadable(f, exc) from None
        if table["solution"].null_count < len(table):
            return True
        if pc.any(pc.equal(table["status"], SOLVED)).as_py():
            return False
    return None


# --- writing ----------------------------------------------------------------------------------

def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def manifest_text(manifest: Dict[str, Any]) -> str:
    """The manifest as JSON, indented, with each requested range on a line of its own: a
    survey of a scattered deal list (the record's 174,390 intractable 0-cell deals) requests
    one range per deal, and indenting every number put each on a line, three times the bytes
    of the list; a line per range also keeps a resumed run's diff to the ranges it added."""
    rest = {key: value for key, value in manifest.items() if key != "requested"}
    head = json.dumps(rest, indent=1, sort_keys=True)
    ranges = ",\n  ".join(json.dumps(list(r)) for r in manifest["requested"])
    listed = f"[\n  {ranges}\n ]" if ranges else "[]"
    return f'{head[:-2]},\n "requested": {listed}\n}}\n'


def _write_atomically(final: Path, write: Any) -> None:
    """Call ``write(file)`` on a temp file beside ``final``, fsync it, rename it into place.
    The temp file's name holds the process id and a random part: two writers of the same
    chunk (a Dask task run again while its first try still writes, perhaps on another host
    sharing the disk, or in another thread) do not write into one file."""
    temp = final.with_name(f"{TEMP_PREFIX}{final.name}.{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}")
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


def _write_table(final: Path, table: pa.Table) -> None:
    """Write ``table`` as chunk file ``final`` atomically, as every chunk is written."""
    encodings = {column: kind for column, kind in ENCODINGS.items() if column in table.column_names}
    _write_atomically(final, lambda f: pq.write_table(
        table, f, compression=COMPRESSION, row_group_size=ROW_GROUP_ROWS,
        use_dictionary=[c for c in table.column_names if c not in encodings], column_encoding=encodings,
        **WRITE_OPTIONS))


def fill_later_column(path: Path, column: str, values: Mapping[int, Any]) -> int:
    """Put ``values`` (by deal) into column ``column`` of dataset ``path``, one of the
    LATER_DIFFICULTY_COLUMNS, in the files holding those deals: each file is rewritten
    whole under a temporary name and renamed into place, with its rows, its other columns
    and all its metadata (the build that solved it, its run's times) as they were, so the
    dataset reads as before but for the column.  Deals the dataset does not hold are
    ignored.  Takes the directory's lock; returns the rows changed.

    For a column added to the dataset's schema after its files were written (bands.py's
    ``kings_won``), so that an old dataset need not be surveyed again whole to have it."""
    path = Path(path)
    if column not in LATER_DIFFICULTY_COLUMNS:
        raise StoreError(f"{column} is not a column that can be filled in later")
    lock_fd = _lock(path)
    try:
        manifest = read_manifest(path)
        chunks = _Chunks(manifest)
        logged = read_log(path)
        changed = 0
        for f in chunk_files(path):
            with chunks.open(f) as parquet:
                deals = parquet.read(columns=["deal"])["deal"].to_pylist()
                if not any(d in values for d in deals):
                    continue
                metadata = parquet.schema_arrow.metadata
                table = _read_columns(parquet, chunks.schema.names, chunks.schema)
            old = table[column].to_pylist()
            new = [values.get(d, v) for d, v in zip(deals, old)]
            changed += sum(a != b for a, b in zip(old, new))
            table = table.set_column(table.schema.get_field_index(column), chunks.schema.field(column),
                                     pa.array(new, chunks.schema.field(column).type))
            try:
                _write_table(f, table.replace_schema_metadata(metadata))
            except OSError as exc:
                raise StoreError(f"cannot write {f}: {exc.strerror or exc}; the files written before it "
                                 f"are whole, so the same call goes on") from None
            if logged is not None:
                logged[0][relative(path, f)] = _examine(path, f, chunks, manifest)
        if logged is not None:
            _write_log(path, logged[0])
        return changed
    finally:
        os.close(lock_fd)


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


def _differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "",
                 names: Tuple[str, str] = ("dataset", "asked")) -> List[str]:
    """``rules.cells 4 (dataset) vs 3 (asked)`` lines for every field that differs."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{key}.", names)
        elif a != b:
            out.append(f"{prefix}{key} {json.dumps(a)} ({names[0]}) vs {json.dumps(b)} ({names[1]})")
    return out


# --- the chunk log ----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ChunkEntry:
    """What the chunk log knows of one chunk file: its deals, its rows' counts by status,
    and its size and modification time (a file of another size or time is not the one the
    log names: it was replaced since)."""

    deals: DealSet
    counts: Mapping[str, int]
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, f: Path, deals: DealSet, counts: Mapping[str, int]) -> "ChunkEntry":
        """The entry of chunk file ``f`` as it is on disk now."""
        stat = f.stat()
        return cls(deals, dict(counts), stat.st_size, stat.st_mtime_ns)

    def describes(self, stat: os.stat_result) -> bool:
        """Whether a file with ``stat`` is the one this entry was made of."""
        return (self.size, self.mtime_ns) == (stat.st_size, stat.st_mtime_ns)

    def record(self, name: str) -> bytes:
        """The log line of this entry for the file ``name`` (relative to the dataset), with
        the CRC-32 of the rest of the line: resuming trusts a line for the deals it names,
        so one changed on disk (or by hand) must not be taken for a file's."""
        fields = {"chunk": name, "deals": [list(r) for r in self.deals.ranges],
                  "counts": dict(self.counts), "bytes": self.size, "mtime_ns": self.mtime_ns}
        return (json.dumps({**fields, LOG_CRC: _line_crc(fields)}, sort_keys=True) + "\n").encode()


def _line_crc(fields: Mapping[str, Any]) -> int:
    return zlib.crc32(json.dumps(fields, sort_keys=True).encode())


def read_log(path: Path) -> Optional[Tuple[Dict[str, ChunkEntry], bool]]:
    """The entries of dataset ``path``'s chunk log by file (the last line of a file wins),
    and whether the log needs rewriting (a line torn by a crash mid-append, which only the
    last can be, or one whose CRC shows it changed since); ``None`` if there is no log (a dataset made before it)."""
    try:
        data = (Path(path) / CHUNK_LOG).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot read {Path(path) / CHUNK_LOG}: {exc.strerror}") from None
    entries, torn = {}, bool(data) and not data.endswith(b"\n")
    for line in data.decode(errors="replace").splitlines():
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or set(record) - {LOG_CRC} != LOG_FIELDS:
                raise ValueError("not a line of the log")  # a key's name changed, say
            crc = record.pop(LOG_CRC, None)  # lines of datasets made before have none
            if crc is not None and crc != _line_crc(record):
                torn = True  # changed since it was written: as a torn line
                continue
            entries[record["chunk"]] = ChunkEntry(DealSet(tuple(r) for r in record["deals"]),
                                                  record["counts"], record["bytes"], record["mtime_ns"])
        except (ValueError, KeyError, TypeError):
            torn = True  # its file is not known to the log: it is listed, opened and checked
    return entries, torn


def _examine(root: Path, f: Path, chunks: "_Chunks", manifest: Mapping[str, Any],
             whole: bool = False) -> ChunkEntry:
    """The entry of chunk file ``f``, read from the file itself, once it is checked as
    :func:`read` checks it.  A file whose footer says it holds B - A + 1 rows from deal A
    to deal B holds A..B; only other files (from comma lists or gap-filling reruns) need
    their deal column read.  ``whole`` reads every column too, so that every page's
    checksum is checked, not only those of the columns the entry needs."""
    with chunks.open(f) as parquet:
        span = _deal_span(parquet)
        _check_named(root, f, span, manifest)
        if whole:
            parquet.read()
        if span is not None and parquet.metadata.num_rows == span[1] - span[0] + 1:
            deals = DealSet([span])
            statuses = parquet.read(columns=["status"])["status"]
        else:
            table = parquet.read(columns=["deal", "status"])
            deals, statuses = _deal_set(f, table["deal"]), table["status"]
    return ChunkEntry.of(f, deals, {c["values"]: c["counts"] for c in pc.value_counts(statuses).to_pylist()})


def _lock(path: Path) -> int:
    """A descriptor of directory ``path`` (made if needed) holding its exclusive lock."""
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
    return lock_fd


def _write_log(path: Path, entries: Mapping[str, ChunkEntry]) -> None:
    """Replace dataset ``path``'s chunk log by ``entries``, atomically."""
    text = b"".join(entries[name].record(name) for name in sorted(entries))
    try:
        _write_atomically(Path(path) / CHUNK_LOG, lambda f: f.write(text))
    except OSError as exc:
        raise StoreError(f"cannot write to {path}: {exc.strerror}") from None


class Dataset:
    """An output directory opened for writing one survey's chunks.

    Opening it takes the directory's lock, clears temp files left by a killed run, checks
    the manifest, and learns what is done from the chunk log and a listing of the
    directories (see :meth:`done`); all of that happens before any deal is solved.  The
    lock's holder keeps the chunk log: every file it writes or is told of (:meth:`record`)
    gets its line.  A worker's Dataset (no lock) only writes files.
    """

    def __init__(self, path: Path, lock_fd: Optional[int], manifest: Dict[str, Any]) -> None:
        self.path = path
        self._lock_fd = lock_fd
        self.manifest = manifest
        self.rules = Rules.from_dict(manifest["rules"])
        self.requested = DealSet(tuple(r) for r in manifest["requested"])
        self.schema = schema_for(manifest)
        self._metadata = schema_metadata(manifest)
        self._entries: Dict[str, ChunkEntry] = {}  # the files found on opening
        self._recorded = DealSet()  # the deals of the files logged since: no entry kept a file,
        # so that a survey's memory does not grow with its range
        self._log_stale = False  # the log on disk is not _entries: rewritten with the manifest
        self._log_fd: Optional[int] = None

    @classmethod
    def open(cls, path: Path, rules: Rules, limits: "Limits", requested: DealSet, *,
             force_new: bool = False, difficulty: bool = False, solutions: bool = True,
             defer_manifest: bool = False, build: Optional[str] = None) -> "Dataset":
        """Open (creating if needed) the dataset at ``path`` for results under ``rules`` and
        ``limits``, adding ``requested`` to the deals it is meant to cover; ``difficulty``
        datasets also hold the columns of DIFFICULTY_SCHEMA, and ``solutions`` says whether
        rows keep their solutions.  ``build`` (the solver's core_build) goes into the manifest
        and every file written from now on, so a reader can tell which build solved what.
        A new dataset gets today's layout; one made before keeps the one it has.

        A directory holding results made with other rules or limits, or in the other mode,
        is refused unless ``force_new``, which deletes those results first.  The manifest is
        written now, or with ``defer_manifest`` only by :meth:`write_manifest`: a survey
        whose workers never start then leaves no trace that would refuse the next one.
        """
        path = Path(path)
        lock_fd = _lock(path)
        try:
            dataset = cls(path, lock_fd, cls._prepare(path, identity(rules, limits, difficulty, solutions),
                                                      requested, force_new, build))
            dataset._load()
            if not defer_manifest:
                dataset.write_manifest()
            return dataset
        except BaseException:
            os.close(lock_fd)
            raise

    @staticmethod
    def _prepare(path: Path, wanted: Dict[str, Any], requested: DealSet,
                 force_new: bool, build: Optional[str]) -> Dict[str, Any]:
        """The manifest the dataset is to have, once the directory is checked writable and
        the one there (if any) agrees with ``wanted``."""
        probe = path / f"{TEMP_PREFIX}{MANIFEST}{TEMP_SUFFIX}"
        try:
            probe.touch()
            probe.unlink()
        except OSError as exc:
            raise StoreError(f"cannot write to {path}: {exc.strerror}") from None
        try:
            if force_new:
                for f in chunk_files(path):
                    f.unlink()
                shutil.rmtree(path / PROOFS, ignore_errors=True)
                (path / MANIFEST).unlink(missing_ok=True)
                (path / CHUNK_LOG).unlink(missing_ok=True)
            for f in temp_files(path):
                f.unlink()
        except OSError as exc:
            raise StoreError(f"cannot delete the old files in {path}: {exc.strerror}") from None
        shape: Optional[Dict[str, Any]] = layout()
        if (path / MANIFEST).exists():
            manifest = read_manifest(path)
            recorded = {k: manifest.get(k, IDENTITY_DEFAULTS.get(k)) for k in wanted}
            if "solutions" not in manifest:  # fcsurvey 0.1.0 did not record it: the rows tell
                stored = _stored_solutions(path)
                recorded["solutions"] = wanted["solutions"] if stored is None else stored
            diffs = _differences(recorded, wanted)
            if diffs:
                raise StoreError(f"{path} holds results made with other rules or limits "
                                 f"({'; '.join(diffs)}); use --force-new to delete them and start "
                                 f"afresh, or choose another --out")
            requested = requested | DealSet(tuple(r) for r in manifest["requested"])
            shape = manifest.get("layout")
        elif chunk_files(path):
            raise StoreError(f"{path} holds chunk files but no {MANIFEST}, so their rules are "
                             f"unknown; use --force-new to delete them, or choose another --out")
        else:
            foreign = sorted(e.name for e in path.iterdir() if e.name not in (CHUNK_LOG, PROOFS)
                             and not (e.is_dir() and e.name.startswith(f"{PARTITION}=")))
            if foreign:  # a dataset would be made among someone's files, and --check call it clean
                shown = ", ".join(foreign[:SHOWN_FILES]) + (", ..." if len(foreign) > SHOWN_FILES else "")
                raise StoreError(f"{path} holds files that are no survey's ({shown}); choose an empty "
                                 f"or new directory for --out")
        return {"format": MANIFEST_FORMAT, "fcsurvey_version": __version__, **wanted,
                "requested": [list(r) for r in requested.ranges],
                **({"layout": shape} if shape else {}),
                **({"core_build": build} if build else {})}

    def _load(self) -> None:
        """Learn the dataset's chunk files from the log, opening only the files it does not
        name with their size and time: a crash between a file's rename and its log line, a file
        copied in by hand, a dataset made before the log.  Each of those is checked as
        :func:`read` checks it, and no deal may be in two files."""
        found = read_log(self.path)
        logged, self._log_stale = found if found is not None else ({}, True)
        chunks = _Chunks(self.manifest)
        for name, entry in _listing(self.path):
            known = logged.get(name)
            if known is not None and _stat(entry) is not None and known.describes(_stat(entry)):
                self._entries[name] = known
            else:
                self._entries[name] = _examine(self.path, self.path / name, chunks, self.manifest)
                self._log_stale = True
        self._log_stale = self._log_stale or len(logged) != len(self._entries)
        _check_disjoint([(f"{self.path}/{name}", e.deals) for name, e in self._entries.items()])  # type: ignore[misc]

    def records_request(self) -> bool:
        """Whether the manifest on disk already names every requested deal, so that a run
        with nothing to do leaves it (a shipped dataset's tracked file) as it is."""
        try:
            on_disk = read_manifest(self.path)
        except StoreError:
            return False
        return DealSet(tuple(r) for r in on_disk["requested"]) == self.requested

    def write_manifest(self) -> None:
        """Write the manifest, atomically, and the chunk log if the one on disk is not what
        the files hold: from then on the directory is this dataset's."""
        text = manifest_text(self.manifest).encode()
        try:
            _write_atomically(self.path / MANIFEST, lambda f: f.write(text))
        except OSError as exc:
            raise StoreError(f"cannot write to {self.path}: {exc.strerror}") from None
        if self._log_stale:
            _write_log(self.path, self._entries)
            self._log_stale = False

    def done(self) -> DealSet:
        """Every deal already in a finished chunk file, whatever chunk size made it."""
        return DealSet(r for e in self._entries.values() for r in e.deals.ranges) | self._recorded

    def deals_with(self, status: str) -> List[Tuple[Path, DealSet]]:
        """Each chunk file found on opening that holds rows of ``status``, with their deals (a
        survey solves its ``error`` deals again).  The log's counts clear the other files
        without opening them."""
        found = []
        for name in sorted(n for n, e in self._entries.items() if e.counts.get(status)):
            f = self.path / name
            try:
                rows = pq.read_table(f, columns=["deal", "status"], **READ_OPTIONS)
            except (OSError, pa.ArrowException) as exc:
                raise _unreadable(f, exc) from None
            deals = rows.filter(pc.equal(rows["status"], status))["deal"].to_pylist()
            if deals:
                found.append((f, DealSet.from_sorted(sorted(deals))))
        return found

    def record(self, name: str, entry: ChunkEntry) -> None:
        """Log chunk file ``name`` (relative to the dataset) as finished: one line, appended
        and fsynced, so that a resumed survey knows it is done without opening it."""
        self._recorded = self._recorded | entry.deals
        try:
            if self._log_fd is None:
                self._log_fd = os.open(self.path / CHUNK_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            os.write(self._log_fd, entry.record(name))
            os.fsync(self._log_fd)
        except OSError as exc:  # the file is whole; a rerun finds it unlogged, checks and logs it
            raise StoreError(f"cannot write to {self.path / CHUNK_LOG}: {exc.strerror}; the chunks written "
                             f"before are kept, so the same command resumes once that is fixed") from None

    def rewrite_chunk(self, path: Path, rows: Sequence[Mapping[str, Any]], run_started: float) -> Path:
        """Replace the rows of chunk file ``path`` that are for the deals of ``rows`` by them.

        The file keeps its deals, so its name, and is replaced by one atomic rename: a
        reader, or a run killed meanwhile, sees the old file or the new one, never both and
        never a deal twice."""
        new = {r["deal"] for r in rows}
        try:
            old = pq.read_table(path, schema=self.schema, **READ_OPTIONS).to_pylist()
        except (OSError, pa.ArrowException) as exc:
            raise _unreadable(path, exc) from None
        held = [r["deal"] for r in old]
        stray = new - set(held)
        if stray:
            raise StoreError(f"{path} holds no row for deals {DealSet((d, d) for d in stray)}")
        if relative(self.path, path) != chunk_name(self.manifest, min(held), max(held)):
            raise StoreError(f"chunk file {path} is misnamed for its deals {min(held)}-{max(held)}; "
                             f"delete it and rerun")
        return self.write_chunk([r for r in old if r["deal"] not in new] + list(rows), run_started)

    def write_chunk(self, rows: Sequence[Mapping[str, Any]], run_started: float) -> Path:
        """Write one chunk's rows (a dict per deal, rule columns left out) atomically, in
        row groups of ROW_GROUP_ROWS, and (the lock's holder) log it."""
        rows = sorted(rows, key=lambda r: r["deal"])
        run = json.dumps({"started": run_started, "written": time.time()})
        table = pa.table(column_values(rows, self.rules, self.schema.names),
                         schema=self.schema).replace_schema_metadata({**self._metadata, META_RUN: run})
        name = chunk_name(self.manifest, rows[0]["deal"], rows[-1]["deal"])
        final = self.path / name
        try:
            if not final.parent.is_dir():  # a new block: its directory must survive a crash too
                final.parent.mkdir(exist_ok=True)
                _fsync_dir(self.path)
            _write_table(final, table)
        except OSError as exc:  # the disk filled up, say: what was written before stays whole
            raise StoreError(f"cannot write {final}: {exc.strerror or exc}; the chunks written before it "
                             f"are kept, so the same command resumes once that is fixed") from None
        if self._lock_fd is not None:
            self.record(name, ChunkEntry.of(final, DealSet.from_sorted(r["deal"] for r in rows),
                                            Counter(r["status"] for r in rows)))
        return final

    def close(self) -> None:
        """Release the directory's lock (and the chunk log)."""
        if self._log_fd is not None:
            os.close(self._log_fd)
            self._log_fd = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


# --- checking a dataset against its log ---------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class CheckReport:
    """What :func:`check` found: the files and deals there, the requested deals missing,
    and how the chunk log differed from the files (then rewritten from them)."""

    path: Path
    files: int
    deals: int
    missing: DealSet
    unlogged: int   # files the log did not name (or named with another size or deals)
    vanished: int   # files the log named that are not there
    temps: int      # temp files of a killed run, removed
    torn: bool      # the log held a line torn by a crash or changed since (its CRC differs)

    @property
    def repaired(self) -> bool:
        return bool(self.unlogged or self.vanished or self.torn)

    def text(self) -> str:
        lines = [f"{self.path}: {self.files:,} chunk files holding {self.deals:,} deals, each file checked."]
        if self.repaired:
            lines.append(f"The chunk log differed from the files ({self.unlogged:,} files not in it, "
                         f"{self.vanished:,} in it but gone{', a torn or damaged line' if self.torn else ''}); "
                         f"it was rewritten from the files.")
        else:
            lines.append("The chunk log agrees with the files.")
        if self.temps:
            lines.append(f"Removed {self.temps:,} temp files a killed run left.")
        lines.append(f"Missing {len(self.missing):,} requested deals ({self.missing}): the same survey "
                     f"command solves them." if self.missing else "Every requested deal is there.")
        return "\n".join(lines)


def check(path: Path, deals: Optional[DealSet] = None) -> CheckReport:
    """Open and check every chunk file of dataset ``path`` as :func:`read` does, compare
    them with the chunk log, rewrite the log from the files where it differs, and find
    which of ``deals`` (by default those the manifest requests) are missing: what
    ``fcsurvey survey --check`` runs, after files were moved in by hand (a merge) or to
    be sure of a dataset before its end.  Takes the directory's lock."""
    path = Path(path)
    if not (path / MANIFEST).exists():
        raise StoreError(f"{path} is not an fcsurvey dataset (no {MANIFEST})")
    lock_fd = _lock(path)
    try:
        manifest = read_manifest(path)
        temps = temp_files(path)
        for f in temps:
            f.unlink()
        chunks = _Chunks(manifest)
        entries = {relative(path, f): _examine(path, f, chunks, manifest, whole=True) for f in chunk_files(path)}
        _check_disjoint([(path / name, e.deals) for name, e in entries.items()])
        logged, torn = read_log(path) or ({}, False)
        unlogged = sum(logged.get(name) != e for name, e in entries.items())
        vanished = len(set(logged) - set(entries))
        if unlogged or vanished or torn or not (path / CHUNK_LOG).exists():
            _write_log(path, entries)
        present = DealSet(r for e in entries.values() for r in e.deals.ranges)
        wanted = DealSet(tuple(r) for r in manifest["requested"]) if deals is None else deals
        return CheckReport(path, len(entries), len(present), wanted - present, unlogged, vanished,
                           len(temps), torn)
    finally:
        os.close(lock_fd)

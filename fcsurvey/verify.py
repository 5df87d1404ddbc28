"""Check the published record (:mod:`fcsurvey.known`) against surveys, and look past it.

A claim is checked on the datasets that prove it.  A dataset given by the user is checked as
it stands -- a deal missing from it or left ``unknown`` fails the claim by name, because the
point is to say whether *that* dataset can be trusted.  Otherwise verify reuses the datasets
under ``results/`` with the claim's rules that together decide every deal of the claim (the
passes of a winnable-deal table, say, or a ``--difficulty`` survey's proved ``min_cells``
for another number of cells: :class:`Reused`), and only then surveys the claim itself into a
cache directory, which a rerun resumes.  Verdicts are proofs whatever limits produced them,
so limits never decide which dataset may be reused.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from . import known, store
from .console import Progress, duration
from .dealset import DealSet
from .deals import GENERATOR_NAME
from .known import (FREECELL, QUICK, TIERS, Claim, ClaimError, Count, ExactDeals, MinCellsCounts,
                    WinRate, percent)
from .limits import DEFAULT_LENGTH, Limits
from .output import inside
from .rules import Rules
from .schema import ERROR, SOLVED, UNSOLVABLE, no_proof_reason
from .summary import builds, made_by_text
from .survey import RESULTS_DIR, Survey, chunk_size_for, default_out, default_workers

CACHE_DIR = RESULTS_DIR / "verify"
CONFIDENCE = 0.999            # of the binomial interval a measured win rate must share with the record
CHUNKS_PER_WORKER = 4         # a claim's survey has at least this many chunks a worker
#: A survey of the deals the shipped data leaves unproved is named as the claim's, then this
#: and the first REST_DIGEST hex digits of the SHA-256 of those deals' text form.
REST_SUFFIX = "_rest-"
REST_DIGEST = 8
NAMED = 10                    # deals named in one line of a failure before "and N more"
COUNT_LISTED = 100            # a failed count claim names every deal it counted, up to this many
INLINE_DEALS = 8              # expected deal sets this small (and short) are shown in full
INLINE_WIDTH = 60
ROW_COLUMNS = ["deal", "status", "limit", "error"]
MIN_CELLS_COLUMNS = ["min_cells", "min_cells_exact", "min_cells_limit"]  # read too from --difficulty datasets
OPPOSITE = {SOLVED: UNSOLVABLE, UNSOLVABLE: SOLVED}
PASS, FAIL = "PASS", "FAIL"

ProgressFactory = Callable[[int], Progress]
Say = Callable[[str], None]


# --- which dataset checks which claim -------------------------------------------------------

def plays_as(rules: Rules) -> Dict[str, Any]:
    """The rules without the variant's name, which does not change the game: FreeCell with
    same-suit building *is* Baker's Game."""
    fields = rules.to_dict()
    del fields["variant"]
    return fields


def needs_difficulty(claim: Claim) -> bool:
    """Whether only a ``--difficulty`` survey holds what ``claim`` is about."""
    return isinstance(claim.expected, MinCellsCounts)


@dataclass(frozen=True)
class DatasetInfo:
    """What a dataset's manifest says it holds."""

    path: Path
    rules: Rules
    requested: DealSet
    difficulty: bool

    @classmethod
    def read(cls, path: Path) -> "DatasetInfo":
        manifest = store.read_manifest(path)
        if manifest.get("generator") != GENERATOR_NAME:
            raise ClaimError(f"{path} was dealt by {manifest.get('generator')!r}, not Microsoft's "
                             f"numbering ({GENERATOR_NAME}), so no published claim applies to it")
        return cls(Path(path), Rules.from_dict(manifest["rules"]),
                   DealSet(tuple(r) for r in manifest["requested"]),
                   store.is_difficulty(manifest))

    def covers(self, claim: Claim) -> bool:
        """Same game, every deal of the claim requested, and the difficulty columns if the
        claim is about them."""
        return (plays_as(self.rules) == plays_as(claim.rules) and not claim.deals - self.requested
                and (self.difficulty or not needs_difficulty(claim)))

    def describe(self) -> str:
        """``freecell: 4 cells with --difficulty for deals 1-32000``, for error messages."""
        mode = " with --difficulty" if self.difficulty else ""
        return f"{self.rules.describe()}{mode} for deals {self.requested}"


def _needs(claim: Claim) -> str:
    """What a dataset must hold to check ``claim``, for an error message."""
    survey = "a --difficulty survey of " if needs_difficulty(claim) else ""
    return f"{survey}{claim.rules.describe()} for deals {claim.deals}"


@dataclass(frozen=True)
class Task:
    """A claim to check, on the dataset the user gave for it (``None``: find or survey one)."""

    claim: Claim
    dataset: Optional[Path] = None


def select(tier: Optional[str], claim_ids: Sequence[str], datasets: Sequence[Path]) -> List[Task]:
    """What to check.

    ``claim_ids`` pick claims by ID; else ``tier`` picks its claims and those of cheaper
    tiers; with neither, given datasets pick every claim they can check, and without
    datasets the quick tier runs.  Each given dataset serves the claims it covers.  With no
    IDs, a dataset of standard 4-cell rules that serves no claim is checked against the
    102,075-deal list over its own range.  Any other dataset no claim can use is an error:
    results made under other rules cannot confirm the record.
    """
    infos = [DatasetInfo.read(path) for path in datasets]
    if claim_ids:
        claims = [known.get(i) for i in dict.fromkeys(claim_ids)]
    else:
        claims = known.in_tier(tier or QUICK) if tier or not infos else list(known.CLAIMS)
    keep_all = bool(claim_ids) or tier is not None or not infos
    tasks, used = [], set()
    for claim in claims:
        info = next((i for i in infos if i.covers(claim)), None)
        if info is not None:
            used.add(info.path)
        if info is not None or keep_all:
            tasks.append(Task(claim, info.path if info else None))
    for info in infos:
        if info.path in used:
            continue
        if not claim_ids and plays_as(info.rules) == plays_as(FREECELL):
            tasks.append(Task(known.list_claim(info.requested, str(info.path)), info.path))
            continue
        wanted = ""
        if len(claims) == 1:
            wanted = f"; claim {claims[0].id} needs {_needs(claims[0])}"
        raise ClaimError(f"dataset {info.path} holds {info.describe()}, which no selected claim can use{wanted}")
    return tasks


def read_rows(path: Path, deals: DealSet) -> pa.Table:
    """Deal, status, limit and error of the rows of ``deals`` in dataset ``path``, by deal,
    and the min_cells columns too if it is a ``--difficulty`` dataset.

    The store reads the rows of only the chunk files that may hold the deals, so checking
    32,000 deals against a 10-million-deal dataset reads a few files' rows, and the footer
    of every file: a corrupt, foreign or misnamed chunk anywhere in the dataset is a
    StoreError naming it, for the point is to say whether the dataset can be trusted.
    """
    schema = store.schema_for(store.read_manifest(path))
    columns = ROW_COLUMNS + [c for c in MIN_CELLS_COLUMNS if c in schema.names]
    return store.read(path, columns=columns, deals=deals)


def _decided(rows: pa.Table) -> pa.Array:
    return pc.is_in(rows["status"], pa.array([SOLVED, UNSOLVABLE]))


def _undecided(rows: pa.Table) -> pa.Table:
    return rows.filter(pc.invert(_decided(rows)))


def _inexact(rows: pa.Table) -> pa.Table:
    """Decided deals whose min_cells is no proof (an undecided deal is named as such)."""
    return rows.filter(pc.and_(_decided(rows), pc.invert(pc.fill_null(rows["min_cells_exact"], False))))


def _settles(claim: Claim, rows: pa.Table) -> bool:
    """Every deal of ``claim`` has a row with a proof of what the claim is about."""
    return (pc.count_distinct(rows["deal"]).as_py() == len(claim.deals) and not len(_undecided(rows))
            and not (needs_difficulty(claim) and len(_inexact(rows))))


def verdict_with(cells: int, own_cells: int, status: Optional[str], min_cells: Optional[int],
                 exact: Optional[bool]) -> Optional[str]:
    """The verdict with ``cells`` free cells that a row of a ``--difficulty`` dataset made with
    ``own_cells`` proves, or ``None`` where it proves none.

    A win with k cells is a win with more (the extra cells stay empty, and a sequence move
    that fitted still fits, for the room only grows), and a deal lost with k cells is lost
    with fewer (a win with fewer would be a win with k).  So a deal won with ``min_cells`` is
    won with every count from there up, and where ``min_cells`` is proved exact (one fewer is
    proved lost; ``None`` exact: MAX_CELLS is proved lost) it is lost with every count below.
    A row whose ``status`` with its own cells contradicts its ``min_cells`` proves nothing:
    it is a solver or dataset bug, left for the claim's own survey to meet.
    """
    won_own = min_cells is not None and min_cells <= own_cells
    if status not in (SOLVED, UNSOLVABLE) or won_own != (status == SOLVED):
        return None
    if min_cells is not None and min_cells <= cells:
        return SOLVED
    if exact and (min_cells is None or min_cells > cells):
        return UNSOLVABLE
    if status == UNSOLVABLE and cells <= own_cells:
        return UNSOLVABLE
    return None


def _min_cells_rows(info: DatasetInfo, claim: Claim) -> pa.Table:
    """The verdicts a ``--difficulty`` dataset with another number of cells proves for
    ``claim`` (:func:`verdict_with`), as :data:`ROW_COLUMNS`; decided rows only."""
    table = store.read(info.path, columns=["deal", "status", "min_cells", "min_cells_exact"], deals=claim.deals)
    deals, statuses = [], []
    for deal, status, min_cells, exact in zip(*(table[c].to_pylist() for c in table.column_names)):
        verdict = verdict_with(claim.rules.cells, info.rules.cells, status, min_cells, exact)
        if verdict is not None:
            deals.append(deal)
            statuses.append(verdict)
    types = {name: store.SCHEMA.field(name).type for name in ROW_COLUMNS}
    return pa.table({"deal": pa.array(deals, types["deal"]), "status": pa.array(statuses, types["status"]),
                     "limit": pa.nulls(len(deals), types["limit"]), "error": pa.nulls(len(deals), types["error"])})


@dataclass(frozen=True)
class Reused:
    """A claim's verdicts gathered from the datasets under ``results/`` (and the cache):
    one row a deal of the claim that any of them holds, decided wherever any decides it.

    Verdicts are proofs whatever limits, tries or passes produced them, so a deal one
    dataset leaves ``unknown`` is settled by another that decides it: the passes of a
    winnable-deal table together, or a ``--difficulty`` survey's proved ``min_cells`` for
    other numbers of cells (:func:`verdict_with`).  Two datasets deciding a deal differently
    is a solver bug: ``conflicts`` names each such deal, and the claim fails.
    """

    rows: pa.Table
    datasets: Tuple[Path, ...]      # those the rows came from, in the order read
    by_min_cells: Tuple[Path, ...]  # those of them read through their min_cells
    conflicts: Tuple[str, ...]

    def settles(self, claim: Claim) -> bool:
        """Whether the claim can be judged on these rows alone: every deal proved, or a
        conflict to report."""
        return bool(self.conflicts) or _settles(claim, self.rows)

    def unproved(self, claim: Claim) -> DealSet:
        """The deals of the claim these rows do not prove: what is left to survey."""
        proved = self.rows.filter(_sure(claim, self.rows))["deal"].to_pylist()
        return claim.deals - DealSet.from_sorted(proved)


def _holds_some(info: DatasetInfo, claim: Claim) -> bool:
    """Whether the dataset asked for any deal of the claim (so may hold a verdict for it)."""
    return claim.deals - info.requested != claim.deals


def _serves(info: DatasetInfo, claim: Claim) -> bool:
    """The claim's game, some of its deals, and the difficulty columns if it is about them."""
    return (plays_as(info.rules) == plays_as(claim.rules) and _holds_some(info, claim)
            and (info.difficulty or not needs_difficulty(claim)))


def _proves_by_min_cells(info: DatasetInfo, claim: Claim) -> bool:
    """A ``--difficulty`` dataset of the claim's game but for the number of cells."""
    if not info.difficulty or needs_difficulty(claim) or info.rules.cells == claim.rules.cells:
        return False
    return plays_as(info.rules) == {**plays_as(claim.rules), "cells": info.rules.cells} and _holds_some(info, claim)


def _sure(claim: Claim, rows: pa.Table) -> pa.Array:
    """Which rows prove what the claim is about: a verdict, and an exact min_cells if the
    claim is about min_cells."""
    if needs_difficulty(claim):
        return pc.and_(_decided(rows), pc.fill_null(rows["min_cells_exact"], False))
    return _decided(rows)


def _conflicts(claim: Claim, before: pa.Table, rows: pa.Table, path: Path) -> List[Tuple[int, str]]:
    """The deals ``rows`` (of dataset ``path``) decide otherwise than ``before`` did, by deal:
    another verdict, or for a claim about min_cells another ``min_cells`` where both are
    proved exact."""
    agree = ["status", "min_cells", "min_cells_exact"] if needs_difficulty(claim) else ["status"]
    earlier = before.select(["deal", *agree, "source"]).rename_columns(
        ["deal", *(f"{c}_before" for c in agree), "source"])
    found = []
    for row in rows.select(["deal", *agree]).join(earlier, "deal", join_type="inner").to_pylist():
        differ = ["status"] if row["status"] != row["status_before"] else []
        if (needs_difficulty(claim) and row["min_cells_exact"] and row["min_cells_exact_before"]
                and row["min_cells"] != row["min_cells_before"]):
            differ.append("min_cells")
        if differ:
            was = ", ".join(f"{c} {row[f'{c}_before']}" for c in differ)
            now = ", ".join(f"{c} {row[c]}" for c in differ)
            found.append((row["deal"], f"deal {row['deal']}: {was} in {row['source']} but {now} in {path}"))
    return found


def _first_rows(table: Optional[pa.Table], rows: pa.Table) -> pa.Table:
    """``table`` with the rows of ``rows`` whose deals it does not hold yet."""
    if table is None:
        return rows
    return pa.concat_tables([table, rows.filter(pc.invert(pc.is_in(rows["deal"], table["deal"])))])


@dataclass(frozen=True)
class _Source:
    """One dataset's rows for a claim, as :func:`reuse` ranks them."""

    info: DatasetInfo
    rows: pa.Table        # ROW_COLUMNS (and MIN_CELLS_COLUMNS for a claim about min_cells)
    by_min_cells: bool    # read through its min_cells (another number of cells)


def _sources(claim: Claim, roots: Sequence[Path], exclude: Optional[Path] = None) -> List[_Source]:
    """The rows for ``claim`` of every dataset under ``roots`` (not under ``exclude``) that
    holds some, each read once: datasets holding every deal of the claim first, then those
    holding some, then ``--difficulty`` datasets with other cell counts."""
    whole: List[DatasetInfo] = []
    part: List[DatasetInfo] = []
    by_min_cells: List[DatasetInfo] = []
    seen = set()
    for root in roots:
        for path in store.datasets_under(root):
            if path.resolve() in seen or (exclude is not None and inside(path, exclude)):
                continue  # a root inside another, or what the caller leaves out
            seen.add(path.resolve())
            try:
                info = DatasetInfo.read(path)
            except (store.StoreError, ClaimError):
                continue  # not ours to judge; it was not asked for
            if _serves(info, claim):
                (part if claim.deals - info.requested else whole).append(info)
            elif _proves_by_min_cells(info, claim):
                by_min_cells.append(info)
    columns = ROW_COLUMNS + (MIN_CELLS_COLUMNS if needs_difficulty(claim) else [])
    found = [_Source(info, read_rows(info.path, claim.deals).select(columns), False) for info in whole + part]
    found += [_Source(info, _min_cells_rows(info, claim), True) for info in by_min_cells]
    return [source for source in found if len(source.rows)]


def _combine(claim: Claim, sources: Sequence[_Source]) -> Optional[Reused]:
    """The verdicts ``sources`` hold together, or ``None`` when none holds any: a deal's row
    is the first that proves it (or, if none does, the first that holds it), and every
    verdict is checked against every other source that decides the same deal."""
    proved: Optional[pa.Table] = None   # one row a proved deal, with the dataset it came from
    decided: Optional[pa.Table] = None  # one row a deal any dataset read gave a verdict
    held: Optional[pa.Table] = None     # one row a deal any dataset read holds
    conflicts: List[Tuple[int, str]] = []
    for source in sources:
        path = source.info.path
        rows = source.rows.append_column("source", pa.array([str(path)] * len(source.rows), pa.string()))
        verdicts = rows.filter(_decided(rows))
        if decided is not None:
            conflicts += _conflicts(claim, decided, verdicts, path)
        decided = _first_rows(decided, verdicts)
        proved = _first_rows(proved, rows.filter(_sure(claim, rows)))
        held = _first_rows(held, rows)
    if proved is None or held is None:
        return None
    rows = _first_rows(proved, held)
    names = set(pc.unique(rows["source"]).to_pylist())
    used = [s for s in sources if str(s.info.path) in names]  # one whose rows others all superseded is left out
    conflicts.sort()
    shown = [text for _, text in conflicts[:NAMED]]
    if len(conflicts) > NAMED:
        shown.append(f"and {len(conflicts) - NAMED:,} more deals decided differently by two datasets")
    return Reused(rows.drop_columns(["source"]).sort_by("deal"), tuple(s.info.path for s in used),
                  tuple(s.info.path for s in used if s.by_min_cells), tuple(shown))


def reuse(claim: Claim, roots: Sequence[Path], exclude: Optional[Path] = None) -> Optional[Reused]:
    """The verdicts for ``claim`` that the datasets under ``roots`` (but not under
    ``exclude``) hold together, or ``None`` when none holds any of its deals.

    Every dataset is read, so that each verdict is checked against every other dataset
    that decides the same deal (:func:`_combine`).
    """
    return _combine(claim, _sources(claim, roots, exclude))


@dataclass(frozen=True)
class Standing:
    """Where a claim stands before a check: what every dataset proves, and what is left
    to survey once the shipped data alone is taken.

    What is left is taken from the datasets under ``results/`` alone, not the cache, so
    that an interrupted verify finds the same deals left and resumes the same survey.
    """

    everything: Optional[Reused]  # results/ and the cache together
    shipped: Optional[Reused]     # results/ alone (None: no shipped dataset holds a deal)

    def settled(self, claim: Claim) -> bool:
        return self.everything is not None and self.everything.settles(claim)

    def left(self, claim: Claim) -> DealSet:
        return claim.deals if self.shipped is None else self.shipped.unproved(claim)


def _roots(cache: Path) -> List[Path]:
    """Where a check looks for datasets: ``results/``, and the cache unless inside it."""
    return [RESULTS_DIR] + ([] if inside(cache, RESULTS_DIR) else [cache])


def standing(claim: Claim, cache: Path) -> Standing:
    """Every dataset under ``results/`` and ``cache`` read once, combined twice."""
    sources = _sources(claim, _roots(cache))
    return Standing(_combine(claim, sources), _combine(claim, [s for s in sources if not inside(s.info.path, cache)]))


def _rest_surveys(cache: Path, name: str) -> List[DatasetInfo]:
    """The surveys of what shipped data left of the claim named ``name`` in ``cache``."""
    found = []
    for path in sorted(Path(cache).glob(name + REST_SUFFIX + "*")):
        try:
            found.append(DatasetInfo.read(path))
        except (store.StoreError, ClaimError):
            continue  # not a dataset (yet): a survey opening it says why
    return found


def claim_survey(claim: Claim, cache: Path, workers: Optional[int], length: str = DEFAULT_LENGTH,
                 deals: Optional[DealSet] = None) -> Survey:
    """The survey that settles ``claim``, in its own directory of ``cache`` (named as
    ``fcsurvey survey`` would name it), so an interrupted verify resumes it.

    ``deals``, a part of the claim's, is what the datasets under ``results/`` leave
    unproved: that survey goes into a directory of its own, named after the claim's and
    those deals (REST_SUFFIX and a digest of them), so a rerun with the same shipped data
    resumes it.  Where the shipped data has proved more since (a table pass under way), the
    smallest such directory that asked for all of ``deals`` is resumed instead, so that no
    long proof's checkpoint is left behind.  A small claim is cut into
    smaller chunks than a survey's, so that a chunk holding one hard deal does not finish
    alone while the other workers sit idle.  ``length`` is the surveys' (limits.LENGTHS):
    claims are about verdicts, which it does not change.
    """
    limits = Limits(max_states=claim.max_states, length=length)
    difficulty = needs_difficulty(claim)
    deals, out = survey_target(claim, cache, deals, length)
    per_chunk = len(deals) // (CHUNKS_PER_WORKER * (workers or default_workers()))
    chunk_size = max(1, min(chunk_size_for(deals, claim.rules, difficulty), per_chunk))
    return Survey(deals, out, rules=claim.rules, limits=limits, workers=workers,
                  chunk_size=chunk_size, solutions=False, difficulty=difficulty)


def survey_target(claim: Claim, cache: Path, deals: Optional[DealSet] = None,
                  length: str = DEFAULT_LENGTH) -> Tuple[DealSet, Path]:
    """The deals :func:`claim_survey` surveys for ``deals`` (all the claim's when ``None``)
    and the directory they go into, without opening it."""
    limits = Limits(max_states=claim.max_states, length=length)
    name = default_out(claim.deals, claim.rules, limits, needs_difficulty(claim)).name
    if deals is None or deals == claim.deals:
        return claim.deals, Path(cache) / name
    earlier = [(len(info.requested), info.requested, info.path) for info in _rest_surveys(cache, name)
               if not deals - info.requested]
    if earlier:
        _, requested, path = min(earlier, key=lambda e: e[0])
        return requested, path
    return deals, Path(cache) / (name + REST_SUFFIX + hashlib.sha256(str(deals).encode()).hexdigest()[:REST_DIGEST])


# --- comparing ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """A claim checked: ``problems`` name every deal behind a FAIL."""

    claim: Claim
    passed: bool
    measured: str
    problems: Tuple[str, ...]
    dataset: Path
    surveyed_s: Optional[float] = None  # time spent surveying it in this run
    #: Further datasets whose verdicts were combined with ``dataset``'s (:class:`Reused`), and
    #: which of them all were read through their min_cells.
    combined: Tuple[Path, ...] = ()
    by_min_cells: Tuple[Path, ...] = ()
    #: The builds that made the dataset, when one is not this build (a shipped dataset, or a
    #: cache an older build began): its verdicts are that build's, not this one's.
    other_build: Optional[str] = None

    @property
    def result(self) -> str:
        return PASS if self.passed else FAIL


def _named(deals: Sequence[int]) -> str:
    shown = " ".join(str(d) for d in deals[:NAMED])
    return shown + (f" and {len(deals) - NAMED:,} more" if len(deals) > NAMED else "")


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> Tuple[float, float]:
    """The Wilson score interval for a binomial rate: sound near 0 and 1, where winnability
    rates live and the plain normal interval is not."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _inline(status: str, deals: Sequence[int]) -> Optional[str]:
    """``unsolvable: 11982 146692`` when the deals fit in a table cell."""
    shown = " ".join(map(str, deals))
    return f"{status}: {shown or 'none'}" if len(deals) <= INLINE_DEALS and len(shown) <= INLINE_WIDTH else None


def expected_text(claim: Claim) -> str:
    """What the record says, short enough for a table cell."""
    e = claim.expected
    if isinstance(e, ExactDeals):
        deals = e.within(claim.deals)
        return _inline(e.status, deals) or f"{len(deals):,} listed {e.status}"
    if isinstance(e, Count):
        return f"{e.count:,} {e.status}"
    if isinstance(e, MinCellsCounts):
        return _distribution(dict(e.counts))
    return percent(e.winnable) + (f" +/- {percent(e.error)[:-1]}" if e.error else "") + " winnable"


def _min_cells_text(k: Optional[int]) -> str:
    return "none" if k is None else str(k)  # null min_cells: no count up to 10 cells wins


def _ascending(min_cells: Iterable[Optional[int]]) -> List[Optional[int]]:
    return sorted(min_cells, key=lambda k: (k is None, k or 0))


def _distribution(counts: Dict[Optional[int], int]) -> str:
    """``0:69 1:6,220 ...``: each min_cells and its number of deals, ascending, ``none`` last."""
    return " ".join(f"{_min_cells_text(k)}:{counts[k]:,}" for k in _ascending(counts))


def _compare_min_cells(e: MinCellsCounts, rows: pa.Table, problems: List[str]) -> str:
    """Add the problems with ``rows``' min_cells to ``problems``; return what was measured."""
    if "min_cells" not in rows.column_names:
        problems.append("the dataset has no min_cells column: survey it with --difficulty")
        return "no min_cells"
    inexact = _inexact(rows)
    for row in inexact.slice(0, NAMED).to_pylist():
        limit = f"limit {row['min_cells_limit']}" if row["min_cells_limit"] else "no limit given"
        problems.append(f"deal {row['deal']}: min_cells {_min_cells_text(row['min_cells'])} "
                        f"not proved exact ({limit})")
    if len(inexact) > NAMED:
        problems.append(f"... and {len(inexact) - NAMED:,} more deals whose min_cells is not proved exact")
    tally = rows.group_by("min_cells").aggregate([("deal", "count")])
    found: Dict[Optional[int], int] = dict(zip(tally["min_cells"].to_pylist(), tally["deal_count"].to_pylist()))
    published: Dict[Optional[int], int] = dict(e.counts)
    for k in _ascending(set(found) | set(published)):
        if found.get(k, 0) != published.get(k, 0):
            problems.append(f"min_cells {_min_cells_text(k)}: {found.get(k, 0):,} where {published.get(k, 0):,} "
                            f"were published")
    return _distribution(found) + (f", {len(inexact):,} not exact" if len(inexact) else ", all exact")


def compare(claim: Claim, rows: pa.Table, dataset: Path, surveyed_s: Optional[float] = None) -> Outcome:
    """Judge ``claim`` on ``rows`` (from :func:`read_rows`, one a deal: the store refuses a
    dataset that holds a deal twice).  A deal that is missing or has no verdict fails the
    claim by name: never a silent pass."""
    return _compare(claim, rows, dataset, surveyed_s, [])


def compare_reused(claim: Claim, reused: Reused) -> Outcome:
    """Judge ``claim`` on the verdicts :func:`reuse` gathered: as :func:`compare`, and two
    datasets deciding a deal differently fail it by name."""
    outcome = _compare(claim, reused.rows, reused.datasets[0], None, list(reused.conflicts))
    return dataclasses.replace(outcome, combined=reused.datasets[1:], by_min_cells=reused.by_min_cells)


def _compare(claim: Claim, rows: pa.Table, dataset: Path, surveyed_s: Optional[float],
             problems: List[str]) -> Outcome:
    present = rows["deal"]
    if len(present) < len(claim.deals):
        missing = claim.deals - DealSet.from_sorted(present.to_pylist())
        shown = missing if len(missing.ranges) <= NAMED else f"{DealSet(missing.ranges[:NAMED])} and more"
        problems.append(f"missing from the dataset ({len(missing):,} deals): {shown}")
    undecided = _undecided(rows)
    for row in undecided.slice(0, NAMED).to_pylist():
        problems.append(f"deal {row['deal']} is {row['status']} ({no_proof_reason(row)}), not proved either way")
    if len(undecided) > NAMED:
        problems.append(f"... and {len(undecided) - NAMED:,} more deals without a proof")
    e = claim.expected
    if isinstance(e, WinRate):
        n = len(rows) - len(undecided)
        won = pc.sum(pc.equal(rows["status"], SOLVED)).as_py() or 0
        if not n:
            return Outcome(claim, False, "no decided deals", tuple(problems), dataset, surveyed_s)
        lo, hi = wilson_interval(won, n)
        # enough decimals to tell the interval's ends apart, however narrow it is
        places = max(2, 1 - math.floor(math.log10(100 * (hi - lo))))
        interval = f"{100 * lo:.{places}f}-{100 * hi:.{places}f}%"
        measured = f"{100 * won / n:.{places}f}% of {n:,} (CI {interval})"
        if hi < e.winnable - e.error or lo > e.winnable + e.error:
            problems.append(f"the {100 * CONFIDENCE:g}% interval {interval} misses the "
                            f"published {expected_text(claim)}")
        return Outcome(claim, not problems, measured, tuple(problems), dataset, surveyed_s)
    if isinstance(e, MinCellsCounts):
        measured = _compare_min_cells(e, rows, problems)
        return Outcome(claim, not problems, measured, tuple(problems), dataset, surveyed_s)
    found = rows.filter(pc.equal(rows["status"], e.status))["deal"].to_pylist()
    if isinstance(e, Count):
        if len(found) != e.count:
            problems.append(f"{len(found):,} deals {e.status} where {e.count:,} were published")
            if len(found) <= COUNT_LISTED:  # a count names no deal: name all, for any list to be set against
                problems.append(f"the {len(found):,} {e.status}: {' '.join(map(str, found))}")
        return Outcome(claim, not problems, f"{len(found):,} {e.status}", tuple(problems), dataset, surveyed_s)
    listed = e.within(claim.deals)
    listed_set, found_set = set(listed), set(found)
    extra = [d for d in found if d not in listed_set]
    if extra:
        problems.append(f"{e.status} but not listed: {_named(extra)}")
    decided_other = set(rows.filter(pc.equal(rows["status"], OPPOSITE[e.status]))["deal"].to_pylist())
    absent = [d for d in listed if d not in found_set and d in decided_other]
    if absent:
        problems.append(f"listed {e.status} but {OPPOSITE[e.status]}: {_named(absent)}")
    exact = found_set == listed_set
    measured = (_inline(e.status, found) if exact else None) or (
        f"{len(found):,} {e.status}" + (", as listed" if exact else ""))
    return Outcome(claim, not problems, measured, tuple(problems), dataset, surveyed_s)


def check(task: Task, *, cache: Path = CACHE_DIR, workers: Optional[int] = None,
          progress: Optional[ProgressFactory] = None, say: Say = lambda _: None,
          length: str = DEFAULT_LENGTH) -> Outcome:
    """Check one claim: on its given dataset, a reusable one, or a survey of its own (whose
    solutions are made with ``length``); the outcome says whether another build than this
    one made that dataset."""
    outcome = _check(task, cache, workers, progress, say, length)
    others = []
    for path in (outcome.dataset, *outcome.combined):
        made = builds(path)
        if made["other_build"]:
            others.append(made_by_text(made) + (f" in {path}" if outcome.combined else ""))
    return dataclasses.replace(outcome, other_build="; ".join(others)) if others else outcome


def _check(task: Task, cache: Path, workers: Optional[int], progress: Optional[ProgressFactory],
           say: Say, length: str) -> Outcome:
    claim = task.claim
    if task.dataset is not None:
        return compare(claim, read_rows(task.dataset, claim.deals), task.dataset)
    now = standing(claim, cache)
    if now.settled(claim):
        say(f"{claim.id}: reusing {', '.join(map(str, now.everything.datasets))}")
        return compare_reused(claim, now.everything)
    shipped, left = now.shipped, now.left(claim)
    job = claim_survey(claim, cache, workers, length, left)
    say(f"{claim.id}: surveying {job.todo:,} deals ({job.skipped:,} already done) into {job.out}"
        + ("" if shipped is None or left == claim.deals else
           f", the rest proved by {', '.join(map(str, shipped.datasets))}"))
    started = time.monotonic()
    job.run(progress(job.todo) if progress is not None and job.todo else None)
    surveyed_s = time.monotonic() - started
    if shipped is None:
        return compare(claim, read_rows(job.out, claim.deals), job.out, surveyed_s)
    combined = reuse(claim, _roots(cache))  # job.out is in the cache
    if combined is None:
        raise ClaimError(f"{claim.id}: no dataset holds its deals after surveying them into {job.out}")
    return dataclasses.replace(compare_reused(claim, combined), surveyed_s=surveyed_s)


@dataclass(frozen=True)
class ClaimPlan:
    """What checking a claim would take, worked out without solving a deal."""

    claim: Claim
    left: int                   # deals a check would survey now
    survey: Optional[Path]      # where that survey would go (None: nothing to survey)
    reused: Tuple[Path, ...]    # the datasets that prove the rest
    given: bool = False         # checked on a --dataset as it stands

    def text(self) -> str:
        if self.given:
            return "checked on the dataset given, as it stands"
        if not self.left:
            return f"settled by {len(self.reused)} dataset{'s' if len(self.reused) > 1 else ''} already there"
        done = f", the other {len(self.claim.deals) - self.left:,} proved already" if self.reused else ""
        return f"{self.left:,} of {len(self.claim.deals):,} deals to survey{done}"


def plan_check(task: Task, *, cache: Path = CACHE_DIR) -> ClaimPlan:
    """What :func:`check` would do for ``task`` now (``verify --plan``): reuse, and how many
    deals it would survey into which directory.  The deals left are the ones the shipped
    searches could not decide, so they are the dear ones: their count, not a mean deal's
    cost, is what the plan gives."""
    claim = task.claim
    if task.dataset is not None:
        return ClaimPlan(claim, 0, None, (task.dataset,), given=True)
    now = standing(claim, cache)
    reused = () if now.everything is None else now.everything.datasets
    if now.settled(claim):
        return ClaimPlan(claim, 0, None, reused)
    deals, out = survey_target(claim, cache, now.left(claim))
    try:  # what an earlier check surveyed there is done, but for its errors (solved again)
        rows = read_rows(out, deals)
        deals = deals - DealSet.from_sorted(rows.filter(pc.not_equal(rows["status"], ERROR))["deal"].to_pylist())
    except store.StoreError:
        pass  # nothing surveyed there yet
    return ClaimPlan(claim, len(deals), out, reused)


def plan_text(plans: Sequence[ClaimPlan]) -> str:
    """``verify --plan`` for a terminal: one line a claim, then where the surveys would go."""
    rows = [("claim", "tier", "deals", "to do")] + [
        (p.claim.id, p.claim.tier or "-", f"{len(p.claim.deals):,}", p.text()) for p in plans]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r[:3], widths)) + "  " + r[3] for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * len(rows[0][3]))
    lines += [""] + [f"{p.claim.id}: would survey into {p.survey}" for p in plans if p.survey is not None]
    total = sum(p.left for p in plans)
    lines.append(f"{len(plans)} claims: {sum(not p.left for p in plans)} need no survey, "
                 f"{total:,} deals to survey in all")
    return "\n".join(lines)


def check_all(tasks: Sequence[Task], **options: Any) -> Iterator[Outcome]:
    """:func:`check` each task in turn (options as for check), yielding each outcome as
    it is known and saying it, so a long run shows its verdicts as they come."""
    say: Say = options.get("say", lambda _: None)
    for task in tasks:
        outcome = check(task, **options)
        say(f"{outcome.claim.id}: {outcome.result}")
        yield outcome


# --- reports --------------------------------------------------------------------------------

TABLE_HEADINGS = ("claim", "tier", "expected", "measured", "result")


def _cells(outcome: Outcome) -> Tuple[str, ...]:
    c = outcome.claim
    return (c.id, c.tier or "-", expected_text(c), outcome.measured, outcome.result)


def _notes(outcomes: Sequence[Outcome]) -> List[str]:
    lines = []
    for o in outcomes:
        for problem in o.problems:
            lines.append(f"FAIL {o.claim.id}: {problem}")
    for o in outcomes:
        how = f"surveyed in {duration(o.surveyed_s)}" if o.surveyed_s is not None else "reused"
        made = f"; made by {o.other_build}" if o.other_build else ""
        read = ", ".join(f"{p} (by its min_cells)" if p in o.by_min_cells else str(p)
                         for p in (o.dataset, *o.combined))
        lines.append(f"{o.claim.id}: {read} ({how}{', verdicts combined' if o.combined else ''}{made})")
    elsewhere = [o.claim.id for o in outcomes if o.other_build]
    if elsewhere:
        lines.append(f"{len(elsewhere)} of {len(outcomes)} claims checked on data another build made "
                     f"(shipped or reused), not on this build's own survey: {', '.join(elsewhere)}")
    return lines


def verdict_line(outcomes: Sequence[Outcome], elapsed_s: float) -> str:
    failed = sum(not o.passed for o in outcomes)
    return (f"{len(outcomes)} claims: {len(outcomes) - failed} PASS, {failed} FAIL "
            f"({duration(elapsed_s)})")


def table_text(outcomes: Sequence[Outcome], elapsed_s: float) -> str:
    """The table for a terminal, then the failures and the datasets used."""
    rows = [TABLE_HEADINGS] + [_cells(o) for o in outcomes]
    widths = [max(len(r[i]) for r in rows) for i in range(len(TABLE_HEADINGS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + [""] + _notes(outcomes) + ["", verdict_line(outcomes, elapsed_s)])


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|")


def table_markdown(outcomes: Sequence[Outcome], elapsed_s: float) -> str:
    """The same report as Markdown, with each claim's statement and source."""
    lines = ["| " + " | ".join(TABLE_HEADINGS) + " |", "|" + "---|" * len(TABLE_HEADINGS)]
    lines += ["| " + " | ".join(_escape(c) for c in _cells(o)) + " |" for o in outcomes]
    lines += ["", f"**{verdict_line(outcomes, elapsed_s)}**", ""]
    lines += [f"- `{o.claim.id}`: {o.claim.statement}. Source: {o.claim.source}." for o in outcomes]
    lines += ["", "```", *_notes(outcomes), "```"]
    return "\n".join(lines) + "\n"


def claims_text(claims: Sequence[Claim]) -> str:
    """``verify --list``: every claim, its tier, what it says and where it was published."""
    width = max(len(c.id) for c in claims)
    lines = []
    for tier in TIERS:
        for c in (c for c in claims if c.tier == tier):
            lines.append(f"{c.id.ljust(width)}  {tier.ljust(8)}  {c.statement}")
            lines.append(f"{' ' * width}  {' ' * 8}  source: {c.source}")
    return "\n".join(lines)

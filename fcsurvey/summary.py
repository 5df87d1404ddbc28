"""The summary of a dataset: what ``fcsurvey summary`` prints and ``report`` shows.

Rules, coverage and gaps, counts by status (``unknown``: a limit stopped the search;
``error``: no verdict at all, which a rerun of the survey retries), the notable deals,
solution lengths, speed, the difficulty distribution of a ``--difficulty`` dataset, and
which builds solved it: a dataset made by another build than the one running (a shipped
one, say) says so, since its verdicts are that build's, not this one's.
"""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional

import pyarrow as pa
import pyarrow.compute as pc

from . import __version__
from .console import counts_text, duration
from .rules import Rules
from .dealset import DealSet
from .bands import BANDS
from .limits import SEARCHES_ONLY
from .schema import BAND, DIFFICULTY_RANK, ERROR, SOLVED, STATUSES, UNKNOWN, UNSOLVABLE
from .solver import core_build
from .store import chunk_builds, chunk_runs, read, read_manifest

LIST_LIMIT = 50            # deals or gaps listed in a summary before "and N more"
HARDEST_SHOWN = 10         # hardest deals a summary of a --difficulty survey names
BUILD_SHOWN = 16           # hex digits of a core build shown (all that datasets record)


def this_build() -> Dict[str, str]:
    """The running build, as datasets record who made them."""
    return {"fcsurvey_version": __version__, "core_build": core_build()}


def builds(path: Path) -> Dict[str, Any]:
    """Which builds made the chunk files of dataset ``path``, and whether any is not this
    one (a file that records no core build counts as another: it predates the record)."""
    here = this_build()
    made = [{"fcsurvey_version": version, "core_build": build, "chunks": n}
            for (version, build), n in sorted(chunk_builds(path).items(), key=lambda item: -item[1])]
    other = [m for m in made if (m["fcsurvey_version"], m["core_build"]) != (here["fcsurvey_version"],
                                                                              here["core_build"])]
    return {"made_by": made, "this_build": here, "other_build": bool(other)}


def build_text(build: Mapping[str, Any]) -> str:
    """``fcsurvey 0.1.0, core 688fe8fb3960d223`` (or ``core not recorded``)."""
    core = build["core_build"]
    return f"fcsurvey {build['fcsurvey_version'] or '?'}, core {core[:BUILD_SHOWN] if core else 'not recorded'}"


def made_by_text(made: Mapping[str, Any]) -> str:
    """What :func:`builds` found, for people: ``this build (...)``, or each build and its
    chunks and then ``not this build (...)``."""
    here = build_text(made["this_build"])
    if not made["made_by"]:
        return f"no chunks yet; this is {here}"
    if not made["other_build"]:
        return f"this build ({here})"
    by = "; ".join(f"{build_text(m)} ({m['chunks']:,} chunks)" for m in made["made_by"])
    return f"{by} -- another build than this one ({here}): its verdicts are that build's"


def _listed(items: List[Any]) -> Dict[str, Any]:
    return {"count": len(items), "items": items[:LIST_LIMIT]}


def _listed_text(listed: Mapping[str, Any], show: Callable[[Any], str] = str) -> str:
    if not listed["count"]:
        return "none"
    text = ", ".join(show(i) for i in listed["items"])
    more = listed["count"] - len(listed["items"])
    return f"{text} (and {more:,} more)" if more else text


def summarize(path: Path) -> Dict[str, Any]:
    """Rules, coverage, verdict counts, notable deals, solution lengths and speed of the
    dataset at ``path``, as JSON-ready data (lists cut at LIST_LIMIT, with their counts)."""
    manifest = read_manifest(path)
    table = read(path)
    deals = table["deal"].to_pylist()
    present = DealSet.from_sorted(deals)
    requested = DealSet(tuple(r) for r in manifest["requested"])
    missing = requested - present
    by_status: Dict[str, List[int]] = {s: [] for s in STATUSES}
    for deal, status in zip(deals, table["status"].to_pylist()):
        by_status.setdefault(status, []).append(deal)
    moves = pc.filter(table["moves"], pc.equal(table["status"], SOLVED)).drop_null().to_pylist()
    runs: Dict[float, float] = {}  # run start -> its last chunk written
    for run_started, written in chunk_runs(path):
        runs[run_started] = max(written, runs.get(run_started, run_started))
    wall = sum(end - start for start, end in runs.items())
    return {
        "path": str(path),
        "fcsurvey_version": manifest["fcsurvey_version"],
        "generator": manifest["generator"],
        "rules": manifest["rules"],
        "limits": manifest["limits"],
        "deals": {"present": len(present), "requested": len(requested),
                  "first": requested.ranges[0][0] if requested else None,
                  "last": requested.ranges[-1][1] if requested else None,
                  "missing": len(missing), "gaps": _listed([list(r) for r in missing.ranges])},
        "builds": builds(path),
        "status": {s: len(found) for s, found in by_status.items()},
        **{s: _listed(by_status[s]) for s in (UNSOLVABLE, UNKNOWN, ERROR)},
        "moves": _stats(moves),
        "states": pc.sum(table["states"]).as_py() or 0,
        "solver_s": (pc.sum(table["elapsed_ms"]).as_py() or 0.0) / 1000.0,
        "wall_s": wall,
        "runs": len(runs),
        "deals_per_s": len(deals) / wall if wall else 0.0,
        "difficulty": _difficulty_summary(table) if DIFFICULTY_RANK in table.column_names else None,
    }


def _stats(values: List[float]) -> Optional[Dict[str, float]]:
    return {"min": min(values), "median": statistics.median(values), "mean": statistics.fmean(values),
            "max": max(values)} if values else None


def _difficulty_summary(table: pa.Table) -> Dict[str, Any]:
    """A --difficulty survey's min_cells counts ("none": no count up to 10 wins), the deals
    whose min_cells is not proven and the limits that stopped them, the score's spread, the
    hardest deals and the time the fewest-cells search took (error rows left out)."""
    rows = table.filter(pc.not_equal(table["status"], ERROR)).sort_by([(DIFFICULTY_RANK, "ascending")])
    cells = Counter(rows["min_cells"].to_pylist())
    inexact = rows.filter(pc.invert(rows["min_cells_exact"]))
    hardest = rows.filter(pc.is_valid(rows["difficulty"])).slice(0, HARDEST_SHOWN)
    bands = Counter(rows[BAND].to_pylist())
    return {
        "min_cells": {("none" if k is None else str(k)): cells[k]
                      for k in sorted(cells, key=lambda k: -1 if k is None else k)},
        "bands": {name: bands[name] for name in BANDS if bands[name]},
        "inexact": _listed(sorted(inexact["deal"].to_pylist())),
        "inexact_limits": dict(Counter(inexact["min_cells_limit"].drop_null().to_pylist())),
        "score": _stats(rows["difficulty"].drop_null().to_pylist()),
        "hardest": [{"deal": d, "difficulty": x, "min_cells": k} for d, x, k in zip(
            hardest["deal"].to_pylist(), hardest["difficulty"].to_pylist(), hardest["min_cells"].to_pylist())],
        "search_s": (pc.sum(rows["difficulty_ms"]).as_py() or 0.0) / 1000.0,
    }


def _difficulty_text(d: Mapping[str, Any]) -> List[str]:
    counts = ", ".join(f"{k}: {n:,}" for k, n in d["min_cells"].items())
    limits = ", ".join(f"{n:,} by the {limit} limit" for limit, n in d["inexact_limits"].items())
    proven = ("all proven" if not d["inexact"]["count"] else
              f"not proven for {_listed_text(d['inexact'])}" + (f" ({limits})" if limits else ""))
    score = d["score"]
    lines = [f"Min cells   {counts}; {proven}",
             "Bands       " + ", ".join(f"{name}: {n:,}" for name, n in d["bands"].items())]
    lines.append("Difficulty  " + ("no scores" if score is None else
                 f"min {score['min']:g}, median {score['median']:g}, mean {score['mean']:.3f}, "
                 f"max {score['max']:g}; hardest: "
                 + ", ".join(f"{h['deal']} ({h['difficulty']:g})" for h in d["hardest"])))
    return lines


def summary_text(summary: Mapping[str, Any]) -> str:
    """:func:`summarize`'s result for people."""
    d = summary
    deals, moves, limits = d["deals"], d["moves"], d["limits"]
    gaps = _listed_text(deals["gaps"], lambda r: str(DealSet([tuple(r)])))
    span = f"{deals['first']}-{deals['last']}" if deals["requested"] else "none"
    lines = [
        f"Dataset     {d['path']} (fcsurvey {d['fcsurvey_version']}, deals by {d['generator']})",
        f"Rules       {Rules.from_dict(d['rules']).describe()}",
        f"Limits      {limits['max_states']:,} states per deal, "
        + ("no timeout" if limits["timeout"] is None else f"{limits['timeout']:g} s per deal")
        + (f"; {limits['length']} solutions" if "length" in limits else "")
        + ("; searches only (no layered proof)" if limits.get(SEARCHES_ONLY) else ""),
        f"Deals       {deals['present']:,} of {deals['requested']:,} requested (within {span}); "
        + ("no gaps" if not deals["missing"] else f"{deals['missing']:,} missing: {gaps}"),
        f"Status      {counts_text(d['status'])}",
        f"Unsolvable  {_listed_text(d[UNSOLVABLE])}",
        f"Unknown     {_listed_text(d[UNKNOWN])} (a limit stopped the search)",
        f"Error       {_listed_text(d[ERROR])} (no verdict"
        + ("; rerun the survey to retry them)" if d[ERROR]["count"] else ")"),
    ]
    lines.insert(1, f"Made by     {made_by_text(d['builds'])}")
    lines.append("Moves       " + ("no solved deals" if moves is None else
                 f"min {moves['min']}, median {moves['median']:g}, mean {moves['mean']:.1f}, "
                 f"max {moves['max']} (solved deals)"))
    if d["difficulty"] is not None:
        lines += _difficulty_text(d["difficulty"])
    lines.append(f"States      {d['states']:,} in total")
    lines.append(f"Time        {duration(d['wall_s'])} wall over {d['runs']} run(s), "
                 f"{d['deals_per_s']:,.1f} deals/s; {duration(d['solver_s'])} in the solver"
                 + ("" if d["difficulty"] is None else
                    f", {duration(d['difficulty']['search_s'])} more finding the fewest cells"))
    return "\n".join(lines)

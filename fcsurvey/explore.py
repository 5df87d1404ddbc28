"""Beyond the published record: ``fcsurvey verify --explore``.

``foundation-return`` takes the deals unsolvable with 4 cells (standard rules), those below
a tier's bound or those of a range, and solves them again with foundation return on, each
verdict a proof: a solution the rules engine replays to a win, or an exhaustive search.  Its survey lives in verify's cache like a
claim's, so an interrupted exploration resumes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from . import known, store
from .deals import deal as make_deal
from .dealset import DealSet
from .known import FREECELL, FULL, QUICK, STANDARD
from .limits import Limits
from .notation import format_solution, parse_solution
from .replay import validate
from .schema import SOLVED, UNSOLVABLE, no_proof_reason
from .survey import Survey, default_out
from .verify import CACHE_DIR, ProgressFactory, Say

EXPLORATIONS = ("foundation-return",)
EXPLORED_TOKENS_PER_LINE = 20
#: ``--explore foundation-return`` re-solves the deals unsolvable with 4 cells below this.
EXPLORE_BELOW = {QUICK: 1_000_000, STANDARD: 1_000_000, FULL: 10_000_000}
FOUNDATION_RETURN = FREECELL.replace(foundation_return=True)


@dataclass(frozen=True)
class Explored:
    """One deal re-solved with foundation return.  ``proved`` is true for a proof either way:
    unsolvable after an exhaustive search, or solved with a solution the rules engine replays
    to a win."""

    deal: int
    status: str
    states: int
    solution: Optional[str]
    replay: str
    proved: bool


class ExploreError(ValueError):
    """An exploration asked for deals it has nothing to do with."""


def explore_deals(tier: Optional[str], among: Optional[DealSet] = None) -> Tuple[int, ...]:
    """The deals unsolvable with 4 cells that ``--explore`` re-solves: those of ``among``
    when given (``--deals``: any range, such as the 1,282 below 100,000,000), else those
    below the tier's :data:`EXPLORE_BELOW`.  ExploreError when ``among`` holds none, since
    an exploration of no deal would only look like one that found nothing."""
    if among is None:
        return known.IMPOSSIBLE_4_CELLS.within(DealSet([(1, EXPLORE_BELOW[tier or QUICK])]))
    deals = known.IMPOSSIBLE_4_CELLS.within(among)
    if not deals:
        raise ExploreError(f"no deal of {among} is unsolvable with 4 cells; --explore re-solves only "
                           f"those ({known.IMPOSSIBLE_4_CELLS.source})")
    return deals


def explore_foundation_return(deals: Sequence[int], *, cache: Path = CACHE_DIR,
                              workers: Optional[int] = None, progress: Optional[ProgressFactory] = None,
                              say: Say = lambda _: None) -> List[Explored]:
    """Solve ``deals`` with foundation return on and replay every solution found.

    The survey keeps solutions and lives in the cache like a claim's, so it resumes.
    """
    wanted = DealSet((d, d) for d in deals)
    limits = Limits()
    out = Path(cache) / default_out(wanted, FOUNDATION_RETURN, limits).name
    job = Survey(wanted, out, rules=FOUNDATION_RETURN, limits=limits, workers=workers)
    say(f"foundation return: solving {job.todo:,} deals ({job.skipped:,} already done) into {job.out}")
    job.run(progress(job.todo) if progress is not None and job.todo else None)
    table = store.read(out)
    rows = {r["deal"]: r for r in table.select(["deal", "status", "states", "solution", "limit", "error"])
            .to_pylist()}
    explored = []
    for number in deals:
        row = rows.get(number)
        if row is None:
            explored.append(Explored(number, "missing", 0, None, f"no row in {out}", False))
        elif row["status"] == UNSOLVABLE:
            explored.append(Explored(number, UNSOLVABLE, row["states"], None,
                                     f"every reachable position searched ({row['states']:,})", True))
        elif row["status"] == SOLVED:
            check = validate(make_deal(number, FOUNDATION_RETURN), FOUNDATION_RETURN, row["solution"] or "")
            explored.append(Explored(number, SOLVED, row["states"], row["solution"],
                                     f"solution replayed by the rules engine: {check.verdict()}", check.ok))
        else:
            explored.append(Explored(number, row["status"], row["states"] or 0, None,
                                     f"no proof ({no_proof_reason(row)})", False))
    return explored


def explore_text(explored: Sequence[Explored]) -> str:
    """The foundation-return report: a line per deal, then the solutions."""
    width = max(len(str(e.deal)) for e in explored)
    lines = ["Deals unsolvable with 4 free cells (standard rules), solved again with foundation return:", ""]
    lines += [f"{str(e.deal).rjust(width)}  {e.status:<10}  {e.replay}" for e in explored]
    solved = [e for e in explored if e.status == SOLVED]
    for e in solved:
        lines += ["", f"deal {e.deal} with foundation return:",
                  format_solution(parse_solution(e.solution or ""), per_line=EXPLORED_TOKENS_PER_LINE)]
    lines += ["", f"{len(solved)} of {len(explored)} become solvable with foundation return; "
              + ("every verdict is a proof." if all(e.proved for e in explored)
                 else f"{sum(not e.proved for e in explored)} without a proof.")]
    return "\n".join(lines)


def explore_markdown(explored: Sequence[Explored]) -> str:
    """The foundation-return report for ``--report``."""
    return f"# Foundation return\n\n```\n{explore_text(explored)}\n```\n"

"""Beyond the published record: ``fcsurvey verify --explore``.

``foundation-return`` takes the deals unsolvable with 4 cells (standard rules), those below
a tier's bound, a ``--range`` bound or those of a range, and solves them again with foundation
return on, each verdict a proof: a solution the rules engine replays to a win, or an exhaustive
search.  ``foundation-return-5cells`` does the same with 5 cells for the six deals unsolvable
with 5.  Its survey lives in verify's cache like a claim's, so an interrupted exploration
resumes, on every worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from . import known, store
from .deals import deal as make_deal
from .dealset import MAX_DEAL, DealSet
from .known import FREECELL, FULL, QUICK, STANDARD, DealList
from .limits import Limits
from .notation import HOME_CHAR, format_solution, parse_solution
from .replay import validate
from .rules import Rules
from .schema import SOLVED, UNSOLVABLE, no_proof_reason
from .survey import Survey, default_out
from .verify import CACHE_DIR, ProgressFactory, Say

EXPLORED_TOKENS_PER_LINE = 20
#: ``--explore foundation-return`` re-solves the deals unsolvable with 4 cells below this.
EXPLORE_BELOW = {QUICK: 1_000_000, STANDARD: 1_000_000, FULL: 10_000_000}
#: ``--range``: the same, below a bound picked by name, or all of FreeCell Pro's range.
RANGES = {"1M": 1_000_000, "10M": 10_000_000, "100M": 100_000_000, "1G": 1_000_000_000, "all": MAX_DEAL}
FOUNDATION_RETURN = FREECELL.replace(foundation_return=True)


@dataclass(frozen=True)
class Exploration:
    """Which deals an exploration re-solves (those ``impossible`` lists) and under which rules."""

    name: str
    impossible: DealList
    rules: Rules


EXPLORATIONS = {e.name: e for e in (
    Exploration("foundation-return", known.IMPOSSIBLE_4_CELLS, FOUNDATION_RETURN),
    Exploration("foundation-return-5cells", known.IMPOSSIBLE_5_CELLS, FOUNDATION_RETURN.replace(cells=5)),
)}
FOUR_CELLS = EXPLORATIONS["foundation-return"]


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

    @property
    def returns(self) -> int:
        """How many moves of the solution bring a card back down from a foundation."""
        return returned_cards(self.solution or "")


def returned_cards(solution: str) -> int:
    """How many tokens of ``solution`` move a card off a foundation (``hS3``: the spade
    foundation's top card to column 3).  A deal unsolvable without foundation return
    needs at least one in every solution."""
    return sum(token.startswith(HOME_CHAR) for token in parse_solution(solution))


class ExploreError(ValueError):
    """An exploration asked for deals it has nothing to do with."""


def below(name: Optional[str]) -> Optional[DealSet]:
    """The deals of a ``--range`` name (``None`` for none given)."""
    return None if name is None else DealSet([(1, RANGES[name])])


def explore_deals(tier: Optional[str], among: Optional[DealSet] = None,
                  exploration: Exploration = FOUR_CELLS) -> Tuple[int, ...]:
    """The deals of ``exploration``'s list that ``--explore`` re-solves: those of ``among``
    when given (``--deals`` or ``--range``: any range, such as the 1,282 below 100,000,000),
    else, with 4 cells, those below the tier's :data:`EXPLORE_BELOW`, and with 5 cells all
    six.  ExploreError when ``among`` holds none, since an exploration of no deal would only
    look like one that found nothing."""
    if among is None:
        if exploration is not FOUR_CELLS:
            return exploration.impossible.numbers()
        among = DealSet([(1, EXPLORE_BELOW[tier or QUICK])])
    deals = exploration.impossible.within(among)
    if not deals:
        raise ExploreError(f"no deal of {among} is unsolvable with {exploration.rules.cells} cells; "
                           f"--explore re-solves only those ({exploration.impossible.source})")
    return deals


def explore_foundation_return(deals: Sequence[int], *, exploration: Exploration = FOUR_CELLS,
                              cache: Path = CACHE_DIR, workers: Optional[int] = None,
                              progress: Optional[ProgressFactory] = None,
                              say: Say = lambda _: None) -> List[Explored]:
    """Solve ``deals`` under ``exploration``'s rules (foundation return on) and replay every
    solution found.

    The survey keeps solutions and lives in the cache like a claim's, so it resumes.
    """
    rules = exploration.rules
    wanted = DealSet((d, d) for d in deals)
    limits = Limits()
    out = Path(cache) / default_out(wanted, rules, limits).name
    job = Survey(wanted, out, rules=rules, limits=limits, workers=workers)
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
            check = validate(make_deal(number, rules), rules, row["solution"] or "")
            explored.append(Explored(number, SOLVED, row["states"], row["solution"],
                                     f"solution replayed by the rules engine: {check.verdict()}", check.ok))
        else:
            explored.append(Explored(number, row["status"], row["states"] or 0, None,
                                     f"no proof ({no_proof_reason(row)})", False))
    return explored


def explore_text(explored: Sequence[Explored], cells: int = FOUNDATION_RETURN.cells) -> str:
    """The foundation-return report: a line per deal, then the solutions."""
    width = max(len(str(e.deal)) for e in explored)
    lines = [f"Deals unsolvable with {cells} free cells (standard rules), solved again with foundation return:", ""]
    lines += [f"{str(e.deal).rjust(width)}  {e.status:<10}  {e.replay}" for e in explored]
    solved = [e for e in explored if e.status == SOLVED]
    for e in solved:
        lines += ["", f"deal {e.deal} with foundation return ({e.returns} cards come back down):",
                  format_solution(parse_solution(e.solution or ""), per_line=EXPLORED_TOKENS_PER_LINE)]
    lines += ["", f"{len(solved)} of {len(explored)} become solvable with foundation return; "
              + ("every verdict is a proof." if all(e.proved for e in explored)
                 else f"{sum(not e.proved for e in explored)} without a proof.")]
    return "\n".join(lines)


def explore_markdown(explored: Sequence[Explored], cells: int = FOUNDATION_RETURN.cells) -> str:
    """The foundation-return report for ``--report``."""
    return f"# Foundation return\n\n```\n{explore_text(explored, cells)}\n```\n"

"""How hard a deal is: the fewest free cells that win it, and a score built on that.

``min_cells`` is the fewest free cells with which the deal can be won under otherwise
identical rules.  It is proof-grade: the solver wins with ``min_cells`` cells (a solution
the rules engine can replay) and proves the deal unsolvable with one cell fewer (every
reachable position visited).  A cell more never hurts -- a move legal with k cells is
legal with k + 1, the extra one simply staying empty -- so one proof below one win
settles it.

The score (docs/difficulty.md) is ``min_cells`` plus a fraction below one: the search
effort the solver needed to win with exactly ``min_cells`` cells, as log10 of the positions
it stored, over :data:`EFFORT_DIGITS`.  Needing a cell more always outweighs any effort.

This module runs in survey workers, so it imports nothing heavy.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from .bands import KINGS_SPLIT_CELLS
from .deals import deal as make_deal
from .replay import validate
from .limits import Limits
from .rules import MAX_CELLS, Rules
from .schema import SOLVED, STATES_LIMIT, TIME_LIMIT, UNKNOWN, UNSOLVABLE
from .solver import PROOF, SEARCH, Result, solve as solve_deal

#: The effort fraction is log10(positions stored) / EFFORT_DIGITS.  The C core counts
#: positions in 32 bits (fewer than 10^9.7), so the fraction stays below one.
EFFORT_DIGITS = 10
#: Scores are rounded so that efforts within about 2% tie (and share a rank).
SCORE_DECIMALS = 3
#: The largest effort fraction, so that the score stays monotone in min_cells whatever a
#: solver reports.
MAX_EFFORT = 1 - 10 ** -SCORE_DECIMALS

#: A search under narrower rules gets this fraction (1/8) of the positions limit.
NARROWER_SHARE = 8
#: The most positions :func:`kings_won`'s searches may store, whatever the survey's limit:
#: the question is asked of 60% of FreeCell deals, and a kings-only game it cannot settle
#: within this rarely settles cheaply above it (docs/difficulty.md, "Bands").
KINGS_MAX_STATES = 1_000_000

#: A solver as :func:`fcsurvey.solver.solve` is called here (``phases`` by keyword).
Solve = Callable[..., Result]


@dataclass(frozen=True)
class MinCells:
    """What the search for a deal's fewest cells found.

    ``min_cells`` is the fewest cells with a win found (``None`` when none up to
    MAX_CELLS wins); ``exact`` says it is proven (the count below is proven unsolvable, or
    the layout allows no fewer; for ``None``, MAX_CELLS is proven unsolvable); otherwise
    ``limit`` names the limit that stopped the proof.  ``states`` is the positions stored
    to win with ``min_cells`` cells; ``verdicts`` holds every verdict made, by cell count;
    ``search_s`` is the solver time spent beyond the verdict the search was given.
    ``kings_won`` is :func:`kings_won`'s answer (``None`` where it was not asked or not
    decided), and ``kings`` its verdict when a solve was made for it.
    """

    min_cells: Optional[int]
    exact: bool
    limit: Optional[str]
    states: Optional[int]
    verdicts: Dict[int, Result]
    search_s: float
    kings_won: Optional[bool] = None
    kings: Optional[Result] = None

    @property
    def difficulty(self) -> Optional[float]:
        """The score, ``None`` when no cell count wins."""
        if self.min_cells is None or self.states is None:
            return None
        return score(self.min_cells, self.states)


def score(min_cells: int, states: int) -> float:
    """``min_cells`` + log10(states) / EFFORT_DIGITS, rounded to SCORE_DECIMALS.

    Log scale because effort spans six orders of magnitude (a greedy line that wins at
    once stores about a hundred positions, the hardest 2-cell wins tens of millions).
    """
    effort = min(math.log10(max(states, 1)) / EFFORT_DIGITS, MAX_EFFORT)
    return round(min_cells + effort, SCORE_DECIMALS)


def fewest_cells_allowed(rules: Rules) -> int:
    """The fewest cells the layout allows: a layout dealing cards into cells needs them."""
    return max(rules.prefilled_cells) + 1 if rules.prefilled_cells else 0


def min_cells(deal: int, rules: Rules, limits: Limits = Limits(), solve: Solve = solve_deal,
              known: Optional[Result] = None) -> MinCells:
    """Find deal ``deal``'s fewest winning cells under ``rules`` with every other rule kept.

    Starts at ``rules.cells`` (whose :func:`decide` verdict may be passed as ``known``),
    goes up while no win is found, then down from the lowest win while no count is proven
    unsolvable: a count the limits leave undecided is stepped over, since a win below it
    still settles the question.  Each verdict is :func:`decide`'s, under ``limits``.
    """
    verdicts: Dict[int, Result] = {}

    def verdict(cells: int) -> Result:
        if cells not in verdicts:
            verdicts[cells] = (known if known is not None and cells == rules.cells
                               else decide(deal, rules.replace(cells=cells), limits, solve))
        return verdicts[cells]

    won = rules.cells
    while verdict(won).status != SOLVED:
        if won == MAX_CELLS:
            top = verdict(won)
            return _found(None, top.status == UNSOLVABLE, top.limit, None, verdicts, known)
        won += 1
    floor = fewest_cells_allowed(rules)
    below = won - 1
    while below >= floor and verdict(below).status != UNSOLVABLE:
        if verdict(below).status == SOLVED:
            won = below
        below -= 1
    exact = won == floor or verdicts[won - 1].status == UNSOLVABLE
    return _found(won, exact, None if exact else verdicts[won - 1].limit, verdicts[won].states,
                  verdicts, known)


def _found(cells: Optional[int], exact: bool, limit: Optional[str], states: Optional[int],
           verdicts: Dict[int, Result], known: Optional[Result]) -> MinCells:
    spent = sum(r.elapsed_s for r in verdicts.values()) - (known.elapsed_s if known else 0.0)
    return MinCells(cells, exact, limit, states, verdicts, spent)


def kings_rules(rules: Rules, cells: int) -> Optional[Rules]:
    """``rules`` with ``cells`` cells and empty columns for kings only, ``None`` when empty
    columns already take kings only or nothing: then every win is a kings-only win."""
    return rules.replace(cells=cells, empty_fill="kings") if rules.empty_fill == "any" else None


def kings_won(deal: int, rules: Rules, found: MinCells, limits: Limits = Limits(),
              solve: Solve = solve_deal) -> MinCells:
    """``found`` with ``kings_won``: whether ``found.min_cells`` cells still win deal ``deal``
    when empty columns take kings only -- ``True`` for a win the rules engine replays,
    ``False`` when that narrower game is proven unsolvable, ``None`` when the limits leave it
    undecided.  Asked only where the bands need it: a proven ``min_cells`` of
    :data:`KINGS_SPLIT_CELLS`.

    Kings-only empty columns allow only moves the real rules allow, so a win there is a win
    and the answer is a property of the deal, like ``min_cells`` itself: a verdict either
    way is a proof, whatever search found it.

    It is :func:`decide`'s verdict without the layered proof, whose cost has no bound but
    time, and within at most :data:`KINGS_MAX_STATES` positions: ``False`` needs the
    complete search to visit the whole kings-only game (most deals' games have under
    100,000 positions, 2-cell deal 132's has 16 million), and on a winnable game the proof
    would run until it met a win near its end.  A deal left undecided is ``unrated``;
    whether a search finds a win in time depends on the search, so another build may rate
    a deal this one leaves ``unrated``, but never in another band.
    """
    if found.min_cells != KINGS_SPLIT_CELLS or not found.exact:
        return found
    narrower = kings_rules(rules, found.min_cells)
    if narrower is None:
        return dataclasses.replace(found, kings_won=True)
    room = Limits(max_states=min(limits.max_states, KINGS_MAX_STATES), timeout=limits.timeout)  # any solution
    verdict = decide(deal, narrower, room, solve, proof=False)
    answer = {SOLVED: True, UNSOLVABLE: False}.get(verdict.status)
    real = rules.replace(cells=found.min_cells)
    if answer and not validate(make_deal(deal, real), real, verdict.solution).ok:
        answer = None
    return dataclasses.replace(found, kings_won=answer, kings=verdict,
                               search_s=found.search_s + verdict.elapsed_s)


def narrower_rules(rules: Rules) -> List[Rules]:
    """Rule sets allowing only moves that ``rules`` allows too, so that their wins are wins
    under ``rules``: single-card moves only, and empty columns for kings only (which also
    keeps them from doubling a sequence move)."""
    narrower = []
    if rules.sequence != "single":
        narrower.append(rules.replace(sequence="single"))
    if rules.empty_fill == "any":
        narrower.append(rules.replace(empty_fill="kings"))
    return narrower


def decide(deal: int, rules: Rules, limits: Limits = Limits(), solve: Solve = solve_deal,
           proof: bool = True) -> Result:
    """The verdict on ``deal`` under ``rules``, and when the limits leave it undecided, a
    win found under :func:`narrower_rules` and replayed under ``rules`` by the rules engine.

    A narrower game is a different search that sometimes finds a win the full search runs
    out of room for (deal 28321 with 3 cells: the complete search finds no win in 50 million
    positions, single-card moves one in 864,700 positions; the solver's greedy tries now win
    it first, in 89,469).  It can only prove wins, never unsolvability, so it
    runs the searches alone, each narrower game with a :data:`NARROWER_SHARE` of the room:
    a deal they do not win goes on to the full rules' proof, and the two would add as much
    again as its own searches cost with all of it (a quarter, with an eighth each), while
    the wins they find come early (28321 and 9608 each under a million positions).

    The narrower searches come between the full rules' searches and their layered proof,
    which keeps no paths: on a winnable deal it can only end ``unknown``, and only near the
    end (deal 9608 with one cell: hours, where single cards win in 275,359 positions).
    ``limits.timeout`` covers every attempt together.  The result counts the positions,
    expansions and time of every attempt.  Without ``proof`` there is no layered proof:
    ``unsolvable`` only where the complete search runs out of positions within
    ``limits.max_states``.
    """
    attempts = [solve(deal, rules, limits, phases=(SEARCH,))]
    result = attempts[0]
    if result.status == UNKNOWN:
        for narrower in narrower_rules(rules):
            attempt = _attempt(solve, deal, narrower, limits, attempts, NARROWER_SHARE, (SEARCH,))
            if attempt.status == SOLVED and validate(make_deal(deal, rules), rules, attempt.solution).ok:
                result = attempt
                break
        else:
            if proof and result.limit == STATES_LIMIT:
                result = _attempt(solve, deal, rules, limits, attempts, 1, (PROOF,))
    return dataclasses.replace(result, states=sum(a.states for a in attempts),
                               expanded=sum(a.expanded for a in attempts),
                               elapsed_s=sum(a.elapsed_s for a in attempts))


def _attempt(solve: Solve, deal: int, rules: Rules, limits: Limits, attempts: List[Result],
             share: int, phases: Tuple[str, ...]) -> Result:
    """One more solve for :func:`decide`, with a ``share`` of the room and the time the
    attempts so far have left (none left: ``unknown`` at the time limit), added to them."""
    timeout = None if limits.timeout is None else limits.timeout - sum(a.elapsed_s for a in attempts)
    if timeout is not None and timeout <= 0:
        attempt = Result(UNKNOWN, None, 0, 0, 0, 0, 0.0, TIME_LIMIT)
    else:
        attempt = solve(deal, rules, Limits(max_states=max(limits.max_states // share, 1), timeout=timeout),
                        phases=phases)
    attempts.append(attempt)
    return attempt


"""Python API over the C search core.

``solve`` deals a number (or takes a board), runs the compiled search with the
GIL released, and returns a :class:`Result`.  Verdicts are proofs: ``solved``
carries a solution the pure-Python engine replays, ``unsolvable`` means the
complete move graph was exhausted, anything else is ``unknown`` with the limit
that fired.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple, Union

from ._core import _fccore
from .deals import Deal, deal as make_deal
from .rules import BUILD_ORDERS, EMPTY_FILLS, PRESETS, SEQUENCE_MOVES, Rules

SOLVED, UNSOLVABLE, UNKNOWN = "solved", "unsolvable", "unknown"

#: Positions one solve may store; sized so one solve stays well under 1 GiB.
DEFAULT_MAX_STATES = 20_000_000


@dataclass(frozen=True)
class Limits:
    """When to give up: ``max_states`` stored positions or ``timeout`` seconds."""

    max_states: int = DEFAULT_MAX_STATES
    timeout: Optional[float] = None


@dataclass(frozen=True)
class Result:
    """The verdict for one deal or board."""

    status: str
    solution: Optional[str]
    moves: int
    atomic_moves: int
    states: int
    expanded: int
    elapsed_s: float
    limit: Optional[str] = None


def core_rules(rules: Rules) -> Tuple[int, int, int, int, int, int]:
    """The rule set as the C core's 6-tuple of ints (order of rules.py's tuples)."""
    return (rules.cells, rules.columns, BUILD_ORDERS.index(rules.build),
            EMPTY_FILLS.index(rules.empty_fill), SEQUENCE_MOVES.index(rules.sequence),
            int(rules.foundation_return))


def _run(rules: Rules, columns, cells, foundations, limits: Limits) -> Result:
    raw = _fccore.solve(core_rules(rules), columns, cells, foundations,
                        limits.max_states, limits.timeout or 0.0)
    return Result(**raw)


def solve(deal: Union[int, Deal], rules: Rules = PRESETS["freecell"], limits: Limits = Limits()) -> Result:
    """Solve a deal number (dealt under ``rules``) or an already dealt layout."""
    layout = deal if isinstance(deal, Deal) else make_deal(deal, rules)
    return _run(rules, layout.columns, layout.cells, (0, 0, 0, 0), limits)

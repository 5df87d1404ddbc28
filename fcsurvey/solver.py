"""Python API over the C search core.

``solve`` deals a number (or takes a board), runs the compiled search with the
GIL released, and returns a :class:`Result`.  Verdicts are proofs: ``solved``
carries a solution the pure-Python engine replays, ``unsolvable`` means the
complete move graph was exhausted, anything else is ``unknown`` with the limit
that fired.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

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

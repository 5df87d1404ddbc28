"""When one solve gives up: the :class:`Limits` value and its error.

The limits are pinned in every dataset's manifest, so the store and the known
results need them; they live apart from :mod:`fcsurvey.solver` because
importing that loads the compiled C core, which reading a dataset does not need.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Dict, Optional

#: Positions one solve may store.  A stored position costs about 82 bytes
#: (measured: 24-byte key, parent link, move, depth, hash slots, open-list
#: entry, growth slack), so 10 million keep one solve under 1 GiB.  When the complete
#: search runs out of room, the layered proof (README) holds up to four times as many at
#: about 20 bytes each, within the same bound.
DEFAULT_MAX_STATES = 10_000_000

#: The most positions a solve may store: the core counts them in 32 bits (and clamps
#: there), so a larger --max-states would silently mean less.
MAX_STATES = 0xFFFF_FFF0


#: How hard a solve works on the length of its solution: ``default`` shortens the line the
#: searches found (edits of its moves, in the C core); ``short`` also runs a beam search for
#: a shorter one (tens of deals a second instead of thousands); ``optimal`` runs an A* search
#: that proves the fewest moves (``par``), within ``max_states`` and ``timeout`` again.
#: Verdicts never depend on it; the solutions do, so a dataset records it and keeps one
#: mode's rows.
DEFAULT_LENGTH, SHORT_LENGTH, OPTIMAL_LENGTH = "default", "short", "optimal"
LENGTHS = (DEFAULT_LENGTH, SHORT_LENGTH, OPTIMAL_LENGTH)

#: The key ``searches_only`` takes in a dataset's recorded limits (only when set).
SEARCHES_ONLY = "searches_only"


class SolverError(ValueError):
    """A board or limit the solver cannot take.

    Defined here with the limits, the first thing the solver refuses, so that
    refusing a limit does not load the C core; :mod:`fcsurvey.solver` raises it
    for boards and re-exports it.
    """


class LimitsError(SolverError):
    """A limit the solver cannot take (a :class:`SolverError`, so callers catching that see it)."""


@dataclass(frozen=True)
class Limits:
    """When to give up: ``max_states`` stored positions or ``timeout`` seconds, or with
    ``searches_only`` where the searches hand over to the layered proof; and how hard to work
    on the solution's ``length`` (one of :data:`LENGTHS`).

    ``searches_only`` runs the greedy tries and the complete search but never the layered
    proof, so a deal the complete search cannot exhaust within ``max_states`` ends
    ``unknown`` (``states``) in the time those take: a cheap pass for winnable-deal tables,
    whose verdicts, with no ``timeout``, depend on no machine's speed or load.  It still
    proves ``unsolvable`` every deal whose positions fit in ``max_states``.
    """

    max_states: int = DEFAULT_MAX_STATES
    timeout: Optional[float] = None
    length: str = DEFAULT_LENGTH
    searches_only: bool = False

    def __post_init__(self) -> None:
        # bool is an int to Python, but True states is a typo, not a limit.
        if isinstance(self.max_states, bool) or not isinstance(self.max_states, int) or self.max_states < 1:
            raise LimitsError(f"max_states must be a positive integer, got {self.max_states!r}")
        if self.max_states > MAX_STATES:
            raise LimitsError(f"max_states can be at most {MAX_STATES:,}, got {self.max_states:,}")
        timeout = self.timeout
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not 0 < timeout < math.inf):  # inf would be no limit, and not JSON
            raise LimitsError(f"timeout must be positive, finite seconds, got {timeout!r}")
        if self.length not in LENGTHS:
            raise LimitsError(f"length must be one of {', '.join(LENGTHS)}, got {self.length!r}")
        if not isinstance(self.searches_only, bool):
            raise LimitsError(f"searches_only must be True or False, got {self.searches_only!r}")

    def to_dict(self) -> Dict[str, Any]:
        """The limits as a dataset records them: ``length`` only when it is not the default,
        ``searches_only`` only when set, so that datasets made before they existed keep the
        identity they were written with (and a searches-only dataset refuses the others)."""
        fields = dataclasses.asdict(self)
        if self.length == DEFAULT_LENGTH:
            del fields["length"]
        if not self.searches_only:
            del fields[SEARCHES_ONLY]
        return fields

"""Rule sets: what a legal move is, and the named variants.

A :class:`Rules` value is small, immutable and hashable so it can key caches,
travel to worker processes and be stored as JSON in a dataset's metadata.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Dict, Mapping

MAX_CELLS = 10
MAX_COLUMNS = 10

BUILD_ORDERS = ("alternate", "suit", "any")
EMPTY_FILLS = ("any", "kings", "none")
SEQUENCE_MOVES = ("limited", "unlimited", "single")

# How the 52 shuffled cards are laid out: (columns dealt to, cards dealt to the
# columns, indexes of the free cells that receive the remaining cards).  These
# mirror PySol's Microsoft-numbered layouts for each game.
LAYOUTS: Dict[str, Dict[str, Any]] = {
    "freecell": {"columns": None, "cell_slots": ()},
    "forecell": {"columns": 8, "cell_slots": (0, 1, 2, 3)},
    "eight-off": {"columns": 8, "cell_slots": (0, 2, 4, 6)},
    "seahaven": {"columns": 10, "cell_slots": (1, 2)},
}


class RulesError(ValueError):
    """A rule set that cannot be played (bad field or unknown variant)."""


@dataclass(frozen=True)
class Rules:
    """One complete rule set.

    ``sequence`` says how many cards one move may carry between columns:
    ``limited`` by free space (see :meth:`sequence_capacity`), ``unlimited``
    (Relaxed FreeCell) or ``single`` cards only.  ``foundation_return`` lets
    the top card of a foundation come back to a column or a free cell.
    """

    variant: str = "freecell"
    cells: int = 4
    columns: int = 8
    build: str = "alternate"
    empty_fill: str = "any"
    sequence: str = "limited"
    foundation_return: bool = False
    layout: str = "freecell"

    def __post_init__(self) -> None:
        if not isinstance(self.cells, int) or not 0 <= self.cells <= MAX_CELLS:
            raise RulesError(f"cells must be 0 to {MAX_CELLS}, got {self.cells}")
        if not isinstance(self.columns, int) or not 1 <= self.columns <= MAX_COLUMNS:
            raise RulesError(f"columns must be 1 to {MAX_COLUMNS}, got {self.columns}")
        for name, allowed in (("build", BUILD_ORDERS), ("empty_fill", EMPTY_FILLS),
                              ("sequence", SEQUENCE_MOVES), ("layout", tuple(LAYOUTS))):
            value = getattr(self, name)
            if value not in allowed:
                raise RulesError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        spec = LAYOUTS[self.layout]
        if spec["columns"] is not None and self.columns != spec["columns"]:
            raise RulesError(f"layout {self.layout} deals {spec['columns']} columns, not {self.columns}")
        slots = spec["cell_slots"]
        if slots and self.cells <= max(slots):
            raise RulesError(f"layout {self.layout} needs at least {max(slots) + 1} free cells")

    @property
    def prefilled_cells(self) -> tuple:
        """Indexes of the free cells that the deal fills."""
        return LAYOUTS[self.layout]["cell_slots"]

    def sequence_capacity(self, empty_cells: int, empty_columns: int) -> int:
        """Most cards one column-to-column move may carry.

        ``empty_columns`` must not count the destination column.  Limited
        moves carry (empty cells + 1) x 2^(empty columns), the number of cards
        that could be moved one at a time through the free space; empty columns
        double it only when any card may fill them.
        """
        if self.sequence == "single":
            return 1
        if self.sequence == "unlimited":
            return 52
        doubling = empty_columns if self.empty_fill == "any" else 0
        return (empty_cells + 1) << doubling

    def replace(self, **changes: Any) -> "Rules":
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        """Canonical JSON (sorted keys) used in dataset metadata."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Rules":
        unknown = set(data) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise RulesError(f"unknown rule fields: {', '.join(sorted(unknown))}")
        return cls(**data)

    def describe(self) -> str:
        """One line for humans, e.g. ``freecell: 4 cells, 8 columns, ...``."""
        return (f"{self.variant}: {self.cells} cells, {self.columns} columns, build {self.build}, "
                f"empty columns take {self.empty_fill}, sequence moves {self.sequence}, "
                f"foundation return {'on' if self.foundation_return else 'off'}")


PRESETS: Dict[str, Rules] = {
    "freecell": Rules(),
    "bakers-game": Rules(variant="bakers-game", build="suit"),
    "kings-only-bakers-game": Rules(variant="kings-only-bakers-game", build="suit",
                                    empty_fill="kings"),
    "relaxed-freecell": Rules(variant="relaxed-freecell", sequence="unlimited"),
    "eight-off": Rules(variant="eight-off", cells=8, build="suit", empty_fill="kings",
                       layout="eight-off"),
    "seahaven-towers": Rules(variant="seahaven-towers", columns=10, build="suit",
                             empty_fill="kings", layout="seahaven"),
    "forecell": Rules(variant="forecell", empty_fill="kings", layout="forecell"),
}


def preset(name: str, **overrides: Any) -> Rules:
    """The named variant, with any fields overridden (``None`` values ignored)."""
    try:
        base = PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown variant {name!r}; choose from {', '.join(PRESETS)}") from None
    changes = {k: v for k, v in overrides.items() if v is not None}
    return base.replace(**changes) if changes else base

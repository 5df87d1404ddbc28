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


#: The named variants: each one's fields where they differ from FreeCell's (see :data:`PRESETS`).
VARIANT_FIELDS: Dict[str, Dict[str, Any]] = {
    "freecell": {},
    "bakers-game": {"build": "suit"},
    "kings-only-bakers-game": {"build": "suit", "empty_fill": "kings"},
    "relaxed-freecell": {"sequence": "unlimited"},
    "eight-off": {"cells": 8, "build": "suit", "empty_fill": "kings", "layout": "eight-off"},
    "seahaven-towers": {"columns": 10, "build": "suit", "empty_fill": "kings", "layout": "seahaven"},
    "forecell": {"empty_fill": "kings", "layout": "forecell"},
}
VARIANTS = tuple(VARIANT_FIELDS)


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
        # Every field is checked by type as well as value (a bool is an int to Python, so
        # True would pass for 1 cell, and 1 for foundation return on): a rule set read from
        # a dataset or the command line is the game it names, or an error.
        for name, low, high in (("cells", 0, MAX_CELLS), ("columns", 1, MAX_COLUMNS)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise RulesError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
        for name, allowed in (("variant", VARIANTS), ("build", BUILD_ORDERS), ("empty_fill", EMPTY_FILLS),
                              ("sequence", SEQUENCE_MOVES), ("layout", tuple(LAYOUTS))):
            value = getattr(self, name)
            if not isinstance(value, str) or value not in allowed:
                raise RulesError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        if not isinstance(self.foundation_return, bool):
            raise RulesError(f"foundation_return must be true or false, got {self.foundation_return!r}")
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
        _check_names(changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        """Canonical JSON (sorted keys) used in dataset metadata."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Rules":
        """The rule set :meth:`to_dict` wrote, as stored in a dataset or an export.

        Every field must be there: a stored rule set with one missing is damaged,
        and filling it in with FreeCell's would read it as some other game.
        """
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a mapping of rule fields, got {data!r}")
        _check_names(data)
        missing = [name for name in RULE_FIELDS if name not in data]
        if missing:
            raise RulesError(f"missing rule fields: {', '.join(missing)}")
        return cls(**data)

    def describe(self) -> str:
        """One line for humans, e.g. ``freecell: 4 cells, 8 columns, ...``."""
        return (f"{self.variant}: {self.cells} cells, {self.columns} columns, build {self.build}, "
                f"empty columns take {self.empty_fill}, sequence moves {self.sequence}, "
                f"foundation return {'on' if self.foundation_return else 'off'}")


#: The rule fields, in the order :class:`Rules` declares them.
RULE_FIELDS = tuple(field.name for field in dataclasses.fields(Rules))

PRESETS: Dict[str, Rules] = {name: Rules(variant=name, **fields) for name, fields in VARIANT_FIELDS.items()}


def _check_names(fields: Mapping[str, Any]) -> None:
    """RulesError unless every key of ``fields`` names a rule field."""
    unknown = sorted(str(name) for name in fields if name not in RULE_FIELDS)
    if unknown:
        raise RulesError(f"unknown rule fields: {', '.join(unknown)}; the fields are {', '.join(RULE_FIELDS)}")


def preset(name: str, **overrides: Any) -> Rules:
    """The named variant, with any fields overridden (``None`` values ignored)."""
    try:
        base = PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown variant {name!r}; choose from {', '.join(PRESETS)}") from None
    changes = {k: v for k, v in overrides.items() if v is not None}
    return base.replace(**changes) if changes else base

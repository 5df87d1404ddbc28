"""fcsurvey: survey ranges of Microsoft-numbered FreeCell deals.

The library's public API is importable from here::

    import fcsurvey
    result = fcsurvey.solve(11982, fcsurvey.preset("freecell"), fcsurvey.Limits(max_states=1_000_000))
    table = fcsurvey.read("results/freecell_1-32000")

Each name is imported from its module on first use (PEP 562), so that
``import fcsurvey`` -- which every ``import fcsurvey.<module>`` runs first --
loads neither the C core nor pyarrow: reading a dataset's manifest or the
known results stays light, and a worker pays only for what it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, List

__version__ = "0.1.0"

#: Each public name and the module it comes from.
_API = {
    "deal": "deals",
    "Rules": "rules", "RulesError": "rules", "PRESETS": "rules", "preset": "rules",
    "Limits": "limits", "SolverError": "limits",
    "solve": "solver", "solve_board": "solver", "Result": "solver",
    "validate": "replay",
    "hint": "hints", "Hint": "hints",
    "load_table": "tables", "WinnableTable": "tables",
    "walkthrough": "viewer", "Walkthrough": "viewer",
    "read": "store",
}

__all__ = list(_API)

if TYPE_CHECKING:  # what the names are, for type checkers; at run time __getattr__ imports them
    from .deals import deal
    from .hints import Hint, hint
    from .limits import Limits, SolverError
    from .replay import validate
    from .rules import PRESETS, Rules, RulesError, preset
    from .solver import Result, solve, solve_board
    from .store import read
    from .tables import WinnableTable, load_table
    from .viewer import Walkthrough, walkthrough


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported from its module the first time it is asked for."""
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))

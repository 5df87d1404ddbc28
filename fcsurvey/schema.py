"""What a dataset row is made of: the status words, the limit names and the columns.

Every module that makes, stores or reads rows takes these from here, so a column or a word
changes in one place.  This module is plain data: survey workers build their rows with it
and must stay light (no pyarrow), and :mod:`fcsurvey.known` names statuses without loading
the C core.  The store turns the column list into an Arrow schema (:func:`arrow_schema`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Sequence, Tuple

if TYPE_CHECKING:  # types only: importing them would load the C core
    import pyarrow as pa

    from .difficulty import MinCells
    from .rules import Rules
    from .solver import Result

# --- status words -----------------------------------------------------------------------------

SOLVED, UNSOLVABLE, UNKNOWN = "solved", "unsolvable", "unknown"
#: What a solve ends with: a proof either way, or no verdict within the limits.
VERDICTS = (SOLVED, UNSOLVABLE, UNKNOWN)
#: The status of a deal that got no verdict because its solve failed (the solver raised,
#: or its worker died twice on it).
ERROR = "error"
#: Every status a row may have.
STATUSES = VERDICTS + (ERROR,)

# --- limit names ------------------------------------------------------------------------------

#: The limit an ``unknown`` verdict names: stored positions (``Limits.max_states``), time
#: (``Limits.timeout``), memory the search could not get, or disk a proof's spill files
#: could not get.  The C core names them in the same order (LIMIT_NAMES in module.c).
STATES_LIMIT, TIME_LIMIT, MEMORY_LIMIT, DISK_LIMIT = "states", "time", "memory", "disk"
LIMIT_NAMES = (STATES_LIMIT, TIME_LIMIT, MEMORY_LIMIT, DISK_LIMIT)
#: The limit the C core stops a layered proof with to go on with the threads it is offered
#: (offer.py), named after the others: never a verdict's nor a row's, as the solve resumes
#: the proof at once.
THREADS_LIMIT = "threads"
#: The limit the C core stops a layered proof with when a move goes down a layer, against
#: the argument that makes it a proof (docs/solver.md): a bug, which solver.py raises as
#: ProofBroken, never a verdict.
BROKEN_LIMIT = "broken"
CORE_LIMIT_NAMES = LIMIT_NAMES + (THREADS_LIMIT, BROKEN_LIMIT)

# --- the row schema ---------------------------------------------------------------------------

#: Every dataset's columns, with their Arrow types.
COLUMNS: Tuple[Tuple[str, str], ...] = (
    ("deal", "uint64"),
    ("variant", "string"),
    ("cells", "uint8"),
    ("foundation_return", "bool_"),
    ("status", "string"),
    ("moves", "uint16"),
    ("atomic_moves", "uint16"),
    ("solution", "string"),
    ("states", "uint64"),
    ("elapsed_ms", "float32"),
    ("limit", "string"),
    ("error", "string"),
)
#: The extra columns of a ``--difficulty`` survey (see difficulty.py).
DIFFICULTY_COLUMNS: Tuple[Tuple[str, str], ...] = (
    ("min_cells", "uint8"),
    ("min_cells_exact", "bool_"),
    ("min_cells_limit", "string"),
    ("min_cells_states", "uint64"),
    ("difficulty", "float64"),
    ("difficulty_ms", "float32"),
    ("kings_won", "bool_"),
)
#: Columns of a ``--difficulty`` survey that files written before them lack: such a file
#: reads with the column null throughout (bands.py then rates its 2-cell deals ``unrated``).
LATER_DIFFICULTY_COLUMNS = ("kings_won",)
#: The extra column of an ``--optimal`` survey: the proven fewest moves (null where A* ran
#: out of room or time, or the deal has no solution).
PAR_COLUMNS: Tuple[Tuple[str, str], ...] = (("par", "uint16"),)
#: Rank 1 for the hardest deal of a ``--difficulty`` dataset.  It depends on the whole
#: dataset, so it is derived when the dataset is read, never stored.
DIFFICULTY_RANK = "difficulty_rank"
#: The difficulty band of each deal of a ``--difficulty`` dataset (bands.py), derived when
#: the dataset is read from the stored facts it is defined by, never stored itself.
BAND = "band"
#: Columns that repeat the dataset's rules on every row, so that one file stands alone.
RULE_COLUMNS = ("variant", "cells", "foundation_return")

Row = Dict[str, Any]


def columns(difficulty: bool = False, par: bool = False) -> Tuple[Tuple[str, str], ...]:
    """The stored columns (name, Arrow type) of a dataset, with or without ``--difficulty``
    and the ``par`` of ``--optimal``."""
    return COLUMNS + (DIFFICULTY_COLUMNS if difficulty else ()) + (PAR_COLUMNS if par else ())


def arrow_schema(difficulty: bool = False, par: bool = False) -> "pa.Schema":
    """The stored columns as an Arrow schema (pyarrow is imported here, by the store only)."""
    import pyarrow as pa

    return pa.schema([(name, getattr(pa, kind)()) for name, kind in columns(difficulty, par)])


def result_row(deal: int, result: "Result", solutions: bool) -> Row:
    """The row of one verdict; the rule columns are left to :func:`column_values`."""
    solved = result.status == SOLVED
    return {"deal": deal, "status": result.status,
            "moves": result.moves if solved else None,
            "atomic_moves": result.atomic_moves if solved else None,
            "solution": result.solution if solved and solutions else None,
            "states": result.states, "elapsed_ms": result.elapsed_s * 1000.0,
            "limit": result.limit, "error": None, "par": result.par}


def failed_row(deal: int, reason: str) -> Row:
    """The row of a deal that got no verdict."""
    return {"deal": deal, "status": ERROR, "error": reason}


def difficulty_columns(found: "MinCells") -> Row:
    """The ``--difficulty`` columns of one deal, from what its fewest-cells search found."""
    return {"min_cells": found.min_cells, "min_cells_exact": found.exact,
            "min_cells_limit": found.limit, "min_cells_states": found.states,
            "difficulty": found.difficulty, "difficulty_ms": found.search_s * 1000.0,
            "kings_won": found.kings_won}


def no_proof_reason(row: Mapping[str, Any]) -> str:
    """Why the row of an ``unknown`` or ``error`` deal holds no proof: the limit that stopped
    its search, or its error."""
    return f"{row['limit']} limit" if row.get("limit") else row.get("error") or "no reason given"


def column_values(rows: Sequence[Mapping[str, Any]], rules: "Rules", names: Sequence[str]) -> Dict[str, List[Any]]:
    """The values of each column ``names`` over ``rows``: the rule columns from ``rules``,
    the rest from the rows (null where a row has no value, as an error row has none)."""
    constants = {"variant": rules.variant, "cells": rules.cells, "foundation_return": rules.foundation_return}
    return {name: [constants[name]] * len(rows) if name in RULE_COLUMNS else [r.get(name) for r in rows]
            for name in names}

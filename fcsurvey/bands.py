"""Difficulty bands that do not move between releases (docs/difficulty.md, "Bands").

The ``difficulty`` score is search effort, so it belongs to a build: another heuristic
stores other counts and reorders the deals.  A band is read off facts about the deal under
the rules alone, each a proof either way, so any two builds that rate a deal rate it alike:

- ``min_cells``, the fewest free cells that win, proved (a replayed win with that many and
  a proof that one fewer loses: ``min_cells_exact``);
- ``kings_won``, asked of deals with a proved ``min_cells`` of 2 only: whether two cells
  still win when empty columns take kings only (a replayed win, or a proof that none
  exists).

======================  =================================================================
band                    deal (under the dataset's rules)
======================  =================================================================
``easy``                wins with at most one free cell
``medium``              needs two cells, and wins with two even with kings-only columns
``hard``                needs two cells, and with two must put another card than a king
                        into an empty column (kings-only columns: proved lost)
``expert``              needs three cells or more, and the dataset's cells are enough
``unwinnable``          proved lost with the dataset's cells
``unrated``             a fact the band needs is not proved within the survey's limits
======================  =================================================================

``unrated`` is a band of its own rather than a guess from the facts that are known: a
guess could be overturned by a later build that proves the missing fact, moving the deal
between named bands, which is what bands are for never to do.  So a named band never
changes; a later build or a survey with higher limits can only move a deal from
``unrated`` to the band it always had.

This module is plain data and functions of a row: survey workers and the store use it,
and it imports nothing heavy (pyarrow only in :func:`band_column`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .schema import UNSOLVABLE

if TYPE_CHECKING:  # types only
    import pyarrow as pa

EASY, MEDIUM, HARD, EXPERT = "easy", "medium", "hard", "expert"
UNWINNABLE, UNRATED = "unwinnable", "unrated"
#: Every band, easiest first, then the two that are not a difficulty.
BANDS = (EASY, MEDIUM, HARD, EXPERT, UNWINNABLE, UNRATED)
#: The most cells an ``easy`` deal needs.
EASY_CELLS = 1
#: The fewest cells at which the bands ask ``kings_won`` (difficulty.py), which splits
#: ``medium`` from ``hard``; ``expert`` deals need more.  Only there does the answer split
#: the deals: with one cell nearly every deal needs another card than a king in an empty
#: column, with three nearly none does (docs/difficulty.md, "Bands").
KINGS_SPLIT_CELLS = 2


def band(status: Optional[str], min_cells: Optional[int], exact: Optional[bool],
         kings_won: Optional[bool], cells: int) -> str:
    """The band of a deal from its row of a ``--difficulty`` dataset whose rules have
    ``cells`` free cells: its ``status`` there, ``min_cells``, ``min_cells_exact`` and
    ``kings_won``.  Nothing else is read, and each fact read is a proof."""
    proved_none = exact and min_cells is None  # no count up to MAX_CELLS wins, proved
    if status == UNSOLVABLE or proved_none or (exact and min_cells is not None and min_cells > cells):
        return UNWINNABLE
    if not exact or min_cells is None:
        return UNRATED
    if min_cells <= EASY_CELLS:
        return EASY
    if min_cells == KINGS_SPLIT_CELLS:
        return {True: MEDIUM, False: HARD}.get(kings_won, UNRATED)  # type: ignore[arg-type]
    return EXPERT


def band_column(table: "pa.Table", cells: int) -> "pa.Array":
    """:func:`band` of every row of a ``--difficulty`` dataset's table (its rules have
    ``cells`` cells), as a string column."""
    import pyarrow as pa

    columns = [table[name].to_pylist() for name in ("status", "min_cells", "min_cells_exact", "kings_won")]
    return pa.array([band(*facts, cells) for facts in zip(*columns)], pa.string())

"""Microsoft / FreeCell Pro deal numbers turned into layouts.

Microsoft FreeCell shuffles with the C runtime's ``rand()`` seeded by the deal
number; FreeCell Pro extended the numbering up to 8,589,934,591.  This module
holds the pure-Python reference of that generator and the variant layouts; the
C core (``_core/deal.c``) implements the same shuffle for speed and the tests
hold the two (and pysol_cards) equal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .cards import DECK_SIZE, card_text
from .dealset import check_deal_number
from .rules import PRESETS, Rules

MS_LIMIT = 1 << 31        # numbers below this are Microsoft's own deals
LONG_LIMIT = 1 << 32      # from here on the seed restarts at n - 2**32

_LCG_MUL = 214013
_LCG_ADD = 2531011
_MASK32 = 0xFFFFFFFF

GENERATOR_NAME = "microsoft-freecell-pro-lcg"


def _draws(number: int):
    """The generator's successive random values for one deal number."""
    seed = number if number < LONG_LIMIT else number - LONG_LIMIT
    while True:
        seed = (seed * _LCG_MUL + _LCG_ADD) & _MASK32
        if number < MS_LIMIT:
            yield (seed >> 16) & 0x7FFF
        elif number < LONG_LIMIT:
            yield ((seed >> 16) & 0x7FFF) | 0x8000
        else:
            yield ((seed >> 16) & 0xFFFF) + 1


def shuffled_deck(number: int) -> List[int]:
    """The 52 cards in the order they are dealt (pure-Python reference)."""
    number = check_deal_number(number)
    deck = list(range(DECK_SIZE))
    order = []
    draws = _draws(number)
    for left in range(DECK_SIZE, 0, -1):
        j = next(draws) % left
        order.append(deck[j])
        deck[j] = deck[left - 1]
    return order


@dataclass(frozen=True)
class Deal:
    """A dealt layout: columns (deepest card first) and the free cells."""

    number: int
    columns: Tuple[Tuple[int, ...], ...]
    cells: Tuple[Optional[int], ...]

    def text_columns(self) -> List[str]:
        """Each column as ``AH 3D KD ...``, the form the published vectors use."""
        return [" ".join(card_text(c) for c in col) for col in self.columns]


def lay_out(number: int, order: Sequence[int], rules: Rules) -> Deal:
    """Deal ``order`` as the variant does: round-robin over the columns, then
    the leftover cards into the layout's free-cell slots."""
    slots = rules.prefilled_cells
    to_columns = DECK_SIZE - len(slots)
    order = tuple(order)
    columns = tuple(order[i:to_columns:rules.columns] for i in range(rules.columns))  # every n-th card
    cells: List[Optional[int]] = [None] * rules.cells
    for slot, card in zip(slots, order[to_columns:]):
        cells[slot] = card
    return Deal(number, columns, tuple(cells))


def deal(number: object, rules: Rules = PRESETS["freecell"], *, reference: bool = False) -> Deal:
    """The layout of deal ``number`` under ``rules`` (C generator unless ``reference``)."""
    n = check_deal_number(number)
    if reference:
        order = shuffled_deck(n)
    else:
        from ._core import _fccore
        order = _fccore.shuffled_deck(n)
    return lay_out(n, order, rules)

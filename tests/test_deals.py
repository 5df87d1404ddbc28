"""The deal generator: published vectors, C == Python reference == pysol_cards,
and rejection of deal numbers outside 1..8,589,934,591."""

from __future__ import annotations

import random
from typing import Dict, List, Optional, Sequence, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysol_cards.cards import CardRenderer
from pysol_cards.deal_game import Game
from pysol_cards.random_base import RandomBase

from fcsurvey import deals
from fcsurvey._core import _fccore
from fcsurvey.cards import DECK_SIZE, card_text
from fcsurvey.dealset import DealError
from fcsurvey.rules import PRESETS, Rules

from conftest import DEAL_11982_COLUMNS

MAX_DEAL = 8_589_934_591
MS_LIMIT = 1 << 31
LONG_LIMIT = 1 << 32

# -- published vectors (shared/known-results/README.md) ----------------------

DEAL_1_FIRST_ROW = "JD 2D 9H JC 5D 7H 7C 5H"
DEAL_617_FIRST_COLUMN = "7D TD TH KD 4C 4S JD"


@pytest.mark.parametrize("reference", [False, True], ids=["C", "python"])
def test_deal_1_first_row(reference: bool) -> None:
    layout = deals.deal(1, reference=reference)
    assert " ".join(card_text(col[0]) for col in layout.columns) == DEAL_1_FIRST_ROW


@pytest.mark.parametrize("reference", [False, True], ids=["C", "python"])
def test_deal_617_first_column(reference: bool) -> None:
    assert deals.deal(617, reference=reference).text_columns()[0] == DEAL_617_FIRST_COLUMN


@pytest.mark.parametrize("reference", [False, True], ids=["C", "python"])
def test_deal_11982_all_columns(reference: bool) -> None:
    layout = deals.deal(11982, reference=reference)
    assert layout.text_columns() == DEAL_11982_COLUMNS
    assert layout.cells == (None, None, None, None)
    assert layout.number == 11982


def test_deal_number_accepted_as_text() -> None:
    assert deals.deal("11982").text_columns() == DEAL_11982_COLUMNS


# -- C == Python reference == pysol_cards ------------------------------------

PYSOL_GAME_IDS: Dict[str, str] = {
    "freecell": "freecell",
    "bakers-game": "bakers_game",
    "kings-only-bakers-game": "kings_only_bakers_game",
    "relaxed-freecell": "relaxed_freecell",
    "eight-off": "eight_off",
    "seahaven-towers": "seahaven_towers",
    "forecell": "forecell",
}

EDGES = [1, MS_LIMIT - 1, MS_LIMIT, LONG_LIMIT - 1, LONG_LIMIT, MAX_DEAL]
RANGES = [(1, MS_LIMIT - 1), (MS_LIMIT, LONG_LIMIT - 1), (LONG_LIMIT, MAX_DEAL)]
PER_RANGE = 700


def _sample_numbers() -> List[int]:
    """The edges and their neighbours, plus PER_RANGE random numbers in each
    of the three numeric ranges (fixed seed, so failures reproduce)."""
    rng = random.Random(20240617)
    numbers = set()
    for edge in EDGES:
        for d in (-2, -1, 0, 1, 2):
            if 1 <= edge + d <= MAX_DEAL:
                numbers.add(edge + d)
    numbers.update(range(1, 40))
    numbers.update((617, 11982, 32000))
    for low, high in RANGES:
        for _ in range(PER_RANGE):
            numbers.add(rng.randint(low, high))
    return sorted(numbers)


SAMPLE = _sample_numbers()
RENDERER = CardRenderer(True)


def pysol_layout(game_id: str, number: int) -> Tuple[List[str], List[Optional[str]]]:
    """pysol_cards' layout of ``number``: (column lines, free-cell cards)."""
    text = Game(game_id, number, RandomBase.DEALS_MS).calc_layout_string(RENDERER)
    columns: List[str] = []
    cells: List[Optional[str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("Freecells:"):
            cells = [None if t == "-" else t for t in line[len("Freecells:"):].split()]
        else:
            columns.append(" ".join(line.split()))
    return columns, cells


def our_layout(layout: deals.Deal) -> Tuple[List[str], List[Optional[str]]]:
    return layout.text_columns(), [None if c is None else card_text(c) for c in layout.cells]


def _mismatches(name: str, rules: Rules, numbers: Sequence[int]) -> List[str]:
    game_id = PYSOL_GAME_IDS[name]
    problems = []
    for n in numbers:
        ref = our_layout(deals.deal(n, rules, reference=True))
        fast = our_layout(deals.deal(n, rules))
        p_cols, p_cells = pysol_layout(game_id, n)
        if len(p_cells) > rules.cells:
            problems.append(f"{n}: pysol lists {len(p_cells)} cells, rules have {rules.cells}")
            continue
        oracle = (p_cols, p_cells + [None] * (rules.cells - len(p_cells)))
        if ref != fast:
            problems.append(f"{n}: python reference {ref} != C {fast}")
        if ref != oracle:
            problems.append(f"{n}: python reference {ref} != pysol_cards {oracle}")
    return problems


@pytest.mark.parametrize("name", list(PRESETS))
def test_generators_agree_with_pysol_cards(name: str) -> None:
    rules = PRESETS[name]
    problems = _mismatches(name, rules, SAMPLE)
    assert not problems, f"{len(problems)} mismatches for {name}, first: " + "; ".join(problems[:3])


def test_layout_shapes() -> None:
    """Columns and free cells hold all 52 cards once, in the variant's shape."""
    for name, rules in PRESETS.items():
        layout = deals.deal(11982, rules)
        assert len(layout.columns) == rules.columns, name
        assert len(layout.cells) == rules.cells, name
        cards = [c for col in layout.columns for c in col] + [c for c in layout.cells if c is not None]
        assert sorted(cards) == list(range(DECK_SIZE)), name
        filled = tuple(i for i, c in enumerate(layout.cells) if c is not None)
        assert filled == rules.prefilled_cells, name


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=MAX_DEAL))
def test_c_matches_reference_anywhere(number: int) -> None:
    c_order = list(_fccore.shuffled_deck(number))
    assert c_order == deals.shuffled_deck(number)
    assert sorted(c_order) == list(range(DECK_SIZE))


def _python_range_checksum(start: int, count: int) -> int:
    total = 0
    for n in range(start, start + count):
        order = deals.shuffled_deck(n)
        total = (total * 31 + order[0] + order[51]) & 0xFFFFFFFFFFFFFFFF
    return total


@pytest.mark.parametrize("start", [1, MS_LIMIT - 3, LONG_LIMIT - 3, MAX_DEAL - 5])
def test_deal_range_checksum_matches_reference(start: int) -> None:
    """The benchmark's C loop deals the same cards as the reference."""
    assert _fccore.deal_range_checksum(start, 6) == _python_range_checksum(start, 6)


@pytest.mark.parametrize("start, count", [(0, 1), (MAX_DEAL, 2), (MAX_DEAL + 1, 1), (1, MAX_DEAL + 1)])
def test_deal_range_checksum_rejects_out_of_range(start: int, count: int) -> None:
    with pytest.raises(ValueError):
        _fccore.deal_range_checksum(start, count)


# -- bad deal numbers ---------------------------------------------------------

@pytest.mark.parametrize("reference", [False, True], ids=["C", "python"])
@pytest.mark.parametrize("number, words", [
    (0, "1 to 8,589,934,591, got 0"),
    (-5, "1 to 8,589,934,591, got -5"),
    (MAX_DEAL + 1, "1 to 8,589,934,591, got 8,589,934,592"),
    ("abc", "must be an integer, got 'abc'"),
    (True, "must be an integer, got True"),
    (1.5, "must be an integer, got 1.5"),
])
def test_bad_deal_numbers_raise_deal_error(number: object, words: str, reference: bool) -> None:
    with pytest.raises(DealError) as info:
        deals.deal(number, reference=reference)
    message = str(info.value)
    assert message.startswith("deal number must be"), message
    assert words in message
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("number", [0, -5, MAX_DEAL + 1, "abc", True, 1.5])
def test_reference_shuffle_rejects_bad_numbers(number: object) -> None:
    with pytest.raises(DealError):
        deals.shuffled_deck(number)  # type: ignore[arg-type]


@pytest.mark.parametrize("number", [0, MAX_DEAL + 1])
def test_c_shuffle_rejects_out_of_range(number: int) -> None:
    with pytest.raises(ValueError, match="deal number must be 1 to 8589934591"):
        _fccore.shuffled_deck(number)


def test_c_shuffle_rejects_negative() -> None:
    with pytest.raises((ValueError, OverflowError)):
        _fccore.shuffled_deck(-5)


@pytest.mark.parametrize("number", [1, MAX_DEAL])
def test_c_shuffle_accepts_the_ends(number: int) -> None:
    order = _fccore.shuffled_deck(number)
    assert isinstance(order, bytes) and sorted(order) == list(range(DECK_SIZE))

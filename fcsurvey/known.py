"""The published record: claims about Microsoft-numbered deals that ``fcsurvey verify`` checks.

Each :class:`Claim` names its rules, its deals, what the record says about them and where
that was published, and a tier by what checking it costs on a 2-core machine: ``quick``
(a few minutes), ``standard`` (about an hour) or ``full`` (longer).  The deal lists ship in
``fcsurvey/data`` exactly as published, one number a line; the 102,075 deals that cannot
be won with 4 free cells are gzipped, and because that list covers every deal number it
checks any range surveyed under standard rules (:func:`list_claim`).
"""

from __future__ import annotations

import bisect
import functools
import gzip
from dataclasses import dataclass
from importlib import resources
from typing import Dict, List, Optional, Sequence, Tuple, Union

from .limits import DEFAULT_MAX_STATES
from .rules import PRESETS, Rules, preset
from .schema import SOLVED, UNSOLVABLE
from .dealset import DealSet

TIERS = ("quick", "standard", "full")
QUICK, STANDARD, FULL = TIERS
DATA_DIR = "data"

PRINGLE_32000 = "Pringle, github.com/theodorepringle/MicrosoftFreeCell32000-minimal-freecells"
FREECELL_PRO = ("Pringle's FreeCell Pro survey of deals 1-8,589,934,591 with Fish's proofs of the last "
                "9 intractable deals; github.com/shlomif/freecell-pro-impossible-deals")
RULES_PAGE = ("a FreeCell rules page: \"across the first hundred million deals, 69 are winnable only that "
              "way\" (with foundation return; the page gives no source)")
BLAKE_GENT = ("Blake & Gent, The Winnability of Klondike Solitaire and Many Other Patience Games, "
              "JAIR 2026 / arXiv 1906.12314 (Solvitaire on random shuffles)")


class ClaimError(ValueError):
    """A claim that does not exist, or a dataset that cannot check the claims asked for."""


@dataclass(frozen=True)
class DealList:
    """A published list of deal numbers, shipped in ``fcsurvey/data`` as published."""

    file: str
    source: str

    def numbers(self) -> Tuple[int, ...]:
        """The listed deals, ascending (read once, then cached)."""
        return _read_list(self.file)

    def within(self, deals: DealSet) -> Tuple[int, ...]:
        """The listed deals that fall in ``deals``."""
        return _among(self.numbers(), deals)


def _among(numbers: Sequence[int], deals: DealSet) -> Tuple[int, ...]:
    """The ``numbers`` (ascending) in ``deals``: a slice per range, since the 4-cell list
    has 102,075 and claims pick from it as the CLI starts."""
    found: List[int] = []
    for lo, hi in deals.ranges:
        found.extend(numbers[bisect.bisect_left(numbers, lo):bisect.bisect_right(numbers, hi)])
    return tuple(sorted(found))


@functools.lru_cache(maxsize=None)
def _read_list(file: str) -> Tuple[int, ...]:
    data = (resources.files(__package__) / DATA_DIR / file).read_bytes()
    if file.endswith(".gz"):
        data = gzip.decompress(data)
    return tuple(sorted(map(int, data.split())))


IMPOSSIBLE_4_CELLS = DealList(
    "impossible-4cells-1-8589934591.txt.gz",
    f"{FREECELL_PRO}, data/impossible-with-4freecells-deals.txt")
IMPOSSIBLE_5_CELLS = DealList(
    "impossible-5cells-1-8589934591.txt",
    "github.com/shlomif/freecell-pro-impossible-deals, data/impossible-with-5freecells-deals.txt")
UNSOLVABLE_3_CELLS = DealList(
    "unsolvable-3cells-1-32000.txt",
    f"{PRINGLE_32000}; agrees with github.com/shlomif/freecell-pro-3fc-deals--split")
SOLVABLE_0_CELLS = DealList(
    "solvable-0cells-1-32000.txt",
    f"{PRINGLE_32000}; agrees with github.com/shlomif/freecell-pro-0fc-deals")
FCP_3_CELLS = "github.com/shlomif/freecell-pro-3fc-deals--split (commit e53651d, 2020-10-07)"
FCP_0_CELLS = "github.com/shlomif/freecell-pro-0fc-deals (commit a725167, 2026-03-19)"
FCS_2_CELLS = "fc-solve docs/2_freecells-Report-for-first-400K-deals (github.com/shlomif/fc-solve)"
IMPOSSIBLE_3_CELLS = DealList(
    "impossible-3cells-1-9999999.txt.gz", f"{FCP_3_CELLS}, Imp3/000XXXXXXX.txt")
INTRACTABLE_3_CELLS = DealList(
    "intractable-3cells-1-8589934591.txt.gz", f"{FCP_3_CELLS}, Int3.txt")
#: The 0-cell lists are cut from the published logs (a ``S`` or ``Int`` line a deal, deals
#: not listed impossible): the ``Int`` deals of every log, and the ``S`` deals up to 1,000,000.
INTRACTABLE_0_CELLS = DealList(
    "intractable-0cells-1-8589934591.txt.gz", f"{FCP_0_CELLS}, the Int lines of 0fc-logs/*.log.txt")
SOLVABLE_0_CELLS_1M = DealList(
    "solvable-0cells-1-1000000.txt", f"{FCP_0_CELLS}, the S lines of 0fc-logs/00.log.txt up to 1,000,000")
LISTS = (IMPOSSIBLE_4_CELLS, IMPOSSIBLE_5_CELLS, UNSOLVABLE_3_CELLS, SOLVABLE_0_CELLS, IMPOSSIBLE_3_CELLS,
         INTRACTABLE_3_CELLS, INTRACTABLE_0_CELLS, SOLVABLE_0_CELLS_1M)


@dataclass(frozen=True)
class ExactDeals:
    """Of the claim's deals, exactly those in ``deals`` end with ``status``; every other
    deal ends with the opposite verdict."""

    status: str
    deals: Union[DealList, Tuple[int, ...]]

    def within(self, deals: DealSet) -> Tuple[int, ...]:
        """The deals expected to end with ``status`` among ``deals``."""
        return self.deals.within(deals) if isinstance(self.deals, DealList) else _among(sorted(self.deals), deals)


@dataclass(frozen=True)
class Count:
    """Exactly ``count`` of the claim's deals end with ``status``; all others the opposite."""

    status: str
    count: int


@dataclass(frozen=True)
class WinRate:
    """The share of random deals published as winnable, with its published +/- (both
    fractions).  Microsoft deals are a sample of shuffles, so the check is statistical."""

    winnable: float
    error: float = 0.0


@dataclass(frozen=True)
class MinCellsCounts:
    """Surveyed with ``--difficulty`` under the claim's rules, the claim's deals have exactly
    ``counts`` (``(min_cells, deals)`` pairs, ascending) and every ``min_cells`` is proved
    (``min_cells_exact``): a distribution of upper bounds would confirm nothing."""

    counts: Tuple[Tuple[int, int], ...]


Expectation = Union[ExactDeals, Count, WinRate, MinCellsCounts]


@dataclass(frozen=True)
class Claim:
    """One published fact about ``deals`` under ``rules``.

    ``max_states`` is the limit verify's own survey uses: enough, as measured, for every
    deal of the claim to get a proof; a worker's memory stays under about 75 bytes a state.
    """

    id: str
    statement: str
    rules: Rules
    deals: DealSet
    expected: Expectation
    source: str
    tier: Optional[str]  # None for a claim made up for a dataset (list_claim)
    max_states: int = DEFAULT_MAX_STATES

    def __post_init__(self) -> None:
        if self.tier is not None and self.tier not in TIERS:
            raise ValueError(f"claim {self.id}: tier must be one of {', '.join(TIERS)}")
        if isinstance(self.expected, MinCellsCounts) and sum(n for _, n in self.expected.counts) != len(self.deals):
            raise ValueError(f"claim {self.id}: its min_cells counts must add up to its "
                             f"{len(self.deals):,} deals")


def _span(first: int, last: int) -> DealSet:
    return DealSet([(first, last)])


def percent(fraction: float) -> str:
    """A published rate as published: every digit, none of float's noise (99.998881%)."""
    return f"{round(100 * fraction, 9):.12g}%"


def _rate_claim(id: str, name: str, rules: Rules, last: int, winnable: float, error: float,
                tier: str, max_states: int = DEFAULT_MAX_STATES) -> Claim:
    shown = percent(winnable) + (f" +/- {percent(error)[:-1]}" if error else "")
    return Claim(id, f"{name}: {shown} of random deals are winnable; Microsoft deals 1-{last:,} agree",
                 rules, _span(1, last), WinRate(winnable, error), BLAKE_GENT, tier, max_states)


#: The nine deals FreeCell Pro's survey could not decide with 4 cells, in the record's order;
#: each was later proved unsolvable (1.5-6.5 hours each on a 256 GB machine).  Their claim
#: takes DEEP_STATES: at the default limit the layered proof of 219837216 runs out of room.
INTRACTABLE_NINE = (219837216, 1252215044, 2255988055, 2901685480, 2902413565, 4260084873,
                    6687921694, 7489392343, 6825625742)
FREECELL = PRESETS["freecell"]
#: For claims whose deals include proofs past the default limit (measured: 0-cell deal 11747
#: needs 14.7 million states, 2-cell deal 209 22.4 million).  About 4 GiB a worker at most.
DEEP_STATES = 50_000_000

#: The only deal of its survey the record left undecided, by free cells: the record's counts
#: over these ranges hold for every other deal (``_but``).
RECORD_HOLES = {0: 798194, 2: 384243, 3: 138026}


def _but(first: int, last: int, hole: int) -> DealSet:
    """Deals ``first``-``last`` without ``hole``."""
    return _span(first, last) - _span(hole, hole)


CLAIMS: Tuple[Claim, ...] = (
    Claim("4cells-1-32000", "4 free cells: of deals 1-32,000 only 11982 is unsolvable",
          FREECELL, _span(1, 32_000), ExactDeals(UNSOLVABLE, IMPOSSIBLE_4_CELLS),
          IMPOSSIBLE_4_CELLS.source, QUICK),
    Claim("0cells-1-32000", "0 free cells: the 69 listed deals of 1-32,000 are exactly the solvable ones",
          preset("freecell", cells=0), _span(1, 32_000), ExactDeals(SOLVED, SOLVABLE_0_CELLS),
          SOLVABLE_0_CELLS.source, QUICK, DEEP_STATES),
    Claim("5cells-six", "5 free cells: the six listed deals (of all 8,589,934,591) are unsolvable",
          preset("freecell", cells=5), DealSet((n, n) for n in IMPOSSIBLE_5_CELLS.numbers()),
          ExactDeals(UNSOLVABLE, IMPOSSIBLE_5_CELLS), IMPOSSIBLE_5_CELLS.source, QUICK),
    Claim("6cells-six", "6 free cells: the six deals unsolvable with 5 cells are all solvable",
          preset("freecell", cells=6), DealSet((n, n) for n in IMPOSSIBLE_5_CELLS.numbers()),
          ExactDeals(SOLVED, IMPOSSIBLE_5_CELLS), IMPOSSIBLE_5_CELLS.source, QUICK),
    Claim("relaxed-11982", "Relaxed FreeCell (unlimited sequence moves): deal 11982 is solvable",
          PRESETS["relaxed-freecell"], _span(11982, 11982), ExactDeals(SOLVED, (11982,)),
          "fc-solve test data (github.com/shlomif/fc-solve)", QUICK),
    _rate_claim("rate-freecell-0cells", "FreeCell with 0 cells", preset("freecell", cells=0), 32_000,
                0.002137, 0.0, QUICK, DEEP_STATES),
    # 10,000 for the quick tier's cost; 3cells-1-32000 covers the rest
    _rate_claim("rate-freecell-3cells", "FreeCell with 3 cells", preset("freecell", cells=3), 10_000,
                0.993583, 0.0, QUICK, DEEP_STATES),
    _rate_claim("rate-eight-off", "Eight Off", PRESETS["eight-off"], 32_000, 0.998805, 0.000022, QUICK),
    _rate_claim("rate-bakers-game", "Baker's Game", PRESETS["bakers-game"], 5_000, 0.75053, 0.00028, QUICK),
    Claim("4cells-1-1000000", "4 free cells: of deals 1-1,000,000 exactly these eight are unsolvable: "
          "11982 146692 186216 455889 495505 512118 517776 781948",
          FREECELL, _span(1, 1_000_000), ExactDeals(UNSOLVABLE, IMPOSSIBLE_4_CELLS),
          IMPOSSIBLE_4_CELLS.source, STANDARD),
    _rate_claim("rate-freecell-4cells", "FreeCell with 4 cells", FREECELL, 1_000_000, 0.99998881, 0.0,
                STANDARD),
    # 1,500: below 1568, the first deal whose proof needs the layered proof (minutes) within
    # DEEP_STATES, which keeps the standard tier quick (1cell-1-32000 covers the rest)
    _rate_claim("rate-freecell-1cell", "FreeCell with 1 cell", preset("freecell", cells=1), 1_500,
                0.19348, 0.0, STANDARD, DEEP_STATES),
    # 900: deal 982 is undecided within DEEP_STATES (2cells-1-32000 fails on it by name)
    _rate_claim("rate-freecell-2cells", "FreeCell with 2 cells", preset("freecell", cells=2), 900,
                0.79544, 0.0, STANDARD, DEEP_STATES),
    _rate_claim("rate-seahaven-towers", "Seahaven Towers", PRESETS["seahaven-towers"], 32_000,
                0.89332, 0.00020, STANDARD, DEEP_STATES),
    # 1,500: deals 1509 and 3572 are undecided within DEEP_STATES
    _rate_claim("rate-forecell", "ForeCell", PRESETS["forecell"], 1_500, 0.85617, 0.00024, STANDARD,
                DEEP_STATES),
    Claim("3cells-1-32000", "3 free cells: the 199 listed deals of 1-32,000 are exactly the unsolvable ones",
          preset("freecell", cells=3), _span(1, 32_000), ExactDeals(UNSOLVABLE, UNSOLVABLE_3_CELLS),
          UNSOLVABLE_3_CELLS.source, FULL, DEEP_STATES),
    Claim("1cell-1-32000", "1 free cell: 25,711 of deals 1-32,000 are unsolvable",
          preset("freecell", cells=1), _span(1, 32_000), Count(UNSOLVABLE, 25_711),
          f"{PRINGLE_32000} (derived)", FULL, DEEP_STATES),
    Claim("2cells-1-32000", "2 free cells: 6,619 of deals 1-32,000 are unsolvable",
          preset("freecell", cells=2), _span(1, 32_000), Count(UNSOLVABLE, 6_619),
          f"{PRINGLE_32000}; fc-solve docs/2_freecells-Report-for-first-400K-deals", FULL, DEEP_STATES),
    Claim("4cells-1-10000000", "4 free cells: 130 of deals 1-10,000,000 are unsolvable, exactly the listed ones",
          FREECELL, _span(1, 10_000_000), ExactDeals(UNSOLVABLE, IMPOSSIBLE_4_CELLS),
          IMPOSSIBLE_4_CELLS.source, FULL),
    Claim("intractable-nine", "4 free cells: the nine deals FreeCell Pro's survey left intractable, "
          + " ".join(str(n) for n in INTRACTABLE_NINE) + ", are unsolvable",
          FREECELL, DealSet((n, n) for n in INTRACTABLE_NINE), ExactDeals(UNSOLVABLE, INTRACTABLE_NINE),
          FREECELL_PRO, FULL, DEEP_STATES),
    Claim("foundation-return-1-100000000", "Foundation return: of the 1,282 deals below 100,000,000 that "
          "are unsolvable with 4 cells, 69 become winnable and the rest stay unsolvable",
          FREECELL.replace(foundation_return=True),
          DealSet((n, n) for n in IMPOSSIBLE_4_CELLS.within(_span(1, 100_000_000))), Count(SOLVED, 69),
          RULES_PAGE, FULL, DEEP_STATES),
    Claim("0cells-1-1000000", f"0 free cells: of deals 1-1,000,000 but {RECORD_HOLES[0]}, the 2,174 listed "
          "are exactly the solvable ones",
          preset("freecell", cells=0), _but(1, 1_000_000, RECORD_HOLES[0]), ExactDeals(SOLVED, SOLVABLE_0_CELLS_1M),
          SOLVABLE_0_CELLS_1M.source, FULL, DEEP_STATES),
    Claim("2cells-1-400000", f"2 free cells: of deals 1-400,000 but {RECORD_HOLES[2]}, 82,126 are unsolvable",
          preset("freecell", cells=2), _but(1, 400_000, RECORD_HOLES[2]), Count(UNSOLVABLE, 82_126),
          f"{FCS_2_CELLS} (6,619 + 3,698 + 10,225 + 61,584 impossible)", FULL, DEEP_STATES),
    Claim("3cells-1-1000000", f"3 free cells: of deals 1-1,000,000 but {RECORD_HOLES[3]}, the 6,398 listed "
          "are exactly the unsolvable ones",
          preset("freecell", cells=3), _but(1, 1_000_000, RECORD_HOLES[3]), ExactDeals(UNSOLVABLE, IMPOSSIBLE_3_CELLS),
          IMPOSSIBLE_3_CELLS.source, FULL, DEEP_STATES),
    # agrees with the counts of the 0- to 4-cell claims over 1-32,000 (tests/test_known.py), but
    # is checked by one --difficulty survey, and deal by deal
    Claim("min-cells-1-32000", "4 free cells: the fewest free cells that win deals 1-32,000 are "
          "0 for 69, 1 for 6,220, 2 for 19,092, 3 for 6,420, 4 for 198 and 5 for 1, each proved",
          FREECELL, _span(1, 32_000),
          MinCellsCounts(((0, 69), (1, 6_220), (2, 19_092), (3, 6_420), (4, 198), (5, 1))),
          PRINGLE_32000, FULL, DEEP_STATES),
)

BY_ID: Dict[str, Claim] = {c.id: c for c in CLAIMS}


def get(claim_id: str) -> Claim:
    """The claim with this ID; ClaimError naming the known IDs otherwise."""
    try:
        return BY_ID[claim_id]
    except KeyError:
        raise ClaimError(f"unknown claim {claim_id!r}; see fcsurvey verify --list") from None


def in_tier(tier: str) -> List[Claim]:
    """The claims a run of ``tier`` checks: its own and those of every cheaper tier."""
    if tier not in TIERS:
        raise ClaimError(f"unknown tier {tier!r}; choose from {', '.join(TIERS)}")
    return [c for c in CLAIMS if TIERS.index(c.tier) <= TIERS.index(tier)]


def list_claim(deals: DealSet, name: str) -> Claim:
    """The claim the 102,075-deal list makes about any ``deals`` under standard 4-cell rules:
    the listed ones among them are unsolvable and all others solvable."""
    return Claim(f"4cells-list:{name}", f"4 free cells: of deals {deals} exactly the listed ones "
                 f"are unsolvable", FREECELL, deals, ExactDeals(UNSOLVABLE, IMPOSSIBLE_4_CELLS),
                 IMPOSSIBLE_4_CELLS.source, None)

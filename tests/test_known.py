"""The registry of published claims: the shipped lists are the published ones, byte for byte,
and the claims built on them say what the record says."""

from __future__ import annotations

import gzip
import hashlib
from importlib import resources
from pathlib import Path

import pytest

from fcsurvey import known
from fcsurvey.dealset import DealSet
from fcsurvey.known import (CLAIMS, IMPOSSIBLE_3_CELLS, IMPOSSIBLE_4_CELLS, IMPOSSIBLE_5_CELLS, INTRACTABLE_0_CELLS,
                            INTRACTABLE_3_CELLS, LISTS, SOLVABLE_0_CELLS, SOLVABLE_0_CELLS_1M, TIERS,
                            UNSOLVABLE_3_CELLS, ClaimError, Count, ExactDeals, MinCellsCounts, WinRate)
from fcsurvey.rules import PRESETS
from fcsurvey.schema import SOLVED, UNSOLVABLE

from conftest import THE_EIGHT

#: The shared copy of the published results, beside the repository when it is checked out
#: in the project's workplace (and on CI).
SHARED = Path(__file__).resolve().parents[2] / "shared" / "known-results"
#: SHA-256 of each published file, so the lists are pinned even where SHARED is absent.
PUBLISHED_SHA256 = {
    "impossible-4cells-1-8589934591.txt": "f0012e88fe7267af57654dbb2acaee28d12efad08e68fe32e05c24b1bb1259e5",
    "impossible-5cells-1-8589934591.txt": "93409b3107510963ddf05c8dca37c2f167c69a3ea775dd97c403bc167fd979de",
    "unsolvable-3cells-1-32000.txt": "71e1cb1b63e19b1535f076c90bdf574c63ac1cbc28ca04847738676539f746e1",
    "solvable-0cells-1-32000.txt": "87dcc7d3ab87ceee047157d010d12400201714d6ae4acf44950412579c60622c",
    "impossible-3cells-1-9999999.txt": "a66c81b17eea7ec1e4d0ea8aad5eaa755ff7eeaba0075b2afb4db706d5934c5b",
    "intractable-3cells-1-8589934591.txt": "8cc93cb2c32f5395e3974dc2a6a90f0ec845f2b4473596f6640d1035b1107193",
    # cut from the 0-cell logs (known.py): pinned as cut
    "intractable-0cells-1-8589934591.txt": "a970ae85ad1948a7d16652e35e589b85149bdc6978623d9583576765b09b6856",
    "solvable-0cells-1-1000000.txt": "39d3f76704b57cc821d8fd051b646208e4dec5a0a093762de563e971b925f0e6",
}


def shipped_bytes(deal_list):
    data = (resources.files("fcsurvey") / known.DATA_DIR / deal_list.file).read_bytes()
    return gzip.decompress(data) if deal_list.file.endswith(".gz") else data


@pytest.mark.parametrize("deal_list", LISTS, ids=lambda d: d.file)
def test_shipped_lists_are_the_published_files(deal_list):
    published = deal_list.file.removesuffix(".gz")
    data = shipped_bytes(deal_list)
    assert hashlib.sha256(data).hexdigest() == PUBLISHED_SHA256[published]
    if (SHARED / published).is_file():
        assert data == (SHARED / published).read_bytes()
    assert deal_list.numbers() == tuple(int(line) for line in data.decode().splitlines())


def test_list_sizes_and_the_counts_derived_from_them():
    assert len(IMPOSSIBLE_4_CELLS.numbers()) == 102_075
    assert IMPOSSIBLE_4_CELLS.within(DealSet([(1, 32_000)])) == (11982,)
    assert IMPOSSIBLE_4_CELLS.within(DealSet([(1, 1_000_000)])) == THE_EIGHT
    assert len(IMPOSSIBLE_4_CELLS.within(DealSet([(1, 10_000_000)]))) == 130
    assert len(IMPOSSIBLE_4_CELLS.within(DealSet([(1, 100_000_000)]))) == 1_282
    assert len(IMPOSSIBLE_5_CELLS.numbers()) == 6
    assert len(UNSOLVABLE_3_CELLS.numbers()) == 199
    assert len(SOLVABLE_0_CELLS.numbers()) == 69
    for deal_list in LISTS:
        numbers = deal_list.numbers()
        assert list(numbers) == sorted(set(numbers))


def test_the_freecell_pro_lists_agree_with_the_record_and_each_other():
    # The counts the issue quotes, and the record's three holes, each listed intractable.
    intractable_3, intractable_0 = INTRACTABLE_3_CELLS.numbers(), INTRACTABLE_0_CELLS.numbers()
    assert (len(intractable_3), len(intractable_0)) == (78_323, 174_390)
    assert INTRACTABLE_3_CELLS.within(DealSet([(1, 1_000_000)])) == (known.RECORD_HOLES[3],)
    assert INTRACTABLE_0_CELLS.within(DealSet([(1, 1_000_000)])) == (known.RECORD_HOLES[0],)
    assert len(IMPOSSIBLE_3_CELLS.within(DealSet([(1, 1_000_000)]))) == 6_398
    assert len(SOLVABLE_0_CELLS_1M.numbers()) == 2_174
    # Within 1-32,000 they are Pringle's lists exactly.
    assert IMPOSSIBLE_3_CELLS.within(DealSet([(1, 32_000)])) == UNSOLVABLE_3_CELLS.numbers()
    assert SOLVABLE_0_CELLS_1M.within(DealSet([(1, 32_000)])) == SOLVABLE_0_CELLS.numbers()
    # An intractable deal is in no verdict list, and every 4-cell impossible deal is 3-cell impossible.
    assert not set(intractable_3) & set(IMPOSSIBLE_3_CELLS.numbers())
    assert not set(intractable_0) & set(SOLVABLE_0_CELLS_1M.numbers())
    assert set(IMPOSSIBLE_4_CELLS.within(DealSet([(1, 9_999_999)]))) <= set(IMPOSSIBLE_3_CELLS.numbers())


def test_the_counts_the_named_deals_complete_leave_each_out():
    for claim_id, cells, deals, expected in (("0cells-1-1000000", 0, 1_000_000, 2_174),
                                             ("3cells-1-1000000", 3, 1_000_000, 6_398),
                                             ("2cells-1-400000", 2, 400_000, 82_126)):
        claim = known.get(claim_id)
        hole = known.RECORD_HOLES[cells]
        assert claim.rules.cells == cells and claim.tier == known.FULL and len(claim.deals) == deals - 1
        assert hole not in claim.deals and str(hole) in claim.statement
        counted = (claim.expected.count if isinstance(claim.expected, Count)
                   else len(claim.expected.within(claim.deals)))
        assert counted == expected
    assert known.get("2cells-1-400000").expected == Count(UNSOLVABLE, 6_619 + 3_698 + 10_225 + 61_584)


def test_every_deal_unsolvable_with_more_cells_is_unsolvable_with_fewer():
    three = set(UNSOLVABLE_3_CELLS.numbers())
    assert set(IMPOSSIBLE_4_CELLS.within(DealSet([(1, 32_000)]))) <= three
    assert set(IMPOSSIBLE_5_CELLS.numbers()) <= set(IMPOSSIBLE_4_CELLS.numbers())
    assert not three & set(SOLVABLE_0_CELLS.numbers())


def test_claims_are_well_formed():
    assert len({c.id for c in CLAIMS}) == len(CLAIMS)
    for claim in CLAIMS:
        assert claim.tier in TIERS and claim.source and claim.deals
        assert isinstance(claim.expected, (ExactDeals, Count, WinRate, MinCellsCounts))
        if isinstance(claim.expected, WinRate):
            assert 0 < claim.expected.winnable < 1
        elif isinstance(claim.expected, MinCellsCounts):
            cells = [k for k, _ in claim.expected.counts]
            assert cells == sorted(set(cells)) and all(n > 0 for _, n in claim.expected.counts)
        else:
            assert claim.expected.status in (SOLVED, UNSOLVABLE)


def test_claims_say_what_the_record_says():
    def expected(claim_id):
        claim = known.get(claim_id)
        return claim.expected.within(claim.deals)
    assert expected("4cells-1-32000") == (11982,)
    assert expected("4cells-1-1000000") == THE_EIGHT
    assert len(expected("4cells-1-10000000")) == 130
    assert len(expected("3cells-1-32000")) == 199
    assert len(expected("0cells-1-32000")) == 69
    assert expected("5cells-six") == expected("6cells-six") == IMPOSSIBLE_5_CELLS.numbers()
    assert known.get("2cells-1-32000").expected == Count(UNSOLVABLE, 6_619)
    assert known.get("1cell-1-32000").expected == Count(UNSOLVABLE, 25_711)
    assert known.get("relaxed-11982").rules == PRESETS["relaxed-freecell"]
    assert known.get("rate-bakers-game").expected == WinRate(0.75053, 0.00028)
    nine = known.get("intractable-nine")
    assert sorted(expected("intractable-nine")) == [219837216, 1252215044, 2255988055, 2901685480, 2902413565,
                                                    4260084873, 6687921694, 6825625742, 7489392343]
    assert set(expected("intractable-nine")) <= set(IMPOSSIBLE_4_CELLS.numbers())
    assert nine.rules == PRESETS["freecell"] and nine.tier == known.FULL and len(nine.deals) == 9


def test_the_min_cells_distribution_adds_up_and_agrees_with_the_other_claims():
    claim = known.get("min-cells-1-32000")
    counts = dict(claim.expected.counts)
    assert counts == {0: 69, 1: 6_220, 2: 19_092, 3: 6_420, 4: 198, 5: 1}
    assert sum(counts.values()) == len(claim.deals) == 32_000
    assert claim.rules == PRESETS["freecell"] and claim.tier == known.FULL
    assert claim.max_states == known.DEEP_STATES

    def winnable_with(cells):
        return sum(n for k, n in counts.items() if k <= cells)
    assert winnable_with(0) == len(known.get("0cells-1-32000").expected.within(claim.deals))
    assert 32_000 - winnable_with(1) == known.get("1cell-1-32000").expected.count
    assert 32_000 - winnable_with(2) == known.get("2cells-1-32000").expected.count
    assert 32_000 - winnable_with(3) == len(known.get("3cells-1-32000").expected.within(claim.deals))
    assert 32_000 - winnable_with(4) == len(known.get("4cells-1-32000").expected.within(claim.deals))


def test_a_min_cells_distribution_must_count_every_deal():
    with pytest.raises(ValueError, match="claim x: its min_cells counts must add up to its 6 deals"):
        known.Claim("x", "x", PRESETS["freecell"], DealSet([(1, 6)]), MinCellsCounts(((1, 2), (2, 3))), "x", None)


def test_tiers_are_cumulative():
    quick, standard, full = (set(c.id for c in known.in_tier(t)) for t in TIERS)
    assert quick < standard < full == {c.id for c in CLAIMS}
    assert "4cells-1-32000" in quick and "4cells-1-10000000" not in standard


def test_unknown_claim_or_tier_is_refused():
    with pytest.raises(ClaimError, match="unknown claim 'nope'"):
        known.get("nope")
    with pytest.raises(ClaimError, match="unknown tier"):
        known.in_tier("huge")


def test_the_list_claims_any_range_of_standard_deals():
    claim = known.list_claim(DealSet([(146_000, 147_000), (500_000, 520_000)]), "somewhere")
    assert claim.rules == PRESETS["freecell"]
    assert claim.expected.within(claim.deals) == (146692, 512118, 517776)

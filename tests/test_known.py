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
from fcsurvey.known import (CLAIMS, IMPOSSIBLE_4_CELLS, IMPOSSIBLE_5_CELLS, LISTS, SOLVABLE_0_CELLS, TIERS,
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
}


def shipped_bytes(deal_list):
    data = (resources.files("fcsurvey") / known.DATA_DIR / deal_list.file).read_bytes()
    return gzip.decompress(data) if deal_list.file.endswith(".gz") else data


@pytest.mark.parametrize("deal_list", LISTS, ids=lambda d: d.file)
def test_shipped_lists_are_the_published_files(deal_list):
    published = deal_list.file.removesuffix(".gz")
    data = shipped_bytes(deal_list)
    assert hashlib.sha256(data).hexdigest() == PUBLISHED_SHA256[published]
    if SHARED.is_dir():
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

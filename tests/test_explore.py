"""``fcsurvey verify --explore``: which deals each exploration takes, the 5-cell exploration,
the rules page's claim, and the cards a foundation-return solution brings back down."""

from __future__ import annotations

import pytest

from fcsurvey import explore, known
from fcsurvey.deals import deal as make_deal
from fcsurvey.dealset import DealSet
from fcsurvey.known import Count
from fcsurvey.replay import validate
from fcsurvey.schema import SOLVED, UNSOLVABLE

from conftest import cli

FIVE_CELLS = explore.EXPLORATIONS["foundation-return-5cells"]


def test_cards_brought_back_are_the_tokens_off_a_foundation():
    assert explore.returned_cards("3a hS3 7h hHa 12v4 a1") == 2
    assert explore.returned_cards("3a 7h 1h") == 0
    assert explore.returned_cards("") == 0


@pytest.mark.parametrize("name, count, last", [("1M", 8, 781948), ("10M", 130, 9917279),
                                               ("100M", 1_282, 99961719), ("all", 102_075, 8589791804)])
def test_a_range_takes_the_impossible_deals_below_its_bound(name, count, last):
    deals = explore.explore_deals(None, explore.below(name))
    assert len(deals) == count and deals[0] == 11982
    assert deals[-1] == last
    assert deals == tuple(sorted(deals))


def test_the_5cell_exploration_takes_the_six_with_5_cells():
    assert explore.explore_deals(None, None, FIVE_CELLS) == (
        14720822, 647519280, 3015622123, 5705339228, 7273316239, 7573544118)
    assert FIVE_CELLS.rules.cells == 5 and FIVE_CELLS.rules.foundation_return


def test_foundation_return_wins_one_deal_unsolvable_with_5_cells(tmp_path):
    # measured over all six (2-3 s each): only 7273316239 is won, bringing two clubs back down
    explored = explore.explore_foundation_return((5705339228, 7273316239), exploration=FIVE_CELLS,
                                                 cache=tmp_path, workers=1)
    by_deal = {e.deal: e for e in explored}
    assert by_deal[5705339228].status == UNSOLVABLE and by_deal[5705339228].proved
    won = by_deal[7273316239]
    assert won.status == SOLVED and won.proved and won.returns >= 1
    assert validate(make_deal(won.deal, FIVE_CELLS.rules), FIVE_CELLS.rules, won.solution).ok
    assert not validate(make_deal(won.deal, FIVE_CELLS.rules.replace(foundation_return=False)),
                        FIVE_CELLS.rules.replace(foundation_return=False), won.solution).ok
    text = explore.explore_text(explored, 5)
    assert text.startswith("Deals unsolvable with 5 free cells")
    assert f"deal 7273316239 with foundation return ({won.returns} cards come back down):" in text


@pytest.mark.slow
def test_the_5cell_exploration_from_the_command_line(capsys, tmp_path):
    code, out, _ = cli(capsys, "verify", "--explore", "foundation-return-5cells", "--workers", "2",
                       "--cache", tmp_path)
    assert code == 0
    assert out.rstrip().endswith("1 of 6 become solvable with foundation return; every verdict is a proof.")


def test_the_rules_page_claim_counts_the_winnable_among_the_1282():
    claim = known.get("foundation-return-1-100000000")
    assert claim.tier == known.FULL and claim.rules == explore.FOUNDATION_RETURN
    assert len(claim.deals) == 1_282 and claim.expected == Count(SOLVED, 69)
    assert claim.deals == DealSet((n, n) for n in explore.explore_deals(None, explore.below("100M")))
    numbers = list(claim.deals)  # the record's first and last below 100,000,000, read off its list
    assert numbers[:3] == [11982, 146692, 186216] and numbers[-3:] == [99855973, 99903354, 99961719]

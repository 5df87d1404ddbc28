"""The shipped slice of issue 27's exploration (``scripts/ship_foundation_return.py --below
100000000``): every deal unsolvable with 4 cells below 100,000,000 has a verdict with
foundation return, every shipped solution wins when the rules engine replays it with
foundation return and loses without it, each brings at least one card back down from a
foundation (or the deal was not unsolvable under standard rules: a finding), and the plain
list says what the dataset says, and that it is a slice."""

from __future__ import annotations

import pytest

from fcsurvey import known, store, verify
from fcsurvey.deals import deal
from fcsurvey.explore import FOUNDATION_RETURN, returned_cards
from fcsurvey.replay import validate
from fcsurvey.rules import Rules
from fcsurvey.schema import SOLVED, UNSOLVABLE

from conftest import RESULTS

BELOW = 100_000_000
SLICE = RESULTS / f"foundation-return-4cells_below-{BELOW}"
LISTED = RESULTS / "lists" / "winnable-only-with-foundation-return.txt"
STANDARD = FOUNDATION_RETURN.replace(foundation_return=False)
CLAIM = "foundation-return-1-100000000"


@pytest.fixture(scope="module")
def rows():
    return {r["deal"]: r for r in store.read(SLICE, columns=["deal", "status", "solution"]).to_pylist()}


def test_the_slice_decides_every_deal_below_its_bound_with_foundation_return(rows):
    manifest = store.read_manifest(SLICE)
    assert Rules.from_dict(manifest["rules"]) == FOUNDATION_RETURN
    wanted = [n for n in known.IMPOSSIBLE_4_CELLS.numbers() if n < BELOW]
    assert sorted(rows) == wanted and len(wanted) == 1_282
    assert [n for lo, hi in manifest["requested"] for n in range(lo, hi + 1)] == wanted
    assert {r["status"] for r in rows.values()} == {SOLVED, UNSOLVABLE}


def test_every_shipped_solution_needs_a_card_back_from_a_foundation(rows):
    # all of them: replaying the 70 takes a fraction of a second
    solved = {n: r["solution"] for n, r in rows.items() if r["status"] == SOLVED}
    assert len(solved) == 70 and 53687601 in solved
    for number, solution in sorted(solved.items()):
        assert validate(deal(number, FOUNDATION_RETURN), FOUNDATION_RETURN, solution).won, number
        assert returned_cards(solution) >= 1, number
        assert not validate(deal(number, STANDARD), STANDARD, solution).ok, number


def test_the_list_says_what_the_slice_says_and_that_it_is_a_slice(rows):
    lines = LISTED.read_text().splitlines()
    header = [line for line in lines if line.startswith("#")]
    assert [int(line) for line in lines if not line.startswith("#")] == sorted(
        n for n, r in rows.items() if r["status"] == SOLVED)
    assert f"70 of the 1,282 below {BELOW:,} only (a slice" in header[0]


def test_the_rules_page_claim_fails_on_the_slice_by_one_deal():
    # the page says 69; the slice has 70, 53687601 among them (won with room for 50,000,000
    # positions: the default limits leave it unknown): a finding, not a number to adjust
    claim = known.get(CLAIM)
    outcome = verify.compare(claim, verify.read_rows(SLICE, claim.deals), SLICE)
    assert not outcome.passed and outcome.measured == "70 solved"
    assert outcome.problems[0] == "70 deals solved where 69 were published"
    assert outcome.problems[1].startswith("the 70 solved: 4266168 6332629 ") and " 53687601 " in outcome.problems[1]

"""The shipped ``results/par-1-100`` (issue 28 item 4): deals 1-100 surveyed with ``--optimal``,
every one solved with its par proved, each solution writing exactly par tokens and winning when
the rules engine replays it, no par above the default or ``--short`` line of the same deal, and
the pars those docs/known-results.md lists."""

from __future__ import annotations

import pytest

from fcsurvey import store
from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.limits import OPTIMAL_LENGTH
from fcsurvey.replay import validate
from fcsurvey.rules import Rules, preset
from fcsurvey.schema import SOLVED

from conftest import RESULTS
from test_short import DEFAULT_1_20, SHORT_1_20

SHIPPED = RESULTS / "par-1-100"
#: docs/known-results.md, "Proven par of deals 1-100", in rows of ten.
PARS = [int(p) for p in """
    81 73 70 79 85 75 76 74 81 80
    77 80 77 77 76 75 75 74 77 73
    79 76 77 80 79 74 83 73 79 77
    74 82 69 78 80 84 83 78 85 76
    80 78 77 79 77 68 74 78 84 73
    74 75 77 76 80 77 79 71 71 71
    82 76 79 75 74 79 76 79 75 83
    72 80 75 75 72 79 73 69 78 74
    75 79 85 78 80 88 79 78 72 78
    78 85 77 81 81 76 79 76 79 77""".split()]


@pytest.fixture(scope="module")
def rows():
    return store.read(SHIPPED, columns=["deal", "status", "moves", "par", "solution"]).to_pylist()


def test_the_dataset_is_an_optimal_survey_of_deals_1_to_100(rows):
    manifest = store.read_manifest(SHIPPED)
    assert Rules.from_dict(manifest["rules"]) == preset("freecell")
    assert manifest["limits"]["length"] == OPTIMAL_LENGTH
    assert [r["deal"] for r in rows] == list(range(1, 101))
    assert {r["status"] for r in rows} == {SOLVED}


def test_every_deal_has_the_listed_par_and_a_line_of_that_many_tokens_that_wins(rows):
    rules = preset("freecell")
    assert [r["par"] for r in rows] == PARS
    for r in rows:
        assert r["moves"] == r["par"] == len(r["solution"].split()), r["deal"]
        assert validate(Position.from_deal(deal(r["deal"], rules)), rules, r["solution"]).won, r["deal"]


def test_no_par_is_above_the_default_or_short_line(rows):
    for r, default, short in zip(rows, DEFAULT_1_20, SHORT_1_20):
        assert r["par"] <= short <= default, r["deal"]

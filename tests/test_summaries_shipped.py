"""The shipped summary of the 4cells-1-10000000 claim's survey (issue 30: its summary, not its
rows): what `fcsurvey verify --claim 4cells-1-10000000` surveyed above the shipped
results/freecell_1-1000000 agrees with the record's list."""

from __future__ import annotations

import json
from pathlib import Path

from fcsurvey import known
from fcsurvey.dealset import DealSet

SUMMARY = Path(__file__).resolve().parent.parent / "results" / "summaries" / "4cells-1000001-10000000.json"


def test_the_ten_million_survey_found_exactly_the_listed_deals_unsolvable():
    summary = json.loads(SUMMARY.read_text(encoding="utf-8"))
    listed = known.IMPOSSIBLE_4_CELLS.within(DealSet([(1_000_001, 10_000_000)]))
    assert summary["deals"]["requested"] == summary["deals"]["present"] == 9_000_000
    assert (summary["deals"]["first"], summary["deals"]["last"], summary["deals"]["missing"]) == (1_000_001,
                                                                                                10_000_000, 0)
    assert len(listed) == 122  # the 130 below 10,000,000 less the eight below 1,000,000
    assert summary["status"] == {"solved": 9_000_000 - 122, "unsolvable": 122, "unknown": 0, "error": 0}
    shown = summary["unsolvable"]["items"]
    assert summary["unsolvable"]["count"] == len(listed) and shown == list(listed[:len(shown)])
    assert summary["rules"]["cells"] == 4 and not summary["rules"]["foundation_return"]

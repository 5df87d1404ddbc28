"""Compact solution blocks (Issue 29, item 2): ``fcsurvey export --format lines`` and the
shipped results/lists/solutions-4cells-1-32000.txt.gz."""

from __future__ import annotations

import gzip
import io
import random

import pytest

import fcsurvey
from fcsurvey.dealset import parse_deals
from fcsurvey.report import ReportError, export
from fcsurvey.replay import validate
from fcsurvey.survey import Survey

from conftest import FREECELL, RESULTS, cli

SHIPPED_LINES = RESULTS / "lists" / "solutions-4cells-1-32000.txt.gz"
SURVEY_32000 = RESULTS / "freecell_1-32000"
FAST_SAMPLE = 200


@pytest.fixture(scope="module")
def surveys(tmp_path_factory):
    """Deals 1-5 and 11982 (unsolvable) with 4 cells, with and without solutions."""
    root = tmp_path_factory.mktemp("lines")
    Survey(parse_deals("1-5,11982"), root / "kept", workers=1).run()
    Survey(parse_deals("1-5"), root / "none", workers=1, solutions=False).run()
    return root / "kept", root / "none"


def lines(dataset, **options):
    out = io.StringIO()
    count = export(dataset, out, fmt="lines", **options)
    return count, out.getvalue()


def parsed(text):
    return [(int(deal), solution) for deal, solution in (line.split("\t") for line in text.splitlines())]


def test_one_line_a_solved_deal(surveys):
    count, text = lines(surveys[0])
    rows = parsed(text)
    assert count == 5 and [deal for deal, _ in rows] == [1, 2, 3, 4, 5]  # 11982 has no solution
    assert text.endswith("\n") and "\n\n" not in text
    for deal, solution in rows:
        assert validate(fcsurvey.deal(deal, FREECELL), FREECELL, solution).ok
        assert solution == fcsurvey.solve(deal).solution


def test_where_sort_and_limit_pick_among_the_solved(surveys):
    count, text = lines(surveys[0], where="deal >= 3", sort="moves", descending=True, limit=2)
    moves = {deal: len(solution.split()) for deal, solution in parsed(lines(surveys[0])[1])}
    longest = sorted((d for d in moves if d >= 3), key=lambda d: (-moves[d], d))[:2]
    assert count == 2 and [deal for deal, _ in parsed(text)] == longest
    assert lines(surveys[0], where="status = unsolvable") == (0, "")


def test_a_dataset_without_solutions_is_refused(surveys):
    with pytest.raises(ReportError, match="deal 1: the dataset keeps no solution for it"):
        lines(surveys[1])


def test_cli_lines_and_its_error(capsys, surveys, tmp_path):
    target = tmp_path / "solutions.txt"
    code, out, err = cli(capsys, "export", surveys[0], "--format", "lines", "--out", target)
    assert (code, out, err) == (0, "", "Exported 5 deals.\n")
    assert parsed(target.read_text()) == parsed(lines(surveys[0])[1])
    code, out, err = cli(capsys, "export", surveys[1], "--format", "lines", "--out", tmp_path / "none.txt")
    assert (code, out) == (2, "") and err.count("\n") == 1 and err.startswith("Error: deal 1: ")
    assert not (tmp_path / "none.txt").exists()


def shipped():
    with gzip.open(SHIPPED_LINES, "rt", encoding="utf-8") as f:
        return parsed(f.read())


def test_the_shipped_block_holds_every_winnable_deal_of_1_32000():
    rows = shipped()
    assert [deal for deal, _ in rows] == [d for d in range(1, 32_001) if d != 11982]
    for deal, solution in random.Random(29).sample(rows, FAST_SAMPLE):
        assert validate(fcsurvey.deal(deal, FREECELL), FREECELL, solution).ok, deal


@pytest.mark.slow
def test_every_shipped_solution_replays_and_is_what_the_export_writes():
    rows = shipped()
    for deal, solution in rows:
        assert validate(fcsurvey.deal(deal, FREECELL), FREECELL, solution).ok, deal
    assert rows == parsed(lines(SURVEY_32000)[1])

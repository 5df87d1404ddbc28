"""``fcsurvey export`` and ``fcsurvey report``: the --where language, the list formats,
replaying every exported solution, and the charts (skipped without matplotlib)."""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest

from fcsurvey import store
from fcsurvey.deals import deal as make_deal
from fcsurvey.dealset import DealSet, parse_deals
from fcsurvey.known import UNSOLVABLE_3_CELLS
from fcsurvey.limits import Limits
from fcsurvey.notation import parse_solution
from fcsurvey.replay import validate
from fcsurvey.report import MATPLOTLIB_HINT, REPORT_PAGE, ReportError, export, parse_where
from fcsurvey.rules import PRESETS, Rules
from fcsurvey.solver import solve
from fcsurvey.store import Dataset
from fcsurvey.survey import Survey

from conftest import NEED_FOUR, RESULTS, cli

FREECELL = PRESETS["freecell"]
SHIPPED = RESULTS / "ms-freecell-1-32000"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A --difficulty survey of deals 1-12 (but 9, which takes 5 million positions to win
    with 2 cells) and three with known fewest cells."""
    out = tmp_path_factory.mktemp("export") / "out"
    Survey(parse_deals("1-8,10-12,164,169,11982"), out, workers=2, chunk_size=8, difficulty=True).run()
    return out


def exported(dataset, **options):
    text = io.StringIO()
    count = export(dataset, text, **options)
    return count, text.getvalue()


# --- the --where language --------------------------------------------------------------------

@pytest.mark.parametrize("where, deals", [
    ("min_cells = 0", [164]),
    ("min_cells >= 4", [169, 11982]),
    ("MIN_CELLS == 4 AND status = solved", [169]),
    ("status = 'unsolvable'", [11982]),
    ('status != "solved"', [11982]),
    ("deal in (3, 164,11982)", [3, 164, 11982]),
    ("not (deal > 2) or deal = 164", [1, 2, 164]),
    ("deal <= 3 and not deal = 2", [1, 3]),
    ("(deal < 3 or deal > 11000) and min_cells_exact = true", [1, 2, 11982]),
    ("moves > 0 and deal < 4", [1, 2, 3]),           # unsolvable deals have no moves: no match
    ("difficulty >= 4.0 and difficulty < 5", [169]),
    ("difficulty_rank = 1", [11982]),
    ("deal >= 10 and deal <= 12", [10, 11, 12]),
])
def test_where_selects(dataset, where, deals):
    table = store.read(dataset)
    assert table.filter(parse_where(where))["deal"].to_pylist() == deals


@pytest.mark.parametrize("where, token", [
    ("min_cells >> 3", "'>' at character 12"),
    ("min_cells => 3", "'>' at character 12"),
    ("min_cells ~ 3", "'~' at character 11"),
    ("min_cells >=", "end of expression at character 13"),
    ("colour = red", "'colour' at character 1 (no such field"),
    ("status < solved", "'<' at character 8 (status can only be compared with = or !=)"),
    ("status = won", "'won' at character 10 (status is one of solved, unsolvable, unknown, error)"),
    ("min_cells = 2.5", "'2.5' at character 13 (min_cells is a whole number)"),
    ("min_cells = four", "'four' at character 13 (min_cells takes a whole number)"),
    ("min_cells_exact = 1", "'1' at character 19 (min_cells_exact takes true or false)"),
    ("(deal = 1", "end of expression at character 10 (expected ')')"),
    ("deal = 1 deal = 2", "'deal' at character 10 (expected 'and', 'or' or the end)"),
    ("deal in 3", "'3' at character 9 (expected '(')"),
    ("and deal = 1", "'and' at character 1 (expected a field)"),
    ("deal = 1; import os", "';' at character 9"),
    ("__import__('os')", "'__import__' at character 1 (no such field"),
])
def test_where_errors_name_the_token(where, token):
    with pytest.raises(ReportError) as error:
        parse_where(where)
    assert str(error.value).startswith(f"cannot parse --where {where!r}: unexpected {token}")


def test_difficulty_fields_need_a_difficulty_dataset(tmp_path):
    out = tmp_path / "plain"
    Survey(parse_deals("1-3"), out, workers=1).run()
    with pytest.raises(ReportError, match=r"'min_cells' at character 1 \(no such field; fields: deal, status, "
                                          r"moves, atomic_moves, states\)"):
        export(out, io.StringIO(), where="min_cells = 1")
    with pytest.raises(ReportError, match="cannot sort by 'difficulty'"):
        export(out, io.StringIO(), sort="difficulty")
    count, text = exported(out, where="moves < 90", fmt="csv")
    assert text.splitlines()[0] == "deal,status,moves,solution" and count == len(text.splitlines()) - 1


def test_cli_refuses_an_unparsable_where(capsys, dataset, tmp_path):
    target = tmp_path / "list.json"
    code, out, err = cli(capsys, "export", dataset, "--where", "min_cells >> 3", "--out", target)
    assert (code, out) == (2, "")
    assert err == ("Error: cannot parse --where 'min_cells >> 3': unexpected '>' at character 12 "
                   "(min_cells takes a whole number)\n")
    assert not target.exists()


# --- formats -----------------------------------------------------------------------------

def test_json_records_replay(dataset):
    count, text = exported(dataset, where="status = solved", sort="difficulty", descending=True, limit=5)
    records = json.loads(text)
    assert count == len(records) == 5 and len(text.splitlines()) == 7  # one record a line
    assert records[0]["deal"] == 169 and records[0]["min_cells"] == 4
    assert [r["difficulty"] for r in records] == sorted((r["difficulty"] for r in records), reverse=True)
    for record in records:
        assert list(record) == ["deal", "rules", "status", "band", "difficulty", "difficulty_rank", "min_cells",
                                "min_cells_exact", "moves", "solution", "solution_moves"]
        rules = Rules.from_dict(record["rules"])
        assert validate(make_deal(record["deal"], rules), rules, record["solution"]).ok
        assert len(record["solution_moves"]) == record["moves"] == len(parse_solution(record["solution"]))
        assert set(record["solution_moves"][0]) == {"from", "to", "card", "count"}


def test_unsolvable_deals_export_without_a_solution(dataset):
    records = json.loads(exported(dataset, where="status = unsolvable")[1])
    assert [(r["deal"], r["min_cells"], r["solution"], r["solution_moves"]) for r in records] == \
        [(11982, 5, None, None)]


def test_csv_and_txt(dataset):
    _, text = exported(dataset, where="deal <= 3", fmt="csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["deal"] for r in rows] == ["1", "2", "3"]
    assert list(rows[0]) == ["deal", "status", "band", "difficulty", "difficulty_rank", "min_cells",
                             "min_cells_exact", "moves", "solution"]
    assert rows[0]["min_cells"] == "3" and rows[0]["solution"] == solve(1).solution
    assert exported(dataset, sort="min_cells", limit=2, fmt="txt")[1] == "164\n2\n"


def test_cli_writes_the_file(capsys, dataset, tmp_path):
    target = tmp_path / "easy.txt"
    code, out, err = cli(capsys, "export", dataset, "--where", "min_cells <= 1", "--format", "txt",
                         "--out", target)
    assert (code, out, err) == (0, "", "Exported 6 deals.\n")
    assert target.read_text() == "2\n5\n7\n8\n11\n164\n"


def test_a_solution_that_does_not_replay_stops_the_export(capsys, tmp_path):
    out = tmp_path / "bad"
    Survey(parse_deals("1-3"), out, workers=1).run()
    rows = store.read(out).to_pylist()
    rows[1]["solution"] = rows[1]["solution"].rsplit(" ", 1)[0]  # deal 2's last card stays out
    kept = len(parse_solution(rows[1]["solution"]))
    for chunk in store.chunk_files(out):
        chunk.unlink()
    dataset = Dataset.open(out, FREECELL, Limits(), DealSet([(1, 3)]))
    dataset.write_chunk(rows, 0.0)
    dataset.close()
    target = tmp_path / "list.json"
    code, stdout, err = cli(capsys, "export", out, "--out", target)
    assert (code, stdout) == (2, "")
    assert err == ("Error: deal 2: the stored solution is invalid: not all cards are on the foundations "
                   f"after {kept} moves; nothing exported\n")
    assert not target.exists()


# --- the deals that need 4 cells -----------------------------------------------------------

def check_four_cell_list(dataset, expected):
    """Export the deals with min_cells 4 and replay every record's solution."""
    count, text = exported(dataset, where="min_cells = 4")
    records = json.loads(text)
    assert count == len(records) and [r["deal"] for r in records] == list(expected)
    assert all(r["min_cells_exact"] and r["status"] == "solved" for r in records)
    for record in records:
        assert validate(make_deal(record["deal"], FREECELL), FREECELL, record["solution"]).ok
        assert len(record["solution_moves"]) == record["moves"]


def test_the_deals_below_1000_that_need_four_cells_export_and_replay(tmp_path):
    deals = DealSet((n, n) for n in NEED_FOUR + (11982,))
    Survey(deals, tmp_path / "out", workers=2, chunk_size=4, difficulty=True).run()
    check_four_cell_list(tmp_path / "out", NEED_FOUR)


FOUR_CELL_DEALS = [n for n in UNSOLVABLE_3_CELLS.numbers() if n != 11982]
FOUR_CELL_COUNT = 198  # of deals 1-32000, published


def test_the_published_list_has_198_four_cell_deals():
    assert len(FOUR_CELL_DEALS) == FOUR_CELL_COUNT


@pytest.mark.skipif(not SHIPPED.exists(), reason=f"no {SHIPPED}")
def test_the_shipped_four_cell_deals_export_and_replay():
    check_four_cell_list(SHIPPED, FOUR_CELL_DEALS)


@pytest.mark.slow
def test_the_four_cell_deals_of_a_survey_export_and_replay(tmp_path):
    """The deals 3 cells cannot win, surveyed alone, give the full survey's rows for them."""
    deals = DealSet((n, n) for n in UNSOLVABLE_3_CELLS.numbers())
    Survey(deals, tmp_path / "out", workers=2, chunk_size=50, difficulty=True).run()
    check_four_cell_list(tmp_path / "out", FOUR_CELL_DEALS)


# --- report ----------------------------------------------------------------------------------

def test_report_writes_charts_and_page(capsys, dataset, tmp_path):
    pytest.importorskip("matplotlib")
    code, out, err = cli(capsys, "report", dataset, "--out", tmp_path / "report")
    assert (code, err) == (0, "")
    assert out == f"Wrote {tmp_path / 'report' / REPORT_PAGE}\n"
    for chart in ("min_cells.png", "moves.png", "difficulty.png"):
        assert (tmp_path / "report" / chart).read_bytes().startswith(b"\x89PNG")
        assert f"]({chart})" in (tmp_path / "report" / REPORT_PAGE).read_text()
    assert "| 5 | 1 |" in (tmp_path / "report" / REPORT_PAGE).read_text()
    assert "| band | deals |\n|---|---:|\n" in (tmp_path / "report" / REPORT_PAGE).read_text()
    assert "| unwinnable | 1 |" in (tmp_path / "report" / REPORT_PAGE).read_text()


def test_report_without_matplotlib_is_a_one_line_hint(capsys, dataset, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes the import fail
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    code, out, err = cli(capsys, "report", dataset, "--out", tmp_path / "report")
    assert (code, out, err) == (2, "", f"Error: {MATPLOTLIB_HINT}\n")
    assert not (tmp_path / "report").exists()

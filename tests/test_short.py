"""Issue 28: shorter solutions by default (the C core's shortening pass) and ``--short``
(a beam search as well): every line replays, verdicts stay, datasets record the mode."""

from __future__ import annotations

import json

import pytest

from fcsurvey import store
from fcsurvey.deals import deal as make_deal
from fcsurvey.dealset import parse_deals
from fcsurvey.engine import Position
from fcsurvey.limits import DEFAULT_LENGTH, SHORT_LENGTH, Limits, LimitsError
from fcsurvey.replay import validate
from fcsurvey.rules import PRESETS, preset
from fcsurvey.schema import SOLVED, UNSOLVABLE
from fcsurvey.solver import solve
from fcsurvey.survey import Survey, default_out
from conftest import cli

FREECELL = PRESETS["freecell"]
SHORT = Limits(length=SHORT_LENGTH)

#: Tokens of deals 1-100 by default (91.3 a deal before the shortening pass, 88.24 with it
#: rejoining within 6 moves: 87.90 now, within 24).
DEFAULT_TOKENS_1_100 = 8790
#: Tokens of deals 1-20 by default and with --short.
DEFAULT_1_20 = [96, 77, 78, 87, 98, 83, 93, 80, 99, 95, 92, 94, 83, 89, 82, 84, 84, 81, 90, 81]
SHORT_1_20 = [82, 74, 70, 80, 86, 76, 77, 74, 81, 80, 78, 82, 77, 78, 76, 75, 75, 75, 77, 74]


def replays(number: int, solution: str) -> bool:
    return validate(Position.from_deal(make_deal(number, FREECELL)), FREECELL, solution).ok


def test_default_lines_are_shortened_and_replay():
    results = [solve(n, replay=False) for n in range(1, 101)]
    assert all(r.status == SOLVED for r in results)
    assert all(replays(n, r.solution) for n, r in enumerate(results, start=1))
    assert [r.moves for r in results[:20]] == DEFAULT_1_20
    assert sum(r.moves for r in results) == DEFAULT_TOKENS_1_100


def test_short_is_never_longer_and_replays():
    short = [solve(n, limits=SHORT, replay=False) for n in range(1, 21)]
    assert all(r.status == SOLVED and replays(n, r.solution) for n, r in enumerate(short, start=1))
    assert [r.moves for r in short] == SHORT_1_20
    assert all(s <= d for s, d in zip(SHORT_1_20, DEFAULT_1_20))
    assert sum(SHORT_1_20) < sum(DEFAULT_1_20) - 190


def test_short_counts_the_tokens_of_its_own_line():
    default, short = solve(1), solve(1, limits=SHORT)
    assert short.moves == SHORT_1_20[0] == validate(Position.from_deal(make_deal(1, FREECELL)), FREECELL,
                                                    short.solution).moves
    assert short.solution != default.solution
    assert short.moves < default.moves <= default.atomic_moves and short.moves <= short.atomic_moves


@pytest.mark.parametrize("cells, number, status", [(4, 11982, UNSOLVABLE), (3, 617, UNSOLVABLE), (3, 2, SOLVED), (2, 2, SOLVED), (2, 1, UNSOLVABLE)])
def test_short_keeps_verdicts(cells, number, status):
    rules = preset("freecell", cells=cells)
    default, short = solve(number, rules), solve(number, rules, SHORT)
    assert default.status == short.status == status
    if status == SOLVED:
        assert short.moves <= default.moves


def test_length_must_be_known():
    with pytest.raises(LimitsError, match="length must be one of default, short, optimal, got 'long'"):
        Limits(length="long")


def test_limits_record_length_only_when_not_default():
    assert Limits().to_dict() == {"max_states": 10_000_000, "timeout": None}
    assert Limits(length=SHORT_LENGTH).to_dict() == {"max_states": 10_000_000, "timeout": None,
                                                     "length": SHORT_LENGTH}


def test_dataset_records_the_mode_and_refuses_the_other(tmp_path):
    out, deals = tmp_path / "short", parse_deals("1-3")
    Survey(deals, out, limits=SHORT, workers=1).run()
    manifest = json.loads((out / store.MANIFEST).read_text())
    assert manifest["limits"]["length"] == SHORT_LENGTH
    table = store.read(out, columns=["deal", "moves", "solution"])
    assert table.column("moves").to_pylist() == SHORT_1_20[:3]
    assert all(replays(n, s) for n, s in zip(table.column("deal").to_pylist(),
                                             table.column("solution").to_pylist()))
    with pytest.raises(store.StoreError, match="other rules or limits"):
        Survey(deals, out, limits=Limits(), workers=1)
    assert default_out(deals, FREECELL, SHORT).name == "freecell_short_1-3"
    assert default_out(deals, FREECELL, Limits(length=DEFAULT_LENGTH)).name == "freecell_1-3"


def test_cli_solve_short(capsys):
    code, out, err = cli(capsys, "solve", "1", "--short")
    assert (code, err) == (0, "")
    assert f"moves: {SHORT_1_20[0]} (" in out


def test_cli_verify_short_is_not_for_explore(capsys):
    code, out, err = cli(capsys, "verify", "--short", "--explore", "foundation-return")
    assert (code, out) == (2, "")
    assert err == "Error: --short is for the surveys of claims: drop it with --explore\n"


def test_difficulty_survey_works_in_short_mode(tmp_path):
    out = tmp_path / "short-difficulty"
    Survey(parse_deals("1-2"), out, limits=SHORT, workers=1, difficulty=True).run()
    table = store.read(out, columns=["deal", "moves", "min_cells", "min_cells_exact"])
    assert table.column("moves").to_pylist() == SHORT_1_20[:2]
    # Pringle's fewest cells for deals 1 and 2 (results/ms-freecell-1-32000), each proved.
    assert table.column("min_cells").to_pylist() == [3, 1]
    assert table.column("min_cells_exact").to_pylist() == [True, True]


def test_summary_names_the_mode(capsys, tmp_path):
    out = tmp_path / "short"
    Survey(parse_deals("1"), out, limits=SHORT, workers=1).run()
    code, text, err = cli(capsys, "summary", out)
    assert (code, err) == (0, "")
    assert "Limits      10,000,000 states per deal, no timeout; short solutions\n" in text

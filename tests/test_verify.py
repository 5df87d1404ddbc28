"""``fcsurvey verify``: claims pass on sound datasets and fail by name on doctored ones, datasets
are matched to claims (or refused), and the foundation-return report proves both ways.

Datasets are written directly with the store, so a 32,000-deal claim costs no solving."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from fcsurvey import explore, known, verify
from fcsurvey.dealset import DealSet
from fcsurvey.known import ClaimError, Count
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS, preset
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.store import Dataset
from fcsurvey.survey import SOLVER_ENV

from conftest import FAKE_SOLVER, THE_EIGHT, cli


def write_dataset(path, rules, deals, unsolvable=(), drop=(), statuses=None, limits=Limits(), min_cells=None,
                  inexact=()):
    """A dataset of ``deals`` (lo, hi): ``unsolvable`` deals unsolvable, the rest solved, except
    ``statuses`` overrides; ``drop`` deals left out.  With ``min_cells`` (by deal) it is a
    --difficulty dataset, every min_cells proved but those of ``inexact`` (states limit)."""
    lo, hi = deals
    statuses = statuses or {}
    rows = []
    for deal in range(lo, hi + 1):
        if deal in drop:
            continue
        status = statuses.get(deal, UNSOLVABLE if deal in unsolvable else SOLVED)
        rows.append({"deal": deal, "status": status, "states": 1, "elapsed_ms": 0.0,
                     "limit": "states" if status == UNKNOWN else None})
        if min_cells is not None:
            rows[-1].update(min_cells=min_cells[deal], min_cells_exact=deal not in inexact,
                            min_cells_limit="states" if deal in inexact else None)
    dataset = Dataset.open(path, rules, limits, DealSet([deals]), difficulty=min_cells is not None)
    dataset.write_chunk(rows, 0.0)
    dataset.close()
    return path


def settled(claim):
    """What verify reuses for ``claim`` from ``results/``, or None when that does not settle it."""
    reused = verify.reuse(claim, [verify.RESULTS_DIR])
    return reused if reused is not None and reused.settles(claim) else None


def outcome(claim_id, path):
    claim = known.get(claim_id)
    return verify.compare(claim, verify.read_rows(path, claim.deals), path)


@pytest.fixture(scope="module")
def four_cells(tmp_path_factory):
    """Deals 1-32,000 with standard rules, as the record says."""
    return write_dataset(tmp_path_factory.mktemp("four") / "d", PRESETS["freecell"], (1, 32_000), {11982})


def test_a_sound_dataset_passes(four_cells):
    result = outcome("4cells-1-32000", four_cells)
    assert result.passed and result.measured == "unsolvable: 11982" and not result.problems


@pytest.mark.parametrize("doctor, named", [
    ({"unsolvable": ()}, "listed unsolvable but solved: 11982"),
    ({"unsolvable": {11982, 20001}}, "unsolvable but not listed: 20001"),
    ({"unsolvable": {11982}, "drop": {5000}}, "missing from the dataset (1 deals): 5000"),
    ({"unsolvable": {11982}, "statuses": {777: UNKNOWN}}, "deal 777 is unknown (states limit)"),
    ({"unsolvable": {11982}, "statuses": {11982: UNKNOWN}}, "deal 11982 is unknown (states limit)"),
    ({"unsolvable": {11982}, "statuses": {31: "error"}}, "deal 31 is error"),
])
def test_a_doctored_dataset_fails_naming_the_deal(tmp_path, doctor, named):
    path = write_dataset(tmp_path / "d", PRESETS["freecell"], (1, 32_000), **doctor)
    result = outcome("4cells-1-32000", path)
    assert not result.passed
    assert any(named in problem for problem in result.problems), result.problems


def test_exact_solvable_list_counts_and_undecided_deals(tmp_path):
    zero = preset("freecell", cells=0)
    solvable = set(known.SOLVABLE_0_CELLS.numbers())
    good = write_dataset(tmp_path / "good", zero, (1, 32_000),
                         statuses={d: SOLVED if d in solvable else UNSOLVABLE for d in range(1, 32_001)})
    assert outcome("0cells-1-32000", good).passed
    assert outcome("0cells-1-32000", good).measured == "69 solved, as listed"
    statuses = {d: SOLVED if d in solvable else UNSOLVABLE for d in range(1, 32_001)}
    statuses[164] = UNSOLVABLE
    bad = write_dataset(tmp_path / "bad", zero, (1, 32_000), statuses=statuses)
    assert "listed solved but unsolvable: 164" in outcome("0cells-1-32000", bad).problems


def test_a_failed_count_names_every_deal_it_counted_when_they_are_few(tmp_path):
    # as the rules page's 69 winnable with foundation return: a count names no deal, so a
    # failure names all it counted, for any list to be set against them
    fr = PRESETS["freecell"].replace(foundation_return=True)
    claim = dataclasses.replace(known.get("foundation-return-1-100000000"), deals=DealSet([(1, 200)]),
                                expected=Count(SOLVED, 2))
    path = write_dataset(tmp_path / "d", fr, (1, 200), set(range(1, 201)) - {7, 50, 164})
    result = verify.compare(claim, verify.read_rows(path, claim.deals), path)
    assert result.problems == ("3 deals solved where 2 were published", "the 3 solved: 7 50 164")
    assert verify.compare(dataclasses.replace(claim, expected=Count(SOLVED, 3)),
                          verify.read_rows(path, claim.deals), path).passed


def test_a_count_claim_needs_the_exact_count_and_no_undecided_deal(tmp_path):
    two = preset("freecell", cells=2)
    exact = write_dataset(tmp_path / "a", two, (1, 32_000), set(range(1, 6_620)))
    assert outcome("2cells-1-32000", exact).passed
    short = write_dataset(tmp_path / "b", two, (1, 32_000), set(range(1, 6_619)))
    assert outcome("2cells-1-32000", short).problems == ("6,618 deals unsolvable where 6,619 were published",)
    # 6,619 unsolvable but one more left unknown: the count matches, the claim still fails
    vague = write_dataset(tmp_path / "c", two, (1, 32_000), set(range(1, 6_620)), statuses={9000: UNKNOWN})
    assert not outcome("2cells-1-32000", vague).passed


def test_wilson_interval():
    lo, hi = verify.wilson_interval(75, 100, 0.95)
    assert lo == pytest.approx(0.6569, abs=1e-4) and hi == pytest.approx(0.8245, abs=1e-4)
    lo, hi = verify.wilson_interval(0, 1000)
    assert lo == 0.0 and 0 < hi < 0.011


def test_a_rate_claim_passes_inside_the_interval_and_fails_outside(tmp_path):
    bakers = PRESETS["bakers-game"]
    near = write_dataset(tmp_path / "near", bakers, (1, 10_000), set(range(1, 10_001, 4)))  # 75% win
    assert outcome("rate-bakers-game", near).passed
    far = write_dataset(tmp_path / "far", bakers, (1, 10_000), set(range(1, 10_001, 3)))  # 66.7% win
    result = outcome("rate-bakers-game", far)
    assert not result.passed and "misses the published 75.053% +/- 0.028 winnable" in result.problems[0]
    vague = write_dataset(tmp_path / "vague", bakers, (1, 10_000), set(range(1, 10_001, 4)),
                          statuses={10: UNKNOWN})
    assert "deal 10 is unknown (states limit), not proved either way" in outcome("rate-bakers-game", vague).problems


# --- matching datasets to claims -------------------------------------------------------------

def test_datasets_alone_pick_the_claims_they_cover(four_cells, tmp_path):
    assert [(t.claim.id, t.dataset) for t in verify.select(None, (), [four_cells])] == [
        ("4cells-1-32000", four_cells)]
    part = write_dataset(tmp_path / "part", PRESETS["freecell"], (146_000, 147_000), {146692})
    (task,) = verify.select(None, (), [part])
    assert task.claim.id == f"4cells-list:{part}" and task.dataset == part
    result = verify.compare(task.claim, verify.read_rows(part, task.claim.deals), part)
    assert result.passed and result.measured == "unsolvable: 146692"


def test_a_variant_name_does_not_hide_the_same_game(tmp_path):
    bakers_by_hand = preset("freecell", build="suit")
    path = write_dataset(tmp_path / "d", bakers_by_hand, (1, 10_000))
    assert [t.claim.id for t in verify.select(None, (), [path])] == ["rate-bakers-game"]


def test_a_dataset_with_other_rules_than_the_claim_is_refused(four_cells):
    with pytest.raises(ClaimError, match="claim 3cells-1-32000 needs freecell: 3 cells"):
        verify.select(None, ["3cells-1-32000"], [four_cells])


def test_a_dataset_reused_from_results_needs_every_deal_decided(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    claim = known.get("relaxed-11982")
    write_dataset(tmp_path / "results" / "mine", claim.rules, (11_900, 12_000),
                  statuses={11_950: UNKNOWN})
    assert settled(claim).datasets[0].name == "mine"
    undecided = known.list_claim(DealSet([(11_940, 11_960)]), "x")
    assert settled(undecided) is None


THREE_CELLS = PRESETS["freecell"].replace(cells=3)


def three_cell_claim(unsolvable):
    return known.Claim("three-1-10", "deals 1-10 with 3 cells", THREE_CELLS, DealSet([(1, 10)]),
                       known.ExactDeals(UNSOLVABLE, tuple(unsolvable)), "tests", None)


def test_the_passes_of_a_table_together_settle_a_claim_none_settles_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_dataset(tmp_path / "results" / "pass1", THREE_CELLS, (1, 10), unsolvable={4},
                  statuses={7: UNKNOWN, 9: UNKNOWN})
    write_dataset(tmp_path / "results" / "pass2", THREE_CELLS, (7, 9), unsolvable={9}, statuses={8: UNKNOWN})
    claim = three_cell_claim({4, 9})
    reused = settled(claim)
    assert [p.name for p in reused.datasets] == ["pass1", "pass2"] and not reused.conflicts
    result = verify.check(verify.Task(claim), cache=tmp_path / "cache")
    assert result.passed and result.surveyed_s is None and result.measured == "unsolvable: 4 9"
    assert [p.name for p in (result.dataset, *result.combined)] == ["pass1", "pass2"]
    assert not verify.check(verify.Task(three_cell_claim({9})), cache=tmp_path / "cache").passed


def test_two_datasets_deciding_a_deal_differently_fail_the_claim_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_dataset(tmp_path / "results" / "a", THREE_CELLS, (1, 10), unsolvable={4}, statuses={7: UNKNOWN})
    write_dataset(tmp_path / "results" / "b", THREE_CELLS, (3, 7), unsolvable={5})
    result = verify.check(verify.Task(three_cell_claim({4})), cache=tmp_path / "cache")
    assert not result.passed and result.surveyed_s is None
    assert result.problems[:2] == (f"deal 4: status unsolvable in {Path('results/a')} but status solved in "
                                   f"{Path('results/b')}",
                                   f"deal 5: status solved in {Path('results/a')} but status unsolvable in "
                                   f"{Path('results/b')}")


def test_a_claim_the_shipped_data_half_settles_surveys_only_the_rest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # deals 1-10 with 3 cells are all won; "shipped" proves 1-8 but 7, and says nothing of 9, 10
    write_dataset(tmp_path / "results" / "shipped", THREE_CELLS, (1, 8), statuses={7: UNKNOWN})
    said = []
    first = verify.check(verify.Task(three_cell_claim(())), cache=tmp_path / "cache", workers=1, say=said.append)
    assert first.passed and first.surveyed_s is not None and first.measured == "unsolvable: none"
    rest = tmp_path / "cache" / f"freecell_cells-3_1-10{verify.REST_SUFFIX}"
    surveyed = [p for p in (first.dataset, *first.combined) if p.parent == tmp_path / "cache"]
    assert len(surveyed) == 1 and surveyed[0].name.startswith(rest.name)
    assert verify.DatasetInfo.read(surveyed[0]).requested == DealSet([(7, 7), (9, 10)])
    assert Path("results/shipped") in (first.dataset, *first.combined)
    assert said[0].startswith("three-1-10: surveying 3 deals (0 already done) into ")
    again = verify.check(verify.Task(three_cell_claim(())), cache=tmp_path / "cache", workers=1, say=said.append)
    assert again.passed and again.surveyed_s is None
    assert not verify.check(verify.Task(three_cell_claim((9,))), cache=tmp_path / "cache", workers=1).passed


def test_the_rest_of_a_claim_is_worked_out_from_shipped_data_alone_and_resumed(tmp_path, monkeypatch):
    """The cache under results/ (the default) does not count as shipped data: what an
    interrupted verify surveyed must not change which deals are left, or it would start
    another directory and leave its proofs' checkpoints behind; and once shipped data has
    proved more of them, the directory asked for the larger rest is resumed."""
    monkeypatch.chdir(tmp_path)
    cache = verify.RESULTS_DIR / "verify"
    write_dataset(tmp_path / "results" / "shipped", THREE_CELLS, (1, 8), statuses={7: UNKNOWN})
    claim = three_cell_claim(())
    first = verify.check(verify.Task(claim), cache=cache, workers=1)
    rest = [p for p in (first.dataset, *first.combined) if verify.REST_SUFFIX in p.name]
    assert first.passed and len(rest) == 1
    assert verify.reuse(claim, [verify.RESULTS_DIR], exclude=cache).unproved(claim) == DealSet([(7, 7), (9, 10)])
    write_dataset(tmp_path / "results" / "more", THREE_CELLS, (9, 9))
    job = verify.claim_survey(claim, cache, 1, deals=DealSet([(7, 7), (10, 10)]))
    job.dataset.close()
    assert (job.out, job.todo) == (rest[0], 0)


@pytest.mark.parametrize("cells, own, status, min_cells, exact, verdict", [
    (3, 4, SOLVED, 2, True, SOLVED),          # won with 2 cells: won with 3
    (3, 4, SOLVED, 3, False, SOLVED),         # won with 3, whether or not 2 was proved lost
    (1, 4, SOLVED, 2, True, UNSOLVABLE),      # 1 cell proved lost: so is any fewer
    (0, 4, SOLVED, 2, True, UNSOLVABLE),
    (1, 4, SOLVED, 2, False, None),           # 1 cell not proved lost
    (3, 4, UNSOLVABLE, 5, True, UNSOLVABLE),  # lost with 4 cells: lost with 3
    (3, 4, UNSOLVABLE, 6, False, UNSOLVABLE),
    (5, 4, UNSOLVABLE, 6, False, None),       # lost with 4, nothing proved of 5
    (6, 4, UNSOLVABLE, 6, False, SOLVED),
    (10, 4, UNSOLVABLE, None, True, UNSOLVABLE),  # no count up to MAX_CELLS wins, proved
    (8, 4, UNKNOWN, None, False, None),
    (5, 4, SOLVED, 6, True, None),            # won with 4 cells yet min_cells 6: a bug, no proof
    (3, 4, UNSOLVABLE, 2, True, None),        # lost with 4 cells yet won with 2: the same
])
def test_a_proved_min_cells_gives_the_verdict_with_other_cell_counts(cells, own, status, min_cells, exact, verdict):
    assert verify.verdict_with(cells, own, status, min_cells, exact) == verdict


def test_a_difficulty_survey_settles_claims_for_other_cell_counts_by_its_min_cells(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_dataset(tmp_path / "results" / "fewest", PRESETS["freecell"], (1, 6), min_cells=SIX_MIN_CELLS,
                  inexact={6})
    result = verify.check(verify.Task(known.Claim("two-1-5", "deals 1-5 with 2 cells", THREE_CELLS.replace(cells=2),
                                                  DealSet([(1, 5)]), known.Count(UNSOLVABLE, 1), "tests", None)),
                          cache=tmp_path / "cache")
    assert result.passed and result.measured == "1 unsolvable" and result.by_min_cells == (Path("results/fewest"),)
    # deal 6 needs 3 cells but 2 is not proved lost: that claim is surveyed, not judged on a guess
    reused = verify.reuse(known.Claim("two-6", "deal 6 with 2 cells", THREE_CELLS.replace(cells=2),
                                      DealSet([(6, 6)]), known.Count(UNSOLVABLE, 1), "tests", None),
                          [verify.RESULTS_DIR])
    assert reused is None


def test_a_claim_without_a_dataset_is_surveyed_into_the_cache_and_then_reused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "cache"
    said = []
    first = verify.check(verify.Task(known.get("6cells-six")), cache=cache, workers=1, say=said.append)
    assert first.passed and first.surveyed_s is not None and first.dataset.parent == cache
    again = verify.check(verify.Task(known.get("6cells-six")), cache=cache, workers=1, say=said.append)
    assert again.passed and again.surveyed_s is None and again.dataset == first.dataset
    assert said[-1] == f"6cells-six: reusing {first.dataset}"


# --- min_cells distributions ----------------------------------------------------------------

#: Deals 1-6 under standard rules, as ``Survey(..., difficulty=True)`` finds them.
SIX_MIN_CELLS = {1: 3, 2: 1, 3: 2, 4: 2, 5: 1, 6: 3}
SIX = known.Claim("min-cells-six", "deals 1-6 need 1, 2 or 3 cells, two each", PRESETS["freecell"],
                  DealSet([(1, 6)]), known.MinCellsCounts(((1, 2), (2, 2), (3, 2))), "tests", None)


def published_min_cells():
    """min_cells for deals 1-32,000 as the record has them: the listed 0-cell, 3-cell and
    4-cell deals where the lists put them, the unlisted deals in 1, 2, 3 cells by number."""
    by_deal = {d: 0 for d in known.SOLVABLE_0_CELLS.numbers()}
    by_deal.update((d, 4) for d in known.UNSOLVABLE_3_CELLS.numbers())
    by_deal[11982] = 5
    rest = iter(d for d in range(1, 32_001) if d not in by_deal)
    for cells, count in ((1, 6_220), (2, 19_092), (3, 6_420)):
        by_deal.update((next(rest), cells) for _ in range(count))
    return by_deal


@pytest.fixture(scope="module")
def min_cells_32000(tmp_path_factory):
    """Deals 1-32,000 with standard rules and --difficulty, as the record says."""
    return write_dataset(tmp_path_factory.mktemp("mincells") / "d", PRESETS["freecell"], (1, 32_000), {11982},
                         min_cells=published_min_cells())


def six(path, **doctor):
    path = write_dataset(path, PRESETS["freecell"], (1, 6), min_cells={**SIX_MIN_CELLS, **doctor.pop("to", {})},
                         **doctor)
    return verify.compare(SIX, verify.read_rows(path, SIX.deals), path)


def test_the_published_min_cells_distribution_passes(min_cells_32000):
    result = outcome("min-cells-1-32000", min_cells_32000)
    assert result.passed and not result.problems
    assert result.measured == "0:69 1:6,220 2:19,092 3:6,420 4:198 5:1, all exact"
    assert verify.expected_text(known.get("min-cells-1-32000")) == "0:69 1:6,220 2:19,092 3:6,420 4:198 5:1"


def test_a_min_cells_distribution_passes_only_exactly(tmp_path):
    assert six(tmp_path / "good").measured == "1:2 2:2 3:2, all exact"
    moved = six(tmp_path / "moved", to={4: 3})
    assert not moved.passed and moved.measured == "1:2 2:1 3:3, all exact"
    assert moved.problems == ("min_cells 2: 1 where 2 were published", "min_cells 3: 3 where 2 were published")
    none = six(tmp_path / "none", to={1: None})
    assert none.problems == ("min_cells 3: 1 where 2 were published", "min_cells none: 1 where 0 were published")


def test_a_min_cells_not_proved_exact_fails_by_name(tmp_path):
    result = six(tmp_path / "one", inexact={4})
    assert not result.passed and result.measured == "1:2 2:2 3:2, 1 not exact"
    assert result.problems == ("deal 4: min_cells 2 not proved exact (limit states)",)
    many = write_dataset(tmp_path / "many", PRESETS["freecell"], (1, 32_000), {11982},
                         min_cells=published_min_cells(), inexact=set(range(100, 113)))
    problems = outcome("min-cells-1-32000", many).problems
    assert problems[0].startswith("deal 100: min_cells ") and problems[9].startswith("deal 109: ")
    assert problems[10:] == ("... and 3 more deals whose min_cells is not proved exact",)


def test_an_undecided_deal_fails_a_min_cells_claim_once(tmp_path):
    result = six(tmp_path / "d", statuses={5: "error"}, to={5: None})
    assert result.problems[0] == "deal 5 is error (no reason given), not proved either way"
    assert not any("deal 5: min_cells" in p for p in result.problems)
    assert not six(tmp_path / "gone", drop={2}).passed


def test_a_min_cells_claim_needs_a_difficulty_dataset(four_cells, min_cells_32000):
    claim = known.get("min-cells-1-32000")
    assert not verify.DatasetInfo.read(four_cells).covers(claim)
    assert verify.DatasetInfo.read(min_cells_32000).covers(claim)
    with pytest.raises(ClaimError, match=r"holds freecell: 4 cells, [^;]* for deals 1-32000, which no selected "
                                         r"claim can use; claim min-cells-1-32000 needs a --difficulty survey of "
                                         r"freecell: 4 cells, .* for deals 1-32000$"):
        verify.select(None, ["min-cells-1-32000"], [four_cells])
    # a --difficulty dataset still has every verdict, so it serves the plain claims too
    assert [t.claim.id for t in verify.select(None, (), [min_cells_32000])] == ["4cells-1-32000", "min-cells-1-32000"]
    assert outcome("4cells-1-32000", min_cells_32000).passed
    assert "no min_cells column" in verify.compare(claim, verify.read_rows(four_cells, claim.deals),
                                                   four_cells).problems[0]


def test_a_dataset_reused_for_a_min_cells_claim_needs_them_proved(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_dataset(tmp_path / "results" / "plain", PRESETS["freecell"], (1, 6))
    write_dataset(tmp_path / "results" / "vague", PRESETS["freecell"], (1, 6), min_cells=SIX_MIN_CELLS,
                  inexact={3})
    assert settled(SIX) is None
    write_dataset(tmp_path / "results" / "sound", PRESETS["freecell"], (1, 6), min_cells=SIX_MIN_CELLS)
    assert [p.name for p in settled(SIX).datasets] == ["sound"]


def test_a_min_cells_claim_is_surveyed_with_difficulty(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = verify.check(verify.Task(SIX), cache=tmp_path / "cache", workers=1)
    assert "_difficulty_" in result.dataset.name and result.surveyed_s is not None
    assert result.passed and result.measured == "1:2 2:2 3:2, all exact"


# --- the command -------------------------------------------------------------------------------

def test_verify_prints_the_table_and_writes_markdown(capsys, four_cells, tmp_path):
    report = tmp_path / "report.md"
    code, out, _ = cli(capsys, "verify", "--dataset", four_cells, "--report", report)
    assert code == 0
    assert out.splitlines()[0].split() == ["claim", "tier", "expected", "measured", "result"]
    assert "4cells-1-32000  quick  unsolvable: 11982  unsolvable: 11982  PASS" in out
    assert "| 4cells-1-32000 | quick | unsolvable: 11982 | unsolvable: 11982 | PASS |" in report.read_text()


def test_verify_fails_with_exit_1_naming_the_deal(capsys, tmp_path):
    path = write_dataset(tmp_path / "d", PRESETS["freecell"], (1, 32_000), {11982}, statuses={777: UNKNOWN})
    code, out, _ = cli(capsys, "verify", "--dataset", path)
    assert code == 1
    assert "FAIL 4cells-1-32000: deal 777 is unknown (states limit), not proved either way" in out
    assert "1 claims: 0 PASS, 1 FAIL" in out


@pytest.mark.parametrize("args, message", [
    (["--claim", "nope"], "Error: unknown claim 'nope'; see fcsurvey verify --list"),
    (["--tier", "huge"], "Error: Invalid value for '--tier': 'huge' is not one of 'quick', 'standard', 'full'."),
])
def test_bad_input_is_one_error_line(capsys, args, message):
    code, out, err = cli(capsys, "verify", *args)
    assert (code, out, err) == (2, "", message + "\n")


def test_a_dataset_with_other_rules_is_one_error_line(capsys, four_cells):
    code, out, err = cli(capsys, "verify", "--claim", "3cells-1-32000", "--dataset", four_cells)
    assert code == 2 and not out
    assert err.startswith(f"Error: dataset {four_cells} holds freecell: 4 cells") and err.count("\n") == 1


def test_list_shows_every_claim_and_its_tier(capsys):
    code, out, _ = cli(capsys, "verify", "--list")
    assert code == 0
    for claim in known.CLAIMS:
        assert f"{claim.id}  " in out and claim.statement in out
    assert re.search(r"^min-cells-1-32000 +full +4 free cells: the fewest free cells", out, re.MULTILINE)


def test_plan_says_what_each_claim_would_survey_and_surveys_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_dataset(tmp_path / "results" / "shipped", THREE_CELLS, (1, 8), statuses={7: UNKNOWN})
    plan = verify.plan_check(verify.Task(three_cell_claim(())))
    assert (plan.left, plan.reused) == (3, (Path("results/shipped"),))
    assert plan.survey.name.startswith(f"freecell_cells-3_1-10{verify.REST_SUFFIX}") and not plan.survey.exists()
    assert plan.text() == "3 of 10 deals to survey, the other 7 proved already"
    verify.check(verify.Task(three_cell_claim(())), cache=verify.CACHE_DIR, workers=1)
    assert verify.plan_check(verify.Task(three_cell_claim(()))).text() == "settled by 2 datasets already there"
    code, out, err = cli(capsys, "verify", "--claim", "relaxed-11982", "--plan")
    assert (code, err) == (0, "")
    assert re.search(r"^relaxed-11982 +quick +1 +1 of 1 deals to survey$", out, re.MULTILINE)
    assert out.endswith("1 claims: 0 need no survey, 1 deals to survey in all\n")
    assert not (tmp_path / "results" / "verify" / "relaxed-freecell_11982").exists()
    code, out, err = cli(capsys, "verify", "--explore", "foundation-return", "--plan")
    assert (code, out) == (2, "") and err.endswith("--plan is for claims: drop it with --explore\n")


def test_a_min_cells_claim_on_a_plain_dataset_is_one_error_line(capsys, four_cells):
    code, out, err = cli(capsys, "verify", "--claim", "min-cells-1-32000", "--dataset", four_cells)
    assert code == 2 and not out and err.count("\n") == 1
    assert err.startswith(f"Error: dataset {four_cells} holds freecell: 4 cells, ")
    assert re.search(r"; claim min-cells-1-32000 needs a --difficulty survey of freecell: 4 cells, .* for deals "
                     r"1-32000$", err)


def test_verify_checks_a_difficulty_dataset_from_the_command_line(capsys, min_cells_32000):
    code, out, _ = cli(capsys, "verify", "--claim", "min-cells-1-32000", "--dataset", min_cells_32000)
    assert code == 0
    assert ("min-cells-1-32000  full  0:69 1:6,220 2:19,092 3:6,420 4:198 5:1  "
            "0:69 1:6,220 2:19,092 3:6,420 4:198 5:1, all exact  PASS") in out


# --- foundation return -----------------------------------------------------------------------

def test_foundation_return_on_the_eight_is_proved_both_ways(tmp_path):
    deals = explore.explore_deals(None)
    assert deals == THE_EIGHT
    explored = explore.explore_foundation_return(deals + (1,), cache=tmp_path, workers=1)
    assert all(e.proved for e in explored)
    assert [e.deal for e in explored if e.status == SOLVED] == [1]  # deal 1: a solvable control
    assert "solution replayed by the rules engine: valid" in explored[-1].replay
    text = explore.explore_text(explored)
    assert "1 of 9 become solvable with foundation return; every verdict is a proof." in text


def test_a_solution_that_does_not_replay_is_no_proof(tmp_path, monkeypatch):
    monkeypatch.setenv(SOLVER_ENV, FAKE_SOLVER)
    explored = explore.explore_foundation_return((1, 11982, 97), cache=tmp_path, workers=1)
    by_deal = {e.deal: e for e in explored}
    assert not by_deal[1].proved and "invalid" in by_deal[1].replay
    assert by_deal[11982].proved
    assert not by_deal[97].proved and by_deal[97].replay == "no proof (states limit)"


def test_explore_from_the_command_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "verify", "--explore", "foundation-return", "--workers", "1",
                         "--report", tmp_path / "explore.md")
    assert code == 0
    assert " 11982  unsolvable  every reachable position searched" in out
    assert out.rstrip().endswith("0 of 8 become solvable with foundation return; every verdict is a proof.")
    assert "results/verify/freecell_foundation-return-on_" in err
    assert "0 of 8 become solvable" in (tmp_path / "explore.md").read_text()


def test_explore_takes_the_impossible_deals_of_any_range():
    below = explore.explore_deals(None, DealSet([(1, 100_000_000)]))
    assert len(below) == 1_282 and below[:3] == (11982, 146692, 186216) and below[-1] == 99961719
    assert explore.explore_deals(None, DealSet([(11982, 11982), (146692, 146692)])) == (11982, 146692)
    with pytest.raises(explore.ExploreError, match=r"^no deal of 1-11981 is unsolvable with 4 cells"):
        explore.explore_deals(None, DealSet([(1, 11981)]))


def test_explore_of_a_range_from_the_command_line(capsys, tmp_path):
    code, out, err = cli(capsys, "verify", "--explore", "foundation-return", "--deals", "1-1000000",
                         "--workers", "1", "--cache", tmp_path)
    assert code == 0
    assert out.rstrip().endswith("0 of 8 become solvable with foundation return; every verdict is a proof.")
    assert "solving 8 deals" in err


@pytest.mark.parametrize("args, message", [
    (("--deals", "1-1000"), "Error: --deals picks the deals of --explore: give --explore too\n"),
    (("--explore", "foundation-return", "--deals", "1-1000", "--tier", "full"),
     "Error: --deals and --tier both pick the deals of --explore: give one\n"),
    (("--explore", "foundation-return", "--deals", "1-11981"),
     "Error: no deal of 1-11981 is unsolvable with 4 cells; --explore re-solves only those ("
     + known.IMPOSSIBLE_4_CELLS.source + ")\n"),
    (("--explore", "foundation-return", "--deals", "12-x"),
     "Error: bad deals '12-x': deal number must be an integer, got 'x'\n"),
    (("--range", "10M"), "Error: --range picks the deals of --explore: give --explore too\n"),
    (("--explore", "foundation-return", "--range", "10M", "--tier", "full"),
     "Error: --range and --tier both pick the deals of --explore: give one\n"),
    (("--explore", "foundation-return", "--deals", "1-10", "--range", "10M", "--tier", "full"),
     "Error: --deals, --range and --tier all pick the deals of --explore: give one\n"),
    (("--explore", "foundation-return", "--range", "5M"),
     "Error: Invalid value for '--range': '5M' is not one of '1M', '10M', '100M', '1G', 'all'.\n"),
])
def test_explore_deals_that_make_no_sense_are_one_error_line(capsys, tmp_path, args, message):
    code, out, err = cli(capsys, "verify", "--cache", tmp_path, *args)
    assert code == 2 and not out and err.count("\n") == 1 and err.startswith("Error: ")
    assert err == message
    assert list(tmp_path.iterdir()) == []


def test_explore_checks_no_claim(capsys):
    code, _, err = cli(capsys, "verify", "--explore", "foundation-return", "--claim", "4cells-1-32000")
    assert code == 2 and err == "Error: --explore checks no claim: drop --claim and --dataset\n"


def test_a_small_claim_is_cut_into_chunks_for_every_worker(tmp_path):
    for claim_id, size in (("rate-forecell", 100), ("4cells-1-32000", 2_000), ("5cells-six", 1)):
        job = verify.claim_survey(known.get(claim_id), tmp_path, workers=2)
        job.dataset.close()
        assert job.chunk_size == size

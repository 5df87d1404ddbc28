"""The cost plan: a stratified sample over the whole range, counted files, the estimate's
text, and ``fcsurvey survey --plan``, which writes nothing."""

from __future__ import annotations

import pytest

from fcsurvey import plan as plans
from fcsurvey.dealset import DealSet, parse_deals
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS
from fcsurvey.survey import SOLVER_ENV, plan_chunks, plan_survey

from conftest import FAKE_SOLVER, cli

EVERYTHING = parse_deals("1-8589934591")


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setenv(SOLVER_ENV, FAKE_SOLVER)


def test_the_sample_draws_from_every_stratum_in_turn():
    drawn = plans.draw(EVERYTHING, 450, strata=200, seed=7)
    assert len(drawn) == 450 and len({d for _, d in drawn}) == 450
    size = -(-8_589_934_591 // 200)
    assert all(s * size < d <= (s + 1) * size for s, d in drawn)
    assert sorted(s for s, _ in drawn[:200]) == list(range(200))    # round one: every stratum once
    assert sorted(s for s, _ in drawn[200:400]) == list(range(200))  # round two too
    assert plans.draw(EVERYTHING, 450, strata=200, seed=7) == drawn  # the same plan every time


def test_the_sample_of_a_list_holds_only_its_deals():
    deals = parse_deals("5-9,100,1000-1002")
    drawn = plans.draw(deals, 50, strata=3)
    assert sorted(d for _, d in drawn) == list(deals)  # each of its 9 deals once, no more
    assert {s for s, d in drawn if d <= 7} == {0} and {s for s, d in drawn if d >= 1000} == {2}  # by position


@pytest.mark.parametrize("deals, size, block", [
    ("1-1000", 100, 1000), ("1-1001", 100, 1000), ("5-2000", 47, 100), ("1-10,12-20,95-230", 10, 100),
    ("1-10,15-19", 20, 100), ("90-110", 7, 50), ("1-1", 1, 1)])
def test_files_are_counted_as_the_chunk_plan_makes_them(deals, size, block):
    parsed = parse_deals(deals)
    assert plans.count_chunks(parsed, size, block) == len(list(plan_chunks(parsed, size, block)))


def test_the_whole_numbering_makes_85900_files():
    assert plans.count_chunks(EVERYTHING, 100_000, 10_000_000) == 85_900


def test_a_profile_weighs_deals_by_their_stratum():
    profile = plans.Profile(DealSet([(1, 100)]), (1.0, 3.0))
    assert profile.cost(DealSet([(1, 50)])) == 50.0
    assert profile.cost(DealSet([(51, 100)])) == 150.0
    assert profile.cost(DealSet([(41, 60)])) == 10 * 1.0 + 10 * 3.0
    assert profile.cost(DealSet([(90, 200)])) == 11 * 3.0  # only the profile's deals count
    assert plans.Profile(DealSet([(1, 100)]), (None, 2.0)).cost(DealSet([(1, 100)])) == 200.0


def test_a_plan_scales_its_sample(fake):
    estimate = plan_survey(EVERYTHING, workers=2, solutions=False)
    sample = estimate.sample
    assert len(sample.picks) == plans.SAMPLE_DEALS and sample.strata == plans.STRATA
    assert estimate.files == 85_900 and estimate.chunk_size == 100_000
    assert estimate.core_s() == pytest.approx(sample.mean() * 8_589_934_591)
    assert estimate.wall_s(1_000) == pytest.approx(86 * estimate.core_s() / 85_900)  # 86 waves
    assert 0 < estimate.row_bytes < 20 and estimate.bytes > 8_589_934_591 * estimate.row_bytes
    text = estimate.text()
    assert text.startswith("Plan for 8,589,934,591 deals (1-8589934591):\n  sample     2,000 deals from 200 strata")
    assert "  output     85,900 files of up to 100,000 deals, about " in text
    assert " on 2 workers here (95%: " in text and " on 1,000 dedicated cores (95%: " in text


def test_a_plan_stops_at_its_time_budget(fake, monkeypatch):
    monkeypatch.setenv("FAKE_SOLVER_DELAY", "0.01")
    sample = plans.sample(EVERYTHING, PRESETS["freecell"], Limits(), solver=FAKE_SOLVER, budget_s=0.3)
    assert 1 <= len(sample.picks) <= 31  # each pick sleeps 0.01 s: the one past 0.3 s is the last
    assert len({s for s, _, _, _ in sample.picks}) == len(sample.picks)  # spread: one a stratum so far


def test_the_plan_command_prints_the_estimate_and_writes_nothing(capsys, fake, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "survey", "1-1000000", "--plan", "--workers", "4", "--no-solutions")
    assert (code, err) == (0, "")
    assert out.startswith("Plan for 1,000,000 deals (1-1000000):\n")
    assert "  output     10 files of up to 100,000 deals" in out and " on 4 workers here " in out
    assert list(tmp_path.iterdir()) == []


def test_plan_and_check_together_are_refused(capsys):
    code, out, err = cli(capsys, "survey", "1-10", "--plan", "--check")
    assert (code, out) == (2, "") and err == "Error: --plan and --check do different things: give one\n"


# --- a running survey's ETA ---------------------------------------------------------------------

def test_the_time_left_is_the_rate_of_the_work_not_of_the_deals():
    assert plans.remaining_s(10.0, done_cost=1.0, total_cost=4.0) == 30.0
    profile = plans.Profile(DealSet([(1, 100)]), (1.0, 3.0))
    # the first half done in 10 s: three times as much work left, not as much
    assert plans.remaining_s(10.0, profile.cost(DealSet([(1, 50)])), profile.cost(DealSet([(1, 100)]))) == 30.0
    assert [profile.deal_cost(d) for d in (1, 50, 51, 100)] == [1.0, 1.0, 3.0, 3.0]


class Recorded:
    def __init__(self):
        self.estimates, self.done = [], 0

    def update(self, deals, counts):
        self.done += deals

    def working(self, slow):
        pass

    def estimate(self, remaining_s):
        self.estimates.append(remaining_s)

    def close(self):
        pass


def test_a_large_survey_estimates_its_time_left_from_a_stratified_sample(tmp_path, fake, monkeypatch):
    from fcsurvey import survey

    monkeypatch.setattr(survey, "ETA_SAMPLE_MIN_DEALS", 300)
    job, progress = survey.Survey(parse_deals("1-300"), tmp_path, workers=1, chunk_size=100), Recorded()
    job.run(progress=progress)
    assert job._profile.deals == parse_deals("1-300") and progress.done == 300
    assert progress.estimates and progress.estimates[-1] == 0.0
    small, progress = survey.Survey(parse_deals("1-299"), tmp_path / "small", workers=1), Recorded()
    small.run(progress=progress)
    assert small._profile is None and progress.estimates == []


def test_plain_progress_lines_show_the_estimate(tmp_path):
    import io

    from fcsurvey.console import LineProgress

    shown = io.StringIO()
    line = LineProgress(10, every_s=0.0, file=shown)
    line.estimate(125.0)
    line.update(1, {})
    assert ", ETA 2m 05s; " in shown.getvalue()


def test_a_tasks_counted_deals_take_a_byte_each():
    from fcsurvey.survey import _Reported

    reported = _Reported(((5, 9), (20, 22)))
    for deal, status in ((5, "solved"), (6, "solved"), (9, "unknown"), (20, "error"), (21, "solved")):
        reported[deal] = status
    reported[20] = "solved"  # a retry that got a verdict this time
    assert [reported.get(d) for d in (5, 7, 9, 20, 22)] == ["solved", None, "unknown", "solved", None]
    assert reported.counts() == {"solved": 4, "unknown": 1}
    assert reported.counted() == DealSet([(5, 6), (9, 9), (20, 21)])
    assert len(_Reported(((1, 100_000),))._codes) == 100_000

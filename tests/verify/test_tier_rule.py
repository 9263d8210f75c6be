"""*checked* only when an expect caught a wrong version of the statement: the rule, and the site's chips on an older report."""

from __future__ import annotations

from infralens.reports import ExpectRecord, MutantsRecord, StepRecord, StepStatus, StepTier, VerifyReport, step_tier
from infralens.sphinx.badges import Reports


def test_expects_never_put_to_the_test_make_a_step_ran_not_checked():
    tier, reason = step_tier(StepStatus.PASSED, 2, caught=0, missed=0)
    assert tier is StepTier.RAN and reason.startswith("2 expects held; no wrong version reached them")
    assert step_tier(StepStatus.PASSED, 1, caught=0, missed=2) == (StepTier.RAN, "no mutant of the statement failed an expect; 2 survived the expects")
    assert step_tier(StepStatus.PASSED, 1, caught=3, missed=2) == (StepTier.CHECKED, "1 expect held; an expect caught 3 mutants")
    assert step_tier(StepStatus.PASSED, 1) == (StepTier.CHECKED, "1 expect held")  # no --mutate: the expects held
    assert step_tier(StepStatus.FAILED, 1, caught=3)[0] is StepTier.UNVERIFIED


def _record(tier: StepTier, mutants: MutantsRecord) -> StepRecord:
    expect = ExpectRecord("x == 1", True, "x=1", 3, 1)
    return StepRecord(StepStatus.PASSED, 1, "s", "a.yaml", 1, None, expects=(expect,), tier=tier, tier_reason="1 expect held", mutants=mutants)


def test_the_site_grades_a_report_written_under_the_old_rule_again():
    raised_first = MutantsRecord(tried=4, killed=4, killed_by={"error": 4}, past_expects=())
    caught = MutantsRecord(tried=4, killed=4, killed_by={"expect": 1, "error": 3}, past_expects=())
    report = VerifyReport(
        "2026-01-01T00:00:00Z", "cpu", None, {}, (), {}, {"a/old": _record(StepTier.CHECKED, raised_first), "a/good": _record(StepTier.CHECKED, caught)}
    )
    reports = Reports(verify=(report,))
    (old,) = reports.step_status("a/old")
    (good,) = reports.step_status("a/good")
    assert old.label == "cpu: ran" and "no wrong version reached them" in old.title
    assert good.label == "cpu: checked"
    _device, counts, failed = reports.tier_counts(["a/old", "a/good"]) or ("", {}, 0)
    assert counts[StepTier.CHECKED] == 1 and counts[StepTier.RAN] == 1 and failed == 0


def test_a_case_no_scenario_runs_is_named_whatever_the_tier() -> None:
    tier, why = step_tier(StepStatus.PASSED, 2, unchecked="two images per prompt", caught=3)
    assert tier is StepTier.CHECKED and why.endswith("not run by any scenario: two images per prompt")
    tier, why = step_tier(StepStatus.PASSED, 2, unchecked="two images per prompt", caught=0)
    assert tier is StepTier.RAN and "two images per prompt" in why

"""One strict rule: *checked* only when the step's own expects rejected a wrong version other than the deletion and
none got past them; *held* without a mutation run; the site's chips and counts grade every report with it."""

from __future__ import annotations

from infralens.reports import ExpectRecord, MutantRecord, MutantsRecord, MutantVerdict, StepRecord, StepStatus, StepTier, VerifyReport, step_tier
from infralens.sphinx.badges import Reports

V = MutantVerdict


def _m(kind: str, verdict: MutantVerdict, caught_by: str | None = None) -> MutantRecord:
    return MutantRecord(kind, verdict, f"x = {kind}", caught_by)


def _mutants(*records: MutantRecord) -> MutantsRecord:
    return MutantsRecord(len(records), 0, {}, records)


def test_own_non_delete_catch_and_nothing_past_is_checked():
    tier, why = step_tier(StepStatus.PASSED, 2, mutants=(_m("operator", V.CAUGHT, "a/b"), _m("return", V.CAUGHT, "a/b"), _m("swap", V.EQUIVALENT)))
    assert tier is StepTier.CHECKED and why == "2 expects held; they rejected 1 wrong version (operator) and let none past"


def test_a_kill_by_a_later_steps_expect_does_not_make_the_step_checked():
    # under the old rule any expect of the function counted: caught=1 made this step checked
    tier, why = step_tier(StepStatus.PASSED, 1, mutants=(_m("operator", V.CAUGHT_DOWNSTREAM, "a/later"), _m("value", V.RAISED_FIRST)))
    assert tier is StepTier.RAN and "caught downstream by a/later" in why


def test_catching_only_the_deleted_statement_is_not_checked():
    tier, why = step_tier(StepStatus.PASSED, 1, mutants=(_m("return", V.CAUGHT, "a/b"), _m("operator", V.RAISED_FIRST)))
    assert tier is StepTier.RAN and "only the deleted statement" in why


def test_one_wrong_version_past_the_expects_is_enough_to_lose_checked():
    # the old rule: caught=3, missed=2 was checked
    mutants = (_m("value", V.CAUGHT, "a/b"), _m("operator", V.CAUGHT, "a/b"), _m("swap", V.PAST_EXPECTS, "a/later"), _m("constant", V.SURVIVED))
    tier, why = step_tier(StepStatus.PASSED, 1, mutants=mutants)
    assert tier is StepTier.RAN
    assert why == "2 wrong versions got past its expects (swap, constant); caught downstream by a/later"


def test_a_swap_equal_by_symmetry_counts_against_the_tier():
    tier, why = step_tier(StepStatus.PASSED, 1, mutants=(_m("value", V.CAUGHT, "a/b"), _m("swap", V.UNTESTABLE)))
    assert tier is StepTier.RAN and "1 of them untestable on this data" in why
    assert step_tier(StepStatus.PASSED, 1, mutants=(_m("value", V.CAUGHT, "a/b"), _m("swap", V.EQUIVALENT)))[0] is StepTier.CHECKED


def test_without_a_mutation_run_expects_only_held():
    assert step_tier(StepStatus.PASSED, 1) == (StepTier.HELD, "1 expect held on this device; no mutation run says whether they could fail")
    assert step_tier(StepStatus.PASSED, 1, mutants=())[0] is StepTier.RAN  # mutated, but no wrong version could be made
    assert step_tier(StepStatus.FAILED, 1, mutants=(_m("value", V.CAUGHT, "a/b"),))[0] is StepTier.UNVERIFIED
    tier, why = step_tier(StepStatus.PASSED, 2, mutants=(_m("value", V.RAISED_FIRST),))
    assert tier is StepTier.RAN and why.startswith("2 expects held; no wrong version reached them")


def test_a_case_no_scenario_runs_is_named_whatever_the_tier() -> None:
    tier, why = step_tier(StepStatus.PASSED, 2, unchecked="two images per prompt", mutants=(_m("value", V.CAUGHT, "a/b"),))
    assert tier is StepTier.CHECKED and why.endswith("left unchecked: two images per prompt")
    tier, why = step_tier(StepStatus.PASSED, 2, unchecked="two images per prompt", mutants=(_m("value", V.SURVIVED),))
    assert tier is StepTier.RAN and "two images per prompt" in why


def _record(tier: StepTier, mutants: MutantsRecord | None) -> StepRecord:
    expect = ExpectRecord("x == 1", True, "x=1", 3, 1)
    return StepRecord(StepStatus.PASSED, 1, "s", "a.yaml", 1, None, expects=(expect,), tier=tier, tier_reason="1 expect held", mutants=mutants)


def test_the_site_grades_every_report_again_whatever_tier_it_wrote():
    sibling = _mutants(_m("operator", V.CAUGHT_DOWNSTREAM, "a/good"))
    good = _mutants(_m("operator", V.CAUGHT, "a/good"))
    report = VerifyReport(
        "2026-01-01T00:00:00Z", "cpu", None, {}, (), {}, {"a/old": _record(StepTier.CHECKED, sibling), "a/good": _record(StepTier.CHECKED, good)}
    )
    reports = Reports(verify=(report,))
    (old,) = reports.step_status("a/old")
    (fine,) = reports.step_status("a/good")
    assert old.label == "cpu: ran" and "caught downstream by a/good" in old.title
    assert fine.label == "cpu: checked"
    _device, counts, failed = reports.tier_counts(["a/old", "a/good"]) or ("", {}, 0)
    assert counts[StepTier.CHECKED] == 1 and counts[StepTier.RAN] == 1 and failed == 0


def test_a_report_without_mutation_says_held_never_checked():
    # the CUDA report: no --mutate. Under the old rule both the chip and the function badge said "checked".
    cuda = VerifyReport(
        "2026-01-01T00:00:00Z", "cuda", "H200", {}, (), {}, {"a/one": _record(StepTier.CHECKED, None), "a/two": _record(StepTier.CHECKED, None)}
    )
    cpu = VerifyReport("2026-01-01T00:00:00Z", "cpu", None, {}, (), {}, {"a/one": _record(StepTier.CHECKED, _mutants(_m("value", V.CAUGHT, "a/one")))})
    reports = Reports(verify=(cpu, cuda))
    assert [chip.label for chip in reports.step_status("a/one")] == ["cpu: checked", "cuda: held"]
    badges = reports.function_badges(["a/one", "a/two"], ["a"])
    assert [badge.label for badge in badges[1:]] == ["cpu: 1/2 checked", "cuda: 2/2 held"]
    assert all("checked" not in badge.label for badge in badges if badge.kind == "verify-cuda")

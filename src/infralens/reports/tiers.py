"""The one rule that turns a verified step into a tier (checked, ran, read, unverified) and a reason.

Pure: ``infralens verify`` calls it when it writes the report, the report loader calls it for a
report written before tiers existed, and the site can call it on any loaded record.
"""

from __future__ import annotations

from infralens.reports.vocabulary import StepStatus, StepTier


def step_tier(
    status: StepStatus,
    expects: int,
    reason: str | None = None,
    *,
    unchecked: str | None = None,
    caught: int | None = None,
    missed: int = 0,
) -> tuple[StepTier, str]:
    """The tier of one step and a one-sentence reason.

    Parameters:
        status: what ``verify`` concluded (``passed`` means it ran and every expect held).
        expects: how many expects the step has.
        reason: the static text, or why the step did not run.
        unchecked: the annotation's ``unchecked:`` text: why a traced step has no expect, or (beside expects) the
            case of the claim that no scenario runs, added to the reason whatever the tier.
        caught: mutants of the statement on which an expect failed (``verify --mutate``); None when
            no mutation was run.
        missed: mutants that got past the expects: evaluated on the mutant, none failed, and the
            mutant is not equivalent (it survived, or only the scenario stopped it later). A mutant
            that raised before the expects were evaluated is in neither count.
    """
    if status is StepStatus.STATIC:
        return StepTier.READ, reason or "static"
    if status is StepStatus.FAILED:
        return StepTier.UNVERIFIED, "an expect failed"
    if status is not StepStatus.PASSED:
        return StepTier.UNVERIFIED, reason or "the step did not run"
    if expects == 0:
        return StepTier.RAN, unchecked or "no expect"
    tier, why = _tier_with_expects(expects, caught, missed)
    return tier, f"{why}; not run by any scenario: {unchecked}" if unchecked else why


def _tier_with_expects(expects: int, caught: int | None, missed: int) -> tuple[StepTier, str]:
    held = f"{expects} expect{'s' if expects != 1 else ''} held"
    if caught is None:
        return StepTier.CHECKED, held
    if caught:
        return StepTier.CHECKED, f"{held}; an expect caught {caught} mutant{'s' if caught != 1 else ''}"
    if missed:
        return StepTier.RAN, f"no mutant of the statement failed an expect; {missed} survived the expects"
    return StepTier.RAN, f"{held}; no wrong version reached them (each raised first, was equivalent or stopped by the scenario, or none could be made)"

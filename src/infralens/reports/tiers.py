"""The one rule that turns a verified step into a tier (checked, held, ran, read, unverified) and a reason.

Pure: ``infralens verify`` calls it when it writes the report, the report loader and the site's chips call
it on every loaded record, so a report can never say more than its mutant records show.

The rule, in words (docs/guide/verification.md):

- *checked* needs a mutation run, in which the step's **own** expects rejected at least one wrong version of
  its statement other than deleting it (:data:`DELETE_KINDS`), and no wrong version that computes something
  else got past them (:attr:`~.vocabulary.MutantVerdict.got_past`: past the expects, survived, untestable).
- A kill by a later step's expect is named in the reason ("caught downstream by STEP") but is not this
  step's evidence.
- Without a mutation run, expects that held make a step *held*: true on that device, but nothing says they
  could have failed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from infralens.reports.vocabulary import MutantKind, MutantVerdict, StepStatus, StepTier

DELETE_KINDS = frozenset({MutantKind.RETURN})
"""Mutant kinds that only delete the statement (it becomes ``return None``): noticing them is not evidence."""

NAMED_STEPS = 2
"""Downstream steps named in a reason (then "and N more")."""


class JudgedMutant(Protocol):
    """What the rule reads of one mutant record."""

    @property
    def kind(self) -> str: ...

    @property
    def verdict(self) -> MutantVerdict: ...

    @property
    def caught_by(self) -> str | None: ...


def step_tier(
    status: StepStatus,
    expects: int,
    reason: str | None = None,
    *,
    unchecked: str | None = None,
    mutants: Sequence[JudgedMutant] | None = None,
) -> tuple[StepTier, str]:
    """The tier of one step and a one-sentence reason.

    Parameters:
        status: what ``verify`` concluded (``passed`` means it ran and every expect held).
        expects: how many expects the step has.
        reason: the static text, or why the step did not run.
        unchecked: the annotation's ``unchecked:`` text: why a traced step has no expect, or (beside expects) the
            part of the claim no expect tests and why, added to the reason whatever the tier.
        mutants: the step's mutant records from ``verify --mutate``; None when no mutation was run.
    """
    if status is StepStatus.STATIC:
        return StepTier.READ, reason or "static"
    if status is StepStatus.FAILED:
        return StepTier.UNVERIFIED, "an expect failed"
    if status is not StepStatus.PASSED:
        return StepTier.UNVERIFIED, reason or "the step did not run"
    if expects == 0:
        return StepTier.RAN, unchecked or "no expect"
    tier, why = _tier_with_expects(expects, mutants)
    return tier, f"{why}; left unchecked: {unchecked}" if unchecked else why


def own_catches(mutants: Sequence[JudgedMutant]) -> list[JudgedMutant]:
    """The mutants the step's own expects rejected, deleting the statement left out."""
    return [m for m in mutants if m.verdict is MutantVerdict.CAUGHT and m.kind not in DELETE_KINDS]


def _tier_with_expects(expects: int, mutants: Sequence[JudgedMutant] | None) -> tuple[StepTier, str]:
    held = f"{expects} expect{'s' if expects != 1 else ''} held"
    if mutants is None:
        return StepTier.HELD, f"{held} on this device; no mutation run says whether they could fail"
    if not mutants:
        return StepTier.RAN, f"{held}; no wrong version of the statement could be made"
    own = own_catches(mutants)
    past = [m for m in mutants if m.verdict.got_past]
    downstream = _downstream(mutants)
    if own and not past:
        return StepTier.CHECKED, f"{held}; they rejected {_count(len(own), 'wrong version')} ({_kinds(own)}) and let none past"
    if past:
        untestable = sum(m.verdict is MutantVerdict.UNTESTABLE for m in past)
        note = f", {untestable} of them untestable on this data (equal operands)" if untestable else ""
        return StepTier.RAN, f"{_count(len(past), 'wrong version')} got past its expects ({_kinds(past)}{note}){downstream}"
    if any(m.verdict is MutantVerdict.CAUGHT for m in mutants):
        return StepTier.RAN, f"{held}; they rejected only the deleted statement{downstream}"
    if downstream:
        return StepTier.RAN, f"{held}; none of its own expects failed on a wrong version{downstream}"
    return StepTier.RAN, f"{held}; no wrong version reached them (each raised first, was equivalent or stopped by the scenario)"


def _downstream(mutants: Sequence[JudgedMutant]) -> str:
    """ "; caught downstream by A, B" for the kills made by other steps' expects (empty when none)."""
    steps = list(dict.fromkeys(m.caught_by for m in mutants if m.caught_by and m.verdict is not MutantVerdict.CAUGHT))
    if not steps:
        return ""
    named = ", ".join(steps[:NAMED_STEPS]) + (f" and {len(steps) - NAMED_STEPS} more" if len(steps) > NAMED_STEPS else "")
    return f"; caught downstream by {named}"


def _kinds(mutants: Sequence[JudgedMutant]) -> str:
    counts = Counter(m.kind for m in mutants)
    return ", ".join(kind if n == 1 else f"{kind} ×{n}" for kind, n in counts.most_common())


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"

"""The verification report (``infralens verify --report``, e.g. ``reports/verify-cpu.json``) as typed records.

Each record is its own definition (:mod:`.records`): ``to_json`` gives the document key for key as it is
written (optional keys left out when empty), ``from_json`` reads a document the schema accepted, and the
schema is generated from the same fields.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from infralens.bounds import VERSION_PATTERN  # every version field of a report follows it
from infralens.reports.records import Record, record, spec
from infralens.reports.tiers import step_tier
from infralens.reports.vocabulary import ScenarioStatus, StepStatus, StepTier

VERIFY_FORMAT = 1
CREATED_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"
STEP_ID_PATTERN = r"^[^/\s]+/[^/\s]+$"


RAN_VERSION_PATTERN = f"^(?:{VERSION_PATTERN[1:-1]}|not installed)$"
"""A version that ran, or ``not installed`` (the runner's word for a package the scenarios import that is absent)."""


@record
class ExpectRecord(Record):
    """One ``expect`` claim of a step and how its evaluations went."""

    json_name: ClassVar[str] = "verifyExpect"
    expr: str
    passed: bool
    observed: str
    line: int = spec(minimum=1, doc="Line of the expect in the annotation file.")
    evaluations: int = spec(minimum=0)
    error: str | None = spec(default=None, omit="none")


@record
class MutantsRecord(Record):
    """What ``verify --mutate`` did to one step: wrong versions of its statement and whether an expect caught them."""

    json_name: ClassVar[str] = "verifyMutants"
    tried: int = spec(minimum=0)
    killed: int = spec(minimum=0)
    survived: tuple[str, ...] = spec(default=(), doc="Diffs of surviving mutants that changed some observed value.")
    equivalent: tuple[str, ...] = spec(default=(), doc="Diffs of surviving mutants whose run observed bit-identical values.")
    killed_by: dict[str, int] = spec(
        factory=dict,
        omit="empty",
        item_minimum=0,
        doc="Killed mutants by how: expect (an expect failed; only these make a step checked), check (the scenario's own check failed), "
        "error (the scenario raised), timeout.",
    )
    past_expects: tuple[str, ...] | None = spec(
        default=None,
        omit="none",
        doc="Diffs of the mutants the step's expects were evaluated on without failing, equivalent ones left out (they survived, or only the "
        "scenario stopped them later). None in a record that does not say (then: every mutant not caught).",
    )

    @property
    def caught(self) -> int:
        """Mutants an expect failed on."""
        return self.killed_by.get("expect", 0)

    @property
    def missed(self) -> int:
        """Mutants that got past the expects."""
        return self.tried - self.caught - len(self.equivalent) if self.past_expects is None else len(self.past_expects)


@record
class StepRecord(Record):
    """One annotation step: its status, how often it ran, its expects."""

    json_name: ClassVar[str] = "verifyStep"
    json_order: ClassVar[tuple[str, ...]] = ("status", "tier", "tier_reason", "times_ran", "scenario", "file", "line", "source", "expects", "reason", "mutants")
    status: StepStatus
    times_ran: int = spec(minimum=0)
    scenario: str | None = spec(omit="none")
    file: str = spec(doc="Annotation file, relative to the project root.")
    line: int = spec(minimum=1)
    source: str | None = spec(omit="none", doc="Upstream relpath:line of the step's first statement (absent when it did not resolve).")
    expects: tuple[ExpectRecord, ...] = ()
    reason: str | None = spec(default=None, omit="none", doc="Why the step is static or did not run.")
    tier: StepTier | None = spec(default=None, omit="none")
    """checked, ran, read or unverified; None only before :meth:`graded` fills it (see :func:`~.tiers.step_tier`)."""
    tier_reason: str | None = spec(default=None, omit="none", doc="One sentence: why the step has its tier.")
    mutants: MutantsRecord | None = spec(default=None, omit="none", doc="Mutation results (verify --mutate), absent when none were run.")

    def graded(self, unchecked: str | None = None) -> tuple[StepTier, str]:
        """The step's tier and its reason: as recorded, else computed from the other fields."""
        if self.tier is not None:
            return self.tier, self.tier_reason or ""
        mutants = self.mutants
        return step_tier(
            self.status,
            len(self.expects),
            self.reason,
            unchecked=unchecked,
            caught=None if mutants is None else mutants.caught,
            missed=0 if mutants is None else mutants.missed,
        )

    def before_dump(self) -> StepRecord:
        """The tier is always written: as recorded, else computed."""
        tier, tier_reason = self.graded()
        return replace(self, tier=tier, tier_reason=tier_reason)

    def after_load(self) -> StepRecord:
        """A report written before tiers existed gets its tier computed here."""
        return self if self.tier is not None else self.before_dump()


@record
class ScenarioRecord(Record):
    """One scenario run: status, wall and CPU seconds, error, measured facts."""

    json_name: ClassVar[str] = "verifyScenario"
    status: ScenarioStatus
    seconds: float = spec(minimum=0)
    cpu_seconds: float | None = spec(default=None, omit="none", minimum=0, doc="CPU time of the worker during the scenario.")
    error: str | None = spec(default=None, omit="none")
    facts: dict[str, str] = spec(factory=dict, omit="empty", doc="Measured values worth keeping.")


@record
class VerifyReport(Record):
    """What each scenario did and what the verifier concluded about each annotation step (by step id)."""

    json_name: ClassVar[str] = "verifyReport"
    json_title: ClassVar[str | None] = "Verification report (infralens verify --report; reports/verify-<device>.json)"
    json_order: ClassVar[tuple[str, ...]] = ("format",)
    created: str = spec(pattern=CREATED_PATTERN)
    device: str = spec(choices=("cpu", "cuda"))
    device_name: str | None = spec(doc="The GPU's name on cuda, else null.")
    versions: dict[str, str] = spec(item_pattern=RAN_VERSION_PATTERN, doc="python and the packages that ran.")
    stubbed_modules: tuple[str, ...] = spec(doc="Modules DiffSynth's full-package mode replaced with stubs.")
    scenarios: dict[str, ScenarioRecord] = spec(doc="Keyed by scenario name.")
    steps: dict[str, StepRecord] = spec(keys_pattern=STEP_ID_PATTERN, doc="Keyed by step id (annotation id/step key).")
    format: int = spec(default=VERIFY_FORMAT, const=VERIFY_FORMAT, doc="Version of this report layout.")

    def tier_of(self, step_id: str) -> tuple[StepTier, str]:
        """The step's tier and one-sentence reason; a step the report does not know is unverified."""
        record = self.steps.get(step_id)
        return (StepTier.UNVERIFIED, "not in the verification report") if record is None else record.graded()

    def status_of(self, step_id: str) -> StepStatus:
        """The step's status; a step the report does not know did not run."""
        record = self.steps.get(step_id)
        return StepStatus.NOT_RUN if record is None else record.status

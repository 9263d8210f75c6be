"""The verification report (``infralens verify --report``, e.g. ``reports/verify-cpu.json``) as typed records.

Each record is its own definition (:mod:`infralens.records`): ``to_json`` gives the document key for key as it is
written (optional keys left out when empty), ``from_json`` reads a document the schema accepted, and the
schema is generated from the same fields.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from infralens.bounds import VERSION_PATTERN  # every version field of a report follows it
from infralens.records import Record, record, spec
from infralens.reports.tiers import step_tier
from infralens.reports.vocabulary import MutantKind, MutantVerdict, ScenarioStatus, StepStatus, StepTier

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


MUTANT_KINDS = tuple(kind.value for kind in MutantKind)
"""The kinds of wrong version ``verify --mutate`` makes (see :mod:`infralens.verify.mutate.mutants`)."""
CHANGE_LIMIT = 160
"""Characters of a mutant's changed text kept in the report (the statement itself is in the source)."""


@record
class MutantRecord(Record):
    """One wrong version of the step's statement and how it ended."""

    json_name: ClassVar[str] = "verifyMutant"
    kind: str = spec(choices=MUTANT_KINDS)
    verdict: MutantVerdict
    change: str = spec(doc=f"The mutated statement's changed text, one line, at most {CHANGE_LIMIT} characters.")
    caught_by: str | None = spec(default=None, omit="none", pattern=STEP_ID_PATTERN, doc="The step whose expect failed on it.")


@record
class MutantsRecord(Record):
    """What ``verify --mutate`` did to one step: wrong versions of its statement and whether an expect caught them."""

    json_name: ClassVar[str] = "verifyMutants"
    tried: int = spec(minimum=0)
    killed: int = spec(minimum=0)
    killed_by: dict[str, int] = spec(
        factory=dict,
        omit="empty",
        item_minimum=0,
        doc="Killed mutants by how: expect (an expect failed, this step's or a later one's), check (the scenario's own check failed), "
        "error (the scenario raised), timeout.",
    )
    records: tuple[MutantRecord, ...] = spec(default=(), doc="Each mutant tried: its kind, verdict and the step whose expect caught it.")

    @property
    def caught(self) -> int:
        """Mutants the step's own expects rejected."""
        return sum(record.verdict is MutantVerdict.CAUGHT for record in self.records)

    @property
    def missed(self) -> int:
        """Mutants that got past the step's own expects (past them, survived, or untestable on this data)."""
        return sum(record.verdict.got_past for record in self.records)


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
    """checked, held, ran, read or unverified as written; readers use :meth:`graded`, which applies the rule again."""
    tier_reason: str | None = spec(default=None, omit="none", doc="One sentence: why the step has its tier.")
    mutants: MutantsRecord | None = spec(default=None, omit="none", doc="Mutation results (verify --mutate), absent when none were run.")

    def graded(self, unchecked: str | None = None) -> tuple[StepTier, str]:
        """The step's tier under the one rule (:func:`~.tiers.step_tier`), always computed from the other fields;
        the recorded reason is kept when the recorded tier agrees (it may name the annotation's ``unchecked:``)."""
        mutants = self.mutants
        tier, reason = step_tier(self.status, len(self.expects), self.reason, unchecked=unchecked, mutants=None if mutants is None else mutants.records)
        if self.tier is tier and self.tier_reason and unchecked is None:
            return tier, self.tier_reason
        return tier, reason

    def before_dump(self) -> StepRecord:
        """The tier is always written: as recorded, else computed."""
        tier, tier_reason = self.graded()
        return replace(self, tier=tier, tier_reason=tier_reason)

    def after_load(self) -> StepRecord:
        """The tier as the rule gives it today, whatever the file says (a report written under an older rule)."""
        return self.before_dump()


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

    @property
    def mutated(self) -> bool:
        """Whether any step of this report was mutation-tested (``verify --mutate``)."""
        return any(record.mutants is not None for record in self.steps.values())

    def tier_of(self, step_id: str) -> tuple[StepTier, str]:
        """The step's tier and one-sentence reason; a step the report does not know is unverified."""
        record = self.steps.get(step_id)
        return (StepTier.UNVERIFIED, "not in the verification report") if record is None else record.graded()

    def status_of(self, step_id: str) -> StepStatus:
        """The step's status; a step the report does not know did not run."""
        record = self.steps.get(step_id)
        return StepStatus.NOT_RUN if record is None else record.status

"""The verification report (``infralens verify --report``, e.g. ``reports/verify-cpu.json``) as typed records.

:meth:`VerifyReport.to_json` gives the document key for key as it is written (optional keys
left out when empty); :meth:`VerifyReport.from_json` reads a document the schema accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from infralens.reports.json_values import JsonObject, as_float, as_int, as_list, as_object, as_objects, optional_str
from infralens.reports.tiers import step_tier
from infralens.reports.vocabulary import ScenarioStatus, StepStatus, StepTier

VERIFY_FORMAT = 1


@dataclass(frozen=True)
class ExpectRecord:
    """One ``expect`` claim of a step and how its evaluations went."""

    expr: str
    passed: bool
    observed: str
    line: int
    """Line of the expect in the annotation file."""
    evaluations: int
    error: str | None = None

    def to_json(self) -> JsonObject:
        data: JsonObject = {"expr": self.expr, "passed": self.passed, "observed": self.observed, "line": self.line, "evaluations": self.evaluations}
        if self.error is not None:
            data["error"] = self.error
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ExpectRecord:
        return cls(
            str(data["expr"]), bool(data["passed"]), str(data["observed"]), as_int(data["line"]), as_int(data["evaluations"]), optional_str(data.get("error"))
        )


@dataclass(frozen=True)
class MutantsRecord:
    """What ``verify --mutate`` did to one step: wrong versions of its statement and whether an expect caught them."""

    tried: int
    killed: int
    survived: tuple[str, ...] = ()
    """Unified diff of each surviving mutant that changed some observed value."""
    equivalent: tuple[str, ...] = ()
    """Unified diff of each surviving mutant whose run observed bit-identical values."""
    killed_by: dict[str, int] = field(default_factory=dict)
    """How the killed mutants were stopped: ``expect`` (an expect failed), ``check`` (the scenario's own
    check failed), ``error`` (the scenario raised) or ``timeout``. Only ``expect`` makes a step *checked*."""
    past_expects: tuple[str, ...] | None = None
    """Mutants the step's expects were evaluated on without failing (not equivalent): they survived, or
    only the scenario stopped them later. None in a record that does not say (then: every mutant not caught)."""

    @property
    def caught(self) -> int:
        """Mutants an expect failed on."""
        return self.killed_by.get("expect", 0)

    @property
    def missed(self) -> int:
        """Mutants that got past the expects."""
        return self.tried - self.caught - len(self.equivalent) if self.past_expects is None else len(self.past_expects)

    def to_json(self) -> JsonObject:
        data: JsonObject = {"tried": self.tried, "killed": self.killed, "survived": list(self.survived), "equivalent": list(self.equivalent)}
        if self.killed_by:
            data["killed_by"] = dict(self.killed_by)
        if self.past_expects is not None:
            data["past_expects"] = list(self.past_expects)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> MutantsRecord:
        killed_by = data.get("killed_by")
        return cls(
            tried=as_int(data["tried"]),
            killed=as_int(data["killed"]),
            survived=tuple(str(item) for item in as_list(data.get("survived", []))),
            equivalent=tuple(str(item) for item in as_list(data.get("equivalent", []))),
            killed_by={str(k): as_int(v) for k, v in killed_by.items()} if isinstance(killed_by, dict) else {},
            past_expects=None if data.get("past_expects") is None else tuple(str(item) for item in as_list(data["past_expects"])),
        )


@dataclass(frozen=True)
class StepRecord:
    """One annotation step: its status, how often it ran, its expects."""

    status: StepStatus
    times_ran: int
    scenario: str | None
    file: str
    line: int
    source: str | None
    """Upstream ``relpath:line`` of the step's first statement (absent when it did not resolve)."""
    expects: tuple[ExpectRecord, ...] = ()
    reason: str | None = None
    """Why the step is static or did not run."""
    tier: StepTier | None = None
    """checked, ran, read or unverified; None only before :meth:`graded` fills it (see :func:`~.tiers.step_tier`)."""
    tier_reason: str | None = None
    mutants: MutantsRecord | None = None
    """Mutation results (``verify --mutate``), None when none were run."""

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

    def to_json(self) -> JsonObject:
        tier, tier_reason = self.graded()
        data: JsonObject = {"status": self.status.value, "tier": tier.value, "tier_reason": tier_reason, "times_ran": self.times_ran}
        if self.scenario is not None:
            data["scenario"] = self.scenario
        data.update(file=self.file, line=self.line)
        if self.source is not None:
            data["source"] = self.source
        data["expects"] = [expect.to_json() for expect in self.expects]
        if self.reason is not None:
            data["reason"] = self.reason
        if self.mutants is not None:
            data["mutants"] = self.mutants.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> StepRecord:
        """The record; a report written before tiers existed gets its tier computed here."""
        mutants = data.get("mutants")
        tier = data.get("tier")
        record = cls(
            status=StepStatus(data["status"]),
            times_ran=as_int(data["times_ran"]),
            scenario=optional_str(data.get("scenario")),
            file=str(data["file"]),
            line=as_int(data["line"]),
            source=optional_str(data.get("source")),
            expects=tuple(ExpectRecord.from_json(item) for item in as_objects(data["expects"])),
            reason=optional_str(data.get("reason")),
            tier=None if tier is None else StepTier(tier),
            tier_reason=optional_str(data.get("tier_reason")),
            mutants=None if mutants is None else MutantsRecord.from_json(as_object(mutants)),
        )
        if record.tier is None:
            tier, reason = record.graded()
            record = replace(record, tier=tier, tier_reason=reason)
        return record


@dataclass(frozen=True)
class ScenarioRecord:
    """One scenario run: status, wall and CPU seconds, error, measured facts."""

    status: ScenarioStatus
    seconds: float
    cpu_seconds: float | None = None
    error: str | None = None
    facts: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        data: JsonObject = {"status": self.status.value, "seconds": self.seconds}
        if self.cpu_seconds is not None:
            data["cpu_seconds"] = self.cpu_seconds
        if self.error is not None:
            data["error"] = self.error
        if self.facts:
            data["facts"] = dict(self.facts)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ScenarioRecord:
        cpu = data.get("cpu_seconds")
        facts = data.get("facts")
        return cls(
            status=ScenarioStatus(data["status"]),
            seconds=as_float(data["seconds"]),
            cpu_seconds=None if cpu is None else as_float(cpu),
            error=optional_str(data.get("error")),
            facts={str(k): str(v) for k, v in facts.items()} if isinstance(facts, dict) else {},
        )


@dataclass(frozen=True)
class VerifyReport:
    """A whole verification report: where it ran, each scenario, each step (by step id)."""

    created: str
    device: str
    device_name: str | None
    versions: dict[str, str]
    stubbed_modules: tuple[str, ...]
    scenarios: dict[str, ScenarioRecord]
    steps: dict[str, StepRecord]
    format: int = VERIFY_FORMAT

    def to_json(self) -> JsonObject:
        return {
            "format": self.format,
            "created": self.created,
            "device": self.device,
            "device_name": self.device_name,
            "versions": dict(self.versions),
            "stubbed_modules": list(self.stubbed_modules),
            "scenarios": {name: record.to_json() for name, record in self.scenarios.items()},
            "steps": {step_id: record.to_json() for step_id, record in self.steps.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> VerifyReport:
        return cls(
            format=as_int(data["format"]),
            created=str(data["created"]),
            device=str(data["device"]),
            device_name=optional_str(data["device_name"]),
            versions={str(k): str(v) for k, v in as_object(data["versions"]).items()},
            stubbed_modules=tuple(str(name) for name in as_list(data["stubbed_modules"])),
            scenarios={name: ScenarioRecord.from_json(as_object(entry)) for name, entry in as_object(data["scenarios"]).items()},
            steps={step_id: StepRecord.from_json(as_object(entry)) for step_id, entry in as_object(data["steps"]).items()},
        )

    def tier_of(self, step_id: str) -> tuple[StepTier, str]:
        """The step's tier and one-sentence reason; a step the report does not know is unverified."""
        record = self.steps.get(step_id)
        return (StepTier.UNVERIFIED, "not in the verification report") if record is None else record.graded()

    def status_of(self, step_id: str) -> StepStatus:
        """The step's status; a step the report does not know did not run."""
        record = self.steps.get(step_id)
        return StepStatus.NOT_RUN if record is None else record.status

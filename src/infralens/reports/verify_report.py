"""The verification report (``infralens verify --report``, e.g. ``reports/verify-cpu.json``) as typed records.

:meth:`VerifyReport.to_json` gives the document key for key as it is written (optional keys
left out when empty); :meth:`VerifyReport.from_json` reads a document the schema accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from infralens.reports.json_values import JsonObject, as_float, as_int, as_list, as_object, as_objects, optional_str
from infralens.reports.vocabulary import ScenarioStatus, StepStatus

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

    def to_json(self) -> JsonObject:
        data: JsonObject = {"status": self.status.value, "times_ran": self.times_ran}
        if self.scenario is not None:
            data["scenario"] = self.scenario
        data.update(file=self.file, line=self.line)
        if self.source is not None:
            data["source"] = self.source
        data["expects"] = [expect.to_json() for expect in self.expects]
        if self.reason is not None:
            data["reason"] = self.reason
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> StepRecord:
        return cls(
            status=StepStatus(data["status"]),
            times_ran=as_int(data["times_ran"]),
            scenario=optional_str(data.get("scenario")),
            file=str(data["file"]),
            line=as_int(data["line"]),
            source=optional_str(data.get("source")),
            expects=tuple(ExpectRecord.from_json(item) for item in as_objects(data["expects"])),
            reason=optional_str(data.get("reason")),
        )


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

    def status_of(self, step_id: str) -> StepStatus:
        """The step's status; a step the report does not know did not run."""
        record = self.steps.get(step_id)
        return StepStatus.NOT_RUN if record is None else record.status

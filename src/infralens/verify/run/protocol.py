"""The worker↔runner protocol: one :class:`WorkerRequest` on the worker's stdin, one message per stdout line.

A worker answers ``ready``, then ``start`` and ``done`` (a :class:`ScenarioOutcome`) for each scenario, then ``finished``.
Both sides encode and decode through this module; lines that are not protocol messages (a
library printing to the real stdout) decode to ``None`` and are skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum

from infralens.reports import MutantsRecord, ScenarioStatus, as_int, as_list, as_object, strings
from infralens.verify.trace.backend_name import BackendName
from infralens.verify.trace.probes import ExpectResult, Probe, ProbeResult


class Event(StrEnum):
    """What a protocol line says happened (its ``event`` field); the runner's progress callback gets START and DONE."""

    READY = "ready"
    START = "start"
    DONE = "done"
    FINISHED = "finished"


def probe_to_json(probe: Probe) -> dict[str, object]:
    return {
        "key": probe.key,
        "file": probe.file,
        "scope": probe.scope,
        "entry": list(probe.entry),
        "exit": list(probe.exit),
        "exit_scope": probe.exit_scope,
        "expects": list(probe.expects),
        "module": probe.module,
    }


def probe_from_json(data: dict[str, object]) -> Probe:
    key, file, scope, exit_scope, module = strings(data, "key", "file", "scope", "exit_scope", "module")
    expects = tuple(str(expr) for expr in as_list(data["expects"]))
    return Probe(key, file, scope, _pair(data["entry"]), _pair(data["exit"]), exit_scope, expects, module)


@dataclass(frozen=True)
class ScenarioJob:
    """One scenario for a worker to run, with the probes to watch."""

    name: str
    probes: tuple[Probe, ...]
    mutate: tuple[str, ...] = ()
    """Keys of the probes whose statements to mutate after the plain run (``verify --mutate``)."""


@dataclass(frozen=True)
class WorkerRequest:
    """What the runner sends: the device, the tracer backend, the scenarios in order, mutants per step (0: none).

    *scenario_folder* is the project's scenarios folder (the worker reads the same catalog from it);
    *environment* are folders the worker puts first on ``sys.path`` before importing anything upstream
    (``verify --against``: another release installed on its own).
    """

    device: str
    backend: BackendName
    scenarios: tuple[ScenarioJob, ...]
    max_mutants: int = 0
    scenario_folder: str = ""
    environment: tuple[str, ...] = ()

    def encode(self) -> str:
        jobs = [{"name": job.name, "probes": [probe_to_json(probe) for probe in job.probes], "mutate": list(job.mutate)} for job in self.scenarios]
        return json.dumps(
            {
                "device": self.device,
                "backend": self.backend,
                "scenarios": jobs,
                "max_mutants": self.max_mutants,
                "scenario_folder": self.scenario_folder,
                "environment": list(self.environment),
            }
        )

    @classmethod
    def decode(cls, text: str) -> WorkerRequest:
        data = as_object(json.loads(text))
        jobs = tuple(
            ScenarioJob(
                str(job["name"]),
                tuple(probe_from_json(as_object(probe)) for probe in as_list(job["probes"])),
                tuple(str(key) for key in as_list(job.get("mutate", []))),
            )
            for job in (as_object(item) for item in as_list(data["scenarios"]))
        )
        environment = tuple(str(path) for path in as_list(data.get("environment", [])))
        return cls(
            str(data["device"]),
            BackendName(str(data.get("backend", BackendName.AUTO))),
            jobs,
            as_int(data.get("max_mutants", 0)),
            str(data.get("scenario_folder", "")),
            environment,
        )


@dataclass(frozen=True)
class Ready:
    """The worker chose its device and imported what its scenarios need."""

    device: str
    pid: int
    setup_seconds: float
    device_name: str | None = None


@dataclass(frozen=True)
class Started:
    """A scenario is about to run."""

    scenario: str


@dataclass(frozen=True)
class ScenarioOutcome:
    """A scenario ended (the ``done`` message, and the runner's record of it): how, how long, its facts, what the tracer saw."""

    scenario: str
    status: ScenarioStatus
    seconds: float
    error: str | None = None
    cpu_seconds: float | None = None
    """CPU time of the worker during the scenario (robust to other load on the machine)."""
    facts: dict[str, str] = field(default_factory=dict)
    probes: dict[str, ProbeResult] = field(default_factory=dict)
    mutants: dict[str, MutantsRecord] = field(default_factory=dict)
    """Per probe key, what mutating its statement found (``verify --mutate`` only)."""


@dataclass(frozen=True)
class Finished:
    """The worker is done: total seconds and the modules DiffSynth's full-package mode stubbed."""

    seconds: float
    stubbed: tuple[str, ...] = ()


Message = Ready | Started | ScenarioOutcome | Finished


def encode(message: Message) -> str:
    """One protocol line (without the newline)."""
    data: dict[str, object]
    if isinstance(message, Ready):
        data = {"event": Event.READY, "device": message.device, "pid": message.pid, "setup_seconds": message.setup_seconds, "device_name": message.device_name}
    elif isinstance(message, Started):
        data = {"event": Event.START, "scenario": message.scenario}
    elif isinstance(message, ScenarioOutcome):
        data = {
            "event": Event.DONE,
            "scenario": message.scenario,
            "status": message.status.value,
            "error": message.error,
            "seconds": message.seconds,
            "cpu_seconds": message.cpu_seconds,
            "facts": message.facts,
            "probes": {key: _result_to_json(result) for key, result in message.probes.items()},
            "mutants": {key: result.to_json() for key, result in message.mutants.items()},
        }
    else:
        data = {"event": Event.FINISHED, "seconds": message.seconds, "stubbed": list(message.stubbed)}
    return json.dumps(data)


def decode(line: str) -> Message | None:
    """The message on *line*, or None when the line is not a protocol message."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    event = data.get("event")
    if event == Event.READY:
        name = data["device_name"]
        return Ready(str(data["device"]), int(data["pid"]), float(data["setup_seconds"]), None if name is None else str(name))
    if event == Event.START:
        return Started(str(data["scenario"]))
    if event == Event.DONE:
        cpu, error = data["cpu_seconds"], data["error"]
        return ScenarioOutcome(
            scenario=str(data["scenario"]),
            status=ScenarioStatus(data["status"]),
            seconds=float(data["seconds"]),
            error=None if error is None else str(error),
            cpu_seconds=None if cpu is None else float(cpu),
            facts={str(k): str(v) for k, v in as_object(data["facts"]).items()},
            probes={str(key): _result_from_json(as_object(value)) for key, value in as_object(data["probes"]).items()},
            mutants={str(key): MutantsRecord.from_json(as_object(value)) for key, value in as_object(data.get("mutants", {})).items()},
        )
    if event == Event.FINISHED:
        return Finished(float(data["seconds"]), tuple(str(name) for name in as_list(data["stubbed"])))
    return None


def _result_to_json(result: ProbeResult) -> dict[str, object]:
    expects = [{"expr": e.expr, "evaluations": e.evaluations, "failures": e.failures, "observed": e.observed, "error": e.error} for e in result.expects]
    return {"key": result.key, "times_ran": result.times_ran, "expects": expects}


def _result_from_json(data: dict[str, object]) -> ProbeResult:
    expects = tuple(
        ExpectResult(str(e["expr"]), as_int(e["evaluations"]), as_int(e["failures"]), str(e["observed"]), None if e["error"] is None else str(e["error"]))
        for e in (as_object(item) for item in as_list(data["expects"]))
    )
    return ProbeResult(str(data["key"]), as_int(data["times_ran"]), expects)


def _pair(value: object) -> tuple[int, int]:
    first, last = (as_int(item) for item in as_list(value))
    return first, last

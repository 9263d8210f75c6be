"""The worker↔runner protocol: one :class:`WorkerRequest` on the worker's stdin, one message per stdout line.

A worker answers ``ready``, then ``start`` and ``done`` (a :class:`ScenarioOutcome`) for each scenario, then ``finished``.
Every message is a record of :mod:`infralens.records` (like the reports and the probes it carries), so its
JSON comes from its one definition both ways; a line is ``{"event": …, <the record's keys>}``. Lines that are not
protocol messages (a library printing to the real stdout) decode to ``None`` and are skipped.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import ClassVar

from infralens.records import Record, record, spec
from infralens.reports import MutantsRecord, ScenarioStatus, as_object
from infralens.verify.trace.backend_name import BackendName
from infralens.verify.trace.probes import Probe, ProbeResult


class Event(StrEnum):
    """What a protocol line says happened (its ``event`` field); the runner's progress callback gets START and DONE."""

    READY = "ready"
    START = "start"
    DONE = "done"
    FINISHED = "finished"


@record
class ScenarioJob(Record):
    """One scenario for a worker to run, with the probes to watch."""

    name: str
    probes: tuple[Probe, ...]
    mutate: tuple[str, ...] = ()
    """Keys of the probes whose statements to mutate after the plain run (``verify --mutate``)."""


@record
class WorkerRequest(Record):
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "backend", BackendName(self.backend))  # a plain name ("auto") is taken too

    def encode(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    def decode(cls, text: str) -> WorkerRequest:
        request: WorkerRequest = cls.from_json(as_object(json.loads(text)))
        return request


@record
class Ready(Record):
    """The worker chose its device and imported what its scenarios need."""

    event: ClassVar[Event] = Event.READY
    device: str
    pid: int
    setup_seconds: float
    device_name: str | None = None


@record
class Started(Record):
    """A scenario is about to run."""

    event: ClassVar[Event] = Event.START
    scenario: str


@record
class ScenarioOutcome(Record):
    """A scenario ended (the ``done`` message, and the runner's record of it): how, how long, its facts, what the tracer saw."""

    event: ClassVar[Event] = Event.DONE
    scenario: str
    status: ScenarioStatus
    seconds: float
    error: str | None = None
    cpu_seconds: float | None = None
    """CPU time of the worker during the scenario (robust to other load on the machine)."""
    facts: dict[str, str] = spec(factory=dict)
    probes: dict[str, ProbeResult] = spec(factory=dict)
    mutants: dict[str, MutantsRecord] = spec(factory=dict)
    """Per probe key, what mutating its statement found (``verify --mutate`` only)."""


@record
class Finished(Record):
    """The worker is done: total seconds and the modules DiffSynth's full-package mode stubbed."""

    event: ClassVar[Event] = Event.FINISHED
    seconds: float
    stubbed: tuple[str, ...] = ()


Message = Ready | Started | ScenarioOutcome | Finished
_BY_EVENT: dict[str, type[Message]] = {kind.event.value: kind for kind in (Ready, Started, ScenarioOutcome, Finished)}


def encode(message: Message) -> str:
    """One protocol line (without the newline)."""
    return json.dumps({"event": message.event.value, **message.to_json()})


def decode(line: str) -> Message | None:
    """The message on *line*, or None when the line is not a protocol message."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return None
    event = data.get("event") if isinstance(data, dict) else None
    kind = _BY_EVENT.get(event) if isinstance(event, str) else None
    if kind is None:
        return None
    try:
        message: Message = kind.from_json(data)
    except (KeyError, TypeError, ValueError):  # an object that only looks like a message
        return None
    return message

"""The drift report (``infralens check --format json``, committed as ``reports/check.json``) as typed records.

Each record's ``to_json`` gives its part of the document in the order it is written;
``from_json`` reads a document the schema accepted. Floats are stored as written (the drift
check rounds scores before building the records).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from infralens.reports.json_values import JsonObject, as_float, as_int, as_list, as_object, as_objects, optional_str, strings
from infralens.reports.vocabulary import DriftKind, DriftSeverity, LockFindingKind, MatchQuality, TargetDriftKind

DRIFT_FORMAT = 1


def _lines(value: object) -> tuple[int, int]:
    first, last = (as_int(item) for item in as_list(value))
    return first, last


def _texts(value: object) -> tuple[str, ...]:
    return tuple(str(item) for item in as_list(value))


@dataclass(frozen=True)
class LockedPlace:
    """What was reviewed, from the lock (``old``); targets carry no scope and no text."""

    distribution: str
    version: str
    source: str
    module: str
    target: str
    lines: tuple[int, int]
    scope: str | None = None
    text: tuple[str, ...] | None = None

    def to_json(self) -> JsonObject:
        data: JsonObject = {"distribution": self.distribution, "version": self.version, "source": self.source, "module": self.module, "target": self.target}
        if self.scope is not None:
            data["scope"] = self.scope
        data["lines"] = list(self.lines)
        if self.text is not None:
            data["text"] = list(self.text)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> LockedPlace:
        scope, text = data.get("scope"), data.get("text")
        distribution, version, source, module, target = strings(data, "distribution", "version", "source", "module", "target")
        return cls(distribution, version, source, module, target, _lines(data["lines"]), optional_str(scope), None if text is None else _texts(text))


@dataclass(frozen=True)
class Place:
    """Where a statement is now (``new``), with the checked version when it is the step's match."""

    source: str
    module: str
    target: str
    scope: str
    lines: tuple[int, int]
    text: tuple[str, ...]
    version: str | None = None

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "source": self.source,
            "module": self.module,
            "target": self.target,
            "scope": self.scope,
            "lines": list(self.lines),
            "text": list(self.text),
        }
        if self.version is not None:
            data["version"] = self.version
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Place:
        source, module, target, scope = strings(data, "source", "module", "target", "scope")
        return cls(source, module, target, scope, _lines(data["lines"]), _texts(data["text"]), optional_str(data.get("version")))


@dataclass(frozen=True)
class Candidate:
    """A place the statement may have gone to, with its scores."""

    place: Place
    similarity: float
    context: float
    locality: float

    def to_json(self) -> JsonObject:
        return {**self.place.to_json(), "similarity": self.similarity, "context": self.context, "locality": self.locality}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Candidate:
        return cls(Place.from_json(data), as_float(data["similarity"]), as_float(data["context"]), as_float(data["locality"]))


@dataclass(frozen=True)
class Scores:
    """Why the check believes the match (``scores``)."""

    similarity: float
    context: float
    locality: float
    quality: MatchQuality

    def to_json(self) -> JsonObject:
        return {"similarity": self.similarity, "context": self.context, "locality": self.locality, "quality": self.quality.value}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Scores:
        return cls(as_float(data["similarity"]), as_float(data["context"]), as_float(data["locality"]), MatchQuality(data["quality"]))


@dataclass(frozen=True)
class DriftStep:
    """One locked step (``steps[step id]``)."""

    annotation: str
    file: str
    line: int
    kind: DriftKind
    severity: DriftSeverity
    layer: int
    message: str
    ambiguous: bool
    old: LockedPlace
    new: Place | None
    scores: Scores | None
    diff: tuple[str, ...] = ()
    candidates: tuple[Candidate, ...] = ()

    def to_json(self) -> JsonObject:
        return {
            "annotation": self.annotation,
            "file": self.file,
            "line": self.line,
            "kind": self.kind.value,
            "severity": self.severity.value,
            "layer": self.layer,
            "message": self.message,
            "ambiguous": self.ambiguous,
            "old": self.old.to_json(),
            "new": None if self.new is None else self.new.to_json(),
            "scores": None if self.scores is None else self.scores.to_json(),
            "diff": list(self.diff),
            "candidates": [candidate.to_json() for candidate in self.candidates],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> DriftStep:
        new, scores = data["new"], data["scores"]
        annotation, file, message = strings(data, "annotation", "file", "message")
        return cls(
            annotation=annotation,
            file=file,
            line=as_int(data["line"]),
            kind=DriftKind(data["kind"]),
            severity=DriftSeverity(data["severity"]),
            layer=as_int(data["layer"]),
            message=message,
            ambiguous=bool(data["ambiguous"]),
            old=LockedPlace.from_json(as_object(data["old"])),
            new=None if new is None else Place.from_json(as_object(new)),
            scores=None if scores is None else Scores.from_json(as_object(scores)),
            diff=_texts(data["diff"]),
            candidates=tuple(Candidate.from_json(item) for item in as_objects(data["candidates"])),
        )


@dataclass(frozen=True)
class TargetPlace:
    """Where an annotation's target is now."""

    source: str
    module: str
    target: str
    lines: tuple[int, int]

    def to_json(self) -> JsonObject:
        return {"source": self.source, "module": self.module, "target": self.target, "lines": list(self.lines)}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> TargetPlace:
        return cls(str(data["source"]), str(data["module"]), str(data["target"]), _lines(data["lines"]))


@dataclass(frozen=True)
class DriftTarget:
    """One annotation's target (``targets[annotation id]``)."""

    file: str
    line: int
    kind: TargetDriftKind
    severity: DriftSeverity
    message: str
    similarity: float
    old: LockedPlace
    new: TargetPlace | None

    def to_json(self) -> JsonObject:
        return {
            "file": self.file,
            "line": self.line,
            "kind": self.kind.value,
            "severity": self.severity.value,
            "message": self.message,
            "similarity": self.similarity,
            "old": self.old.to_json(),
            "new": None if self.new is None else self.new.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> DriftTarget:
        new = data["new"]
        return cls(
            file=str(data["file"]),
            line=as_int(data["line"]),
            kind=TargetDriftKind(data["kind"]),
            severity=DriftSeverity(data["severity"]),
            message=str(data["message"]),
            similarity=as_float(data["similarity"]),
            old=LockedPlace.from_json(as_object(data["old"])),
            new=None if new is None else TargetPlace.from_json(as_object(new)),
        )


@dataclass(frozen=True)
class LockFindingRecord:
    """Lock bookkeeping: an annotation or step the lock does not match."""

    kind: LockFindingKind
    id: str
    file: str
    line: int
    message: str

    def to_json(self) -> JsonObject:
        return {"kind": self.kind.value, "id": self.id, "file": self.file, "line": self.line, "message": self.message}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> LockFindingRecord:
        return cls(LockFindingKind(data["kind"]), str(data["id"]), str(data["file"]), as_int(data["line"]), str(data["message"]))


@dataclass(frozen=True)
class CheckedTree:
    """A source tree the steps were checked against."""

    distribution: str
    version: str
    origin: str
    """Installed folder, wheel file or directory."""

    def to_json(self) -> JsonObject:
        return {"distribution": self.distribution, "version": self.version, "origin": self.origin}


@dataclass(frozen=True)
class DriftReport:
    """A whole drift report: what was checked, the counts, every step, target and lock finding."""

    created: str
    infralens: str
    lock: str
    """The lock file, relative to the project root."""
    checked: tuple[CheckedTree, ...]
    clean: bool
    exit_code: int
    step_counts: dict[DriftKind, int]
    target_counts: dict[TargetDriftKind, int]
    steps: dict[str, DriftStep]
    targets: dict[str, DriftTarget]
    lock_findings: tuple[LockFindingRecord, ...] = ()
    format: int = DRIFT_FORMAT

    def to_json(self) -> JsonObject:
        return {
            "format": self.format,
            "created": self.created,
            "infralens": self.infralens,
            "lock": self.lock,
            "checked": [tree.to_json() for tree in self.checked],
            "clean": self.clean,
            "exit_code": self.exit_code,
            "summary": {
                "steps": {kind.value: count for kind, count in self.step_counts.items()},
                "targets": {kind.value: count for kind, count in self.target_counts.items()},
                "lock": len(self.lock_findings),
            },
            "steps": {step_id: step.to_json() for step_id, step in self.steps.items()},
            "targets": {annotation_id: target.to_json() for annotation_id, target in self.targets.items()},
            "lock_findings": [finding.to_json() for finding in self.lock_findings],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> DriftReport:
        summary = as_object(data["summary"])
        return cls(
            format=as_int(data["format"]),
            created=str(data["created"]),
            infralens=str(data["infralens"]),
            lock=str(data["lock"]),
            checked=tuple(CheckedTree(str(t["distribution"]), str(t["version"]), str(t["origin"])) for t in as_objects(data["checked"])),
            clean=bool(data["clean"]),
            exit_code=as_int(data["exit_code"]),
            step_counts={DriftKind(kind): as_int(count) for kind, count in as_object(summary["steps"]).items()},
            target_counts={TargetDriftKind(kind): as_int(count) for kind, count in as_object(summary["targets"]).items()},
            steps={step_id: DriftStep.from_json(as_object(entry)) for step_id, entry in as_object(data["steps"]).items()},
            targets={annotation_id: DriftTarget.from_json(as_object(entry)) for annotation_id, entry in as_object(data["targets"]).items()},
            lock_findings=tuple(LockFindingRecord.from_json(item) for item in as_objects(data["lock_findings"])),
        )

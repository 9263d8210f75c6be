"""The release-history report (``infralens history --format json``, committed as ``reports/history.json``).

For each distribution: the releases read (oldest first) and the ones that could not be. For each
annotation and each of its steps: one :class:`~infralens.reports.vocabulary.ReleaseState` per release
(aligned with its distribution's ``releases``), the span of releases where the step holds as reviewed,
the release before that span, and every difference, with the releases it applies to grouped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from infralens.reports.json_values import JsonObject, as_int, as_list, as_object, as_objects, optional_str, strings
from infralens.reports.vocabulary import ReleaseState

HISTORY_FORMAT = 1


def _strs(value: object) -> tuple[str, ...]:
    return tuple(str(item) for item in as_list(value))


@dataclass(frozen=True)
class ReleaseSpan:
    """The releases of one distribution the history covers."""

    distribution: str
    baseline: str
    """The release the lock was reviewed against."""
    releases: tuple[str, ...]
    """Releases read, oldest first; every ``states`` list of this distribution aligns with it."""
    missing: tuple[str, ...] = ()
    """Releases in the range that could not be read (offline without a cached wheel)."""
    list_origin: str = "index"
    """Where the list of releases came from (:class:`~infralens.source.ReleaseListOrigin`)."""

    def to_json(self) -> JsonObject:
        return {
            "distribution": self.distribution,
            "baseline": self.baseline,
            "releases": list(self.releases),
            "missing": list(self.missing),
            "list_origin": self.list_origin,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ReleaseSpan:
        distribution, baseline, origin = strings(data, "distribution", "baseline", "list_origin")
        return cls(distribution, baseline, _strs(data["releases"]), _strs(data["missing"]), origin)


@dataclass(frozen=True)
class Difference:
    """One way a step differs from its review, and the releases where it differs so."""

    releases: tuple[str, ...]
    state: ReleaseState
    where: str
    """``relpath:line qualname`` of the statement in those releases ("" when it is not there)."""
    message: str
    diff: tuple[str, ...] = ()
    """Unified diff from the reviewed text (only for *changed*)."""

    def to_json(self) -> JsonObject:
        return {"releases": list(self.releases), "state": self.state.value, "where": self.where, "message": self.message, "diff": list(self.diff)}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Difference:
        where, message = strings(data, "where", "message")
        return cls(_strs(data["releases"]), ReleaseState(data["state"]), where, message, _strs(data["diff"]))


@dataclass(frozen=True)
class StepHistory:
    """One step across the releases of its distribution."""

    id: str
    line: int
    """Line of the step in its annotation file."""
    states: tuple[ReleaseState, ...]
    holds_from: str | None
    """First release of the span where the step holds as reviewed (the span holding the baseline, else the last one)."""
    holds_to: str | None
    before: str | None
    """The release right before that span, where the step last differed."""
    differences: tuple[Difference, ...]

    def state_in(self, releases: tuple[str, ...], release: str) -> ReleaseState | None:
        """The state in ``release`` (None when the history did not read it)."""
        return self.states[releases.index(release)] if release in releases else None

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "line": self.line,
            "states": [s.value for s in self.states],
            "holds": None if self.holds_from is None else {"from": self.holds_from, "to": self.holds_to},
            "before": self.before,
            "differences": [d.to_json() for d in self.differences],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> StepHistory:
        holds = data.get("holds")
        span = as_object(holds) if holds is not None else None
        return cls(
            str(data["id"]),
            as_int(data["line"]),
            tuple(ReleaseState(s) for s in as_list(data["states"])),
            optional_str(span.get("from")) if span else None,
            optional_str(span.get("to")) if span else None,
            optional_str(data.get("before")),
            tuple(Difference.from_json(d) for d in as_objects(data["differences"])),
        )


@dataclass(frozen=True)
class AnnotationHistory:
    """One annotation: its target, and the history of each of its steps."""

    id: str
    distribution: str
    target: str
    """Dotted ``module.qualname`` as reviewed."""
    path: str
    """Annotation file, relative to the project root."""
    states: tuple[ReleaseState, ...]
    """Per release, the state of the annotation as a whole (:func:`~infralens.reports.vocabulary.worst_state` of its steps)."""
    steps: tuple[StepHistory, ...]

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "distribution": self.distribution,
            "target": self.target,
            "path": self.path,
            "states": [s.value for s in self.states],
            "steps": [s.to_json() for s in self.steps],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> AnnotationHistory:
        ident, distribution, target, path = strings(data, "id", "distribution", "target", "path")
        states = tuple(ReleaseState(s) for s in as_list(data["states"]))
        return cls(ident, distribution, target, path, states, tuple(StepHistory.from_json(s) for s in as_objects(data["steps"])))


@dataclass(frozen=True)
class HistoryReport:
    """The whole history: releases per distribution and every annotation across them."""

    generated_by: str
    lock_sha256: str
    """Hash of the lock the states are relative to."""
    spans: tuple[ReleaseSpan, ...]
    annotations: tuple[AnnotationHistory, ...]
    history: int = HISTORY_FORMAT

    def span(self, distribution: str) -> ReleaseSpan | None:
        return next((s for s in self.spans if s.distribution == distribution), None)

    def to_json(self) -> JsonObject:
        return {
            "history": self.history,
            "generated_by": self.generated_by,
            "lock_sha256": self.lock_sha256,
            "distributions": [s.to_json() for s in self.spans],
            "annotations": [a.to_json() for a in self.annotations],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> HistoryReport:
        generated_by, lock_sha256 = strings(data, "generated_by", "lock_sha256")
        spans = tuple(ReleaseSpan.from_json(s) for s in as_objects(data["distributions"]))
        annotations = tuple(AnnotationHistory.from_json(a) for a in as_objects(data["annotations"]))
        return cls(generated_by, lock_sha256, spans, annotations, as_int(data["history"]))

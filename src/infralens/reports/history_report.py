"""The release-history report (``infralens history --format json``, committed as ``reports/history.json``).

For each distribution: the releases read (oldest first) and the ones that could not be. For each
annotation and each of its steps: one :class:`~infralens.reports.vocabulary.ReleaseState` per release
(aligned with its distribution's ``releases``), the span of releases where the step holds as reviewed,
the release before that span, and every difference, with the releases it applies to grouped.
"""

from __future__ import annotations

from typing import ClassVar

from infralens.bounds import VERSION_PATTERN  # every version field of a report follows it
from infralens.records import Record, record, spec
from infralens.reports.vocabulary import ReleaseState

HISTORY_FORMAT = 1


@record
class ReleaseSpan(Record):
    """The releases of one distribution the history covers."""

    json_name: ClassVar[str] = "historySpan"
    distribution: str
    baseline: str = spec(pattern=VERSION_PATTERN, doc="The release the lock was reviewed against.")
    releases: tuple[str, ...] = spec(item_pattern=VERSION_PATTERN, doc="Releases read, oldest first; every states list of this distribution aligns with it.")
    missing: tuple[str, ...] = spec(default=(), doc="Releases in the range that could not be read (offline without a cached wheel).")
    list_origin: str = spec(default="index", choices=("index", "cached list", "cached wheels"), doc="Where the list of releases came from.")


@record
class Difference(Record):
    """One way a step differs from its review, and the releases where it differs so."""

    json_name: ClassVar[str] = "historyDifference"
    releases: tuple[str, ...] = spec(min_items=1, item_pattern=VERSION_PATTERN)
    state: ReleaseState
    where: str = spec(doc="relpath:line qualname of the statement in those releases (empty when it is not there).")
    message: str
    diff: tuple[str, ...] = spec(default=(), doc="Unified diff from the reviewed text (only for changed).")


@record
class StepHistory(Record):
    """One step across the releases of its distribution."""

    json_name: ClassVar[str] = "historyStep"
    id: str
    line: int = spec(minimum=0, doc="Line of the step in its annotation file.")
    states: tuple[ReleaseState, ...]
    holds_from: str | None = spec(key="holds.from", null_group=True)
    """First release of the span where the step holds as reviewed (the span holding the baseline, else the last one)."""
    holds_to: str | None = spec(key="holds.to", null_group=True)
    before: str | None = spec(doc="The release right before the span where the step holds, where it last differed.")
    differences: tuple[Difference, ...]

    def state_in(self, releases: tuple[str, ...], release: str) -> ReleaseState | None:
        """The state in ``release`` (None when the history did not read it)."""
        return self.states[releases.index(release)] if release in releases else None


@record
class AnnotationHistory(Record):
    """One annotation: its target, and the history of each of its steps."""

    json_name: ClassVar[str] = "historyAnnotation"
    id: str
    distribution: str
    target: str = spec(doc="Dotted module.qualname as reviewed.")
    path: str = spec(doc="Annotation file, relative to the project root.")
    states: tuple[ReleaseState, ...] = spec(doc="Per release, the state of the annotation as a whole (the worst state of its steps).")
    steps: tuple[StepHistory, ...]


@record
class HistoryReport(Record):
    """The whole history (infralens history --format json, committed as reports/history.json): releases per distribution and every annotation across them."""

    json_name: ClassVar[str] = "historyReport"
    json_order: ClassVar[tuple[str, ...]] = ("history",)
    generated_by: str
    lock_sha256: str = spec(pattern="^[0-9a-f]{64}$", doc="Hash of the lock the states are relative to.")
    spans: tuple[ReleaseSpan, ...] = spec(key="distributions")
    annotations: tuple[AnnotationHistory, ...]
    history: int = spec(default=HISTORY_FORMAT, const=HISTORY_FORMAT)

    def span(self, distribution: str) -> ReleaseSpan | None:
        return next((s for s in self.spans if s.distribution == distribution), None)

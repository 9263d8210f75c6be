"""The drift report (``infralens check --format json``, committed as ``reports/check.json``) as typed records.

Each record is its own definition (:mod:`infralens.records`): ``to_json`` gives its part of the document in the
order it is written, ``from_json`` reads a document the schema accepted, and the schema is generated
from the same fields. Floats are stored as written (the drift check rounds scores before building the records).
"""

from __future__ import annotations

from typing import Any, ClassVar

from infralens.bounds import VERSION_PATTERN  # every version field of a report follows it
from infralens.records import JsonObject, Record, record, spec
from infralens.reports.verify_report import CREATED_PATTERN, STEP_ID_PATTERN
from infralens.reports.vocabulary import DriftKind, DriftSeverity, LockFindingKind, MatchQuality, TargetDriftKind

DRIFT_FORMAT = 1


LINES_DOC = "First and last line (a hint: lines move)."


@record
class LockedPlace(Record):
    """What was reviewed, from the lock (``old``); targets carry no scope and no text."""

    json_name: ClassVar[str] = "old"
    json_order: ClassVar[tuple[str, ...]] = ("distribution", "version", "source", "module", "target", "scope", "lines", "text")
    distribution: str
    version: str = spec(pattern=VERSION_PATTERN)
    source: str = spec(doc="File path inside the distribution.")
    module: str
    target: str = spec(doc="Qualname of the annotation's target.")
    lines: tuple[int, int] = spec(item_minimum=1, doc=LINES_DOC)
    scope: str | None = spec(default=None, omit="none")
    text: tuple[str, ...] | None = spec(default=None, omit="none", min_items=1, doc="Normalised statement text(s); several for a block step.")


@record
class Place(Record):
    """Where a statement is now (``new``), with the checked version when it is the step's match.

    The drift check's own value for a place, in the lock's entries and in its results alike (it leaves
    ``version`` None; the report's record of a match carries the checked release).
    """

    json_name: ClassVar[str] = "place"
    relpath: str = spec(key="source")
    """Path of the file inside its distribution (``diffusers/schedulers/scheduling_ddim.py``)."""
    module: str
    """Dotted module name of that file."""
    target: str = spec(doc="Qualname of the enclosing function now.")
    """The annotation's target, or the function found around a statement."""
    scope: str
    """Python ``__qualname__`` of the statement's innermost scope."""
    lines: tuple[int, int] = spec(item_minimum=1, doc=LINES_DOC)
    """First and last line (1-based, inclusive)."""
    texts: tuple[str, ...] = spec(key="text")
    """Normalised texts: one statement, or every statement of a block (empty for a target)."""
    version: str | None = spec(default=None, omit="none", pattern=VERSION_PATTERN)

    def describe(self) -> str:
        """``relpath:line target`` for messages."""
        return f"{self.relpath}:{self.lines[0]} {self.target or '<module>'}"


@record
class Candidate(Record):
    """A place the statement may have gone to, with its scores."""

    json_name: ClassVar[str] = "candidate"
    json_flatten: ClassVar[tuple[str, ...]] = ("place",)
    place: Place
    similarity: float = spec(minimum=0, maximum=1)
    context: float = spec(minimum=0, maximum=1)
    locality: float = spec(minimum=0, maximum=1)


@record
class Scores(Record):
    """Why the check believes the match (``scores``).

    The drift check's own scores of a match (unrounded there; the report rounds them to four places).
    """

    json_name: ClassVar[str] = "scores"
    similarity: float = spec(minimum=0, maximum=1, doc="difflib ratio of the normalised texts (1 = identical).")
    context: float = spec(minimum=0, maximum=1, doc="Share of the locked neighbouring statements found beside it.")
    locality: float = spec(minimum=0, maximum=1, doc="1 same target, 0.9 same qualname elsewhere, else function similarity.")
    quality: MatchQuality


@record
class DriftStep(Record):
    """One locked step (``steps[step id]``)."""

    json_name: ClassVar[str] = "step"
    annotation: str
    file: str = spec(doc="Annotation file, relative to the project root.")
    line: int = spec(minimum=1, doc="Line of the step in the annotation file.")
    kind: DriftKind
    severity: DriftSeverity
    message: str
    ambiguous: bool
    old: LockedPlace
    new: Place | None
    scores: Scores | None
    diff: tuple[str, ...] = spec(default=(), doc="Unified diff of the normalised texts (changed steps).")
    candidates: tuple[Candidate, ...] = ()
    rule: str = spec(
        default="", omit="empty", doc="The named rule of the drift matcher that decided the kind (infralens check --explain STEP shows its evidence)."
    )
    trace: tuple[str, ...] = spec(
        default=(), omit="empty", doc="Every rule that fired, vetoed or removed a candidate on the way to the verdict, in order (rule action: evidence)."
    )


@record
class TargetPlace(Record):
    """Where an annotation's target is now."""

    json_name: ClassVar[str] = "targetPlace"
    source: str
    module: str
    target: str
    lines: tuple[int, int] = spec(item_minimum=1, doc=LINES_DOC)


@record
class DriftTarget(Record):
    """One annotation's target (``targets[annotation id]``)."""

    json_name: ClassVar[str] = "target"
    file: str
    line: int = spec(minimum=1)
    kind: TargetDriftKind
    severity: DriftSeverity
    message: str
    similarity: float = spec(minimum=0, maximum=1, doc="Overlap of statement fingerprints between the reviewed and the current body.")
    old: LockedPlace
    new: TargetPlace | None
    rule: str = spec(default="", omit="empty", doc="The named rule that decided what became of the target.")


@record
class LockFindingRecord(Record):
    """Lock bookkeeping: an annotation or step the lock does not match."""

    json_name: ClassVar[str] = "lockFinding"
    kind: LockFindingKind
    id: str
    file: str
    line: int = spec(minimum=1)
    message: str


@record
class CheckedTree(Record):
    """A source tree the steps were checked against.

    The drift check's own value for a tree it read.
    """

    json_name: ClassVar[str] = "checkedTree"
    distribution: str
    version: str = spec(pattern=VERSION_PATTERN)
    origin: str = spec(doc="Installed folder, wheel file or directory.")


@record
class DriftReport(Record):
    """Every locked step classified against the sources that were checked: what was checked, the counts, every step, target and lock finding."""

    json_name: ClassVar[str] = "checkReport"
    json_title: ClassVar[str | None] = "Drift report (infralens check --format json; reports/check.json)"
    json_order: ClassVar[tuple[str, ...]] = ("format",)
    json_derived: ClassVar[dict[str, tuple[Any, JsonObject]]] = {
        "summary.lock": (lambda report: len(report.lock_findings), {"type": "integer", "minimum": 0}),
    }
    created: str = spec(pattern=CREATED_PATTERN)
    infralens: str
    lock: str = spec(doc="The lock file that was checked, relative to the project root.")
    checked: tuple[CheckedTree, ...] = spec(doc="The source trees the steps were checked against.")
    clean: bool = spec(doc="True when nothing drifted (exit code 0).")
    exit_code: int = spec(choices=(0, 1))
    step_counts: dict[DriftKind, int] = spec(key="summary.steps", item_minimum=0, required_keys=("unchanged", "moved", "changed", "deleted"))
    target_counts: dict[TargetDriftKind, int] = spec(
        key="summary.targets", item_minimum=0, required_keys=("unchanged", "body-changed", "moved", "renamed", "deleted"), open_keys="^[a-z-]+$"
    )
    steps: dict[str, DriftStep] = spec(keys_pattern=STEP_ID_PATTERN, doc="Keyed by step id (annotation id/step key).")
    targets: dict[str, DriftTarget] = spec(doc="Keyed by annotation id.")
    lock_findings: tuple[LockFindingRecord, ...] = ()
    format: int = spec(default=DRIFT_FORMAT, const=DRIFT_FORMAT, doc="Version of this report layout.")

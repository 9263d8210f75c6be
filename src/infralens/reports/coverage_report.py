"""The coverage report (``infralens coverage SCENARIO --json``, committed as ``reports/coverage-<scenario>.json``) as typed records.

A scenario's call tree: the upstream functions that ran (each with its call count and, when annotated, how
much of it the annotations cover) and the calling-context tree that indexes them. The recorder
(:mod:`infralens.maintainer.coverage`) builds these records directly; the JSON and its part of the
schema come from the same fields (:mod:`infralens.records`), and :func:`load_coverage_report` reads a file back
through that schema like every other report.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from infralens.records import Record, record, spec
from infralens.reports.vocabulary import ScenarioStatus

COVERAGE_FORMAT = 1
MAX_COVERAGE_DEPTH = 160
"""Deepest nesting read: a call tree nests two levels per call, so 80 calls deep (the committed maps nest at most 15
calls deep); within it the schema's check of a tree cannot run out of stack, even under a deep caller such as Sphinx."""


@record
class FunctionRef(Record):
    """One upstream function as Python ran it."""

    json_name: ClassVar[str] = "coverageFunctionRef"
    distribution: str = spec(key="dist")
    file: str = spec(doc="Path inside the distribution, e.g. diffusers/schedulers/scheduling_ddim.py.")
    qualname: str = spec(doc="co_qualname (with <locals> for nested functions).")
    line: int = spec(minimum=0, doc="co_firstlineno: the first decorator's line, or the def line.")


@record
class AnnotationMark(Record):
    """How much of a function the annotations cover."""

    json_name: ClassVar[str] = "coverageMark"
    annotation_ids: tuple[str, ...] = spec(key="annotations", min_items=1)
    annotated_statements: int = spec(key="annotated", minimum=0)
    statements: int = spec(minimum=0)


@record
class FunctionInfo(Record):
    """A function that ran, its total call count, and its annotation mark (None: not annotated)."""

    json_name: ClassVar[str] = "coverageFunction"
    json_flatten: ClassVar[tuple[str, ...]] = ("ref", "mark")
    ref: FunctionRef
    calls: int = spec(minimum=0)
    mark: AnnotationMark | None = None


@record
class CallNode(Record):
    """A function in its calling context: called ``calls`` times from its parent node."""

    json_name: ClassVar[str] = "coverageNode"
    function: int = spec(key="f", minimum=0, doc="Index into functions.")
    calls: int = spec(minimum=0)
    children: tuple[CallNode, ...] = spec(default=(), omit="empty")

    def total_calls(self) -> int:
        """Calls of this node and of everything below it."""
        return self.calls + sum(child.total_calls() for child in self.children)


@record
class CoverageMap(Record):
    """The call tree of one scenario run."""

    json_name: ClassVar[str] = "coverageReport"
    json_title: ClassVar[str | None] = "Coverage report (infralens coverage SCENARIO --json; reports/coverage-<scenario>.json)"
    json_order: ClassVar[tuple[str, ...]] = ("format", "scenario", "status", "error", "seconds", "device", "created")
    scenario: str
    status: ScenarioStatus = spec(doc="passed, failed (its own checks) or error (it raised).")
    error: str | None
    seconds: float = spec(minimum=0)
    device: str
    versions: dict[str, str]
    functions: tuple[FunctionInfo, ...]
    roots: tuple[CallNode, ...] = spec(key="tree")
    created: str = spec(default="", required=False)
    format: int = spec(default=COVERAGE_FORMAT, const=COVERAGE_FORMAT, doc="Version of this report layout.")

    @property
    def annotated(self) -> tuple[FunctionInfo, ...]:
        return tuple(f for f in self.functions if f.mark is not None)

    def after_load(self) -> CoverageMap:
        """A tree node must name a function of the table (the schema cannot say so)."""
        count = len(self.functions)
        pending = list(self.roots)
        while pending:
            node = pending.pop()
            if not 0 <= node.function < count:
                raise IndexError(f"tree refers to function {node.function}, but there are {count}")
            pending.extend(node.children)
        return self


def coverage_from_json(data: Mapping[str, Any]) -> CoverageMap:
    """The record of a document the schema accepted (``IndexError`` when the tree names a missing function)."""
    coverage: CoverageMap = CoverageMap.from_json(data)
    return coverage


def load_coverage_report(path: str | Path) -> CoverageMap:
    """Read, validate and type a coverage report; every problem is a :class:`~.load.ReportError` naming the file."""
    from infralens.reports.load import read_report_text

    path = Path(path)
    return parse_coverage_report(read_report_text(path), path)


def parse_coverage_report(text: str, path: Path) -> CoverageMap:
    """The coverage report in *text* (read from *path*), validated against its part of the schema."""
    from infralens.reports.load import ReportError, parse_report_json, validate_report

    data = parse_report_json(text, path, max_depth=MAX_COVERAGE_DEPTH)
    try:
        problem = validate_report(data, CoverageMap.json_name)
    except RecursionError:
        problem = "its call tree nests too deeply to check"
    if problem is None and isinstance(data, dict):
        try:
            return coverage_from_json(data)
        except (KeyError, TypeError, ValueError, IndexError, RecursionError) as error:
            problem = f"{type(error).__name__}: {error}"
    raise ReportError(path, f"not a coverage file of format {COVERAGE_FORMAT} ({problem or 'not a JSON object'})")

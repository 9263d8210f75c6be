"""Which upstream functions a scenario runs: a call tree with counts, annotated functions marked.

:class:`CallRecorder` is a light ``sys.settrace`` hook (the verifier's tracer watches only annotated
statements; this one sees every call into an upstream package). For each new frame of an upstream
function it finds the nearest upstream caller on the stack — through torch's ``Module.__call__``
and other non-upstream frames — and counts the call under that caller, building a calling-context
tree: a function called from two places appears under both. Only ``call`` events of upstream code
cost anything: the global hook returns at once for other code, and upstream frames keep their
local hook for ``return`` events only (line events are switched off).

What is left out, on purpose: code run while a module is being imported (``<module>`` frames and
everything below them: registrations, availability checks), and comprehension/lambda frames
(``<listcomp>``, ``<genexpr>``, ``<lambda>``), whose calls are attributed to the enclosing function.
A generator counts one call per resumption.

The recording becomes the coverage report's records (:mod:`infralens.reports.coverage_report`), whose fields give
its JSON and its part of the reports' schema.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType, TracebackType
from typing import TYPE_CHECKING

from infralens.reports import AnnotationMark, CallNode, CoverageMap, FunctionInfo, FunctionRef, ScenarioStatus

if TYPE_CHECKING:
    from _typeshed import TraceFunction

    from infralens.annotations import Annotation
    from infralens.resolve import Resolver
    from infralens.scenarios import ScenarioSpec
    from infralens.source import Statement

_FUNCTION_FLAGS = 0x0001  # CO_OPTIMIZED: functions, not module or class bodies


# ---------------------------------------------------------------------------
# Recording
# ---------------------------------------------------------------------------


@dataclass
class _Node:
    calls: int = 0
    children: dict[FunctionRef, _Node] = field(default_factory=dict)


class CallRecorder:
    """Record the calling-context tree of upstream functions while the ``with`` block runs.

    Parameters:
        roots: distribution name → the directories of its top-level packages
            (e.g. ``{"diffusers": [Path(".../site-packages/diffusers")]}``).
    """

    def __init__(self, roots: dict[str, list[Path]]) -> None:
        self._prefixes = [(str(path.resolve()) + "/", str(path.resolve().parent) + "/", dist) for dist, paths in roots.items() for path in paths]
        self._codes: dict[CodeType, FunctionRef | None] = {}
        self._live: dict[int, _Node] = {}
        self.root = _Node()
        self._previous: TraceFunction | None = None
        self._boundary: FrameType | None = None

    def __enter__(self) -> CallRecorder:
        self._boundary = sys._getframe(1)  # frames above the 'with' are not part of the run
        self._previous = sys.gettrace()
        threading.settrace(self._on_call)
        sys.settrace(self._on_call)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None) -> None:
        sys.settrace(self._previous)
        threading.settrace(self._previous)
        self._boundary = None

    def _classify(self, code: CodeType) -> FunctionRef | None:
        filename = code.co_filename
        for prefix, parent, dist in self._prefixes:
            if filename.startswith(prefix):
                return FunctionRef(dist, filename[len(parent) :], code.co_qualname, code.co_firstlineno)
        return None

    def _on_call(self, frame: FrameType, event: str, arg: object):
        code = frame.f_code
        try:
            ref = self._codes[code]
        except KeyError:
            ref = self._codes[code] = self._classify(code)
        if ref is None or not code.co_flags & _FUNCTION_FLAGS or code.co_name.startswith("<"):
            return None
        parent = self._parent_of(frame)
        if parent is None:
            return None  # runs as part of an import
        node = parent.children.get(ref)
        if node is None:
            node = parent.children[ref] = _Node()
        node.calls += 1
        self._live[id(frame)] = node
        frame.f_trace_lines = False
        return self._on_event

    def _parent_of(self, frame: FrameType) -> _Node | None:
        caller = frame.f_back
        while caller is not None and caller is not self._boundary:
            node = self._live.get(id(caller))
            if node is not None:
                return node
            if caller.f_code.co_name == "<module>":
                return None
            caller = caller.f_back
        return self.root

    def _on_event(self, frame: FrameType, event: str, arg: object):
        if event == "return":
            self._live.pop(id(frame), None)
        return self._on_event


def freeze(recorder_root: _Node) -> tuple[tuple[FunctionRef, ...], tuple[CallNode, ...], dict[FunctionRef, int]]:
    """The recorded tree as frozen nodes plus the function table (first-seen order) and call totals."""
    order: dict[FunctionRef, int] = {}
    totals: dict[FunctionRef, int] = {}

    def visit(ref: FunctionRef, node: _Node) -> CallNode:
        index = order.setdefault(ref, len(order))
        totals[ref] = totals.get(ref, 0) + node.calls
        return CallNode(index, node.calls, tuple(visit(child_ref, child) for child_ref, child in node.children.items()))

    roots = tuple(visit(ref, node) for ref, node in recorder_root.children.items())
    return tuple(order), roots, totals


# ---------------------------------------------------------------------------
# Annotation marks
# ---------------------------------------------------------------------------


def annotation_marks(resolver: Resolver, annotations: Iterable[Annotation]) -> dict[tuple[str, str, int], AnnotationMark]:
    """``(distribution, file, first line)`` of each annotated function → its mark.

    Statements counted are those inside the definition except its own ``def`` header and
    decorators; annotated ones are the union of what the annotations' steps select.
    """
    from infralens.source import StatementKind

    selected: dict[tuple[str, str, int], set[Statement]] = {}
    ids: dict[tuple[str, str, int], list[str]] = {}
    totals: dict[tuple[str, str, int], int] = {}
    for annotation in annotations:
        resolved, _problems = resolver.resolve_annotation(annotation)
        if resolved is None:
            continue
        definition = resolved.target.definition
        key = (annotation.source, resolved.target.source.relpath, definition.start_line)
        own = [
            s
            for s in resolver.index(resolved.target.source).statements_within(definition.start_line, definition.end_line)
            if s.kind is not StatementKind.DECORATOR and s.start_line != definition.def_line
        ]
        totals[key] = len(own)
        ids.setdefault(key, []).append(annotation.id)
        chosen = selected.setdefault(key, set())
        chosen.update(s for step in resolved.steps for s in step.statements if s in own)
    return {key: AnnotationMark(tuple(sorted(ids[key])), len(selected[key]), totals[key]) for key in totals}


def build_map(
    recorder: CallRecorder,
    marks: dict[tuple[str, str, int], AnnotationMark],
    *,
    scenario: str,
    status: ScenarioStatus,
    error: str | None,
    seconds: float,
    device: str,
    versions: dict[str, str],
) -> CoverageMap:
    """Combine a finished recording with annotation marks and how the run went."""
    refs, roots, totals = freeze(recorder.root)
    functions = tuple(FunctionInfo(ref, totals[ref], marks.get((ref.distribution, ref.file, ref.line))) for ref in refs)
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return CoverageMap(scenario, status, error, seconds, device, versions, functions, roots, created)


# ---------------------------------------------------------------------------
# Running a registered scenario
# ---------------------------------------------------------------------------


def upstream_roots(resolver: Resolver, distributions: tuple[str, ...]) -> dict[str, list[Path]]:
    """Package directories of the installed (or ``--source``) distributions; missing ones and wheels are skipped."""
    from infralens.errors import InfralensError
    from infralens.source import DirectoryTree

    roots: dict[str, list[Path]] = {}
    for dist in distributions:
        try:
            tree = resolver.tree(dist)
        except InfralensError:
            continue
        if isinstance(tree, DirectoryTree):
            roots[dist] = [tree.root / package for package in tree.packages]
    return roots


def run_scenario_coverage(
    spec: ScenarioSpec, resolver: Resolver, annotations: Iterable[Annotation], *, distributions: tuple[str, ...], device: str = "cpu"
) -> CoverageMap:
    """Run the project's scenario *spec* (through :func:`infralens.verify.run_scenario`) under a :class:`CallRecorder`
    that watches the project's *distributions* (``[tool.infralens] distributions``)."""
    from infralens.errors import InfralensError
    from infralens.tiny import pick_device
    from infralens.verify import ScenarioContext, run_scenario

    name = spec.name
    try:
        device = pick_device(device)
    except ValueError as error:
        raise InfralensError(str(error)) from error
    recorder = CallRecorder(upstream_roots(resolver, distributions))
    run = run_scenario(spec.load(), ScenarioContext(device), recorder)
    failure = run.failure
    problem = None if failure is None else str(failure) if run.status is ScenarioStatus.FAILED else f"{type(failure).__name__}: {failure}"
    marks = annotation_marks(resolver, annotations)
    return build_map(
        recorder,
        marks,
        scenario=name,
        status=run.status,
        error=problem,
        seconds=round(run.seconds, 3),
        device=device,
        versions=_versions(resolver, distributions),
    )


def _versions(resolver: Resolver, distributions: tuple[str, ...]) -> dict[str, str]:
    import platform

    from infralens import __version__

    versions = {"python": platform.python_version(), "infralens": __version__}
    torch = sys.modules.get("torch")
    if torch is not None:
        versions["torch"] = torch.__version__
    for dist in distributions:
        try:
            versions[dist] = resolver.tree(dist).version
        except Exception:  # not installed: leave it out
            continue
    return versions

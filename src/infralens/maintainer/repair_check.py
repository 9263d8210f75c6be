"""Before ``infralens fix`` writes anything: does every edited file read back exactly as intended?

Three checks on the edited text, all in memory, each refusing with a position in the user's file:
the YAML parses; it reads back as the intended data — every annotation of the file, every key of every
step, not only the steps that were meant to change (so an edit that strayed into a sibling is caught);
and it loads with no new error, each re-anchored step resolving to the statement drift found.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml

from infralens.annotations import Annotation, load_text
from infralens.errors import InfralensError, ResolutionError, Severity
from infralens.maintainer.repair_yaml import LOADER, YamlFile, line_of
from infralens.resolve import Resolver

Path_ = tuple[str | int, ...]


def check_edited(doc: YamlFile, edited: str) -> tuple[Annotation, ...]:
    """The annotations ``edited`` loads as, once it is shown to be ``doc``'s intended data; raises otherwise."""
    try:
        got = yaml.load(edited, Loader=LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = doc.old_line(edited, mark.line + 1) if mark else 1
        raise InfralensError(
            f"{doc.display}:{line}: fix's edit here would not be valid YAML ({error.problem}); nothing was written — make this edit by hand"
        ) from None
    if got != doc.data:
        path = first_difference(doc.data, got)
        raise InfralensError(
            f"{_where(doc, path)}: the edited file would not read back as intended ({_describe(path)} would differ); "
            "nothing was written — make this edit by hand, or report the file's layout to InfraLens"
        )
    before = {(d.code, d.message) for d in load_text(doc.text, doc.display).diagnostics} if not doc.created else set()
    loaded = load_text(edited, doc.display)
    for diagnostic in loaded.diagnostics:
        if diagnostic.severity is Severity.ERROR and diagnostic.code != "todo" and (diagnostic.code, diagnostic.message) not in before:
            line = doc.old_line(edited, diagnostic.location.line) if not doc.created else diagnostic.location.line
            raise InfralensError(f"{doc.display}:{line}: after fix's edits: {diagnostic.message}; nothing was written — make this edit by hand")
    return loaded.annotations


def check_resolves(doc: YamlFile, edited: str, resolver: Resolver, annotations: Iterable[Annotation], expected: dict[str, tuple[str, int, int]]) -> None:
    """Every step in ``expected`` (step id → relpath, first and last line) resolves to the statements there."""
    for annotation in annotations:
        for step in annotation.steps:
            step_id = annotation.step_id(step)
            if step_id not in expected:
                continue
            relpath, first, last = expected[step_id]
            line = step.location.line if step.location else 1
            line = doc.old_line(edited, line) if not doc.created else line
            try:
                target = resolver.resolve_target(annotation.source, annotation.target, annotation.definition)
                got = resolver.resolve_selector(resolver.index(target.source), target.definition, step.at)
                problem = "it selects other lines"
                ok = target.source.relpath == relpath and bool(got) and got[0].start_line == first and got[-1].start_line <= last
            except ResolutionError as error:
                problem, ok = str(error), False
            if not ok:
                raise InfralensError(
                    f"{doc.display}:{line}: the new selector of step {step_id} does not find {relpath}:{first} ({problem}); "
                    "nothing was written — re-anchor this step by hand"
                )


def first_difference(want: Any, got: Any, path: Path_ = ()) -> Path_:
    """The path of the first value that differs between two YAML documents."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in list(want) + [k for k in got if k not in want]:
            if want.get(key, _MISSING) != got.get(key, _MISSING):
                return first_difference(want.get(key), got.get(key), (*path, key))
        return path
    if isinstance(want, list) and isinstance(got, list):
        for index in range(max(len(want), len(got))):
            left = want[index] if index < len(want) else _MISSING
            right = got[index] if index < len(got) else _MISSING
            if left != right:
                return first_difference(left, right, (*path, index))
    return path


_MISSING = object()


def _where(doc: YamlFile, path: Path_) -> str:
    """The user's file and line of the deepest node on ``path`` that the original text has."""
    node: yaml.Node | None = doc.root
    best = node
    for part in path:
        if isinstance(node, yaml.MappingNode):
            node = next((value for key, value in node.value if isinstance(key, yaml.ScalarNode) and key.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            node = None
        if node is None:
            break
        best = node
    index = best.start_mark.index if best is not None else 0
    return f"{doc.display}:{line_of(doc.text, index)}"


def _describe(path: Path_) -> str:
    shown = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return shown or "the whole document"

"""Decorators are part of the target: one added, removed or replaced is a finding (rule ``decorators-changed``).

A target found with other decorators than the reviewed one is reported as such (low severity, like a body that
changed around unchanged steps), the change named in the message. A method gone from its class may have gone into a
decorator its class's methods now wear (container rule ``moved-into-decorator``): the decorator took it over for every
class it decorates (transformers' rotary embeddings' ``_dynamic_frequency_update``, now ``dynamic_rope_update``'s
nested ``dynamic_frequency_update``). That needs the reviewed release.
"""

from __future__ import annotations

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.match.forwarding import class_named
from infralens.drift.match.imported import Relocated
from infralens.drift.match.names import defining_file
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.results import TargetKind, TargetResult
from infralens.drift.match.reviewed import defined_in
from infralens.drift.match.rules import Action, TargetRule, Thresholds, Trace
from infralens.source import Definition, DefinitionKind


def decorator_change(entry: AnnotationLock, definition: Definition) -> str:
    """The decorators added to or removed from the target, in words ("" when the same or not recorded in the lock)."""
    if entry.decorators is None:
        return ""  # a lock written before decorators were recorded says nothing about them
    old, new = list(entry.decorators), list(definition.decorators)
    if old == new:
        return ""
    added = [d for d in new if d not in old]
    removed = [d for d in old if d not in new]
    parts = [f"decorator added: @{d}" for d in added] + [f"decorator removed: @{d}" for d in removed]
    return "; ".join(parts) or f"decorators reordered: {' '.join('@' + d for d in new)}"


def with_decorators(result: TargetResult, entry: AnnotationLock, definition: Definition, trace: Trace) -> TargetResult:
    change = decorator_change(entry, definition)
    if not change:
        return result
    trace.add(TargetRule.DECORATORS_CHANGED, Action.FIRED, change)
    if result.kind in (TargetKind.UNCHANGED, TargetKind.BODY_CHANGED):
        message = change if result.kind is TargetKind.UNCHANGED else f"{change}; {result.message}"
        wrapped = TargetRule.WRAPPED_BY_DECORATOR.value
        rule = result.rule if result.rule == wrapped else TargetRule.DECORATORS_CHANGED.value
        return TargetResult(entry, TargetKind.DECORATORS_CHANGED, result.new, result.similarity, message, rule=rule)
    return TargetResult(entry, result.kind, result.new, result.similarity, f"{result.message}; {change}", rule=result.rule)


def moved_into_decorator(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The one function nested in a decorator that a method of the target's class now carries (a plain name resolved from
    the target's module) named as the target is (leading underscores aside) and new since the review. Only the files
    with an indented ``def`` of such a name are read."""
    owner, _, name = entry.target.rpartition(".")
    indexed = reader.indexed(entry.relpath)
    if not owner or "." in owner or reviewed is None or indexed is None or class_named(indexed[1], owner) is None:
        return None
    carried = {d for m in indexed[1].definitions if m.qualname.rpartition(".")[0] == owner for d in m.decorators if d.isidentifier()}
    bare = name.lstrip("_")
    files = sorted(reader.method_files(bare) | reader.method_files(name) | reader.method_files(f"_{bare}")) if carried else []
    found = []
    for relpath in files:
        home = reader.indexed(relpath)
        if home is None:
            continue
        for d in home[1].definitions:
            decorator, _, nested = d.qualname.rpartition(".")
            if decorator not in carried or nested.lstrip("_") != bare or d.kind is DefinitionKind.CLASS or defined_in(reviewed, relpath, d.qualname):
                continue
            if defining_file(reader, entry.relpath, decorator) == relpath:
                found.append(Relocated(home[0], home[1], d, f"{name} left {owner} for the decorator @{decorator} its methods now carry ({d.qualname})"))
    return found[0] if len(found) == 1 else None

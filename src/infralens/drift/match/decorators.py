"""Decorators are part of the target: one added, removed or replaced is a finding (rule ``decorators-changed``).

A target found with other decorators than the reviewed one is reported as such (low severity, like a body that
changed around unchanged steps), the change named in the message.
"""

from __future__ import annotations

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.match.results import TargetKind, TargetResult
from infralens.drift.match.rules import Action, TargetRule, Trace
from infralens.source import Definition


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

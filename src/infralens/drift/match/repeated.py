"""Repeated statements: which of the steps on copies of one text keeps a copy that survived when others went.

Rules ``contested-copy``, ``same-depth`` and ``diff-paired`` of :mod:`.rules`.
"""

from __future__ import annotations

from collections.abc import Callable

from infralens.drift.lock.entries import AnnotationLock, StepLock
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.rules import Action, Filter, Policy, Trace
from infralens.drift.match.scored import Scored

Key = tuple[str, int, str]
"""A candidate statement's key (its file, line and text)."""


def settle_contested(
    options: dict[str, list[Scored]], indents: dict[str, int], policy: Policy, traces: dict[str, Trace], kept: Callable[[str, Scored], bool]
) -> None:
    """Keep a surviving copy (after copies went) only for the step whose neighbours single it out: context above 0 and
    above every other step's (rule ``contested-copy``). When the reviewed release tells each step's indentation
    (``indents``) and exactly one of the steps with some context sits at the survivor's depth, it is that one (rule
    ``same-depth``; as in AST differs: a statement keeps its nesting; two ``else :`` whose branches were reshuffled
    each match one neighbour). When the best neighbours tie, the one step the diff of the two bodies keeps as the
    survivor (``kept``: step id, option) takes it (rule ``diff-paired``): two copies of one ``raise`` whose neighbours
    are alike, one of them rewritten."""
    if not policy.on(Filter.CONTESTED_COPY):
        return
    contexts: dict[Key, list[float]] = {}
    level: dict[Key, list[str]] = {}
    paired: dict[Key, list[str]] = {}
    lines: dict[str, list[str]] = {}  # each candidate file split once
    for step_id, found_options in options.items():
        for option in found_options:
            if option.contested and option.evidence.context > 0.0:
                contexts.setdefault(option.proposal.key, []).append(option.evidence.context)
                source = option.proposal.source
                if source.relpath not in lines:
                    lines[source.relpath] = source.text.splitlines()
                if indents.get(step_id) == indentation(lines[source.relpath], option.proposal.window[0].start_line):
                    level.setdefault(option.proposal.key, []).append(step_id)
                if kept(step_id, option):
                    paired.setdefault(option.proposal.key, []).append(step_id)
    if not policy.on(Filter.SAME_DEPTH):
        level = {}
    if not policy.on(Filter.DIFF_PAIRED):
        paired = {}
    for step_id, found_options in options.items():
        keeping = [o for o in found_options if not o.contested or _keeps(o, step_id, contexts, level, paired)]
        gone = [o for o in found_options if o not in keeping]
        if gone:
            by_depth = any(len(level.get(o.proposal.key, ())) == 1 for o in gone)
            by_diff = not by_depth and any(_tied(o, contexts) and len(paired.get(o.proposal.key, ())) == 1 for o in gone)
            rule = Filter.SAME_DEPTH if by_depth else Filter.DIFF_PAIRED if by_diff else Filter.CONTESTED_COPY
            traces[step_id].add(rule, Action.REMOVED, f"{len(gone)} surviving copy(ies) left to steps whose neighbours, depth or diff fit better")
        options[step_id] = keeping


def _keeps(option: Scored, step_id: str, contexts: dict[Key, list[float]], level: dict[Key, list[str]], paired: dict[Key, list[str]]) -> bool:
    key, context = option.proposal.key, option.evidence.context
    if context <= 0.0:
        return False
    if len(level.get(key, ())) == 1:
        return level[key] == [step_id]
    if _tied(option, contexts) and len(paired.get(key, ())) == 1:
        return paired[key] == [step_id]
    return contexts[key].count(context) == 1 and context == max(contexts[key])


def _tied(option: Scored, contexts: dict[Key, list[float]]) -> bool:
    """Whether the option's context is the best for its place and another step's is as good."""
    values = contexts.get(option.proposal.key, [])
    return option.evidence.context == max(values, default=0.0) and values.count(option.evidence.context) > 1


def indentation(lines: list[str], line: int) -> int | None:
    """Columns of indentation of 1-based ``line`` of a file's ``lines`` (None when there is no such line)."""
    if not 0 < line <= len(lines):
        return None
    return len(lines[line - 1]) - len(lines[line - 1].lstrip())


def reviewed_indents(reviewed: TreeReader | None, annotation: AnnotationLock, steps: list[StepLock]) -> dict[str, int]:
    """Each step's indentation in the reviewed release (empty when that release is not at hand)."""
    source = reviewed.source(annotation.relpath) if reviewed is not None else None
    if source is None:
        return {}
    lines = source.text.splitlines()
    return {s.step_id: indent for s in steps if s.relpath == annotation.relpath and (indent := indentation(lines, s.lines[0])) is not None}

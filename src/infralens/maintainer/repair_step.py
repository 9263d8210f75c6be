"""One step's fix, shared by ``infralens fix``'s planner (:mod:`.repair`) and its note mover (:mod:`.repair_move`).

:class:`StepFix` is what happens to a step; :func:`still_selects` and :func:`selector_for` read the function where
its statement is now (whether the step's own selector still finds it, else the selector ``add`` would choose);
:func:`edit_step_node` writes the new ``at:`` and ``review:`` into the step's YAML node.
"""

from __future__ import annotations

from dataclasses import dataclass

from infralens.annotations import Selector, SingleSelector
from infralens.drift import Place, StepKind
from infralens.errors import InfralensError, ResolutionError
from infralens.maintainer.repair_yaml import YamlFile, block_selector, fields_of, flow_selector, quoted, selector_data
from infralens.maintainer.scaffold import plan_step
from infralens.portable import portable
from infralens.resolve import Resolver
from infralens.source import Definition, ModuleIndex, SourceFile, Statement

REVIEW_PREFIX = "infralens fix:"


@dataclass(frozen=True)
class StepFix:
    """What ``fix`` does to one step."""

    step_id: str
    kind: StepKind
    selector: tuple[SingleSelector, ...]
    """The new ``at:``: one selector, or the first and last of a block; empty to keep the selector."""
    review: str | None
    """The ``review:`` it sets; ``None`` when nothing a person must re-read changed."""
    moved_to: str | None = None
    """The target of the annotation the step moves to (its statement moved into a function the target calls)."""
    found: bool = False
    """The statement was found (in the target, or where it moved): the step is anchored to it."""

    @property
    def action(self) -> str:
        if self.moved_to:
            return f"moved to an annotation of {self.moved_to}"
        if self.selector:
            return "re-anchored"
        if self.found:
            return "selector still finds it" if self.review else "kept (the statement is unchanged)"
        return "flagged"


def edit_step_node(doc: YamlFile, node: object, data: dict, fix: StepFix) -> None:
    """Set the new ``at:`` and the ``review:`` of one step's mapping node (and its intended data)."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        raise InfralensError(f"{doc.where(node) if isinstance(node, yaml.Node) else doc.display}: step {fix.step_id} is not a mapping; fix it by hand")
    at_key, at_value = fields_of(node)["at"]
    what = f"the 'at:' of step {fix.step_id}"
    doc.editable(node, f"step {fix.step_id}")
    if fix.selector:
        doc.replace_value(at_key, at_value, flow_selector(fix.selector), block_selector(fix.selector), flow=node.flow_style, what=what)
        data["at"] = selector_data(fix.selector)
    if fix.review:
        review = merged_review(data.get("review"), portable(fix.review))  # committed: dist==version, never a machine path
        doc.set_key(node, at_value, "review", quoted(review), f"step {fix.step_id}")
        data["review"] = review


def merged_review(old: object, new: str) -> str:
    """A person's own review note is kept in front of fix's (an earlier note of fix's own is replaced)."""
    if isinstance(old, str) and old.strip() and not old.startswith(REVIEW_PREFIX):
        return f"{old.rstrip()} | {new}"
    return new


def _definition(resolver: Resolver, distribution: str, place: Place) -> tuple[SourceFile, ModuleIndex, Definition]:
    source = resolver.source_file(resolver.tree(distribution), place.relpath)
    index = resolver.index(source)
    definition = next((d for d in index.definitions if d.qualname == place.target and d.start_line <= place.lines[0] <= d.end_line), None)
    if definition is None:
        raise InfralensError(f"{place.relpath}:{place.lines[0]}: {place.target} is not there; re-anchor the step by hand")
    return source, index, definition


def still_selects(resolver: Resolver, distribution: str, place: Place, selector: Selector) -> bool:
    """Whether the step's own selector, read in the function where the statement is now, finds exactly it."""
    _, index, definition = _definition(resolver, distribution, place)
    try:
        found = resolver.resolve_selector(index, definition, selector)
    except ResolutionError:
        return False
    return bool(found) and found[0].start_line == place.lines[0] and tuple(s.text for s in found) == place.texts


def selector_for(resolver: Resolver, distribution: str, place: Place, count: int) -> tuple[SingleSelector, ...]:
    """Selectors that resolve to exactly the statements at ``place`` (the first and last for a block)."""
    source, index, definition = _definition(resolver, distribution, place)
    pool = index.statements_within(definition.start_line, definition.end_line)
    first = _statement_at(place.relpath, pool, place.lines[0])
    planned = plan_step(resolver, index, definition, pool, first, source.lines)
    if count == 1:
        return (planned.selector,)
    last = [s for s in pool if first.start_line <= s.start_line <= place.lines[1]][-1]
    return (planned.selector, plan_step(resolver, index, definition, pool, last, source.lines).selector)


def _statement_at(relpath: str, pool: tuple[Statement, ...], line: int) -> Statement:
    for statement in pool:
        if statement.start_line == line:
            return statement
    raise InfralensError(f"{relpath}:{line}: no statement starts there; re-anchor the step by hand")

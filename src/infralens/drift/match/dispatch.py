"""Dynamic dispatch: which methods a call on another object may run (filter ``owners-classes``, rule ``reached-by-name``).

``Cache.update`` runs ``self.layers[i].update(...)``: the per-object class is not known statically, its module is. Of the
methods of that name there, the ones the reviewed target's own class names come first; a method called on another
object that only one class of the whole tree defines is the only code the call can run.
"""

from __future__ import annotations

from collections.abc import Iterator

from infralens.drift.match.calls import Reach
from infralens.drift.match.forwarding import base_names, class_named
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.renamed_words import name_words
from infralens.drift.match.rules import Action, Filter, Trace
from infralens.drift.match.scored import Scored, where
from infralens.drift.match.split import Reached, listed_definitions, reached_definitions
from infralens.source import DefinitionKind, ModuleIndex


def dispatched(reach: Reach) -> Iterator[Reached]:
    """Methods of classes in the target's own module named like a method the target calls on another object
    (``self.layers[i].update(...)``: the per-object class is not known statically, its module is)."""
    own = reach.definition.qualname
    for definition in reach.index.definitions:
        owner, _, name = definition.qualname.rpartition(".")
        if definition.kind is DefinitionKind.CLASS or not owner or "." in owner or definition.qualname == own:
            continue
        if name in reach.calls.on_objects and not name.startswith("__"):
            yield reach.source, reach.index, definition, False


def sole_methods(reader: TreeReader, reach: Reach) -> Iterator[Reached]:
    """Methods the target calls on another object (``transformer . load_lora_adapter ( ... )``) that no class of its own
    module defines and exactly one class of the whole tree does (:meth:`~.reader.TreeReader.sole_method`): whatever
    the object is, that is the only code of the package the call can run."""
    own = {d.qualname.rpartition(".")[2] for d in reach.index.definitions}
    for name in sorted(reach.calls.on_objects - own):
        if name.startswith("__") or (found := reader.sole_method(name)) is None:
            continue
        indexed = reader.indexed(found[0])
        if indexed is not None:
            yield indexed[0], indexed[1], found[1], False


def owners_classes(reach: Reach, methods: list[Reached], owner: str) -> tuple[list[Reached], str]:
    """Rule ``owners-classes``: of the methods a dispatched call may run, those of classes the owner's class names
    (constructs, or passes as the class to replicate); of those, the one whose class the others derive from.

    ``Cache.update`` runs ``self.layers[i].update``; a reviewed ``DynamicCache.update`` went to the layer class
    ``DynamicCache`` builds its layers from, not to a quantized or static layer that also defines ``update``.
    Returns the methods kept and the evidence ("" when nothing was narrowed)."""
    named = names_in_class(reach, owner)
    kept = [m for m in methods if _class_of(m) in named and _class_of(m) != owner]
    if not kept:  # the classes it names may inherit the method: the nearest base that defines it runs
        inherited = {id(m): m for name in sorted(named - {owner}) if (m := _inherited_method(reach.index, name, methods)) is not None}
        if inherited:
            found = list(inherited.values())
            names = ", ".join(sorted({_class_of(m) for m in found}))
            return found, f"{owner} names classes that inherit it from {names}, of the {len(methods)} classes a dispatched call may reach"
        return methods, ""
    classes = {_class_of(m) for m in kept}
    general = [m for m in kept if all(c == _class_of(m) or _class_of(m) in _ancestors(reach.index, c) for c in classes)]
    chosen = general[:1] or kept
    names = ", ".join(sorted(classes))
    why = f"{_class_of(chosen[0])}, the base of the others" if general and len(classes) > 1 else "those"
    return chosen, f"{owner} names {names} of the {len(methods)} classes a dispatched call may reach: {why}"


def _inherited_method(index: ModuleIndex, name: str, methods: list[Reached]) -> Reached | None:
    """The method of ``methods`` that class ``name`` runs by inheritance: that of its nearest base in its module."""
    if class_named(index, name) is None:
        return None
    by_class = {_class_of(m): m for m in methods}
    level, seen = [name], {name}
    while level:
        found = [by_class[c] for c in level if c in by_class]
        if found:
            return found[0] if len(found) == 1 else None
        bases = [b for c in level if (d := class_named(index, c)) is not None for b in base_names(index, d) if b not in seen]
        seen.update(bases)
        level = bases
    return None


def dispatched_for(reader: TreeReader, reach: Reach) -> Iterator[Reached]:
    """:func:`dispatched` from the target and from the wrappers of the decorators it carries in its own module (a
    wrapper such as ``apply_processors._wrapped_update`` makes the target's dispatched calls on its behalf)."""
    seen = set()
    for method in dispatched(reach):
        seen.add(method[2].qualname)
        yield method
    for source, index, definition, decorator in reached_definitions(reader, reach):
        if not decorator or source.relpath != reach.source.relpath:
            continue
        for method in dispatched(Reach(reader, source, index, definition)):
            if method[2].qualname not in seen:
                seen.add(method[2].qualname)
                yield method


def in_owners_classes(reach: Reach, owner: str, places: list[Scored], trace: Trace) -> list[Scored]:
    """Of ``places`` (methods of the name a dispatched call uses), those in the classes ``owner`` names in the target's
    module, when it names any that define the method; the trace names what was removed."""
    dispatch = {_class_of(m) for m in dispatched(reach)} & names_in_class(reach, owner)
    if not dispatch:
        return places
    module = reach.source.module
    kept = [s for s in places if s.proposal.source.module == module and s.proposal.place().target.rpartition(".")[0] in dispatch]
    if gone := [s for s in places if s not in kept]:
        own = ", ".join(sorted(dispatch))
        trace.add(Filter.OWNERS_CLASSES, Action.REMOVED, f"{len(gone)} place(s) outside {owner}'s own classes ({own}), e.g. {where(gone[0])}")
    return kept


def names_in_class(reach: Reach, owner: str) -> frozenset[str]:
    """Every name the class ``owner`` writes in the target's module (empty when it is not defined there)."""
    home = class_named(reach.index, owner) if owner else None
    if home is None:
        return frozenset()
    return frozenset(token for s in reach.index.statements_within(home.start_line, home.end_line) for token in s.text.split(" "))


def _class_of(method: Reached) -> str:
    return method[2].qualname.rpartition(".")[0]


def _ancestors(index: ModuleIndex, name: str) -> set[str]:
    """The classes ``name`` derives from inside its module, transitively."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        definition = class_named(index, todo.pop())
        for base in base_names(index, definition) if definition is not None else ():
            if base not in seen:
                seen.add(base)
                todo.append(base)
    return seen


def keyed_home(reader: TreeReader, reach: Reach, owner: str) -> list[Reached]:
    """Filter ``registry-key-in-name``: the one function a registry the target dispatches through holds under a key
    whose words the reviewed target's class name holds (``CohereSdpaAttention`` and the key ``sdpa``: the class gone,
    its work is what ``sdpa_attention_forward`` does now), whether or not that function is new since the review."""
    words = name_words(owner.rpartition(".")[2])
    keyed = sorted({(relpath, name) for key, relpath, name in reach.registry_keys() if key and name_words(key) <= words})
    return list(listed_definitions(reader, keyed, set())) if len(keyed) == 1 else []

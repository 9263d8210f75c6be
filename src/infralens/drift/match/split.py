"""Split or wrapped: the part of the reviewed body that now lives in functions the target leads to, decided once.

When upstream extracts part of a function into helpers it calls (``self._prepare(...)``, a module
function, a nested function) or into a decorator it now carries, the statements it lost are there.
This is one container decision per annotation, with its evidence (which helpers received how many of
the lost statements), made before any step is placed: a step whose text left the target is then
looked for first in exactly those helpers, so every moved step of a function lands where the
container decision says, and the distribution-wide search is only the fallback.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.lock.facts import body_hashes, body_of
from infralens.drift.match.calls import Reach
from infralens.drift.match.forwarding import base_names, class_named
from infralens.drift.match.names import defining_file, prefetch_homes
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.texts import string_literal
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile

MIN_RECEIVED = 2
"""A split needs at least this many lost statements found in the helpers (one could be a coincidence)."""


@dataclass(frozen=True)
class Helper:
    """A function the target leads to that received statements the target lost."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    received: int
    decorator: bool
    """The helper is (defined by) a decorator the target carries, not a function it calls."""
    via: str = ""
    """The helper the target calls that calls this one (rule ``helpers-of-helpers``); "" when the target calls it."""

    @property
    def name(self) -> str:
        return f"{self.source.module}.{self.definition.qualname}"


@dataclass(frozen=True)
class Split:
    """The container decision: the lost statements and the helpers that hold them."""

    lost: int
    helpers: tuple[Helper, ...]

    @property
    def rule(self) -> str:
        return "wrapped-by-decorator" if any(h.decorator for h in self.helpers) else "split-into-helpers"

    def describe(self) -> str:
        names = ", ".join(f"{h.name} ({h.received})" for h in self.helpers)
        where = "decorators and helpers it now runs" if self.rule == "wrapped-by-decorator" else "helpers it calls"
        return f"{sum(h.received for h in self.helpers)} of the {self.lost} statements it lost are now in {where}: {names}"


def split_of(
    reader: TreeReader,
    source: SourceFile,
    index: ModuleIndex,
    definition: Definition,
    entry: AnnotationLock,
    *,
    deeper: bool = True,
    held_since: TreeReader | None = None,
    keyed: bool = False,
) -> Split | None:
    """The helpers the mapped target (``definition`` in ``source``) leads to that hold statements it lost
    (None when fewer than :data:`MIN_RECEIVED`); with ``deeper`` (rule ``helpers-of-helpers``), also the functions of
    a called helper's own module that the helper calls in turn (a block extracted into a helper that hands part of it
    to a private helper beside it); with ``held_since`` (the reviewed release; rule ``instance-called``), also what calling
    an instance an attribute of the target's class holds runs, when new since then; with ``keyed`` (filter
    ``class-keyed-entry``), the entry its class's name keys in a table a property it calls returns from."""
    lost = Counter(entry.body) - Counter(body_hashes(index, definition))
    if sum(lost.values()) < MIN_RECEIVED:
        return None
    reach = Reach(reader, source, index, definition, held_since=held_since, keyed=keyed)
    helpers = []
    first = list(reached_definitions(reader, reach))
    for home, home_index, function, decorator in first:
        received = sum((lost & Counter(body_hashes(home_index, function))).values())
        if received:
            helpers.append(Helper(home, home_index, function, received, decorator))
    if deeper:
        helpers.extend(_helpers_of_helpers(reader, first, lost, {(source.relpath, definition.qualname)}))
    if sum(h.received for h in helpers) < MIN_RECEIVED:
        return None
    helpers.sort(key=lambda h: (-h.received, h.name))
    return Split(sum(lost.values()), tuple(helpers))


def _helpers_of_helpers(reader: TreeReader, first: list[Reached], lost: Counter[str], skip: set[tuple[str, str]]) -> list[Helper]:
    """The functions each called helper calls in its own module (not a decorator's), or anywhere when the helper only
    forwards (:func:`forwards_only`), that hold statements the target lost, and that neither the target itself nor
    another helper reaches directly (what calling an instance a helper holds runs is not followed: rule ``instance-called``
    reaches the target's own only)."""
    seen = skip | {(home.relpath, function.qualname) for home, _, function, _ in first}
    found = []
    for home, home_index, function, decorator in first:
        if decorator:
            continue
        anywhere = forwards_only(home_index, function)
        for there, there_index, inner, _ in reached_definitions(reader, Reach(reader, home, home_index, function)):
            if (there.relpath != home.relpath and not anywhere) or (there.relpath, inner.qualname) in seen:
                continue
            seen.add((there.relpath, inner.qualname))
            received = sum((lost & Counter(body_hashes(there_index, inner))).values())
            if received:
                found.append(Helper(there, there_index, inner, received, False, via=f"{home.module}.{function.qualname}"))
    return found


def forwards_only(index: ModuleIndex, definition: Definition) -> bool:
    """Whether the function's body, a docstring aside, is one ``return f ( ... )``: a wrapper that hands every call to
    ``f`` (``_optionally_disable_offloading`` returning ``_func_optionally_disable_offloading ( ... )``), so whatever
    the target hands it runs in ``f``, in whichever module ``f`` lives."""
    body = [s for s in body_of(index, definition) if not string_literal(s.text)]
    return len(body) == 1 and body[0].text.startswith("return ") and body[0].text.endswith(")") and " ( " in body[0].text


Reached = tuple[SourceFile, ModuleIndex, Definition, bool]
"""A reached function: its file, the file's index, the function, and whether the target carries it as a decorator."""


def reached_key(reached: Reached) -> tuple[str, str]:
    """``(relpath, qualname)`` of a reached function: the same function however it was reached."""
    return reached[0].relpath, reached[2].qualname


def reached_definitions(reader: TreeReader, reach: Reach) -> Iterator[Reached]:
    """Functions the target leads to: methods of its class it calls on ``self``/``cls`` (or of a direct base class, and
    those it calls on ``super()``), functions nested in it that it calls, functions it calls or decorators it
    carries that resolve statically to a definition (a decorator with the wrappers nested in it), the functions of
    a lookup table it dispatches through, the entry its class's name keys in a table a property it calls returns from
    (:meth:`~.calls.Reach.keyed_functions`), and what calling an instance an attribute of its class holds runs (rule
    ``instance-called``)."""
    own = reach.definition.qualname
    owner = own.rsplit(".", 1)[0] if "." in own else ""
    is_method = bool(owner) and class_named(reach.index, owner) is not None
    seen: set[tuple[str, str]] = set()
    yield from _own_file(reach, owner if is_method else None, seen)
    if is_method:
        yield from _inherited(reader, reach, seen)
    yield from _called(reader, reach, seen)
    yield from listed_definitions(reader, reach.table_functions(), seen)
    yield from listed_definitions(reader, reach.keyed_functions(), seen)
    yield from listed_definitions(reader, reach.held_methods(), seen)


def _own_file(reach: Reach, owner: str | None, seen: set[tuple[str, str]]) -> Iterator[Reached]:
    """Functions nested in the target that it calls, and (*owner*: the target is a method of it) methods it calls on ``self``/``cls``."""
    own = reach.definition.qualname
    for definition in reach.index.definitions:
        name = definition.qualname
        if definition.kind is DefinitionKind.CLASS or name == own:
            continue
        nested = name.startswith(own + ".") and name[len(own) + 1 :].split(".")[0] in reach.calls.functions
        method = owner is not None and name.rsplit(".", 1)[0] == owner and name.rsplit(".", 1)[1] in reach.calls.methods
        if nested or method:
            seen.add((reach.source.relpath, name))
            yield reach.source, reach.index, definition, False


def _inherited(reader: TreeReader, reach: Reach, seen: set[tuple[str, str]]) -> Iterator[Reached]:
    """Methods of the direct base classes that the target runs through ``super()`` or inherits on ``self``."""
    for base, base_file in reach.base_classes():
        base_indexed = reader.indexed(base_file)
        if base_indexed is None:
            continue
        base_source, base_index = base_indexed
        for called_method in sorted(reach.calls.inherited | reach.calls.methods):
            inherited = next((d for d in base_index.definitions if d.qualname == f"{base}.{called_method}"), None)
            if inherited is not None and (base_file, inherited.qualname) not in seen:
                seen.add((base_file, inherited.qualname))
                yield base_source, base_index, inherited, False


def listed_definitions(reader: TreeReader, functions: list[tuple[str, str]], seen: set[tuple[str, str]]) -> Iterator[Reached]:
    """The functions at ``(relpath, qualname)``: held by the lookup tables the target dispatches through (:mod:`.tables`),
    or run by calling an instance one of its class's attributes holds (:meth:`~.calls.Reach.held_methods`)."""
    for relpath, name in functions:
        indexed = reader.indexed(relpath)
        definition = next((d for d in indexed[1].definitions if d.qualname == name), None) if indexed is not None else None
        if indexed is None or definition is None or definition.kind is DefinitionKind.CLASS or (relpath, name) in seen:
            continue
        seen.add((relpath, name))
        yield indexed[0], indexed[1], definition, False


def _called(reader: TreeReader, reach: Reach, seen: set[tuple[str, str]]) -> Iterator[Reached]:
    """Functions the target calls and decorators it carries that resolve statically (a decorator with its nested wrappers)."""
    decorators = {d for d in reach.definition.decorators if "." not in d}
    prefetch_homes(reader, reach.source.relpath, reach.calls.functions | decorators, reach.scopes)
    for called in sorted(reach.calls.functions | decorators):
        relpath = defining_file(reader, reach.source.relpath, called, reach.scopes, stars=True)
        indexed = reader.indexed(relpath) if relpath is not None else None
        if relpath is None or indexed is None:
            continue
        source, index = indexed
        for definition in index.definitions:
            name = definition.qualname
            if name.split(".")[0] != called or definition.kind is DefinitionKind.CLASS or (relpath, name) in seen:
                continue
            if name != called and called not in decorators:
                continue  # a called function itself; a decorator also brings the wrappers nested in it
            seen.add((relpath, name))
            yield source, index, definition, called in decorators


def built_inits(reader: TreeReader, reach: Reach) -> Iterator[Reached]:
    """The ``__init__`` of each class the target builds (a call of the class, or of a local bound to it), and of that
    class's direct bases when its ``__init__`` calls ``super ( ) . __init__``: where the settings it now hands to the
    objects it builds are stored. Only edits are looked for there (:mod:`.reached_edits`), never a statement moved."""
    seen: set[tuple[str, str]] = set()
    for called in sorted(reach.calls.functions):
        relpath = defining_file(reader, reach.source.relpath, called, reach.scopes)
        built = _init_of(reader, relpath, called) if relpath is not None else None
        if built is None or (built[0].relpath, built[2].qualname) in seen:
            continue
        seen.add((built[0].relpath, built[2].qualname))
        yield built
        source, index, init, _ = built
        if not any(s.text.startswith("super ( ) . __init__ (") for s in index.statements_within(init.start_line, init.end_line)):
            continue
        klass = class_named(index, called)
        for base in base_names(index, klass) if klass is not None else []:
            base_file = defining_file(reader, source.relpath, base)
            inherited = _init_of(reader, base_file, base) if base_file is not None else None
            if inherited is not None and (inherited[0].relpath, inherited[2].qualname) not in seen:
                seen.add((inherited[0].relpath, inherited[2].qualname))
                yield inherited


def _init_of(reader: TreeReader, relpath: str, name: str) -> Reached | None:
    """The ``__init__`` of class ``name`` in ``relpath`` (None when ``name`` is no class there, or has none of its own)."""
    indexed = reader.indexed(relpath)
    if indexed is None or class_named(indexed[1], name) is None:
        return None
    init = next((d for d in indexed[1].definitions if d.qualname == f"{name}.__init__"), None)
    return (indexed[0], indexed[1], init, False) if init is not None else None

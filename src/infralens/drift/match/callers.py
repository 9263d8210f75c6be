"""A target renamed where it is called: the calls to its old name now call a new one.

A rename with a rewritten body leaves too little of the body to recognise (``_is_cuda_capability_atleast_8_9``
became ``_is_xpu_or_cuda_capability_atleast_8_9`` and gained an XPU branch), but the places that called it tell:
RefactoringMiner reports *Rename Method* when invocations of the old name were replaced by invocations of the new
one. This module reads the callers in the reviewed release (:mod:`.reviewed`), finds each calling statement in the
same caller now with one name changed, and takes that name's definition, new since the review, as the target
renamed when the callers agree on it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.lock.facts import body_of, enclosing_definitions
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile

MAX_CALLER_FILES = 8
"""At most this many files of the reviewed release (those calling the name, the target's own first) are parsed."""


@dataclass(frozen=True)
class Renamed:
    """The target's definition under its new name, and how many calling statements say so."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    calls: int


def renamed_at_callers(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock) -> Renamed | None:
    """The definition the reviewed target's callers now call instead of it (None when they do not agree on one)."""
    name = entry.target.rsplit(".", 1)[-1]
    if reviewed is None or name.startswith("__"):
        return None  # dunder methods are called by Python, not by name
    votes: Counter[str] = Counter()
    near: dict[str, str] = {}
    for relpath, caller, statement in calls_before(reviewed, name, entry.relpath):
        indexed = reader.indexed(relpath)
        if indexed is None:
            continue
        now = [s.text for d in indexed[1].definitions if d.qualname == caller and d.accessor is None for s in body_of(indexed[1], d)]
        if statement in now:
            continue  # this caller still calls the old name
        pattern = _with_name_open(statement, name)
        renamed = {m.group("name") for text in now if (m := pattern.fullmatch(text)) is not None and m.group("name") != name}
        for new_name in renamed:
            votes[new_name] += 1
            near.setdefault(new_name, relpath)
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    new_name, calls = ranked[0]
    return _new_definition(reader, reviewed, entry, new_name, near[new_name], calls)


def class_renamed_at_users(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock) -> Renamed | None:
    """The target method (``Class.method``) in the class its gone class's users now build instead (rule
    ``class-renamed-at-users``): each statement that assigned an instance of the reviewed class (``self.decoder =
    Decoder(...)``) now assigns the same target from a call of another name in the same function, whatever the
    arguments became, and the users agree on one class, new since the review and defining the method."""
    owner, _, method = entry.target.rpartition(".")
    if not owner or "." in owner or reviewed is None:
        return None  # a method of a top-level class only
    here = reader.indexed(entry.relpath)
    if here is not None and any(d.qualname == owner for d in here[1].definitions):
        return None  # the class is still where it was
    votes: Counter[str] = Counter()
    near: dict[str, str] = {}
    for relpath, user, statement in calls_before(reviewed, owner, entry.relpath):
        assigned, _, value = statement.partition(" = ")
        if not value.startswith(f"{owner} ( ") or "(" in assigned or (indexed := reader.indexed(relpath)) is None:
            continue
        now = [s.text for d in indexed[1].definitions if d.qualname == user and d.accessor is None for s in body_of(indexed[1], d)]
        built = {m.group(1) for text in now if text.startswith(f"{assigned} = ") and (m := _BUILT.match(text, len(assigned) + 3)) is not None}
        for name in built - {owner}:
            votes[name] += 1
            near.setdefault(name, relpath)
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    new_class, calls = ranked[0]
    found = [
        Renamed(source, index, d, calls)
        for relpath, source, index in reader.indexed_files(list(dict.fromkeys([entry.relpath, near[new_class]])))
        if not defined_in(reviewed, relpath, new_class)
        for d in index.definitions
        if d.qualname == f"{new_class}.{method}" and d.accessor is None
    ]
    return found[0] if len(found) == 1 else None


_BUILT = re.compile(r"([A-Z]\w*) \(")
"""A call of a class-like name (capitalised, as classes are named) at the start of an assigned value."""


def class_renamed_with_users(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock) -> Renamed | None:
    """The target method (``Class.method``) in the class that now fills the places its gone class filled in its own
    file, where the users may have been renamed with it (rule ``class-renamed-with-users``): each statement of the
    reviewed file that assigned a value building the class, wrapped or not (``self.down = ModuleList([Down(...)])``),
    is looked for in the same function, or, when that function is gone too, in the functions of the same name that
    are new since the review; the one class new there (a name the old value did not call) that the same place is now
    assigned from gets a vote. The users must agree on one class, new since the review and defining the method."""
    owner, _, method = entry.target.rpartition(".")
    if not owner or "." in owner or reviewed is None:
        return None  # a method of a top-level class only
    here = reader.indexed(entry.relpath)
    if here is None or any(d.qualname == owner for d in here[1].definitions):
        return None  # the class is still where it was (or its file is gone: nothing to rename within)
    source, index = here
    votes: Counter[str] = Counter()
    for relpath, user, statement in calls_before(reviewed, owner, entry.relpath):
        assigned, equals, value = statement.partition(" = ")
        if relpath != entry.relpath or not equals or owner not in _called(value) or "(" in assigned:
            continue
        for name in _built_now(reviewed, index, user, assigned, _called(value), entry.relpath):
            votes[name] += 1
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    new_class, calls = ranked[0]
    if defined_in(reviewed, entry.relpath, new_class):
        return None  # a class that was there at the review: the users switched to a sibling
    found = [d for d in index.definitions if d.qualname == f"{new_class}.{method}" and d.accessor is None]
    return Renamed(source, index, found[0], calls) if len(found) == 1 else None


def _built_now(reviewed: TreeReader, index: ModuleIndex, user: str, assigned: str, called: frozenset[str], relpath: str) -> set[str]:
    """The class-like names newly called where ``assigned`` is assigned now: in ``user`` when it is still defined, else
    in the functions of its name that the reviewed file did not define (the user renamed with its class)."""
    short = user.rpartition(".")[2]
    same = [d for d in index.definitions if d.qualname == user and d.accessor is None]
    users = same or [
        d for d in index.definitions if d.qualname.rpartition(".")[2] == short and d.accessor is None and not defined_in(reviewed, relpath, d.qualname)
    ]
    names: set[str] = set()
    for definition in users:
        for statement in body_of(index, definition):
            target, equals, value = statement.text.partition(" = ")
            if equals and target == assigned:
                names |= _called(value) - called
    return names


def _called(value: str) -> frozenset[str]:
    """The class-like (capitalised) names a normalised expression calls."""
    return frozenset(_CALLED.findall(value))


_CALLED = re.compile(r"(?:^|(?<=[ .\[(]))([A-Z]\w*) \(")


def callers_at_review(reviewed: TreeReader | None, entry: AnnotationLock) -> frozenset[str]:
    """Qualnames of the functions in the target's file that called it at the review (empty without that release): a
    module function by its name, a method by ``self . name (`` in a method of a class of that file."""
    if reviewed is None:
        return frozenset()
    owner, _, name = entry.target.rpartition(".")
    calls = calls_before(reviewed, name if owner else entry.target, entry.relpath)
    own = f"self . {name} ("
    return frozenset(
        caller for relpath, caller, text in calls if relpath == entry.relpath and caller != entry.target and (not owner or ("." in caller and own in text))
    )


def copied_not_moved(reader: TreeReader, entry: AnnotationLock, source: SourceFile, index: ModuleIndex, callers: Callable[[], frozenset[str]]) -> bool:
    """Rule ``copied-not-moved``: whether a module function's namesake or look-alike in another file (``source``) is a
    copy made there rather than the target moved. It is a copy when the target's file is still here, does not name
    the other module (no import, no re-export), and none of the functions that called the target in its file at the
    review (``callers``, asked only when it matters: :func:`callers_at_review`) is defined in the other file now: a
    move takes its callers along or leaves the old module pointing at the new home (RefactoringMiner's *Move Method*
    likewise wants the references updated). Without callers to ask, nothing is said (False)."""
    if "." in entry.target or source.relpath == entry.relpath:
        return False
    old = reader.source(entry.relpath)
    if old is None or names_module(old.text, source.module):
        return False
    called_by = callers()
    return bool(called_by) and not any(d.qualname in called_by for d in index.definitions)


def names_module(text: str, module: str) -> bool:
    """Whether a module's ``text`` names ``module`` the way an import does: its last two parts dotted (``flux.inputs``
    in ``from ..flux.inputs import …``), or its last part imported (``from .inputs import …``, ``from . import inputs``).
    The last part alone is often a plain word of the text (``inputs``), which says nothing."""
    parts = module.split(".")
    last = parts[-1]
    return ".".join(parts[-2:]) in text or f".{last} import" in text or f"import {last}" in text


def _with_name_open(statement: str, name: str) -> re.Pattern[str]:
    """A pattern matching ``statement`` (normalised: tokens apart by one space) with any name where ``name`` was."""
    pieces = []
    for token in statement.split(" "):
        if token != name:
            pieces.append(re.escape(token))
        else:
            pieces.append(r"(?P=name)" if any("(?P<name>" in p for p in pieces) else r"(?P<name>[A-Za-z_]\w*)")
    return re.compile(" ".join(pieces))


def calls_before(reviewed: TreeReader, name: str, home: str) -> list[tuple[str, str, str]]:
    """``(relpath, caller qualname, statement text)`` for every statement calling ``name`` in the target's file and the
    files beside it in the reviewed release (where the callers of a renamed helper are; the whole release is not read)."""
    call = re.compile(rb"\b" + re.escape(name.encode()) + rb"\s*\(")
    folder = home.rpartition("/")[0] + "/"
    near = [home, *(r for r in reviewed.tree.iter_python_files() if r.startswith(folder) and r != home)]
    files = [r for r in near if (data := reviewed.read_bytes(r)) is not None and name.encode() in data and call.search(data)]
    found = []
    token = re.compile(r"(?:^|[ .])" + re.escape(name) + r" \(")
    for relpath in files[:MAX_CALLER_FILES]:
        indexed = reviewed.indexed(relpath)
        if indexed is None:
            continue
        index = indexed[1]
        for statement in index.statements:
            if not token.search(statement.text) or statement.text.startswith(("def ", "async def ")):
                continue
            functions = [d for d in enclosing_definitions(index, statement) if d.kind is not DefinitionKind.CLASS]
            if functions:
                found.append((relpath, functions[0].qualname, statement.text))
    return found


def _new_definition(reader: TreeReader, reviewed: TreeReader, entry: AnnotationLock, new_name: str, near: str, calls: int) -> Renamed | None:
    """The one definition of ``new_name`` (a function when the target was one, else a method) that the reviewed release
    did not have: in the target's file, the caller's, or any file defining it."""
    relpaths = list(dict.fromkeys([entry.relpath, near, *reader.files_defining([new_name])]))
    method = "." in entry.target
    found = []
    for relpath, source, index in reader.indexed_files(relpaths):
        for definition in index.definitions:
            qualname = definition.qualname
            if qualname.rsplit(".", 1)[-1] != new_name or ("." in qualname) != method or definition.kind is DefinitionKind.CLASS:
                continue
            if defined_in(reviewed, relpath, qualname):
                continue  # it was there when the lock was reviewed: the callers switched to another function
            found.append(Renamed(source, index, definition, calls))
    return found[0] if len(found) == 1 else None

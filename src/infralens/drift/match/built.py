"""A method gone from its class whose namesake now lives on a class its class builds (``moved-to-built-class``), or a
helper gone the same way under its user's name (``helper-to-built-class``).

Upstream splits a class's work into per-object classes the class now builds: a cache whose ``__init__`` picks
``layer_class = QuantoLayer if backend == "quanto" else HQQLayer`` and makes one per layer, or one that hands
``layer_class_to_replicate=DynamicLayer`` to its base. The work of the cache's gone methods then runs in the methods
of the same name on those classes. The rule follows that fact of the checked release, never a name alone: the
classes are those that the target's class, or one of its bases, names in its body (a call, an assignment, a keyword
value; not a ``def`` header's annotations), looked up in the module or through its imports. A namesake there (the
class's own, or the one it inherits) is the target moved when it is new since the review and shares at least one
statement with the reviewed body, clearly more than any other such namesake. A private helper of the class's
method goes the same way under that method's name (``helper-to-built-class``): ``_sliding_update``, which only
``update`` used, is in the layer class's ``update`` once the cache's ``update`` calls ``self.layers[i].update``.
"""

from __future__ import annotations

import io
import tokenize
from collections import Counter

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.lock.facts import body_hashes, body_of, jaccard
from infralens.drift.match.best import clearly_best
from infralens.drift.match.calls import calls_in
from infralens.drift.match.forwarding import MAX_HOPS, base_names, class_named
from infralens.drift.match.imported import Relocated, module_now
from infralens.drift.match.names import defining, prefetch_homes
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in
from infralens.drift.match.rules import Thresholds
from infralens.source import Definition, ModuleIndex, SourceFile

ClassAt = tuple[str, str]
"""A class in the checked tree: the file that defines it and its qualname there."""

_HEADERS = ("def ", "async def ", "class ", "@")


def moved_to_built_class(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The namesake of a method gone from its class on a class that its class (or a base) now names in its body, new
    since the review and sharing statements with the reviewed body, clearly the closest of those (None otherwise)."""
    owner, _, name = entry.target.rpartition(".")
    home = module_now(reader, entry)
    if not owner or "." in owner or name.startswith("__") or reviewed is None or home is None:
        return None
    lineage = _lineage(reader, (home, owner))
    if not lineage or any(_defines(reader, at, name) is not None for at in lineage):
        return None  # the class is gone, or runs a method of that name itself: not this rule's refactor
    return _closest_on_built(reader, reviewed, entry, lineage, name, t)


def helper_to_built_class(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """A method gone from its class that one other method of the class alone used at the review (``update_fn =
    self . _sliding_update``), when that method, as the class now runs it, hands its call on to objects under its own
    name (``self . layers [ layer_idx ] . update ( ... )``): the method of that name on a class its class builds, new
    since the review, sharing statements with the gone one, clearly the closest (None otherwise)."""
    owner, _, name = entry.target.rpartition(".")
    home = module_now(reader, entry)
    if not owner or "." in owner or name.startswith("__") or reviewed is None or home is None:
        return None
    user = _sole_user(reviewed, entry.relpath, owner, name)
    lineage = _lineage(reader, (home, owner)) if user is not None else []
    if user is None or not lineage or any(_defines(reader, at, name) is not None for at in lineage):
        return None
    runs = next((found for at in lineage if (found := _defines(reader, at, user)) is not None), None)
    if runs is None or user not in calls_in([s.text for s in body_of(runs[1], runs[2])]).on_objects:
        return None  # the user is gone, or does the work itself
    return _closest_on_built(reader, reviewed, entry, lineage, user, t)


def _sole_user(reviewed: TreeReader, relpath: str, owner: str, name: str) -> str | None:
    """The one method of class ``owner`` in the reviewed release whose body names ``self . name`` (None: none or several)."""
    indexed = reviewed.indexed(relpath)
    if indexed is None:
        return None
    spelled = f"self . {name} "
    users = {
        d.qualname.rpartition(".")[2]
        for d in indexed[1].definitions
        if d.qualname.rpartition(".")[0] == owner and d.qualname != f"{owner}.{name}" and any(spelled in f"{s.text} " for s in body_of(indexed[1], d))
    }
    return users.pop() if len(users) == 1 else None


def _closest_on_built(reader: TreeReader, reviewed: TreeReader, entry: AnnotationLock, lineage: list[ClassAt], name: str, t: Thresholds) -> Relocated | None:
    """The method ``name`` on a class ``lineage`` builds (the class's own or the one it inherits), new since the review and
    sharing statements with the reviewed body, clearly the closest of those."""
    owner = entry.target.rpartition(".")[0]
    scored: list[tuple[float, Relocated]] = []
    seen: set[tuple[str, str]] = set()
    for built in _built(reader, lineage):
        for relpath, qualname in _lineage(reader, built):
            found = _defines(reader, (relpath, qualname), name)
            if found is None:
                continue
            source, index, definition = found
            if (relpath, definition.qualname) in seen or definition.kind is not entry.kind:
                break
            seen.add((relpath, definition.qualname))
            if defined_in(reviewed, relpath, definition.qualname):
                break  # that method was there at the review: a namesake, not the target moved
            now = body_hashes(index, definition)
            shared = sum((Counter(entry.body) & Counter(now)).values())
            if shared:
                why = f"{owner} now builds {built[1]}, whose {name} is new since the review and shares {shared} statement(s) with it"
                scored.append((jaccard(entry.body, now), Relocated(source, index, definition, why)))
            break  # the first class of the lineage that defines the name is the method its instances run
    return clearly_best(scored, 0.0, t.target_renamed_margin)


def _defines(reader: TreeReader, at: ClassAt, name: str) -> tuple[SourceFile, ModuleIndex, Definition] | None:
    """The plain method ``name`` that the class at ``at`` defines itself, with its file (None when it does not)."""
    indexed = reader.indexed(at[0])
    if indexed is None:
        return None
    source, index = indexed
    definition = next((d for d in index.definitions if d.qualname == f"{at[1]}.{name}" and d.accessor is None), None)
    return (source, index, definition) if definition is not None else None


def _lineage(reader: TreeReader, at: ClassAt) -> list[ClassAt]:
    """The class at ``at`` and its bases, nearest first, as far as they are found (:data:`~.forwarding.MAX_HOPS` deep)."""
    chain: list[ClassAt] = []
    todo = [at]
    while todo and len(chain) <= MAX_HOPS:
        relpath, qualname = todo.pop(0)
        indexed = reader.indexed(relpath)
        klass = class_named(indexed[1], qualname) if indexed is not None else None
        if indexed is None or klass is None or (relpath, qualname) in chain:
            continue
        chain.append((relpath, qualname))
        todo.extend(found for base in base_names(indexed[1], klass) if (found := _class_at(reader, relpath, base)) is not None)
    return chain


def _class_at(reader: TreeReader, relpath: str, name: str) -> ClassAt | None:
    """Where the class ``name``, as module ``relpath`` sees it, is defined (None when it is no class found)."""
    found = defining(reader, relpath, name)
    if found is None:
        return None
    indexed = reader.indexed(found[0])
    return found if indexed is not None and class_named(indexed[1], found[1]) is not None else None


def _built(reader: TreeReader, lineage: list[ClassAt]) -> list[ClassAt]:
    """The classes that the classes of ``lineage`` name in their bodies (outside ``def`` headers and string literals),
    in order of appearance; the lineage's own classes are not among them."""
    built: list[ClassAt] = []
    looked: dict[tuple[str, str], ClassAt | None] = {}
    for relpath, qualname in lineage:
        indexed = reader.indexed(relpath)
        klass = class_named(indexed[1], qualname) if indexed is not None else None
        if indexed is None or klass is None:
            continue
        spelled = [_names(s.text) for s in indexed[1].statements_within(klass.start_line, klass.end_line) if not s.text.startswith(_HEADERS)]
        prefetch_homes(reader, relpath, {word for words in spelled for word in words})
        for words in spelled:
            for word in words:
                if (relpath, word) not in looked:
                    looked[relpath, word] = _class_at(reader, relpath, word)
                at = looked[relpath, word]
                if at is not None and at not in lineage and at not in built:
                    built.append(at)
    return built


def _names(text: str) -> list[str]:
    """The distinct names a statement's text spells as code (string literals and comments left out)."""
    names: dict[str, None] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME:
                names.setdefault(token.string)
    except (tokenize.TokenError, SyntaxError):
        pass  # a header cut from its block may end early: the names read so far count
    return list(names)

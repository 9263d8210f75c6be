"""A target that left its module for one its module now imports, or left its class for another class of its module.

Three refactors across modules and classes that keep the target's body (RefactoringMiner's *Move Method* and *Move and
Rename Method*), each told by a fact of the new release rather than by the body alone:

* ``re-exported`` — the old module no longer defines the target's name but imports it (``from .audio_video import
  write_video_audio as write_video_audio_ltx2``): the definition the import resolves to is the target, moved (renamed
  when imported under another name). Upstream keeps the old name importable exactly so that callers keep working.
* ``moved-with-imports`` — a target gone from its module whose qualname is now defined in a module its old module
  newly imports from (``_prepare_audio_stream`` went along with the function that used it), sharing part of the
  reviewed body: moved there. The new import is the evidence; the body may have grown.
* ``moved-to-class`` — a method gone from its class, now defined under its own name by a class of the same module that
  did not define it at the review, with the clearly closest body: moved to that class (a pipeline method that became a
  pipeline unit's own). Needs the reviewed release.
* ``same-name-in-module`` — a module function gone from its module's top level whose name exactly one class of that
  module now defines, new since the review (or a method turned the module's only new function of its name): moved
  there, whatever became of its body (``_resolve_reference_image_shape`` became a pipeline unit's method and every
  statement of it was rewritten). Needs the reviewed release.
* ``folded-into-base`` — a method whose class is gone from its module while the class's reviewed base is still there
  and defines the method, sharing part of its body: the subclass was folded into its base (variant subclasses
  replaced by one class that dispatches), so the base's method is the target moved. Needs the reviewed release.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.lock.facts import body_hashes, body_of, header_of, jaccard
from infralens.drift.match.best import clearly_best
from infralens.drift.match.callers import callers_at_review, calls_before
from infralens.drift.match.forwarding import base_names, class_named
from infralens.drift.match.names import defining, modules_imported
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in
from infralens.drift.match.rules import Thresholds
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile


@dataclass(frozen=True)
class Relocated:
    """Where the target went, and the fact of the new release that says so (in words)."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    why: str


def re_exported(reader: TreeReader, entry: AnnotationLock) -> Relocated | None:
    """The definition the target's old module now imports under the target's top-level name (None when it defines
    the name itself, imports nothing under it, or the import leads nowhere)."""
    home = module_now(reader, entry)
    indexed = reader.indexed(home) if home is not None else None
    if home is None or indexed is None:
        return None
    _, index = indexed
    top, _, rest = entry.target.partition(".")
    if any(d.qualname == top for d in index.definitions):
        return None  # defined here: not a re-export (the same-place rules decide)
    resolved = defining(reader, home, top)
    relpath, name = resolved if resolved is not None else (home, top)
    found = reader.indexed(relpath) if relpath != home else None
    if found is None:
        return None
    source, there = found
    qualname = f"{name}.{rest}" if rest else name
    definition = next((d for d in there.definitions if d.qualname == qualname and d.accessor is None and d.kind is entry.kind), None)
    if definition is None:
        return None
    how = f"imported as {top}" if name != top else "imported under its name"
    return Relocated(source, there, definition, f"{entry.module} now imports {top} from {source.module} ({how})")


def module_now(reader: TreeReader, entry: AnnotationLock) -> str | None:
    """The file that defines the target's module in the checked tree: its reviewed file, or the file the module name
    now resolves to when that one is gone (a module turned package keeps its name in ``pkg/__init__.py``)."""
    if reader.source(entry.relpath) is not None:
        return entry.relpath
    return reader.tree.module_file(entry.module)


def moved_with_imports(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The target's qualname in a module its old module imports now but did not import at the review, holding part of
    the reviewed body (the best overlap; None when no such module defines it)."""
    if reviewed is None:
        return None
    home = module_now(reader, entry)
    now, before = reader.indexed(home) if home is not None else None, reviewed.indexed(entry.relpath)
    if now is None or before is None:
        return None
    newly = modules_imported(*now) - modules_imported(*before)
    scored: list[tuple[float, Relocated]] = []
    for module in sorted(newly):
        relpath = reader.tree.module_file(module)
        indexed = reader.indexed(relpath) if relpath is not None and relpath not in (entry.relpath, home) else None
        if indexed is None or defined_in(reviewed, relpath or "", entry.target):
            continue
        source, index = indexed
        for definition in index.definitions:
            if definition.qualname != entry.target or definition.accessor is not None or definition.kind is not entry.kind:
                continue
            overlap = jaccard(entry.body, body_hashes(index, definition))
            if overlap > 0.0:
                why = f"{entry.module} now imports from {module}, which defines {entry.target} (statement overlap {overlap:.2f})"
                scored.append((overlap, Relocated(source, index, definition, why)))
    return clearly_best(scored, min(overlap for overlap, _ in scored), t.target_renamed_margin) if scored else None


def moved_to_class(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The method of the target's name in another class of its module, new there since the review, whose body clearly
    overlaps the reviewed one most (at least :attr:`~.rules.Thresholds.target_moved_overlap`)."""
    owner, _, name = entry.target.rpartition(".")
    if not owner or "." in owner or name.startswith("__") or reviewed is None:
        return None
    indexed = reader.indexed(entry.relpath)
    if indexed is None:
        return None
    source, index = indexed
    scored: list[tuple[float, Relocated]] = []
    for definition in index.definitions:
        cls, _, method = definition.qualname.rpartition(".")
        if method != name or not cls or "." in cls or cls == owner or definition.kind is DefinitionKind.CLASS or definition.accessor is not None:
            continue
        if defined_in(reviewed, entry.relpath, definition.qualname):
            continue  # that class had the method at the review: a namesake, not the target moved
        overlap = jaccard(entry.body, body_hashes(index, definition))
        scored.append((overlap, Relocated(source, index, definition, f"{name} left {owner} for {cls}, which did not define it at the review")))
    return clearly_best(scored, t.target_moved_overlap, t.target_renamed_margin)


def same_name_here(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The only definition of the target's name at the other level of its own module (a class's method for a module
    function, a module function for a method), new there since the review, when no definition of that name is left at
    the target's own level: the name left one level of the module for the other."""
    name, method = entry.target.rsplit(".", 1)[-1], "." in entry.target
    indexed = reader.indexed(entry.relpath)
    if reviewed is None or indexed is None or name.startswith("__") or entry.target.count(".") > 1:
        return None
    source, index = indexed
    named = [d for d in index.definitions if d.qualname.rsplit(".", 1)[-1] == name and d.kind is not DefinitionKind.CLASS and d.accessor is None]
    other = [d for d in named if ("." in d.qualname) != method and d.qualname.count(".") <= 1]
    if len(other) != 1 or len(named) != 1 or defined_in(reviewed, entry.relpath, other[0].qualname):
        return None  # several, one at the target's own level still, or one that was there at the review
    where = f"the method {other[0].qualname}" if not method else "a module function"
    return Relocated(source, index, other[0], f"{name} is now {where}, the only definition of its name in the module, new since the review")


def folded_into_base(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The method of the target's name in a base of its reviewed class, when that class is gone from its module and
    the base, still defined there, holds at least :attr:`~.rules.Thresholds.carried_statements` statements of the
    reviewed body (the first such base, in the order the class header names them)."""
    owner, _, name = entry.target.rpartition(".")
    if not owner or "." in owner or reviewed is None:
        return None
    before, now = reviewed.indexed(entry.relpath), reader.indexed(entry.relpath)
    if before is None or now is None:
        return None
    klass = class_named(before[1], owner)
    if klass is None or class_named(now[1], owner) is not None:
        return None  # the class is still here (or was not): nothing was folded
    source, index = now
    for base in base_names(before[1], klass):
        definition = next((d for d in index.definitions if d.qualname == f"{base}.{name}" and d.accessor is None and d.kind is entry.kind), None)
        if definition is None or class_named(index, base) is None:
            continue
        now_body = body_hashes(index, definition)
        shared = sum((Counter(entry.body) & Counter(now_body)).values())
        if shared >= t.carried_statements:
            overlap = jaccard(entry.body, now_body)
            why = f"{owner} is gone and its base {base} defines {name}, sharing {shared} statements (overlap {overlap:.2f})"
            return Relocated(source, index, definition, why)
    return None


def inlined_into_caller(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The one function of the target's module that called it at the review, is still defined there (callers gone with
    it, such as the attention classes folded into one, take nothing in) and no longer calls it, that gained at least
    :attr:`~.rules.Thresholds.carried_statements` statements of the reviewed body it did not hold then, when the target
    is gone from the module: the target's code was inlined into it (a recursive private helper folded into the public
    function that started it, as RefactoringMiner's *Inline Method*). A method's callers are those calling it on any
    object (transformers 4.53's ``_init_weights`` took in the ``_reset_parameters`` it called on each attention module,
    ``self.`` read as ``module.``; the layer's own ``__init__`` that called it on ``self`` took nothing)."""
    before, now = (reviewed.indexed(entry.relpath) if reviewed is not None else None), reader.indexed(entry.relpath)
    if reviewed is None or before is None or now is None or any(d.qualname == entry.target for d in now[1].definitions):
        return None
    source, index = now
    owner, _, name = entry.target.rpartition(".")
    took: list[tuple[str, Definition, int]] = []
    by_any_receiver = {c for r, c, text in calls_before(reviewed, name, entry.relpath) if r == entry.relpath and f". {name} (" in text} if owner else set()
    for caller in sorted(callers_at_review(reviewed, entry) | by_any_receiver - {entry.target}):
        old = next((d for d in before[1].definitions if d.qualname == caller and d.accessor is None), None)
        new = next((d for d in index.definitions if d.qualname == caller and d.accessor is None and d.kind is not DefinitionKind.CLASS), None)
        if old is None or new is None or any(f" {name} (" in f" {s.text}" or f". {name} (" in s.text for s in body_of(index, new)):
            continue  # gone with the target, or it still calls the target's name: a call, not an inlining
        gained = sum((Counter(entry.body) & (Counter(body_hashes(index, new)) - Counter(body_hashes(before[1], old)))).values())
        if gained >= t.carried_statements:
            took.append((caller, new, gained))
    if len(took) != 1:
        return None  # none took it in, or several: which one did is not known
    caller, new, gained = took[0]
    why = f"{entry.target} is gone and {caller}, which called it at the review and no longer does, gained {gained} of its statements"
    return Relocated(source, index, new, why)


def callers_own_lines(reviewed: TreeReader | None, relpath: str, index: ModuleIndex, caller: Definition) -> frozenset[int]:
    """The first lines of the statements of ``caller``, which took an inlined target in, that stay its own (rule
    ``callers-own-lines``): its ``def`` line, and its ``return`` statements when it returned at the review. The
    target's header and returns have no counterpart there: the caller had its own then and keeps them."""
    header = header_of(index, caller)
    own = {header.start_line} if header is not None else set()
    before = reviewed.indexed(relpath) if reviewed is not None else None
    if before is None:
        return frozenset(own)
    old = next((d for d in before[1].definitions if d.qualname == caller.qualname and d.accessor is None), None)
    if old is not None and any(_returns(s.text) for s in body_of(before[1], old)):
        own |= {s.start_line for s in body_of(index, caller) if _returns(s.text)}
    return frozenset(own)


def _returns(text: str) -> bool:
    return text == "return" or text.startswith("return ")

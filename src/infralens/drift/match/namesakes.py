"""A target that kept its name but changed its level or its class, told by what its own module says of that name.

Container rules for a function whose body was rewritten on the way, so that the exact statement overlap the other
moving rules ask for is not there; the evidence is a fact of the new release about the name, and the body only has to
resemble the reviewed one (a close statement, :attr:`~.rules.Thresholds.edit_similarity`, for at least
:attr:`~.rules.Thresholds.renamed_words_share` of the reviewed statements):

* ``named-by-its-module`` — a method or a nested function gone from its module, while that module now defines at its top
  level, or imports by that very name, a function of the target's name that was not a top-level function there at the
  review: the method became a module function (``PreTrainedModel.kernelize`` → ``hub_kernels.kernelize``, imported
  by ``modeling_utils``; ``Trainer.propagate_args_to_deepspeed`` → ``integrations.deepspeed``), or a nested helper was
  lifted to its file's top level (``_load_pretrained_model._find_mismatched_keys``). Upstream imports it under the
  old name so that the old module's code keeps calling it.
* ``folded-into-subclass`` — a method whose class is gone from its module, while the one class of that module that
  named it as a base at the review now defines the method itself: the mixin was folded into the class that used it
  (``SpecialTokensMixin.add_special_tokens`` → ``PreTrainedTokenizerBase.add_special_tokens``). The reverse of
  ``folded-into-base``.
* ``pushed-down-to-subclass`` — a method gone from a class that is still there, now defined by a class of the same
  package that names it as a base and did not define the method at the review, the one resembling it clearly most (RefactoringMiner's *Push
  Down Method*): ``PreTrainedTokenizerBase.truncate_sequences`` → ``PythonBackend.truncate_sequences``.
* ``moved-to-sibling-base`` — a method gone from a class that is still there, now defined, new since the review, by the
  one other base of the classes inheriting it that does: moved between two mixins of the same classes.

All need the reviewed release (what was defined where, and the reviewed body's texts).
"""

from __future__ import annotations

import posixpath

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.lock.facts import body_of
from infralens.drift.match.best import clearly_best
from infralens.drift.match.forwarding import base_names, class_named
from infralens.drift.match.imported import Relocated
from infralens.drift.match.names import defining
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.renamed_words import close_share
from infralens.drift.match.reviewed import defined_in, reviewed_texts
from infralens.drift.match.rules import CONTENTLESS, Thresholds
from infralens.drift.match.textscan import DefinitionProbe
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile


def named_by_its_module(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The top-level function of the target's name that the target's module defines or imports by that name, new there
    since the review, resembling the reviewed body (see the module docstring); None for a module function."""
    owner, _, name = entry.target.rpartition(".")
    if not owner or entry.kind is DefinitionKind.CLASS or name.startswith("__") or reviewed is None:
        return None
    found = defining(reader, entry.relpath, name)
    if found is None or found[1] != name:
        return None  # not named there, or imported under another name (``re-exported`` reads renames)
    relpath = found[0]
    indexed = reader.indexed(relpath)
    if indexed is None or defined_in(reviewed, relpath, name):
        return None  # a function of that name was there at the review: a namesake, not the target
    source, index = indexed
    definition = _top_level_function(index, name)
    if definition is None or not _resembles(reviewed, entry, index, definition, t):
        return None
    where = "defines" if relpath == entry.relpath else f"imports it from {source.module}, which defines"
    return Relocated(source, index, definition, f"{entry.module} now {where} {name} at the top level, new since the review")


def folded_into_subclass(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The method of the target's name in the one class of its module that inherited the target's (now gone) class at
    the review and defines the method now but did not then, resembling the reviewed body (see the module docstring)."""
    owner, _, name = entry.target.rpartition(".")
    if not owner or "." in owner or reviewed is None:
        return None
    before, now = reviewed.indexed(entry.relpath), reader.indexed(entry.relpath)
    if before is None or now is None or class_named(before[1], owner) is None or class_named(now[1], owner) is not None:
        return None  # the class is still here (or was not): nothing was folded
    source, index = now
    heirs = []
    for definition in index.definitions:
        heir, _, method = definition.qualname.rpartition(".")
        if method != name or not heir or "." in heir or definition.accessor is not None or definition.kind is not entry.kind:
            continue
        reviewed_heir = class_named(before[1], heir)
        if reviewed_heir is not None and owner in base_names(before[1], reviewed_heir) and not defined_in(reviewed, entry.relpath, definition.qualname):
            heirs.append(definition)
    if len(heirs) != 1 or not _resembles(reviewed, entry, index, heirs[0], t):
        return None  # none, or several classes took it in: which one is the target's home is not known
    heir = heirs[0].qualname.rpartition(".")[0]
    return Relocated(source, index, heirs[0], f"{owner} is gone and {heir}, which inherited it at the review, now defines {name}")


def pushed_down_to_subclass(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The method of the target's name on a class of the target's package (its file's folder) that names the target's
    (still present) class as a base and did not define the method at the review, resembling the reviewed body clearly most (a share of
    close statements and of statements kept as they were, averaged: a copy kept verbatim beats one rewritten)."""
    owner, _, name = entry.target.rpartition(".")
    if not owner or "." in owner or name.startswith("__") or reviewed is None:
        return None
    now = reader.indexed(entry.relpath)
    if now is None or class_named(now[1], owner) is None:
        return None  # the class is gone: ``folded-into-subclass`` reads that
    wanted = _wanted(reviewed, entry)
    scored: list[tuple[float, Relocated]] = []
    folder, probe = posixpath.dirname(entry.relpath), DefinitionProbe(name, top_level=False)
    for relpath in reader.python_files() if wanted else ():
        if posixpath.dirname(relpath) != folder:
            continue  # a subclass in another package builds on the class (another model's), it is not where its code went
        data = reader.read_bytes(relpath)
        indexed = reader.indexed(relpath) if data is not None and owner.encode() in data and probe(data) else None
        if indexed is None:
            continue
        source, index = indexed
        for definition in index.definitions:
            heir, _, method = definition.qualname.rpartition(".")
            if method != name or not heir or "." in heir or definition.accessor is not None or definition.kind is not entry.kind:
                continue
            klass = class_named(index, heir)
            if klass is None or owner not in base_names(index, klass) or defined_in(reviewed, relpath, definition.qualname):
                continue
            body = [s.text for s in body_of(index, definition)]
            share = (close_share(wanted, body, t) + sum(text in body for text in wanted) / len(wanted)) / 2  # a kept statement counts twice
            scored.append((share, Relocated(source, index, definition, f"{owner} still defines no {name}; its subclass {heir} now does ({share:.0%} alike)")))
    return clearly_best(scored, t.renamed_words_share, t.target_renamed_margin)


def moved_to_sibling_base(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The method of the target's name on the one other base of the classes inheriting the target's (still present)
    class that defines it, new there since the review, resembling the reviewed body: the method moved from one mixin to
    its sibling, so an object built from both still has it by that name (RefactoringMiner's *Move Method* between two
    bases). ``UNet2DConditionLoadersMixin.unfuse_lora`` → ``PeftAdapterMixin.unfuse_lora``, both bases of the UNet
    models and of ``PriorTransformer``."""
    owner, _, name = entry.target.rpartition(".")
    now = reader.indexed(entry.relpath)
    if not owner or "." in owner or name.startswith("__") or reviewed is None or now is None or class_named(now[1], owner) is None:
        return None
    files = sorted(reader.files_with_words([owner]) or ())
    if len(files) > t.sibling_heir_files:
        return None  # too many files name the class to single out a sibling (or its name says too little to search)
    heirs = [(relpath, base_names(index, c)) for relpath, _, index in reader.indexed_files(files) for c in _classes(index) if owner in base_names(index, c)]
    if not heirs:
        return None
    found: dict[tuple[str, str], Relocated] = {}
    for relpath, base in dict.fromkeys((relpath, base) for relpath, bases in heirs for base in bases if base != owner):
        method = _method_of(reader, relpath, base, name)
        if method is None or (key := (method[0].relpath, method[2].qualname)) in found or defined_in(reviewed, *key):
            continue  # no such method, one already found, or a namesake there at the review
        if not _resembles(reviewed, entry, method[1], method[2], t):
            continue
        found[key] = Relocated(*method, f"{name} left {owner} for {base}, which classes inheriting {owner} inherit too")
    return next(iter(found.values())) if len(found) == 1 else None


def _method_of(reader: TreeReader, relpath: str, base: str, name: str) -> tuple[SourceFile, ModuleIndex, Definition] | None:
    """The method ``name`` of the class ``base`` as the file ``relpath`` sees it (imported or its own), if it has one."""
    where = defining(reader, relpath, base)
    indexed = reader.indexed(where[0]) if where is not None else None
    if where is None or indexed is None:
        return None
    method = next((d for d in indexed[1].definitions if d.qualname == f"{where[1]}.{name}" and d.accessor is None), None)
    return (indexed[0], indexed[1], method) if method is not None else None


def _classes(index: ModuleIndex) -> list[Definition]:
    return [d for d in index.definitions if d.kind is DefinitionKind.CLASS]


def _top_level_function(index: ModuleIndex, name: str) -> Definition | None:
    return next((d for d in index.definitions if d.qualname == name and d.kind is not DefinitionKind.CLASS and d.accessor is None), None)


def _resembles(reviewed: TreeReader, entry: AnnotationLock, index: ModuleIndex, definition: Definition, t: Thresholds) -> bool:
    """Whether ``definition`` holds a close statement for at least ``renamed_words_share`` of the reviewed body's."""
    wanted = _wanted(reviewed, entry)
    return bool(wanted) and close_share(wanted, [s.text for s in body_of(index, definition)], t) >= t.renamed_words_share


def _wanted(reviewed: TreeReader, entry: AnnotationLock) -> list[str]:
    """The reviewed body's statement texts that say something (none when the reviewed body is not at hand)."""
    return [text for text in reviewed_texts(reviewed, entry) or () if text not in CONTENTLESS]

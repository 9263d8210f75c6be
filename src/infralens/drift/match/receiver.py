"""A method moved onto the class of its parameter: the parameter is now ``self``.

Upstream often folds a helper object's method into the class it was handed: an attention *processor*'s
``__call__(self, attn, hidden_states, ...)`` becomes ``Attention.forward(self, hidden_states, ...)``, every
``attn.x`` now ``self.x``. RefactoringMiner reports this as *Move Method* (or *Inline Method* when the caller
ran the helper); the statements are the same once the parameter is read as ``self``. This module finds such a
home: the reviewed body (read from the reviewed release, :mod:`.reviewed`) is rewritten with one parameter as
``self``, and a function elsewhere that holds most of it, and did not hold it when the lock was reviewed, is the
target's new place.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from infralens.drift.lock.entries import AnnotationLock, short_hash
from infralens.drift.lock.facts import body_hashes, body_of, header_of, jaccard
from infralens.drift.match.best import clearly_best
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.rules import Thresholds
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile

_SELF_ATTRIBUTE = re.compile(r"\bself \. (\w+)")


@dataclass(frozen=True)
class Receiver:
    """The function the target moved into, with the parameter that became ``self``."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    parameter: str
    overlap: float
    """Share of the reviewed body (read with the parameter as ``self``) the function holds now."""


def moved_to_receiver(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Receiver | None:
    """The one function the gone target ``entry`` moved into with its first parameter (after ``self``) as ``self``."""
    reviewed_body = _reviewed_function(reviewed, entry)
    if reviewed_body is None:
        return None
    header, texts = reviewed_body
    parameter = _receiver_parameter(header)
    if parameter is None:
        return None
    rewritten = [_as_self(text, parameter) for text in texts]
    wanted = {short_hash(text) for text in rewritten}
    probes = sorted((t for t, old in zip(rewritten, texts, strict=True) if t != old), key=len, reverse=True)[:3]
    scored: list[tuple[float, Receiver]] = []
    for relpath, source, index in reader.indexed_files(reader.files_holding(probes, near=entry.relpath, hints=entry.target.split("."))):
        before = reviewed.indexed(relpath) if reviewed is not None else None
        for definition in index.definitions:
            if definition.kind is DefinitionKind.CLASS:
                continue
            held = wanted & set(body_hashes(index, definition))
            if before is not None and len(held & _held_before(before[1], definition.qualname)) * 2 > len(held):
                continue  # it held these statements when the lock was reviewed: a twin, not where the target went
            overlap = len(held) / len(wanted)
            scored.append((overlap, Receiver(source, index, definition, parameter, overlap)))
    return clearly_best(scored, t.target_renamed_overlap, t.target_renamed_margin)


def overlap_read_off_self(reviewed: TreeReader | None, entry: AnnotationLock, index: ModuleIndex, definition: Definition) -> float:
    """The overlap of a method's body with the reviewed module function ``entry`` once each of its parameters is read as
    the attribute the method spells for it (``stage_names`` as ``self.stage_names``, or ``self._stage_names``): a function
    turned method of the class that now holds its inputs. 0.0 for a method target or without the reviewed body."""
    reviewed_body = _reviewed_function(reviewed, entry, method=False)
    if reviewed_body is None:
        return 0.0
    header, texts = reviewed_body
    now = body_hashes(index, definition)
    read = {match for s in body_of(index, definition) for match in _SELF_ATTRIBUTE.findall(s.text)}
    for name in parameter_names(header) or []:
        attribute = next((a for a in (f"_{name}", name) if a in read), None)
        if attribute is not None:
            texts = [_as_attribute(text, name, attribute) for text in texts]
    return jaccard({short_hash(text) for text in texts}, set(now))


def _as_attribute(text: str, name: str, attribute: str) -> str:
    """``text`` (normalised) with every use of the variable ``name`` read as ``self.attribute`` (not an attribute of
    something else, nor a keyword in a call)."""
    tokens = text.split(" ")
    out = []
    for at, token in enumerate(tokens):
        before, after = tokens[at - 1] if at else "", tokens[at + 1] if at + 1 < len(tokens) else ""
        keyword = after == "=" and before in ("(", ",")
        out.append(f"self . {attribute}" if token == name and before != "." and not keyword else token)
    return " ".join(out)


def _reviewed_function(reviewed: TreeReader | None, entry: AnnotationLock, *, method: bool = True) -> tuple[str, list[str]] | None:
    """The reviewed target's header text and body texts, read from the reviewed release (only for a method target, or
    only for a module function one when not ``method``)."""
    indexed = reviewed.indexed(entry.relpath) if reviewed is not None else None
    if indexed is None or ("." in entry.target) != method:
        return None
    index = indexed[1]
    same = [d for d in index.definitions if d.qualname == entry.target and d.accessor is None and d.kind is not DefinitionKind.CLASS]
    if len(same) != 1 or body_hashes(index, same[0]) != entry.body:
        return None  # not the body the lock recorded: nothing to read it from
    header = header_of(index, same[0])
    return (header.text, [s.text for s in body_of(index, same[0])]) if header is not None else None


def _receiver_parameter(header: str) -> str | None:
    """The method's first parameter after ``self`` (the object it works on), from its normalised header."""
    names = parameter_names(header, positional=True)
    return names[1] if names is not None and len(names) > 1 and names[0] == "self" else None


def parameter_names(header: str, *, positional: bool = False) -> list[str] | None:
    """The parameter names of a normalised ``def`` header, in order (only those that can be passed by position, with
    ``positional``); None when it does not parse as one."""
    try:
        tree = ast.parse(header + " ...")
    except SyntaxError:
        return None
    function = tree.body[0] if tree.body else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    given = function.args
    names = [a.arg for a in [*given.posonlyargs, *given.args]]
    if not positional:
        names += [a.arg for a in [given.vararg, *given.kwonlyargs, given.kwarg] if a is not None]
    return names


def _as_self(text: str, parameter: str) -> str:
    """``text`` (normalised: one space between tokens) with every ``parameter`` token read as ``self``."""
    return " ".join("self" if token == parameter else token for token in text.split(" "))


def _held_before(index: ModuleIndex, qualname: str) -> set[str]:
    return {h for d in index.definitions if d.qualname == qualname and d.accessor is None for h in body_hashes(index, d)}

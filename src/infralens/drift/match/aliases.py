"""A function renamed to the name that used to alias it: ``sdpa_mask = sdpa_mask_recent_torch if new_torch else ...``.

Upstream sometimes picks one implementation under a public name with a module-level (or class-level) assignment, and a
later release drops the choice and defines the public name itself, with the chosen body. The reviewed release tells
it: an assignment in the target's own scope whose value is the target's name (alone, or one branch of a conditional
expression). When that name is now a definition, in the target's file, that was not one at the review, and it still
holds part of the reviewed body, more of it than of the other function the expression chose from, it is the target
renamed (rule ``renamed-to-alias``); a class renamed while its old name stays as an alias of the new one is found
through that alias (``class-kept-as-alias``). When every other function the expression chose from is gone as well, the new
definition merged them (``sdpa_mask`` now holds both the recent and the older torch's code): it holds part of the
reviewed body, and the target is taken to it whichever of the choices it resembles more (rule ``merged-into-alias``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.lock.facts import body_hashes, jaccard
from infralens.drift.match.imported import Relocated
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in
from infralens.drift.match.rules import Thresholds
from infralens.source import Definition, ModuleIndex, SourceFile


@dataclass(frozen=True)
class Aliased:
    """The definition the target's alias became, and the alias assignment that named the target at the review."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    alias: str
    """The reviewed assignment, as normalised text."""


def renamed_to_alias(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, *, merged: bool = False) -> Aliased | None:
    """The definition of a name that aliased the gone target at the review, when it now holds part of its body (more of
    it than of the alias's other choices; with ``merged``, instead: whatever it holds of them, when they are all gone)."""
    indexed = reviewed.indexed(entry.relpath) if reviewed is not None else None
    if indexed is None:
        return None
    scope, _, name = entry.target.rpartition(".")
    aliases = [
        (alias, s.text, others)
        for s in indexed[1].statements
        if s.scope == scope and (alias := _alias_of(s.text, name)) is not None
        for others in [_others(s.text, name)]
    ]
    now = reader.indexed(entry.relpath)
    if not aliases or now is None:
        return None
    source, index = now
    found = []
    for alias, text, others in aliases:
        qualname = f"{scope}.{alias}" if scope else alias
        if defined_in(reviewed, entry.relpath, qualname):
            continue  # it was a definition already: not the alias turned into one
        named = {f"{scope}.{o}" if scope else o for o in others}
        rivals = [body_hashes(indexed[1], d) for d in indexed[1].definitions if d.qualname in named]
        if merged and (not named or any(d.qualname in named for d in index.definitions)):
            continue  # a choice still defined (or none to merge): the alias picked one, it did not merge them
        for definition in (d for d in index.definitions if d.qualname == qualname and d.accessor is None):
            now_body = body_hashes(index, definition)
            overlap = jaccard(entry.body, now_body)
            if overlap > 0.0 and (merged or all(overlap > jaccard(rival, now_body) for rival in rivals)):
                found.append(Aliased(source, index, definition, text))
    return found[0] if len(found) == 1 else None


def _others(text: str, name: str) -> set[str]:
    """The other names a conditional alias of ``name`` chooses from (``b`` in ``x = name if c else b``)."""
    try:
        statement = ast.parse(text).body[0]
    except (SyntaxError, ValueError, RecursionError, MemoryError, IndexError):
        return set()
    value = getattr(statement, "value", None)
    if not isinstance(value, ast.IfExp):
        return set()
    return {c.id for c in (value.body, value.orelse) if isinstance(c, ast.Name) and c.id != name}


def _alias_of(text: str, name: str) -> str | None:
    """The name a plain assignment binds to ``name`` (``x = name`` or ``x = name if c else other``), else None."""
    if name not in text.split(" "):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    statement = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target, value = statement.target, statement.value
    else:
        return None
    if not isinstance(target, ast.Name) or target.id == name:
        return None
    choices = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
    return target.id if any(isinstance(c, ast.Name) and c.id == name for c in choices) else None


def kept_as_alias(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The method of the target's name on the class the target's gone class name is now a module-level alias of
    (``PreTrainedTokenizer = PythonBackend``, kept so old imports work; rule ``class-kept-as-alias``): the class was
    renamed, its old name left pointing at it. Only a method of a top-level class, in one file of the release. An
    ``__init__`` the renamed class no longer defines went to its ``__post_init__``, when it has one: the class became a
    dataclass as well (transformers 5's ``PretrainedConfig = PreTrainedConfig``)."""
    owner, _, name = entry.target.rpartition(".")
    if not owner or "." in owner or reviewed is None:
        return None
    alias = re.compile(rb"(?m)^" + re.escape(owner.encode()) + rb"[ \t]*=[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*$")
    found: list[Relocated] = []
    for relpath in sorted(reader.files_with_words([owner]) or ()):
        data = reader.read_bytes(relpath)
        matched = alias.search(data) if data is not None and owner.encode() + b" =" in data else None
        indexed = reader.indexed(relpath) if matched else None
        if matched and indexed is not None:
            new = matched.group(1).decode()
            why = f"its class's old name now aliases {new} ({owner} = {new})"
            methods = {d.qualname: d for d in indexed[1].definitions if d.qualname.startswith(f"{new}.") and d.accessor is None}
            method = methods.get(f"{new}.{name}")
            if method is None and name == "__init__":  # and made a dataclass on the way: its __post_init__ (init-as-post-init)
                method = methods.get(f"{new}.__post_init__")
            found.extend([Relocated(*indexed, method, why)] if method is not None else [])
    return found[0] if len(found) == 1 else None

"""Where a class that lost a method now sends its callers: its bases and the class its ``__new__`` returns.

Upstream renames a class by leaving the old name behind as a thin shim: a subclass of the new
class (``class Old(New)`` with a deprecation warning in ``__init__``) or a ``__new__`` that
returns an instance of the new class. Python then runs ``New.method`` for ``Old(...).method``,
so a reviewed ``Old.method`` that is no longer defined on ``Old`` continues in ``New.method``.
This module follows those two links statically, a few hops deep, and never guesses by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from infralens.drift.match.names import defining_file
from infralens.drift.match.reader import TreeReader
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile

MAX_HOPS = 3
"""How many shim-to-class links are followed before giving up."""

_NAME = re.compile(r"[A-Za-z_]\w*")
_RETURNED_CLASS = re.compile(r"^return ([A-Za-z_]\w*) \(")
_BUILT_LOCAL = re.compile(r"^([A-Za-z_]\w*) = ([A-Za-z_]\w*) \(")
_RETURNED_NAME = re.compile(r"^return ([A-Za-z_]\w*)$")


@dataclass(frozen=True)
class Forwarded:
    """The method a shim class forwards to, and how it was reached."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    via: str
    """The chain, e.g. ``LoraLoaderMixin → StableDiffusionLoraLoaderMixin (base class)``."""


def forwarded_method(reader: TreeReader, relpath: str, qualname: str) -> Forwarded | None:
    """The method ``qualname`` (``Class.method``) resolves to when ``Class`` is a shim that no longer defines it."""
    class_name, _, method = qualname.rpartition(".")
    if not class_name or "." in class_name:
        return None  # module-level functions and nested classes have no shim convention to follow
    for home in _class_homes(reader, relpath, class_name):
        found = _follow(reader, home, class_name, method, [class_name], MAX_HOPS)
        if found is not None:
            return found
    return None


def _class_homes(reader: TreeReader, relpath: str, class_name: str) -> list[str]:
    """Files defining a class ``class_name``: the recorded file first, then any other."""
    pattern = re.compile(rb"(?m)^class\s+" + re.escape(class_name.encode()) + rb"\b")
    homes = [relpath] if (data := reader.read_bytes(relpath)) is not None and pattern.search(data) else []
    homes.extend(reader.files_matching([pattern], words=[class_name], skip=relpath))
    return homes


def _follow(reader: TreeReader, relpath: str, class_name: str, method: str, chain: list[str], hops: int) -> Forwarded | None:
    """Look ``method`` up on ``class_name`` in ``relpath``; when it is missing, follow the class's forwards."""
    indexed = reader.indexed(relpath)
    if indexed is None:
        return None
    source, index = indexed
    owner = class_named(index, class_name)
    if owner is None:
        return None
    defined = [d for d in index.definitions if d.qualname == f"{class_name}.{method}" and d.accessor is None]
    if defined:
        return Forwarded(source, index, defined[0], " → ".join(chain)) if len(chain) > 1 else None
    if hops == 0:
        return None
    for name, why in _forwards(index, owner):
        if name in chain:
            continue
        target = _resolve_class(reader, source, index, owner, name)
        if target is None:
            continue
        found = _follow(reader, target, name, method, [*chain, f"{name} ({why})"], hops - 1)
        if found is not None:
            return found
    return None


def _forwards(index: ModuleIndex, owner: Definition) -> list[tuple[str, str]]:
    """Classes an instance of ``owner`` really is: its bases, and what its ``__new__`` returns (an instance it builds
    there, whether returned at once or first kept in a local and set up: ``processor = FluxAttnProcessor ( )`` ...
    ``return processor``)."""
    forwards = [(base, "base class") for base in base_names(index, owner)]
    built: dict[str, str] = {}
    for statement in index.statements_within(owner.start_line, owner.end_line):
        if statement.scope != f"{owner.qualname}.__new__":
            continue
        if match := _BUILT_LOCAL.match(statement.text):
            built[match.group(1)] = match.group(2)
        if match := _RETURNED_CLASS.match(statement.text):
            forwards.append((match.group(1), "returned by __new__"))
        elif (match := _RETURNED_NAME.match(statement.text)) and match.group(1) in built:
            forwards.append((built[match.group(1)], "built and returned by __new__"))
    return forwards


def class_named(index: ModuleIndex, name: str) -> Definition | None:
    """The class ``name`` (a qualname) defined in a module, if any."""
    return next((d for d in index.definitions if d.qualname == name and d.kind is DefinitionKind.CLASS), None)


def base_names(index: ModuleIndex, owner: Definition) -> list[str]:
    """The names of a class's bases, as its header writes them (last part of a dotted name)."""
    header = next((s for s in index.statements if s.start_line == owner.def_line and s.text.startswith("class ")), None)
    return _bases(header.text) if header is not None else []


def _bases(header: str) -> list[str]:
    """Base class names in a normalised ``class Name ( A , pkg . B , metaclass = M ) :`` header."""
    opened = header.find("(")
    if opened < 0:
        return []
    inside = header[opened + 1 : header.rfind(")")]
    bases = []
    for part in inside.split(","):
        tokens = part.split()
        if not tokens or "=" in tokens or tokens[0] in ("*", "**"):
            continue
        names = _NAME.findall(part)
        if names:
            bases.append(names[-1])
    return bases


def _resolve_class(reader: TreeReader, source: SourceFile, index: ModuleIndex, owner: Definition, name: str) -> str | None:
    """The relpath of the file defining class ``name`` as seen from inside ``owner`` (its module, else an import)."""
    scopes = frozenset({"", owner.qualname, *(d.qualname for d in index.definitions if d.qualname.startswith(owner.qualname + "."))})
    return defining_file(reader, source.relpath, name, scopes)

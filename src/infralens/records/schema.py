"""The JSON Schema of records: each record class one ``$defs`` entry, named by its ``json_name``.

:func:`definitions` walks the records given and every record and enum they contain; each field's type and
:func:`~.fields.spec` give its part (bounds, patterns, when a key is left out, flattened and keyed records).
A schema's owner adds its header and roots (:mod:`infralens.reports.schema_gen` for the reports,
:mod:`infralens.annotations.schema` for the annotation files).
"""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from infralens.records.fields import JsonObject, Record, _fields, _key, _key_field, _keyed, _optional


def _ref(name: str) -> JsonObject:
    return {"$ref": f"#/$defs/{name}"}


class _Builder:
    def __init__(self, enums: Mapping[type[Enum], tuple[str, str | None]]) -> None:
        self.defs: dict[str, JsonObject] = {}
        self.enums = enums

    def record(self, cls: type[Record]) -> JsonObject:
        name = cls.json_name or cls.__name__
        if name not in self.defs:
            self.defs[name] = {}  # claimed first: records may refer to each other
            self.defs[name] = self._object(cls)
        return _ref(name)

    def enum(self, cls: type[Enum]) -> JsonObject:
        name, doc = self.enums[cls]
        if name not in self.defs:
            self.defs[name] = {"enum": [member.value for member in cls]} | ({"description": doc} if doc else {})
        return _ref(name)

    def _object(self, cls: type[Record]) -> JsonObject:
        properties: dict[str, JsonObject] = {}
        required: list[str] = []
        together: dict[str, list[str]] = {}
        groups: _Groups = {}
        for f, tp, s in _fields(typing.cast(type, cls)):
            if f.name == _key_field(cls) or s.internal:
                continue  # written as the record's key in the object that holds it, or not in the document
            if f.name in cls.json_flatten:
                self._flatten(tp, properties, required, together)
                continue
            key = _key(f, s)
            base, optional = _optional(tp)
            value = self.value(base, s)
            if optional and s.omit != "none" and "." not in key:
                value = _nullable(value)
            if s.doc:
                value = value | {"description": s.doc}
            if "." in key:
                _add_member(groups, properties, required, key, self.value(base, s) | ({"description": s.doc} if s.doc else {}), s)
                continue
            properties[key] = value
            if s.omit == "never" and s.required:
                required.append(key)
        _close_groups(cls, groups, properties)
        if cls.json_order:
            properties = {k: properties[k] for k in cls.json_order if k in properties} | {k: v for k, v in properties.items() if k not in cls.json_order}
        doc = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
        title = {"title": cls.json_title} if cls.json_title else {}
        shape: JsonObject = {"description": doc, "type": "object", "required": required, "additionalProperties": False, "properties": properties}
        return title | shape | ({"dependentRequired": together} if together else {})

    def _flatten(self, tp: Any, properties: dict[str, JsonObject], required: list[str], together: dict[str, list[str]]) -> None:
        """A flattened record's keys join the object's; an optional one's required keys come all together or not at all."""
        base, optional = _optional(tp)
        inner = self.defs[str(self.record(base)["$ref"]).rsplit("/", 1)[1]]
        properties.update(typing.cast(dict[str, JsonObject], inner["properties"]))
        needed = typing.cast(list[str], inner["required"])
        if not optional:
            required.extend(needed)
            return
        for key in needed:
            together[key] = [other for other in needed if other != key]

    def value(self, tp: Any, s: Any) -> JsonObject:
        if s.const is not None:
            return {"const": s.const}
        if s.choices is not None:
            return {"enum": list(s.choices)}
        if isinstance(tp, type) and issubclass(tp, Enum):
            return self.enum(tp)
        if isinstance(tp, type) and issubclass(tp, Record):
            return self.record(tp)
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            return {"anyOf": [shape for option in typing.get_args(tp) for shape in self._alternatives(option)]}
        keyed = _keyed(tp)
        if keyed is not None:
            return _named_keys({"type": "object", "additionalProperties": self.record(keyed)}, s)
        origin = typing.get_origin(tp)
        if origin is tuple:
            return self._array(tp, s)
        if origin is dict:
            return self._mapping(tp, s)
        scalar: JsonObject = {"type": _SCALARS[tp]}
        for word, bound in (("minimum", s.minimum), ("maximum", s.maximum), ("pattern", s.pattern), ("minLength", s.min_length), ("maxLength", s.max_length)):
            if bound is not None:
                scalar[word] = bound
        return scalar

    def _alternatives(self, option: type[Record]) -> list[JsonObject]:
        """One record of a union: its shorthand (the value of its ``json_shorthand`` field), if any, then the record."""
        shorthand = [self.value(tp, s) for f, tp, s in _fields(option) if f.name == option.json_shorthand]
        return [*shorthand, self.record(option)]

    def _array(self, tp: Any, s: Any) -> JsonObject:
        """A tuple: of a fixed length, or ``tuple[X, ...]`` with the field's ``min_items``."""
        args = typing.get_args(tp)
        items = _bounded(self.value(args[0], _NO_SPEC), s)
        shape: JsonObject = {"type": "array", "items": items}
        if args[-1] is not Ellipsis:
            shape |= {"minItems": len(args), "maxItems": len(args)}
        elif s.min_items is not None:
            shape["minItems"] = s.min_items
        return shape

    def _mapping(self, tp: Any, s: Any) -> JsonObject:
        """A dict: keyed by an enum's values (each one there, or the field's ``required_keys``), or by any string."""
        key_type, item_type = typing.get_args(tp)
        items = _bounded(self.value(item_type, _NO_SPEC), s)
        if isinstance(key_type, type) and issubclass(key_type, Enum):
            members = {member.value: items for member in key_type}
            counted: JsonObject = {"type": "object", "required": list(s.required_keys or members), "properties": members, "additionalProperties": False}
            if s.open_keys:
                counted["patternProperties"] = {s.open_keys: items}
            return counted
        return _named_keys({"type": "object", "additionalProperties": items}, s)


def _named_keys(shape: JsonObject, s: Any) -> JsonObject:
    """An object's schema with the field's ``keys_pattern`` for its keys."""
    if s.keys_pattern:
        shape["propertyNames"] = {"pattern": s.keys_pattern}
    return shape


_Groups = dict[str, tuple[dict[str, JsonObject], list[str], bool]]
"""Dotted fields (``group.key``) written as one nested object per group: its members, required keys, and whether it may be null."""


def _add_member(groups: _Groups, properties: dict[str, JsonObject], required: list[str], key: str, member: JsonObject, s: Any) -> None:
    """A dotted field joins its group; the group takes the place (and the required slot) of the group's first field."""
    group, _, inner_key = key.partition(".")
    members, needed, nullable = groups.setdefault(group, ({}, [], False))
    members[inner_key] = member
    if s.required:
        needed.append(inner_key)
    groups[group] = (members, needed, nullable or s.null_group)
    if group not in properties:
        properties[group] = {}
        required.append(group)


def _close_groups(cls: type[Record], groups: _Groups, properties: dict[str, JsonObject]) -> None:
    """The record's derived (computed) members join their groups, and each group becomes its nested object."""
    for key, (_, schema) in cls.json_derived.items():
        group, _, inner_key = key.partition(".")
        members, needed, _nullable = groups.setdefault(group, ({}, [], False))
        members[inner_key] = schema
        needed.append(inner_key)
    for group, (members, needed, nullable) in groups.items():
        shape: JsonObject = {"type": "object", "required": needed, "additionalProperties": False, "properties": members}
        properties[group] = {"oneOf": [{"type": "null"}, shape]} if nullable else shape


_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


class _NoSpec:
    const = choices = item_minimum = item_maximum = item_pattern = min_items = keys_pattern = required_keys = open_keys = None
    minimum = maximum = pattern = min_length = max_length = item_min_length = item_max_length = None


_NO_SPEC = _NoSpec()


def _bounded(items: JsonObject, s: Any) -> JsonObject:
    """The schema of an array's items or an object's values with the field's ``item_minimum`` / ``item_maximum`` / ``item_pattern``."""
    bounds = (("minimum", s.item_minimum), ("maximum", s.item_maximum), ("pattern", s.item_pattern))
    for word, bound in (*bounds, ("minLength", s.item_min_length), ("maxLength", s.item_max_length)):
        if bound is not None:
            items = items | {word: bound}
    return items


def _nullable(value: JsonObject) -> JsonObject:
    if set(value) == {"type"} and isinstance(value["type"], str):
        return {"type": [value["type"], "null"]}
    return {"oneOf": [{"type": "null"}, value]}


def definitions(roots: Sequence[type[Record]], enums: Mapping[type[Enum], tuple[str, str | None]]) -> dict[str, JsonObject]:
    """``$defs`` for the records ``roots`` and every record and enum they contain (*enums*: each enum's name in
    ``$defs`` and its description)."""
    builder = _Builder(enums)
    for root in roots:
        builder.record(root)
    return builder.defs


def regenerate(path: Path, text: str, argv: Sequence[str], write: Callable[[Path, str], object], command: str) -> int:
    """A schema generator's command line: write *text* over the committed schema at *path*; with ``--check`` in
    *argv* only compare, and return 1 (naming *command*, which rewrites it) when the file differs."""
    current = path.read_text("utf-8") if path.is_file() else ""
    if "--check" in argv:
        if current != text:
            print(f"{path}: out of date — run: {command}", file=sys.stderr)
            return 1
        return 0
    if current != text:
        write(path, text)  # a file of the package itself, not a user's file
        print(f"wrote {path}")
    return 0

"""The reports' JSON Schema, generated from the record definitions (:mod:`.records`).

``python -m infralens.reports.schema_gen`` rewrites ``src/infralens/reports/schema/reports.schema.json``;
``--check`` exits 1 when the committed file differs from what the definitions give (a test runs the same
comparison). Each record class becomes one ``$defs`` entry named by its ``json_name``; each vocabulary enum
one ``{"enum": [...]}`` entry. The roots are the report records :data:`~.load.RECORDS` reads, the cost report
(:mod:`.cost_report`) last.
"""

from __future__ import annotations

import json
import sys
import typing
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from infralens.atomic import write_text
from infralens.reports.records import JsonObject, Record, _fields, _key, _key_field, _keyed, _optional
from infralens.reports.vocabulary import (
    DriftKind,
    DriftSeverity,
    LockFindingKind,
    MatchQuality,
    MutantVerdict,
    ReleaseState,
    ScenarioStatus,
    StepStatus,
    StepTier,
    TargetDriftKind,
)

ENUMS: dict[type[Enum], tuple[str, str | None]] = {
    StepStatus: ("stepStatus", None),
    StepTier: (
        "stepTier",
        "checked: under --mutate, the step's own expects rejected a wrong version other than the deletion and let none past; "
        "held: its expects held, no mutation run; ran: ran, its claims not shown to pin it; read: static; unverified: none of these.",
    ),
    MutantVerdict: (
        "mutantVerdict",
        "How one wrong version ended, seen from its step; past-expects, survived and untestable count against checked.",
    ),
    ScenarioStatus: ("scenarioStatus", None),
    DriftKind: ("stepKind", None),
    TargetDriftKind: ("targetKind", None),
    DriftSeverity: ("severity", None),
    MatchQuality: ("matchQuality", None),
    LockFindingKind: ("lockFindingKind", None),
    ReleaseState: (
        "releaseState",
        "A locked step in one release: a drift kind, or absent (not yet present in this or any earlier release of the range).",
    ),
}
"""Each vocabulary enum a report uses, its name in ``$defs`` and its description."""

SCHEMA_FILE = Path(__file__).resolve().parent / "schema" / "reports.schema.json"
HEADER: JsonObject = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://infralens.invalid/schema/reports.schema.json",
    "title": "InfraLens reports",
    "description": "The committed reports: the verification report (reports/verify-<device>.json), the drift report (reports/check.json), the "
    "release history (reports/history.json) and the cost report (reports/cost.json). Generated from the record definitions in infralens.reports "
    "(python -m infralens.reports.schema_gen); infralens.reports.load_report (load_cost_report for the cost report) validates a document against "
    "the definition of its kind.",
}


def _ref(name: str) -> JsonObject:
    return {"$ref": f"#/$defs/{name}"}


class _Builder:
    def __init__(self) -> None:
        self.defs: dict[str, JsonObject] = {}

    def record(self, cls: type[Record]) -> JsonObject:
        name = cls.json_name or cls.__name__
        if name not in self.defs:
            self.defs[name] = {}  # claimed first: records may refer to each other
            self.defs[name] = self._object(cls)
        return _ref(name)

    def enum(self, cls: type[Enum]) -> JsonObject:
        name, doc = ENUMS[cls]
        if name not in self.defs:
            self.defs[name] = {"enum": [member.value for member in cls]} | ({"description": doc} if doc else {})
        return _ref(name)

    def _object(self, cls: type[Record]) -> JsonObject:
        properties: dict[str, JsonObject] = {}
        required: list[str] = []
        groups: _Groups = {}
        for f, tp, s in _fields(typing.cast(type, cls)):
            if f.name == _key_field(cls):
                continue  # written as the record's key in the object that holds it
            if f.name == cls.json_flatten:
                inner = self.defs[str(self.record(tp)["$ref"]).rsplit("/", 1)[1]]
                properties.update(typing.cast(dict[str, JsonObject], inner["properties"]))
                required.extend(typing.cast(list[str], inner["required"]))
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
        doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        title = {"title": cls.json_title} if cls.json_title else {}
        return title | {"description": doc, "type": "object", "required": required, "additionalProperties": False, "properties": properties}

    def value(self, tp: Any, s: Any) -> JsonObject:
        if s.const is not None:
            return {"const": s.const}
        if s.choices is not None:
            return {"enum": list(s.choices)}
        if isinstance(tp, type) and issubclass(tp, Enum):
            return self.enum(tp)
        if isinstance(tp, type) and issubclass(tp, Record):
            return self.record(tp)
        keyed = _keyed(tp)
        if keyed is not None:
            return _named_keys({"type": "object", "additionalProperties": self.record(keyed)}, s)
        origin = typing.get_origin(tp)
        if origin is tuple:
            return self._array(tp, s)
        if origin is dict:
            return self._mapping(tp, s)
        scalar: JsonObject = {"type": _SCALARS[tp]}
        for word, bound in (("minimum", s.minimum), ("maximum", s.maximum), ("pattern", s.pattern)):
            if bound is not None:
                scalar[word] = bound
        return scalar

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
    minimum = maximum = pattern = None


_NO_SPEC = _NoSpec()


def _bounded(items: JsonObject, s: Any) -> JsonObject:
    """The schema of an array's items or an object's values with the field's ``item_minimum`` / ``item_maximum`` / ``item_pattern``."""
    for word, bound in (("minimum", s.item_minimum), ("maximum", s.item_maximum), ("pattern", s.item_pattern)):
        if bound is not None:
            items = items | {word: bound}
    return items


def _nullable(value: JsonObject) -> JsonObject:
    if set(value) == {"type"} and isinstance(value["type"], str):
        return {"type": [value["type"], "null"]}
    return {"oneOf": [{"type": "null"}, value]}


def definitions(roots: Sequence[type[Record]]) -> dict[str, JsonObject]:
    """``$defs`` for the records ``roots`` and every record and enum they contain."""
    builder = _Builder()
    for root in roots:
        builder.record(root)
    return builder.defs


def schema_document() -> JsonObject:
    """The whole schema: every report kind, one of them at the top."""
    from infralens.reports.load import RECORDS

    roots: list[type[Record]] = [*RECORDS.values()]
    return HEADER | {"oneOf": [_ref(root.json_name) for root in roots], "$defs": definitions(roots)}


def schema_text() -> str:
    return json.dumps(schema_document(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the generated schema over the committed one (``--check``: only compare)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    text = schema_text()
    current = SCHEMA_FILE.read_text("utf-8") if SCHEMA_FILE.is_file() else ""
    if "--check" in argv:
        if current != text:
            print(f"{SCHEMA_FILE}: out of date — run: python -m infralens.reports.schema_gen", file=sys.stderr)
            return 1
        return 0
    if current != text:
        write_text(SCHEMA_FILE, text)  # a file of the package itself, not a user's file
        print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

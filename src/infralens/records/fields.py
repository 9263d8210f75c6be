"""One definition per record: a frozen dataclass whose fields, with their :func:`spec`, yield the JSON and the JSON Schema.

Each record is a frozen dataclass; a field's type says what its JSON value is (``str``, ``int``, ``float``,
``bool``, an :class:`~enum.Enum` of the vocabulary, another record, ``tuple[X, ...]``, ``dict[str, X]`` or
``dict[SomeEnum, int]``, and ``X | None``; a ``tuple`` of records that have a ``json_key`` is a JSON object
keyed by it), and its :func:`spec` says the rest: the key when it differs from
the field name (``"holds.from"`` nests the value in an object ``holds``), bounds, a pattern or a fixed set
of values, a description, and when the key is left out. From that one definition:

- :func:`dump` gives the record's JSON object, key for key in the order the report is written;
- :func:`load` builds the record from a document the schema accepted;
- :func:`~.schema.definitions` gives the JSON Schema definitions (``$defs``) of a record and of all it contains.

A field's type may also be a union of records (``A | B``: one of them; the schema says ``anyOf``), and a field
may be ``internal`` (a value only the program holds, such as where in a file a value was read). The committed
schemas (the reports', the annotation files') are generated from these definitions, so the code and the
schemas cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import operator
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass
from enum import Enum
from typing import Any, ClassVar, Literal

JsonObject = dict[str, object]
Omit = Literal["never", "none", "empty"]
"""When a key is left out of the JSON: never (always written), when the value is None, or when it is empty."""


@dataclass(frozen=True)
class FieldSpec:
    """What a field's type does not say about its JSON value."""

    key: str | None = None
    doc: str | None = None
    omit: Omit = "never"
    required: bool = True
    """Whether a document must have the key (False: older reports may lack it; it is written all the same)."""
    minimum: float | None = None
    maximum: float | None = None
    pattern: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    choices: tuple[object, ...] | None = None
    const: object = None
    item_minimum: float | None = None
    item_maximum: float | None = None
    item_pattern: str | None = None
    """For ``tuple[str, ...]`` and ``dict[str, str]``: the pattern every item or value follows."""
    item_min_length: int | None = None
    item_max_length: int | None = None
    min_items: int | None = None
    keys_pattern: str | None = None
    """For ``dict[str, X]``: the pattern every key follows."""
    required_keys: tuple[str, ...] | None = None
    """For ``dict[SomeEnum, int]``: the members a document must have (default: all)."""
    open_keys: str | None = None
    """For ``dict[SomeEnum, int]``: a pattern for further keys (else only the enum's members)."""
    null_group: bool = False
    """For a dotted key: the whole group is ``null`` when this field is None."""
    internal: bool = False
    """Not part of the document: never written or read, and not in the schema (where a value was read in a file)."""


def spec(default: Any = MISSING, *, factory: Callable[[], Any] | None = None, compare: bool = True, **options: Any) -> Any:
    """A dataclass field carrying its :class:`FieldSpec` (``compare=False``: left out of equality, like a location)."""
    metadata = {"json": FieldSpec(**options)}
    if factory is not None:
        return dataclasses.field(default_factory=factory, compare=compare, metadata=metadata)
    return dataclasses.field(default=default, compare=compare, metadata=metadata)


_T = typing.TypeVar("_T")


@typing.dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, spec))
def record(cls: type[_T]) -> type[_T]:
    """Class decorator of every report record: a frozen dataclass whose :func:`spec` fields type checkers understand."""
    return dataclass(frozen=True)(cls)


class Record:
    """Mixin of every report record: ``to_json``/``from_json`` through the one definition.

    A record class may set ``json_name`` (its name in the schema's ``$defs``), ``json_order`` (key order
    when it differs from the field order), ``json_derived`` (keys computed from other fields, with their
    schema), ``json_key`` (its key in the JSON object that holds it) and override :meth:`before_dump` /
    :meth:`after_load` (fill computed fields).
    """

    json_name: ClassVar[str] = ""
    json_title: ClassVar[str | None] = None
    json_order: ClassVar[tuple[str, ...]] = ()
    json_derived: ClassVar[dict[str, tuple[Callable[[Any], object], JsonObject]]] = {}
    json_flatten: ClassVar[tuple[str, ...]] = ()
    """Fields holding a record whose keys are written inline (a candidate is a place plus its scores). An optional
    one (``X | None``) is left out when None, and read as None when the document lacks its first key."""
    json_shorthand: ClassVar[str | None] = None
    """A field whose value alone may stand for the record in a document (a selector written as just its text); the
    schema offers it as one more alternative wherever the record is one of a union's."""
    json_key: ClassVar[str | Callable[[Any], str] | None] = None
    """Makes a ``tuple`` of these records a JSON object keyed by each record's key, in the tuple's order: a field
    name (that field is the key and is not written inside the record's object: ``models[id]``), or a function of
    the record (all its fields are written: ``first_block_cache["flux1-dev@1024x1024"]``; the key is not read back).
    """

    def before_dump(self) -> Any:
        return self

    def after_load(self) -> Any:
        return self

    def to_json(self) -> JsonObject:
        return dump(self)

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Any:
        return load(cls, data)


_FIELDS: dict[type, tuple[tuple[dataclasses.Field[Any], Any, FieldSpec], ...]] = {}


def _fields(cls: type) -> tuple[tuple[dataclasses.Field[Any], Any, FieldSpec], ...]:
    """Each field of the record class with its resolved type and its :class:`FieldSpec` (worked out once per class)."""
    found = _FIELDS.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        found = _FIELDS[cls] = tuple((f, hints[f.name], f.metadata.get("json", FieldSpec())) for f in dataclasses.fields(cls))
    return found


def _key(f: dataclasses.Field[Any], s: FieldSpec) -> str:
    return s.key or f.name


def _keyed(tp: Any) -> type[Record] | None:
    """The record class of ``tuple[R, ...]`` when ``R`` has a :attr:`Record.json_key`, else None."""
    args = typing.get_args(tp)
    if typing.get_origin(tp) is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = args[0]
        if isinstance(item, type) and issubclass(item, Record) and item.json_key is not None:
            return item
    return None


def _key_field(cls: type) -> str | None:
    """The field a record is keyed by (written as its key in the enclosing object, not inside its own)."""
    key = getattr(cls, "json_key", None)
    return key if isinstance(key, str) else None


def _optional(tp: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``, else ``(tp, False)``."""
    args = typing.get_args(tp)
    if (typing.get_origin(tp) in (typing.Union, types.UnionType)) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return rest[0], True
    return tp, False


# ---------------------------------------------------------------------------
# Converters, compiled once per type: JSON -> value (readers) and value -> JSON (writers)
# ---------------------------------------------------------------------------

Convert = Callable[[Any], Any]
_READERS: dict[Any, Convert] = {}
_WRITERS: dict[Any, Convert] = {}


def _same(value: Any) -> Any:
    return value


def _strict(kind: type) -> Convert:
    def read(value: Any) -> Any:
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return read


def _number(value: Any) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    return float(value)


def _container(value: Any, kind: type) -> Any:
    if not isinstance(value, kind):
        raise TypeError(f"expected a JSON {'object' if kind is dict else 'array'}, got {type(value).__name__}")
    return value


def _reader(tp: Any) -> Convert:
    found = _READERS.get(tp)
    if found is None:
        found = _READERS[tp] = _make_reader(tp)
    return found


def _make_reader(tp: Any) -> Convert:
    base, optional = _optional(tp)
    if optional:
        inner = _reader(base)
        return lambda value: None if value is None else inner(value)
    if isinstance(base, type) and issubclass(base, Enum):
        return base
    if isinstance(base, type) and issubclass(base, Record):
        return lambda value: load(base, _container(value, dict))
    keyed = _keyed(base)
    if keyed is not None:
        return lambda value: tuple(load(keyed, _container(v, dict), key=k) for k, v in _container(value, dict).items())
    origin, args = typing.get_origin(base), typing.get_args(base)
    if origin is tuple:
        item = _reader(args[0])
        return lambda value: tuple(item(v) for v in _container(value, list))
    if origin is dict:
        key, item = _reader(args[0]), _reader(args[1])
        return lambda value: {key(k): item(v) for k, v in _container(value, dict).items()}
    if base is float:
        return _number
    if base in (int, str, bool):
        return _strict(base)
    return _same


def _writer(tp: Any) -> Convert:
    found = _WRITERS.get(tp)
    if found is None:
        found = _WRITERS[tp] = _make_writer(tp)
    return found


def _make_writer(tp: Any) -> Convert:
    base, optional = _optional(tp)
    if optional:
        inner = _writer(base)
        return lambda value: None if value is None else inner(value)
    if isinstance(base, type) and issubclass(base, Enum):
        return lambda value: value.value
    if isinstance(base, type) and issubclass(base, Record):
        return dump
    keyed = _keyed(base)
    if keyed is not None:
        key = keyed.json_key
        key_of: Callable[[Any], str] = operator.attrgetter(key) if isinstance(key, str) else typing.cast(Callable[[Any], str], key)
        return lambda value: {key_of(v): dump(v) for v in value}
    origin, args = typing.get_origin(base), typing.get_args(base)
    if origin is tuple:
        item = _writer(args[0])
        return list if item is _same else (lambda value: [item(v) for v in value])
    if origin is dict:
        key, item = _writer(args[0]), _writer(args[1])
        return lambda value: {key(k): item(v) for k, v in value.items()}
    return _same


@dataclass(frozen=True)
class _Slot:
    """How one field goes to and from JSON."""

    name: str
    key: str
    group: str | None
    spec: FieldSpec
    flatten: bool
    flat_key: str | None
    """For an optional flattened field: the key that tells whether the document holds it."""
    read: Convert
    write: Convert
    needed: bool
    """The constructor has no default for it."""
    optional: bool
    is_key: bool
    """The record's :attr:`Record.json_key` field: its key in the enclosing object."""


_PLANS: dict[type, tuple[_Slot, ...]] = {}


def _plan(cls: type) -> tuple[_Slot, ...]:
    found = _PLANS.get(cls)
    if found is None:
        slots = []
        for f, tp, s in _fields(cls):
            if s.internal:
                continue
            key = _key(f, s)
            group, _, inner = key.rpartition(".")
            needed = f.default is MISSING and f.default_factory is MISSING
            base, optional = _optional(tp)
            flatten = f.name in getattr(cls, "json_flatten", ())
            flat_key = _plan(base)[0].key if flatten and optional else None
            slots.append(_Slot(f.name, inner, group or None, s, flatten, flat_key, _reader(tp), _writer(tp), needed, optional, f.name == _key_field(cls)))
        found = _PLANS[cls] = tuple(slots)
    return found


# ---------------------------------------------------------------------------
# Record -> JSON
# ---------------------------------------------------------------------------


def _empty(value: object) -> bool:
    return value is None or (isinstance(value, (tuple, list, dict, str)) and not value)


def dump(record: Record) -> JsonObject:
    """The record's JSON object, keys in the order the report is written."""
    record = record.before_dump()
    cls = type(record)
    data: JsonObject = {}
    for slot in _plan(cls):
        if slot.is_key:
            continue
        value = getattr(record, slot.name)
        omit = slot.spec.omit
        if (omit == "none" and value is None) or (omit == "empty" and _empty(value)):
            continue
        if slot.flatten:
            if value is not None:
                data.update(dump(value))
        elif slot.group is None:
            data[slot.key] = slot.write(value)
        elif slot.spec.null_group and value is None:
            data[slot.group] = None
        elif data.get(slot.group, {}) is not None:
            typing.cast(dict[str, object], data.setdefault(slot.group, {}))[slot.key] = slot.write(value)
    for key, (compute, _) in cls.json_derived.items():
        group, _, inner = key.partition(".")
        typing.cast(dict[str, object], data.setdefault(group, {}))[inner] = compute(record)
    order = cls.json_order
    if order:
        data = {key: data[key] for key in order if key in data} | {k: v for k, v in data.items() if k not in order}
    return data


# ---------------------------------------------------------------------------
# JSON -> record
# ---------------------------------------------------------------------------


def load(cls: type[Any], data: Mapping[str, object], key: str | None = None) -> Any:
    """The record of a JSON object the schema accepted (a mismatch is ``TypeError``/``KeyError``/``ValueError``).

    ``key``: the object's key in the enclosing object, for a record keyed by a field (:attr:`Record.json_key`).
    """
    values: dict[str, Any] = {}
    for slot in _plan(cls):
        if slot.is_key:
            values[slot.name] = slot.read(key)
            continue
        if slot.flatten:
            values[slot.name] = None if slot.flat_key is not None and slot.flat_key not in data else slot.read(data)
            continue
        source: object = data if slot.group is None else data.get(slot.group)
        if source is None:
            continue  # a null group: the field keeps its default (None)
        if not isinstance(source, Mapping):
            raise TypeError(f"expected a JSON object at {slot.group!r}")
        if slot.key in source:
            values[slot.name] = slot.read(source[slot.key])
        elif slot.needed:
            if not slot.optional:
                raise KeyError(slot.key)
            values[slot.name] = None
    return cls(**values).after_load()

"""Narrow the values of a JSON document the schema has already accepted.

A mismatch here is a bug in the schema or the records, not bad input: it raises ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Mapping

JsonObject = dict[str, object]
"""A JSON object as ``json.loads`` returns it."""


def as_object(value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        raise TypeError(f"expected a JSON object, got {type(value).__name__}")
    return value


def as_list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError(f"expected a JSON array, got {type(value).__name__}")
    return value


def as_objects(value: object) -> list[dict[str, object]]:
    return [as_object(item) for item in as_list(value)]


def as_int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def as_float(value: object) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"expected a number, got {value!r}")
    return value


def optional_str(value: object) -> str | None:
    return None if value is None else str(value)


def strings(data: Mapping[str, object], *keys: str) -> tuple[str, ...]:
    """The values of *keys* in *data* as text, in order (for unpacking several string fields at once)."""
    return tuple(str(data[key]) for key in keys)

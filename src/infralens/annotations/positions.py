"""YAML reading that remembers where every value came from.

PyYAML's composer gives nodes with marks; we turn them into plain Python
values plus a map from a value's path (``("steps", 0, "at")``) to its
:class:`~infralens.errors.Location`. Duplicate keys, non-string keys and
alias expansion bombs are reported instead of silently accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from infralens.errors import Diagnostic, Location

PathKey = tuple[str | int, ...]

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's composer when PyYAML has it (about 100x faster on big files), else the pure-Python one."""

_PLAIN_COLLECTION_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}
_NUMBER_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}

MAX_INT_CHARS = 4_300
"""Longest integer text converted (Python's own limit for decimal text; also bounds hex and 1:30:00 spellings)."""
MAX_INT_BITS = 14_000
"""Largest integer kept (about 4,200 decimal digits: beyond it the number could not even be printed)."""
MAX_NODES = 50_000
"""Upper bound on values built from one file (defuses alias 'billion laughs')."""
MAX_ALIASED_VALUES = 2_000
"""Upper bound on values built by expanding aliases (``*name``); refuses alias bombs early."""


class YamlProblem(Exception):
    """Raised inside this module; carries a ready diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


@dataclass
class PositionedDocument:
    """A YAML document's value and the location of every value in it."""

    value: Any
    locations: dict[PathKey, Location] = field(default_factory=dict)
    source: str = ""
    """The YAML text itself (to place a problem inside a value, see :mod:`.code_quotes`)."""
    number_texts: dict[PathKey, str] = field(default_factory=dict)
    """How each integer or float was written (``0x10``, ``1_000`` and ``16`` all read as numbers), for fields that take only plain decimals."""

    def where(self, path: PathKey) -> Location:
        """The location of ``path``, or of its nearest ancestor that has one."""
        for cut in range(len(path), -1, -1):
            found = self.locations.get(tuple(path[:cut]))
            if found is not None:
                return found
        return next(iter(self.locations.values()), Location("<unknown>"))


def _location(path: str, node: yaml.Node) -> Location:
    return Location(path, node.start_mark.line + 1, node.start_mark.column + 1)


class _Builder:
    def __init__(self, path: str) -> None:
        self.path = path
        self.count = 0
        self.aliased = 0
        self.seen: set[int] = set()
        self.locations: dict[PathKey, Location] = {}
        self.number_texts: dict[PathKey, str] = {}
        self._constructor = yaml.SafeLoader("")  # only for scalar construction

    def build(self, node: yaml.Node, at: PathKey, depth: int = 0) -> Any:
        self.count += 1
        if id(node) in self.seen:
            self.aliased += 1
        else:
            self.seen.add(id(node))
        if self.count > MAX_NODES or self.aliased > MAX_ALIASED_VALUES or depth > 100:
            raise YamlProblem(
                Diagnostic(
                    _location(self.path, node),
                    "the document is too large or too deeply nested (aliases expand to too many values)",
                    "split the file or remove YAML anchors/aliases",
                    code="yaml",
                )
            )
        self.locations.setdefault(at, _location(self.path, node))
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.tag not in _PLAIN_COLLECTION_TAGS:
            raise YamlProblem(
                Diagnostic(
                    _location(self.path, node),
                    f"the YAML tag {node.tag!r} is not allowed",
                    "remove the '!!' tag: annotations are plain mappings, lists and strings",
                    code="yaml",
                )
            )
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, at, depth)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, at + (index,), depth + 1) for index, item in enumerate(node.value)]
        if node.tag in _NUMBER_TAGS:
            self.number_texts[at] = str(node.value)
        if node.tag == "tag:yaml.org,2002:int" and len(str(node.value)) > MAX_INT_CHARS:  # refused before it is converted
            hint = "write a small whole number (or quote it as a string)"
            raise YamlProblem(Diagnostic(_location(self.path, node), "cannot read this value: the number is too long", hint, code="yaml"))
        try:
            value = self._constructor.construct_object(node, deep=True)
        except yaml.YAMLError as error:
            problem = getattr(error, "problem", None) or str(error).splitlines()[0]
            raise YamlProblem(Diagnostic(_location(self.path, node), f"cannot read this value: {problem}", "quote it as a string", code="yaml")) from error
        except ValueError as error:  # e.g. an integer with more digits than Python converts
            hint = "write a small whole number (or quote it as a string)"
            raise YamlProblem(Diagnostic(_location(self.path, node), "cannot read this value: the number is too long", hint, code="yaml")) from error
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:  # 0x…, 0o…, 0b… or 1:30:00 spellings of a huge number
            hint = "write a small whole number (or quote it as a string)"
            raise YamlProblem(Diagnostic(_location(self.path, node), "cannot read this value: the number is too long", hint, code="yaml"))
        return value

    def _mapping(self, node: yaml.MappingNode, at: PathKey, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise YamlProblem(Diagnostic(_location(self.path, key_node), "merge keys ('<<') are not supported", "write the keys out", code="yaml"))
            if not isinstance(key_node, yaml.ScalarNode):
                raise YamlProblem(
                    Diagnostic(_location(self.path, key_node), "a mapping key must be a plain string", "use a simple word as the key", code="yaml")
                )
            key = str(key_node.value)
            if key in result:
                first = self.locations.get(at + (key,))
                raise YamlProblem(
                    Diagnostic(
                        _location(self.path, key_node),
                        f"duplicate key {key!r}" + (f" (first at line {first.line})" if first else ""),
                        "keep only one of them",
                        code="yaml",
                    )
                )
            self.locations[at + (key,)] = _location(self.path, value_node)
            self.locations[at + (key, "__key__")] = _location(self.path, key_node)
            result[key] = self.build(value_node, at + (key,), depth + 1)
            self.locations[at + (key,)] = _location(self.path, value_node)
        return result


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.split("\n")
    return lines[line][column : column + 1] if line < len(lines) else ""


_UNSEEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")
"""Control characters, and the separators YAML counts as line breaks but editors and git do not."""


def _unseen_character(text: str, path: str, kind: str) -> Diagnostic | None:
    """The first invisible character that would hide text or shift every later line number, if any."""
    found = _UNSEEN.search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    return Diagnostic(
        Location(path, line, column),
        f"the invisible character U+{ord(found.group()):04X} is not allowed in {kind}",
        "delete it (in a double-quoted string, an escape such as \\u2028 is fine)",
        code="yaml",
    )


def load_positioned(text: str, path: str, *, kind: str = "annotation files") -> PositionedDocument:
    """Parse one YAML document, raising :class:`YamlProblem` with a location on any error.

    *kind* names the files in messages ("annotation files", "the model catalog"); the limits are the same for all.
    """
    unseen = _unseen_character(text, path, kind)
    if unseen is not None:
        raise YamlProblem(unseen)
    try:
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        problem = error.problem or str(error)
        hint = "fix the YAML at this position"
        if mark and _char_at(text, mark.line, mark.column) == "\t":
            hint = "YAML does not allow tabs for indentation: indent with spaces"
        raise YamlProblem(Diagnostic(Location(path, line, col), f"YAML syntax error: {problem}", hint, code="yaml")) from error
    except yaml.YAMLError as error:
        raise YamlProblem(Diagnostic(Location(path), f"YAML error: {error}", "fix the YAML", code="yaml")) from error
    except RecursionError as error:
        raise YamlProblem(Diagnostic(Location(path), "YAML nesting is too deep", "flatten the document", code="yaml")) from error
    if node is None:
        return PositionedDocument(None, {(): Location(path, 1, 1)}, text)
    builder = _Builder(path)
    value = builder.build(node, ())
    return PositionedDocument(value, builder.locations, text, builder.number_texts)

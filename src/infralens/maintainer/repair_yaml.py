"""Span edits on an annotation file's own text, for ``infralens fix``.

The file is read as it is on disk (its line endings kept: LF, CRLF or CR) and composed with the same
YAML parser ``validate`` uses, so every node's position is an offset into the user's text. Each edit
replaces one value (after its anchor, keeping a comment between the key and the value) or inserts one
line, written with the file's own line ending; flow-style steps get flow-style edits. What cannot be
edited safely — a value reached through an alias, a tagged value — is refused at its line in the file.
:class:`YamlFile` also keeps the file's data as intended after the edits, which :mod:`.repair_check`
compares with what the edited text reads back as.
"""

from __future__ import annotations

import copy
import json
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from infralens.annotations import ContainsSelector, SingleSelector, load_text
from infralens.errors import InfralensError
from infralens.maintainer.scaffold_yaml import LOADER, column_of, line_ending, line_of, selector_text

_BREAK = re.compile(r"\r\n|\r|\n")
_PROPERTIES = re.compile(r"(?:[&!][^\s,\[\]{}]*[ \t]*)*")
_GAP = re.compile(r"(?:[ \t]+|#[^\r\n]*|\r\n|\r|\n)*")


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` with ``new`` (an insertion when ``start == end``)."""

    start: int
    end: int
    new: str


def read_user_text(path: Path, display: str) -> str:
    """The file's text exactly as stored (no newline translation)."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise InfralensError(f"{display}: the file is not valid UTF-8 (byte {error.start}); save it as UTF-8, then run the command again") from None
    except OSError as error:
        raise InfralensError(f"{display}: cannot read the file ({error.strerror or error}); nothing was written") from None


def next_line(text: str, index: int) -> int:
    """Where the line after the one holding ``index`` starts (``len(text)`` on the last line)."""
    found = _BREAK.search(text, index)
    return found.end() if found else len(text)


def value_end(text: str, node: yaml.Node) -> int:
    """Where a value's own text ends (a block node's end mark runs on to the next key's indentation)."""
    return len(text[: node.end_mark.index].rstrip())


def fields_of(mapping: yaml.MappingNode) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    return {str(key.value): (key, value) for key, value in mapping.value if isinstance(key, yaml.ScalarNode)}


class YamlFile:
    """One annotation file being edited: its text, its nodes, the edits so far and the data they intend."""

    def __init__(self, path: Path, display: str, text: str) -> None:
        self.original = text
        """The file's text as read (a byte-order mark included); what the write expects to find still there."""
        self.bom = "\ufeff" if text.startswith("\ufeff") else ""
        text = text[len(self.bom) :]  # positions below are offsets into the text after the mark
        self.path, self.display, self.text = path, display, text
        self.eol = line_ending(text)
        self.loaded = load_text(text, display) if text else None
        broken = next((d for d in self.loaded.diagnostics if d.code == "yaml"), None) if self.loaded else None
        if broken is not None:
            raise InfralensError(f"{broken}; nothing was written — fix the YAML ('infralens validate {display}'), then run the command again")
        try:
            self.root = yaml.compose(text, Loader=LOADER)
            self.data: Any = copy.deepcopy(yaml.load(text, Loader=LOADER))
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            where = f"{display}:{mark.line + 1}:{mark.column + 1}" if mark else display
            raise InfralensError(f"{where}: the YAML does not read ({error.problem}); fix it ('infralens validate {display}'), then run fix again") from None
        except (yaml.YAMLError, RecursionError) as error:
            raise InfralensError(f"{display}: the YAML does not read ({error}); fix it, then run fix again") from None
        self.shared = _shared_nodes(self.root)
        self.edits: list[Edit] = []
        self.created = False
        """A file fix creates (its text is the new text; :attr:`data` is what it must read back as)."""

    # -- where things are -----------------------------------------------------

    def where(self, node: yaml.Node | int) -> str:
        index = node if isinstance(node, int) else node.start_mark.index
        return f"{self.display}:{line_of(self.text, index)}:{column_of(self.text, index) + 1}"

    def annotation(self, annotation_id: str) -> tuple[yaml.MappingNode, dict[str, Any]]:
        """The annotation's mapping node and its (intended) data."""
        nodes = self.root.value if isinstance(self.root, yaml.SequenceNode) else [self.root]
        datas = self.data if isinstance(self.data, list) else [self.data]
        for node, data in zip(nodes, datas, strict=False):
            if isinstance(node, yaml.MappingNode) and isinstance(data, dict) and data.get("id") == annotation_id:
                return node, data
        raise InfralensError(f"{self.display}: annotation {annotation_id!r} is not in the file any more; run 'infralens check' and fix again")

    def steps(self, annotation_id: str) -> yaml.SequenceNode:
        node, _ = self.annotation(annotation_id)
        steps = fields_of(node).get("steps")
        if steps is None or not isinstance(steps[1], yaml.SequenceNode):
            raise InfralensError(f"{self.where(node)}: annotation {annotation_id!r} has no list of steps; run 'infralens validate {self.display}'")
        return steps[1]

    def editable(self, node: yaml.Node, what: str, at: yaml.Node | None = None) -> None:
        """Refuse a node an alias reaches too: editing it would change every place the alias stands for."""
        if id(node) in self.shared:
            raise InfralensError(
                f"{self.where(at or node)}: {what} shares its value with another place through a YAML anchor and alias "
                f"(&name at line {line_of(self.text, node.start_mark.index)}, *name), so fix cannot change one without the other; "
                "nothing was written — write the value out in full where the alias stands, then run fix again"
            )

    # -- edits ------------------------------------------------------------------

    def replace_value(self, key: yaml.Node, value: yaml.Node, flow_text: str, block_text: str | None, *, flow: bool, what: str) -> None:
        """Replace ``value`` (its anchor and any comment before it kept) with ``flow_text``, or ``block_text``
        (a block at column 0, lines joined by ``\\n``) where a block is needed and allowed."""
        self.editable(value, what, key)
        text = self.text
        start = value.start_mark.index
        properties = _PROPERTIES.match(text, start)
        properties_end = properties.end() if properties else start
        if "!" in text[start:properties_end]:
            raise InfralensError(f"{self.where(value)}: {what} carries a YAML tag, which fix does not rewrite; nothing was written — remove the tag")
        content = _GAP.match(text, properties_end).end()  # type: ignore[union-attr]
        end = max(value_end(text, value), content)
        if flow or block_text is None:
            self.edits.append(Edit(content, end, flow_text))
            return
        on_key_line = _BREAK.search(text, key.end_mark.index, content) is None
        lines = block_text.split("\n")
        if on_key_line:
            indent = " " * (key.start_mark.column + 2)
            cut = len(text[:content].rstrip(" \t"))
            self.edits.append(Edit(cut, end, "".join(self.eol + (indent + line if line else "") for line in lines)))
            return
        indent = " " * column_of(text, content)
        self.edits.append(Edit(content, end, lines[0] + "".join(self.eol + (indent + line if line else "") for line in lines[1:])))

    def set_key(self, mapping: yaml.MappingNode, after: yaml.Node, key: str, value: str, what: str) -> None:
        """Set ``key: value`` (``value`` already YAML) in ``mapping``: its value replaced, or a new entry after ``after``."""
        self.editable(mapping, what)
        found = fields_of(mapping).get(key)
        if found is not None:
            self.replace_value(*found, value, None, flow=mapping.flow_style, what=f"the '{key}:' of {what}")
            return
        end = value_end(self.text, after)
        if mapping.flow_style:
            self.edits.append(Edit(end, end, f", {key}: {value}"))
            return
        line = " " * mapping.start_mark.column + f"{key}: {value}"
        position = next_line(self.text, end)
        if position == len(self.text) and not self.text.endswith(("\n", "\r")):
            self.edits.append(Edit(position, position, self.eol + line))
        else:
            self.edits.append(Edit(position, position, line + self.eol))

    def insert(self, index: int, text: str) -> None:
        """Insert ``text`` (lines joined by ``\\n``) at ``index``, in the file's line ending."""
        self.edits.append(Edit(index, index, text.replace("\n", self.eol)))

    def remove(self, start: int, end: int) -> None:
        self.edits.append(Edit(start, end, ""))

    def edited(self) -> str:
        """The text with every edit applied (overlapping edits are a bug in the caller, refused)."""
        return self.bom + self._applied()

    def _applied(self) -> str:
        text, last = self.text, len(self.text) + 1
        # From the end backwards; of two insertions at one place, the later one is applied first so that it lands after the other.
        ordered = sorted(enumerate(self.edits), key=lambda item: (item[1].start, item[1].end, item[0]), reverse=True)
        for _, edit in ordered:
            if edit.end > last:
                raise InfralensError(f"{self.where(edit.start)}: two edits of fix overlap here; nothing was written — re-anchor this step by hand")
            text = text[: edit.start] + edit.new + text[edit.end :]
            last = edit.start
        return text

    def old_index(self, new_index: int) -> int:
        """The offset in the user's text of an offset in the edited text (for messages about the result)."""
        shift = 0
        for edit in sorted(self.edits, key=lambda e: e.start):
            if edit.start + shift > new_index:
                break
            if new_index < edit.start + shift + len(edit.new):
                return edit.start
            shift += len(edit.new) - (edit.end - edit.start)
        return max(0, min(len(self.text), new_index - shift))

    def old_line(self, edited: str, line: int) -> int:
        """The line of the user's file that line ``line`` of ``edited`` came from."""
        edited = edited[len(self.bom) :]
        starts = [0] + [m.end() for m in _BREAK.finditer(edited)]
        index = starts[min(max(line, 1), len(starts)) - 1]
        return line_of(self.text, self.old_index(index))


def _shared_nodes(root: yaml.Node | None) -> set[int]:
    """Ids of nodes reached more than once (an anchor repeated by an alias), and of everything inside them."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)] if root is not None else []
    while stack:
        node, inside = stack.pop()
        if id(node) in seen:
            if id(node) in shared:
                continue  # its insides are marked already (and alias bombs are not walked again and again)
            inside = True
        seen.add(id(node))
        if inside:
            shared.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend((part, inside) for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, inside) for item in node.value)
    return shared


# --------------------------------------------------------------------------
# Selectors as YAML
# --------------------------------------------------------------------------


def flow_selector(selectors: tuple[SingleSelector, ...]) -> str:
    """The selector as flow YAML (also what the block form must read back as)."""
    if len(selectors) == 2:
        return f"{{from: {_flow_single(selectors[0])}, to: {_flow_single(selectors[1])}}}"
    return _flow_single(selectors[0])


def _flow_single(selector: SingleSelector) -> str:
    quoted = json.dumps(selector.text, ensure_ascii=False)
    nth = f", nth: {selector.nth}" if selector.nth else ""
    if isinstance(selector, ContainsSelector):
        return f"{{contains: {quoted}{nth}}}"
    if "\n" not in selector.text and selector.nth is None:
        return quoted
    return f"{{text: {quoted}{nth}}}"


def block_selector(selectors: tuple[SingleSelector, ...]) -> str | None:
    """The selector as a block at column 0 (``None`` when it is one line: a quoted string or a short flow mapping)."""
    if len(selectors) == 2:
        return ("from:" + selector_text(selectors[0], "") + "to:" + selector_text(selectors[1], "")).rstrip("\n")
    written = selector_text(selectors[0], "")
    if not written.startswith("\n"):
        return None
    return textwrap.dedent(written.lstrip("\n")).rstrip("\n")


def selector_data(selectors: tuple[SingleSelector, ...]) -> Any:
    """What the selector reads back as."""
    return yaml.load(flow_selector(selectors), Loader=LOADER)


def quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)

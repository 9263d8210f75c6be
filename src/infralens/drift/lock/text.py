"""The lock's text format: entries to text and text to entries, keeping every byte of every block.

``annotations/annotations.lock`` is line-oriented so it reviews well in git and
parses fast (no YAML or JSON-Schema import on the warm path)::

    # comments are kept by every rewrite
    infralens-lock 1

    [annotation ddim-step]
    file = "annotations/diffusers/ddim-step.yaml"
    ...

    [step ddim-step/3f2a1c9e]
    text = "prev_timestep = timestep - ..."
    ...

Every value is JSON. An entry runs from its ``[kind id]`` header to the next
header; parsing keeps each entry's raw text so a partial rewrite (:func:`~infralens.drift.lock.file.compose`)
can leave every other byte of the file as it was, comments included.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from infralens.bounds import BadNumber, decimal_number
from infralens.drift.lock.entries import AnnotationLock, EntryKind, HandEdit, Lock, LockEntry, StepLock, annotation_of, lock_key
from infralens.errors import LockfileError
from infralens.hashing import sha256_text
from infralens.source import DefinitionKind

LOCK_FORMAT = 1
SEAL_KEY = "seal"
SEAL_LENGTH = 16
MAGIC = f"infralens-lock {LOCK_FORMAT}"
_HEADER = re.compile(r"^\[(annotation|step) ([^\]\s]+)\]\s*$")
_KEY_VALUE = re.compile(r"^([a-z][a-z0-9-]*) = (.*)$")
HINT = "run 'infralens lock' to regenerate it"

PREAMBLE = f"""# InfraLens annotations lock: what every annotated step was reviewed against.
# Written by `infralens lock`; accept reviewed upstream changes with `infralens lock --update [IDS]`.
# Values are JSON. Line numbers are hints only; statements are re-found by text and context.
{MAGIC}
"""


class Codec(Enum):
    """How one field's value is spelled in JSON."""

    STR = "str"
    INT = "int"
    PAIR = "pair"
    """Two integers, as a list."""
    STRS = "strs"
    """A list of strings."""
    TEXTS = "texts"
    """One string, or a non-empty list of them when there are several."""
    WORDS = "words"
    """A tuple of short hashes, as one space-separated string."""
    DEFINITION_KIND = "definition-kind"
    """A :class:`~infralens.source.DefinitionKind` value."""


_STEP_FIELDS: dict[str, tuple[str, Codec]] = {
    "annotation": ("annotation", Codec.STR),
    "yaml-line": ("yaml_line", Codec.INT),
    "dist": ("distribution", Codec.STR),
    "version": ("version", Codec.STR),
    "source": ("relpath", Codec.STR),
    "module": ("module", Codec.STR),
    "target": ("target", Codec.STR),
    "scope": ("scope", Codec.STR),
    "lines": ("lines", Codec.PAIR),
    "text": ("texts", Codec.TEXTS),
    "text-sha256": ("text_sha256", Codec.STR),
    "occurrence": ("occurrence", Codec.INT),
    "copies": ("copies", Codec.INT),
    "before": ("before", Codec.STRS),
    "after": ("after", Codec.STRS),
    "function-sha256": ("function_sha256", Codec.STR),
    "source-sha256": ("file_sha256", Codec.STR),
    "review": ("review", Codec.STR),
}
"""Keys of a step entry, in the order they are written: key → (attribute, codec)."""
_ANNOTATION_FIELDS: dict[str, tuple[str, Codec]] = {
    "file": ("path", Codec.STR),
    "yaml-line": ("yaml_line", Codec.INT),
    "file-sha256": ("file_sha256", Codec.STR),
    "dist": ("distribution", Codec.STR),
    "version": ("version", Codec.STR),
    "source": ("relpath", Codec.STR),
    "source-sha256": ("source_sha256", Codec.STR),
    "module": ("module", Codec.STR),
    "target": ("target", Codec.STR),
    "kind": ("kind", Codec.DEFINITION_KIND),
    "span": ("span", Codec.PAIR),
    "body-sha256": ("body_sha256", Codec.STR),
    "body": ("body", Codec.WORDS),
    "steps": ("steps", Codec.STRS),
    "origin": ("origin", Codec.STR),
    "sources-sha256": ("sources_sha256", Codec.STR),
    "decorators": ("decorators", Codec.STRS),
}
"""Keys of an annotation entry, in the order they are written."""
_FIELDS = {EntryKind.STEP: _STEP_FIELDS, EntryKind.ANNOTATION: _ANNOTATION_FIELDS}
_OPTIONAL = {"occurrence", "copies", "origin", "sources-sha256", "review", "decorators"}
_DEFAULTS: dict[str, object] = {"copies": 1, "origin": "", "sources-sha256": "", "review": "", "decorators": None}
"""Optional fields left out of the text when they hold their default (so unique statements get no ``copies`` line)."""


# --------------------------------------------------------------------------
# Writing one entry
# --------------------------------------------------------------------------


def _encode(value: object, codec: Codec) -> str:
    if isinstance(value, tuple):
        if codec is Codec.WORDS:
            value = " ".join(value)
        elif codec is Codec.TEXTS and len(value) == 1:
            value = value[0]
    return json.dumps(value, ensure_ascii=False)  # a tuple is written as a JSON list


def _value_lines(entry: LockEntry) -> list[str]:
    """The entry's ``key = value`` lines, in field order (what its seal covers)."""
    return [
        f"{key} = {_encode(getattr(entry, attribute), codec)}"
        for key, (attribute, codec) in _FIELDS[entry.entry_kind].items()
        if key not in _DEFAULTS or getattr(entry, attribute) != _DEFAULTS[key]
    ]


def entry_seal(entry: LockEntry) -> str:
    """A short digest of the entry's header and values, written as its last line.

    Comments and layout are not covered, so editing them is fine; changing a value by hand makes the
    seal disagree, and ``check`` reports the entry as hand-edited.
    """
    name = entry.step_id if isinstance(entry, StepLock) else entry.id
    return sha256_text("\n".join([f"[{entry.entry_kind} {name}]", *_value_lines(entry)]))[:SEAL_LENGTH]


def render_entry(entry: LockEntry, comments: tuple[str, ...] = ()) -> str:
    """The text of one entry: header, kept comment lines, ``key = value`` lines, its seal, a blank line."""
    name = entry.step_id if isinstance(entry, StepLock) else entry.id
    lines = [f"[{entry.entry_kind} {name}]", *comments, *_value_lines(entry), f'{SEAL_KEY} = "{entry_seal(entry)}"']
    return "\n".join(lines) + "\n\n"


# --------------------------------------------------------------------------
# Parsing (keeps the raw text of every entry for byte-exact partial rewrites)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RawBlock:
    """One entry as it stands in the file, from its header to the next."""

    kind: EntryKind
    id: str
    text: str
    """Every byte of the block, trailing blank lines and comments included."""
    comments: tuple[str, ...]
    """The block's comment lines (a rewrite of the entry keeps them)."""

    @property
    def key(self) -> str:
        """The entry's key (``kind:id``), as :attr:`StepLock.key` spells it."""
        return lock_key(self.kind, self.id)

    @property
    def owner(self) -> str:
        """Id of the annotation the entry belongs to."""
        return annotation_of(self.id)


@dataclass(frozen=True)
class LockText:
    """The file split into its preamble and one raw block per entry, plus the parsed entries."""

    preamble: str
    blocks: tuple[RawBlock, ...]
    lock: Lock


def problem(display: str, line: int, message: str) -> LockfileError:
    """A :class:`LockfileError` naming ``display:line`` and how to fix the lock."""
    return LockfileError(f"{display}:{line}: {message} — {HINT}")


def _json_value(raw: str) -> object:
    """``json.loads`` with a fast path for the common plain strings and small integers."""
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        inner = raw[1:-1]
        if '"' not in inner and "\\" not in inner and inner.isprintable():
            return inner
    elif raw.isdigit() and len(raw) < 10 and (raw == "0" or raw[0] != "0"):
        return int(raw)
    return json.loads(raw)


def _strings(value: object) -> tuple[str, ...] | None:
    """``value`` as a tuple of strings if it is a JSON list of strings, else None."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(str(v) for v in value)
    return None


def _typed(value: object, codec: Codec) -> object | None:
    """The attribute value for a decoded JSON ``value``, or None when it has the wrong type."""
    if codec is Codec.STR:
        return value if isinstance(value, str) else None
    if codec is Codec.INT:
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if codec is Codec.PAIR:
        if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
            return (value[0], value[1])
        return None
    if codec is Codec.STRS:
        return _strings(value)
    if codec is Codec.TEXTS:
        return (value,) if isinstance(value, str) else (_strings(value) or None)
    if codec is Codec.WORDS:
        return tuple(value.split()) if isinstance(value, str) else None
    try:
        return DefinitionKind(value)
    except ValueError:
        return None


MAX_LOCK_NUMBER = 10_000_000
"""Largest number a lock holds (line numbers, counts): a source file is at most 2 MB, so far fewer lines."""
_PAIR = re.compile(r"\[\s*([^,\s]*)\s*,\s*([^\]\s]*)\s*\]\Z")


def _numbers_problem(raw: str, codec: Codec) -> str | None:
    """Why a number field's text is not plain decimal digits within bounds (checked before JSON converts it), or None."""
    if codec is Codec.INT:
        parts: tuple[str, ...] = (raw,)
    elif codec is Codec.PAIR:
        pair = _PAIR.match(raw)
        if pair is None:
            return "has the wrong type: it must be a list of two whole numbers, such as [12, 14]"
        parts = pair.groups()
    else:
        return None
    try:
        for part in parts:
            decimal_number(part, 0, MAX_LOCK_NUMBER)
    except BadNumber as error:
        return error.problem  # the lock's own hint follows: regenerate it
    return None


def _decode(display: str, line: int, key: str, raw: str, codec: Codec) -> object:
    problem_text = _numbers_problem(raw, codec)
    if problem_text is not None:
        raise problem(display, line, f"value of {key!r} {problem_text}")
    try:
        value = _json_value(raw)
    except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
        raise problem(display, line, f"value of {key!r} is not valid JSON") from None
    typed = _typed(value, codec)
    if typed is None:
        raise problem(display, line, f"value of {key!r} has the wrong type")
    path_problem = _file_value_problem(typed) if key == "file" else None
    if path_problem is not None:
        raise problem(
            display, line, f"value of {key!r} {path_problem}: it must be the annotation file's path inside the project, such as annotations/diffusers/x.yaml"
        )
    return typed


_DRIVE = re.compile(r"[A-Za-z]:")


def _file_value_problem(value: object) -> str | None:
    """Why a lock's ``file`` value cannot name an annotation file (None when it can).

    It is a path relative to the project root with ``/`` between folders, as ``infralens lock`` writes it: never
    absolute, never with a ``..`` part, a backslash or a control or invisible character. Messages, GitHub
    annotations (``file=``) and editors' links show it, so it must stay a plain path inside the project.
    """
    text = str(value)
    if not text:
        return "is empty"
    if not text.isprintable():
        return "holds a control or invisible character"
    if "\\" in text:
        return "holds a backslash"
    if text.startswith("/") or _DRIVE.match(text):
        return "is an absolute path"
    if ".." in text.split("/"):
        return "has a '..' part"
    return None


def _split_lines(text: str) -> list[str]:
    """Lines with their ``\\n``; only ``\\n`` ends a line.

    ``str.splitlines()`` would also split inside JSON values holding U+2028 or U+0085.
    """
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


@dataclass
class _Block:
    """A block while it is being read: its header and lines."""

    kind: EntryKind
    id: str
    start: int
    lines: list[str]


def _blocks(display: str, lines: list[str]) -> tuple[str, list[_Block]]:
    """The preamble (checked for the format line) and the raw blocks."""
    preamble: list[str] = []
    blocks: list[_Block] = []
    seen_magic = False
    for number, line in enumerate(lines, 1):
        header = _HEADER.match(line.rstrip("\n"))
        if header:
            if not seen_magic:
                raise problem(display, number, f"missing the '{MAGIC}' line before the first entry")
            blocks.append(_Block(EntryKind(header.group(1)), header.group(2), number, [line]))
        elif blocks:
            blocks[-1].lines.append(line)
        else:
            preamble.append(line)
            stripped = line.strip()
            if stripped.startswith("infralens-lock"):
                if stripped != MAGIC:
                    raise problem(display, number, f"unsupported lock format {stripped!r} (this infralens reads '{MAGIC}')")
                seen_magic = True
            elif stripped and not stripped.startswith("#"):
                raise problem(display, number, f"unexpected text before the first entry: {stripped[:40]!r}")
    if not seen_magic:
        raise problem(display, 1, f"not an infralens lock file (no '{MAGIC}' line)")
    return "".join(preamble), blocks


def parse_lock(text: str, path: Path, display: str | None = None) -> LockText:
    """Parse lock text; any problem raises :class:`LockfileError` naming the line."""
    display = display or str(path)
    preamble, raw_blocks = _blocks(display, _split_lines(text))
    annotations: dict[str, AnnotationLock] = {}
    steps: dict[str, StepLock] = {}
    blocks: list[RawBlock] = []
    hand_edited: list[HandEdit] = []
    for block in raw_blocks:
        comments = tuple(line.rstrip("\n") for line in block.lines[1:] if line.lstrip().startswith("#"))
        entry, seal = _parse_entry(display, block)
        if seal != entry_seal(entry):
            why = "has no seal line" if seal is None else "values differ from what its seal records"
            hand_edited.append(HandEdit(block.id, block.start, f"lock entry {block.id!r} {why}: it was edited by hand or by an older infralens"))
        first = annotations.get(block.id) if block.kind is EntryKind.ANNOTATION else steps.get(block.id)
        if first is not None:
            raise problem(display, block.start, f"duplicate {block.kind} entry {block.id!r} (first at line {first.line})")
        if isinstance(entry, StepLock):
            steps[block.id] = entry
        else:
            annotations[block.id] = entry
        blocks.append(RawBlock(block.kind, block.id, "".join(block.lines), comments))
    for annotation in annotations.values():
        for step_id in annotation.steps:
            if step_id not in steps:
                raise problem(display, annotation.line, f"annotation {annotation.id!r} lists step {step_id!r} but the lock has no entry for it")
    return LockText(preamble, tuple(blocks), Lock(path, display, annotations, steps, tuple(hand_edited)))


def _parse_entry(display: str, block: _Block) -> tuple[LockEntry, str | None]:
    """The entry and its recorded seal (None when it has none)."""
    fields = _FIELDS[block.kind]
    described = f"{block.kind} entry {block.id!r}"
    values: dict[str, object] = {}
    seal: str | None = None
    for number, line in enumerate(block.lines[1:], block.start + 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _KEY_VALUE.match(stripped)
        if not match:
            raise problem(display, number, f"expected 'key = value' in {described}, found {stripped[:40]!r}")
        key, raw = match.groups()
        if key == SEAL_KEY and seal is None:
            seal = str(_decode(display, number, key, raw, Codec.STR))
            continue
        if key not in fields:
            raise problem(display, number, f"unknown key {key!r} in {described}")
        attribute, codec = fields[key]
        if attribute in values:
            raise problem(display, number, f"duplicate key {key!r} in {described}")
        values[attribute] = _decode(display, number, key, raw, codec)
    missing = [key for key, (attribute, _) in fields.items() if attribute not in values and key not in _OPTIONAL]
    if missing:
        raise problem(display, block.start, f"{described} lacks {', '.join(missing)}")
    # Every value was type-checked against the field table above, which names each attribute once.
    if block.kind is EntryKind.STEP:
        return StepLock(step_id=block.id, line=block.start, **values), seal  # type: ignore[arg-type]
    return AnnotationLock(id=block.id, line=block.start, **values), seal  # type: ignore[arg-type]

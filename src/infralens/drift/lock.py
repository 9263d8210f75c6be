"""The lock file: what each step was reviewed against, in a diff-friendly text format.

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
header, so ``infralens lock --update`` can rewrite single entries and keep
every other byte of the file, comments included. Writes are atomic (temporary
file + ``os.replace``) and serialised by a :mod:`filelock` lock.

Building entries from resolved annotations lives here too (:func:`entries_for`).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from infralens.errors import LockfileError
from infralens.hashing import sha256_text

LOCK_FORMAT = 1
MAGIC = f"infralens-lock {LOCK_FORMAT}"
CONTEXT_SIZE = 2
"""How many neighbouring statements before and after a step are recorded."""
_HEADER = re.compile(r"^\[(annotation|step) ([^\]\s]+)\]\s*$")
_KEY_VALUE = re.compile(r"^([a-z][a-z0-9-]*) = (.*)$")
HINT = "run 'infralens lock' to regenerate it"

PREAMBLE = f"""# InfraLens annotations lock: what every annotated step was reviewed against.
# Written by `infralens lock`; accept reviewed upstream changes with `infralens lock --update [IDS]`.
# Values are JSON. Line numbers are hints only; statements are re-found by text and context.
{MAGIC}
"""


def text_hash(texts: Iterable[str]) -> str:
    """SHA-256 of normalised statement texts, one per line."""
    return sha256_text("\n".join(texts))


def short_hash(text: str) -> str:
    """An 8-hex fingerprint of one statement text (function bodies are stored as lists of these)."""
    return sha256_text(text)[:8]


# --------------------------------------------------------------------------
# Entries
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class StepLock:
    """One step as reviewed: where its statement was and what it said."""

    step_id: str
    annotation: str
    yaml_line: int
    """Line of the step in its annotation file (for messages)."""
    distribution: str
    version: str
    relpath: str
    module: str
    target: str
    """Dotted qualname of the annotation's target inside ``module``."""
    scope: str
    """Python ``__qualname__`` of the statement's innermost scope."""
    lines: tuple[int, int]
    texts: tuple[str, ...]
    """Normalised texts: one statement, or every statement of a block."""
    text_sha256: str
    before: tuple[str, ...]
    """Texts of up to two statements right before it (nearest last)."""
    after: tuple[str, ...]
    """Texts of up to two statements right after it (nearest first)."""
    function_sha256: str
    """Fingerprint of the enclosing function: hash of all its statement texts."""
    file_sha256: str
    occurrence: int = 1
    """Which occurrence of this text inside the target it is (1-based)."""
    line: int = field(default=0, compare=False)
    """Line of the entry's header in the lock file."""


@dataclass(frozen=True)
class AnnotationLock:
    """One annotation's target as reviewed, plus the annotation file's own hash."""

    id: str
    path: str
    """Annotation file, relative to the project root."""
    yaml_line: int
    file_sha256: str
    """Hash of the annotation file: when it is unchanged the YAML need not be loaded."""
    distribution: str
    version: str
    relpath: str
    module: str
    target: str
    kind: str
    span: tuple[int, int]
    body_sha256: str
    body: tuple[str, ...]
    """Short hashes of the target's statement texts, in order."""
    source_sha256: str
    steps: tuple[str, ...]
    line: int = field(default=0, compare=False)


LockEntry = StepLock | AnnotationLock


@dataclass(frozen=True)
class Lock:
    """A parsed lock file."""

    path: Path
    display: str
    annotations: dict[str, AnnotationLock]
    steps: dict[str, StepLock]

    def steps_of(self, annotation_id: str) -> list[StepLock]:
        entry = self.annotations.get(annotation_id)
        return [self.steps[s] for s in entry.steps if s in self.steps] if entry else []


_STEP_FIELDS = {
    "annotation": ("annotation", str),
    "yaml-line": ("yaml_line", int),
    "dist": ("distribution", str),
    "version": ("version", str),
    "source": ("relpath", str),
    "module": ("module", str),
    "target": ("target", str),
    "scope": ("scope", str),
    "lines": ("lines", "pair"),
    "text": ("texts", "texts"),
    "text-sha256": ("text_sha256", str),
    "occurrence": ("occurrence", int),
    "before": ("before", "strs"),
    "after": ("after", "strs"),
    "function-sha256": ("function_sha256", str),
    "source-sha256": ("file_sha256", str),
}
_ANNOTATION_FIELDS = {
    "file": ("path", str),
    "yaml-line": ("yaml_line", int),
    "file-sha256": ("file_sha256", str),
    "dist": ("distribution", str),
    "version": ("version", str),
    "source": ("relpath", str),
    "source-sha256": ("source_sha256", str),
    "module": ("module", str),
    "target": ("target", str),
    "kind": ("kind", str),
    "span": ("span", "pair"),
    "body-sha256": ("body_sha256", str),
    "body": ("body", "words"),
    "steps": ("steps", "strs"),
}
_OPTIONAL = {"occurrence"}


def _encode_value(value: object, how: object) -> str:
    if how == "texts":
        texts = list(value)  # type: ignore[arg-type]
        return json.dumps(texts[0] if len(texts) == 1 else texts, ensure_ascii=False)
    if how == "words":
        return json.dumps(" ".join(value), ensure_ascii=False)  # type: ignore[arg-type]
    if how in ("pair", "strs"):
        return json.dumps(list(value), ensure_ascii=False)  # type: ignore[arg-type]
    return json.dumps(value, ensure_ascii=False)


def render_entry(entry: LockEntry, comments: tuple[str, ...] = ()) -> str:
    """The text of one entry: header, kept comment lines, ``key = value`` lines, a blank line."""
    if isinstance(entry, StepLock):
        header, fields, name = "step", _STEP_FIELDS, entry.step_id
    else:
        header, fields, name = "annotation", _ANNOTATION_FIELDS, entry.id
    lines = [f"[{header} {name}]", *comments]
    for key, (attribute, how) in fields.items():
        lines.append(f"{key} = {_encode_value(getattr(entry, attribute), how)}")
    return "\n".join(lines) + "\n\n"


# --------------------------------------------------------------------------
# Parsing (keeps the raw text of every entry for byte-exact partial rewrites)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RawBlock:
    kind: str
    id: str
    text: str
    comments: tuple[str, ...]


@dataclass(frozen=True)
class LockText:
    """The file split into its preamble and one raw block per entry, plus the parsed entries."""

    preamble: str
    blocks: tuple[RawBlock, ...]
    lock: Lock


def _problem(display: str, line: int, message: str) -> LockfileError:
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


def _decode_value(display: str, line: int, key: str, raw: str, how: object) -> object:
    try:
        value = _json_value(raw)
    except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
        raise _problem(display, line, f"value of {key!r} is not valid JSON") from None
    ok = True
    if how is str:
        ok = isinstance(value, str)
    elif how is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif how == "pair":
        ok = isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value)
        value = tuple(value) if ok else value
    elif how == "strs":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    elif how == "texts":
        if isinstance(value, str):
            value = (value,)
        else:
            ok = isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)
            value = tuple(value) if ok else value
    elif how == "words":
        ok = isinstance(value, str)
        value = tuple(value.split()) if ok else value
    if not ok:
        raise _problem(display, line, f"value of {key!r} has the wrong type")
    return value


def parse_lock(text: str, path: Path, display: str | None = None) -> LockText:
    """Parse lock text; any problem raises :class:`LockfileError` naming the line."""
    display = display or str(path)
    # Only '\n' ends a line: str.splitlines() would also split inside JSON values holding U+2028 or U+0085.
    lines = text.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    preamble: list[str] = []
    raw_blocks: list[tuple[str, str, int, list[str]]] = []
    seen_magic = False
    for number, line in enumerate(lines, 1):
        header = _HEADER.match(line.rstrip("\n"))
        if header:
            if not seen_magic:
                raise _problem(display, number, f"missing the '{MAGIC}' line before the first entry")
            raw_blocks.append((header.group(1), header.group(2), number, [line]))
        elif raw_blocks:
            raw_blocks[-1][3].append(line)
        else:
            preamble.append(line)
            stripped = line.strip()
            if stripped.startswith("infralens-lock"):
                if stripped != MAGIC:
                    raise _problem(display, number, f"unsupported lock format {stripped!r} (this infralens reads '{MAGIC}')")
                seen_magic = True
            elif stripped and not stripped.startswith("#"):
                raise _problem(display, number, f"unexpected text before the first entry: {stripped[:40]!r}")
    if not seen_magic:
        raise _problem(display, 1, f"not an infralens lock file (no '{MAGIC}' line)")
    annotations: dict[str, AnnotationLock] = {}
    steps: dict[str, StepLock] = {}
    blocks: list[RawBlock] = []
    for kind, name, start, block_lines in raw_blocks:
        comments = tuple(l.rstrip("\n") for l in block_lines[1:] if l.lstrip().startswith("#"))
        entry = _parse_entry(display, kind, name, start, block_lines)
        table: dict = annotations if kind == "annotation" else steps
        if name in table:
            raise _problem(display, start, f"duplicate {kind} entry {name!r} (first at line {table[name].line})")
        table[name] = entry
        blocks.append(RawBlock(kind, name, "".join(block_lines), comments))
    for entry in annotations.values():
        for step_id in entry.steps:
            if step_id not in steps:
                raise _problem(display, entry.line, f"annotation {entry.id!r} lists step {step_id!r} but the lock has no entry for it")
    lock = Lock(path, display, annotations, steps)
    return LockText("".join(preamble), tuple(blocks), lock)


def _parse_entry(display: str, kind: str, name: str, start: int, block_lines: list[str]) -> LockEntry:
    fields = _STEP_FIELDS if kind == "step" else _ANNOTATION_FIELDS
    values: dict[str, object] = {}
    for offset, line in enumerate(block_lines[1:], 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        number = start + offset
        match = _KEY_VALUE.match(stripped)
        if not match:
            raise _problem(display, number, f"expected 'key = value' in {kind} entry {name!r}, found {stripped[:40]!r}")
        key, raw = match.groups()
        if key not in fields:
            raise _problem(display, number, f"unknown key {key!r} in {kind} entry {name!r}")
        if fields[key][0] in values:
            raise _problem(display, number, f"duplicate key {key!r} in {kind} entry {name!r}")
        attribute, how = fields[key]
        values[attribute] = _decode_value(display, number, key, raw, how)
    missing = [k for k, (attribute, _) in fields.items() if attribute not in values and k not in _OPTIONAL]
    if missing:
        raise _problem(display, start, f"{kind} entry {name!r} lacks {', '.join(missing)}")
    if kind == "step":
        return StepLock(step_id=name, line=start, **values)  # type: ignore[arg-type]
    return AnnotationLock(id=name, line=start, **values)  # type: ignore[arg-type]


def read_lock(path: Path, display: str | None = None) -> Lock:
    return read_lock_text(path, display).lock


def read_lock_text(path: Path, display: str | None = None) -> LockText:
    display = display or str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise LockfileError(f"{display}: no lock file — run 'infralens lock' to create it") from None
    except OSError as error:
        raise LockfileError(f"{display}: cannot read ({error.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise _problem(display, line, "not valid UTF-8") from None
    return parse_lock(text, path, display)


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def compose(old: LockText | None, entries: list[LockEntry], replace: set[str] | None, remove: set[str]) -> str:
    """New lock text.

    ``replace`` None rewrites every entry (full lock); otherwise only entries whose
    key (``kind:id``) is in ``replace`` are rewritten or added, and those in
    ``remove`` dropped; every other block keeps its exact bytes.
    """
    new_by_key = {_key(e): e for e in entries}
    preamble = old.preamble if old else PREAMBLE
    if not preamble.endswith("\n\n"):
        preamble = preamble.rstrip("\n") + "\n\n"
    parts: list[str] = [preamble]
    written: set[str] = set()
    old_comments = {f"{b.kind}:{b.id}": b.comments for b in old.blocks} if old else {}
    if replace is None:
        for entry in entries:
            key = _key(entry)
            parts.append(render_entry(entry, old_comments.get(key, ())))
        return "".join(parts).rstrip("\n") + "\n"
    # Partial: keep old blocks in place, rewrite the chosen ones, then insert new ones after their annotation group.
    assert old is not None
    for block in old.blocks:
        key = f"{block.kind}:{block.id}"
        if key in remove:
            continue
        if key in replace and key in new_by_key:
            text = render_entry(new_by_key[key], block.comments)
            written.add(key)
        else:
            text = block.text if block.text.endswith("\n") else block.text + "\n"
        parts.append(text)
    missing = [e for e in entries if _key(e) in replace and _key(e) not in written]
    for entry in missing:
        parts = _insert(parts, entry)
    result = "".join(parts)
    return result if result.endswith("\n") else result + "\n"


def _insert(parts: list[str], entry: LockEntry) -> list[str]:
    """Place a new entry after the last block of the same annotation (or at the end)."""
    owner = entry.id if isinstance(entry, AnnotationLock) else entry.annotation
    prefixes = (f"[annotation {owner}]", f"[step {owner}/")
    position = len(parts)
    for index, part in enumerate(parts):
        if part.startswith(prefixes):
            position = index + 1
    if position == len(parts) and parts and not parts[-1].endswith("\n\n"):
        parts[-1] = parts[-1].rstrip("\n") + "\n\n"
    elif position < len(parts) and not parts[position - 1].endswith("\n\n"):
        parts[position - 1] = parts[position - 1].rstrip("\n") + "\n\n"
    return parts[:position] + [render_entry(entry)] + parts[position:]


def _key(entry: LockEntry) -> str:
    return f"step:{entry.step_id}" if isinstance(entry, StepLock) else f"annotation:{entry.id}"


def entry_key(entry: LockEntry) -> str:
    return _key(entry)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def writer_lock(path: Path, timeout: float = 60.0):
    """A cross-process lock serialising writers of ``path``.

    The lock file lives in the temporary folder, named by a hash of the lock's
    absolute path, so every writer of the same lock agrees on it and the
    project folder stays clean.
    """
    from filelock import FileLock

    folder = Path(tempfile.gettempdir()) / "infralens-writers"
    folder.mkdir(parents=True, exist_ok=True)
    digest = sha256_text(str(path.resolve()))[:24]
    return FileLock(str(folder / f"{digest}.lock"), timeout=timeout)

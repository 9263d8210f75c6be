"""Lock entries: what an annotation's target and each of its steps looked like when reviewed.

These values are what ``annotations/annotations.lock`` holds (:mod:`.lockformat` turns them into
text and back) and what the drift check compares the sources with. A step entry is also the
:class:`~infralens.reports.Place` it was reviewed at (:attr:`StepLock.place`): "where a statement is" is the
drift report's record, for the lock, the check's results and the report alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import ClassVar

from infralens.hashing import sha256_text
from infralens.reports import Place
from infralens.source import DefinitionKind

CONTEXT_SIZE = 2
"""How many neighbouring statements before and after a step are recorded."""


class EntryKind(StrEnum):
    """The two kinds of lock entry, spelled as in their ``[kind id]`` headers.

    A ``StrEnum``, so ``f"{kind}:{id}"`` spells a lock key.
    """

    ANNOTATION = "annotation"
    STEP = "step"


def lock_key(kind: EntryKind, item_id: str) -> str:
    """The key of an entry in the lock (``step:ddim-step/3f2a1c9e``): its header's kind and id."""
    return f"{kind}:{item_id}"


def annotation_of(item_id: str) -> str:
    """The annotation id of an annotation id or a step id (``ddim-step/3f2a1c9e`` → ``ddim-step``).

    Annotation ids are slugs (no ``/``), and a step id is ``<annotation id>/<step key>``.
    """
    return item_id.partition("/")[0]


def text_hash(texts: Iterable[str]) -> str:
    """SHA-256 of normalised statement texts, one per line."""
    return sha256_text("\n".join(texts))


def short_hash(text: str) -> str:
    """An 8-hex fingerprint of one statement text (function bodies are stored as lists of these)."""
    return sha256_text(text)[:8]


@dataclass(frozen=True)
class _StepOrigin:
    """Which step of which annotation, reviewed against which release (a step entry's first fields)."""

    step_id: str
    annotation: str
    """Id of the annotation the step belongs to."""
    yaml_line: int
    """Line of the step in its annotation file (for messages)."""
    distribution: str
    version: str


@dataclass(frozen=True)
class _StepWhere:
    """Where the step's statement(s) were reviewed (a step entry's middle fields): the fields of a
    :class:`~infralens.reports.Place` but its version, which is the entry's reviewed release."""

    relpath: str
    module: str
    target: str
    scope: str
    lines: tuple[int, int]
    texts: tuple[str, ...]


@dataclass(frozen=True)
class _StepFacts:
    """What let the check re-find a step's statement (a step entry's last fields)."""

    text_sha256: str
    """Hash of the normalised texts."""
    before: tuple[str, ...]
    """Texts of up to two statements right before it (nearest last)."""
    after: tuple[str, ...]
    """Texts of up to two statements right after it (nearest first)."""
    function_sha256: str
    """Fingerprint of the enclosing function: hash of all its statement texts."""
    file_sha256: str
    """Hash of the whole source file: when it is unchanged nothing needs parsing."""
    occurrence: int = 1
    """Which occurrence of this text inside the target it is (1-based)."""
    copies: int = 1
    """How many statements of this text the target held when it was locked (a lost copy is then noticed)."""
    line: int = field(default=0, compare=False)
    """Line of the entry's header in the lock file (0 for an entry not read from a file)."""
    review: str = ""
    """The step's ``review:`` mark when it was locked ("" for none): ``check`` reports a step under review until the
    mark is removed from the YAML, even when the annotation file is not read again."""


@dataclass(frozen=True)
class StepLock(_StepFacts, _StepWhere, _StepOrigin):
    """One step as reviewed: its origin, the place of its statement(s) (:attr:`place`), and their surroundings.

    Fields run in that order (dataclasses collect base fields from the last base first), which is
    also the order of the positional constructor.
    """

    entry_kind: ClassVar[EntryKind] = EntryKind.STEP

    @property
    def key(self) -> str:
        """The entry's key in the lock file (``step:<step id>``)."""
        return lock_key(self.entry_kind, self.step_id)

    @property
    def owner(self) -> str:
        """Id of the annotation the entry belongs to."""
        return self.annotation

    @property
    def place(self) -> Place:
        """Where the step was reviewed, as the check's (and the report's) :class:`~infralens.reports.Place`."""
        return Place(self.relpath, self.module, self.target, self.scope, self.lines, self.texts)

    def describe(self) -> str:
        """``relpath:line target`` for messages."""
        return self.place.describe()


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
    """Dotted qualname of the target inside ``module``."""
    kind: DefinitionKind
    """What the target is (function, class, ...)."""
    span: tuple[int, int]
    """First and last line of the target's definition."""
    body_sha256: str
    body: tuple[str, ...]
    """Short hashes of the target's statement texts, in order."""
    source_sha256: str
    steps: tuple[str, ...]
    """Ids of the annotation's steps, in the annotation's order."""
    origin: str = ""
    """Where the reviewed sources were read from: ``installed``, ``wheel`` or ``directory`` ("" in older locks)."""
    sources_sha256: str = ""
    """:meth:`~infralens.source.SourceTree.content_sha256` of the distribution as reviewed ("" in older locks)."""
    decorators: tuple[str, ...] | None = None
    """The target's decorator names as reviewed, outermost first (None in locks written before they were recorded)."""
    line: int = field(default=0, compare=False)
    """Line of the entry's header in the lock file."""

    entry_kind: ClassVar[EntryKind] = EntryKind.ANNOTATION

    @property
    def key(self) -> str:
        """The entry's key in the lock file (``annotation:<id>``)."""
        return lock_key(self.entry_kind, self.id)

    @property
    def owner(self) -> str:
        """Id of the annotation the entry belongs to: its own."""
        return self.id


LockEntry = StepLock | AnnotationLock


@dataclass(frozen=True)
class HandEdit:
    """A lock entry whose values do not match its seal (see :func:`~infralens.drift.lock.text.entry_seal`)."""

    id: str
    """Annotation or step id of the entry."""
    line: int
    """Line of the entry's header in the lock."""
    message: str


@dataclass(frozen=True)
class Lock:
    """A parsed lock file: its entries by id."""

    path: Path
    display: str
    """The path as messages show it (relative to the project root)."""
    annotations: dict[str, AnnotationLock]
    steps: dict[str, StepLock]
    hand_edited: tuple[HandEdit, ...] = ()
    """Entries whose values were changed without ``infralens lock`` (their seal disagrees)."""

    def steps_of(self, annotation_id: str) -> list[StepLock]:
        """The locked steps of one annotation, in its order."""
        entry = self.annotations.get(annotation_id)
        return [self.steps[s] for s in entry.steps if s in self.steps] if entry else []

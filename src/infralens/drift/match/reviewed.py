"""What the reviewed release held: evidence of where code went, read from both sides of the change.

The lock keeps the reviewed target's body, but nothing about the rest of the release. Whether a place
elsewhere that holds a lost statement is where the statement *went* can only be told by looking at
that place as it was reviewed, as CodeTracker tells a moved block from a look-alike by diffing the two
commits rather than the target alone:

- a function that held the same text already in the reviewed release is a **twin that was there**
  (``preexisting``), never a new home (a deleted function whose copy survives elsewhere is deleted);
- a function that **gained** statements the target lost carried them (``carried``: how many of the
  target's lost statements it gained, and what share of them): a block moved, extracted into a helper
  the target reaches by a name nothing resolves statically (a mixin, another object's class), or a
  target folded into another function.

The reviewed release is the tree the lock names (distribution and version): the one passed in (tests,
``--walk``'s previous stop), the installed one when its version is the locked one, or that release's
wheel in the cache. Nothing is downloaded: without it every place reads as *unknown* and the rules
fall back to what the checked tree alone shows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from infralens.drift.lock.entries import AnnotationLock, short_hash
from infralens.drift.lock.facts import body_hashes, body_of, enclosing_definitions
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.texts import called_names
from infralens.errors import InfralensError, SourceNotFoundError
from infralens.resolve import Resolver
from infralens.source import DefinitionKind, InstalledTree, ModuleIndex, SourceFile, SourceTree, Statement, WheelTree, cached_wheel, version_key


@dataclass(frozen=True)
class Provenance:
    """What the reviewed release says about one place elsewhere holding a step's text."""

    preexisting: bool = False
    """The place's function held the text already when the lock was reviewed (a twin, not a new home)."""
    carried: int = 0
    """How many of the target's lost statements the place's function gained since."""
    share: float = 0.0
    """``carried`` over the number of statements the target lost."""
    new_place: bool = False
    """The place's function did not exist when the lock was reviewed."""
    copied: int = 0
    """How many statements the target still holds the place's function gained too (a clone copies those as well;
    a block moved out of the target leaves them behind)."""

    def describe(self) -> str:
        if self.preexisting:
            return "held it already in the reviewed release"
        if not self.carried:
            return ""
        return f"gained {self.carried} of the target's lost statements ({self.share:.2f}) and {self.copied} it kept"


UNKNOWN = Provenance()


class ReviewedSources:
    """The releases a lock's entries were reviewed against, read on demand and never downloaded."""

    def __init__(self, resolver: Resolver, given: dict[str, SourceTree] | None = None) -> None:
        self.resolver = resolver
        self.given = given or {}
        self._readers: dict[tuple[str, str], TreeReader | None] = {}

    def reader(self, distribution: str, version: str, *, checked: str) -> TreeReader | None:
        """A reader of ``distribution`` as reviewed at ``version``, for a check of release ``checked`` (None when that
        release is not at hand, or when ``checked`` is older: a history walk back in time reads "gained since the
        review" and "new since the review" backwards, where a copy cannot be told from where code came from)."""
        if not _newer(checked, version):
            return None
        key = (distribution, version)
        if key not in self._readers:
            tree = self._tree(distribution, version)
            self._readers[key] = TreeReader(self.resolver, tree, fast=True) if tree is not None else None
        return self._readers[key]

    def _tree(self, distribution: str, version: str) -> SourceTree | None:
        given = self.given.get(distribution)
        if given is not None and given.version == version:
            return given
        try:
            installed: SourceTree = InstalledTree(distribution)
            if installed.version == version:
                return installed
        except SourceNotFoundError:
            pass
        wheel = cached_wheel(distribution, version)
        if wheel is None:
            return None
        try:
            return WheelTree(wheel)
        except SourceNotFoundError:
            return None


def _newer(checked: str, reviewed: str) -> bool:
    """Whether release ``checked`` comes after ``reviewed`` (a version that does not parse, a directory's, counts as
    newer: it is what a check before upgrading reads)."""
    try:
        return version_key(checked) > version_key(reviewed)
    except InfralensError:
        return True


class Transfers:
    """For one annotation: what its target lost, and what places elsewhere held before or gained since."""

    def __init__(self, annotation: AnnotationLock, now_body: tuple[str, ...] | None, reviewed: TreeReader | None, carried_statements: int) -> None:
        self.reviewed = reviewed
        self.carried_statements = carried_statements
        """Fewer lost statements than this in a place's function: not worth reading the reviewed release for."""
        reviewed_body = Counter(annotation.body)
        self.lost = reviewed_body - Counter(now_body or ())
        """The reviewed body's statements (as fingerprints) the target no longer holds (all of them when it is gone)."""
        self.kept = reviewed_body - self.lost
        """The reviewed body's statements the target still holds."""
        self._bodies: dict[tuple[str, str], Counter[str] | None] = {}
        self._annotation = annotation
        self._calls: frozenset[str] | None = None

    def of(self, source: SourceFile, index: ModuleIndex, first: Statement) -> Provenance:
        """What the reviewed release says about the function around ``first`` (in ``source``, of the checked tree).

        The reviewed release is only read where the answer can matter: for a place whose function holds enough of the
        target's lost statements to have carried them.
        """
        if self.reviewed is None:
            return UNKNOWN
        qualname, now = _function_around(index, first)
        if sum((now & self.lost).values()) < self.carried_statements:
            return UNKNOWN
        relpath = source.relpath
        before_file = self.reviewed.source(relpath)
        if before_file is not None and before_file.sha256 == source.sha256:
            return Provenance(preexisting=True)  # the file is as reviewed: whatever it holds, it held (nothing to parse)
        before = self._reviewed_body(relpath, qualname)
        if before is None:
            return UNKNOWN
        text = short_hash(first.text)
        if before[text] >= now[text]:
            return Provenance(preexisting=True)
        gained = now - before
        carried = sum((gained & self.lost).values())
        total = sum(self.lost.values())
        share = carried / total if total else 0.0
        return Provenance(carried=carried, share=share, copied=sum((gained & self.kept).values()), new_place=not before)

    def prefetch(self, places: list[tuple[SourceFile, ModuleIndex, Statement]]) -> None:
        """Index at once, in parallel, the reviewed files :meth:`of` will read for these places (the same indexes)."""
        if self.reviewed is None:
            return
        wanted: list[str] = []
        for source, index, first in places:
            if sum((_function_around(index, first)[1] & self.lost).values()) < self.carried_statements or source.relpath in wanted:
                continue
            before_file = self.reviewed.source(source.relpath)
            if before_file is not None and before_file.sha256 != source.sha256:
                wanted.append(source.relpath)
        self.reviewed.prefetch(wanted)

    def held_before(self, source: SourceFile, index: ModuleIndex, first: Statement) -> bool:
        """Whether the function around ``first`` held as many copies of its text at the review (False when unknown)."""
        if self.reviewed is None:
            return False
        return self._held(source.relpath, *_function_around(index, first), first)

    def held_and_called(self, source: SourceFile, index: ModuleIndex, first: Statement) -> bool:
        """Whether the function around ``first`` held as many copies of its text at the review and the reviewed target
        called it by name then: its own copy, run by the target already, not where the step went."""
        if self.reviewed is None:
            return False
        qualname, now = _function_around(index, first)
        name = qualname.rpartition(".")[2]  # the reviewed target's calls first: no other file is read
        return bool(name) and name in self._called_at_review() and self._held(source.relpath, qualname, now, first)

    def _held(self, relpath: str, qualname: str, now: Counter[str], first: Statement) -> bool:
        before = self._reviewed_body(relpath, qualname)
        text = short_hash(first.text)
        return before is not None and before[text] >= now[text] > 0

    def _called_at_review(self) -> frozenset[str]:
        """The names the reviewed target's body calls (empty when its reviewed body is not at hand)."""
        if self._calls is None:
            texts = reviewed_texts(self.reviewed, self._annotation) or ()
            heads = [text.split(" ") for text in texts if text.startswith(("def ", "async def ", "class "))]
            defined = {words[2] if words[0] == "async" else words[1] for words in heads}
            self._calls = frozenset(name for text in texts for name in called_names(text)) - defined  # its own nested functions are not others'
        return self._calls

    def _reviewed_body(self, relpath: str, qualname: str) -> Counter[str] | None:
        """The fingerprints of ``qualname``'s body at ``relpath`` as reviewed (empty when it did not exist there)."""
        key = (relpath, qualname)
        if key not in self._bodies:
            assert self.reviewed is not None
            indexed = self.reviewed.indexed(relpath)
            if indexed is None:
                self._bodies[key] = None if self.reviewed.problem(relpath) else Counter()
            else:
                self._bodies[key] = Counter(_body(indexed[1], qualname))
        return self._bodies[key]


def defined_in(reviewed: TreeReader | None, relpath: str, qualname: str) -> bool:
    """Whether the reviewed release defined ``qualname`` at ``relpath`` (False when the reviewed release is unknown)."""
    indexed = reviewed.indexed(relpath) if reviewed is not None else None
    return indexed is not None and any(d.qualname == qualname for d in indexed[1].definitions)


def _function_around(index: ModuleIndex, statement: Statement) -> tuple[str, Counter[str]]:
    """The qualname and body fingerprints of the innermost function around ``statement`` (of the module's own
    statements when it is in none)."""
    functions = [d for d in enclosing_definitions(index, statement) if d.kind is not DefinitionKind.CLASS]
    if not functions:
        return "", Counter(short_hash(s.text) for s in index.statements if s.scope == "")
    return functions[0].qualname, Counter(body_hashes(index, functions[0]))


def _body(index: ModuleIndex, qualname: str) -> tuple[str, ...]:
    if not qualname:
        return tuple(short_hash(s.text) for s in index.statements if s.scope == "")
    same = [d for d in index.definitions if d.qualname == qualname and d.accessor is None]
    return tuple(h for d in same for h in body_hashes(index, d))


def new_beside(reader: TreeReader, reviewed: TreeReader | None, relpath: str) -> list[str]:
    """The Python files of ``relpath``'s folder that the reviewed release did not have, when ``relpath`` itself is gone
    from ``reader``'s tree: where its module may live on under a new name (none without the reviewed release)."""
    if reviewed is None or reader.source(relpath) is not None:
        return []
    folder, before = relpath.rpartition("/")[0], set(reviewed.python_files())
    return [r for r in reader.python_files() if r.rpartition("/")[0] == folder and r not in before]


def reviewed_texts(reviewed: TreeReader | None, annotation: AnnotationLock) -> tuple[str, ...] | None:
    """The texts of the reviewed target's body, in order (None when the reviewed release is not at hand, or its body
    there is not the one the lock recorded)."""
    indexed = reviewed.indexed(annotation.relpath) if reviewed is not None else None
    if indexed is None:
        return None
    for definition in indexed[1].definitions:
        if definition.qualname == annotation.target and definition.accessor is None:
            texts = tuple(s.text for s in body_of(indexed[1], definition))
            if tuple(short_hash(text) for text in texts) == annotation.body:
                return texts
    return None


def reviewed_nested(reviewed: TreeReader | None, annotation: AnnotationLock) -> dict[str, tuple[str, ...]]:
    """The body texts of each function nested directly in the reviewed target, by name (empty when the reviewed release
    is not at hand)."""
    indexed = reviewed.indexed(annotation.relpath) if reviewed is not None else None
    if indexed is None:
        return {}
    index = indexed[1]
    return {
        d.qualname.rpartition(".")[2]: tuple(s.text for s in body_of(index, d))
        for d in index.definitions
        if d.qualname.rpartition(".")[0] == annotation.target and d.kind is not DefinitionKind.CLASS
    }

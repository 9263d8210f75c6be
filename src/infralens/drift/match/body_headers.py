"""A block header told by its body (rule ``header-of-its-body``).

A header's words often change with no text left to match (``with init_empty_weights ( ) :`` became ``with torch .
device ( "meta" ) :``; a LoRA scale test ``if attention_kwargs is not None and attention_kwargs . get ( "scale" ,
None ) is not None :`` became ``if not USE_PEFT_BACKEND and lora_scale != 1.0 :`` in a decorator's wrapper), while the
statements under it are found where they went. When every step of the reviewed header's block that was placed now
sits under one header of the same kind (``if`` and ``elif`` alike, ``for``, ``while``, ``with``), in the same function,
and that header is new there (no reviewed statement of the target reads the same) and no step took it, the header
was rewritten into it. At least half of the block's steps must be placed: a body mostly gone says nothing of its
header. Only steps decided *deleted* are looked at, after every other step of the annotation has its place.
"""

from __future__ import annotations

from collections import Counter

from infralens.drift.lock.entries import AnnotationLock, StepLock
from infralens.drift.match.evidence import measure
from infralens.drift.match.propose import Proposal
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.results import StepResult
from infralens.drift.match.reviewed import reviewed_texts
from infralens.drift.match.rules import Origin, StepKind, Thresholds
from infralens.drift.match.scored import Scored
from infralens.drift.match.texts import statement_shape
from infralens.source import ModuleIndex, Statement, StatementKind

_HEADER_KINDS = frozenset({"if", "for", "while", "with", "async"})
"""The statement shapes (:func:`~.texts.statement_shape`: an ``elif`` is an ``if``) whose headers open a block of steps."""


def header_kind(text: str) -> str | None:
    """The kind of block a statement's text heads, or None when it heads none."""
    shape = statement_shape(text)
    return shape if text.endswith(":") and shape in _HEADER_KINDS else None


def headers_of_bodies(
    reader: TreeReader, reviewed: TreeReader | None, results: dict[str, StepResult], annotation: AnnotationLock, steps: list[StepLock], t: Thresholds
) -> dict[str, Scored]:
    """Step id → the new header its reviewed block's placed steps now all sit under, for each header step decided
    *deleted* (rule ``header-of-its-body``)."""
    headers = [s for s in steps if results[s.step_id].kind is StepKind.DELETED and len(s.texts) == 1 and header_kind(s.texts[0])]
    before = reviewed.indexed(annotation.relpath) if reviewed is not None and headers else None
    texts = reviewed_texts(reviewed, annotation) if before is not None else None
    if before is None or texts is None:
        return {}
    reviewed_here, claimed = set(texts), {_key(r) for r in results.values() if r.new is not None}
    found: dict[str, Scored] = {}
    for step in headers:
        block = _reviewed_block(before[1], step)
        inner = [s for s in steps if s.step_id != step.step_id and block is not None and block[0] < s.lines[0] <= block[1]]
        places = [place for s in inner if (place := results[s.step_id].new) is not None]
        if not places or 2 * len(places) < len(inner):
            continue
        under = Counter(_enclosing(reader, place.relpath, place.lines[0], header_kind(step.texts[0]) or "") for place in places)
        ((home, votes),) = under.most_common(1)
        if home is None or votes != len(places) or home[2].text in reviewed_here or (home[0], home[2].start_line) in claimed:
            continue
        claimed.add((home[0], home[2].start_line))
        indexed = reader.indexed(home[0])
        assert indexed is not None  # the file of a placed step
        proposal = Proposal(indexed[0], indexed[1], (home[2],), Origin.REACHED, t.moved_locality)
        found[step.step_id] = Scored(proposal, measure(proposal, step, frozenset(), t))
    return found


def _key(result: StepResult) -> tuple[str, int]:
    assert result.new is not None
    return result.new.relpath, result.new.lines[0]


def _reviewed_block(index: ModuleIndex, step: StepLock) -> tuple[int, int] | None:
    """The lines of the body the step's header opened at the review (after its header, to its block's end)."""
    header = next((s for s in index.statements_starting(step.lines[0]) if s.text == step.texts[0] and s.kind is StatementKind.COMPOUND), None)
    return (header.header_end_line, header.end_line) if header is not None else None


def _enclosing(reader: TreeReader, relpath: str, line: int, kind: str) -> tuple[str, int, Statement] | None:
    """The innermost header of ``kind`` whose block holds the statement starting at ``line`` of ``relpath``, in the same
    function (as ``(relpath, line, header)``), or None."""
    indexed = reader.indexed(relpath)
    if indexed is None:
        return None
    index = indexed[1]
    inner = next(iter(index.statements_starting(line)), None)
    if inner is None:
        return None
    around = [
        s
        for s in index.statements
        if s.kind is StatementKind.COMPOUND and s.scope == inner.scope and s.header_end_line < line <= s.end_line and header_kind(s.text) == kind
    ]
    best = max(around, key=lambda s: s.start_line, default=None)
    return (relpath, best.start_line, best) if best is not None else None

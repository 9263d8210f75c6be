"""Strategies that *propose* places a locked statement may be now; they never decide.

Each :class:`Proposal` carries its origin: a run of statements inside the mapped target
(:func:`in_target`), or the same text elsewhere in the distribution (:func:`elsewhere`, whose
proposals :mod:`.matcher` marks as *reached* when the target now leads there). The filters here
are only there to keep the work small (a statement with no resemblance is not proposed); whether a
proposal is taken is :func:`~infralens.drift.match.decide.decide`'s call.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from infralens.drift.lock.entries import AnnotationLock, Place, StepLock, short_hash
from infralens.drift.lock.facts import body_of, enclosing_definitions, header_of, jaccard
from infralens.drift.match.container import Found
from infralens.drift.match.position import Alignment
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.replacements import argument_kept
from infralens.drift.match.rules import Action, Filter, Origin, Policy, Thresholds, Trace
from infralens.drift.match.texts import (
    assigned_name,
    condition_kept,
    identifiers,
    names_read,
    names_set,
    ratio_at_least,
    returned_names,
    same_ast,
    statement_call,
    statement_role,
    statement_shape,
    string_literal,
)
from infralens.source import DefinitionKind, ModuleIndex, SourceFile, Statement


def statement_key(relpath: str, statement: Statement) -> tuple[str, int, str]:
    """One statement of one file: its line and its text (``if x: y = 1`` holds two statements on one line)."""
    return (relpath, statement.start_line, statement.text)


@dataclass(frozen=True)
class Proposal:
    """A run of statements (as long as the locked block) where the step may be now."""

    source: SourceFile
    index: ModuleIndex
    window: tuple[Statement, ...]
    origin: Origin
    locality: float

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(s.text for s in self.window)

    @property
    def key(self) -> tuple[str, int, str]:
        """Identifies the first statement (the one-to-one assignment never gives it to two steps)."""
        return statement_key(self.source.relpath, self.window[0])

    def place(self) -> Place:
        """Where the run is: the innermost enclosing function, else the function whose ``def`` line or decorator it is
        (a method's, not its class), else the outermost definition."""
        first = self.window[0]
        own = [d for d in self.index.definitions if d.kind is not DefinitionKind.CLASS and d.start_line <= first.start_line <= d.def_line]
        definitions = enclosing_definitions(self.index, first)
        target = definitions[-1].qualname if definitions else ""
        functions = [d for d in definitions if d.kind is not DefinitionKind.CLASS]
        if functions:
            target = functions[0].qualname
        elif own:  # a method's or module function's own def line or decorator (a nested one belongs to its function)
            target = own[0].qualname
        lines = (self.window[0].start_line, self.window[-1].end_line)
        return Place(self.source.relpath, self.source.module, target, self.window[0].scope, lines, self.texts)


@dataclass(frozen=True)
class TargetBody:
    """The mapped target's statements now, and what they are weighed against."""

    pool: tuple[Statement, ...]
    old_body: frozenset[str]
    """Short hashes the reviewed body already held as often (see :func:`held_before`)."""
    alignment: Alignment
    names: tuple[Counter[str], frozenset[str]]
    """How many statements spelled each name at the review (its steps and their neighbours when that release is not
    at hand), and every name the target spells now (rule ``renamed-throughout``)."""
    reviewed: tuple[str, ...] | None
    """The reviewed body's texts, when the reviewed release is at hand (rule ``same-call``)."""
    decorators: tuple[str, ...] | None = None
    """The reviewed target's decorator names, outermost first, when the lock recorded them (rule ``decorator-replaced``)."""
    nested: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The body texts of the functions the reviewed target nests, by name (rule ``nested-lifted``)."""
    callers_own: frozenset[int] = frozenset()
    """First lines of the statements that stay the caller's own when the target was inlined into it (rule ``callers-own-lines``)."""


def without_callers_own(
    pool: tuple[Statement, ...], body: TargetBody, entry: StepLock, line: tuple[Proposal, str] | None, policy: Policy, trace: Trace
) -> tuple[tuple[Statement, ...], tuple[Proposal, str] | None]:
    """``pool`` less the lines that stay the caller's own when the target was inlined into it, and ``line`` (the step's
    place among the target's own lines, :func:`own_line`) unless it was inlined (filter ``callers-own-lines``: its
    ``def`` line, docstring and returns are no edit of the target's). The trace says so where it mattered: the step is
    one of the target's own lines, or of the kind of a line taken out."""
    if not body.callers_own:
        return pool, line
    shapes = {statement_shape(s.text) for s in pool if s.start_line in body.callers_own}
    mattered = line is not None or (len(entry.texts) == 1 and statement_shape(entry.texts[0]) in shapes)
    if not policy.allows(Filter.CALLERS_OWN_LINES, trace if mattered else None, "the caller's def line and returns"):
        return pool, line
    if mattered:
        trace.add(Filter.CALLERS_OWN_LINES, Action.REMOVED, f"{len(body.callers_own)} line(s) of the caller it was inlined into, its own")
    return tuple(s for s in pool if s.start_line not in body.callers_own), None


def target_pool(found: Found) -> tuple[Statement, ...]:
    """The statements of the mapped target."""
    return found.index.statements_within(found.definition.start_line, found.definition.end_line)


def held_before(annotation: AnnotationLock, pool: tuple[Statement, ...]) -> frozenset[str]:
    """Short hashes of texts the reviewed body already held as often as the target holds them now (not edits of a step)."""
    before = Counter(annotation.body)
    now = Counter(short_hash(s.text) for s in pool)
    return frozenset(h for h, n in before.items() if n >= now[h])


def in_target(found: Found, pool: tuple[Statement, ...], entry: StepLock, t: Thresholds, *, exact_only: bool) -> list[Proposal]:
    """Runs inside the target: identical ones, or (unless ``exact_only``) ones with some resemblance to the step."""
    size = len(entry.texts)
    wanted = "\n".join(entry.texts)
    proposals = []
    for start in range(max(0, len(pool) - size + 1)):
        window = pool[start : start + size]
        texts = tuple(s.text for s in window)
        if texts != entry.texts and (exact_only or not _resembles(wanted, "\n".join(texts), t)):
            continue
        proposals.append(Proposal(found.source, found.index, window, Origin.TARGET, found.locality))
    return proposals


def container_header(found: Found, entry: StepLock, target: str) -> Proposal | None:
    """The mapped target's ``def`` line or docstring when the step is the reviewed target's own (container first: the
    header of the function found is the header's new place, however much its parameters or its words changed)."""
    if len(entry.texts) != 1:
        return None
    parent, _, name = target.rpartition(".")
    words = entry.texts[0].split(" ")
    header = header_of(found.index, found.definition)
    if header is None or not header.text.startswith(("def ", "async def ")):
        return None
    if entry.scope == parent and words[: 2 + (words[0] == "async")][-2:] == ["def", name]:
        return Proposal(found.source, found.index, (header,), Origin.TARGET, found.locality)
    if entry.scope == target and not entry.before and string_literal(entry.texts[0]):  # the first statement of the body
        body = body_of(found.index, found.definition)
        if body and string_literal(body[0].text):
            return Proposal(found.source, found.index, (body[0],), Origin.TARGET, found.locality)
    return None


def replaced_decorator(found: Found, entry: StepLock, target: str, reviewed: tuple[str, ...] | None) -> Proposal | None:
    """The decorator of the mapped target that took the place of the step's, a decorator the reviewed target carried
    (``reviewed``: its decorator names, outermost first) and the mapped one no longer does: the diff of the two lists
    replaced a run of them holding the step's, and the new run has one at the step's rank (rule ``decorator-replaced``)."""
    if reviewed is None or len(entry.texts) != 1 or not entry.texts[0].startswith("@ ") or entry.scope != target.rpartition(".")[0]:
        return None
    name = "".join(entry.texts[0][2:].split(" ( ", 1)[0].split(" "))
    now = found.definition.decorators
    if name not in reviewed or name in now:
        return None
    rank = reviewed.index(name)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, list(reviewed), list(now), autojunk=False).get_opcodes():
        if tag == "replace" and i1 <= rank < i2 and j1 + rank - i1 < j2:
            lines = [s for s in target_pool(found) if s.start_line < found.definition.def_line and s.text.startswith("@ ")]
            if len(lines) == len(now):
                return Proposal(found.source, found.index, (lines[j1 + rank - i1],), Origin.TARGET, found.locality)
    return None


def lifted_function(found: Found, entry: StepLock, target: str, nested: dict[str, tuple[str, ...]], t: Thresholds) -> Proposal | None:
    """The ``def`` line of the helper a nested function of the reviewed target was lifted into (rule
    ``nested-lifted``): the step is that nested function's ``def`` line, the mapped target no longer nests a function of
    that name, and exactly one helper the target was split into, under another ``def`` line, holds at least
    :attr:`~.rules.Thresholds.carried_statements` and :attr:`~.rules.Thresholds.carried_share` of its reviewed body
    (``nested``: the reviewed target's nested functions' body texts, by name)."""
    words = entry.texts[0].split(" ") if len(entry.texts) == 1 else []
    name = words[1 + (words[0] == "async")] if len(words) > 2 and words[words[0] == "async"] == "def" else ""
    body = Counter(nested.get(name, ()))
    if not body or entry.scope != target or any(d.qualname == f"{found.definition.qualname}.{name}" for d in found.index.definitions):
        return None
    homes = []
    for helper in found.split.helpers if found.split is not None else ():
        held = sum((body & Counter(s.text for s in body_of(helper.index, helper.definition))).values())
        header = header_of(helper.index, helper.definition)
        if header is not None and header.text == entry.texts[0]:
            return None  # the same def line in a helper is the function moved there (rule helpers-first)
        if header is not None and not helper.decorator and held >= t.carried_statements and held >= t.carried_share * sum(body.values()):
            homes.append(Proposal(helper.source, helper.index, (header,), Origin.REACHED, found.locality))
    return homes[0] if len(homes) == 1 else None


def own_line(found: Found, entry: StepLock, target: str, body: TargetBody, t: Thresholds) -> tuple[Proposal, str] | None:
    """The place of a step that is one of the target's own lines, and which kind of line (see :func:`~.evidence.measure`):
    its ``def`` line or docstring (:func:`container_header`), a decorator replaced (:func:`replaced_decorator`), or a
    nested function's ``def`` line lifted into a helper (:func:`lifted_function`)."""
    found_lines = (
        (container_header(found, entry, target), "header"),
        (replaced_decorator(found, entry, target, body.decorators), "decorator"),
        (lifted_function(found, entry, target, body.nested, t), "lifted"),
    )
    return next(((proposal, kind) for proposal, kind in found_lines if proposal is not None), None)


def _resembles(wanted: str, text: str, t: Thresholds) -> bool:
    """A cheap filter: could any rule admit ``text`` as the edit of ``wanted``? (Same tree; same kind of statement
    with some text in common, less needed when as many tokens are left, as a rename leaves; or a setter call and
    an assignment.)"""
    if same_ast(wanted, text) or condition_kept(wanted, text):  # a test added to a header, or dropped (kept-condition)
        return True
    if (shape := statement_shape(wanted)) == statement_shape(text):
        loose = wanted.count(" ") == text.count(" ") or (assigned_name(wanted) or "") == (assigned_name(text) or "-") or shape == "return"
        floor = t.sole_assignment_similarity if loose else t.candidate_similarity
        return ratio_at_least(wanted, text, floor, t.quick_reject_similarity) is not None
    if _setter_like(wanted) != _setter_like(text) and ratio_at_least(wanted, text, t.sole_assignment_similarity, t.quick_reject_similarity) is not None:
        return True  # a setter call may have become an assignment, or back
    if _context_held(wanted, text) or _context_held(text, wanted) or (_value_text(wanted) or "-") == _value_text(text):
        return True
    if _appended_text(wanted, text) or _appended_text(text, wanted):
        return True
    return argument_kept(wanted, text, t.kept_message_length)  # what a call was given, now assigned, returned or raised


def _value_text(text: str) -> str | None:
    """The call a ``return``, an assignment or a bare expression computes, as text (None when it computes none)."""
    value = text[len("return ") :] if text.startswith("return ") else text
    head, assigned, rest = value.partition(" = ")
    if assigned and not any(bracket in head for bracket in "({") and not head.startswith(("if ", "elif ", "while ", "for ", "with ", "assert ")):
        value = rest
    return value if value.endswith(")") and "(" in value else None


def _appended_text(added: str, other: str) -> bool:
    """``T += ( E , )`` and ``T . append ( E )``: an item now appended to a list (normalised texts)."""
    target, plus, rest = added.partition(" += ( ")
    return bool(plus) and rest.endswith(" , )") and other == f"{target} . append ( {rest[: -len(' , )')]} )"


def _context_held(block: str, other: str) -> bool:
    """``with <expression> [as name] :`` and ``name = <expression>``: a context manager now kept in a name."""
    if not (block.startswith("with ") and block.endswith(" :") and " = " in other):
        return False
    return other.split(" = ", 1)[1] == block[len("with ") : -len(" :")].split(" as ", 1)[0]


def _setter_like(text: str) -> bool:
    """Whether a statement may be one side of a setter rewrite (:attr:`~.replacements.ReplacementKind.SETTER_ASSIGNMENT`)."""
    return "set_" in text or "setattr" in text


def sole_role(relpath: str, pool: tuple[Statement, ...], entry: StepLock) -> tuple[str, int, str] | None:
    """The key of the only statement of ``pool`` (in ``relpath``) that plays ``entry``'s role (see
    :func:`~.texts.statement_role`); None otherwise. Steps of the same role compete for it in the one-to-one assignment."""
    role = statement_role(entry.texts[0]) if len(entry.texts) == 1 else None
    if role is None:
        return None
    same = [s for s in pool if statement_role(s.text) == role]
    return statement_key(relpath, same[0]) if len(same) == 1 else None


def sole_assignment(relpath: str, pool: tuple[Statement, ...], entry: StepLock, steps: list[StepLock]) -> tuple[str, int, str] | None:
    """The key of the only statement of ``pool`` (in ``relpath``) assigning the name ``entry`` assigns, when no other
    step assigns it (rule ``sole-assignment``); else None."""
    name = assigned_name(entry.texts[0]) if len(entry.texts) == 1 else None
    if name is None or any(assigned_name(s.texts[0]) == name for s in steps if s.step_id != entry.step_id):
        return None
    same = [s for s in pool if assigned_name(s.text) == name]
    return statement_key(relpath, same[0]) if len(same) == 1 else None


def sole_reader(
    relpath: str, pool: tuple[Statement, ...], entry: StepLock, steps: list[StepLock], reviewed: tuple[str, ...] | None
) -> tuple[str, int, str] | None:
    """The key of the only statement of ``pool`` (in ``relpath``) reading a name that ``entry`` alone read in the reviewed
    body (``reviewed``: its texts; None when unknown), when every statement that set the name then is still there word
    for word and no other step reads it (rule ``sole-reader``); else None."""
    if reviewed is None or len(entry.texts) != 1:
        return None
    kept = {s.text for s in pool}
    others = [s.texts[0] for s in steps if s.step_id != entry.step_id and len(s.texts) == 1]
    for name in sorted(names_read(entry.texts[0])):
        setters = [text for text in reviewed if name in names_set(text)]
        if not setters or any(text not in kept for text in setters) or sum(name in names_read(text) for text in reviewed) != 1:
            continue
        if any(name in names_read(text) for text in others):
            continue
        readers = [s for s in pool if name in names_read(s.text)]
        if len(readers) == 1 and readers[0].text != entry.texts[0]:
            return statement_key(relpath, readers[0])
    return None


def kept_condition(relpath: str, pool: tuple[Statement, ...], entry: StepLock, steps: list[StepLock]) -> tuple[str, int, str] | None:
    """The key of the only header of ``pool`` (in ``relpath``) whose tests hold all of ``entry``'s or are all among
    them, when no other step's header is so related to it (rule ``kept-condition``); else None."""
    if len(entry.texts) != 1:
        return None
    same = [s for s in pool if condition_kept(entry.texts[0], s.text)]
    if len(same) != 1:
        return None
    others = [s.texts[0] for s in steps if s.step_id != entry.step_id and len(s.texts) == 1]
    return None if any(condition_kept(text, same[0].text) for text in others) else statement_key(relpath, same[0])


def sole_return(found: Found, pool: tuple[Statement, ...], entry: StepLock, reviewed: tuple[str, ...] | None) -> tuple[str, int, str] | None:
    """The key of the target's only ``return`` (of its own body, not a nested function's) when ``entry`` is a return, the
    reviewed body (``reviewed``: its texts, nested functions' included; None when unknown) held no other, and the two
    still return something in common (:func:`~.texts.returned_names`; rule ``sole-return``); else None."""
    if reviewed is None or len(entry.texts) != 1 or statement_shape(entry.texts[0]) != "return":
        return None
    if sum(statement_shape(text) == "return" for text in reviewed) != 1:
        return None
    own = [s for s in pool if s.scope == found.definition.qualname and statement_shape(s.text) == "return"]
    if len(own) != 1 or not returned_names(entry.texts[0]) & returned_names(own[0].text):
        return None
    return statement_key(found.source.relpath, own[0])


def call_of(entry: StepLock, steps: list[StepLock], reviewed: tuple[str, ...] | None) -> str | None:
    """The call ``entry``'s statement makes (:func:`~.texts.statement_call`) when it can tell the statement apart: the
    reviewed target's body (``reviewed``: its texts, None when unknown) made it in that statement only, and no other
    step makes it; else None."""
    call = statement_call(entry.texts[0]) if len(entry.texts) == 1 and reviewed is not None else None
    if call is None or reviewed is None or sum(statement_call(text) == call for text in reviewed) != 1:
        return None
    return None if any(s.step_id != entry.step_id and statement_call(s.texts[0]) == call for s in steps) else call


def sole_call(relpath: str, pool: tuple[Statement, ...], call: str | None) -> tuple[str, int, str] | None:
    """The key of the only statement of ``pool`` (in ``relpath``) that makes ``call`` (see :func:`call_of`), or None."""
    same = [s for s in pool if statement_call(s.text) == call] if call is not None else []
    return statement_key(relpath, same[0]) if len(same) == 1 else None


def names_in(texts: Iterable[str]) -> frozenset[str]:
    """Every name the statements ``texts`` spell (:func:`~.texts.identifiers`)."""
    return frozenset(name for text in texts for name in identifiers(text))


def target_names(reviewed: tuple[str, ...] | None, steps: list[StepLock], pool: tuple[Statement, ...]) -> tuple[Counter[str], frozenset[str]]:
    """How many statements of the reviewed body spelled each name (``reviewed``: its texts; when that release is not at
    hand, the steps and their recorded neighbours, each text once), and every name the statements of ``pool`` spell now."""
    then = reviewed if reviewed is not None else tuple(dict.fromkeys(text for s in steps for text in (*s.before, *s.texts, *s.after)))
    return Counter(name for text in then for name in identifiers(text)), names_in(s.text for s in pool)


@dataclass(frozen=True)
class Elsewhere:
    """The places holding a step's exact text outside its target, found in the best-ranked files that hold it."""

    proposals: list[Proposal]
    more: bool
    """Whether more files than those searched hold the text (the search stopped at its limit)."""


def elsewhere(reader: TreeReader, entry: StepLock, annotation: AnnotationLock, found: Found | None, max_files: int) -> Elsewhere:
    """The exact text anywhere in the distribution, outside the (re)found target, in the ``max_files`` best-ranked files
    that hold it (one more is looked for, unparsed, to tell whether the search was cut)."""
    proposals = []
    near = reader.files_with_text(entry.texts[0], near=annotation.relpath, hints=annotation.target.split("."), limit=max_files + 1)
    more, near = len(near) > max_files, near[:max_files]
    reader.prefetch(near)
    for relpath in near:
        indexed = reader.indexed(relpath)
        if indexed is None:
            continue
        source, index = indexed
        statements = index.statements
        for start, statement in enumerate(statements):
            if statement.text != entry.texts[0]:
                continue
            if found is not None and relpath == found.source.relpath and found.definition.start_line <= statement.start_line <= found.definition.end_line:
                continue
            window = statements[start : start + len(entry.texts)]
            if tuple(s.text for s in window) != entry.texts:
                continue
            locality = max((jaccard(annotation.body, reader.body_hashes(index, d)) for d in enclosing_definitions(index, statement)), default=0.0)
            proposals.append(Proposal(source, index, window, Origin.ELSEWHERE, locality))
    return Elsewhere(proposals, more)


def in_helpers(found: Found, entry: StepLock) -> list[Proposal]:
    """Runs with the step's exact texts in the helpers the container decision named (:mod:`.split`), their ``def``
    lines included: the first place a statement that left the target is looked for."""
    proposals = []
    for helper in found.split.helpers if found.split is not None else ():
        header = header_of(helper.index, helper.definition)  # a nested function lifted out keeps its def line
        pool = ((header,) if header is not None else ()) + body_of(helper.index, helper.definition)
        for start in range(len(pool) - len(entry.texts) + 1):
            window = pool[start : start + len(entry.texts)]
            if tuple(s.text for s in window) == entry.texts:
                proposals.append(Proposal(helper.source, helper.index, window, Origin.REACHED, found.locality))
    return proposals

"""Plan new annotation steps from a selection: a target, or a file and a line range.

The plan binds each chosen statement to a selector that finds it again by its
text — the statement's own source text when that is unique in the target,
``{contains, nth}`` otherwise — and proves it: every planned selector is
resolved with the real resolver and must give back exactly its statement.
Nothing here writes files (see :mod:`.scaffold_yaml`).
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass

from infralens.annotations import ContainsSelector, ExactSelector, SingleSelector
from infralens.errors import InfralensError, ResolutionError
from infralens.resolve import ResolvedTarget, Resolver
from infralens.source import Definition, DefinitionKind, ModuleIndex, Statement, StatementKind, check_relpath, module_name_of, normalize, strip_header_colon

MAX_KEY_STATEMENTS = 8
"""How many statements ``infralens add TARGET`` picks when no lines are given."""
LONG_STATEMENT_LINES = 4
"""Statements longer than this are selected by their first line when that is unambiguous."""

_LINES = re.compile(r"^L?(\d+)(?:-L?(\d+))?$")


@dataclass(frozen=True)
class Selection:
    """What the maintainer pointed at: a dotted target, or a file and a line range."""

    distribution: str
    target: str | None = None
    relpath: str | None = None
    first_line: int | None = None
    last_line: int | None = None

    def describe(self) -> str:
        if self.target:
            return self.target
        return f"{self.relpath}:L{self.first_line}-L{self.last_line}"

    def line_range(self) -> tuple[str, int, int]:
        """``(relpath, first line, last line)`` of a line selection."""
        if self.relpath is None or self.first_line is None or self.last_line is None:
            raise InfralensError(f"{self.describe()}: not a PATH:Lx-Ly selection")
        return self.relpath, self.first_line, self.last_line


@dataclass(frozen=True)
class PlannedStep:
    """One statement to annotate and the selector that finds it."""

    statement: Statement
    selector: SingleSelector
    source_text: str
    """The statement's own text as written upstream (comments dropped), for messages."""


@dataclass(frozen=True)
class ScaffoldPlan:
    """Everything needed to write (or extend) an annotation of one target."""

    selection: Selection
    target: ResolvedTarget
    dotted_target: str
    definition_pick: int | None
    """Value for ``definition: N`` when the qualname alone is ambiguous."""
    steps: tuple[PlannedStep, ...]


def parse_selection(spec: str, distribution: str | None = None) -> Selection:
    """``pkg.mod.Class.method`` or ``pkg/mod.py:L10-L24`` (path relative to the distribution root)."""
    spec = spec.strip()
    path, sep, lines = spec.rpartition(":")
    if sep and (path.endswith(".py") or "/" in path):
        match = _LINES.match(lines)
        if not match:
            raise InfralensError(f"{spec!r}: expected lines as L10-L24 or L10 after the ':'")
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if first < 1 or last < first:
            raise InfralensError(f"{spec!r}: the line range must be 1-based and ascending")
        relpath = check_relpath(path)
        if not relpath.endswith(".py"):
            raise InfralensError(f"{spec!r}: the path must name a .py file inside the distribution")
        return Selection(distribution or relpath.split("/")[0], None, relpath, first, last)
    if "/" in spec or spec.endswith(".py"):
        raise InfralensError(f"{spec!r}: add the lines to annotate, e.g. {spec}:L10-L24, or give a dotted target")
    if not re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+", spec):
        raise InfralensError(f"{spec!r}: expected module.qualname (e.g. diffusers.schedulers.scheduling_pndm.PNDMScheduler.step) or path.py:L10-L24")
    return Selection(distribution or spec.split(".")[0], spec)


def plan_scaffold(resolver: Resolver, selection: Selection, *, max_steps: int = MAX_KEY_STATEMENTS) -> ScaffoldPlan:
    """Resolve the selection and compute a proven selector for each chosen statement."""
    if selection.target:
        target = _resolve_dotted(resolver, selection.distribution, selection.target)
        index = resolver.index(target.source)
        chosen = key_statements(index, target.definition, max_steps)
    else:
        relpath, _first, _last = selection.line_range()
        tree = resolver.tree(selection.distribution)
        source = resolver.source_file(tree, relpath)
        index = resolver.index(source)
        if index.syntax_error:
            raise InfralensError(f"{relpath} is not valid Python for this parser ({index.syntax_error})")
        chosen = _statements_in_lines(index, selection)
        definition = _innermost_definition(index, chosen, selection)
        target = ResolvedTarget(source, module_name_of(source.relpath), definition)
    dotted = f"{target.module}.{target.definition.qualname}"
    pick = _definition_pick(resolver, selection.distribution, dotted, index, target.definition)
    lines = target.source.lines
    pool = index.statements_within(target.definition.start_line, target.definition.end_line)
    steps = tuple(plan_step(resolver, index, target.definition, pool, statement, lines) for statement in chosen)
    return ScaffoldPlan(selection, target, dotted, pick, steps)


def plan_step(
    resolver: Resolver, index: ModuleIndex, definition: Definition, pool: tuple[Statement, ...], statement: Statement, lines: list[str]
) -> PlannedStep:
    """The selector for one statement, verified to resolve back to exactly that statement."""
    original = original_text(statement, lines)
    text = original or statement.text
    selector = (None if original else _words_selector(statement, pool)) or _choose_selector(statement, text, pool, lines)
    try:
        found = resolver.resolve_selector(index, definition, selector)
    except ResolutionError as error:  # a bug in the choice above: never write a selector that fails
        raise InfralensError(f"line {statement.start_line}: computed selector {selector.describe()} does not resolve ({error})") from error
    if found != (statement,):
        raise InfralensError(f"line {statement.start_line}: computed selector {selector.describe()} finds line {found[0].start_line} instead")
    return PlannedStep(statement, selector, text)


def _choose_selector(statement: Statement, text: str, pool: tuple[Statement, ...], lines: list[str]) -> SingleSelector:
    wanted = strip_header_colon(statement.text)
    same = [s for s in pool if strip_header_colon(s.text) == wanted]
    if len(same) == 1:
        span = statement.header_end_line - statement.start_line + 1
        if span > LONG_STATEMENT_LINES:
            short = _first_line_selector(statement, pool, lines)
            if short is not None:
                return short
        return ExactSelector(text)
    needle = normalize(text)
    containing = [s for s in pool if needle in s.text]
    return ContainsSelector(text, containing.index(statement) + 1)


def _first_line_selector(statement: Statement, pool: tuple[Statement, ...], lines: list[str]) -> ContainsSelector | None:
    """``{contains: <first line>}`` for a long statement, when that line's text is unique in the target."""
    first = _strip_comments([lines[statement.start_line - 1]])[0].strip()
    needle = normalize(first)
    if len(needle) < 8 or not statement.text.startswith(needle):
        return None
    containing = [s for s in pool if needle in s.text]
    if containing != [statement]:
        return None
    return ContainsSelector(first, None)


def _words_selector(statement: Statement, pool: tuple[Statement, ...]) -> ContainsSelector | None:
    """For text that cannot be shown as written (a docstring, whose indentation is content):
    ``{contains: "a few plain words"}`` taken from its first line of prose, when that is unique."""
    for line in statement.text.split("\n"):
        words = re.findall(r"[A-Za-z][\w-]*(?: [A-Za-z][\w-]*)*", line)
        for phrase in sorted(words, key=len, reverse=True):
            tokens = phrase.split(" ")
            if len(tokens) < 3:
                continue
            needle = " ".join(tokens[:8])
            if normalize(needle) == needle and [s for s in pool if needle in s.text] == [statement]:
                return ContainsSelector(needle, None)
    return None


def original_text(statement: Statement, lines: list[str]) -> str | None:
    """The statement's text as written (its own lines, comments dropped, dedented), if it normalises back."""
    chunk = lines[statement.start_line - 1 : statement.header_end_line]
    if not chunk:
        return None
    text = textwrap.dedent("\n".join(line.rstrip() for line in _strip_comments(chunk))).strip("\n")
    return text if normalize(text) == statement.text else None


def _strip_comments(chunk: list[str]) -> list[str]:
    """Drop ``# comments`` from source lines using the tokenizer (so '#' inside strings survives)."""
    cuts: dict[int, int] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(chunk) + "\n").readline):
            if token.type == tokenize.COMMENT:
                cuts[token.start[0] - 1] = token.start[1]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a partial header: comments seen so far are still cut
    return [line[: cuts[row]] if row in cuts else line for row, line in enumerate(chunk)]


# ---------------------------------------------------------------------------
# Which statements
# ---------------------------------------------------------------------------


def key_statements(index: ModuleIndex, definition: Definition, limit: int) -> tuple[Statement, ...]:
    """Statements worth a first note when only a target is given.

    For a function: its top-level assignments, returns and yields (docstrings, ``pass``,
    bare calls and nested blocks are left out), the first ``limit`` of them in source order.
    For a class, or a function with none of those: the ``def``/``class`` header alone.
    """
    pool = index.statements_within(definition.start_line, definition.end_line)
    header = next(s for s in pool if s.start_line == definition.def_line and s.kind is StatementKind.COMPOUND)
    if definition.kind is DefinitionKind.CLASS:
        return (header,)
    body = [s for s in pool if s.scope.replace(".<locals>", "") == definition.qualname]
    blocks = [s for s in body if s.kind is not StatementKind.SIMPLE]
    top = [s for s in body if s.kind is StatementKind.SIMPLE and not any(b.start_line < s.start_line <= b.end_line for b in blocks)]
    chosen = [s for s in top if _is_key(s.text)][: max(limit, 0)]
    return tuple(chosen) or (header,)


def _is_key(text: str) -> bool:
    """Assignments (plain, augmented, annotated with a value), returns and yields."""
    try:
        node = ast.parse(text).body[0]
    except (SyntaxError, ValueError, IndexError):
        return False
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.Return)):
        return True
    if isinstance(node, ast.AnnAssign):
        return node.value is not None
    return isinstance(node, ast.Expr) and isinstance(node.value, (ast.Yield, ast.YieldFrom))


def _statements_in_lines(index: ModuleIndex, selection: Selection) -> tuple[Statement, ...]:
    """Statements whose own text starts inside the range (nested statements included)."""
    _relpath, first, last = selection.line_range()
    chosen = tuple(s for s in index.statements if first <= s.start_line <= last)
    if not chosen:
        raise InfralensError(f"{selection.describe()}: no statement starts on these lines (blank lines, comments or the middle of a statement?)")
    return chosen


def _innermost_definition(index: ModuleIndex, chosen: tuple[Statement, ...], selection: Selection) -> Definition:
    low = min(s.start_line for s in chosen)
    high = max(s.header_end_line for s in chosen)
    around = [d for d in index.definitions if d.start_line <= low and high <= d.end_line]
    if not around:
        raise InfralensError(f"{selection.describe()}: these lines are module-level code; an annotation targets a function or class, so pick lines inside one")
    # A selection that is exactly a def's header (and its decorators) belongs to that def,
    # which is the innermost definition spanning it anyway.
    return min(around, key=lambda d: d.end_line - d.start_line)


def _resolve_dotted(resolver: Resolver, distribution: str, target: str) -> ResolvedTarget:
    try:
        return resolver.resolve_target(distribution, target)
    except ResolutionError as error:
        detail = ("; candidates: " + " | ".join(error.candidates)) if error.candidates else ""
        hint = " (several definitions: select one by lines, path.py:L10-L24)" if "definition: N" in str(error) else ""
        raise InfralensError(f"{target}: {error}{detail}{hint}") from error


def _definition_pick(resolver: Resolver, distribution: str, dotted: str, index: ModuleIndex, definition: Definition) -> int | None:
    """None when the qualname alone resolves to ``definition``, else its 1-based rank (``definition: N``)."""
    try:
        if resolver.resolve_target(distribution, dotted).definition == definition:
            return None
    except ResolutionError:
        pass
    same = [d for d in index.definitions if d.qualname == definition.qualname]
    return same.index(definition) + 1

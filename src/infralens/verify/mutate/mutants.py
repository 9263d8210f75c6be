"""Plausible wrong versions of one annotated statement, made with libcst (``infralens verify --mutate``).

Pure text in, text out: :func:`statement_mutants` takes the lines of an upstream file and the line
range of a statement (the header only, for a compound statement) and returns :class:`Mutant`
values, each the same number of lines as the original (padded with blank lines when a mutation
shortens it), so every later line of the file keeps its number and the tracer still finds it.

Kinds, in the order a mutant of each kind is taken (then a second of each kind, and so on):
``value`` (the statement's result nudged where it is stored or returned: a float scaled by 1 + 1e-2, an int plus one,
a bool negated, a function or class another of its module, an empty list or dict not empty…, one element of a tuple
at a time; see :mod:`.perturb` and :mod:`.choice`), ``argument`` (where the statement keeps no
result, a bare call or a compound statement's header: an argument of one of its calls nudged the same way, up to
:data:`MAX_ARGUMENTS` of them), ``operator`` (``+``↔``-``, ``*``↔``/``,
``**``→``*``, augmented ``+=``↔``-=``…), ``comparison`` (``<``↔``<=``, ``==``↔``!=``, ``is``↔``is not``,
``in``↔``not in``), ``negate`` (a condition, ``and``↔``or``), ``constant`` (0↔1, n→n+1, ``True``↔``False``), ``swap`` (two operands
or arguments trade places; run through a helper of :mod:`.perturb` that notes whether the two were ever different, so
a swap that changed nothing because the data is symmetric is told apart from one that is truly equivalent),
``drop-term`` (a sum or product loses one operand), ``operand`` (a local name replaced by another local of the
function), ``return`` (the statement becomes ``return None``) and ``transpose`` (the result's two same-sized
dimensions swapped). ``value``, ``argument``, ``swap`` and ``transpose`` keep the program running, so they reach the
expects.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider, MetadataWrapper

from infralens.reports import MutantKind
from infralens.verify.mutate.statement import ParsedStatement, parse_statement, render_statement, return_lines

KINDS = tuple(MutantKind)
VALUE_KINDS = frozenset({MutantKind.VALUE, MutantKind.ARGUMENT, MutantKind.TRANSPOSE})
"""Kinds whose change happens at run time (:mod:`.perturb`): equivalent when it never changed a value."""
NUDGE, TRANSPOSE, SWAP, SWAP_OPERATOR = "_infralens_nudge", "_infralens_transpose", "_infralens_swap", "_infralens_swap_operator"
NUDGE_ARGUMENT, RETYPE_ARGUMENT = "_infralens_nudge_argument", "_infralens_retype_argument"
MAX_ELEMENTS = 3
"""Elements of a tuple result nudged one at a time (a mutant each)."""
MAX_ARGUMENTS = 3
"""Call arguments nudged one at a time (a mutant each) in a statement that keeps no result."""
OPERAND_CHOICES = 2
"""Replacement names tried per operand (the names the statement itself loads come first)."""

_SWAP: dict[type[cst.CSTNode], type[cst.CSTNode]] = {
    cst.Add: cst.Subtract,
    cst.Subtract: cst.Add,
    cst.Multiply: cst.Divide,
    cst.Divide: cst.Multiply,
    cst.FloorDivide: cst.Multiply,
    cst.Power: cst.Multiply,
    cst.AddAssign: cst.SubtractAssign,
    cst.SubtractAssign: cst.AddAssign,
    cst.MultiplyAssign: cst.DivideAssign,
    cst.PowerAssign: cst.MultiplyAssign,
    cst.DivideAssign: cst.MultiplyAssign,
    cst.LessThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.GreaterThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
    cst.And: cst.Or,
    cst.Or: cst.And,
}
_DROPPABLE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
_NEVER_REPLACED = frozenset({"self", "cls", "__class__"})
_ORDERED = {cst.Subtract: "-", cst.Divide: "/", cst.MatrixMultiply: "@", cst.FloorDivide: "//"}
"""Operators whose operands may not trade places, with the symbol :func:`.perturb.swap_operator` takes."""
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


@dataclass(frozen=True)
class Mutant:
    """One wrong version of a statement: lines *start*.. of the file replaced by *lines* (same count)."""

    kind: MutantKind
    start: int
    original: tuple[str, ...]
    lines: tuple[str, ...]
    relpath: str = ""
    shown: tuple[str, ...] | None = None
    """The lines a reader sees in the diff when *lines* run through a helper (a swap): the plain swap."""

    @property
    def diff(self) -> str:
        """Unified diff of the statement (padding lines left out)."""
        new = [line for line in (self.shown or self.lines) if line.strip()]
        where = f"{self.relpath}:{self.start}" if self.relpath else f"line {self.start}"
        found = difflib.unified_diff(
            [line.rstrip("\n") for line in self.original], [line.rstrip("\n") for line in new], f"{where}", f"{where} ({self.kind})", n=0, lineterm=""
        )
        return "\n".join(found)

    def retyped(self) -> Mutant:
        """This ``argument`` mutant with its argument given another dtype instead of nudged values (tried when the
        called function read only the argument's metadata)."""
        return dataclasses.replace(self, lines=tuple(line.replace(NUDGE_ARGUMENT + "(", RETYPE_ARGUMENT + "(") for line in self.lines))

    def apply(self, text_lines: Sequence[str]) -> str:
        """The whole file's text with this mutant in place."""
        begin = self.start - 1
        return "".join([*text_lines[:begin], *self.lines, *text_lines[begin + len(self.lines) :]])


def statement_mutants(
    text_lines: Sequence[str], start: int, end: int, *, local_names: Sequence[str] = (), limit: int | None = None, relpath: str = ""
) -> list[Mutant]:
    """Mutants of the statement on lines *start*..*end* (1-based, header only for a compound statement).

    *text_lines* are the file's lines with their line endings; *local_names* the function's local
    variables (``co_varnames``), candidates for ``operand`` mutants. At most *limit* mutants, taken
    round-robin over :data:`KINDS` so that a small limit still tries several kinds; deduplicated by text.
    """
    original = tuple(line if line.endswith("\n") else line + "\n" for line in text_lines[start - 1 : end])
    if not original:
        return []
    parsed = parse_statement(original)
    if parsed is None:
        return []
    by_kind: dict[MutantKind, list[_Site]] = {kind: [] for kind in KINDS}
    _Sites(by_kind, _loaded_names(parsed.header), tuple(local_names)).collect(parsed)
    seen = {"".join(original)}
    found: list[Mutant] = []
    queues = {kind: list(sites) for kind, sites in by_kind.items()}
    if not isinstance(parsed.statement, cst.BaseCompoundStatement):
        queues[MutantKind.RETURN] = [(parsed.statement, parsed.statement, None)]
    while any(queues.values()) and (limit is None or len(found) < limit):
        for kind in KINDS:
            while queues[kind]:
                old, new, plain = queues[kind].pop(0)
                lines = return_lines(original) if kind is MutantKind.RETURN else render_statement(parsed, old, new, len(original))
                shown = None if plain is None else render_statement(parsed, old, plain, len(original))
                if lines is None or "".join(lines) in seen or (plain is not None and shown is None):
                    continue
                seen.add("".join(lines))
                found.append(Mutant(kind, start, original, lines, relpath, shown))
                break
            if limit is not None and len(found) >= limit:
                break
    return found


def _loaded_names(header: tuple[cst.CSTNode, ...]) -> tuple[str, ...]:
    """Names the statement loads, in order of appearance."""
    names: list[str] = []

    class Visitor(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value not in names:
                names.append(node.value)

    for part in header:
        part.visit(Visitor())
    return tuple(names)


_Site = tuple[cst.CSTNode, cst.CSTNode, cst.CSTNode | None]
"""A node, the replacement that runs, and the replacement a reader sees when it differs (None: the same)."""


class _Sites:
    """Collects :data:`_Site` triples per kind inside the parts of the statement to mutate."""

    def __init__(self, by_kind: dict[MutantKind, list[_Site]], loaded: tuple[str, ...], local_names: tuple[str, ...]) -> None:
        self.by_kind = by_kind
        self.candidates = tuple(dict.fromkeys([*(n for n in loaded if n in local_names), *local_names]))
        self.local_names = set(local_names)
        self.nudge_arguments = False
        """Whether call arguments are ``argument`` sites: the statement keeps no result that a ``value`` mutant could change."""

    def collect(self, parsed: ParsedStatement) -> None:
        contexts = MetadataWrapper(parsed.wrapper, unsafe_skip_copy=True).resolve(ExpressionContextProvider)
        if isinstance(parsed.statement, (cst.If, cst.While)):
            self.negate(parsed.statement.test)
        if isinstance(parsed.statement, cst.SimpleStatementLine):
            for small in parsed.statement.body:
                self.results(small)
        self.nudge_arguments = not self.by_kind[MutantKind.VALUE]
        visitor = _SiteVisitor(self, contexts)  # one visitor: a name skipped in one part stays skipped in the next
        for part in parsed.header:
            part.visit(visitor)
        # arguments built from the function's own locals carry its data: they are nudged before configuration (``self.x``)
        arguments = self.by_kind[MutantKind.ARGUMENT]
        arguments.sort(key=lambda site: not (self.local_names - _NEVER_REPLACED).intersection(_loaded_names((site[0],))))
        del arguments[MAX_ARGUMENTS:]

    def results(self, small: cst.BaseSmallStatement) -> None:
        """``value`` and ``transpose`` sites: the result an assignment stores or a return returns, wrapped in a helper."""
        value = getattr(small, "value", None)
        if not isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return)) or value is None:
            return
        target = small.targets[-1].target if isinstance(small, cst.Assign) else value if isinstance(small, cst.Return) else None
        elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
        if elements and not any(isinstance(element, cst.StarredElement) for element in elements):
            for index in range(min(len(elements), MAX_ELEMENTS)):
                self.add(MutantKind.VALUE, value, _helper(NUDGE, value, index))
        else:
            self.add(MutantKind.VALUE, value, _helper(NUDGE, value))
            if not isinstance(small, cst.AugAssign):
                self.add(MutantKind.TRANSPOSE, value, _helper(TRANSPOSE, value))

    def swap(self, node: cst.CSTNode, items: Sequence[cst.Arg | cst.BaseElement], *, stored: bool = False) -> None:
        """A ``swap`` site: the first two neighbouring positional operands that are not literals trade places.

        What runs is ``*_infralens_swap(a, b)`` in their place, which notes whether *a* and *b* differed; an
        assignment target (*stored*) cannot hold a call, so there the plain swap runs."""
        for first, second in itertools.pairwise(items):
            if any(_fixed(item) for item in (first, second)) or _same_name(first.value, second.value):
                continue
            replaced = [second if item is first else first if item is second else item for item in items]
            # keep each position's comma and whitespace: only the values move
            moved = [old.with_changes(value=new.value) for old, new in zip(items, replaced, strict=True)]
            field = "args" if isinstance(node, cst.Call) else "elements"
            plain = node.with_changes(**{field: moved})
            if stored:
                self.add(MutantKind.SWAP, node, plain)
                return
            pair = cst.Call(cst.Name(SWAP), [cst.Arg(_bare(first.value)), cst.Arg(_bare(second.value))])
            joined: cst.Arg | cst.BaseElement = (
                second.with_changes(value=pair, star="*") if isinstance(second, cst.Arg) else cst.StarredElement(pair, comma=second.comma)
            )
            helped = [joined if item is second else item for item in items if item is not first]
            if len(helped) == 1 and isinstance(node, cst.Tuple) and isinstance(joined, cst.StarredElement):
                helped = [joined.with_changes(comma=cst.Comma())]  # (*pair,) stays a tuple
            self.add(MutantKind.SWAP, node, node.with_changes(**{field: helped}), plain)
            return

    def arguments(self, call: cst.Call) -> None:
        """``argument`` sites: each positional or keyword argument that is not a literal, starred or ``self``."""
        for arg in call.args:
            if arg.star or _literal(arg.value) or (isinstance(arg.value, cst.Name) and arg.value.value in _NEVER_REPLACED):
                continue
            self.add(MutantKind.ARGUMENT, arg.value, _helper(NUDGE_ARGUMENT, arg.value))

    def add(self, kind: MutantKind, old: cst.CSTNode, new: cst.CSTNode, shown: cst.CSTNode | None = None) -> None:
        self.by_kind[kind].append((old, new, shown))

    def operator(self, node: cst.CSTNode, operator: cst.CSTNode, kind: MutantKind) -> None:
        new_op = _swapped(operator)
        if new_op is not None:
            self.add(kind, node, node.with_changes(operator=new_op))

    def negate(self, test: cst.BaseExpression) -> None:
        operand = test if not test.lpar else test.with_changes(lpar=(), rpar=())
        wrapped = operand.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self.add(MutantKind.NEGATE, test, cst.UnaryOperation(operator=cst.Not(), expression=wrapped, lpar=test.lpar, rpar=test.rpar))


class _SiteVisitor(cst.CSTVisitor):
    """Walks the parts of a statement and adds their sites to :class:`_Sites`.

    Attribute names, keyword names and called functions are never ``operand`` or ``constant`` sites (*skip*)."""

    def __init__(self, sites: _Sites, contexts: Mapping[cst.CSTNode, ExpressionContext]) -> None:
        super().__init__()
        self.sites = sites
        self.contexts = contexts
        self.skip: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self.sites.operator(node, node.operator, MutantKind.OPERATOR)
        symbol = _ORDERED.get(type(node.operator))
        if symbol is not None and not isinstance(node.left, _LITERALS) and not isinstance(node.right, _LITERALS) and not _same_name(node.left, node.right):
            helper = cst.Call(cst.Name(SWAP_OPERATOR), [cst.Arg(_bare(node.left)), cst.Arg(_bare(node.right)), cst.Arg(cst.SimpleString(f'"{symbol}"'))])
            self.sites.add(MutantKind.SWAP, node, helper.with_changes(lpar=node.lpar, rpar=node.rpar), node.with_changes(left=node.right, right=node.left))
        if isinstance(node.operator, _DROPPABLE):
            for term in (node.left, node.right):
                self.sites.add(MutantKind.DROP_TERM, node, term.with_changes(lpar=node.lpar, rpar=node.rpar) if node.lpar else term)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.sites.operator(node, node.operator, MutantKind.OPERATOR)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for index, target in enumerate(node.comparisons):
            new_op = _swapped(target.operator)
            if new_op is not None:
                comparisons = list(node.comparisons)
                comparisons[index] = target.with_changes(operator=new_op)
                self.sites.add(MutantKind.COMPARISON, node, node.with_changes(comparisons=comparisons))

    def visit_Call(self, node: cst.Call) -> None:
        self.skip.add(id(node.func))
        self.sites.swap(node, node.args)
        if self.sites.nudge_arguments:
            self.sites.arguments(node)

    def visit_List(self, node: cst.List) -> None:
        self.sites.swap(node, node.elements, stored=self.contexts.get(node) is ExpressionContext.STORE)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self.sites.swap(node, node.elements, stored=self.contexts.get(node) is ExpressionContext.STORE)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self.sites.operator(node, node.operator, MutantKind.NEGATE)

    def visit_Assert(self, node: cst.Assert) -> None:
        self.sites.negate(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.sites.negate(node.test)

    def visit_Integer(self, node: cst.Integer) -> None:
        value = node.evaluated_value
        self.sites.add(MutantKind.CONSTANT, node, node.with_changes(value="1" if value == 0 else "0" if value == 1 else str(value + 1)))

    def visit_Float(self, node: cst.Float) -> None:
        value = node.evaluated_value
        self.sites.add(MutantKind.CONSTANT, node, node.with_changes(value="1.0" if value == 0 else "0.0" if value == 1 else repr(value + 1)))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in ("True", "False") and id(node) not in self.skip:  # a flag passed or stored: the other one
            self.sites.add(MutantKind.CONSTANT, node, node.with_changes(value="False" if node.value == "True" else "True"))
            return
        if id(node) in self.skip or node.value not in self.sites.local_names or node.value in _NEVER_REPLACED:
            return
        if self.contexts.get(node) is not ExpressionContext.LOAD:
            return
        others = [name for name in self.sites.candidates if name != node.value and name not in _NEVER_REPLACED][:OPERAND_CHOICES]
        for name in others:
            self.sites.add(MutantKind.OPERAND, node, node.with_changes(value=name))


def _helper(name: str, value: cst.BaseExpression, index: int | None = None) -> cst.Call:
    """``name(value)`` (``name(value, index)``); a bare tuple keeps its own parentheses inside the call."""
    outer = value.lpar, value.rpar
    inner: cst.BaseExpression
    if isinstance(value, cst.Tuple):
        inner = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        outer = (), ()
    else:
        inner = value.with_changes(lpar=(), rpar=())
    args = [cst.Arg(inner)]
    if index is not None:
        args.append(cst.Arg(cst.Integer(str(index))))
    return cst.Call(cst.Name(name), args, lpar=outer[0], rpar=outer[1])


def _bare(value: cst.BaseExpression) -> cst.BaseExpression:
    """*value* as a call argument: a bare tuple keeps its parentheses, anything else loses them."""
    if isinstance(value, cst.Tuple):
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return value.with_changes(lpar=(), rpar=())


def _fixed(item: cst.Arg | cst.BaseElement) -> bool:
    """A keyword or starred argument, a starred element, or a literal: not swapped."""
    if isinstance(item, cst.Arg) and (item.keyword is not None or item.star):
        return True
    if isinstance(item, cst.StarredElement):
        return True
    return _literal(item.value)


def _literal(value: cst.BaseExpression) -> bool:
    """A literal, ``True``/``False``/``None``, or a negated literal (``-1``): ``constant`` sites, not run-time ones."""
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    return isinstance(value, _LITERALS) or (isinstance(value, cst.Name) and value.value in {"True", "False", "None"})


def _same_name(first: cst.BaseExpression, second: cst.BaseExpression) -> bool:
    """Whether two operands are the same name or attribute (``freqs, freqs``): trading their places rewrites the
    statement into itself, so it is no wrong version at all (a call such as ``f(), f()`` may differ and is kept)."""
    return isinstance(first, (cst.Name, cst.Attribute)) and first.deep_equals(second)


def _swapped(operator: cst.CSTNode) -> cst.CSTNode | None:
    new_type = _SWAP.get(type(operator))
    if new_type is None:
        return None
    fields = {name: getattr(operator, name) for name in ("whitespace_before", "whitespace_after", "whitespace_between") if hasattr(operator, name)}
    if isinstance(operator, (cst.IsNot, cst.NotIn)) and new_type in (cst.Is, cst.In):
        fields.pop("whitespace_between", None)
    if new_type in (cst.IsNot, cst.NotIn):
        fields["whitespace_between"] = cst.SimpleWhitespace(" ")
    return new_type(**fields)

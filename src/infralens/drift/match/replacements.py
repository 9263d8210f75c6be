"""Replacements: edits that keep a statement's action, told apart from any other edit by their syntax trees.

A variable or a called function renamed, keyword arguments changed, a setter call written as an attribute assignment
(or ``setattr`` with a computed name), per-index state read as one object's own, a ``with`` block's context manager
now held in a name, and a value now returned, assigned or only evaluated where it was another of those. The evidence
(:mod:`.evidence`) records the one it finds; rule ``same-action`` and the rules for places the target leads to weigh it.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from infralens.drift.match.texts import statement_tree


class ReplacementKind(str, Enum):
    """An edit that keeps the statement's action."""

    VARIABLE_RENAMED = "variable renamed"
    CALL_RENAMED = "call renamed"
    SETTER_ASSIGNMENT = "setter call and attribute assignment"
    COMPUTED_SETTER = "attribute assignment and setattr with a computed name"
    """``obj.a = A(x)`` became ``setattr(obj, <expression>, B(x))`` (or back): the name now computed (a prefix the
    class names), the value built from the same arguments."""
    KEYWORDS_CHANGED = "keyword arguments changed"
    """A call gained or lost keyword arguments (perhaps with a name renamed too); ``old`` → ``new`` lists them."""
    CONTEXT_HELD = "context manager held in a name"
    """``with f ( x ) as y :`` became ``y_cm = f ( x )`` (or back): the same context manager, now kept in a name and
    entered elsewhere (an exit stack)."""
    VALUE_KEPT = "the same value returned, assigned or evaluated"
    """``x = f ( a )`` became ``return f ( a )`` (or an assignment became a bare call, or back): the same call, its
    result now put to another use."""
    ARGUMENT_KEPT = "what the call was given, now put to another use"
    """A bare call's first argument (or a raised exception's) is, word for word, what the new statement assigns,
    returns, raises or passes on first: ``warnings . warn ( msg . format ( … ) , UserWarning )`` became
    ``minor_issues [ "top_p" ] = msg . format ( … )`` (a warning now collected), or ``raise ValueError ( msg )``. A
    message (a string of at least :attr:`~.rules.Thresholds.kept_message_length` characters) may open what is passed on
    now, extended: ``raise ValueError ( "… only supported with Greedy Search and Sample." )`` became
    ``logger . warning ( "… only supported with Greedy Search and Sample. However, …" f"…" )`` (an error turned into a
    warning)."""
    CONSTANT_COMPUTED = "a constant now computed"
    """Every occurrence of one literal became one expression, nothing else changed: ``height % 8`` →
    ``height % ( self . vae_scale_factor * 2 )``, ``fp8_max = 448.0`` → ``torch . finfo ( dtype ) . max``."""
    WRAPPER_DROPPED = "a wrapper around the first argument dropped"
    """A call whose positional arguments are the same once a one-argument wrapper around the first is dropped, the call
    renamed or not and its keywords free, its result put to the same use: ``x = torch . utils . checkpoint . checkpoint
    ( create_custom_forward ( block ) , x , emb , use_reentrant = False )`` → ``x = self . _gradient_checkpointing_func
    ( block , x , emb )`` (diffusers' gradient checkpointing, moved into one helper)."""
    APPENDED = "an item appended, to a tuple or to a list"
    """``xs += ( x , )`` became ``xs . append ( x )`` (or back): the same item added to the same collection, now a list
    (a model's hidden states or feature maps gathered one layer at a time)."""
    PER_OBJECT = "per-object state"
    """``self.a[i]`` became ``self.b``: the state one container held per index is now an object's own (rule
    ``per-object-edit``: a cache split into per-layer objects); up to :attr:`~.rules.Thresholds.max_renames` names differ."""


@dataclass(frozen=True)
class Replacement:
    """What was replaced: ``old`` became ``new`` (names, or the two spellings of one assignment)."""

    kind: ReplacementKind
    old: str
    new: str

    def describe(self) -> str:
        return f"{self.kind.value}: {self.old} -> {self.new}"


def replacement(old: str, new: str, max_renames: int, message_length: int) -> Replacement | None:
    """The action-keeping edit that turns ``old`` into ``new``, if it is one (see :class:`ReplacementKind`; a message kept
    counts from ``message_length`` characters)."""
    if old == new:
        return None
    left, right = statement_tree(old), statement_tree(new)
    if left is None or right is None:
        return None
    setter = _setter_pair(left, right) or _setter_pair(right, left)
    if setter is not None:
        kind = ReplacementKind.SETTER_ASSIGNMENT if setter == "named" else ReplacementKind.COMPUTED_SETTER
        return Replacement(kind, ast.unparse(left), ast.unparse(right))
    if _context_pair(left, right) or _context_pair(right, left):
        return Replacement(ReplacementKind.CONTEXT_HELD, old, new)
    if _value_kept(left, right):
        return Replacement(ReplacementKind.VALUE_KEPT, old, new)
    if (given := _passed_on(left, message_length)) is not None and _holds(right, given):
        return Replacement(ReplacementKind.ARGUMENT_KEPT, old, new)
    if _wrapper_dropped(left, right):
        return Replacement(ReplacementKind.WRAPPER_DROPPED, old, new)
    if _appended(left, right) or _appended(right, left):
        return Replacement(ReplacementKind.APPENDED, old, new)
    return _renaming(left, right, max_renames) or _per_object(left, right, max_renames) or _constant_computed(left, right)


def _appended(added: ast.stmt, appended: ast.stmt) -> bool:
    """``added`` is ``T += ( E , )`` and ``appended`` is ``T . append ( E )``, the same ``T`` and ``E``
    (:class:`ReplacementKind.APPENDED`)."""
    if not (isinstance(added, ast.AugAssign) and isinstance(added.op, ast.Add) and isinstance(added.value, ast.Tuple) and len(added.value.elts) == 1):
        return False
    call = appended.value if isinstance(appended, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" and len(call.args) == 1 and not call.keywords):
        return False
    return ast.unparse(call.func.value) == ast.unparse(added.target) and ast.unparse(call.args[0]) == ast.unparse(added.value.elts[0])


def renamed_away(swapped: Replacement | None, names: tuple[Mapping[str, int], frozenset[str]]) -> bool:
    """Whether ``swapped`` only renames names that other statements of the reviewed body spelled too (the rename went
    through the function, not through this statement alone) and that the target no longer spells anywhere, to names it
    did not spell at the review (a name it used already is another statement's). ``names``: how many statements of
    the reviewed body spelled each name, and every name the target spells now."""
    if swapped is None or swapped.kind not in (ReplacementKind.VARIABLE_RENAMED, ReplacementKind.CALL_RENAMED):
        return False
    then, now = names
    old, new = swapped.old.split(", "), swapped.new.split(", ")
    return all(then.get(name, 0) > 1 and name not in now for name in old) and not any(name in then for name in new)


class _Unindexed(ast.NodeTransformer):
    """``self.a[i]`` (an attribute of ``self`` subscripted by one plain name) as ``self.a``; what it replaced."""

    def __init__(self) -> None:
        self.dropped: list[str] = []
        self.attributes: set[str] = set()

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        value = node.value
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self" and isinstance(node.slice, ast.Name):
            self.dropped.append(ast.unparse(node))
            self.attributes.add(value.attr)
            return ast.Attribute(value=value.value, attr=value.attr, ctx=node.ctx)
        return self.generic_visit(node)


def _per_object(left: ast.stmt, right: ast.stmt, max_renames: int) -> Replacement | None:
    """``old`` with its per-index state (``self.key_cache[layer_idx]``) read as one object's own (``self.keys``) is
    ``new``, up to a consistent renaming of those attributes only (:class:`ReplacementKind.PER_OBJECT`)."""
    unindexed = _Unindexed()
    stripped = unindexed.visit(ast.parse(ast.unparse(left)).body[0])
    if not unindexed.dropped:
        return None
    changes = _Changes(calls=set())
    if not _align(stripped, right, changes) or changes.added or changes.removed or changes.count() > max_renames:
        return None
    if len(set(changes.pairs.values())) != len(changes.pairs) or not set(changes.pairs) <= unindexed.attributes:
        return None
    renamed = [f"self.{old}[…] -> self.{new}" for old, new in changes.pairs.items()]
    return Replacement(ReplacementKind.PER_OBJECT, ", ".join(sorted(set(unindexed.dropped))), ", ".join(renamed) or "the same attribute")


def _constant_computed(left: ast.stmt, right: ast.stmt) -> Replacement | None:
    """The two trees equal but where the old one holds a number or string literal and the new one, at every such place,
    one same expression that is no literal and no f-string (:class:`ReplacementKind.CONSTANT_COMPUTED`). One way only:
    a message reworded into an f-string is no value computed, and a value now a literal (``return module ( * inputs )``
    beside a new ``return "npu"``) says nothing of the step."""
    swaps: set[tuple[str, str]] = set()

    def walk(a: object, b: object) -> bool:
        literal_a, literal_b = _literal(a), _literal(b)
        if literal_a != literal_b:
            if literal_a and isinstance(a, ast.expr) and isinstance(b, ast.expr) and not isinstance(b, (ast.Constant, ast.FormattedValue, ast.JoinedStr)):
                swaps.add((ast.unparse(a), ast.unparse(b)))
                return True
            return False
        if type(a) is not type(b):
            return False
        if isinstance(a, ast.AST):
            return all(walk(getattr(a, name, None), getattr(b, name, None)) for name in a._fields if name != "ctx")
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(walk(x, y) for x, y in zip(a, b, strict=True))
        return a == b

    if not walk(left, right) or len(swaps) != 1:
        return None
    old, new = next(iter(swaps))
    return Replacement(ReplacementKind.CONSTANT_COMPUTED, old, new)


def _literal(node: object) -> bool:
    """Whether ``node`` is a number or string literal (not ``None`` or a bool, which say less)."""
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)) and not isinstance(node.value, bool)


def _setter_pair(call: ast.stmt, assign: ast.stmt) -> str | None:
    """``obj.set_name(value)`` or ``setattr(obj, "name", value)`` on one side, ``obj.name = value`` on the other
    ("named"); or ``setattr(obj, <expression>, f(args))`` and ``obj.name = g(args)`` ("computed": the name computed, the
    value built from the same arguments by another callable)."""
    if not (isinstance(call, ast.Expr) and isinstance(call.value, ast.Call) and not call.value.keywords):
        return None
    if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Attribute)):
        return None
    target, function, args = assign.targets[0], call.value.func, call.value.args
    if isinstance(function, ast.Attribute) and function.attr == f"set_{target.attr}" and len(args) == 1:
        obj, value = function.value, args[0]
    elif isinstance(function, ast.Name) and function.id == "setattr" and len(args) == 3:
        name = args[1]
        if isinstance(name, ast.Constant) and name.value != target.attr:
            return None
        obj, value = args[0], args[2]
        if not isinstance(name, ast.Constant):
            same_object = ast.dump(obj) == ast.dump(target.value)
            return "computed" if same_object and _built_alike(value, assign.value) else None
    else:
        return None
    return "named" if ast.dump(obj) == ast.dump(target.value) and ast.dump(value) == ast.dump(assign.value) else None


def _context_pair(block: ast.stmt, assign: ast.stmt) -> bool:
    """``with <expression> [as name] :`` on one side, ``name = <the same expression>`` on the other."""
    if not (isinstance(block, ast.With) and len(block.items) == 1):
        return False
    if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Name)):
        return False
    return ast.dump(block.items[0].context_expr) == ast.dump(assign.value)


def _value_kept(left: ast.stmt, right: ast.stmt) -> bool:
    """Two statements of different kinds (a ``return``, an assignment to one target, a bare expression) over the same
    call: its result returned instead of assigned, assigned instead of dropped, and so on."""
    old, new = _simple_value(left), _simple_value(right)
    if type(left) is type(right) or not (isinstance(old, ast.Call) and isinstance(new, ast.Call)):
        return False
    return ast.dump(old) == ast.dump(new)


def _wrapper_dropped(left: ast.stmt, right: ast.stmt) -> bool:
    """:class:`ReplacementKind.WRAPPER_DROPPED`: both statements the same kind (when they assign, the same targets, or
    the old one first of the new tuple: a cache now returned beside the output), each over one call; the old call's
    first argument a one-argument call around what the new one's first argument is, and every further positional
    argument the same, in order (more may follow them)."""
    old, new = _simple_value(left), _simple_value(right)
    if type(left) is not type(right) or not (isinstance(old, ast.Call) and isinstance(new, ast.Call)) or not old.args or not new.args:
        return False
    if isinstance(left, ast.Assign) and isinstance(right, ast.Assign) and not _targets_kept(left.targets, right.targets):
        return False
    wrapper = old.args[0]
    if not (isinstance(wrapper, ast.Call) and len(wrapper.args) == 1 and not wrapper.keywords) or len(new.args) < len(old.args):
        return False
    return [ast.dump(a) for a in (wrapper.args[0], *old.args[1:])] == [ast.dump(a) for a in new.args[: len(old.args)]]


def _targets_kept(old: list[ast.expr], new: list[ast.expr]) -> bool:
    """Whether an assignment to ``new`` assigns what one to ``old`` did: the same targets, or one old target that the
    new tuple unpacks first."""
    if [ast.dump(t) for t in old] == [ast.dump(t) for t in new]:
        return True
    return len(old) == len(new) == 1 and isinstance(new[0], ast.Tuple) and bool(new[0].elts) and ast.dump(new[0].elts[0]) == ast.dump(old[0])


def argument_kept(old: str, new: str, message_length: int) -> bool:
    """Whether ``new`` assigns, returns, raises or passes on, word for word, the call or f-string that ``old``, a bare
    call or a ``raise``, passed first, or opens with the message of at least ``message_length`` characters it passed
    (:class:`ReplacementKind.ARGUMENT_KEPT`); the texts are normalised statements."""
    left = statement_tree(old)
    given = _passed_on(left, message_length) if left is not None else None
    right = statement_tree(new) if given is not None else None
    return right is not None and given is not None and _holds(right, given)


def _passed_on(left: ast.stmt, message_length: int) -> ast.expr | None:
    """The first argument of ``left``'s bare call (or of the exception it raises), when it is a call, an f-string or a
    message (a string of at least ``message_length`` characters): a name or a short literal passed on says too little."""
    given = _handed(left, new=False)
    if isinstance(given, ast.Constant) and isinstance(given.value, str) and len(given.value) >= message_length:
        return given
    return given if isinstance(given, (ast.Call, ast.JoinedStr)) else None


def _holds(right: ast.stmt, given: ast.expr) -> bool:
    """Whether ``right`` assigns, returns, raises or passes first to its own call, word for word, ``given`` (a message:
    or a string that opens with it)."""
    kept = _handed(right, new=True)
    if kept is None:
        return False
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return _leading_text(kept).startswith(given.value)
    return ast.dump(given) == ast.dump(kept)


def _leading_text(value: ast.expr) -> str:
    """The literal text a string or an f-string opens with, up to its first placeholder ("" for anything else)."""
    if isinstance(value, ast.Constant):
        return value.value if isinstance(value.value, str) else ""
    opening = []
    for part in value.values if isinstance(value, ast.JoinedStr) else []:
        if not isinstance(part, ast.Constant) or not isinstance(part.value, str):
            break
        opening.append(part.value)
    return "".join(opening)


def _handed(statement: ast.stmt, *, new: bool) -> ast.expr | None:
    """What a statement hands on: a bare call's first argument, a raised call's first argument, and (``new``) the value
    of a one-target assignment or a ``return``."""
    call = statement.value if isinstance(statement, ast.Expr) else statement.exc if isinstance(statement, ast.Raise) else None
    if isinstance(call, ast.Call) and call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    if new and isinstance(statement, (ast.Assign, ast.Return)):
        return _simple_value(statement)
    return None


def _simple_value(statement: ast.stmt) -> ast.expr | None:
    """The value a ``return``, a one-target assignment or a bare expression computes (None for anything else)."""
    if isinstance(statement, ast.Assign):
        return statement.value if len(statement.targets) == 1 else None
    return statement.value if isinstance(statement, (ast.Return, ast.Expr)) else None


def _built_alike(left: ast.expr, right: ast.expr) -> bool:
    """Two calls with the same arguments (whatever they call)."""
    if not (isinstance(left, ast.Call) and isinstance(right, ast.Call)):
        return False
    return [ast.dump(a) for a in left.args] == [ast.dump(a) for a in right.args] and [ast.dump(k) for k in left.keywords] == [
        ast.dump(k) for k in right.keywords
    ]


@dataclass
class _Changes:
    """What differs between two aligned trees: renamed names, and keyword arguments one call has and the other lacks."""

    pairs: dict[str, str] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)
    calls: set[int] = field(default_factory=set)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def count(self) -> int:
        return len(self.pairs) + len(self.added) + len(self.removed)


def _renaming(left: ast.AST, right: ast.AST, max_renames: int) -> Replacement | None:
    """The same tree up to at most :attr:`~.Thresholds.max_renames` changes: a consistent renaming of names, and
    keyword arguments added to or removed from a call (``f(a)`` → ``f(a, dtype=d)``)."""
    changes = _Changes(calls={id(n.func) for n in ast.walk(left) if isinstance(n, ast.Call)})
    if not _align(left, right, changes):
        return None
    pairs = changes.pairs
    if not changes.count() or changes.count() > max_renames or len(set(pairs.values())) != len(pairs):
        return None
    if changes.added or changes.removed:
        old = [*pairs, *(f"{name}=" for name in changes.removed)]
        new = [*pairs.values(), *(f"{name}=" for name in changes.added)]
        return Replacement(ReplacementKind.KEYWORDS_CHANGED, ", ".join(old) or "-", ", ".join(new) or "-")
    kind = ReplacementKind.CALL_RENAMED if changes.called == set(pairs) else ReplacementKind.VARIABLE_RENAMED
    return Replacement(kind, ", ".join(pairs), ", ".join(pairs.values()))


def _align(a: object, b: object, changes: _Changes) -> bool:
    """Walk two trees together, recording names that differ and keywords on one side only; False on anything else."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.Call) and isinstance(b, ast.Call):
        return _align(a.func, b.func, changes) and _align(a.args, b.args, changes) and _align_keywords(a.keywords, b.keywords, changes)
    if isinstance(a, ast.AST):
        for name in a._fields:
            if name == "ctx":
                continue
            x, y = getattr(a, name, None), getattr(b, name, None)
            if name in ("id", "attr", "arg") and isinstance(x, str) and isinstance(y, str):
                if x != y:
                    if changes.pairs.setdefault(x, y) != y:
                        return False
                    if id(a) in changes.calls:
                        changes.called.add(x)
                continue
            if not _align(x, y, changes):
                return False
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_align(x, y, changes) for x, y in zip(a, b, strict=True))
    return a == b


def _align_keywords(old: list[ast.keyword], new: list[ast.keyword], changes: _Changes) -> bool:
    """Keyword arguments matched by name (``**kwargs`` must line up); a name on one side only is added or removed."""
    if any(k.arg is None for k in old) or any(k.arg is None for k in new):
        return _align(old, new, changes)
    before = {k.arg: k.value for k in old}
    after = {k.arg: k.value for k in new}
    changes.removed.extend(str(name) for name in before if name not in after)
    changes.added.extend(str(name) for name in after if name not in before)
    return all(_align(before[name], after[name], changes) for name in before if name in after)

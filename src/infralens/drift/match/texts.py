"""Comparing two normalised statement texts: similarity, kind of statement, the name assigned, the same syntax tree.

Pure functions of text (remembered, since a history asks again); the numbers they are compared with are the caller's,
from :class:`~.rules.Thresholds`.
"""

from __future__ import annotations

import ast
from copy import deepcopy as copy_tree
from functools import lru_cache
from itertools import pairwise

from infralens.source import normalize

try:  # a compiled port of difflib's matcher: the same blocks and ratios, about six times faster on statement texts
    from cydifflib import SequenceMatcher
except ImportError:  # pragma: no cover - a platform without its wheel: the standard library's, same answers
    from difflib import SequenceMatcher

# -- text ------------------------------------------------------------------------------------------


def searched_texts(texts: list[str], count: int = 3) -> list[str]:
    """The first ``count`` of a target's step texts to look for its body by, when it may have been renamed: a ``def`` or
    ``class`` line and a docstring are passed over (a rename rewrites the one and often the other), unless nothing else
    is left."""
    kept = [text for text in texts if not text.startswith(("def ", "async def ", "class ")) and not string_literal(text)]
    return (kept or texts)[:count]


def string_literal(text: str) -> bool:
    """Whether a normalised statement is a bare string literal (a docstring when it opens a body)."""
    if not text.lstrip("rRbBuU").startswith(('"', "'")):
        return False
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    first = tree.body[0] if len(tree.body) == 1 else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


@lru_cache(maxsize=65536)
def ratio(left: str, right: str, quick_reject: float) -> float:
    """Text similarity of two normalised texts in [0, 1]; when difflib's cheap upper bound is below ``quick_reject``,
    half that bound (far below any threshold) without the full comparison. Remembered: a history asks again."""
    matcher = SequenceMatcher(None, left, right, autojunk=False)
    if matcher.real_quick_ratio() < quick_reject:
        return matcher.real_quick_ratio() / 2
    return matcher.ratio()


def ratio_at_least(left: str, right: str, floor: float, quick_reject: float) -> float | None:
    """:func:`ratio` when it is at least ``floor``, else None (decided by difflib's cheap upper bounds when they can)."""
    matcher = SequenceMatcher(None, left, right, autojunk=False)
    if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
        return None
    similarity = ratio(left, right, quick_reject)
    return similarity if similarity >= floor else None


@lru_cache(maxsize=65536)
def ratio_without_lone_keywords(old: str, new: str, quick_reject: float) -> float:
    """:func:`ratio` once keyword arguments that only one side passes are left out of both (an added ``dtype=`` or a
    dropped ``use_reentrant=False`` is a small edit however long its text); 0.0 when either side does not parse."""
    if old.startswith(("except", "elif")) or new.startswith(("except", "elif")):
        return 0.0  # parsed inside a wrapper (see statement_tree): its first line is not the header
    left, right = statement_tree(old), statement_tree(new)
    if left is None or right is None:
        return 0.0
    names_left, names_right = _keyword_names(left), _keyword_names(right)
    if names_left == names_right:
        return 0.0
    return ratio(_without_keywords(left, names_left - names_right, old), _without_keywords(right, names_right - names_left, new), quick_reject)


def _keyword_names(tree: ast.AST) -> set[str]:
    return {k.arg for node in ast.walk(tree) if isinstance(node, ast.Call) for k in node.keywords if k.arg is not None}


def _without_keywords(tree: ast.AST, names: set[str], text: str) -> str:
    """The normalised text of ``tree`` without the keyword arguments ``names`` (``text`` itself when there are none)."""
    if not names:
        return text
    copy = copy_tree(tree)
    for node in ast.walk(copy):
        if isinstance(node, ast.Call):
            node.keywords = [k for k in node.keywords if k.arg not in names]
    try:
        return normalize(ast.unparse(copy).splitlines()[0])
    except (ValueError, IndexError, RecursionError):
        return text


# -- statement kind and assigned names --------------------------------------------------------------

_HEADS = {
    "if": "if",
    "elif": "if",
    "for": "for",
    "async": "async",
    "while": "while",
    "with": "with",
    "try": "try",
    "except": "except",
    "return": "return",
    "raise": "raise",
    "yield": "yield",
    "assert": "assert",
    "del": "del",
    "import": "import",
    "from": "import",
    "def": "def",
    "class": "class",
}
_ASSIGNMENTS = {"=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", ">>=", "<<="}


def bare_return(text: str) -> bool:
    """Whether a normalised statement is ``return NAME``: a bare name (or ``None``) and nothing else, which any function
    may return."""
    name = text[len("return ") :] if text.startswith("return ") else ""
    return name.isidentifier()


def statement_shape(text: str) -> str:
    """What kind of statement a normalised text is: its keyword (``if``/``elif`` alike), ``assign`` or ``expression``."""
    tokens = text.split(" ")
    head = _HEADS.get(tokens[0])
    if head is not None:
        return head
    depth = 0
    for token in tokens:
        if token in ("(", "[", "{"):
            depth += 1
        elif token in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and token in _ASSIGNMENTS:
            return "assign"
    return "expression"


def assigned_name(text: str) -> str | None:
    """The target of a plain assignment in normalised text (``a . b = ...`` → ``a . b``), else None."""
    tokens = text.split(" ")
    if "=" not in tokens:
        return None
    left = tokens[: tokens.index("=")]
    if not left or len(left) > 9 or any(t in ("(", "[", "{", "lambda", "if", "for", "def", "class") for t in left):
        return None
    return " ".join(left)


def another_field(old: str, new: str) -> bool:
    """Whether ``old`` and ``new`` each set a name from a key of that very name (``x = kwargs . pop ( "x" , … )``,
    ``self . x = config [ "x" ]``) and the two names share no word: a statement for another field, not an edit."""
    names = [_keyed_name(old), _keyed_name(new)]
    if names[0] is None or names[1] is None or names[0] == names[1]:
        return False
    return not set(names[0].split("_")) - {""} & set(names[1].split("_")) - {""}


def _keyed_name(text: str) -> str | None:
    """The name a statement assigns when it also spells that name as a string (a key), else None."""
    target = assigned_name(text)
    name = target.rpartition(" . ")[2] if target is not None else None
    return name if name is not None and name.isidentifier() and f'"{name}"' in text.split(" = ", 1)[1] else None


# -- syntax trees ----------------------------------------------------------------------------------


@lru_cache(maxsize=32768)
def statement_tree(text: str) -> ast.stmt | None:
    """The statement a normalised text spells (a compound header gets a ``pass`` body), or None."""
    source = text
    if text.endswith(":"):
        head = text.split(" ", 1)[0]
        if head in ("else", "try", "finally"):
            return None
        if head == "elif":
            source = "if" + text[4:]
        source = "try :\n pass\n" + text + "\n pass" if head == "except" else source + "\n pass"
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return module.body[0] if len(module.body) == 1 else None


def returned_names(text: str) -> frozenset[str]:
    """The names and attribute names a ``return`` statement's value reads, ``self`` left out (empty for anything else):
    ``return x , feat_cache`` and ``return x`` share ``x``; ``return self . keys`` and ``return k_out`` share nothing."""
    tree = statement_tree(text)
    if not isinstance(tree, ast.Return) or tree.value is None:
        return frozenset()
    nodes = list(ast.walk(tree.value))
    names = {node.id for node in nodes if isinstance(node, ast.Name)} | {node.attr for node in nodes if isinstance(node, ast.Attribute)}
    return frozenset(names - {"self"})


@lru_cache(maxsize=32768)
def _dump(text: str) -> str | None:
    tree = statement_tree(text)
    head = text.split(" ", 1)[0]  # ``elif`` is parsed as ``if``: keep the keyword apart
    return f"{head} {ast.dump(tree)}" if tree is not None else None


def same_ast(left: str, right: str) -> bool:
    """Whether two statement texts parse to the same tree (redundant parentheses and line breaks do not count)."""
    if left == right:
        return True
    if _without_parentheses(left) != _without_parentheses(right):
        return False  # more than parentheses differ: no need to parse
    dumped = _dump(left)
    return dumped is not None and dumped == _dump(right)


@lru_cache(maxsize=65536)
def _without_parentheses(text: str) -> str:
    return " ".join(t for t in text.split(" ") if t not in ("(", ")"))


@lru_cache(maxsize=32768)
def statement_role(text: str) -> str | None:
    """The part a statement plays, kept through a rewrite of its arguments: which call it assigns to which target (an
    attribute or item target needs no call), which call it makes on which receiver (``self . keys . copy_``), which
    call it returns, which exception it raises, or which tensor's shape it reads (:func:`_shape_read`); None for
    anything else (a bare ``return x``, a local computed without a call, a branch header: too common to tell one
    statement from another)."""
    tree = statement_tree(text)
    if isinstance(tree, ast.Assign) and len(tree.targets) == 1:
        target, value = tree.targets[0], tree.value
    elif isinstance(tree, (ast.AugAssign, ast.AnnAssign)) and tree.value is not None:
        target, value = tree.target, tree.value
    elif isinstance(tree, ast.Expr) and isinstance(tree.value, ast.Call):
        return f"call {ast.unparse(tree.value.func)}"
    elif isinstance(tree, ast.Return) and isinstance(tree.value, ast.Call):
        return f"return {ast.unparse(tree.value.func)}"
    elif isinstance(tree, ast.Raise) and isinstance(tree.exc, ast.Call):
        return f"raise {ast.unparse(tree.exc.func)}"
    else:
        return None
    if (shape_of := _shape_read(value)) is not None:  # ``b , n , _ = x . size ( )`` and ``input_shape = x . shape [ : - 1 ]``
        return f"shape of {shape_of}"
    if isinstance(value, ast.IfExp) and isinstance(value.body, ast.Call):  # ``f ( ) if c else d``: the call is the role
        value = value.body
    if not isinstance(value, ast.Call):  # ``device = x . device``: a local named alike in any function plays no role of its own
        return None if isinstance(target, ast.Name) else f"assign {ast.unparse(target)}"
    return f"assign {ast.unparse(target)} {ast.unparse(value.func)}"


def _shape_read(value: ast.expr) -> str | None:
    """``x`` for a read of tensor ``x``'s shape, however it is then unpacked: ``x . size ( )``, ``x . shape``, or either
    sliced (``x . shape [ : - 1 ]``); None for anything else (``x . size ( - 1 )`` or ``x . shape [ 0 ]`` reads one
    dimension, which names one thing: a batch size is not a sequence length)."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        value = value.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "size" and not (value.args or value.keywords):
        return ast.unparse(value.func.value)
    return ast.unparse(value.value) if isinstance(value, ast.Attribute) and value.attr == "shape" else None


@lru_cache(maxsize=32768)
def statement_call(text: str) -> str | None:
    """The function a simple statement calls for its value, whatever it does with the result: ``a = f ( x )``,
    ``a += f ( x )``, ``a : T = f ( x )``, ``f ( x )`` or ``return f ( x )`` (of ``f ( ) if c else d``, the call); None
    for anything else. Unlike :func:`statement_role` it ignores the assigned name (a variable renamed keeps the call)."""
    tree = statement_tree(text)
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)
    value = tree.value if isinstance(tree, simple) and not (isinstance(tree, ast.Assign) and len(tree.targets) > 1) else None
    if isinstance(value, ast.IfExp):
        value = value.body
    return ast.unparse(value.func) if isinstance(value, ast.Call) else None


def called_names(text: str) -> list[str]:
    """The names followed by an opening bracket in a normalised statement text (its tokens are separated by spaces);
    none for a ``def`` or ``class`` line."""
    tokens = text.split(" ")
    if tokens[0] in ("def", "async", "class"):
        return []
    return [name for name, after in pairwise(tokens) if after == "(" and name.isidentifier()]


_TESTED = {"if": "if", "elif": "if", "while": "while"}


@lru_cache(maxsize=32768)
def condition_tests(text: str) -> tuple[str, frozenset[str]] | None:
    """(``if`` or ``while``, the tests its condition joins with ``and``, each unparsed) for a block header; else None
    (``elif`` counts as ``if``)."""
    head = text.split(" ", 1)[0]
    if head not in _TESTED or not text.endswith(":"):
        return None
    tree = statement_tree(text)
    if not isinstance(tree, (ast.If, ast.While)):
        return None
    test = tree.test
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return _TESTED[head], frozenset(ast.unparse(part) for part in parts)


def condition_kept(old: str, new: str) -> bool:
    """Whether header ``new`` tests all that ``old`` tested and more, or only some of it (rule ``kept-condition``)."""
    before, after = condition_tests(old), condition_tests(new)
    if before is None or after is None or before[0] != after[0]:
        return False
    return before[1] < after[1] or after[1] < before[1]


@lru_cache(maxsize=32768)
def names_read(text: str) -> frozenset[str]:
    """The plain names a statement reads (not a ``def`` or ``class`` line's); empty when its text does not parse."""
    return _plain_names(text, ast.Load)


@lru_cache(maxsize=32768)
def names_set(text: str) -> frozenset[str]:
    """The plain names a statement assigns (a ``for`` target, an assignment's, a ``with ... as``)."""
    return _plain_names(text, ast.Store)


def _plain_names(text: str, context: type[ast.expr_context]) -> frozenset[str]:
    """The ``ast.Name`` identifiers of a statement used in ``context`` (none for a ``def`` or ``class`` line)."""
    tree = statement_tree(text)
    if tree is None or isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return frozenset()
    return frozenset(node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, context))


@lru_cache(maxsize=32768)
def identifiers(text: str) -> frozenset[str]:
    """Every name a statement spells: variables, attributes, parameters and keyword arguments (empty when it does not parse)."""
    tree = statement_tree(text)
    if tree is None:
        return frozenset()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, (ast.arg, ast.keyword)) and node.arg is not None:
            found.add(node.arg)
    return frozenset(found)

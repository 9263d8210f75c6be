"""Put a mutant's code into the live function objects of one upstream function, and take it out again.

The mutated file is compiled in memory under the file's real name, so its code objects carry the
original file name, ``co_qualname`` and line numbers and the tracer watches them as it watches the
original. The outermost function holding the statement is swapped (a closure defined inside it is
created from the swapped code on its next call); closures that are already alive — the wrapper a
decorator made at import time, say — get their own mutated code too (:func:`swapped_with_closures`).
Upstream files are never written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from types import CodeType, FunctionType

from infralens.verify.trace.functions import FUNCTIONS


def outer_scope(scope: str) -> str | None:
    """The ``co_qualname`` of the outermost function holding *scope*; None at module level."""
    if not scope or scope == "<module>":
        return None
    return scope.split(".<locals>.", 1)[0]


def rescan() -> None:
    """Index the function objects alive now (after a scenario ran: the closures it made since the last scan)."""
    FUNCTIONS.scan()


def live_functions(path: str, qualname: str) -> list[FunctionType]:
    """Function objects now alive whose code is *qualname* in the file at *path* (see :mod:`infralens.verify.trace.functions`)."""
    return FUNCTIONS.named(path, qualname)


def find_code(code: CodeType, qualname: str, firstlineno: int | None = None) -> CodeType | None:
    """The code object for *qualname* (starting at *firstlineno*, when given) among *code*'s nested constants."""
    for const in code.co_consts:
        if isinstance(const, CodeType):
            if const.co_qualname == qualname and firstlineno in (None, const.co_firstlineno):
                return const
            nested = find_code(const, qualname, firstlineno)
            if nested is not None:
                return nested
    return None


def compile_function(text: str, filename: str, original: CodeType) -> CodeType | None:
    """*original*'s counterpart in the mutated file *text*; None when it does not compile or no longer fits.

    Compiles only the function, inside stand-ins for its classes placed so that every line keeps its
    number, with the file's top-level imports (fast for a long file); falls back to the whole file. A mutant fits when the function
    keeps its free variables (``func.__code__`` cannot change them).
    """
    lines = text.splitlines(keepends=True)
    found = None
    for source, whole in ((_function_source(lines, original), False), (text, True)):
        if source is None:
            continue
        try:
            module = compile(source, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        found = find_code(module, original.co_qualname, original.co_firstlineno)
        # The stand-in must hold the whole function: else compile the whole file.
        if found is not None and (whole or _last_line(found) == _last_line(original)):
            break
        found = None
    if found is None or found.co_freevars != original.co_freevars:
        return None
    return found


def _function_source(lines: list[str], original: CodeType) -> str | None:
    """The function's own lines (decorators included) at their line numbers, under ``class`` lines for its classes."""
    start = original.co_firstlineno
    classes = original.co_qualname.split(".")[:-1]
    if start - 1 < len(classes) or start > len(lines) or "<" in original.co_qualname:
        return None
    first = lines[start - 1]
    indent = len(first) - len(first.lstrip())
    if indent != 4 * len(classes):
        return None
    end = start
    while end < len(lines):
        line = lines[end]
        stripped = line.lstrip()
        outdented = stripped and not stripped.startswith(("#", ")", "@")) and len(line) - len(stripped) <= indent
        if outdented and not _inside_signature(lines, start, end):
            break
        end += 1
    header = [f"{'    ' * depth}class {name}:\n" for depth, name in enumerate(classes)]
    padding = ["\n"] * (start - 1 - len(header))
    _copy_imports(lines, padding)
    return "".join([*padding, *header, *lines[start - 1 : end]])


def _copy_imports(lines: list[str], padding: list[str]) -> None:
    """Put the file's top-level imports into *padding* at their lines: ``__future__`` imports change how the
    function compiles, and names bound by an import compile to other (equivalent) attribute loads."""
    index = 0
    while index < len(padding):
        line = lines[index]
        if line.startswith(("import ", "from ")):
            end = index
            if line.rstrip().endswith("("):
                while end + 1 < len(padding) and ")" not in lines[end]:
                    end += 1
            if not lines[end].rstrip().endswith("\\") and end < len(padding):
                padding[index : end + 1] = lines[index : end + 1]
            index = end
        index += 1


def _last_line(code: CodeType) -> int:
    return max((line for _, _, line in code.co_lines() if line is not None), default=0)


def _inside_signature(lines: list[str], start: int, end: int) -> bool:
    """Whether line *end* (0-based) is still inside brackets opened since line *start* (a rough count)."""
    depth = 0
    for line in lines[start - 1 : end]:
        code = line.split("#", 1)[0]
        depth += code.count("(") + code.count("[") + code.count("{") - code.count(")") - code.count("]") - code.count("}")
    return depth > 0


@contextmanager
def swapped(functions: list[FunctionType], code: CodeType) -> Iterator[None]:
    """Run the body with *code* in every one of *functions*; the original code is restored on the way out.

    Results a cache decorator (``functools.cache``, ``lru_cache``) kept for these functions are dropped
    on the way in and out, so the mutant neither reads the original's results nor leaves its own behind.
    """
    saved = [(function, function.__code__) for function in functions]
    caches = _caches(functions)
    try:
        for clear in caches:
            clear()
        for function, _ in saved:
            function.__code__ = code
        yield
    finally:
        for function, original in saved:
            function.__code__ = original
        for clear in caches:
            clear()


def _caches(functions: list[FunctionType]) -> list[Callable[[], None]]:
    """``cache_clear`` of every cache wrapper around one of *functions* found in its module or the module's classes."""
    found = []
    for function in functions:
        module = sys.modules.get(function.__module__ or "")
        if module is None:
            continue
        values = list(vars(module).values())
        values += [item for value in list(values) if isinstance(value, type) for item in vars(value).values()]
        for value in values:
            if getattr(value, "__wrapped__", None) is function:
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    found.append(clear)
    return found


def nested_scopes(scope: str) -> list[str]:
    """The ``co_qualname`` of each function between the outermost one and *scope* itself (outermost excluded)."""
    parts = scope.split(".<locals>.")
    return [".<locals>.".join(parts[: end + 1]) for end in range(1, len(parts))]


@contextmanager
def swapped_with_closures(functions: list[FunctionType], code: CodeType, closures: list[tuple[list[FunctionType], str]]) -> Iterator[None]:
    """:func:`swapped` for the outer function, plus each live closure ``(functions, qualname)`` given the
    matching code object from the mutated *code* (when its free variables still fit the closure's cells)."""
    with ExitStack() as stack:
        stack.enter_context(swapped(functions, code))
        for live, qualname in closures:
            inner = find_code(code, qualname)
            fitting = [function for function in live if inner is not None and function.__code__.co_freevars == inner.co_freevars]
            if inner is not None and fitting:
                stack.enter_context(swapped(fitting, inner))
        yield

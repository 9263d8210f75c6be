"""Evaluate ``expect`` expressions in a real frame and describe what the frame held.

An expression is evaluated with the frame's globals and locals (merged into one namespace when
a comprehension needs to see locals). Exceptions count as failures, with the exception observed.
When the frame returns, the value it returns is one more name, :data:`RETURNED` (``__return__``, the name pdb
gives it), so a ``return`` statement's expects can read what it gives back.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from types import CodeType, FrameType

from infralens.verify.trace.observe import Fingerprint, is_value, short_repr
from infralens.verify.trace.probes import ExpectResult

RETURNED = "__return__"
"""The name an expect reads the frame's return value by, when it is evaluated as the frame returns."""

MAX_EVALUATIONS = 200
"""Expects are evaluated at most this many times per expect (runs are still all counted)."""


class Expect:
    """Mutable evaluation state of one expect expression."""

    __slots__ = ("code", "compile_error", "digest", "error", "evaluations", "expr", "failures", "names", "observed", "on_fail", "trail", "witness")

    def __init__(self, expr: str, where: str, *, fingerprint: bool = False) -> None:
        self.expr = expr
        self.evaluations = 0
        self.failures = 0
        self.observed = ""
        self.error: str | None = None
        self.compile_error: str | None = None
        self.code: CodeType | None
        try:
            self.code = compile(expr, f"<expect at {where}>", "eval")
        except SyntaxError as error:
            self.code = None
            self.compile_error = f"SyntaxError: {error.msg}"
        self.names = _observable_names(expr) if self.code is not None else ()
        self.digest: Fingerprint | None = Fingerprint() if fingerprint else None
        """The exact values the names held at each evaluation (``verify --mutate`` compares runs with it)."""
        self.witness: Fingerprint | None = Fingerprint() if fingerprint else None
        self.trail: list[str] = []
        """With a witness: after each evaluation that held, the running digest of the expect's names and every local of
        the frame, not the value it returns unless an expect reads it (``verify --mutate``: whether a mutant had
        changed anything in the frame by then)."""
        self.on_fail: Callable[[str | None], None] | None = None
        """Called with the error (None: the expression was false) after a failed evaluation (``verify --mutate``)."""

    def evaluate(self, frame: FrameType, returned: tuple[object] | None = None) -> None:
        """Evaluate in ``frame``; ``returned``: ``(value,)`` when the frame is returning ``value`` (bound to
        :data:`RETURNED`), else None."""
        if self.evaluations >= MAX_EVALUATIONS:
            return
        self.evaluations += 1
        local = frame.f_locals if returned is None else {**frame.f_locals, RETURNED: returned[0]}
        if self.code is None:
            self._fail(_namespace(frame, local), self.compile_error)
            return
        try:
            try:
                ok = bool(eval(self.code, frame.f_globals, local))
            except NameError:
                # Comprehensions and generator expressions cannot see a separate locals mapping:
                # evaluate again in one merged namespace.
                ok = bool(eval(self.code, _namespace(frame, local)))
        except Exception as error:  # an expect that raises is a failed expect, with the error observed
            self._fail(_namespace(frame, local), f"{type(error).__name__}: {error}")
            return
        if self.digest is not None or self.witness is not None:
            namespace = _namespace(frame, local)
            if self.digest is not None:
                self.digest.add(ok, self.names, namespace)
            if self.witness is not None and ok:
                # the frame's own locals: the value it returns is not one of them unless the expect reads it
                unread = sorted(name for name in local if name not in self.names and name != RETURNED)
                self.witness.add(ok, self.names + tuple(unread), namespace)
                self.trail.append(self.witness.hexdigest())
        if not ok:
            self._fail(_namespace(frame, local), None)
        elif self.evaluations == 1:
            self.observed = _observe(self.names, _namespace(frame, local))

    def keep_trail(self) -> None:
        """Keep a :attr:`trail` from now on (the mutated step's own expects, in a run that fingerprints nothing else)."""
        if self.witness is None:
            self.witness = Fingerprint()

    def _fail(self, namespace: dict[str, object], error: str | None) -> None:
        self.failures += 1
        if self.failures == 1:
            self.observed = _observe(self.names, namespace)
            self.error = error
        if error is not None and self.digest is not None:
            self.digest.add(error, self.names, namespace)
        if self.on_fail is not None:
            self.on_fail(error)

    def result(self) -> ExpectResult:
        return ExpectResult(self.expr, self.evaluations, self.failures, self.observed, self.error)


def _namespace(frame: FrameType, local: dict[str, object]) -> dict[str, object]:
    namespace = dict(frame.f_globals)
    namespace.update(local)
    return namespace


def _observable_names(expr: str) -> tuple[str, ...]:
    """Names and dotted attribute chains in *expr* worth showing (``latents``, ``self.config.x``)."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return ()
    found: list[str] = []
    builtins = set(dir(__builtins__)) if not isinstance(__builtins__, dict) else set(__builtins__)

    def chain(node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            head = chain(node.value)
            return f"{head}.{node.attr}" if head else None
        return None

    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            text = chain(node)
            if text and text.split(".")[0] not in builtins and text not in found and text.count(".") <= 3:
                found.append(text)
    # Drop prefixes already covered by a longer chain (show self.config.x, not self and self.config).
    longest = [name for name in found if not any(other.startswith(name + ".") for other in found)]
    return tuple(name for name in longest if not _is_module_like(name))


def _is_module_like(name: str) -> bool:
    return name.split(".", maxsplit=1)[0] in {"torch", "math", "np", "numpy"}


def _observe(names: tuple[str, ...], namespace: dict[str, object]) -> str:
    """``name=value; …`` for the values *names* hold; a method's owner stands in for it, functions,
    modules and classes are left out, and a chain that raised shows how far it got."""
    parts: dict[str, str] = {}
    for name in names:
        head, *rest = name.split(".")
        if head not in namespace:
            continue
        value, owner, reached = namespace[head], None, head
        try:
            for attr in rest:
                owner, value = value, getattr(value, attr)
                reached += "." + attr
        except Exception:  # show how far the chain got
            if is_value(value):
                parts.setdefault(reached, short_repr(value))
            continue
        if is_value(value):
            parts.setdefault(name, short_repr(value))
        elif owner is not None and is_value(owner):  # noise.mean: show noise
            parts.setdefault(name.rsplit(".", 1)[0], short_repr(owner))
    return "; ".join(f"{name}={text}" for name, text in parts.items())

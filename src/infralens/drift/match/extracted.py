"""A statement whose work moved into a helper that the target now calls in its place (rule ``extracted-and-called``).

LTX-2's transformer block computed its modulation values inline, ``ada_values = self . scale_shift_table [ None , None ]
. to ( temb . device ) + temb . reshape ( … )``, once for the video stream and once for the audio stream. Diffusers 0.41
moved that into a static method ``get_mod_params ( scale_shift_table , temb , batch_size )`` and calls it once per
table. The call that replaced each statement shares little text with it; what tells is the callee: read with the
call's arguments in place of its parameters, its body holds a statement close to the step, and closer than any other
call of the target makes. Only callees defined in the target's own file are read (a method of the target's class
called on ``self``, or a function of its module), so the search costs no file beyond the one already parsed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from infralens.drift.lock.entries import StepLock, short_hash
from infralens.drift.lock.facts import body_of, header_of
from infralens.drift.match.container import Found
from infralens.drift.match.propose import Proposal, statement_key
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.receiver import parameter_names
from infralens.drift.match.rules import Origin, Thresholds
from infralens.drift.match.texts import ratio_at_least, statement_tree
from infralens.source import Definition, Statement, normalize


class HelperCalls:
    """The target's statements that call helpers of its file, each with the bodies of those helpers read with the call's
    arguments in place of their parameters: worked out once per target, when a step first asks. A helper's statement
    that the reviewed target held (another step's, carried over), or that the helper held at the review already (its
    own job then), is left out."""

    def __init__(self, found: Found, pool: tuple[Statement, ...], old_body: frozenset[str], reviewed: TreeReader | None) -> None:
        self.found = found
        self.pool = pool
        self.old_body = old_body
        self.reviewed = reviewed
        self._calls: list[tuple[Statement, list[list[str]]]] | None = None
        self._bodies: dict[str, list[str]] = {}

    def calls(self) -> list[tuple[Statement, list[list[str]]]]:
        if self._calls is None:
            definitions = {d.qualname: d for d in self.found.index.definitions if d.accessor is None}
            found = ((s, list(self._helper_bodies(definitions, s))) for s in self.pool if "(" in s.text)
            self._calls = [(statement, bodies) for statement, bodies in found if bodies]
        return self._calls

    def _helper_bodies(self, definitions: dict[str, Definition], statement: Statement) -> Iterator[list[str]]:
        """For each call in ``statement`` of a function of ``definitions`` (the file's, by qualname: ``self.name`` a
        method of the target's owner, a bare name a module function), that function's new body texts with each
        parameter replaced by the argument passed to it."""
        tree = statement_tree(statement.text)
        if tree is None:
            return
        index, owner = self.found.index, self.found.definition.qualname.rpartition(".")[0]
        for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call)):
            callee = _callee(definitions, owner, call.func)
            if callee is None or callee == self.found.definition:
                continue
            header = header_of(index, callee)
            names = parameter_names(header.text) if header is not None else None
            if names is None:
                continue
            if "." in callee.qualname and "staticmethod" not in callee.decorators:
                names = names[1:]  # self or cls
            given = {name: _normal(arg) for name, arg in zip(names, call.args, strict=False) if not isinstance(arg, ast.Starred)}
            given.update({k.arg: _normal(k.value) for k in call.keywords if k.arg is not None and k.arg in names})
            yield [_replaced(text, given) for text in self._new_body(callee)]

    def _new_body(self, callee: Definition) -> list[str]:
        """The texts of ``callee``'s body that neither the reviewed target nor the callee held at the review (read once
        per callee: a helper called once per table is read once)."""
        if callee.qualname not in self._bodies:
            then = self._held_then(callee.qualname)
            body = body_of(self.found.index, callee)
            self._bodies[callee.qualname] = [s.text for s in body if short_hash(s.text) not in self.old_body and s.text not in then]
        return self._bodies[callee.qualname]

    def _held_then(self, qualname: str) -> frozenset[str]:
        """The texts the function ``qualname`` of the target's file held in the reviewed release (none when unknown)."""
        indexed = self.reviewed.indexed(self.found.source.relpath) if self.reviewed is not None else None
        if indexed is None:
            return frozenset()
        then = next((d for d in indexed[1].definitions if d.qualname == qualname and d.accessor is None), None)
        return frozenset(s.text for s in body_of(indexed[1], then)) if then is not None else frozenset()


def extracted_call(helpers: HelperCalls, entry: StepLock, t: Thresholds) -> tuple[str, int, str] | None:
    """The key of the target's statement whose call of a helper in the target's file does the step's work: the helper,
    its parameters read as the call's arguments, holds a statement at least
    :attr:`~.rules.Thresholds.confident_similarity` close to the step, clearly closer (by
    :attr:`~.rules.Thresholds.target_renamed_margin`) than through any other statement's call; None otherwise, for a
    block header, or when the target still holds the step's text."""
    if len(entry.texts) != 1 or entry.texts[0].endswith(":") or any(s.text == entry.texts[0] for s in helpers.pool):
        return None  # a block header is told by its body, not its words
    scored = [(best, statement) for statement, bodies in helpers.calls() if (best := max(_closeness(entry.texts[0], body, t) for body in bodies)) > 0.0]
    scored.sort(key=lambda item: item[0], reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] >= scored[0][0] - t.target_renamed_margin):
        return None
    return statement_key(helpers.found.source.relpath, scored[0][1])


def with_extracted(proposals: list[Proposal], found: Found, pool: tuple[Statement, ...], key: tuple[str, int, str] | None) -> list[Proposal]:
    """``proposals`` (the target's look-alikes of a step), with the statement of ``key`` added when they lack it: a call
    that replaced a statement rarely resembles it enough to be proposed on its text."""
    if key is None or any(p.key == key for p in proposals):
        return proposals
    added = [Proposal(found.source, found.index, (s,), Origin.TARGET, found.locality) for s in pool if statement_key(found.source.relpath, s) == key]
    return [*proposals, *added]


def _closeness(wanted: str, helper: list[str], t: Thresholds) -> float:
    """How close the closest of ``helper`` (statement texts, parameters already replaced) is to ``wanted`` (0.0: none is)."""
    return max((r for text in helper if (r := ratio_at_least(wanted, text, t.confident_similarity, t.quick_reject_similarity)) is not None), default=0.0)


def _callee(definitions: dict[str, Definition], owner: str, function: ast.expr) -> Definition | None:
    """The definition ``function`` (the called expression) names in the target's file, if it is one."""
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "self" and owner:
        qualname = f"{owner}.{function.attr}"
    elif isinstance(function, ast.Name):
        qualname = function.id
    else:
        return None
    return definitions.get(qualname)


def _normal(node: ast.expr) -> str:
    """An argument's text in the normal form of statements."""
    return normalize(ast.unparse(node))


def _replaced(text: str, given: dict[str, str]) -> str:
    """``text`` with every token that names a parameter in ``given`` (not an attribute after a dot) replaced."""
    tokens = text.split(" ")
    return " ".join(given.get(token, token) if n == 0 or tokens[n - 1] != "." else token for n, token in enumerate(tokens))

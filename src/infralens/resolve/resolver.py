"""Bind targets and selectors to real definitions and statements.

``module + qualname`` → :class:`~infralens.source.models.Definition`, and a selector
→ whole :class:`~infralens.source.models.Statement` values with real lines. All of it
is static: files are read through a :class:`~infralens.source.distributions.SourceTree` and
indexed by libcst (through the cache), never imported.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from infralens.annotations import Annotation, BlockSelector, Selector, SingleSelector
from infralens.errors import Diagnostic, InfralensError, Location, ResolutionError, SourceNotFoundError
from infralens.resolve import selectors
from infralens.resolve.models import ResolvedAnnotation, ResolvedStep, ResolvedTarget
from infralens.source import Definition, IndexCache, InstalledTree, ModuleIndex, SourceFile, SourceTree, Statement, StatementKind


@dataclass(frozen=True)
class Located:
    """A definition found by :meth:`Resolver.locate`."""

    source: SourceFile
    definition: Definition

    @property
    def dotted(self) -> str:
        return f"{self.source.module}.{self.definition.qualname}"


class Resolver:
    """Resolves annotations against source trees, memoising reads and indexes for one run."""

    def __init__(
        self,
        trees: dict[str, SourceTree] | None = None,
        *,
        cache: IndexCache | None = None,
        tree_factory: Callable[[str], SourceTree] = InstalledTree,
    ) -> None:
        self._trees: dict[str, SourceTree] = dict(trees or {})
        self._tree_factory = tree_factory
        self.cache = cache or IndexCache()
        self._files: dict[tuple[str, str], SourceFile] = {}
        self.skipped: list[str] = []
        """Files the last :meth:`locate` could not read or parse (reported, never fatal)."""

    # -- trees and files ----------------------------------------------------

    def tree(self, distribution: str) -> SourceTree:
        """The source tree for ``distribution`` (installed unless overridden)."""
        if distribution not in self._trees:
            self._trees[distribution] = self._tree_factory(distribution)
        return self._trees[distribution]

    def source_file(self, tree: SourceTree, relpath: str) -> SourceFile:
        key = (tree.origin, relpath)
        if key not in self._files:
            self._files[key] = tree.read_source(relpath)
        return self._files[key]

    def index(self, source: SourceFile, *, fast: bool = False) -> ModuleIndex:
        """The index of ``source`` (``fast``: by the ``ast`` twin, for other releases read by drift checks)."""
        return self.cache.index_of(source.text, source.sha256, fast=fast)

    def prefetch(self, annotations: Iterable[Annotation], *, jobs: int | None = None) -> None:
        """Read every target file of ``annotations`` and index cache misses in parallel.

        Best effort: anything that fails here is reported later by :meth:`resolve_annotation`.
        """
        sources: list[SourceFile] = []
        for annotation in annotations:
            try:
                tree = self.tree(annotation.source)
                _, relpath, _ = self.split_target(tree, annotation.target)
                sources.append(self.source_file(tree, relpath))
            except InfralensError:
                continue
        self.cache.index_many(((s.text, s.sha256) for s in sources), jobs=jobs)

    # -- targets ------------------------------------------------------------

    def split_target(self, tree: SourceTree, target: str) -> tuple[str, str, str]:
        """Split ``pkg.mod.Class.method`` into (module, relpath, qualname) by the longest existing module."""
        parts = target.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            relpath = tree.module_file(module)
            if relpath is not None:
                return module, relpath, ".".join(parts[cut:])
        raise ResolutionError(f"no module of {target!r} exists in {tree.describe()}")

    def resolve_target(self, distribution: str, target: str, definition: int | None = None) -> ResolvedTarget:
        tree = self.tree(distribution)
        module, relpath, qualname = self.split_target(tree, target)
        source = self.source_file(tree, relpath)
        index = self.index(source)
        if index.syntax_error:
            raise ResolutionError(f"{relpath} is not valid Python for this parser ({index.syntax_error})")
        found = [d for d in index.definitions if d.qualname == qualname]
        if not found:
            raise ResolutionError(self._missing_target_message(module, qualname, index), tuple(_close(qualname, [d.qualname for d in index.definitions])))
        if definition is not None:
            if definition > len(found):
                raise ResolutionError(
                    f"'definition: {definition}' but {qualname} is defined {len(found)} time(s) in {relpath}",
                    tuple(d.describe() for d in found),
                )
            return ResolvedTarget(source, module, found[definition - 1])
        primary = [d for d in found if d.accessor is None]
        if len(primary) == 1 and not primary[0].overload:
            return ResolvedTarget(source, module, primary[0])
        candidates = tuple(f"{n}. {d.describe()}" for n, d in enumerate(found, 1))
        raise ResolutionError(f"{qualname} is defined {len(found)} times in {relpath}; pick one with 'definition: N'", candidates)

    def _missing_target_message(self, module: str, qualname: str, index: ModuleIndex) -> str:
        head = qualname.split(".", maxsplit=1)[0]
        imported = [
            s
            for s in index.statements
            if s.kind is StatementKind.SIMPLE and s.text.startswith(("from ", "import ")) and re.search(rf"\b{re.escape(head)}\b", s.text)
        ]
        if imported:
            return (
                f"{qualname} is not defined in {module}; it is imported there (line {imported[0].start_line}) — "
                f"run 'infralens locate {qualname}' to find its defining module"
            )
        return f"{qualname} is not defined in {module}"

    # -- selectors ----------------------------------------------------------

    def resolve_selector(self, index: ModuleIndex, definition: Definition, selector: Selector) -> tuple[Statement, ...]:
        pool = index.statements_within(definition.start_line, definition.end_line)
        if isinstance(selector, BlockSelector):
            first = self._single(pool, selector.start)
            last = self._single(pool, selector.end)
            if last.start_line < first.start_line:
                raise ResolutionError(f"block ends (line {last.start_line}) before it starts (line {first.start_line})")
            return tuple(s for s in pool if s.start_line >= first.start_line and s.end_line <= max(last.end_line, first.end_line))
        return (self._single(pool, selector),)

    def _single(self, pool: tuple[Statement, ...], selector: SingleSelector) -> Statement:
        needle = selectors.needle(selector)
        if not needle:
            raise ResolutionError("selector is blank after normalisation")
        matches = selectors.picked(selector, pool, lambda statement: statement.text)
        if selector.nth is not None:
            if selector.nth < 1:
                raise ResolutionError(f"{selector.describe()}: nth counts matches from 1 (nth: 1 is the first)")
            if selector.nth > len(matches):
                raise ResolutionError(
                    f"{selector.describe()} asks for match {selector.nth} but there are {len(matches)}",
                    tuple(_describe_statement(s) for s in matches),
                )
            return matches[selector.nth - 1]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            close = _close(needle, [s.text for s in pool], n=3)
            candidates = tuple(_describe_statement(s) for s in pool if s.text in close)
            raise ResolutionError(f"{selector.describe()} matches no statement in the target", candidates)
        raise ResolutionError(
            f"{selector.describe()} matches {len(matches)} statements; add 'nth: N' or use a longer text",
            tuple(_describe_statement(s) for s in matches),
        )

    # -- annotations --------------------------------------------------------

    def resolve_annotation(self, annotation: Annotation) -> tuple[ResolvedAnnotation | None, tuple[Diagnostic, ...]]:
        """Resolve the target and every step; problems become diagnostics at the right YAML line."""
        where = annotation.location or Location(annotation.path)
        try:
            target = self.resolve_target(annotation.source, annotation.target, annotation.definition)
        except SourceNotFoundError as error:
            return None, (Diagnostic(where, str(error), f"install {annotation.source} or pass --source {annotation.source}=PATH", code="source"),)
        except ResolutionError as error:
            return None, (_diagnostic_from(error, where, "target", "check the module path and qualname (infralens locate NAME helps)"),)
        except InfralensError as error:
            return None, (Diagnostic(where, str(error), "check 'source' and 'target'", code="target"),)
        index = self.index(target.source)
        steps: list[ResolvedStep] = []
        diagnostics: list[Diagnostic] = []
        for step in annotation.steps:
            try:
                statements = self.resolve_selector(index, target.definition, step.at)
            except ResolutionError as error:
                diagnostics.append(
                    _diagnostic_from(error, step.at.location or step.location or where, "selector", "copy the statement text from 'infralens show'")
                )
                continue
            steps.append(ResolvedStep(step, statements))
        if diagnostics:
            return None, tuple(diagnostics)
        return ResolvedAnnotation(annotation, target, tuple(steps)), ()

    # -- locate -------------------------------------------------------------

    def locate(self, distribution: str, name: str) -> list[Located]:
        """Every definition whose qualname is ``name`` or ends with ``.name`` (e.g. ``DDIMScheduler.step``)."""
        tree = self.tree(distribution)
        parts = name.split(".")
        head_patterns = [re.compile(rb"(?m)^\s*(?:async\s+def|def|class)\s+" + re.escape(p.encode()) + rb"\b") for p in parts]
        results: list[Located] = []
        self.skipped = []
        for relpath in tree.iter_python_files():
            try:
                data = tree.read_bytes(relpath)
            except InfralensError as error:
                self.skipped.append(f"{relpath}: {error}")
                continue
            if not all(p.search(data) for p in head_patterns):
                continue  # cheap prefilter: skip files that cannot define the name
            try:
                source = self.source_file(tree, relpath)
            except InfralensError as error:
                self.skipped.append(str(error))
                continue
            index = self.index(source)
            if index.syntax_error:
                self.skipped.append(f"{relpath}: not valid Python for this parser ({index.syntax_error})")
            for definition in index.definitions:
                if definition.qualname == name or definition.qualname.endswith("." + name):
                    results.append(Located(source, definition))
        return results


def _describe_statement(statement: Statement) -> str:
    text = statement.text if len(statement.text) <= 100 else statement.text[:97] + "..."
    return f"line {statement.start_line}: {text}"


def _close(word: str, options: Iterable[str], n: int = 3) -> list[str]:
    return difflib.get_close_matches(word, list(dict.fromkeys(options)), n=n, cutoff=0.4)


def _diagnostic_from(error: ResolutionError, where: Location, code: str, hint: str) -> Diagnostic:
    message = str(error)
    if error.candidates:
        message += "; candidates: " + " | ".join(error.candidates)
    return Diagnostic(where, message, hint, code=code)

"""Apply the lab allow-list (:mod:`.lab_allow`) to an untrusted lab page while it is parsed.

Why here, and not on the page's text: a directive's options reach it in more than one syntax (``:file:``
lines, a YAML block between ``---`` lines, HTML attributes MyST turns into options), and some directives
act while they are parsed (``csv-table`` reads its ``file`` or fetches its ``url``, ``include`` and
``literalinclude`` read files). So the decision is taken on the parsed directive, after MyST or docutils
parsed its options and before it runs:

- Every directive and role of a document is found through docutils' two lookup functions,
  ``directives.directive`` and ``roles.role``, whoever parses (MyST's fences and colon fences, its
  roles, reStructuredText). Sphinx points them at its domain-aware dispatcher for the length of one
  document's parse and puts the originals back afterwards. :func:`install`, called on ``source-read``
  (inside that span), wraps whatever they are then, for that one parse.
- A wrapped lookup answers for the lab document only (it compares the reporter's source, so the notes
  an ``{infralens-function}`` parses in a document of their own keep the notes' rules). It resolves the
  name as Sphinx does (domain, standard domain, docutils' language aliases) and returns:
  for a refused directive, a class that parses like the original (so the options of any syntax are
  accepted and never acted on) and whose ``run`` only warns; for an allowed one, a subclass whose
  construction checks ``self.options`` (as parsed) against the table, drops a link option with a
  refused scheme and refuses the directive for any option not allowed. Include-like classes are never
  subclassed: MyST reads their file itself, so a refused one is replaced by a class that is not one.
- As a second line, the document's settings turn off file insertion and raw markup
  (``file_insertion_enabled``, ``raw_enabled``), which docutils' and Sphinx's own directives obey.
- An allowed directive or role that fails on hostile input gives a warning instead of stopping the
  build, and a toctree keeps only entries inside the lab (:func:`.lab_allow.toctree_refusal`).

Each refusal is a warning at the lab's own file and line (``infralens.lab-text``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.parsers.rst import Directive, DirectiveError, directives, roles
from docutils.parsers.rst.directives.misc import Include
from docutils.utils import SystemMessage
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.util import url_re
from sphinx.util.nodes import split_explicit_title

from infralens.sphinx.lab_allow import (
    DIRECTIVES,
    LINK_ROLES,
    REFUSED_DIRECTIVES,
    REFUSED_ROLES,
    ROLES,
    DirectiveRule,
    directive_rule,
    judge,
    link_refusal,
    role_refusal,
    toctree_refusal,
)
from infralens.sphinx.warnings import Subtype, warn

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import ModuleType

    from sphinx.environment import BuildEnvironment

MAX_TREE_DEPTH = 64
"""The deepest a directive of a lab page may start in the page's tree (nodes). :mod:`.lab_policy` blanks blocks nested
deeper than its limit before MyST parses the page; this counts again while it runs, however the nesting was written
(a directive inside a table cell, say), so a page can never build a tree deep enough to stop the build (about 200 levels did)."""

MIN_LEVELS = 8
"""What one directive counts for at least: a table cell is parsed 5 levels below its table before they are attached."""

_MYST_INCLUDE_OPTIONS = ("relative-images", "relative-docs", "heading-offset")
"""Options MyST adds to include-like directives; a refused one still accepts them."""


@dataclass(frozen=True)
class GuardedPage:
    """The lab page being parsed: where warnings point, and what its toctrees may list."""

    source: str
    """The file Sphinx reads (the staged copy): lookups for any other document pass through."""
    path: Path
    """The lab's own file, named in warnings."""
    docname: str
    base: str
    """The docname of the lab's folder (``""`` in ``infralens preview``, whose source dir is the lab)."""


def install(env: BuildEnvironment, page: GuardedPage) -> None:
    """Wrap docutils' directive and role lookups for the rest of this document's parse (Sphinx restores them)."""
    directives.directive = _DirectiveLookup(directives.directive, env, page)  # type: ignore[assignment]
    roles.role = _RoleLookup(roles.role, env, page)  # type: ignore[assignment]


def _refused(page: GuardedPage, line: int | None, what: str, reason: str) -> None:
    warn(f"lab text: {what} is refused: {reason}; it is left out of the page", Subtype.LAB_TEXT, (str(page.path), line or 0))


class _DirectiveLookup:
    def __init__(self, original: Callable[..., Any], env: BuildEnvironment, page: GuardedPage) -> None:
        self.original, self.env, self.page = original, env, page
        self.levels: list[int] = []
        """How deep each directive now running in this document started (its own part of the tree)."""

    def __call__(self, name: str, language_module: ModuleType, document: nodes.document) -> tuple[type[Directive] | None, list[nodes.system_message]]:
        found, messages = self.original(name, language_module, document)
        if found is None or getattr(document.reporter, "source", None) != self.page.source:
            return found, messages
        document.settings.file_insertion_enabled = False
        document.settings.raw_enabled = False
        key = _resolved(self.env, name, language_module, "directives", DIRECTIVES.keys() | REFUSED_DIRECTIVES.keys())
        rule = directive_rule(key)
        if isinstance(rule, str):
            return _refusing(found, key, rule, self.page), messages
        return _checked(found, key, rule, self.page, self.levels), messages


class _RoleLookup:
    def __init__(self, original: Callable[..., Any], env: BuildEnvironment, page: GuardedPage) -> None:
        self.original, self.env, self.page = original, env, page

    def __call__(self, name: str, language_module: ModuleType, lineno: int, reporter: Any) -> tuple[Any, list[nodes.system_message]]:
        found, messages = self.original(name, language_module, lineno, reporter)
        if found is None or getattr(reporter, "source", None) != self.page.source:
            return found, messages
        key = _resolved(self.env, name, language_module, "roles", ROLES | LINK_ROLES | REFUSED_ROLES.keys())
        reason = role_refusal(key)
        return _role(found, key, reason, self.page), messages


def _resolved(env: BuildEnvironment, name: str, language_module: ModuleType, kind: str, known: Any) -> str:
    """The name the table knows ``name`` by, resolved as Sphinx resolves it: ``domain:name`` for a domain's, else docutils'."""
    name = name.lower()
    domain, colon, short = name.partition(":")
    if not colon:
        domain, short = "", name
    if domain and short in getattr(_domain(env, domain), kind, {}):
        return name
    default = None if domain else _default_domain(env)
    for candidate in (default, _domain(env, "std")):
        if candidate is not None and short in getattr(candidate, kind, {}):
            return f"{candidate.name}:{short}"
    if domain or name in known:
        return name
    translated = getattr(language_module, kind, {}).get(name)  # a translated or alias name → docutils' canonical one
    return str(translated) if translated else name


def _domain(env: BuildEnvironment, name: str) -> Any:
    try:
        return env.get_domain(name)
    except ExtensionError:
        return None


def _default_domain(env: BuildEnvironment) -> Any:
    current = getattr(env, "current_document", None)  # Sphinx 8.2 and later
    if current is not None:
        return getattr(current, "default_domain", None)
    return env.temp_data.get("default_domain")  # pragma: no cover  (older Sphinx)


def _refusing(original: type[Directive], key: str, reason: str, page: GuardedPage) -> type[Directive]:
    """A directive that accepts whatever ``original`` would (any argument, content, its options) and, run, only warns.

    Never a subclass of ``original``: MyST reads an include-like directive's file without running it.
    """
    spec = {option: directives.unchanged for option in getattr(original, "option_spec", None) or {}}
    if issubclass(original, Include):
        spec.update(dict.fromkeys(_MYST_INCLUDE_OPTIONS, directives.unchanged))

    def run(self: Directive) -> list[nodes.Node]:
        _refused(page, self.lineno, f"the {key!r} directive", reason)
        return []

    attributes = {"required_arguments": 0, "optional_arguments": 1, "final_argument_whitespace": True, "has_content": True, "option_spec": spec}
    return type(f"Refused_{original.__name__}", (Directive,), {**attributes, "run": run})


def _checked(original: type[Directive], key: str, rule: DirectiveRule, page: GuardedPage, levels: list[int]) -> type[Directive]:
    """``original``, checking its parsed options and argument when constructed (see the module docstring)."""
    if issubclass(original, Include):  # MyST would read the file without running it: never allowed as such
        return _refusing(original, key, "it would insert a file of the build machine into the page", page)

    def __init__(self: Directive, *args: Any, **kwargs: Any) -> None:
        original.__init__(self, *args, **kwargs)
        verdict = judge(rule, self.options, self.arguments)
        for option, reason in verdict.dropped:
            _refused(page, self.lineno, f"the {key!r} directive's {option!r} option", reason)
            del self.options[option]
        run, refusal = self.run, verdict.refusal

        def checked_run() -> Sequence[nodes.Node]:
            if refusal is not None:
                _refused(page, self.lineno, f"the {key!r} directive", refusal)
                return []
            here = _height(_current_node(self))
            if sum(levels) + here > MAX_TREE_DEPTH:
                _refused(page, self.lineno, f"the {key!r} directive", f"it nests blocks more than {MAX_TREE_DEPTH} levels deep")
                return []
            levels.append(max(here + 1, MIN_LEVELS))
            try:
                return _run(run, key, rule, page, self.lineno)
            finally:
                levels.pop()

        setattr(self, "run", checked_run)  # noqa: B010  (the instance's run: MyST checks the class's own for tables)

    spec = {option: _safe(convert) for option, convert in (getattr(original, "option_spec", None) or {}).items()}
    if rule.named_by_project:  # options named after the project's distributions: each a plain text value
        spec = _TextOptions(spec)
    return type(original.__name__, (original,), {"__init__": __init__, "__module__": original.__module__, "option_spec": spec})


class _TextOptions(dict):
    """An option table that parses any option name as required text (:attr:`DirectiveRule.named_by_project`)."""

    def __bool__(self) -> bool:
        return True  # parsers look for an options block only when a directive has options: this one always may

    def __missing__(self, key: str) -> Any:
        return directives.unchanged_required


def _safe(convert: Callable[[str | None], Any]) -> Callable[[str | None], Any]:
    """``convert``, failing only with the ``ValueError`` parsers report as an invalid option (``|`` as a ``quote`` crashed one)."""
    if convert is directives.flag:  # MyST recognises the flag converter by identity
        return convert

    def converted(value: str | None) -> Any:
        try:
            return convert(value)
        except (ValueError, TypeError):
            raise
        except Exception as error:
            raise ValueError(f"{type(error).__name__}: {error}") from None

    return converted


def _current_node(directive: Directive) -> nodes.Node | None:
    """Where the directive's output will go: MyST's renderer's current node, or docutils' state machine's."""
    state = vars(directive.state)  # MyST's mock state raises on any attribute it does not implement
    renderer = state.get("_renderer")
    if renderer is not None:
        return getattr(renderer, "current_node", None)
    return getattr(state.get("state_machine"), "node", None)


def _height(node: nodes.Node | None) -> int:
    """How many ancestors ``node`` has so far (a directive's own output is not attached while it runs)."""
    count = 0
    while node is not None and count <= MAX_TREE_DEPTH:
        node, count = node.parent, count + 1
    return count


def _run(run: Callable[[], Sequence[nodes.Node]], key: str, rule: DirectiveRule, page: GuardedPage, line: int) -> Sequence[nodes.Node]:
    try:
        result = run()
    except (DirectiveError, SystemMessage):  # docutils turns these into a located error of its own
        raise
    except Exception as error:  # an allowed directive failing on hostile input must not stop the build
        _refused(page, line, f"the {key!r} directive", f"it failed ({type(error).__name__}: {str(error)[:200]})")
        return []
    if rule.toctree:
        for node in result:
            for toctree in node.findall(addnodes.toctree):
                _keep_lab_entries(toctree, page, line)
    return result


def _keep_lab_entries(toctree: addnodes.toctree, page: GuardedPage, line: int) -> None:
    """Drop a toctree's entries outside the lab (or above the page), with one warning for them."""
    kept: list[tuple[str | None, str, str | None]] = []
    refused: list[tuple[str | None, str, str | None]] = []
    for title, ref in toctree["entries"]:
        if ref == "self":
            reason = None
        elif url_re.match(ref):
            reason = link_refusal(ref)
        else:
            reason = toctree_refusal(page.docname, page.base, ref)
        (refused if reason else kept).append((title, ref, reason))
    if not refused:
        return
    first = refused[0][2]
    more = f" (and {len(refused) - 1} more entries)" if len(refused) > 1 else ""
    _refused(page, line, "a toctree entry", f"{first}{more}")
    toctree["entries"] = [(title, ref) for title, ref, _ in kept]
    listed = {ref for _, ref, _ in kept}
    toctree["includefiles"] = [docname for docname in toctree["includefiles"] if docname in listed]


def _role(original: Callable[..., Any], key: str, reason: str | None, page: GuardedPage) -> Callable[..., Any]:
    """``original``, or one that warns and keeps the text, for a refused role or a link role with a refused address."""

    def role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, *args: Any, **kwargs: Any) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        _, title, target = split_explicit_title(text)
        refusal = reason if reason is not None else (link_refusal(target) if key in LINK_ROLES else None)
        if refusal is not None:
            _refused(page, lineno, f"the {{{key}}} role", refusal)
            return [nodes.Text(title)], []
        try:
            return original(name, rawtext, text, lineno, inliner, *args, **kwargs)
        except Exception as error:  # an allowed role failing on hostile input must not stop the build
            _refused(page, lineno, f"the {{{key}}} role", f"it failed ({type(error).__name__}: {str(error)[:200]})")
            return [nodes.Text(title)], []

    return role

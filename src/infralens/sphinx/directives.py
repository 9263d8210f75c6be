"""``infralens-function``, ``infralens-compare`` and ``infralens-concept``: annotated upstream code on any page."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.errors import NoUri
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from infralens.libraries import upstream_link
from infralens.render import NoteView
from infralens.sphinx import nodes as il
from infralens.sphinx.catalog import AnnotatedFunction, Catalog, catalog_for
from infralens.sphinx.domain import domain_of
from infralens.sphinx.html import RenderContext, build_function, slug
from infralens.sphinx.links import add_joined, doc_link
from infralens.sphinx.notes import parse_notes
from infralens.sphinx.pages import compare_docname, function_docname, glossary_docname, lab_docname
from infralens.sphinx.warnings import Subtype, warn

if TYPE_CHECKING:
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import OptionSpec

_PREFIXES = "infralens_prefixes"
_SHOWN = "infralens_shown"
"""Per-document set of id prefixes already used, in ``env.temp_data`` (dropped after each read)."""


class FunctionDirective(SphinxDirective):
    """Render one annotated function: ``.. infralens-function:: module.Qualname``."""

    required_arguments = 1
    option_spec: ClassVar[OptionSpec] = {"canonical": directives.flag}

    def run(self) -> list[nodes.Node]:
        node = render_function(self, self.arguments[0].strip(), canonical="canonical" in self.options)
        return [node] if node is not None else []


class _DistributionOptions(dict):
    """The compare directive's options: one per distribution, so any name parses here (a dict with no fixed keys);
    :meth:`CompareDirective.run` warns about a name that is not one of the project's distributions."""

    def __bool__(self) -> bool:
        return True  # parsers look for an options block only when a directive has options: this one always may

    def __missing__(self, key: str) -> Any:
        return directives.unchanged_required


class CompareDirective(SphinxDirective):
    """Functions of the project's distributions side by side: ``:DIST: TARGET`` for each (``[tool.infralens] distributions``)."""

    option_spec: ClassVar[OptionSpec] = _DistributionOptions()
    has_content = False

    def run(self) -> list[nodes.Node]:
        distributions = catalog_for(self.env).settings.distributions
        for name in self.options:
            if name not in distributions:
                warn(
                    f"infralens-compare :{name}: is not one of the project's distributions ({', '.join(distributions)})",
                    Subtype.UNKNOWN_TARGET,
                    self.get_location(),
                )
        chosen = [dist for dist in distributions if self.options.get(dist)]
        if not chosen:
            options = " and/or ".join(f":{dist}:" for dist in distributions)
            warn(f"infralens-compare needs {options} targets", Subtype.UNKNOWN_TARGET, self.get_location())
            return []
        root = il.infralens_compare(classes=["infralens-compare"])
        for dist in chosen:
            column = il.infralens_block(classes=["il-compare-column", f"il-compare-{slug(dist)}"])
            rendered = render_function(self, self.options[dist].strip(), compact=True)
            if rendered is not None:
                column += rendered
                root += column
        if not root.children:
            return []
        return [root, *self._concept_link(chosen)]

    def _concept_link(self, chosen: list[str]) -> list[nodes.Node]:
        """A line to the concept map's page for this pair, when the map has it (its prose says how they relate)."""
        catalog = catalog_for(self.env)
        shown = {(dist, self.options[dist].strip()) for dist in chosen}
        pair = next((p for p in catalog.concepts.pairs if set(p.sides) == shown), None)
        if pair is None or not catalog.settings.generate_pages:
            return []
        para = nodes.paragraph("", "How the two relate: ", classes=["il-concept-link"])
        para += doc_link(compare_docname(catalog.settings, pair.slug), pair.title)
        return [para]


class ConceptDirective(SphinxDirective):
    """One pair of the concept map: its prose (same, differs, read first), then both functions side by side."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        catalog = catalog_for(self.env)
        name = self.arguments[0].strip()
        pair = next((p for p in catalog.concepts.pairs if p.slug == name), None)
        if pair is None:
            known = [p.slug for p in catalog.concepts.pairs]
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else "; add it to the concept map (labs/concepts.yaml)"
            warn(f"no concept pair {name!r}{hint}", Subtype.CONCEPTS, self.get_location())
            return []
        if catalog.concepts.path:
            self.env.note_dependency(catalog.concepts.path)
        box = il.infralens_block(classes=["il-concept"])
        where = (catalog.concepts.path or "", pair.location.line or 0)
        bodies = parse_notes([pair.same, pair.differs, pair.read_first], self.state.document, [where, where, where])
        for heading, body in zip(CONCEPT_HEADINGS, bodies, strict=True):
            box += nodes.rubric(heading, heading)
            box.extend(body)
        compare = il.infralens_compare(classes=["infralens-compare"])
        for dist, target in pair.sides:
            rendered = render_function(self, target, compact=True)
            if rendered is not None:
                column = il.infralens_block(classes=["il-compare-column", f"il-compare-{slug(dist)}"])
                column += rendered
                compare += column
        return [box, compare]


CONCEPT_HEADINGS = ("What is the same", "What differs", "Which to read first")


def render_function(directive: SphinxDirective, target: str, *, canonical: bool = False, compact: bool = False) -> nodes.Node | None:
    env = directive.env
    catalog = catalog_for(env)
    function = catalog.function(target)
    if function is None:
        close = difflib.get_close_matches(target, list(catalog.functions), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else "; add an annotation with this target to annotations/"
        warn(f"no annotation targets {target!r}{hint}", Subtype.UNKNOWN_TARGET, directive.get_location())
        return None
    for path in (*function.dependencies, *catalog.reports.files):
        env.note_dependency(path)
    domain_of(env).note_use(env.docname, target)
    shown = _shown_on_page(env)
    if target in shown:
        return _shown_above(function, shown[target])
    prefix, suffix = _unique_prefix(env, "il-" + slug(function.qualname))
    shown[target] = prefix
    settings = catalog.settings
    step_locations = {r.annotation.step_id(s.step): s.step.location or r.annotation.location for r in function.resolved for s in r.steps}

    def note_location(note: NoteView) -> tuple[str, int]:
        where = step_locations.get(note.step_id)
        path = settings.project_root / where.path if where else settings.annotations_dir
        return (str(path), where.line if where else 0)

    context = RenderContext(
        prefix=prefix,
        reports=catalog.reports,
        upstream_url=_upstream_url(catalog.upstream_urls, function),
        fold_min=settings.fold_min_lines,
        parse_notes=lambda notes: parse_notes([n.note for n in notes], directive.state.document, [note_location(n) for n in notes]),
        note_id=lambda note: slug(note.step_id) + suffix,
        lab_docnames={
            s: (lab_docname(settings, s), lab.title)
            for s, lab in catalog.labs.items()
            if lab.page and settings.generate_pages and lab_docname(settings, s) != env.docname
        },
        function_docname=None if canonical or not settings.generate_pages else function_docname(settings, function),
        distribution=function.distribution,
        glossary_url=_relative_uri(env, glossary_docname(settings)) if settings.generate_pages else None,
    )
    view = build_function(function.view, context, function.qualname)
    if compact:
        view["classes"].append("il-compact")
    if canonical:
        view.insert(1, _canonical_extras(directive, function, catalog))
    return view


def _relative_uri(env: BuildEnvironment, docname: str) -> str | None:
    """The link from the page being read to ``docname``; None for builders without page links (texinfo, man)."""
    try:
        return env.app.builder.get_relative_uri(env.docname, docname)
    except NoUri:
        return None


def _shown_on_page(env: BuildEnvironment) -> dict[str, str]:
    """Targets already drawn on the page being read, with the id of their block (dropped after each read)."""
    shown = env.temp_data.get(_SHOWN)
    if not isinstance(shown, dict):
        shown = env.temp_data[_SHOWN] = {}
    return shown


def _shown_above(function: AnnotatedFunction, anchor: str) -> nodes.Node:
    """A later mention of a function already drawn on this page: one line linking up to it, not a second copy."""
    para = nodes.paragraph("", "", classes=["il-shown-above"])
    para += nodes.literal(function.qualname, function.qualname)
    para += nodes.Text(" is shown ")
    para += nodes.reference("", "above on this page", internal=True, refid=anchor)
    para += nodes.Text(".")
    return para


def _unique_prefix(env: BuildEnvironment, base: str) -> tuple[str, str]:
    """``(prefix, suffix)``: ``base`` the first time on a page, then ``base-2``, ``base-3``…"""
    used = env.temp_data.get(_PREFIXES)
    if not isinstance(used, set):
        used = env.temp_data[_PREFIXES] = set()
    prefix, suffix, n = base, "", 1
    while prefix in used:
        n += 1
        suffix = f"-{n}"
        prefix = base + suffix
    used.add(prefix)
    return prefix, suffix


def _canonical_extras(directive: SphinxDirective, function: AnnotatedFunction, catalog: Catalog) -> nodes.Node:
    """Summaries, sibling implementations in the other distribution, and the pages that embed it."""
    box = il.infralens_block(classes=["il-about"])
    with_summary = [r.annotation for r in function.resolved if r.annotation.summary]
    locations = [(str(catalog.settings.project_root / a.path), a.location.line if a.location else 0) for a in with_summary]
    for body in parse_notes([a.summary for a in with_summary], directive.state.document, locations):
        box.extend(body)
    settings = catalog.settings
    partners = catalog.concepts.partners(function.target)
    if partners and settings.generate_pages:
        para = nodes.paragraph("", "Same concept elsewhere: ", classes=["il-siblings"])
        links = []
        for pair, other in partners:
            partner = catalog.functions[other]
            links.append(doc_link(function_docname(settings, partner), f"{partner.distribution}: {partner.qualname}"))
            links.append(doc_link(compare_docname(settings, pair.slug), f"how they compare: {pair.title}"))
        box += add_joined(para, links)
    box += il.infralens_backlinks(target=function.target)
    return box


def _upstream_url(templates: dict[str, str], function: AnnotatedFunction) -> str | None:
    template = templates.get(function.distribution, "")
    definition = function.definition
    return upstream_link(template, version=function.source.version, path=function.source.relpath, start=definition.start_line, end=definition.end_line)


class BacklinksTransform(SphinxPostTransform):
    """Replace each backlinks placeholder with links to the pages that embed the function."""

    default_priority = 5  # before the references are resolved

    def run(self, **kwargs: Any) -> None:
        domain = domain_of(self.env)
        for placeholder in list(self.document.findall(il.infralens_backlinks)):
            pages = [d for d in domain.pages_using(placeholder["target"]) if d != self.env.docname]
            if not pages:
                placeholder.parent.remove(placeholder)
                continue
            para = nodes.paragraph("", "Shown on: ", classes=["il-backlinks"])
            placeholder.replace_self(add_joined(para, (doc_link(docname, docname, explicit=False) for docname in pages)))

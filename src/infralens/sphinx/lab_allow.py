"""What an untrusted lab page may use: the one table of allowed directives (with their options) and roles.

Lab folders arrive in pull requests, so a lab not listed in ``infralens_trusted_labs`` is read under
this table; everything it does not allow is refused. The table is judged on the *parsed* directive
(:mod:`.lab_guard` applies it to the options MyST or docutils parsed, whatever syntax carried them), so
the decision never depends on how a page spells an option.

- :data:`DIRECTIVES`: each allowed directive with the options a lab may give it (``options``), the
  options it knows but a lab may not give (``refused_options``: a file, a URL, raw markup), which of the
  allowed options hold an address (``links``, checked by :func:`link_refusal`), whether the argument is
  an address (``button-link``), and whether its entries are a toctree's (:func:`toctree_refusal`).
- :data:`REFUSED_DIRECTIVES` and :data:`REFUSED_DOMAIN_DIRECTIVES`: every other directive the project's
  Sphinx app registers, each with the reason it is refused. A directive in neither is refused too.
- :data:`ROLES`, :data:`LINK_ROLES` and :data:`REFUSED_ROLES`: the same for roles.

``tests/hardening/test_lab_allowlist.py`` enumerates every directive and role the site's extensions
register (docutils, Sphinx and its domains, MyST, sphinx-design, InfraLens) and fails until each one is
in this table and each option of an allowed directive is classified.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from infralens.sphinx.note_policy import refused_scheme


@dataclass(frozen=True)
class DirectiveRule:
    """How a lab may use one allowed directive."""

    options: frozenset[str]
    refused_options: frozenset[str] = frozenset()
    links: frozenset[str] = frozenset()
    """Allowed options whose value is an address (only http, https, mailto or a place in the project)."""
    argument_is_link: bool = False
    toctree: bool = False
    """Its entries must be pages of the lab below the page (:func:`toctree_refusal`)."""
    named_by_project: bool = False
    """Its options are the project's distribution names, each naming an annotated function (``infralens-compare``):
    any name is allowed here, and the directive itself warns about one that is not a distribution."""


def _allow(options: str = "", *, refused: str = "", links: str = "", argument_is_link: bool = False, toctree: bool = False) -> DirectiveRule:
    return DirectiveRule(frozenset(options.split()), frozenset(refused.split()), frozenset(links.split()), argument_is_link, toctree)


_ADMONITION = _allow("class collapsible name")
_PLAIN = _allow()
_BLOCK = _allow("class name")
_CODE = _allow("caption class dedent emphasize-lines force lineno-start linenos name")
_BUTTON = "align class click-parent color expand new-tab outline ref-type shadow tooltip"
_CARD = (
    "class-body class-card class-footer class-header class-img-bottom class-img-top class-title footer header "
    "img-alt img-background img-bottom img-top link link-alt link-new-tab link-type margin shadow text-align width"
)
_IMAGE = "align alt class height loading name scale target width"

DIRECTIVES: dict[str, DirectiveRule] = {
    **dict.fromkeys(("attention", "caution", "danger", "error", "hint", "important", "note", "tip", "warning"), _ADMONITION),
    "admonition": _ADMONITION,
    "seealso": _ADMONITION,
    **dict.fromkeys(("deprecated", "versionadded", "versionchanged", "versionremoved"), _PLAIN),
    **dict.fromkeys(("version-added", "version-changed", "version-deprecated", "version-removed"), _PLAIN),
    **dict.fromkeys(("code-block", "sourcecode"), _CODE),
    "code": _allow("class force name number-lines"),
    "highlight": _allow("force linenothreshold"),
    "math": _allow("class label name no-wrap nowrap"),
    "csv-table": _allow("align class delim escape header header-rows keepspace name quote stub-columns width widths", refused="file url encoding"),
    "list-table": _allow("align class header-rows name stub-columns width widths"),
    "table": _allow("align class name width widths"),
    "image": _allow(_IMAGE, links="target"),
    "figure": _allow(_IMAGE + " figclass figname figwidth", links="target"),
    "figure-md": _allow("align class name width"),
    "toctree": _allow("caption class glob hidden includehidden maxdepth name numbered reversed titlesonly", toctree=True),
    **dict.fromkeys(("compound", "line-block", "parsed-literal", "topic"), _BLOCK),
    **dict.fromkeys(("epigraph", "highlights", "pull-quote", "centered"), _PLAIN),
    "container": _allow("name"),
    "sidebar": _allow("class name subtitle"),
    "rubric": _allow("class heading-level name"),
    "contents": _allow("backlinks class depth local"),
    "hlist": _allow("columns"),
    # sphinx-design: layout only; an address is checked, an option that inserts an icon's raw SVG or CSS is refused
    "dropdown": _allow("animate chevron class-body class-container class-title color margin name open", refused="icon"),
    "tab-set": _allow("class orientation sync-group"),
    "tab-item": _allow("class-container class-content class-label name selected sync"),
    "tab-set-code": _allow("class-item class-set no-sync orientation sync-group"),
    "grid": _allow("class-container class-row gutter margin outline padding reverse"),
    "grid-item": _allow("child-align child-direction class columns margin outline padding"),
    "card": _allow(_CARD, links="link"),
    "grid-item-card": _allow(_CARD + " class-item columns padding", links="link"),
    **dict.fromkeys(("card-carousel", "card-header", "card-footer"), _allow("class")),
    "button-link": _allow(_BUTTON, argument_is_link=True),
    "button-ref": _allow(_BUTTON),
    "div": _allow("name", refused="style"),
    "accordion": _allow("class flush"),
    "aside": _allow("align class class-body class-title margin name width"),
    "steps": _allow("class color start"),
    "step": _allow("class class-content class-title"),
    "article-info": _allow("author avatar avatar-alt avatar-link avatar-outline class-avatar class-container date read-time", links="avatar-link"),
    # InfraLens: what labs are for
    "infralens-function": _allow("canonical"),
    "infralens-compare": DirectiveRule(frozenset(), named_by_project=True),
    "infralens-concept": _PLAIN,
    "infralens-cost": _allow("model models pipeline pipelines"),
}
"""Every directive a lab page may use, with its rule."""

_FILE = "it would insert a file of the build machine, or raw markup, into the page"
_READING = "it changes how the rest of the page is read"
_METADATA = "it sets page or document metadata"
_GLOBAL = "it adds entries to the site's index, or decorates every page"
_UNNEEDED = "lab text has no use for it (the project's own pages may use it)"

REFUSED_DIRECTIVES: dict[str, str] = {
    **dict.fromkeys(("include", "literalinclude", "raw", "eval-rst"), _FILE),
    **dict.fromkeys(("role", "default-role", "default-domain", "class", "rst-class", "cssclass"), _READING),
    **dict.fromkeys(("meta", "title", "date", "replace", "unicode", "acks", "codeauthor", "sectionauthor", "moduleauthor"), _METADATA),
    **dict.fromkeys(("index", "header", "footer", "target-notes", "sectnum", "section-numbering", "describe", "object"), _GLOBAL),
    **dict.fromkeys(("only", "tabularcolumns", "restructuredtext-test-directive"), _UNNEEDED),
    "_all-octicon": "it inserts raw SVG markup",
    "infralens-coverage": "it reads a coverage file named by the page (coverage maps belong on the project's own pages)",
    "infralens-learning-path": (
        "the learning path belongs on the project's own pages (the start page, the labs index); a lab page says where it sits on its own"
    ),
}
"""Directives a lab page may not use, with the reason (``eval-rst`` is MyST's fence for reStructuredText)."""

REFUSED_DOMAIN_DIRECTIVES: dict[str, str] = {
    domain: "it describes objects for the site's API index and cross-references, which belong to the project's own pages"
    for domain in ("c", "cpp", "js", "py", "rst", "std")
}
"""Every directive of these domains (``py:function``, ``std:glossary``, …) is refused, with this reason."""

_COLOURS = ("primary", "secondary", "success", "info", "warning", "danger", "light", "muted", "dark", "white", "black")
_BADGES = [f"{kind}-{colour}{line}" for kind in ("bdg", "bdg-ref") for colour in _COLOURS for line in ("", "-line")]

ROLES: frozenset[str] = frozenset(
    (
        *["ab", "abbr", "abbreviation", "ac", "acronym", "code", "command", "dfn", "emphasis", "file", "guilabel", "kbd", "literal", "mailheader", "makevar"],
        *["manpage", "math", "eq", "menuselection", "mimetype", "newsgroup", "program", "regexp", "samp", "strong", "sub", "subscript", "sup", "superscript"],
        *["t", "title", "title-reference", "pep", "pep-reference", "rfc", "rfc-reference", "cve", "cwe", "sub-ref", "any"],
        *["fa", "fa-brands", "fa-regular", "fa-solid", "fab", "far", "fas", "bdg", "bdg-ref"],
        *_BADGES,
        *["std:doc", "std:ref", "std:numref", "std:term", "std:keyword", "std:confval", "std:envvar", "std:option", "std:token", "math:numref"],
        *(f"py:{kind}" for kind in ["attr", "class", "const", "data", "deco", "exc", "func", "meth", "mod", "obj", "type"]),
    )
)
"""Roles a lab page may use: formatting, badges, and cross-references inside the project (``pep``, ``rfc``,
``cve`` and ``manpage`` link to fixed public sites or the one ``conf.py`` names)."""

LINK_ROLES: frozenset[str] = frozenset({"bdg-link"} | {f"bdg-link-{colour}{line}" for colour in _COLOURS for line in ("", "-line")})
"""Roles whose target is an address: allowed when it is http, https, mailto or a place in the project."""

REFUSED_ROLES: dict[str, str] = {
    "download": "it would copy a file of the build machine into the site",
    "raw": "it inserts raw markup",
    **dict.fromkeys(("index", "i"), _GLOBAL),
    **dict.fromkeys(("octicon", *(f"material-{style}" for style in ("outlined", "regular", "round", "sharp", "twotone"))), "it inserts raw SVG markup"),
    **dict.fromkeys(
        (
            *["anonymous-reference", "citation-reference", "footnote-reference", "named-reference", "substitution-reference"],
            *["target", "uri-reference", "uri", "url", "restructuredtext-unimplemented-role"],
        ),
        "docutils does not implement it as a role",
    ),
}
"""Roles a lab page may not use, with the reason."""

REFUSED_DOMAIN_ROLES: dict[str, str] = {domain: _UNNEEDED for domain in ("c", "cpp", "js", "rst")}
"""Every role of these domains is refused, with this reason (``py``, ``std`` and ``math`` roles are in :data:`ROLES`)."""


def directive_rule(name: str) -> DirectiveRule | str:
    """The rule for the directive ``name`` (lower case; a domain's as ``domain:name``), or why it is refused."""
    if name in DIRECTIVES:
        return DIRECTIVES[name]
    if name in REFUSED_DIRECTIVES:
        return REFUSED_DIRECTIVES[name]
    domain = name.partition(":")[0] if ":" in name else ""
    if domain in REFUSED_DOMAIN_DIRECTIVES:
        return REFUSED_DOMAIN_DIRECTIVES[domain]
    return "it is not on the list of directives lab text may use"


def role_refusal(name: str) -> str | None:
    """Why the role ``name`` is refused, or None when a lab may use it."""
    if name in ROLES or name in LINK_ROLES:
        return None
    if name in REFUSED_ROLES:
        return REFUSED_ROLES[name]
    domain = name.partition(":")[0] if ":" in name else ""
    return REFUSED_DOMAIN_ROLES.get(domain, "it is not on the list of roles lab text may use")


@dataclass(frozen=True)
class Verdict:
    """What becomes of one parsed directive: refused whole (``refusal``), or run without the ``dropped`` link options."""

    refusal: str | None
    dropped: tuple[tuple[str, str], ...] = ()
    """``(option, reason)`` for each link option whose address is refused: the directive runs without it."""


def judge(rule: DirectiveRule, options: Mapping[str, object], arguments: Sequence[str]) -> Verdict:
    """The verdict on a directive given ``options`` and ``arguments`` as parsed (any syntax), under ``rule``."""
    dropped = tuple((option, reason) for option in sorted(rule.links & options.keys()) if (reason := link_refusal(str(options[option]))) is not None)
    for option in sorted(options.keys() - {option for option, _ in dropped}):
        if option in rule.refused_options:
            return Verdict(f"its {option!r} option is refused (it would reach a file, a URL or raw markup)", dropped)
        if option not in rule.options and not rule.named_by_project:
            return Verdict(f"its {option!r} option is not on the list of options lab text may give it", dropped)
    if rule.argument_is_link and arguments and (reason := link_refusal(arguments[0])) is not None:
        return Verdict(reason, dropped)
    return Verdict(None, dropped)


def link_refusal(address: str) -> str | None:
    """Why ``address`` may not be linked to, or None (http, https, mailto, or a place without a scheme)."""
    scheme = refused_scheme(address)
    return None if scheme is None else f"a link with the {scheme!r} scheme is refused (only http, https, mailto or a place in the project)"


def toctree_refusal(page: str, lab: str, target: str) -> str | None:
    """Why the page ``page`` (a docname) of the lab whose pages sit under ``lab`` may not list ``target`` in a toctree.

    A toctree lists pages of its own lab only, and only ones ranked after it: deeper folders first
    rank higher, and in one folder every page ranks after its ``index``. No toctree can then lead back
    to a page that lists it, so no lab can make the site's tree a cycle (Sphinx cannot build one).
    """
    prefix = f"{lab}/" if lab else ""
    if not target.startswith(prefix) or ".." in PurePosixPath(target).parts:
        return f"its entry {target!r} is outside the lab's folder"
    if _rank(target) <= _rank(page):
        return f"its entry {target!r} is not below this page (a toctree lists the lab's pages from its index down)"
    return None


def _rank(docname: str) -> tuple[int, int]:
    path = PurePosixPath(docname)
    return (len(path.parts), 0 if path.name == "index" else 1)

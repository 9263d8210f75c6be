"""The distributions a project annotates, and where their source lives upstream.

Read from ``pyproject.toml``::

    [tool.infralens]
    distributions = ["transformers"]          # the first is the default (``locate``)
    [tool.infralens.upstream]                 # optional: a URL template per distribution
    transformers = "https://github.com/huggingface/transformers/blob/v{version}/src/{path}#L{line}"

A template may use ``{version}``, ``{public_version}`` (without a local part such as ``+cpu``), ``{path}`` (the file
inside the distribution, e.g. ``transformers/cache_utils.py``), ``{line}`` and ``{end}`` (the function's first and
last line); ``{relpath}`` and ``{start}`` are older names for ``{path}`` and ``{line}``. An empty template means no
link. A distribution without a template links to the repository its metadata names (:mod:`infralens.sphinx.upstream`).

Every place that watches, versions or offers "the project's libraries" (coverage, the badges' provenance, ``locate``,
compare pages and the concept map) reads :attr:`Libraries.distributions`.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from pathlib import Path

from infralens.errors import InfralensError

DEFAULT_DISTRIBUTIONS: tuple[str, ...] = ("diffusers", "diffsynth")
"""What a project that names no ``distributions`` annotates (InfraLens began on these two)."""

DEFAULT_UPSTREAM = {"diffusers": "https://github.com/huggingface/diffusers/blob/v{version}/src/{path}#L{line}-L{end}"}
"""Templates for distributions a project gives none: exact lines at the release tag. DiffSynth-Studio has no ``v2.*``
release tags (its repository's tags stop at v1.1.9 while PyPI ships 2.1.x; checked 2026-11-23) and its metadata names
no repository, so its functions link to nothing upstream; their own page on the site is the source page."""

PLACEHOLDERS = {"version": "", "public_version": "", "path": "", "line": 0, "end": 0, "relpath": "", "start": 0}
"""The fields a URL template may name (with a sample value of each one's type, to check a template)."""

MAX_DISTRIBUTIONS = 64
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$")
"""A distribution name as packaging spells one (PEP 508), at most 100 characters."""


@dataclass(frozen=True)
class Libraries:
    """The distributions one project annotates, in order (the first is the default), and their URL templates."""

    distributions: tuple[str, ...] = DEFAULT_DISTRIBUTIONS
    upstream: dict[str, str] = field(default_factory=dict)
    configured: bool = False
    """Whether ``pyproject.toml`` named the distributions (False: :data:`DEFAULT_DISTRIBUTIONS`)."""

    @property
    def default(self) -> str:
        return self.distributions[0]


def read_libraries(settings: dict, pyproject: Path) -> Libraries:
    """The ``distributions`` and ``upstream`` keys of a ``[tool.infralens]`` table, checked; a clear error names the key."""
    where = f"{pyproject}: [tool.infralens]"
    raw = settings.get("distributions")
    if raw is None:
        distributions, configured = DEFAULT_DISTRIBUTIONS, False
    else:
        distributions, configured = _distributions(raw, f"{where} distributions"), True
    upstream = _upstream(settings.get("upstream", {}), f"{where}.upstream")
    return Libraries(distributions, upstream, configured)


def _distributions(raw: object, where: str) -> tuple[str, ...]:
    example = 'e.g. distributions = ["transformers"]'
    if not isinstance(raw, list) or not raw:
        raise InfralensError(f"{where} must be a non-empty list of distribution names ({example})")
    if len(raw) > MAX_DISTRIBUTIONS:
        raise InfralensError(f"{where} names {len(raw)} distributions; at most {MAX_DISTRIBUTIONS} are read")
    found: list[str] = []
    for value in raw:
        if not isinstance(value, str) or not _NAME.match(value):
            raise InfralensError(f"{where}: {_shown(value)} is not a distribution name ({example})")
        if value in found:
            raise InfralensError(f"{where}: {value!r} is listed twice")
        found.append(value)
    return tuple(found)


def _upstream(raw: object, where: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise InfralensError(f'{where} must be a table of distribution = "URL template" ([tool.infralens.upstream])')
    templates: dict[str, str] = {}
    for name, template in raw.items():
        if not _NAME.match(name):
            raise InfralensError(f"{where}: {_shown(name)} is not a distribution name")
        key = f"{where}.{name}"
        if not isinstance(template, str):
            raise InfralensError(f'{key} must be a URL template as text, e.g. "https://host/owner/repo/blob/v{{version}}/{{path}}#L{{line}}"')
        check_template(template, key)
        templates[name] = template
    return templates


def check_template(template: str, where: str) -> None:
    """Raise a clear error for a template that is not an ``http(s)`` URL or names a field no link has."""
    if template == "":
        return  # no link for this distribution
    if not template.startswith(("https://", "http://")) or any(c.isspace() for c in template) or len(template) > 2000:
        raise InfralensError(f"{where} = {_shown(template)}: expected an http(s) URL template without spaces, or '' for no link")
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as error:
        raise InfralensError(f"{where} = {_shown(template)}: {error} (write a literal brace as {{{{ or }}}})") from None
    known = ", ".join("{" + name + "}" for name in PLACEHOLDERS)
    for name in fields:
        if name not in PLACEHOLDERS:
            raise InfralensError(f"{where} = {_shown(template)}: unknown placeholder {{{name}}}; use {known}")
    try:
        template.format(**PLACEHOLDERS)
    except (ValueError, KeyError, IndexError) as error:
        raise InfralensError(f"{where} = {_shown(template)}: {error}") from None


def upstream_link(template: str, *, version: str, path: str, start: int, end: int) -> str | None:
    """The URL a template gives for one function (None for an empty template or one that does not format)."""
    if not template:
        return None
    public = version.split("+", 1)[0]
    try:
        return template.format(version=version, public_version=public, path=path, relpath=path, line=start, start=start, end=end)
    except (KeyError, IndexError, ValueError):
        return None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."

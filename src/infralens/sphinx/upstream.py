"""Where a function's "upstream" link points: a configured template, else the repository its metadata names.

``infralens_upstream_urls`` maps a distribution to a URL template with ``{version}``, ``{public_version}``
(the version without a local part such as ``+cpu``), ``{relpath}``, ``{start}`` and ``{end}``; an empty
template means "no link". A distribution with no template gets one from its ``METADATA``: the first
``Project-URL`` (or ``Home-page``) on a code host, linked at the tag ``v<public version>``. That link is
to the repository at that tag, not to the file: the repository's layout (``src/`` or not) is not in the
metadata, and a guessed path would be a 404 when wrong. A distribution whose metadata names no
repository (DiffSynth's, for one) gets no upstream link; its own page on the site is the source.
"""

from __future__ import annotations

import re
from email.parser import HeaderParser

from infralens.source import SourceTree

CODE_HOSTS = ("github.com", "gitlab.com", "codeberg.org", "bitbucket.org")
PREFERRED_LABELS = ("source", "source code", "repository", "code", "github", "gitlab")
_REPOSITORY = re.compile(r"^https?://(?:www\.)?(" + "|".join(re.escape(h) for h in CODE_HOSTS) + r")/([\w.-]+)/([\w.-]+?)(?:\.git)?(?:[/#?].*)?$")


def repository_url(metadata: str | None) -> str | None:
    """``https://<host>/<owner>/<repo>`` from a ``METADATA`` text: labelled source URLs first, then the home page."""
    if not metadata:
        return None
    headers = HeaderParser().parsestr(metadata, headersonly=True)
    labelled = []
    for entry in headers.get_all("Project-URL") or []:
        label, _, url = str(entry).partition(",")
        labelled.append((label.strip().lower(), url.strip()))
    ranked = [url for label, url in labelled if label in PREFERRED_LABELS]
    ranked += [url for _, url in labelled] + [str(headers.get("Home-page") or "").strip()]
    for url in ranked:
        match = _REPOSITORY.match(url)
        if match:
            host, owner, repo = match.groups()
            return f"https://{host}/{owner}/{repo}"
    return None


def upstream_templates(configured: dict[str, str], trees: dict[str, SourceTree]) -> dict[str, str]:
    """Templates for every distribution of *trees*: configured ones as given, the others from their metadata."""
    templates = dict(configured)
    for distribution, tree in trees.items():
        if distribution in templates:
            continue
        repository = repository_url(tree.metadata_text())
        if repository:
            templates[distribution] = repository + "/tree/v{public_version}"
    return {distribution: template for distribution, template in templates.items() if template}


def public_version(version: str) -> str:
    """``2.13.0+cpu`` → ``2.13.0``: release tags never carry a local version label."""
    return version.split("+", 1)[0]

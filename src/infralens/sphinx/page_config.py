"""A page's front matter may not change how MyST parses it: only conf.py configures MyST.

MyST reads a page's YAML front matter (``myst_parser.config.main.read_topmatter``) and merges its
``myst:`` mapping, and the old top-level ``substitutions:`` and ``html_meta:`` keys, into the
parser's configuration for that page. A page could so turn on the ``substitution`` extension,
whose ``{{ … }}`` MyST renders with an unsandboxed Jinja environment that holds Sphinx's ``env``
(a shell command runs at build time), widen the accepted URL schemes or add HTML ``<meta>`` tags.

:func:`on_source_read` runs last on ``source-read``, for every page of the build (docs pages,
generated pages and lab pages alike, trusted or not). It reads the front matter with MyST's own
function, from the very text MyST will parse, so every YAML spelling (flow style, anchors, merge
keys, ``---`` followed by anything, ``...`` as the end) is seen exactly as MyST will see it. Only
the keys in :data:`ALLOWED_KEYS` (Sphinx's file-wide metadata, which configures nothing in MyST)
may appear; a front matter with any other key is refused with a warning at the page's file and the
key's line (``infralens.page-config``, an error under ``-W``) and replaced by one holding only its
allowed keys, line count unchanged. Text MyST parses without that event (an reStructuredText ``include`` with
``:parser:``) goes through the same cleaning in :mod:`.myst_guard`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens.sphinx.warnings import Subtype, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx

SOURCE_READ_PRIORITY = 900
"""After every other ``source-read`` handler, so the text checked is the text MyST parses."""

ALLOWED_KEYS = {"orphan": bool, "nosearch": bool, "nocomments": bool, "tocdepth": int}
"""Front-matter keys a page may set (Sphinx metadata), with the type their value is rewritten to."""


def on_source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    """Refuse a front matter that holds anything but :data:`ALLOWED_KEYS`; keep only those keys."""
    text = source[0]
    cleaned, refused = clean_front_matter(text)
    if not refused:
        return
    path = _original_path(app, docname)
    for line, key in refused:
        warn(
            f"page configuration: the front-matter key {key!r} is refused (a page may not change MyST's configuration; "
            f"only {', '.join(ALLOWED_KEYS)} are allowed) — set MyST options in conf.py",
            Subtype.PAGE_CONFIG,
            (path, line),
        )
    source[0] = cleaned


def clean_front_matter(text: str) -> tuple[str, list[tuple[int, str]]]:
    """``text`` with a front matter MyST would read reduced to its allowed keys, and ``(line, key)`` per refused key.

    A front matter that MyST cannot read (not YAML, not a mapping) configures nothing and is left alone.
    """
    from myst_parser.config.main import TopmatterReadError, read_topmatter

    try:
        topmatter = read_topmatter(text)
    except TopmatterReadError:
        return text, []
    if not topmatter:
        return text, []
    refused = [key for key in topmatter if key not in ALLOWED_KEYS]
    if not refused:
        return text, []
    # MyST splits with str.splitlines (which also breaks at \r, \x85, \u2028 …): measure the front matter the same way.
    lines = text.splitlines(keepends=True)
    end = next((index for index in range(1, len(lines)) if lines[index].startswith(("---", "..."))), None)
    count = len(lines) if end is None else end + 1
    consumed = "".join(lines[:count])
    kept = [f"{key}: {_plain(key, topmatter[key])}" for key in ALLOWED_KEYS if key in topmatter]
    if end is None or len(kept) + 2 > count:  # unterminated, or too few lines to keep them without moving the page's lines
        kept = []
    kept = kept or ["{}"]  # an empty mapping: MyST reads no configuration and reports nothing
    body = ["---", *kept, *["#"] * (count - 2 - len(kept))] + (["---"] if end is not None else ["#"] if count > 1 else [])
    ends_line = lines[count - 1] != lines[count - 1].rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
    key_lines = _key_lines("".join(lines[1 : end if end is not None else count]))
    located = [(key_lines.get(str(key), 1), str(key)) for key in refused]
    return "\n".join(body) + ("\n" if ends_line else "") + text[len(consumed) :], located


def _plain(key: str, value: object) -> str:
    if ALLOWED_KEYS[key] is int and isinstance(value, int) and not isinstance(value, bool):
        return str(max(0, min(value, 99)))
    if ALLOWED_KEYS[key] is int:
        return "2"
    return "true" if value else "false"


def _key_lines(yaml_text: str) -> dict[str, int]:
    """The 1-based page line of each top-level key of the front matter, as YAML places it (any style)."""
    import yaml

    try:
        node = yaml.compose(yaml_text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(key.value): key.start_mark.line + 2 for key, _ in node.value if isinstance(key, yaml.ScalarNode)}


def _original_path(app: Sphinx, docname: str) -> str:
    """The file to name in a warning: a lab page's own file in ``labs/``, else the page Sphinx reads."""
    from infralens.sphinx.lab_policy import lab_file

    original = lab_file(app.env, docname)
    return str(original) if original is not None else str(app.env.doc2path(docname))

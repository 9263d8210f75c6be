"""The one way a string gets into MyST the extension writes: escaped, or checked against an allow-list.

Generated pages (:mod:`.pages`, :mod:`.history`) are MyST text built from values the extension did
not write: concept titles, lab headings, release names and diff lines of ``reports/history.json``,
names from an upstream wheel. Each goes through one of these helpers, chosen by where it stands:

- :func:`text`: prose after other text on its line, a heading, a table cell. Every character that can
  begin inline markup is backslash-escaped (CommonMark reads each as itself), line breaks become
  spaces and other control characters visible escapes, so the value is one line of plain text.
- :func:`code`: an inline code span whose backtick fence is longer than any run inside.
- :func:`fenced`: a fenced block (``diff``, ``python``, ``{raw} html``) whose fence is longer than any
  run of backticks inside, its lines kept to single lines.
- :func:`doc_link`: a ``{doc}`` role; a label that a role cannot hold (a backtick, ``<``, ``>``) is
  left out, so Sphinx shows the page's own title.
- :func:`name`: a document name, directive argument or toctree entry, which cannot be escaped and
  so must match :data:`NAME` (:class:`UnsafeText` otherwise).
"""

from __future__ import annotations

import re
import unicodedata

from infralens.sphinx.notes import backtick_fence

NAME = re.compile(r"/?[A-Za-z0-9_.][A-Za-z0-9_.+/-]{0,300}")
"""Document names, directive arguments, toctree entries: letters, digits and ``_ . + / -`` only."""
_MARKUP = re.compile(r"([\\`*_\[\]<>{}!&$|~#])")
"""Characters that can begin inline markup anywhere in a line (a value never starts a line, so ``-``, ``+``,
``=``, ``%``, ``:`` and ``1.`` cannot start a block). CommonMark reads a backslash before any of them as the character."""
_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
_LABEL_REFUSED = re.compile(r"[`<>]")


class UnsafeText(ValueError):
    """A value that must be written as it is (a name) holds characters outside the allow-list."""


def one_line(value: str) -> str:
    """``value`` with each line break a space and each other control or format character shown as ``\\uXXXX``."""
    out = []
    for char in value:
        if char in _BREAKS:
            out.append(" ")
        elif char != "\t" and unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


def text(value: object) -> str:
    """``value`` as one line of MyST prose that renders as exactly its characters (no markup, no role, no math)."""
    return _MARKUP.sub(r"\\\1", one_line(str(value)))


def code(value: object) -> str:
    """``value`` as one inline code span, on one line, fenced longer than any backtick run inside."""
    inner = one_line(str(value))
    fence = backtick_fence(inner, shortest=1)
    if inner.startswith("`") or inner.endswith("`") or (inner.startswith(" ") and inner.endswith(" ")) or not inner.strip():
        inner = f" {inner} "  # CommonMark strips one space from each end, so a backtick at an end stays content
    return f"{fence}{inner}{fence}"


def fenced(info: str, lines: list[str], indent: str = "") -> list[str]:
    """A fenced block of ``lines`` (each kept to one line), its fence longer than any backtick run inside."""
    body = [one_line(line) for line in lines]
    fence = backtick_fence(*body, shortest=3)
    return [f"{indent}{fence}{info}", *(f"{indent}{line}" if line else "" for line in body), f"{indent}{fence}"]


def name(value: str) -> str:
    """``value`` unchanged when it matches :data:`NAME`; :class:`UnsafeText` otherwise."""
    if not NAME.fullmatch(value):
        raise UnsafeText(f"{value!r} cannot stand in a generated page (only letters, digits and _ . + / - are allowed)")
    return value


def doc_link(label: str, target: str) -> str:
    """A ``{doc}`` role to ``target``; ``label`` is left out (Sphinx then shows the page's title) when a role cannot hold it.

    ``target`` is built from checked names (and ``infralens_generated_dir``); one a role cannot hold is :class:`UnsafeText`.
    """
    if _LABEL_REFUSED.search(target) or one_line(target) != target or not target.strip():
        raise UnsafeText(f"{target!r} cannot be the target of a link in a generated page")
    shown = one_line(label).strip()
    if not shown or _LABEL_REFUSED.search(shown) or shown.endswith("\\"):
        return f"{{doc}}`{target}`"
    return f"{{doc}}`{shown} <{target}>`"

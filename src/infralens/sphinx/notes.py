"""Turn notes' MyST Markdown into docutils nodes, safely.

What a note may contain is :mod:`.note_policy`'s to decide: raw HTML,
``{eval-rst}``, file-inserting directives, images and links with schemes other
than ``http``, ``https`` and ``mailto`` are refused with an ``infralens.note``
warning at the note's annotation file and line, and left out of the page; so is
a note nested too deeply to parse. Formulas become
:class:`~infralens.sphinx.nodes.infralens_math` so they render as MathML.

All notes of one function are parsed in one MyST render (each inside its own
fenced container), because a render has a fixed cost that dominated the build;
the result is memoised for the build (in its :mod:`.state`), so a function shown
on several pages is parsed once (each page gets a deep copy, and the warnings again).
"""

from __future__ import annotations

import copy
import io
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from docutils import nodes
from docutils.utils import new_document

from infralens.sphinx import nodes as il_nodes
from infralens.sphinx.note_policy import NoteRenderer, accept_every_link, scrub
from infralens.sphinx.state import memo
from infralens.sphinx.warnings import Subtype, warn

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_MARK = "infralens-note-"

Location = tuple[str, int]
"""A note's annotation file and line, where its warnings point."""


@dataclass(frozen=True)
class _Problem:
    """A warning found while parsing, kept with the memoised result so each page emits it again."""

    message: str
    subtype: Subtype
    location: Location


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = MdParserConfig(enable_extensions={"dollarmath"})
    markdown = create_md_parser(config, NoteRenderer)
    # Every link becomes a link token, so the renderer refuses a bad one by name instead of leaving its text.
    markdown.validateLink = accept_every_link  # type: ignore[method-assign]  # markdown-it's documented hook
    return markdown


NOTES_MEMO = "notes"
"""The build's memo table (:mod:`.state`): (texts, locations) → the parsed bodies and the problems found."""
_MEMO_LIMIT = 2048


def parse_notes(texts: list[str], document: nodes.document, locations: list[Location]) -> list[list[nodes.Node]]:
    """Each note's block nodes, parsed in a sandbox document that shares the page's settings."""
    if not texts:
        return []
    env = getattr(document.settings, "env", None)
    table: dict[tuple[tuple[str, ...], tuple[Location, ...]], tuple[list[list[nodes.Node]], list[_Problem]]] = memo(env, NOTES_MEMO) if env is not None else {}
    key = (tuple(texts), tuple(locations))
    if key not in table:
        if len(table) >= _MEMO_LIMIT:
            table.clear()
        problems: list[_Problem] = []
        table[key] = (_parse(texts, document, locations, problems), problems)
    parsed, problems = table[key]
    for problem in problems:
        warn(problem.message, problem.subtype, problem.location)
    return [[node.deepcopy() for node in body] for body in parsed]


def _parse(texts: list[str], document: nodes.document, locations: list[Location], problems: list[_Problem]) -> list[list[nodes.Node]]:
    """Render ``texts`` together; when that recurses too deeply, each alone, refusing the ones that still do."""
    found: list[_Problem] = []
    try:
        parsed = _render(texts, document, locations, found)
    except RecursionError:
        if len(texts) == 1:
            problems.append(_Problem("the note nests markup too deeply to be read and is left out of the page", Subtype.NOTE, locations[0]))
            return [[]]
        return [body for text, location in zip(texts, locations, strict=True) for body in _parse([text], document, [location], problems)]
    problems.extend(found)
    return parsed


def backtick_fence(*texts: str, shortest: int) -> str:
    """A run of backticks longer than any inside *texts* (and at least *shortest*): it fences them whole."""
    return "`" * max(shortest, 1 + max((len(run) for text in texts for run in re.findall(r"`+", text)), default=0))


def _render(texts: list[str], document: nodes.document, locations: list[Location], problems: list[_Problem]) -> list[list[nodes.Node]]:
    settings = copy.copy(document.settings)
    settings.file_insertion_enabled = False
    settings.raw_enabled = False
    settings.warning_stream = io.StringIO()  # problems are re-emitted below as infralens warnings
    sandbox = new_document(locations[0][0], settings)
    fence = backtick_fence(*texts, shortest=4)
    source = "\n".join(f"{fence}{{container}} {_MARK}{n}\n{text.strip()}\n{fence}\n" for n, text in enumerate(texts))
    markdown = _parser()
    markdown.options["document"] = sandbox
    try:
        markdown.render(source)
    finally:
        markdown.options.pop("document", None)  # the shared parser keeps no page (nor, through its settings, a build's env)
    parsed: list[list[nodes.Node]] = [[] for _ in texts]
    for child in list(sandbox.children):
        if not isinstance(child, nodes.container) or (index := _note_index(child)) is None:
            continue
        _sanitise(child, locations[index], problems)
        _place(child, locations[index])
        parsed[index] = list(child.children)
        for node in parsed[index]:
            node.parent = None
    return parsed


def _place(root: nodes.Element, location: Location) -> None:
    """Point every node at its own note's file and line, so Sphinx's later warnings (an unknown
    ``{ref}`` target, say) name that note rather than the first note of the render."""
    for node in root.findall(nodes.Element):
        node.source, node.line = location


def _note_index(node: nodes.container) -> int | None:
    css: str
    for css in node["classes"]:
        if css.startswith(_MARK) and css[len(_MARK) :].isdigit():
            return int(css[len(_MARK) :])
    return None


def _sanitise(root: nodes.Element, location: Location, problems: list[_Problem]) -> None:
    problems.extend(_Problem(reason, Subtype.NOTE, location) for reason in scrub(root))
    for message in list(root.findall(nodes.system_message)):
        if message.get("level", 0) >= 2:
            first = message.children[0].astext().strip() if message.children else message.astext().strip()
            problems.append(_Problem(f"note: {first} (the construct is left out of the page)", Subtype.NOTE, location))
        message.parent.remove(message)
    for math in list(root.findall(nodes.math)):
        math.replace_self(il_nodes.infralens_math(math.astext(), latex=math.astext(), display=False))
    for block in list(root.findall(nodes.math_block)):
        block.replace_self(il_nodes.infralens_math(block.astext(), latex=block.astext(), display=True))

"""MyST text that reaches this app's parser by any way in cannot configure MyST: a parser and an ``include``, per app.

:mod:`.page_config` cleans every page on ``source-read``. Text can also be parsed as MyST without that event: an
reStructuredText ``include`` with ``:parser: myst_parser.sphinx_`` (or ``myst_parser.docutils_``) hands a file
straight to MyST's parser, which merges its front matter into the configuration. Both gaps are closed with
Sphinx's own registries, so only the app that set up ``infralens.sphinx`` changes:

- :class:`GuardedMystParser` replaces MyST's parser for ``markdown`` in this app
  (``app.add_source_parser(..., override=True)``): it reduces a front matter to the allowed keys before MyST
  reads it, whatever ran before it;
- :class:`GuardedInclude` is this app's ``include``: registered in the app's standard domain
  (``app.add_directive_to_domain("std", ...)``), which Sphinx looks in before docutils' process-wide directive table
  for every document this app parses (reStructuredText, MyST's ``{eval-rst}``). A file handed to a MyST parser is
  reduced the same way first.

MyST's functions, classes and modules are left as they are: another Sphinx app in the same process, or a plain
docutils run, parses front matter exactly as MyST documents it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from myst_parser.parsers.docutils_ import Parser as DocutilsMystParser
from myst_parser.parsers.sphinx_ import MystParser
from sphinx.directives.other import Include

from infralens.sphinx.page_config import clean_front_matter

if TYPE_CHECKING:
    from collections.abc import Sequence

    from docutils import nodes


def refuse_page_config(text: str, document: nodes.document, *, note_in_document: bool = True) -> str:
    """``text`` with its front matter reduced to the allowed keys; a MyST warning at line 1 names the keys refused.

    The warning is also kept in ``document`` as MyST keeps its own, unless ``note_in_document`` is false (an
    included file's warning belongs to the page that includes it, not at the end of it).
    """
    from myst_parser.warnings_ import MystWarnings, create_warning

    cleaned, refused = clean_front_matter(text)
    if refused:
        keys = ", ".join(key for _line, key in refused)
        create_warning(
            document,
            f"page configuration refused ({keys}): only conf.py configures MyST [infralens.page-config]",
            MystWarnings.MD_TOPMATTER,
            line=1,
            append_to=document if note_in_document else None,
        )
    return cleaned


class GuardedMystParser(MystParser):
    """MyST's Sphinx parser, reading a front matter only for the keys a page may set."""

    def parse(self, inputstring: str, document: nodes.document) -> None:
        super().parse(refuse_page_config(inputstring, document), document)


class GuardedInclude(Include):
    """Sphinx's ``include``; a file it hands to a MyST parser (``:parser:``) has its front matter reduced first."""

    def run(self) -> Sequence[nodes.Node]:
        self.name = self.name.removeprefix("std:")  # Sphinx names a domain's directive "std:include"; messages say "include"
        return super().run()

    def custom_parse(self, text: str) -> list[nodes.Node]:
        parser = self.options.get("parser")
        if isinstance(parser, type) and issubclass(parser, MystParser | DocutilsMystParser):
            text = refuse_page_config(text, self.state.document, note_in_document=False)
        return super().custom_parse(text)

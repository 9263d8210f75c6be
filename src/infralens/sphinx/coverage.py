"""A small Sphinx extension: ``extensions = [..., "infralens.sphinx.coverage"]``.

It adds one directive that embeds the coverage map of a scenario, drawn at build time (with
``infralens.sphinx`` generating pages, each annotated function in it links to its page)
from committed JSON (``infralens coverage SCENARIO --json reports/coverage-SCENARIO.json``)::

    ```{infralens-coverage} tiny-sd-ddim
    ```

Options: ``:file:`` a JSON path (relative to the page, or to the source folder when it starts
with ``/``), instead of ``<infralens_coverage_dir>/coverage-<scenario>.json``; ``:title:``.
The directory defaults to ``infralens_reports_dir`` when the main extension defines it, else
``../reports`` (relative to the Sphinx source folder). A missing or unreadable file is a
warning (subtype ``infralens.coverage``) naming the file and the command that creates it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri

from infralens import __version__
from infralens.errors import InfralensError
from infralens.maintainer import read_json, render_html

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata, OptionSpec

logger = logging.getLogger("infralens.sphinx.coverage")


class CoverageDirective(SphinxDirective):
    """``{infralens-coverage} SCENARIO``: icicle chart, collapsible call tree and table of annotated functions."""

    required_arguments = 1
    has_content = False
    option_spec: ClassVar[OptionSpec] = {"file": directives.unchanged_required, "title": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        scenario = self.arguments[0]
        path = self._data_path(scenario)
        self.env.note_dependency(str(path))
        try:
            coverage = read_json(path)
        except InfralensError as error:
            logger.warning(f"{error}", type="infralens", subtype="coverage", location=self.get_location())
            return [nodes.paragraph(text=f"No coverage data for {scenario}: {path.name} is missing or unreadable.")]
        if coverage.scenario != scenario:
            logger.warning(f"{path} holds scenario {coverage.scenario!r}, not {scenario!r}", type="infralens", subtype="coverage", location=self.get_location())
        return [nodes.raw("", render_html(coverage, title=self.options.get("title"), links=self._links()), format="html")]

    def _links(self) -> dict[tuple[str, str, str], str]:
        """Where each annotated function's page is, relative to this page (none without the main extension's pages)."""
        from infralens.sphinx.catalog import catalog_for
        from infralens.sphinx.pages import function_docname

        try:
            catalog = catalog_for(self.env)
        except InfralensError:
            return {}
        if not catalog.settings.generate_pages:
            return {}
        suffix = self.config.html_file_suffix or ".html"
        here = self.env.docname + suffix
        found = {}
        for function in catalog.functions.values():
            key = (function.distribution, function.source.relpath, function.qualname)
            found[key] = relative_uri(here, function_docname(catalog.settings, function) + suffix)
        return found

    def _data_path(self, scenario: str) -> Path:
        if "file" in self.options:
            _relative, absolute = self.env.relfn2path(self.options["file"], self.env.docname)
            return Path(absolute)
        config = self.env.config
        folder = config.infralens_coverage_dir or getattr(config, "infralens_reports_dir", None) or "../reports"
        return (Path(self.env.srcdir) / folder / f"coverage-{scenario}.json").resolve()


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_config_value("infralens_coverage_dir", None, "env", types=frozenset({str, type(None)}))
    app.add_directive("infralens-coverage", CoverageDirective, override=True)
    return {"version": __version__, "env_version": 1, "parallel_read_safe": True, "parallel_write_safe": True}

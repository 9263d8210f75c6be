"""Maintainer tools: scaffold annotations, map what a scenario runs, preview one page.

* :mod:`.scaffold` turns a target or a line range into planned steps with selectors
  (never line numbers); :mod:`.scaffold_yaml` writes them as annotation YAML text.
* :mod:`.coverage` records the upstream calls a scenario makes and marks annotated
  functions; :mod:`.coverage_render` draws that as static HTML/SVG.
* :mod:`.preview` builds a one-page Sphinx site for a target or a lab.
* :mod:`.actions` is what ``infralens add``, ``infralens coverage`` and ``infralens preview`` do;
  :mod:`.cli` only registers and parses them.

May import: :mod:`infralens.verify` (coverage runs scenarios through it), :mod:`infralens.resolve`,
:mod:`infralens.source`, :mod:`infralens.annotations`, :mod:`infralens.project`, :mod:`infralens.tiny`,
:mod:`infralens.commands`, :mod:`infralens.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .coverage_format import read_json as read_json
    from .coverage_render import render_html as render_html

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "read_json": "coverage_format",
        "render_html": "coverage_render",
    },
)

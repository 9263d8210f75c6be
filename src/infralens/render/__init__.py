"""What both the terminal and the site show: a function's code with the notes laid beside it.

:mod:`.view` builds a :class:`FunctionView` (lines, which notes sit where); :mod:`.layout` groups its
lines into annotated clusters and folded plain stretches (:class:`Segment`); :mod:`.terminal` draws it
with pygments for ``infralens show``. The Sphinx extension draws the same view, segment by segment, as HTML.
May import: :mod:`infralens.annotations`, :mod:`infralens.source`, :mod:`infralens.resolve`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .layout import Segment as Segment, segments as segments
    from .terminal import render as render
    from .view import FunctionView as FunctionView, NoteView as NoteView, function_view as function_view

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "FunctionView": "view",
        "NoteView": "view",
        "function_view": "view",
        "render": "terminal",
        "Segment": "layout",
        "segments": "layout",
    },
)

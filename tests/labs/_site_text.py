"""The text a learner sees on a built lab page without opening anything, for the "answers stay hidden" tests.

From the page's ``<article>`` this drops what is folded or not lesson text:

- every ``<details>`` element: the exercises' and checkpoints' ``Answers`` folds, the folded unannotated code and
  the notes' folded observed values, all closed until clicked;
- tooltips (``role="tooltip"``), shown only on hover or focus;
- the upstream source itself (``.il-code`` blocks, with their line numbers): the code an exercise asks the learner
  to read, whose ``raise ValueError`` or default ``0.18215`` is the material, not a printed answer;
- the tool's own labels: verification badges and tallies (``cpu: 7/12 checked``), the release history cells, the
  file and line-range line above each function, a note's line label (``line 48``), permalinks and MathML's TeX
  annotations.

Everything else stays: the page's prose, the notes beside the code, tables (the cost tables included) and
figures' text. Block elements and MathML tokens are separated by whitespace, every run of whitespace becomes one
space, a typographic minus is read as ``-``, and a minus before a number joins it (``<mo>−</mo><mn>332</mn>`` reads
``-332``).
"""

from __future__ import annotations

import re
from pathlib import Path

from bs4 import BeautifulSoup

DROPPED_TAGS = ("details", "script", "style", "annotation", "annotation-xml")
DROPPED_CLASSES = ("il-code", "il-ln", "il-badges", "il-badge", "il-history", "il-meta", "il-note-lines", "il-permalink", "headerlink")
_BLOCKS = (
    "p",
    "li",
    "div",
    "pre",
    "td",
    "th",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "summary",
    "dt",
    "dd",
    "br",
    "aside",
    "section",
    "table",
    "figure",
    "figcaption",
    "caption",
)
_MATH_TOKENS = ("mi", "mn", "mo", "mtext", "ms")


def lab_page(site: Path, lab: str) -> Path:
    return site / "_infralens" / "labs" / f"lab-{lab}" / "index.html"


def visible_text(html: str) -> str:
    """The text of a built page's article a learner reads without a click (see the module docstring)."""
    article = BeautifulSoup(html, "html.parser").find("article")
    assert article is not None, "the page has no <article>"
    for tag in article.find_all(True):
        if not tag.decomposed and (tag.name in DROPPED_TAGS or tag.get("role") == "tooltip" or set(tag.get("class") or ()) & set(DROPPED_CLASSES)):
            tag.decompose()
    for tag in article.find_all(_MATH_TOKENS):
        tag.insert_before(" ")
        tag.insert_after(" ")
    for tag in article.find_all(_BLOCKS):
        tag.append("\n")
    text = " ".join(article.get_text("").replace("\N{MINUS SIGN}", "-").split())
    return re.sub(r"(?<![\w.)])- (?=\d)", "-", text)  # "− 332" in MathML is the number -332

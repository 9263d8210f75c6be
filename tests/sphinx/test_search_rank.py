"""How strongly a lab page teaches each word: weighted by where the word stands, scored by rarity, written for the search page."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

from docutils import nodes
from sphinx.search.en import SearchEnglish
from sphinx.testing.util import SphinxTestApp

from infralens.sphinx import nodes as il
from infralens.sphinx.search_rank import EMPHASIS, HEADING, NOTE, PROSE, TITLE, lab_words, scores, words_of

ENGLISH = SearchEnglish({})


def _page() -> nodes.document:
    """A lab page: title, a section with prose, bold, inline code, a code block, math and a note beside annotated code."""
    document = nodes.document(None, None)
    top = nodes.section()
    top += nodes.title("", "Blending lab")
    top += nodes.paragraph(
        "", "", nodes.Text("The decoder tiles. "), nodes.strong("", "Seams"), nodes.Text(" fade "), nodes.literal("", "use_dynamic_shifting")
    )
    top += nodes.literal_block("", "hidden = compute()")
    top += nodes.math_block("", "\\sigma_{secret}")
    section = nodes.section()
    section += nodes.title("", "Crossfade")
    note = il.infralens_note()
    note += nodes.paragraph("", "overlap")
    section += note
    section += il.infralens_html(html="<span>codeword</span>")
    top += section
    document += top
    return document


def test_a_word_counts_by_where_it_stands_and_code_and_math_do_not_count() -> None:
    counts = lab_words(_page(), ENGLISH)
    stem = ENGLISH.stem
    assert counts[stem("blending")] == TITLE  # the page title
    assert counts[stem("crossfade")] == HEADING and counts[stem("tiles")] == PROSE
    assert counts[stem("seams")] == PROSE * EMPHASIS and counts[stem("overlap")] == NOTE
    assert counts[stem("dynamic")] == PROSE and counts[stem("shifting")] == PROSE  # an identifier counts as its parts too
    assert "use_dynamic_shift" in counts
    assert not {"hidden", "comput", "secret", "sigma", "codeword"} & set(counts)


def test_identifiers_split_at_underscores_and_capitals() -> None:
    assert words_of("DPMSolverMultistepScheduler", ENGLISH, identifier=True) == ["dpmsolvermultistepschedul", "dpm", "solver", "multistep", "schedul"]
    assert words_of("DPMSolverMultistepScheduler", ENGLISH) == ["dpmsolvermultistepschedul"]


def test_a_word_that_few_labs_use_scores_higher_and_more_uses_saturate() -> None:
    found = scores({"lab-a": {"offload": 1.0, "model": 1.0}, "lab-b": {"model": 1.0, "offload": 9.0}, "lab-c": {"model": 30.0}})
    by_lab = {stem: dict(entries) for stem, entries in found.items()}
    assert by_lab["offload"][1] > by_lab["offload"][0]  # used more
    assert by_lab["offload"][1] < 9 * by_lab["offload"][0]  # but not nine times as much
    assert by_lab["offload"][0] > by_lab["model"].get(0, 0.0)  # "model" is on every lab page: it tells them apart less


def test_the_search_page_gets_the_lab_words_escaped_and_only_it_loads_them(fresh_root) -> None:
    root = fresh_root()
    page = root / "labs" / "lab-01-toy" / "index.md"
    page.write_text(page.read_text("utf-8") + "\nThe `</script><b>` identifier and crossfading tiles.\n", "utf-8")
    app = SphinxTestApp("html", srcdir=root, warning=StringIO())
    app.build()
    app.cleanup()
    out = Path(app.outdir)
    text = (out / "_static" / "infralens-lab-words.js").read_text("utf-8")
    assert text.startswith("window.INFRALENS_LAB_WORDS = ") and "<" not in text
    data = json.loads(text.removeprefix("window.INFRALENS_LAB_WORDS = ").rstrip(";\n"))
    assert data["labs"] == ["_infralens/labs/lab-01-toy/index"] and "crossfad" in data["words"]
    assert re.search(r'<script defer="defer" src="_static/infralens-search-rank\.js', (out / "search.html").read_text("utf-8"))
    assert "infralens-search-rank.js" not in (out / "index.html").read_text("utf-8")

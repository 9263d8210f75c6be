"""No exercise answer is printed on its built lab page outside a fold: the HTML a learner reads, with the notes
beside the code, the cost tables and every other generated part, not only the page's Markdown source
(``test_answers_hidden.py`` checks that). What counts as visible is in ``_site_text.py``.

An answer is searched for as ``leaked`` writes it (``_answers.py``); a share also as the percentage a table
prints. Cost exercises are checked apart, as expected failures, while they are rewritten (issue 40 item 3).
"""

from __future__ import annotations

import functools

import pytest
from _answers import leaked
from _site_text import lab_page, visible_text
from _starters import load_starter
from solutions import SOLUTIONS
from test_answers_hidden import PAGE_VOCABULARY

from infralens.tiny.labkit import Decimals

LABS = tuple(SOLUTIONS)
COST = "cost_"
# Text on a page that contains an answer's value without stating the answer: another quantity that happens to
# be equal. Each snippet is removed before the search; keep them whole sentences' parts, so a real leak next to
# one is still found.
COINCIDENCES: dict[str, tuple[str, ...]] = {
    "08-unet-dit-conditioning": (
        "SD 1 + 3 · ( 2 + 1 ) + 2 = 12",  # SD's skip residuals, not the tiny UNet's 12 attention processors
        "half_dim is 160 or 16",  # 16 is the tiny models' size all over the page, never the DiT's token count
        "(16×24 here",
        "grid (16 in the tiny model",
        "16 channels, tokens row by row",
    ),
    "11-memory-optimization": ("4096 queries and 4096 keys",),  # SD 1.5's tokens at 512×512, not the tiny score tensor's KiB
    "14-sdxl": ("an fp32 absmax per block of 64",),  # NF4's block size in the cost page's format rules, not the tiny text width
    "17-offload-caching": ("dips to about 0.18 near 0.05",),  # a point of TeaCache's polynomial, not FBC's threshold
    # Llama-3.1-70B's decode bound at 1 × 131,072 tokens on the slowest card (the decode view's table and figure), not
    # the 18 tokens top-k then top-p keep.
    "19-generation-loop": ("2.65 ≤ 18 ≤ 26", "24 22 18 334"),
}


@functools.cache
def _visible(site, lab: str) -> str:
    """The page's visible text less its known coincidences; parsed once per page (the answer and cost tests share it)."""
    text = visible_text(lab_page(site, lab).read_text("utf-8"))
    for snippet in COINCIDENCES.get(lab, ()):
        assert snippet in text, f"{lab}: the coincidence {snippet!r} is no longer on the page: remove it from COINCIDENCES"
        text = text.replace(snippet, " ")
    return text


def _percentages(lab: str) -> dict[str, list[str]]:
    """A share's answer as a table prints it: 0.4911 as "49%" and "49.1%"."""
    precision = getattr(load_starter(lab), "PRECISION", {})
    shares = {key: value for key, value in SOLUTIONS[lab].items() if isinstance(precision.get(key), Decimals) and precision[key].share}
    return {key: [f"{value * 100:.0f}%", f"{value * 100:.1f}%"] for key, value in shares.items()}


def _leaks(site, lab: str, cost: bool) -> dict[str, str]:
    printed = {key: repr(value) for key, value in SOLUTIONS[lab].items() if key.startswith(COST) == cost}
    return leaked(_visible(site, lab), printed, frozenset(PAGE_VOCABULARY.get(lab, ())), _percentages(lab))


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_built_page_states_no_answer_outside_its_folds(docs_site, lab):
    found = _leaks(docs_site, lab, cost=False)
    assert not found, f"{lab}: the built page states these answers outside its folds: {found}"


@pytest.mark.slow
@pytest.mark.parametrize("lab", [lab for lab in LABS if any(key.startswith(COST) for key in SOLUTIONS[lab])])
def test_built_page_states_no_cost_answer_outside_its_folds(docs_site, lab):
    found = _leaks(docs_site, lab, cost=True)
    assert not found, f"{lab}: the built page states these cost answers outside its folds: {found}"


def test_visible_text_leaves_out_folds_tooltips_and_code_but_keeps_notes_and_tables():
    html = """<html><body><nav>354</nav><article>
      <p>Prose 0.99915.</p><details><summary>Answers</summary><p>749</p></details>
      <div class="highlight il-code"><pre><span class="il-line"><a class="il-ln">12</a>raise ValueError</span></pre></div>
      <div class="il-note"><p>A note says <math><mn>1</mn><mo>−</mo><mn>333</mn><mo>=</mo><mo>−</mo><mn>332</mn></math>.</p></div>
      <span class="il-badge">cpu: 11/12 held<span class="il-badge-reason" role="tooltip">TypeError</span></span>
      <table><tr><td>6.24 GiB</td><td>49%</td><td>fits 80 GiB</td></tr></table><p>last</p><p>line</p>
    </article></body></html>"""
    text = visible_text(html)
    for shown in ("Prose 0.99915.", "-332", "6.24 GiB", "49%"):
        assert shown in text
    for hidden in ("749", "ValueError", "TypeError", "11/12", "354", "12"):
        assert hidden not in text
    assert "last line" in text  # block elements are separated: "last" and "line" stay two words
    printed = {"prev": "-332", "share": "0.4911", "cost_gib": "6.24", "width": "80"}  # a card's 80 GiB is no width of 80
    assert leaked(text, printed, also={"share": ["49%"]}) == {"prev": "-332", "share": "49%", "cost_gib": "6.24"}

"""Margin notes in a real browser: every word readable without a click, each note level with its line, none over another."""

from __future__ import annotations

from pathlib import Path

import pytest
from note_layout import NOTE_PLACES, NOTE_SCRIPTS, assert_notes_read_whole, lab_pages, settled, site_pages
from shipped import missing_shipped

WIDE = 1440
CFG_LAB = "_infralens/labs/lab-05-classifier-free-guidance/index.html"
CFG_LINE = "il-stablediffusionpipeline-do-classifier-free-guidance-L764"  # two notes share this line (guidance on / off)


def _visit(browser, url: str, width: int = WIDE):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(url)
    settled(page)
    return page


@pytest.mark.parametrize("kind", ["compare", "functions"])
def test_every_note_reads_whole_where_it_belongs_and_none_overlaps_at_1440(browser, docs_site: Path, serve, kind: str) -> None:
    """As ``note_layout.assert_notes_read_whole`` says, on the comparison pages and every sixth function page (all
    kinds of function); the lab pages are measured in ``test_browser_lab_pages.py``, with the other sweeps of them."""
    pages = {
        "compare": site_pages(docs_site, "compare", "*.html"),
        "functions": site_pages(docs_site, "source", "*/*.html")[::6],
    }[kind]
    assert pages
    base = serve(docs_site)
    page = browser.new_page(viewport={"width": WIDE, "height": 900})
    measured = {}
    for relative in pages:
        page.goto(f"{base}/{relative}")
        settled(page)
        measured[relative] = {name: page.evaluate(script) for name, script in NOTE_SCRIPTS.items()}
    page.close()
    assert_notes_read_whole(kind, measured)


def test_two_notes_on_one_line_stack_and_the_second_is_readable(browser, docs_site: Path, serve) -> None:
    """Lab 05's line 764 carries two notes (guidance on and off): both show whole, one under the other."""
    if not (docs_site / CFG_LAB).is_file():
        missing_shipped("lab 05 is not in this site")
    page = _visit(browser, f"{serve(docs_site)}/{CFG_LAB}")
    boxes = page.evaluate(
        "(anchor) => [...document.querySelectorAll(`.il-note[data-line-anchor='${anchor}']`)]"
        ".map(n => { const b = n.getBoundingClientRect(); return [b.top, b.bottom, n.scrollHeight - n.clientHeight]; })",
        CFG_LINE,
    )
    assert len(boxes) == 2
    (_, bottom_a, hidden_a), (top_b, _, hidden_b) = sorted(boxes)
    assert bottom_a <= top_b and hidden_a <= 1 and hidden_b <= 1
    page.close()


def test_a_long_note_shows_its_first_rows_and_the_rest_opens_under_it(browser, docs_site: Path, serve) -> None:
    """A note is folded only when it is over 12 rows; its button sits under the text (it covers no word), and opening
    it keeps every note level."""
    base = serve(docs_site)
    page = browser.new_page(viewport={"width": WIDE, "height": 900})
    found = None
    for relative in lab_pages(docs_site) + site_pages(docs_site, "source", "*/*.html"):
        page.goto(f"{base}/{relative}")
        settled(page)
        if page.locator(".il-note.il-folded").count():
            found = relative
            break
    if found is None:
        page.close()
        missing_shipped("no note on this site is over 12 rows at 1440 px")
    note_id = page.locator(".il-note.il-folded").first.get_attribute("id")
    note = page.locator(f"[id='{note_id}']")
    button = page.locator(f"[id='{note_id}'] + .il-more")
    assert button.bounding_box()["y"] >= note.bounding_box()["y"] + note.bounding_box()["height"]
    height = note.bounding_box()["height"]
    button.click()
    settled(page)
    assert "il-open" in (note.get_attribute("class") or "") and note.bounding_box()["height"] > height
    assert all(abs(place["offset"]) <= 24 for place in page.evaluate(NOTE_PLACES)["places"])
    page.close()


def test_a_notes_words_come_before_its_chips(browser, docs_site: Path, serve) -> None:
    """The first thing in a note is its text; the permalink, line numbers and chips follow it."""
    page = _visit(browser, f"{serve(docs_site)}/{lab_pages(docs_site)[1]}")
    firsts = page.evaluate("() => [...document.querySelectorAll('.il-note')].map(n => n.firstElementChild.className || n.firstElementChild.tagName)")
    assert firsts and not any("il-note-foot" in first for first in firsts)
    assert page.locator(".il-note > .il-note-foot").count() == len(firsts)
    page.close()


def test_show_all_observed_values_opens_them_where_they_are_seen(browser, docs_site: Path, serve) -> None:
    """The toggle opens every claim fold of its function, and each observed value is visible, not cut off by its note."""
    lab = "_infralens/labs/lab-02-denoising-step/index.html"
    if not (docs_site / lab).is_file():
        missing_shipped("lab 02 is not in this site")
    page = _visit(browser, f"{serve(docs_site)}/{lab}")
    function = page.locator(".infralens-function", has=page.locator(".il-observed-toggle")).first
    function.locator(".il-observed-toggle").click()
    settled(page)
    hidden = page.evaluate(
        """(fn) => [...fn.querySelectorAll('.il-observed')].filter(o => {
          const note = o.closest('.il-note'), a = o.getBoundingClientRect(), n = note.getBoundingClientRect();
          return !a.height || a.bottom > n.bottom + 1 || a.top < n.top - 1;
        }).length""",
        function.element_handle(),
    )
    assert function.locator(".il-observed").count() > 0 and hidden == 0
    assert all(abs(place["offset"]) <= 24 for place in page.evaluate(NOTE_PLACES)["places"])
    page.close()


def test_a_section_anchor_lands_on_its_heading_though_notes_above_it_grow(browser, docs_site: Path, serve) -> None:
    """Landing on a section's anchor, every note above it is placed first: the heading stays where the browser put it,
    right under the sticky header, instead of being pushed down by notes placed later."""
    lab = "_infralens/labs/lab-16-quantization/index.html"
    if not (docs_site / lab).is_file():
        missing_shipped("lab 16 is not in this site")
    page = _visit(browser, f"{serve(docs_site)}/{lab}#what-it-costs")
    last = None
    for _ in range(50):  # the theme scrolls to an anchor smoothly: wait until the page stops moving
        page.wait_for_timeout(200)
        now = page.evaluate("() => window.scrollY")
        if now == last:
            break
        last = now
    top = page.evaluate("() => document.getElementById('what-it-costs').getBoundingClientRect().top")
    header = page.evaluate(
        "() => { const h = document.querySelector('.mobile-header'); "
        "return h && getComputedStyle(h).display !== 'none' ? h.getBoundingClientRect().bottom : 0; }"
    )
    assert header - 24 <= top <= header + 80, (top, header)  # the heading's box may tuck a little under the header
    page.close()

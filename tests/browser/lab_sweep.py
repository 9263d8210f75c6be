"""Every lab page loaded once per window width for the tests that sweep all of them.

A lab page is a megabyte of annotated code; loading and laying it out is most of what a sweep costs. The fit, the
phone-lines, the contents and the margin-notes tests each read different figures of the same pages at the same
widths, so the pages are loaded once per width and every script a width needs runs on each of them (``SCRIPTS``).
At 1440 px the figures are read once the notes are placed (``note_layout.settled``), as a reader sees the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from note_layout import NOTE_SCRIPTS, lab_pages, settled

WRAPPED = """() => {
  const lines = [...document.querySelectorAll('.il-line')].filter(l => !l.closest('.infralens-compare') || innerWidth < 1440);
  const wrapped = lines.filter(l => l.getBoundingClientRect().height > parseFloat(getComputedStyle(l).lineHeight) * 1.5);
  const root = document.scrollingElement;
  return {lines: lines.length, wrapped: wrapped.length, longest_wrapped: Math.min(...wrapped.map(l => l.textContent.length), 999),
          sideways: root.scrollWidth > root.clientWidth + 1};
}"""
"""Code lines, wrapped lines (taller than 1.5 line heights) and the longest wrapped one; whether the page scrolls sideways."""

LINES_ON_A_PHONE = """() => {
  const lines = [...document.querySelectorAll('.il-line')];
  let wrapped = 0, lonely = 0;
  for (const line of lines) {
    const height = parseFloat(getComputedStyle(line).lineHeight);
    if (line.getBoundingClientRect().height > height * 1.5) wrapped += 1;
    const number = line.querySelector('.il-ln'), rest = number && number.nextSibling;
    if (rest) {
      const range = document.createRange(); range.setStartAfter(number); range.setEnd(line, line.childNodes.length);
      const first = [...range.getClientRects()].find(r => r.width > 0);
      if (first && first.top >= number.getBoundingClientRect().bottom - 1) lonely += 1;
    }
  }
  const clipped = [...document.querySelectorAll('.il-code pre')].filter(pre => {
    const style = getComputedStyle(pre);
    return pre.scrollWidth > pre.clientWidth + 1 && !['auto', 'scroll'].includes(style.overflowX);
  }).length;
  return {lines: lines.length, wrapped, lonely, clipped};
}"""
"""On a phone: wrapped lines, line numbers standing alone on their row, code blocks cut off without a scroll bar."""

CONTENTS = """() => ({
  drawn: [...document.querySelectorAll('article .infralens-function')].map(f => '#' + f.id),
  listed: [...document.querySelectorAll('.toc-tree li.il-toc-function > a')].map(a => a.getAttribute('href'))})"""
"""The functions a page draws and the functions its on-page contents list."""

SCRIPTS = {1440: {"wrapped": WRAPPED, "contents": CONTENTS, **NOTE_SCRIPTS}, 390: {"wrapped": WRAPPED, "phone": LINES_ON_A_PHONE}}
"""Window width -> the scripts run on every lab page at that width, by name."""

SETTLED = {1440}
"""The widths at which a page is measured only once its margin notes are placed."""


def sweep_lab_pages(browser: Any, site: Path, base: str, width: int) -> dict[str, dict[str, Any]]:
    """Lab page (relative to the site root) -> script name -> what the script returned, each page loaded once."""
    pages = lab_pages(site)
    assert pages, "the site has no lab page"
    page = browser.new_page(viewport={"width": width, "height": 900})
    measured = {}
    for relative in pages:
        page.goto(f"{base}/{relative}")
        if width in SETTLED:
            settled(page)
        measured[relative] = {name: page.evaluate(script) for name, script in SCRIPTS[width].items()}
    page.close()
    return measured

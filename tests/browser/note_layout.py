"""What a reader sees of the margin notes, measured in the page: shared by the browser tests and the layout benchmark.

``NOTE_PLACES`` gives, for every shown note, how far it starts from where it belongs: beside the code, the top of its
first line; in a comparison column (notes under the code), the bottom of its statement's last line; a note stacked
under another note on the same line, the bottom of the one above it (with its "show the rest" button). It also
counts the pairs of notes in one column drawn over each other.

``NOTE_TEXT`` counts the characters of the notes' words and of those a reader sees without a click: a word is seen
when its box lies inside the note's visible box, and not under a button or another note. Text in closed folds
(the claims) and in chip tooltips is not counted: a reader opens those on purpose.
"""

from __future__ import annotations

from pathlib import Path

NOTE_PLACES = r"""() => {
  const shown = [...document.querySelectorAll('.il-note')].filter(n => n.offsetParent !== null);
  const cells = new Map();
  for (const note of shown) {
    if (!cells.has(note.parentElement)) cells.set(note.parentElement, []);
    cells.get(note.parentElement).push(note);
  }
  const places = [];
  let overlaps = 0;
  for (const notes of cells.values()) {
    const fn = notes[0].closest('.infralens-function');
    const inline = getComputedStyle(notes[0].closest('.il-block')).getPropertyValue('--il-notes').trim() === 'inline';
    const items = notes.map(note => {
      const prefix = note.dataset.lineAnchor.replace(/-L\d+$/, '-L');
      const line = document.getElementById(inline ? prefix + note.dataset.lastLine : note.dataset.lineAnchor);
      const more = note.nextElementSibling && note.nextElementSibling.classList.contains('il-more') &&
        !note.nextElementSibling.hidden ? note.nextElementSibling : null;
      const box = note.getBoundingClientRect();
      return {note, line, box, bottom: more ? more.getBoundingClientRect().bottom : box.bottom};
    }).sort((a, b) => a.box.top - b.box.top);
    items.forEach((item, i) => {
      const lineBox = item.line.getBoundingClientRect();
      const above = items.slice(0, i).filter(other => other.line === item.line);
      const anchor = above.length ? Math.max(...above.map(other => other.bottom)) : inline ? lineBox.bottom : lineBox.top;
      places.push({id: item.note.id, offset: Math.round(item.box.top - anchor), stacked: above.length > 0, mode: inline ? 'inline' : 'beside'});
      for (const other of items.slice(i + 1)) if (Math.min(item.box.bottom, other.box.bottom) - Math.max(item.box.top, other.box.top) > 1) overlaps += 1;
    });
  }
  return {places, overlaps};
}"""

NOTE_TEXT = r"""() => {
  const notes = [...document.querySelectorAll('.il-note')].filter(n => n.offsetParent !== null);
  const boxes = notes.map(n => n.getBoundingClientRect());
  const buttons = [...document.querySelectorAll('.il-more')].filter(b => !b.hidden && b.offsetParent !== null).map(b => b.getBoundingClientRect());
  let total = 0, seen = 0, whole = 0;
  const partial = [];
  notes.forEach((note, i) => {
    const clip = getComputedStyle(note).overflowY !== 'visible' ? boxes[i] : null;
    const covers = [...buttons, ...boxes.filter((other, j) => j > i && notes[j].parentElement === note.parentElement)];
    const walker = document.createTreeWalker(note, NodeFilter.SHOW_TEXT, {acceptNode: (t) => {
      const el = t.parentElement;
      if (el.closest('.il-badge-reason, script, style')) return NodeFilter.FILTER_REJECT;
      const fold = el.closest('details');
      return fold && !fold.open && !el.closest('summary') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
    }});
    let mine = 0, mineSeen = 0;
    const range = document.createRange();
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      for (const m of t.data.matchAll(/\S+/g)) {
        range.setStart(t, m.index); range.setEnd(t, m.index + m[0].length);
        const r = range.getBoundingClientRect();
        if (!r.width && !r.height) continue;
        mine += m[0].length;
        const inside = !clip || (r.top >= clip.top - 1 && r.bottom <= clip.bottom + 1);
        const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
        if (inside && !covers.some(c => x >= c.left && x <= c.right && y >= c.top && y <= c.bottom)) mineSeen += m[0].length;
      }
    }
    total += mine; seen += mineSeen;
    if (mineSeen >= mine) whole += 1; else partial.push(note.id);
  });
  return {notes: notes.length, total, seen, whole, partial};
}"""


def settled(page, timeout: int = 15_000) -> None:
    """Wait until every note is placed: the fonts are in, the page says so (``il-notes-placed``), and a frame passed."""
    page.evaluate("() => document.fonts.ready")
    page.wait_for_function("() => document.documentElement.classList.contains('il-notes-placed') || !document.querySelector('.il-note')", timeout=timeout)
    page.wait_for_timeout(50)


def site_pages(site: Path, folder: str, pattern: str) -> list[str]:
    """The built pages under ``_infralens/FOLDER`` matching *pattern*, relative to the site root."""
    return sorted(p.relative_to(site).as_posix() for p in (site / "_infralens" / folder).glob(pattern))


def lab_pages(site: Path) -> list[str]:
    return site_pages(site, "labs", "lab-*/index.html")


FOLDED = (
    """() => [...document.querySelectorAll('.il-note.il-folded')].map(n => n.getBoundingClientRect().height / parseFloat(getComputedStyle(n).lineHeight))"""
)
"""The height of every folded note, in rows of its text."""

NOTE_SCRIPTS = {"places": NOTE_PLACES, "text": NOTE_TEXT, "folded": FOLDED}
"""What :func:`assert_notes_read_whole` reads of each page, by name (run once the notes are :func:`settled`)."""


def assert_notes_read_whole(kind: str, measured: dict[str, dict]) -> None:
    """Beside the code a note starts within 24 px of its line's top; in a comparison column right under its statement;
    a second note on the same line right under the first. No two notes are drawn over each other. At least 95% of
    the notes' text shows without a click, and a folded note (one over 12 rows) still shows its first 12 rows.

    *measured*: page -> the results of :data:`NOTE_SCRIPTS` on it, at 1440 px."""
    assert measured, f"{kind}: no page measured"
    off: list[dict] = []
    overlaps = notes = total = seen = 0
    for relative, figures in measured.items():
        places = figures["places"]
        notes += len(places["places"])
        overlaps += places["overlaps"]
        off += [{**place, "page": relative} for place in places["places"] if abs(place["offset"]) > 24]
        total, seen = total + figures["text"]["total"], seen + figures["text"]["seen"]
        assert all(rows >= 11.5 for rows in figures["folded"]), (relative, figures["folded"])
    assert notes and total
    assert seen / total >= 0.95, f"{kind}: only {seen / total:.1%} of the notes' text shows without a click"
    assert off == [], f"{kind}: {len(off)} of {notes} notes start more than 24 px from where they belong, e.g. {off[:3]}"
    assert overlaps == 0, f"{kind}: {overlaps} pairs of notes are drawn over each other"

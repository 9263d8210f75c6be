"""What a reader sees of an annotated function's layout under any Sphinx theme, measured in the page.

``LAYOUT`` returns, for the page's annotated functions: the width of the code column in pixels and in characters
of the code font, the line rows broken inside a name (``names_broken``: a line may break between tokens, never inside
an identifier), the names drawn past the code column's right edge (``names_past_column``: clipped, or reached only by
scrolling the block sideways, as on phones), the notes drawn over a code line (``notes_over_code``), where the notes are (``mode``), and how far the
page itself scrolls sideways (``page_overflow``: the document is wider than the window by this many pixels).
"""

from __future__ import annotations

LAYOUT = r"""() => {
  const fns = [...document.querySelectorAll('.infralens-function')];
  const code = fns.flatMap(fn => [...fn.querySelectorAll('.il-code')]).filter(c => c.offsetParent !== null);
  const probe = document.createElement('span');
  probe.textContent = 'x'.repeat(100);
  probe.style.whiteSpace = 'pre';
  const pre = code.length ? code[0].querySelector('pre') : null;
  (pre || document.body).append(probe);
  const ch = probe.getBoundingClientRect().width / 100;
  probe.remove();
  const widths = code.map(c => {
    const style = getComputedStyle(c.querySelector('pre') || c);
    return c.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  });
  const lineNumber = document.querySelector('.il-ln');
  const numberWidth = lineNumber ? lineNumber.getBoundingClientRect().width : 0;
  const columns = widths.map(w => Math.floor((w - numberWidth) / ch));
  const broken = [], clipped = [];
  const range = document.createRange();
  for (const line of document.querySelectorAll('.il-line')) {
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    const text = [];
    for (let t = walker.nextNode(); t; t = walker.nextNode()) if (!t.parentElement.closest('.il-ln')) text.push(t);
    for (const t of text) {
      for (const m of t.data.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
        range.setStart(t, m.index); range.setEnd(t, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push(line.id + ': ' + m[0]);
        const column = line.closest('.il-code').getBoundingClientRect();
        if ([...range.getClientRects()].some(r => r.right > column.right + 1)) clipped.push(line.id + ': ' + m[0]);
      }
    }
  }
  const notes = [...document.querySelectorAll('.il-note')].filter(n => n.offsetParent !== null).map(n => n.getBoundingClientRect());
  const lines = [];  // the boxes of the code's characters (a widened note may cover a short line's empty end)
  for (const line of document.querySelectorAll('.il-line')) {
    if (line.offsetParent === null) continue;
    range.selectNodeContents(line);
    lines.push(...[...range.getClientRects()].filter(r => r.width > 0));
  }
  let over = 0;
  for (const n of notes) for (const l of lines) {
    const w = Math.min(n.right, l.right) - Math.max(n.left, l.left), h = Math.min(n.bottom, l.bottom) - Math.max(n.top, l.top);
    if (w > 1 && h > 1) over += 1;
  }
  const root = document.scrollingElement || document.documentElement;
  return {
    functions: fns.length,
    code_px: widths.map(Math.round),
    code_chars: columns,
    char_px: Math.round(ch * 100) / 100,
    names_broken: broken,
    names_past_column: clipped,
    notes: notes.length,
    notes_over_code: over,
    mode: fns.map(fn => getComputedStyle(fn.querySelector('.il-block')).getPropertyValue('--il-notes').trim()),
    page_overflow: Math.max(0, root.scrollWidth - window.innerWidth),
  };
}"""

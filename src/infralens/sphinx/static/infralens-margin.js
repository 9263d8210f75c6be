// Margin notes. On wide screens each note sits beside the code, level with its first line, and is shown
// whole: where a note is taller than the code up to the next note's line, the code makes room (the line
// before the next note's line gets a bottom margin), as review threads and annotated implementations do.
// Notes on the same first line stack, one under the other. Only a very long note (over FOLD_ROWS rows)
// folds its tail behind a "more" button under it; its first rows always show. In a side-by-side comparison
// column there is no room beside the code: there each note sits right under its first line, across the
// column, and that line's row grows by the note's height.
//
// Placing runs in three passes over every function at once, so that the browser lays the page out a fixed
// number of times however many notes there are: clear what the last placing set (writes only), read every
// line's and note's position and height (reads only), then set each note's top and each growing line's
// margin (writes only). Hovering or focusing a note marks its lines, and hovering a marked line marks its
// note. A permalink to a note (or a line) opens the note and scrolls so that the line and the note are both
// in view below the sticky header.
(() => {
  "use strict";
  const WIDE = window.matchMedia("(min-width: 60em)");
  const SIDE_BY_SIDE = window.matchMedia("(min-width: 90em)");
  const GAP = 6; // px between stacked notes, and between a note and the next note's line
  const FOLD_ROWS = 12; // a note taller than this many rows of its text folds the rest behind "more"
  const WIDEST = 40; // rem: a note widened over short code lines stays within a reading measure
  const SPARE = 3; // characters kept free between the longest code line beside a note and the note

  const functions = () => [...document.querySelectorAll(".infralens-function")];
  const lineOf = (note) => document.getElementById(note.dataset.lineAnchor);

  const lastLineOf = (note) => document.getElementById(note.dataset.lineAnchor.replace(/-L\d+$/, `-L${note.dataset.lastLine}`));

  function linesOf(note) {
    const prefix = note.dataset.lineAnchor.replace(/-L\d+$/, "-L");
    const lines = [];
    for (let n = Number(note.dataset.firstLine); n <= Number(note.dataset.lastLine); n++) {
      const line = document.getElementById(prefix + n);
      if (line) lines.push(line);
    }
    return lines;
  }

  // The "more"/"less" button of a folded note: in the notes column right under the note, never over its text.
  function moreButton(note) {
    if (!note.ilMore) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "il-more";
      button.addEventListener("click", () => {
        note.classList.toggle("il-open");
        soon(note.closest(".infralens-function"));
      });
      note.after(button);
      note.ilMore = button;
    }
    const open = note.classList.contains("il-open");
    note.ilMore.textContent = open ? "show less" : "show the rest";
    note.ilMore.setAttribute("aria-expanded", String(open));
    note.ilMore.hidden = false;
    return note.ilMore;
  }

  function clear(fn) {
    fn.classList.remove("il-margin");
    for (const line of fn.querySelectorAll(".il-line[style*='margin-bottom']")) line.style.marginBottom = "";
    for (const note of fn.querySelectorAll(".il-note")) {
      note.style.top = "";
      note.style.left = "";
      note.style.maxHeight = "";
      note.classList.remove("il-folded");
      if (note.ilMore) note.ilMore.hidden = true;
    }
  }

  // "beside", "inline" or "under": set by the CSS on each block, from the width the theme gives the function.
  const modeOf = (fn) => {
    const block = fn.querySelector(".il-block");
    return block ? getComputedStyle(block).getPropertyValue("--il-notes").trim() : "";
  };

  // Reads only: where each note's line is, how tall each note is, where the code ends, in the coordinates of
  // the notes' containing block (the notes column beside the code; the whole block in a comparison column).
  function measure(cell, mode) {
    const code = cell.parentElement.querySelector(".il-code");
    const cellTop = (mode === "inline" ? cell.parentElement : cell).getBoundingClientRect().top;
    const notes = [];
    for (const note of cell.querySelectorAll(":scope > .il-note")) {
      const line = lineOf(note);
      if (!line) continue;
      const box = line.getBoundingClientRect();
      const last = mode === "inline" ? lastLineOf(note) || line : line;
      const bottom = (last === line ? box : last.getBoundingClientRect()).bottom - cellTop;
      notes.push({ note, line, last, top: box.top - cellTop, bottom, height: note.offsetHeight, left: note.getBoundingClientRect().left });
    }
    notes.sort((a, b) => a.top - b.top); // notes of several annotations may interleave in the page's order
    const row = notes.length ? Math.ceil(parseFloat(getComputedStyle(notes[0].note).lineHeight) || 20) : 20;
    const more = notes.length ? Math.ceil(parseFloat(getComputedStyle(notes[0].note).fontSize) * 1.6) : 20;
    const plan = { cell, mode, notes, row, more, codeBottom: code.getBoundingClientRect().bottom - cellTop, lastLine: code.querySelector(".il-line:last-of-type") };
    if (mode === "beside") reach(plan, cellTop);
    return plan;
  }

  // Reads only: how far left each note may start. The notes column takes what short code lines leave free:
  // a note may cover the empty right part of the code lines beside it (from its first line, down as far as it
  // reaches at its first width, never past the next note's line), keeping SPARE characters clear of the longest.
  function reach(plan, cellTop) {
    const any = plan.notes[0];
    if (!any) return;
    const ch = charWidth(any.line);
    const codeRow = parseFloat(getComputedStyle(any.line).lineHeight) || 18; // every code line has the same
    const widest = WIDEST * parseFloat(getComputedStyle(document.documentElement).fontSize);
    const right = any.left + any.note.offsetWidth;
    plan.notes.forEach((item, i) => {
      const next = plan.notes.slice(i + 1).find((later) => later.line !== item.line); // notes on one line stack
      let longest = 0;
      for (let line = item.line; line && line !== (next && next.line); line = line.nextElementSibling) {
        const box = line.getBoundingClientRect();
        if (line !== item.line && box.top - cellTop >= item.top + item.height) break;
        const rows = Math.round(box.height / codeRow);
        const number = line.firstElementChild;
        const chars = rows > 1 ? Infinity : line.textContent.length - (number ? number.textContent.length : 0);
        longest = Math.max(longest, chars);
        if (longest === Infinity) break;
        item.codeLeft = number ? number.getBoundingClientRect().right : box.left;
      }
      if (longest === Infinity || item.codeLeft === undefined) return;
      const start = Math.max(item.codeLeft + (longest + SPARE) * ch, right - widest);
      if (start < item.left - 1) item.shift = Math.floor(item.left - start);
    });
  }

  // The width of one character of the code font, from a line's own text (a monospace font: every one alike).
  function charWidth(line) {
    const text = line.lastChild;
    if (text && text.nodeType === Node.TEXT_NODE && text.length) {
      const range = document.createRange();
      range.selectNodeContents(text);
      const width = range.getBoundingClientRect().width;
      if (width) return width / text.length;
    }
    return parseFloat(getComputedStyle(line).fontSize) * 0.6;
  }

  // A note over FOLD_ROWS rows shows its first rows and a button; the height it takes in the column.
  function fold(item, plan) {
    const limit = FOLD_ROWS * plan.row;
    if (item.height <= limit + plan.row) return item.height;
    const open = item.note.classList.contains("il-open");
    if (!open) {
      item.note.style.maxHeight = `${limit}px`;
      item.note.classList.add("il-folded");
    }
    item.button = moreButton(item.note);
    return (open ? item.height : limit) + plan.more;
  }

  // Writes only, from the reads: each note at its line (or under the note before it on the same line); the
  // line before the next note's line grows when the notes above it need the room.
  function layoutBeside(plan) {
    let added = 0; // how far the code has grown above the current line
    let bottom = -Infinity; // where the last placed note (and its button) ends
    let previous = null;
    for (const item of plan.notes) {
      const taken = fold(item, plan);
      let top = item.top + added;
      if (bottom + GAP > top) {
        if (item.line === previous) {
          top = bottom + GAP; // the same first line: stacked
        } else {
          const need = Math.ceil(bottom + GAP - top);
          const before = item.line.previousElementSibling;
          if (before) before.style.marginBottom = `${(parseFloat(before.style.marginBottom) || 0) + need}px`;
          added += need;
          top += need;
        }
      }
      item.note.style.top = `${top}px`;
      if (item.button) item.button.style.top = `${top + taken - plan.more + 2}px`;
      bottom = top + taken;
      previous = item.line;
    }
    const end = plan.codeBottom + added;
    if (plan.lastLine && bottom + GAP > end) plan.lastLine.style.marginBottom = `${Math.ceil(bottom + GAP - end) + (parseFloat(plan.lastLine.style.marginBottom) || 0)}px`;
  }

  // Writes only: each note right under the last line of its statement, across the column (a statement is not
  // cut in two); that line grows by the notes under it.
  function layoutInline(plan) {
    let added = 0; // how far the lines above the current one have grown
    let under = 0; // how much the current line has grown (the notes already under it)
    let current = null;
    for (const item of plan.notes.sort((a, b) => a.bottom - b.bottom)) {
      if (item.last !== current) {
        added += under;
        under = 0;
        current = item.last;
      }
      const taken = fold(item, plan);
      const top = item.bottom + added + under + GAP / 2;
      item.note.style.top = `${top}px`;
      if (item.button) item.button.style.top = `${top + taken - plan.more + 2}px`;
      under += taken + GAP;
      item.last.style.marginBottom = `${under}px`;
    }
  }

  function placeEach(fns) {
    for (const fn of fns) clear(fn);
    const plans = [];
    for (const fn of fns) {
      const mode = modeOf(fn);
      if (mode === "under" || !mode || !fn.querySelector(".il-block.il-annotated")) continue;
      for (const cell of fn.querySelectorAll(".il-block.il-annotated > .il-notes")) plans.push([fn, cell, mode]);
    }
    for (const [fn] of plans) fn.classList.add("il-margin"); // notes leave the flow: their heights are read below
    const measured = plans.filter(([, cell]) => cell.offsetParent !== null).map(([, cell, mode]) => measure(cell, mode)); // a closed fold has none
    const widened = measured.flatMap((plan) => plan.notes.filter((item) => item.shift));
    for (const item of widened) item.note.style.left = `calc(0.7rem - ${item.shift}px)`;
    for (const item of widened) item.height = item.note.offsetHeight; // shorter now: read again, all at once
    for (const plan of measured) (plan.mode === "inline" ? layoutInline : layoutBeside)(plan);
  }

  // The whole page: the functions within a screen of the window at once, the others in idle time, a few at a
  // time, so that a long page is ready to read (and a resize is answered) without waiting for its far end.
  // Changes of height far above the window keep what is read in place (the browser's scroll anchoring).
  // When every note is placed the root gets the class "il-notes-placed".
  let queue = [];
  let draining = 0;
  const idle = window.requestIdleCallback || ((run) => setTimeout(() => run({ timeRemaining: () => 16 }), 1));
  const cancelIdle = window.cancelIdleCallback || clearTimeout;
  function placeAll() {
    const reach = window.innerHeight;
    const near = [];
    queue = [];
    for (const fn of functions()) {
      const box = fn.getBoundingClientRect();
      (box.bottom > -reach && box.top < 2 * reach ? near : queue).push(fn);
    }
    document.documentElement.classList.remove("il-notes-placed");
    placeEach(near);
    drain();
  }
  function drain() {
    cancelIdle(draining);
    if (!queue.length) {
      document.documentElement.classList.add("il-notes-placed");
      return;
    }
    draining = idle((deadline) => {
      do placeEach(queue.splice(0, 3));
      while (queue.length && deadline.timeRemaining() > 10);
      drain();
    });
  }
  const placeAllNow = () => {
    queue = [];
    placeEach(functions());
    drain();
  };

  // Placing is done once per frame: the whole page after a resize (of the width) or a font load, else only the
  // functions in which something opened or closed (each function's notes are placed within it alone).
  let pending = 0;
  let everything = false;
  const changed = new Set();
  function soon(fn) {
    if (fn) changed.add(fn);
    else everything = true;
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      if (everything) placeAll();
      else placeEach([...changed]);
      everything = false;
      changed.clear();
    });
  }

  // Note <-> line: hovering or focusing either marks both.
  function link(target, on) {
    const note = target.closest && target.closest(".il-note");
    const notes = note ? [note] : notesOfLine(target.closest && target.closest(".il-line.il-marked"));
    for (const n of notes) {
      n.classList.toggle("il-linked", on);
      for (const line of linesOf(n)) line.classList.toggle("il-linked", on);
    }
  }

  function notesOfLine(line) {
    if (!line) return [];
    const [, prefix, number] = line.id.match(/^(.*-L)(\d+)$/) || [];
    if (!prefix) return [];
    const fn = line.closest(".infralens-function");
    return [...fn.querySelectorAll(".il-note")].filter(
      (n) => n.dataset.lineAnchor.startsWith(prefix) && Number(n.dataset.firstLine) <= Number(number) && Number(number) <= Number(n.dataset.lastLine),
    );
  }

  // A permalink to a note or a line: open the note, mark both, and show both below the sticky header.
  function arrive() {
    for (const old of document.querySelectorAll(".il-target")) old.classList.remove("il-target");
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (!target) return;
    const notes = target.classList.contains("il-note") ? [target] : target.classList.contains("il-line") ? notesOfLine(target) : [];
    if (!notes.length) return;
    for (const note of notes) {
      note.classList.add("il-open", "il-target");
      for (const line of linesOf(note)) line.classList.add("il-target");
    }
    // Where the note lands depends on every function above it: all must be placed (start() placed them already
    // when the page opened on this hash); opening the note changes only its own function.
    if (queue.length || !document.documentElement.classList.contains("il-notes-placed")) placeAllNow();
    else placeEach([...new Set(notes.map((n) => n.closest(".infralens-function")))]);
    const note = notes[0];
    const line = lineOf(note) || target;
    const top = Math.min(note.getBoundingClientRect().top, line.getBoundingClientRect().top);
    window.scrollTo({ top: window.scrollY + top - headerHeight() - 16, behavior: "instant" });
  }

  function headerHeight() {
    let height = 0;
    for (const header of document.querySelectorAll(".mobile-header, header")) {
      const style = getComputedStyle(header);
      if ((style.position === "sticky" || style.position === "fixed") && style.display !== "none") {
        height = Math.max(height, header.getBoundingClientRect().bottom);
      }
    }
    return height;
  }

  // One toggle per function opens (or closes) every "Checked in the real frame" fold in it.
  function observedToggle(fn) {
    const folds = fn.querySelectorAll("details.il-claims-fold");
    const head = fn.querySelector(".il-head");
    if (!folds.length || !head || head.querySelector(".il-observed-toggle")) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "il-observed-toggle";
    button.textContent = "show all observed values";
    button.addEventListener("click", () => {
      const open = button.getAttribute("aria-pressed") !== "true";
      for (const fold of folds) fold.open = open;
      button.setAttribute("aria-pressed", String(open));
      button.textContent = open ? "hide all observed values" : "show all observed values";
    });
    head.append(button);
  }

  function start() {
    for (const fn of functions()) observedToggle(fn);
    // Landing on an anchor, the browser scrolls to it: every note above it must be in place first, or the page
    // would grow above the anchor after the scroll and carry it out of view.
    if (window.location.hash) placeAllNow();
    else placeAll();
    arrive();
    let width = window.innerWidth;
    window.addEventListener("resize", () => {
      if (window.innerWidth === width) return; // a change of height moves no note
      width = window.innerWidth;
      soon();
    });
    window.addEventListener("hashchange", arrive);
    window.addEventListener("load", () => window.location.hash && arrive());
    WIDE.addEventListener("change", () => soon());
    // A function's own width can change while the window's does not (a theme's sidebar opening): place again.
    if (window.ResizeObserver) {
      const widths = new WeakMap();
      const watcher = new ResizeObserver((entries) => {
        let moved = false;
        for (const entry of entries) {
          const now = Math.round(entry.contentRect.width);
          if (widths.has(entry.target) && widths.get(entry.target) !== now) moved = true;
          widths.set(entry.target, now);
        }
        if (moved) soon();
      });
      for (const fn of functions()) watcher.observe(fn);
    }
    SIDE_BY_SIDE.addEventListener("change", () => soon());
    // <details> toggles do not bubble: listen while capturing. Notes are placed within their function, so
    // a fold opening elsewhere (an answers dropdown) moves none of them. Observed values open where they are
    // seen: a claims fold opening inside a folded note unfolds the note.
    document.addEventListener("toggle", (event) => {
      const fn = event.target.closest(".infralens-function");
      if (!fn) return;
      const note = event.target.open && event.target.closest(".il-note");
      if (note) note.classList.add("il-open");
      soon(fn);
    }, true);
    document.addEventListener("mouseover", (event) => link(event.target, true));
    document.addEventListener("mouseout", (event) => link(event.target, false));
    document.addEventListener("focusin", (event) => link(event.target, true));
    document.addEventListener("focusout", (event) => link(event.target, false));
    // Fonts still loading change the widths of text: place again once they are in (not when they already were).
    if (document.fonts && document.fonts.status !== "loaded") document.fonts.ready.then(() => (window.location.hash ? arrive() : placeAll()));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// Margin notes: on wide screens each note sits level with its own line, and the code stays one block.
// In a side-by-side comparison column there is no room beside the code: there each note sits right under
// its first line, across the column, and that line's row grows by the note's height (as review comments do).
//
// Each note is placed at the top of its first line. Until the next note's line (or the end of its block)
// it has a slot; a note longer than its slot shows what fits and a "more" button (it is clamped). Only an
// opened note, or a slot shorter than two rows of note text, makes the code grow: the line before the next
// note's line gets a bottom margin, so every note stays level with its line. Hovering or focusing a note
// marks its lines, and hovering a marked line marks its note. A permalink to a note (or a line) opens the
// note and scrolls so that the line and the note are both in view below the sticky header.
(() => {
  "use strict";
  const WIDE = window.matchMedia("(min-width: 60em)");
  const SIDE_BY_SIDE = window.matchMedia("(min-width: 90em)");
  const GAP = 4;
  const MIN_ROWS = 2; // a clamped note shows at least this many rows of text (the code grows to make room)

  const functions = () => [...document.querySelectorAll(".infralens-function")];
  const lineOf = (note) => document.getElementById(note.dataset.lineAnchor);

  function linesOf(note) {
    const prefix = note.dataset.lineAnchor.replace(/-L\d+$/, "-L");
    const lines = [];
    for (let n = Number(note.dataset.firstLine); n <= Number(note.dataset.lastLine); n++) {
      const line = document.getElementById(prefix + n);
      if (line) lines.push(line);
    }
    return lines;
  }

  function moreButton(note) {
    let button = note.querySelector(":scope > .il-more");
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.className = "il-more";
      button.addEventListener("click", () => {
        note.classList.toggle("il-open");
        soon(note.closest(".infralens-function"));
      });
      note.append(button);
    }
    button.textContent = note.classList.contains("il-open") ? "less" : "more";
    button.setAttribute("aria-expanded", note.classList.contains("il-open") ? "true" : "false");
    return button;
  }

  function reset(fn) {
    fn.classList.remove("il-margin");
    for (const line of fn.querySelectorAll(".il-line[style*='margin-bottom']")) line.style.marginBottom = "";
    for (const note of fn.querySelectorAll(".il-note")) {
      note.style.top = "";
      note.style.maxHeight = "";
      note.classList.remove("il-clamped");
    }
  }

  // Inline (a comparison column): each note under its first line; the line's row grows by the note's height.
  function placeInline(cell) {
    const block = cell.parentElement;
    const grown = new Map();
    for (const note of cell.querySelectorAll(":scope > .il-note")) {
      const line = lineOf(note);
      if (!line) continue;
      note.style.top = `${line.getBoundingClientRect().bottom + (grown.get(line) || 0) - block.getBoundingClientRect().top + GAP / 2}px`;
      note.style.maxHeight = "";
      note.classList.remove("il-clamped");
      const full = note.scrollHeight;
      const limit = 3 * rowHeight(note);
      if (full > limit + 1) {
        moreButton(note);
        if (!note.classList.contains("il-open")) {
          note.style.maxHeight = `${limit}px`;
          note.classList.add("il-clamped");
        }
      }
      grown.set(line, (grown.get(line) || 0) + note.getBoundingClientRect().height + GAP);
      line.style.marginBottom = `${Math.ceil(grown.get(line))}px`;
    }
  }

  // Beside: notes at their lines, clamped to their slots; the code grows only where a note needs room.
  function placeBlock(cell) {
    const notes = [...cell.querySelectorAll(":scope > .il-note")];
    const code = cell.parentElement.querySelector(".il-code");
    for (let i = 0; i < notes.length; i++) {
      const note = notes[i];
      const line = lineOf(note);
      if (!line) continue;
      const cellTop = cell.getBoundingClientRect().top;
      const lineTop = line.getBoundingClientRect().top;
      const next = i + 1 < notes.length ? lineOf(notes[i + 1]) : null;
      const end = next ? next.getBoundingClientRect().top : code.getBoundingClientRect().bottom;
      const slot = end - lineTop - GAP;
      note.style.top = `${lineTop - cellTop}px`;
      note.style.maxHeight = "";
      note.classList.remove("il-clamped");
      const full = note.scrollHeight;
      const open = note.classList.contains("il-open");
      if (!open && full > slot + 1) {
        note.style.maxHeight = `${Math.max(slot, MIN_ROWS * rowHeight(note))}px`;
        note.classList.add("il-clamped");
      }
      if (full > slot + 1) moreButton(note);
      const needed = note.getBoundingClientRect().height - slot;
      if (needed > 0) {
        const before = next ? next.previousElementSibling : code.querySelector(".il-line:last-of-type");
        if (before) before.style.marginBottom = `${Math.ceil(needed)}px`;
      }
    }
  }

  function rowHeight(note) {
    return Math.ceil(parseFloat(getComputedStyle(note).lineHeight) || 20);
  }

  function place(fn) {
    reset(fn);
    const mode = getComputedStyle(fn).getPropertyValue("--il-notes").trim(); // "beside", "inline" or "under" (CSS)
    if (mode === "under" || !mode || !fn.querySelector(".il-block.il-annotated")) return;
    fn.classList.add("il-margin");
    for (const cell of fn.querySelectorAll(".il-block.il-annotated > .il-notes")) {
      if (cell.offsetParent === null) continue; // inside a closed fold
      if (mode === "inline") placeInline(cell);
      else placeBlock(cell);
    }
  }

  function placeEach(fns) {
    for (const fn of fns) place(fn);
  }
  const placeAll = () => placeEach(functions());

  // Placing is done once per frame: the whole page after a resize or a font load, else only the functions
  // in which something opened or closed (each function's notes are placed within it alone).
  let pending = 0;
  let everything = false;
  const changed = new Set();
  function soon(fn) {
    if (fn) changed.add(fn);
    else everything = true;
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      placeEach(everything ? functions() : [...changed]);
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
    placeAll();
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
    placeAll();
    arrive();
    window.addEventListener("resize", () => soon());
    window.addEventListener("hashchange", arrive);
    window.addEventListener("load", () => window.location.hash && arrive());
    WIDE.addEventListener("change", () => soon());
    SIDE_BY_SIDE.addEventListener("change", () => soon());
    // <details> toggles do not bubble: listen while capturing. Notes are placed within their function, so
    // a fold opening elsewhere (an answers dropdown) moves none of them.
    document.addEventListener("toggle", (event) => {
      const fn = event.target.closest(".infralens-function");
      if (fn) soon(fn);
    }, true);
    document.addEventListener("mouseover", (event) => link(event.target, true));
    document.addEventListener("mouseout", (event) => link(event.target, false));
    document.addEventListener("focusin", (event) => link(event.target, true));
    document.addEventListener("focusout", (event) => link(event.target, false));
    if (document.fonts) document.fonts.ready.then(() => (window.location.hash ? arrive() : placeAll()));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

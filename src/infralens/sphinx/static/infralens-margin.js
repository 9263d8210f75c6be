// Margin notes: on wide screens each note sits beside its own line, and the code stays one block.
//
// Without this script (or on narrow screens) a block's notes share its grid row, so a long note pushes the
// next lines of code down. With it, the notes column keeps its place but its notes are positioned one by one:
// level with their first line, moved down only as far as needed to clear the note above. The function box
// grows at the bottom when the last notes reach past its last line. Folding or unfolding anything inside a
// function (a stretch of code, a note's claims) places its notes again.
(() => {
  "use strict";
  const WIDE = window.matchMedia("(min-width: 60em)");
  const GAP = 8;

  function functions() {
    return [...document.querySelectorAll(".infralens-function:not(.il-compact)")];
  }

  function reset(fn) {
    fn.classList.remove("il-margin");
    fn.style.paddingBottom = "";
    for (const note of fn.querySelectorAll(".il-note")) note.style.top = "";
  }

  function place(fn) {
    if (!WIDE.matches || !fn.querySelector(".il-block.il-annotated")) {
      reset(fn);
      return;
    }
    fn.classList.add("il-margin");
    fn.style.paddingBottom = "";
    let lowest = -Infinity;
    for (const cell of fn.querySelectorAll(".il-block.il-annotated > .il-notes")) {
      const cellTop = cell.getBoundingClientRect().top;
      if (cell.offsetParent === null) continue; // inside a closed fold
      for (const note of cell.querySelectorAll(":scope > .il-note")) {
        const line = document.getElementById(note.dataset.lineAnchor);
        const wanted = line ? line.getBoundingClientRect().top - cellTop : 0;
        const top = Math.max(wanted, lowest + GAP - cellTop);
        note.style.top = `${top}px`;
        lowest = cellTop + top + note.getBoundingClientRect().height;
      }
    }
    const blocks = fn.querySelectorAll(".il-block");
    const codeBottom = blocks.length ? blocks[blocks.length - 1].getBoundingClientRect().bottom : 0;
    if (lowest > codeBottom) fn.style.paddingBottom = `${Math.ceil(lowest - codeBottom + GAP)}px`;
  }

  function placeAll() {
    for (const fn of functions()) place(fn);
  }

  let pending = 0;
  function soon() {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(placeAll);
  }

  function start() {
    placeAll();
    window.addEventListener("resize", soon);
    WIDE.addEventListener("change", soon);
    document.addEventListener("toggle", soon, true); // <details> toggles do not bubble: listen while capturing
    if (document.fonts) document.fonts.ready.then(soon);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// Search result snippets from prose, not from code, tables or formulas.
//
// Sphinx's search page builds each result's snippet from the text of the whole page. On InfraLens
// pages that text is mostly code with its line numbers, badges and claim lists run together, and the
// cells of a table or the symbols of a displayed formula read as a string of numbers and letters (an
// inline formula stays: its few symbols belong to the sentence). This wraps Search.htmlToText
// (searchtools.js) to drop those parts first; the notes, summaries and lab prose stay. Loaded with
// "defer": after searchtools.js, before its search runs.
(() => {
  if (typeof Search === "undefined" || typeof Search.htmlToText !== "function") return;
  const notProse = [
    ".il-code, .il-head, .il-note-foot, .il-badges, .il-claims, .il-claims-title, .il-fold-summary, .infralens-coverage",
    "table, pre, div.highlight, math[display=block], div.math, figure, .il-cost-source, .il-learning-place, .il-learning-assumes",
  ].join(", ");
  const original = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    page.querySelectorAll(notProse).forEach((element) => element.remove());
    return original(page.documentElement.outerHTML, anchor);
  };
})();

// Search results: the lab that teaches a word comes before the pages that only mention it.
//
// Sphinx's searchtools.js scores a page by whether a word occurs on it (5 in the text, 15 in a title, up
// to 16 for a matching section title), so an API page that names "offload" once ties with the lab that
// teaches offloading. The build measures how strongly each lab page teaches each word (infralens.sphinx
// .search_rank writes window.INFRALENS_LAB_WORDS: per stem, a BM25-like score per lab). This wraps
// Search._performSearch: every result on a lab page gains up to BOOST by its lab's score for the query's
// words, and a lab that teaches every word of the query is listed even where Sphinx's index missed one
// (a word that occurs only inside an identifier such as use_dynamic_shifting). Only the search page loads
// it ("defer": after searchtools.js, before its search runs).
(() => {
  if (typeof Search === "undefined" || typeof Search._performSearch !== "function") return;
  const BOOST = 40; // the most a lab result gains: more than any title or text match of Sphinx's (at most 16)
  const HALF = 1.5; // the lab score at which a result gains half of BOOST
  const SHOWN = 0.6; // a lab missing from Sphinx's results is added when it teaches every word at least this much
  const PARTIAL = 0.5; // a query word found only as the beginning of a longer word counts this much

  const postings = (words, stem) => {
    if (Object.hasOwn(words, stem)) return words[stem];
    if (stem.length < 3) return [];
    const best = new Map();
    for (const [word, list] of Object.entries(words)) {
      if (!word.startsWith(stem)) continue;
      for (const [lab, score] of list) best.set(lab, Math.max(best.get(lab) || 0, score * PARTIAL));
    }
    return [...best];
  };

  // docname -> {score, all}: the mean of the lab's scores over the query's words, times the share of the
  // words it teaches squared (a lab that teaches one word of two counts a quarter); all: it teaches every word.
  // As in searchtools.js, words of one or two letters are not required when the query has longer ones.
  const labScores = (data, terms) => {
    const longer = terms.filter((stem) => stem.length > 2);
    const stems = longer.length ? longer : terms;
    const sums = new Map();
    const matched = new Map();
    for (const stem of stems) {
      for (const [lab, score] of postings(data.words, stem)) {
        sums.set(lab, (sums.get(lab) || 0) + score);
        matched.set(lab, (matched.get(lab) || 0) + 1);
      }
    }
    const found = new Map();
    for (const [lab, sum] of sums) {
      const share = matched.get(lab) / stems.length;
      found.set(data.labs[lab], { score: (sum / stems.length) * share * share, all: share === 1 });
    }
    return found;
  };

  // The order searchtools.js gives its results: ascending score, then descending title (it shows them from the end).
  const byScoreThenTitle = (a, b) => {
    if (a[4] !== b[4]) return a[4] > b[4] ? 1 : -1;
    const left = a[1].toLowerCase();
    const right = b[1].toLowerCase();
    return left === right ? 0 : left > right ? -1 : 1;
  };

  const original = Search._performSearch;
  Search._performSearch = (query, searchTerms, excludedTerms, highlightTerms, objectTerms) => {
    const results = original(query, searchTerms, excludedTerms, highlightTerms, objectTerms);
    const data = window.INFRALENS_LAB_WORDS;
    const stems = [...searchTerms];
    if (!data || !stems.length) return results;
    const labs = labScores(data, stems);
    const gain = (score) => Math.round((100 * BOOST * score) / (score + HALF)) / 100;
    const listed = new Set();
    for (const result of results) {
      const lab = labs.get(result[0]);
      if (lab === undefined) continue;
      result[4] += gain(lab.score);
      listed.add(result[0]);
    }
    const index = Search._index;
    for (const [docname, lab] of labs) {
      if (listed.has(docname) || !lab.all || lab.score < SHOWN || excludedTerms.size) continue;
      const file = index.docnames.indexOf(docname);
      if (file >= 0) results.push([docname, index.titles[file], "", null, gain(lab.score), index.filenames[file], "text"]);
    }
    return results.sort(byScoreThenTitle);
  };
})();

"""Search that finds the lab: how strongly each lab page teaches each word, for the site's own search page.

Sphinx's search (``searchtools.js``) knows only whether a word occurs on a page, so a function page that
names ``offload`` once ties with the lab that teaches offloading, and a page's title decides the rest.
This module measures what a lab page is about, from its doctree on ``doctree-read``: the words of its
title, its section titles, its prose, its bold terms and its inline code (an identifier also counts as
its parts: ``use_dynamic_shifting`` says *dynamic* and *shifting*), the notes beside its code at half
weight, and the one-line summary of its place on the learning path. Code blocks, annotated code and math
are left out; what a lab assumes is not what it teaches, so that is left out too.

When the search page is written, each lab's weight for each stem becomes a BM25-like score: a saturating
count times the word's rarity among the lab pages. ``static/infralens-search-rank.js`` reads them
(``_static/infralens-lab-words.js``) and raises each lab result by how strongly that lab teaches the
query, so the teaching lab comes before the API pages that mention the word, and a lab that teaches every
word of a query is shown even where Sphinx's index missed a word (a part of an identifier).
Stems come from the search language's own stemmer, the one ``searchtools.js`` applies to the query.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes
from sphinx.search import SearchLanguage, languages
from sphinx.search.en import SearchEnglish
from sphinx.util import import_object

from infralens.atomic import write_text
from infralens.sphinx import nodes as il
from infralens.sphinx.catalog import Catalog, catalog_for
from infralens.sphinx.cost import cost_figure
from infralens.sphinx.learning_path import NOT_TAUGHT
from infralens.sphinx.pages import lab_docname

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

DATA_FILE = "infralens-lab-words.js"
RANK_SCRIPT = "infralens-search-rank.js"
_STORE = "infralens_lab_words"
"""The env attribute holding, per lab docname, its weighted stem counts (pickled with the env, merged after parallel reads)."""

TITLE, HEADING, SUMMARY, PROSE, NOTE, TABLE = 8.0, 4.0, 4.0, 1.0, 0.5, 0.5
"""Weight of one word by where it stands on the lab page."""
EMPHASIS = 2.0
"""A bold or italic term counts this many times its place's weight."""
SATURATION = 3.0
"""BM25's k1: the tenth use of a word adds little to the first few."""
SMALLEST = 0.05
"""Scores below this are left out of the data: they could not move a result."""
_SKIP = (
    nodes.literal_block,
    nodes.math,
    nodes.math_block,
    nodes.raw,
    nodes.comment,
    nodes.system_message,
    nodes.target,
    nodes.image,
    addnodes.index,
    addnodes.toctree,
    il.infralens_html,
    il.infralens_math,
    il.infralens_backlinks,
    cost_figure,
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def search_language(app: Sphinx) -> SearchLanguage:
    """The language whose stemmer the search page uses (``html_search_language``, else ``language``, else English)."""
    name = app.config.html_search_language or app.config.language or "en"
    found = languages.get(name) or languages.get(name.split("_")[0])
    cls = import_object(found) if isinstance(found, str) else found
    return (cls or SearchEnglish)(app.config.html_search_options or {})


def words_of(text: str, language: SearchLanguage, identifier: bool = False, stems: dict[str, str] | None = None) -> list[str]:
    """The stems of ``text`` as the search index splits it; in an identifier also the stems of its parts (``stems``:
    the stem of each word already stemmed, kept by the caller across calls; a lab page repeats most of its words)."""
    known: dict[str, str] = {} if stems is None else stems
    found = []
    for word in language.split(text):
        pieces = [word]
        if identifier:
            pieces += [piece for part in word.split("_") for piece in ([part] + (_CAMEL.findall(part) if not part.islower() else []))]
        for piece in dict.fromkeys(pieces):
            stem = known.get(piece)
            if stem is None:
                stem = known[piece] = language.stem(piece)
            if stem and language.word_filter(stem) and len(stem) > 1:
                found.append(stem)
    return found


def lab_words(doctree: nodes.Node, language: SearchLanguage) -> dict[str, float]:
    """Weighted stem counts of a lab page: title, headings, prose, emphasis, inline code, notes (see the module docstring)."""
    counts: defaultdict[str, float] = defaultdict(float)
    _count_words(doctree, PROSE, doctree, language, counts, {})
    return dict(counts)


def _count_words(
    node: nodes.Node, weight: float, doctree: nodes.Node, language: SearchLanguage, counts: defaultdict[str, float], stems: dict[str, str]
) -> None:
    """Add the stems under *node* to *counts*, each child at the weight its kind gives it (*stems*: the page's words stemmed so far)."""
    for child in node.children:
        if isinstance(child, _SKIP) or (isinstance(child, nodes.Element) and NOT_TAUGHT & set(child["classes"])):
            continue
        if isinstance(child, nodes.Text | nodes.literal):  # inline code also counts the parts of its identifiers
            for stem in words_of(child.astext(), language, identifier=isinstance(child, nodes.literal), stems=stems):
                counts[stem] += weight
            continue
        inner = _inner_weight(child, weight, doctree)
        if inner is not None:
            _count_words(child, inner, doctree, language, counts, stems)


def _inner_weight(child: nodes.Node, weight: float, doctree: nodes.Node) -> float | None:
    """The weight of the words inside *child*, met at *weight* (None: not an element, nothing inside counts)."""
    if isinstance(child, nodes.title):
        return TITLE if child.parent is not None and child.parent.parent is doctree else HEADING
    if isinstance(child, il.infralens_note):
        return min(weight, NOTE)
    if isinstance(child, nodes.table):
        return min(weight, TABLE)
    if isinstance(child, nodes.strong | nodes.emphasis):
        return weight * EMPHASIS
    if isinstance(child, nodes.Element):
        return weight
    return None


def _store(env: BuildEnvironment) -> dict[str, dict[str, float]]:
    if not hasattr(env, _STORE):
        setattr(env, _STORE, {})
    return getattr(env, _STORE)


def _lab_docs(catalog: Catalog) -> dict[str, str]:
    """docname → slug of every lab page."""
    return {lab_docname(catalog.settings, slug): slug for slug, lab in catalog.labs.items() if lab.page is not None}


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Remember what a lab page says, word by word (weighted); other pages are not measured."""
    if app.env.docname in _lab_docs(catalog_for(app.env)):
        _store(app.env)[app.env.docname] = lab_words(doctree, search_language(app))


def on_env_purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _store(env).pop(docname, None)


def on_env_merge_info(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    theirs = _store(other)
    _store(env).update({docname: theirs[docname] for docname in docnames if docname in theirs})


def scores(counts: dict[str, dict[str, float]]) -> dict[str, list[tuple[int, float]]]:
    """stem → ``[(lab index, score), …]`` for labs in sorted docname order: saturating count × rarity among the labs."""
    docnames = sorted(counts)
    total = len(docnames)
    frequency: Counter[str] = Counter(stem for docname in docnames for stem in counts[docname])
    found: dict[str, list[tuple[int, float]]] = {}
    for index, docname in enumerate(docnames):
        for stem, weight in counts[docname].items():
            rarity = math.log(1 + (total - frequency[stem] + 0.5) / (frequency[stem] + 0.5))
            score = round(rarity * weight * (SATURATION + 1) / (weight + SATURATION), 3)
            if score >= SMALLEST:
                found.setdefault(stem, []).append((index, score))
    return dict(sorted(found.items()))


def search_data(app: Sphinx) -> dict[str, Any]:
    """What the search page needs: the lab docnames and, per stem, each lab's score (summaries counted in)."""
    catalog = catalog_for(app.env)
    language = search_language(app)
    labs = _lab_docs(catalog)
    counts = {docname: dict(words) for docname, words in _store(app.env).items() if docname in labs}
    for docname, slug in labs.items():
        place = catalog.labs[slug].place
        if docname in counts and place is not None:
            for stem in words_of(place.summary, language, identifier=True):
                counts[docname][stem] = counts[docname].get(stem, 0.0) + SUMMARY
    return {"labs": sorted(counts), "words": scores(counts)}


def on_html_page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.Node | None) -> None:
    """On the search page: write the labs' word scores next to the static files and load them with the ranking script."""
    if pagename != "search" or not hasattr(app.builder, "add_js_file"):
        return
    data = search_data(app)
    if not data["labs"]:
        return
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    text = "window.INFRALENS_LAB_WORDS = " + json.dumps(data, separators=(",", ":"), ensure_ascii=True).replace("<", "\\u003c") + ";\n"
    target = static / DATA_FILE
    if not target.is_file() or target.read_text("utf-8") != text:
        write_text(target, text)
    app.add_js_file(DATA_FILE, loading_method="defer")
    app.add_js_file(RANK_SCRIPT, loading_method="defer")

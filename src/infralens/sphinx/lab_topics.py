"""A lab page ranks first in the site search for its own topic words.

A lab's topic words come from what it already says about itself: the words of its title and folder
name, the ``keywords`` its page may declare in front matter, and the slugs of the concept pairs the
concept map files under it (``flux-rope`` gives Flux's lab ``rope``). Each word goes to one lab: a
lab's own word beats a pair's, then the lab whose page uses the word most wins. A pair's word is
kept only where the lab's page uses it at least twice as often as any other lab page. Stop words,
numbers and words under three letters are dropped.

Each word becomes a main index entry of the lab page, added on ``doctree-read`` (after the index
domain collected entries, so the general index stays as it was). Sphinx's search scores an index
entry that equals the query 100 and a title match at most 16, so the lab comes before the function
pages it links to.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

import yaml
from docutils import nodes
from sphinx import addnodes
from sphinx.search.en import SearchEnglish

from infralens.sphinx.catalog import Catalog, Lab, catalog_for
from infralens.sphinx.pages import lab_docname

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

_TOKEN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_LAB_NUMBER = re.compile(r"^\s*lab\s+\d+\s*[:.\u2014-]\s*", re.IGNORECASE)
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
_NUMBERS = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"})
MIN_LETTERS = 3
DISTINCT = 2
"""A pair's word is a lab's topic only where its page uses the word this many times as often as any other lab page."""


def words(text: str) -> list[str]:
    """Lower-cased words of ``text``: each hyphenated word whole and in parts, without stop words."""
    found = []
    for token in _TOKEN.findall(text.lower()):
        parts = token.split("-")
        found += [word for word in ([token] if len(parts) > 1 else []) + parts if _is_word(word)]
    return found


def _is_word(word: str) -> bool:
    return len(word) >= MIN_LETTERS and not word.isdigit() and word not in _NUMBERS and word not in SearchEnglish.stopwords


def declared_keywords(page_text: str) -> list[str]:
    """The ``keywords`` of a page's front matter (a list, or one comma-separated string), lower-cased."""
    match = _FRONT_MATTER.match(page_text)
    if match is None:
        return []
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return []
    value = data.get("keywords") if isinstance(data, dict) else None
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    return [str(item).strip().lower() for item in items if str(item).strip()]


def own_words(lab: Lab, page_text: str) -> set[str]:
    """The words a lab names itself with: its title (without "Lab NN:"), its folder name, its declared keywords."""
    return set(words(_LAB_NUMBER.sub("", lab.title))) | set(words(re.sub(r"^lab-\d*-?", "", lab.folder.name))) | set(declared_keywords(page_text))


def choose_topics(own: Mapping[str, set[str]], borrowed: Mapping[str, Iterable[str]], texts: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """slug → its topic words, each word given to one lab (see the module docstring)."""
    uses = {slug: Counter(words(text)) for slug, text in texts.items()}
    best: dict[str, tuple[tuple[bool, int], str]] = {}
    for slug in sorted(texts):
        for word in sorted(own.get(slug, set()) | set(borrowed.get(slug, ()))):
            mine = word in own.get(slug, set())
            count = uses[slug][word]
            others = max((counter[word] for other, counter in uses.items() if other != slug), default=0)
            if not mine and (count == 0 or count < DISTINCT * others):
                continue
            if word not in best or (mine, count) > best[word][0]:
                best[word] = ((mine, count), slug)
    topics: dict[str, list[str]] = {slug: [] for slug in sorted(texts)}
    for word, (_, slug) in sorted(best.items()):
        topics[slug].append(word)
    return {slug: tuple(found) for slug, found in topics.items()}


def lab_topics(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """slug → the topic words of every lab that has a page."""
    texts = {slug: lab.page.read_text("utf-8", errors="replace") for slug, lab in catalog.labs.items() if lab.page is not None}
    own = {slug: own_words(catalog.labs[slug], text) for slug, text in texts.items()}
    borrowed: dict[str, list[str]] = {}
    for pair in catalog.concepts.pairs:
        if pair.lab in texts:
            borrowed.setdefault(pair.lab, []).extend(words(pair.slug))
    return dict(  # a copy: the cached answer stays as it was
        _chosen(
            tuple((slug, frozenset(found)) for slug, found in sorted(own.items())),
            tuple((slug, tuple(found)) for slug, found in sorted(borrowed.items())),
            tuple(sorted(texts.items())),
        )
    )


@lru_cache(maxsize=4)
def _chosen(
    own: tuple[tuple[str, frozenset[str]], ...], borrowed: tuple[tuple[str, tuple[str, ...]], ...], texts: tuple[tuple[str, str], ...]
) -> dict[str, tuple[str, ...]]:
    """:func:`choose_topics` once per set of lab pages: every lab page read in a build asks for the same answer."""
    return choose_topics({slug: set(found) for slug, found in own}, dict(borrowed), dict(texts))


def _lab_docs(catalog: Catalog) -> dict[str, str]:
    """docname → slug of every lab page."""
    return {lab_docname(catalog.settings, slug): slug for slug, lab in catalog.labs.items() if lab.page is not None}


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Give a lab page a main index entry per topic word, right under its title."""
    catalog = catalog_for(app.env)
    slug = _lab_docs(catalog).get(app.env.docname)
    section = doctree.next_node(nodes.section)
    if slug is None or section is None:
        return
    entries = [("single", word, "", "main", None) for word in lab_topics(catalog)[slug]]
    if entries:
        section.insert(1, addnodes.index(entries=entries))


def on_env_get_outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """One lab page changed, came or went: every lab page is read again, as its topic words may have moved."""
    labs = set(_lab_docs(catalog_for(env)))
    if not labs & (added | changed | removed):
        return []
    return sorted((labs & env.found_docs) - added - changed)

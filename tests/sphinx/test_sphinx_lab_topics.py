"""Lab topic words: taken from what a lab says about itself, one lab per word, written into the search index."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from infralens.sphinx.catalog import Lab
from infralens.sphinx.lab_topics import choose_topics, declared_keywords, own_words, words


def test_words_keep_hyphenated_words_whole_and_in_parts_without_stop_words_or_numbers() -> None:
    assert words("The IP-Adapter and `axes_dims_rope`, two of 16") == ["ip-adapter", "adapter", "axes", "dims", "rope"]


def test_a_lab_names_itself_by_title_folder_and_declared_keywords(tmp_path: Path) -> None:
    lab = Lab("13-flux", tmp_path / "lab-13-flux", "Lab 13: Flux, a rectified-flow MMDiT", None)
    page = "---\nkeywords: [RoPE, joint attention]\n---\n# Lab 13\n"
    assert own_words(lab, page) == {"flux", "rectified-flow", "rectified", "flow", "mmdit", "rope", "joint attention"}
    assert declared_keywords("---\nkeywords: a, b\n---\n") == ["a", "b"]
    assert declared_keywords("# no front matter\n") == [] and declared_keywords("---\n: [\n---\n") == []


def test_each_word_goes_to_one_lab_own_words_first_then_the_lab_that_uses_it_most() -> None:
    texts = {"a": "offload offload rope rope rope cache", "b": "offload offload offload model", "c": "cache cache model model"}
    own = {"a": {"offload"}, "b": {"offload"}, "c": set()}
    borrowed = {"a": ["rope", "cache"], "c": ["model", "cache"]}
    # offload: both name it, b uses it more. rope: a pair's word a uses and no other lab does. cache: a pair's word
    # of a and of c, kept by c only (a uses it less than twice as often as c). model: c uses it twice as often as b.
    assert choose_topics(own, borrowed, texts) == {"a": ("rope",), "b": ("offload",), "c": ("cache", "model")}
    texts["b"] += " model"
    assert choose_topics(own, borrowed, texts)["c"] == ("cache",)  # now b uses "model" as often as c


def test_lab_pages_get_main_index_entries_in_the_search_index_only(fresh_root) -> None:
    root = fresh_root()
    app = SphinxTestApp("html", srcdir=root, warning=StringIO())
    app.build()
    app.cleanup()
    assert "Toy blending" in (Path(app.outdir) / "_infralens/labs/lab-01-toy/index.html").read_text("utf-8")
    index = json.loads(re.search(r"Search\.setIndex\((.*)\)", (Path(app.outdir) / "searchindex.js").read_text("utf-8")).group(1))
    lab = index["docnames"].index("_infralens/labs/lab-01-toy/index")
    assert index["indexentries"]["blending"] == [[lab, "", True]] and index["indexentries"]["toy"] == [[lab, "", True]]
    assert "blending" not in (Path(app.outdir) / "genindex.html").read_text("utf-8")


def test_editing_one_lab_page_rereads_every_lab_page(fresh_root) -> None:
    root = fresh_root()
    (root / "labs" / "lab-02-other").mkdir()
    (root / "labs" / "lab-02-other" / "index.md").write_text("# Lab 02: Other blending\n\nAnother lab.\n", "utf-8")
    first = SphinxTestApp("html", srcdir=root, warning=StringIO())
    first.build()
    first.cleanup()
    page = root / "labs" / "lab-01-toy" / "index.md"
    page.write_text(page.read_text("utf-8") + "\nMore about blending.\n", "utf-8")
    reread: list[str] = []
    app = SphinxTestApp("html", srcdir=root, warning=StringIO())
    app.connect("env-before-read-docs", lambda app, env, docnames: reread.extend(docnames))
    app.build()
    app.cleanup()
    assert {"_infralens/labs/lab-01-toy/index", "_infralens/labs/lab-02-other/index"} <= set(reread)

"""InfraLens for Sphinx: ``extensions = ["infralens.sphinx"]``.

The extension only: it draws what :mod:`infralens.render` lays out, from annotations loaded and
resolved once per build (:mod:`.catalog`), and generates the source browser, function, lab and
comparison pages (:mod:`.pages`, written by :mod:`.generated`). Coverage maps are a second
extension, :mod:`.coverage`. :func:`setup` is the table of contents: one line per part, each
naming the module that owns it. Everything is registered on the app it is given: no function, class or
module of Sphinx or MyST is replaced, and what a build works out is kept on its environment (:mod:`.state`).
May import: :mod:`infralens.project`, :mod:`infralens.source`, :mod:`infralens.resolve`,
:mod:`infralens.render`, :mod:`infralens.maintainer` (coverage maps only), :mod:`infralens.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens import __version__
from infralens.sphinx.catalog import load_catalog
from infralens.sphinx.config import CONFIG_VALUES, Settings
from infralens.sphinx.contents import PRIORITY as CONTENTS_PRIORITY, on_doctree_read as add_functions_to_contents
from infralens.sphinx.cost import COST_VISITORS, CostDirective, cost_figure
from infralens.sphinx.directives import BacklinksTransform, CompareDirective, ConceptDirective, FunctionDirective
from infralens.sphinx.domain import InfralensDomain
from infralens.sphinx.events import on_builder_inited, on_config_inited, on_env_get_outdated, on_env_get_updated
from infralens.sphinx.lab_policy import DOCTREE_PRIORITY, on_doctree_read, on_source_read
from infralens.sphinx.lab_topics import on_doctree_read as add_lab_topics, on_env_get_outdated as on_labs_outdated
from infralens.sphinx.learning_path import LearningPathDirective, on_doctree_read as add_path_place
from infralens.sphinx.mathml import visit_math_block_html, visit_math_html
from infralens.sphinx.myst_guard import GuardedInclude, GuardedMystParser
from infralens.sphinx.nodes import VISITORS
from infralens.sphinx.page_config import SOURCE_READ_PRIORITY, on_source_read as refuse_page_config
from infralens.sphinx.search_rank import (
    on_doctree_read as measure_lab_words,
    on_env_merge_info as merge_lab_words,
    on_env_purge_doc as forget_lab_words,
    on_html_page_context as add_search_ranking,
)
from infralens.sphinx.tex_check import LeftoverTexCheck
from infralens.sphinx.titles import BreakableTitles

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

__all__ = ["Settings", "load_catalog", "setup"]


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("myst_parser")  # notes, generated pages and labs are MyST Markdown
    app.add_source_parser(GuardedMystParser, override=True)  # myst_guard: this app's MyST reads no page configuration
    app.add_directive_to_domain("std", "include", GuardedInclude, override=True)  # myst_guard: nor a file an include hands to MyST

    for value in CONFIG_VALUES:  # config: the infralens_* settings
        app.add_config_value(value.name, value.fresh_default(), "env", types=frozenset({value.kind}), description=value.description)
    for node, visitors in VISITORS.items():  # nodes: the annotated-function view, per builder
        app.add_node(node, override=True, **visitors)
    app.add_domain(InfralensDomain)  # domain: which page embeds which function
    app.add_directive("infralens-function", FunctionDirective, override=True)  # directives
    app.add_directive("infralens-compare", CompareDirective, override=True)
    app.add_directive("infralens-concept", ConceptDirective, override=True)  # concept map pairs with their prose
    app.add_node(cost_figure, override=True, **COST_VISITORS)  # cost: a cost-*.svg figure, written by the HTML visitor
    app.add_directive("infralens-cost", CostDirective, override=True)  # cost: a table and figure from reports/cost.json
    app.add_directive("infralens-learning-path", LearningPathDirective, override=True)  # learning_path: tracks and labs as cards
    app.add_post_transform(BacklinksTransform)  # directives: "Shown on" links of function pages
    app.add_post_transform(LeftoverTexCheck)  # tex_check: TeX that did not become math is a warning
    app.add_post_transform(BreakableTitles)  # titles: dotted names in titles break after a dot, not inside a name
    app.add_html_math_renderer("infralens_mathml", (visit_math_html, None), (visit_math_block_html, None))  # mathml
    app.add_css_file("infralens.css")  # static/
    app.add_css_file("infralens-path.css")  # static/: the learning path's cards
    app.add_js_file("infralens-search.js", loading_method="defer")  # static/: search snippets from prose, not code
    app.add_js_file("infralens-margin.js", loading_method="defer")  # static/: notes beside their lines, code in one block
    app.add_js_file("infralens-history.js", loading_method="defer")  # static/: pick your release, see which notes do not hold

    app.connect("config-inited", on_config_inited)  # events: theme, static path, no MathJax
    app.connect("builder-inited", on_builder_inited)  # events: load the catalog, write generated pages
    app.connect("env-get-outdated", on_env_get_outdated)  # events: a report came or went
    app.connect("env-get-updated", on_env_get_updated)  # events: function pages whose backlinks changed
    app.connect("source-read", on_source_read)  # lab_policy: refused blocks of untrusted lab pages
    app.connect("source-read", refuse_page_config, priority=SOURCE_READ_PRIORITY)  # page_config: front matter cannot configure MyST
    app.connect("doctree-read", on_doctree_read, priority=DOCTREE_PRIORITY)  # lab_policy: refused inline nodes
    app.connect("doctree-read", add_path_place)  # learning_path: a lab page says where it sits on the path
    app.connect("doctree-read", add_lab_topics)  # lab_topics: a lab ranks first in search for its topic words
    app.connect("doctree-read", measure_lab_words)  # search_rank: how strongly a lab page teaches each word
    app.connect("env-purge-doc", forget_lab_words)  # search_rank
    app.connect("env-merge-info", merge_lab_words)  # search_rank: after parallel reads
    app.connect("html-page-context", add_search_ranking)  # search_rank: the search page ranks the teaching lab first
    app.connect("env-get-outdated", on_labs_outdated)  # lab_topics: a lab page changed, every lab's words may move
    app.connect("doctree-read", add_functions_to_contents, priority=CONTENTS_PRIORITY)  # contents: every function in the ToC
    # env_version 3: a read-only build's pickled project (staging) and the build state changed shape
    return {"version": __version__, "env_version": 3, "parallel_read_safe": True, "parallel_write_safe": True}

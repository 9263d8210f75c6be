"""InfraLens for Sphinx: ``extensions = ["infralens.sphinx"]``."""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    from infralens import __version__
    from infralens.sphinx import config, nodes
    from infralens.sphinx.directives import BacklinksTransform, CompareDirective, FunctionDirective
    from infralens.sphinx.domain import InfralensDomain
    from infralens.sphinx.events import on_builder_inited, on_config_inited, on_env_get_outdated, on_env_get_updated
    from infralens.sphinx.mathml import visit_math_block_html, visit_math_html

    app.setup_extension("myst_parser")
    config.register(app)
    nodes.register(app)
    app.add_domain(InfralensDomain)
    app.add_directive("infralens-function", FunctionDirective, override=True)
    app.add_directive("infralens-compare", CompareDirective, override=True)
    app.add_post_transform(BacklinksTransform)
    app.add_html_math_renderer("infralens_mathml", (visit_math_html, None), (visit_math_block_html, None))
    app.add_css_file("infralens.css")
    app.connect("config-inited", on_config_inited)
    app.connect("builder-inited", on_builder_inited)
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("env-get-updated", on_env_get_updated)
    return {"version": __version__, "env_version": 1, "parallel_read_safe": True, "parallel_write_safe": True}

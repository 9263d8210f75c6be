"""Sphinx configuration of the InfraLens site (``make site``)."""

from infralens import __version__

project = "InfraLens"
author = "InfraLens contributors"
copyright = "2026, InfraLens contributors; annotated code: diffusers (Apache-2.0) and DiffSynth-Studio (Apache-2.0)"
release = version = __version__

extensions = ["myst_parser", "sphinx_design", "infralens.sphinx", "infralens.sphinx.coverage"]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_update_mathjax = False  # no MathJax here; leaving it on changes the config on every build

source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# Paths are relative to this folder; the project root (annotations/, labs/) is its parent.
infralens_project_root = ".."
infralens_reports_dir = "../reports"

html_theme = "furo"
html_title = f"InfraLens {version}"
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"
# Readable highlighting in both of furo's modes.
pygments_style = "friendly"
pygments_dark_style = "monokai"
# Formulas are rendered to MathML at build time by infralens.sphinx: no CDN, works offline.
html_math_renderer = "infralens_mathml"
html_copy_source = False

"""Handlers of Sphinx events: load the catalog, generate pages, rewrite changed backlinks."""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment

from infralens.sphinx.catalog import catalog_for, load_catalog, store_catalog
from infralens.sphinx.config import settings_of
from infralens.sphinx.domain import docs_to_rewrite, domain_of
from infralens.sphinx.generated import remove_generated
from infralens.sphinx.pages import function_pages, generate
from infralens.sphinx.staging import choose_base, serve_from
from infralens.sphinx.state import reset

STATIC_DIR = Path(__file__).parent / "static"


THEMES_WITH_CONFIG = ("furo",)
"""Themes that register config values; loaded early so incremental builds compare configs correctly."""


def on_config_inited(app: Sphinx, config: Config) -> None:
    if config.html_theme in THEMES_WITH_CONFIG:
        # Sphinx loads a theme's package only when the HTML builder starts, after it compared the
        # pickled config with this one: furo's 'pygments_dark_style' then looks changed and every
        # page is re-read on every build. Loading it now keeps incremental builds incremental.
        app.setup_extension(config.html_theme)
    config.html_static_path = [*config.html_static_path, str(STATIC_DIR)]
    if config.html_math_renderer in (None, "infralens_mathml") and "myst_update_mathjax" in config:
        # MyST would edit mathjax4_config at build time, so the config never compares equal
        # to the pickled one and every page is re-read; MathML needs no MathJax at all.
        config.myst_update_mathjax = False


def on_builder_inited(app: Sphinx) -> None:
    reset(app.env)  # this build's state starts empty, whatever an earlier build in this process kept
    settings = settings_of(app.config, Path(app.confdir))
    catalog = load_catalog(settings)
    store_catalog(app.env, catalog)
    if settings.generate_pages:
        base = choose_base(app, settings.generated_dir)
        generate(catalog, base)
        if base != Path(app.srcdir):
            serve_from(app, base, settings.generated_dir)
    else:  # pages an earlier build generated must not stay published: their sources and their built pages go
        outfile = getattr(app.builder, "get_outfilename", None)
        outdir = Path(app.outdir).resolve()
        for docname in remove_generated(Path(app.srcdir), settings.generated_dir):
            built = Path(outfile(docname)).resolve() if outfile else None
            if built is not None and built.is_relative_to(outdir) and built.is_file():
                built.unlink()


def on_env_get_outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """A report that appeared or disappeared changes the badges of every page showing code."""
    domain = domain_of(env)
    if domain.reports_changed(catalog_for(env).reports.files):
        return sorted(doc for doc in domain.uses if doc in env.all_docs)
    return []


def on_env_get_updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Function pages whose "shown on" links changed must be written again (not re-read)."""
    return sorted(docs_to_rewrite(env, function_pages(catalog_for(env))))

"""Handlers of Sphinx events: load the catalog, generate pages, rewrite changed backlinks."""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment

from .catalog import catalog_for, load_catalog, store_catalog
from .config import settings_of
from .domain import docs_to_rewrite
from .pages import function_pages, generate

STATIC_DIR = Path(__file__).parent / "static"


def on_config_inited(app: Sphinx, config: Config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC_DIR)]


def on_builder_inited(app: Sphinx) -> None:
    settings = settings_of(app.config, Path(app.confdir))
    catalog = load_catalog(settings)
    store_catalog(app.env, catalog)
    if settings.generate_pages:
        generate(catalog, Path(app.srcdir))


def on_env_get_updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Function pages whose "shown on" links changed must be written again (not re-read)."""
    return sorted(docs_to_rewrite(env, function_pages(catalog_for(env))))

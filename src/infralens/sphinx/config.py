"""The ``infralens_*`` configuration values and the settings they resolve to."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

from infralens.errors import InfralensError
from infralens.project import Project, find_project

DEFAULT_UPSTREAM_URLS = {
    "diffusers": "https://github.com/huggingface/diffusers/blob/v{version}/src/{relpath}#L{start}-L{end}",
    "diffsynth": "https://github.com/modelscope/DiffSynth-Studio/blob/v{version}/{relpath}#L{start}-L{end}",
}


def register(app: Sphinx) -> None:
    """Declare every config value with its type; paths are relative to ``conf.py``'s folder."""
    app.add_config_value(
        "infralens_project_root", "", "env", types=frozenset({str}), description="folder holding annotations/ and labs/ (default: found upwards from conf.py)"
    )
    app.add_config_value("infralens_annotations_dir", "", "env", types=frozenset({str}), description="annotation YAML folder (default: the project's)")
    app.add_config_value("infralens_labs_dir", "", "env", types=frozenset({str}), description="labs folder with lab-*/index.md (default: the project's)")
    app.add_config_value(
        "infralens_sources", {}, "env", types=frozenset({dict}), description="distribution -> directory or .whl read instead of the installed one"
    )
    app.add_config_value(
        "infralens_reports_dir", "", "env", types=frozenset({str}), description="folder with check.json and verify-*.json (default: <project>/reports)"
    )
    app.add_config_value(
        "infralens_upstream_urls",
        dict(DEFAULT_UPSTREAM_URLS),
        "env",
        types=frozenset({dict}),
        description="distribution -> URL template with {version} {relpath} {start} {end}",
    )
    app.add_config_value(
        "infralens_generate_pages", True, "env", types=frozenset({bool}), description="generate the source browser, function pages and lab pages"
    )
    app.add_config_value(
        "infralens_generated_dir", "_infralens", "env", types=frozenset({str}), description="folder inside the source dir that receives generated pages"
    )
    app.add_config_value("infralens_fold_min_lines", 12, "env", types=frozenset({int}), description="unannotated stretches at least this long are folded")


@dataclass(frozen=True)
class Settings:
    """Config values turned into absolute paths and plain types."""

    project_root: Path
    annotations_dir: Path
    labs_dir: Path
    reports_dir: Path
    sources: dict[str, str] = field(default_factory=dict)
    upstream_urls: dict[str, str] = field(default_factory=dict)
    generate_pages: bool = True
    generated_dir: str = "_infralens"
    fold_min_lines: int = 12


def settings_of(config: Config, confdir: Path) -> Settings:
    """Resolve the config against ``conf.py``'s folder and the project found from it."""

    def path(value: str, default: Path) -> Path:
        return (confdir / value).resolve() if value else default

    if config.infralens_project_root:
        project = _project_at((confdir / config.infralens_project_root).resolve())
    else:
        try:
            project = find_project(confdir)
        except InfralensError:
            project = _project_at(confdir)
    urls = dict(DEFAULT_UPSTREAM_URLS)
    urls.update(config.infralens_upstream_urls or {})
    sources = {dist: _source_spec(confdir, str(spec)) for dist, spec in (config.infralens_sources or {}).items()}
    generated = config.infralens_generated_dir.strip("/") or "_infralens"
    return Settings(
        project_root=project.root,
        annotations_dir=path(config.infralens_annotations_dir, project.annotations_dir),
        labs_dir=path(config.infralens_labs_dir, project.labs_dir),
        reports_dir=path(config.infralens_reports_dir, project.root / "reports"),
        sources=sources,
        upstream_urls=urls,
        generate_pages=bool(config.infralens_generate_pages),
        generated_dir=generated,
        fold_min_lines=max(3, int(config.infralens_fold_min_lines)),
    )


def _project_at(root: Path) -> Project:
    try:
        found = find_project(root)
    except InfralensError:
        found = None
    if found is not None and found.root == root:
        return found
    return Project(root, root / "annotations", root / "labs", root / "annotations" / "annotations.lock")


def _source_spec(confdir: Path, spec: str) -> str:
    """A directory or wheel relative to ``conf.py`` becomes absolute; other specs stay as given."""
    candidate = (confdir / spec).resolve()
    if candidate.exists() or "/" in spec or spec.endswith(".whl"):
        return str(candidate)
    return spec

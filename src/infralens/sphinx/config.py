"""The ``infralens_*`` configuration values and the settings they resolve to."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sphinx.config import Config
from sphinx.errors import ConfigError

from infralens.annotations import CONCEPTS_FILE
from infralens.errors import InfralensError
from infralens.libraries import DEFAULT_DISTRIBUTIONS, DEFAULT_UPSTREAM, check_template
from infralens.project import Project, ProjectNotFound, find_project

DEFAULT_UPSTREAM_URLS: dict[str, str] = {}
"""Templates set in ``conf.py`` win over the project's ``[tool.infralens.upstream]`` (:mod:`infralens.libraries`),
which wins over :data:`infralens.libraries.DEFAULT_UPSTREAM`. A distribution with none links to its repository at
the release tag when its metadata names one (:mod:`.upstream`); ``""`` means no link."""


@dataclass(frozen=True)
class ConfigValue:
    """One ``infralens_*`` setting as :func:`~infralens.sphinx.setup` declares it (rebuild: ``env``)."""

    name: str
    default: object
    kind: type
    description: str

    def fresh_default(self) -> object:
        """The default, copied when mutable, so no build can change another's."""
        if isinstance(self.default, dict | list):
            return type(self.default)(self.default)
        return self.default


CONFIG_VALUES = (
    ConfigValue("infralens_project_root", "", str, "folder holding annotations/ and labs/ (default: found upwards from conf.py)"),
    ConfigValue("infralens_annotations_dir", "", str, "annotation YAML folder (default: the project's)"),
    ConfigValue("infralens_labs_dir", "", str, "labs folder with lab-*/index.md (default: the project's)"),
    ConfigValue("infralens_concepts", "", str, "concept map pairing functions of two distributions (default: <labs>/concepts.yaml)"),
    ConfigValue("infralens_sources", {}, dict, "distribution -> directory or .whl read instead of the installed one"),
    ConfigValue("infralens_reports_dir", "", str, "folder with check.json and verify-*.json (default: <project>/reports)"),
    ConfigValue(
        "infralens_upstream_urls",
        DEFAULT_UPSTREAM_URLS,
        dict,
        "distribution -> URL template with {version} {public_version} {path} {line} {end} "
        "('' for no link; default: pyproject.toml's [tool.infralens.upstream])",
    ),
    ConfigValue(
        "infralens_generate_pages", True, bool, "generate the source browser, function pages and lab pages (off: the pages an earlier build wrote are removed)"
    ),
    ConfigValue("infralens_generated_dir", "_infralens", str, "folder inside the source dir that receives generated pages"),
    ConfigValue("infralens_fold_min_lines", 12, int, "unannotated stretches at least this long are folded"),
    ConfigValue(
        "infralens_trusted_labs",
        [],
        list,
        "lab slugs (or '*') whose pages may use any directive, raw HTML and any link; the others follow the lab allow-list (infralens.sphinx.lab_allow)",
    ),
    ConfigValue("infralens_preview_lab", "", str, "infralens preview: every page of the source dir is this lab's (slug), under the lab-text rules"),
)
"""Every setting; paths are relative to ``conf.py``'s folder."""


@dataclass(frozen=True)
class Settings:
    """Config values turned into absolute paths and plain types."""

    project_root: Path
    annotations_dir: Path
    labs_dir: Path
    reports_dir: Path
    concepts_file: Path | None = None
    """The concept map (:mod:`infralens.annotations.concepts`); None: ``<labs_dir>/concepts.yaml``."""
    sources: dict[str, str] = field(default_factory=dict)
    upstream_urls: dict[str, str] = field(default_factory=dict)
    distributions: tuple[str, ...] = DEFAULT_DISTRIBUTIONS
    """The distributions the project annotates (``[tool.infralens] distributions``): badges, compare pages."""
    generate_pages: bool = True
    generated_dir: str = "_infralens"
    fold_min_lines: int = 12
    trusted_labs: tuple[str, ...] = ()
    preview_lab: str = ""
    """``infralens preview`` of a lab: the source dir is a copy of this lab's folder, and its pages are lab pages."""


def settings_of(config: Config, confdir: Path) -> Settings:
    """Resolve the config against ``conf.py``'s folder and the project found from it."""

    def path(value: str, default: Path) -> Path:
        return (confdir / value).resolve() if value else default

    try:
        if config.infralens_project_root:
            project = _project_at((confdir / config.infralens_project_root).resolve())
        else:
            try:
                project = find_project(confdir)
            except ProjectNotFound:
                project = _project_at(confdir)
        urls = dict(DEFAULT_UPSTREAM)
        urls.update(project.libraries.upstream)
        for dist, template in (config.infralens_upstream_urls or {}).items():
            check_template(template if isinstance(template, str) else repr(template), f"conf.py: infralens_upstream_urls[{dist!r}]")
            urls[str(dist)] = template
    except InfralensError as error:  # the project's settings are wrong: the build stops with the message, no traceback
        raise ConfigError(str(error)) from None
    sources = {dist: _source_spec(confdir, str(spec)) for dist, spec in (config.infralens_sources or {}).items()}
    generated = config.infralens_generated_dir.strip("/") or "_infralens"
    labs_dir = path(config.infralens_labs_dir, project.labs_dir)
    return Settings(
        project_root=project.root,
        annotations_dir=path(config.infralens_annotations_dir, project.annotations_dir),
        labs_dir=labs_dir,
        reports_dir=path(config.infralens_reports_dir, project.root / "reports"),
        concepts_file=path(config.infralens_concepts, labs_dir / CONCEPTS_FILE),
        sources=sources,
        upstream_urls=urls,
        distributions=project.distributions,
        generate_pages=bool(config.infralens_generate_pages),
        generated_dir=generated,
        fold_min_lines=max(3, int(config.infralens_fold_min_lines)),
        trusted_labs=tuple(str(slug) for slug in config.infralens_trusted_labs or ()),
        preview_lab=str(config.infralens_preview_lab or ""),
    )


def _project_at(root: Path) -> Project:
    try:
        found = find_project(root)
    except ProjectNotFound:
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

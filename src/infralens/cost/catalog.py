"""``costs/models.yaml``: the published configurations, read into frozen specs with errors naming file and line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infralens.errors import InfralensError

LIBRARIES = ("diffusers", "transformers", "diffsynth")
KINDS = ("unet", "unet-sdxl", "flux", "vae", "text", "none")
"""What a model's forward takes: a UNet's latents, SDXL's extra conditioning, Flux's packed tokens, a VAE's latents to decode, token ids, or nothing we run."""


class CatalogError(InfralensError):
    """``costs/models.yaml`` is missing, not YAML, or names something it cannot."""


@dataclass(frozen=True)
class ModelSpec:
    """One model at its published configuration."""

    id: str
    library: str
    class_name: str
    kind: str
    source: str
    config: tuple[tuple[str, Any], ...]
    module: str = ""
    """DiffSynth's module file (dotted), loaded by path."""
    config_class: str = ""
    """transformers' config class."""
    sequence: int = 0
    """Text encoders: tokens per prompt."""
    published_params: int = 0
    line: int = 0

    def config_dict(self) -> dict[str, Any]:
        return {key: list(value) if isinstance(value, tuple) else value for key, value in self.config}


@dataclass(frozen=True)
class PipelineSpec:
    """Models put together for one image."""

    id: str
    denoiser: str
    text_encoders: tuple[str, ...]
    vae: str
    resolutions: tuple[tuple[int, int], ...]
    steps: int
    cfg: bool
    source: str


@dataclass(frozen=True)
class Catalog:
    path: Path
    text: str
    models: tuple[ModelSpec, ...]
    pipelines: tuple[PipelineSpec, ...]

    def model(self, model_id: str) -> ModelSpec:
        for spec in self.models:
            if spec.id == model_id:
                return spec
        raise CatalogError(f"{self.path}: no model {model_id!r} (known: {', '.join(m.id for m in self.models)})")


def default_catalog_path(start: Path | None = None) -> Path:
    """``costs/models.yaml`` in the project above *start* (default: the working directory)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "costs" / "models.yaml"
        if candidate.is_file():
            return candidate
    raise CatalogError(f"no costs/models.yaml in {here} or above — run from the InfraLens checkout or pass --catalog")


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


def load_catalog(path: Path) -> Catalog:
    """Read *path*; every problem names the file and the line of the entry at fault."""
    import yaml

    try:
        text = path.read_text("utf-8")
    except OSError as error:
        raise CatalogError(f"{path}: cannot read: {error.strerror}") from None
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise CatalogError(f"{path}{where}: not valid YAML: {getattr(error, 'problem', error)}") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise CatalogError(f"{path}:1: expected a mapping with a 'models' mapping")
    lines = _lines(root)
    models = tuple(_model(path, key, value, lines.get(("models", key), 0)) for key, value in data["models"].items())
    known = {m.id for m in models}
    pipelines = []
    for key, value in (data.get("pipelines") or {}).items():
        line = lines.get(("pipelines", key), 0)
        try:
            pipe = PipelineSpec(
                id=str(key),
                denoiser=str(value["denoiser"]),
                text_encoders=tuple(str(v) for v in value.get("text_encoders", [])),
                vae=str(value["vae"]),
                resolutions=tuple((int(w), int(h)) for w, h in value["resolutions"]),
                steps=int(value["steps"]),
                cfg=bool(value["cfg"]),
                source=str(value.get("source", "")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise CatalogError(f"{path}:{line}: pipeline {key!r}: missing or malformed field {error}") from None
        for name in (pipe.denoiser, pipe.vae, *pipe.text_encoders):
            if name not in known:
                raise CatalogError(f"{path}:{line}: pipeline {key!r} names model {name!r}, which is not under 'models'")
        pipelines.append(pipe)
    return Catalog(path=path, text=text, models=models, pipelines=tuple(pipelines))


def _lines(root: Any) -> dict[tuple[str, str], int]:
    """(section, key) → 1-based line of every entry under ``models`` and ``pipelines``."""
    found: dict[tuple[str, str], int] = {}
    for section_key, section in getattr(root, "value", []) or []:
        if not hasattr(section, "value") or not isinstance(section.value, list):
            continue
        for key_node, _value in section.value:
            if hasattr(key_node, "value"):
                found[(str(section_key.value), str(key_node.value))] = key_node.start_mark.line + 1
    return found


def _model(path: Path, key: object, value: object, line: int) -> ModelSpec:
    if not isinstance(value, dict):
        raise CatalogError(f"{path}:{line}: model {key!r} must be a mapping")
    library = value.get("library")
    if library not in LIBRARIES:
        raise CatalogError(f"{path}:{line}: model {key!r}: library must be one of {', '.join(LIBRARIES)}, not {library!r}")
    kind = value.get("kind", "none")
    if kind not in KINDS:
        raise CatalogError(f"{path}:{line}: model {key!r}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    config = value.get("config") or {}
    if not isinstance(config, dict) or not value.get("class") or not value.get("source"):
        raise CatalogError(f"{path}:{line}: model {key!r} needs 'class', 'source' and a 'config' mapping")
    if library == "diffsynth" and not value.get("module"):
        raise CatalogError(f"{path}:{line}: model {key!r}: a diffsynth model needs 'module' (e.g. diffsynth.models.flux_dit)")
    return ModelSpec(
        id=str(key),
        library=library,
        class_name=str(value["class"]),
        kind=kind,
        source=str(value["source"]),
        config=tuple((str(k), _freeze(v)) for k, v in config.items()),
        module=str(value.get("module", "")),
        config_class=str(value.get("config_class", "")),
        sequence=int(value.get("sequence", 0)),
        published_params=int(value.get("published_params", 0)),
        line=line,
    )

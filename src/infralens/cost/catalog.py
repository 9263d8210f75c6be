"""``costs/models.yaml``: the published configurations, read into frozen specs with errors naming file and line.

The catalog is data (:mod:`.rules` says what it may hold). :func:`load_catalog` is its one reader, for the
project's file and ``--catalog`` alike: a regular file only (never a FIFO, device or folder) of at most
:data:`MAX_CATALOG_BYTES`, UTF-8 errors at their line, YAML through :func:`infralens.annotations.load_positioned`
(alias, size and depth limits, no tags, no duplicate keys). Every rule is applied here, before anything is built:
nothing in the file runs, and a ``module:`` that is not a file inside the installed diffsynth folder is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn

from infralens.annotations import PositionedDocument, YamlProblem, load_positioned
from infralens.cachedir import NotRegularFile, read_regular
from infralens.cost import rules
from infralens.errors import InfralensError

LIBRARIES = rules.LIBRARIES
KINDS = rules.KINDS
MAX_CATALOG_BYTES = 1_000_000
"""Largest catalog read (the project's is under 10 KB)."""


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
    catalog: str = "costs/models.yaml"
    """The catalog file it was read from (for messages)."""

    def config_dict(self) -> dict[str, Any]:
        return {key: _thaw(value) for key, value in self.config}

    @property
    def where(self) -> str:
        """``file:line`` of the entry, for messages."""
        return f"{self.catalog}:{self.line}"


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
    if isinstance(value, dict):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(item) for item in value]
    if isinstance(value, MappingProxyType):
        return {key: _thaw(item) for key, item in value.items()}
    return value


def _short(value: object) -> str:
    """*value*'s repr, cut to 60 characters (a message never repeats a long hostile value)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_catalog_text(path: Path) -> str:
    """The text of *path*: a regular file of at most :data:`MAX_CATALOG_BYTES`, valid UTF-8 (line ends made ``\\n``)."""
    try:
        raw = read_regular(path, limit=MAX_CATALOG_BYTES)
    except NotRegularFile as error:
        raise CatalogError(f"{path}: cannot read: it {error.strerror} — pass the YAML catalog file (costs/models.yaml)") from None
    except OSError as error:
        raise CatalogError(f"{path}: cannot read: {error.strerror} — check the path") from None
    if len(raw) > MAX_CATALOG_BYTES:
        raise CatalogError(f"{path}: larger than {MAX_CATALOG_BYTES // 1_000_000} MB, not a model catalog — check the path")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise CatalogError(f"{path}:{line}: not valid UTF-8 — save the catalog as UTF-8") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as a text-mode read gives it (the report's fingerprint hashes this text)


def load_catalog(path: Path) -> Catalog:
    """Read *path*; every problem names the file and the line of the entry at fault. Nothing in it is run."""
    text = read_catalog_text(path)
    try:
        document = load_positioned(text, str(path), kind="the model catalog")
    except YamlProblem as problem:
        found = problem.diagnostic
        raise CatalogError(f"{path}:{found.location.line}: not valid YAML: {found.message} — {found.hint}") from None
    return _Reader(path, document).catalog(text)


class _Reader:
    """One catalog document being read: its values, where each came from, and how its numbers were written."""

    def __init__(self, path: Path, document: PositionedDocument) -> None:
        self.path = path
        self.document = document

    def line(self, at: tuple[str | int, ...]) -> int:
        return self.document.where(at).line

    def fail(self, at: tuple[str | int, ...], message: str) -> NoReturn:
        raise CatalogError(f"{self.path}:{self.line(at)}: {message}")

    def mapping(self, value: object, at: tuple[str | int, ...], allowed: tuple[str, ...], what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(at, f"{what} must be a mapping")
        unknown = [key for key in value if key not in allowed]
        if unknown:
            self.fail((*at, unknown[0], "__key__"), f"{what}: unknown key {_short(unknown[0])} (allowed: {', '.join(allowed)})")
        return value

    def whole(self, field: str, value: object, at: tuple[str | int, ...], entry: tuple[str | int, ...], what: str) -> int:
        """The whole number at *at* (problems are reported at the line of *entry*, as every problem of an entry)."""
        try:
            return rules.whole_number(field, value, self.document.number_texts.get(at))
        except ValueError as error:
            self.fail(entry, f"{what}: {error}")

    def text(self, value: object, entry: tuple[str | int, ...], what: str, field: str) -> str:
        if not isinstance(value, str) or not value or len(value) > rules.MAX_TEXT:
            self.fail(entry, f"{what}: '{field}' must be text of 1 to {rules.MAX_TEXT} characters")
        return value

    def catalog(self, text: str) -> Catalog:
        data = self.document.value
        if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
            self.fail((), "expected a mapping with a 'models' mapping")
        self.mapping(data, (), rules.TOP_KEYS, "the catalog")
        models = tuple(self.model(key, value) for key, value in data["models"].items())
        known = {m.id for m in models}
        pipelines = data.get("pipelines") or {}
        if not isinstance(pipelines, dict):
            self.fail(("pipelines",), "'pipelines' must be a mapping")
        return Catalog(path=self.path, text=text, models=models, pipelines=tuple(self.pipeline(key, value, known) for key, value in pipelines.items()))

    def model(self, key: str, value: object) -> ModelSpec:
        at = ("models", key)
        entry = ("models", key, "__key__")
        what = f"model {_short(key)}"
        if (problem := rules.id_problem(key)) is not None:
            self.fail(entry, f"{what}: {problem}")
        fields = self.mapping(value, entry, rules.MODEL_KEYS, what)
        library, kind = fields.get("library"), fields.get("kind", "none")
        if library not in LIBRARIES:
            self.fail(entry, f"{what}: library must be one of {', '.join(LIBRARIES)}, not {_short(library)}")
        if kind not in KINDS:
            self.fail(entry, f"{what}: kind must be one of {', '.join(KINDS)}, not {_short(kind)}")
        config = fields.get("config") or {}
        if not isinstance(config, dict) or not fields.get("class") or not fields.get("source"):
            self.fail(entry, f"{what} needs 'class', 'source' and a 'config' mapping")
        written = self.document.number_texts
        problem = rules.class_name_problem(fields["class"]) or rules.config_value_problem(config, ("config",), lambda p: written.get((*at, *p)))
        if problem is not None:
            self.fail(entry, f"{what}: {problem}")
        counts = {name: self.whole(name, fields[name], (*at, name), entry, what) if name in fields else 0 for name in ("sequence", "published_params")}
        return ModelSpec(
            id=key,
            library=library,
            class_name=fields["class"],
            kind=kind,
            source=self.text(fields["source"], entry, what, "source"),
            config=tuple((name, _freeze(item)) for name, item in config.items()),
            module=self.module(library, fields.get("module"), entry, what),
            config_class=self.config_class(library, fields.get("config_class"), entry, what),
            sequence=counts["sequence"],
            published_params=counts["published_params"],
            line=self.line(entry),
            catalog=str(self.path),
        )

    def module(self, library: str, value: object, entry: tuple[str | int, ...], what: str) -> str:
        """A diffsynth model's module: a dotted name whose file is inside the installed package folder (nothing is imported)."""
        if library != "diffsynth":
            if value is not None:
                self.fail(entry, f"{what}: 'module' is only for diffsynth models (diffusers and transformers classes are found by name)")
            return ""
        if not value:
            self.fail(entry, f"{what}: a diffsynth model needs 'module' (e.g. diffsynth.models.flux_dit)")
        from infralens.tiny import diffsynth_module_file, diffsynth_name_problem

        problem = diffsynth_name_problem(value)
        if problem is not None:
            self.fail(entry, f"{what}: {problem} — write the module as dotted names, e.g. diffsynth.models.flux_dit")
        assert isinstance(value, str)
        try:
            diffsynth_module_file(value)
        except ValueError as error:
            self.fail(entry, f"{what}: {error} — name a module file of the installed diffsynth package")
        except ModuleNotFoundError as error:
            if error.name != "diffsynth":  # diffsynth absent: the name is checked again when the model is built
                self.fail(entry, f"{what}: {error} — name a module file of the installed diffsynth package")
        return value

    def config_class(self, library: str, value: object, entry: tuple[str | int, ...], what: str) -> str:
        if library != "transformers":
            if value is not None:
                self.fail(entry, f"{what}: 'config_class' is only for transformers models")
            return ""
        problem = rules.config_class_problem(value)
        if problem is not None:
            self.fail(entry, f"{what}: {problem}, not {_short(value)} — add a class to CONFIG_CLASSES in infralens/cost/rules.py only after reading it")
        assert isinstance(value, str)
        return value

    def pipeline(self, key: str, value: object, known: set[str]) -> PipelineSpec:
        at = ("pipelines", key)
        entry = ("pipelines", key, "__key__")
        what = f"pipeline {_short(key)}"
        if (problem := rules.id_problem(key)) is not None:
            self.fail(entry, f"{what}: {problem}")
        fields = self.mapping(value, entry, rules.PIPELINE_KEYS, what)
        missing = [name for name in ("denoiser", "vae", "resolutions", "steps", "cfg") if name not in fields]
        if missing:
            self.fail(entry, f"{what}: missing or malformed field {missing[0]!r}")
        encoders = fields.get("text_encoders", [])
        names = [fields["denoiser"], fields["vae"], *(encoders if isinstance(encoders, list) else [encoders])]
        if not isinstance(encoders, list) or not all(isinstance(name, str) for name in names):
            self.fail(entry, f"{what}: denoiser and vae name a model, text_encoders is a list of model names")
        for name in names:
            if name not in known:
                self.fail(entry, f"{what} names model {_short(name)}, which is not under 'models'")
        sizes = fields["resolutions"]
        if not isinstance(sizes, list) or not sizes or len(sizes) > 32 or not all(isinstance(pair, list) and len(pair) == 2 for pair in sizes):
            self.fail(entry, f"{what}: resolutions must be a list of 1 to 32 [width, height] pairs")
        if not isinstance(fields["cfg"], bool):
            self.fail(entry, f"{what}: cfg must be true or false")
        resolutions = tuple(
            (self.whole("resolution", w, (*at, "resolutions", i, 0), entry, what), self.whole("resolution", h, (*at, "resolutions", i, 1), entry, what))
            for i, (w, h) in enumerate(sizes)
        )
        return PipelineSpec(
            id=key,
            denoiser=fields["denoiser"],
            text_encoders=tuple(encoders),
            vae=fields["vae"],
            resolutions=resolutions,
            steps=self.whole("steps", fields["steps"], (*at, "steps"), entry, what),
            cfg=fields["cfg"],
            source=self.text(fields["source"], entry, what, "source") if "source" in fields else "",
        )

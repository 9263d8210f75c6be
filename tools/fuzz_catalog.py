"""The ``cost-catalog`` fuzz target (issue 38): a cost catalog is data and never code.

Catalogs are built from one plausible model and pipeline whose fields are replaced by hostile values: module
names that are paths (absolute, ``/proc/self/cwd/…``, ``..``, a planted file's own path), factories and
``Auto*`` classes as ``config_class``, loading keys (``trust_remote_code``, ``auto_map``, nested too), numbers in
other spellings, aliases, tags, deep nesting, random text and random bytes. For every case,
:func:`infralens.cost.catalog.load_catalog` returns a catalog or raises ``CatalogError`` naming the file; it
never runs the planted file, never imports a module it did not import before, and every model it accepts
keeps to :mod:`infralens.cost.rules`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from infralens.cost.catalog import CatalogError, load_catalog
from infralens.cost.rules import CONFIG_CLASSES, LIBRARIES, LOADING_KEY_WORDS, LOADING_KEYS

PLANTED = "planted_by_fuzz"
"""The stem of a Python file placed beside every catalog: it writes a canary if anything runs it."""

_MODULES = st.sampled_from(
    [
        "diffsynth.models.flux_dit",
        "diffsynth.models.stable_diffusion_unet",
        f"diffsynth.{PLANTED}",
        f"diffsynth./CATALOG_DIR/{PLANTED}",
        f"diffsynth./proc/self/cwd/{PLANTED}",
        f"/CATALOG_DIR/{PLANTED}",
        f"/CATALOG_DIR/{PLANTED}.py",
        f"diffsynth.models/../../../CATALOG_DIR/{PLANTED}",
        "diffsynth..models",
        "diffsynth.models.import",
        "diffsynth.__init__",
        "diffsynth.models.flux_dit\n  class: X",
        "os",
        "",
        "diffsynth.ｍodels",
    ]
)
_CONFIG_CLASSES = st.sampled_from(
    [
        "CLIPTextConfig",
        "T5Config",
        "AutoConfig",
        "pipeline",
        "PretrainedConfig",
        "os.system",
        "__import__",
        "EncoderDecoderConfig",
        "AutoModel.from_pretrained",
        "",
    ]
)
_KEYS = st.sampled_from(
    [
        "hidden_size",
        "num_layers",
        "trust_remote_code",
        "auto_map",
        "_name_or_path",
        "pretrained_model_name_or_path",
        "token",
        "revision",
        "sub_config",
        "Trust_Remote_Code",
        "__class__",
    ]
)
_NUMBERS = st.sampled_from(
    [
        "4",
        "0x10",
        "1_000",
        "0o17",
        "0b101",
        "017",
        "+5",
        "-3",
        "1:30",
        "true",
        "1e3",
        ".inf",
        ".nan",
        "1" * 40,
        "1" * 5000,
        "!!int 3",
        "!!python/object/apply:os.system ['true']",
        "4.0",
    ]
)
_VALUES = st.one_of(
    _NUMBERS,
    st.sampled_from(
        ["/etc/passwd", "https://example.invalid/x", "../../labs", "gelu", "'a b'", "[1, 2]", "{a: 1}", "*anchor", "&anchor 3", "null", "2024-01-01"]
    ),
)


@st.composite
def catalogs(draw) -> str | bytes:
    """One catalog's text (or bytes), most of them close to a valid one."""
    if draw(st.integers(0, 19)) == 0:
        return draw(st.binary(max_size=400))
    if draw(st.integers(0, 19)) == 0:
        depth = draw(st.integers(1, 400))
        return "models:\n  m:\n    config: " + "[" * depth + "1" + "]" * depth + "\n"
    library = draw(st.sampled_from([*LIBRARIES, "os", "builtins"]))
    lines = [
        "models:",
        "  base: &anchor",
        f"    library: {library}",
        f"    class: {draw(st.sampled_from(['UNet2DConditionModel', 'CLIPTextModel', 'FluxDiT', 'DiffusionPipeline', 'pipeline', 'ConfigMixin']))}",
    ]
    lines.append(f"    kind: {draw(st.sampled_from(['unet', 'text', 'flux', 'none', 'evil']))}")
    lines.append("    source: fuzz")
    if draw(st.booleans()):
        lines.append(f"    module: {draw(_MODULES)}")
    if draw(st.booleans()):
        lines.append(f"    config_class: {draw(_CONFIG_CLASSES)}")
    if draw(st.booleans()):
        lines.append(f"    published_params: {draw(_NUMBERS)}")
    lines.append("    config:")
    for _ in range(draw(st.integers(0, 4))):
        key = draw(_KEYS)
        if draw(st.integers(0, 3)) == 0:
            lines.append(f"      {key}:\n        {draw(_KEYS)}: {draw(_VALUES)}")
        else:
            lines.append(f"      {key}: {draw(_VALUES)}")
    if draw(st.booleans()):
        lines.append("  copy: *anchor")
    if draw(st.booleans()):
        steps = draw(_NUMBERS)
        lines += [
            "pipelines:",
            "  p:",
            "    denoiser: base",
            "    vae: base",
            f"    resolutions: [[{draw(_NUMBERS)}, 512]]",
            f"    steps: {steps}",
            "    cfg: true",
        ]
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 9)) == 0:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.text(max_size=20)) + text[cut:]
    return text


CATALOGS = catalogs()


def check_cost_catalog(case: str | bytes) -> None:
    """Load the catalog beside a planted file; the file never runs, nothing new is imported, accepted models keep the rules."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        canary = root / "CANARY"
        (root / f"{PLANTED}.py").write_text(f"open({str(canary)!r}, 'w').write('ran')\n")
        data = case.replace("CATALOG_DIR", folder.lstrip("/")).encode("utf-8", "surrogatepass") if isinstance(case, str) else case
        path = root / "models.yaml"
        path.write_bytes(data)
        before = set(sys.modules)
        try:
            catalog = load_catalog(path)
        except CatalogError as error:
            assert str(path) in str(error) or "models.yaml" in str(error), str(error)[:200]
            catalog = None
        new = {name for name in set(sys.modules) - before if name.split(".")[0] in ("diffsynth", "transformers", "diffusers", "torch", PLANTED)}
        assert not new, f"the catalog reader imported {sorted(new)[:5]}"
        assert not canary.exists(), "the catalog reader ran the planted file"
        for spec in catalog.models if catalog else ():
            assert spec.library in LIBRARIES
            assert not spec.module or (spec.module.startswith("diffsynth.") and all(part.isidentifier() for part in spec.module.split("."))), spec.module
            assert not spec.config_class or spec.config_class in CONFIG_CLASSES, spec.config_class
            _assert_plain(spec.config_dict())


def _assert_plain(value: object) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            lowered = str(key).lower()
            assert lowered not in LOADING_KEYS and not any(word in lowered for word in LOADING_KEY_WORDS) and not lowered.startswith("_"), key
            _assert_plain(item)
    elif isinstance(value, list):
        for item in value:
            _assert_plain(item)
    else:
        assert value is None or isinstance(value, (bool, int, float, str)), type(value)
        assert not isinstance(value, str) or ("/" not in value and ":" not in value), value

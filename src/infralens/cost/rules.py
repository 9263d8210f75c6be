"""What ``costs/models.yaml`` may say: one table of names and bounds, and the named rules that apply it.

The catalog is data. It names an upstream model class and the plain values its constructor takes; it never
names code to load (a file, a hub repository, remote code) and never a callable other than a model class:

- ``library``, ``kind``: one of :data:`LIBRARIES`, :data:`KINDS`.
- ``class``: a plain class name (:func:`class_name_problem`); at build time it must be a subclass of
  ``torch.nn.Module`` defined in that library (checked in :mod:`.build`).
- ``config_class``: one of :data:`CONFIG_CLASSES` (transformers' configuration classes); at build time a subclass of
  ``PretrainedConfig``.
- ``module``: a dotted name under ``diffsynth`` whose file lies inside the installed package folder
  (:func:`infralens.tiny.diffsynth_module_file`, the one rule for loader and catalog alike).
- ``config``: keys that configure a model, never loading (:func:`config_key_problem`); values are plain data
  (:func:`config_value_problem`): text that names something (no path, no address, never a number spelled as text
  such as ``1e999`` or ``inf``), decimal numbers, booleans, null, and lists and mappings of them; every key is a name.
- numbers: plain decimals (no ``0x``, ``0o``, ``0b``, ``_``, ``1:30``, sign or leading zero: the rule of
  :mod:`infralens.bounds`) within :data:`WHOLE_NUMBERS` (:func:`whole_number`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from infralens.bounds import BadNumber, check_spelling, whole_number as bounded_whole_number

LIBRARIES = ("diffusers", "transformers", "diffsynth")
KINDS = ("unet", "unet-sdxl", "flux", "vae", "text", "decoder", "none")
"""What a model's forward takes: a UNet's latents, SDXL's extra conditioning, Flux's packed tokens, a VAE's latents to decode,
token ids, or nothing we run; a ``decoder`` (a causal language model) is costed from its modules' shapes (:mod:`.decoder`)."""

CONFIG_CLASSES = frozenset(
    {
        "CLIPTextConfig",
        "CLIPVisionConfig",
        "T5Config",
        "UMT5Config",
        "GemmaConfig",
        "Gemma2Config",
        "LlamaConfig",
        "MistralConfig",
        "Qwen2Config",
        "SiglipTextConfig",
        "SiglipVisionConfig",
        "BertConfig",
        "XLMRobertaConfig",
    }
)
"""transformers' configuration classes a catalogued model may be built from: the text and image encoders of
diffusion pipelines and the decoder-only language models costed for serving. Never an ``Auto*`` class, a factory
such as ``pipeline``, or a composite config that builds other configs by name."""

MODEL_KEYS = ("library", "class", "kind", "source", "config", "module", "config_class", "sequence", "published_params")
PIPELINE_KEYS = ("denoiser", "text_encoders", "vae", "resolutions", "steps", "cfg", "source")
TOP_KEYS = ("models", "pipelines")

WHOLE_NUMBERS: dict[str, tuple[int, int]] = {
    "published_params": (1, 10**13),
    "sequence": (1, 1 << 20),
    "steps": (1, 10_000),
    "resolution": (64, 8192),
}
"""Inclusive bounds of each whole-number field (a resolution is also a multiple of 16, as ``--resolution``)."""
CONFIG_INT_LIMIT = 2**31 - 1
"""Largest magnitude of an integer in ``config``."""
MAX_TEXT = 2_000
"""Longest text value (``source`` included)."""
MAX_NAME_TEXT = 200
"""Longest text value in ``config``."""

LOADING_KEYS = frozenset(
    {"token", "mirror", "from_pt", "from_tf", "from_flax", "quantization_config", "device_map", "variant", "use_safetensors", "kernel_config"}
)
LOADING_KEY_WORDS = (
    "remote",
    "hub",
    "auto_map",
    "name_or_path",
    "revision",
    "auth",
    "download",
    "cache_dir",
    "proxies",
    "local_files",
    "subfolder",
    "attn_implementation",
)
"""Config keys that would load something rather than size a model (remote code, hub repositories, files, kernels):
refused exactly (:data:`LOADING_KEYS`) or by the words they contain (:data:`LOADING_KEY_WORDS`)."""

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_CLASS = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,99}")
_FLOAT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?")
_NAME_TEXT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_+.-]*")
"""A text value in ``config``: a name (``gelu``, ``CrossAttnDownBlock2D``, ``gated-gelu``), never a path or an address."""


def id_problem(value: object) -> str | None:
    """Why *value* cannot be a model or pipeline id (None when it can)."""
    if isinstance(value, str) and _ID.fullmatch(value):
        return None
    return "an id is a name of letters, digits, '.', '_' and '-' (at most 100 characters)"


def class_name_problem(value: object) -> str | None:
    """Why *value* cannot name a model class (None when it can): a plain public name, no dots, no leading '_'."""
    if isinstance(value, str) and _CLASS.fullmatch(value):
        return None
    return "'class' must be the plain name of a model class (letters, digits and '_', e.g. UNet2DConditionModel)"


def config_class_problem(value: object) -> str | None:
    """Why *value* cannot be a ``config_class`` (None when it is on the allow-list)."""
    if isinstance(value, str) and value in CONFIG_CLASSES:
        return None
    return f"'config_class' must be one of {', '.join(sorted(CONFIG_CLASSES))}"


def _shown(text: str) -> str:
    """*text*'s repr, cut to 60 characters (a message never repeats a long hostile value)."""
    return repr(text) if len(text) <= 60 else repr(text[:57]) + "..."


def config_key_problem(key: str) -> str | None:
    """Why *key* may not appear in ``config`` (None when it may): a key that is not a name (it becomes a keyword
    argument; YAML's ``1:`` reads as the text ``'1'``), private keys and keys that load rather than size."""
    if not (key.isascii() and key.isidentifier()):
        return f"the config key {_shown(key)} is not a name — a config key is a keyword of the model class: letters, digits and '_', not starting with a digit"
    if key.startswith("_"):
        return f"the config key {_shown(key)} is private (it starts with '_')"
    lowered = key.lower()
    if lowered in LOADING_KEYS or any(word in lowered for word in LOADING_KEY_WORDS):
        return f"the config key {_shown(key)} would load code, files or hub repositories; a catalogued model is built from plain sizes only"
    return None


def _reads_as_number(text: str) -> bool:
    """Whether *text* is a number spelled as text: what ``float`` or ``int(text, 0)`` accept (``1e999``, ``7.0e300``,
    ``0x10``, ``1_000``, ``inf``, ``nan``). YAML 1.1 reads such spellings as text, and a model class then gets a
    string where it wants a number."""
    try:
        float(text)
    except ValueError:
        try:
            int(text, 0)
        except ValueError:
            return False
    return True


def plain_number_problem(value: object, written: str | None, *, signed: bool) -> str | None:
    """Why a number written as *written* is not a plain decimal (None when it is one, or not a number).

    Integers follow :func:`infralens.bounds.check_spelling` (an optional leading ``-`` when *signed*); floats are
    digits with a decimal point and an optional exponent, and finite.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        text = written or ""
        try:
            check_spelling(text[1:] if signed and text.startswith("-") else text, len(str(CONFIG_INT_LIMIT)))
        except BadNumber as error:
            return f"the number {error.problem} — {error.hint}" if error.hint else f"the number {error.problem}"
        return None
    if written is None or len(written) > 40 or not _FLOAT.fullmatch(written) or not math.isfinite(value):
        return "the number is not a plain decimal — write it like 0.18215 (no .inf, .nan or '_')"
    return None


def whole_number(field: str, value: object, written: str | None) -> int:
    """*value* as a whole number in :data:`WHOLE_NUMBERS`' bounds for *field*, written in plain decimal digits
    (:mod:`infralens.bounds`' rule); ValueError saying why otherwise (never quoting the text)."""
    low, high = WHOLE_NUMBERS[field]
    try:
        if isinstance(value, bool) or not isinstance(value, int):
            bounded_whole_number(value, low, high)  # says "must be a whole number, not …"
        check_spelling(written or "", len(str(high)))
        number = bounded_whole_number(value, low, high)
    except BadNumber as error:
        raise ValueError(f"{field} {error.problem}" + (f" — {error.hint}" if error.hint else "")) from None
    if field == "resolution" and number % 16:
        raise ValueError("a resolution's width and height must be multiples of 16")
    return number


Written = Callable[[tuple[str | int, ...]], str | None]
"""How the number at a path was written in the file (None: not known)."""


def config_value_problem(value: object, at: tuple[str | int, ...], written: Written | None = None) -> str | None:
    """Why the config value at *at* is not plain data (None when it is).

    *written* gives each number's text as written in the file; without it (a spec made in code) a number's own
    decimal form is checked, so only its size and finiteness count.
    """
    where = ".".join(str(part) for part in at)
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int) and abs(value) > CONFIG_INT_LIMIT:
        return f"{where}: the integer is larger than {CONFIG_INT_LIMIT}"
    if isinstance(value, (int, float)):
        problem = plain_number_problem(value, written(at) if written else repr(value), signed=True)
        return None if problem is None else f"{where}: {problem}"
    if isinstance(value, str):
        return _text_problem(value, where)
    if isinstance(value, list):
        for index, item in enumerate(value):
            problem = config_value_problem(item, (*at, index), written)
            if problem is not None:
                return problem
        return None
    if isinstance(value, dict):
        return _mapping_problem(value, at, written)
    return f"{where}: only text, numbers, true/false, null, lists and mappings are allowed, not a {type(value).__name__}"


def _text_problem(value: str, where: str) -> str | None:
    """Why a config text is not a name (None when it is one): a number spelled as text, or a path, address or sentence."""
    if len(value) <= MAX_NAME_TEXT and _reads_as_number(value):
        hint = "write a plain decimal number that YAML reads as a number: 64, 0.5 or 1.0e+5 (no '0x', '_', inf or nan)"
        return f"{where}: the text {_shown(value)} is a number spelled as text — {hint}"
    if len(value) <= MAX_NAME_TEXT and _NAME_TEXT.fullmatch(value):
        return None
    return f"{where}: text in a config names something (letters, digits, '_', '.', '+', '-'); it is never a path, address or sentence"


def _mapping_problem(value: dict[Any, Any], at: tuple[str | int, ...], written: Written | None) -> str | None:
    """The first problem of a config mapping, key before value, entry by entry (None when there is none)."""
    where = ".".join(str(part) for part in at)
    for key, item in value.items():
        problem = config_key_problem(key) if isinstance(key, str) else "a config key must be text"
        if problem is not None:
            return f"{where}: {problem}"
        problem = config_value_problem(item, (*at, key), written)
        if problem is not None:
            return problem
    return None

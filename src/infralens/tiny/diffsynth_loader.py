"""Load DiffSynth code without its package ``__init__`` (path-based), or whole with stub modules.

``import diffsynth`` fails on a machine without torchvision: ``diffsynth/__init__`` imports
``diffsynth.core``, whose ``core/data/operators.py`` imports torchvision and imageio and whose
``core/loader/config.py`` imports modelscope. diffsynth 2.1.12 is installed ``--no-deps`` because
its declared torchvision pin would replace the pinned torch. Two ways around it:

**Path-based** (:func:`load_diffsynth_module`): locate the package with ``importlib.util.find_spec``
(does not run ``__init__``), register *empty* parent packages (``diffsynth``, ``diffsynth.models``,
...) whose ``__path__`` points at the real folders, and execute only the requested module file.
A few light sub-packages that modules import relatively (``core.device``, ``core.gradient``,
``core.attention``, ``core.vram``, ``utils.lora``, ``utils.controlnet``) are imported for real.
Nothing is stubbed: the code that runs is the real upstream file. Covers the schedulers
(``diffusion/flow_match.py``, ``diffusion/ddim_scheduler.py``), the SD UNet/VAE/text encoder,
``models/general_modules.py``, ``core/vram``, ``utils/lora``. It cannot load ``pipelines/*`` or
``diffusion/base_pipeline.py``: they import names re-exported by the package ``__init__``.

**Full package with stubs** (:func:`import_full_diffsynth`): import transformers' model code first
(otherwise transformers would detect the torchvision stub and try to use it), then put these
stand-ins into ``sys.modules`` and run the real ``import diffsynth``:

- ``torchvision``, ``torchvision.transforms`` — empty; used only by the data operators for
  training-time image loading, never by the inference code we run.
- ``imageio``, ``imageio.v3`` — empty; video/image file I/O in the data operators.
- ``pandas`` — empty; dataset metadata reading.
- ``modelscope`` — ``snapshot_download`` raises ``RuntimeError("offline")``: model download, which
  we never do (tiny models are built from configs).

Every stub gets a ``__spec__`` (``torch._dynamo`` inspects it). ``torch.cpu.empty_cache`` is also
given a no-op when missing, because ``BasePipeline.load_models_to_device`` calls
``getattr(torch, device_type).empty_cache()`` and torch has no such function for CPU.

The two modes put different ``diffsynth`` modules into ``sys.modules``: use one per process (the
verifier runs each scenario group in its own process). Mixing raises :class:`DiffSynthModeError`.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import keyword
import os
import sys
import types
from pathlib import Path

LIGHT_PACKAGES = (
    "diffsynth.core.device",
    "diffsynth.core.gradient",
    "diffsynth.core.attention",
    "diffsynth.core.vram",
    "diffsynth.utils.lora",
    "diffsynth.utils.controlnet",
)
STUBBED_MODULES = ("torchvision", "torchvision.transforms", "imageio", "imageio.v3", "pandas", "modelscope")

_MODE_ATTRIBUTE = "__infralens_mode__"


class DiffSynthModeError(RuntimeError):
    """Path-based and full-package DiffSynth loading were mixed in one process."""


def diffsynth_root() -> Path:
    """The installed ``diffsynth`` package folder (found without running its ``__init__``)."""
    spec = importlib.util.find_spec("diffsynth")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("diffsynth is not installed: pip install --no-deps diffsynth==2.1.12", name="diffsynth")
    return Path(next(iter(spec.submodule_search_locations)))


def _current_mode() -> str | None:
    package = sys.modules.get("diffsynth")
    if package is None:
        return None
    return getattr(package, _MODE_ATTRIBUTE, "imported")


def _require_mode(mode: str) -> None:
    current = _current_mode()
    if current is not None and current != mode:
        raise DiffSynthModeError(f"diffsynth is already loaded in {current!r} mode in this process; {mode!r} mode needs a fresh process")


def _empty_package(name: str, root: Path) -> None:
    if name in sys.modules:
        return
    if name in LIGHT_PACKAGES:
        importlib.import_module(name)
        return
    module = types.ModuleType(name)
    module.__path__ = [str(root.joinpath(*name.split(".")[1:]))]
    module.__package__ = name
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    module.__spec__.submodule_search_locations = module.__path__
    if name == "diffsynth":
        setattr(module, _MODE_ATTRIBUTE, "path")
    sys.modules[name] = module


MAX_MODULE_NAME = 200
"""Longest dotted module name accepted (DiffSynth's longest is about 60 characters)."""


def diffsynth_name_problem(dotted: object) -> str | None:
    """Why *dotted* is not a dotted module name under ``diffsynth`` (None when it is one).

    Each part must be a Python identifier that is neither a keyword nor a dunder name (``__init__``), so the
    name can only ever become folder and file names below the package folder: no ``/``, ``..``, empty part
    or absolute path can reach the file system.
    """
    if not isinstance(dotted, str):
        return "a module must be a dotted name (text), e.g. diffsynth.models.flux_dit"
    if len(dotted) > MAX_MODULE_NAME:
        return f"the module name is longer than {MAX_MODULE_NAME} characters"
    parts = dotted.split(".")
    if parts[0] != "diffsynth" or len(parts) < 2:
        return f"{dotted!r} is not a module of the diffsynth package (expected diffsynth.<module>, e.g. diffsynth.models.flux_dit)"
    for part in parts[1:]:
        if not (part.isidentifier() and part.isascii()) or keyword.iskeyword(part) or part.startswith("__"):
            return f"{dotted!r} is not a dotted module name: {part!r} is not a plain Python identifier"
    return None


def diffsynth_module_file(dotted: str) -> Path:
    """The file that *dotted* names inside the installed ``diffsynth`` folder, found without importing anything.

    ``diffsynth.a.b`` is ``<package>/a/b.py``, else ``<package>/a/b/__init__.py``. Its real path (links
    followed) must lie inside the package folder's real path; the path returned is the one below the package folder.

    Raises:
        ValueError: not a dotted name under ``diffsynth`` (:func:`diffsynth_name_problem`), or the file
            is a link (or lies below a link) leading outside the package folder.
        ModuleNotFoundError: diffsynth is not installed (``name == "diffsynth"``), or no such module file.
    """
    problem = diffsynth_name_problem(dotted)
    if problem is not None:
        raise ValueError(problem)
    root = diffsynth_root()
    real_root = root.resolve()
    parts = dotted.split(".")[1:]
    for candidate in (root.joinpath(*parts[:-1], f"{parts[-1]}.py"), root.joinpath(*parts, "__init__.py")):
        if not os.path.lexists(candidate):
            continue
        real = candidate.resolve()
        if not real.is_relative_to(real_root):
            raise ValueError(f"{dotted!r} leads outside the diffsynth package folder {real_root} (through a link to {real}); it is not loaded")
        if real.is_file():
            return candidate  # the path as installed: code objects and tracebacks name the file the source tree reads
    raise ModuleNotFoundError(f"no diffsynth module file {root.joinpath(*parts[:-1], parts[-1] + '.py')}", name=dotted)


def load_diffsynth_module(dotted: str) -> types.ModuleType:
    """Execute one DiffSynth module file (e.g. ``diffsynth.diffusion.flow_match``) without package ``__init__``.

    The name is checked, and its file found inside the package folder, before anything is registered or run
    (:func:`diffsynth_module_file`).

    Raises:
        ValueError: not a dotted module name under ``diffsynth``, or its file leads outside the package folder.
        ModuleNotFoundError: no such module file (or diffsynth is not installed).
        DiffSynthModeError: the full package was already imported in this process.
    """
    path = diffsynth_module_file(dotted)
    _require_mode("path")
    root = diffsynth_root()
    parts = dotted.split(".")
    for index in range(1, len(parts)):
        _empty_package(".".join(parts[:index]), root)
    if dotted in sys.modules:
        return sys.modules[dotted]
    if path.name == "__init__.py":
        return importlib.import_module(dotted)
    spec = importlib.util.spec_from_file_location(dotted, path)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"cannot load {path} as {dotted}", name=dotted)
    module = importlib.util.module_from_spec(spec)
    sys.modules[dotted] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[dotted]
        raise
    return module


def _stub(name: str, **attributes: object) -> None:
    module = types.ModuleType(name)
    module.__dict__.update(attributes, __infralens_stub__=True)
    module.__path__ = []
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    sys.modules[name] = module


def _offline_snapshot_download(*args, **kwargs):
    raise RuntimeError("modelscope is stubbed by infralens: downloads are disabled (tiny models are built from configs)")


def import_full_diffsynth() -> types.ModuleType:
    """Import the real ``diffsynth`` package with the stub modules listed in this module's docstring.

    Real modules win: a stub is installed only where the module cannot be found.
    """
    _require_mode("full")
    if "diffsynth" in sys.modules:
        return sys.modules["diffsynth"]
    import torch
    import transformers.modeling_utils
    import transformers.models.clip.modeling_clip  # noqa: F401

    for name in STUBBED_MODULES:
        if name in sys.modules:
            continue
        top = name.split(".")[0]
        if not vars(sys.modules.get(top, types)).get("__infralens_stub__") and importlib.util.find_spec(top) is not None:
            continue
        if name == "modelscope":
            _stub(name, snapshot_download=_offline_snapshot_download)
        else:
            _stub(name)
    if not hasattr(torch.cpu, "empty_cache"):
        setattr(torch.cpu, "empty_cache", lambda: None)  # noqa: B010  (torch.cpu declares no such attribute: adding it is the point)
    package = importlib.import_module("diffsynth")
    setattr(package, _MODE_ATTRIBUTE, "full")
    return package


def stubbed_modules() -> list[str]:
    """Names currently replaced by infralens stubs in ``sys.modules`` (for reports)."""
    return sorted(name for name, module in sys.modules.items() if isinstance(module, types.ModuleType) and vars(module).get("__infralens_stub__"))


__all__ = [
    "LIGHT_PACKAGES",
    "STUBBED_MODULES",
    "DiffSynthModeError",
    "diffsynth_module_file",
    "diffsynth_name_problem",
    "diffsynth_root",
    "import_full_diffsynth",
    "load_diffsynth_module",
    "stubbed_modules",
]

"""Run scenarios in this process with the tracer on; stream one JSON line per scenario.

Started by :mod:`.runner` as ``python -m infralens.verify.worker`` with a JSON request on stdin::

    {"device": "cpu", "backend": "auto", "scenarios": [{"name": "tiny-sd-ddim", "probes": [...]}]}

Protocol lines go to the original stdout; anything the scenario code prints goes to stderr.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import sys
import time
import traceback

from infralens.verify.context import ScenarioCheckError, ScenarioContext
from infralens.verify.registry import get_scenario
from infralens.verify.tracer import Probe, Tracer


def _protocol_stream():
    """Keep the real stdout for protocol lines; send fd 1 (prints, C-level output) to stderr."""
    protocol = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def _emit(stream, payload: dict) -> None:
    stream.write(json.dumps(payload) + "\n")
    stream.flush()


def _error_text(error: BaseException) -> str:
    """The exception and the innermost frames, short enough for a report."""
    frames = traceback.extract_tb(error.__traceback__)[-4:]
    where = " <- ".join(f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in reversed(frames))
    return f"{type(error).__name__}: {error} [at {where}]" if where else f"{type(error).__name__}: {error}"


def import_probe_modules(process: str, probes: tuple[Probe, ...]) -> None:
    """Import the modules the probes live in, the way this process group loads them.

    The instrument backend rewrites code objects that exist when tracing starts, so every
    annotated module must be imported first (diffusers imports its submodules lazily).
    """
    modules = sorted({probe.module for probe in probes if probe.module})
    for module in modules:
        if module in sys.modules:
            continue
        if module.split(".")[0] == "diffsynth":
            from infralens.tiny import diffsynth_loader

            if process == "diffsynth-path":
                diffsynth_loader.load_diffsynth_module(module)
                continue
            diffsynth_loader.import_full_diffsynth()
        importlib.import_module(module)


def run_scenario(name: str, probes: tuple[Probe, ...], device: str, backend: str = "auto") -> dict:
    """Run one scenario under the tracer; return its result as a JSON-ready dict."""
    spec = get_scenario(name)
    context = ScenarioContext(device)
    status, error = "passed", None
    try:
        function = spec.load()
        import_probe_modules(spec.process, probes)
        tracer = Tracer(probes, backend=backend)
    except Exception as failure:  # a scenario module that does not import is a broken scenario
        return {"event": "done", "scenario": name, "status": "error", "error": _error_text(failure), "seconds": 0.0, "facts": {}, "probes": {}}
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        with tracer:
            function(context)
    except ScenarioCheckError as failure:
        status, error = "failed", f"scenario check failed: {failure}"
    except Exception as failure:  # the upstream code or the scenario broke: report it, keep going
        status, error = "error", _error_text(failure)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    return {
        "event": "done",
        "scenario": name,
        "status": status,
        "error": error,
        "seconds": round(seconds, 4),
        "cpu_seconds": round(cpu_seconds, 4),
        "facts": context.facts,
        "probes": {key: dataclasses.asdict(result) for key, result in tracer.results().items()},
    }


def main() -> int:
    protocol = _protocol_stream()
    request = json.loads(sys.stdin.read())
    started = time.perf_counter()
    from infralens.tiny import pick_device

    device = pick_device(request["device"])
    info = {"event": "ready", "device": device, "pid": os.getpid()}
    if device == "cuda":
        import torch

        info["device_name"] = torch.cuda.get_device_name(0)
    for item in request["scenarios"]:
        for module in get_scenario(item["name"]).imports:
            importlib.import_module(module)
    info["setup_seconds"] = round(time.perf_counter() - started, 3)
    _emit(protocol, info)
    for item in request["scenarios"]:
        probes = tuple(
            Probe(**{**probe, "entry": tuple(probe["entry"]), "exit": tuple(probe["exit"]), "expects": tuple(probe["expects"])}) for probe in item["probes"]
        )
        _emit(protocol, {"event": "start", "scenario": item["name"]})
        _emit(protocol, run_scenario(item["name"], probes, device, request.get("backend", "auto")))
    _emit(protocol, {"event": "finished", "seconds": round(time.perf_counter() - started, 3), "stubbed": _stubbed()})
    return 0


def _stubbed() -> list[str]:
    if "infralens.tiny.diffsynth_loader" not in sys.modules:
        return []
    return sys.modules["infralens.tiny.diffsynth_loader"].stubbed_modules()


if __name__ == "__main__":
    sys.exit(main())

"""Run scenarios in this process with the tracer on; stream one protocol line per event.

Started by :mod:`.runner` as ``python -m infralens.verify.run.worker`` with a
:class:`~.protocol.WorkerRequest` on stdin; answers with :mod:`.protocol` messages. Protocol
lines go to the original stdout; anything the scenario code prints goes to stderr.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from infralens.reports import ScenarioStatus
from infralens.scenarios import ScenarioSpec, discover_scenarios
from infralens.verify.run.protocol import Finished, Message, Ready, ScenarioOutcome, Started, WorkerRequest, encode
from infralens.verify.trace.backend_name import BackendName
from infralens.verify.trace.context import ScenarioContext
from infralens.verify.trace.execute import error_text, execute
from infralens.verify.trace.probes import Probe
from infralens.verify.trace.tracer import Tracer


def _protocol_stream() -> TextIO:
    """Keep the real stdout for protocol lines; send fd 1 (prints, C-level output) to stderr."""
    protocol = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def _emit(stream: TextIO, message: Message) -> None:
    stream.write(encode(message) + "\n")
    stream.flush()


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
            from infralens.tiny import import_full_diffsynth, load_diffsynth_module

            if process == "diffsynth-path":
                load_diffsynth_module(module)
                continue
            import_full_diffsynth()
        importlib.import_module(module)


CALL_MISMATCH = (AttributeError, TypeError)
"""Raised at a scenario's own line when the release lacks an attribute it reads or a parameter it passes."""


def run_scenario(
    spec: ScenarioSpec,
    probes: tuple[Probe, ...],
    device: str,
    backend: str = BackendName.AUTO,
    mutate: tuple[str, ...] = (),
    max_mutants: int = 0,
    other_release: bool = False,
) -> ScenarioOutcome:
    """Run one scenario under the tracer; a scenario that does not even load is an ``error``.

    With *mutate* keys and *max_mutants* > 0, each of those steps that passed is then mutation-tested
    (see :mod:`infralens.verify.mutate.trials`) and the outcome carries the results. On *other_release* (``verify --against``)
    a scenario that needs an API the release lacks (an import or attribute error) is ``not-run``, not an error.
    """
    name = spec.name
    mutating = bool(mutate) and max_mutants > 0
    try:
        function = spec.load()
        import_probe_modules(spec.process, probes)
        tracer = Tracer(probes, backend=backend, fingerprint=mutating)
    except Exception as failure:  # a scenario module that does not import is a broken scenario
        return ScenarioOutcome(name, *_unfinished(failure, other_release, spec))
    run = execute(function, ScenarioContext(device), tracer)
    status, error = run.status, None
    if run.status is ScenarioStatus.FAILED:
        error = f"scenario check failed: {run.failure}"
    elif run.failure is not None:
        status, _, error = _unfinished(run.failure, other_release, spec)
    outcome = ScenarioOutcome(name, status, round(run.seconds, 4), error, round(run.cpu_seconds, 4), run.facts, tracer.results())
    if mutating and run.status is ScenarioStatus.PASSED:
        from infralens.verify.mutate.trials import Baseline, mutable_keys, mutate_steps
        from infralens.verify.run.isolate import ChildFailed, in_child

        baseline = Baseline(run.seconds, tracer.table.fingerprints(), dict(run.facts), tracer.table.trails())
        keys = mutable_keys(mutate, outcome.probes)
        try:  # in a forked child: a mutant that breaks global state must not break the scenarios after this one
            mutants = in_child(lambda: mutate_steps(function, probes, keys, device, backend, baseline, max_mutants), device)
        except ChildFailed as failure:
            return replace(outcome, error=f"mutation testing stopped: {failure}")
        outcome = replace(outcome, mutants=mutants)
    return outcome


def _unfinished(failure: BaseException, other_release: bool, spec: ScenarioSpec) -> tuple[ScenarioStatus, float, str]:
    """(status, seconds, reason) of a scenario that raised.

    On another release (``--against``) it is ``not-run`` when the release lacks what the scenario uses: an
    import that fails anywhere, or an attribute or call the scenario's own line makes that the release does not
    have. An error raised deep inside upstream code stays an ``error``: that is the release behaving differently.
    """
    text = error_text(failure)
    if other_release and isinstance(failure, ModuleNotFoundError) and not _package_exists(failure.name or ""):
        return ScenarioStatus.NOT_RUN, 0.0, f"needs the module {failure.name}, which neither this release nor the environment has: {text}"
    if other_release and (isinstance(failure, ImportError) or (isinstance(failure, CALL_MISMATCH) and _raised_in(failure, spec.file))):
        return ScenarioStatus.NOT_RUN, 0.0, f"needs an API this release lacks: {text}"
    return ScenarioStatus.ERROR, 0.0, text


def _raised_in(failure: BaseException, file: Path) -> bool:
    """Whether the innermost frame of *failure* (import machinery aside) is in *file*."""
    import traceback

    frames = [frame for frame in traceback.extract_tb(failure.__traceback__) if not frame.filename.startswith("<frozen importlib")]
    if not frames:
        return False
    try:
        return Path(frames[-1].filename).resolve() == file.resolve()
    except OSError:
        return False


def _package_exists(module: str) -> bool:
    """Whether the top-level package of *module* can be found (then a missing submodule is a missing API)."""
    import importlib.util

    top = module.split(".", maxsplit=1)[0]
    try:
        return bool(top) and importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def main() -> int:
    protocol = _protocol_stream()
    request = WorkerRequest.decode(sys.stdin.read())
    # verify --against: the other release's folder comes first, before anything upstream is imported
    sys.path[:0] = [path for path in request.environment if path not in sys.path]
    started = time.perf_counter()
    from infralens.tiny import pick_device

    device = pick_device(request.device)
    device_name = None
    if device == "cuda":
        import torch

        device_name = torch.cuda.get_device_name(0)
    catalog = discover_scenarios(Path(request.scenario_folder) if request.scenario_folder else None)
    specs = {job.name: catalog.spec(job.name) for job in request.scenarios}
    for spec in specs.values():
        for module in spec.imports:
            try:
                importlib.import_module(module)
            except Exception:  # the scenario itself meets the same failure and reports it
                continue
    _emit(protocol, Ready(device, os.getpid(), round(time.perf_counter() - started, 3), device_name))
    for job in request.scenarios:
        _emit(protocol, Started(job.name))
        outcome = run_scenario(specs[job.name], job.probes, device, request.backend, job.mutate, request.max_mutants, bool(request.environment))
        _emit(protocol, outcome)
    _emit(protocol, Finished(round(time.perf_counter() - started, 3), _stubbed()))
    return 0


def _stubbed() -> tuple[str, ...]:
    loader = sys.modules.get("infralens.tiny.diffsynth_loader")
    if loader is None:
        return ()
    return tuple(loader.stubbed_modules())


if __name__ == "__main__":
    sys.exit(main())

"""Run scenarios in this process with the tracer on; stream one protocol line per event.

Started by :mod:`.runner` as ``python -m infralens.verify.worker`` with a
:class:`~.protocol.WorkerRequest` on stdin; answers with :mod:`.protocol` messages. Protocol
lines go to the original stdout; anything the scenario code prints goes to stderr.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from dataclasses import replace
from typing import TextIO

from infralens.reports import ScenarioStatus
from infralens.verify.context import ScenarioContext
from infralens.verify.execute import error_text, execute, scenario_spec
from infralens.verify.probes import Probe
from infralens.verify.protocol import Finished, Message, Ready, ScenarioOutcome, Started, WorkerRequest, encode
from infralens.verify.tracer import Tracer


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


def run_scenario(
    name: str, probes: tuple[Probe, ...], device: str, backend: str = "auto", mutate: tuple[str, ...] = (), max_mutants: int = 0
) -> ScenarioOutcome:
    """Run one scenario under the tracer; a scenario that does not even load is an ``error``.

    With *mutate* keys and *max_mutants* > 0, each of those steps that passed is then mutation-tested
    (see :mod:`.mutate`) and the outcome carries the results.
    """
    spec = scenario_spec(name)
    mutating = bool(mutate) and max_mutants > 0
    try:
        function = spec.load()
        import_probe_modules(spec.process, probes)
        tracer = Tracer(probes, backend=backend, fingerprint=mutating)
    except Exception as failure:  # a scenario module that does not import is a broken scenario
        return ScenarioOutcome(name, ScenarioStatus.ERROR, 0.0, error_text(failure))
    run = execute(function, ScenarioContext(device), tracer)
    error = None
    if run.status is ScenarioStatus.FAILED:
        error = f"scenario check failed: {run.failure}"
    elif run.failure is not None:
        error = error_text(run.failure)
    outcome = ScenarioOutcome(name, run.status, round(run.seconds, 4), error, round(run.cpu_seconds, 4), run.facts, tracer.results())
    if mutating and run.status is ScenarioStatus.PASSED:
        from infralens.verify.isolate import ChildFailed, in_child
        from infralens.verify.mutate import Baseline, mutable_keys, mutate_steps

        baseline = Baseline(run.seconds, tracer.table.fingerprints(), dict(run.facts))
        keys = mutable_keys(mutate, outcome.probes)
        try:  # in a forked child: a mutant that breaks global state must not break the scenarios after this one
            mutants = in_child(lambda: mutate_steps(function, probes, keys, device, backend, baseline, max_mutants), device)
        except ChildFailed as failure:
            return replace(outcome, error=f"mutation testing stopped: {failure}")
        outcome = replace(outcome, mutants=mutants)
    return outcome


def main() -> int:
    protocol = _protocol_stream()
    request = WorkerRequest.decode(sys.stdin.read())
    started = time.perf_counter()
    from infralens.tiny import pick_device

    device = pick_device(request.device)
    device_name = None
    if device == "cuda":
        import torch

        device_name = torch.cuda.get_device_name(0)
    for job in request.scenarios:
        for module in scenario_spec(job.name).imports:
            importlib.import_module(module)
    _emit(protocol, Ready(device, os.getpid(), round(time.perf_counter() - started, 3), device_name))
    for job in request.scenarios:
        _emit(protocol, Started(job.name))
        _emit(protocol, run_scenario(job.name, job.probes, device, request.backend, job.mutate, request.max_mutants))
    _emit(protocol, Finished(round(time.perf_counter() - started, 3), _stubbed()))
    return 0


def _stubbed() -> tuple[str, ...]:
    loader = sys.modules.get("infralens.tiny.diffsynth_loader")
    if loader is None:
        return ()
    return tuple(loader.stubbed_modules())


if __name__ == "__main__":
    sys.exit(main())

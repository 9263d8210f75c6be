"""Run the planned scenarios in worker processes and judge every step.

Scenarios of one process group run in one ``python -m infralens.verify.worker`` process (DiffSynth's
path-based and full-package modes must not share a process). Workers stream one JSON line per
scenario, which drives the progress display. Groups may run in parallel (``jobs``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from infralens.verify.plan import Plan, PlannedStep
from infralens.verify.registry import PROCESS_ORDER, get_scenario


@dataclass(frozen=True)
class ScenarioOutcome:
    name: str
    status: str
    """``passed``, ``failed`` (its own check failed), ``error`` (it raised) or ``not-run``."""
    seconds: float
    error: str | None = None
    facts: dict[str, str] = field(default_factory=dict)
    cpu_seconds: float | None = None
    """CPU time of the worker during the scenario (robust to other load on the machine)."""


@dataclass(frozen=True)
class ExpectOutcome:
    expr: str
    passed: bool
    observed: str
    where: str
    """Annotation ``file:line`` of the expect itself."""
    evaluations: int = 0
    error: str | None = None


@dataclass(frozen=True)
class StepOutcome:
    step: PlannedStep
    status: str
    """``passed``, ``failed``, ``not-run`` or ``static``."""
    times_ran: int = 0
    expects: tuple[ExpectOutcome, ...] = ()
    reason: str | None = None


@dataclass(frozen=True)
class VerifyResult:
    device: str
    device_name: str | None
    created: str
    versions: dict[str, str]
    scenarios: tuple[ScenarioOutcome, ...]
    steps: tuple[StepOutcome, ...]
    stubbed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return all(s.status == "passed" for s in self.scenarios) and all(s.status in ("passed", "static") for s in self.steps)


ProgressCallback = Callable[[str, str, ScenarioOutcome | None], None]
"""Called with (event, scenario, outcome): ``start`` before, ``done`` after each scenario."""


def versions() -> dict[str, str]:
    """Versions of the interpreter and the packages that ran (from metadata: nothing is imported)."""
    import importlib.metadata
    import platform

    found = {"python": platform.python_version()}
    for name in ("torch", "diffusers", "diffsynth", "transformers", "peft", "accelerate", "infralens"):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def run_plan(
    plan: Plan,
    device: str,
    *,
    jobs: int = 1,
    backend: str = "auto",
    progress: ProgressCallback | None = None,
    timeout: float = 900.0,
    scenarios: tuple[str, ...] | None = None,
) -> VerifyResult:
    """Run every scenario the plan needs (or *scenarios*) on *device* (``cpu``/``cuda``) and judge each step."""
    names = plan.scenarios() if scenarios is None else tuple(scenarios)
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(get_scenario(name).process, []).append(name)
    ordered = [(process, groups[process]) for process in PROCESS_ORDER if process in groups]
    lock = threading.Lock()

    def report(event: str, name: str, outcome: ScenarioOutcome | None) -> None:
        if progress is not None:
            with lock:
                progress(event, name, outcome)

    results: dict[str, dict] = {}
    meta: dict[str, object] = {"stubbed": set(), "device_name": None}

    def run_group(item: tuple[str, list[str]]) -> None:
        process, scenario_names = item
        group_results, info = _run_worker(plan, scenario_names, device, backend, report, timeout)
        with lock:
            results.update(group_results)
            meta["stubbed"].update(info.get("stubbed", ()))
            meta["device_name"] = meta["device_name"] or info.get("device_name")

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(run_group, ordered))

    outcomes = tuple(_scenario_outcome(name, results.get(name)) for name in names)
    by_name = {outcome.name: outcome for outcome in outcomes}
    steps = tuple(_judge(step, by_name.get(step.scenario or ""), results.get(step.scenario or "")) for step in plan.steps)
    return VerifyResult(
        device=device,
        device_name=meta["device_name"],
        created=_dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        versions=versions(),
        scenarios=outcomes,
        steps=steps,
        stubbed=tuple(sorted(meta["stubbed"])),
    )


def _run_worker(plan: Plan, names: list[str], device: str, backend: str, report, timeout: float) -> tuple[dict[str, dict], dict]:
    """One worker process for *names*; returns per-scenario results and the worker's info."""
    request = {
        "device": device,
        "backend": backend,
        "scenarios": [{"name": name, "probes": [dataclasses.asdict(p) for p in plan.probes_for(name)]} for name in names],
    }
    env = dict(os.environ)
    if device == "cpu":
        env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_VERBOSITY", "error")
    env.setdefault("DIFFUSERS_VERBOSITY", "error")
    results: dict[str, dict] = {}
    info: dict = {}
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as stderr:
        worker = subprocess.Popen(
            [sys.executable, "-m", "infralens.verify.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            text=True,
            encoding="utf-8",
        )
        timer = threading.Timer(timeout, worker.kill)
        timer.start()
        try:
            worker.stdin.write(json.dumps(request))
            worker.stdin.close()
            for line in worker.stdout:
                try:
                    message = json.loads(line)
                except json.JSONDecodeError:
                    continue
                event = message.get("event")
                if event == "start":
                    report("start", message["scenario"], None)
                elif event == "done":
                    results[message["scenario"]] = message
                    report("done", message["scenario"], _scenario_outcome(message["scenario"], message))
                elif event in ("ready", "finished"):
                    info.update({k: v for k, v in message.items() if k != "event"})
            code = worker.wait()
        finally:
            timer.cancel()
        if len(results) < len(names):
            stderr.seek(0)
            tail = stderr.read()[-1500:].strip()
            why = f"worker exited with status {code}" + (f": {tail}" if tail else "")
            for name in names:
                if name not in results:
                    results[name] = {"status": "error", "error": why, "seconds": 0.0, "probes": {}, "facts": {}}
                    report("done", name, _scenario_outcome(name, results[name]))
    return results, info


def _scenario_outcome(name: str, result: dict | None) -> ScenarioOutcome:
    if result is None:
        return ScenarioOutcome(name, "not-run", 0.0, "the scenario was not run")
    cpu = result.get("cpu_seconds")
    return ScenarioOutcome(
        name,
        result["status"],
        float(result.get("seconds", 0.0)),
        result.get("error"),
        dict(result.get("facts") or {}),
        None if cpu is None else float(cpu),
    )


def _judge(step: PlannedStep, scenario: ScenarioOutcome | None, result: dict | None) -> StepOutcome:
    if step.static:
        return StepOutcome(step, "static", reason=step.static)
    if step.problem:
        return StepOutcome(step, "not-run", reason=step.problem)
    probe = (result or {}).get("probes", {}).get(step.step_id)
    if probe is None:
        why = scenario.error if scenario and scenario.error else f"scenario {step.scenario!r} did not run"
        return StepOutcome(step, "not-run", reason=why)
    expects = tuple(
        ExpectOutcome(
            expr=item["expr"],
            passed=item["evaluations"] > 0 and item["failures"] == 0,
            observed=item["observed"] if item["evaluations"] else "never evaluated (the statement's frame never moved past it)",
            where=step.expect_where(index),
            evaluations=item["evaluations"],
            error=item.get("error"),
        )
        for index, item in enumerate(probe["expects"])
    )
    times = int(probe["times_ran"])
    if times == 0:
        why = f"{step.source} never ran during scenario {step.scenario!r}"
        if scenario is not None and scenario.status != "passed" and scenario.error:
            why += f" (the scenario stopped: {scenario.error})"
        return StepOutcome(step, "not-run", times, expects, reason=why)
    if not all(expect.passed for expect in expects):
        return StepOutcome(step, "failed", times, expects)
    return StepOutcome(step, "passed", times, expects)

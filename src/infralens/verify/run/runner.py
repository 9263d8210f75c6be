"""Run the planned scenarios in worker processes and judge every step.

Scenarios of one process group run in one ``python -m infralens.verify.run.worker`` process (DiffSynth's
path-based and full-package modes must not share a process). Workers stream one JSON line per
scenario, which drives the progress display. Groups may run in parallel (``jobs``).
"""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import IO

from infralens.reports import MutantsRecord, ScenarioStatus, StepStatus
from infralens.stops import end_processes
from infralens.verify.run.plan import Plan, PlannedStep
from infralens.verify.run.protocol import Event, Finished, Ready, ScenarioJob, ScenarioOutcome, Started, WorkerRequest, decode
from infralens.verify.run.registry import process_order
from infralens.verify.run.timings import DEFAULT_S, load_timings, save_timings
from infralens.verify.trace.backend_name import BackendName
from infralens.verify.trace.execute import scenario_spec
from infralens.verify.trace.probes import ProbeResult

WORKER_COMMAND: tuple[str, ...] = (sys.executable, "-m", "infralens.verify.run.worker")
STOP_GRACE_S = 0.5
"""Seconds a worker gets to exit after SIGTERM before it is killed."""


@dataclass(frozen=True)
class ExpectOutcome:
    """One expect of a step, judged."""

    expr: str
    passed: bool
    observed: str
    where: str
    """Annotation ``file:line`` of the expect itself."""
    evaluations: int = 0
    error: str | None = None


@dataclass(frozen=True)
class StepOutcome:
    """The verify step result: one planned step, its status and the evidence."""

    step: PlannedStep
    status: StepStatus
    times_ran: int = 0
    expects: tuple[ExpectOutcome, ...] = ()
    reason: str | None = None
    mutants: MutantsRecord | None = None
    """What ``--mutate`` found (None without it, or when the step was not mutated)."""


@dataclass(frozen=True)
class VerifyResult:
    """Everything one ``infralens verify`` run found."""

    device: str
    device_name: str | None
    created: str
    versions: dict[str, str]
    scenarios: tuple[ScenarioOutcome, ...]
    steps: tuple[StepOutcome, ...]
    stubbed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return all(s.status is ScenarioStatus.PASSED for s in self.scenarios) and all(s.status in (StepStatus.PASSED, StepStatus.STATIC) for s in self.steps)


ProgressCallback = Callable[[Event, str, ScenarioOutcome | None], None]
"""Called with (event, scenario, outcome): ``start`` before, ``done`` after each scenario."""


RECORDED = ("torch", "transformers", "peft", "accelerate", "infralens")
"""Packages whose versions every report records, beside the project's own distributions."""


def versions(environment: tuple[str, ...] = (), distributions: tuple[str, ...] = ()) -> dict[str, str]:
    """Versions of the interpreter and the packages that ran (from metadata: nothing is imported).

    *environment* are the folders the workers put first on ``sys.path`` (``verify --against``): a release there wins.
    *distributions* are the project's (``[tool.infralens] distributions``), recorded before the others.
    """
    import importlib.metadata
    import platform

    found = {"python": platform.python_version()}
    path = [*environment, *sys.path]
    for name in dict.fromkeys((*distributions, *RECORDED)):
        dist = next(iter(importlib.metadata.distributions(name=name, path=path)), None)
        found[name] = dist.version if dist is not None else "not installed"
    return found


@dataclass
class _Collected:
    """What the worker threads gather (guarded by one lock)."""

    done: dict[str, ScenarioOutcome] = field(default_factory=dict)
    stubbed: set[str] = field(default_factory=set)
    device_name: str | None = None


def run_plan(
    plan: Plan,
    device: str,
    *,
    jobs: int = 1,
    backend: BackendName = BackendName.AUTO,
    progress: ProgressCallback | None = None,
    timeout: float = 900.0,
    scenarios: tuple[str, ...] | None = None,
    max_mutants: int = 0,
) -> VerifyResult:
    """Run every scenario the plan needs (or *scenarios*) on *device* (``cpu``/``cuda``) and judge each step.

    With *max_mutants* > 0 each step whose expects held is also mutation-tested (``--mutate``): the
    work is split into units of a few steps, spread over *jobs* workers per process group.
    """
    names = plan.scenarios() if scenarios is None else tuple(scenarios)
    ordered = work_units(plan, names, jobs, max_mutants, load_timings(device))
    lock = threading.Lock()
    collected = _Collected()
    workers = _Workers()

    def report(event: Event, name: str, outcome: ScenarioOutcome | None) -> None:
        if progress is not None:
            with lock:
                progress(event, name, outcome)

    def run_group(group: tuple[ScenarioJob, ...]) -> None:
        folder = str(plan.catalog.folder) if plan.catalog.folder is not None else ""
        request = WorkerRequest(device, backend, group, max_mutants, folder, plan.environment)
        done, ready, finished = _run_worker(workers, request, report, timeout)
        with lock:
            for name, outcome in done.items():
                earlier = collected.done.get(name)
                collected.done[name] = outcome if earlier is None else replace(earlier, mutants={**earlier.mutants, **outcome.mutants})
            collected.stubbed.update(finished.stubbed if finished else ())
            collected.device_name = collected.device_name or (ready.device_name if ready else None)

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        list(pool.map(run_group, ordered))
    except BaseException:  # Ctrl-C (or SIGTERM made one): no worker may outlive the run
        workers.stop()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)

    outcomes = tuple(_scenario_outcome(name, collected.done.get(name)) for name in names)
    save_timings(device, {o.scenario: o.cpu_seconds for o in outcomes if o.status is ScenarioStatus.PASSED and o.cpu_seconds})
    by_name = {outcome.scenario: outcome for outcome in outcomes}
    steps = tuple(_judge(step, by_name.get(step.scenario or "")) for step in plan.steps)
    return VerifyResult(
        device=device,
        device_name=collected.device_name,
        created=_dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        versions=versions(plan.environment, plan.distributions),
        scenarios=outcomes,
        steps=steps,
        stubbed=tuple(sorted(collected.stubbed)),
    )


MUTATION_UNIT = 8
"""Steps per unit of mutation work (a scenario with more is split, so that workers finish together)."""


def work_units(plan: Plan, names: tuple[str, ...], jobs: int, max_mutants: int = 0, timings: dict[str, float] | None = None) -> list[tuple[ScenarioJob, ...]]:
    """The worker requests' scenario jobs, in process-group order.

    Without mutation: one worker per process group, its scenarios in catalog order. With it: each
    scenario's steps with expects are cut into units of :data:`MUTATION_UNIT`, and each process group's
    units are dealt to *jobs* workers, heaviest first. A unit weighs its steps times the scenario's CPU
    seconds last time (*timings*, see :mod:`.timings`; one second when unknown).
    """
    timings = timings or {}
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(scenario_spec(name, plan.catalog).process, []).append(name)
    if max_mutants <= 0:
        return [tuple(ScenarioJob(name, plan.probes_for(name)) for name in groups[process]) for process in process_order(groups)]
    requests: list[tuple[ScenarioJob, ...]] = []
    for process in process_order(groups):
        units: list[tuple[float, str, tuple[str, ...]]] = []
        for name in groups[process]:
            keys = tuple(probe.key for probe in plan.own_probes(name) if probe.expects)
            chunks = [keys[i : i + MUTATION_UNIT] for i in range(0, len(keys), MUTATION_UNIT)] or [()]
            cost = timings.get(name, DEFAULT_S)
            units.extend((len(chunk) * cost + cost, name, chunk) for chunk in chunks)
        bins: list[tuple[float, dict[str, list[str]]]] = [(0.0, {}) for _ in range(max(1, jobs))]
        for weight, name, chunk in sorted(units, key=lambda unit: -unit[0]):
            index = min(range(len(bins)), key=lambda i: bins[i][0])
            load, jobs_of = bins[index]
            jobs_of.setdefault(name, []).extend(chunk)
            bins[index] = (load + weight, jobs_of)
        order = {name: position for position, name in enumerate(groups[process])}
        for _, jobs_of in bins:
            if jobs_of:
                requests.append(
                    tuple(ScenarioJob(name, plan.probes_for(name), tuple(keys)) for name, keys in sorted(jobs_of.items(), key=lambda item: order[item[0]]))
                )
    return requests


def _worker_env(device: str, folder: str) -> dict[str, str]:
    env = dict(os.environ)
    # Temporary files go inside the worker's own folder too: a mutant's forked run that exits inside a
    # ``TemporaryDirectory`` (or upstream code that never cleans up) leaves nothing behind once the worker ends.
    env.update(TMPDIR=folder, TEMP=folder, TMP=folder)
    # The worker runs in a folder of its own: relative paths given to this process must stay right there.
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(part) if part else part for part in env["PYTHONPATH"].split(os.pathsep))
    if env.get("INFRALENS_CACHE_DIR"):
        env["INFRALENS_CACHE_DIR"] = os.path.abspath(env["INFRALENS_CACHE_DIR"])
    if device == "cpu":
        env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_VERBOSITY", "error")
    env.setdefault("DIFFUSERS_VERBOSITY", "error")
    return env


class _Workers:
    """The worker processes now running, so that a stop ends every one of them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[subprocess.Popen[str], tempfile.TemporaryDirectory[str]] = {}
        self.stopping = False

    def start(self, device: str, stderr: IO[str]) -> subprocess.Popen[str] | None:
        """A new worker, or None once the run is stopping.

        Each worker gets a session of its own, so a Ctrl-C at the terminal reaches only the
        runner, which then ends its workers itself. It runs in an empty folder of its own, removed
        when it ends: upstream code (or a mutant of it) that writes to a relative path or a temporary
        file writes there, never into the folder ``verify`` was started from or the system's temporary folder.
        """
        with self._lock:
            if self.stopping:
                return None
            folder = tempfile.TemporaryDirectory(prefix="infralens-worker-", ignore_cleanup_errors=True)
            worker = subprocess.Popen(
                list(WORKER_COMMAND),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=_worker_env(device, folder.name),
                cwd=folder.name,
                text=True,
                encoding="utf-8",
                start_new_session=True,
            )
            self._running[worker] = folder
            return worker

    def ended(self, worker: subprocess.Popen[str]) -> None:
        with self._lock:
            folder = self._running.pop(worker, None)
        if folder is not None:
            folder.cleanup()

    def stop(self) -> None:
        """Stop for good: end the running workers and start no more."""
        with self._lock:
            self.stopping = True
            running = list(self._running)
        end_processes(running, STOP_GRACE_S)
        for worker in running:
            self.ended(worker)


def _run_worker(
    workers: _Workers, request: WorkerRequest, report: ProgressCallback, timeout: float
) -> tuple[dict[str, ScenarioOutcome], Ready | None, Finished | None]:
    """One worker process for the request's scenarios.

    A scenario it never finished is ``not-run`` when the worker ran past *timeout*, else an ``error``.
    """
    done: dict[str, ScenarioOutcome] = {}
    ready: Ready | None = None
    finished: Finished | None = None
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as stderr:
        worker = workers.start(request.device, stderr)
        if worker is None:
            return done, ready, finished
        assert worker.stdin is not None and worker.stdout is not None  # both are pipes
        timed_out = threading.Event()

        def on_timeout() -> None:
            timed_out.set()
            end_processes([worker], STOP_GRACE_S)

        timer = threading.Timer(timeout, on_timeout)
        timer.start()
        try:
            worker.stdin.write(request.encode())
            worker.stdin.close()
            ready, finished = _listen(worker.stdout, report, done)
            code = worker.wait()
        except BrokenPipeError:  # the worker died before it read its request
            code = worker.wait()
        finally:
            timer.cancel()
            workers.ended(worker)
        if workers.stopping or len(done) == len(request.scenarios):
            return done, ready, finished
        stderr.seek(0)
        status, why = _why_unfinished(code, timeout if timed_out.is_set() else None, stderr.read())
        for job in request.scenarios:
            if job.name not in done:
                done[job.name] = ScenarioOutcome(job.name, status, 0.0, why)
                report(Event.DONE, job.name, done[job.name])
    return done, ready, finished


def _listen(lines: Iterable[str], report: ProgressCallback, done: dict[str, ScenarioOutcome]) -> tuple[Ready | None, Finished | None]:
    """Read a worker's messages until it closes its output: progress goes to *report*, each outcome into *done*."""
    ready: Ready | None = None
    finished: Finished | None = None
    for line in lines:
        message = decode(line)
        if isinstance(message, Started):
            report(Event.START, message.scenario, None)
        elif isinstance(message, ScenarioOutcome):
            done[message.scenario] = message
            report(Event.DONE, message.scenario, message)
        elif isinstance(message, Ready):
            ready = message
        elif isinstance(message, Finished):
            finished = message
    return ready, finished


def _why_unfinished(code: int, timed_out_after: float | None, stderr: str) -> tuple[ScenarioStatus, str]:
    """The outcome of the scenarios a worker never finished: ``not-run`` when it timed out, else an error with its stderr's tail."""
    if timed_out_after is not None:
        return ScenarioStatus.NOT_RUN, f"timed out after {timed_out_after:g} s"
    tail = stderr[-1500:].strip()
    return ScenarioStatus.ERROR, f"worker exited with status {code}" + (f": {tail}" if tail else "")


def _scenario_outcome(name: str, done: ScenarioOutcome | None) -> ScenarioOutcome:
    return ScenarioOutcome(name, ScenarioStatus.NOT_RUN, 0.0, "the scenario was not run") if done is None else done


def _judge(step: PlannedStep, scenario: ScenarioOutcome | None) -> StepOutcome:
    if step.static:
        return StepOutcome(step, StepStatus.STATIC, reason=step.static)
    if step.problem:
        return StepOutcome(step, StepStatus.NOT_RUN, reason=step.problem)
    probe: ProbeResult | None = scenario.probes.get(step.step_id) if scenario is not None else None
    if probe is None:
        why = scenario.error if scenario and scenario.error else f"scenario {step.scenario!r} did not run"
        return StepOutcome(step, StepStatus.NOT_RUN, reason=why)
    expects = tuple(
        ExpectOutcome(
            expr=item.expr,
            passed=item.passed,
            observed=item.observed if item.evaluations else "never evaluated (the statement's frame never moved past it)",
            where=step.expect_where(index),
            evaluations=item.evaluations,
            error=item.error,
        )
        for index, item in enumerate(probe.expects)
    )
    if probe.times_ran == 0:
        why = f"{step.source} never ran during scenario {step.scenario!r}"
        if scenario is not None and scenario.status is not ScenarioStatus.PASSED and scenario.error:
            why += f" (the scenario stopped: {scenario.error})"
        return StepOutcome(step, StepStatus.NOT_RUN, probe.times_ran, expects, reason=why)
    if not all(expect.passed for expect in expects):
        return StepOutcome(step, StepStatus.FAILED, probe.times_ran, expects)
    mutants = scenario.mutants.get(step.step_id) if scenario is not None else None
    return StepOutcome(step, StepStatus.PASSED, probe.times_ran, expects, mutants=mutants)

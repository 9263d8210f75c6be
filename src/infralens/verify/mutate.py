"""Mutation testing of expects, inside a worker: run a scenario again with one statement made wrong.

For each step to mutate (it ran and all its expects held in the plain run), :mod:`.mutants` makes up
to *limit* wrong versions of its statement; each is compiled in memory (:mod:`.codeswap`), swapped
into the live function, and the scenario runs again in this same process under a fresh tracer.

A mutant is *killed* when an expect of the step, or of a later step of the same function, fails (the
run stops there; ``expect``), when the scenario's own check fails (``check``), when the scenario
raises (``error``), or when it runs past the per-mutant time limit (``timeout``). Only ``expect``
kills count for the step's tier: they show that the step's expects pin what the statement computes.
An expect that fails only because a name is missing from the frame (``return None`` skipped the
assignment) does not kill: that says nothing about the values. A mutant *got past the expects* when
the step's expects were evaluated on it, none failed, and it is not equivalent (it survived, or the
scenario stopped it later); a mutant that raised before they were evaluated says nothing either way. A mutant that survives is *equivalent* when every exact value the run
observed (each expect's names at each evaluation, each step's run count, the scenario's facts) is
bit-identical to the plain run; otherwise it *survived*. A value mutant (:mod:`.perturb`) is equivalent
exactly when its helper changed no value in any frame the statement ran in.
"""

from __future__ import annotations

import functools
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import CodeType, FrameType, FunctionType

from infralens.reports import ScenarioStatus
from infralens.verify.codeswap import compile_function, find_code, live_functions, nested_scopes, outer_scope, swapped_with_closures
from infralens.verify.context import ScenarioContext
from infralens.verify.execute import execute
from infralens.verify.mutants import VALUE_KINDS, Mutant, statement_mutants
from infralens.verify.perturb import applied as values_changed, install as install_helpers, reset as reset_helpers
from infralens.verify.probes import MutationResult, Probe, ProbeResult
from infralens.verify.tracer import Tracer

MIN_TIMEOUT_S = 10.0
"""A mutant's run may take this long at least, and four times the plain run plus five seconds at most."""


_MISSING_NAME = ("NameError", "UnboundLocalError")


class MutantStopped(BaseException):
    """Ends a mutant's run early (not an ``Exception``: upstream ``except Exception`` must not swallow it)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Baseline:
    """The plain run the mutants are compared with."""

    seconds: float
    fingerprints: dict[str, tuple[str, ...]]
    facts: dict[str, str]


def mutable_keys(keys: tuple[str, ...], results: dict[str, ProbeResult]) -> tuple[str, ...]:
    """The keys worth mutating: the step ran and it has expects that all held."""
    chosen = []
    for key in keys:
        result = results.get(key)
        if result is not None and result.times_ran > 0 and result.expects and all(expect.passed for expect in result.expects):
            chosen.append(key)
    return tuple(chosen)


def mutate_steps(
    function: Callable[[ScenarioContext], None],
    probes: tuple[Probe, ...],
    keys: tuple[str, ...],
    device: str,
    backend: str,
    baseline: Baseline,
    limit: int,
    timeout: float | None = None,
) -> dict[str, MutationResult]:
    """Per key in *keys*: mutate the step's statement(s) up to *limit* times and classify each mutant.

    *timeout*: seconds one mutant's run may take (default: from the plain run, at least :data:`MIN_TIMEOUT_S`).
    """
    install_helpers()
    by_key = {probe.key: probe for probe in probes}
    lines: dict[str, list[str]] = {}
    timeout = timeout or max(MIN_TIMEOUT_S, 4 * baseline.seconds + 5)
    found: dict[str, MutationResult] = {}
    for key in keys:
        probe = by_key[key]
        target = _target(probe)
        if target is None:
            found[key] = MutationResult(0, 0)
            continue
        functions, original, closures = target
        if probe.file not in lines:
            with open(probe.file, encoding="utf-8") as handle:
                lines[probe.file] = handle.readlines()
        text = lines[probe.file]
        scope_code = original if original.co_qualname == probe.scope else find_code(original, probe.scope)
        local_names = scope_code.co_varnames if scope_code is not None else original.co_varnames
        relpath = _short(probe.file, probe.module)
        spans = [probe.entry] + ([probe.exit] if probe.exit != probe.entry and (probe.exit_scope or probe.scope) == probe.scope else [])
        candidates = _interleave([statement_mutants(text, start, end, local_names=local_names, relpath=relpath) for start, end in spans], limit * 2)
        kill_keys = _kill_keys(probe, probes)
        killed, tried = 0, 0
        past: list[str] = []
        killed_by: dict[str, int] = {}
        survived: list[str] = []
        equivalent: list[str] = []
        for mutant in candidates:
            if tried >= limit:
                break
            code = compile_function(mutant.apply(text), original.co_filename, original)
            if code is None:
                continue
            tried += 1
            run = MutantRun(function, probes, key, kill_keys, device, backend, (functions, code, closures), timeout, mutant.kind)
            verdict, reached = _run_mutant(run, baseline)
            if reached and verdict not in ("expect", "equivalent"):
                past.append(mutant.diff)
            if verdict == "equivalent":
                equivalent.append(mutant.diff)
            elif verdict == "survived":
                survived.append(mutant.diff)
            else:
                killed += 1
                killed_by[verdict] = killed_by.get(verdict, 0) + 1
        found[key] = MutationResult(tried, killed, tuple(survived), tuple(equivalent), killed_by, tuple(past))
    return found


Closures = list[tuple[list[FunctionType], str]]
"""Live closures between the outer function and the statement's scope: ``(functions, co_qualname)``."""
Swap = tuple[list[FunctionType], CodeType, Closures]
"""What one mutant run swaps: the outer function's live objects, the mutated outer code, the live closures."""


def _target(probe: Probe) -> tuple[list[FunctionType], CodeType, Closures] | None:
    """The live functions to swap for *probe*'s statement, their code, and the live closures on the way to
    its scope (a decorator's wrapper made at import time); None at module level or when none is alive."""
    outer = outer_scope(probe.scope)
    if outer is None:
        return None
    functions = live_functions(probe.file, outer)
    if not functions:
        return None
    original = functions[0].__code__
    closures: Closures = []
    for qualname in nested_scopes(probe.scope):
        inner = find_code(original, qualname)
        live = [function for function in live_functions(probe.file, qualname) if function.__code__ is inner] if inner is not None else []
        if live:
            closures.append((live, qualname))
    return [function for function in functions if function.__code__ is original], original, closures


def _short(path: str, module: str) -> str:
    """``diffusers/schedulers/x.py`` for the file of *module* (the diff header)."""
    parts = module.split(".") if module else []
    tail = path.replace(os.sep, "/").split("/")
    return "/".join(tail[-len(parts) :]) if parts and len(tail) >= len(parts) else os.path.basename(path)


def _interleave(groups: list[list[Mutant]], limit: int) -> list[Mutant]:
    merged: list[Mutant] = []
    seen: set[str] = set()
    for index in range(max((len(group) for group in groups), default=0)):
        for group in groups:
            if index < len(group) and group[index].diff not in seen and len(merged) < limit:
                seen.add(group[index].diff)
                merged.append(group[index])
    return merged


def _kill_keys(probe: Probe, probes: tuple[Probe, ...]) -> set[str]:
    """The step and the later steps of the same function: their failing expects kill a mutant of *probe*."""
    real = os.path.realpath(probe.file)
    return {
        other.key
        for other in probes
        if other.scope == probe.scope and other.entry[0] >= probe.entry[0] and other.expects and os.path.realpath(other.file) == real
    }


@dataclass(frozen=True)
class MutantRun:
    """One mutant of step *key*, ready to run: the scenario, what to watch, where, and the code to swap in."""

    function: Callable[[ScenarioContext], None]
    probes: tuple[Probe, ...]
    key: str
    kill_keys: set[str]
    device: str
    backend: str
    swap: Swap
    timeout: float
    kind: str = ""


def _run_mutant(run: MutantRun, baseline: Baseline) -> tuple[str, bool]:
    """How the mutant ended: ``expect``, ``check``, ``error`` or ``timeout`` (killed that way), ``survived`` or
    ``equivalent``; and whether the expects of step *key* were evaluated on it (it got as far as them).

    The first run watches only the steps that can kill the mutant (cheap: most mutants die there);
    a mutant that lives through it runs again with every step watched and fingerprinted. A value mutant
    (:mod:`.perturb`) needs no second run: it survived when the helper changed a value in some frame the
    statement ran in, and is equivalent when it changed none.
    """
    killers = tuple(probe for probe in run.probes if probe.key in run.kill_keys)
    reset_helpers()
    verdict, reached, _ = _one_run(run, killers, fingerprint=False)
    if verdict != "passed":
        return verdict, reached
    if run.kind in VALUE_KINDS:  # the helper knows whether any value changed: no second run needed
        return ("survived" if values_changed() else "equivalent"), reached
    verdict, reached, prints = _one_run(run, run.probes, fingerprint=True)
    if verdict != "passed":
        return verdict, reached
    return ("equivalent" if prints == (baseline.fingerprints, baseline.facts) else "survived"), reached


def _one_run(run: MutantRun, probes: tuple[Probe, ...], *, fingerprint: bool) -> tuple[str, bool, tuple[dict[str, tuple[str, ...]], dict[str, str]] | None]:
    """How one run of the mutant ended (a kill, or ``passed``), whether the step's own expects were evaluated,
    and, with *fingerprint*, what it observed."""
    tracer = Tracer(probes, backend=run.backend, fingerprint=fingerprint)
    caught: list[str | None] = []
    skipped: list[str] = []

    def stop(error: str | None, owner: str) -> None:
        # A name the frame no longer has (the statement was skipped, e.g. by an early return) says nothing
        # about its values: not a catch, and the step's expects could not judge this mutant at all.
        if error is not None and error.startswith(_MISSING_NAME):
            if owner == run.key:
                skipped.append(error)
            return
        caught.append(error)
        raise MutantStopped("expect")

    for killer in run.kill_keys | {run.key}:
        for expect in tracer.table.expects.get(killer, ()):
            expect.on_fail = functools.partial(stop, owner=killer) if killer in run.kill_keys else functools.partial(_note_skip, skipped)
    context = ScenarioContext(run.device)
    own = tracer.table.expects.get(run.key, [])
    try:
        with swapped_with_closures(*run.swap), _time_limit(run.timeout):
            outcome = execute(run.function, context, tracer)
    except MutantStopped as stopped:
        return stopped.reason, any(expect.evaluations for expect in own) and not skipped, None
    reached = any(expect.evaluations for expect in own) and not skipped
    if caught:  # upstream code swallowed the stop
        return "expect", reached, None
    if outcome.status is ScenarioStatus.FAILED:
        return "check", reached, None
    if outcome.status is not ScenarioStatus.PASSED:
        return "error", reached, None
    return "passed", reached, ((tracer.table.fingerprints(), dict(context.facts)) if fingerprint else None)


def _note_skip(skipped: list[str], error: str | None) -> None:
    """``on_fail`` of the mutated step's own expects when they cannot kill: remember a missing-name failure."""
    if error is not None and error.startswith(_MISSING_NAME):
        skipped.append(error)


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`MutantStopped` ("timeout") in the main thread after *seconds* (no limit elsewhere)."""
    if not hasattr(signal, "setitimer"):
        yield
        return
    armed = True

    def expire(signum: int, frame: FrameType | None) -> None:
        if armed:
            raise MutantStopped("timeout")

    try:
        previous = signal.signal(signal.SIGALRM, expire)
    except ValueError:  # not the main thread: run without a limit
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

"""Mutation testing of expects, inside a worker: run a scenario again with one statement made wrong.

For each step to mutate (it ran and all its expects held in the plain run), :mod:`.mutants` makes up
to *limit* wrong versions of its statement; each is compiled in memory (:mod:`.codeswap`), swapped
into the live function, and the scenario runs again in this same process under a fresh tracer.

Each mutant gets one :class:`~infralens.reports.MutantVerdict`, decided in :func:`verdict` from how its run
ended: *caught* when an expect of the step itself failed; *caught-downstream* when an expect of a later step of
the same function failed first (its key is kept as ``caught_by``: it is that step's evidence, not this one's);
*past-expects* when the step's own expects were evaluated on it and held, on a frame the mutant had changed (its
locals or the expects' names differ from the plain run's at that evaluation), and something later stopped it;
*raised-first* or *stopped-by-scenario* when an error, the time limit or the scenario's check ended it before
the step's expects were evaluated. A mutant that runs to the end is *equivalent* when every exact value the
run observed (each expect's names at each evaluation, each step's run count, the scenario's facts) is
bit-identical to the plain run, else *survived* (*unjudged* when it deletes the statement and so left the step's
expects nothing to read); a swap whose two operands were equal every time it ran is
*untestable* on this data, and a value mutant whose helper changed nothing is equivalent by construction.
An expect that fails only because a name is missing from the frame (``return None`` skipped the assignment)
does not catch: that says nothing about the values, and the step's expects count as not evaluated.
"""

from __future__ import annotations

import functools
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from types import CodeType, FrameType, FunctionType

from infralens.reports import CHANGE_LIMIT, DELETE_KINDS, MutantKind, MutantRecord, MutantsRecord, MutantVerdict, ScenarioStatus
from infralens.verify.mutate.codeswap import compile_function, find_code, live_functions, nested_scopes, outer_scope, rescan, swapped_with_closures
from infralens.verify.mutate.mutants import VALUE_KINDS, Mutant, statement_mutants
from infralens.verify.mutate.perturb import changes_read, install as install_helpers, read_only_metadata, reset as reset_helpers, swaps
from infralens.verify.trace.context import ScenarioContext
from infralens.verify.trace.execute import execute
from infralens.verify.trace.expects import Expect
from infralens.verify.trace.probes import Probe, ProbeResult
from infralens.verify.trace.tracer import Tracer

MIN_TIMEOUT_S = 10.0
"""A mutant's run may take this long at least, and four times the plain run plus five seconds at most."""


_MISSING_NAME = ("NameError", "UnboundLocalError")


class Ending(StrEnum):
    """How one run of a mutant ended; all but PASSED count in the report's ``killed_by``."""

    EXPECT = "expect"
    """An expect of a step it may kill failed."""
    CHECK = "check"
    """The scenario's own check failed."""
    ERROR = "error"
    TIMEOUT = "timeout"
    PASSED = "passed"


class MutantStopped(BaseException):
    """Ends a mutant's run early (not an ``Exception``: upstream ``except Exception`` must not swallow it)."""

    def __init__(self, reason: Ending) -> None:
        super().__init__(reason)
        self.reason = reason


Prints = tuple[dict[str, tuple[str, ...]], dict[str, str]]
"""What a fingerprinted run observed: per step, its run count and each expect's digest; the scenario's facts."""


@dataclass(frozen=True)
class Baseline:
    """The plain run the mutants are compared with."""

    seconds: float
    fingerprints: dict[str, tuple[str, ...]]
    facts: dict[str, str]
    trails: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    """Per step, each expect's trail: what the frame held at each evaluation (see :class:`RunEnd`'s *seen*)."""


class Stability:
    """Which observed values the plain run reproduces: the only ones a mutant's run may be compared on.

    A value read from memory nothing wrote (``torch.empty_like`` before every chunk is filled) differs from run
    to run; counting it as a change would call a mutant that changed nothing *survived*. The first time a
    mutant's run differs from the baseline, the plain scenario runs once more, and every digest or fact that
    differs between the two plain runs is left out of every comparison after that."""

    def __init__(self, baseline: Baseline, rerun: Callable[[], Prints]) -> None:
        self.baseline = baseline
        self.rerun = rerun
        self.unstable: tuple[set[tuple[str, int]], set[str]] | None = None

    def same(self, prints: Prints) -> bool:
        """Whether *prints* equal the baseline on every value the plain run reproduces."""
        fingerprints, facts = prints
        if (fingerprints, facts) == (self.baseline.fingerprints, self.baseline.facts):
            return True
        if self.unstable is None:
            self.unstable = _differences((self.baseline.fingerprints, self.baseline.facts), self.rerun())
        digests, fact_names = self.unstable
        if set(fingerprints) != set(self.baseline.fingerprints) or set(facts) != set(self.baseline.facts):
            return False
        for key, values in self.baseline.fingerprints.items():
            other = fingerprints[key]
            if len(other) != len(values) or any(a != b for i, (a, b) in enumerate(zip(values, other, strict=True)) if (key, i) not in digests):
                return False
        return all(facts[name] == value for name, value in self.baseline.facts.items() if name not in fact_names)


def _differences(first: Prints, second: Prints) -> tuple[set[tuple[str, int]], set[str]]:
    """The (step, position) digests and the fact names that differ between two runs."""
    digests = {
        (key, index)
        for key, values in first[0].items()
        for index, value in enumerate(values)
        if key not in second[0] or index >= len(second[0][key]) or second[0][key][index] != value
    }
    return digests, {name for name, value in first[1].items() if second[1].get(name) != value}


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
) -> dict[str, MutantsRecord]:
    """Per key in *keys*: mutate the step's statement(s) up to *limit* times and classify each mutant.

    *timeout*: seconds one mutant's run may take (default: from the plain run, at least :data:`MIN_TIMEOUT_S`).
    """
    install_helpers()
    rescan()  # wrappers and closures the plain run made (a decorator applied at load time) must be found and swapped
    by_key = {probe.key: probe for probe in probes}
    lines: dict[str, list[str]] = {}
    timeout = timeout or max(MIN_TIMEOUT_S, 4 * baseline.seconds + 5)
    stability = Stability(baseline, functools.partial(_plain_prints, function, probes, device, backend))
    found: dict[str, MutantsRecord] = {}
    for key in keys:
        probe = by_key[key]
        target = _target(probe)
        if target is None:
            found[key] = MutantsRecord(0, 0)
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
        records: list[MutantRecord] = []
        killed_by: dict[str, int] = {}
        queue = list(candidates)
        while queue:
            if sum(not _changed_nothing(record) for record in records) >= limit:
                break
            mutant = queue.pop(0)
            code = compile_function(mutant.apply(text), original.co_filename, original)
            if code is None:
                continue
            run = MutantRun(function, probes, key, kill_keys, device, backend, (functions, code, closures), timeout, mutant.kind, baseline.trails.get(key))
            judged, caught_by, how = _run_mutant(run, stability)
            records.append(MutantRecord(mutant.kind, judged, _change(mutant), caught_by))
            if how is not Ending.PASSED:
                killed_by[how] = killed_by.get(how, 0) + 1
            if mutant.kind is MutantKind.ARGUMENT and judged is MutantVerdict.EQUIVALENT and read_only_metadata():
                queue.insert(0, mutant.retyped())  # the callee read only dtype, device or shape: try another dtype
        found[key] = MutantsRecord(len(records), sum(killed_by.values()), killed_by, tuple(records))
    return found


def _changed_nothing(record: MutantRecord) -> bool:
    """A run-time mutant whose helper changed no value in any frame: it says nothing, so it is not one of the *limit* tried."""
    return record.kind in VALUE_KINDS and record.verdict is MutantVerdict.EQUIVALENT


def _change(mutant: Mutant) -> str:
    """The mutant's new text on one line, cut to :data:`CHANGE_LIMIT` characters (the report keeps no full diffs)."""
    text = " ".join(line.strip() for line in (mutant.shown or mutant.lines) if line.strip())
    return text if len(text) <= CHANGE_LIMIT else text[: CHANGE_LIMIT - 1] + "…"


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
    kind: MutantKind | None = None
    trail: tuple[tuple[str, ...], ...] | None = None
    """The plain run's trails of the step's own expects (None: unknown, so any evaluation counts as seeing the mutant)."""


@dataclass(frozen=True)
class RunEnd:
    """How one run of a mutant ended: ``expect`` (and whose), ``check``, ``error``, ``timeout`` or ``passed``;
    whether the step's own expects were evaluated on it; and, when fingerprinted, what it observed."""

    how: Ending
    owner: str | None = None
    reached: bool = False
    prints: Prints | None = None
    seen: bool = True
    """Whether, at some evaluation of the step's own expects, the frame held something the plain run's did not:
    expects that held only on frames the mutant had not changed yet did not let it past, they never saw it."""


def verdict(end: RunEnd, key: str, same: bool | None = None, *, symmetric: bool = False, deletion: bool = False) -> tuple[MutantVerdict, str | None]:
    """The mutant's verdict for step *key* and the step whose expect caught it, from how its run ended.

    *same*: a run that passed observed bit-identical values (None when it did not pass); *symmetric*: a swap
    whose operands were equal every time it ran; *deletion*: the mutant deletes the statement. The one table
    of the rules in the module docstring."""
    if end.how is Ending.EXPECT and end.owner == key:
        return MutantVerdict.CAUGHT, key
    if end.how is not Ending.PASSED:
        if end.reached and end.seen:
            return MutantVerdict.PAST_EXPECTS, end.owner
        if end.how is Ending.EXPECT:
            return MutantVerdict.CAUGHT_DOWNSTREAM, end.owner
        return (MutantVerdict.STOPPED_BY_SCENARIO if end.how is Ending.CHECK else MutantVerdict.RAISED_FIRST), None
    if not same:
        return (MutantVerdict.UNJUDGED if deletion and not end.reached else MutantVerdict.SURVIVED), None
    return (MutantVerdict.UNTESTABLE if symmetric else MutantVerdict.EQUIVALENT), None


def _plain_prints(function: Callable[[ScenarioContext], None], probes: tuple[Probe, ...], device: str, backend: str) -> Prints:
    """What the unmutated scenario observes when run once more (see :class:`Stability`)."""
    reset_helpers()
    tracer = Tracer(probes, backend=backend, fingerprint=True)
    context = ScenarioContext(device)
    execute(function, context, tracer)
    return tracer.table.fingerprints(), dict(context.facts)


def _run_mutant(run: MutantRun, stability: Stability) -> tuple[MutantVerdict, str | None, str]:
    """The mutant's verdict (see :func:`verdict`), the step whose expect caught it, and how its last run ended
    (``expect``, ``check``, ``error``, ``timeout``: the counts beside the records; ``passed``).

    The first run watches only the steps that can catch the mutant (cheap: most mutants die there);
    a mutant that lives through it runs again with every step watched and fingerprinted. A value mutant
    (:mod:`.perturb`) needs no second run: it survived when the helper changed a value in some frame the
    statement ran in (and, for an argument, the function it went to read it), and is equivalent when it changed none
    that was read; nor does a swap whose operands were always
    equal (untestable: nothing changed).
    """
    killers = tuple(probe for probe in run.probes if probe.key in run.kill_keys)
    reset_helpers()
    end = _one_run(run, killers, fingerprint=False)
    if end.how is not Ending.PASSED:
        return (*verdict(end, run.key), end.how)
    if run.kind in VALUE_KINDS:  # the helper knows whether any value changed: no second run needed
        return (*verdict(end, run.key, same=not changes_read()), end.how)
    calls, differed = swaps()
    if run.kind is MutantKind.SWAP and calls > 0 and differed == 0:
        return (*verdict(end, run.key, same=True, symmetric=True), end.how)
    again = _one_run(run, run.probes, fingerprint=True)
    if again.how is not Ending.PASSED:
        return (*verdict(again, run.key), again.how)
    same = again.prints is not None and stability.same(again.prints)
    return (*verdict(again, run.key, same=same, deletion=run.kind in DELETE_KINDS), again.how)


def _one_run(run: MutantRun, probes: tuple[Probe, ...], *, fingerprint: bool) -> RunEnd:
    """How one run of the mutant ended (see :class:`RunEnd`)."""
    tracer = Tracer(probes, backend=run.backend, fingerprint=fingerprint)
    watch = _Watch(run, tracer.table.expects.get(run.key, []))
    for killer in run.kill_keys | {run.key}:
        for expect in tracer.table.expects.get(killer, ()):
            expect.on_fail = functools.partial(watch.stop, owner=killer) if killer in run.kill_keys else functools.partial(_note_skip, watch.skipped)
    context = ScenarioContext(run.device)
    for expect in watch.own:
        expect.keep_trail()
    try:
        with swapped_with_closures(*run.swap), _time_limit(run.timeout):
            outcome = execute(run.function, context, tracer)
    except MutantStopped as stopped:
        return watch.end(stopped.reason)
    if watch.caught:  # upstream code swallowed the stop
        return watch.end(Ending.EXPECT)
    if outcome.status is ScenarioStatus.FAILED:
        return watch.end(Ending.CHECK)
    if outcome.status is not ScenarioStatus.PASSED:
        return watch.end(Ending.ERROR)
    return watch.end(Ending.PASSED, (tracer.table.fingerprints(), dict(context.facts)) if fingerprint else None)


class _Watch:
    """What the expects saw in one run of a mutant: whose expect stopped it, and whether the mutated step was judged."""

    def __init__(self, run: MutantRun, own: list[Expect]) -> None:
        self.run = run
        self.own = own
        """The mutated step's own expects."""
        self.caught: list[str] = []
        self.skipped: list[str] = []

    def stop(self, error: str | None, owner: str) -> None:
        """``on_fail`` of a killer's expect: stop the run, unless the failure is only a missing name."""
        # A name the frame no longer has (the statement was skipped, e.g. by an early return) says nothing
        # about its values: not a catch, and the step's expects could not judge this mutant at all.
        if error is not None and error.startswith(_MISSING_NAME):
            if owner == self.run.key:
                self.skipped.append(error)
            return
        self.caught.append(owner)
        raise MutantStopped(Ending.EXPECT)

    def reached(self) -> bool:
        # evaluated on the mutant and not skipped; when the step's own expect is the one that failed, it was judged
        return (any(expect.evaluations for expect in self.own) and not self.skipped) or self.run.key in self.caught

    def seen(self) -> bool:
        trail = self.run.trail
        if trail is None or len(trail) != len(self.own):
            return True
        return any(tuple(expect.trail) != plain[: len(expect.trail)] for expect, plain in zip(self.own, trail, strict=True))

    def end(self, how: Ending, prints: Prints | None = None) -> RunEnd:
        return RunEnd(how, self.caught[0] if self.caught else None, self.reached(), prints, self.seen())


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
            raise MutantStopped(Ending.TIMEOUT)

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

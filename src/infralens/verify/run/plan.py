"""Turn annotations into a verification plan: which step is traced in which scenario, or is static.

Pure data: loads and resolves annotations statically (libcst, no upstream import) and produces
:class:`PlannedStep` values with the :class:`~.tracer.Probe` to watch for each traced step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from infralens.annotations import Annotation, Step
from infralens.errors import Diagnostic, Location
from infralens.project import Project
from infralens.reports import UNRESOLVED
from infralens.resolve import ResolvedStep, ResolvedTarget, Resolver
from infralens.scenarios import ScenarioCatalog
from infralens.source import DirectoryTree, SourceTree
from infralens.verify.run.registry import project_catalog
from infralens.verify.trace.probes import Probe

UNRESOLVED_REASON = f"{UNRESOLVED} (see the diagnostics above)"
"""A step's reason when it did not resolve and no single statement is to blame (its target did not resolve)."""


@dataclass(frozen=True)
class PlannedStep:
    """One annotation step as the verifier sees it."""

    step_id: str
    annotation_id: str
    file: str
    """Annotation file (project-relative) and the step's line in it."""
    line: int
    scenario: str | None
    static: str | None
    expects: tuple[str, ...]
    expect_lines: tuple[int, ...]
    """Line of each expect in the annotation file (same order as *expects*)."""
    probe: Probe | None
    """What to trace; None for static steps and steps that cannot be traced (see *problem*)."""
    problem: str | None = None
    """Why the step cannot be verified (unresolved, no scenario, unknown scenario)."""
    source: str = ""
    """Upstream ``relpath:line`` of the step's first statement, for messages."""
    unchecked: str | None = None
    """Why the step is traced but carries no expect (the annotation's ``unchecked:``)."""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def expect_where(self, index: int) -> str:
        line = self.expect_lines[index] if index < len(self.expect_lines) else self.line
        return f"{self.file}:{line}"


@dataclass(frozen=True)
class Plan:
    steps: tuple[PlannedStep, ...]
    diagnostics: tuple[Diagnostic, ...]
    """Load and resolution problems (the affected steps are in *steps* with a problem)."""
    untraceable: tuple[str, ...] = ()
    """Why traced steps cannot run in this session: distributions read from a wheel (one line each)."""
    catalog: ScenarioCatalog = field(default_factory=lambda: ScenarioCatalog(None))
    """The project's scenarios (the workers read the same folder)."""
    environment: tuple[str, ...] = ()
    """Folders the workers put first on ``sys.path`` (``verify --against``: another release, installed on its own)."""
    distributions: tuple[str, ...] = ()
    """The project's distributions and any other an annotation names: the report records their versions."""
    watched: dict[str, tuple[Probe, ...]] = field(default_factory=dict)
    """Per scenario, every probe the loaded annotations have in it, when that is more than *steps* holds
    (``verify --annotation``, see :func:`watch_all`): the scenario runs watching these, only *steps* are judged."""

    def scenarios(self) -> tuple[str, ...]:
        """Scenario names that have at least one traced step, in catalog order."""
        used = {step.scenario for step in self.steps if step.probe is not None}
        return tuple(name for name in self.catalog.names() if name in used)

    def probes_for(self, scenario: str) -> tuple[Probe, ...]:
        """What *scenario* runs watching: its planned steps' probes, or every probe :attr:`watched` names."""
        return self.watched.get(scenario) or self.own_probes(scenario)

    def own_probes(self, scenario: str) -> tuple[Probe, ...]:
        """The probes of the planned steps of *scenario*: the ones judged, and the ones mutated under ``--mutate``."""
        return tuple(step.probe for step in self.steps if step.scenario == scenario and step.probe is not None)

    def static_steps(self) -> tuple[PlannedStep, ...]:
        return tuple(step for step in self.steps if step.static)

    def only(self, scenarios: set[str]) -> Plan:
        """The plan restricted to steps of the given scenarios (verify findings about other steps dropped)."""
        kept = tuple(step for step in self.steps if step.scenario in scenarios)
        places = {(step.file, step.line) for step in kept}
        diagnostics = tuple(d for d in self.diagnostics if d.code != "verify" or (d.location.path, d.location.line) in places)
        return replace(self, steps=kept, diagnostics=diagnostics)


def wheel_reason(tree: SourceTree) -> str | None:
    """Why steps of *tree* cannot be traced (it is not a folder on disk), or None when they can."""
    if isinstance(tree, DirectoryTree):
        return None
    return (
        f"{tree.distribution} is read from {tree.origin}: scenarios run the installed package, so a wheel cannot be traced "
        f"(drop '--source {tree.distribution}=...' to verify, or use --list-static)"
    )


def build_plan(
    project: Project, resolver: Resolver, annotations: tuple[Annotation, ...], diagnostics: tuple[Diagnostic, ...] = (), environment: tuple[str, ...] = ()
) -> Plan:
    """Resolve every annotation and plan each of its steps against the project's scenarios."""
    catalog = project_catalog(project)
    known = set(catalog.names())
    steps: list[PlannedStep] = []
    found: list[Diagnostic] = list(diagnostics) + list(catalog.problems)
    untraceable: list[str] = []
    for annotation in annotations:
        resolved = resolve_each_step(resolver, annotation)
        found.extend(resolved.diagnostics)
        place: _Place | None = None
        if resolved.target is not None:
            tree = resolver.tree(annotation.source)
            root = tree.root if isinstance(tree, DirectoryTree) else None
            place = _Place(root, resolved.target.source.relpath, resolved.target.module, wheel_reason(tree))
        for step in annotation.steps:
            planned = _plan_step(annotation, step, resolved.steps.get(step.key), place, known, found)
            if planned.problem == UNRESOLVED_REASON and step.key in resolved.failures:
                planned = replace(planned, problem=f"{UNRESOLVED}: {resolved.failures[step.key]}")
            if place is not None and place.untraceable and planned.problem == place.untraceable and place.untraceable not in untraceable:
                untraceable.append(place.untraceable)
            steps.append(planned)
    named = sorted({annotation.source for annotation in annotations} - set(project.distributions))
    return Plan(tuple(steps), tuple(found), tuple(untraceable), catalog, environment, (*project.distributions, *named))


def watch_all(plan: Plan, project: Project, resolver: Resolver, everything: tuple[Annotation, ...]) -> Plan:
    """*plan* (the steps of some annotations) with its scenarios watching every step *everything* has in them.

    What a run observes depends on what it watches: a mutant is *equivalent* only when every watched value is
    bit-identical to the plain run, and an expect of another annotation's step may catch it first. Refreshing one
    annotation must give the verdicts a run of all of them gives, so each scenario watches the same steps, in the
    same order, as then; the other annotations' steps are neither judged nor mutated, and their diagnostics are not
    repeated (their own refresh or the full run reports them).
    """
    names = set(plan.scenarios())
    needed = tuple(annotation for annotation in everything if any((step.scenario or annotation.scenario) in names for step in annotation.steps))
    if not needed:
        return plan
    full = build_plan(project, resolver, needed, environment=plan.environment)
    watched = {name: full.own_probes(name) for name in names}
    return replace(plan, watched={name: probes for name, probes in watched.items() if probes != plan.own_probes(name)})


class EachStep(NamedTuple):
    """An annotation resolved step by step: a statement that does not resolve costs only its own step."""

    target: ResolvedTarget | None
    """None when the target did not resolve: then no step did."""
    steps: dict[str, ResolvedStep]
    """The steps that resolved, by key."""
    failures: dict[str, str]
    """Why each other step's statement did not resolve, by key (one line, without the candidates)."""
    diagnostics: tuple[Diagnostic, ...]


def resolve_each_step(resolver: Resolver, annotation: Annotation) -> EachStep:
    """Resolve *annotation*'s target once, then each of its steps on its own.

    The resolver answers for a whole annotation (any unresolved step fails it, as ``validate`` wants); the
    verifier wants every step that can run to run, so an annotation that fails is resolved again one step at a
    time. The diagnostics are the resolver's, unchanged.
    """
    whole, diagnostics = resolver.resolve_annotation(annotation)
    if whole is not None:
        return EachStep(whole.target, {item.step.key: item for item in whole.steps}, {}, diagnostics)
    bare, _ = resolver.resolve_annotation(replace(annotation, steps=()))
    if bare is None:
        return EachStep(None, {}, {}, diagnostics)
    steps: dict[str, ResolvedStep] = {}
    failures: dict[str, str] = {}
    for step in annotation.steps:
        alone, problems = resolver.resolve_annotation(replace(annotation, steps=(step,)))
        if alone is not None:
            steps[step.key] = alone.steps[0]
        else:
            failures[step.key] = "; ".join(problem.message.split("; candidates: ")[0] for problem in problems)
    return EachStep(bare.target, steps, failures, diagnostics)


@dataclass(frozen=True)
class _Place:
    """Where a resolved annotation's statements live: the folder on disk (None for a wheel), file and module."""

    root: Path | None
    relpath: str
    module: str
    untraceable: str | None
    """Why statements here cannot be traced (see :func:`wheel_reason`)."""


def _plan_step(
    annotation: Annotation, step: Step, resolved: ResolvedStep | None, place: _Place | None, known: set[str], found: list[Diagnostic]
) -> PlannedStep:
    where = step.location or annotation.location or Location(annotation.path)
    scenario = step.scenario or annotation.scenario
    planned = PlannedStep(
        step_id=annotation.step_id(step),
        annotation_id=annotation.id,
        file=where.path,
        line=where.line,
        scenario=scenario,
        static=step.static,
        unchecked=step.unchecked,
        expects=tuple(step.expect),
        expect_lines=tuple(location.line for location in step.expect_locations),
        probe=None,
    )
    if step.static:
        return planned
    if resolved is None or place is None:
        return replace(planned, problem=UNRESOLVED_REASON)
    first, last = resolved.statements[0], max(resolved.statements, key=lambda s: s.start_line)
    planned = replace(planned, source=f"{place.relpath}:{first.start_line}")
    if not scenario:
        problem = "no scenario: add 'scenario:' (to the step or the annotation) or mark it 'static: <reason>'"
        found.append(Diagnostic(where, f"step {planned.step_id} is neither traced nor static", problem, code="verify"))
        return replace(planned, problem=problem)
    if scenario not in known:
        problem = f"unknown scenario {scenario!r} (known: {', '.join(sorted(known)) or 'none'})"
        hint = "use a scenario of the project's scenarios/ folder (infralens verify --list), or add scenarios/NAME.py defining run(device)"
        found.append(Diagnostic(where, problem, hint, code="verify"))
        return replace(planned, problem=problem)
    if place.root is None:
        return replace(planned, problem=place.untraceable)
    probe = Probe(
        key=planned.step_id,
        file=str(place.root / place.relpath),
        scope=first.scope or "<module>",
        entry=(first.start_line, first.header_end_line),
        exit=(last.start_line, last.header_end_line),
        exit_scope=last.scope or "<module>",
        expects=tuple(step.expect),
        module=place.module,
    )
    return replace(planned, probe=probe)

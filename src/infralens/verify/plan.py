"""Turn annotations into a verification plan: which step is traced in which scenario, or is static.

Pure data: loads and resolves annotations statically (libcst, no upstream import) and produces
:class:`PlannedStep` values with the :class:`~.tracer.Probe` to watch for each traced step.
"""

from __future__ import annotations

from dataclasses import dataclass

from infralens.annotations import Annotation, Step
from infralens.errors import Diagnostic, Location
from infralens.resolve import ResolvedStep
from infralens.verify.registry import scenario_names
from infralens.verify.tracer import Probe


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

    def scenarios(self) -> tuple[str, ...]:
        """Scenario names that have at least one traced step, in catalog order."""
        used = {step.scenario for step in self.steps if step.probe is not None}
        return tuple(name for name in scenario_names() if name in used)

    def probes_for(self, scenario: str) -> tuple[Probe, ...]:
        return tuple(step.probe for step in self.steps if step.scenario == scenario and step.probe is not None)

    def static_steps(self) -> tuple[PlannedStep, ...]:
        return tuple(step for step in self.steps if step.static)

    def only(self, scenarios: set[str]) -> Plan:
        """The plan restricted to steps of the given scenarios (verify findings about other steps dropped)."""
        kept = tuple(step for step in self.steps if step.scenario in scenarios)
        places = {(step.file, step.line) for step in kept}
        diagnostics = tuple(d for d in self.diagnostics if d.code != "verify" or (d.location.path, d.location.line) in places)
        return Plan(kept, diagnostics)


def build_plan(project, resolver, annotations: tuple[Annotation, ...], diagnostics: tuple[Diagnostic, ...] = ()) -> Plan:
    """Resolve every annotation and plan each of its steps."""
    known = set(scenario_names())
    steps: list[PlannedStep] = []
    found: list[Diagnostic] = list(diagnostics)
    for annotation in annotations:
        resolved, problems = resolver.resolve_annotation(annotation)
        found.extend(problems)
        resolved_steps: dict[str, ResolvedStep] = {}
        root = None
        relpath = module = ""
        if resolved is not None:
            resolved_steps = {item.step.key: item for item in resolved.steps}
            relpath = resolved.target.source.relpath
            module = resolved.target.module
            root = resolver.tree(annotation.source).root
        for step in annotation.steps:
            steps.append(_plan_step(annotation, step, resolved_steps.get(step.key), root, relpath, known, found, module))
    return Plan(tuple(steps), tuple(found))


def _plan_step(annotation, step: Step, resolved: ResolvedStep | None, root, relpath, known, found, resolved_module="") -> PlannedStep:
    where = step.location or annotation.location or Location(annotation.path)
    scenario = step.scenario or annotation.scenario
    base = dict(
        step_id=annotation.step_id(step),
        annotation_id=annotation.id,
        file=where.path,
        line=where.line,
        scenario=scenario,
        static=step.static,
        expects=tuple(step.expect),
        expect_lines=tuple(location.line for location in step.expect_locations),
    )
    if step.static:
        return PlannedStep(**base, probe=None)
    if resolved is None:
        return PlannedStep(**base, probe=None, problem="the step did not resolve (see the diagnostics above)")
    first, last = resolved.statements[0], max(resolved.statements, key=lambda s: s.start_line)
    source = f"{relpath}:{first.start_line}"
    if not scenario:
        problem = "no scenario: add 'scenario:' (to the step or the annotation) or mark it 'static: <reason>'"
        found.append(Diagnostic(where, f"step {base['step_id']} is neither traced nor static", problem, code="verify"))
        return PlannedStep(**base, probe=None, problem=problem, source=source)
    if scenario not in known:
        problem = f"unknown scenario {scenario!r} (known: {', '.join(sorted(known))})"
        found.append(Diagnostic(where, problem, "use a scenario from the catalog (infralens verify --list) or add one", code="verify"))
        return PlannedStep(**base, probe=None, problem=problem, source=source)
    probe = Probe(
        key=base["step_id"],
        file=str(root / relpath),
        scope=first.scope or "<module>",
        entry=(first.start_line, first.header_end_line),
        exit=(last.start_line, last.header_end_line),
        exit_scope=last.scope or "<module>",
        expects=tuple(step.expect),
        module=resolved_module,
    )
    return PlannedStep(**base, probe=probe, source=source)

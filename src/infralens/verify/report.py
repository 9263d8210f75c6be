"""The verification report: the typed record written through :mod:`infralens.reports`, and the terminal summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

from infralens.ci_output import CiCase, Outcome, diagnostic_case
from infralens.errors import Diagnostic, printable_line
from infralens.reports import (
    ExpectRecord,
    MutantVerdict,
    ScenarioRecord,
    ScenarioStatus,
    StepRecord,
    StepStatus,
    StepTier,
    VerifyReport,
    dumps_report,
    load_verify_report,
    own_catches,
    step_tier,
)
from infralens.userfiles import write_output
from infralens.verify.run.protocol import ScenarioOutcome
from infralens.verify.run.runner import ExpectOutcome, StepOutcome, VerifyResult


def to_record(result: VerifyResult) -> VerifyReport:
    """The report for *result* (see docs/guide/verification.md for the fields)."""
    return VerifyReport(
        created=result.created,
        device=result.device,
        device_name=result.device_name,
        versions=dict(result.versions),
        stubbed_modules=tuple(result.stubbed),
        scenarios={outcome.scenario: _scenario(outcome) for outcome in result.scenarios},
        steps={outcome.step.step_id: _step(outcome) for outcome in result.steps},
    )


def _scenario(outcome: ScenarioOutcome) -> ScenarioRecord:
    cpu = None if outcome.cpu_seconds is None else round(outcome.cpu_seconds, 3)
    return ScenarioRecord(outcome.status, round(outcome.seconds, 3), cpu, outcome.error, dict(outcome.facts))


def tier(outcome: StepOutcome) -> tuple[StepTier, str]:
    """The step's tier and reason (see :func:`infralens.reports.step_tier`)."""
    mutants = outcome.mutants
    return step_tier(
        outcome.status,
        len(outcome.expects) if outcome.expects else len(outcome.step.expects),
        outcome.reason,
        unchecked=outcome.step.unchecked,
        mutants=None if mutants is None else mutants.records,
    )


def _step(outcome: StepOutcome) -> StepRecord:
    step = outcome.step
    grade, why = tier(outcome)
    return StepRecord(
        status=outcome.status,
        times_ran=outcome.times_ran,
        scenario=step.scenario,
        file=step.file,
        line=step.line,
        source=step.source or None,
        expects=tuple(_expect(expect) for expect in outcome.expects),
        reason=outcome.reason,
        tier=grade,
        tier_reason=why,
        mutants=outcome.mutants,
    )


def _expect(expect: ExpectOutcome) -> ExpectRecord:
    line = int(expect.where.rsplit(":", 1)[1])
    return ExpectRecord(expect.expr, expect.passed, expect.observed, line, expect.evaluations, expect.error)


def write_report(result: VerifyResult, path: str | Path) -> Path:
    """Write the JSON report for *result* to *path*, whole or not at all and only where an output may go
    (:func:`~infralens.userfiles.write_output`); returns the path."""
    path = Path(path)
    write_output(path, dumps_report(to_record(result)), what="verification report")
    return path


def write_merged_report(result: VerifyResult, path: str | Path, *, annotations: tuple[str, ...] = (), scenarios: tuple[str, ...] = ()) -> Path:
    """Refresh part of the report at *path*: the steps *result* judged (and the other steps of *annotations* and
    *scenarios*, gone from the plan) are replaced; every other step and scenario is kept as it was.

    A missing *path* is written whole. Raises ``ValueError`` when the report at *path* was made on another device
    or with other versions (a merge would mix two environments), and ``ReportError`` when it cannot be read.
    """
    path = Path(path)
    if not path.is_file():
        return write_report(result, path)
    merged = merge_records(load_verify_report(path), to_record(result), annotations=annotations, scenarios=scenarios)
    write_output(path, dumps_report(merged), what="verification report")
    return path


def merge_records(old: VerifyReport, new: VerifyReport, *, annotations: tuple[str, ...] = (), scenarios: tuple[str, ...] = ()) -> VerifyReport:
    """*old* with *new*'s steps and scenarios in place (see :func:`write_merged_report`); *old*'s order and date kept."""
    if (old.device, old.versions) != (new.device, new.versions):
        names = sorted(name for name in {*old.versions, *new.versions} if old.versions.get(name) != new.versions.get(name))
        changed = ", ".join(f"{name} {old.versions.get(name, '-')} → {new.versions.get(name, '-')}" for name in names)
        where = f"{old.device} → {new.device}" if old.device != new.device else changed
        raise ValueError(f"the report was made elsewhere ({where}); run the whole verification (without --annotation or --scenario) to replace it")
    owners, runs = set(annotations), set(scenarios)

    def replaced(step_id: str, record: StepRecord) -> bool:
        return step_id.split("/", 1)[0] in owners or (record.scenario is not None and record.scenario in runs)

    steps = {step_id: new.steps.get(step_id, record) for step_id, record in old.steps.items() if step_id in new.steps or not replaced(step_id, record)}
    steps.update({step_id: record for step_id, record in new.steps.items() if step_id not in steps})
    merged = {**old.scenarios, **new.scenarios}
    stubbed = tuple(sorted({*old.stubbed_modules, *new.stubbed_modules}))
    return replace(old, steps=steps, scenarios=merged, stubbed_modules=stubbed, device_name=new.device_name or old.device_name)


def summary_table(result: VerifyResult) -> str:
    """One row per scenario: status, seconds, its steps per tier (checked, ran, read, unverified) and failed; then totals."""
    graded = [(outcome, tier(outcome)[0]) for outcome in result.steps]
    mutating = any(outcome.mutants is not None for outcome in result.steps)
    header = ("scenario", "status", "seconds", *(grade.value for grade in StepTier), "failed") + (("caught by own expects",) if mutating else ())
    rows = [header]
    for scenario in result.scenarios:
        mine = [(outcome, grade) for outcome, grade in graded if outcome.step.scenario == scenario.scenario]
        row = (scenario.scenario, scenario.status.value, f"{scenario.seconds:.2f}", *_tier_cells(mine))
        rows.append(row + ((_killed_cell([outcome for outcome, _ in mine]),) if mutating else ()))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths, strict=True))) for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    counts = {grade: sum(g is grade for _, g in graded) for grade in StepTier}
    failed = sum(outcome.status is StepStatus.FAILED for outcome, _ in graded)
    total = sum(outcome.seconds for outcome in result.scenarios)
    lines.append("")
    lines.append(
        f"{len(result.steps)} steps: "
        + ", ".join(f"{counts[grade]} {grade.value}" for grade in StepTier)
        + f" ({failed} failed); scenarios {total:.1f} s on {result.device}"
        + (f" ({result.device_name})" if result.device_name else "")
    )
    if mutating:
        lines.append(_mutation_line([outcome for outcome, _ in graded]))
    return "\n".join(printable_line(line) for line in lines)  # one line each: nothing in a name can start a log line


def _tier_cells(graded: list[tuple[StepOutcome, StepTier]]) -> tuple[str, ...]:
    counts = [str(sum(grade is wanted for _, grade in graded)) for wanted in StepTier]
    return (*counts, str(sum(outcome.status is StepStatus.FAILED for outcome, _ in graded)))


def _killed_cell(outcomes: list[StepOutcome]) -> str:
    mutated = [outcome.mutants for outcome in outcomes if outcome.mutants is not None and outcome.mutants.tried]
    return f"{sum(m.caught for m in mutated)}/{sum(m.tried for m in mutated)}" if mutated else "-"


def _mutation_line(outcomes: list[StepOutcome]) -> str:
    """Mutants per verdict over the run, and the steps whose own expects rejected one other than the deletion."""
    mutated = [outcome.mutants for outcome in outcomes if outcome.mutants is not None and outcome.mutants.tried]
    verdicts = Counter(item.verdict for mutants in mutated for item in mutants.records)
    own = sum(bool(own_catches(m.records)) for m in mutated)
    share = f"{100 * own / len(mutated):.0f}%" if mutated else "-"
    return (
        f"mutants: {sum(m.tried for m in mutated)} tried on {len(mutated)} steps; "
        + ", ".join(f"{verdicts[verdict]} {verdict.value}" for verdict in MutantVerdict)
        + f"; {own}/{len(mutated)} steps ({share}) have an own expect that rejects a wrong version other than the deletion"
    )


def findings(result: VerifyResult) -> list[str]:
    """``file:line: error: ...`` lines for every failed expect, step that did not run, broken scenario."""
    found = []
    for scenario in result.scenarios:
        if scenario.status is not ScenarioStatus.PASSED:
            found.append(f"scenario {scenario.scenario}: {scenario.status.value}: {scenario.error}")
    for outcome in result.steps:
        step = outcome.step
        if outcome.status is StepStatus.FAILED:
            for expect in outcome.expects:
                if not expect.passed:
                    detail = f"observed {expect.observed}" if expect.observed else "observed nothing"
                    if expect.error:
                        detail += f"; raised {expect.error}"
                    found.append(
                        f"{expect.where}: error: expect failed in scenario {step.scenario}: {expect.expr} — {detail} "
                        f"({expect.evaluations} evaluation(s); step {step.step_id} at {step.source})"
                    )
        elif outcome.status is StepStatus.NOT_RUN:
            found.append(f"{step.where}: error: step {step.step_id} did not run: {outcome.reason}")
    return found


def ci_cases(result: VerifyResult, diagnostics: tuple[Diagnostic, ...] = ()) -> list[CiCase]:
    """The run as CI cases: a case per step (failed: an expect failed or the step did not run; skipped: static),
    one per scenario that did not pass, and the plan's problems (an error fails, a warning is a note)."""
    cases = [diagnostic_case(d, "verify") for d in diagnostics]
    for scenario in result.scenarios:
        if scenario.status is not ScenarioStatus.PASSED:
            message = f"scenario {scenario.scenario}: {scenario.status.value}: {scenario.error}"
            cases.append(CiCase(scenario.scenario, "scenarios", "", 0, Outcome.FAILED, "error", "verify/scenario", "infralens verify: scenario", message))
    for outcome in result.steps:
        step = outcome.step
        failing = [e for e in outcome.expects if not e.passed]
        if outcome.status is StepStatus.FAILED and failing:
            for expect in failing:
                path, _, line = expect.where.rpartition(":")
                detail = f"observed {expect.observed}" if expect.observed else "observed nothing"
                detail += f"; raised {expect.error}" if expect.error else ""
                message = f"expect failed in scenario {step.scenario}: {expect.expr} — {detail} (step at {step.source})"
                case = CiCase(step.step_id, step.file, path or step.file, int(line) if line.isdigit() else step.line, Outcome.FAILED)
                cases.append(replace(case, rule="verify/expect-failed", title="infralens verify: expect failed", message=message))
        elif outcome.status in (StepStatus.FAILED, StepStatus.NOT_RUN):
            message = f"step {step.step_id} did not run: {outcome.reason}" if outcome.status is StepStatus.NOT_RUN else f"step {step.step_id} failed"
            rule = f"verify/{outcome.status.value}"
            cases.append(
                CiCase(step.step_id, step.file, step.file, step.line, Outcome.FAILED, "error", rule, f"infralens verify: {outcome.status.value}", message)
            )
        else:
            skipped = outcome.status is StepStatus.STATIC
            message = f"static: {outcome.reason}" if skipped else f"ran {outcome.times_ran} time(s), {len(outcome.expects)} expect(s) held"
            cases.append(
                CiCase(step.step_id, step.file, step.file, step.line, Outcome.SKIPPED if skipped else Outcome.PASSED, "none", "verify/step", "", message)
            )
    return cases

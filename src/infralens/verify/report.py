"""The verification report: the typed record written through :mod:`infralens.reports`, and the terminal summary."""

from __future__ import annotations

from pathlib import Path

from infralens.reports import ExpectRecord, ScenarioRecord, ScenarioStatus, StepRecord, StepStatus, VerifyReport, write_report as write_any_report
from infralens.verify.protocol import ScenarioOutcome
from infralens.verify.runner import ExpectOutcome, StepOutcome, VerifyResult


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


def _step(outcome: StepOutcome) -> StepRecord:
    step = outcome.step
    return StepRecord(
        status=outcome.status,
        times_ran=outcome.times_ran,
        scenario=step.scenario,
        file=step.file,
        line=step.line,
        source=step.source or None,
        expects=tuple(_expect(expect) for expect in outcome.expects),
        reason=outcome.reason,
    )


def _expect(expect: ExpectOutcome) -> ExpectRecord:
    line = int(expect.where.rsplit(":", 1)[1])
    return ExpectRecord(expect.expr, expect.passed, expect.observed, line, expect.evaluations, expect.error)


def write_report(result: VerifyResult, path: str | Path) -> Path:
    """Write the JSON report for *result* to *path*; returns the path."""
    return write_any_report(to_record(result), path)


def summary_table(result: VerifyResult) -> str:
    """One row per scenario: status, seconds, steps passed/failed/not run; then the totals."""
    rows = [("scenario", "status", "seconds", "steps ok", "failed", "not run")]
    for outcome in result.scenarios:
        steps = [s for s in result.steps if s.step.scenario == outcome.scenario and s.status is not StepStatus.STATIC]
        rows.append(
            (
                outcome.scenario,
                outcome.status.value,
                f"{outcome.seconds:.2f}",
                f"{sum(s.status is StepStatus.PASSED for s in steps)}/{len(steps)}",
                str(sum(s.status is StepStatus.FAILED for s in steps)),
                str(sum(s.status is StepStatus.NOT_RUN for s in steps)),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths, strict=True))) for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    counts = {status: sum(s.status is status for s in result.steps) for status in StepStatus}
    total = sum(outcome.seconds for outcome in result.scenarios)
    lines.append("")
    lines.append(
        f"{len(result.steps)} steps: {counts[StepStatus.PASSED]} passed, {counts[StepStatus.FAILED]} failed, "
        f"{counts[StepStatus.NOT_RUN]} not run, {counts[StepStatus.STATIC]} static; scenarios {total:.1f} s on {result.device}"
        + (f" ({result.device_name})" if result.device_name else "")
    )
    return "\n".join(lines)


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

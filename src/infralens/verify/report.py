"""The verification report: JSON for the site (format 1) and the terminal summary."""

from __future__ import annotations

import json
from pathlib import Path

from infralens.verify.runner import StepOutcome, VerifyResult

FORMAT = 1


def to_json(result: VerifyResult) -> dict:
    """The report as a JSON-ready dict (see docs/guide/verification.md for the fields)."""
    return {
        "format": FORMAT,
        "created": result.created,
        "device": result.device,
        "device_name": result.device_name,
        "versions": result.versions,
        "stubbed_modules": list(result.stubbed),
        "scenarios": {
            outcome.name: _without_none(
                {
                    "status": outcome.status,
                    "seconds": round(outcome.seconds, 3),
                    "cpu_seconds": None if outcome.cpu_seconds is None else round(outcome.cpu_seconds, 3),
                    "error": outcome.error,
                    "facts": outcome.facts or None,
                }
            )
            for outcome in result.scenarios
        },
        "steps": {outcome.step.step_id: _step(outcome) for outcome in result.steps},
    }


def _step(outcome: StepOutcome) -> dict:
    step = outcome.step
    entry = {
        "status": outcome.status,
        "times_ran": outcome.times_ran,
        "scenario": step.scenario,
        "file": step.file,
        "line": step.line,
        "source": step.source or None,
        "expects": [
            _without_none(
                {
                    "expr": expect.expr,
                    "passed": expect.passed,
                    "observed": expect.observed,
                    "line": int(expect.where.rsplit(":", 1)[1]),
                    "evaluations": expect.evaluations,
                    "error": expect.error,
                }
            )
            for expect in outcome.expects
        ],
        "reason": outcome.reason,
    }
    return _without_none(entry)


def _without_none(mapping: dict) -> dict:
    return {key: value for key, value in mapping.items() if value is not None}


def write_report(result: VerifyResult, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_json(result), indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return path


def summary_table(result: VerifyResult) -> str:
    """One row per scenario: status, seconds, steps passed/failed/not run."""
    rows = [("scenario", "status", "seconds", "steps ok", "failed", "not run")]
    for outcome in result.scenarios:
        steps = [s for s in result.steps if s.step.scenario == outcome.name and s.status != "static"]
        rows.append(
            (
                outcome.name,
                outcome.status,
                f"{outcome.seconds:.2f}",
                f"{sum(s.status == 'passed' for s in steps)}/{len(steps)}",
                str(sum(s.status == "failed" for s in steps)),
                str(sum(s.status == "not-run" for s in steps)),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths))) for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    counts = {status: sum(s.status == status for s in result.steps) for status in ("passed", "failed", "not-run", "static")}
    total = sum(outcome.seconds for outcome in result.scenarios)
    lines.append("")
    lines.append(
        f"{len(result.steps)} steps: {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['not-run']} not run, {counts['static']} static; scenarios {total:.1f} s on {result.device}"
        + (f" ({result.device_name})" if result.device_name else "")
    )
    return "\n".join(lines)


def findings(result: VerifyResult) -> list[str]:
    """``file:line: error: ...`` lines for every failed expect, step that did not run, broken scenario."""
    found = []
    for outcome in result.scenarios:
        if outcome.status != "passed":
            found.append(f"scenario {outcome.name}: {outcome.status}: {outcome.error}")
    for outcome in result.steps:
        step = outcome.step
        if outcome.status == "failed":
            for expect in outcome.expects:
                if not expect.passed:
                    detail = f"observed {expect.observed}" if expect.observed else "observed nothing"
                    if expect.error:
                        detail += f"; raised {expect.error}"
                    found.append(
                        f"{expect.where}: error: expect failed in scenario {step.scenario}: {expect.expr} — {detail} "
                        f"({expect.evaluations - 0} evaluation(s); step {step.step_id} at {step.source})"
                    )
        elif outcome.status == "not-run":
            found.append(f"{step.where}: error: step {step.step_id} did not run: {outcome.reason}")
    return found

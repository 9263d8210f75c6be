"""Which scenarios reach a function: read from the committed coverage maps and verification reports.

``infralens add`` writes the scenario that runs the scaffolded function, so ``verify`` can check the
new steps; it learns which from ``reports/coverage-<scenario>.json`` (every upstream function a
scenario called) and ``reports/verify-<device>.json`` (where each annotated step ran). Nothing is run.
"""

from __future__ import annotations

from pathlib import Path

from infralens.maintainer.coverage_format import MAX_COVERAGE_DEPTH
from infralens.reports import ReportError, parse_report_json, read_report_text


def scenarios_reaching(reports: Path, distribution: str, relpath: str, qualname: str, lines: tuple[int, int]) -> list[str]:
    """Scenarios known to run ``qualname`` (in ``relpath`` of ``distribution``, spanning ``lines``), best known first."""
    found: dict[str, int] = {}
    for path in sorted(reports.glob("coverage-*.json")):
        document = _read(path)
        functions = document.get("functions") if isinstance(document, dict) else None
        scenario = document.get("scenario") if isinstance(document, dict) else None
        if not isinstance(functions, list) or not isinstance(scenario, str):
            continue
        for function in functions:
            if isinstance(function, dict) and (function.get("dist"), function.get("file"), function.get("qualname")) == (distribution, relpath, qualname):
                calls = function.get("calls")
                found[scenario] = found.get(scenario, 0) + (calls if isinstance(calls, int) else 1)
    for path in sorted(reports.glob("verify-*.json")):
        document = _read(path)
        steps = document.get("steps") if isinstance(document, dict) else None
        for step in steps.values() if isinstance(steps, dict) else ():
            if not isinstance(step, dict) or not isinstance(step.get("scenario"), str) or not step.get("times_ran"):
                continue
            file, _, line = str(step.get("source") or "").rpartition(":")
            if file == relpath and line.isdigit() and lines[0] <= int(line) <= lines[1]:
                found[step["scenario"]] = found.get(step["scenario"], 0) + int(step["times_ran"])
    return sorted(found, key=lambda name: (-found[name], name))


def _read(path: Path) -> object:
    """The report's JSON, or None when it cannot be read (a tampered report — too deep, NaN, a FIFO — is skipped like a missing one)."""
    try:
        return parse_report_json(read_report_text(path), path, max_depth=MAX_COVERAGE_DEPTH)
    except ReportError:
        return None

"""Which scenarios reach a function: read from the committed coverage maps and verification reports.

``infralens add`` writes the scenario that runs the scaffolded function, so ``verify`` can check the
new steps; it learns which from ``reports/coverage-<scenario>.json`` (every upstream function a
scenario called) and ``reports/verify-<device>.json`` (where each annotated step ran). Nothing is run.
"""

from __future__ import annotations

from pathlib import Path

from infralens.reports import ReportError, load_coverage_report, load_verify_report


def scenarios_reaching(reports: Path, distribution: str, relpath: str, qualname: str, lines: tuple[int, int]) -> list[str]:
    """Scenarios known to run ``qualname`` (in ``relpath`` of ``distribution``, spanning ``lines``), best known first.

    A report that cannot be read (a tampered one — too deep, NaN, a FIFO — or one of another layout) is skipped like a missing one.
    """
    found: dict[str, int] = {}
    for path in sorted(reports.glob("coverage-*.json")):
        try:
            coverage = load_coverage_report(path)
        except ReportError:
            continue
        for function in coverage.functions:
            if (function.ref.distribution, function.ref.file, function.ref.qualname) == (distribution, relpath, qualname):
                found[coverage.scenario] = found.get(coverage.scenario, 0) + function.calls
    for path in sorted(reports.glob("verify-*.json")):
        try:
            verify = load_verify_report(path)
        except ReportError:
            continue
        for step in verify.steps.values():
            if step.scenario is None or not step.times_ran:
                continue
            file, _, line = (step.source or "").rpartition(":")
            if file == relpath and line.isdigit() and lines[0] <= int(line) <= lines[1]:
                found[step.scenario] = found.get(step.scenario, 0) + step.times_ran
    return sorted(found, key=lambda name: (-found[name], name))

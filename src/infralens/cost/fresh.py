"""The committed ``reports/cost.json``, recomputed only when what it depends on changed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from infralens.cost.catalog import load_catalog
from infralens.cost.compute import Request, compute_report, fingerprint
from infralens.cost.measure import NO_CUDA
from infralens.reports import CostReport, CostReportError, dumps_cost_report, load_cost_report


@dataclass(frozen=True)
class FreshReport:
    report: CostReport
    recomputed: bool
    why: str
    """Why it was recomputed (or "" when the file was current)."""


def is_current(report: CostReport, catalog_path: Path) -> bool:
    """Whether *report* was made from this catalog and these installed versions (with the default request).

    Reads the catalog as data and the installed versions' metadata only: nothing is built or imported (the site
    build asks this, and never computes).
    """
    return report.fingerprint == fingerprint(load_catalog(catalog_path), Request(batch=report.batch))


def fresh_report(report_path: Path, catalog_path: Path, *, write: bool = True) -> FreshReport:
    """The report at *report_path* when current; else computed again (and written back when *write*)."""
    why = ""
    try:
        report = load_cost_report(report_path)
        if is_current(report, catalog_path):
            return FreshReport(report, recomputed=False, why="")
        why = f"{report_path} is stale (costs/models.yaml or the installed versions changed)"
    except CostReportError as error:
        why = str(error)
    report = compute_report(load_catalog(catalog_path), Request(), NO_CUDA)
    if write:
        from infralens.userfiles import write_atomically

        write_atomically(report_path, dumps_cost_report(report), what="cost report")
    return FreshReport(report, recomputed=True, why=why)

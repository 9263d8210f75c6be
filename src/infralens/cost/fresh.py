"""Whether the committed ``reports/cost.json`` still matches what it was counted from (read as data, never recomputed)."""

from __future__ import annotations

from pathlib import Path

from infralens.cost.catalog import load_catalog
from infralens.cost.compute import Request, fingerprint
from infralens.reports import CostReport


def is_current(report: CostReport, catalog_path: Path) -> bool:
    """Whether *report* was made from this catalog and these installed versions (with the default request).

    Reads the catalog as data and the installed versions' metadata only: nothing is built or imported (the site
    build asks this, and never computes; ``make cost`` recomputes and writes the report).
    """
    return report.fingerprint == fingerprint(load_catalog(catalog_path), Request(batch=report.batch))

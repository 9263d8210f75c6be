"""The reports' JSON Schema, generated from the record definitions (:mod:`infralens.records`).

``python -m infralens.reports.schema_gen`` rewrites ``src/infralens/reports/schema/reports.schema.json``;
``--check`` exits 1 when the committed file differs from what the definitions give (a test runs the same
comparison). Each record class becomes one ``$defs`` entry named by its ``json_name``; each vocabulary enum
one ``{"enum": [...]}`` entry. The roots are the report records :data:`~.load.RECORDS` reads (the cost report among
them), then the coverage report (:mod:`.coverage_report`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from enum import Enum
from pathlib import Path

from infralens.atomic import write_text
from infralens.records import JsonObject, Record, definitions, regenerate
from infralens.reports.vocabulary import (
    DriftKind,
    DriftSeverity,
    LockFindingKind,
    MatchQuality,
    MutantVerdict,
    ReleaseState,
    ScenarioStatus,
    StepStatus,
    StepTier,
    TargetDriftKind,
)

ENUMS: dict[type[Enum], tuple[str, str | None]] = {
    StepStatus: ("stepStatus", None),
    StepTier: (
        "stepTier",
        "checked: under --mutate, the step's own expects rejected a wrong version other than the deletion and let none past; "
        "held: its expects held, no mutation run; ran: ran, its claims not shown to pin it; read: static; unverified: none of these.",
    ),
    MutantVerdict: (
        "mutantVerdict",
        "How one wrong version ended, seen from its step; past-expects, survived and untestable count against checked.",
    ),
    ScenarioStatus: ("scenarioStatus", None),
    DriftKind: ("stepKind", None),
    TargetDriftKind: ("targetKind", None),
    DriftSeverity: ("severity", None),
    MatchQuality: ("matchQuality", None),
    LockFindingKind: ("lockFindingKind", None),
    ReleaseState: (
        "releaseState",
        "A locked step in one release: a drift kind, or absent (not yet present in this or any earlier release of the range).",
    ),
}
"""Each vocabulary enum a report uses, its name in ``$defs`` and its description."""

SCHEMA_FILE = Path(__file__).resolve().parent / "schema" / "reports.schema.json"
HEADER: JsonObject = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://infralens.invalid/schema/reports.schema.json",
    "title": "InfraLens reports",
    "description": "The committed reports: the verification report (reports/verify-<device>.json), the drift report (reports/check.json), the "
    "release history (reports/history.json), the release × device matrix (infralens matrix --out), the cost report (reports/cost.json) "
    "and the coverage reports (reports/coverage-<scenario>.json). Generated from the record definitions in infralens.reports "
    "(python -m infralens.reports.schema_gen); infralens.reports.load_report (load_cost_report, load_coverage_report for those) "
    "validates a document against the definition of its kind.",
}


def schema_document() -> JsonObject:
    """The whole schema: every report kind, one of them at the top."""
    from infralens.reports.coverage_report import CoverageMap
    from infralens.reports.load import RECORDS

    roots: list[type[Record]] = [*RECORDS.values(), CoverageMap]
    return HEADER | {"oneOf": [{"$ref": f"#/$defs/{root.json_name}"} for root in roots], "$defs": definitions(roots, ENUMS)}


def schema_text() -> str:
    return json.dumps(schema_document(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the generated schema over the committed one (``--check``: only compare)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    return regenerate(SCHEMA_FILE, schema_text(), argv, write_text, "python -m infralens.reports.schema_gen")


if __name__ == "__main__":
    sys.exit(main())

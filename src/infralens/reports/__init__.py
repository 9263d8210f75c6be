"""The committed reports: typed records (one definition each, yielding JSON and JSON Schema), one loader.

Owns the verification report (:mod:`.verify_report`, written by ``infralens verify --report``),
the drift report (:mod:`.drift_report`, written by ``infralens check --format json``), the release
history (:mod:`.history_report`, written by ``infralens history --format json``), the release × device matrix
(:mod:`.matrix_report`, written by ``infralens matrix --out``), the cost report
(:mod:`.cost_report`, written by ``infralens cost --format json``; read with ``load_cost_report``), the coverage
reports (:mod:`.coverage_report`, written by ``infralens coverage --json``; read with ``load_coverage_report``), the words
they use (:mod:`.vocabulary`: verify statuses and step tiers, drift kinds, badge tiers), the tier rule (:mod:`.tiers`),
records of :mod:`infralens.records` (a record's dataclass fields give its JSON both ways, and its schema) with
:mod:`.schema_gen` (``schema/reports.schema.json``, generated from them: ``python -m infralens.reports.schema_gen``),
and :mod:`.load` (``load_report``, bounded against tampered files; ``dumps_report``). Sits below drift,
verify and sphinx, which read reports only through it and write :func:`dumps_report`'s text with
:mod:`infralens.userfiles`. May import: :mod:`infralens.records`, :mod:`infralens.errors`, :mod:`infralens.cachedir`, the standard library and jsonschema.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .cost_report import (
        CacheRecord as CacheRecord,
        CostReport as CostReport,
        CostReportError as CostReportError,
        DecoderCostRecord as DecoderCostRecord,
        DecoderFitRecord as DecoderFitRecord,
        DecodeStepRecord as DecodeStepRecord,
        MeasuredRecord as MeasuredRecord,
        ModelCostRecord as ModelCostRecord,
        OffloadModeRecord as OffloadModeRecord,
        OffloadRecord as OffloadRecord,
        PipelineCostRecord as PipelineCostRecord,
        ResolutionCostRecord as ResolutionCostRecord,
        cost_report_to_json as cost_report_to_json,
        dumps_cost_report as dumps_cost_report,
    )
    from .coverage_report import (
        COVERAGE_FORMAT as COVERAGE_FORMAT,
        MAX_COVERAGE_DEPTH as MAX_COVERAGE_DEPTH,
        AnnotationMark as AnnotationMark,
        CallNode as CallNode,
        CoverageMap as CoverageMap,
        FunctionInfo as FunctionInfo,
        FunctionRef as FunctionRef,
        coverage_from_json as coverage_from_json,
        load_coverage_report as load_coverage_report,
        parse_coverage_report as parse_coverage_report,
    )
    from .drift_report import (
        Candidate as Candidate,
        CheckedTree as CheckedTree,
        DriftReport as DriftReport,
        DriftStep as DriftStep,
        DriftTarget as DriftTarget,
        LockedPlace as LockedPlace,
        LockFindingRecord as LockFindingRecord,
        Place as Place,
        Scores as Scores,
        TargetPlace as TargetPlace,
    )
    from .history_report import (
        AnnotationHistory as AnnotationHistory,
        Difference as Difference,
        HistoryReport as HistoryReport,
        ReleaseSpan as ReleaseSpan,
        StepHistory as StepHistory,
    )
    from .history_runs import (
        RUN_MARKS as RUN_MARKS,
        RUN_WORDS as RUN_WORDS,
        UNRESOLVED as UNRESOLVED,
        HistoryRuns as HistoryRuns,
        ReleaseRun as ReleaseRun,
        RunCell as RunCell,
        RunSeries as RunSeries,
        RunsInputError as RunsInputError,
        RunState as RunState,
        StepRuns as StepRuns,
        release_key as release_key,
        summarize_runs as summarize_runs,
    )
    from .history_text import (
        STATE_WORDS as STATE_WORDS,
        describe_holding as describe_holding,
        holding_span as holding_span,
        release_ranges as release_ranges,
    )
    from .json_values import as_int as as_int, as_list as as_list, as_object as as_object, strings as strings
    from .load import (
        Report as Report,
        ReportError as ReportError,
        ReportKind as ReportKind,
        cost_report_from_json as cost_report_from_json,
        dumps_report as dumps_report,
        load_cost_report as load_cost_report,
        load_drift_report as load_drift_report,
        load_history_report as load_history_report,
        load_history_runs as load_history_runs,
        load_matrix_report as load_matrix_report,
        load_report as load_report,
        load_verify_report as load_verify_report,
        parse_report_json as parse_report_json,
        read_report_text as read_report_text,
        report_schema as report_schema,
        validate_cost_report as validate_cost_report,
        validate_report as validate_report,
    )
    from .matrix_report import (
        MATRIX_DEVICES as MATRIX_DEVICES,
        MATRIX_OUTCOMES as MATRIX_OUTCOMES,
        MATRIX_POLICIES as MATRIX_POLICIES,
        MatrixCell as MatrixCell,
        MatrixCheck as MatrixCheck,
        MatrixReport as MatrixReport,
        MatrixVerify as MatrixVerify,
    )
    from .tiers import DELETE_KINDS as DELETE_KINDS, own_catches as own_catches, step_tier as step_tier
    from .verify_report import (
        CHANGE_LIMIT as CHANGE_LIMIT,
        ExpectRecord as ExpectRecord,
        MutantRecord as MutantRecord,
        MutantsRecord as MutantsRecord,
        ScenarioRecord as ScenarioRecord,
        StepRecord as StepRecord,
        VerifyReport as VerifyReport,
    )
    from .vocabulary import (
        BadgeTier as BadgeTier,
        DriftKind as DriftKind,
        DriftSeverity as DriftSeverity,
        LockFindingKind as LockFindingKind,
        MatchQuality as MatchQuality,
        MutantKind as MutantKind,
        MutantVerdict as MutantVerdict,
        ReleaseState as ReleaseState,
        ScenarioStatus as ScenarioStatus,
        StepStatus as StepStatus,
        StepTier as StepTier,
        TargetDriftKind as TargetDriftKind,
        worst_state as worst_state,
    )

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(
            (
                "CacheRecord",
                "CostReport",
                "CostReportError",
                "MeasuredRecord",
                "ModelCostRecord",
                "OffloadModeRecord",
                "OffloadRecord",
                "PipelineCostRecord",
                "ResolutionCostRecord",
                "DecodeStepRecord",
                "DecoderCostRecord",
                "DecoderFitRecord",
                "cost_report_to_json",
                "dumps_cost_report",
            ),
            "cost_report",
        ),
        **dict.fromkeys(
            (
                "COVERAGE_FORMAT",
                "MAX_COVERAGE_DEPTH",
                "AnnotationMark",
                "CallNode",
                "CoverageMap",
                "FunctionInfo",
                "FunctionRef",
                "coverage_from_json",
                "load_coverage_report",
                "parse_coverage_report",
            ),
            "coverage_report",
        ),
        **dict.fromkeys(
            ("Candidate", "CheckedTree", "DriftReport", "DriftStep", "DriftTarget", "LockedPlace", "LockFindingRecord", "Place", "Scores", "TargetPlace"),
            "drift_report",
        ),
        **dict.fromkeys(
            (
                "Report",
                "ReportError",
                "ReportKind",
                "cost_report_from_json",
                "dumps_report",
                "load_drift_report",
                "load_history_report",
                "load_history_runs",
                "load_matrix_report",
                "load_report",
                "load_cost_report",
                "load_verify_report",
                "parse_report_json",
                "read_report_text",
                "report_schema",
                "validate_cost_report",
                "validate_report",
            ),
            "load",
        ),
        **dict.fromkeys(("AnnotationHistory", "Difference", "HistoryReport", "ReleaseSpan", "StepHistory"), "history_report"),
        **dict.fromkeys(
            (
                "RUN_MARKS",
                "RUN_WORDS",
                "UNRESOLVED",
                "HistoryRuns",
                "ReleaseRun",
                "RunCell",
                "RunsInputError",
                "RunSeries",
                "RunState",
                "StepRuns",
                "release_key",
                "summarize_runs",
            ),
            "history_runs",
        ),
        **dict.fromkeys(("STATE_WORDS", "describe_holding", "holding_span", "release_ranges"), "history_text"),
        **dict.fromkeys(("as_int", "as_list", "as_object", "strings"), "json_values"),
        **dict.fromkeys(("CHANGE_LIMIT", "ExpectRecord", "MutantRecord", "MutantsRecord", "ScenarioRecord", "StepRecord", "VerifyReport"), "verify_report"),
        **dict.fromkeys(("DELETE_KINDS", "own_catches", "step_tier"), "tiers"),
        **dict.fromkeys(("MATRIX_DEVICES", "MATRIX_OUTCOMES", "MATRIX_POLICIES", "MatrixCell", "MatrixCheck", "MatrixReport", "MatrixVerify"), "matrix_report"),
        **dict.fromkeys(
            (
                "BadgeTier",
                "DriftKind",
                "DriftSeverity",
                "LockFindingKind",
                "MatchQuality",
                "MutantKind",
                "MutantVerdict",
                "ReleaseState",
                "ScenarioStatus",
                "StepStatus",
                "StepTier",
                "TargetDriftKind",
                "worst_state",
            ),
            "vocabulary",
        ),
    },
)

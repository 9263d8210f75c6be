"""Read the reports and give their text: one loader that validates against the shipped schema.

``load_report(path)`` reads a verification, drift or history report, checks it against
``schema/reports.schema.json`` (generated from the records, :mod:`.schema_gen`) and returns the typed
record; every problem is a :class:`ReportError` naming the file (and the line, for JSON syntax) and what
is wrong. A tampered file cannot crash the reader: only a regular file of at most 64 MB is read, nesting
deeper than :data:`MAX_DEPTH` is refused before anything recurses, and NaN, Infinity and integers of more
than :data:`MAX_INT_DIGITS` digits are refused while parsing (:func:`parse_report_json`).
``dumps_report(record)`` is the text each report is written as; callers write it with
:func:`infralens.userfiles.write_atomically` (a layer above this one).
"""

from __future__ import annotations

import json
import os
import re
from enum import Enum
from functools import cache
from importlib import resources
from itertools import accumulate
from pathlib import Path
from typing import Any, TypeVar

from infralens.atomic import write_quietly
from infralens.cachedir import cache_root, read_regular
from infralens.errors import InfralensError
from infralens.hashing import sha256_text
from infralens.portable import portable
from infralens.reports.cost_report import CostReport, CostReportError
from infralens.reports.drift_report import DriftReport
from infralens.reports.history_report import HistoryReport
from infralens.reports.history_runs import HistoryRuns
from infralens.reports.json_values import JsonObject, as_list, as_objects
from infralens.reports.matrix_report import MatrixReport
from infralens.reports.verify_report import VerifyReport

Report = VerifyReport | DriftReport | HistoryReport | HistoryRuns | MatrixReport | CostReport
_R = TypeVar("_R", VerifyReport, DriftReport, HistoryReport, HistoryRuns, MatrixReport, CostReport)

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects a report may have (the committed reports nest at most 8 deep)."""
MAX_INT_DIGITS = 30
MAX_MESSAGE_CHARS = 300
"""Longest schema message repeated; a longer one (it quotes the value) is replaced by the rule that failed."""
"""Longest integer in a report (a line, a count); longer ones are refused before Python converts them."""
MAX_REPORT_BYTES = 64 << 20


class ReportKind(str, Enum):
    """Which report a document is, and the name of its definition in the schema."""

    VERIFY = "verifyReport"
    DRIFT = "checkReport"
    HISTORY = "historyReport"
    RUNS = "historyRunsReport"
    MATRIX = "matrixReport"
    COST = "costReport"

    @property
    def label(self) -> str:
        """How messages name the report."""
        return {
            ReportKind.VERIFY: "verification report",
            ReportKind.DRIFT: "drift report",
            ReportKind.HISTORY: "release history",
            ReportKind.RUNS: "summary of runs on other releases",
            ReportKind.MATRIX: "release × device matrix",
            ReportKind.COST: "cost report",
        }[self]


RECORDS: dict[ReportKind, type[Report]] = {
    ReportKind.VERIFY: VerifyReport,
    ReportKind.DRIFT: DriftReport,
    ReportKind.HISTORY: HistoryReport,
    ReportKind.RUNS: HistoryRuns,
    ReportKind.MATRIX: MatrixReport,
    ReportKind.COST: CostReport,
}
"""The typed record each kind of report is read into (and whose definition is its part of the schema)."""


class ReportError(InfralensError):
    """A report file is missing, is not JSON, or does not follow the schema."""

    def __init__(self, path: Path, message: str, line: int = 0) -> None:
        super().__init__(f"{path}{f':{line}' if line else ''}: {message}")
        self.path = path
        self.reason = message
        """What is wrong, without the file name."""
        self.line = line
        """Line of a JSON syntax error, else 0."""
        self.column = 0
        """Column of a JSON syntax error, else 0."""
        self.syntax = ""
        """The JSON parser's own words for a syntax error, else empty."""


@cache
def _schema_text() -> str:
    return resources.files("infralens.reports").joinpath("schema/reports.schema.json").read_text("utf-8")


@cache
def report_schema() -> JsonObject:
    """The shipped JSON Schema describing both reports."""
    schema: JsonObject = json.loads(_schema_text())
    return schema


def kind_of(data: object) -> ReportKind | None:
    """Tell the reports apart by a key only one of them has: ``device`` (verify), ``lock`` (drift), ``history``, ``history_runs``, ``matrix`` or ``cost``."""
    if isinstance(data, dict):
        if "matrix" in data:
            return ReportKind.MATRIX
        if "cost" in data:
            return ReportKind.COST
        if "history_runs" in data:
            return ReportKind.RUNS
        if "history" in data:
            return ReportKind.HISTORY
        if "device" in data:
            return ReportKind.VERIFY
        if "lock" in data:
            return ReportKind.DRIFT
    return None


def validate_report(data: object, kind: ReportKind | str) -> str | None:
    """What is wrong with *data* as a report of *kind* (or as the record of that ``$defs`` name): the most relevant schema error, or None."""
    from jsonschema.exceptions import best_match

    schema = {key: value for key, value in report_schema().items() if key != "oneOf"}
    schema["$ref"] = f"#/$defs/{kind.value if isinstance(kind, ReportKind) else kind}"
    error = best_match(_strict_validator()(schema).iter_errors(data))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    message = (
        error.message if len(error.message) <= MAX_MESSAGE_CHARS else f"a value fails the schema's {error.validator!r} rule"
    )  # never echo a 5,000-character value
    return f"{message} (at {where})" if where else message


def _whole(checker: object, value: object) -> bool:
    """JSON integers only: JSON Schema would also take ``1.0`` and ``1e2`` as integers (the records then fail unlocated)."""
    return isinstance(value, int) and not isinstance(value, bool)


@cache
def _strict_validator() -> Any:
    """Draft 2020-12 where an integer is written as one (``1.0``, ``1e2`` are refused at their place)."""
    from jsonschema import Draft202012Validator, validators

    types = Draft202012Validator.TYPE_CHECKER.redefine("integer", _whole)
    return validators.extend(Draft202012Validator, type_checker=types)


def load_report(path: str | Path) -> Report:
    """Read, validate and type the report at *path*; its kind is told from its keys.

    Raises:
        ReportError: unreadable, not JSON, neither report, or not valid for its kind.
    """
    path = Path(path)
    text, data = _read(path)
    kind = kind_of(data)
    if kind is None:
        raise ReportError(path, "not a report InfraLens writes (no 'device', 'lock', 'history' or 'cost' key)")
    return _typed(path, text, data, kind)


def load_verify_report(path: str | Path) -> VerifyReport:
    """:func:`load_report` for a file that must be a verification report."""
    return _load_as(Path(path), ReportKind.VERIFY, VerifyReport)


def load_drift_report(path: str | Path) -> DriftReport:
    """:func:`load_report` for a file that must be a drift report."""
    return _load_as(Path(path), ReportKind.DRIFT, DriftReport)


def load_history_report(path: str | Path) -> HistoryReport:
    """:func:`load_report` for a file that must be a release history."""
    return _load_as(Path(path), ReportKind.HISTORY, HistoryReport)


def load_history_runs(path: str | Path) -> HistoryRuns:
    """:func:`load_report` for a file that must be a summary of runs on other releases (``reports/history-runs.json``)."""
    return _load_as(Path(path), ReportKind.RUNS, HistoryRuns)


def load_matrix_report(path: str | Path) -> MatrixReport:
    """:func:`load_report` for a file that must be a release × device matrix (``infralens matrix --out``)."""
    return _load_as(Path(path), ReportKind.MATRIX, MatrixReport)


def load_cost_report(path: str | Path) -> CostReport:
    """:func:`load_report` for ``reports/cost.json``; problems are a :class:`CostReportError` naming the file (and the line of a JSON syntax error)."""
    try:
        return _load_as(Path(path), ReportKind.COST, CostReport)
    except ReportError as error:
        raise CostReportError(str(error)) from None


def cost_report_from_json(data: object, where: str = "cost report") -> CostReport:
    """Validate *data* against the schema's ``costReport`` and type it through its record."""
    problem = validate_report(data, ReportKind.COST)
    if problem is not None or not isinstance(data, dict):
        raise CostReportError(f"{where}: not a valid cost report: {problem or 'not a JSON object'}")
    try:
        report: CostReport = CostReport.from_json(data)
    except (KeyError, ValueError, TypeError) as error:  # only if the schema and the records disagree
        raise CostReportError(f"{where}: not a valid cost report: {error!r}") from error
    return report


def validate_cost_report(data: object) -> str | None:
    """What is wrong with *data* as a cost report (the most relevant schema error), or None."""
    return validate_report(data, ReportKind.COST)


def _load_as(path: Path, kind: ReportKind, record: type[_R]) -> _R:
    report = _typed(path, *_read(path), kind)
    assert isinstance(report, record)
    return report


def _read(path: Path) -> tuple[str, object]:
    text = read_report_text(path)
    return text, parse_report_json(text, path)


def read_report_text(path: Path) -> str:
    """The text of the report at ``path``: a regular file (a FIFO is refused at once, never waited on) of at most 64 MB, in UTF-8."""
    try:
        raw = read_regular(path, limit=MAX_REPORT_BYTES)
        if len(raw) > MAX_REPORT_BYTES:
            raise ReportError(path, f"larger than {MAX_REPORT_BYTES >> 20} MB; not read — regenerate the report")
        return raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ReportError(path, f"cannot read the report ({error.strerror if isinstance(error, OSError) else error}) — regenerate it") from error


class _Refused(ValueError):
    """A value :func:`parse_report_json` will not build."""


def _constant(word: str) -> object:
    raise _Refused(f"{word} is not a number a report may hold")


_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_LONG_DIGITS = re.compile(f"[0-9]{{{MAX_INT_DIGITS + 1}}}")
"""More digits in a row than any number of a report has."""
_BIG_EXPONENT = re.compile(r"[eE][+-]?[0-9]{3}")
"""An exponent of three digits (1e999 is infinite)."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def nesting_depth(text: str) -> int:
    """How deeply arrays and objects nest in JSON ``text`` (strings skipped), without recursing."""
    return _depth(_NOT_BRACKETS.sub("", _STRINGS.sub("", text)))


def _depth(brackets: str) -> int:
    return max(accumulate(1 if bracket in "[{" else -1 for bracket in brackets), default=0)


def _refuse_lone_surrogates(data: object) -> None:
    """Refuse text that is not Unicode (a ``\\ud800`` escape without its pair): the site could not write it out."""
    pending = [data]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, str) and _SURROGATE.search(value):
            raise _Refused("it holds text that is not valid Unicode (an unpaired \\ud800-\\udfff escape)")


def parse_report_json(text: str, path: Path, *, max_depth: int = MAX_DEPTH) -> object:
    """``json.loads`` for a report: deeper nesting, NaN/Infinity, huge numbers and broken Unicode become a :class:`ReportError` naming ``path``.

    The checks scan the text outside its strings before parsing, so nothing recurses on a hostile nesting
    and no number is converted that Python would refuse (over 4,300 digits) or turn into infinity.
    """
    bare = _STRINGS.sub("", text)
    depth = _depth(_NOT_BRACKETS.sub("", bare))
    if depth > max_depth:
        raise ReportError(path, f"nested {depth:,} levels deep (at most {max_depth}); not a report InfraLens writes — regenerate it")
    if _LONG_DIGITS.search(bare) or _BIG_EXPONENT.search(bare):
        too_large = f"holds a number too large for a report (over {MAX_INT_DIGITS} digits, or 1e100 and beyond)"
        raise ReportError(path, f"{too_large}; not a report InfraLens writes — regenerate it")
    try:
        data = json.loads(text, parse_constant=_constant)
        if _SURROGATE_ESCAPE.search(text):
            _refuse_lone_surrogates(data)
        return data
    except json.JSONDecodeError as error:
        problem = ReportError(path, f"not valid JSON ({error.msg}, column {error.colno})", error.lineno)
        problem.column, problem.syntax = error.colno, error.msg
        raise problem from error
    except (_Refused, RecursionError, ValueError) as error:
        raise ReportError(path, f"not a report InfraLens writes: {error} — regenerate it") from error


def _typed(path: Path, text: str, data: object, kind: ReportKind) -> Report:
    """The record of a document that follows the schema for *kind*.

    Validating a large report takes a few tenths of a second, so a text once found valid under this
    exact schema is remembered by content hash in the InfraLens cache (``reports-valid/``); any
    other text, or another schema, is validated again.
    """
    marker = os.path.join(cache_root(), "reports-valid", sha256_text(f"{kind.value}\0{_schema_text()}\0{text}"))
    if not os.path.exists(marker):
        problem = validate_report(data, kind)
        if problem is not None:
            raise ReportError(path, f"not a valid {kind.label}: {problem}")
        write_quietly(marker, b"")  # a read-only cache only costs the next load the validation
    if not isinstance(data, dict):
        raise ReportError(path, f"not a valid {kind.label}: not a JSON object")
    try:
        return RECORDS[kind].from_json(data)
    except (KeyError, ValueError, TypeError, AttributeError) as error:  # only if a remembered marker lies
        raise ReportError(path, f"not a valid {kind.label}: {error!r}") from error


def dumps_report(report: Report) -> str:
    """The report's text as written: verify with one-space indents (ASCII), drift with two (UTF-8), history a step per line.
    Reports are committed, so no path of this machine is left in one (:func:`infralens.portable.portable`)."""
    if isinstance(report, VerifyReport):
        text = json.dumps(report.to_json(), indent=1) + "\n"
    elif isinstance(report, HistoryReport):
        text = _history_text(report)
    elif isinstance(report, HistoryRuns):
        text = _runs_text(report)
    else:
        text = json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"
    return portable(text)


def _history_text(report: HistoryReport) -> str:
    """Indented down to each step, and each step on one line, so a new release is a readable diff."""
    return _steps_inline(report.to_json(), "annotations")


def _runs_text(report: HistoryRuns) -> str:
    """Like the release history: each step of each distribution on one line."""
    return _steps_inline(report.to_json(), "distributions")


def _steps_inline(data: JsonObject, outer: str) -> str:
    """``data`` indented, except that each object of ``data[outer][*]["steps"]`` is written on one line."""
    steps: list[str] = []
    for parent in as_objects(data[outer]):
        for position, step in enumerate(as_objects(parent["steps"])):
            steps.append(json.dumps(step, ensure_ascii=False, separators=(",", ":")))
            as_list(parent["steps"])[position] = f"\0step{len(steps) - 1}\0"
    text = json.dumps(data, indent=1, ensure_ascii=False)
    return re.sub(r'"\\u0000step(\d+)\\u0000"', lambda m: steps[int(m.group(1))], text) + "\n"

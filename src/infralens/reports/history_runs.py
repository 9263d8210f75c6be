"""Which claims held when they were *run* on other releases (``infralens history --runs``, ``reports/history-runs.json``).

``infralens verify --against diffusers==X.Y.Z`` writes a full verification report per release (``make
history-verify``: ``reports/verify-against/<dist>-<version>.json``, about 600 KB each). This module boils
those down to what the site needs: per release, when it ran, on which device and which scenarios (with
their outcome); per step, one :class:`RunCell` per release: *held* (passed with a checked claim), *ran*
(passed, nothing asserted about its values), *failed*, *not-run* (with the reason) or *absent* (the step
did not resolve there: its target or statement is not in that release as selected). Static steps are
never run and are left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import Enum
from typing import ClassVar

from infralens.bounds import VERSION_PATTERN  # every version field of a report follows it
from infralens.records import Record, record, spec
from infralens.reports.verify_report import CREATED_PATTERN, STEP_ID_PATTERN, StepRecord, VerifyReport
from infralens.reports.vocabulary import ScenarioStatus, StepStatus, StepTier

RUNS_FORMAT = 1
REASON_CHARS = 200
"""A reason is one line of at most this many characters."""
UNRESOLVED = "the step did not resolve"
"""How ``verify`` words a step whose target or statement it could not find (the start of its reason)."""
ABSENT_REASON = "did not resolve: its target or statement is not in this release as selected"


class RunState(str, Enum):
    """A step on one release it was run on."""

    HELD = "held"
    RAN = "ran"
    FAILED = "failed"
    NOT_RUN = "not-run"
    ABSENT = "absent"

    @property
    def letter(self) -> str:
        """One letter per state, in the site's ``data-il-runs`` and its CSS classes."""
        return _LETTERS[self]


_LETTERS = {RunState.HELD: "h", RunState.RAN: "r", RunState.FAILED: "f", RunState.NOT_RUN: "n", RunState.ABSENT: "a"}
RUN_WORDS = {
    RunState.HELD: "held",
    RunState.RAN: "ran, nothing checked",
    RunState.FAILED: "failed",
    RunState.NOT_RUN: "not run",
    RunState.ABSENT: "not in this release",
}
RUN_MARKS = {RunState.HELD: "▶", RunState.RAN: "▷", RunState.FAILED: "✗", RunState.NOT_RUN: "○", RunState.ABSENT: "·"}
"""The mark the site draws for each state, beside the static history's colour."""


@record
class RunCell(Record):
    """One step on one release: its run state and, unless it held, why."""

    json_name: ClassVar[str] = "historyRunCell"
    state: RunState = spec(choices=tuple(s.value for s in RunState))
    reason: str = spec(default="", omit="empty", doc="One line: the failing expect, why it did not run, or what ran without a claim.")


@record
class StepRuns(Record):
    """One step across the releases its distribution was run on."""

    json_name: ClassVar[str] = "historyRunStep"
    id: str = spec(pattern=STEP_ID_PATTERN)
    runs: tuple[RunCell, ...] = spec(doc="Aligned with the distribution's runs.")


@record
class ReleaseRun(Record):
    """One ``verify --against`` run: the release, when, where, and how each scenario went."""

    json_name: ClassVar[str] = "historyRun"
    release: str = spec(pattern=VERSION_PATTERN)
    created: str = spec(pattern=CREATED_PATTERN, doc="When the verification report was written.")
    device: str = spec(choices=("cpu", "cuda"))
    report: str = spec(doc="The verification report this run was summarized from.")
    scenarios: dict[str, ScenarioStatus] = spec(doc="Every scenario run, by name, and how it ended.")
    scenario_errors: dict[str, str] = spec(factory=dict, omit="empty", doc="One line per scenario that did not pass.")


@record
class RunSeries(Record):
    """The runs of one distribution, oldest release first, and every non-static step across them."""

    json_name: ClassVar[str] = "historyRunSeries"
    distribution: str
    runs: tuple[ReleaseRun, ...] = spec(min_items=1)
    steps: tuple[StepRuns, ...]

    def after_load(self) -> RunSeries:
        for step in self.steps:
            if len(step.runs) != len(self.runs):
                raise ValueError(f"step {step.id} has {len(step.runs)} run states for {len(self.runs)} runs of {self.distribution}")
        return self

    @property
    def releases(self) -> tuple[str, ...]:
        return tuple(run.release for run in self.runs)


@record
class HistoryRuns(Record):
    """Which claims held when run on other releases (infralens history --runs, committed as reports/history-runs.json)."""

    json_name: ClassVar[str] = "historyRunsReport"
    json_order: ClassVar[tuple[str, ...]] = ("history_runs",)
    generated_by: str
    series: tuple[RunSeries, ...] = spec(key="distributions")
    history_runs: int = spec(default=RUNS_FORMAT, const=RUNS_FORMAT)

    def of(self, distribution: str) -> RunSeries | None:
        return next((s for s in self.series if s.distribution == distribution), None)


class RunsInputError(ValueError):
    """The verification reports given cannot be summarized (which release ran is unclear, or one is given twice)."""


def one_line(value: str, limit: int = REASON_CHARS) -> str:
    """``value`` on one line (runs of white space become one space), cut to ``limit`` characters."""
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def release_key(version: str) -> tuple[tuple[int, str], ...]:
    """Sorts ``0.9.0`` before ``0.10.0``: each run of digits compared as a number."""
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in re.findall(r"\d+|[^\d.]+", version))


def which_release(name: str, report: VerifyReport) -> tuple[str, str]:
    """``(distribution, version)`` a report ran on, from its file name ``<dist>-<version>.json`` checked against its ``versions``."""
    stem = name.rsplit("/", 1)[-1].removesuffix(".json")
    distribution, _, version = stem.rpartition("-")
    if not distribution or not version:
        raise RunsInputError(f"{name}: cannot tell which release ran; name the report <distribution>-<version>.json, as `make history-verify` does")
    recorded = report.versions.get(distribution)
    if recorded != version:
        raise RunsInputError(f"{name}: its name says {distribution} {version}, but the report ran {distribution} {recorded or '(not recorded)'}")
    return distribution, version


def cell_of(step: StepRecord | None) -> RunCell:
    """What one step's record in a release's report says, as a run cell."""
    if step is None:
        return RunCell(RunState.NOT_RUN, "not in this run's report")
    tier, tier_reason = step.graded()
    if step.status is StepStatus.PASSED:
        # the matrix asks whether the claims held on that release: expects that held are held, whatever a mutation run adds
        return (
            RunCell(RunState.HELD)
            if tier in (StepTier.CHECKED, StepTier.HELD) or step.expects
            else RunCell(RunState.RAN, one_line(tier_reason or "no claim checked"))
        )
    if step.status is StepStatus.FAILED:
        wrong = next((e for e in step.expects if not e.passed), None)
        why = "an expect failed" if wrong is None else f"{wrong.expr} — {wrong.error or wrong.observed}"
        return RunCell(RunState.FAILED, one_line(why))
    reason = step.reason or "did not run"
    if reason.startswith(UNRESOLVED):
        return RunCell(RunState.ABSENT, ABSENT_REASON)
    return RunCell(RunState.NOT_RUN, one_line(reason))


def summarize_runs(reports: Sequence[tuple[str, VerifyReport]], generated_by: str) -> HistoryRuns:
    """The summary of verification reports ``(file name, report)``, each run on another release (``verify --against``)."""
    grouped: dict[str, list[tuple[str, str, VerifyReport]]] = {}
    for name, report in reports:
        distribution, version = which_release(name, report)
        group = grouped.setdefault(distribution, [])
        if any(version == seen for seen, _, _ in group):
            raise RunsInputError(f"{name}: {distribution} {version} is given twice; give one report per release")
        group.append((version, name, report))
    series = []
    for distribution in sorted(grouped):
        group = sorted(grouped[distribution], key=lambda item: release_key(item[0]))
        runs = tuple(_run(version, name, report) for version, name, report in group)
        ids = dict.fromkeys(step_id for _, _, report in group for step_id, step in report.steps.items() if step.status is not StepStatus.STATIC)
        steps = tuple(StepRuns(step_id, tuple(cell_of(report.steps.get(step_id)) for _, _, report in group)) for step_id in sorted(ids))
        series.append(RunSeries(distribution, runs, steps))
    return HistoryRuns(generated_by, tuple(series))


def _run(version: str, name: str, report: VerifyReport) -> ReleaseRun:
    scenarios = {scenario: record.status for scenario, record in sorted(report.scenarios.items())}
    errors = {
        scenario: one_line(record.error or record.status.value)
        for scenario, record in sorted(report.scenarios.items())
        if record.status is not ScenarioStatus.PASSED
    }
    return ReleaseRun(version, report.created, report.device, name, scenarios, errors)

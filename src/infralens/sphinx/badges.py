"""Drift and verification badges read from the committed reports.

``reports/check.json`` comes from ``infralens check --format json`` and
``reports/verify-<device>.json`` from ``infralens verify --report``. A missing
report is shown honestly as "not checked"; an unreadable one is a warning.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from infralens.libraries import DEFAULT_DISTRIBUTIONS
from infralens.reports import (
    BadgeTier,
    DriftKind,
    DriftReport,
    LockFindingKind,
    ReportError,
    StepStatus,
    StepTier,
    VerifyReport,
    load_drift_report,
    load_history_report,
    load_verify_report,
)
from infralens.sphinx.history import History
from infralens.sphinx.history_runs import load_runs
from infralens.sphinx.warnings import Subtype, warn

BadgeState = BadgeTier
"""The badge tiers (:class:`infralens.reports.BadgeTier`), under the name the HTML writer uses."""

DriftStatus = DriftKind | LockFindingKind
"""What the drift report says about a step or an annotation: its kind, or a lock finding's."""


@dataclass(frozen=True)
class Badge:
    """One small label: what was checked, how it came out, and a longer tooltip."""

    kind: str
    state: BadgeTier
    label: str
    title: str


def describe(report: VerifyReport, distributions: tuple[str, ...] = DEFAULT_DISTRIBUTIONS) -> str:
    """Where and when the verification ran: device, the versions of torch, the project's *distributions* and Python, date."""
    names = dict.fromkeys(("torch", *distributions, "python"))
    versions = ", ".join(f"{name} {report.versions[name]}" for name in names if name in report.versions)
    return f"{report.device}; {versions}; {report.created}" if versions else f"{report.device}; {report.created}"


def drift_statuses(report: DriftReport) -> dict[str, DriftStatus]:
    """``{id: status}``: each step id → its kind, each annotation id → the kind of its first step,
    and an id only a lock finding names (an unlocked or stale annotation) → the finding's kind."""
    found: dict[str, DriftStatus] = {}
    for step_id, step in report.steps.items():
        found.setdefault(step_id, step.kind)
        found.setdefault(step.annotation, step.kind)
    for finding in report.lock_findings:
        found.setdefault(finding.id, finding.kind)
    return found


def _counted(counts: Counter[DriftStatus] | Counter[StepStatus]) -> list[tuple[str, int]]:
    """``(status word, count)`` pairs in the words' order, as the titles list them."""
    return sorted((status.value, n) for status, n in counts.items())


@dataclass(frozen=True)
class Reports:
    """What the reports folder holds; empty fields mean the report is missing."""

    drift: dict[str, DriftStatus] | None = None
    """step id (or annotation id) → its drift status (see :func:`drift_statuses`)."""
    verify: tuple[VerifyReport, ...] = ()
    files: tuple[str, ...] = field(default=())
    history: History | None = None
    """``history.json``: each step's state in every upstream release read (:mod:`.history`)."""
    distributions: tuple[str, ...] = DEFAULT_DISTRIBUTIONS
    """The project's distributions, whose versions the badges' titles name (``[tool.infralens] distributions``)."""

    def function_badges(self, step_ids: list[str], annotation_ids: list[str]) -> list[Badge]:
        return [self._drift_badge(step_ids, annotation_ids), *self._verify_badges(step_ids)]

    def step_status(self, step_id: str) -> list[Badge]:
        """Per-note chips: the step's tier (checked, held, ran, read, unverified) or *failed*, on each device that ran."""
        chips = []
        for report in self.verify:
            tier, reason = report.tier_of(step_id)
            if report.status_of(step_id) is StepStatus.FAILED:
                label, state = "failed", BadgeTier.BAD
            else:
                label, state = tier.value, tier.badge
            chips.append(Badge(f"verify-{report.device}", state, f"{report.device}: {label}", f"{label}: {reason} ({describe(report, self.distributions)})"))
        return chips

    def observations(self, step_id: str, expression: str) -> list[tuple[str, str | None]]:
        """``(device, what the frame held)`` for one expect of a step, per report; None where it was not evaluated."""
        found: list[tuple[str, str | None]] = []
        for report in self.verify:
            record = report.steps.get(step_id)
            expect = next((e for e in record.expects if e.expr == expression), None) if record else None
            found.append((report.device, expect.observed if expect is not None and expect.evaluations else None))
        return found

    def tier_counts(self, step_ids: list[str]) -> tuple[str, dict[StepTier, int], int] | None:
        """``(device, steps per tier, failed)`` from the first verification report (cpu sorts first); None without one."""
        if not self.verify:
            return None
        report = self.verify[0]
        counts: Counter[StepTier] = Counter(report.tier_of(s)[0] for s in step_ids)
        failed = sum(report.status_of(s) is StepStatus.FAILED for s in step_ids)
        return report.device, {tier: counts[tier] for tier in StepTier}, failed

    def _drift_badge(self, step_ids: list[str], annotation_ids: list[str]) -> Badge:
        if self.drift is None:
            return Badge("drift", BadgeTier.UNKNOWN, "drift: not checked", "no reports/check.json: run 'infralens check --format json'")
        found = [self.drift[s] for s in step_ids if s in self.drift] or [self.drift[a] for a in annotation_ids if a in self.drift]
        if not found:
            return Badge("drift", BadgeTier.UNKNOWN, "drift: not checked", "this function is not in reports/check.json")
        counts: Counter[DriftStatus] = Counter(found)
        if set(counts) == {DriftKind.UNCHANGED}:
            return Badge("drift", BadgeTier.OK, "drift: unchanged", f"all {len(found)} annotated statements match the lock")
        worst = BadgeTier.BAD if counts.keys() & {DriftKind.CHANGED, DriftKind.DELETED, DriftKind.UNREADABLE} else BadgeTier.WARN
        pairs = _counted(counts)
        summary = ", ".join(f"{n} {kind}" for kind, n in pairs if kind != DriftKind.UNCHANGED.value)
        return Badge("drift", worst, f"drift: {summary}", "from reports/check.json: " + ", ".join(f"{n} {kind}" for kind, n in pairs))

    def _verify_badges(self, step_ids: list[str]) -> list[Badge]:
        if not self.verify:
            return [Badge("verify", BadgeTier.UNKNOWN, "verification: not checked", "no reports/verify-*.json: run 'infralens verify --report'")]
        badges = []
        for report in self.verify:
            tiers: Counter[StepTier] = Counter(report.tier_of(s)[0] for s in step_ids)
            failed = sum(report.status_of(s) is StepStatus.FAILED for s in step_ids)
            words = [f"{tiers[tier]} {tier.value}" for tier in StepTier if tiers[tier]]
            title = (
                ", ".join(words + ([f"{failed} failed"] if failed else []))
                + f" ({describe(report, self.distributions)}); see 'What the verification words mean'"
            )
            kind = f"verify-{report.device}"
            # a report without a mutation run can only say its expects held: it counts "held", never "checked"
            word = StepTier.CHECKED if report.mutated else StepTier.HELD
            counted, read = tiers[word], tiers[StepTier.READ]
            # coloured by its worst state that is not neutral (held, ran and read are neutral): failed, then
            # unverified (a statement no scenario reached), then checked; a function whose steps only held, ran or
            # were read is neutral
            unverified = tiers[StepTier.UNVERIFIED] - failed
            green = word is StepTier.CHECKED and counted
            state = BadgeTier.BAD if failed else BadgeTier.WARN if unverified else BadgeTier.OK if green else BadgeTier.NEUTRAL
            if failed:
                badge = Badge(kind, state, f"{report.device}: {failed} failed", title)
            elif counted == 0:
                badge = Badge(kind, state, f"{report.device}: 0 {word.value}", title)
            else:
                extra = f" (+{read} read)" if read else ""
                badge = Badge(kind, state, f"{report.device}: {counted}/{len(step_ids) - read} {word.value}{extra}", title)
            badges.append(badge)
        return badges


def load_reports(folder: Path, distributions: tuple[str, ...] = DEFAULT_DISTRIBUTIONS) -> Reports:
    """Read whatever reports exist in ``folder`` through :mod:`infralens.reports`; warn about any that cannot be read.
    The badges name the versions of *distributions* (the project's)."""
    files: list[str] = []
    drift = None
    check = folder / "check.json"
    if check.is_file():
        files.append(str(check))
        try:
            drift = drift_statuses(load_drift_report(check))
        except ReportError as error:
            _unreadable(error)
    verify = []
    for path in sorted(folder.glob("verify-*.json")) if folder.is_dir() else ():
        files.append(str(path))
        try:
            verify.append(load_verify_report(path))
        except ReportError as error:
            _unreadable(error)
    history = None
    path = folder / "history.json"
    if path.is_file():
        files.append(str(path))
        try:
            history = History.of(load_history_report(path), runs=load_runs(folder, files))
        except ReportError as error:
            warn(f"cannot read report: {error.reason}; release history is not shown", Subtype.REPORT, (str(error.path), error.line))
    return Reports(drift, tuple(verify), tuple(files), history, distributions)


def _unreadable(error: ReportError) -> None:
    warn(f"cannot read report: {error.reason}; badges show 'not checked'", Subtype.REPORT, (str(error.path), error.line))

"""Drift and verification badges read from the committed reports.

``reports/check.json`` comes from ``infralens check --format json`` and
``reports/verify-<device>.json`` from ``infralens verify --report``. A missing
report is shown honestly as "not checked"; an unreadable one is a warning.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from infralens.sphinx.warnings import Subtype, warn


class BadgeState(str, Enum):
    OK = "ok"
    WARN = "warn"
    BAD = "bad"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Badge:
    """One small label: what was checked, how it came out, and a longer tooltip."""

    kind: str
    state: BadgeState
    label: str
    title: str


@dataclass(frozen=True)
class VerifyReport:
    device: str
    created: str
    versions: dict[str, str]
    steps: dict[str, str]
    """step id → passed | failed | not-run | static."""

    def describe(self) -> str:
        """Where and when the verification ran: device, versions, date."""
        versions = ", ".join(f"{name} {self.versions[name]}" for name in ("torch", "diffusers", "diffsynth", "python") if name in self.versions)
        return f"{self.device}; {versions}; {self.created}" if versions else f"{self.device}; {self.created}"


@dataclass(frozen=True)
class Reports:
    """What the reports folder holds; empty fields mean the report is missing."""

    drift: dict[str, str] | None = None
    """step id (or annotation id) → unchanged | moved | changed | deleted | …"""
    verify: tuple[VerifyReport, ...] = ()
    files: tuple[str, ...] = field(default=())

    def function_badges(self, step_ids: list[str], annotation_ids: list[str]) -> list[Badge]:
        return [self._drift_badge(step_ids, annotation_ids), *self._verify_badges(step_ids)]

    def step_status(self, step_id: str) -> list[Badge]:
        """Per-note chips: the verification status on each device that ran."""
        chips = []
        for report in self.verify:
            status = report.steps.get(step_id, "not-run")
            chips.append(
                Badge(
                    f"verify-{report.device}",
                    _VERIFY_STATE.get(status, BadgeState.UNKNOWN),
                    f"{report.device}: {status}",
                    f"verification: {status} ({report.describe()})",
                )
            )
        return chips

    def _drift_badge(self, step_ids: list[str], annotation_ids: list[str]) -> Badge:
        if self.drift is None:
            return Badge("drift", BadgeState.UNKNOWN, "drift: not checked", "no reports/check.json: run 'infralens check --format json'")
        found = [self.drift[s] for s in step_ids if s in self.drift] or [self.drift[a] for a in annotation_ids if a in self.drift]
        if not found:
            return Badge("drift", BadgeState.UNKNOWN, "drift: not checked", "this function is not in reports/check.json")
        counts = Counter(found)
        if set(counts) == {"unchanged"}:
            return Badge("drift", BadgeState.OK, "drift: unchanged", f"all {len(found)} annotated statements match the lock")
        worst = BadgeState.BAD if counts.keys() & {"changed", "deleted"} else BadgeState.WARN
        summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()) if kind != "unchanged")
        return Badge("drift", worst, f"drift: {summary}", "from reports/check.json: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))

    def _verify_badges(self, step_ids: list[str]) -> list[Badge]:
        if not self.verify:
            return [Badge("verify", BadgeState.UNKNOWN, "verification: not checked", "no reports/verify-*.json: run 'infralens verify --report'")]
        badges = []
        for report in self.verify:
            counts = Counter(report.steps.get(s, "not-run") for s in step_ids)
            traced = counts["passed"] + counts["failed"]
            title = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + f" ({report.describe()})"
            if counts["failed"]:
                badge = Badge(f"verify-{report.device}", BadgeState.BAD, f"{report.device}: {counts['failed']} failed", title)
            elif traced == 0:
                badge = Badge(f"verify-{report.device}", BadgeState.UNKNOWN, f"{report.device}: not run", title)
            else:
                state = BadgeState.OK if counts["not-run"] == 0 else BadgeState.WARN
                traceable = len(step_ids) - counts["static"]
                extra = f" (+{counts['static']} read only)" if counts["static"] else ""
                badge = Badge(f"verify-{report.device}", state, f"{report.device}: {counts['passed']}/{traceable} verified{extra}", title)
            badges.append(badge)
        return badges


_VERIFY_STATE = {"passed": BadgeState.OK, "failed": BadgeState.BAD, "static": BadgeState.UNKNOWN, "not-run": BadgeState.WARN}
_DRIFT_KEYS = ("step_id", "step", "id", "annotation_id", "annotation")
_STATUS_KEYS = ("status", "kind", "classification", "state", "drift")


def load_reports(folder: Path) -> Reports:
    """Read whatever reports exist in ``folder``; warn about any that cannot be read."""
    files: list[str] = []
    drift = None
    check = folder / "check.json"
    if check.is_file():
        files.append(str(check))
        data = _read_json(check)
        if data is not None:
            drift = _drift_statuses(data)
    verify = []
    for path in sorted(folder.glob("verify-*.json")) if folder.is_dir() else ():
        files.append(str(path))
        data = _read_json(path)
        report = _verify_report(data, path) if data is not None else None
        if report is not None:
            verify.append(report)
    return Reports(drift, tuple(verify), tuple(files))


def _read_json(path: Path) -> object | None:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        warn(f"cannot read report: {error}; badges show 'not checked'", Subtype.REPORT, (str(path), getattr(error, "lineno", 0)))
        return None


def _drift_statuses(data: object) -> dict[str, str]:
    """Collect ``{step or annotation id: status}`` from the report.

    Accepts entries that carry their id (``{"step_id": ..., "status": ...}``)
    and mappings keyed by id (``{"ddim-step/3f2a": {"status": ...}}``).
    """
    found: dict[str, str] = {}

    def status_of(entry: dict) -> str | None:
        value = next((entry[k] for k in _STATUS_KEYS if isinstance(entry.get(k), str)), None)
        return value.lower().split()[0] if value else None

    def walk(value: object) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        if not isinstance(value, dict):
            return
        ident = next((value[k] for k in _DRIFT_KEYS if isinstance(value.get(k), str)), None)
        status = status_of(value)
        if ident and status:
            found.setdefault(ident, status)
        for key, child in value.items():
            if isinstance(child, dict) and "/" in str(key) and (child_status := status_of(child)):
                found.setdefault(str(key), child_status)
            walk(child)

    walk(data)
    return found


def _verify_report(data: object, path: Path) -> VerifyReport | None:
    if not isinstance(data, dict) or not isinstance(data.get("steps"), dict):
        warn("not a verification report (no 'steps' mapping); badges show 'not checked'", Subtype.REPORT, (str(path), 1))
        return None
    device = str(data.get("device") or path.stem.removeprefix("verify-"))
    steps = {sid: str(entry.get("status", "not-run")) for sid, entry in data["steps"].items() if isinstance(entry, dict)}
    versions = {str(k): str(v) for k, v in (data.get("versions") or {}).items()}
    return VerifyReport(device, str(data.get("created", "")), versions, steps)

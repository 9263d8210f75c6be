"""The words the committed reports use, as enums: verify statuses, drift kinds, badge tiers.

Values are spelled exactly as the JSON reports spell them; ``.value`` is what goes on disk and
into messages (``str(member)`` would print the class name).
"""

from __future__ import annotations

from enum import Enum


class BadgeTier(str, Enum):
    """How a badge on the site reads: good, worth a look, bad, or unknown."""

    OK = "ok"
    WARN = "warn"
    BAD = "bad"
    UNKNOWN = "unknown"


class StepStatus(str, Enum):
    """What ``infralens verify`` concluded about one annotation step."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_RUN = "not-run"
    STATIC = "static"

    @property
    def tier(self) -> BadgeTier:
        """The badge tier the site shows for this status."""
        return _STEP_TIERS[self]


_STEP_TIERS = {
    StepStatus.PASSED: BadgeTier.OK,
    StepStatus.FAILED: BadgeTier.BAD,
    StepStatus.NOT_RUN: BadgeTier.WARN,
    StepStatus.STATIC: BadgeTier.UNKNOWN,
}


class ScenarioStatus(str, Enum):
    """How one scenario run ended."""

    PASSED = "passed"
    FAILED = "failed"
    """The scenario's own check failed."""
    ERROR = "error"
    """The scenario or the upstream code raised (or its worker died)."""
    NOT_RUN = "not-run"


class DriftKind(str, Enum):
    """A locked step compared with the source now (``steps[*].kind`` of the drift report)."""

    UNCHANGED = "unchanged"
    MOVED = "moved"
    CHANGED = "changed"
    DELETED = "deleted"
    UNREADABLE = "unreadable"
    """The file the step was in is still there but cannot be read or parsed: nothing can be said."""


class TargetDriftKind(str, Enum):
    """A locked annotation target compared with the source now (``targets[*].kind``)."""

    UNCHANGED = "unchanged"
    BODY_CHANGED = "body-changed"
    MOVED = "moved"
    RENAMED = "renamed"
    DELETED = "deleted"
    UNREADABLE = "unreadable"


class LockFindingKind(str, Enum):
    """Lock bookkeeping (``lock_findings[*].kind``)."""

    UNLOCKED = "unlocked"
    STALE = "stale"
    EDITED = "edited"
    HAND_EDITED = "hand-edited"
    """A lock entry's values no longer match its seal: someone changed the lock without ``infralens lock``."""


class DriftSeverity(str, Enum):
    """How loudly a drift finding is reported."""

    NONE = "none"
    NOTICE = "notice"
    WARNING = "warning"
    ERROR = "error"


class MatchQuality(str, Enum):
    """How sure the drift check is of where a statement went."""

    EXACT = "exact"
    STRONG = "strong"
    WEAK = "weak"

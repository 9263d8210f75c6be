"""The words the committed reports use, as enums: verify statuses and step tiers, drift kinds, badge tiers.

Values are spelled exactly as the JSON reports spell them; ``.value`` is what goes on disk and
into messages (``str(member)`` would print the class name).
"""

from __future__ import annotations

from enum import Enum, StrEnum


class BadgeTier(str, Enum):
    """How a badge on the site reads: good, worth a look, bad, or unknown."""

    OK = "ok"
    WARN = "warn"
    BAD = "bad"
    INFO = "info"
    """Neither good nor bad: a step checked by reading (static)."""
    NEUTRAL = "neutral"
    """Nothing wrong, nothing shown either: a step that ran with no claim about its values."""
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


class StepTier(str, Enum):
    """How much a verified step is worth: the words the report, ``verify``'s table and the site share.

    *checked*: under ``--mutate``, the step's own expects rejected a wrong version of its statement other
    than deleting it, and no wrong version that computes something else got past them; *held*: its expects
    held on that device, but no mutation run says whether they could fail (a report without ``--mutate``);
    *ran*: it ran but nothing about its values is asserted, or a wrong version got past its expects; *read*:
    static, checked by reading (with the reason); *unverified*: none of these (not run, failed, or not resolved).
    """

    CHECKED = "checked"
    HELD = "held"
    RAN = "ran"
    READ = "read"
    UNVERIFIED = "unverified"

    @property
    def badge(self) -> BadgeTier:
        """The badge colour the site shows for this tier: only *checked* is green; *held* and *ran* are neutral, not warnings."""
        return _TIER_BADGES[self]


_TIER_BADGES = {
    StepTier.CHECKED: BadgeTier.OK,
    StepTier.HELD: BadgeTier.NEUTRAL,
    StepTier.RAN: BadgeTier.NEUTRAL,
    StepTier.READ: BadgeTier.INFO,
    StepTier.UNVERIFIED: BadgeTier.UNKNOWN,
}


class MutantVerdict(str, Enum):
    """How one wrong version of a statement ended (``verify --mutate``), seen from the step it was made for.

    *caught*: the step's own expect failed on it; *caught-downstream*: a later step's expect failed before the
    step's own expects were evaluated on it; *past-expects*: the step's own expects were evaluated on it and
    held, and something later (another step's expect, the scenario's check, an error, the time limit) stopped
    it; *survived*: nothing stopped it and the run observed other values; *unjudged*: a deletion of the statement
    that nothing stopped, whose missing names left the step's expects nothing to read; *equivalent*: the run observed
    bit-identical values; *untestable*: equivalent only because the data cannot tell (a swap whose two
    operands were equal every time it ran); *raised-first*: it raised or ran out of time before the step's
    expects were evaluated; *stopped-by-scenario*: the scenario's own check failed before them.
    """

    CAUGHT = "caught"
    CAUGHT_DOWNSTREAM = "caught-downstream"
    PAST_EXPECTS = "past-expects"
    SURVIVED = "survived"
    UNJUDGED = "unjudged"
    EQUIVALENT = "equivalent"
    UNTESTABLE = "untestable"
    RAISED_FIRST = "raised-first"
    STOPPED_BY_SCENARIO = "stopped-by-scenario"

    @property
    def got_past(self) -> bool:
        """Whether this verdict counts against the step's tier: a wrong version its own expects did not reject."""
        return self in _GOT_PAST


_GOT_PAST = frozenset({MutantVerdict.PAST_EXPECTS, MutantVerdict.SURVIVED, MutantVerdict.UNTESTABLE})


class MutantKind(StrEnum):
    """The kinds of wrong version ``verify --mutate`` makes of a statement (see :mod:`infralens.verify.mutate.mutants`),
    in the order one of each is taken. *value*, *argument* and *transpose* change a value at run time (*argument*: an
    argument of a call whose result the statement does not keep); *return* deletes the statement (it returns early),
    which alone does not make a step's expect checked."""

    VALUE = "value"
    ARGUMENT = "argument"
    OPERATOR = "operator"
    COMPARISON = "comparison"
    NEGATE = "negate"
    CONSTANT = "constant"
    SWAP = "swap"
    DROP_TERM = "drop-term"
    OPERAND = "operand"
    RETURN = "return"
    TRANSPOSE = "transpose"


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


class ReleaseState(str, Enum):
    """A locked step in one upstream release (``infralens history``): a drift kind, or not there yet."""

    UNCHANGED = "unchanged"
    MOVED = "moved"
    CHANGED = "changed"
    DELETED = "deleted"
    """Gone in this release after being there in an earlier one of the range."""
    ABSENT = "absent"
    """Not yet present: missing in this release and in every earlier one of the range."""
    UNREADABLE = "unreadable"

    @property
    def holds(self) -> bool:
        """Whether the reviewed note describes the code of this release."""
        return self is ReleaseState.UNCHANGED


_STATE_WEIGHT = {
    ReleaseState.UNCHANGED: 0,
    ReleaseState.MOVED: 1,
    ReleaseState.CHANGED: 2,
    ReleaseState.UNREADABLE: 3,
    ReleaseState.DELETED: 4,
    ReleaseState.ABSENT: 4,
}


def worst_state(states: list[ReleaseState]) -> ReleaseState:
    """The state of several steps together: the worst; a step gone counts as *deleted* before *absent* (not yet present)."""
    if not states:
        return ReleaseState.UNCHANGED
    worst = max(states, key=lambda s: _STATE_WEIGHT[s])
    if worst is ReleaseState.ABSENT and ReleaseState.DELETED in states:
        return ReleaseState.DELETED
    return worst


class TargetDriftKind(str, Enum):
    """A locked annotation target compared with the source now (``targets[*].kind``)."""

    UNCHANGED = "unchanged"
    BODY_CHANGED = "body-changed"
    DECORATORS_CHANGED = "decorators-changed"
    """A decorator was added, removed or replaced (low severity, like ``body-changed``)."""
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
    UNDER_REVIEW = "under-review"
    """A step marked ``review:`` (by ``infralens fix`` or by hand): its note waits for a re-read, and the check fails until the mark is removed."""
    TODO = "todo"
    """A note or summary still says TODO (as ``infralens add`` writes it): a finding, so the check fails (exit 1) until it is written."""


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

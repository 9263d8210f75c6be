"""The drift matcher's rule book (data only; it imports nothing of the package but :mod:`.thresholds`): :class:`TargetRule`
(what became of the annotated function), :class:`Filter` (what removes, vetoes or orders a step's candidates) and
:class:`Rule` (what decides a step's kind, in :data:`STEP_ORDER`), each with its invariant in :mod:`.rulebook`; the
:class:`Policy` (thresholds, rules switched off) a matcher is built with; the :class:`Trace` of each decision (``--explain``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from infralens.drift.match.thresholds import Thresholds
from infralens.reports import DriftKind as StepKind


class Origin(str, Enum):
    """Which strategy proposed a candidate."""

    TARGET = "target"
    """A statement inside the mapped target (in place, moved or renamed)."""
    REACHED = "reached"
    """The same text in a function the target calls or a decorator it carries."""
    ELSEWHERE = "elsewhere"
    """The same text anywhere else in the distribution."""


class Container(str, Enum):
    """What became of the step's target, as far as its steps are concerned."""

    FILE_UNCHANGED = "file-unchanged"
    UNREADABLE = "unreadable"
    IN_PLACE = "in-place"
    RELOCATED = "relocated"
    """Moved to another module or renamed: an identical statement there is *moved*."""
    GONE = "gone"


class Rule(str, Enum):
    """The rules that decide a step's kind; the value is what reports and ``--explain`` print."""

    FILE_UNCHANGED = "file-unchanged"
    UNREADABLE = "unreadable"
    LEFT_WITH_NEIGHBOURS = "left-with-neighbours"
    TARGET_RELOCATED = "target-relocated"
    SAME_TEXT = "same-text"
    SAME_TREE = "same-tree"
    TARGET_HEADER = "target-header"
    DECORATOR_REPLACED = "decorator-replaced"
    NESTED_LIFTED = "nested-lifted"
    CONFIDENT_EDIT = "confident-edit"
    MOVED_TO_REACHED = "moved-to-reached"
    MOVED_WITH_BLOCK = "moved-with-block"
    SAME_ACTION = "same-action"
    RENAMED_THROUGHOUT = "renamed-throughout"
    EDIT = "edit"
    SAME_ROLE = "same-role"
    SAME_CALL = "same-call"
    SOLE_ASSIGNMENT = "sole-assignment"
    SOLE_RETURN = "sole-return"
    SOLE_READER = "sole-reader"
    KEPT_CONDITION = "kept-condition"
    PER_OBJECT_EDIT = "per-object-edit"
    ACTION_KEPT_IN_REACHED = "action-kept-in-reached"
    CLOSE_EDIT_IN_HELPER = "close-edit-in-helper"
    ALIGNED_IN_REACHED = "aligned-in-reached"
    EDITED_WITH_BLOCK = "edited-with-block"
    EDITED_IN_REACHED = "edited-in-reached"
    HEADER_OF_ITS_BODY = "header-of-its-body"
    EXTRACTED_AND_CALLED = "extracted-and-called"
    DECOYS_ONLY = "decoys-only"
    TARGET_GONE = "target-gone"
    NOTHING_CORRESPONDS = "nothing-corresponds"


STEP_ORDER: tuple[Rule, ...] = tuple(Rule)
"""The order in which the step rules are asked (the first that fires decides)."""


class Filter(str, Enum):
    """The rules that remove, veto or order a step's candidates before a step rule decides."""

    ADMISSION = "admission"
    ONE_TO_ONE = "one-to-one"
    SURVIVING_COPY = "surviving-copy"
    COPY_WENT = "copy-went"
    CONTESTED_COPY = "contested-copy"
    SAME_DEPTH = "same-depth"
    DIFF_PAIRED = "diff-paired"
    OCCURRENCE = "occurrence"
    HUNK_RANK = "hunk-rank"
    HELPERS_FIRST = "helpers-first"
    EDITS_IN_HELPERS = "edits-in-helpers"
    EDITS_IN_WRAPPERS = "edits-in-wrappers"
    NEW_CODE_BEYOND = "new-code-beyond"
    RENAMED_ALIKE = "renamed-alike"
    REGISTRY_KEY_IN_NAME = "registry-key-in-name"
    FREED_BY_MOVE = "freed-by-move"
    HELD_AT_REVIEW = "held-at-review"
    REACHED_BY_NAME = "reached-by-name"
    INSTANCE_CALLED = "instance-called"
    OWNERS_CLASSES = "owners-classes"
    COPIED_NOT_MOVED = "copied-not-moved"
    CLASS_COPIED_NOT_RENAMED = "class-copied-not-renamed"
    NEW_PLACE_NOT_CARRIED = "new-place-not-carried"
    OUT_OF_VIEW = "out-of-view"
    REAL_EDIT_STAYS = "real-edit-stays"
    EDIT_WITH_NEIGHBOURS = "edit-with-neighbours"
    BARE_RETURN_WITH_NEIGHBOURS = "bare-return-with-neighbours"
    CLASS_KEYED_ENTRY = "class-keyed-entry"
    TIED_PLACES = "tied-places"
    CLOSE_RUNNER_UP = "close-runner-up"
    ANOTHER_FIELD = "another-field"
    CALLERS_OWN_LINES = "callers-own-lines"


class TargetRule(str, Enum):
    """The rules that decide what became of an annotated function (the container), in the order they are asked."""

    FILE_UNCHANGED = "file-unchanged"
    UNREADABLE = "unreadable"
    SAME_PLACE = "same-place"
    BODY_CHANGED = "body-changed"
    RE_EXPORTED = "re-exported"
    MOVED_MODULE = "moved-module"
    MOVED_WITH_IMPORTS = "moved-with-imports"
    MOVED_SAME_NAME = "moved-same-name"
    SAME_NAME_IN_MODULE = "same-name-in-module"
    MOVED_TO_CLASS = "moved-to-class"
    MOVED_TO_BUILT_CLASS = "moved-to-built-class"
    HELPER_TO_BUILT_CLASS = "helper-to-built-class"
    RENAMED_BEHIND_SHIM = "renamed-behind-shim"
    RENAMED_TO_ALIAS = "renamed-to-alias"
    MERGED_INTO_ALIAS = "merged-into-alias"
    RENAMED_BODY_OVERLAP = "renamed-body-overlap"
    RENAMED_DROPPING_A_WORD = "renamed-dropping-a-word"
    RENAMED_AND_SPLIT = "renamed-and-split"
    RENAMED_AT_CALLERS = "renamed-at-callers"
    CLASS_RENAMED = "class-renamed"
    CLASS_RENAMED_AT_USERS = "class-renamed-at-users"
    CLASS_RENAMED_WITH_USERS = "class-renamed-with-users"
    MOVED_TO_RECEIVER = "moved-to-receiver"
    FOLDED_INTO_BASE = "folded-into-base"
    MOVED_INTO_DECORATOR = "moved-into-decorator"
    INLINED_INTO_CALLER = "inlined-into-caller"
    RENAMED_KEEPING_WORDS = "renamed-keeping-words"
    FOLDED_INTO_METHOD = "folded-into-method"
    REPLACED_AT_CALLERS = "replaced-at-callers"
    CALLED_WITH_SAME_ARGUMENTS = "called-with-same-arguments"
    ASSIGNED_IN_ITS_PLACE = "assigned-in-its-place"
    MADE_PUBLIC_AT_CALLERS = "made-public-at-callers"
    RENAMED_HOLDING_BODY = "renamed-holding-body"
    RENAMED_WITH_BASE = "renamed-with-base"
    MOVED_SOLE_NAMESAKE = "moved-sole-namesake"
    RENAMED_IN_MOVED_CLASS = "renamed-in-moved-class"
    INIT_AS_POST_INIT = "init-as-post-init"
    CLASS_KEPT_AS_ALIAS = "class-kept-as-alias"
    NAMED_BY_ITS_MODULE = "named-by-its-module"
    FOLDED_INTO_SUBCLASS = "folded-into-subclass"
    PUSHED_DOWN_TO_SUBCLASS = "pushed-down-to-subclass"
    MOVED_TO_SIBLING_BASE = "moved-to-sibling-base"
    RENAMED_CLOSE_BODY = "renamed-close-body"
    RENAMED_ELSEWHERE = "renamed-elsewhere"
    DELETED = "deleted"
    SPLIT_INTO_HELPERS = "split-into-helpers"
    HELPERS_OF_HELPERS = "helpers-of-helpers"
    WRAPPED_BY_DECORATOR = "wrapped-by-decorator"
    DECORATORS_CHANGED = "decorators-changed"
    BESIDE_THE_TARGET = "beside-the-target"


RENAMING = frozenset(
    {
        TargetRule.RE_EXPORTED,
        TargetRule.RENAMED_KEEPING_WORDS,
        TargetRule.FOLDED_INTO_METHOD,
        TargetRule.RENAMED_DROPPING_A_WORD,
        TargetRule.CALLED_WITH_SAME_ARGUMENTS,
        TargetRule.RENAMED_HOLDING_BODY,
        TargetRule.RENAMED_WITH_BASE,
        TargetRule.RENAMED_IN_MOVED_CLASS,
        TargetRule.INIT_AS_POST_INIT,
        TargetRule.CLASS_KEPT_AS_ALIAS,
        TargetRule.RENAMED_CLOSE_BODY,
        TargetRule.RENAMED_ELSEWHERE,
    }
)
"""The container rules of a relocation (:mod:`.imported` and its like) whose definition of another name is the target
renamed, not moved (its statements are then weighed with the locality of a rename)."""


AnyRule = Rule | Filter | TargetRule


RULE_KIND = {
    Rule.FILE_UNCHANGED: StepKind.UNCHANGED,
    Rule.UNREADABLE: StepKind.UNREADABLE,
    Rule.LEFT_WITH_NEIGHBOURS: StepKind.MOVED,
    Rule.TARGET_RELOCATED: StepKind.MOVED,
    Rule.SAME_TEXT: StepKind.UNCHANGED,
    Rule.SAME_TREE: StepKind.UNCHANGED,
    Rule.TARGET_HEADER: StepKind.CHANGED,
    Rule.DECORATOR_REPLACED: StepKind.CHANGED,
    Rule.NESTED_LIFTED: StepKind.CHANGED,
    Rule.CONFIDENT_EDIT: StepKind.CHANGED,
    Rule.MOVED_TO_REACHED: StepKind.MOVED,
    Rule.MOVED_WITH_BLOCK: StepKind.MOVED,
    Rule.SAME_ACTION: StepKind.CHANGED,
    Rule.RENAMED_THROUGHOUT: StepKind.CHANGED,
    Rule.EDIT: StepKind.CHANGED,
    Rule.SAME_ROLE: StepKind.CHANGED,
    Rule.SAME_CALL: StepKind.CHANGED,
    Rule.SOLE_ASSIGNMENT: StepKind.CHANGED,
    Rule.SOLE_RETURN: StepKind.CHANGED,
    Rule.SOLE_READER: StepKind.CHANGED,
    Rule.KEPT_CONDITION: StepKind.CHANGED,
    Rule.EXTRACTED_AND_CALLED: StepKind.CHANGED,
    Rule.PER_OBJECT_EDIT: StepKind.CHANGED,
    Rule.ACTION_KEPT_IN_REACHED: StepKind.CHANGED,
    Rule.CLOSE_EDIT_IN_HELPER: StepKind.CHANGED,
    Rule.ALIGNED_IN_REACHED: StepKind.CHANGED,
    Rule.EDITED_WITH_BLOCK: StepKind.CHANGED,
    Rule.EDITED_IN_REACHED: StepKind.CHANGED,
    Rule.HEADER_OF_ITS_BODY: StepKind.CHANGED,
    Rule.DECOYS_ONLY: StepKind.DELETED,
    Rule.TARGET_GONE: StepKind.DELETED,
    Rule.NOTHING_CORRESPONDS: StepKind.DELETED,
}
"""The kind each step rule yields."""


CONTENTLESS = frozenset({"else :", "try :", "finally :", "pass", "break", "continue", "return"})
"""Statements with no content of their own: which one is which is told by their neighbours, not their text."""


class Action(str, Enum):
    """What a rule did in a trace."""

    FIRED = "fired"
    """It decided (a step's kind, a target's place) or, for a filter, it chose."""
    VETOED = "vetoed"
    """It refused a candidate another rule would have taken."""
    REMOVED = "removed"
    """It removed candidates."""
    DECLINED = "declined"
    """It had candidates, but its condition held for none (the evidence of the best is given)."""
    OFF = "off"
    """It would have acted, but the policy switched it off (an ablation)."""


@dataclass(frozen=True)
class RuleEvent:
    """One entry of a trace: which rule did what, with its evidence in words."""

    rule: AnyRule
    action: Action
    detail: str = ""

    def describe(self) -> str:
        return f"{self.rule.value} {self.action.value}" + (f": {self.detail}" if self.detail else "")


@dataclass
class Trace:
    """The events of one decision, in order (mutable while the matcher works; stored as a tuple)."""

    events: list[RuleEvent] = field(default_factory=list)

    def add(self, rule: AnyRule, action: Action, detail: str = "") -> None:
        """Record an event; the same event again (a rule asked once per candidate of one file) is recorded once."""
        event = RuleEvent(rule, action, detail)
        if event not in self.events:
            self.events.append(event)

    def frozen(self) -> tuple[RuleEvent, ...]:
        return tuple(self.events)


@dataclass(frozen=True)
class Policy:
    """What the matcher decides with: the thresholds, and the rules switched off (for an ablation; none by default)."""

    thresholds: Thresholds = field(default_factory=Thresholds)
    off: frozenset[AnyRule] = frozenset()

    def on(self, rule: AnyRule) -> bool:
        return rule not in self.off

    def allows(self, rule: AnyRule, trace: Trace | None = None, detail: str = "") -> bool:
        """Whether ``rule`` may act; when it is off, the trace says it would have (``detail``: what it would have done)."""
        if rule in self.off and trace is not None:
            trace.add(rule, Action.OFF, detail)
        return self.on(rule)

    def vetoes(self, rule: AnyRule, trace: Trace | None, detail: str) -> bool:
        """Whether ``rule``, which found its case, vetoes: when on, the veto is written to the trace (:meth:`allows` otherwise)."""
        if self.allows(rule, trace, detail) and trace is not None:
            trace.add(rule, Action.VETOED, detail)
        return self.on(rule)

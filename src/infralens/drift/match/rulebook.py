"""The rule book: every rule of :mod:`.rules` (container rules, candidate filters, step rules) with its invariant in one
sentence and whether an ablation may switch it off. ``tests/drift/test_rule_cases.py`` proves each has its own cases;
``benchmarks/ablate_drift_rules.py`` switches each non-essential one off in turn."""

from __future__ import annotations

from dataclasses import dataclass

from infralens.drift.match.rules import AnyRule, Filter, Rule, TargetRule


@dataclass(frozen=True)
class RuleSpec:
    """One rule's entry in the rule book."""

    rule: AnyRule
    invariant: str
    """What the rule guarantees, in one sentence."""
    essential: bool = False
    """The engine cannot work without it (an ablation does not switch it off)."""


SPECS: dict[AnyRule, RuleSpec] = {
    s.rule: s
    for s in (
        # -- the container (what became of the function) --
        RuleSpec(TargetRule.FILE_UNCHANGED, "A byte-identical file holds the target where it was.", essential=True),
        RuleSpec(TargetRule.UNREADABLE, "A file that cannot be read or parsed is reported, never guessed about.", essential=True),
        RuleSpec(TargetRule.SAME_PLACE, "The same qualname in its file with the same statements is the target unchanged.", essential=True),
        RuleSpec(TargetRule.BODY_CHANGED, "The same qualname in its file is the target, whatever its body became.", essential=True),
        RuleSpec(TargetRule.RE_EXPORTED, "A name its module no longer defines but now imports is the target, moved to where the import leads."),
        RuleSpec(TargetRule.MOVED_MODULE, "The same qualname in another module, new there, overlapping the body or in a file new beside its gone one."),
        RuleSpec(TargetRule.MOVED_WITH_IMPORTS, "A gone target's qualname in a module its module newly imports from, sharing part of its body, moved there."),
        RuleSpec(TargetRule.MOVED_SAME_NAME, "A method turned module function (or back, its inputs read off self), new, with the closest body, moved there."),
        RuleSpec(TargetRule.SAME_NAME_IN_MODULE, "A name gone from one level of its module, newly defined once at the other, moved there whatever its body."),
        RuleSpec(TargetRule.MOVED_TO_CLASS, "A method gone from its class, now on a class of its module that lacked it, clearly closest in body, moved there."),
        RuleSpec(TargetRule.MOVED_TO_BUILT_CLASS, "A gone method's new namesake on a class its class or base now builds, sharing its body most, moved there."),
        RuleSpec(TargetRule.HELPER_TO_BUILT_CLASS, "A gone helper of one method that now hands its call to built objects went to the closest such method."),
        RuleSpec(TargetRule.RENAMED_BEHIND_SHIM, "A shim that forwards the old name leads to the target renamed."),
        RuleSpec(TargetRule.RENAMED_TO_ALIAS, "A name that aliased the target at the review, now defined with part of its body, is the target renamed."),
        RuleSpec(
            TargetRule.MERGED_INTO_ALIAS,
            "A gone target whose conditional alias is now one definition holding part of its body, every other choice gone too, was merged there.",
        ),
        RuleSpec(TargetRule.RENAMED_BODY_OVERLAP, "A new definition whose body clearly overlaps most is the target renamed."),
        RuleSpec(TargetRule.RENAMED_DROPPING_A_WORD, "A target whose file is gone lives on beside it under its names with one word dropped, alike."),
        RuleSpec(TargetRule.RENAMED_AND_SPLIT, "A new definition holding the reviewed body with the helpers it calls is the target renamed and split."),
        RuleSpec(TargetRule.RENAMED_AT_CALLERS, "The new name the reviewed callers now call is the target renamed."),
        RuleSpec(TargetRule.CLASS_RENAMED, "The method of the same name in the class its class was renamed to is the target."),
        RuleSpec(TargetRule.CLASS_RENAMED_AT_USERS, "A gone class whose users now assign the same places from one new class is renamed to it."),
        RuleSpec(TargetRule.CLASS_RENAMED_WITH_USERS, "A gone class that its users, or their new namesakes, now build as one new class is renamed to it."),
        RuleSpec(TargetRule.MOVED_TO_RECEIVER, "A function folded into the class of its first parameter (now self) is the target moved."),
        RuleSpec(TargetRule.FOLDED_INTO_BASE, "A method whose class left its module, its base staying with the method and a block of it, moved to the base."),
        RuleSpec(TargetRule.MOVED_INTO_DECORATOR, "A method gone from its class, new by its name in a decorator its class's methods now wear, went there."),
        RuleSpec(TargetRule.INLINED_INTO_CALLER, "A function gone from its module lives on in the one caller there that took in a block of its statements."),
        RuleSpec(
            TargetRule.RENAMED_KEEPING_WORDS,
            "A function gone from its module lives on in the one function new there whose name keeps its name's words and whose body still resembles its own.",
        ),
        RuleSpec(TargetRule.FOLDED_INTO_METHOD, "A gone module function lives on in the one method new in its file close to most of its statements."),
        RuleSpec(TargetRule.REPLACED_AT_CALLERS, "A new function the gone target's callers now call in its place, holding part of its body, is the target."),
        RuleSpec(
            TargetRule.CALLED_WITH_SAME_ARGUMENTS,
            "A gone function lives on in the one function new since the review that its callers now call with the same arguments, resembling it.",
        ),
        RuleSpec(TargetRule.ASSIGNED_IN_ITS_PLACE, "A gone function lives on in the one new function its callers now call to assign what its call did."),
        RuleSpec(TargetRule.MADE_PUBLIC_AT_CALLERS, "A gone function lives on in the new one its callers now call, its name without the leading underscores."),
        RuleSpec(TargetRule.RENAMED_HOLDING_BODY, "A gone function lives on in the one function new in its file that holds most of what its body alone held."),
        RuleSpec(
            TargetRule.RENAMED_ELSEWHERE,
            "A gone function lives on in the one new function of another file that holds most of its own statements, close and word for word.",
        ),
        RuleSpec(
            TargetRule.RENAMED_CLOSE_BODY,
            "A gone function lives on in the one new function of its file and scope close to most of its own statements, unless a gone sibling is closer.",
        ),
        RuleSpec(TargetRule.RENAMED_WITH_BASE, "A method gone from its class and the base it overrode lives on in the one method both gained, resembling it."),
        RuleSpec(
            TargetRule.MOVED_SOLE_NAMESAKE,
            "A gone function lives on in the release's only definition of its name, new elsewhere (a method: on another class), resembling it.",
        ),
        RuleSpec(TargetRule.RENAMED_IN_MOVED_CLASS, "A method renamed while its class moved lives on in the class's one new home, holding most of its body."),
        RuleSpec(TargetRule.CLASS_KEPT_AS_ALIAS, "A method of a gone class lives on, under its name, in the class its old name now aliases."),
        RuleSpec(TargetRule.NAMED_BY_ITS_MODULE, "A gone method lives on in the new top-level function of its name its module defines or imports, alike."),
        RuleSpec(TargetRule.FOLDED_INTO_SUBCLASS, "A method of a gone class lives on in the one class that inherited it and now defines it, resembling it."),
        RuleSpec(TargetRule.PUSHED_DOWN_TO_SUBCLASS, "A method its class lost lives on in the new one of a class that inherits it, clearly closest."),
        RuleSpec(TargetRule.MOVED_TO_SIBLING_BASE, "A method its class lost lives on in the one other base of its heirs that now defines it, resembling it."),
        RuleSpec(
            TargetRule.INIT_AS_POST_INIT,
            "A class whose __init__ is gone and which newly defines __post_init__ became a dataclass: that is where its __init__'s work went.",
        ),
        RuleSpec(TargetRule.DELETED, "A target found by no rule is deleted.", essential=True),
        RuleSpec(TargetRule.SPLIT_INTO_HELPERS, "A body that lost statements to helpers it now calls names those helpers as their first home."),
        RuleSpec(TargetRule.HELPERS_OF_HELPERS, "Callees of a helper in its module (any module if it only forwards) holding lost statements are homes too."),
        RuleSpec(TargetRule.WRAPPED_BY_DECORATOR, "A body that lost statements to a decorator it now carries names the wrapper as their home."),
        RuleSpec(TargetRule.DECORATORS_CHANGED, "A decorator added, removed or replaced is a finding on the target.", essential=True),
        RuleSpec(TargetRule.BESIDE_THE_TARGET, "Of equally good rename candidates, the only one in the target's own class and file is it."),
        # -- candidates (filters, vetoes and tie-breaks) --
        RuleSpec(Filter.ADMISSION, "Only a candidate some step rule would accept enters the one-to-one assignment.", essential=True),
        RuleSpec(Filter.ONE_TO_ONE, "Two steps never share a statement: the assignment maximises the total weight.", essential=True),
        RuleSpec(Filter.SURVIVING_COPY, "After copies of a repeated statement went, a survivor is the step's only when its neighbours single it out."),
        RuleSpec(Filter.COPY_WENT, "After a copy of a repeated statement went, no survivor is the step's on its text alone."),
        RuleSpec(Filter.CONTESTED_COPY, "A survivor several steps were on goes to the step whose neighbours fit it strictly best."),
        RuleSpec(Filter.SAME_DEPTH, "Of steps contesting a survivor, the only one at its reviewed indentation takes it."),
        RuleSpec(Filter.DIFF_PAIRED, "Of steps contesting a survivor whose neighbours fit it equally, the one the bodies' diff keeps as it takes it."),
        RuleSpec(Filter.OCCURRENCE, "Among identical copies with equal context, the recorded occurrence, then the nearest line, wins."),
        RuleSpec(Filter.HUNK_RANK, "Of two edits equally close in text and context, the one at the step's rank in its diff hunk wins."),
        RuleSpec(Filter.HELPERS_FIRST, "Statements the container saw leave into helpers are looked for in those helpers first."),
        RuleSpec(Filter.EDITS_IN_HELPERS, "A statement rewritten on its way into one of the helpers the target was split into is looked for there."),
        RuleSpec(Filter.EDITS_IN_WRAPPERS, "A statement rewritten into the wrapper of a decorator that received lost statements is looked for there."),
        RuleSpec(Filter.RENAMED_ALIKE, "Several statements renamed the same way in one place are a block carried there, header and wrapper lines included."),
        RuleSpec(Filter.HELD_AT_REVIEW, "A function the target reaches that held the step's text as often at the review is not where it went."),
        RuleSpec(Filter.FREED_BY_MOVE, "A statement of the target given to a step then placed elsewhere is free for a step left with none."),
        RuleSpec(Filter.REGISTRY_KEY_IN_NAME, "A class gone whose name holds a registry's key handed its work to the function under that key."),
        RuleSpec(Filter.NEW_CODE_BEYOND, "A function new since the review, a few calls past where the target hands its work, may hold its rewrites."),
        RuleSpec(
            Filter.REACHED_BY_NAME,
            "A method called on another object is reached by its name alone: a text where one place of that name holds it, an edit where one class defines it.",
        ),
        RuleSpec(Filter.INSTANCE_CALLED, "Calling an attribute that __init__ set to an instance runs its class's __call__ and forward: they are reached."),
        RuleSpec(Filter.OWNERS_CLASSES, "A call on another object is followed into the classes the reviewed target's class names, the most general first."),
        RuleSpec(Filter.COPIED_NOT_MOVED, "A gone target's statements do not go to a copy of it made elsewhere."),
        RuleSpec(Filter.CLASS_COPIED_NOT_RENAMED, "A look-alike class (or its method, its class gone) that the old module, still here, never names is a copy."),
        RuleSpec(Filter.ANOTHER_FIELD, "A name read from a key of its own name is no edit of one read from a key sharing no word with it."),
        RuleSpec(Filter.NEW_PLACE_NOT_CARRIED, "A deleted target's block is followed only into a function that was there at the review."),
        RuleSpec(Filter.CALLERS_OWN_LINES, "An inlined function's def line and returns are not the caller's: the caller's own stay its own."),
        RuleSpec(Filter.OUT_OF_VIEW, "A block that left the target went where its module can see: itself, a module it imports, or its own qualname."),
        RuleSpec(Filter.REAL_EDIT_STAYS, "A place that gained the target's lost statements does not override a real edit inside the target."),
        RuleSpec(
            Filter.CLASS_KEYED_ENTRY, "The entry its own class's name keys, in the table a property it calls returns from, is a function the target runs."
        ),
        RuleSpec(Filter.BARE_RETURN_WITH_NEIGHBOURS, "A bare `return NAME` found where the target leads is the step's only with some of its neighbours."),
        RuleSpec(Filter.EDIT_WITH_NEIGHBOURS, "A copy where the target leads with none of the step's neighbours does not outrank an edit there that has them."),
        RuleSpec(Filter.TIED_PLACES, "Two places elsewhere about equally good tell nothing: neither is chosen."),
        RuleSpec(Filter.CLOSE_RUNNER_UP, "A runner-up edit about as close as the chosen one makes the verdict ambiguous (kind unchanged)."),
        # -- the step's kind, in STEP_ORDER --
        RuleSpec(Rule.FILE_UNCHANGED, "A step in a byte-identical file is unchanged.", essential=True),
        RuleSpec(Rule.UNREADABLE, "A step whose file cannot be read or parsed is unreadable.", essential=True),
        RuleSpec(Rule.LEFT_WITH_NEIGHBOURS, "A contentless statement the target still holds, but without its neighbours, went where they went."),
        RuleSpec(Rule.TARGET_RELOCATED, "The same statement in a target that moved or was renamed moved with it."),
        RuleSpec(Rule.SAME_TEXT, "The same normalised text inside the target, assigned to the step, is unchanged.", essential=True),
        RuleSpec(Rule.SAME_TREE, "Texts differing only in redundant parentheses or layout are the same statement."),
        RuleSpec(Rule.TARGET_HEADER, "The mapped target's def line (or docstring) is the reviewed one's, whatever its parameters."),
        RuleSpec(Rule.DECORATOR_REPLACED, "A decorator the target lost is changed to the new one the decorator list's diff puts at its rank."),
        RuleSpec(Rule.NESTED_LIFTED, "A nested function's def line is changed to that of the one helper that received most of its body."),
        RuleSpec(Rule.CONFIDENT_EDIT, "An edit very close in text and context, with nothing reached, is decided before any search."),
        RuleSpec(Rule.MOVED_TO_REACHED, "The exact text in a function the target now calls or is decorated by is where the step went."),
        RuleSpec(Rule.MOVED_WITH_BLOCK, "The exact text in the one function that gained a block of the target's lost statements is the step moved."),
        RuleSpec(Rule.SAME_ACTION, "A rewrite that keeps the action (a name, a call, setter and assignment, keywords) is changed."),
        RuleSpec(Rule.RENAMED_THROUGHOUT, "A rewrite only renaming names the target no longer spells anywhere is its edit, wherever the diff puts it."),
        RuleSpec(Rule.EDIT, "A statement of the same kind, close in text and placed by neighbours or the body diff, is changed."),
        RuleSpec(
            Rule.SAME_ROLE,
            "The only statement left in the step's role (same target from the same call, same call, same raise, same shape read), sharing text, is its edit.",
        ),
        RuleSpec(Rule.SAME_CALL, "The only statement left making the step's call, which the reviewed target made in the step alone, is its edit."),
        RuleSpec(Rule.SOLE_ASSIGNMENT, "The only statement left that assigns the same name is its edit."),
        RuleSpec(Rule.SOLE_READER, "A value set by kept statements and read by the step alone is read now by one statement only: the step's edit."),
        RuleSpec(Rule.KEPT_CONDITION, "The only block header left whose tests hold all of the step's, or all of whose tests the step's held, is its edit."),
        RuleSpec(Rule.EXTRACTED_AND_CALLED, "A statement calling a helper of its file that, read with the call's arguments, holds the step is its edit."),
        RuleSpec(Rule.SOLE_RETURN, "A target that returned in one statement and still returns in one: that return is the edit of the old one."),
        RuleSpec(
            Rule.PER_OBJECT_EDIT,
            "A statement on per-index state (self.a[i]) that reads the same on one object's own state (self.b) where the target now leads is changed there.",
        ),
        RuleSpec(
            Rule.ACTION_KEPT_IN_REACHED,
            "A close rewrite that keeps the action, where the target now leads and not held there at the review, is changed whatever its neighbours.",
        ),
        RuleSpec(Rule.CLOSE_EDIT_IN_HELPER, "A close edit of the step's kind, new in a helper that received the target's lost statements, is its edit."),
        RuleSpec(
            Rule.ALIGNED_IN_REACHED,
            "Where the target leads and gained lost statements verbatim, a close rewrite paired with the step in order between them is its edit.",
        ),
        RuleSpec(
            Rule.EDITED_WITH_BLOCK,
            "A gone target's step rewritten in a function that was there at the review and received a block of its steps verbatim is changed there.",
        ),
        RuleSpec(Rule.EDITED_IN_REACHED, "A statement rewritten in the one function the target now clearly hands its work to is changed there."),
        RuleSpec(Rule.HEADER_OF_ITS_BODY, "A block header whose placed body steps all sit under one new header of its kind was rewritten into it."),
        RuleSpec(Rule.DECOYS_ONLY, "Copies elsewhere that no rule singles out leave the step deleted, listed as candidates.", essential=True),
        RuleSpec(Rule.TARGET_GONE, "A step of a deleted target with no home is deleted.", essential=True),
        RuleSpec(Rule.NOTHING_CORRESPONDS, "A step nothing corresponds to is deleted.", essential=True),
    )
}
"""The rule book: one entry per rule of every kind."""

"""The one table of numbers the drift matcher decides with (:class:`Thresholds`); :mod:`.rules` carries it in a
:class:`~.rules.Policy`, so an ablation or a test passes its own table instead of patching a global."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thresholds:
    """Every number the drift matcher decides with (one table; each rule's test reads it)."""

    edit_similarity: float = 0.6
    """Text similarity for *changed* when at least one neighbour agrees."""
    confident_similarity: float = 0.8
    """Text similarity for *changed* on text alone (and, with context ≥ :attr:`confident_context`, before any search)."""
    confident_context: float = 0.5
    quick_reject_similarity: float = 0.3
    """Below this cheap upper bound (difflib's ``real_quick_ratio``) two texts are not compared in full."""
    candidate_similarity: float = 0.45
    """Below this, a statement is no edit candidate (at this similarity every neighbour must agree)."""
    sole_assignment_similarity: float = 0.3
    """Similarity for the only statement left that assigns the same name."""
    sole_return_similarity: float = 0.3
    """Similarity for the only ``return`` left in a target whose reviewed body returned in one statement only."""
    edited_neighbour: float = 0.5
    """What a neighbour that was edited too, or sits one statement off, counts in tolerant context."""
    no_neighbours_context: float = 0.5
    """The context of a candidate that has neighbours when the step recorded none (a lone statement tells little)."""
    same_copy_context: float = 0.5
    """Context for a surviving copy of a repeated statement to be the annotated one after copies went."""
    moved_locality: float = 0.6
    """Function similarity (Jaccard of statement fingerprints) for a home elsewhere when the target is gone."""
    moved_context: float = 0.5
    moved_margin: float = 0.05
    """Two homes elsewhere whose locality + context differ by less than this are equally good (none is chosen)."""
    ambiguous_margin: float = 0.02
    """A runner-up edit candidate this close to the chosen one makes *changed* ambiguous."""
    max_renames: int = 2
    """At most this many names may differ for an edit to count as a rename that keeps the action."""
    target_moved_overlap: float = 0.3
    """Body overlap for the same qualname in another module to be the target moved."""
    target_renamed_overlap: float = 0.6
    """Body overlap for a definition of another name to be the target renamed."""
    renamed_words_share: float = 0.25
    """Share of the reviewed body that must have a close statement in a new function whose name keeps the target's name's words..."""
    renamed_words_kept: int = 2
    """...and how many of those words it must keep at least..."""
    renamed_words_swapped: int = 3
    """...or, when each name has one word the other lacks (``…_to_cpu`` → ``…_to_device``), how many it must share."""
    replaced_share: float = 0.6
    """For ``replaced-at-callers``: the share of the reviewed statements the function the callers now call must hold
    close ones for (its name shares nothing with the target's, so the body must say more than for a name that kept
    its words)."""
    held_body_share: float = 0.6
    """For ``renamed-holding-body``: the share of the reviewed body's statements with content that a function new in the
    target's file must hold word for word (one-way, so a rename that grew is not diluted as in a Jaccard overlap; set
    equal to the other rename shares, not tuned)."""
    renamed_split_direct: float = 0.15
    """A definition of a new name must hold this share of the reviewed body itself before the helpers it calls count."""
    target_renamed_margin: float = 0.05
    """A second rename candidate this close to the best makes the rename ambiguous (not reported)."""
    aligned_max_pairs: int = 4000
    """Lost and new statements between two anchors are paired in order only when there are at most this many pairs to weigh..."""
    aligned_margin: float = 0.05
    """...and only when each resembles the other more, by this much, than anything else between those anchors."""
    header_rounds: int = 3
    """Headers told by their bodies' steps (rule ``header-of-its-body``) are looked for this many times, a nesting level each."""
    carried_statements: int = 3
    """A place elsewhere that gained at least this many of the target's lost statements may be where the step went..."""
    carried_share: float = 0.5
    """...when they are at least this share of what the target lost, or its neighbours came along (:attr:`moved_context`)."""
    position_rank: float = 0.15
    """What standing at the step's rank in its diff hunk adds to an edit candidate's rank (half for elsewhere in the hunk)."""
    text_rank: float = 0.7
    """What text similarity weighs in an edit candidate's rank (less :attr:`position_rank`); context weighs the rest."""
    beyond_calls: int = 2
    """How many calls past the places the target hands its work to new code is looked for (filter ``new-code-beyond``)..."""
    beyond_functions: int = 24
    """...and how many functions are followed on the way at most."""
    kept_message_length: int = 40
    """A string an error or a call was given is a message that its new statement may keep, extended, from this many
    characters (a shorter literal says too little)."""
    max_search_files: int = 6
    """At most this many files are indexed per distribution-wide search (best-ranked first; 16 gave the same verdicts)."""
    sibling_heir_files: int = 16
    """``moved-to-sibling-base`` reads at most this many files naming the target's class: a class that many files name (a
    model base of a package of models) tells no sibling apart, and reading them all would be slow."""
    moved_elsewhere_locality: float = 0.9
    """How sure a target found under its qualname (or behind a shim) in another module is the reviewed one."""
    renamed_locality: float = 0.8
    """How sure a target found under another name is the reviewed one."""
    weight_same_text: float = 10.0
    """The assignment's weight of an identical statement (plus its context): always preferred over an edit."""
    weight_same_tree: float = 9.0
    """The weight of the same syntax tree or the target's own header."""
    weight_same_action: float = 3.0
    """The weight of a rewrite that keeps the action (plus context and similarity)."""
    weight_edit: float = 1.0
    """The weight of an edit (plus its rank)."""
    weight_sole_assignment: float = 0.5
    """The weight of the only assignment of the name left (times its similarity)."""
    tie_hunk_rank: float = 1e-3
    """Per statement of rank gap in the diff hunk, taken off an edit's weight (the nearer of two equal edits wins)."""
    tie_occurrence: float = 1e-3
    """Added to the recorded occurrence among identical copies."""
    tie_distance: float = 1e-7
    """Per line of distance from the recorded line, taken off an identical copy's weight."""

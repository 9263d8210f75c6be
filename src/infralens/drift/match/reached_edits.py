"""Statements rewritten in a function the target now leads to (rule ``edited-in-reached``).

When the target hands its work to another function — a helper it calls, a method of its class, or a method of the
same name on a per-object class of its own module reached by dynamic dispatch (``self.layers[i].update(...)`` in a
cache whose per-layer classes now do the update) — a statement that kept its role there was rewritten, not deleted.
Of the functions the target reaches, the one whose statements resemble the reviewed statements (the steps and their
neighbours) clearly most is searched, as the target itself is, for an admissible edit of each step still without a
place; the steps get its statements one to one. When the container decision saw the target split into several
helpers (:mod:`.split`), each of them is searched as well (rule ``edits-in-helpers``): a block extracted into
``_update_past_and_masks`` is rewritten there, not in the helper that received most. So is the wrapper of a decorator
that the container decision saw receive the target's lost statements (rule ``edits-in-wrappers``: the gradient
checkpointing check a model's ``forward`` lost to ``@check_model_inputs`` is rewritten in its wrapper). An edit there
is admitted with its neighbours around it (``edited-in-reached``), as the only statement of its role (``same-role``),
as the step's per-index state read as one object's own (``per-object-edit``), or as a close rewrite that keeps the
action whatever its neighbours (``action-kept-in-reached``: a quantized cache's ``_quantize`` call with renamed
arguments in the layer class), except a block header, a line of a decorator's wrapper or a statement its function held
at the review (:func:`action_kept_vetoes`). The ``__init__`` of a class the target builds, and its bases' ``__init__`` it
calls, are among the functions searched (:func:`.split.built_inits`): settings a cache now hands to its layer objects.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

from infralens.drift.lock.entries import AnnotationLock, StepLock, short_hash
from infralens.drift.lock.facts import body_of
from infralens.drift.match.aligned import LostOrder, lost_order
from infralens.drift.match.assign import assign
from infralens.drift.match.beyond import new_code_beyond
from infralens.drift.match.calls import KEYED, Reach, new_held_methods
from infralens.drift.match.container import Found
from infralens.drift.match.decide import action_kept, aligned_kept, close_in_helper, per_object, weight_in_helper, weight_in_reached
from infralens.drift.match.dispatch import dispatched_for, keyed_home, owners_classes, sole_methods
from infralens.drift.match.evidence import Evidence, measure
from infralens.drift.match.propose import call_of, in_target, sole_role, statement_key, target_pool
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.replacements import ReplacementKind
from infralens.drift.match.reviewed import Transfers, defined_in, reviewed_texts
from infralens.drift.match.rules import CONTENTLESS, Action, Filter, Policy, Rule, Thresholds, Trace
from infralens.drift.match.scored import Scored, where
from infralens.drift.match.split import Reached, built_inits, listed_definitions, reached_definitions, reached_key
from infralens.drift.match.texts import statement_call, statement_role, statement_shape
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile, Statement

Weigh = Callable[[Evidence], float]
"""The assignment's weight of an admissible candidate (0: not admissible)."""


def rewritten_in_reached(
    reader: TreeReader, found: Found, annotation: AnnotationLock, steps: list[StepLock], policy: Policy, transfers: Transfers, traces: dict[str, Trace]
) -> dict[str, Scored]:
    """Edits of ``steps`` (none placed inside the target) in the functions it hands its work to (rule
    ``edited-in-reached`` and the rules that narrow or widen it), less what :func:`action_kept_vetoes` refuses."""
    if not steps or not policy.on(Rule.EDITED_IN_REACHED):
        return {}
    kept = [s for s in steps if not (len(s.texts) == 1 and s.texts[0] in CONTENTLESS)]  # told by neighbours, not text
    owner = annotation.target.rpartition(".")[0] if policy.on(Filter.OWNERS_CLASSES) else ""  # "": not narrowed
    on, t = policy.on, policy.thresholds
    reviewed = reviewed_texts(transfers.reviewed, annotation) if on(Rule.SAME_CALL) or on(Rule.ALIGNED_IN_REACHED) else None
    calls = {s.step_id: call_of(s, steps, reviewed) for s in kept} if on(Rule.SAME_CALL) else {}
    order = lost_order(reviewed, transfers.lost, kept, transfers.held_before) if on(Rule.ALIGNED_IN_REACHED) else None
    edits = edits_in_reached(
        reader,
        found,
        kept,
        t,
        lambda e: weight_in_reached(e, policy),
        owner,
        traces,
        with_helpers=on(Filter.EDITS_IN_HELPERS),
        with_wrappers=on(Filter.EDITS_IN_WRAPPERS),
        weigh_in_helper=lambda e: weight_in_helper(e, policy),
        step_calls=calls,
        by_name=on(Filter.REACHED_BY_NAME),
        since=transfers.reviewed,
        held=on(Filter.INSTANCE_CALLED),
        order=order,
        new_code=on(Filter.NEW_CODE_BEYOND),
        keyed=annotation.target.rpartition(".")[0] if on(Filter.REGISTRY_KEY_IN_NAME) and not found.in_place else "",
        class_keyed=on(Filter.CLASS_KEYED_ENTRY),
    )
    alike, held = on(Filter.RENAMED_ALIKE), on(Filter.HELD_AT_REVIEW)
    return action_kept_vetoes(edits, found, transfers, t, traces, frozenset(annotation.body), alike_on=alike, held_on=held)


def edits_in_reached(
    reader: TreeReader,
    found: Found,
    steps: list[StepLock],
    t: Thresholds,
    weigh: Weigh,
    owner: str,
    traces: dict[str, Trace],
    *,
    with_helpers: bool = True,
    with_wrappers: bool = True,
    weigh_in_helper: Weigh | None = None,
    step_calls: dict[str, str | None] | None = None,
    by_name: bool = True,
    since: TreeReader | None = None,
    held: bool = True,
    order: LostOrder | None = None,
    new_code: bool = True,
    keyed: str = "",
    class_keyed: bool = False,
) -> dict[str, Scored]:
    """Each of ``steps`` (none has a place yet) with its edit in the one function the target clearly leads to most, or
    (``with_helpers``, rule ``edits-in-helpers``) in any helper it calls that the container decision saw receive the
    target's lost statements, and (``with_wrappers``, rule ``edits-in-wrappers``) in the wrapper of any decorator it
    carries that the container decision saw receive them; ``weigh_in_helper`` (default ``weigh``) weighs the candidates
    in such a helper (not a wrapper: rule ``close-edit-in-helper``). ``owner``: the reviewed target's class (its per-object classes
    come first for a dispatched call; "": not narrowed); the trace of each step placed through that narrowing, or in such
    a helper or wrapper, says so. ``step_calls``: the call each step can be told apart by (:func:`~.propose.call_of`; rule
    ``same-call``). ``by_name`` (rule ``reached-by-name``): a method the target calls on another object whose name only one
    class of the tree defines (:func:`sole_methods`) is among the functions it leads to. ``since``: the reviewed release; a
    function a registry object the target dispatches through holds (:func:`.tables.registry_keys`) is a candidate
    home when new since it, and so (``held``, rule ``instance-called``) is what calling an instance an attribute of the
    target's class holds runs, searched beside the closest home: work the target newly hands off, never a function it
    could run already. ``order``: what the target lost in the reviewed order, to pair with each place searched (rule
    ``aligned-in-reached``). ``new_code`` (filter ``new-code-beyond``): functions new since it a few calls past those
    places. ``keyed``: the reviewed target's class, gone, whose name holds a registry key (filter ``registry-key-in-name``).
    ``class_keyed``: filter ``class-keyed-entry`` is on (:meth:`~.calls.Reach.keyed_functions`)."""
    if not steps:
        return {}
    reach = Reach(reader, found.source, found.index, found.definition, keyed=class_keyed)  # held instances are searched beside the closest home, below
    reviewed = sorted({text for step in steps for text in (*step.texts, *step.before, *step.after)})
    calls, narrowed = owners_classes(reach, list(dispatched_for(reader, reach)), owner)
    sole = list(sole_methods(reader, reach)) if by_name else []
    registry = list(listed_definitions(reader, [f for f in reach.registry_functions() if since is not None and not defined_in(since, *f)], set()))
    reached = list(reached_definitions(reader, reach))
    home = _clearly_closest([*reached, *built_inits(reader, reach), *calls, *sole, *registry], reviewed, t)
    split = found.split.helpers if found.split is not None else ()
    helpers = [h for h in split if (with_wrappers if h.decorator else with_helpers)]
    named = {(h.source.relpath, h.definition.qualname): h.decorator for h in helpers}
    homes = _homes([home] if home is not None else [], [(h.source, h.index, h.definition, False) for h in helpers])
    held_methods = new_held_methods(reach, since) if held and since is not None else []
    homes = _homes(homes, list(listed_definitions(reader, held_methods, set())))
    by_key = keyed_home(reader, reach, keyed) if keyed else []
    homes = _homes(homes, by_key)
    far = new_code_beyond(reader, [*homes, *registry], since, t) if new_code and since is not None else []
    homes, far_keys = _homes(homes, far), {reached_key(r) for r in far}
    marks = {key: (Filter.INSTANCE_CALLED, "run by calling an instance the target's class holds") for key in held_methods}
    marks.update({key: (Filter.NEW_CODE_BEYOND, "new since the review, a few calls past the target's homes") for key in far_keys})
    marks.update({key: (Filter.CLASS_KEYED_ENTRY, KEYED) for key in reach.keyed_functions()})
    marks.update({reached_key(r): (Filter.REGISTRY_KEY_IN_NAME, f"the function under a registry key that {keyed}'s name holds") for r in by_key})
    beyond = _own_module_callees(reader, home) if home is not None and order is not None else []
    others = _homes(homes, [r for r in [*reached, *beyond] if not r[3]])[len(homes) :]  # any other function it (or its home) calls: aligned edits only
    options: dict[str, dict[tuple[str, int, str], float]] = {}
    scored: dict[tuple[str, tuple[str, int, str]], Scored] = {}
    pools = [(source, index, definition, body_of(index, definition)) for source, index, definition, _ in homes]
    home_by_name = home is not None and home in sole  # the home is reached only by a method's name
    known = [pool for pool in pools if not (home_by_name and home is not None and pool[2] is home[2])]  # led to statically
    roles = {step.step_id: _sole_role(known, step) for step in steps}
    own_calls = {statement_call(s.text) for s in target_pool(found)}
    sole_calls = {step.step_id: _sole_call(pools, call, own_calls) for step in steps if (call := (step_calls or {}).get(step.step_id))}
    for source, index, definition, pool, paired, aligned_only in _searched(pools, others, order, t):
        place = Found(source, index, definition, found.locality, False)
        helper = named.get((source.relpath, definition.qualname)) is False
        far_place = (source.relpath, definition.qualname) in far_keys
        weighs = _weigh_for(weigh, weigh_in_helper if helper else None, aligned_only=aligned_only, t=t, far=far_place)
        admits = _admits(weighs)
        by_name_only = home_by_name and home is not None and definition is home[2]
        for step in [s for s in steps if not far_place or s.copies == 1]:  # a repeated text's copy is told by neighbours
            for proposal in in_target(place, pool, step, t, exact_only=False):
                if by_name_only and tuple(s.text for s in proposal.window) == step.texts:
                    continue  # the same text in a method reached by name alone is a move, or a copy: rule reached-by-name decides
                role, calls_it = proposal.key == roles[step.step_id], proposal.key == sole_calls.get(step.step_id)
                lined = (pair := paired.get(step.step_id)) is not None and proposal.key == statement_key(source.relpath, pair)
                evidence = measure(proposal, step, frozenset(), t, admit=admits, same_role=role, same_call=calls_it, aligned=lined)
                candidate = Scored(proposal, evidence)
                if (weight := weighs(candidate.evidence)) > 0.0:
                    options.setdefault(step.step_id, {})[proposal.key] = weight
                    scored[(step.step_id, proposal.key)] = candidate
    edits = {step_id: scored[(step_id, key)] for step_id, key in assign(options).items()}
    at_home = (home[0].relpath, home[2].qualname) if home is not None else None
    for step_id, edit in edits.items():
        where_to = (edit.proposal.source.relpath, edit.proposal.place().target)
        if narrowed and home in calls and where_to == at_home:
            traces[step_id].add(Filter.OWNERS_CLASSES, Action.FIRED, narrowed)
        if home_by_name and where_to == at_home:
            traces[step_id].add(Filter.REACHED_BY_NAME, Action.FIRED, f"rewritten in {where(edit)}, the only method of a name called on another object")
        if (mark := marks.get(where_to)) is not None:
            traces[step_id].add(mark[0], Action.FIRED, f"rewritten in {where(edit)}, {mark[1]}")
        if where_to != at_home:
            _trace_elsewhere(traces[step_id], edit, named.get(where_to))
    return edits


def _trace_elsewhere(trace: Trace, edit: Scored, decorator: bool | None) -> None:
    """Why an edit outside the clearly closest home was looked for where it lies: a decorator's wrapper (``decorator``
    True) or a helper (False) the target was split into."""
    if decorator:
        trace.add(Filter.EDITS_IN_WRAPPERS, Action.FIRED, f"rewritten in {where(edit)}, a decorator's wrapper that received the target's statements")
    elif decorator is False:
        trace.add(Filter.EDITS_IN_HELPERS, Action.FIRED, f"rewritten in {where(edit)}, a helper the target was split into")


def _homes(first: list[Reached], more: list[Reached]) -> list[Reached]:
    """``first`` and then those of ``more`` that are not among them (the same function reached two ways is searched once)."""
    homes = list(first)
    for reached in more:
        if all(reached_key(h) != reached_key(reached) for h in homes):
            homes.append(reached)
    return homes


def in_split_helper(found: Found | None, scored: Scored) -> bool:
    """Whether ``scored`` lies in a helper (not a decorator's wrapper) the container decision saw receive the target's lost statements."""
    helpers = found.split.helpers if found is not None and found.split is not None else ()
    where_to = (scored.proposal.source.relpath, scored.proposal.place().target)
    return any(not h.decorator and (h.source.relpath, h.definition.qualname) == where_to for h in helpers)


Pool = tuple[SourceFile, ModuleIndex, Definition, tuple[Statement, ...]]
"""A function searched for edits: its file, index, definition and body."""


Search = tuple[SourceFile, ModuleIndex, Definition, tuple[Statement, ...], dict[str, Statement], bool]
"""A place searched for edits: its file, index, definition and body, the steps paired there in order, and whether it is
searched for those alone."""


def _searched(pools: list[Pool], others: list[Reached], order: LostOrder | None, t: Thresholds) -> Iterator[Search]:
    """Each place to search for edits: every one of ``pools``, then those of ``others`` (any other function the target
    calls) where ``order`` pairs a step."""
    for source, index, definition, pool in pools:
        yield source, index, definition, pool, order.paired(source, index, pool, t) if order is not None else {}, False
    if order is None:
        return
    for source, index, definition, _ in others:
        pool = body_of(index, definition)
        if paired := order.paired(source, index, pool, t):
            yield source, index, definition, pool, paired, True


def _own_module_callees(reader: TreeReader, home: Reached) -> list[Reached]:
    """The functions of ``home``'s own module that it calls: methods of its class on ``self``, and module functions (one
    step beyond the place the target leads to, read from files already indexed)."""
    source, index, definition, _ = home
    calls = Reach(reader, source, index, definition).calls
    owner = definition.qualname.rpartition(".")[0]
    found: list[Reached] = []
    for d in index.definitions:
        parent, _, name = d.qualname.rpartition(".")
        called = (owner and parent == owner and name in calls.methods) or (not parent and name in calls.functions)
        if called and d.kind is not DefinitionKind.CLASS and d is not definition:
            found.append((source, index, d, False))
    return found


def _weigh_for(weigh: Weigh, in_helper: Weigh | None, *, aligned_only: bool, t: Thresholds, far: bool = False) -> Weigh:
    """How candidates in one place searched are weighed: ``in_helper`` in a helper the target was split into, else
    ``weigh``; with ``aligned_only`` (a function the target calls that only the pairing in order singles out), only the
    candidates rule ``aligned-in-reached`` admits; with ``far`` (new code past the target's homes, filter
    ``new-code-beyond``), only the same text, a rewrite that keeps the action, or a text close enough to stand alone."""
    chosen = in_helper if in_helper is not None else weigh
    if far:
        return lambda evidence: chosen(evidence) if evidence.exact or evidence.replacement is not None or evidence.similarity >= t.confident_similarity else 0.0
    return (lambda evidence: chosen(evidence) if aligned_kept(evidence, t) else 0.0) if aligned_only else chosen


def _admits(weigh: Weigh) -> Callable[[Evidence], bool]:
    """Whether ``weigh`` admits a candidate (gives it a weight)."""
    return lambda evidence: weigh(evidence) > 0.0


def action_kept_vetoes(
    edits: dict[str, Scored],
    found: Found,
    transfers: Transfers,
    t: Thresholds,
    traces: dict[str, Trace],
    reviewed_body: frozenset[str] = frozenset(),
    *,
    alike_on: bool = True,
    held_on: bool = True,
) -> dict[str, Scored]:
    """``edits`` less those taken on their action alone (rule ``action-kept-in-reached``: close, same action, too little
    context for ``edited-in-reached``) that the rule's invariant excludes: a block header (``for``, ``if``, ``except``:
    its body tells which it is, not its words), a statement in a decorator's wrapper (a wrapper's reworded lines serve
    every function it decorates), and one its function held at the review (it did that job already). Those taken on
    their text alone in a split helper (rule ``close-edit-in-helper``) lose the last veto too, and one whose text the
    reviewed target held itself (``reviewed_body``: short hashes): that is another statement of the target carried over
    unchanged, not this step rewritten."""
    wrappers = {(h.source.relpath, h.definition.qualname) for h in (found.split.helpers if found.split is not None else ()) if h.decorator}
    helpers = {(h.source.relpath, h.definition.qualname) for h in (found.split.helpers if found.split is not None else ()) if not h.decorator}
    kept, alike = {}, renamed_alike(edits, t) if alike_on else {}
    for step_id, edit in edits.items():
        e = edit.evidence
        if held_on and transfers.held_and_called(edit.proposal.source, edit.proposal.index, edit.proposal.window[0]):
            traces[step_id].add(Filter.HELD_AT_REVIEW, Action.VETOED, f"{where(edit)}: its function held that statement as often at the review")
            continue
        where_to = (edit.proposal.source.relpath, edit.proposal.place().target)
        if where_to in helpers and e.context < t.moved_context and not e.same_role and not per_object(e) and not action_kept(e, t) and close_in_helper(e, t):
            why = ""
            if transfers.held_before(edit.proposal.source, edit.proposal.index, edit.proposal.window[0]):
                why = "its function held that statement already at the review"
            elif short_hash(edit.proposal.texts[0]) in reviewed_body:
                why = "the reviewed target held that statement itself: another of its statements, carried over unchanged"
            if why:
                traces[step_id].add(Rule.CLOSE_EDIT_IN_HELPER, Action.VETOED, f"{where(edit)}: {why}")
                continue
            kept[step_id] = edit
            continue
        if not (action_kept(e, t) and e.context < t.moved_context and not e.same_role and not per_object(e)):
            kept[step_id] = edit
            continue
        why = _action_kept_veto(edit, step_id in alike, wrappers, transfers)
        if why:
            traces[step_id].add(Rule.ACTION_KEPT_IN_REACHED, Action.VETOED, f"{where(edit)}: {why}")
            continue
        if step_id in alike:
            traces[step_id].add(Filter.RENAMED_ALIKE, Action.FIRED, f"{where(edit)}: {alike[step_id]}")
        kept[step_id] = edit
    return kept


def _action_kept_veto(edit: Scored, renamed_alike: bool, wrappers: set[tuple[str, str]], transfers: Transfers) -> str:
    """Why rule ``action-kept-in-reached`` may not take ``edit`` ("" when it may): a block header, a line of a
    decorator's wrapper (neither when the edit is renamed alike with its block, filter ``renamed-alike``), or a
    statement its function held at the review."""
    if statement_shape(edit.proposal.texts[0]) not in _SIMPLE and not renamed_alike:
        return "a block header is told by its body, not its words"
    if (edit.proposal.source.relpath, edit.proposal.place().target) in wrappers and not renamed_alike:
        return "a decorator's wrapper serves every function it decorates"
    if transfers.held_before(edit.proposal.source, edit.proposal.index, edit.proposal.window[0]):
        return "its function held that statement already at the review"
    return ""


def renamed_alike(edits: dict[str, Scored], t: Thresholds) -> dict[str, str]:
    """Step id → evidence, for the edits that rename the same names the same way as at least
    :attr:`~.thresholds.Thresholds.carried_statements` edits in one place together (filter ``renamed-alike``): a block
    carried there with its names made general (``joint_attention_kwargs`` read as ``attention_kwargs`` in a decorator's
    wrapper), whose header and lines are the step's, not a wrapper's own words."""

    def key(edit: Scored) -> tuple[str, str, str, str] | None:
        swapped = edit.evidence.replacement
        if swapped is None or swapped.kind is not ReplacementKind.VARIABLE_RENAMED:
            return None
        return (edit.proposal.source.relpath, edit.proposal.place().target, swapped.old, swapped.new)

    keys = {step_id: k for step_id, edit in edits.items() if (k := key(edit)) is not None}
    counts = Counter(keys.values())
    return {step_id: f"{counts[k]} statements renamed alike there ({k[2]} -> {k[3]})" for step_id, k in keys.items() if counts[k] >= t.carried_statements}


_SIMPLE = ("assign", "expression", "return")
"""The statement shapes rule ``action-kept-in-reached`` takes (a simple statement says what it does in its words)."""


def _sole_role(pools: list[Pool], step: StepLock) -> tuple[str, int, str] | None:
    """The key of the only statement of all ``pools`` that plays ``step``'s role (:func:`~.propose.sole_role`; a
    decorator's body holds its nested wrapper's statements: one statement, however many pools hold it)."""
    keys = {key for source, _, _, pool in pools if (key := sole_role(source.relpath, pool, step)) is not None}
    role = statement_role(step.texts[0])
    held = {statement_key(source.relpath, s) for source, _, _, pool in pools for s in pool if statement_role(s.text) == role}
    return keys.pop() if len(keys) == 1 and len(held) == 1 else None


def _sole_call(pools: list[Pool], call: str, own: set[str | None]) -> tuple[str, int, str] | None:
    """The key of the only statement of all ``pools`` that makes ``call``, when the target itself (``own``: the calls
    its statements make now) no longer makes it; else None."""
    held = {statement_key(source.relpath, s) for source, _, _, pool in pools for s in pool if statement_call(s.text) == call}
    return held.pop() if len(held) == 1 and call not in own else None


def _clearly_closest(functions: list[Reached], reviewed: list[str], t: Thresholds) -> Reached | None:
    """The function holding the most statements that resemble the reviewed ones (at least one, and strictly more
    than any other function). A statement resembles a reviewed text when it holds at least
    :attr:`~.rules.Thresholds.candidate_similarity` of the text's distinct words (a cheap measure: hundreds of
    methods share a dispatched name in a large package)."""
    wanted = [words for text in reviewed if (words := _words(text))]
    scores = []
    for function in functions:
        _, index, definition, _ = function
        body = [_words(s.text) for s in body_of(index, definition)]
        held = sum(1 for words in wanted if any(len(words & found) >= t.candidate_similarity * len(words) for found in body))
        scores.append((held, function))
    scores.sort(key=lambda item: -item[0])
    if not scores or scores[0][0] == 0 or (len(scores) > 1 and scores[1][0] == scores[0][0]):
        return None
    return scores[0][1]


def _words(text: str) -> frozenset[str]:
    """The distinct names and literals of a normalised statement (its punctuation left out)."""
    return frozenset(token for token in text.split(" ") if token[:1].isalnum() or token[:1] in "_\"'")

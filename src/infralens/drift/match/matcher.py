"""Classify locked steps against one source tree: container first, then every step of it at once.

For each annotation: :class:`~.container.ContainerMapper` decides what became of the target; :mod:`.propose` proposes places for
each step (inside the target, or the same text elsewhere); :mod:`.evidence` measures each; :func:`~.assign.assign` gives the steps
statements of the target one to one (maximum total weight); and :func:`~.decide.decide` names each step's kind and its rule."""

from __future__ import annotations

from dataclasses import dataclass, replace

from infralens.drift.lock.entries import AnnotationLock, StepLock
from infralens.drift.lock.facts import body_hashes, body_of
from infralens.drift.match.assign import assign
from infralens.drift.match.block_edits import edits_where_block_went, with_provenance
from infralens.drift.match.body_headers import headers_of_bodies
from infralens.drift.match.calls import Reach
from infralens.drift.match.classes import in_same_named_copy
from infralens.drift.match.container import ContainerMapper, Found
from infralens.drift.match.decide import EDITED_WHERE_IT_LEADS, StepCase, admissible, carried_can_decide, decide, edit_rank, pick_carried, same_copy, weight
from infralens.drift.match.dispatch import in_owners_classes
from infralens.drift.match.evidence import Evidence, measure
from infralens.drift.match.extracted import HelperCalls, extracted_call, with_extracted
from infralens.drift.match.freed import freed_candidates
from infralens.drift.match.imported import callers_own_lines
from infralens.drift.match.position import Alignment
from infralens.drift.match.propose import (
    TargetBody,
    call_of,
    elsewhere,
    held_before,
    in_helpers,
    in_target,
    kept_condition,
    own_line,
    sole_assignment,
    sole_call,
    sole_reader,
    sole_return,
    sole_role,
    target_names,
    target_pool,
    without_callers_own,
)
from infralens.drift.match.reached_edits import in_split_helper, rewritten_in_reached
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.repeated import reviewed_indents, settle_contested
from infralens.drift.match.results import StepKind, StepResult, TargetKind, TargetResult
from infralens.drift.match.reviewed import ReviewedSources, Transfers, reviewed_nested, reviewed_texts
from infralens.drift.match.rules import Action, Container, Filter, Policy, Rule, RuleEvent, Trace
from infralens.drift.match.scored import Scored, as_reached, home_rank, line_of, placed_message, step_result, trace_assignment, where
from infralens.drift.match.view import ModuleViews
from infralens.resolve import Resolver
from infralens.source import SourceFile, SourceTree


class DistributionMatcher:
    """Classifies locked annotations and steps against one source tree, with one :class:`~.rules.Policy`."""

    def __init__(
        self,
        resolver: Resolver,
        tree: SourceTree,
        *,
        fast: bool = False,
        reviewed: ReviewedSources | None = None,
        policy: Policy | None = None,
        reader: TreeReader | None = None,
    ) -> None:
        self.reader = reader or TreeReader(resolver, tree, fast=fast)
        """What the matcher read of the tree (another matcher's, to decide the same tree again with another policy)."""
        self._fast = fast
        self.tree = tree
        self.policy = policy or Policy()
        """The thresholds and the rules switched off (none, unless an ablation says so)."""
        self.reviewed = reviewed or ReviewedSources(resolver)
        """The releases the lock was reviewed against (evidence of what was there before and what moved)."""
        self.containers = ContainerMapper(self.reader, self.reviewed, self.policy)
        self._targets: dict[str, tuple[TargetResult, Found | None]] = {}
        self._steps: dict[str, dict[str, StepResult]] = {}
        self.views = ModuleViews(self.reader, self.reviewed, tree.version)
        """What each target's module can see (rule ``out-of-view``)."""

    def source(self, relpath: str) -> SourceFile | None:
        """The checked tree's file at ``relpath`` (None when it is gone)."""
        return self.reader.source(relpath)

    def prepare(self) -> None:
        """Against another release, start finding its files' words on the workers (its searches need them): at the first
        target, once the changed target files are handed to the workers, so that those are parsed first."""
        if self._fast:
            self.reader.start_word_indexes()

    def target(self, entry: AnnotationLock, steps: list[StepLock]) -> tuple[TargetResult, Found | None]:
        """The target's classification (computed once per annotation) and where it was found."""
        self.prepare()
        if entry.id not in self._targets:
            self._targets[entry.id] = self.containers.map(entry, steps)
        return self._targets[entry.id]

    def step(self, entry: StepLock, annotation: AnnotationLock, siblings: list[StepLock]) -> StepResult:
        """Classify one locked step (``siblings``: the annotation's locked steps; all of them are placed together)."""
        key = annotation.id + "\n" + "\n".join(s.step_id for s in siblings)
        if key not in self._steps:
            together = siblings if any(s.step_id == entry.step_id for s in siblings) else [*siblings, entry]
            self._steps[key] = self._classify(annotation, together)
        return self._steps[key][entry.step_id]

    # -- one annotation -----------------------------------------------------------------------------

    def _classify(self, annotation: AnnotationLock, steps: list[StepLock]) -> dict[str, StepResult]:
        results: dict[str, StepResult] = {}
        pending = []
        t = self.policy.thresholds
        for entry in steps:
            source = self.source(entry.relpath)
            if source is not None and source.sha256 == entry.file_sha256:
                why = "the file is byte-identical"
                trace = Trace([RuleEvent(Rule.FILE_UNCHANGED, Action.FIRED, why)])
                results[entry.step_id] = step_result(entry, Rule.FILE_UNCHANGED, None, (), "source file unchanged", t, trace, evidence=why)
            else:
                pending.append(entry)
        if not pending:
            return results
        target_result, found = self.target(annotation, steps)
        traces = {e.step_id: Trace(list(target_result.trace)) for e in pending}  # each step's trace opens with its target's
        if target_result.kind is TargetKind.UNREADABLE:  # the step's file is its target's: already judged once
            for e in pending:
                traces[e.step_id].add(Rule.UNREADABLE, Action.FIRED, target_result.message)
                results[e.step_id] = step_result(e, Rule.UNREADABLE, None, (), target_result.message, t, traces[e.step_id])
            return results
        if found is None and target_result.kind is not TargetKind.DELETED:
            found = self.containers.in_place(annotation)
        container = Container.GONE if found is None else (Container.IN_PLACE if found.in_place else Container.RELOCATED)
        own, options = self._inside(found, annotation, pending, traces) if found is not None else ({}, {})
        reviewed = self.reviewed.reader(annotation.distribution, annotation.version, checked=self.tree.version)
        held_since = reviewed if self.policy.on(Filter.INSTANCE_CALLED) else None
        keyed = self.policy.on(Filter.CLASS_KEYED_ENTRY)
        reach = Reach(self.reader, found.source, found.index, found.definition, held_since=held_since, keyed=keyed) if found is not None else None
        now_body = body_hashes(found.index, found.definition) if found is not None else None
        transfers = Transfers(annotation, now_body, reviewed, t.carried_statements)
        unplaced = [e for e in pending if e.step_id not in own or admissible(own[e.step_id].evidence, self.policy) is Rule.EXTRACTED_AND_CALLED]
        edits = rewritten_in_reached(self.reader, found, annotation, unplaced, self.policy, transfers, traces) if found is not None else {}
        cases = {e.step_id: _Step(e, annotation, found, container, reach, transfers, target_result, traces[e.step_id], edits.get(e.step_id)) for e in pending}
        marks = {step_id: len(trace.events) for step_id, trace in traces.items()}  # where each step's own decision starts
        for step_id, case in cases.items():
            results[step_id] = self._decide(case, own.get(step_id), options.get(step_id, []))
        for step_id, again in (freed_candidates(own, options, results, self.policy) if self.policy.on(Filter.FREED_BY_MOVE) else {}).items():
            del traces[step_id].events[marks[step_id] :]  # decided again, from the same start
            traces[step_id].add(Filter.FREED_BY_MOVE, Action.FIRED, f"line {line_of(again)}, given to a step then placed elsewhere")
            results[step_id] = self._decide(cases[step_id], again, options[step_id])
        for step_id, edit in (edits_where_block_went(self.reader, results, annotation, pending, self.policy, transfers) if found is None else {}).items():
            del traces[step_id].events[marks[step_id] :]  # decided again: rewritten where the gone target's block went
            results[step_id] = self._decide(replace(cases[step_id], edited=edit), None, [])
        rounds = t.header_rounds if self.policy.on(Rule.HEADER_OF_ITS_BODY) else 0  # a nesting level a round, while one is found
        while (rounds := rounds - 1) >= 0 and (headers := headers_of_bodies(self.reader, reviewed, results, annotation, pending, t)):
            for step_id, header in headers.items():
                del traces[step_id].events[marks[step_id] :]  # decided again: its body's steps sit under a new header
                results[step_id] = self._decide(replace(cases[step_id], body_header=header), own.get(step_id), options.get(step_id, []))
        return results

    def _admit(self, evidence: Evidence) -> bool:
        return admissible(evidence, self.policy) is not None

    def _inside(
        self, found: Found, annotation: AnnotationLock, steps: list[StepLock], traces: dict[str, Trace]
    ) -> tuple[dict[str, Scored], dict[str, list[Scored]]]:
        """Each step's statement inside the target (one-to-one), and every admissible option per step."""
        pool = target_pool(found)
        old_body = held_before(annotation, pool)
        alignment = Alignment(annotation.body, body_of(found.index, found.definition))
        reader = self.reviewed.reader(annotation.distribution, annotation.version, checked=self.tree.version)
        reviewed = reviewed_texts(reader, annotation)
        own_lines = callers_own_lines(reader, found.source.relpath, found.index, found.definition) if found.absorbed else frozenset()
        names, nested = target_names(reviewed, steps, pool), reviewed_nested(reader, annotation)
        body = TargetBody(pool, old_body, alignment, names, reviewed, annotation.decorators, nested, own_lines)
        options: dict[str, list[Scored]] = {}
        helpers = HelperCalls(found, pool, old_body, reader)  # what the target's calls of helpers in its file do, for rule extracted-and-called
        for entry in steps:
            options[entry.step_id] = self._options(found, body, entry, steps, annotation.target, traces[entry.step_id], helpers)
        if any(o.contested for found_options in options.values() for o in found_options):
            by_id = {s.step_id: s for s in steps}
            kept = lambda step_id, option: alignment.keeps(by_id[step_id], option.proposal.window[0])  # noqa: E731 - read by one call
            settle_contested(options, reviewed_indents(reader, annotation, steps), self.policy, traces, kept)
        weights = {step_id: {o.proposal.key: weight(o.evidence, self.policy) + o.tie for o in found_options} for step_id, found_options in options.items()}
        chosen = assign(weights)
        own = {}
        for step_id, key in chosen.items():
            own[step_id] = next(o for o in options[step_id] if o.proposal.key == key)
        trace_assignment(options, weights, chosen, traces)
        return own, options

    def _options(
        self,
        found: Found,
        body: TargetBody,
        entry: StepLock,
        steps: list[StepLock],
        target: str,
        trace: Trace,
        helpers: HelperCalls,
    ) -> list[Scored]:
        t, policy = self.policy.thresholds, self.policy
        pool, old_body, alignment = body.pool, body.old_body, body.alignment
        exact = [Scored(p, measure(p, entry, old_body, t, admit=self._admit)) for p in in_target(found, pool, entry, t, exact_only=True)]
        contested: list[Scored] = []
        went = bool(exact) and len(exact) < entry.copies
        if went and same_copy([s.evidence.context for s in exact], t) and policy.allows(Filter.SURVIVING_COPY, trace):
            # Some copies went, and the neighbours single out one survivor: only that one can be this step's.
            # The edits of the text stay candidates: a step that loses the survivor to another looks for its own.
            best = max(exact, key=lambda s: s.evidence.context)
            trace.add(Filter.SURVIVING_COPY, Action.FIRED, f"{entry.copies} copies reviewed, {len(exact)} left; neighbours single out line {line_of(best)}")
            contested, pool, exact = [Scored(best.proposal, best.evidence, contested=True)], tuple(s for s in pool if s.text != entry.texts[0]), []
        elif went and policy.allows(Filter.COPY_WENT, trace, f"{entry.copies} copies reviewed, {len(exact)} left"):
            # A copy of a repeated statement went and the neighbours do not say the annotated one stayed: never
            # "unchanged" on text alone, and the remaining copies are no candidates for an edit either. When other
            # steps are on copies of the same text, the survivors are contested: the assignment gives each to the
            # step whose neighbours fit it best, and the others look for their edits.
            trace.add(Filter.COPY_WENT, Action.REMOVED, f"{entry.copies} copies reviewed, {len(exact)} left, none singled out by its neighbours")
            if any(s.texts == entry.texts for s in steps if s.step_id != entry.step_id):
                contested = [Scored(c.proposal, c.evidence, c.tie, contested=True) for c in self._with_occurrence(exact, entry, trace)]
            pool = tuple(s for s in pool if s.text != entry.texts[0])
            exact = []
        if exact:
            return self._with_occurrence(exact, entry, trace)
        pool, line = without_callers_own(pool, body, entry, own_line(found, entry, target, body, t), policy, trace)
        if line is not None:  # the container's own lines: their place is the mapped target's (or its helper's)
            return [Scored(line[0], measure(line[0], entry, old_body, t, admit=self._admit, line=line[1]))]
        sole_key = sole_assignment(found.source.relpath, pool, entry, steps)
        role_key = sole_role(found.source.relpath, pool, entry)
        return_key = sole_return(found, pool, entry, body.reviewed)
        reader_key = sole_reader(found.source.relpath, pool, entry, steps, body.reviewed)
        condition_key = kept_condition(found.source.relpath, pool, entry, steps)
        call_key = sole_call(found.source.relpath, pool, call_of(entry, steps, body.reviewed))
        extracted_key = extracted_call(helpers, entry, t) if policy.on(Rule.EXTRACTED_AND_CALLED) else None
        scored, refused = [], []
        for proposal in with_extracted(in_target(found, pool, entry, t, exact_only=False), found, pool, extracted_key):
            position = alignment.position(entry, proposal.window[0])
            key = proposal.key
            sole, returns, role, call = key == sole_key, key == return_key, key == role_key, key == call_key
            reads, tests, extracted = key == reader_key, key == condition_key, key == extracted_key
            evidence = measure(
                proposal,
                entry,
                old_body,
                t,
                admit=self._admit,
                sole_assignment=sole,
                sole_return=returns,
                sole_reader=reads,
                kept_condition=tests,
                extracted=extracted,
                same_role=role,
                same_call=call,
                names=body.names,
                position=position,
            )
            if not self._admit(evidence):
                refused.append(Scored(proposal, evidence))
                continue
            gap = alignment.rank_gap(entry, proposal.window[0])
            scored.append(Scored(proposal, evidence, -t.tie_hunk_rank * gap if gap is not None else 0.0))
        if len({s.tie for s in scored}) > 1 and policy.allows(Filter.HUNK_RANK, trace, f"{len(scored)} edit candidates"):
            trace.add(Filter.HUNK_RANK, Action.FIRED, f"{len(scored)} edit candidates: the one nearest the step's rank in its diff hunk first")
        elif len({s.tie for s in scored}) > 1:
            scored = [Scored(s.proposal, s.evidence) for s in scored]
        if fields := [s for s in refused if s.evidence.another_field and self._admit(replace(s.evidence, another_field=False))]:
            trace.add(
                Filter.ANOTHER_FIELD, Action.REMOVED, f"{len(fields)} statement(s) setting another field from its own key, line {line_of(fields[0])} first"
            )
        if refused:
            closest = max(refused, key=lambda s: s.evidence.similarity)
            detail = f"{len(refused)} look-alike(s) in the target refused; closest line {line_of(closest)} ({closest.evidence.describe()})"
            trace.add(Filter.ADMISSION, Action.REMOVED, detail)
        return contested + scored

    def _with_occurrence(self, exact: list[Scored], entry: StepLock, trace: Trace) -> list[Scored]:
        """Exact copies, with the recorded occurrence (then the nearest line) breaking ties in context (rule ``occurrence``)."""
        if not self.policy.allows(Filter.OCCURRENCE, trace if len(exact) > 1 else None, f"{len(exact)} identical copies"):
            return exact
        t = self.policy.thresholds
        tied = []
        for rank, scored in enumerate(exact, 1):
            bonus = t.tie_occurrence if rank == entry.occurrence else 0.0
            distance = abs(scored.proposal.window[0].start_line - entry.lines[0])
            tied.append(Scored(scored.proposal, scored.evidence, bonus - distance * t.tie_distance))
        if len(exact) > 1:
            trace.add(
                Filter.OCCURRENCE, Action.FIRED, f"{len(exact)} identical copies: occurrence {entry.occurrence} of the review, then the nearest line, first"
            )
        return tied

    def _decide(self, step: _Step, own: Scored | None, options: list[Scored]) -> StepResult:
        entry, found, trace, policy = step.entry, step.found, step.trace, self.policy
        t = policy.thresholds
        rule = admissible(own.evidence, policy) if own is not None else None
        if own is not None and rule in (Rule.SAME_TEXT, Rule.SAME_TREE):
            alone = found is not None and own.evidence.contentless and own.evidence.context == 0.0  # may have gone with its branch
            left = max(self._helper_copies(found, entry), key=home_rank, default=None) if alone and found is not None else None
            decision = decide(StepCase(step.container, own.evidence, reached=left.evidence if left else None), policy, trace)
            if decision.rule is Rule.LEFT_WITH_NEIGHBOURS and left is not None:
                message = f"found in {where(left)} with its neighbours; the copy left in the target has none of them"
                return step_result(entry, decision.rule, left, (own.candidate(t),), message, t, trace, True)
            ambiguous = sum(1 for o in options if o.evidence.context == own.evidence.context) > 1
            relocated = f"the target moved ({step.target_result.kind.value})"
            message = "same statement in the same target" if step.container is Container.IN_PLACE else relocated
            if rule is Rule.SAME_TREE:
                message += " (only parentheses or line breaks differ)"
            return step_result(entry, decision.rule, own, (), message, t, trace, ambiguous)
        reached, carried, away, more = self._elsewhere(step, own)
        edited = step.edited
        if reached is None and edited is not None and edited.evidence.exact:  # the same text where the work went: moved
            reached, edited = Scored(edited.proposal, as_reached(edited.evidence)), None
        taken = {s.proposal.key for s in (reached, carried) if s is not None}
        rivals = sorted((s for s in away if s.proposal.key not in taken), key=home_rank, reverse=True)
        case = StepCase(
            step.container,
            own.evidence if own else None,
            reached=reached.evidence if reached else None,
            carried=carried.evidence if carried else None,
            decoys=len(rivals),
            edited=edited.evidence if edited is not None else None,
            edited_in_helper=edited is not None and in_split_helper(found, edited),
            body_header=step.body_header.evidence if step.body_header is not None else None,
        )
        decision = decide(case, policy, trace)
        if decision.kind is StepKind.CHANGED and own is not None and decision.rule not in EDITED_WHERE_IT_LEADS:
            return self._changed(entry, decision.rule, own, options, trace)
        placed = {Rule.MOVED_TO_REACHED: reached, Rule.MOVED_WITH_BLOCK: carried, Rule.HEADER_OF_ITS_BODY: step.body_header}
        chosen = placed.get(decision.rule, edited if decision.rule in EDITED_WHERE_IT_LEADS else None)
        if chosen is not None:
            return step_result(entry, decision.rule, chosen, tuple(r.candidate(t) for r in rivals), placed_message(decision.rule, chosen), t, trace)
        candidates = tuple(r.candidate(t) for r in rivals[:5])
        if candidates:
            searched = f" in the {t.max_search_files} best-ranked files holding it (more files hold it, unsearched)" if more else ""
            message = f"the same text appears in {len(rivals)} other place(s){searched}, none of them clearly the reviewed function"
        elif found is None:
            message = step.target_result.message
        else:
            message = f"nothing in {found.definition.qualname} corresponds"
        return step_result(entry, decision.rule, None, candidates, message, t, trace, bool(candidates))

    def _elsewhere(self, step: _Step, own: Scored | None) -> tuple[Scored | None, Scored | None, list[Scored], bool]:
        """The places outside the target: the one the target reaches, the place that gained the block, every place
        holding the text (the rest are decoys), and whether more files hold it than were searched."""
        entry, found, trace = step.entry, step.found, step.trace
        helpers = [h for h in self._helper_copies(found, entry) if not self._held_at_review(step, h)] if found is not None else []
        if helpers and not self.policy.allows(Filter.HELPERS_FIRST, trace, f"{len(helpers)} copies in the helpers the target was split into"):
            helpers = []
        if helpers:  # the container decision named the helpers that received the target's statements: look there first
            first = max(helpers, key=home_rank)
            trace.add(Filter.HELPERS_FIRST, Action.FIRED, f"found in {where(first)}, a helper the target was split into")
            return first, None, [h for h in helpers if h is not first], False
        t = self.policy.thresholds
        search = elsewhere(self.reader, entry, step.annotation, found, t.max_search_files)
        away = [Scored(p, measure(p, entry, frozenset(), t)) for p in search.proposals]
        reached = self._reached(step, away) if step.reach is not None else None
        return (reached, None, away, search.more) if reached is not None else (None, self._carried(step, own, away), away, search.more)

    def _reached(self, step: _Step, away: list[Scored]) -> Scored | None:
        """The place holding the text that the target now calls (or, on another object, the only one of the called name)."""
        reach, trace = step.reach, step.trace
        assert reach is not None
        leads = [s for s in sorted(away, key=home_rank, reverse=True) if reach.leads_to(s.proposal.place())]
        reached = next((s for s in leads if not self._held_at_review(step, s)), None)
        if reached is None:  # a method called on another object: only when exactly one place is one of that name
            by_name = [s for s in away if reach.calls_by_name(s.proposal.place())]
            if by_name and self.policy.on(Filter.OWNERS_CLASSES):
                by_name = in_owners_classes(reach, step.annotation.target.rpartition(".")[0], by_name, trace)
            if len(by_name) == 1 and self.policy.allows(Filter.REACHED_BY_NAME, trace, f"{where(by_name[0])} has the called name"):
                reached = by_name[0]
                trace.add(Filter.REACHED_BY_NAME, Action.FIRED, f"{where(reached)} is the only place of the called name")
        at = where(reached) if reached is not None else ""
        for rule, why in reach.widened_to(reached.proposal.place()) if reached is not None else []:
            trace.add(rule, Action.FIRED, f"{at} {why}")
        if reached is None and away:
            trace.add(Rule.MOVED_TO_REACHED, Action.DECLINED, f"{len(away)} place(s) hold the text; the target reaches none of them")
        return Scored(reached.proposal, as_reached(reached.evidence)) if reached is not None else None

    def _held_at_review(self, step: _Step, place: Scored) -> bool:
        """Filter ``held-at-review``: a reached function that held the text as often when the lock was reviewed, and that
        the reviewed target called then, keeps its own copy; the step did not go there (a twin that was there)."""
        proposal = place.proposal
        if not step.transfers.held_and_called(proposal.source, proposal.index, proposal.window[0]):
            return False
        return self.policy.vetoes(Filter.HELD_AT_REVIEW, step.trace, f"{where(place)} held the text as often at the review")

    def _in_class_copy(self, annotation: AnnotationLock, place: Scored, trace: Trace) -> bool:
        """Rule ``class-copied-not-renamed`` for a place elsewhere: a method of a same-named copy of the target's class."""
        if not in_same_named_copy(self.reader, annotation, place.proposal.source, place.proposal.place().target):
            return False
        return self.policy.vetoes(Filter.CLASS_COPIED_NOT_RENAMED, trace, f"{where(place)} is in a same-named copy of the class made there")

    def _carried(self, step: _Step, own: Scored | None, away: list[Scored]) -> Scored | None:
        """The one place elsewhere that gained the target's lost block (with the step), if any."""
        reach, trace, policy = step.reach, step.trace, self.policy
        homes = away
        if reach is None:  # a gone target's statements do not go to a copy of it made elsewhere (rule copied-not-moved)
            homes = [s for s in away if not self.containers.copied_away(step.annotation, s.proposal.source, s.proposal.index, trace)]
        else:  # nor a kept one's into a same-named copy of its class made elsewhere (rule class-copied-not-renamed)
            homes = [s for s in away if not self._in_class_copy(step.annotation, s, trace)]
        if not homes:
            return None
        if reach is not None and not carried_can_decide(own.evidence if own else None, policy):
            detail = f"the candidate inside the target is a real edit: the {len(homes)} place(s) elsewhere holding the text are not weighed"
            trace.add(Filter.REAL_EDIT_STAYS, Action.VETOED, detail)
            return None
        step.transfers.prefetch([(s.proposal.source, s.proposal.index, s.proposal.window[0]) for s in homes])
        homes = [with_provenance(s, step.transfers) for s in homes]
        carriers = self.views.seen(step.annotation, homes, policy, trace)
        best = pick_carried([s.evidence for s in carriers], policy, trace, gone=reach is None)
        return carriers[best] if best is not None else None

    def _changed(self, entry: StepLock, rule: Rule, own: Scored, options: list[Scored], trace: Trace) -> StepResult:
        """The result of an edit in place, ambiguous when a runner-up is about as close (rule ``close-runner-up``)."""
        t = self.policy.thresholds
        others = sorted((o for o in options if o is not own), key=lambda o: edit_rank(o.evidence, t), reverse=True)[:3]
        close = bool(others) and edit_rank(others[0].evidence, t) >= edit_rank(own.evidence, t) - t.ambiguous_margin
        if close and not self.policy.allows(Filter.CLOSE_RUNNER_UP, trace, f"runner-up at line {line_of(others[0])}"):
            close = False
        if close:
            trace.add(Filter.CLOSE_RUNNER_UP, Action.FIRED, f"line {line_of(others[0])} is about as close ({others[0].evidence.describe()})")
        message = "edited in place"
        if own.evidence.replacement is not None:
            message += f" ({own.evidence.replacement.describe()})"
        if close:
            message += " (several statements are about as close; see candidates)"
        return step_result(entry, rule, own, tuple(o.candidate(t) for o in others) if close else (), message, t, trace, close)

    def _helper_copies(self, found: Found, entry: StepLock) -> list[Scored]:
        """The step's exact text in the helpers the container decision named, measured."""
        t = self.policy.thresholds
        return [Scored(p, measure(p, entry, frozenset(), t, reach=True)) for p in in_helpers(found, entry)]


@dataclass(frozen=True)
class _Step:
    """What one step is decided against: its annotation's target and how the target reaches other places."""

    entry: StepLock
    annotation: AnnotationLock
    found: Found | None
    container: Container
    reach: Reach | None
    transfers: Transfers
    target_result: TargetResult
    trace: Trace
    edited: Scored | None = None
    """An edit of the step in the function the target now hands its work to (:mod:`.reached_edits`)."""
    body_header: Scored | None = None
    """The new header its block's placed steps all sit under (:mod:`.body_headers`)."""

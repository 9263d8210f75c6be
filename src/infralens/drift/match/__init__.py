"""Matching a locked step to the sources now, in three stages: propose, evidence, decide.

:mod:`.container` maps each annotated function first (same place, moved module, renamed behind a shim,
renamed with an overlapping body, deleted; decorators compared). Inside the mapped function (and the
functions it leads to) :mod:`.propose` proposes places for each step, :mod:`.evidence` measures every
proposal (same text, same syntax tree, similarity, context, locality, reach, replacements), :mod:`.assign`
gives the steps statements one-to-one, and :func:`.decide.decide` returns the kind with the named
:class:`.rules.Rule` that decided it. :mod:`.rules` is the rule book at the bottom of the package: every rule
(container, candidate filter, step), its invariant, the one table of numbers (:class:`.rules.Thresholds`) and the
:class:`.rules.Policy` a matcher is built with, which can switch rules off for an ablation.
:mod:`.matcher` runs the stages for one source tree. What the stages read and follow lives beside them:
:mod:`.reader` (reading and indexing the checked tree), :mod:`.forwarding` (the shim a renamed class
leaves behind), :mod:`.calls` (whether the target leads to a statement's new home) with :mod:`.names`
(a name resolved through a module's definitions and imports), :mod:`.reviewed` (what the reviewed release
held: twins that were there, places that gained the target's lost statements); :mod:`.results` holds what comes out
(:class:`.results.StepResult`, :class:`.results.TargetResult`, the kinds). It imports only ``lock/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .decide import Decision as Decision, StepCase as StepCase, admissible as admissible, decide as decide
    from .evidence import Evidence as Evidence
    from .matcher import DistributionMatcher as DistributionMatcher
    from .reader import TreeReader as TreeReader
    from .replacements import Replacement as Replacement, ReplacementKind as ReplacementKind
    from .results import (
        Candidate as Candidate,
        Scores as Scores,
        StepKind as StepKind,
        StepResult as StepResult,
        TargetKind as TargetKind,
        TargetResult as TargetResult,
    )
    from .reviewed import ReviewedSources as ReviewedSources
    from .rulebook import SPECS as SPECS
    from .rules import (
        Container as Container,
        Filter as Filter,
        Origin as Origin,
        Policy as Policy,
        Rule as Rule,
        TargetRule as TargetRule,
        Thresholds as Thresholds,
    )

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "Candidate": "results",
        "Scores": "results",
        "StepKind": "results",
        "StepResult": "results",
        "TargetKind": "results",
        "TargetResult": "results",
        "SPECS": "rulebook",
        "Filter": "rules",
        "Policy": "rules",
        "TargetRule": "rules",
        "TreeReader": "reader",
        "ReviewedSources": "reviewed",
        "Container": "rules",
        "Decision": "decide",
        "DistributionMatcher": "matcher",
        "Evidence": "evidence",
        "Origin": "rules",
        "Replacement": "replacements",
        "ReplacementKind": "replacements",
        "Rule": "rules",
        "StepCase": "decide",
        "Thresholds": "rules",
        "admissible": "decide",
        "decide": "decide",
    },
)

"""Stage verify: tiny scenarios run real upstream code while a tracer checks the annotated statements.

Layers: :mod:`.tracer` (counts runs and evaluates expects in real frames; with :mod:`.probes`,
:mod:`.watch`, :mod:`.expects`, :mod:`.backends` and :mod:`.instrument`), :mod:`.registry`
(scenario names → functions, no imports of torch), :mod:`.scenarios` (one module per scenario
group), :mod:`.execute` (runs one scenario under an observer: the tracer here, the call recorder in
``infralens coverage``), :mod:`.plan` (annotations → probes per scenario), :mod:`.protocol` (the
worker↔runner messages), :mod:`.worker` (runs one scenario group in its own process),
:mod:`.runner` (orchestrates workers, judges steps), :mod:`.report` (the report record, the
summary), :mod:`.command` (what ``infralens verify`` does) and :mod:`.cli` (its arguments).
``--mutate``: :mod:`.mutants` (wrong versions of a statement, libcst), :mod:`.codeswap` (compile one
in memory and swap it into the live function), :mod:`.mutate` (run and classify them in the worker)
and :mod:`.timings` (last CPU times per scenario, to balance the work).
May import: :mod:`infralens.annotations`, :mod:`infralens.source`, :mod:`infralens.resolve`,
:mod:`infralens.project`, :mod:`infralens.reports`, :mod:`infralens.tiny`, :mod:`infralens.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .context import ScenarioCheckError as ScenarioCheckError, ScenarioContext as ScenarioContext
    from .execute import ScenarioRun as ScenarioRun, execute as execute, scenario_spec as scenario_spec
    from .observe import TOKEN_SEPARATORS as TOKEN_SEPARATORS
    from .registry import SCENARIOS as SCENARIOS, get_scenario as get_scenario, scenario_names as scenario_names

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "SCENARIOS": "registry",
        "TOKEN_SEPARATORS": "observe",
        "ScenarioCheckError": "context",
        "ScenarioContext": "context",
        "ScenarioRun": "execute",
        "execute": "execute",
        "get_scenario": "registry",
        "scenario_names": "registry",
        "scenario_spec": "execute",
    },
)

"""Stage verify: tiny scenarios run real upstream code while a tracer checks the annotated statements.

Layers: :mod:`.tracer` (counts runs and evaluates expects in real frames; with :mod:`.probes`,
:mod:`.watch`, :mod:`.expects`, :mod:`.backends` and :mod:`.instrument`), :mod:`.registry`
(the project's scenarios, read from its ``scenarios/`` folder by :mod:`infralens.scenarios` without
importing torch), :mod:`.execute` (runs one scenario under an observer: the tracer here, the call recorder in
``infralens coverage``), :mod:`.plan` (annotations → probes per scenario), :mod:`.against` (``--against``:
another release installed into a cached folder of its own), :mod:`.protocol` (the
worker↔runner messages), :mod:`.worker` (runs one scenario group in its own process),
:mod:`.runner` (orchestrates workers, judges steps), :mod:`.report` (the report record, the
summary), :mod:`.command` (what ``infralens verify`` does) and :mod:`.cli` (its arguments).
``--mutate``: :mod:`.mutants` (wrong versions of a statement, libcst), :mod:`.codeswap` (compile one
in memory and swap it into the live function), :mod:`.mutate` (run and classify them in the worker)
and :mod:`.timings` (last CPU times per scenario, to balance the work).
May import: :mod:`infralens.annotations`, :mod:`infralens.scenarios`, :mod:`infralens.source`, :mod:`infralens.resolve`,
:mod:`infralens.project`, :mod:`infralens.reports`, :mod:`infralens.tiny`, :mod:`infralens.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .against import parse_pin as parse_pin
    from .command import VerifyOptions as VerifyOptions, run_verify as run_verify
    from .context import ScenarioCheckError as ScenarioCheckError, ScenarioContext as ScenarioContext
    from .execute import ScenarioRun as ScenarioRun, run_scenario as run_scenario, scenario_spec as scenario_spec
    from .observe import TOKEN_SEPARATORS as TOKEN_SEPARATORS
    from .registry import project_catalog as project_catalog

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "TOKEN_SEPARATORS": "observe",
        "VerifyOptions": "command",
        "parse_pin": "against",
        "run_verify": "command",
        "ScenarioCheckError": "context",
        "ScenarioContext": "context",
        "ScenarioRun": "execute",
        "run_scenario": "execute",
        "project_catalog": "registry",
        "scenario_spec": "execute",
    },
)

"""Stage verify: tiny scenarios run real upstream code while a tracer checks the annotated statements.

Three parts and the command on top, each importing only the parts before it:

- :mod:`.trace` — run one scenario under the tracer: probes, the tracer and its backends, expects, observed values,
  the one registry of live upstream functions, what a scenario receives and how one run ends.
- :mod:`.mutate` — ``--mutate``: wrong versions of a statement (libcst), swapped into the live function, run and
  classified.
- :mod:`.run` — annotations → a plan (each step resolved on its own), the project's scenarios, ``--against``
  (another release installed into a cached folder of its own), the worker↔runner protocol, the worker process
  and the runner that orchestrates workers and judges steps.
- the command: :mod:`.command` (what ``infralens verify`` does), :mod:`.cli` (its arguments), :mod:`.report`
  (the report record, the summary, the findings) and :mod:`.progress` (the progress display).

Code outside this package imports the names below from :mod:`infralens.verify`.
May import: :mod:`infralens.annotations`, :mod:`infralens.scenarios`, :mod:`infralens.source`, :mod:`infralens.resolve`,
:mod:`infralens.project`, :mod:`infralens.reports`, :mod:`infralens.tiny`, :mod:`infralens.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .command import VerifyOptions as VerifyOptions, run_verify as run_verify
    from .run.against import OtherRelease as OtherRelease, install_release as install_release, parse_pin as parse_pin
    from .run.registry import project_catalog as project_catalog
    from .trace.context import ScenarioCheckError as ScenarioCheckError, ScenarioContext as ScenarioContext
    from .trace.execute import ScenarioRun as ScenarioRun, run_scenario as run_scenario, scenario_spec as scenario_spec
    from .trace.observe import TOKEN_SEPARATORS as TOKEN_SEPARATORS

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "OtherRelease": "run.against",
        "ScenarioCheckError": "trace.context",
        "ScenarioContext": "trace.context",
        "ScenarioRun": "trace.execute",
        "TOKEN_SEPARATORS": "trace.observe",
        "VerifyOptions": "command",
        "install_release": "run.against",
        "parse_pin": "run.against",
        "project_catalog": "run.registry",
        "run_scenario": "trace.execute",
        "run_verify": "command",
        "scenario_spec": "trace.execute",
    },
)

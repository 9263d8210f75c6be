"""Verification: tiny scenarios run real upstream code while a tracer checks the annotated statements.

Layers: :mod:`.tracer` (counts runs and evaluates expects in real frames), :mod:`.registry`
(scenario names → functions, no imports of torch), :mod:`.scenarios` (one module per scenario
group), :mod:`.plan` (annotations → probes per scenario), :mod:`.worker` (runs one scenario group
in its own process), :mod:`.runner` (orchestrates workers, judges steps), :mod:`.report` (JSON),
:mod:`.cli` (``infralens verify``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .context import ScenarioCheckError as ScenarioCheckError, ScenarioContext as ScenarioContext
    from .registry import SCENARIOS as SCENARIOS, get_scenario as get_scenario, scenario_names as scenario_names

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "SCENARIOS": "registry",
        "ScenarioCheckError": "context",
        "ScenarioContext": "context",
        "get_scenario": "registry",
        "scenario_names": "registry",
    },
)

"""The scenarios ``verify`` can run: the project's own, read from its ``scenarios/`` folder.

Scenarios are the project's content, not the tool's: :mod:`infralens.scenarios` reads the folder
statically (nothing heavy is imported to list names); a scenario's module is imported by the worker
process that runs it. Scenarios of one *process* group share a Python process; DiffSynth's two
loading modes each need a process of their own (they put different ``diffsynth`` packages into
``sys.modules``), so modules that use them say ``PROCESS = "diffsynth-path"`` or ``"diffsynth-full"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from infralens.scenarios import DEFAULT_PROCESS, ScenarioCatalog, ScenarioSpec, discover_scenarios

if TYPE_CHECKING:
    from infralens.project import Project

PROCESS_ORDER = (DEFAULT_PROCESS, "diffsynth-path", "diffsynth-full")
"""Groups that run first, in this order; any other group a project names runs after them, by name."""

__all__ = ["PROCESS_ORDER", "ScenarioCatalog", "ScenarioSpec", "process_order", "project_catalog"]


def project_catalog(project: Project) -> ScenarioCatalog:
    """The scenarios of *project* (its ``scenarios/`` folder, or ``[tool.infralens] scenarios``)."""
    return discover_scenarios(project.scenario_folder, project.root)


def process_order(processes: Iterable[str]) -> tuple[str, ...]:
    """The given process groups in the order their workers start."""
    present = set(processes)
    return tuple(p for p in PROCESS_ORDER if p in present) + tuple(sorted(present - set(PROCESS_ORDER)))

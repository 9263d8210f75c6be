"""Run one scenario function once, under an observer, and say how it ended.

The one place a scenario is executed: the verify worker runs it under the :class:`~.tracer.Tracer`,
``infralens coverage`` under its call recorder. Callers describe failures in their own words.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from infralens.reports import ScenarioStatus
from infralens.scenarios import ScenarioCatalog, ScenarioSpec
from infralens.verify.trace.context import ScenarioCheckError, ScenarioContext

Scenario = Callable[[ScenarioContext], None]


@dataclass(frozen=True)
class ScenarioRun:
    """How one run ended: ``passed``, ``failed`` (its own check) or ``error`` (it raised)."""

    status: ScenarioStatus
    failure: BaseException | None
    """The :class:`~.context.ScenarioCheckError` or the exception that ended it."""
    seconds: float
    cpu_seconds: float
    facts: dict[str, str]


def scenario_spec(name: str, catalog: ScenarioCatalog) -> ScenarioSpec:
    """The catalog entry for *name*; an unknown name is an :class:`~infralens.errors.InfralensError`."""
    return catalog.spec(name)


def run_scenario(function: Scenario, context: ScenarioContext, observer: AbstractContextManager[object]) -> ScenarioRun:
    """Call *function* with *context* inside *observer*; upstream failures end the run, never the caller."""
    status = ScenarioStatus.PASSED
    failure: BaseException | None = None
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        with observer:
            function(context)
    except ScenarioCheckError as error:
        status, failure = ScenarioStatus.FAILED, error
    except Exception as error:  # the upstream code or the scenario broke: report it, keep going
        status, failure = ScenarioStatus.ERROR, error
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    return ScenarioRun(status, failure, seconds, cpu_seconds, context.facts)


def error_text(error: BaseException) -> str:
    """The exception and the innermost frames, short enough for a report."""
    frames = traceback.extract_tb(error.__traceback__)[-4:]
    where = " <- ".join(f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in reversed(frames))
    return f"{type(error).__name__}: {error} [at {where}]" if where else f"{type(error).__name__}: {error}"


execute = run_scenario
"""The name the verify package's own modules use."""

"""``infralens history``: the drift check run over many upstream releases, one row of states per step.

:mod:`.build` plans the releases (final releases in ``--since``/``--until``, wheels from the cache) and
classifies every locked step against each one with the same check as ``check --against``, remembering
each release's row in the cache; :mod:`.view` prints the rows as a table or the JSON report. It sits on
top of the check: it imports ``lock/``, ``match/`` and the check, and nothing below imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .build import (
        CHECKER_MODULES as CHECKER_MODULES,
        ReleasePlan as ReleasePlan,
        chosen_annotations as chosen_annotations,
        plan_history as plan_history,
        run_history as run_history,
    )
    from .view import HistoryRequest as HistoryRequest, history as history, render_text as render_text

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "CHECKER_MODULES": "build",
        "HistoryRequest": "view",
        "ReleasePlan": "build",
        "chosen_annotations": "build",
        "history": "view",
        "plan_history": "build",
        "render_text": "view",
        "run_history": "build",
    },
)

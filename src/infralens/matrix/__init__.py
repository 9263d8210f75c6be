"""``infralens matrix``: a release × device matrix of ``verify --against`` and ``check --against``, run here or on CI.

:mod:`.cells` (the releases, a list or a range, the devices, the cells and the exit policy), :mod:`.run` (one cell
in a process of its own, many in a process pool), :mod:`.merge` (cell reports into one matrix, and the matrix as the
site's summary of runs), :mod:`.emit` (the GitHub Actions workflow: one job per cell, then the merge) and
:mod:`.cli` (the arguments). The report record is :class:`infralens.reports.MatrixReport`.
May import: :mod:`infralens.verify` and :mod:`infralens.drift` (their public names only), :mod:`infralens.reports`,
:mod:`infralens.source`, :mod:`infralens.project`, :mod:`infralens.commands`, :mod:`infralens.userfiles`, :mod:`infralens.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .cells import (
        Cell as Cell,
        MatrixInputError as MatrixInputError,
        make_cells as make_cells,
        parse_cell as parse_cell,
        parse_releases as parse_releases,
        verdict as verdict,
    )
    from .emit import WorkflowOptions as WorkflowOptions, workflow_text as workflow_text
    from .merge import MergeError as MergeError, history_runs as history_runs, merge_cells as merge_cells, single as single
    from .run import CellSettings as CellSettings, run_cell as run_cell, run_cells as run_cells

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(("Cell", "MatrixInputError", "make_cells", "parse_cell", "parse_releases", "verdict"), "cells"),
        **dict.fromkeys(("WorkflowOptions", "workflow_text"), "emit"),
        **dict.fromkeys(("MergeError", "history_runs", "merge_cells", "single"), "merge"),
        **dict.fromkeys(("CellSettings", "run_cell", "run_cells"), "run"),
    },
)

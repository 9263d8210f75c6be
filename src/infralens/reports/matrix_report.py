"""The release × device matrix (``infralens matrix --out FILE``): one cell per release and device, in one report.

Each cell is one ``verify --against DIST==X.Y.Z --device D`` run with its ``check --against`` beside it,
boiled down to what a matrix needs: per step, the run state a summary of runs gives
(:class:`~infralens.reports.history_runs.RunCell`: held, ran, failed, not-run, absent), per scenario how it
ended, the drift counts and the steps that drifted, and whether the cell is clean, has findings or could
not run. A report of one cell (``--cell``) and a merged report of many (``--merge``, or a local run) are
the same record: merging is concatenating cells that agree on the project (lock hash, InfraLens
version, scenario selection). ``seconds`` and ``created`` are the only fields that differ between two
runs of the same cell.
"""

from __future__ import annotations

from typing import ClassVar

from infralens.bounds import VERSION_PATTERN
from infralens.records import Record, record, spec
from infralens.reports.history_runs import RunCell
from infralens.reports.verify_report import CREATED_PATTERN, STEP_ID_PATTERN
from infralens.reports.vocabulary import DriftKind, ScenarioStatus

MATRIX_FORMAT = 1
MATRIX_OUTCOMES = ("clean", "findings", "error")
"""How a cell (or the whole matrix, under its policy) ended: exit 0, 1 or 2 of the commands it ran."""
MATRIX_POLICIES = ("newest", "all", "none")
MATRIX_DEVICES = ("cpu", "cuda")


@record
class MatrixVerify(Record):
    """What ``verify --against`` said in one cell."""

    json_name: ClassVar[str] = "matrixVerify"
    exit_code: int = spec(choices=(0, 1, 2))
    created: str = spec(default="", omit="empty", pattern=CREATED_PATTERN, doc="When its verification report was written (none when it could not run).")
    scenarios: dict[str, ScenarioStatus] = spec(factory=dict, doc="Every scenario run, by name, and how it ended.")
    scenario_errors: dict[str, str] = spec(factory=dict, omit="empty", doc="One line per scenario that did not pass.")
    steps: dict[str, RunCell] = spec(factory=dict, keys_pattern=STEP_ID_PATTERN, doc="Every non-static step run, by step id: its run state.")
    error: str = spec(default="", omit="empty", doc="Why verify could not run (exit 2): its last line.")


@record
class MatrixCheck(Record):
    """What ``check --against`` said in one cell (the same for every device)."""

    json_name: ClassVar[str] = "matrixCheck"
    exit_code: int = spec(choices=(0, 1, 2))
    counts: dict[str, int] = spec(factory=dict, item_minimum=0, keys_pattern="^[a-z-]+$", doc="Steps per drift kind.")
    drifted: dict[str, DriftKind] = spec(factory=dict, omit="empty", keys_pattern=STEP_ID_PATTERN, doc="Every step that did not stay unchanged, by id.")
    error: str = spec(default="", omit="empty", doc="Why check could not run (exit 2).")


@record
class MatrixCell(Record):
    """One release on one device."""

    json_name: ClassVar[str] = "matrixCell"
    distribution: str
    release: str = spec(pattern=VERSION_PATTERN)
    device: str = spec(choices=MATRIX_DEVICES)
    outcome: str = spec(choices=MATRIX_OUTCOMES, doc="error when either command could not run, findings when either found something, else clean.")
    verify: MatrixVerify
    check: MatrixCheck
    seconds: float = spec(default=0.0, minimum=0, doc="Wall time of the cell (the one field, with created, that differs between runs).")

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.distribution, self.release, self.device)

    @property
    def label(self) -> str:
        return f"{self.distribution}=={self.release} on {self.device}"


@record
class MatrixReport(Record):
    """A release × device matrix (infralens matrix --out): every cell, the policy that decided the exit code, and that decision."""

    json_name: ClassVar[str] = "matrixReport"
    json_title: ClassVar[str | None] = "Release × device matrix (infralens matrix --out)"
    json_order: ClassVar[tuple[str, ...]] = ("matrix",)
    generated_by: str
    infralens: str = spec(doc="The InfraLens version that ran the cells; cells of other versions are not merged.")
    lock_sha256: str = spec(pattern="^[0-9a-f]{64}$", doc="Hash of the project's lock; cells of another lock are not merged.")
    scenarios: tuple[str, ...] = spec(doc="The scenarios selected (empty: every scenario of the annotations).")
    policy: str = spec(choices=MATRIX_POLICIES, doc="Which cells decide the exit code: the newest release of each distribution, all, or none.")
    verdict: str = spec(choices=MATRIX_OUTCOMES, doc="The worst outcome among the cells the policy names (clean when it names none).")
    cells: tuple[MatrixCell, ...]
    matrix: int = spec(default=MATRIX_FORMAT, const=MATRIX_FORMAT)

"""What a matrix is asked to run: releases (a list or a range), devices, the cells they make, and the exit policy.

``--releases diffusers==0.40.0,0.41.0`` names releases; ``--releases "diffusers>=0.40,<0.42"`` is a range,
resolved against the final releases the package index lists (the same list ``infralens history`` reads:
pip's own index configuration, remembered in the wheel cache, and with ``--offline`` only that remembered
list or the wheels already cached). Every problem is a :class:`MatrixInputError` naming the flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from infralens.errors import InfralensError
from infralens.reports import MATRIX_DEVICES as DEVICES, MATRIX_OUTCOMES as OUTCOMES, MATRIX_POLICIES as POLICIES, MatrixCell

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_LIST = re.compile(rf"^({_NAME})==([^,<>=!~\s]+(?:,[^,<>=!~\s]+)*)$")
MAX_CELLS = 400
"""More cells than any runner matrix takes (GitHub allows 256 jobs per matrix)."""


class MatrixInputError(InfralensError):
    """A flag of ``infralens matrix`` that cannot be used as given."""


@dataclass(frozen=True, order=True)
class Cell:
    """One release of one distribution on one device."""

    distribution: str
    version: str
    device: str

    @property
    def pin(self) -> str:
        return f"{self.distribution}=={self.version}"

    @property
    def slug(self) -> str:
        """A file- and job-name-safe name: ``diffusers-0.40.0-cpu``."""
        return re.sub(r"[^A-Za-z0-9._-]", "_", f"{self.distribution}-{self.version}-{self.device}")

    @property
    def label(self) -> str:
        return f"{self.pin} on {self.device}"


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 120 else f"(a text of {len(text):,} characters)"


def parse_releases(spec: str, *, offline: bool = False) -> tuple[str, tuple[str, ...]]:
    """``(distribution, versions oldest first)`` for one ``--releases`` value: a list or a range."""
    from infralens.verify import parse_pin

    text = spec.strip()
    listed = _LIST.match(text)
    if listed:
        name, versions = listed.group(1), tuple(dict.fromkeys(listed.group(2).split(",")))
        try:
            for version in versions:
                parse_pin(f"{name}=={version}")
        except InfralensError as error:
            raise MatrixInputError(f"--releases {_shown(spec)}: {error}") from None
        return name, _sorted(versions)
    return _resolve_range(spec, text, offline)


def _resolve_range(spec: str, text: str, offline: bool) -> tuple[str, tuple[str, ...]]:
    from packaging.requirements import InvalidRequirement, Requirement

    from infralens.source import list_releases

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        requirement = None
    if requirement is None or not str(requirement.specifier) or requirement.extras or requirement.marker or requirement.url:
        raise MatrixInputError(f"--releases {_shown(spec)}: expected DIST==X.Y.Z[,X.Y.Z...] (a list) or a range such as 'diffusers>=0.40,<0.42'")
    found = list_releases(requirement.name, offline=offline)
    chosen = tuple(v for v in found.versions if requirement.specifier.contains(v))
    if not chosen:
        where = f"{found.origin.value}{f': {found.problem}' if found.problem else ''}"
        raise MatrixInputError(f"--releases {_shown(spec)}: no final release of {requirement.name} is in that range (releases from the {where})")
    return requirement.name, chosen


def _sorted(versions: Iterable[str]) -> tuple[str, ...]:
    from packaging.version import Version

    return tuple(sorted(versions, key=Version))


def parse_devices(values: Sequence[str]) -> tuple[str, ...]:
    """``--devices cpu,cuda`` (repeatable) → the devices, each once, in the order given."""
    devices = tuple(dict.fromkeys(part.strip() for value in values for part in value.split(",")))
    unknown = [device for device in devices if device not in DEVICES]
    if unknown or not devices:
        raise MatrixInputError(f"--devices: {', '.join(map(_shown, unknown)) or 'none given'}; expected a comma-separated list of {', '.join(DEVICES)}")
    return devices


def make_cells(releases: Sequence[str], devices: Sequence[str], *, offline: bool = False) -> tuple[Cell, ...]:
    """Every release of every ``--releases`` value on every device (at most :data:`MAX_CELLS`)."""
    if not releases:
        raise MatrixInputError("--releases is required: DIST==X.Y.Z[,X.Y.Z...] or a range such as 'diffusers>=0.40,<0.42'")
    chosen = parse_devices(devices)
    cells: list[Cell] = []
    seen: set[str] = set()
    for spec in releases:
        distribution, versions = parse_releases(spec, offline=offline)
        if distribution.lower() in seen:
            raise MatrixInputError(f"--releases: {distribution} is named twice; give its releases in one value")
        seen.add(distribution.lower())
        cells.extend(Cell(distribution, version, device) for version in versions for device in chosen)
    if len(cells) > MAX_CELLS:
        raise MatrixInputError(f"--releases × --devices: {len(cells):,} cells (at most {MAX_CELLS}); name fewer releases")
    return tuple(cells)


def parse_cell(value: str) -> Cell:
    """``--cell DIST==X.Y.Z,DEVICE`` → the one cell."""
    pin, _, device = value.rpartition(",")
    if not pin:
        raise MatrixInputError(f"--cell {_shown(value)}: expected DIST==X.Y.Z,DEVICE (e.g. diffusers==0.40.0,cpu)")
    distribution, versions = parse_releases(pin)
    if len(versions) != 1:
        raise MatrixInputError(f"--cell {_shown(value)}: one release per cell (e.g. diffusers==0.40.0,cpu)")
    return Cell(distribution, versions[0], parse_devices([device])[0])


def in_scope(cells: Sequence[MatrixCell], policy: str) -> tuple[MatrixCell, ...]:
    """The cells the policy lets decide the exit code: every cell, none, or those of each distribution's newest release."""
    from packaging.version import Version

    if policy not in POLICIES:
        raise MatrixInputError(f"--fail-on {_shown(policy)}: expected one of {', '.join(POLICIES)}")
    if policy == "none":
        return ()
    if policy == "all":
        return tuple(cells)
    newest: dict[str, Version] = {}
    for cell in cells:
        version = Version(cell.release)
        newest[cell.distribution] = max(newest.get(cell.distribution, version), version)
    return tuple(cell for cell in cells if Version(cell.release) == newest[cell.distribution])


def verdict(cells: Sequence[MatrixCell], policy: str) -> str:
    """The worst outcome (error, then findings, then clean) among the cells the policy names."""
    outcomes = {cell.outcome for cell in in_scope(cells, policy)}
    return next((outcome for outcome in reversed(OUTCOMES) if outcome in outcomes), "clean")

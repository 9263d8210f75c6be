"""Which final releases a distribution has, from the package index or, offline, from the cache.

``pip index versions`` answers with pip's own configuration (index URL, extra indexes, find-links),
so a mirror works as it does for ``check --against``. Every answer is remembered in
``<cache>/wheels/releases-<name>.json``; ``offline`` (or an index that cannot be reached) uses that
list, or, without one, the releases whose wheels are already cached. Nothing is downloaded here.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from packaging.version import Version

from infralens.atomic import write_quietly
from infralens.bounds import BadVersion, parsed_version
from infralens.cachedir import read_cache_entry
from infralens.errors import InfralensError
from infralens.source.distributions import canonical_name
from infralens.source.wheels import PIP_COMMAND, wheel_cache_dir

INDEX_TIMEOUT_S: float = 60


class ReleaseListOrigin(StrEnum):
    """Where a list of releases came from."""

    INDEX = "index"
    """Asked the package index just now."""
    CACHED_LIST = "cached list"
    """The list remembered from the last time the index answered."""
    CACHED_WHEELS = "cached wheels"
    """Only the releases whose wheels are in the cache (no list was ever fetched)."""


@dataclass(frozen=True)
class ReleaseList:
    """The final releases of one distribution, oldest first."""

    distribution: str
    versions: tuple[str, ...]
    origin: ReleaseListOrigin
    problem: str = ""
    """Why the index was not asked or did not answer (empty when it did)."""


def _parse(text: str) -> Version | None:
    """The version ``text`` spells, or None (the one rule of :mod:`infralens.bounds.versions`: one line, at most
    64 safe characters, PEP 440; a 5,000-digit release or a text holding a line break is skipped)."""
    try:
        return parsed_version(text)
    except BadVersion:
        return None


def final_versions(versions: Iterable[str]) -> tuple[str, ...]:
    """The final releases (no pre-, dev- or unparsable versions) among ``versions``, oldest first, each once."""
    parsed: dict[Version, str] = {}
    for text in versions:
        version = _parse(text)
        if version is None:
            continue
        if not (version.is_prerelease or version.is_devrelease):
            parsed.setdefault(version, text)
    return tuple(parsed[v] for v in sorted(parsed))


def version_key(text: str) -> Version:
    """A sortable version (raises :class:`InfralensError` for text that is not a version)."""
    try:
        return parsed_version(text)
    except BadVersion as error:
        raise InfralensError(str(error)) from None


def list_releases(distribution: str, *, offline: bool = False, folder: Path | None = None) -> ReleaseList:
    """The final releases of ``distribution``: asked of the index unless ``offline``, else remembered."""
    folder = folder or wheel_cache_dir()
    remembered = folder / f"releases-{canonical_name(distribution)}.json"
    problem = "--offline: the package index was not asked"
    if not offline:
        versions, problem = _ask_index(distribution)
        if versions is not None:
            _remember(remembered, versions)
            return ReleaseList(distribution, versions, ReleaseListOrigin.INDEX)
    recorded = _recall(remembered)
    if recorded is not None:
        return ReleaseList(distribution, recorded, ReleaseListOrigin.CACHED_LIST, problem)
    return ReleaseList(distribution, cached_wheel_versions(distribution, folder), ReleaseListOrigin.CACHED_WHEELS, problem)


def cached_wheel_versions(distribution: str, folder: Path | None = None) -> tuple[str, ...]:
    """Final releases of ``distribution`` whose wheels are in the cache."""
    folder = folder or wheel_cache_dir()
    wanted = canonical_name(distribution)
    found = []
    for path in folder.glob("*.whl") if folder.is_dir() else ():
        parts = path.name.split("-")
        if len(parts) >= 5 and canonical_name(parts[0]) == wanted:
            found.append(parts[1])
    return final_versions(found)


def _ask_index(distribution: str) -> tuple[tuple[str, ...] | None, str]:
    """The index's final releases, or None and why not."""
    command = [*PIP_COMMAND, "index", "versions", "--disable-pip-version-check", distribution]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=INDEX_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return None, f"the package index did not answer within {INDEX_TIMEOUT_S:g} s"
    except OSError as error:
        return None, f"cannot run pip ({error})"
    for line in done.stdout.splitlines():
        if line.startswith("Available versions:"):
            return final_versions(v.strip() for v in line.partition(":")[2].split(",")), ""
    last = (done.stderr.strip().splitlines() or ["no version list in pip's answer"])[-1]
    return None, f"the package index did not list {distribution}: {last}"


def _remember(path: Path, versions: tuple[str, ...]) -> None:
    write_quietly(path, json.dumps({"versions": list(versions)}))


def _recall(path: Path) -> tuple[str, ...] | None:
    """The remembered list; None when it is missing, not a regular file (a FIFO is removed, never waited on) or not one."""
    raw = read_cache_entry(path)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    versions = data.get("versions") if isinstance(data, dict) else None
    if not isinstance(versions, list) or not all(isinstance(v, str) for v in versions):
        return None
    return final_versions(versions)


def select_releases(versions: tuple[str, ...], since: str | None, until: str | None, *, per_series: bool = False) -> tuple[str, ...]:
    """The releases from ``since`` to ``until`` (both inclusive; None: open), oldest first.

    With ``per_series``, only the newest release of each minor series (``0.35.2`` for 0.35.x) in that range.
    """
    low = version_key(since) if since else None
    high = version_key(until) if until else None
    chosen = [v for v in versions if (low is None or Version(v) >= low) and (high is None or Version(v) <= high)]
    if per_series:
        newest: dict[tuple[int, ...], str] = {}
        for version in chosen:
            series = Version(version).release[:2]
            if series not in newest or Version(version) > Version(newest[series]):
                newest[series] = version
        chosen = [v for v in chosen if newest[Version(v).release[:2]] == v]
    return tuple(chosen)

"""Result cache for clean checks: a warm ``infralens check`` that costs little more than ``--version``.

A check's result is a function of its inputs: the lock, the annotation files, the upstream files
and the installed distributions' metadata (plus the interpreter, its ``sys.path`` and the
options). After a *clean* check, the size, modification time and SHA-256 of every one of those
files is stored under a key made of everything else. The next run with the same key trusts a file
whose size and mtime are unchanged and that is older than the entry (the "racy" window is
re-hashed, as git does with its index) and hashes any other; if all match and no annotation file
appeared or vanished, it prints the stored report. Anything different runs the full check. Drift is
never served from this cache. Only builtin modules load on a hit (no hashlib, json or dataclasses).
"""

from __future__ import annotations

import marshal
import os
import sys
import time
import zlib
from typing import TYPE_CHECKING

from infralens.cachedir import cache_root, read_cache_entry, read_regular
from infralens.drift.request import CheckRequest, OutputFormat

if TYPE_CHECKING:
    from pathlib import Path

    from infralens.drift.check import CheckReport
    from infralens.resolve import Resolver

FORMAT = 3  # 3: the github output names paths from the git repository root
RACY_NS = 2_000_000_000
"""Files modified less than this before the entry was written are always re-hashed."""


def _cache_dir() -> str:
    return os.path.join(cache_root(), "check-v2")


def _key(request: CheckRequest, version: str) -> str:
    options = (request.project, sorted(request.sources), bool(request.strict))
    material = repr((FORMAT, version, sys.version, sys.executable, sys.path, os.getcwd(), *options)).encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(material):08x}{zlib.adler32(material):08x}{len(material):x}"


def _digest(path: str) -> str | None:
    """SHA-256 of a regular file; None for anything else (a FIFO is never opened for a blocking read)."""
    from infralens.hashing import sha256_bytes

    try:
        return sha256_bytes(read_regular(path))
    except OSError:
        return None


def _yaml_files(folder: str) -> list[str] | None:
    """The annotation files and linked folders (which the full check reports), in walk order; None when a folder is
    nested too deep (the full check names it)."""
    from infralens.bounds import FolderTooDeep, walk

    found: list[str] = []
    try:
        for dirpath, _, filenames in walk(folder):
            paths = (os.path.join(dirpath, f) for f in filenames)
            found.extend(path for path in paths if path.endswith((".yaml", ".yml")) or os.path.isdir(path))
    except FolderTooDeep:
        return None
    return found


def usable(request: CheckRequest) -> bool:
    """Whether a check with these options may be answered from (and stored in) the cache."""
    plain = not request.against and not request.ids and not request.everything and not request.explain
    return request.format in (OutputFormat.TEXT, OutputFormat.GITHUB) and plain and request.use_cache


def try_cached(request: CheckRequest, version: str) -> str | None:
    """The stored report if every input is unchanged since the last clean check, else None."""
    raw = read_cache_entry(os.path.join(_cache_dir(), f"{_key(request, version)}.bin"))
    if raw is None:
        return None
    try:
        entry = marshal.loads(raw)
        if entry["format"] != FORMAT or _yaml_files(entry["annotations_dir"]) != entry["annotation_files"]:
            return None
        trusted_before = entry["written_ns"] - RACY_NS
        for path, size, mtime_ns, digest in entry["files"]:
            stat = os.stat(path)
            if stat.st_size != size:  # changed: never hashed (a huge or sparse file planted there is not even read)
                return None
            if stat.st_mtime_ns == mtime_ns and mtime_ns < trusted_before:
                continue
            if _digest(path) != digest:
                return None
        return entry["output"][request.format.value]
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        return None


def store(request: CheckRequest, version: str, *, lock_path: Path, annotations_dir: Path, upstream: list[str], outputs: dict[OutputFormat, str]) -> None:
    """Remember a clean check (best effort: an unwritable cache only costs speed)."""
    from infralens.atomic import write_quietly  # here, not above: a cache hit loads only builtin modules

    annotation_files = _yaml_files(str(annotations_dir))
    if annotation_files is None:
        return
    files = []
    for path in [str(lock_path), *annotation_files, *upstream]:
        try:
            stat = os.stat(path)
        except OSError:
            return
        digest = _digest(path)
        if digest is None:
            return
        files.append((path, stat.st_size, stat.st_mtime_ns, digest))
    entry = {
        "format": FORMAT,
        "written_ns": time.time_ns(),
        "annotations_dir": str(annotations_dir),
        "annotation_files": annotation_files,
        "files": files,
        "output": {fmt.value: text for fmt, text in outputs.items()},
    }
    write_quietly(os.path.join(_cache_dir(), f"{_key(request, version)}.bin"), marshal.dumps(entry))


def upstream_files(report: CheckReport, resolver: Resolver) -> list[str] | None:
    """Absolute paths of the upstream files a check read, plus each installed distribution's METADATA.

    None when a tree is not a plain directory (a wheel): such checks are not cached.
    """
    import importlib.metadata

    from infralens.source import DirectoryTree, InstalledTree

    paths: set[str] = set()
    for checked in report.trees:
        tree = resolver.tree(checked.distribution)
        if not isinstance(tree, DirectoryTree):
            return None
        for entry in report.lock.annotations.values():
            if entry.distribution == checked.distribution:
                paths.add(str(tree.root / entry.relpath))
        for step in report.lock.steps.values():
            if step.distribution == checked.distribution:
                paths.add(str(tree.root / step.relpath))
        if isinstance(tree, InstalledTree):
            try:
                dist = importlib.metadata.distribution(checked.distribution)
            except importlib.metadata.PackageNotFoundError:
                return None
            info = getattr(dist, "_path", None)
            if info is None:
                return None
            paths.add(os.path.join(str(info), "METADATA"))
    return sorted(paths)

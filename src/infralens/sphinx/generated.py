"""The folder that receives generated pages: where it may be, and writing it without harming anything else.

``infralens_generated_dir`` must name a folder strictly inside the source dir. The extension keeps a
marker file there (:data:`MARKER`) listing every file it wrote, and only ever removes files that
list names. A folder that is the source dir, contains it, lies outside it, or already holds files
the extension did not write is refused with a :class:`~sphinx.errors.ConfigError`, and nothing is
written or removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from sphinx.errors import ConfigError

from infralens.atomic import write_bytes, write_text

MARKER = ".infralens-generated"
"""File in the generated folder that lists the files the extension wrote there."""

_MARKER_HEADER = "# Written by infralens.sphinx (infralens_generated_dir). Only the files listed here are ever removed.\n"
_SHOWN_FOREIGN = 3


def output_dir(srcdir: Path, generated_dir: str) -> Path:
    """The absolute generated folder; :class:`ConfigError` unless it lies strictly inside ``srcdir``."""
    source = srcdir.resolve()
    out = (source / generated_dir).resolve()
    if out == source:
        problem = "is the source dir itself"
    elif source.is_relative_to(out):
        problem = "contains the source dir"
    elif not out.is_relative_to(source):
        problem = f"is outside the source dir {source}"
    else:
        return out
    raise ConfigError(
        f"infralens_generated_dir = {generated_dir!r} {problem}: generated pages would be written over, and stale ones "
        f"removed from, files that are not the extension's. Set infralens_generated_dir in conf.py to a new folder "
        f"inside the source dir (the default is '_infralens'). Nothing was written or removed."
    )


def write_generated(out: Path, files: Mapping[str, bytes], setting: str) -> list[Path]:
    """Make ``out`` hold exactly ``files`` (relative POSIX path → bytes) among the files the extension wrote.

    Files are written only when their bytes change, so incremental builds stay incremental, and each whole or not
    at all (:mod:`infralens.atomic`). Files
    a previous build wrote and this one does not are removed; nothing else ever is. Returns the
    files written. ``setting`` is the configured value, named in errors.
    """
    previous = _owned_files(out, files, setting)
    wanted = set(files)
    _write_marker(out, previous | wanted)  # first, so an interrupted build still knows what it wrote
    written = []
    for relpath, data in files.items():
        path = out / relpath
        if not path.is_file() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes(path, data)
            written.append(path)
    for relpath in sorted(previous - wanted, reverse=True):
        _remove(out, out / relpath)
    _write_marker(out, wanted)
    return written


def remove_generated(srcdir: Path, generated_dir: str) -> list[str]:
    """Generation is off: remove every file an earlier build generated (as its marker lists them), so none stays published.

    Returns the documents removed (``_infralens/verified``, …), whose built pages must go too. A folder
    without the marker is left alone: nothing in it is known to be the extension's.
    """
    try:
        out = output_dir(srcdir, generated_dir)
    except ConfigError:
        return []  # such a folder was never written to
    marker = out / MARKER
    if not marker.is_file() or marker.is_symlink():
        return []
    listed = sorted({line for line in marker.read_text("utf-8").splitlines() if _is_relative_path(line)}, reverse=True)
    for relpath in listed:
        _remove(out, out / relpath)
    marker.unlink()
    if out.is_dir() and not any(out.iterdir()):
        out.rmdir()
    prefix = out.relative_to(srcdir.resolve()).as_posix()
    return [f"{prefix}/{relpath[: -len('.md')]}" for relpath in listed if relpath.endswith(".md")]


def _owned_files(out: Path, files: Mapping[str, bytes], setting: str) -> set[str]:
    """The files the extension wrote into ``out`` earlier; :class:`ConfigError` if ``out`` holds anyone else's."""
    if not out.exists():
        return set()
    if not out.is_dir():
        raise ConfigError(f"infralens_generated_dir = {setting!r} is a file, not a folder: {out}. Choose a new folder name for generated pages.")
    marker = out / MARKER
    if marker.is_file():
        return {line for line in marker.read_text("utf-8").splitlines() if _is_relative_path(line)}
    present = {path.relative_to(out).as_posix() for path in out.rglob("*") if not path.is_dir()}
    foreign = sorted(present - set(files))
    if foreign:
        shown = ", ".join(foreign[:_SHOWN_FOREIGN]) + (f" and {len(foreign) - _SHOWN_FOREIGN} more" if len(foreign) > _SHOWN_FOREIGN else "")
        raise ConfigError(
            f"infralens_generated_dir = {setting!r} names {out}, which already holds files the extension did not write "
            f"({shown}) and has no {MARKER} marker. Set infralens_generated_dir in conf.py to a new folder inside the "
            f"source dir, or delete {out} if it only holds pages an older InfraLens generated. Nothing was written or removed."
        )
    return present  # an unmarked folder of exactly the pages this build writes: an older build's output


def _is_relative_path(line: str) -> bool:
    path = PurePosixPath(line)
    return bool(line) and not line.startswith("#") and not path.is_absolute() and ".." not in path.parts


def _write_marker(out: Path, relpaths: set[str]) -> None:
    text = _MARKER_HEADER + "".join(f"{relpath}\n" for relpath in sorted(relpaths))
    marker = out / MARKER
    if not marker.is_file() or marker.read_text("utf-8") != text:
        out.mkdir(parents=True, exist_ok=True)
        write_text(marker, text)


def _remove(out: Path, path: Path) -> None:
    """Remove one stale generated file, then its folders up to ``out`` while they are empty."""
    if not path.parent.resolve().is_relative_to(out):
        return  # a folder the user linked in from elsewhere: not ours to clear
    if path.is_symlink() or path.is_file():
        path.unlink()
    folder = path.parent
    while folder != out and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent

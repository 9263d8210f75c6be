"""Where a write goes: one policy for every path InfraLens is asked to write.

The path is looked at with ``lstat`` and ``stat`` only, never opened, so a FIFO cannot block the run.

======================================================  ==========================================================
The path is                                              What a write does
======================================================  ==========================================================
missing                                                  creates a regular file there (and the folders it needs)
a regular file                                           replaces it atomically
a folder, FIFO, socket, character or block device        refused: nothing is opened, nothing is replaced
a symbolic link to a regular file, or to a missing       written through: the target is replaced atomically (its
file whose folder exists, inside the boundary            temporary file beside it), and the link stays a link
a symbolic link that leads outside the boundary, to      refused
anything but a regular file, or that cannot be followed
``-`` (outputs only, see :mod:`.outputs`)                written to standard output
======================================================  ==========================================================

The folders on the way count too: a path inside the project (or, for any write, inside the working folder)
must still be inside it once every symbolic link among its folders is followed, so a linked folder planted in a
checkout (``reports -> /elsewhere``, ``annotations/shared -> /elsewhere``) cannot carry a write out of it.

The boundary a link may lead into: the project root (:func:`write_target`'s ``within``) for a link inside the
project — the project's own files (annotations, the lock, lab pages) and outputs the command knows are in it —
and otherwise the folder that holds the link. So a link planted in a checkout can never make InfraLens
replace a file of the user's elsewhere, nor ``/dev/null`` or a terminal standing behind ``/dev/stdout``.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from infralens.bounds import leads_outside
from infralens.errors import printable_line
from infralens.userfiles.problems import UserFileError

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
"""What a path that is not a regular file is, in the words of the error."""


class Placement(Enum):
    """What stands at the named path before the write."""

    NEW = "new"
    """Nothing: the write creates a regular file."""
    REGULAR = "regular"
    """A regular file: it is replaced."""
    THROUGH_LINK = "through-link"
    """A symbolic link inside the boundary: its target is written, the link stays."""


@dataclass(frozen=True)
class WriteTarget:
    """Where one write goes."""

    named: Path
    """The path as the user or the project named it (what messages show)."""
    real: Path
    """The file that is replaced: the named path, or a link's target."""
    placement: Placement


def write_target(path: Path, *, within: Path | None = None, output: bool = False) -> WriteTarget:
    """Where writing ``path`` goes, or :class:`UserFileError` when the policy above refuses it.

    ``within``: the project root, which a symbolic link inside it may lead anywhere into (a link elsewhere may lead
    only into its own folder).
    ``output``: the path was named on the command line (the advice of a refusal mentions ``-``).
    """
    named = Path(path)
    escape = _folder_escape(named, within)
    if escape:
        raise _refused(named, escape, output, link=True)
    try:
        info = os.lstat(named)
    except FileNotFoundError:
        return WriteTarget(named, named, _new_file(named, named, output))
    except OSError as error:
        raise _refused(named, f"cannot be examined ({error.strerror or error})", output) from None
    if stat.S_ISREG(info.st_mode):
        return WriteTarget(named, named, Placement.REGULAR)
    if not stat.S_ISLNK(info.st_mode):
        raise _refused(named, f"is {_kind(info.st_mode)}, not a regular file", output)
    return _through_link(named, within, output)


def _folder_escape(named: Path, within: Path | None) -> str:
    """Why the folder ``named`` sits in leaves the project (or the working folder) through a linked folder, or ""."""
    folder = Path(os.path.abspath(named.parent))
    for boundary, name in ((within, "the project"), (Path.cwd(), "the working folder")):
        if boundary is None:
            continue
        given = Path(os.path.abspath(boundary))
        if folder != given and given not in folder.parents:
            continue
        if leads_outside(folder, given):
            return f"is in the folder {folder}, which a symbolic link leads to {os.path.realpath(folder)}, outside {name}"
        return ""
    return ""


def _through_link(named: Path, within: Path | None, output: bool) -> WriteTarget:
    real = Path(os.path.realpath(named))
    folder = Path(os.path.realpath(named.parent))
    root = Path(os.path.realpath(within)) if within is not None else None
    inside = root is not None and (folder == root or root in folder.parents)
    boundary = root if inside and root is not None else folder
    if real != boundary and boundary not in real.parents:
        where = "the project" if inside else f"its folder {boundary}"
        raise _refused(named, f"is a symbolic link to {real}, outside {where}", output, link=True)
    try:
        info = os.stat(real)
    except FileNotFoundError:
        return WriteTarget(named, real, _new_file(named, real, output, link=True))
    except OSError as error:  # a loop, a permission problem on the way
        raise _refused(named, f"is a symbolic link that cannot be followed ({error.strerror or error})", output, link=True) from None
    if not stat.S_ISREG(info.st_mode):
        raise _refused(named, f"is a symbolic link to {real}, which is {_kind(info.st_mode)}", output, link=True)
    return WriteTarget(named, real, Placement.THROUGH_LINK)


def _new_file(named: Path, real: Path, output: bool, *, link: bool = False) -> Placement:
    """A file to create at ``real`` (its folders are made), or through a link, whose target's folder must exist."""
    if link and not real.parent.is_dir():
        raise _refused(named, f"is a symbolic link to {real}, whose folder does not exist", output, link=True)
    return Placement.THROUGH_LINK if link else Placement.NEW


def _kind(mode: int) -> str:
    return next((word for test, word in _KINDS if test(mode)), "not a regular file")


def _refused(named: Path, problem: str, output: bool, *, link: bool = False, advice: str = "") -> UserFileError:
    if not advice:
        if output:
            advice = "name a regular file, or '-' for standard output"
        else:
            advice = "replace the link with the file itself, or with a link to a file inside the project" if link else "replace it with a regular file"
    shown = printable_line(str(named))
    return UserFileError(f"{shown}: {printable_line(problem)}; nothing was written — {advice}", path=named, reason=problem, refused=True)

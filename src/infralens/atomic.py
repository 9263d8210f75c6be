"""Layer 0, atomic: the one way InfraLens puts a file or a folder in place, whole or not at all.

Every write goes the same way: the new bytes go to a temporary file beside the target (same folder, so the
rename cannot cross a file system), named ``.NAME.<random>.tmp``, flushed and fsync'ed; then ``os.replace``
puts it in place. A reader sees the old file or the new one, never a truncated one, and on every error path
(a full disk, a failing fsync, a refused rename, Ctrl-C) the temporary file is removed and the old file is
left as it was. :func:`write_bytes` and :func:`write_text` do that for one file; :func:`write_quietly` is the
same for a cache entry (without the fsync), where any :class:`OSError` only costs the next run the work the entry saved;
:func:`replace_dir` builds a folder beside the target and swaps it in.

:func:`stage` and :func:`replace` are the two halves, for :mod:`infralens.userfiles`, which stages several files
and compares each again before replacing it (its expect/undo sits on top of these). :func:`stage` holds Ctrl-C
and SIGTERM back (:func:`interrupts_held`) from before the temporary file exists until its name is in the
caller's list, so an interrupt can never leave a file nobody knows about.

This is the only module that calls ``os.replace`` (``tests/unit/test_atomic.py`` injects each error).
May import: the standard library only (``shutil`` only when a folder is replaced), so the warm ``check`` path
and the lab starters can use it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
from collections.abc import Callable, Iterator

TEMPORARY_SUFFIX = ".tmp"
_ATTEMPTS = 100


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is over, then arrive as usual (where ``pthread_sigmask`` exists)."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    previous = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)  # a held signal is delivered here, once the block's work is registered


def is_temporary_name(target: str | os.PathLike[str], candidate: str | os.PathLike[str]) -> bool:
    """Whether ``candidate`` is named the way :func:`stage` names a temporary file for ``target`` and sits beside it."""
    folder, name = os.path.split(os.fspath(target))
    other_folder, other = os.path.split(os.fspath(candidate))
    return other_folder == folder and other.startswith(f".{name}.") and other.endswith(TEMPORARY_SUFFIX)


def _temporary_name(target: str) -> str:
    folder, name = os.path.split(target)
    return os.path.join(folder, f".{name}.{os.urandom(6).hex()}{TEMPORARY_SUFFIX}")


def _existing_mode(path: str) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def stage(target: str | os.PathLike[str], data: bytes, mode: int | None, staged: list[str], *, sync: bool = True) -> str:
    """A temporary file beside ``target`` holding ``data``, flushed to disk (``sync``: and fsync'ed); returns its name.

    ``mode``: its permission bits (``None``: the umask's default). The name is appended to ``staged`` before
    anything can interrupt, and the caller's ``finally`` removes what it still lists (:func:`discard`).
    """
    path = os.fspath(target)
    with interrupts_held():
        for _ in range(_ATTEMPTS):
            temporary = _temporary_name(path)
            try:
                handle = os.open(
                    temporary,
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0),
                    0o600 if mode is not None else 0o666,
                )
            except FileExistsError:
                continue
            staged.append(temporary)
            break
        else:
            raise FileExistsError(f"no free temporary name beside {path}")
    with open(handle, "wb") as stream:
        stream.write(data)
        stream.flush()
        if mode is not None:
            os.chmod(temporary, mode)
        if sync:
            os.fsync(stream.fileno())
    return temporary


def replace(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Rename ``source`` over ``target`` in one step (both on one file system): the project's one ``os.replace``."""
    os.replace(source, target)


def discard(temporary: str | os.PathLike[str]) -> None:
    """Remove a temporary file if it is still there."""
    with contextlib.suppress(OSError):
        os.unlink(temporary)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> None:
    """Put ``data`` at ``path`` whole or not at all; raises :class:`OSError` (nothing changed, nothing left behind).

    ``mode``: the new file's permission bits; ``None`` keeps the old file's, or gives a new file the umask's default.
    The folder must exist.
    """
    _write(os.fspath(path), data, mode, sync=True)


def _write(target: str, data: bytes, mode: int | None, *, sync: bool) -> None:
    staged: list[str] = []
    try:
        temporary = stage(target, data, _existing_mode(target) if mode is None else mode, staged, sync=sync)
        replace(temporary, target)
        staged.remove(temporary)
    finally:
        for leftover in staged:
            discard(leftover)


def write_text(path: str | os.PathLike[str], text: str, *, mode: int | None = None, encoding: str = "utf-8") -> None:
    """:func:`write_bytes` of ``text`` encoded (UTF-8 unless told; newlines are written as given)."""
    write_bytes(path, text.encode(encoding), mode=mode)


def write_quietly(path: str | os.PathLike[str], data: str | bytes) -> bool:
    """:func:`write_bytes` for a cache entry (text is UTF-8), its folder made first; any :class:`OSError` only returns
    ``False`` (an unwritable cache costs speed, never the run). No fsync: every cache entry is checked when it is
    read, so a crash can cost at most one rebuilt entry, and a cold run writes hundreds of them."""
    target = os.fspath(path)
    try:
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        _write(target, data.encode("utf-8") if isinstance(data, str) else data, None, sync=False)
    except OSError:
        return False
    return True


def replace_dir(path: str | os.PathLike[str], build: Callable[[str], None]) -> None:
    """Make the folder ``path`` hold what ``build`` writes into an empty folder, whole or not at all.

    ``build`` fills a new folder beside ``path`` (``.NAME.<random>.tmp``); then that folder takes ``path``'s
    place. An existing ``path`` is first renamed aside, and given back if the swap fails; it is removed once the new
    one is in place. Whatever ``build`` or the swap raises propagates, and the temporary folders are removed.
    """
    import shutil

    target = os.path.abspath(os.fspath(path))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    made: list[str] = []
    try:
        with interrupts_held():
            folder = _new_folder(target, made)
        build(folder)
        if os.path.lexists(target):
            with interrupts_held():
                aside = _new_folder(target, made)
                os.rmdir(aside)  # only its name is wanted: the old folder is renamed to it
            replace(target, aside)
            try:
                replace(folder, target)
            except BaseException:
                made.remove(aside)  # kept if it cannot go back: it is the only copy of the old folder
                replace(aside, target)
                raise
        else:
            replace(folder, target)
    finally:
        for leftover in made:
            with contextlib.suppress(OSError):
                if os.path.isdir(leftover) and not os.path.islink(leftover):
                    shutil.rmtree(leftover)


def _new_folder(target: str, made: list[str]) -> str:
    for _ in range(_ATTEMPTS):
        folder = _temporary_name(target)
        try:
            os.mkdir(folder)
        except FileExistsError:
            continue
        made.append(folder)
        return folder
    raise FileExistsError(f"no free temporary name beside {target}")

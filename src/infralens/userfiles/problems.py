"""The one error of :mod:`infralens.userfiles`: a user's file was not written, and why."""

from __future__ import annotations

from pathlib import Path

from infralens.errors import InfralensError


class UserFileError(InfralensError):
    """A user's file could not be written (read-only, changed meanwhile, not a regular file, disk full); nothing was changed.

    Besides the whole message it carries its parts, so a caller can word the error its own way (the lock does):
    ``path``, ``reason`` (what went wrong, without the path or advice), ``denied`` (making the file or its
    folder writable would fix it) and ``refused`` (the path is not one InfraLens writes: a device, a FIFO, a
    link leading outside; the message already says what to do).
    """

    def __init__(self, message: str, *, path: Path | None = None, reason: str = "", denied: bool = False, refused: bool = False) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason or message
        self.denied = denied
        self.refused = refused

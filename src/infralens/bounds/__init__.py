"""Layer 0, bounds: the one walk over a folder and the one reading of every number and version field.

:mod:`.folders` walks a user's or an upstream folder without recursing and refuses folders nested deeper
than :data:`~.folders.MAX_FOLDER_DEPTH` (never a ``RecursionError``; a symbolic link is never followed, so a
link loop cannot loop). :mod:`.numbers` reads whole numbers and seconds written in plain decimal digits
within bounds (annotation YAML, the lock, CLI options). :mod:`.versions` reads a version: one line, at most
:data:`~.versions.MAX_VERSION_CHARS` safe characters, PEP 440. Each raises its own ``ValueError`` whose
message never repeats unsafe text; callers turn it into their located error.
May import: the standard library and ``packaging`` (nothing of ``infralens``: it is layer 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .folders import MAX_FOLDER_DEPTH as MAX_FOLDER_DEPTH, FolderTooDeep as FolderTooDeep, walk as walk
    from .numbers import (
        BadNumber as BadNumber,
        check_spelling as check_spelling,
        cli_seconds as cli_seconds,
        cli_whole as cli_whole,
        decimal_number as decimal_number,
        seconds as seconds,
        whole_number as whole_number,
    )
    from .versions import (
        MAX_VERSION_CHARS as MAX_VERSION_CHARS,
        VERSION_PATTERN as VERSION_PATTERN,
        BadVersion as BadVersion,
        checked_version as checked_version,
        parsed_version as parsed_version,
        shown_text as shown_text,
    )

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "BadNumber": "numbers",
        "check_spelling": "numbers",
        "cli_seconds": "numbers",
        "cli_whole": "numbers",
        "decimal_number": "numbers",
        "seconds": "numbers",
        "whole_number": "numbers",
        "MAX_VERSION_CHARS": "versions",
        "VERSION_PATTERN": "versions",
        "BadVersion": "versions",
        "checked_version": "versions",
        "parsed_version": "versions",
        "shown_text": "versions",
        "MAX_FOLDER_DEPTH": "folders",
        "FolderTooDeep": "folders",
        "walk": "folders",
    },
)

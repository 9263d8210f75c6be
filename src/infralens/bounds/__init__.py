"""Layer 0, bounds: the one walk over a folder and the one reading of every number and version field.

:mod:`.folders` walks a user's or an upstream folder without recursing and refuses folders nested deeper
than :data:`~.folders.MAX_FOLDER_DEPTH` (never a ``RecursionError``; a symbolic link is never followed, so a
link loop cannot loop). :mod:`.numbers` reads whole numbers and seconds written in plain decimal digits
within bounds (annotation YAML, the lock, CLI options). :mod:`.versions` reads a version: one line, at most
:data:`~.versions.MAX_VERSION_CHARS` safe characters, PEP 440. Each raises its own exception whose
message never repeats unsafe text; callers turn it into their located error.
May import: the standard library and ``packaging`` (nothing else of ``infralens``: it is layer 0). Its modules are
small and import nothing heavy (``packaging`` and ``argparse`` only when used), so ``__init__`` imports them all.
"""

from __future__ import annotations

from infralens.bounds.folders import MAX_FOLDER_DEPTH, FolderTooDeep, leads_outside, walk
from infralens.bounds.numbers import BadNumber, check_spelling, cli_seconds, cli_whole, decimal_number, seconds, whole_number
from infralens.bounds.versions import MAX_VERSION_CHARS, VERSION_PATTERN, BadVersion, checked_version, parsed_version, shown_text

__all__ = [
    "MAX_FOLDER_DEPTH",
    "MAX_VERSION_CHARS",
    "VERSION_PATTERN",
    "BadNumber",
    "BadVersion",
    "FolderTooDeep",
    "check_spelling",
    "checked_version",
    "cli_seconds",
    "cli_whole",
    "decimal_number",
    "leads_outside",
    "parsed_version",
    "seconds",
    "shown_text",
    "walk",
    "whole_number",
]

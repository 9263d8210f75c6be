"""Text for committed files (``review:`` strings, reports, the lock) that names no path of the machine that wrote it.

A source tree describes itself as ``diffusers 0.42.1 (installed at /home/me/.venv/lib/python3.11/site-packages)``;
committed, that path is wrong on every other machine and says who wrote it. :func:`portable` turns such a
description into ``diffusers==0.42.1`` and any other absolute path into the part that means something elsewhere:
the path inside ``site-packages``, ``<tmp>/…`` for the temporary folder, or the file's own name.
:func:`machine_paths` finds what is left, for the test that scans the committed files.
"""

from __future__ import annotations

import re
import tempfile

_PATH_CHARS = r"[^\s'\"()<>\[\]{},;|`]"
_ABSOLUTE = re.compile(rf"(?<![\w.:/<~])(?:/(?:{_PATH_CHARS}+/)*{_PATH_CHARS}+|[A-Za-z]:\\{_PATH_CHARS}*)")
"""An absolute POSIX path (``/home/me/x.py``) or a Windows drive path, as it appears inside a message."""

_DESCRIBED = re.compile(r"(?P<dist>[A-Za-z0-9][A-Za-z0-9._-]*) (?P<version>\d[\w.+!-]*) \((?P<origin>(?:installed at )?(?:/|[A-Za-z]:\\)[^()]*)\)")
"""``NAME VERSION (ORIGIN)``: how a source tree describes itself when its origin is a path of this machine."""

_MACHINE_ROOTS = ("/home/", "/tmp/", "/work/", "/usr/", "/root/", "/opt/", "/var/", "/Users/", "/private/", "/mnt/", "/srv/")
_PACKAGE_FOLDERS = ("site-packages", "dist-packages")


def portable(text: str) -> str:
    """*text* with every machine path replaced: a tree's description by ``dist==version``, other paths by
    :func:`portable_path`."""
    text = _DESCRIBED.sub(lambda m: f"{m['dist']}=={m['version']}", text)
    return _ABSOLUTE.sub(lambda m: portable_path(m.group(0)) if _is_machine_path(m.group(0)) else m.group(0), text)


def portable_path(path: str) -> str:
    """One absolute path as a committed file may show it: from ``site-packages`` on, ``<tmp>/…``, or its last part."""
    parts = re.split(r"[/\\]+", path)
    for folder in _PACKAGE_FOLDERS:
        if folder in parts:
            return "/".join(parts[parts.index(folder) :])
    temporary = tempfile.gettempdir().rstrip("/")
    for root in {temporary, "/tmp"}:
        if path == root or path.startswith(root + "/"):
            return "<tmp>" + path[len(root) :]
    return next((part for part in reversed(parts) if part), path)


def machine_paths(text: str) -> list[str]:
    """Every absolute path of a machine left in *text* (under a usual root such as ``/home`` or ``/tmp``, or any path
    through ``site-packages``)."""
    return [m.group(0) for m in _ABSOLUTE.finditer(text) if _is_machine_path(m.group(0))]


def _is_machine_path(path: str) -> bool:
    if re.match(r"[A-Za-z]:\\", path):
        return True
    return path.startswith(_MACHINE_ROOTS) or any(f"/{folder}" in path for folder in _PACKAGE_FOLDERS)

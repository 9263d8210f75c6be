"""Source trees for ``--against``: a release from the registry, a wheel file or a directory.

``DIST==X.Y.Z`` downloads that release's wheel with pip (``--no-deps
--only-binary :all:``: wheels only, never an sdist, so nothing is built or run)
into ``<cache>/wheels`` and reads it as a zip; nothing is installed or imported. A cached wheel
that does not read as a zip (a download cut short, a file damaged since) is deleted and fetched again;
where it cannot be, messages name the cached file and say to delete it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from infralens.atomic import replace
from infralens.bounds import BadVersion, checked_version
from infralens.errors import InfralensError, SourceNotFoundError
from infralens.source.cache import default_cache_dir
from infralens.source.distributions import DirectoryTree, SourceTree, WheelTree, canonical_name
from infralens.stops import end_processes, sigterm_interrupts

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9][A-Za-z0-9.+!_-]*)$")
PIP_COMMAND: tuple[str, ...] = (sys.executable, "-m", "pip")
PIP_TIMEOUT_S: float = 300
STOP_GRACE_S = 1.0
"""Seconds pip gets to exit after SIGTERM before it is killed."""


def wheel_cache_dir() -> Path:
    return default_cache_dir() / "wheels"


def cached_wheel(distribution: str, version: str, folder: Path | None = None) -> Path | None:
    """A wheel of exactly ``distribution==version`` already in the cache, if any (readable or not: see :func:`wheel_problem`)."""
    folder = folder or wheel_cache_dir()
    if not folder.is_dir():
        return None
    wanted = canonical_name(distribution)
    for path in sorted(folder.glob("*.whl")):
        parts = path.name.split("-")
        if len(parts) >= 5 and canonical_name(parts[0]) == wanted and parts[1] == version and not path.is_symlink() and path.is_file():
            return path  # a FIFO or folder named like a wheel is not one (and must never be opened)
    return None


def wheel_problem(path: Path) -> str | None:
    """Why the wheel file at ``path`` cannot be read (not a regular file, not a zip archive), or None.

    Checked without opening anything but a regular file, so a FIFO named like a wheel never blocks.
    """
    try:
        mode = path.lstat().st_mode
    except OSError as error:
        return f"cannot read it ({error.strerror or error})"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    try:
        with zipfile.ZipFile(path) as archive:
            archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        return f"not a zip archive ({error})"
    return None


def unreadable_cached_wheel(path: Path, problem: str) -> str:
    """The message for a cached download that cannot be read: which file, and to delete it."""
    return f"the cached wheel {path} is not a readable wheel ({problem}); it is a cached download: delete it and run again to fetch it anew"


def _discard(path: Path) -> None:
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def fetch_wheel(distribution: str, version: str, folder: Path | None = None) -> Path:
    """The wheel of ``distribution==version``, downloaded with pip into the cache on first use.

    pip writes into a temporary folder inside the cache; only a complete wheel (pip succeeded
    and the file reads as a zip) is moved into place. Ctrl-C or SIGTERM stops pip and removes
    the temporary folder.
    """
    try:
        checked_version(version)  # never hand pip a 5,000-digit or multi-line version
    except BadVersion as error:
        raise SourceNotFoundError(f"cannot download a wheel of {distribution}: {error}") from None
    folder = folder or wheel_cache_dir()
    found = cached_wheel(distribution, version, folder)
    if found is not None:
        if wheel_problem(found) is None:
            return found
        _discard(found)  # a damaged download: fetch it anew
    folder.mkdir(parents=True, exist_ok=True)
    release = f"{distribution}=={version}"
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as tmp:
        command = [
            *PIP_COMMAND,
            "download",
            "--no-deps",
            "--only-binary",
            ":all:",
            "--disable-pip-version-check",
            "--quiet",
            "--dest",
            tmp,
            release,
        ]
        returncode, stderr = _run_pip(command, release, os.path.join(tmp, ".pip-tmp"))
        wheels = [path for path in sorted(Path(tmp).glob("*.whl")) if zipfile.is_zipfile(path)]
        if returncode != 0 or not wheels:
            last = (stderr.strip().splitlines() or ["pip found no wheel"])[-1]
            raise SourceNotFoundError(f"cannot download a wheel of {release}: {last} — check the version, or pass a wheel file or directory to --against")
        target = folder / wheels[0].name
        replace(wheels[0], target)  # from the download folder, inside ``folder``: one rename
        return target


def _run_pip(command: list[str], release: str, scratch: str) -> tuple[int, str]:
    """pip's exit code and stderr; on a timeout, Ctrl-C or SIGTERM pip is stopped before this returns.

    pip's own temporary folders (``pip-download-*``, ``pip-unpack-*``) go under ``scratch``, inside the
    download folder, so a pip that is killed leaves nothing in the system's temporary folder.
    """
    os.makedirs(scratch, exist_ok=True)
    environment = {**os.environ, "TMPDIR": scratch, "TEMP": scratch, "TMP": scratch}
    with sigterm_interrupts():
        try:
            pip = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
        except OSError as error:
            raise SourceNotFoundError(f"cannot run pip to download {release}: {error}") from error
        try:
            _, stderr = pip.communicate(timeout=PIP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            end_processes([pip], STOP_GRACE_S)
            raise SourceNotFoundError(
                f"pip timed out after {PIP_TIMEOUT_S:g} s downloading {release}; nothing was cached — try again, or pass a wheel file or directory to --against"
            ) from None
        except BaseException:  # KeyboardInterrupt (Ctrl-C or SIGTERM): pip must not outlive us
            end_processes([pip], STOP_GRACE_S)
            raise
    return pip.returncode, stderr


def open_against(spec: str, known: set[str]) -> SourceTree:
    """A source tree from ``DIST==VERSION``, ``[DIST=]path/to.whl`` or ``[DIST=]path/to/dir``.

    ``known`` are the distributions in the lock; a directory's distribution is
    guessed among them when ``DIST=`` is not given.
    """
    spec = spec.strip()
    pin = _PIN.match(spec)
    if pin:
        try:
            checked_version(pin.group(2))
        except BadVersion as error:
            raise InfralensError(f"--against {pin.group(1)}==…: {error}") from None
        if canonical_name(pin.group(1)) not in {canonical_name(k) for k in known}:
            raise InfralensError(f"--against {spec}: the lock has no annotations on {pin.group(1)} (it has: {', '.join(sorted(known)) or 'none'})")
        wheel = fetch_wheel(pin.group(1), pin.group(2))
        try:
            return WheelTree(wheel)
        except SourceNotFoundError as error:  # damaged after the check above, or in a way it cannot see
            raise SourceNotFoundError(f"--against {spec}: {unreadable_cached_wheel(wheel, str(error))}") from None
    name, sep, path = spec.partition("=")
    if not sep or "/" in name or name.endswith(".whl"):
        name, path = "", spec
    if path.endswith(".whl"):
        return WheelTree(Path(path))
    folder = Path(path)
    if not folder.is_dir():
        raise SourceNotFoundError(f"--against {spec}: expected DIST==VERSION, a .whl file or a directory")
    package = _package_folder(folder, [name] if name else sorted(known))
    if package is not None:  # the package itself (…/diffusers, with __init__.py): its parent is the tree's root
        name, folder = name or package, folder.parent
    if not name:
        roots = (folder, folder / "src")
        matches = [d for d in sorted(known) if any((root / d.replace("-", "_")).is_dir() for root in roots)]
        if len(matches) != 1:
            raise InfralensError(f"--against {spec}: cannot tell which distribution this directory holds; write DIST={spec}")
        name = matches[0]
    return DirectoryTree(folder, name)


def _package_folder(folder: Path, candidates: list[str]) -> str | None:
    """The distribution whose top-level package ``folder`` is (named like it, with ``__init__.py``), if any."""
    for candidate in candidates:
        package = candidate.replace("-", "_").lower()
        if folder.name.lower() == package and (folder / "__init__.py").is_file() and not (folder / package).is_dir():
            return candidate
    return None

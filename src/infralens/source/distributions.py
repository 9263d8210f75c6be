"""Find upstream source files without importing upstream code.

Three kinds of source trees, one interface (:class:`SourceTree`):

* :class:`InstalledTree` — an installed distribution, located through ``importlib.metadata`` (or ``find_spec`` of the
  *top-level* package only, which locates it without running its ``__init__``);
* :class:`WheelTree` — a ``.whl`` file read as a zip archive;
* :class:`DirectoryTree` — a directory holding the package (``src/`` layout or a site-packages-like folder).

Paths are checked so nothing outside the tree is ever read, and every read is bounded: sizes are checked before a
byte is read or decompressed, and only regular files are opened.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import posixpath
import re
import stat
import zipfile
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterator
from email.parser import HeaderParser
from functools import cached_property
from pathlib import Path

from infralens.bounds import BadVersion, FolderTooDeep, checked_version, walk
from infralens.errors import SourceNotFoundError, UnsafePathError
from infralens.hashing import sha256_bytes, sha256_text
from infralens.source.models import SourceFile
from infralens.source.packages import (
    MODULE_PART as _MODULE_PART,
    canonical_name,
    package_names,
    package_root,
    packages_from_record as _packages_from_record,
    static_version,
    upstream_version,
    version_from_dist_info_dir,
)

MAX_SOURCE_BYTES = 2_000_000
"""Largest source file read. The largest ``.py`` in diffusers 0.42.1 is 327 KB
(``loaders/lora_pipeline.py``) and in diffsynth 2.1.12 239 KB, so 2 MB leaves a 6x margin
while bounding libcst (about 800 bytes of memory per source byte: a 7.9 MB file took 6.35 GB)."""

MAX_METADATA_BYTES = 1_000_000
"""Largest wheel ``METADATA`` read (diffsynth's, long description included, is 176 KB)."""

_DAMAGED_ENTRY = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError, OSError)


UNKNOWN_VERSION = "unknown"
"""The version of a tree whose release nothing names: no metadata, no ``__version__``, none given."""


def check_relpath(relpath: str) -> str:
    """Reject absolute paths, drive letters, backslashes and ``..`` segments."""
    if not relpath or relpath.startswith(("/", "\\")) or "\\" in relpath or re.match(r"^[A-Za-z]:", relpath):
        raise UnsafePathError(f"unsafe path {relpath!r}: paths must be relative POSIX paths inside the distribution")
    parts = relpath.split("/")
    if any(part in ("..", "") for part in parts) or "\x00" in relpath:
        raise UnsafePathError(f"unsafe path {relpath!r}: '..' or empty segments are not allowed")
    return posixpath.normpath(relpath)


def too_large(what: str, cap: int) -> SourceNotFoundError:
    return SourceNotFoundError(f"{what}: larger than {cap} bytes; not read")


def module_candidates(module: str) -> tuple[str, str]:
    """The two files a dotted module name can live in."""
    parts = module.split(".")
    if not all(_MODULE_PART.match(p) for p in parts):
        raise UnsafePathError(f"{module!r} is not a dotted module name")
    base = "/".join(parts)
    return (f"{base}.py", f"{base}/__init__.py")


def module_name_of(relpath: str) -> str:
    """``a/b/c.py`` → ``a.b.c``; ``a/b/__init__.py`` → ``a.b``."""
    parts = (relpath[:-3] if relpath.endswith(".py") else relpath).split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def decode_source(data: bytes, relpath: str) -> str:
    """Decode Python source bytes, honouring a PEP 263 coding line (utf-8 by default)."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise SourceNotFoundError(f"{relpath}: not decodable as Python source ({error})") from error


class SourceTree(ABC):
    """Read-only view of one distribution's Python files."""

    distribution: str
    version: str
    origin: str
    kind = "directory"
    """What the tree is read from: ``installed``, ``wheel`` or ``directory`` (recorded in the lock)."""

    def content_sha256(self) -> str:
        """One hash of every Python file's path and bytes: the same sources give the same hash, wherever they are read from."""
        return sha256_text("".join(f"{relpath}\t{sha256_bytes(self.read_bytes(relpath))}\n" for relpath in sorted(self.iter_python_files())))

    def listing_key(self) -> str:
        """A key that changes whenever a Python file's path or bytes change (each file's path and :meth:`_stamp`)."""
        return f"{self.kind}:{sha256_text(''.join(f'{relpath}|{self._stamp(relpath)}|' for relpath in self.iter_python_files()))}"

    def _stamp(self, relpath: str) -> str:
        """What tells this file's bytes apart: their hash here; subclasses use what they can read for free."""
        return sha256_bytes(self.read_bytes(relpath))

    @abstractmethod
    def _exists(self, relpath: str) -> bool: ...

    @abstractmethod
    def _read(self, relpath: str) -> bytes: ...

    @abstractmethod
    def iter_python_files(self) -> Iterator[str]:
        """Every ``.py`` file of the distribution's packages, as relpaths."""

    def module_file(self, module: str) -> str | None:
        """The relpath defining ``module``, or ``None``."""
        for candidate in module_candidates(module):
            if self._exists(candidate):
                return candidate
        return None

    def read_bytes(self, relpath: str) -> bytes:
        return self._read(check_relpath(relpath))

    def read_source(self, relpath: str) -> SourceFile:
        """Read and decode one file into a :class:`SourceFile`."""
        data = self.read_bytes(relpath)
        text = decode_source(data, relpath)
        return SourceFile(
            distribution=self.distribution,
            version=self.version,
            relpath=relpath,
            module=module_name_of(relpath),
            text=text,
            sha256=sha256_text(text),
            origin=self.origin,
        )

    def describe(self) -> str:
        return f"{self.distribution} {self.version} ({self.origin})"

    def metadata_text(self) -> str | None:
        """The distribution's ``METADATA`` (its project URLs live there), or None when the tree has none."""
        return None

    @abstractmethod
    def file_on_disk(self, relpath: str) -> Path:
        """The file whose changes change *relpath*: the file itself in a directory, the archive for a wheel."""


class DirectoryTree(SourceTree):
    """Packages in a directory: site-packages, a ``src/`` folder, or an unpacked wheel."""

    def __init__(self, root: str | Path, distribution: str, version: str | None = None, packages: tuple[str, ...] | None = None) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise SourceNotFoundError(f"{root}: not a directory")
        if (self.root / "src").is_dir() and not any((self.root / p).is_dir() for p in (packages or (distribution,))):
            self.root = (self.root / "src").resolve()
        self.distribution = distribution
        self.origin = str(self.root)
        self._packages = package_names(packages) if packages else None
        self.version = version or version_from_dist_info_dir(self.root, distribution) or self._version_from_package() or UNKNOWN_VERSION

    def _version_from_package(self) -> str | None:
        """``__version__`` of the distribution's own package, read from its ``__init__.py`` (never imported).

        Only a package known to be the distribution's counts: the packages given, or the one named like it (never
        whatever other package a shared folder such as site-packages holds).
        """
        guess = self.distribution.replace("-", "_")
        for package in self._packages or ((guess,) if _MODULE_PART.match(guess) and (self.root / guess).is_dir() else ()):
            try:
                text = decode_source(self.read_bytes(f"{package}/__init__.py"), f"{package}/__init__.py")
            except (SourceNotFoundError, UnsafePathError):
                continue
            found = static_version(text)
            if found:
                return found
        return None

    def _inside(self, relpath: str) -> Path:
        try:
            path = (self.root / relpath).resolve()
        except (RuntimeError, OSError) as error:  # a symbolic link loop (Python 3.11 raises RuntimeError)
            raise UnsafePathError(f"{relpath!r} is a symbolic link that loops; not read") from error
        if path != self.root and self.root not in path.parents:
            raise UnsafePathError(f"{relpath!r} resolves outside {self.root} (symlink?)")
        return path

    def file_on_disk(self, relpath: str) -> Path:
        return self._inside(check_relpath(relpath))

    def _exists(self, relpath: str) -> bool:
        """Anything but a directory: a FIFO or device "exists" so that reading it says why it is refused."""
        try:
            return not stat.S_ISDIR(self._inside(check_relpath(relpath)).stat().st_mode)
        except (UnsafePathError, OSError):
            return False

    def _read(self, relpath: str) -> bytes:
        path = self._inside(relpath)
        try:
            kind = _not_regular(path.stat().st_mode)  # never open a FIFO (it blocks) or a device
            if kind:
                raise SourceNotFoundError(f"{relpath}: {kind}, not a regular file; not read")
            descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(descriptor, "rb") as handle:
                opened = os.fstat(handle.fileno())  # the file may have been swapped since the stat
                kind = _not_regular(opened.st_mode)
                if kind:
                    raise SourceNotFoundError(f"{relpath}: {kind}, not a regular file; not read")
                if opened.st_size > MAX_SOURCE_BYTES:
                    raise too_large(relpath, MAX_SOURCE_BYTES)
                data = handle.read(MAX_SOURCE_BYTES + 1)
        except OSError as error:
            raise SourceNotFoundError(f"{path}: cannot read ({error.strerror})") from error
        if len(data) > MAX_SOURCE_BYTES:
            raise too_large(relpath, MAX_SOURCE_BYTES)
        return data

    @cached_property
    def packages(self) -> tuple[str, ...]:
        if self._packages:
            return self._packages
        guess = self.distribution.replace("-", "_")
        if _MODULE_PART.match(guess) and (self.root / guess).is_dir():
            return (guess,)
        return tuple(sorted(p.name for p in self.root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()))

    def iter_python_files(self) -> Iterator[str]:
        """Every regular ``.py`` file of the packages; a folder nested too deep is a :class:`SourceNotFoundError` naming it."""
        for package in self.packages:
            try:
                for dirpath, dirnames, filenames in walk(self.root / package):  # iterative, never into a link
                    dirnames[:] = [d for d in dirnames if d != "__pycache__"]
                    for filename in filenames:
                        if filename.endswith(".py"):
                            full = Path(dirpath) / filename
                            try:
                                if _not_regular(full.lstat().st_mode):
                                    continue  # symlinks, FIFOs, sockets, devices: listed nowhere, opened never
                            except OSError:
                                continue  # vanished since the directory was listed
                            yield full.relative_to(self.root).as_posix()
            except FolderTooDeep as error:
                raise SourceNotFoundError(f"{self.distribution}: {error.describe(str(self.root / package))}") from None

    def _stamp(self, relpath: str) -> str:
        """Size and modification time in nanoseconds, as ``make`` and git's index judge a file unchanged."""
        try:
            info = (self.root / relpath).stat()
        except OSError:
            return "gone"
        return f"{info.st_size}:{info.st_mtime_ns}"

    def metadata_text(self) -> str | None:
        wanted = canonical_name(self.distribution)
        for info in sorted(self.root.glob("*.dist-info")):
            name = info.name[: -len(".dist-info")].partition("-")[0]
            path = info / "METADATA"
            if canonical_name(name) == wanted and path.is_file() and path.stat().st_size <= MAX_METADATA_BYTES:
                return path.read_text("utf-8", errors="replace")
        return None


class InstalledTree(DirectoryTree):
    """An installed distribution, found without importing it."""

    kind = "installed"

    def __init__(self, distribution: str) -> None:
        try:
            dist = importlib.metadata.distribution(distribution)
        except importlib.metadata.PackageNotFoundError:
            dist = None
        packages: tuple[str, ...] = ()
        if dist is not None:
            top_level = dist.read_text("top_level.txt") or ""
            packages = package_names(top_level.splitlines())  # '../x', '/etc', 'a/b' are never followed
            if not packages:
                packages = _packages_from_record(dist)
            root = Path(str(dist.locate_file("")))
            version = upstream_version(dist.version, f"distribution {distribution!r}: its installed METADATA") if dist.version else None
        else:
            root, version = None, None
        guess = distribution.replace("-", "_")
        if not packages:
            packages = (guess,)
        if root is None or not any((root / p).is_dir() for p in packages):
            # Editable or unusual installs: find_spec on the top-level name only. This locates the
            # package without executing its __init__ (no submodule is ever looked up this way).
            spec = importlib.util.find_spec(packages[0]) if _MODULE_PART.match(packages[0]) else None
            locations = list(spec.submodule_search_locations or []) if spec else []
            if not locations:
                raise SourceNotFoundError(
                    f"distribution {distribution!r} is not installed",
                    (),
                )
            root = Path(locations[0]).parent
        super().__init__(root, distribution, version, packages)
        self.origin = f"installed at {self.root}"


_DISTRIBUTION_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?\Z", re.ASCII)
"""A distribution name as PEP 508 spells it (at most 100 characters)."""


def _distribution_name(text: str, where: str) -> str:
    if not _DISTRIBUTION_NAME.match(text):
        raise SourceNotFoundError(f"{where} gives no valid distribution name (letters, digits and . _ -, at most 100 characters); it is not read")
    return text


def _not_regular(mode: int) -> str:
    """What a non-regular file is ("" for a regular file)."""
    if stat.S_ISREG(mode):
        return ""
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISLNK, "a symlink"))
    return next((name for test, name in kinds if test(mode)), "a special file")


class WheelTree(SourceTree):
    """A wheel read as a zip archive: nothing is built, installed or imported."""

    kind = "wheel"

    def file_on_disk(self, relpath: str) -> Path:
        check_relpath(relpath)
        return self.path.resolve()

    def __init__(self, wheel: str | Path) -> None:
        self.path = Path(wheel)
        if not self.path.is_file() or self.path.suffix != ".whl":
            raise SourceNotFoundError(f"{wheel}: not a wheel file (only .whl files are read, never sdists)")
        try:
            self._zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError) as error:
            raise SourceNotFoundError(f"{wheel}: not a readable wheel ({error})") from error
        self._names = {}
        for info in self._zip.infolist():
            try:
                safe = check_relpath(info.filename)
            except UnsafePathError:
                continue  # never follow a traversal entry
            if not info.is_dir():
                self._names[safe] = info
        name, version = self._metadata()
        self.distribution = name
        self.version = version
        self.origin = str(self.path)

    def __reduce__(self) -> tuple[type[WheelTree], tuple[Path]]:
        """A worker process opens the same wheel again (an open archive cannot be sent)."""
        return (WheelTree, (self.path,))

    def metadata_text(self) -> str | None:
        for relpath in self._names:
            if relpath.count("/") == 1 and relpath.endswith(".dist-info/METADATA"):
                return self._read_entry(relpath, MAX_METADATA_BYTES).decode("utf-8", "replace")
        return None

    def _metadata(self) -> tuple[str, str]:
        """The distribution's name and version, from its ``METADATA`` (else the file name), each checked."""
        for relpath in self._names:
            if relpath.count("/") == 1 and relpath.endswith(".dist-info/METADATA"):
                data = self._read_entry(relpath, MAX_METADATA_BYTES)
                headers = HeaderParser().parsestr(data.decode("utf-8", "replace"))
                if headers.get("Name") and headers.get("Version"):
                    where = f"{self.path}: its METADATA"
                    return _distribution_name(str(headers["Name"]), where), upstream_version(str(headers["Version"]), where)
        parts = self.path.name.split("-")
        if len(parts) >= 2:
            where = f"{self.path}: the file name"
            return _distribution_name(parts[0], where), upstream_version(parts[1], where)
        raise SourceNotFoundError(f"{self.path}: wheel has no METADATA naming the distribution")

    def _exists(self, relpath: str) -> bool:
        return relpath in self._names

    def _read(self, relpath: str) -> bytes:
        if relpath not in self._names:
            raise SourceNotFoundError(f"{self.path}: no file {relpath}")
        return self._read_entry(relpath, MAX_SOURCE_BYTES)

    def _read_entry(self, relpath: str, cap: int) -> bytes:
        """At most ``cap`` bytes of one entry; the header's size is checked first, then the bytes (it can lie)."""
        info = self._names[relpath]
        if info.file_size > cap:
            raise too_large(f"{self.path}: {relpath}", cap)
        try:
            with self._zip.open(info) as handle:
                data = handle.read(cap + 1)
        except _DAMAGED_ENTRY as error:
            raise SourceNotFoundError(f"{self.path}: entry {relpath} is damaged ({error or type(error).__name__})") from error
        if len(data) > cap:
            raise too_large(f"{self.path}: {relpath}", cap)
        return data

    def _stamp(self, relpath: str) -> str:
        """Size and CRC-32 from the archive's directory (the CRC is checked against the bytes whenever they are read)."""
        return f"{self._names[relpath].file_size}:{self._names[relpath].CRC}"

    def iter_python_files(self) -> Iterator[str]:
        for relpath in sorted(self._names):
            top = relpath.split("/", 1)[0]
            if relpath.endswith(".py") and not top.endswith((".dist-info", ".data")):
                yield relpath


def open_tree(spec: str, *, distribution: str | None = None, version: str | None = None) -> SourceTree:
    """Open a source tree from a wheel path, a directory, or an installed distribution name.

    A directory is a folder holding the distribution's package (site-packages, a ``src/`` layout, an
    unpacked wheel) or the package folder itself, which is read as its parent, so paths inside the
    tree are the same either way. ``version`` names the release when the folder's metadata does not.
    """
    if version is not None:
        try:
            checked_version(version)
        except BadVersion as error:
            raise SourceNotFoundError(f"the version given for {distribution or spec}: {error}") from None
    path = Path(spec)
    if spec.endswith(".whl"):
        return WheelTree(path)
    if path.is_dir():
        name = distribution or path.name
        root, packages = package_root(path, name)
        return DirectoryTree(root, name, version, packages)
    if os.sep in spec or "/" in spec:
        raise SourceNotFoundError(f"{spec}: no such directory or wheel")
    return InstalledTree(spec)

"""A lab folder read as the site reads it, without Sphinx: its files, bounded, and the ``{infralens-*}`` directives of a page.

Lab folders arrive in pull requests like annotations, so everything here treats them as data from
anyone. :func:`read_lab_folder` is the one reader of a lab folder (the site copies what it returns,
``infralens preview`` copies the same): only regular files, never more than :data:`MAX_PAGE_BYTES` for a
page or :data:`MAX_FILE_BYTES` for any other file, never a folder deeper than :data:`MAX_FOLDER_DEPTH`,
never a symbolic link that leads outside the project. :func:`read_lab_page` reads one page: a FIFO,
device or socket is refused at once (never waited on), and bytes that are not UTF-8 are reported at their
line and shown as U+FFFD. Each problem is a :class:`~infralens.errors.Diagnostic` at the lab file (and
line), with the code ``lab`` or ``lab-text``; nothing here raises for a hostile folder.

``validate`` checks each ``{infralens-*}`` directive against the annotations (a page shows an annotation
only through such a directive: the annotation's ``lab:`` key does not put it on any page).
:func:`directive_uses` follows fences so that a directive shown as an example inside a code block is not
taken for a real one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from infralens.bounds import FolderTooDeep, walk
from infralens.cachedir import NotRegularFile, read_regular
from infralens.errors import Diagnostic, Location, Severity

MAX_PAGE_BYTES = 1_000_000
"""The largest lab page (Markdown) the site reads: about sixty times the project's largest (16 kB)."""
MAX_FILE_BYTES = 5_000_000
"""The largest other file of a lab folder (an image, a starter script) the site publishes."""
MAX_FOLDER_DEPTH = 8
"""How many folders deep a lab folder's files may sit; what lies deeper is left out (with a warning)."""
MAX_FOLDER_FILES = 2_000
"""How many files one lab folder may hold; the rest are left out (with a warning)."""
MAX_SHOWN_LINES = 5
"""Lines with invalid UTF-8 reported one by one; the rest are counted in one more warning."""
_SKIPPED = ("__pycache__",)
OTHER_PAGE_SUFFIXES = (".rst", ".ipynb", ".markdown", ".myst")
"""Files Sphinx could read as pages of another kind; a lab's pages are Markdown (``.md``) only."""


@dataclass(frozen=True)
class LabPageText:
    """A lab page as the site uses it: its text (``None``: left out) and what was wrong with the file."""

    text: str | None
    problems: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True)
class LabFolder:
    """The files of a lab folder the site may publish (path inside the folder → bytes; pages as UTF-8), and the problems."""

    files: dict[str, bytes]
    problems: tuple[Diagnostic, ...]

    def page(self, relative: str = "index.md") -> str | None:
        data = self.files.get(relative)
        return None if data is None else data.decode("utf-8")


def _problem(shown: str, message: str, hint: str, line: int = 1, col: int = 1, code: str = "lab-text") -> Diagnostic:
    return Diagnostic(Location(shown, line, col), message, hint, Severity.WARNING, code=code)


def read_lab_page(path: Path, shown: str) -> LabPageText:
    """The text of the lab page at ``path`` (``shown``: the name problems give it), bounded and decoded."""
    try:
        data = read_regular(path, MAX_PAGE_BYTES)
    except NotRegularFile as error:
        return LabPageText(None, (_problem(shown, f"the lab page {error.strerror}; it is left out of the site", "make it a Markdown file"),))
    except OSError as error:
        return LabPageText(None, (_problem(shown, f"cannot read the lab page ({error.strerror or error}); it is left out of the site", "check the file"),))
    if len(data) > MAX_PAGE_BYTES:
        message = f"the lab page is larger than {MAX_PAGE_BYTES:,} bytes, the limit for a lab page; it is left out of the site"
        return LabPageText(None, (_problem(shown, message, "split it into several pages"),))
    return decode_page(data, shown)


def decode_page(data: bytes, shown: str) -> LabPageText:
    """``data`` as text; each line holding bytes that are not UTF-8 is a problem at that line, and they read as U+FFFD."""
    try:
        return LabPageText(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    problems: list[Diagnostic] = []
    bad = 0
    for number, line in enumerate(data.split(b"\n"), 1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as error:
            bad += 1
            if bad <= MAX_SHOWN_LINES:
                col = len(line[: error.start].decode("utf-8", "replace")) + 1
                message = f"byte 0x{line[error.start]:02x} is not UTF-8; the page shows U+FFFD (\N{REPLACEMENT CHARACTER}) in its place"
                problems.append(_problem(shown, message, "save the page as UTF-8", number, col))
    if bad > MAX_SHOWN_LINES:
        problems.append(_problem(shown, f"{bad - MAX_SHOWN_LINES} more lines hold bytes that are not UTF-8", "save the page as UTF-8"))
    return LabPageText(data.decode("utf-8", "replace"), tuple(problems))


def read_lab_folder(folder: Path, root: Path, shown: Callable[[Path], str] = str) -> LabFolder:
    """Every file of the lab ``folder`` the site may publish (hidden files and caches skipped), and each problem.

    ``root``: the project; a symbolic link leading outside it is refused. ``shown`` names a path in problems.
    Markdown pages go through :func:`read_lab_page`; other files must be regular and at most :data:`MAX_FILE_BYTES`.
    """
    files: dict[str, bytes] = {}
    problems: list[Diagnostic] = []
    inside = root.resolve()
    for path in _walk(folder, problems, shown):
        relative = path.relative_to(folder).as_posix()
        target = Path(os.path.realpath(path))
        if path.is_symlink() and not target.is_relative_to(inside):
            message = f"lab file refused: it is a symbolic link to {target}, outside the project"
            problems.append(_problem(shown(path), message, "copy the file into the lab folder", code="lab"))
        elif path.is_symlink() and target.is_dir():
            continue  # a link to a folder inside the project is not followed (no loops, no second copy)
        elif path.suffix in OTHER_PAGE_SUFFIXES:
            message = f"lab file left out: lab pages are Markdown (.md), and a {path.suffix} file could be read as another kind of page"
            problems.append(_problem(shown(path), message, "rename it to .md", code="lab"))
        elif path.suffix == ".md":
            page = read_lab_page(path, shown(path))
            problems.extend(page.problems)
            if page.text is not None:
                files[relative] = page.text.encode("utf-8")
        elif (data := _other_file(path, shown(path), problems)) is not None:
            files[relative] = data
        if len(files) >= MAX_FOLDER_FILES:
            problems.append(_problem(shown(folder), f"the lab folder holds more than {MAX_FOLDER_FILES:,} files; the rest are left out", "keep a lab small"))
            break
    return LabFolder(files, tuple(problems))


def _other_file(path: Path, shown: str, problems: list[Diagnostic]) -> bytes | None:
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except NotRegularFile as error:
        problems.append(_problem(shown, f"lab file left out: it {error.strerror}", "make it a regular file", code="lab"))
        return None
    except OSError as error:
        problems.append(_problem(shown, f"lab file left out: cannot read it ({error.strerror or error})", "check the file", code="lab"))
        return None
    if len(data) > MAX_FILE_BYTES:
        problems.append(_problem(shown, f"lab file left out: it is larger than {MAX_FILE_BYTES:,} bytes", "keep lab files small", code="lab"))
        return None
    return data


def _walk(folder: Path, problems: list[Diagnostic], shown: Callable[[Path], str]) -> list[Path]:
    """The files under ``folder`` (links included, never followed), hidden ones and caches skipped, in a stable order.

    :func:`infralens.bounds.walk` (no recursion); a folder deeper than :data:`MAX_FOLDER_DEPTH` is a problem, and
    what lies below it is left out.
    """
    found: list[Path] = []
    try:
        for where, folders, names in walk(folder, max_depth=MAX_FOLDER_DEPTH):
            folders[:] = [name for name in folders if not name.startswith(".") and name not in _SKIPPED]
            found.extend(Path(where) / name for name in names if not name.startswith(".") and name not in _SKIPPED)
            if len(found) > MAX_FOLDER_FILES:  # one more than kept, so the reader says some were left out
                break
    except FolderTooDeep as error:
        problems.append(_problem(shown(folder), f"lab files left out: {error.describe(shown(folder))}", "", code="lab"))
    return sorted(found)


_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(.*?)\s*$")
_DIRECTIVE = re.compile(r"^\{([A-Za-z][\w.:-]*)\}\s*(.*)$")
_OPTION = re.compile(r"^\s*:([\w-]+):\s*(.*?)\s*$")

INFRALENS_DIRECTIVES = ("infralens-function", "infralens-compare", "infralens-concept", "infralens-coverage", "infralens-cost", "infralens-learning-path")
"""The directives the InfraLens extensions register (``infralens.sphinx`` and ``infralens.sphinx.coverage``); keep in step with their ``setup()``."""


@dataclass(frozen=True)
class DirectiveOption:
    name: str
    value: str
    location: Location


@dataclass(frozen=True)
class DirectiveUse:
    """One ``{infralens-*}`` directive on a page: its name, argument and options, where they stand."""

    name: str
    argument: str
    options: tuple[DirectiveOption, ...]
    location: Location

    def option(self, name: str) -> DirectiveOption | None:
        return next((o for o in self.options if o.name == name), None)


@dataclass
class _Fence:
    char: str
    length: int
    code: bool
    """A code block (its text is not Markdown) rather than a directive."""


def directive_uses(text: str, shown: str) -> list[DirectiveUse]:
    """Every ``{infralens-*}`` directive of a MyST page, with the page's lines (``shown``: the path messages name)."""
    lines = text.splitlines()
    found: list[DirectiveUse] = []
    stack: list[_Fence] = []
    for index, line in enumerate(lines):
        fence = _FENCE.match(line)
        if fence is None:
            continue
        marker, info = fence.groups()
        char, length = marker[0], len(marker)
        if stack and stack[-1].code:
            if not info and char == stack[-1].char and length >= stack[-1].length:
                stack.pop()
            continue
        if not info:
            closing = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].char == char and length >= stack[i].length), None)
            if closing is not None:
                del stack[closing:]
            else:
                stack.append(_Fence(char, length, code=True))
            continue
        directive = _DIRECTIVE.match(info)
        stack.append(_Fence(char, length, code=directive is None or directive.group(1) in ("code-block", "code", "sourcecode")))
        if directive is not None and directive.group(1).startswith("infralens-"):
            found.append(DirectiveUse(directive.group(1), directive.group(2), _options(lines, index + 1, shown), Location(shown, index + 1, 1)))
    return found


def _options(lines: list[str], start: int, shown: str) -> tuple[DirectiveOption, ...]:
    """The ``:name: value`` lines right after a directive's opening line."""
    options: list[DirectiveOption] = []
    for index in range(start, len(lines)):
        option = _OPTION.match(lines[index])
        if option is None:
            break
        options.append(DirectiveOption(option.group(1), option.group(2), Location(shown, index + 1, 1)))
    return tuple(options)

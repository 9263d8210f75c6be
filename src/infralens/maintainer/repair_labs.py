"""Following a moved or renamed target into the lab pages and the concept map, for ``infralens fix``.

Lab pages name targets in ``infralens-*`` directives: the argument of ``{infralens-function}`` (MyST
fences of backticks or colons, or reStructuredText ``.. infralens-function::``) and the options of
``{infralens-compare}``, one per distribution of the project (``:transformers: TARGET``); the concept map
(``labs/concepts.yaml``) names them as the values of its pairs under the same distribution keys. Those are rewritten, in place, with
the file's own line endings. Any other mention of an old target (prose, a comment) is listed with its
``file:line`` for a person to decide.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from infralens.annotations import directive_uses
from infralens.maintainer.repair_yaml import read_user_text
from infralens.project import Project
from infralens.userfiles import FileChange

CONCEPTS_FILE = "concepts.yaml"

_DIRECTIVE = re.compile(r"^(?P<head>[ \t]*(?:`{3,}|~{3,}|:{3,})[ \t]*\{infralens-[a-z-]+\}[ \t]+)(?P<name>\S+)(?P<tail>[ \t]*)$")
_RST = re.compile(r"^(?P<head>[ \t]*\.\.[ \t]+infralens-[a-z-]+::[ \t]+)(?P<name>\S+)(?P<tail>[ \t]*)$")


def _option(distributions: tuple[str, ...]) -> re.Pattern[str]:
    """A ``:DIST: TARGET`` option line of ``{infralens-compare}``, for each of the project's distributions."""
    names = "|".join(re.escape(name) for name in distributions)
    return re.compile(rf"^(?P<head>[ \t]*:(?:{names}):[ \t]+)(?P<name>\S+)(?P<tail>[ \t]*)$")


def _concept(distributions: tuple[str, ...]) -> re.Pattern[str]:
    """A ``DIST: TARGET`` line of a concept pair, for each of the project's distributions."""
    names = "|".join(re.escape(name) for name in distributions)
    return re.compile(rf"^(?P<head>[ \t]*(?:-[ \t]+)?(?:{names})[ \t]*:[ \t]+)(?P<quote>[\"']?)(?P<name>[\w.]+)(?P=quote)(?P<tail>[ \t]*(?:#.*)?)$")


_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")


@dataclass(frozen=True)
class LabEdits:
    changes: tuple[FileChange, ...]
    not_rewritten: tuple[str, ...]


def follow_renames(project: Project, renames: dict[str, str]) -> LabEdits:
    """Rewrite ``old → new`` target names in every lab page and the concept map."""
    if not renames or not project.labs_dir.is_dir():
        return LabEdits((), ())
    changes: list[FileChange] = []
    left: list[str] = []
    pages = sorted(page for page in _files_under(project, project.labs_dir) if page.suffix in (".md", ".rst") and page.is_file() and not page.is_symlink())
    concepts = project.labs_dir / CONCEPTS_FILE
    option, concept = _option(project.distributions), _concept(project.distributions)
    for path in [*pages, *([concepts] if concepts.is_file() else [])]:
        display = project.relative(path)
        old = read_user_text(path, display)
        if not any(name in old for name in renames):
            continue
        if path.name == CONCEPTS_FILE:
            wanted = None
            patterns: tuple[re.Pattern[str], ...] = (concept,)
        elif path.suffix == ".md":
            wanted = _directive_lines(old, display)
            patterns = (_DIRECTIVE, option)
        else:
            wanted, patterns = None, (_RST, option)
        new = _rewrite(old, renames, patterns, wanted, display, left)
        if new != old:
            changes.append(FileChange(path, new, old))
    return LabEdits(tuple(changes), tuple(left))


def _directive_lines(text: str, display: str) -> set[int]:
    """Lines of a MyST page holding a real ``{infralens-*}`` directive's argument or option (not an example in a code block)."""
    lines: set[int] = set()
    for use in directive_uses(text, display):
        lines.add(use.location.line)
        lines.update(option.location.line for option in use.options)
    return lines


def _rewrite(text: str, renames: dict[str, str], patterns: tuple[re.Pattern[str], ...], wanted: set[int] | None, display: str, left: list[str]) -> str:
    out: list[str] = []
    for number, match in enumerate(_LINE.finditer(text), start=1):
        line, ending = match.group(1), match.group(2)
        if not line and not ending:
            break
        rewritten = _rewrite_line(line, renames, patterns) if wanted is None or number in wanted else None
        if rewritten is None:
            for old, new in renames.items():
                if re.search(rf"(?<![\w.]){re.escape(old)}(?!\w|\.\w)", line):
                    left.append(f"{display}:{number}: names {old}, now {new}; not a directive fix rewrites — edit it by hand")
            rewritten = line
        out.append(rewritten + ending)
    return "".join(out)


def _rewrite_line(line: str, renames: dict[str, str], patterns: tuple[re.Pattern[str], ...]) -> str | None:
    """The line with its directive's target renamed; None when it is not such a line naming an old target."""
    for pattern in patterns:
        found = pattern.match(line)
        if found and found.group("name") in renames:
            start, end = found.span("name")
            return line[:start] + renames[found.group("name")] + line[end:]
    return None


def _files_under(project: Project, folder: Path) -> list[Path]:
    """Every entry below ``folder`` but its subfolders, walked without recursion; a folder nested too deep is an error naming it."""
    from infralens.bounds import FolderTooDeep, walk
    from infralens.errors import InfralensError

    try:
        return [Path(where) / name for where, _, names in walk(folder) for name in names]
    except FolderTooDeep as error:
        raise InfralensError(error.describe(project.relative(folder))) from None

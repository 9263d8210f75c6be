"""``infralens init``: a working project in a new or empty folder.

What it writes (the text of each file is :mod:`.init_files`): ``pyproject.toml`` with ``[tool.infralens]``
(``distributions`` and, where a template is known or given, ``[tool.infralens.upstream]``), ``annotations/README.md``,
``scenarios/example.py``, a Sphinx ``docs/`` (``conf.py``, ``index.md``) that builds under ``-W``,
``.pre-commit-config.yaml``, ``.github/workflows/infralens.yml``, and ``.gitignore`` where there is none.

The folder may already hold other things (``.git/``, a README, a licence, other workflows): init refuses only when
a file it writes exists, or ``annotations/``, ``scenarios/`` or ``docs/`` exists and is not empty, and then writes
nothing. Every file is written with :func:`infralens.userfiles.write_together`: all of them or none.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import keyword
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from infralens.errors import InfralensError, printable_line
from infralens.maintainer.init_files import (
    KNOWN_UPSTREAM,
    UPSTREAM_PLACEHOLDERS,
    Distribution,
    Layout,
    annotations_readme,
    ci_workflow,
    docs_index,
    example_scenario,
    gitignore,
    pre_commit,
    pyproject,
    sphinx_conf,
)

FILES: tuple[tuple[str, Callable[[Layout], str]], ...] = (
    ("pyproject.toml", pyproject),
    ("annotations/README.md", annotations_readme),
    ("scenarios/example.py", example_scenario),
    ("docs/conf.py", sphinx_conf),
    ("docs/index.md", docs_index),
    (".pre-commit-config.yaml", pre_commit),
    (".github/workflows/infralens.yml", ci_workflow),
)
"""Every file init writes, relative to the folder; it refuses when one of them exists."""

IF_ABSENT: tuple[tuple[str, Callable[[Layout], str]], ...] = ((".gitignore", gitignore),)
"""Written only where the folder has none (an existing one is the user's and stays as it is)."""

FOLDERS = ("annotations", "scenarios", "docs")
"""Folders that must be missing or empty: init's files would mix with files it did not write."""

_NAME = re.compile(r"^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])$")
"""A distribution name (PEP 508)."""
_THEME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_TEMPLATE_LIMIT = 500


@dataclass(frozen=True)
class InitOptions:
    folder: str = "."
    distributions: tuple[str, ...] = ()
    upstream: tuple[str, ...] = ()
    """``NAME=TEMPLATE`` items of ``--upstream``."""
    theme: str = "alabaster"


def init_project(options: InitOptions) -> int:
    """Write the new project, or raise :class:`InfralensError` (nothing written) saying why not."""
    from infralens import __version__
    from infralens.commands import EXIT_OK, say
    from infralens.userfiles import FileChange, write_together

    folder = Path(options.folder)
    if folder.exists() and not folder.is_dir():
        raise InfralensError(f"{folder}: not a folder; give init a new or empty folder")
    layout = Layout(
        title="".join(c if c.isprintable() else " " for c in folder.resolve().name).strip() or "notes",
        distributions=_distributions(options.distributions, options.upstream),
        theme=_theme(options.theme),
        infralens_version=__version__,
    )
    conflicts = _conflicts(folder)
    if conflicts:
        listed = ", ".join(conflicts)
        raise InfralensError(
            f"{folder}: init would write over {listed}; nothing was written. Run init in a new or empty folder "
            "(other files, such as .git/ or a README, may stay), or move those away first"
        )
    changes = [FileChange(folder / path, make(layout)) for path, make in FILES]
    changes += [FileChange(folder / path, make(layout)) for path, make in IF_ABSENT if not (folder / path).exists() and not (folder / path).is_symlink()]
    write_together(changes, what="project file", within=folder.resolve())
    for change in changes:
        say(f"wrote {change.path.relative_to(folder).as_posix()}")
    _say_next(layout, folder)
    return EXIT_OK


def _say_next(layout: Layout, folder: Path) -> None:
    from infralens.commands import say

    if importlib.util.find_spec(layout.theme.split(".")[0]) is None:
        say(f"infralens: note: the Sphinx theme {layout.theme!r} is not installed here; install it before building docs/", error=True)
    target = (
        f"{layout.distributions[0].packages[0]}.MODULE.FUNCTION" if layout.distributions and layout.distributions[0].packages else "PACKAGE.MODULE.FUNCTION"
    )
    where = "" if folder.resolve() == Path.cwd().resolve() else f"cd {folder} && "
    say(f"next: {where}infralens add {target}, write its notes, then infralens validate, infralens lock and")
    say("      python -m sphinx -W -b html docs docs/_build/html")


def _conflicts(folder: Path) -> list[str]:
    """What in *folder* init would overwrite or mix with (relative paths), in the order of :data:`FILES`."""
    if not folder.is_dir():
        return []
    found: list[str] = []
    for name in FOLDERS:
        inside = folder / name
        if inside.is_symlink() or (inside.exists() and (not inside.is_dir() or any(inside.iterdir()))):
            found.append(f"{name}/")
    for written, _ in FILES:
        target = folder / written
        if written.split("/", maxsplit=1)[0] not in FOLDERS and (target.exists() or target.is_symlink()):
            found.append(written)
    return found


def _distributions(names: tuple[str, ...], upstream: tuple[str, ...]) -> tuple[Distribution, ...]:
    from packaging.utils import canonicalize_name

    templates: dict[str, str] = {}
    for item in upstream:
        name, sep, template = item.partition("=")
        if not sep or not name.strip():
            raise InfralensError(
                f"--upstream {item!r}: expected NAME=TEMPLATE, e.g. mylib=https://github.com/me/mylib/blob/v{{version}}/src/{{relpath}}#L{{start}}-L{{end}}"
            )
        templates[canonicalize_name(name.strip())] = _template(name.strip(), template)
    found: dict[str, Distribution] = {}
    for name in names:
        dist = _installed(name)
        key = canonicalize_name(dist.name)
        if key not in found:
            found[key] = Distribution(dist.name, dist.version, dist.packages, templates.pop(key, None) or KNOWN_UPSTREAM.get(key))
    if templates:
        unknown = ", ".join(sorted(templates))
        raise InfralensError(f"--upstream names {unknown}, which is not among the --distribution names; add --distribution {unknown.split(', ')[0]}")
    return tuple(found.values())


def _installed(name: str) -> Distribution:
    import sys

    from packaging.version import InvalidVersion, Version

    if not _NAME.match(name):
        raise InfralensError(f"--distribution {name!r}: not a distribution name (letters, digits, '.', '_' and '-')")
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise InfralensError(
            f"distribution {name!r} is not installed in this Python ({sys.executable}); install it first (pip install {name}), then run init again"
        ) from None
    version = dist.version or ""
    try:
        Version(version)
    except InvalidVersion:
        raise InfralensError(f"distribution {name!r}: its installed version {version!r} is not a valid version number") from None
    canonical = dist.metadata["Name"] or name
    if not _NAME.match(canonical):
        canonical = name
    return Distribution(canonical, version, _packages(dist))


def _packages(dist: importlib.metadata.Distribution) -> tuple[str, ...]:
    """The distribution's top-level import names: ``top_level.txt``, else the first part of its files' paths."""
    listed = (dist.read_text("top_level.txt") or "").split()
    if not listed:
        for file in dist.files or ():
            parts = file.parts
            if len(parts) > 1 and parts[-1] == "__init__.py" and len(parts) == 2:
                listed.append(parts[0])
            elif len(parts) == 1 and parts[0].endswith(".py"):
                listed.append(parts[0][:-3])
    names = sorted({n for n in listed if n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("_")})
    return tuple(names)


def _template(name: str, template: str) -> str:
    where = f"--upstream {name}"
    if len(template) > _TEMPLATE_LIMIT or not template.isprintable() or not re.match(r"^https?://\S+$", template):
        raise InfralensError(f"{where}: the template must be one http(s) URL without spaces, at most {_TEMPLATE_LIMIT} characters")
    try:
        fields = {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}
    except ValueError as error:
        raise InfralensError(f"{where}: {error} (write a literal brace as {{{{ or }}}})") from None
    unknown = sorted(fields - set(UPSTREAM_PLACEHOLDERS))
    if unknown:
        allowed = ", ".join("{" + p + "}" for p in UPSTREAM_PLACEHOLDERS)
        raise InfralensError(f"{where}: unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}; a template may use {allowed}")
    return template


def _theme(theme: str) -> str:
    if not _THEME.match(theme):
        raise InfralensError(f"--theme {printable_line(theme)!r}: not a theme name (a Python module name such as furo or sphinx_rtd_theme)")
    return theme

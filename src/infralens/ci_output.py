"""CI-native outputs of ``check``, ``validate`` and ``verify``: GitHub workflow commands, JUnit XML and SARIF 2.1.0.

Each command turns what it found into :class:`CiCase` records (one per step, file or finding, passed or not);
this module writes them in the format asked for. Paths are relative to the git repository that holds the project
(:func:`repository_prefix`), so a project in a subfolder still gets annotations on the pull request's files.
A tool error (exit 2) is written in the same format by :func:`tool_error`, so CI shows why nothing was checked.

Exit codes stay the commands' own: 0 clean, 1 findings, 2 the tool could not run.
"""

from __future__ import annotations

import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePosixPath
from typing import TextIO

from infralens.errors import Diagnostic, Severity, github_data, github_property

CI_FORMATS = ("github", "junit", "sarif")
"""The ``--format`` values this module writes (beside each command's own ``text`` and ``json``)."""

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
MAX_DEPTH = 64
"""Folders climbed from the project to find its git repository."""


class Outcome(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class CiCase:
    """One checked thing and how it came out, with where it is (a path relative to the project root)."""

    name: str
    """Step id, annotation id or file: the JUnit test case's name."""
    group: str
    """The JUnit class name: the annotation file, or the kind of thing checked."""
    path: str
    line: int
    outcome: Outcome
    level: str = "error"
    """``error``, ``warning`` or ``notice`` (what a failed case, or a passed case worth a note, is shown as)."""
    rule: str = ""
    """A stable rule id such as ``drift/changed`` or ``validate/selector`` (SARIF ``ruleId``)."""
    title: str = ""
    message: str = ""


def diagnostic_case(diagnostic: Diagnostic, tool: str) -> CiCase:
    """A validation diagnostic as a case: an error fails, a warning passes with a warning annotation."""
    where = diagnostic.location
    text = diagnostic.message + (f" — {diagnostic.hint}" if diagnostic.hint else "")
    error = diagnostic.severity is Severity.ERROR
    return CiCase(
        name=f"{where.path}:{where.line or 1}",
        group=where.path,
        path=where.path,
        line=where.line or 1,
        outcome=Outcome.FAILED if error else Outcome.PASSED,
        level="error" if error else "warning",
        rule=f"{tool}/{diagnostic.code or 'problem'}",
        title=f"infralens {tool}: {diagnostic.code or 'problem'}",
        message=text,
    )


def clean_file_case(path: str, tool: str) -> CiCase:
    """A file the command read and found nothing wrong in: a passed case."""
    return CiCase(path, path, path, 1, Outcome.PASSED, "none", f"{tool}/clean", f"infralens {tool}", "no problem found")


# ---------------------------------------------------------------------------
# Where the repository is
# ---------------------------------------------------------------------------


def repository_prefix(project_root: Path) -> str:
    """The project root relative to its git repository's root (``""`` at the top, or when no repository holds it).

    The repository is the nearest folder upwards with a ``.git`` entry (a folder, or a file in a worktree or
    submodule); failing that, ``$GITHUB_WORKSPACE`` when the project lies inside it."""
    root = Path(os.path.abspath(project_root))
    for depth, folder in enumerate((root, *root.parents)):
        if depth > MAX_DEPTH:
            break
        if os.path.lexists(folder / ".git"):
            return _relative(root, folder)
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if workspace and Path(os.path.abspath(workspace)) in (root, *root.parents):
        return _relative(root, Path(os.path.abspath(workspace)))
    return ""


def _relative(path: Path, base: Path) -> str:
    relative = path.relative_to(base).as_posix()
    return "" if relative == "." else relative


def in_repository(path: str, prefix: str) -> str:
    """A project-relative *path* made relative to the repository root (an absolute path is kept as it is)."""
    if not path or PurePosixPath(path).is_absolute() or re.match(r"^[A-Za-z]:[\\/]", path):
        return path
    return str(PurePosixPath(prefix) / path) if prefix else path


# ---------------------------------------------------------------------------
# The three formats
# ---------------------------------------------------------------------------


def render(fmt: str, cases: Sequence[CiCase], *, tool: str, prefix: str, summary: str = "", version: str = "") -> str:
    """*cases* in the CI format *fmt* (one of :data:`CI_FORMATS`)."""
    if fmt == "github":
        return github(cases, prefix=prefix, summary=summary)
    if fmt == "junit":
        return junit(cases, suite=f"infralens {tool}", prefix=prefix)
    if fmt == "sarif":
        return sarif(cases, prefix=prefix, version=version)
    raise ValueError(f"unknown CI format {fmt!r}")


def github(cases: Iterable[CiCase], *, prefix: str, summary: str = "") -> str:
    """GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per failed case or note,
    each field escaped so that no value can start another command; the summary is a plain line."""
    lines = []
    for case in cases:
        if case.outcome is Outcome.SKIPPED or (case.outcome is Outcome.PASSED and case.level not in ("warning", "notice")):
            continue
        level = case.level if case.level in ("error", "warning", "notice") else "error"
        title = github_property(case.title or f"infralens: {case.rule}")
        where = f"file={github_property(in_repository(case.path, prefix))},line={max(1, case.line)}" if case.path else ""
        fields = ",".join(part for part in (where, f"title={title}") if part)
        lines.append(f"::{level} {fields}::{github_data(f'{case.name}: {case.message}')}")
    if summary:
        lines.append(github_data(summary))
    return "\n".join(lines) + "\n" if lines else ""


_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(text: str) -> str:
    """Text XML 1.0 can hold: control characters and lone surrogates become U+FFFD (ElementTree escapes the rest)."""
    return _XML_UNSAFE.sub("\ufffd", text)


def junit(cases: Sequence[CiCase], *, suite: str, prefix: str) -> str:
    """JUnit XML: one ``<testcase>`` per case, with ``<failure>`` or ``<skipped>``; warnings stay passed test cases."""
    failures = sum(case.outcome is Outcome.FAILED for case in cases)
    skipped = sum(case.outcome is Outcome.SKIPPED for case in cases)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0", "skipped": str(skipped)}
    suites = ET.Element("testsuites", {"name": _xml(suite), **counts})
    element = ET.SubElement(suites, "testsuite", {"name": _xml(suite), **counts})
    for case in cases:
        attributes = {"classname": _xml(in_repository(case.group, prefix)), "name": _xml(case.name)}
        if case.path:
            attributes |= {"file": _xml(in_repository(case.path, prefix)), "line": str(max(1, case.line))}
        test = ET.SubElement(element, "testcase", attributes)
        if case.outcome is Outcome.FAILED:
            failure = ET.SubElement(test, "failure", {"message": _xml(case.message.split("\n", 1)[0][:500]), "type": _xml(case.rule)})
            failure.text = _xml(case.message)
        elif case.outcome is Outcome.SKIPPED:
            ET.SubElement(test, "skipped", {"message": _xml(case.message[:500])})
        elif case.message and case.level in ("warning", "notice"):
            ET.SubElement(test, "system-out").text = _xml(f"{case.level}: {case.message}")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


_SARIF_LEVEL = {"error": "error", "warning": "warning", "notice": "note"}


def sarif(cases: Sequence[CiCase], *, prefix: str, version: str = "") -> str:
    """A SARIF 2.1.0 log with one run: a result per failed case or note, each rule listed once in the driver."""
    shown = [c for c in cases if c.outcome is Outcome.FAILED or (c.outcome is Outcome.PASSED and c.level in ("warning", "notice"))]
    rules = sorted({case.rule or "infralens" for case in shown})
    results = []
    for case in shown:
        result: dict[str, object] = {
            "ruleId": case.rule or "infralens",
            "ruleIndex": rules.index(case.rule or "infralens"),
            "level": _SARIF_LEVEL.get(case.level, "error"),
            "message": {"text": f"{case.name}: {case.message}"},
        }
        if case.path:
            location = {"artifactLocation": {"uri": in_repository(case.path, prefix), "uriBaseId": "%SRCROOT%"}, "region": {"startLine": max(1, case.line)}}
            result["locations"] = [{"physicalLocation": location}]
        results.append(result)
    return _sarif_log(rules, results, version, notifications=[], successful=True)


def _sarif_log(rules: list[str], results: list[dict[str, object]], version: str, *, notifications: list[dict[str, object]], successful: bool) -> str:
    driver: dict[str, object] = {"name": "infralens", "rules": [{"id": rule, "name": rule} for rule in rules]}
    if version:
        driver["version"] = version
    invocation: dict[str, object] = {"executionSuccessful": successful}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run = {"tool": {"driver": driver}, "invocations": [invocation], "results": results}
    log = {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=True) + "\n"


def tool_error(fmt: str, message: str, diagnostics: Sequence[Diagnostic] = (), *, tool: str, prefix: str = "", version: str = "") -> str:
    """What a command that could not run (exit 2) writes in the CI format *fmt*: the error, and the diagnostics
    that caused it at their files."""
    cases = [
        CiCase(tool, "infralens", "", 0, Outcome.FAILED, "error", f"{tool}/tool-error", f"infralens {tool} could not run", message),
        *(diagnostic_case(d, tool) for d in diagnostics),
    ]
    if fmt == "sarif":
        notifications: list[dict[str, object]] = [{"level": "error", "message": {"text": message}}]
        for d in diagnostics:
            location = {
                "physicalLocation": {"artifactLocation": {"uri": in_repository(d.location.path, prefix)}, "region": {"startLine": d.location.line or 1}}
            }
            notifications.append({"level": "error" if d.severity is Severity.ERROR else "warning", "message": {"text": d.message}, "locations": [location]})
        return _sarif_log([], [], version, notifications=notifications, successful=False)
    return render(fmt, cases, tool=tool, prefix=prefix, version=version)


# ---------------------------------------------------------------------------
# A command that could not run
# ---------------------------------------------------------------------------

MAX_ERROR_LINES = 20


class _Tee:
    """Standard error as it was, keeping its last lines for the CI record of a tool error."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.lines: list[str] = []

    def write(self, text: str) -> int:
        self.lines = (self.lines + [line for line in text.splitlines() if line.strip()])[-MAX_ERROR_LINES:]
        return self.stream.write(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


def with_tool_errors(fmt: str, tool: str, project: str | None, call: Callable[[], int]) -> int:
    """Run *call* (a command asked for the CI format *fmt*); when it ends with exit 2, also write what it said on
    standard error as a tool error in that format on standard output, so CI shows why nothing was checked."""
    tee = _Tee(sys.stderr)
    sys.stderr = tee  # a stand-in that writes through
    try:
        code = call()
    finally:
        sys.stderr = tee.stream
    if code == 2:
        from infralens import __version__

        message = "\n".join(tee.lines) or f"infralens {tool} could not run"
        sys.stdout.write(tool_error(fmt, message, tool=tool, prefix=_prefix_of(project), version=__version__))
    return code


def _prefix_of(project: str | None) -> str:
    """The repository prefix of the project (found upwards, as the command would), or of the folder given."""
    from infralens.errors import InfralensError
    from infralens.project import find_project

    try:
        return repository_prefix(find_project(Path(project) if project else None).root)
    except InfralensError:
        return repository_prefix(Path(project) if project else Path.cwd())

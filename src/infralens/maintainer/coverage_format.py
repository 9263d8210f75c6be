"""A :class:`~infralens.reports.CoverageMap` as JSON (committed as ``reports/coverage-<scenario>.json``) and as a text tree.

The JSON is the coverage report's records written and read through the reports' schema
(:mod:`infralens.reports.coverage_report`): ``functions`` lists each upstream function that ran
(``annotations``/``annotated``/``statements`` only on annotated ones) and ``tree`` nests calls, each node's
``f`` indexing ``functions``. This module adds the messages that say how to make a file again, and the text.
"""

from __future__ import annotations

import json
from pathlib import Path

from infralens.errors import InfralensError, printable_line
from infralens.reports import CallNode, CoverageMap, FunctionInfo, ReportError, ScenarioStatus, parse_coverage_report, read_report_text
from infralens.userfiles import write_output

STAR = "★"


def write_json(coverage: CoverageMap, path: Path) -> None:
    """Write the coverage report whole or not at all (Ctrl-C leaves the previous file), only where an output may go
    (:mod:`infralens.userfiles`: never onto a FIFO or a device, nor through a link leading out of its folder)."""
    write_output(Path(path), json.dumps(coverage.to_json(), indent=1, ensure_ascii=False) + "\n", what="coverage report")


def read_json(path: Path) -> CoverageMap:
    """Load a coverage file; a clear error names the file when it is missing or malformed, and says how to make it again."""
    path = Path(path)
    try:
        text = read_report_text(path)
    except ReportError as error:
        raise InfralensError(f"{error}; create it with 'infralens coverage SCENARIO --json {path}'") from error
    try:  # bounded: deep nesting, NaN/Infinity and huge integers are refused, never a crash
        return parse_coverage_report(text, path)
    except ReportError as error:
        where = f"{path}:{error.line}:{error.column}: not valid JSON ({error.syntax})" if error.column else str(error)
        raise InfralensError(f"{where}; regenerate it with 'infralens coverage'") from error


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------


def mark_text(info: FunctionInfo) -> str:
    if info.mark is None:
        return ""
    mark = info.mark
    return f"{STAR} {mark.annotated_statements}/{mark.statements} statements annotated ({', '.join(mark.annotation_ids)})"


def summary_line(coverage: CoverageMap) -> str:
    calls = sum(f.calls for f in coverage.functions)
    dists = sorted({f.ref.distribution for f in coverage.functions})
    text = (
        f"{coverage.scenario}: {len(coverage.functions)} upstream functions ran ({calls} calls, {', '.join(dists) or 'no upstream code'}) "
        f"in {coverage.seconds:.2f} s on {coverage.device}; {len(coverage.annotated)} annotated ({STAR})"
    )
    text = printable_line(text)  # distribution names and files come from upstream: one visible line each
    if coverage.status is not ScenarioStatus.PASSED:
        text += f"\n  scenario {coverage.status.value}: {printable_line(str(coverage.error))}"
    return text


def format_tree(coverage: CoverageMap, *, depth: int | None = None) -> str:
    """The call tree, one function per line, children in first-call order."""
    lines = [summary_line(coverage)]

    def walk(node: CallNode, prefix: str, last: bool, level: int) -> None:
        info = coverage.functions[node.function]
        branch = "" if level == 0 else ("└─ " if last else "├─ ")
        tail = f"  {mark_text(info)}" if info.mark else ""
        hidden = ""
        if depth is not None and level + 1 >= depth and node.children:
            hidden = f"  (+{len(node.children)} callee{'s' if len(node.children) > 1 else ''})"
        lines.append(f"{prefix}{branch}{info.ref.qualname} ×{node.calls}{tail}{hidden}")
        if hidden:
            return
        inner = prefix + ("" if level == 0 else ("   " if last else "│  "))
        for position, child in enumerate(node.children):
            walk(child, inner, position == len(node.children) - 1, level + 1)

    for root in coverage.roots:
        walk(root, "", True, 0)
    if coverage.annotated:
        lines.append("")
        lines.append("annotated functions that ran:")
        for info in sorted(coverage.annotated, key=lambda f: f.ref.qualname):
            lines.append(f"  {info.ref.qualname} ×{info.calls}  {mark_text(info)}  {info.ref.file}:{info.ref.line}")
    return "\n".join([lines[0], *(printable_line(line) for line in lines[1:])]) + "\n"

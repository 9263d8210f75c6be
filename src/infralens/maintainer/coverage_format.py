"""A :class:`~.coverage.CoverageMap` as JSON (committed as ``reports/coverage-<scenario>.json``) and as a text tree.

JSON layout (``format: 1``)::

    {"format": 1, "scenario": "tiny-sd-ddim", "status": "passed", "error": null, "seconds": 1.2,
     "device": "cpu", "created": "...", "versions": {"diffusers": "0.42.1", ...},
     "functions": [{"dist": "diffusers", "file": "diffusers/...py", "qualname": "DDIMScheduler.step",
                    "line": 386, "calls": 3, "annotations": ["ddim-step"], "annotated": 7, "statements": 31}],
     "tree": [{"f": 0, "calls": 1, "children": [...]}]}

``annotations``/``annotated``/``statements`` appear only on annotated functions; ``f`` indexes ``functions``.
"""

from __future__ import annotations

import json
from pathlib import Path

from infralens.errors import InfralensError, printable_line
from infralens.maintainer.coverage import AnnotationMark, CallNode, CoverageMap, FunctionInfo, FunctionRef
from infralens.reports import ReportError, ScenarioStatus, parse_report_json, read_report_text
from infralens.userfiles import write_output

FORMAT = 1
MAX_COVERAGE_DEPTH = 400
"""Deepest nesting read: a call tree nests two levels per call (the committed maps nest about 30 deep)."""
STAR = "★"


def to_dict(coverage: CoverageMap) -> dict:
    functions = []
    for info in coverage.functions:
        item = {"dist": info.ref.distribution, "file": info.ref.file, "qualname": info.ref.qualname, "line": info.ref.line, "calls": info.calls}
        if info.mark:
            item.update(annotations=list(info.mark.annotation_ids), annotated=info.mark.annotated_statements, statements=info.mark.statements)
        functions.append(item)
    return {
        "format": FORMAT,
        "scenario": coverage.scenario,
        "status": coverage.status.value,
        "error": coverage.error,
        "seconds": coverage.seconds,
        "device": coverage.device,
        "created": coverage.created,
        "versions": coverage.versions,
        "functions": functions,
        "tree": [_node_dict(node) for node in coverage.roots],
    }


def _node_dict(node: CallNode) -> dict:
    out: dict = {"f": node.function, "calls": node.calls}
    if node.children:
        out["children"] = [_node_dict(child) for child in node.children]
    return out


def write_json(coverage: CoverageMap, path: Path) -> None:
    """Write the coverage report whole or not at all (Ctrl-C leaves the previous file), only where an output may go
    (:mod:`infralens.userfiles`: never onto a FIFO or a device, nor through a link leading out of its folder)."""
    write_output(Path(path), json.dumps(to_dict(coverage), indent=1, ensure_ascii=False) + "\n", what="coverage report")


def read_json(path: Path) -> CoverageMap:
    """Load a coverage file; a clear error names the file when it is missing or malformed."""
    path = Path(path)
    try:
        text = read_report_text(path)
    except ReportError as error:
        raise InfralensError(f"{error}; create it with 'infralens coverage SCENARIO --json {path}'") from error
    try:  # bounded: nesting past MAX_COVERAGE_DEPTH, NaN/Infinity and huge integers are refused, never a crash
        data = parse_report_json(text, path, max_depth=MAX_COVERAGE_DEPTH)
    except ReportError as error:
        where = f"{path}:{error.line}:{error.column}: not valid JSON ({error.syntax})" if error.column else str(error)
        raise InfralensError(f"{where}; regenerate it with 'infralens coverage'") from error
    try:
        if not isinstance(data, dict):
            raise TypeError(f"a JSON {type(data).__name__}, not an object")
        return from_dict(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as error:
        raise InfralensError(
            f"{path}: not a coverage file of format {FORMAT} ({type(error).__name__}: {error}); regenerate it with 'infralens coverage'"
        ) from error


def from_dict(data: dict) -> CoverageMap:
    if data.get("format") != FORMAT:
        raise ValueError(f"format {data.get('format')!r}")
    functions = []
    for item in data["functions"]:
        ref = FunctionRef(item["dist"], item["file"], item["qualname"], int(item["line"]))
        mark = AnnotationMark(tuple(item["annotations"]), int(item["annotated"]), int(item["statements"])) if "annotations" in item else None
        functions.append(FunctionInfo(ref, int(item["calls"]), mark))
    count = len(functions)

    def node(raw: dict) -> CallNode:
        index = int(raw["f"])
        if not 0 <= index < count:
            raise IndexError(f"tree refers to function {index}, but there are {count}")
        return CallNode(index, int(raw["calls"]), tuple(node(child) for child in raw.get("children", ())))

    return CoverageMap(
        scenario=str(data["scenario"]),
        status=ScenarioStatus(data["status"]),
        error=data.get("error"),
        seconds=float(data["seconds"]),
        device=str(data.get("device", "cpu")),
        versions=dict(data.get("versions", {})),
        functions=tuple(functions),
        roots=tuple(node(raw) for raw in data["tree"]),
        created=str(data.get("created", "")),
    )


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

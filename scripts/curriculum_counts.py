#!/usr/bin/env python3
"""Count the curriculum: labs, annotated functions and line notes, overall and per framework.

Reads ``annotations/`` (through InfraLens' own loader) and ``labs/`` of the project at or above
``--project`` (default: this repository). Nothing is hard-coded but the targets of the modern-curriculum
issue: at least 17 labs, 160 annotated functions (55 of them DiffSynth's) and 800 notes.

Exit codes: 0 targets met, 1 below target, 2 the annotations could not be loaded.

    python scripts/curriculum_counts.py            # table
    python scripts/curriculum_counts.py --json     # machine-readable
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

MIN_LABS = 17
MIN_FUNCTIONS = 160
MIN_DIFFSYNTH_FUNCTIONS = 55
MIN_NOTES = 800


@dataclass(frozen=True)
class FrameworkCounts:
    functions: int
    notes: int
    static_notes: int


@dataclass(frozen=True)
class CurriculumCounts:
    labs: int
    labs_complete: int
    annotations: int
    functions: int
    notes: int
    notes_with_expect: int
    static_notes: int
    frameworks: dict[str, FrameworkCounts] = field(default_factory=dict)
    notes_per_lab: dict[str, int] = field(default_factory=dict)
    meets_functions: bool = False
    meets_notes: bool = False
    meets_labs: bool = False
    meets_diffsynth: bool = False

    @property
    def meets_targets(self) -> bool:
        return self.meets_functions and self.meets_notes and self.meets_labs and self.meets_diffsynth


def count(project_root: Path) -> CurriculumCounts:
    """Load every annotation of the project and count; raises SystemExit(2) on load errors."""
    from infralens.errors import Severity
    from infralens.project import find_project, load_annotations

    project = find_project(project_root)
    loaded = load_annotations(project)
    errors = [d for d in loaded.diagnostics if d.severity == Severity.ERROR]
    if errors:
        for diagnostic in errors:
            print(diagnostic, file=sys.stderr)
        print(f"{len(errors)} annotation error(s): fix them (see `infralens validate`) before counting", file=sys.stderr)
        raise SystemExit(2)

    lab_dirs = sorted(p for p in project.labs_dir.glob("lab-*") if p.is_dir()) if project.labs_dir.is_dir() else []
    complete = [p for p in lab_dirs if (p / "index.md").is_file() and (p / "starter.py").is_file()]

    functions: dict[str, set[str]] = {}
    notes: Counter[str] = Counter()
    static: Counter[str] = Counter()
    per_lab: Counter[str] = Counter()
    with_expect = 0
    for annotation in loaded.annotations:
        functions.setdefault(annotation.source, set()).add(annotation.target)
        notes[annotation.source] += len(annotation.steps)
        per_lab[annotation.lab] += len(annotation.steps)
        for step in annotation.steps:
            if step.static:
                static[annotation.source] += 1
            elif step.expect:
                with_expect += 1

    frameworks = {
        source: FrameworkCounts(functions=len(targets), notes=notes[source], static_notes=static[source]) for source, targets in sorted(functions.items())
    }
    total_functions = sum(len(t) for t in functions.values())
    total_notes = sum(notes.values())
    return CurriculumCounts(
        labs=len(lab_dirs),
        labs_complete=len(complete),
        annotations=len(loaded.annotations),
        functions=total_functions,
        notes=total_notes,
        notes_with_expect=with_expect,
        static_notes=sum(static.values()),
        frameworks=frameworks,
        notes_per_lab=dict(sorted(per_lab.items())),
        meets_functions=total_functions >= MIN_FUNCTIONS,
        meets_notes=total_notes >= MIN_NOTES,
        meets_labs=len(complete) >= MIN_LABS,
        meets_diffsynth=frameworks.get("diffsynth", FrameworkCounts(0, 0, 0)).functions >= MIN_DIFFSYNTH_FUNCTIONS,
    )


def render(counts: CurriculumCounts) -> str:
    def mark(ok: bool) -> str:
        return "yes" if ok else "NO"

    lines = [
        f"labs:                 {counts.labs} ({counts.labs_complete} with index.md and starter.py; target >= {MIN_LABS}: {mark(counts.meets_labs)})",
        f"annotations:          {counts.annotations}",
        f"annotated functions:  {counts.functions}  (target >= {MIN_FUNCTIONS}: {mark(counts.meets_functions)})",
        f"notes:                {counts.notes}  (target >= {MIN_NOTES}: {mark(counts.meets_notes)})",
        f"  with expect:        {counts.notes_with_expect}",
        f"  static:             {counts.static_notes}",
        "per framework:",
    ]
    for source, fw in counts.frameworks.items():
        lines.append(f"  {source:<12} functions {fw.functions:>3}   notes {fw.notes:>4}   static {fw.static_notes:>3}")
    lines.append(f"DiffSynth functions target >= {MIN_DIFFSYNTH_FUNCTIONS}: {mark(counts.meets_diffsynth)}")
    lines.append("notes per lab:")
    for lab, n in counts.notes_per_lab.items():
        lines.append(f"  {lab:<32} {n:>4}")
    lines.append(f"targets met: {mark(counts.meets_targets)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=Path(__file__).resolve().parent.parent, help="project root (default: this repository)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    counts = count(args.project)
    if args.json:
        payload = asdict(counts)
        payload["meets_targets"] = counts.meets_targets
        print(json.dumps(payload, indent=2))
    else:
        print(render(counts))
    return 0 if counts.meets_targets else 1


if __name__ == "__main__":
    sys.exit(main())

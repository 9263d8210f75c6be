"""``validate``'s scenario check: every scenario an annotation names is defined in the project's ``scenarios/``.

The folder is read statically (:mod:`infralens.scenarios`), so this costs a parse of a few files and
never imports torch. A project without a scenarios folder is not checked here (``verify`` says which
scenario is unknown when it runs).
"""

from __future__ import annotations

from collections.abc import Iterable

from infralens.annotations import Annotation
from infralens.errors import Diagnostic, Location
from infralens.project import Project
from infralens.scenarios import discover_scenarios


def scenario_diagnostics(project: Project, annotations: Iterable[Annotation], *, folder_problems: bool = True) -> list[Diagnostic]:
    """An error at ``file:line`` for each annotation or step naming a scenario no module defines.

    With *folder_problems*, also what is wrong in the scenario files themselves (a file that does not
    parse, a name declared twice, a declaration that is not a literal).
    """
    folder = project.scenario_folder
    if not folder.is_dir():
        return []
    catalog = discover_scenarios(folder, project.root)
    known = set(catalog.names())
    shown = project.relative(folder)
    listing = ", ".join(sorted(known)) or "none yet"
    hint = f"add {shown}/NAME.py defining 'def run(device: str) -> None', or declare it with @scenario(...) (known: {listing})"
    found: list[Diagnostic] = list(catalog.problems) if folder_problems else []
    for annotation in annotations:
        named = [(annotation.scenario, annotation.location)] + [(step.scenario, step.location or annotation.location) for step in annotation.steps]
        for scenario, location in named:
            if scenario and scenario not in known:
                where = location or Location(annotation.path)
                found.append(Diagnostic(where, f"scenario {scenario!r} is not defined in {shown}/", hint, code="scenario"))
    return found

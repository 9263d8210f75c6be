"""``infralens add``: selectors from a target or lines, appending, TODO notes, round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infralens.annotations.load import load_file
from infralens.annotations.models import ContainsSelector, ExactSelector
from infralens.cli import main
from infralens.maintainer.scaffold import parse_selection, plan_scaffold
from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache
from infralens.source.distributions import DirectoryTree

DIST = "fakedist"


def resolver_for(project: Path) -> Resolver:
    return Resolver({DIST: DirectoryTree(project / "site", DIST, "1.0")}, cache=IndexCache(persistent=False))


def source_line(project: Path, text: str) -> int:
    lines = (project / "site" / DIST / "sched.py").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def resolved_lines(project: Path, path: Path) -> list[int]:
    result = load_file(path)
    [annotation] = result.annotations
    resolved, problems = resolver_for(project).resolve_annotation(annotation)
    assert resolved is not None, problems
    return [step.statements[0].start_line for step in resolved.steps]


def test_parse_selection_forms():
    assert parse_selection("fakedist/sched.py:L3-L7").relpath == "fakedist/sched.py"
    assert parse_selection("fakedist/sched.py:L3").last_line == 3
    assert parse_selection("fakedist.sched.Sched.step").target == "fakedist.sched.Sched.step"
    assert parse_selection("pkg/mod.py:L1-L2", "otherdist").distribution == "otherdist"
    for bad in ("fakedist/sched.py", "fakedist/sched.py:L9-L3", "fakedist/sched.py:ten", "../x.py:L1", "not a target"):
        with pytest.raises(Exception) as error:
            parse_selection(bad)
        assert "infralens" in type(error.value).__module__


def test_target_scaffold_picks_top_level_assignments_and_returns(project):
    plan = plan_scaffold(resolver_for(project), parse_selection("fakedist.sched.Sched.step"))
    texts = [step.selector for step in plan.steps]
    assert texts[0] == ExactSelector("prev = t - 1")  # original text, comment dropped
    # the duplicated statement gets {contains, nth}; the nested 'prev = 0' is not top level
    assert texts[1] == ContainsSelector("y = x * 2", 1) and texts[2] == ContainsSelector("y = x * 2", 2)
    assert texts[3] == ExactSelector("out = combine(\n    x,\n    y,\n)")  # reads as written
    assert texts[4] == ExactSelector("return out")
    assert len(texts) == 5


def test_target_without_key_statements_gets_its_header(project):
    plan = plan_scaffold(resolver_for(project), parse_selection("fakedist.sched.Sched"))
    assert [s.selector for s in plan.steps] == [ExactSelector("class Sched:")]


@pytest.mark.parametrize("first_text,last_text", [("prev = t - 1", "y = x * 2"), ("def step", "def step"), ("out = combine(", "return out")])
def test_line_selection_round_trips_to_exactly_the_chosen_statements(project, first_text, last_text, cli):
    first, last = source_line(project, first_text), source_line(project, last_text)
    spec = f"fakedist/sched.py:L{first}-L{last}"
    assert main(cli("add", spec, "--lab", "01-lab", "--id", "sel")) == 0
    written = project / "annotations" / DIST / "sel.yaml"
    text = written.read_text()
    assert "L" + str(first) not in text and f"line {first}" not in text  # selectors never carry line numbers
    plan = plan_scaffold(resolver_for(project), parse_selection(spec))
    assert resolved_lines(project, written) == [step.statement.start_line for step in plan.steps]
    assert all(first <= n <= last for n in resolved_lines(project, written))


def test_module_level_lines_are_refused_with_a_reason(project, capsys, cli):
    line = source_line(project, "def combine")
    assert main(cli("add", f"fakedist/sched.py:L{line - 1}-L{line - 1}", "--lab", "01-lab")) == 2
    assert "no statement starts on these lines" in capsys.readouterr().err


def test_new_file_needs_a_lab(project, capsys, cli):
    assert main(cli("add", "fakedist.sched.Sched.step")) == 2
    assert "--lab" in capsys.readouterr().err
    assert not list((project / "annotations" / DIST).iterdir())


def test_todo_notes_are_flagged_by_validate_until_written(project, capsys, cli):
    assert main(cli("add", "fakedist.sched.Sched.other", "--lab", "01-lab")) == 0
    path = project / "annotations" / DIST / "sched-other.yaml"
    capsys.readouterr()
    assert main(cli("validate")) == 1
    err = capsys.readouterr().err
    assert err.count("note still says TODO") == 2 and "sched-other.yaml" in err
    assert "summary still says TODO" in err
    path.write_text(path.read_text().replace("TODO: explain", "Explains"))
    assert main(cli("validate")) == 1
    assert "summary still says TODO" in capsys.readouterr().err
    path.write_text(path.read_text().replace("TODO: say", "Says"))
    assert main(cli("validate")) == 0


def test_appending_keeps_existing_text_and_comments(project, capsys, cli):
    existing = (
        "# Hand-written header comment.\n"
        "id: hand\n"
        "lab: 01-lab\n"
        "source: fakedist\n"
        "target: fakedist.sched.Sched.step\n"
        "summary: Written by hand.  # trailing comment\n"
        "steps:\n"
        "  # a comment above the first step\n"
        '  - at: "return out"\n'
        "    note: |\n"
        "      Returns the combination.\n"
        "# a comment after the steps\n"
        "scenario: fake-scenario\n"
    )
    path = project / "annotations" / DIST / "hand.yaml"
    path.write_text(existing)
    first, last = source_line(project, "prev = t - 1"), source_line(project, "return out")
    assert main(cli("add", f"fakedist/sched.py:L{first}-L{last}")) == 0
    out = capsys.readouterr()
    text = path.read_text()
    assert text.startswith(existing.split("# a comment after the steps", maxsplit=1)[0])  # everything before the insertion point is untouched
    assert text.endswith("# a comment after the steps\nscenario: fake-scenario\n")
    assert "already annotated" in out.err  # 'return out' was not added twice
    lines = resolved_lines(project, path)
    assert lines[0] == last and sorted(lines[1:]) == lines[1:] and len(lines) == len(set(lines))
    assert main(cli("add", f"fakedist/sched.py:L{last}-L{last}")) == 1  # nothing new: says so


def test_dry_run_writes_nothing(project, capsys, cli):
    assert main(cli("add", "fakedist.sched.combine", "--lab", "01-lab", "--dry-run")) == 0
    assert "target: fakedist.sched.combine" in capsys.readouterr().out
    assert not list((project / "annotations" / DIST).iterdir())


def test_the_lock_is_never_touched(project, cli):
    lock = project / "annotations" / "annotations.lock"
    assert main(cli("add", "fakedist.sched.combine", "--lab", "01-lab")) == 0
    assert not lock.exists()


def test_appending_to_one_annotation_of_a_list_file(project, cli):
    text = (
        "- id: first\n  lab: 01-lab\n  source: fakedist\n  target: fakedist.sched.Sched.other\n  summary: Other.\n"
        '  steps:\n    - at: "prev = 1"\n      note: One.\n'
        "- id: second  # the one to extend\n  lab: 01-lab\n  source: fakedist\n  target: fakedist.sched.combine\n  summary: Combine.\n"
        '  steps:\n    - at: "return a + b"\n      note: Sum.\n'
    )
    path = project / "annotations" / DIST / "many.yaml"
    path.write_text(text)
    line = source_line(project, "return prev")
    assert main(cli("add", f"fakedist/sched.py:L{line}-L{line}")) == 0  # Sched.other -> annotation 'first'
    result = load_file(path)
    assert not [d for d in result.diagnostics if d.code != "todo"]
    first, second = result.annotations
    assert len(first.steps) == 2 and len(second.steps) == 1
    after = path.read_text()
    assert after.startswith(text.split("- id: second", maxsplit=1)[0])  # 'first' keeps its text; the new step follows it
    assert after.endswith("- id: second" + text.split("- id: second")[1])  # 'second' untouched, comment included


def test_flow_style_steps_are_not_rewritten(project, cli, capsys):
    path = project / "annotations" / DIST / "flow.yaml"
    original = 'id: flow\nlab: 01-lab\nsource: fakedist\ntarget: fakedist.sched.combine\nsummary: S.\nsteps: [{at: "return a + b", note: N.}]\n'
    path.write_text(original)
    assert main(cli("add", "fakedist/sched.py:L" + str(source_line(project, "def combine")) + "-L" + str(source_line(project, "def combine")))) == 2
    assert "flow style" in capsys.readouterr().err
    assert path.read_text() == original


def test_conditional_definitions_get_definition_n(tmp_path, cli, project):
    (project / "site" / DIST / "cond.py").write_text(
        "import sys\n\nif sys.version_info >= (3, 99):\n    def pick(x):\n        return x + 1\nelse:\n    def pick(x):\n        return x - 1\n"
    )
    assert main(cli("add", "fakedist/cond.py:L8-L8", "--lab", "01-lab")) == 0
    path = project / "annotations" / DIST / "pick.yaml"
    assert "definition: 2\n" in path.read_text()
    assert resolved_lines(project, path) == [8]
    assert main(cli("add", "fakedist.cond.pick", "--lab", "01-lab", "--id", "other")) == 2  # ambiguous by name alone


def test_the_scenario_comes_from_the_committed_reports(project, capsys, cli):
    """A coverage map that reaches the target gives 'scenario:'; without one, a comment says how to find one."""
    assert main(cli("add", "fakedist.sched.Sched.other", "--lab", "01-lab", "--dry-run")) == 0
    text = capsys.readouterr().out
    assert "# scenario: NAME   # no committed report shows a scenario reaching this function" in text
    (project / "reports").mkdir(exist_ok=True)
    functions = [{"dist": DIST, "file": "fakedist/sched.py", "qualname": "Sched.other", "line": 1, "calls": 2}]
    for name, calls in (("slow-one", 1), ("fast-one", 5)):
        document = {"format": 1, "scenario": name, "status": "passed", "error": None, "seconds": 0.1, "device": "cpu", "versions": {}}
        document |= {"functions": [dict(functions[0], calls=calls)], "tree": [{"f": 0, "calls": calls}]}
        (project / "reports" / f"coverage-{name}.json").write_text(json.dumps(document))
    assert main(cli("add", "fakedist.sched.Sched.other", "--lab", "01-lab", "--dry-run")) == 0
    text = capsys.readouterr().out
    assert "\nscenario: fast-one   # reaches this function, per reports/ (also reached by: slow-one)\n" in text

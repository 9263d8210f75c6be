"""A project's own scenarios: found in its ``scenarios/`` folder without importing it, checked by validate, run by verify."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _device import requires_torch
from verify_helpers import REPO_SCENARIOS, line_of

from infralens.cli import main
from infralens.scenarios import DEFAULT_PROCESS, ScenarioForm, discover_scenarios

TOPK_SCENARIO = '''
"""Top-k filtering of a few rows of random scores."""

import torch
from transformers.generation.logits_process import TopKLogitsWarper


def run(device: str) -> None:
    scores = torch.randn(3, 10, generator=torch.Generator().manual_seed(0)).to(device)
    kept = TopKLogitsWarper(top_k=4)(None, scores)
    assert bool((torch.isfinite(kept).sum(-1) == 4).all())
'''

TOPK_ANNOTATION = """
id: topk-warper
lab: 01-sampling
source: transformers
target: transformers.generation.logits_process.TopKLogitsWarper.__call__
summary: Keeps the k largest scores of each row and sets every other score to the filter value.
scenario: topk
steps:
  - at: "scores_processed = scores.masked_fill(indices_to_remove, self.filter_value)"
    note: A score below the k-th largest of its row becomes the filter value; the k largest stay as they were.
    expect:
      - "torch.equal(scores_processed, torch.where(scores >= torch.topk(scores, top_k).values[..., -1:], scores, torch.full_like(scores, self.filter_value)))"
"""


def _write(folder: Path, files: dict[str, str]) -> Path:
    for relpath, text in files.items():
        path = folder / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return folder


def test_both_forms_are_listed_from_the_files_without_importing_them(tmp_path):
    folder = _write(
        tmp_path / "scenarios",
        {
            "topk.py": "raise SystemExit('imported!')\n\ndef run(device: str) -> None:\n    '''Top-k on random scores.'''\n",
            "pair.py": """
                from infralens.scenarios import scenario

                PROCESS = "own-group"
                IMPORTS = ("json",)

                @scenario("first-one", "the first")
                def first(ctx):
                    pass

                @scenario("second-one", process="other", imports=("csv",))
                def second(ctx):
                    '''Summary from the docstring.'''
            """,
            "_helpers.py": "def run(device):\n    pass\n",
        },
    )
    catalog = discover_scenarios(folder)
    assert catalog.names() == ("first-one", "second-one", "topk")
    first, second, topk = catalog.specs
    assert (first.process, first.imports, first.summary, first.form) == ("own-group", ("json",), "the first", ScenarioForm.CONTEXT)
    assert (second.process, second.imports, second.summary) == ("other", ("json", "csv"), "Summary from the docstring.")
    assert (topk.process, topk.function, topk.summary, topk.form) == (DEFAULT_PROCESS, "run", "Top-k on random scores.", ScenarioForm.DEVICE)
    assert not catalog.problems


def test_listing_scenarios_never_imports_torch(tmp_path):
    code = "from pathlib import Path; import sys; from infralens.scenarios import discover_scenarios\n"
    code += f"assert len(discover_scenarios(Path({str(REPO_SCENARIOS)!r})).specs) > 40\nassert 'torch' not in sys.modules, 'torch was imported'\n"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_problems_in_scenario_files_are_located(tmp_path):
    folder = _write(
        tmp_path / "scenarios",
        {
            "a.py": "from infralens.scenarios import scenario\n\n@scenario('same')\ndef one(ctx):\n    pass\n",
            "b.py": (
                "from infralens.scenarios import scenario\n\nNAME = 'x'\n\n@scenario('same')\ndef two(ctx):\n    pass\n\n"
                "@scenario(NAME)\ndef three(ctx):\n    pass\n"
            ),
            "broken.py": "def run(device):\n    return (\n",
            "empty.py": "VALUE = 1\n",
            "noarg.py": "def run():\n    pass\n",
        },
    )
    catalog = discover_scenarios(folder, tmp_path)
    messages = sorted(str(problem) for problem in catalog.problems)
    assert catalog.names() == ("same",)
    assert any(m.startswith("scenarios/b.py:5:1: error: scenario 'same' is already defined at scenarios/a.py:3") for m in messages), messages
    assert any(m.startswith("scenarios/b.py:9:2: error: @scenario's name must be a literal") for m in messages), messages
    assert any(m.startswith("scenarios/broken.py:2:") and "does not parse" in m for m in messages), messages
    assert any(m.startswith("scenarios/empty.py:1:1: warning: this scenario file defines no scenario") for m in messages), messages
    assert any(m.startswith("scenarios/noarg.py:1:1: error: run() must take the device name") for m in messages), messages


def _project(tmp_path: Path, annotation: str = TOPK_ANNOTATION, scenario: str = TOPK_SCENARIO) -> Path:
    root = tmp_path / "project"
    (root / "labs" / "lab-01-sampling").mkdir(parents=True)
    return _write(root, {"annotations/transformers/topk.yaml": annotation, "scenarios/topk.py": scenario})


def test_validate_reports_a_scenario_no_module_defines_at_its_line(tmp_path, capsys):
    step_level = TOPK_ANNOTATION.replace("    expect:\n", "    scenario: top-p\n    expect:\n")
    root = _project(tmp_path, step_level.replace("scenario: topk\n", "scenario: tok\n"))
    code = main(["--project", str(root), "validate"])
    out, err = capsys.readouterr()
    path = root / "annotations/transformers/topk.yaml"
    assert code == 1, out + err
    assert "annotations/transformers/topk.yaml:1:1: error: scenario 'tok' is not defined in scenarios/" in err
    step_line = line_of(path, "at: ")
    assert f"annotations/transformers/topk.yaml:{step_line}:5: error: scenario 'top-p' is not defined in scenarios/" in err
    assert "known: topk" in err and "Traceback" not in err


def test_verify_list_shows_the_projects_scenarios(tmp_path, capsys):
    root = _project(tmp_path)
    assert main(["--project", str(root), "verify", "--list"]) == 0
    out = capsys.readouterr().out
    assert "topk" in out and "Top-k filtering of a few rows of random scores." in out
    assert "tiny-sd-ddim" not in out  # the library holds no scenarios of its own


def test_an_unknown_scenario_option_names_the_projects_catalog(tmp_path, capsys):
    root = _project(tmp_path)
    assert main(["--project", str(root), "verify", "--scenario", "forward-noise"]) == 2
    assert "unknown scenario(s) forward-noise" in capsys.readouterr().err


@requires_torch
@pytest.mark.parametrize("mutate", [False, True], ids=["plain", "mutate"])
def test_a_fresh_projects_own_scenario_checks_a_transformers_step(tmp_path, capsys, mutate):
    root = _project(tmp_path)
    report = tmp_path / "verify.json"
    extra = ["--mutate", "--max-mutants", "3"] if mutate else []
    code = main(["--project", str(root), "verify", "--device", "cpu", "--scenario", "topk", "--report", str(report), *extra])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    data = json.loads(report.read_text())
    assert data["scenarios"]["topk"]["status"] == "passed"
    (step,) = data["steps"].values()
    assert step["status"] == "passed" and step["times_ran"] == 1 and step["tier"] == ("checked" if mutate else "held"), step
    if mutate:
        assert step["mutants"]["killed_by"]["expect"] >= 1, step


@requires_torch
def test_declared_scenarios_may_share_helpers_through_relative_imports(tmp_path, capsys):
    scenario = """
        from infralens.scenarios import scenario

        from ._inputs import scores


        @scenario("topk", "Top-k through a helper module")
        def run_topk(ctx):
            from transformers.generation.logits_process import TopKLogitsWarper

            kept = TopKLogitsWarper(top_k=4)(None, scores(ctx.device))
            ctx.check(kept.shape == (3, 10), "shape changed")
            ctx.fact("kept", int((kept > float("-inf")).sum()))
    """
    root = _project(tmp_path, scenario="")
    (root / "scenarios" / "topk.py").unlink()
    helper = "import torch\n\n\ndef scores(device):\n    return torch.randn(3, 10, generator=torch.Generator().manual_seed(0)).to(device)\n"
    _write(root / "scenarios", {"sampling.py": scenario, "_inputs.py": helper})
    report = tmp_path / "verify.json"
    code = main(["--project", str(root), "verify", "--device", "cpu", "--scenario", "topk", "--report", str(report)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert json.loads(report.read_text())["scenarios"]["topk"]["facts"] == {"kept": "12"}


def test_the_repository_scenarios_import_infralens_only_through_its_packages():
    import ast

    problems = []
    for path in sorted(REPO_SCENARIOS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.startswith("infralens.") and node.module.count(".") > 1:
                problems.append(f"{path.name}:{node.lineno}: from {node.module} import ...")
    assert not problems, "import these from the package (infralens.tiny, infralens.verify):\n" + "\n".join(problems)


def test_on_another_release_only_what_the_scenario_itself_misses_is_not_run(tmp_path):
    from infralens.reports import ScenarioStatus
    from infralens.verify.run.worker import run_scenario

    folder = _write(
        tmp_path / "scenarios",
        {
            "own-line.py": "import json\n\n\ndef run(device):\n    json.no_such_function()\n",
            "own-import.py": "def run(device):\n    from json import no_such_name  # noqa: F401\n",
            "deep.py": "from ._helper import fail\n\n\ndef run(device):\n    fail()\n",
            "_helper.py": "def fail():\n    return None.type\n",
        },
    )
    catalog = discover_scenarios(folder)
    outcomes = {name: run_scenario(catalog.spec(name), (), "cpu", "settrace", other_release=True) for name in catalog.names()}
    assert outcomes["own-line"].status is ScenarioStatus.NOT_RUN and "needs an API this release lacks" in (outcomes["own-line"].error or "")
    assert outcomes["own-import"].status is ScenarioStatus.NOT_RUN and "no_such_name" in (outcomes["own-import"].error or "")
    assert outcomes["deep"].status is ScenarioStatus.ERROR, outcomes["deep"]  # the release behaving differently, not a missing API
    plain = run_scenario(catalog.spec("own-line"), (), "cpu", "settrace")
    assert plain.status is ScenarioStatus.ERROR  # on the installed release, a scenario's own mistake is an error

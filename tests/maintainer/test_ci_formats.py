"""``--format github|junit|sarif`` of check, validate and verify: paths from the git repository's root (the project
sits in a subfolder here), exit 0 clean, 1 findings (a TODO note included), 2 the tool could not run (then written
in the format too)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from infralens.cli import main

ANNOTATION_FILE = "course/annotations/toylib/double.yaml"
"""The toy annotation's path from the repository root: the project is the repository's ``course/`` folder."""


@pytest.fixture
def repo(toy: Path) -> Path:
    """The toy project as the ``course/`` folder of a git repository (a ``.git`` folder above it)."""
    (toy.parent / ".git").mkdir()
    return toy


def _run(capsys, root: Path, *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--project", str(root), "--source", f"toylib={root / 'site'}", "--no-cache", *args])
    return code, capsys.readouterr().out


def _junit(text: str) -> ET.Element:
    suites = ET.fromstring(text)
    assert suites.tag == "testsuites"
    (suite,) = suites.findall("testsuite")
    cases = suite.findall("testcase")
    assert int(suite.get("tests", "-1")) == len(cases)
    assert int(suite.get("failures", "-1")) == sum(case.find("failure") is not None for case in cases)
    assert int(suite.get("skipped", "-1")) == sum(case.find("skipped") is not None for case in cases)
    return suite


def _sarif(text: str) -> dict:
    """The log, after checking what SARIF 2.1.0 requires of it and of each result."""
    log = json.loads(text)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert isinstance(driver["name"], str) and driver["name"]
    rules = [rule["id"] for rule in driver["rules"]]
    assert len(rules) == len(set(rules))
    for invocation in run["invocations"]:
        assert isinstance(invocation["executionSuccessful"], bool)
    for result in run["results"]:
        assert isinstance(result["message"]["text"], str) and result["message"]["text"]
        assert result["level"] in ("none", "note", "warning", "error")
        assert rules[result["ruleIndex"]] == result["ruleId"]
        for location in result.get("locations", []):
            physical = location["physicalLocation"]
            uri = physical["artifactLocation"]["uri"]
            assert not uri.startswith("/") and physical["region"]["startLine"] >= 1
    return log


def test_check_clean_then_drifted_in_each_format(repo: Path, capsys) -> None:
    assert _run(capsys, repo, "lock")[0] == 0
    code, out = _run(capsys, repo, "check", "--format", "junit")
    assert code == 0
    suite = _junit(out)
    assert [case.get("name") for case in suite.findall("testcase")] == ["toy-double", "toy-double/twice"] and suite.get("failures") == "0"
    core = repo / "site" / "toylib" / "core.py"
    core.write_text(core.read_text().replace("y = x * 2", "y = x * 3"))
    code, out = _run(capsys, repo, "check", "--format", "github")
    assert code == 1
    assert re.search(rf"^::warning file={re.escape(ANNOTATION_FILE)},line=\d+,title=infralens drift%3A changed::toy-double/twice", out, re.M), out
    code, out = _run(capsys, repo, "check", "--format", "junit")
    assert code == 1
    target, step = _junit(out).findall("testcase")
    assert target.find("failure") is None  # the function's body changed: a notice, which fails only under --strict
    assert step.get("file") == ANNOTATION_FILE and step.find("failure") is not None and step.find("failure").get("type") == "drift/changed"
    code, out = _run(capsys, repo, "check", "--format", "sarif")
    assert code == 1
    result = next(r for r in _sarif(out)["runs"][0]["results"] if r["level"] == "warning")
    assert result["ruleId"] == "drift/changed" and result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == ANNOTATION_FILE


def test_a_todo_note_is_a_finding_exit_1_not_a_tool_error(repo: Path, capsys) -> None:
    assert _run(capsys, repo, "lock")[0] == 0
    path = repo / "annotations" / "toylib" / "double.yaml"
    path.write_text(path.read_text().replace("note: Twice the input.", "note: TODO"))
    code, out = _run(capsys, repo, "check", "--format", "github")
    assert code == 1
    assert f"::warning file={ANNOTATION_FILE}," in out and "todo::toy-double/twice: todo" in out.replace("%3A", ":"), out
    code, out = _run(capsys, repo, "check")
    assert code == 1 and "toy-double/twice: todo: " in out and "write it, then remove TODO" in out


def test_a_tool_error_is_exit_2_and_written_in_the_format(repo: Path, capsys) -> None:
    (repo / "annotations" / "annotations.lock").write_text("not a lock\n")
    code, out = _run(capsys, repo, "check", "--format", "github")
    assert code == 2 and out.startswith("::error title=infralens check could not run::"), out
    code, out = _run(capsys, repo, "check", "--format", "sarif")
    log = _sarif(out)
    assert code == 2 and log["runs"][0]["invocations"][0]["executionSuccessful"] is False
    assert "annotations.lock" in log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    code, out = _run(capsys, repo, "check", "--format", "junit")
    (case,) = _junit(out).findall("testcase")
    assert code == 2 and case.find("failure").get("type") == "check/tool-error"


def test_validate_in_each_format(repo: Path, capsys) -> None:
    path = repo / "annotations" / "toylib" / "double.yaml"
    code, out = _run(capsys, repo, "validate", "--format", "junit")
    assert code == 0 and [c.get("name") for c in _junit(out).findall("testcase")] == ["annotations/toylib/double.yaml"]
    path.write_text(path.read_text().replace('at: "y = x * 2"', 'at: "y = x * 5"'))
    code, out = _run(capsys, repo, "validate", "--format", "github")
    assert code == 1 and re.search(rf"^::error file={re.escape(ANNOTATION_FILE)},line=\d+,title=infralens validate%3A selector::", out, re.M), out
    code, out = _run(capsys, repo, "validate", "--format", "sarif")
    results = _sarif(out)["runs"][0]["results"]
    assert code == 1 and any(r["level"] == "error" and r["ruleId"] == "validate/selector" for r in results)
    code, out = _run(capsys, repo, "validate", "--format", "junit")
    assert code == 1 and _junit(out).get("failures") != "0"


@pytest.mark.slow
def test_verify_in_each_format(repo: Path, capsys) -> None:
    code, out = _run(capsys, repo, "verify", "--device", "cpu", "--format", "junit")
    (case,) = _junit(out).findall("testcase")
    assert code == 0 and case.get("name") == "toy-double/twice" and case.find("failure") is None
    path = repo / "annotations" / "toylib" / "double.yaml"
    path.write_text(path.read_text().replace('expect: ["y == 2 * x"]', 'expect: ["y == 3 * x"]'))
    code, out = _run(capsys, repo, "verify", "--device", "cpu", "--format", "github")
    assert code == 1 and re.search(rf"^::error file={re.escape(ANNOTATION_FILE)},line=\d+,title=infralens verify%3A expect failed::", out, re.M), out
    code, out = _run(capsys, repo, "verify", "--device", "cpu", "--format", "sarif")
    (result,) = _sarif(out)["runs"][0]["results"]
    assert code == 1 and result["ruleId"] == "verify/expect-failed" and "y == 3 * x" in result["message"]["text"]

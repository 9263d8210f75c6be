"""verify/ in three parts and the command: each part imports only the parts before it; the words it passes
around are enums whose values are what the report, the CLI and the worker protocol always said."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from infralens.reports import MutantKind, report_schema
from infralens.verify.cli import add_verify_parser
from infralens.verify.run.protocol import Event, Finished, Ready, ScenarioOutcome, Started, WorkerRequest, decode, encode
from infralens.verify.trace.backend_name import BackendName
from infralens.verify.trace.tracer import BACKENDS, choose_backend

VERIFY = Path(__file__).resolve().parents[2] / "src" / "infralens" / "verify"
ORDER = ("trace", "mutate", "run", "")
"""The parts, lowest first; "" is the command on top (command, cli, report, progress)."""


def _part(path: Path) -> str:
    inside = path.relative_to(VERIFY).parts
    return inside[0] if len(inside) > 1 else ""


def _imported_parts(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
        names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        for name in names:
            if name.startswith("infralens.verify."):
                head = name.split(".")[2]
                found.add(head if head in ORDER else "")
    return found


MODULES = sorted(p for p in VERIFY.rglob("*.py") if p.name != "__init__.py" or p.parent != VERIFY)


def test_every_part_has_modules() -> None:
    assert {_part(path) for path in MODULES} == set(ORDER)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(VERIFY)))
def test_a_part_imports_only_the_parts_before_it(path: Path) -> None:
    mine = ORDER.index(_part(path))
    above = {part for part in _imported_parts(path) if ORDER.index(part) > mine}
    assert not above, f"{path.relative_to(VERIFY)} ({ORDER[mine] or 'command'}) imports the later part(s) {sorted(above)}"


def test_one_module_walks_the_collectors_objects() -> None:
    walkers = sorted(str(p.relative_to(VERIFY)) for p in VERIFY.rglob("*.py") if "gc.get_objects" in p.read_text("utf-8"))
    assert walkers == ["trace/functions.py"]


def test_the_mutant_kinds_are_the_reports_words() -> None:
    schema = report_schema()["$defs"]["verifyMutant"]["properties"]["kind"]
    assert schema["enum"] == [kind.value for kind in MutantKind]
    assert json.dumps(list(MutantKind)) == json.dumps([kind.value for kind in MutantKind])


def test_the_backends_are_the_cli_choices() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_verify_parser(parser.add_subparsers())
    args = parser.parse_args(["verify", "--backend", "settrace"])
    assert args.backend == BackendName.SETTRACE and tuple(BackendName) == BACKENDS
    assert choose_backend("auto") in {BackendName.SETTRACE, BackendName.INSTRUMENT, BackendName.MONITORING}
    with pytest.raises(ValueError, match="unknown tracer backend 'strace'"):
        choose_backend("strace")


def test_the_protocol_lines_keep_their_event_words() -> None:
    from infralens.reports import ScenarioStatus

    messages = [Ready("cpu", 7, 0.5), Started("toy"), ScenarioOutcome("toy", ScenarioStatus.PASSED, 1.0), Finished(2.0)]
    lines = [encode(message) for message in messages]
    assert [json.loads(line)["event"] for line in lines] == ["ready", "start", "done", "finished"] == [event.value for event in Event]
    assert [decode(line) for line in lines] == messages
    request = WorkerRequest("cpu", BackendName.MONITORING, ())
    assert json.loads(request.encode())["backend"] == "monitoring"
    assert WorkerRequest.decode(request.encode()).backend is BackendName.MONITORING


def test_the_worker_protocol_goes_through_the_records_both_ways() -> None:
    from infralens.reports import MutantKind, MutantRecord, MutantsRecord, MutantVerdict, ScenarioStatus
    from infralens.verify.run.protocol import ScenarioJob
    from infralens.verify.trace.probes import ExpectResult, Probe, ProbeResult

    probe = Probe("a/b", "/x/mod.py", "f", (3, 4), (5, 5), "f", ("y > 0",), "mod")
    request = WorkerRequest("cpu", BackendName.SETTRACE, (ScenarioJob("toy", (probe,), ("a/b",)),), 2, "/p/scenarios", ("/env",))
    assert WorkerRequest.decode(request.encode()) == request
    assert json.loads(request.encode())["scenarios"][0]["probes"][0]["entry"] == [3, 4]
    mutants = MutantsRecord(1, 1, {"expect": 1}, (MutantRecord(MutantKind.SWAP, MutantVerdict.CAUGHT, "y = b - a", "a/b"),))
    result = ProbeResult("a/b", 2, (ExpectResult("y > 0", 2, 0, "y=1"),))
    outcome = ScenarioOutcome("toy", ScenarioStatus.PASSED, 1.5, None, 1.25, {"fact": "1"}, {"a/b": result}, {"a/b": mutants})
    assert decode(encode(outcome)) == outcome
    assert json.loads(encode(outcome))["mutants"]["a/b"]["records"][0]["kind"] == "swap"


@pytest.mark.parametrize("line", ["not json", "[1, 2]", '{"event": "start"}', '{"event": "sprint", "scenario": "x"}', '{"event": 3}', '{"scenario": "x"}'])
def test_a_line_that_is_not_a_message_decodes_to_nothing(line: str) -> None:
    assert decode(line) is None


def test_the_package_keeps_its_entry_points() -> None:
    """Code outside verify (coverage, init, the Sphinx extension, the release matrix) imports these from the package."""
    from infralens import verify

    before = {"ScenarioCheckError", "ScenarioContext", "ScenarioRun", "TOKEN_SEPARATORS", "project_catalog", "run_scenario", "scenario_spec"}
    added = {"run_verify", "VerifyOptions", "install_release", "parse_pin", "OtherRelease"}
    assert before | added <= set(verify.__all__)
    assert verify.run_verify.__module__ == "infralens.verify.command" and verify.install_release.__module__ == "infralens.verify.run.against"

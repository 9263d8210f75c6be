"""infralens.reports: both committed reports load through one validating loader and are written back byte for byte."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from infralens.reports import (
    DriftReport,
    ReportError,
    ScenarioStatus,
    StepStatus,
    StepTier,
    VerifyReport,
    dumps_report,
    load_drift_report,
    load_report,
    load_verify_report,
)
from infralens.userfiles import write_atomically
from infralens.verify.run.protocol import Finished, Ready, ScenarioJob, ScenarioOutcome, Started, WorkerRequest, decode, encode
from infralens.verify.trace.probes import ExpectResult, Probe, ProbeResult

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("name", "kind"), [("verify-cpu.json", VerifyReport), ("verify-cuda.json", VerifyReport), ("check.json", DriftReport)])
def test_committed_reports_load_typed_and_dump_byte_identical(name: str, kind: type) -> None:
    path = ROOT / "reports" / name
    report = load_report(path)
    assert isinstance(report, kind)
    text = path.read_text("utf-8")
    if kind is VerifyReport and '"tier"' not in text:  # written before tiers: the loader adds them, nothing else changes
        written = json.loads(dumps_report(report))
        for step in written["steps"].values():
            assert step.pop("tier") in {tier.value for tier in StepTier} and step.pop("tier_reason")
        assert written == json.loads(text)
        return
    assert dumps_report(report) == text


def test_the_committed_reports_say_checked_only_where_their_own_mutant_records_show_it() -> None:
    """Read as raw JSON, not through the loader (which grades again): what a reader of the file sees."""
    cpu = json.loads((ROOT / "reports" / "verify-cpu.json").read_text("utf-8"))
    with_expects = [step for step in cpu["steps"].values() if step["status"] == "passed" and step["expects"]]
    assert with_expects and all("records" in step["mutants"] and len(step["mutants"]["records"]) == step["mutants"]["tried"] for step in with_expects)
    for step_id, step in cpu["steps"].items():
        records = step.get("mutants", {}).get("records", [])
        own = [r for r in records if r["verdict"] == "caught" and r["kind"] != "return"]
        past = [r for r in records if r["verdict"] in ("past-expects", "survived", "untestable")]
        assert (step["tier"] == "checked") == (step["status"] == "passed" and bool(step["expects"]) and bool(own) and not past), step_id
        assert all(r["caught_by"] == step_id for r in records if r["verdict"] == "caught"), step_id
    cuda = json.loads((ROOT / "reports" / "verify-cuda.json").read_text("utf-8"))
    assert not any("mutants" in step for step in cuda["steps"].values())
    assert {step["tier"] for step in cuda["steps"].values()} <= {"held", "ran", "read", "unverified"}


def test_the_schema_ships_in_the_package_and_describes_both_reports() -> None:
    schema = json.loads(resources.files("infralens.reports").joinpath("schema/reports.schema.json").read_text("utf-8"))
    assert {"verifyReport", "checkReport"} <= set(schema["$defs"])
    assert schema["$defs"]["stepStatus"]["enum"] == [status.value for status in StepStatus]
    assert schema["$defs"]["stepTier"]["enum"] == [tier.value for tier in StepTier]
    assert schema["$defs"]["scenarioStatus"]["enum"] == [status.value for status in ScenarioStatus]


def test_write_then_load_round_trips(tmp_path: Path) -> None:
    report = load_verify_report(ROOT / "reports" / "verify-cpu.json")
    path = tmp_path / "deep" / "verify-cpu.json"
    write_atomically(path, dumps_report(report), what="report")  # what verify --report does (reports/ cannot import userfiles)
    assert load_verify_report(path) == report


def test_errors_name_the_file_and_what_is_wrong(tmp_path: Path) -> None:
    broken = tmp_path / "verify-cpu.json"
    broken.write_text('{\n "device": ')
    with pytest.raises(ReportError, match=r"verify-cpu.json:2: not valid JSON") as info:
        load_report(broken)
    assert info.value.line == 2 and info.value.path == broken
    data = json.loads((ROOT / "reports" / "verify-cpu.json").read_text("utf-8"))
    step_id = next(iter(data["steps"]))
    data["steps"][step_id]["status"] = "maybe"
    broken.write_text(json.dumps(data))
    with pytest.raises(ReportError, match=rf"verify-cpu.json: not a valid verification report: 'maybe' is not one of .* \(at steps/{step_id}/status\)"):
        load_report(broken)
    broken.write_text('{"format": 1}')
    with pytest.raises(ReportError, match=r"not a report InfraLens writes \(no .device., .lock., .history. or .cost. key\)"):
        load_report(broken)
    with pytest.raises(ReportError, match="not a valid drift report"):
        load_drift_report(broken)
    with pytest.raises(ReportError, match="cannot read the report"):
        load_report(tmp_path / "missing.json")


def test_a_valid_text_is_validated_once_and_an_edit_is_validated_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from infralens.reports import load as loader

    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[object] = []
    real = loader.validate_report
    monkeypatch.setattr(loader, "validate_report", lambda data, kind: calls.append(kind) or real(data, kind))
    path = tmp_path / "check.json"
    text = (ROOT / "reports" / "check.json").read_text("utf-8")
    path.write_text(text)
    first = load_report(path)
    assert load_report(path) == first and len(calls) == 1  # remembered by content hash
    data = json.loads(text)
    data["clean"] = "yes"
    path.write_text(json.dumps(data))
    with pytest.raises(ReportError, match="not a valid drift report"):
        load_report(path)
    with pytest.raises(ReportError, match="not a valid drift report"):  # an invalid text is never remembered
        load_report(path)
    assert len(calls) == 3


def test_worker_protocol_round_trips() -> None:
    probe = Probe("a/b", "/x/mod.py", "f", (3, 4), (5, 5), "f", ("x > 0",), "pkg.mod")
    request = WorkerRequest("cpu", "auto", (ScenarioJob("forward-noise", (probe,)),))
    assert WorkerRequest.decode(request.encode()) == request
    result = ProbeResult("a/b", 2, (ExpectResult("x > 0", 2, 1, "x=-1", "ValueError: no"),))
    messages = [
        Ready("cuda", 42, 1.5, "H100"),
        Started("forward-noise"),
        ScenarioOutcome("forward-noise", ScenarioStatus.FAILED, 0.25, "scenario check failed: no", 0.2, {"fact": "1"}, {"a/b": result}),
        ScenarioOutcome("lora", ScenarioStatus.ERROR, 0.0, "worker exited"),
        Finished(3.0, ("pandas",)),
    ]
    for message in messages:
        assert decode(encode(message)) == message
    assert decode("some library printed this") is None


def test_a_broken_scenario_is_a_finding_and_a_report_entry(tmp_path: Path) -> None:
    from infralens.verify.report import findings, summary_table, write_report as write_verify_report
    from infralens.verify.run.runner import VerifyResult

    broken = ScenarioOutcome("lora", ScenarioStatus.ERROR, 0.0, "worker exited with status 1")
    result = VerifyResult("cpu", None, "2026-11-21T00:00:00Z", {"python": "3.11"}, (broken,), ())
    assert findings(result) == ["scenario lora: error: worker exited with status 1"]
    assert "lora       error     0.00        0     0    0     0           0       0" in summary_table(result)
    report = load_verify_report(write_verify_report(result, tmp_path / "verify-cpu.json"))
    assert report.scenarios["lora"].status is ScenarioStatus.ERROR and report.scenarios["lora"].error == "worker exited with status 1"

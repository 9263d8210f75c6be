"""Issue 27 items 12 and 15: tampered reports and huge integers give a clear error naming the file, never a crash.

The reports' JSON Schema is generated from the record definitions, so the committed schema must equal
what ``python -m infralens.reports.schema_gen`` writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infralens.annotations.load import load_text
from infralens.errors import InfralensError
from infralens.maintainer.coverage_format import read_json
from infralens.reports import ReportError, load_drift_report, load_history_report, load_report, load_verify_report
from infralens.reports.schema_gen import SCHEMA_FILE, main as schema_main, schema_text
from infralens.source.releases import final_versions, list_releases, version_key

ROOT = Path(__file__).resolve().parents[2]
TAMPERED = {
    "empty-list": "[]",
    "infinity": '{"format": Infinity}',
    "nan": '{"device": NaN}',
    "deep": "[" * 100_000 + "]" * 100_000,
    "deep-object": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "huge-int": '{"format": 1' + "0" * 5000 + "}",
    "huge-float": '{"format": 1e999}',
    "minus-infinity": '{"seconds": -Infinity}',
    "lone-surrogate": '{"device": "\\ud800"}',
}


def test_the_committed_schema_is_the_generated_one():
    assert SCHEMA_FILE.read_text("utf-8") == schema_text(), "regenerate it: python -m infralens.reports.schema_gen"
    assert schema_main(["--check"]) == 0


@pytest.mark.parametrize("name", ["check.json", "verify-cpu.json", "history.json"])
def test_committed_reports_load_unchanged_through_the_records(name):
    path = ROOT / "reports" / name
    report = load_report(path)
    assert json.loads(json.dumps(report.to_json())) == json.loads(path.read_text("utf-8")) or name == "verify-cpu.json"
    assert type(report).from_json(report.to_json()) == report


def test_the_committed_cost_report_round_trips_byte_for_byte():
    """The cost records are generated like the others: reports/cost.json reads and writes back unchanged."""
    from infralens.reports import dumps_cost_report, load_cost_report

    path = ROOT / "reports" / "cost.json"
    report = load_cost_report(path)
    assert dumps_cost_report(report) == path.read_text("utf-8")
    assert type(report).from_json(report.to_json()) == report


@pytest.mark.parametrize("loader", [load_report, load_drift_report, load_verify_report, load_history_report])
@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_a_tampered_report_is_a_report_error_naming_the_file(tmp_path, loader, case):
    path = tmp_path / "check.json"
    path.write_text(TAMPERED[case], "utf-8")
    with pytest.raises(ReportError) as info:
        loader(path)
    assert str(info.value).startswith(str(path)) and info.value.path == path
    assert len(str(info.value)) < 400


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_a_tampered_coverage_report_is_a_clear_error(tmp_path, case):
    path = tmp_path / "coverage-x.json"
    path.write_text(TAMPERED[case], "utf-8")
    with pytest.raises(InfralensError, match=str(path)):
        read_json(path)


def test_the_committed_coverage_reports_still_load():
    paths = sorted((ROOT / "reports").glob("coverage-*.json"))
    assert paths, "no reports/coverage-*.json is committed"
    for path in paths:
        assert read_json(path).functions


def test_the_site_warns_and_goes_on_without_a_tampered_report(tmp_path, monkeypatch):
    from infralens.sphinx import badges

    warnings: list[str] = []
    monkeypatch.setattr(badges, "warn", lambda message, *args, **kwargs: warnings.append(message))
    (tmp_path / "check.json").write_text(TAMPERED["deep"], "utf-8")
    (tmp_path / "verify-cpu.json").write_text(TAMPERED["infinity"], "utf-8")
    (tmp_path / "history.json").write_text(TAMPERED["empty-list"], "utf-8")
    reports = badges.load_reports(tmp_path)
    assert reports.drift is None and reports.verify == () and reports.history is None
    assert len(warnings) == 3 and all("cannot read report" in w for w in warnings)


@pytest.mark.parametrize(
    "nth",
    ["0x" + "f" * 5000, ":".join(["1"] * 3000), "0b" + "1" * 20000, ":".join(["1"] * 300_000)],
    ids=["hex", "sexagesimal", "binary", "long-sexagesimal"],
)
def test_huge_integers_in_other_spellings_are_a_located_error(nth):
    base = "id: a\nlab: 01-lab\nsource: fakedist\ntarget: fakedist.mod.f\nsummary: s\nsteps:\n  - at: x = 1\n    note: n\n"
    for text, where in ((base.replace("  - at: x = 1", f'  - at: {{text: "x = 1", nth: {nth}}}'), "f.yaml:7:30"), (f"- {nth}\n", "f.yaml:1:3")):
        (message,) = (str(d) for d in load_text(text, "f.yaml").diagnostics)
        assert message == f"{where}: error: cannot read this value: the number is too long — write a small whole number (or quote it as a string)"


def test_huge_version_numbers_are_refused_or_skipped(tmp_path):
    huge = "1" * 5000
    with pytest.raises(InfralensError, match="is not a version"):
        version_key(huge)
    with pytest.raises(InfralensError, match="is not a version"):
        version_key(f"1.{huge}")
    assert final_versions(["1.0", huge, f"0.{huge}"]) == ("1.0",)
    (tmp_path / "releases-demo.json").write_text(json.dumps({"versions": ["0.1.0", huge]}), "utf-8")
    assert list_releases("demo", offline=True, folder=tmp_path).versions == ("0.1.0",)


def test_history_since_a_huge_version_is_a_clear_error():
    from infralens.drift.history.build import _bounds

    for spec in ("9" * 5000, "demo=1." + "9" * 5000):
        with pytest.raises(InfralensError, match=r"a text of [\d,]+ characters is not a version"):
            _bounds([spec], {"demo": ("1.0",)}, "--since")

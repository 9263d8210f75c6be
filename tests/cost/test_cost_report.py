"""``infralens cost``: the JSON report against the schema, the text tables, errors without tracebacks, the CUDA guard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infralens.cli import main

pytest.importorskip("diffusers")
ROOT = Path(__file__).resolve().parents[2]


def test_json_report_of_one_model_round_trips(tmp_path, capsys):
    out = tmp_path / "cost.json"
    code = main(["--project", str(ROOT), "cost", "clip-l-text", "--format", "json", "--output", str(out)])
    assert code == 0
    from infralens.reports import cost_report_from_json, cost_report_to_json, validate_cost_report

    data = json.loads(out.read_text())
    assert validate_cost_report(data) is None
    assert data["models"]["clip-l-text"]["params"] == 123_060_480
    assert data["models"]["clip-l-text"]["bytes"]["bf16"] == 2 * 123_060_480
    assert data["pipelines"] == {}  # the pipelines need their other models
    assert "not measured" in data["cost"]["cuda"]
    assert cost_report_to_json(cost_report_from_json(data)) == data


def test_schema_rejects_a_malformed_report():
    from infralens.reports import validate_cost_report

    assert validate_cost_report({"cost": {}, "models": {}}) is not None


def test_text_report_has_units(capsys):
    assert main(["--project", str(ROOT), "cost", "clip-l-text", "sd-vae", "--resolution", "512x512"]) == 0
    text = capsys.readouterr().out
    assert "GiB" in text and "TFLOP" in text and "clip-l-text" in text and "512x512 tiled" not in text.split("model")[0]


def test_unknown_model_is_a_clear_error(capsys):
    assert main(["--project", str(ROOT), "cost", "no-such-model"]) == 2
    err = capsys.readouterr().err
    assert "no model 'no-such-model'" in err and "Traceback" not in err


def test_bad_resolution_is_a_usage_error(capsys):
    assert main(["--project", str(ROOT), "cost", "--resolution", "big"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err


def test_catalog_errors_name_file_and_line(tmp_path, capsys):
    bad = tmp_path / "models.yaml"
    bad.write_text("models:\n  broken:\n    library: jax\n    class: X\n    source: s\n    config: {}\n")
    assert main(["cost", "--catalog", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:" in err and "library must be one of" in err


def test_measure_cuda_says_cuda_is_absent(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is present: the measurement itself runs in test_measure_cuda_on_a_gpu")
    assert main(["--project", str(ROOT), "cost", "clip-l-text", "--measure", "cuda"]) == 2
    err = capsys.readouterr().err
    assert "CUDA is not available" in err and "Traceback" not in err


@pytest.mark.gpu
def test_measure_cuda_on_a_gpu(catalog):
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    from infralens.cost import Request, compute_report, measure_cuda

    report = compute_report(catalog, Request(models=("sd15-unet",), resolutions=((512, 512),), batch=2), "not measured")
    measured = measure_cuda(catalog, report)
    (record,) = measured.records
    assert (record.model, record.resolution) == ("sd15-unet", "512x512")
    assert 2 * 859_520_964 <= record.weight_bytes <= 1.05 * 2 * 859_520_964
    assert record.predicted_weight_bytes == 2 * 859_520_964
    assert 0.5 * record.predicted_activation_bytes <= record.activation_bytes <= 4 * record.predicted_activation_bytes
    assert measured.describe().startswith(f"measured on {torch.cuda.get_device_name()}")


def test_committed_report_is_valid_and_holds_the_figures():
    from infralens.reports import load_cost_report

    report = load_cost_report(ROOT / "reports" / "cost.json")
    for model_id, count in {"sd15-unet": 859_520_964, "t5-xxl-encoder": 4_762_310_656, "flux1-dev-transformer": 11_901_408_320}.items():
        model = report.model(model_id)
        assert model is not None and model.params == count
    flux = report.model("flux1-dev-transformer")
    assert flux is not None and 6.5e13 <= dict(flux.flops)["1024x1024"] <= 8.5e13


def test_committed_report_is_current():
    """reports/cost.json was made from this catalog and these installed versions (else: run `make cost`)."""
    from infralens.cost import is_current
    from infralens.reports import load_cost_report

    assert is_current(load_cost_report(ROOT / "reports" / "cost.json"), ROOT / "costs" / "models.yaml")


def test_a_changed_catalog_makes_the_report_stale(tmp_path):
    from infralens.cost import is_current
    from infralens.reports import load_cost_report

    changed = tmp_path / "models.yaml"
    changed.write_text((ROOT / "costs" / "models.yaml").read_text().replace("steps: 28", "steps: 30"))
    assert not is_current(load_cost_report(ROOT / "reports" / "cost.json"), changed)


@pytest.mark.parametrize("text", ["[" * 100_000, '{"models": Infinity}', "1" * 5000])
def test_a_tampered_cost_report_is_an_error_naming_the_file(tmp_path, text):
    from infralens.reports import CostReportError, load_cost_report

    path = tmp_path / "cost.json"
    path.write_text(text, "utf-8")
    with pytest.raises(CostReportError, match=r"cost\.json"):
        load_cost_report(path)


def test_the_cost_report_loads_through_the_one_report_loader(tmp_path):
    """``load_report`` tells a cost report by its ``cost`` key and types it through the generated record; an integer
    written as ``1.0`` is refused at its place (the strict validator every report shares), naming the file."""
    import json

    from infralens.reports import CostReport, CostReportError, load_cost_report, load_report

    text = (ROOT / "reports" / "cost.json").read_text("utf-8")
    report = load_report(ROOT / "reports" / "cost.json")
    assert isinstance(report, CostReport) and report == load_cost_report(ROOT / "reports" / "cost.json")
    data = json.loads(text)
    model_id = next(iter(data["models"]))
    data["models"][model_id]["params"] = float(data["models"][model_id]["params"])
    path = tmp_path / "cost.json"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(CostReportError, match=rf"cost\.json: not a valid cost report: .*integer.*models/{model_id}/params"):
        load_cost_report(path)

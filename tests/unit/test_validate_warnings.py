"""validate warns on what verify could never check: no scenario and not static, expects naming unknown names, TODO summaries."""

from __future__ import annotations

from infralens.cli import main

SOURCE = "import math\n\n\ndef blend(clean, alpha):\n    signal = math.sqrt(alpha) * clean\n    return signal\n"


def project(tmp_path, annotation: str):
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True, exist_ok=True)
    (site / "pkg" / "__init__.py").write_text("")
    (site / "pkg" / "mix.py").write_text(SOURCE)
    root = tmp_path / "project"
    (root / "annotations" / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "labs" / "lab-01-lab").mkdir(parents=True, exist_ok=True)
    (root / "annotations" / "pkg" / "a.yaml").write_text(annotation)
    return root, site


BASE = "id: a\nlab: 01-lab\nsource: pkg\ntarget: pkg.mix.blend\nsummary: {summary}\n{scenario}steps:\n  - at: signal = math.sqrt(alpha) * clean\n    note: n\n"


def run(tmp_path, capsys, annotation: str) -> tuple[int, str, str]:
    root, site = project(tmp_path, annotation)
    code = main(["--project", str(root), "--source", f"pkg={site}", "validate"])
    out, err = capsys.readouterr()
    return code, out, err


def test_an_expect_naming_a_variable_the_frame_lacks_is_a_warning(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    text = BASE.format(summary="s", scenario="scenario: demo\n") + "    expect:\n      - 'signal > 0'\n      - 'sqrt_alpha * clean == signal'\n"
    code, out, err = run(tmp_path, capsys, text)
    assert code == 0
    assert "annotations/pkg/a.yaml:12:9: warning: expect names sqrt_alpha, which the frame of blend does not have" in err
    assert "signal > 0" not in err
    assert out.strip().endswith("0 errors, 1 warnings")


def test_a_step_with_no_scenario_and_no_static_reason_is_a_warning(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    code, _, err = run(tmp_path, capsys, BASE.format(summary="s", scenario=""))
    assert code == 0
    assert "has no scenario and is not static, so it is never verified" in err
    _, _, err = run(tmp_path, capsys, BASE.format(summary="s", scenario="") + "    static: read only, never run\n")
    assert "never verified" not in err


def test_a_todo_summary_is_an_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    code, _, err = run(tmp_path, capsys, BASE.format(summary="TODO explain", scenario="scenario: demo\n"))
    assert code == 1
    assert "annotations/pkg/a.yaml:5:10: error: summary still says TODO" in err

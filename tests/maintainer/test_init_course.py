"""Issue 42's first promise, as a new maintainer meets it: a fresh folder becomes a working course about transformers.

``init``, one ``add``, notes, ``verify`` with a tiny random-weight LLaMA, ``lock``, ``check``, ``coverage`` of the
scenario, and a ``-W`` Sphinx build under alabaster and under furo, whose badges name transformers' version.
"""

from __future__ import annotations

import html
import importlib.metadata
import json
import re
from pathlib import Path

import pytest
from strict_build import build_strictly

from infralens.cli import main

TARGET = "transformers.models.llama.modeling_llama.repeat_kv"

TINY_LLAMA_SCENARIO = """
from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "transformers.models.llama.modeling_llama")


@scenario("example", "a tiny random-weight LLaMA (2 layers, 4 query heads on 2 key/value heads) reads 6 tokens")
def example(ctx: ScenarioContext) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
    )
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).to(ctx.device).eval()
    ids = torch.randint(0, 64, (1, 6), generator=ctx.generator(0)).to(ctx.device)
    with torch.no_grad():
        logits = model(ids).logits
    ctx.check(tuple(logits.shape) == (1, 6, 64), f"logits {tuple(logits.shape)}")
"""


def _write_notes(path: Path) -> int:
    """Fill the scaffold as a maintainer would: a summary, a note per step, and one expect on the repeat itself."""
    text = path.read_text("utf-8")
    text = re.sub(r'summary: "TODO[^"\n]*"', 'summary: "Repeats each key/value head so grouped-query attention can use plain matmuls."', text)
    text, count = re.subn(r"TODO: explain `[^\n]*", "What this statement does to the shape of the key and value tensors.", text)
    text = text.replace("\nsteps:\n", "\nscenario: example\nsteps:\n", 1)
    path.write_text(text, "utf-8")
    return count


def _build(root: Path, out: Path, theme: str) -> Path:
    conf = root / "docs" / "conf.py"
    conf.write_text(re.sub(r"(?m)^html_theme = .*$", f"html_theme = {json.dumps(theme)}", conf.read_text("utf-8")), "utf-8")
    site = out / theme
    build = build_strictly(root, site, out / f"{theme}-doctrees")
    assert build.returncode == 0, build.stdout + build.stderr
    return site / "_infralens" / "source" / "transformers" / f"{TARGET}.html"


@pytest.mark.slow
def test_a_new_transformers_course_from_init_to_a_w_build_under_two_themes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("myst_parser")
    pytest.importorskip("furo")
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    version = importlib.metadata.version("transformers")
    root = tmp_path / "course"
    project = ["--project", str(root)]

    assert main(["init", str(root), "--distribution", "transformers"]) == 0
    (root / "scenarios" / "example.py").write_text(TINY_LLAMA_SCENARIO, "utf-8")
    assert main([*project, "add", TARGET, "--id", "repeat-kv"]) == 0
    notes = _write_notes(root / "annotations" / "transformers" / "repeat-kv.yaml")
    assert notes >= 2
    capsys.readouterr()
    assert main([*project, "validate"]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out

    # verify: the tiny model's eager attention calls repeat_kv, so every step runs in the real frame
    assert main([*project, "verify", "--report", str(root / "reports" / "verify-cpu.json")]) == 0
    said = capsys.readouterr().out
    ran = re.search(r"(\d+) steps: (\d+) checked, (\d+) held, (\d+) ran, (\d+) read, (\d+) unverified \((\d+) failed\)", said)
    assert ran, said
    total, _checked, _held, runs, read, unverified, failed = map(int, ran.groups())
    assert total == notes and runs == total and read == unverified == failed == 0, said

    assert main([*project, "lock"]) == 0
    capsys.readouterr()
    assert main([*project, "check", "--format", "json"]) == 0
    (root / "reports" / "check.json").write_text(capsys.readouterr().out, "utf-8")

    # coverage of the scenario lists the transformers functions it ran, the annotated one among them
    tree = tmp_path / "coverage.json"
    assert main([*project, "coverage", "example", "--json", str(tree)]) == 0
    listed = capsys.readouterr().out
    assert "repeat_kv" in listed and "LlamaAttention.forward" in listed, listed
    assert "0 upstream functions ran" not in listed

    for theme in ("alabaster", "furo"):
        page = html.unescape(_build(root, tmp_path / "sites", theme).read_text("utf-8"))
        assert "What this statement does to the shape of the key and value tensors." in page, theme
        assert f"transformers {version}" in page, f"{theme}: no badge names transformers {version}"
        assert "diffusers" not in page.lower() and "diffsynth" not in page.lower(), theme

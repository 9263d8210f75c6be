"""Any project: no labs, no ``lab:``, another library. It builds under -W, speaks of no library it does not use, and
generated pages do not outlive generation."""

from __future__ import annotations

import importlib.metadata
from io import StringIO
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from sphinx.testing.util import SphinxTestApp

from infralens.cli import main
from infralens.sphinx.generated import MARKER

TARGET = "transformers.activations.NewGELUActivation.forward"
ANNOTATION = (
    f"id: new-gelu\nsource: transformers\ntarget: {TARGET}\nsummary: The tanh approximation of GELU.\nsteps:\n"
    '  - at: {contains: "torch.tanh("}\n    key: tanh\n    note: The tanh approximation.\n    static: read only in this test\n'
)


def _build(root: Path, **overrides: object) -> SphinxTestApp:
    app = SphinxTestApp("html", srcdir=root, warning=StringIO(), confoverrides=overrides, warningiserror=True)
    try:
        app.build()
    finally:
        app.cleanup()
    return app


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pytest.importorskip("transformers")
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "fresh"
    (root / "annotations" / "transformers").mkdir(parents=True)
    (root / "annotations" / "transformers" / "gelu.yaml").write_text(ANNOTATION, "utf-8")
    (root / "conf.py").write_text('extensions = ["infralens.sphinx"]\nexclude_patterns = ["annotations"]\ninfralens_project_root = "."\n', "utf-8")
    (root / "index.md").write_text(f"# One transformers function\n\n```{{infralens-function}} {TARGET}\n```\n", "utf-8")
    return root


def test_a_project_without_labs_builds_under_w_with_an_upstream_link(fresh: Path) -> None:
    version = importlib.metadata.version("transformers").split("+")[0]
    app = _build(fresh)
    assert app.warning.getvalue() == ""
    page = (Path(app.outdir) / "index.html").read_text("utf-8")
    assert f'href="https://github.com/huggingface/transformers/tree/v{version}"' in page
    generated = fresh / "_infralens"
    words = " ".join(p.read_text("utf-8") for p in generated.rglob("*.md"))
    assert "DiffSynth" not in words and "diffusers" not in words


def test_validate_takes_an_annotation_without_a_lab(fresh: Path, capsys) -> None:
    assert main(["--project", str(fresh), "validate"]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out


def test_generated_pages_are_removed_when_generation_is_turned_off(fresh: Path) -> None:
    app = _build(fresh)
    assert (fresh / "_infralens" / MARKER).is_file()
    own = fresh / "_infralens" / "mine.md"  # not listed in the marker: never removed
    own.write_text("# Mine\n\nA page the extension did not write.\n", "utf-8")
    app = _build(fresh, infralens_generate_pages=False, exclude_patterns=["annotations", "_infralens/mine.md"])
    assert sorted(p.relative_to(fresh).as_posix() for p in (fresh / "_infralens").rglob("*")) == ["_infralens/mine.md"]
    assert not (Path(app.outdir) / "_infralens" / "verified.html").exists()
    own.unlink()
    _build(fresh)
    _build(fresh, infralens_generate_pages=False)
    assert not (fresh / "_infralens").exists()


def test_add_without_a_lab_in_a_project_without_labs(fresh: Path, capsys) -> None:
    """``infralens add`` needs ``--lab`` only where the project has labs; the new file then has no ``lab:`` and validates."""
    target = "transformers.activations.QuickGELUActivation.forward"
    assert main(["--project", str(fresh), "add", target, "--id", "quick-gelu"]) == 0
    written = (fresh / "annotations" / "transformers" / "quick-gelu.yaml").read_text("utf-8")
    assert "\nlab:" not in written and f"target: {target}" in written
    (fresh / "labs" / "lab-01-first").mkdir(parents=True)
    capsys.readouterr()
    assert main(["--project", str(fresh), "add", "transformers.activations.SiLUActivation.forward", "--id", "silu"]) == 2
    assert "pass --lab SLUG" in capsys.readouterr().err

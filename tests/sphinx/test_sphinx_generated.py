"""The generated-pages folder: never the user's files, only ever the extension's own output."""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path

import pytest
from sphinx.errors import ConfigError
from sphinx.testing.util import SphinxTestApp

from infralens.sphinx.generated import MARKER


def build(srcdir: Path, **confoverrides: object) -> SphinxTestApp:
    app = SphinxTestApp("html", srcdir=srcdir, warning=StringIO(), confoverrides=confoverrides)
    try:
        app.build()
    finally:
        app.cleanup()
    return app


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but Sphinx's own output, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and "_build" not in p.parts}


@pytest.mark.parametrize(
    ("generated_dir", "problem"),
    [
        (".", "is the source dir itself"),
        ("./", "is the source dir itself"),
        ("labs/..", "is the source dir itself"),
        ("..", "contains the source dir"),
        ("../elsewhere", "is outside the source dir"),
    ],
)
def test_a_generated_dir_that_could_hold_the_users_files_is_refused(fresh_root, generated_dir: str, problem: str) -> None:
    root = fresh_root()
    before = snapshot(root.parent)
    with pytest.raises(ConfigError) as raised:
        build(root, infralens_generated_dir=generated_dir)
    message = str(raised.value)
    assert f"infralens_generated_dir = {generated_dir.rstrip('/')!r} {problem}" in message
    assert "Set infralens_generated_dir in conf.py" in message
    assert snapshot(root.parent) == before, "nothing may be written or removed"
    assert (root / "conf.py").is_file()


def test_a_folder_of_the_users_own_pages_is_refused(fresh_root) -> None:
    root = fresh_root()
    (root / "guide").mkdir()
    (root / "guide" / "mine.md").write_text("# Mine\n")
    with pytest.raises(ConfigError) as raised:
        build(root, infralens_generated_dir="guide")
    assert "already holds files the extension did not write (mine.md)" in str(raised.value)
    assert (root / "guide" / "mine.md").read_text() == "# Mine\n"
    assert not (root / "guide" / MARKER).exists()


def test_only_files_the_extension_wrote_are_ever_removed(fresh_root) -> None:
    root = fresh_root()
    build(root)
    out = root / "_infralens"
    assert "source/toypkg/toypkg.mixing.blend.md" in (out / MARKER).read_text().splitlines()
    (out / "notes-of-mine.txt").write_text("keep me")
    (root / "labs" / "lab-01-toy" / "starter.py").unlink()  # its copy is now stale
    build(root)
    assert not (out / "labs" / "lab-01-toy" / "starter.py").exists()
    assert (out / "notes-of-mine.txt").read_text() == "keep me"
    assert "labs/lab-01-toy/starter.py" not in (out / MARKER).read_text().splitlines()


def test_an_unmarked_folder_of_an_older_builds_pages_is_adopted(fresh_root) -> None:
    root = fresh_root()
    build(root)
    (root / "_infralens" / MARKER).unlink()  # as an InfraLens without the marker left it
    build(root)
    assert (root / "_infralens" / MARKER).is_file()
    assert (root / "_infralens" / "source" / "toypkg" / "toypkg.mixing.blend.md").is_file()


def test_a_fresh_project_with_one_directive_builds_without_warnings(tmp_path: Path) -> None:
    """Only the extension and one directive: the generated entry pages are orphans, so nothing warns under -W."""
    basic = Path(__file__).parent / "roots" / "test-basic"
    root = tmp_path / "fresh"
    root.mkdir()
    for folder in ("src", "annotations", "labs"):
        shutil.copytree(basic / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "conf.py").write_text(
        'extensions = ["infralens.sphinx"]\nexclude_patterns = ["src", "labs", "annotations"]\ninfralens_project_root = "."\n'
        'infralens_sources = {"toypkg": "src"}\nmyst_enable_extensions = ["dollarmath"]\n'
    )
    (root / "index.md").write_text("# Only one directive\n\n```{infralens-function} toypkg.mixing.blend\n```\n")
    app = build(root)
    assert app.warning.getvalue() == ""
    assert (Path(app.outdir) / "_infralens" / "labs" / "index.html").is_file()


def test_a_fresh_project_annotating_transformers_links_its_repository_from_metadata(tmp_path: Path) -> None:
    """Any installed distribution works, and with no template configured its upstream link comes from its METADATA."""
    import importlib.metadata

    pytest.importorskip("transformers")
    version = importlib.metadata.version("transformers")
    root = tmp_path / "fresh"
    (root / "annotations" / "transformers").mkdir(parents=True)
    (root / "annotations" / "transformers" / "gelu.yaml").write_text(
        "id: new-gelu\nlab: 01-gelu\nsource: transformers\ntarget: transformers.activations.NewGELUActivation.forward\n"
        "summary: The tanh approximation of GELU.\nsteps:\n"
        '  - at: {contains: "torch.tanh("}\n    key: tanh\n    note: The tanh approximation.\n    static: read only in this test\n'
    )
    (root / "labs" / "lab-01-gelu").mkdir(parents=True)
    (root / "labs" / "lab-01-gelu" / "index.md").write_text("# Lab 01: GELU\n")
    (root / "conf.py").write_text('extensions = ["infralens.sphinx"]\nexclude_patterns = ["annotations", "labs"]\ninfralens_project_root = "."\n')
    (root / "index.md").write_text("# One transformers function\n\n```{infralens-function} transformers.activations.NewGELUActivation.forward\n```\n")
    app = build(root)
    assert app.warning.getvalue() == ""
    page = (Path(app.outdir) / "index.html").read_text("utf-8")
    assert f'href="https://github.com/huggingface/transformers/tree/v{version.split("+")[0]}"' in page

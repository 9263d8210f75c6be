"""``--source`` folders: a package folder reads as its parent; a release comes from metadata, ``__version__`` or the option."""

from __future__ import annotations

from pathlib import Path

import pytest

from infralens.cli import main
from infralens.errors import SourceNotFoundError
from infralens.source import open_tree

REPO = Path(__file__).resolve().parents[2]

MOD = """
class Box:
    def grow(self, size):
        size = size + 1
        return size
"""

ANNOTATION = """
id: fake-ann
lab: 01-lab
source: fakedist
target: fakedist.mod.Box.grow
summary: A test annotation.
scenario: fake-scenario
steps:
  - at: size = size + 1
    note: One more.
"""


@pytest.fixture(autouse=True)
def isolated_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))


def test_package_folder_reads_as_its_parent(tmp_path):
    site = tmp_path / "site"
    (site / "fakedist" / "sub").mkdir(parents=True)
    (site / "fakedist" / "__init__.py").write_text("", "utf-8")
    (site / "fakedist" / "sub" / "__init__.py").write_text("", "utf-8")
    (site / "fakedist" / "mod.py").write_text("x = 1\n", "utf-8")
    whole, package = open_tree(str(site), distribution="fakedist"), open_tree(str(site / "fakedist"), distribution="fakedist")
    assert sorted(package.iter_python_files()) == sorted(whole.iter_python_files()) == ["fakedist/__init__.py", "fakedist/mod.py", "fakedist/sub/__init__.py"]


def test_a_folder_that_is_neither_is_refused_with_what_to_pass(tmp_path):
    (tmp_path / "other" / "thing").mkdir(parents=True)
    (tmp_path / "other" / "thing" / "__init__.py").write_text("", "utf-8")
    with pytest.raises(SourceNotFoundError, match=r"neither the package folder of fakedist nor a folder holding it .* pass the folder that holds fakedist/"):
        open_tree(str(tmp_path / "other"), distribution="fakedist")


@pytest.mark.slow
def test_installed_package_folder_checks_clean(capsys):
    """The repository's annotations against the installed diffusers, named by its package folder: nothing moved."""
    import diffusers

    package = Path(diffusers.__file__).parent
    code = main(["--project", str(REPO), "--source", f"diffusers={package}", "check"])
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    assert " 0 moved, 0 changed, 0 deleted" in out and out.rstrip().endswith("clean")


def _project(annotation_project, init: str) -> Path:
    root = annotation_project({"mod.py": MOD, "__init__.py": init}, {"box.yaml": ANNOTATION})
    return root


def test_version_comes_from_dunder_version_read_statically(annotation_project, capsys):
    root = _project(annotation_project, 'import sys\nsys.exit("imported!")\n__version__ = "3.1.4"\n')
    assert open_tree(str(root / "site"), distribution="fakedist").version == "3.1.4"
    assert main(["--project", str(root), "--source", f"fakedist={root / 'site'}", "lock"]) == 0
    assert 'version = "3.1.4"' in (root / "annotations" / "annotations.lock").read_text("utf-8")
    assert "imported!" not in capsys.readouterr().err  # read, never run (running it would have exited)


def test_lock_refuses_a_folder_without_a_version(annotation_project, capsys):
    root = _project(annotation_project, "")
    assert main(["--project", str(root), "--source", f"fakedist={root / 'site'}", "lock"]) == 2
    err = capsys.readouterr().err
    assert "fakedist read from" in err and "names no version" in err and "nothing was written" in err
    assert f"--source fakedist==VERSION={(root / 'site').resolve()}" in err
    assert not (root / "annotations" / "annotations.lock").exists()


def test_the_option_names_the_version(annotation_project, capsys):
    root = _project(annotation_project, "")
    assert main(["--project", str(root), "--source", f"fakedist==2.0.1={root / 'site'}", "lock"]) == 0
    lock = (root / "annotations" / "annotations.lock").read_text("utf-8")
    assert 'version = "2.0.1"' in lock and "unknown" not in lock
    assert main(["--project", str(root), "--source", "fakedist===x", "validate"]) == 2
    assert "expected DIST==VERSION=PATH" in capsys.readouterr().err

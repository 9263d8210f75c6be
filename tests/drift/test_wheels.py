"""--against sources: release pins (cached wheels, no download needed here), wheel files, directories."""

from __future__ import annotations

import zipfile

import pytest

from infralens.errors import InfralensError, SourceNotFoundError
from infralens.source.distributions import DirectoryTree, WheelTree
from infralens.source.wheels import cached_wheel, fetch_wheel, open_against


def _wheel(folder, name="demo", version="2.0"):
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("demo/__init__.py", "")
        archive.writestr("demo/core.py", "def f():\n    return 1\n")
        archive.writestr(f"{name}-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return path


def test_pinned_release_comes_from_the_wheel_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path))
    (tmp_path / "wheels").mkdir()
    wheel = _wheel(tmp_path / "wheels")
    assert cached_wheel("Demo", "2.0") == wheel
    assert fetch_wheel("demo", "2.0") == wheel  # no pip run: already cached
    tree = open_against("demo==2.0", {"demo"})
    assert isinstance(tree, WheelTree) and tree.version == "2.0"


def test_pin_for_a_distribution_the_lock_does_not_know_is_refused_before_any_download(tmp_path, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path))
    with pytest.raises(InfralensError, match="no annotations on torch"):
        open_against("torch==2.13.0", {"diffusers"})
    assert not (tmp_path / "wheels").exists()


def test_wheel_file_and_directories(tmp_path):
    wheel = _wheel(tmp_path)
    assert isinstance(open_against(str(wheel), {"demo"}), WheelTree)
    (tmp_path / "checkout" / "src" / "demo").mkdir(parents=True)
    (tmp_path / "checkout" / "src" / "demo" / "__init__.py").write_text("")
    tree = open_against(str(tmp_path / "checkout"), {"demo", "other"})
    assert isinstance(tree, DirectoryTree) and tree.distribution == "demo"
    named = open_against(f"demo={tmp_path / 'checkout'}", {"demo"})
    assert named.distribution == "demo"
    with pytest.raises(InfralensError, match="cannot tell which distribution"):
        open_against(str(tmp_path), {"demo", "other"})
    with pytest.raises(SourceNotFoundError, match="expected DIST==VERSION"):
        open_against(str(tmp_path / "missing"), {"demo"})

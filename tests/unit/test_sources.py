"""Finding upstream files without importing them: the canary test and the three tree kinds."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from infralens.errors import SourceNotFoundError, UnsafePathError
from infralens.source.distributions import DirectoryTree, WheelTree, check_relpath, module_candidates, open_tree

CANARY_INIT = """
import pathlib
pathlib.Path({canary!r}).write_text("imported!")
raise RuntimeError("importing fakecanary is forbidden")
"""

CORE = """
import pathlib
pathlib.Path({canary!r}).write_text("core imported!")


class Thing:
    def run(self, value):
        doubled = value * 2
        return doubled
"""


def make_canary_site(root: Path, canary: Path, *, top_level: bool = True, record: bool = True, metadata: bool = True) -> Path:
    """A site dir holding an installed-looking ``fakecanary`` whose import writes ``canary`` and raises."""
    site = root / "site"
    package = site / "fakecanary"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(CANARY_INIT.format(canary=str(canary))))
    (package / "core.py").write_text(textwrap.dedent(CORE.format(canary=str(canary))).lstrip())
    if metadata:
        info = site / "fakecanary-1.2.3.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakecanary\nVersion: 1.2.3\n")
        if record:
            (info / "RECORD").write_text("fakecanary/__init__.py,,\nfakecanary/core.py,,\nfakecanary-1.2.3.dist-info/METADATA,,\n")
        if top_level:
            (info / "top_level.txt").write_text("fakecanary\n")
    # The project the CLI runs in: one annotation on Thing.run.
    project = root / "project"
    (project / "annotations" / "fakecanary").mkdir(parents=True)
    (project / "annotations" / "fakecanary" / "thing.yaml").write_text(
        "id: thing-run\nlab: 01-lab\nsource: fakecanary\ntarget: fakecanary.core.Thing.run\nsummary: s\n"
        "steps:\n  - at: doubled = value * 2\n    note: Twice the value.\nscenario: demo\n"
    )
    (project / "labs" / "lab-01-lab").mkdir(parents=True)
    return site


def run_isolated(site: Path, code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "INFRALENS_CACHE_DIR": str(cwd / "cache")}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(
    "layout",
    [
        {"top_level": True, "record": True, "metadata": True},
        {"top_level": False, "record": True, "metadata": True},
        {"top_level": False, "record": False, "metadata": True},
        {"top_level": False, "record": False, "metadata": False},
    ],
    ids=["top_level.txt", "RECORD", "METADATA-only", "find_spec-only"],
)
def test_installed_tree_never_imports_the_package(tmp_path, layout):
    canary = tmp_path / "CANARY"
    site = make_canary_site(tmp_path, canary, **layout)
    code = textwrap.dedent(
        """
        from infralens.resolve.resolver import Resolver
        from infralens.source.cache import IndexCache
        from infralens.source.distributions import InstalledTree
        tree = InstalledTree("fakecanary")
        resolver = Resolver({"fakecanary": tree}, cache=IndexCache(persistent=False))
        target = resolver.resolve_target("fakecanary", "fakecanary.core.Thing.run")
        print(tree.version, target.definition.start_line, target.definition.end_line)
        print(sorted(tree.iter_python_files()))
        import sys; print("fakecanary" in sys.modules)
        """
    )
    result = run_isolated(site, code, tmp_path)
    assert result.returncode == 0, result.stderr
    version, start, end = result.stdout.splitlines()[0].split()
    assert (start, end) == ("6", "8")
    assert version == ("1.2.3" if layout["metadata"] else "unknown")
    assert "fakecanary/core.py" in result.stdout.splitlines()[1]
    assert result.stdout.splitlines()[2] == "False"
    assert not canary.exists()


@pytest.mark.parametrize("command", [["show", "fakecanary.core.Thing.run", "--color", "never"], ["validate"], ["locate", "Thing.run", "--dist", "fakecanary"]])
def test_cli_resolves_installed_package_without_importing_it(tmp_path, command):
    canary = tmp_path / "CANARY"
    site = make_canary_site(tmp_path, canary)
    code = f"import sys; from infralens.cli import main; sys.exit(main({command!r}))"
    result = run_isolated(site, code, tmp_path / "project")
    assert result.returncode == 0, result.stderr
    assert not canary.exists()
    if command[0] == "show":
        assert "fakecanary 1.2.3 · fakecanary/core.py:6-8 · function Thing.run" in result.stdout
        assert "◀ Twice the value." in result.stdout
    elif command[0] == "validate":
        assert result.stdout.strip() == "validated 1 annotations (1 steps) in 1 files: 0 errors, 0 warnings"
    else:
        assert result.stdout.strip() == "fakecanary/core.py:6-8: function fakecanary.core.Thing.run"


def test_missing_distribution_is_a_clear_error():
    from infralens.source.distributions import InstalledTree

    with pytest.raises(SourceNotFoundError, match="distribution 'no-such-dist-xyz' is not installed"):
        InstalledTree("no-such-dist-xyz")


def test_directory_tree_src_layout_and_version(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "m.py").write_text("x = 1\n")
    tree = DirectoryTree(tmp_path, "pkg")
    assert tree.module_file("pkg.m") == "pkg/m.py"
    assert tree.module_file("pkg") == "pkg/__init__.py"
    assert list(tree.iter_python_files()) == ["pkg/__init__.py", "pkg/m.py"]
    source = tree.read_source("pkg/m.py")
    assert (source.module, source.text, tree.version) == ("pkg.m", "x = 1\n", "unknown")


def test_wheel_tree_reads_metadata_and_files(tmp_path):
    wheel = tmp_path / "pkg-2.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("pkg/__init__.py", "")
        archive.writestr("pkg/m.py", "def f():\n    return 1\n")
        archive.writestr("pkg-2.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 2.0\n")
    tree = open_tree(str(wheel))
    assert isinstance(tree, WheelTree)
    assert (tree.distribution, tree.version) == ("pkg", "2.0")
    assert list(tree.iter_python_files()) == ["pkg/__init__.py", "pkg/m.py"]
    assert tree.read_source("pkg/m.py").module == "pkg.m"


def test_pep263_coding_line_is_honoured(tmp_path):
    root = tmp_path / "site"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "latin.py").write_bytes("# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1"))
    (root / "pkg" / "broken.py").write_bytes(b"name = '\xff\xfe'\n")
    tree = DirectoryTree(root, "pkg")
    assert "café" in tree.read_source("pkg/latin.py").text
    with pytest.raises(SourceNotFoundError, match=r"pkg/broken.py: not decodable as Python source"):
        tree.read_source("pkg/broken.py")


@pytest.mark.parametrize("relpath", ["../x.py", "/etc/passwd", "a/../../x.py", "C:/x.py", "a\\b.py", "a//b.py", "", "a/\x00.py"])
def test_check_relpath_refuses_escapes(relpath):
    with pytest.raises(UnsafePathError):
        check_relpath(relpath)


@pytest.mark.parametrize("module", ["..pkg", "pkg/../x", "pkg.", "1pkg", "pkg.mod-x"])
def test_module_names_must_be_dotted_identifiers(module):
    with pytest.raises(UnsafePathError):
        module_candidates(module)

"""Upstream releases are untrusted code: read as data, never imported, never escaped from."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from _deadline import deadline

from infralens.cli import main
from infralens.errors import ResolutionError, SourceNotFoundError, UnsafePathError
from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache
from infralens.source.distributions import MAX_METADATA_BYTES, MAX_SOURCE_BYTES, DirectoryTree, InstalledTree, WheelTree

CANARY_CODE = "import pathlib; pathlib.Path({canary!r}).write_text('pwned')\n"
CORE = """
{canary_line}

class Engine:
    def run(self, value):
        doubled = value * 2
        return doubled
"""


def build_evil_wheel(folder: Path, canary: Path, version: str = "1.0", body: str = "doubled = value * 2") -> Path:
    """A wheel whose every importable/executable part would write ``canary``, plus traversal entries."""
    line = CANARY_CODE.format(canary=str(canary))
    wheel = folder / f"evil-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("evil/__init__.py", line + "raise SystemExit('imported')\n")
        archive.writestr("evil/core.py", textwrap.dedent(CORE.format(canary_line=line)).replace("doubled = value * 2", body))
        archive.writestr("evil/__main__.py", line)
        archive.writestr("setup.py", line)
        archive.writestr("evil.pth", "import os; " + line)
        archive.writestr("evil-" + version + ".data/scripts/evil", "#!/bin/sh\ntouch " + str(canary) + "\n")
        archive.writestr(f"evil-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: evil\nVersion: {version}\n")
        archive.writestr(f"evil-{version}.dist-info/RECORD", "")
        archive.writestr("../escape.py", "def run():\n    escaped = True\n")
        archive.writestr("/abs/evil.py", "x = 1\n")
        archive.writestr("evil/../../up.py", "x = 1\n")
        link = zipfile.ZipInfo("evil/linked.py")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16  # a symlink entry pointing outside
        archive.writestr(link, "../../../../etc/passwd")
    return wheel


def test_wheel_resolves_without_running_anything(tmp_path):
    canary = tmp_path / "CANARY"
    tree = WheelTree(build_evil_wheel(tmp_path, canary))
    resolver = Resolver({"evil": tree}, cache=IndexCache(persistent=False))
    target = resolver.resolve_target("evil", "evil.core.Engine.run")
    assert (target.definition.start_line, target.definition.end_line) == (6, 8)
    assert [item.dotted for item in resolver.locate("evil", "Engine.run")] == ["evil.core.Engine.run"]
    assert not canary.exists() and "evil" not in sys.modules


def test_wheel_traversal_entries_are_never_read(tmp_path):
    tree = WheelTree(build_evil_wheel(tmp_path, tmp_path / "CANARY"))
    files = list(tree.iter_python_files())
    # setup.py sits at the wheel root like any top-level module: listed (and only ever read), never run.
    assert files == ["evil/__init__.py", "evil/__main__.py", "evil/core.py", "evil/linked.py", "setup.py"]
    for bad in ("../escape.py", "/abs/evil.py", "evil/../../up.py"):
        with pytest.raises(UnsafePathError):
            tree.read_source(bad)
    assert tree.module_file("escape") is None
    # A zip symlink entry is plain bytes to us: its "target" is read as text, never followed.
    assert tree.read_source("evil/linked.py").text == "../../../../etc/passwd"
    assert not (tmp_path / "escape.py").exists() and not list(tmp_path.glob("evil*/"))  # nothing extracted


def write_project(root: Path, target: str = "evil.core.Engine.run", at: str = "doubled = value * 2") -> Path:
    (root / "annotations" / "evil").mkdir(parents=True)
    (root / "labs" / "lab-01-lab").mkdir(parents=True)
    (root / "annotations" / "evil" / "engine.yaml").write_text(
        f"id: engine-run\nlab: 01-lab\nsource: evil\ntarget: {target}\nsummary: s\n"
        f"steps:\n  - at: {at}\n    note: Twice.\n    static: read statically in this test\n"
    )
    return root


def run_cli(args: list[str], cwd: Path, cache: Path) -> subprocess.CompletedProcess:
    code = f"import sys; from infralens.cli import main; sys.exit(main({args!r}))"
    env = {**os.environ, "INFRALENS_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_validate_and_show_with_source_wheel(tmp_path):
    canary = tmp_path / "CANARY"
    wheel = build_evil_wheel(tmp_path, canary)
    project = write_project(tmp_path / "project")
    done = run_cli(["--source", f"evil={wheel}", "validate"], project, tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "validated 1 annotations (1 steps) in 1 files: 0 errors, 0 warnings"
    shown = run_cli(["--source", f"evil={wheel}", "show", "evil.core.Engine.run", "--color", "never"], project, tmp_path / "cache")
    assert shown.returncode == 0 and "◀ Twice." in shown.stdout
    assert not canary.exists()


def test_check_against_a_crafted_wheel(tmp_path):
    """``infralens check --against evil-2.0.whl``: the new release is classified, nothing of it runs."""
    canary = tmp_path / "CANARY"
    old = build_evil_wheel(tmp_path, canary, "1.0")
    (tmp_path / "new").mkdir()
    new = build_evil_wheel(tmp_path / "new", canary, "2.0", body="doubled = value + value")
    project = write_project(tmp_path / "project")
    locked = run_cli(["--source", f"evil={old}", "lock"], project, tmp_path / "cache")
    assert locked.returncode == 0, locked.stderr
    same = run_cli(["--source", f"evil={old}", "check", "--against", str(old)], project, tmp_path / "cache")
    assert same.returncode == 0, same.stdout + same.stderr
    changed = run_cli(["--source", f"evil={old}", "check", "--against", str(new), "--format", "json"], project, tmp_path / "cache")
    assert changed.returncode == 1, changed.stderr
    assert '"changed"' in changed.stdout and "2.0" in changed.stdout
    assert not canary.exists()


@pytest.mark.parametrize("spec", ["evil-1.0.tar.gz", "evil-1.0.zip", "setup.py"])
def test_against_refuses_anything_but_wheels_and_directories(tmp_path, spec):
    project = write_project(tmp_path / "project")
    (tmp_path / spec).write_text("import os\n")
    build = run_cli(["--source", f"evil={build_evil_wheel(tmp_path, tmp_path / 'CANARY')}", "lock"], project, tmp_path / "cache")
    assert build.returncode == 0, build.stderr
    done = run_cli(["check", "--against", str(tmp_path / spec)], project, tmp_path / "cache")
    assert done.returncode == 2
    assert "expected DIST==VERSION, a .whl file or a directory" in done.stderr
    assert not (tmp_path / "CANARY").exists()


def test_source_option_refuses_non_wheel_files(tmp_path, capsys):
    project = write_project(tmp_path / "project")
    sdist = tmp_path / "evil-1.0.tar.gz"
    sdist.write_bytes(b"not a wheel")
    assert main(["--project", str(project), "--source", f"evil={sdist}", "validate"]) == 2
    assert "no such directory or wheel" in capsys.readouterr().err
    fake = tmp_path / "fake-1.0-py3-none-any.whl"
    fake.write_bytes(b"PK not really a zip")
    assert main(["--project", str(project), "--source", f"evil={fake}", "validate"]) == 2
    assert "not a readable wheel" in capsys.readouterr().err


def test_directory_symlinks_out_of_the_tree_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def secret():\n    token = 'hunter2'\n")
    root = tmp_path / "site"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "ok.py").write_text("def ok():\n    x = 1\n")
    (root / "pkg" / "secret.py").symlink_to(outside / "secret.py")
    (root / "pkg" / "subdir").symlink_to(outside, target_is_directory=True)
    tree = DirectoryTree(root, "pkg", "1.0")
    assert list(tree.iter_python_files()) == ["pkg/__init__.py", "pkg/ok.py"]
    assert tree.module_file("pkg.secret") is None and tree.module_file("pkg.subdir.secret") is None
    with pytest.raises(UnsafePathError, match="resolves outside"):
        tree.read_source("pkg/secret.py")
    resolver = Resolver({"pkg": tree}, cache=IndexCache(persistent=False))
    with pytest.raises(ResolutionError):
        resolver.resolve_target("pkg", "pkg.secret.secret")
    assert resolver.locate("pkg", "secret") == []


def test_annotation_target_cannot_reach_outside_its_distribution(tmp_path, capsys):
    root = tmp_path / "site"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    resolver = Resolver({"pkg": DirectoryTree(root, "pkg", "1.0")}, cache=IndexCache(persistent=False))
    with pytest.raises(ResolutionError, match=r"no module of 'os.path.join' exists in pkg 1.0"):
        resolver.resolve_target("pkg", "os.path.join")  # the stdlib is not part of 'pkg'
    for target in ("..pkg.x", "pkg/../x.y", "/etc.passwd", "pkg.\x00.x"):
        with pytest.raises((UnsafePathError, ResolutionError)):
            resolver.resolve_target("pkg", target)
    with pytest.raises(SourceNotFoundError):
        Resolver(cache=IndexCache(persistent=False)).resolve_target("../../etc", "x.y")


def test_upstream_files_that_do_not_parse_are_reported_not_fatal(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "__init__.py").write_text("")
    (site / "pkg" / "py2.py").write_text("def old():\n    print 'hello'\n")
    (site / "pkg" / "latin.py").write_bytes(b"def f():\n    s = '\xff'\n")
    (site / "pkg" / "good.py").write_text("def fine():\n    x = 1\n")
    project = tmp_path / "project"
    (project / "annotations" / "pkg").mkdir(parents=True)
    (project / "labs" / "lab-01-lab").mkdir(parents=True)
    for name, target in (("a", "pkg.py2.old"), ("b", "pkg.latin.f"), ("c", "pkg.good.fine")):
        (project / "annotations" / "pkg" / f"{name}.yaml").write_text(
            f"id: {name}\nlab: 01-lab\nsource: pkg\ntarget: {target}\nsummary: s\n"
            "steps:\n  - at: x = 1\n    note: n\n    static: read statically in this test\n"
        )
    assert main(["--project", str(project), "--source", f"pkg={site}", "validate"]) == 1
    out, err = capsys.readouterr()
    assert "annotations/pkg/a.yaml:1:1: error: pkg/py2.py is not valid Python for this parser (line 2, column 5: Missing parentheses in call to 'print'" in err
    assert "annotations/pkg/b.yaml:1:1: error: pkg/latin.py: not decodable as Python source" in err
    assert "annotations/pkg/c.yaml" not in err
    assert out.strip() == "validated 3 annotations (3 steps) in 3 files: 2 errors, 0 warnings"
    assert main(["--source", f"pkg={site}", "locate", "fine", "--dist", "pkg"]) == 0
    out, err = capsys.readouterr()
    assert out == "pkg/good.py:1-2: function pkg.good.fine\n"
    (site / "pkg" / "py2.py").write_text("def fine():\n    print 'hello'\n")
    assert main(["--source", f"pkg={site}", "locate", "fine", "--dist", "pkg"]) == 0
    out, err = capsys.readouterr()
    assert out == "pkg/good.py:1-2: function pkg.good.fine\n"
    assert err == (
        "infralens: note: skipped pkg/py2.py: not valid Python for this parser "
        "(line 2, column 5: Missing parentheses in call to 'print'. Did you mean print(...)?)\n"
    )


# -- bounded reads, damaged archives, special files, top_level.txt traversal --------------------


def small_wheel(folder: Path, entries: dict[str, bytes], name: str = "pkg-1.0-py3-none-any.whl") -> Path:
    wheel = folder / name
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")
        for relpath, data in entries.items():
            archive.writestr(relpath, data)
    return wheel


def test_a_source_file_over_the_cap_is_refused_before_it_is_read(tmp_path):
    big = b"x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1)  # just over the cap, far under the old 8 MB limit
    root = tmp_path / "site"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "big.py").write_bytes(big)
    message = f"larger than {MAX_SOURCE_BYTES} bytes; not read"
    with pytest.raises(SourceNotFoundError, match=f"pkg/big.py: {message}"):
        DirectoryTree(root, "pkg", "1.0").read_source("pkg/big.py")
    tree = WheelTree(small_wheel(tmp_path, {"pkg/__init__.py": b"", "pkg/big.py": big}))
    with pytest.raises(SourceNotFoundError, match=f"pkg-1.0-py3-none-any.whl: pkg/big.py: {message}"):
        tree.read_source("pkg/big.py")


def test_a_zip_bomb_is_never_decompressed(tmp_path):
    """Entries that inflate to 40 MB from a few KB: refused on their declared size, memory stays small."""
    padding = b" " * 40_000_000
    wheel = tmp_path / "bomb-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("bomb-1.0.dist-info/METADATA", b"Metadata-Version: 2.1\nName: bomb\nVersion: 1.0\n" + padding)
        archive.writestr("bomb/core.py", b"x = 1\n" + padding)
    del padding
    assert wheel.stat().st_size < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(SourceNotFoundError, match=f"METADATA: larger than {MAX_METADATA_BYTES} bytes; not read"):
            WheelTree(wheel)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000
    source_bomb = small_wheel(tmp_path, {"bomb/core.py": b"x = 1\n" + b" " * 40_000_000}, "bomb-2.0-py3-none-any.whl")
    with pytest.raises(SourceNotFoundError, match=f"bomb/core.py: larger than {MAX_SOURCE_BYTES} bytes; not read"):
        WheelTree(source_bomb).read_source("bomb/core.py")


def damage(wheel: Path, entry: str, how: str) -> None:
    """Edit ``entry``'s central-directory record (or its compressed bytes) in place."""
    data = bytearray(wheel.read_bytes())
    record = data.find(b"PK\x01\x02")
    while data[record + 46 : record + 46 + int.from_bytes(data[record + 28 : record + 30], "little")] != entry.encode():
        record = data.find(b"PK\x01\x02", record + 4)
    if how == "crc":
        data[record + 16 : record + 20] = bytes(b ^ 0xFF for b in data[record + 16 : record + 20])
    elif how == "truncated":
        size = int.from_bytes(data[record + 20 : record + 24], "little")
        data[record + 20 : record + 24] = (size // 2).to_bytes(4, "little")
    elif how == "compression":
        data[record + 10 : record + 12] = (99).to_bytes(2, "little")
    else:  # garbage where the deflate stream starts
        local = int.from_bytes(data[record + 42 : record + 46], "little")
        start = local + 30 + int.from_bytes(data[local + 26 : local + 28], "little") + int.from_bytes(data[local + 28 : local + 30], "little")
        data[start : start + 8] = b"\xff" * 8
    wheel.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["crc", "truncated", "compression", "garbage"])
def test_damaged_wheel_entries_are_clear_errors(tmp_path, how):
    body = "".join(f"def f{i}():\n    return {i} * {i}\n\n" for i in range(400)).encode()
    wheel = small_wheel(tmp_path, {"pkg/__init__.py": b"", "pkg/core.py": body})
    damage(wheel, "pkg/core.py", how)
    tree = WheelTree(wheel)
    with pytest.raises(SourceNotFoundError, match=r"pkg-1\.0-py3-none-any\.whl: entry pkg/core\.py is damaged \(.+\)"):
        tree.read_source("pkg/core.py")
    resolver = Resolver({"pkg": tree}, cache=IndexCache(persistent=False))
    assert resolver.locate("pkg", "f1") == []
    assert resolver.skipped[0].startswith("pkg/core.py: ") and "is damaged" in resolver.skipped[0]
    damage(wheel, "pkg-1.0.dist-info/METADATA", how)
    with pytest.raises(SourceNotFoundError, match=r"entry pkg-1\.0\.dist-info/METADATA is damaged"):
        WheelTree(wheel)


def test_fifos_in_a_directory_tree_are_never_opened(tmp_path):
    root = tmp_path / "site"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "ok.py").write_text("def fine():\n    x = 1\n")
    os.mkfifo(root / "pkg" / "pipe.py")
    tree = DirectoryTree(root, "pkg", "1.0")
    resolver = Resolver({"pkg": tree}, cache=IndexCache(persistent=False))
    with deadline(10):
        assert list(tree.iter_python_files()) == ["pkg/__init__.py", "pkg/ok.py"]
        assert [item.dotted for item in resolver.locate("pkg", "fine")] == ["pkg.ok.fine"]
        assert tree.module_file("pkg.pipe") == "pkg/pipe.py"  # asked for by name: refused with a reason
        with pytest.raises(SourceNotFoundError, match=r"pkg/pipe\.py: a FIFO, not a regular file; not read"):
            tree.read_source("pkg/pipe.py")
        with pytest.raises(SourceNotFoundError, match="a FIFO, not a regular file"):
            resolver.resolve_target("pkg", "pkg.pipe.anything")


def test_top_level_and_record_cannot_point_outside_the_site(tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "__init__.py").write_text("")
    (outside / "secret.py").write_text("def secret():\n    token = 'hunter2'\n")
    site = tmp_path / "site"
    (site / "fakepkg").mkdir(parents=True)
    (site / "fakepkg" / "__init__.py").write_text("")
    (site / "fakepkg" / "core.py").write_text("def run():\n    x = 1\n")
    info = site / "fakepkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakepkg\nVersion: 1.0\n")
    (info / "top_level.txt").write_text(f"../outside\n{outside}\nfakepkg/../../outside\n..\n")
    (info / "RECORD").write_text(f"../outside/__init__.py,,\n{outside}/__init__.py,,\n")
    monkeypatch.syspath_prepend(str(site))
    tree = InstalledTree("fakepkg")
    assert tree.packages == ("fakepkg",)
    assert list(tree.iter_python_files()) == ["fakepkg/__init__.py", "fakepkg/core.py"]
    assert Resolver({"fakepkg": tree}, cache=IndexCache(persistent=False)).locate("fakepkg", "secret") == []
    assert DirectoryTree(site, "fakepkg", "1.0", packages=("../outside", str(outside))).packages == ("fakepkg",)

"""Bounded everywhere (issue 38, item 7): folder walks, number fields, version fields and ``verify`` options.

Every folder of a user or an upstream release is walked without recursion and at most
``MAX_FOLDER_DEPTH`` levels deep; every number read from a file or the command line is plain decimal
digits within bounds; every version read from upstream metadata, names, caches or options is one short
PEP 440 line; ``verify --against`` installs only releases of distributions the annotations name.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import zipfile
from pathlib import Path

import pytest
from _deadline import deadline

from infralens.cli import main

DEPTH = 1_200
"""Deeper than Python's recursion limit (1,000): a recursive walk ends in a RecursionError."""

ANNOTATION = (
    "id: engine-run\nlab: 01-lab\nsource: evil\ntarget: evil.core.run\nsummary: s\n"
    "steps:\n  - at: doubled = value * 2\n    note: Twice.\n    static: read statically in this test\n"
)
CORE = "def run(value):\n    doubled = value * 2\n    return doubled\n"
FOLDED = "2.0\n ::error::pwned"
"""A ``Version:`` header folded onto a second line (RFC 822): the second line would start a GitHub workflow command."""


def deep_folder(base: Path, depth: int = DEPTH) -> Path:
    """``base/d/d/…/d`` (``depth`` levels) holding a YAML, a Python and a Markdown file; made without recursing."""
    folder = base
    folder.mkdir(parents=True, exist_ok=True)
    for _ in range(depth):
        folder = folder / "d"
        folder.mkdir()
    for name in ("deep.yaml", "deep.py", "deep.md"):
        (folder / name).write_text("x = 1\n")
    return folder


@pytest.fixture
def remove_deep():
    """Remove the deep folders a test made, bottom up (``shutil.rmtree`` recurses on Python 3.11)."""
    made: list[Path] = []
    yield made.append
    for top in made:
        levels = [top]
        while (levels[-1] / "d").is_dir():
            levels.append(levels[-1] / "d")
        for folder in reversed(levels):
            for entry in folder.iterdir():
                if not entry.is_dir() or entry.is_symlink():
                    entry.unlink()
            folder.rmdir()


def write_project(root: Path) -> Path:
    (root / "annotations" / "evil").mkdir(parents=True)
    (root / "labs" / "lab-01-lab").mkdir(parents=True)
    (root / "labs" / "lab-01-lab" / "index.md").write_text("# Lab\n")
    (root / "annotations" / "evil" / "engine.yaml").write_text(ANNOTATION)
    return root


def write_site(root: Path, *, version: str | None = "1.0", metadata_version: str | None = None) -> Path:
    """An installed-style folder: ``evil/`` and, when a version is given, ``evil-<version>.dist-info/METADATA``."""
    (root / "evil").mkdir(parents=True)
    (root / "evil" / "__init__.py").write_text("")
    (root / "evil" / "core.py").write_text(CORE)
    if version is not None:
        info = root / f"evil-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: evil\nVersion: {metadata_version or version}\n\n")
        (info / "top_level.txt").write_text("evil\n")
        (info / "RECORD").write_text("")
    return root


def write_wheel(folder: Path, version: str = "2.0", header: str | None = None) -> Path:
    wheel = folder / f"evil-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("evil/__init__.py", "")
        archive.writestr("evil/core.py", CORE.replace("value * 2", "value + value"))
        archive.writestr(f"evil-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: evil\nVersion: {header or version}\n\n")
        archive.writestr(f"evil-{version}.dist-info/RECORD", "")
    return wheel


@pytest.fixture
def fake_pip(tmp_path, monkeypatch):
    """pip replaced by a script that only leaves a canary: a test asserts it never ran."""
    canary = tmp_path / "PIP-RAN"
    script = tmp_path / "fake_pip.py"
    script.write_text(f"import pathlib, sys\npathlib.Path({str(canary)!r}).write_text(' '.join(sys.argv))\nsys.exit(1)\n")
    for module in ("infralens.source.wheels", "infralens.verify.run.against"):
        monkeypatch.setattr(f"{module}.PIP_COMMAND", (sys.executable, str(script)))
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    return canary


def run(args: list[str]) -> int:
    try:
        return main(args)
    except SystemExit as stop:  # argparse's usage errors
        return int(stop.code or 0)


# --------------------------------------------------------------------------
# Walks
# --------------------------------------------------------------------------

TOO_DEEP = "folders nested more than 64 levels deep are not read"


def test_a_deep_annotations_folder_is_a_clear_error(tmp_path, capsys, remove_deep):
    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site")
    deep_folder(project / "annotations" / "deep")
    remove_deep(project / "annotations" / "deep")
    started = time.monotonic()
    with deadline(60):
        code = run(["--project", str(project), "--source", f"evil={site}", "validate"])
    err = capsys.readouterr().err
    assert code == 2 and time.monotonic() - started < 20
    assert f"annotations/deep/d/…/d: {TOO_DEEP}" in err and "RecursionError" not in err


def test_a_deep_upstream_source_tree_is_a_clear_error(tmp_path, capsys, remove_deep):
    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site")
    deep_folder(site / "evil" / "deep")
    remove_deep(site / "evil" / "deep")
    for command in (["lock"], ["locate", "--dist", "evil", "run"]):
        with deadline(60):
            code = run(["--project", str(project), "--no-cache", "--source", f"evil={site}", *command])
        err = capsys.readouterr().err
        assert code == 2, err
        assert f"evil/deep/d/…/d: {TOO_DEEP}" in err and "RecursionError" not in err


def test_a_deep_lab_folder_is_a_clear_error(tmp_path, capsys, remove_deep):
    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site")
    deep_folder(project / "labs" / "lab-01-lab" / "deep")
    remove_deep(project / "labs" / "lab-01-lab" / "deep")
    with deadline(60):
        code = run(["--project", str(project), "--no-cache", "--source", f"evil={site}", "validate"])
    err = capsys.readouterr().err
    assert code == 2 and f"lab-01-lab/deep/d/…/d: {TOO_DEEP}" in err and "RecursionError" not in err


def test_the_warm_check_cache_does_not_recurse_into_a_deep_folder(tmp_path, capsys, monkeypatch, remove_deep):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site")
    options = ["--project", str(project), "--source", f"evil={site}"]
    assert run([*options, "lock"]) == 0
    assert run([*options, "check"]) == 0  # a clean check: remembered for the next one
    capsys.readouterr()
    deep_folder(project / "annotations" / "deep")
    remove_deep(project / "annotations" / "deep")
    with deadline(60):
        code = run([*options, "check"])
    err = capsys.readouterr().err
    assert code == 2 and TOO_DEEP in err and "RecursionError" not in err


def test_symbolic_link_loops_never_loop(tmp_path, capsys):
    from infralens.source import DirectoryTree

    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site")
    (site / "evil" / "again").symlink_to(site / "evil", target_is_directory=True)  # a folder loop
    (site / "evil" / "loop.py").symlink_to(site / "evil" / "loop.py")  # a file that links to itself
    (project / "annotations" / "evil" / "loop.yaml").symlink_to(project / "annotations" / "evil" / "loop.yaml")
    with deadline(30):
        tree = DirectoryTree(site, "evil", "1.0")
        assert list(tree.iter_python_files()) == ["evil/__init__.py", "evil/core.py"]
        assert tree.module_file("evil.loop") is None
        code = run(["--project", str(project), "--no-cache", "--source", f"evil={site}", "validate"])
    err = capsys.readouterr().err
    assert code == 1 and "annotations/evil/loop.yaml:1:1: error: this annotation file is a symbolic link that loops; it was not read" in err


def test_the_walk_never_enters_a_link(tmp_path):
    from infralens.bounds import walk

    site = write_site(tmp_path / "site")
    (site / "evil" / "again").symlink_to(site / "evil", target_is_directory=True)
    with deadline(30):
        walked = list(walk(site))
    assert [(folder, folders) for folder, folders, _ in walked] == [
        (str(site), ["evil", "evil-1.0.dist-info"]),
        (str(site / "evil"), []),
        (str(site / "evil-1.0.dist-info"), []),
    ]
    assert "again" in walked[1][2]  # listed as an entry, never walked into


def test_the_walk_stops_at_the_depth_limit_without_recursing(tmp_path, remove_deep):
    from infralens.bounds import MAX_FOLDER_DEPTH, FolderTooDeep, walk

    deep_folder(tmp_path / "top", MAX_FOLDER_DEPTH)
    remove_deep(tmp_path / "top")
    assert sum(1 for _ in walk(tmp_path / "top")) == MAX_FOLDER_DEPTH + 1  # exactly at the limit: read
    (tmp_path / "top" / Path(*["d"] * MAX_FOLDER_DEPTH) / "d").mkdir()
    with pytest.raises(FolderTooDeep) as refused:
        list(walk(tmp_path / "top"))
    assert str(refused.value).startswith(f"{tmp_path / 'top'}/d/d/…/d: {TOO_DEEP}")


# --------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------

PLAIN = "is not a plain whole number — write it with the digits 0-9 only"


@pytest.mark.parametrize("spelling", ["0x10", "0b11", "1_000", "+5", "017", "1:30", "!!int 3"])
@pytest.mark.parametrize("field", ["nth", "definition"])
def test_annotation_numbers_are_plain_decimal_digits(spelling, field):
    from infralens.annotations import load_text

    if field == "nth":
        text = ANNOTATION.replace("  - at: doubled = value * 2", f'  - at: {{text: "doubled = value * 2", nth: {spelling}}}')
        where, name = "7:44", "steps.0.at.nth"
    else:
        text = ANNOTATION.replace("summary: s\n", f"summary: s\ndefinition: {spelling}\n")
        where, name = "6:13", "definition"
    result = load_text(text, "f.yaml")
    assert not result.annotations
    assert [str(d).split(" (no sign")[0] for d in result.diagnostics] == [f"f.yaml:{where}: error: {name} {PLAIN}"]


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("yaml-line", "-5", "is not a plain whole number"),
        ("yaml-line", "9" * 25, "must be between 0 and 10000000"),
        ("yaml-line", "9" * 1000, "must be between 0 and 10000000"),
        ("lines", "[2, -2]", "is not a plain whole number"),
        ("lines", "[2, " + "9" * 1000 + "]", "must be between 0 and 10000000"),
    ],
)
def test_lock_numbers_are_bounded_plain_digits(tmp_path, key, value, words):
    from infralens.drift.lock.text import parse_lock
    from infralens.errors import LockfileError

    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site")
    assert run(["--project", str(project), "--no-cache", "--source", f"evil={site}", "lock"]) == 0
    text = (project / "annotations" / "annotations.lock").read_text()
    line = next(number for number, content in enumerate(text.split("\n"), 1) if content.startswith(f"{key} = "))
    hostile = re.sub(rf"(?m)^{key} = .*$", f"{key} = {value}", text, count=1)
    with pytest.raises(LockfileError) as refused:
        parse_lock(hostile, Path("x.lock"), "x.lock")
    assert str(refused.value) == f"x.lock:{line}: value of {key!r} {words} — run 'infralens lock' to regenerate it"


@pytest.mark.parametrize("hostile", ["1.0", "1e2"])
def test_report_integers_are_json_integers_refused_at_their_place(tmp_path, monkeypatch, hostile):
    from infralens.reports import ReportError, load_report

    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    text = (Path(__file__).resolve().parents[2] / "reports" / "verify-cpu.json").read_text("utf-8")
    path = tmp_path / "verify-cpu.json"
    path.write_text(text.replace('"times_ran": 1,', f'"times_ran": {hostile},', 1))
    with pytest.raises(ReportError, match=r"is not of type 'integer' \(at steps/[^/]+/[^/]+/times_ran\)"):
        load_report(path)


@pytest.mark.parametrize("timeout", ["-5", "nan", "inf", "0", "1e3", "86401"])
def test_verify_timeout_must_be_finite_positive_and_sane(tmp_path, capsys, timeout):
    project = write_project(tmp_path / "project")
    assert run(["--project", str(project), "verify", f"--timeout={timeout}", "--list"]) == 2
    assert "argument --timeout: the value" in capsys.readouterr().err


@pytest.mark.parametrize(("option", "value"), [("--jobs", "1_000"), ("--jobs", "0"), ("--jobs", "+2"), ("--max-mutants", "+4")])
def test_verify_counts_are_plain_bounded_numbers(tmp_path, capsys, option, value):
    project = write_project(tmp_path / "project")
    assert run(["--project", str(project), "verify", f"{option}={value}", "--list"]) == 2
    assert f"argument {option}: the value" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "value"),
    [(["cost", "--batch"], "1_0"), (["add", "x.y", "--max-steps"], "1_0"), (["preview", "x", "--port"], "80_80"), (["show", "x.y", "--width"], "+80")],
)
def test_other_numeric_options_take_plain_digits(tmp_path, capsys, command, value):
    project = write_project(tmp_path / "project")
    assert run(["--project", str(project), *command, value]) == 2
    assert "is not a plain whole number" in capsys.readouterr().err


# --------------------------------------------------------------------------
# Versions and verify --against
# --------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["evil==" + "1" * 5000, "torch==2.13.0"])
def test_verify_against_refuses_before_pip_runs(tmp_path, capsys, fake_pip, spec):
    project = write_project(tmp_path / "project")
    with deadline(120):
        code = run(["--project", str(project), "verify", "--device", "cpu", "--against", spec])
    err = capsys.readouterr().err
    assert code == 2 and not fake_pip.exists(), err
    if spec.startswith("torch"):
        assert "--against torch==2.13.0: no annotation selected here is on torch (annotated distributions: evil)" in err
    else:
        assert "a text of 5,000 characters is not a version" in err and "1" * 100 not in err


def test_check_against_a_huge_version_refuses_before_pip_runs(tmp_path, capsys, fake_pip):
    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site")
    assert run(["--project", str(project), "--source", f"evil={site}", "lock"]) == 0
    capsys.readouterr()
    assert run(["--project", str(project), "--source", f"evil={site}", "check", "--against", "evil==" + "1" * 5000]) == 2
    err = capsys.readouterr().err
    assert "a text of 5,000 characters is not a version" in err and not fake_pip.exists()


def _no_workflow_command(text: str) -> None:
    """No line starts a workflow command but the tool's own report of an error it could not run past."""
    own = "::error title=infralens "
    assert not any(line.lstrip().startswith("::") and not line.startswith(own) for line in text.splitlines()), text
    assert "pwned" not in text


def test_a_folded_metadata_version_in_a_wheel_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site")
    wheel = write_wheel(tmp_path, header=FOLDED)
    assert run(["--project", str(project), "--source", f"evil={site}", "lock"]) == 0
    capsys.readouterr()
    code = run(["--project", str(project), "--source", f"evil={site}", "check", "--against", str(wheel), "--format", "github"])
    out, err = capsys.readouterr()
    assert code == 2 and "its METADATA gives no valid version: a text on more than one line is not a version" in err
    _no_workflow_command(out + err)


def test_a_folded_metadata_version_in_an_installed_tree_is_refused(tmp_path):
    import subprocess

    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site", metadata_version=FOLDED)
    code = "import sys; from infralens.cli import main; sys.exit(main(['validate']))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path]), "INFRALENS_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stdout + done.stderr  # an error of the annotation that needs the distribution
    assert "distribution 'evil': its installed METADATA gives no valid version: a text on more than one line" in done.stderr
    _no_workflow_command(done.stdout + done.stderr)


def test_a_dist_info_folder_naming_a_bad_version_is_refused(tmp_path, capsys):
    project = write_project(tmp_path / "project")
    site = write_site(tmp_path / "site", version=None)
    (site / "evil-1.0\n::error::pwned.dist-info").mkdir()
    assert run(["--project", str(project), "--no-cache", "--source", f"evil={site}", "validate"]) == 2
    err = capsys.readouterr().err
    assert "the evil .dist-info folder's name gives no valid version: a text on more than one line" in err
    _no_workflow_command(err)


@pytest.mark.parametrize("bad", ["1.0\n::error::pwned", "9" * 5000])
def test_report_versions_follow_the_version_rule(tmp_path, monkeypatch, bad):
    from infralens.reports import ReportError, load_report

    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    data = json.loads((Path(__file__).resolve().parents[2] / "reports" / "verify-cpu.json").read_text("utf-8"))
    data["versions"]["diffusers"] = bad
    path = tmp_path / "verify-cpu.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ReportError, match=r"\(at versions/diffusers\)") as refused:
        load_report(path)
    assert len(str(refused.value)) < 400

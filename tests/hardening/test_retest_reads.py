"""Reads the hostile re-test found unbounded (issue 38): lab pages, the lock, linked annotation folders, catalog text.

``validate`` reads every lab page through the one bounded reader of a lab page (a regular file, at most the
site's size, UTF-8 checked at its line) and never through a link that leads outside the project; the lock is
read up to a size limit and its ``file`` values must stay relative paths inside the project; a linked folder
under ``annotations/`` is reported, never skipped in silence; a catalog's config never holds text that reads
as a number or a key that is not a name, and any failure to build a model names the catalog line.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from infralens.cli import main
from infralens.cost import CatalogError, load_catalog

ANNOTATION = (
    "id: engine-run\nlab: 01-lab\nsource: evil\ntarget: evil.core.run\nsummary: s\n"
    "steps:\n  - at: doubled = value * 2\n    note: Twice.\n    static: read statically in this test\n"
)
CORE = "def run(value):\n    doubled = value * 2\n    return doubled\n"
PAGE = "# Lab\n\n```{infralens-function} evil.core.run\n```\n"
SECRET = "```{infralens-function} SECRET_TOKEN_4711\n```\nA `‘quoted’` SECRET_TOKEN_4711 span.\n"
"""An outside file's content: read as a lab page, it would come back in diagnostics."""
BIG = 3 * 1024**3
"""A 3 GB sparse file: costs no disk, but read whole it is 3 GB of memory."""


def write_project(root: Path) -> Path:
    (root / "annotations" / "evil").mkdir(parents=True)
    (root / "labs" / "lab-01-lab").mkdir(parents=True)
    (root / "labs" / "lab-01-lab" / "index.md").write_text(PAGE)
    (root / "annotations" / "evil" / "engine.yaml").write_text(ANNOTATION)
    return root


def write_site(root: Path) -> Path:
    (root / "evil").mkdir(parents=True)
    (root / "evil" / "__init__.py").write_text("")
    (root / "evil" / "core.py").write_text(CORE)
    return root


def run(args: list[str]) -> int:
    try:
        return main(args)
    except SystemExit as stop:
        return int(stop.code or 0)


def run_limited(args: list[str], cwd: Path, cache: Path, seconds: int = 120) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process with 1 GB of address space (reading a 3 GB file whole fails there at once), killed
    after *seconds*: a read that blocks on a FIFO fails the test instead of hanging it (an in-process alarm is not
    enough: the ``TimeoutError`` it raises is an ``OSError``, which a reader may catch before opening the FIFO again)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    code = "import sys; from infralens.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "INFRALENS_CACHE_DIR": str(cache)}
    try:
        return subprocess.run(
            [sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=seconds, preexec_fn=limit, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"infralens {' '.join(args[-1:])} still running after {seconds}s")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    write_site(tmp_path / "site")
    return write_project(tmp_path / "project")


def options(project: Path) -> list[str]:
    return ["--project", str(project), "--no-cache", "--source", f"evil==1.0={project.parent / 'site'}"]


# --------------------------------------------------------------------------
# Lab pages: one bounded reader, never through a link out of the project
# --------------------------------------------------------------------------


def test_a_fifo_lab_page_is_a_located_error_not_a_hang(project, tmp_path):
    page = project / "labs" / "lab-01-lab" / "index.md"
    page.unlink()
    os.mkfifo(page)
    done = run_limited([*options(project), "validate"], project, tmp_path / "cache", seconds=30)
    assert done.returncode == 1, done.stderr
    assert "labs/lab-01-lab/index.md:1:1: error: the lab page is a FIFO (named pipe), not a regular file" in done.stderr


@pytest.mark.parametrize("kind", ["sparse", "sparse-linked", "dev-zero"])
def test_a_huge_or_endless_lab_page_is_refused_without_reading_it(project, tmp_path, kind):
    page = project / "labs" / "lab-01-lab" / "index.md"
    page.unlink()
    if kind == "dev-zero":
        page.symlink_to("/dev/zero")
    else:
        big = page if kind == "sparse" else project / "big.md"
        with open(big, "wb") as handle:
            handle.truncate(BIG)
        if kind == "sparse-linked":
            page.symlink_to(big)  # a link inside the project: followed, and still bounded
    done = run_limited([*options(project), "validate"], project, tmp_path / "cache")
    assert done.returncode == 1, done.stderr
    assert "MemoryError" not in done.stderr and "internal error" not in done.stderr
    assert "labs/lab-01-lab/index.md:1:1: error:" in done.stderr
    expected = "outside the project; it was not read" if kind == "dev-zero" else "the lab page is larger than 1,000,000 bytes"
    assert expected in done.stderr


def test_a_lab_page_that_is_not_utf8_is_an_error_at_its_line(project, capsys):
    (project / "labs" / "lab-01-lab" / "index.md").write_bytes(PAGE.encode() + b"\nfine\nbad \xff byte\n")
    code = run([*options(project), "validate"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "labs/lab-01-lab/index.md:7:5: error: byte 0xff is not UTF-8" in err


def test_a_lab_page_linked_outside_the_project_is_not_read(project, tmp_path, capsys):
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    (project / "labs" / "lab-01-lab" / "notes.md").symlink_to(secret)
    code = run([*options(project), "validate"])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert "SECRET_TOKEN" not in captured.err + captured.out and str(secret) not in captured.err
    assert "labs/lab-01-lab/notes.md:1:1: error: this lab page is a link to a file outside the project; it was not read" in captured.err


def test_a_lab_folder_linked_outside_the_project_is_not_read(project, tmp_path, capsys):
    outside = tmp_path / "outside-lab"
    outside.mkdir()
    (outside / "index.md").write_text(SECRET)
    (project / "labs" / "lab-02-elsewhere").symlink_to(outside, target_is_directory=True)
    code = run([*options(project), "validate"])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert "SECRET_TOKEN" not in captured.err + captured.out and str(outside) not in captured.err
    assert "labs/lab-02-elsewhere:1:1: error: this lab folder is a link to a folder outside the project; it was not read" in captured.err


def test_a_lab_page_linked_inside_the_project_is_read(project, capsys):
    (project / "docs").mkdir()
    (project / "docs" / "shared.md").write_text("A `‘quoted’` span.\n")
    (project / "labs" / "lab-01-lab" / "shared.md").symlink_to(project / "docs" / "shared.md")
    code = run([*options(project), "validate"])
    err = capsys.readouterr().err
    assert code == 1 and "labs/lab-01-lab/shared.md:1:4: error: curly quote inside a code span" in err


# --------------------------------------------------------------------------
# The lock: bounded, and its file paths stay inside the project
# --------------------------------------------------------------------------


def locked(project: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert run([*options(project), "lock"]) == 0
    capsys.readouterr()
    return project / "annotations" / "annotations.lock"


def test_a_lock_over_the_size_limit_is_refused_before_it_is_parsed(project, capsys):
    lock = locked(project, capsys)
    with open(lock, "r+b") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)
    code = run([*options(project), "check"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "annotations/annotations.lock: the lock is larger than 64 MB" in err and "infralens lock" in err


def test_a_three_gigabyte_lock_is_a_clear_error_not_a_memory_error(project, tmp_path, capsys):
    lock = locked(project, capsys)
    options_cached = options(project)[:2] + options(project)[3:]  # with the warm-check cache, as CI runs it
    first = run_limited([*options_cached, "check"], project, tmp_path / "cache")
    assert first.returncode == 0, first.stderr  # clean: remembered for the next check (same process setup, same cache key)
    with open(lock, "r+b") as handle:
        handle.truncate(BIG)
    for extra in ([], ["--no-cache"]):
        done = run_limited([*options_cached, *extra, "check"], project, tmp_path / "cache")
        assert done.returncode == 2, done.stderr
        assert "MemoryError" not in done.stderr and "internal error" not in done.stderr
        assert "the lock is larger than 64 MB" in done.stderr


@pytest.mark.parametrize(
    "written",
    [
        r"../../../etc/passwd",
        r"annotations/../../outside.yaml",
        r"/etc/passwd",
        r"annotations\\evil\\engine.yaml",
        r"annotations/evil/\u001b[2Jengine.yaml",
        r"annotations/evil/engine.yaml\n::error::pwned",
        r"",
    ],
)
def test_a_lock_file_value_that_leaves_the_project_is_refused(project, capsys, written):
    lock = locked(project, capsys)
    lines = lock.read_text().split("\n")
    number = next(index for index, line in enumerate(lines, 1) if line.startswith("file = "))
    lines[number - 1] = f'file = "{written}"'
    lock.write_text("\n".join(lines))
    code = run([*options(project), "check", "--format", "github"])
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert "file=" not in captured.out and "passwd" not in captured.out
    assert f"annotations/annotations.lock:{number}: value of 'file'" in captured.err and "run 'infralens lock'" in captured.err


# --------------------------------------------------------------------------
# A linked folder under annotations/ is reported, not skipped
# --------------------------------------------------------------------------


def test_an_annotation_folder_linked_outside_the_project_is_reported(project, tmp_path, capsys):
    outside = tmp_path / "outside-annotations"
    outside.mkdir()
    (outside / "other.yaml").write_text(ANNOTATION.replace("engine-run", "other-run"))
    (project / "annotations" / "linked").symlink_to(outside, target_is_directory=True)
    code = run([*options(project), "validate"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "annotations/linked:1:1: error: this annotation folder is a link to a folder outside the project; it was not read" in err
    assert str(outside) not in err


def test_an_annotation_folder_linked_inside_the_project_is_reported(project, capsys):
    inner = project / "more"
    inner.mkdir()
    (inner / "other.yaml").write_text(ANNOTATION.replace("engine-run", "other-run"))
    (project / "annotations" / "evil" / "more").symlink_to(inner, target_is_directory=True)
    code = run([*options(project), "validate"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "annotations/evil/more:1:1: error: this annotation folder is a symbolic link to a folder; annotation folders are not followed through links" in err


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_check_never_waits_on_an_annotation_file_that_is_not_a_file(project, tmp_path, capsys, kind):
    """``check`` hashes every annotation file to find the changed ones: a FIFO or /dev/zero there hung it."""
    locked(project, capsys)
    planted = project / "annotations" / "evil" / "planted.yaml"
    if kind == "fifo":
        os.mkfifo(planted)
    else:
        planted.symlink_to("/dev/zero")
    done = run_limited([*options(project), "check"], project, tmp_path / "cache", seconds=30)
    err = done.stderr
    assert done.returncode == 2, err
    expected = "is a FIFO (named pipe), not a regular file" if kind == "fifo" else "a link to a file outside the project; it was not read"
    assert "annotations/evil/planted.yaml:1:1: error: " in err and expected in err


def test_a_warm_check_sees_a_newly_linked_annotation_folder(project, capsys):
    options_cached = options(project)[:2] + options(project)[3:]
    locked(project, capsys)
    assert run([*options_cached, "check"]) == 0  # clean: remembered
    capsys.readouterr()
    (project / "more").mkdir()
    (project / "annotations" / "more").symlink_to(project / "more", target_is_directory=True)
    assert run([*options_cached, "check"]) != 0
    assert "annotations/more" in capsys.readouterr().err


# --------------------------------------------------------------------------
# The cost catalog's config: no number spelled as text, keys are names, build errors are located
# --------------------------------------------------------------------------


def catalog(folder: Path, config: str) -> Path:
    """A catalog of one transformers model whose ``config:`` is followed by *config*."""
    path = folder / "models.yaml"
    model = "library: transformers\n    class: CLIPTextModel\n    config_class: CLIPTextConfig\n    kind: text\n    source: s\n"
    path.write_text(f"models:\n  planted:\n    {model}    config:{config}\n", "utf-8")
    return path


@pytest.mark.parametrize("value", ["1e999", "7.0e300", "'0x10'", "'1_000'", "inf", "nan", "'-Infinity'", "1e5", "'0b101'"])
def test_config_text_that_reads_as_a_number_is_refused_at_its_line(tmp_path, value):
    path = catalog(tmp_path, f"\n      hidden_size: {value}")
    with pytest.raises(CatalogError) as refused:
        load_catalog(path)
    message = str(refused.value)
    assert message.startswith(f"{path}:2: model 'planted': config.hidden_size: ") and "plain decimal number" in message


@pytest.mark.parametrize("config", ["{1: 2}", "{'hidden size': 2}", "{rope: {2: 3}}", "{'': 1}"])
def test_a_config_key_that_is_not_a_name_is_refused(tmp_path, config):
    path = catalog(tmp_path, f" {config}")
    with pytest.raises(CatalogError) as refused:
        load_catalog(path)
    assert str(refused.value).startswith(f"{path}:2: model 'planted': config") and "key" in str(refused.value)


def test_names_in_the_published_catalog_still_load():
    loaded = load_catalog(Path(__file__).resolve().parents[2] / "costs" / "models.yaml")
    assert len(loaded.models) > 5


@pytest.mark.slow
def test_a_config_the_upstream_class_rejects_is_a_located_error(tmp_path, capsys, monkeypatch):
    """hidden_size 1.5 is a plain decimal, so the catalog accepts it; transformers then raises its own validation error."""
    path = catalog(tmp_path, "\n      hidden_size: 1.5")
    monkeypatch.chdir(tmp_path)
    code = run(["cost", "--catalog", str(path), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "internal error" not in err and "Traceback" not in err
    assert f"{path}:2: model planted:" in err and "cannot be built from this config" in err

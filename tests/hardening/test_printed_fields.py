"""Every printed field goes through one escape (issue 38, item 5): terminal text, JSON and GitHub commands.

Versions from an upstream wheel's ``METADATA``, upstream file names, cost model ids and changed statements
reach ``check``, ``locate``, ``show`` and ``cost``. Whatever they hold, the output is valid UTF-8, holds no
control, C1 or format character, and no line of it is a workflow command InfraLens did not mean to write:
GitHub's runner reads ``::name …::`` at a line start (after trimming blanks) and ``##[name]`` anywhere in a
line (its older parser), and a bare carriage return ends a line for it too.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import infralens.source
from infralens.cli import main
from infralens.errors import FORMAT_CHARACTERS

REPO = Path(__file__).resolve().parents[2]
FOLDED = "2.0\n ::error file=pwned.py,line=1::pwned by a folded Version\n ##[error]pwned again"
"""A ``Version:`` header folded onto continuation lines, as an email-style header parser reads it."""
HOSTILE = "2.0\n::error file=x.py,line=1::pwned\r::warning::cr\x1b[2J\x9b31m\u202e\u2028 ##[error]legacy ##vso[task.logissue]az \udcff"
"""Everything at once: line breaks before commands, terminal escapes, C1, bidi, a separator, a lone surrogate."""
CORE = "class Engine:\n    def run(self, value):\n        doubled = value * 2\n        return doubled\n"
OUR_COMMAND = re.compile(
    r"::(error|warning|notice) file=[^:,\s]+,line=\d+,title=infralens drift%3A [^:,]+::\S"
    r"|::error title=infralens [a-z]+ could not run::\S"  # a tool error (exit 2), written as an annotation too
)
UNSEEN = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{FORMAT_CHARACTERS.pattern[1:-1]}]")


def assert_inert(text: str, *, commands: bool = False) -> None:
    """No control character; no line (split as the runner splits) is a command, except InfraLens's own annotations."""
    assert not UNSEEN.search(text), ascii(UNSEEN.search(text))
    for line in re.split(r"\r\n|\r|\n", text):
        assert "##[" not in line and "##vso[" not in line.lower(), line
        if line.lstrip().startswith("::"):
            assert commands and OUR_COMMAND.match(line), line


def strict(data: bytes) -> str:
    return data.decode("utf-8")  # raises on any byte that is not UTF-8


def build_wheel(folder: Path, version: str, body: str = "doubled = value * 2") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "evil-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("evil/__init__.py", "")
        archive.writestr("evil/core.py", CORE.replace("doubled = value * 2", body))
        archive.writestr("evil-1.0.dist-info/METADATA", f"Metadata-Version: 2.1\nName: evil\nVersion: {version}\n")
        archive.writestr("evil-1.0.dist-info/RECORD", "")
    return wheel


def write_project(root: Path) -> Path:
    (root / "annotations" / "evil").mkdir(parents=True)
    (root / "labs" / "lab-01-lab").mkdir(parents=True)
    (root / "annotations" / "evil" / "engine.yaml").write_text(
        "id: engine-run\nlab: 01-lab\nsource: evil\ntarget: evil.core.Engine.run\nsummary: s\nsteps:\n"
        "  - at: doubled = value * 2\n    note: Twice.\n    static: read statically in this test\n"
    )
    return root


def run_cli(args: list[str], cwd: Path, cache: Path) -> subprocess.CompletedProcess[bytes]:
    code = "import sys; from infralens.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "INFRALENS_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, timeout=300, check=False)


def locked_project(tmp_path: Path) -> tuple[Path, Path]:
    old = build_wheel(tmp_path / "old", "1.0")
    project = write_project(tmp_path / "project")
    locked = run_cli(["--source", f"evil={old}", "lock"], project, tmp_path / "cache")
    assert locked.returncode == 0, locked.stderr
    return project, old


@pytest.mark.parametrize("output", ["github", "text"])
def test_a_folded_metadata_version_cannot_start_a_workflow_command(tmp_path, output):
    """``check --against`` a wheel whose ``Version:`` is folded: refused or checked, never a command in the log."""
    project, old = locked_project(tmp_path)
    hostile = build_wheel(tmp_path / "new", FOLDED, body="doubled = value + value")
    for args in (["--source", f"evil={old}", "check", "--against", str(hostile)], ["--source", f"evil={hostile}", "check"]):
        done = run_cli([*args, "--format", output], project, tmp_path / "cache")
        assert done.returncode in (1, 2), done.stderr
        assert_inert(strict(done.stdout), commands=output == "github")
        assert_inert(strict(done.stderr))


@pytest.fixture
def hostile_versions(monkeypatch):
    """Every source tree opened reports :data:`HOSTILE` as its version, whatever its reader would let through."""
    real_tree, real_against = infralens.source.open_tree, infralens.source.open_against

    def open_tree(*args, **kwargs):
        tree = real_tree(*args, **kwargs)
        tree.version = HOSTILE
        return tree

    def open_against(*args, **kwargs):
        tree = real_against(*args, **kwargs)
        tree.version = HOSTILE
        return tree

    monkeypatch.setattr(infralens.source, "open_tree", open_tree)
    monkeypatch.setattr(infralens.source, "open_against", open_against)


@pytest.mark.parametrize("options", [["--format", "text"], ["--format", "github"], ["--format", "json"], ["--explain", "engine-run"]], ids="-".join)
def test_a_hostile_version_reaching_check_is_escaped_in_every_format(tmp_path, capsys, monkeypatch, hostile_versions, options):
    project, old = locked_project(tmp_path)
    new = build_wheel(tmp_path / "new", "2.0", body="doubled = value + value")
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["--project", str(project), "--source", f"evil={old}", "check", "--against", str(new), *options]) == 1
    out, err = capsys.readouterr()
    strict(out.encode("utf-8"))
    assert_inert(err)
    if options[-1] == "json":
        document = json.loads(out)
        assert {tree["version"] for tree in document["checked"]} == {HOSTILE.replace("\udcff", "\\udcff")}  # a visible marker, else unchanged
        assert "##[" not in out and "##vso[" not in out and not UNSEEN.search(out)
    else:
        assert_inert(out, commands=options[-1] == "github")
        assert "2.0\\n::error file=x.py" in out and "\\x1b[2J" in out and "\\x23#[error]legacy" in out


@pytest.mark.parametrize("color", ["never", "always"])
def test_show_escapes_a_hostile_version_and_keeps_its_colours(tmp_path, capsys, monkeypatch, hostile_versions, color):
    project, old = locked_project(tmp_path)
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["--project", str(project), "--source", f"evil={old}", "show", "evil.core.Engine.run", "--color", color]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert header.startswith("evil 2.0\\n::error file=x.py") and "\\x23#[error]" in header
    shown = re.sub(r"\x1b\[[0-9;]*m", "", out)  # the colours `--color always` asks for
    assert_inert(shown)
    assert (out != shown) == (color == "always")


def test_locate_prints_hostile_file_names_escaped(tmp_path):
    package = tmp_path / "tree" / "evil"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    names = [b"core.py", b"\x1b[2Jclear.py", b"a\n::error file=x,line=1::pwned.py", b"##[error]legacy.py", b"bad\xff.py", b"\xe2\x80\xaerevo.py"]
    for name in names:
        (package / os.fsdecode(name)).write_text("class Engine:\n    def run(self):\n        return 1\n")
    done = run_cli(["--no-cache", "--source", f"evil={tmp_path / 'tree'}", "locate", "Engine.run", "--dist", "evil"], tmp_path, tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    out = strict(done.stdout)
    assert_inert(out)
    assert len(out.splitlines()) == len(names)
    for shown in ("evil/\\x1b[2Jclear.py:2-3", "evil/a\\n::error file=x", "evil/\\x23#[error]legacy.py", "evil/bad\\udcff.py", "evil/\\u202erevo.py"):
        assert shown in out, out


def test_a_changed_statement_holding_log_commands_is_inert(tmp_path):
    project, old = locked_project(tmp_path)
    body = 'doubled = value * len("##[error]pwned ##vso[task.complete result=Failed]x")'
    new = build_wheel(tmp_path / "new", "2.0", body=body)
    for output in ("text", "github", "json"):
        done = run_cli(["--source", f"evil={old}", "check", "--against", str(new), "--format", output], project, tmp_path / "cache")
        assert done.returncode == 1, done.stderr
        out = strict(done.stdout)
        assert "pwned" in out
        if output == "json":
            assert "##[" not in out and "##vso[" not in out
            step = next(iter(json.loads(out)["steps"].values()))
            assert '"##[error]pwned ##vso[task.complete result=Failed]x"' in step["new"]["text"][0]  # escaped for the log, read back unchanged
        else:
            assert_inert(out, commands=output == "github")


def test_check_json_is_valid_utf8_when_a_file_name_is_not(tmp_path):
    """The target moved into a module whose file name has a byte that is not UTF-8 (kept by Python as U+DCFF)."""
    source = tmp_path / "src" / "evil"
    source.mkdir(parents=True)
    (source / "__init__.py").write_text("")
    (source / "core.py").write_text(CORE)
    project = write_project(tmp_path / "project")
    locked = run_cli(["--source", f"evil==1.0={tmp_path / 'src'}", "lock"], project, tmp_path / "cache")
    assert locked.returncode == 0, locked.stderr
    new = tmp_path / "new" / "evil"
    new.mkdir(parents=True)
    (new / "__init__.py").write_text("")
    (new / "core.py").write_text("from evil.other import Engine\n")
    (new / "other.py").write_text("from evil.bad import Engine\n")
    with open(os.path.join(os.fsencode(new), b"bad\xff.py"), "w") as handle:
        handle.write(CORE.replace("value * 2", "value + value"))
    for output in ("json", "text", "github"):
        done = run_cli(
            ["--source", f"evil==1.0={tmp_path / 'src'}", "check", "--against", f"evil={tmp_path / 'new'}", "--format", output], project, tmp_path / "cache"
        )
        assert done.returncode == 1, done.stderr
        out = strict(done.stdout)
        if output == "json":
            step = next(iter(json.loads(out)["steps"].values()))
            assert step["new"]["source"] == "evil/bad\\udcff.py"  # the byte as visible text, the same in every format
        else:
            assert "bad\\udcff" in out
            assert_inert(out, commands=output == "github")


def test_cost_text_escapes_model_and_pipeline_ids():
    from infralens.cost.text import render_text
    from infralens.reports import load_cost_report

    report = load_cost_report(REPO / "reports" / "cost.json")
    report = dataclasses.replace(
        report,
        models=tuple(dataclasses.replace(m, id=f"{HOSTILE} {m.id}") for m in report.models),
        pipelines=tuple(dataclasses.replace(p, id=f"{HOSTILE} {p.id}") for p in report.pipelines),
        notes=(*report.notes, HOSTILE),
    )
    text = render_text(report)
    strict(text.encode("utf-8"))
    assert_inert(text)
    assert "2.0\\n::error file=x.py" in text and "\\x1b[2J" in text


def test_a_cost_error_naming_hostile_model_ids_is_escaped(tmp_path):
    catalog = tmp_path / "models.yaml"
    catalog.write_text(
        'models:\n  "evil\\e[2J\\n::error file=x,line=1::pwned ##[error]x\\x85::notice::y":\n'
        "    library: diffusers\n    class: UNet2DConditionModel\n    kind: unet\n    source: s\n    config:\n      sample_size: 8\n"
    )
    done = run_cli(["cost", "no-such-model", "--catalog", str(catalog)], tmp_path, tmp_path / "cache")
    assert done.returncode == 2
    assert_inert(strict(done.stdout) + strict(done.stderr))
    assert "infralens: error:" in strict(done.stderr)


def test_standard_streams_never_write_bytes_that_are_not_utf8(tmp_path):
    """The net under the escapes: a lone surrogate that reaches a stream is written as the text ``\\udcff``."""
    code = "import sys; from infralens.cli import utf8_safe_streams; utf8_safe_streams(); print('a\\udcffb'); print('c\\udcfe', file=sys.stderr)"
    for encoding in ("utf-8", "utf-8:surrogateescape"):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, env={**os.environ, "PYTHONIOENCODING": encoding}, check=False)
        assert done.returncode == 0, done.stderr
        assert (strict(done.stdout), strict(done.stderr)) == ("a\\udcffb\n", "c\\udcfe\n")


@pytest.mark.parametrize("terminal", [False, True])
def test_verify_progress_escapes_scenario_names(terminal):
    """Scenario names are the project's: the progress lines print them escaped (the bar's own ``\\r`` and erase code stay)."""
    import io

    from infralens.reports import ScenarioStatus
    from infralens.verify.progress import Progress
    from infralens.verify.run.protocol import Event, ScenarioOutcome

    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return terminal

    stream = Stream()
    progress = Progress(2, stream)
    progress(Event.START, HOSTILE, None)
    progress(Event.DONE, HOSTILE, ScenarioOutcome(HOSTILE, ScenarioStatus.PASSED, 0.5))
    progress.close()
    shown = stream.getvalue().replace("\r\x1b[2K", "\n") if terminal else stream.getvalue()
    assert_inert(shown)
    assert "2.0\\n::error file=x.py" in shown


def test_the_diff_of_fix_cannot_start_a_workflow_command(tmp_path):
    """``fix --dry-run`` prints a YAML diff whose context lines come from the annotation file: a note line
    ``::error …`` (indented, which the runner trims) is shown escaped, and so is the file's name in the
    lines ``fix`` prints about what it did."""
    project, old = locked_project(tmp_path)
    annotation = project / "annotations" / "evil" / "engine.yaml"
    annotation.write_text(
        annotation.read_text().replace("    note: Twice.\n", "    note: |\n      ::error file=pwned.py::pwned by a note\n      ##[error]pwned\n")
    )
    relocked = run_cli(["--source", f"evil={old}", "lock"], project, tmp_path / "cache")
    assert relocked.returncode == 0, relocked.stderr
    new = build_wheel(tmp_path / "new", "2.0", body="doubled = value * 2 + 0")
    for extra in (["--dry-run"], []):
        done = run_cli(["--source", f"evil={new}", "fix", *extra], project, tmp_path / "cache")
        out, err = strict(done.stdout), strict(done.stderr)
        assert "pwned" in out + err + annotation.read_text()
        assert_inert(out)
        assert_inert(err)

"""``infralens init``: a new project that works end to end on the installed transformers, and the folders it refuses."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from strict_build import build_strictly

from infralens.cli import _load_extensions, build_parser, main
from infralens.maintainer.init import FILES

REPO = Path(__file__).resolve().parents[2]
TARGET = "transformers.models.llama.modeling_llama.repeat_kv"


def _fill_notes(path: Path) -> None:
    """Write what a maintainer would: the summary and each note, each step read without a scenario."""
    text = path.read_text("utf-8")
    text = re.sub(r'summary: "TODO[^"\n]*"', 'summary: "Repeats each key/value head n_rep times for grouped-query attention."', text)
    text, count = re.subn(r"TODO: explain `[^\n]*", "The shape change this statement makes.\n    static: read, not run, in this test", text)
    assert count >= 2, text
    path.write_text(text, "utf-8")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.slow
def test_init_add_validate_lock_check_and_a_w_build(tmp_path: Path, cache: Path, capsys) -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("myst_parser")
    root = tmp_path / "course"
    assert main(["init", str(root), "--distribution", "transformers"]) == 0
    for path, _ in FILES:
        assert (root / path).is_file(), path
    settings = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["infralens"]
    assert settings["distributions"] == ["transformers"]
    assert settings["upstream"]["transformers"].startswith("https://github.com/huggingface/transformers/blob/v{version}/src/{relpath}")

    project = ["--project", str(root)]
    assert main([*project, "verify", "--list"]) == 0
    assert "example" in capsys.readouterr().out
    assert main([*project, "add", TARGET, "--id", "repeat-kv"]) == 0
    annotation = root / "annotations" / "transformers" / "repeat-kv.yaml"
    _fill_notes(annotation)
    capsys.readouterr()
    assert main([*project, "validate"]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out
    assert main([*project, "lock"]) == 0
    assert main([*project, "check"]) == 0
    assert "clean" in capsys.readouterr().out

    site = tmp_path / "html"
    build = build_strictly(root, site, tmp_path / "doctrees")
    assert build.returncode == 0, build.stdout + build.stderr
    page = (site / "_infralens" / "source" / "transformers" / f"{TARGET}.html").read_text("utf-8")
    assert "The shape change this statement makes." in page
    assert 'href="_infralens/source/index.html"' in (site / "index.html").read_text("utf-8")


def test_the_recipes_run_real_subcommands_with_the_installed_release(tmp_path: Path, cache: Path) -> None:
    pytest.importorskip("transformers")
    root = tmp_path / "course"
    assert main(["init", str(root), "--distribution", "transformers"]) == 0
    _load_extensions()
    parser = build_parser()
    ours = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    hooks = yaml.safe_load((root / ".pre-commit-config.yaml").read_text("utf-8"))["repos"][0]["hooks"]
    assert {hook["id"] for hook in hooks} == set(ours)
    for hook in hooks:  # the published hooks' settings, run from the project's own environment
        assert {key: hook[key] for key in ("entry", "files", "pass_filenames")} == {key: ours[hook["id"]][key] for key in ("entry", "files", "pass_filenames")}
        program, *argv = shlex.split(hook["entry"])
        assert program == "infralens" and parser.parse_args(argv).command == argv[0]
    workflow = yaml.safe_load((root / ".github" / "workflows" / "infralens.yml").read_text("utf-8"))
    commands = [step["run"] for step in workflow["jobs"]["notes"]["steps"] if "run" in step]
    version = importlib.metadata.version("transformers")
    assert f'"transformers=={version}"' in commands[0]
    ran = [shlex.split(c) for c in commands if c.startswith("infralens ")]
    assert [argv[1] for argv in ran] == ["validate", "check"]
    for argv in ran:
        parser.parse_args(argv[1:])
    assert any("sphinx -W" in c for c in commands)


def test_a_folder_with_other_files_is_fine_and_its_gitignore_stays(tmp_path: Path, cache: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "README.md").write_text("mine\n", "utf-8")
    (root / ".gitignore").write_text("secret/\n", "utf-8")
    (root / "docs").mkdir()  # empty: nothing to mix with
    assert main(["init", str(root)]) == 0
    assert (root / ".gitignore").read_text("utf-8") == "secret/\n"
    assert (root / "README.md").read_text("utf-8") == "mine\n"
    assert (
        "distributions" not in tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["infralens"]
    )  # none named: the key is left out (an empty list is an error)


@pytest.mark.parametrize("existing", ["annotations/old.yaml", "pyproject.toml", ".github/workflows/infralens.yml", "docs/index.md"])
def test_a_folder_holding_what_init_writes_is_refused_and_left_alone(tmp_path: Path, cache: Path, capsys, existing: str) -> None:
    root = tmp_path / "busy"
    (root / existing).parent.mkdir(parents=True, exist_ok=True)
    (root / existing).write_text("kept\n", "utf-8")
    assert main(["init", str(root)]) == 2
    error = capsys.readouterr().err
    top = existing.split("/", maxsplit=1)[0]
    shown = f"{top}/" if top in ("annotations", "docs") else existing
    assert f"would write over {shown}" in error and "nothing was written" in error and "Traceback" not in error
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == [existing]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--distribution", "no-such-distribution-here"], "is not installed"),
        (["--distribution", "bad name"], "not a distribution name"),
        (["--distribution", "pyyaml", "--upstream", "pyyaml=https://example.org/{path}#L{line}"], "unknown placeholder(s) {line}, {path}"),
        (["--distribution", "pyyaml", "--upstream", "pyyaml=https://example.org/{relpath"], "write a literal brace"),
        (["--upstream", "pyyaml=https://example.org/{relpath}"], "not among the --distribution names"),
        (["--distribution", "pyyaml", "--upstream", "pyyaml"], "expected NAME=TEMPLATE"),
        (["--theme", "furo; rm -rf /"], "not a theme name"),
    ],
)
def test_bad_options_are_clear_errors_and_write_nothing(tmp_path: Path, cache: Path, capsys, argv: list[str], said: str) -> None:
    root = tmp_path / "new"
    assert main(["init", str(root), *argv]) == 2
    error = capsys.readouterr().err
    assert said in error and "Traceback" not in error
    assert not root.exists()


def test_a_given_template_is_kept_as_text_in_toml(tmp_path: Path, cache: Path) -> None:
    template = 'https://example.org/"q"\\x/v{version}/{relpath}#L{start}-L{end}'
    root = tmp_path / "new"
    assert main(["init", str(root), "--distribution", "PyYAML", "--upstream", f"pyyaml={template}"]) == 0
    settings = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["infralens"]
    assert settings["upstream"] == {"PyYAML": template} and settings["distributions"] == ["PyYAML"]


def test_the_files_are_written_all_or_none(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import infralens.atomic

    real = os.replace
    calls = []

    def third_fails(source, target):
        calls.append(target)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(source, target)

    monkeypatch.setattr(infralens.atomic.os, "replace", third_fails)
    root = tmp_path / "new"
    assert main(["init", str(root)]) == 2
    assert "No space left" in capsys.readouterr().err
    assert [p for p in root.rglob("*") if p.is_file()] == []


REPEAT_KV_SCENARIO = """
from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers.models.llama.modeling_llama")


@scenario("example", "repeat_kv on 2 key/value heads repeated 3 times")
def example(ctx: ScenarioContext) -> None:
    import torch
    from transformers.models.llama.modeling_llama import repeat_kv

    out = repeat_kv(torch.randn(1, 2, 5, 4, generator=ctx.generator(0)).to(ctx.device), 3)
    ctx.check(out.shape == (1, 6, 5, 4), f"shape {tuple(out.shape)}")
"""


@pytest.mark.slow
def test_the_example_scenario_slot_verifies_the_new_annotation(tmp_path: Path, cache: Path, capsys) -> None:
    """The scenarios folder init makes is the one verify runs: a scenario written there verifies the steps it reaches."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    root = tmp_path / "course"
    assert main(["init", str(root), "--distribution", "transformers"]) == 0
    (root / "scenarios" / "example.py").write_text(REPEAT_KV_SCENARIO, "utf-8")
    assert main(["--project", str(root), "add", TARGET, "--id", "repeat-kv"]) == 0
    annotation = root / "annotations" / "transformers" / "repeat-kv.yaml"
    _fill_notes(annotation)
    text = annotation.read_text("utf-8").replace("    static: read, not run, in this test\n", "")
    annotation.write_text(text.replace("\nsteps:\n", "\nscenario: example\nsteps:\n", 1), "utf-8")
    assert main(["--project", str(root), "validate"]) == 0
    capsys.readouterr()
    assert main(["--project", str(root), "verify"]) == 0
    assert "3 steps: 0 checked, 0 held, 3 ran, 0 read, 0 unverified (0 failed)" in capsys.readouterr().out


@pytest.mark.slow
def test_an_odd_folder_name_is_text_in_every_file(tmp_path: Path, cache: Path) -> None:
    """The folder's name becomes the site's title: markup and control characters in it stay text."""
    pytest.importorskip("myst_parser")
    root = tmp_path / "my `notes` *[x]*\u0007\nend"
    assert main(["init", str(root)]) == 0
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-d", str(tmp_path / "doctrees"), "docs", str(tmp_path / "html")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])},
        check=False,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    title = (tmp_path / "html" / "index.html").read_text("utf-8")
    assert "my `notes` *[x]*" in title.replace("&#96;", "`") and "<em>" not in title

"""``infralens show|locate|validate`` in-process: exit codes 0/1/2 and message formats."""

from __future__ import annotations

import textwrap

import pytest

from infralens.cli import main


def annotation_yaml(target: str, steps: str, *, ident: str = "fake-ann", extra: str = "") -> str:
    """A minimal annotation document; ``steps`` is the YAML of the step list (dedented)."""
    body = textwrap.indent(textwrap.dedent(steps).strip("\n"), "  ")
    return f"id: {ident}\nlab: 01-lab\nsource: fakedist\ntarget: {target}\nsummary: A test annotation.\n{extra}steps:\n{body}\n"


MOD = '''
class Box:
    def grow(self, size):
        """Make it bigger."""
        size = size + 1
        for _ in range(2):
            size = size * 2
        return size
'''

GOOD = (
    annotation_yaml(
        "fakedist.mod.Box.grow",
        """
    - at: size = size + 1
      note: One more.
    - at: "for _ in range(2)"
      note: |
        Doubles twice.

        Second paragraph.
    """,
    )
    + "scenario: fake-scenario\n"
)  # so validate has no "never verified" warning to give


@pytest.fixture(autouse=True)
def isolated_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def project(annotation_project):
    return annotation_project({"mod.py": MOD}, {"box.yaml": GOOD})


def cli(project, *args):
    return main(["--project", str(project), "--source", f"fakedist={project / 'site'}", *args])


def test_validate_clean(project, capsys):
    assert cli(project, "validate") == 0
    out, err = capsys.readouterr()
    assert out == "validated 1 annotations (2 steps) in 1 files: 0 errors, 0 warnings\n" and err == ""


def test_validate_reports_selector_problems_with_candidates(project, capsys):
    (project / "annotations" / "fakedist" / "box.yaml").write_text(GOOD.replace("size = size + 1", "size = size + 2"))
    assert cli(project, "validate") == 1
    out, err = capsys.readouterr()
    assert err == (
        "annotations/fakedist/box.yaml:7:9: error: 'size = size + 2' matches no statement in the target; "
        "candidates: line 4: size = size + 1 | line 6: size = size * 2 | line 7: return size — copy the statement text from 'infralens show'\n"
    )
    assert out.endswith("1 errors, 0 warnings\n")


def test_validate_reports_missing_target_at_the_annotation(project, capsys):
    (project / "annotations" / "fakedist" / "box.yaml").write_text(GOOD.replace("Box.grow", "Box.shrink"))
    assert cli(project, "validate") == 1
    err = capsys.readouterr().err
    assert err.startswith("annotations/fakedist/box.yaml:1:1: error: Box.shrink is not defined in fakedist.mod; candidates: ")
    assert err.rstrip().endswith("— check the module path and qualname (infralens locate NAME helps)")


def test_validate_reports_duplicate_ids_across_files(project, capsys):
    (project / "annotations" / "fakedist" / "copy.yaml").write_text(GOOD)
    assert cli(project, "validate") == 1
    err = capsys.readouterr().err
    assert (
        "annotations/fakedist/copy.yaml:1:1: error: id 'fake-ann' is already used at annotations/fakedist/box.yaml:1:1 — give this annotation another id" in err
    )


def test_validate_reports_yaml_errors_and_keeps_checking_other_files(project, capsys):
    (project / "annotations" / "fakedist" / "broken.yaml").write_text("id: [\n")
    assert cli(project, "validate") == 1
    out, err = capsys.readouterr()
    assert err.startswith("annotations/fakedist/broken.yaml:2:1: error: YAML syntax error:")
    assert out == "validated 1 annotations (2 steps) in 2 files: 1 errors, 0 warnings\n"


def test_validate_unknown_lab_and_wrong_folder(project, capsys):
    text = GOOD.replace("lab: 01-lab", "lab: 99-nope")
    (project / "annotations" / "fakedist" / "box.yaml").write_text(text)
    (project / "annotations" / "other").mkdir()
    (project / "annotations" / "other" / "x.yaml").write_text(text.replace("fake-ann", "other-ann"))
    assert cli(project, "validate") == 1
    err = capsys.readouterr().err
    assert "annotations/fakedist/box.yaml:1:1: error: lab '99-nope' does not exist — create labs/lab-99-nope/ or use one of: 01-lab" in err
    assert "annotations/other/x.yaml:1:1: warning: source 'fakedist' lives in annotations/other/ — move the file to annotations/fakedist/" in err


def test_validate_missing_path_is_a_usage_error(project, capsys):
    assert cli(project, "validate", str(project / "nope")) == 2
    assert capsys.readouterr().err == f"infralens: error: {project / 'nope'}: no such file or directory\n"


def test_show_prints_real_lines_with_notes(project, capsys):
    assert cli(project, "show", "fakedist.mod.Box.grow", "--color", "never", "--width", "140") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "fakedist unknown · fakedist/mod.py:2-7 · function Box.grow"
    assert out[1].startswith("2 │     def grow(self, size):")
    assert out[3].startswith("4▶│         size = size + 1") and out[3].endswith("◀ One more.")
    assert out[5].startswith("5▶│         for _ in range(2):") and out[5].endswith("◀ Doubles twice.")
    assert "Second paragraph." in out[6] and "[fake-ann]" in "\n".join(out)
    assert out[-1].startswith("7 │         return size")


def test_show_by_annotation_id(project, capsys):
    assert cli(project, "show", "fake-ann", "--color", "never") == 0
    assert "function Box.grow" in capsys.readouterr().out


def test_show_unknown_target_is_a_usage_error(project, capsys):
    assert cli(project, "show", "fakedist.mod.Box.gro") == 2
    assert capsys.readouterr().err == "infralens: error: fakedist.mod.Box.gro: Box.gro is not defined in fakedist.mod; candidates: Box.grow | Box\n"


def test_show_unknown_id(project, capsys):
    assert cli(project, "show", "nope") == 2
    assert capsys.readouterr().err == "infralens: error: 'nope' is neither a dotted target nor an annotation id\n"


def test_show_with_broken_annotation_prints_the_code_and_the_problem(project, capsys):
    (project / "annotations" / "fakedist" / "box.yaml").write_text(GOOD.replace("size = size + 1", "size = size + 9"))
    assert cli(project, "show", "fakedist.mod.Box.grow", "--color", "never") == 1
    out, err = capsys.readouterr()
    assert "4 │         size = size + 1" in out
    assert err.startswith("annotations/fakedist/box.yaml:7:9: error: 'size = size + 9' matches no statement")


def test_locate(project, capsys):
    assert cli(project, "locate", "Box.grow", "--dist", "fakedist") == 0
    assert capsys.readouterr().out == "fakedist/mod.py:2-7: function fakedist.mod.Box.grow\n"
    assert cli(project, "locate", "Box.nothing", "--dist", "fakedist") == 1
    assert capsys.readouterr().err == f"Box.nothing: not defined anywhere in fakedist unknown ({(project / 'site').resolve()})\n"


def test_usage_errors(project, capsys):
    assert main([]) == 2
    assert main(["--project", str(project), "--source", "nodist", "validate"]) == 2
    assert capsys.readouterr().err.endswith("infralens: error: --source 'nodist': expected DIST=PATH\n")
    assert main(["--project", str(project), "--source", f"x={project / 'missing' / 'dir'}", "validate"]) == 2
    with pytest.raises(SystemExit) as caught:
        main(["validate", "--bogus"])
    assert caught.value.code == 2


def test_schema_command(capsys):
    assert main(["schema"]) == 0
    assert capsys.readouterr().out.strip().endswith("annotation.schema.json")


@pytest.mark.parametrize("target", ["..", "a..b", "../etc/passwd", "fakedist.mod-x", "fake\x1b[31mred"])
def test_show_of_something_that_is_not_a_dotted_name_is_a_clear_error(project, capsys, target):
    # '..' used to reach importlib.metadata and end as "internal error: ValueError".
    assert main(["--project", str(project), "show", target]) == 2
    err = capsys.readouterr().err
    assert "is not a dotted target (module.qualname) or an annotation id" in err or "is neither a dotted target nor an annotation id" in err
    assert "internal error" not in err and "\x1b" not in err


def test_validate_reports_schema_and_selector_errors_of_one_file_in_one_pass(project, capsys):
    broken = GOOD.replace("  - at: size = size + 1\n", "  - at: size = size + 1\n    colour: red\n").replace('"for _ in range(2)"', '"for _ in range(3)"')
    (project / "annotations" / "fakedist" / "box.yaml").write_text(broken)
    assert cli(project, "validate") == 1
    err = capsys.readouterr().err.splitlines()
    # The unknown key used to hide the selector that matches nothing until the key was fixed.
    assert err[0].startswith("annotations/fakedist/box.yaml:8:5: error: unknown key 'colour' in steps.0")
    assert err[1].startswith("annotations/fakedist/box.yaml:10:9: error: 'for _ in range(3)' matches no statement in the target")
    assert len(err) == 2


def test_an_annotation_file_linking_outside_the_project_is_not_read(project, tmp_path, capsys):
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n")
    (project / "annotations" / "fakedist" / "evil.yaml").symlink_to(secret)
    assert cli(project, "validate") == 1
    err = capsys.readouterr().err
    assert "annotations/fakedist/evil.yaml:1:1: error: this annotation file is a link to a file outside the project; it was not read" in err
    assert "hunter2" not in err and "password" not in err


def test_a_file_name_with_terminal_escapes_is_printed_escaped(project, capsys):
    (project / "annotations" / "fakedist" / "box\x1b[2J.yaml").write_text("id: [\n")
    assert cli(project, "validate") == 1
    err = capsys.readouterr().err
    assert "box\\x1b[2J.yaml" in err and "\x1b" not in err

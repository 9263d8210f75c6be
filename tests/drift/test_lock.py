"""The lock file: format, clear errors, partial updates that keep every other byte, concurrent writers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from drift_samples import ANNOTATION, OLD_CORE, _edit

from infralens.cli import main
from infralens.drift import parse_lock
from infralens.errors import LockfileError
from infralens.reports import ReportKind, validate_report


def _cli(demo, base: Path, *args: str) -> int:
    return main(["--project", str(demo.root), "--source", f"demo={base}", *args])


@pytest.fixture
def locked(demo):
    base = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", ANNOTATION)
    assert _cli(demo, base, "lock") == 0
    return base


def test_lock_round_trips_and_records_context(demo, locked):
    lock = demo.lock_text().lock
    step = lock.steps["demo-step/guided"]
    assert step.texts == ("guided = x * alpha + sigma * 0.5",)
    assert step.before == ("alpha = math . cos ( t / self . steps )", "sigma = math . sin ( t / self . steps )")
    assert step.after == ("out = guided / ( alpha + sigma )", "return out")
    assert (step.relpath, step.module, step.target, step.scope) == ("demo/core.py", "demo.core", "Sampler.step", "Sampler.step")
    assert lock.annotations["demo-step"].steps == ("demo-step/alpha", "demo-step/sigma", "demo-step/guided", "demo-step/out")


def test_lock_is_deterministic(demo, locked, capsys):
    first = demo.lock_path.read_bytes()
    assert _cli(demo, locked, "lock") == 0
    assert demo.lock_path.read_bytes() == first


@pytest.mark.parametrize(
    ("mutate", "line", "words"),
    [
        (lambda t: t.replace("infralens-lock 1", "infralens-lock 9"), 4, "unsupported lock format"),
        (lambda t: t.replace('target = "Sampler.step"', "target = Sampler.step", 1), None, "not valid JSON"),
        (lambda t: t.replace("lines = [", "lines = [1, ", 1), None, "wrong type"),
        (lambda t: t.replace('scope = "Sampler.step"\n', "", 1), None, "lacks scope"),
        (lambda t: t.replace("occurrence = 1", "occurrence = 1\nbogus = 2", 1), None, "unknown key 'bogus'"),
        (lambda t: t.replace("occurrence = 1", "occurrence 1", 1), None, "expected 'key = value'"),
        (lambda t: t.replace("[step demo-step/out]", "[step demo-step/alpha]"), None, "duplicate step entry"),
        (lambda t: re.sub(r'(?m)^kind = "[a-z ]+"$', 'kind = "lambda"', t, count=1), None, "value of 'kind' has the wrong type"),
    ],
)
def test_malformed_lock_names_the_line_and_the_fix(demo, locked, capsys, mutate, line, words):
    text = demo.lock_path.read_text("utf-8")
    broken = mutate(text)
    assert broken != text
    demo.lock_path.write_text(broken, "utf-8")
    with pytest.raises(LockfileError) as error:
        parse_lock(broken, demo.lock_path, "annotations/annotations.lock")
    message = str(error.value)
    assert words in message and "run 'infralens lock'" in message
    assert message.startswith("annotations/annotations.lock:")
    if line is not None:
        assert message.startswith(f"annotations/annotations.lock:{line}:")
    assert _cli(demo, locked, "check") == 2
    err = capsys.readouterr().err
    assert "annotations/annotations.lock:" in err and "Traceback" not in err


def test_missing_lock_is_a_usage_error(demo, capsys):
    base = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", ANNOTATION)
    assert _cli(demo, base, "check") == 2
    assert "run 'infralens lock'" in capsys.readouterr().err


def test_check_exit_codes_formats_and_never_writes(demo, locked, capsys):
    assert _cli(demo, locked, "check") == 0
    capsys.readouterr()
    new = demo.write_source("2.0", {"core.py": _edit(OLD_CORE, "alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) ** 2")})
    before = {p: p.read_bytes() for p in demo.root.rglob("*") if p.is_file()}
    assert _cli(demo, locked, "check", "--against", f"demo={new}") == 1
    text = capsys.readouterr().out
    assert "annotations/demo/sampler.yaml:7: demo-step/alpha: changed: demo/core.py:10 Sampler.step -> demo/core.py:10 Sampler.step" in text
    assert "+alpha = math.cos(t / self.steps) ** 2" in text
    assert _cli(demo, locked, "check", "--against", f"demo={new}", "--format", "json") == 1
    report = json.loads(capsys.readouterr().out)
    assert validate_report(report, ReportKind.DRIFT) is None  # the shipped reports schema
    assert report["steps"]["demo-step/alpha"]["kind"] == "changed" and report["exit_code"] == 1
    assert _cli(demo, locked, "check", "--against", f"demo={new}", "--format", "github") == 1
    github = capsys.readouterr().out
    assert "::warning file=annotations/demo/sampler.yaml,line=7,title=infralens drift%3A changed::demo-step/alpha: changed:" in github
    assert "::notice file=annotations/demo/sampler.yaml,line=1,title=infralens drift%3A target body-changed::" in github
    after = {p: p.read_bytes() for p in demo.root.rglob("*") if p.is_file()}
    assert after == before


def test_update_rewrites_only_drifted_entries_and_keeps_comments(demo, locked, capsys):
    text = demo.lock_path.read_text("utf-8")
    text = text.replace("[step demo-step/alpha]\n", "[step demo-step/alpha]\n# reviewed by ana, 2026-11-02\n")
    text = "# team note: keep this line\n" + text
    demo.lock_path.write_text(text, "utf-8")
    new = demo.write_source("2.0", {"core.py": _edit(OLD_CORE, "alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) ** 2")})
    demo.write_annotation(
        "sampler.yaml", ANNOTATION.replace('"alpha = math.cos(t / self.steps)"', '"alpha = math.cos(t / self.steps) ** 2"').replace("key: alpha", "key: alpha")
    )
    # The annotation now follows the new source; accept the one drifted step.
    assert _cli(demo, new, "lock", "--update", "demo-step/alpha") == 0
    updated = demo.lock_path.read_text("utf-8")
    assert updated.startswith("# team note: keep this line\n")
    assert "# reviewed by ana, 2026-11-02" in updated
    old_blocks = {b.id: b.text for b in parse_lock(text, demo.lock_path).blocks}
    new_blocks = {b.id: b.text for b in parse_lock(updated, demo.lock_path).blocks}
    for key in ("demo-step/sigma", "demo-step/guided", "demo-step/out"):
        assert new_blocks[key] == old_blocks[key], key
    assert new_blocks["demo-step/alpha"] != old_blocks["demo-step/alpha"]
    assert 'text = "alpha = math . cos ( t / self . steps ) ** 2"' in new_blocks["demo-step/alpha"]
    capsys.readouterr()
    assert _cli(demo, new, "check") == 0, capsys.readouterr().out


def test_update_without_ids_accepts_everything_that_drifted(demo, locked, capsys):
    new = demo.write_source("2.0", {"core.py": _edit(OLD_CORE, "        alpha = math.cos", "        t = float(t)\n        alpha = math.cos")})
    assert _cli(demo, new, "check", "--strict") == 1
    assert _cli(demo, new, "lock", "--update") == 0
    assert _cli(demo, new, "check", "--strict") == 0


def test_annotations_that_do_not_resolve_block_a_lock_and_keep_their_entries(demo, locked, capsys):
    """A whole lock needs every annotation; ``--update`` keeps the entries of those that do not resolve."""
    before = demo.lock_path.read_bytes()
    demo.write_annotation("sampler.yaml", ANNOTATION.replace('"sigma = math.sin(t / self.steps)"', '"no_such_statement = 1"'))
    capsys.readouterr()
    assert _cli(demo, locked, "lock") == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "'no_such_statement = 1' matches no statement in the target" in err
    assert err.endswith("infralens lock: 1 annotation(s) have errors (above); nothing written (fix them: infralens validate)\n")
    for args in (("lock", "--update"), ("lock", "--update", "demo-step")):
        assert _cli(demo, locked, *args) == 1
        out, err = capsys.readouterr()
        assert out == "annotations/annotations.lock: nothing to update\n"
        assert err.endswith("infralens lock --update: demo-step have errors (above); their entries are kept as they were\n")
    assert demo.lock_path.read_bytes() == before
    assert _cli(demo, locked, "lock", "demo-step") == 2
    assert "ids are only accepted with --update" in capsys.readouterr().err


def test_duplicate_ids_block_a_lock_with_a_message_that_says_so(demo, locked, capsys):
    before = demo.lock_path.read_bytes()
    demo.write_annotation("copy.yaml", ANNOTATION)
    capsys.readouterr()
    assert _cli(demo, locked, "lock") == 1
    _, err = capsys.readouterr()
    assert "is already used at annotations/demo/copy.yaml" in err
    assert "do not resolve" not in err
    assert err.endswith("have errors (above); nothing written (fix them: infralens validate)\n")
    assert demo.lock_path.read_bytes() == before


def test_annotation_edits_are_reported_against_the_lock(demo, locked, capsys):
    edited = ANNOTATION.replace('  - at: "out = guided / (alpha + sigma)"\n    key: out\n    note: normalised output\n', "")
    edited += '  - at: "return out"\n    key: ret\n    note: added later\n'
    edited = edited.replace('"sigma = math.sin(t / self.steps)"\n    key: sigma', '"guided = x * alpha + sigma * 0.5"\n    key: sigma')
    edited = edited.replace('  - at: "guided = x * alpha + sigma * 0.5"\n    key: guided', '  - at: "sigma = math.sin(t / self.steps)"\n    key: guided')
    demo.write_annotation("sampler.yaml", edited)
    assert _cli(demo, locked, "check", "--format", "json") == 1
    report = json.loads(capsys.readouterr().out)
    kinds = {(f["kind"], f["id"]) for f in report["lock_findings"]}
    assert ("stale", "demo-step/out") in kinds
    assert ("unlocked", "demo-step/ret") in kinds
    assert ("edited", "demo-step/sigma") in kinds and ("edited", "demo-step/guided") in kinds
    assert _cli(demo, locked, "lock", "--update") == 0
    assert _cli(demo, locked, "check") == 0


def test_warm_check_imports_neither_yaml_schema_nor_libcst(demo, locked):
    code = (
        "import sys; from infralens.cli import main; "
        f"rc = main(['--project', {str(demo.root)!r}, '--source', 'demo={locked}', 'check']); "
        "print(rc, 'jsonschema' in sys.modules, 'libcst' in sys.modules, 'yaml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[-4:] == ["0", "False", "False", "False"]


_WRITER = """
import sys
from infralens.cli import main
sys.exit(main(["--project", sys.argv[1], "--source", "demo=" + sys.argv[2], "lock", "--update", sys.argv[3]]))
"""


def test_concurrent_updates_do_not_lose_each_others_entries(demo, locked):
    for name in ("a", "b", "c"):
        demo.write_annotation(
            f"{name}.yaml",
            f"""
id: demo-{name}
lab: 01-demo
source: demo
target: demo.core.other
summary: Added by writer {name}.
steps:
  - at: "y = x + t"
    note: one step
""",
        )
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(demo.root), str(locked), f"demo-{name}"]) for name in ("a", "b", "c")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    lock = demo.lock_text().lock
    assert {"demo-a", "demo-b", "demo-c", "demo-step"} <= set(lock.annotations)
    assert not list(demo.lock_path.parent.glob(".annotations.lock.*.tmp"))


def test_clean_result_cache_never_hides_a_change(demo, locked, capsys):
    import os

    assert _cli(demo, locked, "check") == 0  # full check, result stored
    assert list((demo.cache / "check-v2").glob("*.bin"))
    assert _cli(demo, locked, "check") == 0  # served from the result cache
    core = locked / "demo" / "core.py"
    stat = core.stat()
    text = core.read_text("utf-8")
    core.write_text(text.replace("sigma * 0.5", "sigma * 0.7"), "utf-8")  # same size
    os.utime(core, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the old mtime
    assert _cli(demo, locked, "check") == 1
    assert "demo-step/guided: changed:" in capsys.readouterr().out
    assert _cli(demo, locked, "check") == 1  # drift is never cached


def test_a_hand_edited_value_is_reported_at_its_lock_line_and_repaired_by_update(demo, locked, capsys):
    text = demo.lock_path.read_text()
    edited = text.replace("lines = [", "lines = [1", 1)  # a reviewed line range changed by hand
    assert edited != text
    demo.lock_path.write_text(edited)
    capsys.readouterr()
    assert _cli(demo, locked, "check") == 1
    out, _ = capsys.readouterr()
    header = next(number for number, line in enumerate(edited.splitlines(), 1) if line.startswith("[step "))
    assert f"annotations/annotations.lock:{header}: demo-step/" in out
    assert "hand-edited" in out and "values differ from what its seal records" in out
    assert _cli(demo, locked, "lock", "--update") == 0
    assert _cli(demo, locked, "check") == 0


def test_comment_and_layout_edits_keep_the_seal(demo, locked, capsys):
    text = demo.lock_path.read_text()
    edited = text.replace("[step ", "# reviewed by hand, fine\n[step ", 1).replace('version = "1.0"', 'version =  "1.0"', 1)
    demo.lock_path.write_text(edited)
    assert demo.lock_text().lock.hand_edited == ()
    assert _cli(demo, locked, "check") == 0


def test_a_removed_seal_line_is_reported(demo, locked, capsys):
    lines = demo.lock_path.read_text().splitlines(keepends=True)
    first_seal = next(i for i, line in enumerate(lines) if line.startswith("seal = "))
    demo.lock_path.write_text("".join(lines[:first_seal] + lines[first_seal + 1 :]))
    assert [e.message.split(": ")[0] for e in demo.lock_text().lock.hand_edited] == ["lock entry 'demo-step' has no seal line"]


def test_findings_cite_the_current_yaml_line_after_the_file_was_edited(demo, locked, capsys):
    """Lines added above a step since the lock: the finding points where the step is now, not where it was locked."""
    path = demo.root / "annotations" / "demo" / "sampler.yaml"
    path.write_text("# a comment\n# and another\n# and a third\n" + path.read_text())
    new = demo.write_source("2.0", {"core.py": OLD_CORE.replace("alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) ** 2")})
    capsys.readouterr()
    assert _cli(demo, new, "check") == 1
    out = capsys.readouterr().out
    now = next(n for n, line in enumerate(path.read_text().splitlines(), 1) if "alpha = math.cos" in line)
    assert f"annotations/demo/sampler.yaml:{now}: demo-step/alpha: changed" in out, out
    assert _cli(demo, new, "check", "--format", "json") == 1
    document = json.loads(capsys.readouterr().out)
    assert document["steps"]["demo-step/alpha"]["line"] == now


def test_the_lock_records_where_the_reviewed_sources_came_from(demo, locked, tmp_path):
    import zipfile

    from infralens.source import DirectoryTree, WheelTree

    entry = demo.lock_text().lock.annotations["demo-step"]
    tree = DirectoryTree(locked, "demo", version="1.0")
    assert entry.origin == "directory" and entry.sources_sha256 == tree.content_sha256()
    assert 'origin = "directory"' in demo.lock_path.read_text("utf-8")
    wheel = tmp_path / "demo-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:  # the same sources, read from a wheel: the same hash
        for relpath in tree.iter_python_files():
            archive.writestr(relpath, tree.read_bytes(relpath))
        archive.writestr("demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
    assert WheelTree(wheel).kind == "wheel" and WheelTree(wheel).content_sha256() == entry.sources_sha256
    (locked / "demo" / "core.py").write_text((locked / "demo" / "core.py").read_text("utf-8") + "\n# one more line\n", "utf-8")
    assert DirectoryTree(locked, "demo").content_sha256() != entry.sources_sha256


def test_a_lock_written_before_origins_were_recorded_still_reads_and_checks_clean(demo, locked):
    from dataclasses import replace

    from infralens.drift.lock.text import PREAMBLE, render_entry

    lock = demo.lock_text().lock
    entries = [replace(lock.annotations["demo-step"], origin="", sources_sha256=""), *lock.steps_of("demo-step")]
    older = PREAMBLE + "\n" + "".join(render_entry(entry) for entry in entries)  # what an infralens without origins wrote
    assert "origin" not in older
    parsed = parse_lock(older, demo.lock_path).lock
    assert parsed.annotations["demo-step"].origin == "" and not parsed.hand_edited
    demo.lock_path.write_text(older, "utf-8")
    assert _cli(demo, locked, "check") == 0

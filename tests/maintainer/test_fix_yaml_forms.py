"""``infralens fix`` on every YAML form ``validate`` accepts: it edits the user's own text, or refuses at a line of it."""

from __future__ import annotations

import re

import pytest
import yaml
from fix_samples import CORE, STEP_ANNOTATION, FixProject

from infralens.errors import InfralensError

CHANGED = CORE.replace("alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) ** 2")
NEW_AT = '"alpha = math.cos(t / self.steps) ** 2"'


def _data(text: str):
    return yaml.load(text, Loader=yaml.CSafeLoader)


def _fixed(fixproject: FixProject, name: str, text: str | bytes, core: str = CHANGED) -> tuple[int, bytes, bytes]:
    fixproject.locked((name, text))
    before = (fixproject.root / "annotations" / "demo" / name).read_bytes()
    new = fixproject.release("2.0", core)
    code = fixproject.run(new, "fix")
    return code, before, (fixproject.root / "annotations" / "demo" / name).read_bytes()


def _expected_alpha(before: str) -> dict:
    """What the file must read back as: only alpha's at and review changed."""
    data = _data(before)
    data["steps"][0]["at"] = "alpha = math.cos(t / self.steps) ** 2"
    return data


FORMS = {
    "comment-between-key-and-value": STEP_ANNOTATION.replace(
        '  - at: "alpha = math.cos(t / self.steps)"', '  - at: # the signal line\n      "alpha = math.cos(t / self.steps)"'
    ),
    "anchor-not-aliased": STEP_ANNOTATION.replace('  - at: "alpha = math.cos(t / self.steps)"', '  - at: &alpha "alpha = math.cos(t / self.steps)"'),
    "complex-key": STEP_ANNOTATION.replace('  - at: "alpha = math.cos(t / self.steps)"', '  - ? at\n    : "alpha = math.cos(t / self.steps)"'),
    "tab-after-colon": STEP_ANNOTATION.replace('  - at: "alpha = math.cos(t / self.steps)"', '  - at:\t"alpha = math.cos(t / self.steps)"'),
    "flow-style-step": STEP_ANNOTATION.replace(
        '  - at: "alpha = math.cos(t / self.steps)"\n    key: alpha\n    note: signal scale\n',
        '  - {at: "alpha = math.cos(t / self.steps)", key: alpha, note: signal scale}\n',
    ),
    "flow-style-steps": STEP_ANNOTATION[: STEP_ANNOTATION.index("steps:")]
    + 'steps: [{at: "alpha = math.cos(t / self.steps)", key: alpha, note: signal scale},\n  {at: "out = guided / (alpha + sigma)", key: out, note: out}]\n',
    "block-scalar-note-after-at": STEP_ANNOTATION.replace("    note: signal scale\n", "    note: |\n      signal scale,\n\n      two paragraphs\n"),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_each_yaml_form_is_edited_in_place_keeping_the_rest(fixproject, form, capsys):
    text = FORMS[form]
    code, _before, after = _fixed(fixproject, "s.yaml", text)
    assert code == 0, capsys.readouterr()
    written = after.decode()
    got = _data(written)
    want = _expected_alpha(text)
    review = got["steps"][0].pop("review")
    assert review.startswith("infralens fix: changed upstream") and "(was: alpha = math.cos(t / self.steps))" in review
    assert got == want
    for kept in ("# A comment fix keeps.", "# the signal line", "&alpha", "? at", "two paragraphs"):
        if kept in text:
            assert kept in written, (kept, written)
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("eol", ["\r\n", "\r"])
def test_crlf_and_cr_files_keep_their_line_endings_and_only_the_edited_lines_change(fixproject, eol):
    text = STEP_ANNOTATION.replace("\n", eol)
    code, before, after = _fixed(fixproject, "s.yaml", text.encode())
    assert code == 0
    old_lines, new_lines = before.decode().split(eol), after.decode().split(eol)
    assert "\n" not in after.decode().replace("\r\n", "") if eol == "\r\n" else "\n" not in after.decode()
    assert len(new_lines) == len(old_lines) + 1  # one review line added
    changed = [line for line in new_lines if line not in old_lines]
    assert len(changed) == 2 and changed[0] == f"  - at: {NEW_AT}" and changed[1].startswith("    review: ")


def test_at_on_the_last_line_without_a_newline(fixproject):
    last = '  - at: "out = guided / (alpha + sigma)"\n    key: out\n    note: normalised output\n'
    text = STEP_ANNOTATION.replace(last, '  - key: out\n    note: normalised output\n    at: "out = guided / (alpha + sigma)"')
    assert text.endswith('    at: "out = guided / (alpha + sigma)"')
    core = CORE.replace("out = guided / (alpha + sigma)", "out = guided / (alpha + sigma + 1)")
    code, _, after = _fixed(fixproject, "s.yaml", text, core)
    assert code == 0
    written = after.decode()
    assert written.endswith("\n    review: " + written.rsplit("review: ", 1)[1]) and not written.endswith("\n")
    assert _data(written)["steps"][3]["at"] == "out = guided / (alpha + sigma + 1)"


def test_an_aliased_anchor_is_refused_at_its_line_and_nothing_is_written(fixproject, capsys):
    text = STEP_ANNOTATION.replace('  - at: "alpha = math.cos(t / self.steps)"', '  - at: &alpha "alpha = math.cos(t / self.steps)"').replace(
        "note: signal scale", "note: *alpha"
    )
    code, before, after = _fixed(fixproject, "s.yaml", text)
    assert code == 2 and after == before
    err = capsys.readouterr().err
    assert "annotations/demo/s.yaml:8:" in err and "alias" in err and "Traceback" not in err


def test_the_check_compares_every_annotation_of_the_file(tmp_path):
    """An edit that strays into a sibling annotation (issue 27 #7) is caught before anything is written."""
    from infralens.maintainer.repair_check import check_edited
    from infralens.maintainer.repair_yaml import Edit, YamlFile

    text = STEP_ANNOTATION.replace("# A comment fix keeps.\n", "")
    both = "- " + text.replace("\n", "\n  ").rstrip() + "\n- " + text.replace("id: demo-step", "id: demo-two").replace("\n", "\n  ").rstrip() + "\n"
    doc = YamlFile(tmp_path / "two.yaml", "annotations/demo/two.yaml", both)
    _, data = doc.annotation("demo-step")
    data["target"] = "demo.core.Renamed.step"
    second = re.search(r"target: demo\.core\.Sampler\.step", both[both.index("demo-two") :])
    assert second is not None
    start = both.index("demo-two") + second.start() + len("target: ")
    doc.edits.append(Edit(start, start + len("demo.core.Sampler.step"), "demo.core.Renamed.step"))
    with pytest.raises(InfralensError) as caught:
        check_edited(doc, doc.edited())
    assert str(caught.value).startswith("annotations/demo/two.yaml:4:") and "[0].target" in str(caught.value)


ADD_BASE = """\
id: sched-step
lab: 01-lab
source: fakedist
target: fakedist.sched.Sched.step
summary: s
steps:
  - at: "prev = t - 1"
    note: n
"""


@pytest.mark.parametrize(
    ("form", "text"),
    [
        ("crlf", ADD_BASE.replace("\n", "\r\n")),
        ("cr", ADD_BASE.replace("\n", "\r")),
        ("tab-after-colon", ADD_BASE.replace('at: "prev', 'at:\t"prev')),
        ("byte-order-mark", "\ufeff" + ADD_BASE),
        ("no-final-newline", ADD_BASE.rstrip("\n")),
    ],
)
def test_add_extends_each_form_in_its_own_line_endings(project, cli, form, text):
    from fix_samples import DIST

    from infralens.cli import main

    path = project / "annotations" / DIST / "sched-step.yaml"
    path.write_bytes(text.encode())
    assert main(cli("add", f"{DIST}/sched.py:L7-L8")) == 0
    written = path.read_bytes().decode()
    assert written.startswith(text.rstrip("\r\n"))
    eol = "\r\n" if "\r\n" in text else "\r" if "\r" in text else "\n"
    assert written.replace(eol, "").count("\n") + written.replace(eol, "").count("\r") == 0
    assert [s["at"] for s in _data(written.lstrip("\ufeff"))["steps"]][1:] == ["if prev < 0:", "prev = 0"]


def test_add_refuses_flow_style_steps_at_their_line(project, cli, capsys):
    from fix_samples import DIST

    from infralens.cli import main

    path = project / "annotations" / DIST / "sched-step.yaml"
    path.write_text(ADD_BASE.replace('steps:\n  - at: "prev = t - 1"\n    note: n\n', 'steps: [{at: "prev = t - 1", note: n}]\n'))
    before = path.read_bytes()
    assert main(cli("add", f"{DIST}/sched.py:L7-L8")) == 2
    assert path.read_bytes() == before
    assert "annotations/fakedist/sched-step.yaml:6:8: annotation 'sched-step': 'steps' is written in flow style" in capsys.readouterr().err

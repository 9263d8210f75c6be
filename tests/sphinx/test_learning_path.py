"""The learning path: tracks and each lab's place read from content, checked with file and line, drawn escaped."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from infralens.annotations import check_path, load_tracks, path_order, read_lab_place

GOOD = b"track: Basics\nsummary: Blend two arrays.\nminutes: 30\nafter: []\nknow: NumPy arrays\n"
TRACKS = "tracks:\n  - name: {first}\n    about: The first steps.\n  - name: {second}\n    about: What comes after.\n"


def _place(data: bytes, shown: str = "labs/lab-01-toy/lab.yaml"):
    place, problems = read_lab_place(data, shown)
    return place, [(p.location.line, p.message) for p in problems]


def test_a_lab_place_is_read_with_every_field() -> None:
    place, problems = _place(GOOD)
    assert problems == [] and place is not None
    assert (place.track, place.summary, place.minutes, place.after, place.know) == ("Basics", "Blend two arrays.", 30, (), "NumPy arrays")


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (GOOD.replace(b"minutes: 30\n", b""), 1, "missing minutes"),
        (GOOD.replace(b"minutes: 30", b"minutes: soon"), 3, "minutes must be a whole number"),
        (GOOD.replace(b"minutes: 30", b"minutes: 0"), 3, "minutes must be a whole number"),
        (GOOD.replace(b"minutes: 30", b"minutes: true"), 3, "minutes must be a whole number"),
        (GOOD.replace(b"after: []", b"after: [two]"), 4, "after must be a list of lab numbers"),
        (GOOD.replace(b"summary: Blend two arrays.", b"summary: ''"), 2, "summary must be non-empty text"),
        (GOOD.replace(b"summary: Blend two arrays.", b'summary: "one\\ntwo"'), 2, "summary must be one line"),
        (GOOD + b"level: hard\n", 6, "unknown key 'level'"),
        (GOOD.replace(b"know: NumPy arrays", b"know: a: b"), 5, "YAML syntax error"),
        (GOOD.replace(b"NumPy", b"Num\xffPy"), 5, "byte 0xff is not UTF-8"),
        (b"- just\n- a list\n", 1, "lab.yaml must be a mapping"),
    ],
)
def test_a_malformed_field_is_a_problem_at_its_line_never_an_exception(data: bytes, line: int, message: str) -> None:
    place, problems = _place(data)
    assert place is None
    assert any(at == line and message in text for at, text in problems), problems


def _tracks(tmp_path: Path, text: str):
    path = tmp_path / "tracks.yaml"
    path.write_text(text, "utf-8")
    return load_tracks(path, "labs/tracks.yaml")


def test_tracks_keep_the_order_of_the_file_and_name_their_problems(tmp_path: Path) -> None:
    tracks = _tracks(tmp_path, TRACKS.format(first="Zeta", second="Alpha"))
    assert [t.name for t in tracks.tracks] == ["Zeta", "Alpha"] and tracks.diagnostics == ()
    twice = _tracks(tmp_path, TRACKS.format(first="Same", second="Same"))
    assert [(d.location.line, d.message) for d in twice.diagnostics] == [(4, "track 'Same' is named twice")]
    empty = _tracks(tmp_path, "tracks: []\n")
    assert "non-empty list 'tracks'" in empty.diagnostics[0].message
    assert load_tracks(tmp_path / "absent.yaml").path is None  # no file: no learning path, and nothing wrong


def test_the_path_follows_the_tracks_and_checks_what_needs_every_lab(tmp_path: Path) -> None:
    tracks = _tracks(tmp_path, TRACKS.format(first="Later numbers first", second="Then the rest"))
    first, _ = read_lab_place(GOOD.replace(b"Basics", b"Then the rest"), "labs/lab-01-a/lab.yaml")
    second, _ = read_lab_place(GOOD.replace(b"Basics", b"Later numbers first"), "labs/lab-02-b/lab.yaml")
    places = {"lab-01-a": first, "lab-02-b": second}
    assert path_order(tracks, places) == ["lab-02-b", "lab-01-a"]
    folders = {"lab-01-a": "labs/lab-01-a", "lab-02-b": "labs/lab-02-b", "lab-03-c": "labs/lab-03-c"}
    assert check_path(tracks, places, folders) == []
    wrong, _ = read_lab_place(
        GOOD.replace(b"Basics", b"Later numbers first").replace(b"after: []", b"after: [1, 9]"), "labs/lab-02-b/lab.yaml"
    )  # lab 01 comes later; no lab 09
    stray, _ = read_lab_place(GOOD.replace(b"Basics", b"Nowhere"), "labs/lab-03-c/lab.yaml")
    found = [(d.location.path, d.location.line, d.message) for d in check_path(tracks, {**places, "lab-02-b": wrong, "lab-03-c": stray}, folders)]
    assert ("labs/lab-03-c/lab.yaml", 1, "track 'Nowhere' is not in tracks.yaml") in found
    assert ("labs/lab-02-b/lab.yaml", 4, "after: lab 01 comes later on the path than lab-02-b") in found
    assert ("labs/lab-02-b/lab.yaml", 4, "after: there is no lab 09") in found
    missing = check_path(tracks, {**places, "lab-03-c": None}, folders)
    assert [(d.location.path, d.message) for d in missing] == [("labs/lab-03-c", "lab lab-03-c has no usable lab.yaml")]
    alone = check_path(load_tracks(tmp_path / "absent.yaml"), places, folders)
    assert len(alone) == 2 and "no tracks.yaml" in alone[0].message


def _with_path(root: Path, summary: str = "Blend <b>two</b> arrays with `blend`.") -> Path:
    """The test root with a second lab, two tracks whose order is not the labs' order, and a lab.yaml per lab."""
    labs = root / "labs"
    (labs / "lab-02-second").mkdir()
    (labs / "lab-02-second" / "index.md").write_text("# Lab 02: Mixing first\n\nThe second folder, taken first.\n", "utf-8")
    (labs / "tracks.yaml").write_text(TRACKS.format(first="Warm-up **track**", second="Main track"), "utf-8")
    (labs / "lab-02-second" / "lab.yaml").write_bytes(b"track: Warm-up **track**\nsummary: Mix first.\nminutes: 20\nafter: []\nknow: nothing\n")
    lab = "track: Main track\nsummary: {summary}\nminutes: 75\nafter: [2]\nknow: '[links](https://example.org) stay text'\n"
    (labs / "lab-01-toy" / "lab.yaml").write_text(lab.format(summary=f"'{summary}'"), "utf-8")
    (root / "index.md").write_text((root / "index.md").read_text("utf-8") + "\n```{infralens-learning-path}\n```\n", "utf-8")
    return root


def _build(root: Path) -> tuple[Path, str]:
    warnings = StringIO()
    app = SphinxTestApp("html", srcdir=root, warning=warnings)
    try:
        app.build()
    finally:
        app.cleanup()
    return Path(app.outdir), warnings.getvalue()


def test_the_labs_index_and_a_page_draw_the_path_from_content_escaped(fresh_root) -> None:
    out, warnings = _build(_with_path(fresh_root()))
    assert warnings == ""
    for page in ("index.html", "_infralens/labs/index.html"):
        html = (out / page).read_text("utf-8")
        path = html[html.index('class="il-learning-path') :]
        assert path.index("Warm-up **track**") < path.index("Lab 02: Mixing first") < path.index("Main track") < path.index("Lab 01: Toy blending")
        assert "Blend &lt;b&gt;two&lt;/b&gt; arrays with <code" in path and "<b>two</b>" not in path  # escaped; a backtick span is code
        assert "[links](https://example.org) stay text" in path and 'href="https://example.org"' not in path
        assert "about 1 h 15 min" in path and "2 labs" not in path and "1 lab, about 20 min." in path
        assert re.search(r'Assumes: </strong><a class="reference internal" href="[^"]*lab-02-second/index.html"', path)
    sidebar = (out / "_infralens/labs/index.html").read_text("utf-8")
    assert sidebar.index("lab-02-second/index.html") < sidebar.index("lab-01-toy/index.html")  # the toctree follows the path
    lab = (out / "_infralens/labs/lab-01-toy/index.html").read_text("utf-8")
    assert re.search(r"<strong>Main track</strong>, lab 1 of 1 · about 1 h 15 min", lab)


def test_a_broken_lab_yaml_is_a_warning_at_its_file_and_line(fresh_root) -> None:
    root = _with_path(fresh_root())
    (root / "labs" / "lab-01-toy" / "lab.yaml").write_text("track: Main track\nsummary: fine\nminutes: an hour\nafter: []\nknow: x\n", "utf-8")
    out, warnings = _build(root)
    assert re.search(r"lab-01-toy/lab\.yaml:3: WARNING: minutes must be a whole number from 1 to 600", warnings), warnings
    assert re.search(r"lab-01-toy:1: WARNING: lab lab-01-toy has no usable lab\.yaml", warnings), warnings
    assert "Traceback" not in warnings and (out / "_infralens/labs/index.html").is_file()


def test_editing_a_lab_yaml_redraws_the_pages_that_show_the_path(fresh_root) -> None:
    root = _with_path(fresh_root())
    _build(root)
    place = root / "labs" / "lab-01-toy" / "lab.yaml"
    place.write_text(place.read_text("utf-8").replace("Blend", "Now blend"), "utf-8")
    out, warnings = _build(root)
    assert warnings == ""
    assert "Now blend" in (out / "index.html").read_text("utf-8")
    assert "Now blend" in (out / "_infralens/labs/index.html").read_text("utf-8")


def test_without_a_tracks_file_the_labs_index_is_a_plain_list(fresh_root) -> None:
    out, warnings = _build(fresh_root())
    html = (out / "_infralens/labs/index.html").read_text("utf-8")
    assert warnings == "" and "il-path" not in html and "Lab 01: Toy blending" in html

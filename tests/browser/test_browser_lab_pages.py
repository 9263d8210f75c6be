"""Every lab page in a real Chromium, at 1440 px and on a phone: the page fits the window, code lines stay whole, the
on-page contents list every function drawn, and the margin notes read whole. The pages are loaded once per width for
all of these (``lab_sweep.py``): a lab page is a megabyte of code, and loading it is most of each test's time."""

from __future__ import annotations

from pathlib import Path

import pytest
from lab_sweep import sweep_lab_pages
from note_layout import assert_notes_read_whole

pytestmark = pytest.mark.browser

PHONE = 390


@pytest.fixture(scope="module")
def swept(browser, docs_site: Path, serve):
    """``swept(width)``: every lab page's figures at that width (``lab_sweep.py``), measured once for this file's tests."""
    sweeps: dict[int, dict] = {}

    def at(width: int) -> dict[str, dict]:
        if width not in sweeps:
            sweeps[width] = sweep_lab_pages(browser, docs_site, serve(docs_site), width)
        return sweeps[width]

    return at


@pytest.mark.parametrize("width", [1440, PHONE])
def test_lab_pages_fit_the_window_and_119_character_lines_stay_whole_at_1440(swept, width: int) -> None:
    """No lab page scrolls sideways; at 1440 px at most 2% of code lines wrap, and only lines longer than 120 characters
    (diffusers keeps to 119; DiffSynth now and then to 120). Side-by-side comparison columns are measured on their own."""
    pages = swept(width)
    assert pages, "the site has no lab page"
    total = wrapped = 0
    for relative, figures in pages.items():
        measured = figures["wrapped"]
        assert not measured["sideways"], f"{relative} scrolls sideways at {width} px"
        total += measured["lines"]
        wrapped += measured["wrapped"]
        if width == 1440:
            assert measured["longest_wrapped"] > 119 + 4, f"{relative}: a line of {measured['longest_wrapped']} characters (number included) wraps"
    if width == 1440:
        assert wrapped <= 0.02 * total, f"{wrapped} of {total} code lines wrap at 1440 px"


def test_on_a_phone_code_lines_stay_whole_and_nothing_is_clipped(swept) -> None:
    """At 390 px at most 25% of code lines wrap, no code is cut off beyond reach, no line number stands alone."""
    total = wrapped = 0
    for relative, figures in swept(PHONE).items():
        measured = figures["phone"]
        assert measured["clipped"] == 0 and measured["lonely"] == 0, (relative, measured)
        total += measured["lines"]
        wrapped += measured["wrapped"]
    assert wrapped <= 0.25 * total, f"{wrapped} of {total} code lines wrap at 390 px"


def test_the_on_page_contents_list_every_function_drawn(swept) -> None:
    """Every function a lab page draws has an entry in the page's contents, linking to it, under its section."""
    pages = swept(1440)
    assert pages, "the site has no lab page"
    for relative, figures in pages.items():
        contents = figures["contents"]
        assert contents["drawn"] and contents["listed"] == contents["drawn"], relative


def test_every_note_on_a_lab_page_reads_whole_where_it_belongs_and_none_overlaps_at_1440(swept) -> None:
    """As ``note_layout.assert_notes_read_whole`` says, on every lab page."""
    assert_notes_read_whole("labs", swept(1440))

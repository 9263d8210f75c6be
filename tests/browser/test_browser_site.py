"""The built site in a real Chromium: notes beside (desktop) or under (phone) their lines."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from note_layout import settled
from shipped import missing_shipped

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

DESKTOP, PHONE = 1280, 390
DDIM_STEP = "_infralens/source/diffusers/diffusers.schedulers.scheduling_ddim.DDIMScheduler.step.html"

# For every note: its box, the box of the code column of its block, and the box of its first line.
MEASURE = """() => [...document.querySelectorAll('.il-note')].map(note => {
  const block = note.closest('.il-block');
  const code = block.querySelector('.il-code');
  const line = document.getElementById(note.dataset.lineAnchor);
  const fn = note.closest('.infralens-function');
  const functions = [...document.querySelectorAll('.infralens-function')];
  const first = fn.querySelector('.il-note') === note;
  const box = el => { const r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top + scrollY, bottom: r.bottom + scrollY}; };
  const own = note.getBoundingClientRect();
  let text = -Infinity;  // the right end of the code text on the rows beside the note
  for (const row of code.querySelectorAll('.il-line')) {
    const range = document.createRange(); range.selectNodeContents(row);
    for (const r of range.getClientRects())
      if (r.width && Math.min(r.bottom, own.bottom) - Math.max(r.top, own.top) > 1) text = Math.max(text, r.right);
  }
  return {id: note.id, first, fn: functions.indexOf(fn), compact: !!note.closest('.il-compact'),
          note: box(note), code: box(code), line: box(line), block: box(block), text};
})"""


class Visit:
    """A page opened with console errors and off-host requests recorded."""

    def __init__(self, browser, url: str, width: int) -> None:
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.route("**/*", self._guard)
        self.page.goto(url, wait_until="load")

    def _guard(self, route) -> None:
        url = route.request.url
        if urlparse(url).scheme in ("http", "https", "ws", "wss") and urlparse(url).hostname not in ("127.0.0.1", "localhost"):
            self.foreign.append(url)
            route.abort()
        else:
            route.continue_()

    def close(self) -> None:
        self.page.close()


def check_layout(visit: Visit, width: int) -> int:
    """Wide: margin notes beside the code (over no code text: a note may take the free part of short lines), never
    above their line, never overlapping, and the code one block (a block is as tall as its code). Narrow: each
    note right under its lines."""
    notes = visit.page.evaluate(MEASURE)
    assert notes, "the page shows no note"
    previous: dict[int, float] = {}
    for n in sorted(notes, key=lambda n: (n["fn"], n["note"]["top"])):
        if width == DESKTOP:
            assert n["note"]["left"] >= n["text"] - 1, f"{n['id']} covers code text beside it"
            assert n["note"]["top"] >= n["line"]["top"] - 1, f"{n['id']} sits above its line"
            assert n["note"]["top"] >= previous.get(n["fn"], float("-inf")) - 1, f"{n['id']} overlaps the note above it"
            previous[n["fn"]] = n["note"]["bottom"]
            assert n["block"]["bottom"] - n["code"]["bottom"] <= 2, f"the notes of {n['id']} push the code below apart"
            if n["first"]:
                assert abs(n["note"]["top"] - n["line"]["top"]) <= 16, f"{n['id']} does not start on its line's row"
        else:
            assert n["note"]["top"] >= n["code"]["bottom"] - 1, f"{n['id']} is not under its lines"
            if n["first"]:
                assert n["note"]["top"] - n["code"]["bottom"] <= 40, f"{n['id']} is not right under its lines"
    return len(notes)


def visit_and_check(browser, url: str, width: int, shot: str) -> Visit:
    visit = Visit(browser, url, width)
    count = check_layout(visit, width)
    assert count > 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    visit.page.evaluate("() => { document.querySelector('.infralens-function').scrollIntoView(); window.scrollBy(0, -60); }")
    visit.page.screenshot(path=str(SCREENSHOTS / f"{shot}-{width}.png"))
    assert visit.errors == [], visit.errors
    assert visit.foreign == [], visit.foreign
    return visit


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_lab_and_function_pages_on_the_basic_root(browser, basic_site: Path, serve, width: int) -> None:
    base = serve(basic_site)
    for page, shot in (("_infralens/labs/lab-01-toy/index.html", "toy-lab"), ("_infralens/source/toypkg/toypkg.mixing.blend.html", "toy-function")):
        visit_and_check(browser, f"{base}/{page}", width, shot).close()


def test_lab_to_function_and_back(browser, basic_site: Path, serve) -> None:
    base = serve(basic_site)
    visit = Visit(browser, f"{base}/_infralens/labs/lab-01-toy/index.html", DESKTOP)
    visit.page.click("text=open in the source browser →")
    visit.page.wait_for_load_state("load")
    assert visit.page.url.endswith("/_infralens/source/toypkg/toypkg.mixing.blend.html")
    assert visit.page.locator(".il-note").count() == 2
    visit.page.click(".il-links >> text=← Lab 01: Toy blending")
    visit.page.wait_for_load_state("load")
    assert visit.page.url.endswith("/_infralens/labs/lab-01-toy/index.html")
    visit.page.click(".il-fold > summary")
    assert visit.page.locator(".il-fold").get_attribute("open") is not None
    assert visit.errors == [] and visit.foreign == []
    visit.close()


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_real_ddim_step_page(browser, docs_site: Path, serve, width: int) -> None:
    if not (docs_site / DDIM_STEP).is_file():
        missing_shipped("no annotation of DDIMScheduler.step in annotations/")
    base = serve(docs_site)
    visit_and_check(browser, f"{base}/{DDIM_STEP}", width, "ddim-step").close()
    lab = docs_site / "_infralens/labs/lab-02-denoising-step/index.html"
    if lab.is_file() and "infralens-function" in lab.read_text("utf-8"):
        visit_and_check(browser, f"{base}/_infralens/labs/lab-02-denoising-step/index.html", width, "lab-02").close()


def test_search_snippets_are_prose_not_code_tables(browser, docs_site: Path, serve) -> None:
    """A search for a name in annotated code shows the notes' prose, not line numbers run into code."""
    base = serve(docs_site)
    page = browser.new_page()
    page.goto(f"{base}/search.html?q=prev_timestep")
    page.wait_for_selector("#search-results .context", timeout=60_000)
    snippets = [element.text_content() or "" for element in page.query_selector_all("#search-results .context")]
    page.close()
    assert snippets
    for snippet in snippets:
        assert not re.search(r"\d{3}\s{4,}\S", snippet), snippet  # "445        prev_timestep = ...": a code table's line
        assert "cpu: checked" not in snippet and "Checked in the real frame" not in snippet, snippet


def test_a_dotted_page_title_breaks_only_after_a_dot_on_a_phone(browser, docs_site: Path, serve) -> None:
    """A long dotted name in a page title wraps after a dot (titles.py adds <wbr>) and the page never scrolls sideways."""
    long_name = (
        "_infralens/source/diffusers/diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion.StableDiffusionPipeline.do_classifier_free_guidance.html"
    )
    if not (docs_site / long_name).is_file():
        missing_shipped("no annotation of StableDiffusionPipeline.do_classifier_free_guidance")
    title = (docs_site / long_name).read_text("utf-8").split("<h1>", 1)[1].split("</h1>", 1)[0]
    assert '<span class="pre">.</span><wbr>' in title, title
    page = browser.new_page(viewport={"width": PHONE, "height": 800})
    page.goto(f"{serve(docs_site)}/{long_name}")
    lines = page.evaluate(
        """() => {
            const code = document.querySelector('h1 code');
            const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
            const tops = [];
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                for (let i = 0; i < node.length; i++) {
                    const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
                    tops.push([node.data[i], Math.round(range.getBoundingClientRect().top)]);
                }
            }
            return tops;
        }"""
    )
    width = page.evaluate("() => document.documentElement.scrollWidth")
    page.close()
    breaks = [index for index in range(1, len(lines)) if lines[index][1] > lines[index - 1][1]]
    assert all(lines[index - 1][0] == "." for index in breaks), "".join(c for c, _ in lines)
    assert width <= PHONE


def test_answers_stay_folded_until_clicked(browser, docs_site: Path, serve) -> None:
    """Each lab's answers are a closed sphinx-design dropdown; a click opens it."""
    lab = "_infralens/labs/lab-02-denoising-step/index.html"
    if not (docs_site / lab).is_file():
        missing_shipped("lab 02 is not in this site")
    page = browser.new_page(viewport={"width": PHONE, "height": 900})
    page.goto(f"{serve(docs_site)}/{lab}")
    answer = page.get_by_text("so the last step uses").first
    dropdown = page.locator("details.sd-dropdown", has=answer)
    assert answer.count() == 1 and dropdown.get_attribute("open") is None and not answer.is_visible()
    dropdown.locator("summary").click()
    assert dropdown.get_attribute("open") is not None and answer.is_visible()
    page.close()


def test_a_comparison_page_shows_both_functions_and_the_prose_that_relates_them(browser, docs_site: Path, serve) -> None:
    compare = "_infralens/compare/ddim-step.html"
    if not (docs_site / compare).is_file():
        missing_shipped("no 'ddim-step' pair in the concept map")
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{serve(docs_site)}/{compare}")
    assert page.locator(".infralens-function").count() == 2
    for heading in ("What is the same", "What differs", "Which to read first"):
        assert page.get_by_text(heading, exact=True).is_visible()
    page.close()


def test_a_coverage_node_opens_its_function_page(browser, docs_site: Path, serve) -> None:
    coverage = docs_site / "coverage" / "tiny-sd-ddim.html"
    if not coverage.is_file():
        missing_shipped("no coverage map for tiny-sd-ddim")
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{serve(docs_site)}/coverage/tiny-sd-ddim.html")
    link = page.locator("article a[href*='_infralens/source/diffusers/diffusers.']").first
    target = link.get_attribute("href") or ""
    link.click()
    page.wait_for_load_state("load")
    assert "_infralens/source/" in page.url and target.split("/")[-1].split("#")[0] in page.url
    assert page.locator(".infralens-function").count() >= 1
    page.close()


def test_observed_values_show_under_a_claim_once_opened(browser, docs_site: Path, serve) -> None:
    lab = "_infralens/labs/lab-02-denoising-step/index.html"
    if not (docs_site / lab).is_file():
        missing_shipped("lab 02 is not in this site")
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{serve(docs_site)}/{lab}")
    fold = page.locator("details.il-claims-fold").first
    observed = fold.locator(".il-observed").first
    assert not observed.is_visible()
    fold.locator("summary").click()
    assert observed.is_visible() and (observed.text_content() or "").startswith("cpu: ")
    page.close()


def _a_function_that_changed(docs_site: Path) -> tuple[str, str, str, int]:
    """(page, annotation id, release, notes not holding there) for a function the committed history shows changing."""
    import json

    history = json.loads((Path(__file__).resolve().parents[2] / "reports" / "history.json").read_text("utf-8"))
    span = next(d for d in history["distributions"] if d["distribution"] == "diffusers")
    for annotation in history["annotations"]:
        page = f"_infralens/source/diffusers/{annotation['target']}.html"
        if annotation["distribution"] != "diffusers" or not (docs_site / page).is_file():
            continue
        for position, release in enumerate(span["releases"]):
            stale = sum(1 for step in annotation["steps"] if step["states"][position] != "unchanged")
            if 0 < stale < len(annotation["steps"]):
                return page, annotation["id"], release, stale
    missing_shipped("reports/history.json shows no diffusers function that changed in part")


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_picking_a_release_flags_the_notes_that_do_not_hold_and_is_remembered(browser, docs_site: Path, serve, width: int) -> None:
    page_path, _, release, stale = _a_function_that_changed(docs_site)
    base = serve(docs_site)
    visit = Visit(browser, f"{base}/{page_path}", width)
    page = visit.page
    function = page.locator(".infralens-function").first
    notes = function.locator(".il-note[data-il-states]")
    function.locator(".il-history select").select_option(release)
    flagged = function.locator(".il-note.il-stale").count()
    assert flagged >= stale and notes.count() > flagged  # the function may hold notes of other annotations too
    assert f"do not hold in {release}" in function.locator(".il-history-verdict").inner_text()
    assert function.locator(".il-note.il-stale .il-stale-label").first.inner_text().endswith(f"in {release}")
    page.reload()
    assert function.locator(".il-history select").input_value() == release  # remembered (localStorage)
    assert function.locator(".il-note.il-stale").count() == flagged
    function.locator(".il-history select").select_option("")
    assert function.locator(".il-note.il-stale").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"release-picker-{width}.png"))
    assert visit.errors == [] and visit.foreign == []
    visit.close()


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_matrix_fits_the_window_and_a_cell_opens_the_diff(browser, docs_site: Path, serve, width: int) -> None:
    base = serve(docs_site)
    visit = Visit(browser, f"{base}/_infralens/history.html", width)
    page = visit.page
    assert page.locator("table.il-matrix").count() >= 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # the table scrolls inside its box
    cell = page.locator("table.il-matrix td a").first
    href = cell.get_attribute("href") or ""
    cell.click()
    page.wait_for_load_state("load")
    anchor = href.split("#", 1)[1]
    assert page.url.endswith("#" + anchor)
    assert page.locator(f"#{anchor}").count() == 1
    assert page.locator("h2", has_text="Release history").count() == 1
    assert visit.errors == [] and visit.foreign == []
    visit.close()


def test_a_note_and_its_lines_mark_each_other_on_hover(browser, docs_site: Path, serve) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{serve(docs_site)}/{DDIM_STEP}")
    note = page.locator(".il-note").nth(2)
    first, last = int(note.get_attribute("data-first-line") or 0), int(note.get_attribute("data-last-line") or 0)
    note.hover()
    linked = page.evaluate("() => [...document.querySelectorAll('.il-line.il-linked')].map(l => Number(l.id.split('-L').pop()))")
    assert linked == list(range(first, last + 1))
    line = page.locator(f"[id$='-L{first}']").first
    page.mouse.move(0, 0)
    line.hover()
    assert "il-linked" in (note.get_attribute("class") or "")
    page.close()


def test_a_permalink_shows_the_line_and_its_note_below_the_sticky_header(browser, docs_site: Path, serve) -> None:
    base = serve(docs_site)
    lab = "_infralens/labs/lab-02-denoising-step/index.html"
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{base}/{lab}")
    ids = page.evaluate("() => [...document.querySelectorAll('.il-note')].map(n => n.id)")
    assert len(ids) >= 5
    for note_id in ids[:: max(1, len(ids) // 5)][:5]:
        page.goto("about:blank")
        page.goto(f"{base}/{lab}#{note_id}")  # a fresh landing on the permalink, as from another page
        settled(page)
        seen = page.evaluate(
            """(id) => {
              const note = document.getElementById(id), line = document.getElementById(note.dataset.lineAnchor);
              const header = document.querySelector('.mobile-header');
              const below = header && getComputedStyle(header).display !== 'none' ? header.getBoundingClientRect().bottom : 0;
              const n = note.getBoundingClientRect(), l = line.getBoundingClientRect();
              return {below, note: [n.top, n.bottom], line: [l.top, l.bottom],
                      marked: note.classList.contains('il-target') && line.classList.contains('il-target')};
            }""",
            note_id,
        )
        assert seen["marked"], note_id
        assert seen["note"][0] >= seen["below"] and seen["line"][0] >= seen["below"], (note_id, seen)
        assert seen["note"][0] < 900 and seen["line"][1] <= 900, (note_id, seen)
    page.close()


@pytest.mark.parametrize(("width", "side_by_side"), [(1440, True), (1280, False)])
def test_comparisons_sit_side_by_side_from_1440(browser, docs_site: Path, serve, width: int, side_by_side: bool) -> None:
    compare = "_infralens/compare/ddim-step.html"
    if not (docs_site / compare).is_file():
        missing_shipped("no 'ddim-step' pair in the concept map")
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(f"{serve(docs_site)}/{compare}")
    left, right = (page.locator(".il-compare-column").nth(i).bounding_box() for i in (0, 1))
    assert (abs(left["y"] - right["y"]) < 1 and right["x"] > left["x"] + left["width"] - 1) is side_by_side
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()


def test_a_chip_tells_its_reason_on_tap_and_links_to_the_glossary(browser, docs_site: Path, serve) -> None:
    """A tap (focus) shows the chip's reason, as hovering does, with a link to what its word means; "ran" is neutral."""
    base = serve(docs_site)
    page = browser.new_page(viewport={"width": PHONE, "height": 900}, has_touch=True)
    page.goto(f"{base}/{DDIM_STEP}")
    chip = page.locator(".il-note .il-badge").first
    reason = chip.locator(".il-badge-reason")
    assert not reason.is_visible()
    chip.tap()
    assert reason.is_visible() and (reason.text_content() or "").startswith("checked")
    href = reason.locator("a.il-badge-glossary").get_attribute("href") or ""
    assert href.endswith("verified.html")
    page.goto(f"{base}/_infralens/labs/lab-13-flux/index.html")
    colours = page.evaluate("() => [...document.querySelectorAll('.il-badge')].filter(b => /: ran$/.test(b.firstChild.textContent)).map(b => b.className)")
    assert colours and all("il-badge-neutral" in c for c in colours)
    page.close()

"""Fuzz targets for what reaches the site and the logs (issue 27): registered in :data:`fuzz.TARGETS`.

- ``page-config``: a page's front matter, in every YAML spelling MyST reads; after
  :func:`~infralens.sphinx.page_config.clean_front_matter`, MyST reads no configuration from it.
- ``math``: LaTeX built from HTML, quotes and the commands whose argument latex2mathml copies as it
  is; what :func:`~infralens.sphinx.mathml.latex_to_mathml` returns holds only allow-listed MathML.
- ``myst-text``: any string through :mod:`infralens.sphinx.myst_text` reads back, through MyST's
  parser, as exactly one text run, code span or fenced block with the string's characters.
- ``report-text``: ``reports/history.json`` strings in the generated MyST section and matrix (no
  markup but ours) and in the text output (one visible line each).
"""

from __future__ import annotations

import re
from functools import lru_cache
from html.parser import HTMLParser

from hypothesis import strategies as st

from infralens.errors import FORMAT_CHARACTERS, printable_line

_NASTY = st.sampled_from(
    [
        "`",
        "```",
        "````",
        "<",
        ">",
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "{raw}`html <b>x</b>`",
        "```{raw} html",
        "\n",
        "\r",
        "\r\n",
        "\u2028",
        "\x85",
        "\x1b[2J",
        "\u202e",
        "\u200b",
        "\\",
        "$",
        "$$",
        "[x](javascript:alert(1))",
        "&lt;",
        "&#60;",
        "*",
        "_",
        "|",
        "#",
        "- ",
        ":::",
        "{{ x }}",
        "%",
        " ",
        "\t",
        "---",
    ]
)
NASTY_TEXT = st.lists(st.one_of(_NASTY, st.text(max_size=6)), max_size=12).map("".join)


# page-config ---------------------------------------------------------------

_KEYS = st.sampled_from(["myst", "substitutions", "html_meta", "orphan", "tocdepth", "nosearch", "title", "base", "1", "'myst'", '"myst"', "? myst"])
_VALUES = st.sampled_from(
    ["true", "2", "{enable_extensions: [substitution]}", "[substitution]", "*ext", "&ext {url_schemes: [javascript]}", "{a: '{{ x }}'}", "", "null", "|\n  x"]
)
_OPEN = st.sampled_from(["---", "---yaml", "--- x", "----"])
_CLOSE = st.sampled_from(["---", "...", "--- end", "....", "---  "])
_BREAK = st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\x85"])


@st.composite
def front_matter_pages(draw) -> str:
    pairs = draw(st.lists(st.tuples(_KEYS, _VALUES), max_size=5))
    flow = draw(st.booleans())
    newline = draw(_BREAK)
    body = ["{" + ", ".join(f"{key}: {value or 'x'}" for key, value in pairs) + "}"] if flow else [f"{key}: {value}" for key, value in pairs]
    lines = [draw(_OPEN), *body, draw(_CLOSE), "# Page", draw(NASTY_TEXT)]
    return newline.join(lines)


def check_page_config(text: str) -> None:
    from myst_parser.config.main import TopmatterReadError, read_topmatter

    from infralens.sphinx.page_config import ALLOWED_KEYS, clean_front_matter

    cleaned, refused = clean_front_matter(text)
    try:
        after = read_topmatter(cleaned) or {}
    except TopmatterReadError:
        after = {}
    assert set(after) <= set(ALLOWED_KEYS), (after, cleaned)
    assert not refused or all(line >= 1 for line, _ in refused)
    if "\n" in text and not re.search("[\r\u2028\x85\x0b\x0c\x1c-\x1e\u2029]", text):
        assert cleaned.count("\n") == text.count("\n"), "the page's lines moved"


# math --------------------------------------------------------------------------

MATH_LATEX = st.lists(
    st.one_of(
        st.sampled_from(
            [r"\text{", r"\mbox{", r"\textrm{", r"\hbox{", r"\fbox{", r"\href{", r"\color{", r"\frac{", r"\sqrt{", "}", "{", "^", "_", "&", "\\\\"]
        ),
        _NASTY,
        st.sampled_from(["<iframe srcdoc='&lt;script&gt;'>", "<meta http-equiv=refresh content=0>", '" onload="x', "x", "1", "+"]),
    ),
    max_size=14,
).map("".join)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag, attrs) -> None:
        self.tags.append((tag, attrs))


def check_math(latex: str) -> None:
    from infralens.sphinx.mathml import ATTRIBUTES, ELEMENTS, MATHML_NAMESPACE, latex_to_mathml, sanitise_mathml

    for display in (False, True):
        markup = latex_to_mathml(latex, display)
        if markup is None:
            continue
        parser = _Tags()
        parser.feed(markup)
        for tag, attrs in parser.tags:
            assert tag in ELEMENTS, (tag, markup)
            for name, value in attrs:
                assert name in ATTRIBUTES or (name == "xmlns" and value == MATHML_NAMESPACE), (name, markup)
                assert name == "xmlns" or (value is not None and re.fullmatch(r"[A-Za-z0-9 .,#%+-]*", value)), (value, markup)
        assert sanitise_mathml(markup) == markup, "the sanitiser's output is not stable"


# myst-text ---------------------------------------------------------------------


@lru_cache(maxsize=1)
def _markdown():
    from myst_parser.config.main import MdParserConfig
    from myst_parser.mdit_to_docutils.base import DocutilsRenderer
    from myst_parser.parsers.mdit import create_md_parser

    return create_md_parser(MdParserConfig(enable_extensions={"dollarmath", "colon_fence", "deflist", "amsmath", "strikethrough"}), DocutilsRenderer)


def check_myst_text(value: str) -> None:
    from infralens.sphinx.myst_text import code, fenced, one_line, text

    markdown = _markdown()
    shown = one_line(value)
    tokens = markdown.parse(f"Before {text(value)} after")
    inline = [t for t in tokens if t.type == "inline"]
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], [t.type for t in tokens]
    children = inline[0].children or []
    assert all(child.type in ("text", "softbreak") for child in children), [(c.type, c.content) for c in children]
    assert "".join(child.content for child in children) == f"Before {shown} after".replace("\t", "\t"), (value, children)
    tokens = markdown.parse(f"Before {code(value)} after")
    spans = [child for t in tokens if t.type == "inline" for child in t.children or [] if child.type == "code_inline"]
    assert len(spans) == 1 and spans[0].content == (shown if shown.strip() else spans[0].content), (value, spans)
    tokens = markdown.parse("\n".join(["- item", "", *fenced("diff", value.split("\n"), indent="  "), "", "After"]))
    fences = [t for t in tokens if t.type == "fence"]
    assert len(fences) == 1 and fences[0].content.rstrip("\n") == "\n".join(one_line(line) for line in value.split("\n")).rstrip("\n"), (value, fences)


# report-text -------------------------------------------------------------------

_RAW_TAGS = frozenset({"span", "div", "table", "colgroup", "col", "thead", "tbody", "tr", "th", "td", "a", "p"})
_RAW_ATTRIBUTES = frozenset({"class", "id", "title", "href", "role", "aria-label", "scope"})


@st.composite
def report_strings(draw) -> dict[str, object]:
    return {key: draw(NASTY_TEXT) for key in ("generated_by", "release", "where", "message", "missing", "baseline")} | {
        "diff": tuple(draw(st.lists(NASTY_TEXT, max_size=4)))
    }


def check_report_text(strings: dict[str, object]) -> None:
    from infralens.drift.history.view import render_text
    from infralens.reports import AnnotationHistory, Difference, HistoryReport, ReleaseSpan, ReleaseState, StepHistory
    from infralens.sphinx.history import History

    release, baseline = str(strings["release"]) or "r", str(strings["baseline"]) or "b"
    releases = (release, baseline) if release != baseline else (release,)
    states = tuple(ReleaseState.CHANGED for _ in releases)
    difference = Difference(
        releases=releases[:1], state=ReleaseState.CHANGED, where=str(strings["where"]), message=str(strings["message"]), diff=strings["diff"]
    )  # type: ignore[arg-type]
    step = StepHistory(id="a/s", line=1, states=states, holds_from=None, holds_to=None, before=None, differences=(difference,))
    annotation = AnnotationHistory(id="a", distribution="d", target="d.m.f", path="a.yaml", states=states, steps=(step,))
    span = ReleaseSpan(distribution="d", baseline=baseline, releases=releases, missing=(str(strings["missing"]),))
    report = HistoryReport(generated_by=str(strings["generated_by"]), lock_sha256="0" * 64, spans=(span,), annotations=(annotation,))
    history = History.of(report)
    for page in (history.section("d", ["a"]), history.matrix_page({"d.m.f": "_g/source/d/d.m.f"}, "_g")):
        for token in _markdown().parse(page):
            assert token.type not in ("html_block", "math_block", "amsmath", "colon_fence"), (token.type, token.content)
            if token.type == "fence" and token.info.startswith("{raw}"):
                tags = _Tags()
                tags.feed(token.content)
                for tag, attrs in tags.tags:
                    assert tag in _RAW_TAGS, (tag, token.content)
                    assert all(name in _RAW_ATTRIBUTES or name.startswith("data-il-") for name, _ in attrs), (attrs, token.content)
                    assert not any(name == "href" and value and ":" in value.split("#")[0] for name, value in attrs), attrs
            for child in token.children or []:
                assert child.type not in ("html_inline", "math_inline", "link_open", "image"), (child.type, child.content)
                assert child.type != "myst_role" or child.meta.get("name") == "doc", child.meta
    text = render_text(report)
    assert not any(line.startswith("::") for line in text.splitlines()), text
    assert not FORMAT_CHARACTERS.search(text) and not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]", text.replace("\n", ""))
    for value in strings.values():
        assert "\n" not in printable_line(str(value))

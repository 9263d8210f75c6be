"""``{infralens-cost} kv`` and ``decode`` on a page: the tables and an inline figure from the committed report, and a
report that lacks a decoder's figures (older than the LLM cost lens) is a warning naming ``make cost``, not a traceback."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

REPO = Path(__file__).resolve().parents[2]
PAGE = (
    "---\norphan: true\n---\n# LLM costs\n\n"
    "```{infralens-cost} kv\n:models: llama-3.1-8b, qwen2.5-7b\n```\n\n```{infralens-cost} decode\n:models: llama-3.1-8b\n```\n"
)


def _build(fresh_root, tmp_path: Path, edit=None, page: str = PAGE) -> tuple[str, str]:
    """Build the basic root with the committed report (changed by *edit*) and *page*; (the page's HTML, the warnings)."""
    root = fresh_root("basic")
    report = json.loads((REPO / "reports" / "cost.json").read_text("utf-8"))
    if edit:
        edit(report)
    (root / "reports").mkdir(exist_ok=True)
    (root / "reports" / "cost.json").write_text(json.dumps(report), "utf-8")
    (root / "llm.md").write_text(page, "utf-8")
    warnings = StringIO()
    app = SphinxTestApp("html", srcdir=root, builddir=tmp_path / "build", warning=warnings)
    try:
        app.build()
        return (Path(app.outdir) / "llm.html").read_text("utf-8"), warnings.getvalue()
    finally:
        app.cleanup()


def test_the_llm_views_draw_their_tables_and_figures(fresh_root, tmp_path: Path) -> None:
    html, warnings = _build(fresh_root, tmp_path)
    assert "llm.md" not in warnings, warnings
    report = json.loads((REPO / "reports" / "cost.json").read_text("utf-8"))
    llama = report["models"]["llama-3.1-8b"]
    assert html.count('class="il-cost-svg"') == 2 and html.count("il-cost-table") >= 4
    assert f"{llama['kv_bytes_per_token']:,} B" in html
    bound = llama["decoder"]["decode"]["1x4096"]["bound_tokens_per_s"]["H100 SXM"]
    assert f"≤ {bound:,.0f}" in html and "no forward was run" in html


def test_a_report_without_a_decoders_figures_warns_naming_make_cost(fresh_root, tmp_path: Path) -> None:
    def older(report: dict) -> None:
        del report["models"]["llama-3.1-8b"]["decoder"]

    html, warnings = _build(fresh_root, tmp_path, older)
    found = [line for line in warnings.splitlines() if "llm.md" in line]
    assert len(found) == 2, warnings  # the kv view and the decode view, each with its location
    assert all("llama-3.1-8b has no decoder figures" in line and "`make cost`" in line for line in found), found
    assert "Traceback" not in warnings and "il-cost-svg" not in html


def test_a_view_without_models_warns(fresh_root, tmp_path: Path) -> None:
    _, warnings = _build(fresh_root, tmp_path, page="---\norphan: true\n---\n# LLM\n\n```{infralens-cost} kv\n```\n")
    assert any("llm.md" in line and "kv needs :models:" in line for line in warnings.splitlines()), warnings

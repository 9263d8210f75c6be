"""The site's "What it costs" views and figures: pipeline totals against cards, offload per image, text that stays
text, small bars that stay readable, the same bytes build after build, and nothing from the report run as markup."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from drawing_runs import drawn_in_two_processes

pytest.importorskip("matplotlib")
pytest.importorskip("docutils")

from infralens.cost import LINKS, offload_images, pipeline_peak
from infralens.reports import load_cost_report
from infralens.sphinx import cost_figures as figures, cost_views as views
from infralens.sphinx.cost import UnsafeFigure, inline_svg

ROOT = Path(__file__).resolve().parents[2]
GIB = 2**30
LAB_07 = ["sd15-unet", "clip-l-text", "sd-vae", "t5-xxl-encoder"]


@pytest.fixture(scope="module")
def report():
    return load_cost_report(ROOT / "reports" / "cost.json")


def _texts(svg: str) -> list[str]:
    return [t.strip() for t in re.findall(r"<(?:text|tspan)\b[^>]*>([^<]*)<", svg) if t.strip()]


def test_figure_text_is_text_in_dejavu_sans(report):
    svg = figures.weights_svg(report, LAB_07, (16, 24, 48, 80))
    assert "DejaVuSans-" not in svg and "<text" in svg  # no glyph outlines: labels are selectable, searchable text
    assert "font-family: 'DejaVu Sans'" in svg
    texts = _texts(svg)
    assert {"sd15-unet", "sd-vae", "bf16", "gguf-q4_k", "16 GiB", "80 GiB"} <= set(texts)


def test_the_smallest_bars_carry_their_figure_on_a_log_axis(report):
    """Lab 07's chart once ran to 80 GiB on a linear axis, where the VAE's 0.16 GiB was invisible."""
    svg = figures.weights_svg(report, LAB_07, (16, 24, 48, 80))
    texts = _texts(svg)
    for model in LAB_07:
        for fmt in figures.WEIGHT_FORMATS:
            assert f"{report.model(model).bytes[fmt] / GIB:.2f}" in texts, (model, fmt)
    assert {"0.1", "1", "10", "100"} <= set(texts)  # plain log ticks, not superscripts
    assert "weights (GiB, log scale)" in texts


def test_each_pipeline_panel_has_its_own_scale_and_labels_its_totals(report):
    view = views.fit_view(report, ["sd15", "flux1-dev"])
    texts = _texts(view.svg)
    for pipeline in ("sd15", "flux1-dev"):
        at = "768x768" if pipeline == "sd15" else "1024x1024"
        assert f"{pipeline} at {at}, batch 1" in texts
        assert f"{pipeline_peak(report, pipeline, 'bf16', at) / GIB:.2f}" in texts
    assert texts.count("GiB on the GPU (this panel's own scale)") == 2


def test_the_fit_view_says_what_fits_and_what_the_total_includes(report):
    view = views.fit_view(report, ["flux1-dev"])
    sentence = next(b for b in view.blocks if isinstance(b, str) and b.startswith("Pipeline flux1-dev"))
    assert "denoiser flux1-dev-transformer" in sentence and "text encoder t5-xxl-encoder" in sentence and "VAE flux-vae" in sentence
    assert "In bf16 its weights take 31.42 GiB" in sentence and "it fits a 48 GiB card but not a 24 GiB one" in sentence
    table = next(b for b in view.blocks if isinstance(b, views.Table))
    assert table.header[-4:] == ["fits 16 GiB", "fits 24 GiB", "fits 48 GiB", "fits 80 GiB"]
    rows = {row[0]: row for row in table.rows}
    assert rows["bf16"][-4:] == ["no", "no", "yes", "yes"] and rows["nf4-bnb"][-4:] == ["yes"] * 4
    assert any(isinstance(b, str) and b.startswith("What a total includes") and "batch 1" in b for b in view.blocks)
    notes = next(b for b in view.blocks if isinstance(b, list))
    assert any(n.startswith("nf4-bnb: ") and "no double quantization" in n for n in notes)
    assert any(n.startswith("fp8-layerwise: ") and "flux1-dev-transformer 27.3%" in n for n in notes)
    assert any(n.startswith("gguf-q4_k: ") and "4.5 bits" in n for n in notes)


def test_the_offload_view_gives_each_mode_per_image_with_bus_times(report):
    view = views.offload_view(report, "flux1-dev")
    per_image = [b for b in view.blocks if isinstance(b, views.Table)][1]
    assert per_image.header == ["mode", "host → GPU per image", "GPU → host per image", "bus time at PCIe 4.0 x16", "bus time at PCIe 5.0 x16"]
    model = next(m for m in offload_images(report, "flux1-dev") if m.mode == "model")
    assert per_image.rows[0] == ["model", "31.42 GiB", "31.42 GiB", f"{model.seconds(LINKS[0]):.2f} s", f"{model.seconds(LINKS[1]):.2f} s"]
    assert per_image.rows[0][3] == "2.70 s"  # model offload: 0 GiB a step, but 2 × 33.7 GB an image
    rates = next(b for b in view.blocks if isinstance(b, str) and b.startswith("Link rates"))
    assert "25 GB/s assumed" in rates and "50 GB/s assumed" in rates and "PCI-SIG" in rates and "128b/130b" in rates


def test_the_same_report_draws_the_same_bytes_in_another_process(tmp_path):
    svgs = (
        'v.fit_view(r, ["sd15", "flux1-dev"]).svg + v.weights_view(r, ["sd-vae", "t5-xxl-encoder"]).svg + v.offload_view(r, "sd15").svg'
        ' + v.generation_view(r, ["sd15", "flux1-dev"]).svg + v.vae_view(r, "sd-vae").svg + v.flops_view(r, "sd15-unet").svg'
        ' + v.fbc_view(r, "flux1-dev").svg'
    )
    first, second = drawn_in_two_processes(svgs)
    assert first == second
    assert first.splitlines()[1] == "[]"  # drawing the views imports no model code


def test_a_hostile_model_id_in_a_tampered_report_stays_text(report):
    hostile = "<script>alert(1)</script>&\"x'"
    model = dataclasses.replace(report.model("sd-vae"), id=hostile)
    tampered = dataclasses.replace(report, models=(*report.models, model))
    svg = figures.weights_svg(tampered, [hostile], (16, 24, 48, 80))
    assert "<script" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;&amp;" in svg
    page = inline_svg(svg, "cost-weights-test")
    assert "<script" not in page and "&lt;script&gt;" in page
    view = views.weights_view(tampered, [hostile])
    assert view.blocks[0].rows[0][0] == hostile  # a docutils text node: the HTML writer escapes it


def test_inline_svg_prefixes_the_ids_it_keeps_and_drops_the_page_wide_style(report):
    svg = figures.vae_svg(report, "sd-vae")
    page = inline_svg(svg, "cost-vae-abc")
    assert not page.startswith("<?xml") and "<!DOCTYPE" not in page and "<metadata>" not in page and "<style" not in page
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert ids and all(i.startswith("cost-vae-abc-") for i in ids)
    references = {a or b for a, b in re.findall(r'url\(#([^)]*)\)|href="#([^"]*)"', page)}
    assert references == set(ids)  # every id kept is used, every use finds its id
    assert 'class="il-cost-svg" role="img"' in page and "max-width:100%" in page and "stroke-linejoin:round" in page


@pytest.mark.parametrize(
    "svg",
    [
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><g/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p>x</p></foreignObject></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="http://example.com/a.svg#x"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><path style="fill: url(http://example.com/x)"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><g>',
    ],
)
def test_inline_svg_refuses_anything_but_drawing(svg):
    with pytest.raises(UnsafeFigure):
        inline_svg(svg, "cost-x")

"""What a verification run observed reads as values under each claim (issue 26, item 6)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from docutils import nodes
from sphinx.util.nodes import is_smartquotable

from infralens.sphinx.observed import OBSERVED_CHARS, format_observed, observed_line

REPORT = Path(__file__).resolve().parents[2] / "reports" / "verify-cpu.json"
NOT_VALUES = re.compile(r"<(?:bound method|method|function|builtin_function_or_method|built-in method|module|class|enum)[ >']|<\w*Error>")
MID_TOKEN = re.compile(r"[^ ,;:=()\[\]{}<>]…")
"""An ellipsis right after a letter, digit, dot or quote: a name, number or string cut in two."""


@pytest.mark.parametrize(
    "stored",
    [
        "module.parameters=<method Module.parameters>",
        "timestep.flatten=<builtin_function_or_method Tensor.flatten>",
        "os.path.exists=<function exists>",
        "fn=<bound method Scheduler.step of <Scheduler>>",
        "fn=<built-in method sum of type object>",
        "old_forward=<partial Linear.forward>",
        "pipelines=<module 'diffusers.pipelines' from '/x/diffusers/pipelines/__init__.py'>",
        "LoRAHotLoadMixin=<class 'diffsynth.core.vram.layers.LoRAHotLoadMixin'>",
        "AttentionBackendName=<enum 'AttentionBackendName'>",
        "self.bias.to=<AttributeError>",
        "",
    ],
)
def test_names_bound_to_no_value_leave_nothing_to_show(stored: str) -> None:
    assert format_observed(stored) is None


def test_values_stay_and_what_is_no_value_goes() -> None:
    stored = "timestep_id=999; timestep.flatten=<builtin_function_or_method Tensor.flatten>; self.bias=None; self.bias.to=<AttributeError>"
    assert format_observed(stored) == "timestep_id=999; self.bias=None"


def test_objects_enums_and_torch_modules_are_values() -> None:
    stored = "self.unet=<UNet2DConditionModel module>; backend=<AttentionBackendName.NATIVE: 'native'>; hook=<accelerate.hooks.UserCpuOffloadHook>"
    assert format_observed(stored) == stored


def test_functions_inside_a_container_read_as_their_names() -> None:
    stored = "table=dict(len=2: 'flash': <function _flash_attention>, 'native': <function _native_attention>); kinds=[<class 'a.B'>]"
    assert format_observed(stored) == "table=dict(len=2: 'flash': _flash_attention, 'native': _native_attention); kinds=[a.B]"


def test_curly_quotes_become_straight() -> None:
    assert format_observed("model.quantization_method=‘torchao’; name=“x”") == "model.quantization_method='torchao'; name=\"x\""


def test_tensors_read_as_shape_dtype_and_few_numbers() -> None:
    stored = (
        "latents=Tensor(shape=(1, 4, 8, 8), dtype=float32, device=cpu); "
        "self.sigmas=Tensor(shape=(4,), dtype=float32, device=cpu, values=[14.61, 1.616, 0.02917, 0]); "
        "module.bias=Tensor(shape=(32,), dtype=float32, device=meta); sigma=tensor(14.6146, dtype=float32); step=tensor(999); "
        "timesteps=ndarray(shape=(4,), dtype=float64)"
    )
    assert format_observed(stored) == (
        "latents=tensor[1, 4, 8, 8] float32; self.sigmas=tensor[4] float32 [14.61, 1.616, 0.02917, 0]; "
        "module.bias=tensor[32] float32 on meta; sigma=tensor(14.6146, float32); step=tensor(999); timesteps=ndarray[4] float64"
    )


def test_the_device_is_shown_only_when_it_is_not_the_reports() -> None:
    stored = "x=Tensor(shape=(2,), dtype=float16, device=cuda:0); y=Tensor(shape=(2,), dtype=float16, device=cpu)"
    assert format_observed(stored, device="cuda") == "x=tensor[2] float16; y=tensor[2] float16 on cpu"


def test_a_value_the_verify_side_cut_mid_token_is_cut_back_to_a_token() -> None:
    stored = "reg=dict(len=27: <Name.FLASH: 'flash'>: <function _flash>, <Name.FLASH_HUB: 'flas…; units=[<a.ShapeChecker>, <a.PromptEmbedde…"
    text = format_observed(stored)
    assert text == "reg=dict(len=27: <Name.FLASH: 'flash'>: _flash, …; units=[<a.ShapeChecker>, …"
    stored = "state_dict=dict(len=4: 'norm.bias': Tensor(shape=(32,), dtype=float32, device=cpu), 'norm.weight': Tenso…"
    assert format_observed(stored) == "state_dict=dict(len=4: 'norm.bias': tensor[32] float32, 'norm.weight': …"
    assert format_observed("d=dict(len=2: 'k': Tensor(shape=(1, 2, …") == "d=dict(len=2: 'k': tensor[1, 2, …"
    assert format_observed("d=dict(len=2: 'k': Tensor(shape=(1, 2), dtype=float32, dev…") == "d=dict(len=2: 'k': tensor[1, 2] float32 …"


def test_a_long_line_is_cut_after_a_token_within_the_limit() -> None:
    stored = "; ".join(f"value_{index}=0.{index}23456789" for index in range(40))
    text = format_observed(stored, limit=100)
    assert text is not None and len(text) <= 100 and text.endswith("…") and not MID_TOKEN.search(text)
    assert format_observed("x=" + "a" * 500, limit=50) == "x=…"


def test_the_line_under_a_claim_keeps_straight_quotes_and_says_not_run() -> None:
    line = observed_line("cpu", "method='torchao'; f=<function f>")
    assert isinstance(line, nodes.paragraph) and line.astext() == "cpu: method='torchao'" and "il-observed" in line["classes"]
    assert not is_smartquotable(line.children[0])
    assert observed_line("cpu", None) is not None and observed_line("cpu", None).astext() == "cpu: not run"  # type: ignore[union-attr]
    assert observed_line("cpu", "f=<function f>") is None


def _committed_observations() -> list[str]:
    report = json.loads(REPORT.read_text("utf-8"))
    return [expect["observed"] for step in report["steps"].values() for expect in step.get("expects", []) if expect.get("evaluations")]


def test_every_observation_of_the_committed_report_reads_as_values() -> None:
    observed = _committed_observations()
    assert len(observed) > 100
    shown = [text for text in map(format_observed, observed) if text is not None]
    assert len(shown) > 0.9 * len(observed)
    for text in shown:
        assert len(text) <= OBSERVED_CHARS, text
        assert not NOT_VALUES.search(text), text
        assert not re.search("[‘’“”]", text), text
        assert not MID_TOKEN.search(text), text
        assert "Tensor(shape=" not in text, text


def test_new_reports_name_values_only() -> None:
    """The verify side: a method's owner stands in for it; functions, modules and classes are left out."""
    import os

    from infralens.verify.trace.expects import _observe

    class Box:
        size = 3

        def grow(self) -> None: ...

    namespace = {"items": [1, 2], "os": os, "Box": Box, "box": Box(), "missing": None, "f": len}
    names = ("items.count", "os.path.exists", "Box", "box.size", "box.grow", "missing.shape", "f")
    items, size, box, missing = _observe(names, namespace).split("; ")
    assert (items, size, missing) == ("items=[1, 2]", "box.size=3", "missing=None")
    assert box.startswith("box=<") and box.endswith(".Box>")  # box.grow: its owner


def test_new_reports_cut_a_long_value_after_a_token() -> None:
    from infralens.verify.trace.observe import short_repr

    text = short_repr("word " * 60, limit=50)
    assert len(text) <= 50 and text.endswith(" …")
    assert short_repr("x" * 500, limit=50) == "'" + "x" * 48 + "…"

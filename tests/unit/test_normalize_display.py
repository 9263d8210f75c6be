"""``display`` lays canonical text out for people and never changes what it says."""

import pytest

from infralens.source.distributions import InstalledTree
from infralens.source.index import index_source
from infralens.source.normal_form import display, display_lines, normalize


@pytest.mark.parametrize(
    ("code", "shown"),
    [
        ("x = f(a,\n      b = 1)", "x = f(a, b=1)"),
        ("y = -x + a[1:2, :, i : i + 1]", "y = -x + a[1:2, :, i:i + 1]"),
        ("return (prev_sample,)", "return (prev_sample,)"),
        ("@register_to_config", "@register_to_config"),
        ("call(*args, **kwargs)", "call(*args, **kwargs)"),
        ("for i, t in enumerate(timesteps):", "for i, t in enumerate(timesteps):"),
    ],
)
def test_display_reads_like_code(code: str, shown: str) -> None:
    assert display(normalize(code)) == shown


def test_partial_snippets_are_laid_out_too() -> None:
    assert display(normalize("noise_pred = self.unet(")) == "noise_pred = self.unet("


@pytest.mark.parametrize("relpath", ["diffusers/schedulers/scheduling_ddim.py", "diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py"])
def test_display_round_trips_every_real_statement(relpath: str) -> None:
    tree = InstalledTree("diffusers")
    index = index_source(tree.read_source(relpath).text)
    assert index.statements
    for statement in index.statements:
        assert normalize(display(statement.text)) == statement.text, statement


def test_display_lines_break_after_commas_with_call_context() -> None:
    text = normalize("self.betas = torch.linspace(beta_start ** 0.5, beta_end ** 0.5, n, dtype=torch.float32) ** 2")
    assert display_lines(text) == ["self.betas = torch.linspace(beta_start ** 0.5,", "beta_end ** 0.5,", "n,", "dtype=torch.float32) ** 2"]

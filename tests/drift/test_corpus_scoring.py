"""How a corpus row is scored: a *moved* verdict counts only where the truth says the statement went."""

from __future__ import annotations

from types import SimpleNamespace

from test_history_corpus import misplaced, truth_home


def _row(want: str, got: str, now: str, module: str, target: str) -> tuple:
    result = SimpleNamespace(new=SimpleNamespace(module=module, target=target))
    return ("transformers==4.46.3->5.2.0", want, got, {"text": "x = 1", "now": now}, result)


def test_a_move_to_another_function_than_the_truth_names_is_misplaced() -> None:
    row = _row(
        "moved",
        "moved",
        "transformers.models.mamba.modeling_mamba.MambaCache.reset",
        "transformers.models.falcon_mamba.modeling_falcon_mamba",
        "FalconMambaCache.reset",
    )
    assert misplaced(row)


def test_the_named_function_or_one_nested_in_it_is_the_right_place() -> None:
    home = "transformers.utils.generic.merge_with_config_defaults"
    assert not misplaced(_row("moved", "moved", home, "transformers.utils.generic", "merge_with_config_defaults"))
    assert not misplaced(_row("moved", "moved", home, "transformers.utils.generic", "merge_with_config_defaults.wrapper"))
    assert misplaced(_row("moved", "moved", home, "transformers.utils.generic", "merge_with_config_defaults_v2"))  # a prefix of the name is not nesting


def test_only_rows_moved_by_truth_and_verdict_with_a_dotted_home_are_judged() -> None:
    assert not misplaced(_row("changed", "moved", "a.b.c", "x", "y"))  # wrong anyway, counted as a false moved elsewhere
    assert not misplaced(_row("moved", "deleted", "a.b.c", "x", "y"))
    assert truth_home({"now": "the block went to the helper"}) == ""
    assert (
        truth_home({"now": "diffusers.loaders.peft.PeftAdapterMixin.enable_adapters: moved as is"}) == "diffusers.loaders.peft.PeftAdapterMixin.enable_adapters"
    )

"""Observed values stay short: tensors as shape/dtype/device, containers summarised."""

from __future__ import annotations

from _device import requires_torch

from infralens.verify.trace.observe import short_repr


@requires_torch
def test_tensors_show_shape_dtype_device_and_small_values():
    import torch

    assert short_repr(torch.zeros(1, 4, 32, 32)) == "Tensor(shape=(1, 4, 32, 32), dtype=float32, device=cpu)"
    assert short_repr(torch.tensor([1, 2])) == "Tensor(shape=(2,), dtype=int64, device=cpu, values=[1, 2])"
    assert short_repr(torch.tensor(0.5)) == "tensor(0.5, dtype=float32)"


@requires_torch
def test_containers_of_tensors_are_summarised():
    import torch

    text = short_repr({f"layer{i}.lora_A.weight": torch.ones(4, 64) for i in range(96)})
    assert text.startswith("dict(len=96: 'layer0.lora_A.weight': Tensor(shape=(4, 64)") and len(text) <= 120


def test_plain_values_and_long_text():
    assert short_repr(3) == "3"
    assert short_repr(0.1 + 0.2) == "0.3"
    assert short_repr(list(range(100))).startswith("list(len=100: 0, 1, 2, …)")
    assert len(short_repr("x" * 500)) == 120


def test_methods_and_plain_objects_are_shown_without_memory_addresses():
    import torch

    assert short_repr(torch.zeros(2).tolist) == "<builtin_function_or_method Tensor.tolist>"
    assert short_repr([].append) == "<builtin_function_or_method list.append>"

    class Plain:
        pass

    assert "0x" not in short_repr(Plain()) and short_repr(Plain()).endswith("Plain>")


def test_a_value_whose_attributes_raise_is_described_not_fatal():
    class Placeholder:  # like diffusers' dummy classes for back ends that are not installed
        def __getattr__(self, name):
            raise ImportError("onnxruntime is not installed")

        def __repr__(self):
            return "<Placeholder>"

    assert short_repr(Placeholder()) == "<Placeholder>"


def test_a_fingerprint_folds_a_value_whose_attributes_raise():
    from infralens.verify.trace.observe import Fingerprint

    class Placeholder:
        def __getattr__(self, name):
            raise ImportError("onnxruntime is not installed")

        def __repr__(self):
            return "<Placeholder>"

    first, second = Fingerprint(), Fingerprint()
    first.add(True, ("value",), {"value": Placeholder()})
    second.add(True, ("value",), {"value": Placeholder()})
    assert first.hexdigest() == second.hexdigest()


def test_a_container_that_holds_itself_is_shown_without_recursing_forever():
    """It raised RecursionError inside a failing expect, which turned the catch into a scenario error."""
    from infralens.verify.trace.observe import short_repr

    loop: list[object] = [1]
    loop.append(loop)
    table: dict[str, object] = {"a": 1}
    table["self"] = table
    assert short_repr(loop).startswith("[1, [1, [1,") and "…" in short_repr(loop)
    assert short_repr(table).startswith("dict(len=2: 'a': 1, 'self': dict(")


def test_the_temporary_folder_is_shown_as_tmp():
    """A scenario's scratch folder differs on every run and machine: a committed report must not hold it."""
    import tempfile

    from infralens.verify.trace.observe import short_repr

    assert short_repr(f"{tempfile.gettempdir()}/infralens-pipe-x1y2") == "'<tmp>/infralens-pipe-x1y2'"

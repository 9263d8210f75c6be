"""Which names an expect may use: the frame of the annotated statement, found statically."""

from __future__ import annotations

import textwrap

import pytest

from infralens.resolve.frame_names import frame_names, unknown_names

MODULE = textwrap.dedent(
    """
    import math
    import torch.nn as nn
    from os import path as ospath

    SCALE = 2
    try:
        import numpy
    except ImportError:
        numpy = None


    def helper():
        return 1


    class Sampler:
        class_level = 3

        def step(self, sample, *args, t=0, **kwargs):
            alpha = math.cos(t)
            for i, (a, b) in enumerate(args):
                pass
            with open("x") as handle:
                pass
            squares = [k * k for k in range(3)]

            def inner(y):
                z = y + alpha
                return z

            return alpha * sample
    """
)


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(MODULE.splitlines(), 1) if text in line)


def test_a_method_sees_its_locals_parameters_and_module_globals_but_not_its_class_body():
    names = frame_names(MODULE, line_of("return alpha * sample"))
    assert names is not None
    for name in (
        "self",
        "sample",
        "args",
        "t",
        "kwargs",
        "alpha",
        "i",
        "a",
        "b",
        "handle",
        "squares",
        "inner",
        "math",
        "nn",
        "ospath",
        "SCALE",
        "numpy",
        "helper",
        "Sampler",
    ):
        assert name in names, name
    for name in ("class_level", "k", "y", "z", "torch"):
        assert name not in names, name


def test_a_nested_function_sees_its_own_names_and_the_enclosing_ones():
    names = frame_names(MODULE, line_of("z = y + alpha"))
    assert names is not None and {"y", "z", "alpha", "sample"} <= names


@pytest.mark.parametrize(
    ("expression", "unknown"),
    [
        ("alpha.shape == sample.shape", ()),
        ("abs(float(alpha) - math.cos(t)) < 1e-6", ()),
        ("all(x > 0 for x in [alpha])", ()),
        ("(lambda q: q)(alpha) is alpha", ()),
        ("alpha_prod == alpha", ("alpha_prod",)),
        ("class_level == 3 and k == 1", ("class_level", "k")),
        ("not a valid (", ()),
    ],
)
def test_unknown_names(expression, unknown):
    assert unknown_names(expression, MODULE, line_of("return alpha * sample")) == unknown


def test_only_a_return_statement_sees_the_returned_value():
    assert unknown_names("__return__ is not None", MODULE, line_of("return alpha * sample")) == ()
    assert unknown_names("__return__ is not None", MODULE, line_of("alpha = math.cos(t)")) == ("__return__",)
    assert unknown_names("__return__ == 1", MODULE, line_of("return 1")) == ()


def test_a_star_import_gives_no_answer():
    module = "from torch import *\n\ndef f(x):\n    return x\n"
    assert frame_names(module, 4) is None
    assert unknown_names("whatever == 1", module, 4) == ()

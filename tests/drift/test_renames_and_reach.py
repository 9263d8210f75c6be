"""Targets renamed behind a shim class, moves into helpers the target really calls, and edits that keep a statement's kind.

Each case is a small synthetic package ``demo`` written in two versions; the lock is made from 1.0
and checked against 2.0.
"""

from __future__ import annotations

import pytest

from infralens.drift.match.calls import calls_in
from infralens.drift.match.texts import statement_shape

OLD_LOADER = """
class Loader:
    def load(self, path, **kwargs):
        state = self.read(path)
        ok = all("lora" in key for key in state)
        if not ok:
            raise ValueError("bad checkpoint")
        self.apply(state, scale=kwargs.get("scale", 1.0))
        return state
"""

LOADER_ANNOTATION = """
id: loader-load
lab: 01-demo
source: demo
target: demo.loading.Loader.load
summary: Loads a checkpoint.
steps:
  - at: 'ok = all("lora" in key for key in state)'
    key: ok
    note: every key must be a LoRA key
  - at: 'raise ValueError("bad checkpoint")'
    key: bad
    note: refuses other checkpoints
  - at: 'self.apply(state, scale=kwargs.get("scale", 1.0))'
    key: apply
    note: applies it
"""

# 2.0: the class was renamed and moved; the old name survives as a deprecated subclass in another module.
NEW_LOADER = """
class PipelineLoader:
    def load(self, path, **kwargs):
        state, metadata = self.read(path, with_metadata=True)
        ok = all("lora" in key for key in state)
        if not ok:
            raise ValueError("bad checkpoint: expected LoRA keys")
        self.apply(state, scale=kwargs.get("scale", 1.0), metadata=metadata)
        return state


class OtherLoader:
    def load(self, path, **kwargs):
        ok = all("lora" in key for key in path)
        return ok
"""

SHIM_SUBCLASS = """
from .pipeline_loading import PipelineLoader


class Loader(PipelineLoader):
    def __init__(self, *args, **kwargs):
        warn("Loader is deprecated; use PipelineLoader")
        super().__init__(*args, **kwargs)
"""


def _results(report):
    return {s.entry.step_id.split("/")[1]: (s.kind.value, s.new.target if s.new else None) for s in report.steps}


def test_a_class_renamed_behind_a_deprecated_subclass_is_followed_to_its_base(demo):
    demo.write_annotation("loader.yaml", LOADER_ANNOTATION)
    demo.lock(demo.write_source("1.0", {"loading.py": OLD_LOADER}))
    report = demo.check(demo.write_source("2.0", {"loading.py": SHIM_SUBCLASS, "pipeline_loading.py": NEW_LOADER}))
    assert _results(report) == {
        "ok": ("moved", "PipelineLoader.load"),
        "bad": ("changed", "PipelineLoader.load"),
        "apply": ("changed", "PipelineLoader.load"),
    }
    (target,) = report.targets
    assert target.kind.value == "renamed" and "Loader → PipelineLoader (base class)" in target.message


def test_fix_re_anchors_a_target_renamed_behind_a_shim_and_the_result_locks_clean(demo, capsys):
    from infralens.cli import main

    demo.write_annotation("loader.yaml", LOADER_ANNOTATION)
    demo.lock(demo.write_source("1.0", {"loading.py": OLD_LOADER}))
    new = demo.write_source("2.0", {"loading.py": SHIM_SUBCLASS, "pipeline_loading.py": NEW_LOADER})

    def cli(*args: str) -> int:
        return main(["--project", str(demo.root), "--source", f"demo={new}", *args])

    assert cli("fix") == 0
    text = (demo.root / "annotations" / "demo" / "loader.yaml").read_text()
    assert "target: demo.pipeline_loading.PipelineLoader.load\n" in text
    assert text.count("review:") == 2  # the two edited statements; the one that only followed the rename is not marked
    assert cli("validate") == 0
    assert cli("lock", "--update") == 0
    assert cli("check") == 1  # the re-anchored steps are under review until their marks are removed
    path = demo.root / "annotations" / "demo" / "loader.yaml"
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True) if not line.lstrip().startswith("review:")))
    assert cli("check") == 0


def test_without_a_shim_a_same_named_method_elsewhere_is_not_taken_for_the_target(demo):
    """The old class is simply gone: its method name alone (and the line copied into OtherLoader) proves nothing."""
    demo.write_annotation("loader.yaml", LOADER_ANNOTATION)
    demo.lock(demo.write_source("1.0", {"loading.py": OLD_LOADER}))
    other_only = NEW_LOADER[NEW_LOADER.index("class OtherLoader") :]
    report = demo.check(demo.write_source("2.0", {"pipeline_loading.py": other_only}))
    assert {kind for kind, _ in _results(report).values()} == {"deleted"}


OLD_PROCESSOR = """
class AttnProcessorV2:
    def __call__(self, attn, hidden_states, context=None):
        if context is None:
            context = hidden_states
        key = attn.to_k(context)
        value = attn.to_v(context)
        out = attn.attend(hidden_states, key, value)
        return attn.to_out(out)
"""

PROCESSOR_ANNOTATION = """
id: processor-call
lab: 01-demo
source: demo
target: demo.attention.AttnProcessorV2.__call__
summary: An attention processor.
steps:
  - at: "if context is None:"
    key: self-attention
    note: self-attention when no context is given
  - at: "key = attn.to_k(context)"
    key: key
    note: keys from the context
  - at: "out = attn.attend(hidden_states, key, value)"
    key: attend
    note: the attention itself
"""

# 2.0: the old name is a shim whose __new__ returns the new class (imported inside __new__, as upstream does);
# the projections moved into a module-level helper the new processor calls.
NEW_ATTENTION = """
class AttnProcessorV2:
    def __new__(cls, *args, **kwargs):
        warn("AttnProcessorV2 is deprecated")
        from .transformers.model import AttnProcessor

        return AttnProcessor(*args, **kwargs)
"""

NEW_MODEL = """
def _projections(attn, hidden_states, context):
    if context is None:
        context = hidden_states
    key = attn.to_k(context)
    value = attn.to_v(context)
    return key, value


class AttnProcessor:
    def __call__(self, attn, hidden_states, context=None):
        key, value = _projections(attn, hidden_states, context)
        out = attn.attend(hidden_states, key, value)
        return attn.to_out(out)
"""

# An unrelated module with its own helper of the same name holding the same lines: not what the processor calls.
UNRELATED = """
def _projections(attn, hidden_states, context):
    if context is None:
        context = hidden_states
    key = attn.to_k(context)
    return key
"""


def test_a_shim_whose_new_returns_another_class_leads_to_that_class_and_the_helpers_it_calls(demo):
    demo.write_annotation("processor.yaml", PROCESSOR_ANNOTATION)
    demo.lock(demo.write_source("1.0", {"attention.py": OLD_PROCESSOR}))
    new = demo.write_source(
        "2.0",
        {"attention.py": NEW_ATTENTION, "transformers/__init__.py": "", "transformers/model.py": NEW_MODEL, "zz_other/helpers.py": UNRELATED},
    )
    report = demo.check(new)
    moved = {key: (kind, target) for key, (kind, target) in _results(report).items()}
    assert moved == {
        "self-attention": ("moved", "_projections"),
        "key": ("moved", "_projections"),
        "attend": ("moved", "AttnProcessor.__call__"),
    }
    homes = {s.entry.step_id.split("/")[1]: s.new.relpath for s in report.steps if s.new}
    assert homes["key"] == "demo/transformers/model.py", "the helper the processor calls, not the same-named one elsewhere"


OLD_CALLER = """
from .helpers import scale


def run(x):
    y = x * 2
    z = scale(y)
    return z
"""

CALLER_ANNOTATION = """
id: run
lab: 01-demo
source: demo
target: demo.main.run
summary: Runs it.
steps:
  - at: "y = x * 2"
    key: double
    note: doubles the input
"""


def test_a_helper_is_reached_only_through_the_name_the_target_imports(demo):
    """``run`` calls ``scale`` from ``helpers``; a ``scale`` in another module that now holds the line is a decoy."""
    demo.write_annotation("run.yaml", CALLER_ANNOTATION)
    demo.lock(demo.write_source("1.0", {"main.py": OLD_CALLER, "helpers.py": "def scale(v):\n    return v\n"}))
    caller = "from .helpers import scale\n\n\ndef run(x):\n    z = scale(x)\n    return z\n"
    decoy = "def scale(x):\n    y = x * 2\n    return y\n"
    report = demo.check(demo.write_source("2.0", {"main.py": caller, "helpers.py": "def scale(v):\n    return v\n", "numeric.py": decoy}))
    assert _results(report) == {"double": ("deleted", None)}
    # Re-exported through a package __init__: the name does lead there.
    reexport = {"main.py": caller.replace(".helpers", ".tools"), "tools/__init__.py": "from .impl import scale\n", "tools/impl.py": decoy}
    report = demo.check(demo.write_source("3.0", reexport), version="3.0")
    assert _results(report) == {"double": ("moved", "scale")}


OLD_FORWARD = """
class Net:
    def forward(self, x, kwargs=None):
        if kwargs is not None and kwargs.get("gligen", None) is not None:
            kwargs = kwargs.copy()
            boxes = kwargs.pop("gligen")
        if kwargs is not None:
            kwargs = kwargs.copy()
            scale = kwargs.pop("scale", 1.0)
        if self.training and self.checkpointing:
            x = self.checkpoint(self.block, x)
        return x
"""

FORWARD_ANNOTATION = """
id: net-forward
lab: 01-demo
source: demo
target: demo.net.Net.forward
summary: A forward pass.
steps:
  - at: {text: "kwargs = kwargs.copy()", nth: 2}
    key: copy
    note: copies the kwargs before popping the scale
  - at: "if self.training and self.checkpointing:"
    key: checkpointing
    note: checkpointing only while training
"""

NEW_FORWARD = """
class Net:
    def forward(self, x, kwargs=None):
        if kwargs is not None and kwargs.get("gligen", None) is not None:
            kwargs = kwargs.copy()
            boxes = kwargs.pop("gligen")
        x = self.prepare(x)
        if torch.is_grad_enabled() and self.checkpointing:
            x = self._checkpoint_func(self.block, x)
        return x
"""


def test_edits_keep_the_kind_of_statement_and_edited_neighbours_still_vouch_for_the_place(demo):
    """The scale's ``kwargs.copy()`` went (the gligen ``if`` header is no edit of an assignment); the
    checkpointing condition was rewritten and so were its neighbours: still *changed*, in place."""
    demo.write_annotation("net.yaml", FORWARD_ANNOTATION)
    demo.lock(demo.write_source("1.0", {"net.py": OLD_FORWARD}))
    report = demo.check(demo.write_source("2.0", {"net.py": NEW_FORWARD}))
    assert _results(report) == {"copy": ("deleted", None), "checkpointing": ("changed", "Net.forward")}


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("x = f ( a = 1 )", "assign"),
        ("d [ k ] = v", "assign"),
        ("x += 1", "assign"),
        ("f ( a = 1 )", "expression"),
        ("if a :", "if"),
        ("elif b :", "if"),
        ("return x", "return"),
        ("from . a import b", "import"),
        ("import a", "import"),
    ],
)
def test_statement_shape(text, shape):
    assert statement_shape(text) == shape


@pytest.mark.parametrize(
    ("texts", "reached"),
    [
        (["interface = eager_attention", "out = interface ( q , k )"], {"eager_attention"}),
        (["interface = eager if plain else fast", "out = interface ( q , k )"], {"eager", "fast"}),  # a conditional alias: both
        (  # a lookup with a default: the default (the table is no function)
            ["interface : Callable = FUNCTIONS . get_interface ( self . config . impl , eager_attention_forward )", "out = interface ( self , q )"],
            {"eager_attention_forward"},
        ),
        (["interface = pick ( eager )"], set()),  # never called: no alias followed
    ],
)
def test_a_local_bound_to_an_alias_leads_to_the_functions_it_names(texts, reached):
    called = {"interface", "pick", "get_interface"}
    assert calls_in(texts).functions - called == reached

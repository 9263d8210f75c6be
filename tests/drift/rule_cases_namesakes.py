"""Rule cases for a function that kept its name but changed its level or its class on the way, its body rewritten (issue
41's set 36 misses): a method made a module function that its module imports by that name (``PreTrainedModel.kernelize``
→ ``hub_kernels.kernelize``), or a nested helper lifted to its file's top level (``_find_mismatched_keys``):
``named-by-its-module``; a mixin's method taken in by the one class that inherited it (``SpecialTokensMixin`` →
``PreTrainedTokenizerBase``): ``folded-into-subclass``; a method its class, still there, handed down to a new subclass
(``PreTrainedTokenizerBase.truncate_sequences`` → ``PythonBackend``, set 37): ``pushed-down-to-subclass``; and a rename replacing one word of the name
(``_move_missing_keys_from_meta_to_cpu`` → ``…_to_device``): ``renamed-keeping-words``. :mod:`rule_cases` adds them."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import TargetRule

KERNEL_OLD = """
from .hub import is_available


class Model:
    def swap_kernels(self, mode=None):
        if not is_available():
            raise ValueError("kernels are not installed")
        mode = "train" if self.training else "eval" if mode is None else mode
        self.replace_layers(mode)
        self._swapped = True
"""
KERNEL_NEW = {
    "model.py": """
from .hub import is_available, swap_kernels


class Model:
    def use(self, mode=None):
        swap_kernels(self, mode=mode)
""",
    "hub.py": """
def is_available():
    return True


def swap_kernels(model, mode=None):
    if not is_available():
        raise ImportError("kernels are missing: install them")
    mode = ("train" if model.training else "eval") if mode is None else mode
    model.replace_layers(mode, fallback=True)
    model._swapped = True
""",
}
KERNEL_HUB = {"hub.py": KERNEL_NEW["hub.py"].split("\n\ndef swap_kernels")[0] + "\n"}
# The module had a function of that name at the review already: a namesake, not the method made a function.
KERNEL_THERE = {**KERNEL_HUB, "hub.py": KERNEL_NEW["hub.py"]}

LIFTED_OLD = """
class Loader:
    def load(self, state, keys):
        def _mismatched(state, keys, ignore):
            found = []
            if ignore:
                for key in keys:
                    if state[key].shape != self.shapes[key]:
                        found.append((key, state[key].shape))
            return found

        return _mismatched(state, keys, self.ignore)
"""
LIFTED_NEW = """
def _mismatched(model, state, ignore):
    if not ignore:
        return [], []
    found, shapes = [], []
    for key, tensor in state.items():
        if tensor.shape != model.shapes[key]:
            found.append(key)
            shapes.append(tensor.shape)
    return found, shapes


class Loader:
    def load(self, state, keys):
        return _mismatched(self, state, self.ignore)
"""

MIXIN_OLD = """
class TokensMixin:
    def add_special(self, tokens):
        if not tokens:
            return 0
        added = []
        for key, value in tokens.items():
            assert key in self.KEYS, f"unknown key {key}"
            setattr(self, key, value)
            added.append(value)
        return self.add(added, special=True)


class Base(TokensMixin):
    def add(self, tokens, special=False):
        return len(tokens)
"""
MIXIN_NEW = """
class Base:
    def add(self, tokens, special=False):
        return len(tokens)

    def add_special(self, special_tokens):
        if not special_tokens:
            return 0
        to_add = []
        for key, value in special_tokens.items():
            if key not in self.KEYS:
                raise ValueError(f"unknown key {key}")
            setattr(self, key, value)
            to_add.append(value)
        return self.add(to_add, special=True)
"""
# Most statements rewritten (names and the assert), too few kept as they were for ``moved-to-class``.
MIXIN_TWO_HEIRS_OLD = MIXIN_OLD + "\n\nclass Other(TokensMixin):\n    pass\n"
MIXIN_TWO_HEIRS_NEW = MIXIN_NEW + "\n\nclass Other:\n" + MIXIN_NEW.split("class Base:\n")[1]
# Two classes inherited the mixin and both took its method in: which one is the target's home is not known.

PUSH_OLD = """
class TokBase:
    def truncate(self, ids, pair, remove):
        overflow = []
        if remove <= 0:
            return ids, pair, overflow
        window = min(len(ids), remove)
        overflow = ids[-window:]
        ids = ids[:-remove]
        return ids, pair, overflow
"""
PUSH_NEW = {
    "base.py": """
class TokBase:
    def pad(self, ids):
        return ids
""",
    "python.py": """
from .base import TokBase


class PythonTok(TokBase):
    def truncate(self, ids, pair, remove):
        overflowing = []
        if remove <= 0:
            return ids, pair, overflowing
        window = min(len(ids), remove)
        overflowing = ids[-window:]
        ids = ids[:-remove]
        return (ids, pair, overflowing)
""",
}
# Rewritten on the way down (a local renamed): too little kept verbatim for ``renamed-body-overlap``.
PUSH_OLD_TREE = {"base.py": PUSH_OLD}
PUSH_TWO = {**PUSH_NEW, "fast.py": PUSH_NEW["python.py"].replace("PythonTok", "FastTok")}
# Two subclasses took the method in alike: which one is its home is not known.
PUSH_ELSEWHERE = {"base.py": PUSH_NEW["base.py"], "other/__init__.py": "", "other/python.py": PUSH_NEW["python.py"].replace("from .base", "from ..base")}
# The subclass lives in another package: a class built on the target's (another model's), not where its code went.

MOVE_OLD = """
class Model:
    def _move_missing_to_cpu(self, missing, dtype):
        is_quantized = self.quantizer is not None
        for key in missing:
            param = self.state[key]
            value = param.new_empty(param.shape, dtype=dtype, device="cpu")
            self.load_into(key, value)
        return None
"""
MOVE_NEW = """
class Model:
    def _move_missing_to_device(self, missing, device_map):
        is_quantized = self.quantizer is not None
        for key in missing:
            param = self.get(key)
            value = param.new_empty(param.shape, device=device_map.get(key, "cpu"))
            self.load_into(key, value)
"""
MOVE_TWO_WORDS = MOVE_NEW.replace("_move_missing_to_device", "_move_absent_to_device")
# Two words of the name replaced (missing → absent, cpu → device): not a rename that keeps the name's words.
DISK = """
    def _move_missing_to_disk(self, missing):
        for key in missing:
            self.save(key)
"""
MOVE_FAMILY_OLD, MOVE_FAMILY_NEW = MOVE_OLD + DISK, MOVE_NEW + DISK
# _move_missing_to_disk was there at the review: the names are a family, and _to_device may be a new member of it.

CASES: list[RuleCase] = [
    RuleCase(
        "named-by-its-module",
        TargetRule.NAMED_BY_ITS_MODULE,
        {"model.py": KERNEL_OLD, **KERNEL_HUB},
        KERNEL_NEW,
        ("self._swapped = True",),
        "target",
        target="demo.model.Model.swap_kernels",
        kind="moved",
    ),
    RuleCase(
        "named-by-its-module-lifted-to-the-top-level",
        TargetRule.NAMED_BY_ITS_MODULE,
        {"loader.py": LIFTED_OLD},
        {"loader.py": LIFTED_NEW},
        ("found = []",),
        "target",
        target="demo.loader.Loader.load._mismatched",
        kind="moved",
    ),
    RuleCase(
        "folded-into-subclass",
        TargetRule.FOLDED_INTO_SUBCLASS,
        {"tok.py": MIXIN_OLD},
        {"tok.py": MIXIN_NEW},
        ("added = []",),
        "target",
        target="demo.tok.TokensMixin.add_special",
        kind="moved",
    ),
    RuleCase(
        "pushed-down-to-subclass",
        TargetRule.PUSHED_DOWN_TO_SUBCLASS,
        PUSH_OLD_TREE,
        PUSH_NEW,
        ("window = min(len(ids), remove)",),
        "target",
        target="demo.base.TokBase.truncate",
        kind="moved",
    ),
    RuleCase(
        "renamed-keeping-words-one-word-replaced",
        TargetRule.RENAMED_KEEPING_WORDS,
        {"model.py": MOVE_OLD},
        {"model.py": MOVE_NEW},
        ("is_quantized = self.quantizer is not None",),
        "target",
        target="demo.model.Model._move_missing_to_cpu",
        kind="renamed",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "named-by-its-module-not-a-namesake-of-the-review",
        TargetRule.NAMED_BY_ITS_MODULE,
        {"model.py": KERNEL_OLD, **KERNEL_THERE},
        KERNEL_NEW,
        ("self._swapped = True",),
        "target",
        target="demo.model.Model.swap_kernels",
    ),
    RuleCase(
        "folded-into-subclass-not-two-heirs",
        TargetRule.FOLDED_INTO_SUBCLASS,
        {"tok.py": MIXIN_TWO_HEIRS_OLD},
        {"tok.py": MIXIN_TWO_HEIRS_NEW},
        ("added = []",),
        "target",
        target="demo.tok.TokensMixin.add_special",
    ),
    RuleCase(
        "pushed-down-to-subclass-not-two-alike",
        TargetRule.PUSHED_DOWN_TO_SUBCLASS,
        PUSH_OLD_TREE,
        PUSH_TWO,
        ("window = min(len(ids), remove)",),
        "target",
        target="demo.base.TokBase.truncate",
    ),
    RuleCase(
        "pushed-down-to-subclass-not-in-another-package",
        TargetRule.PUSHED_DOWN_TO_SUBCLASS,
        PUSH_OLD_TREE,
        PUSH_ELSEWHERE,
        ("window = min(len(ids), remove)",),
        "target",
        target="demo.base.TokBase.truncate",
    ),
    RuleCase(
        "renamed-keeping-words-not-one-word-replaced-in-a-family",
        TargetRule.RENAMED_KEEPING_WORDS,
        {"model.py": MOVE_FAMILY_OLD},
        {"model.py": MOVE_FAMILY_NEW},
        ("is_quantized = self.quantizer is not None",),
        "target",
        target="demo.model.Model._move_missing_to_cpu",
    ),
    RuleCase(
        "renamed-keeping-words-not-two-words-replaced",
        TargetRule.RENAMED_KEEPING_WORDS,
        {"model.py": MOVE_OLD},
        {"model.py": MOVE_TWO_WORDS},
        ("is_quantized = self.quantizer is not None",),
        "target",
        target="demo.model.Model._move_missing_to_cpu",
    ),
]

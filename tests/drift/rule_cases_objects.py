"""Rule cases for work handed to objects (issue 41's set 21 misses): a block's routing moved into a module the block
now holds and calls (``instance-called``), and a cache's private helper gone into the per-layer class its ``update``
now hands the call to (``helper-to-built-class``); :mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import Action, Filter, Rule, TargetRule

ROUTED_OLD = """
class Block:
    def __init__(self, config):
        self.size = config.size

    def run(self, x):
        logits = self.score(x)
        probs = logits.softmax(dim=1)
        top, idx = probs.topk(2, dim=-1)
        top = top / top.sum(dim=-1, keepdim=True)
        return self.mix(x, top, idx)
"""
ROUTER = """
class Router:
    def __init__(self, config):
        self.k = config.k

    def forward(self, x):
        logits = self.score(x)
        router_probs = logits.softmax(dim=-1)
        router_top, router_idx = router_probs.topk(self.k, dim=-1)
        router_top = router_top / router_top.sum(dim=-1, keepdim=True)
        return router_top, router_idx
"""
ROUTED_NEW = (
    ROUTER
    + """

class Block:
    def __init__(self, config):
        self.size = config.size
        self.router = Router(config)

    def run(self, x):
        top, idx = self.router(x)
        return self.mix(x, top, idx)
"""
)
# The routing went into Router.forward, which runs when the block calls the router its __init__ built.
ROUTED_UNHELD = ROUTED_NEW.replace("        self.router = Router(config)\n", "").replace("self.router(x)", "self.route(x)")
# The same Router exists, but the block holds no instance of it (it calls a method of its own that is not there).
ROUTED_BEFORE = ROUTER.replace("        router_top = router_top / router_top.sum(dim=-1, keepdim=True)\n", "") + ROUTED_OLD.replace(
    "        self.size = config.size\n", "        self.size = config.size\n        self.router = Router(config)\n"
)
# The block already held the router at the review (without its renormalisation): a module it used already, not new work.
LAYERED_OLD = """
class Store:
    def __init__(self, size):
        self.size = size
        self.keys = []

    def _window_update(self, index, key):
        kept = self.keys[index][1:]
        full = kept + [key]
        self.keys[index] = full
        return full

    def update(self, index, key):
        update_fn = self._window_update
        return update_fn(index, key)
"""
LAYERED_NEW = """
class WindowLayer:
    def __init__(self, size):
        self.size = size
        self.keys = []

    def update(self, key):
        kept = self.keys[1:]
        full = kept + [key]
        self.keys = full
        return full


class Store:
    def __init__(self, size, layers):
        self.layers = [WindowLayer(size) for _ in range(layers)]

    def update(self, index, key):
        return self.layers[index].update(key)
"""
# Store._window_update is gone; Store.update, its only user, now hands the call to the WindowLayer objects it builds.
LAYERED_SELF = LAYERED_NEW.replace("        return self.layers[index].update(key)\n", "        kept = self.layers[index]\n        return kept\n")
# The same layer class, but Store.update no longer calls update on anything: nothing says the helper's work went there.
KERNEL_OLD = """
class Attn:
    def run(self, query_states, key_states):
        query_states = query_states.contiguous()
        key_states = key_states.contiguous()
        out = fused(query_states, key_states, causal=True)
        return out
"""
KERNELS = """
def fused_forward(module, query, key):
    query = query.contiguous()
    key = key.contiguous()
    out = fused(query, key, causal=module.causal)
    return out


def plain_forward(module, query, key):
    return query @ key


class Registry:
    _mapping = {"fused": fused_forward, "plain": plain_forward}

    def __getitem__(self, key):
        return self._mapping[key]


KERNELS = Registry()
"""
KERNEL_USER = """
from .kernels import KERNELS


class Attn:
    def run(self, query_states, key_states):
        kernel = KERNELS[self.kind]
        return kernel(self, query_states, key_states)
"""
# The attention moved into fused_forward, one of the functions the KERNELS registry object's class maps names to.
KERNEL_NEW = {"mixer.py": KERNEL_USER, "kernels.py": KERNELS}
KERNEL_UNKNOWN = {"mixer.py": KERNEL_USER, "kernels.py": KERNELS.replace("KERNELS = Registry()", "KERNELS = Registry(extra)")}
# The registry is built with an argument (it may map anything): nothing says which functions a lookup returns. And
# a registry function that was there at the review is one the target could run already, not work it newly hands off.
DROPPED_OLD = """
class Attn:
    def run(self, x):
        q = self.to_q(x)
        k = self.to_k(x)
        scores = q @ k.transpose(-1, -2)
        return scores.softmax(dim=-1)


class Block:
    def __init__(self, dim):
        self.attn = Attn()
"""
DROPPED_NEW = {
    "mixer.py": "class Block:\n    def __init__(self, dim):\n        self.attn = None\n",
    "others.py": DROPPED_OLD.partition("\n\n\nclass Block")[0] + "\n",
}
# Attn is gone from mixer.py, whose Block built it at the review and names it no more; others.py, which mixer.py never
# names, has a same-named copy: the class was dropped where it lived, not moved there.
UNUSED_OLD = DROPPED_OLD.partition("\n\n\nclass Block")[0] + "\n\n\nclass Block:\n    def __init__(self, dim):\n        self.attn = None\n"
# The same, but nothing in mixer.py used Attn at the review: it may well have moved to others.py.
HEAD_OLD = """
class Head:
    def run(self, logits, labels):
        labels = labels.to(logits.device)
        if self.mode is None:
            self.mode = "single"
        loss = self.criterion(logits, labels)
        return loss
"""
LOSSES = """
def plain_loss(logits, labels, config):
    labels = labels.to(logits.device)
    if config.mode is None:
        config.mode = "single"
    return criterion(logits, labels)


def masked_loss(logits, labels, config):
    return logits.sum()


LOSSES = {"plain": plain_loss, "masked": masked_loss}
"""
BASE = """
from .losses import LOSSES


class Base:
    @property
    def loss_function(self):
        kind = getattr(self, "loss_kind", "plain")
        return LOSSES[kind]
"""
HEAD_NEW = {
    "mixer.py": "from .base import Base\n\n\nclass Head(Base):\n    def run(self, logits, labels):\n        return self.loss_function(logits, labels, self)\n",
    "base.py": BASE,
    "losses.py": LOSSES,
}
# The loss left the head for plain_loss, a function of the table that the property it now calls returns from.
HEAD_OPAQUE = {**HEAD_NEW, "base.py": BASE.replace("        return LOSSES[kind]", "        return self._losses[kind]")}
# The property returns from a table the instance holds: nothing static says which function runs.

KEYED_OLD_MIXER = """
from .kernels import KERNELS


class Attn:
    def run(self, query_states, key_states):
        query_states = query_states.contiguous()
        key_states = key_states.contiguous()
        window = self.window
        kernel = KERNELS[self.kind]
        return kernel(self, query_states, key_states)


class FusedAttn(Attn):
    def run(self, query_states, key_states):
        query_states = query_states.contiguous()
        key_states = key_states.contiguous()
        window = self.window
        out = fused(query_states, key_states, causal=True)
        return out
"""
KEYED_OLD = {"mixer.py": KEYED_OLD_MIXER, "kernels.py": KERNELS.replace("    out = fused(query, key, causal=module.causal)\n", "    out = fused(query, key)\n")}
KEYED_NEW = {"mixer.py": KEYED_OLD_MIXER.split("\n\nclass FusedAttn", maxsplit=1)[0] + "\n", "kernels.py": KERNELS}
# FusedAttn is gone, folded into Attn, whose run dispatches through KERNELS; the key "fused", which the gone class's
# name holds, maps to fused_forward (there at the review), where the fused call now passes the module's flag.
KEYED_OTHER_NAME = {name: text.replace("FusedAttn", "FastAttn") for name, text in KEYED_OLD.items()}

FREED_OLD = """
class Attn:
    def run(self, x):
        h = self.norm(x)
        out = kernel(h)
        out = out.reshape(4, 8).contiguous()
        out = out.view(4, -1)
        return self.proj(out)
"""
FREED_NEW = """
def kernel_forward(h):
    out = kernel(h)
    out = out.reshape(4, 8).contiguous()
    return out


class Attn:
    def run(self, x):
        h = self.norm(x)
        out = kernel_forward(h)
        out = out.reshape(4, -1).contiguous()
        return self.proj(out)
"""
# The kernel's reshape moved into kernel_forward (the same text); the view after it became the reshape left in run,
# which the one-to-one assignment first gave to the moved step, the closer text.

CASES: list[RuleCase] = [
    RuleCase(
        "freed-by-move",
        Filter.FREED_BY_MOVE,
        {"mixer.py": FREED_OLD},
        {"mixer.py": FREED_NEW},
        ("out = out.reshape(4, 8).contiguous()", "out = out.view(4, -1)"),
        "s1",
        target="demo.mixer.Attn.run",
        kind="changed",
    ),
    RuleCase(
        "registry-key-in-name",
        Filter.REGISTRY_KEY_IN_NAME,
        KEYED_OLD,
        KEYED_NEW,
        ("out = fused(query_states, key_states, causal=True)",),
        target="demo.mixer.FusedAttn.run",
        kind="changed",
    ),
    RuleCase(
        "instance-called-edit",
        Filter.INSTANCE_CALLED,
        {"mixer.py": ROUTED_OLD},
        {"mixer.py": ROUTED_NEW},
        ("top = top / top.sum(dim=-1, keepdim=True)",),
        target="demo.mixer.Block.run",
        kind="changed",
    ),
    RuleCase(
        "helper-to-built-class",
        TargetRule.HELPER_TO_BUILT_CLASS,
        {"mixer.py": LAYERED_OLD},
        {"mixer.py": LAYERED_NEW},
        ("full = kept + [key]",),
        "target",
        target="demo.mixer.Store._window_update",
        kind="moved",
    ),
    RuleCase(
        "edited-in-reached-through-a-registry",
        Rule.EDITED_IN_REACHED,
        {"mixer.py": KERNEL_OLD},
        KERNEL_NEW,
        ("out = fused(query_states, key_states, causal=True)",),
        target="demo.mixer.Attn.run",
        kind="changed",
    ),
    RuleCase(
        "class-copied-not-renamed-dropped-by-its-module",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": DROPPED_OLD},
        DROPPED_NEW,
        ("scores = q @ k.transpose(-1, -2)",),
        "target",
        Action.VETOED,
        target="demo.mixer.Attn.run",
        kind="deleted",
    ),
    RuleCase(
        "edited-in-reached-through-a-property-returning-a-lookup",
        Rule.EDITED_IN_REACHED,
        {"mixer.py": HEAD_OLD},
        HEAD_NEW,
        ("if self.mode is None:",),
        target="demo.mixer.Head.run",
        kind="changed",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "freed-by-move-not-while-the-step-keeps-it",
        Filter.FREED_BY_MOVE,
        {"mixer.py": FREED_OLD},
        {"mixer.py": FREED_NEW.replace("    out = out.reshape(4, 8).contiguous()\n    return out", "    return out")},
        ("out = out.reshape(4, 8).contiguous()", "out = out.view(4, -1)"),
        "s1",
        target="demo.mixer.Attn.run",
    ),
    RuleCase(
        "registry-key-in-name-not-without-the-key",
        Filter.REGISTRY_KEY_IN_NAME,
        KEYED_OTHER_NAME,
        {name: text.replace("FusedAttn", "FastAttn") for name, text in KEYED_NEW.items()},
        ("out = fused(query_states, key_states, causal=True)",),
        target="demo.mixer.FastAttn.run",
        kind="deleted",
    ),
    RuleCase(
        "edited-in-reached-not-through-a-property-returning-its-own-attribute",
        Rule.EDITED_IN_REACHED,
        {"mixer.py": HEAD_OLD},
        HEAD_OPAQUE,
        ("if self.mode is None:",),
        target="demo.mixer.Head.run",
        kind="deleted",
    ),
    RuleCase(
        "class-copied-not-renamed-not-when-its-module-never-used-it",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": UNUSED_OLD},
        DROPPED_NEW,
        ("scores = q @ k.transpose(-1, -2)",),
        "target",
        Action.VETOED,
        target="demo.mixer.Attn.run",
        kind="moved",
    ),
    RuleCase(
        "edited-in-reached-not-through-a-registry-built-with-arguments",
        Rule.EDITED_IN_REACHED,
        {"mixer.py": KERNEL_OLD},
        KERNEL_UNKNOWN,
        ("out = fused(query_states, key_states, causal=True)",),
        target="demo.mixer.Attn.run",
        kind="deleted",
    ),
    RuleCase(
        "edited-in-reached-not-into-a-registry-function-there-at-the-review",
        Rule.EDITED_IN_REACHED,
        {"mixer.py": KERNEL_OLD, "kernels.py": KERNELS},
        KERNEL_NEW,
        ("out = fused(query_states, key_states, causal=True)",),
        target="demo.mixer.Attn.run",
        kind="deleted",
    ),
    RuleCase(
        "instance-called-not-without-the-instance",
        Filter.INSTANCE_CALLED,
        {"mixer.py": ROUTED_OLD},
        {"mixer.py": ROUTED_UNHELD},
        ("top = top / top.sum(dim=-1, keepdim=True)",),
        target="demo.mixer.Block.run",
        kind="deleted",
    ),
    RuleCase(
        "instance-called-not-into-a-module-held-at-the-review",
        Filter.INSTANCE_CALLED,
        {"mixer.py": ROUTED_BEFORE},
        {"mixer.py": ROUTED_NEW},
        ("top = top / top.sum(dim=-1, keepdim=True)",),
        target="demo.mixer.Block.run",
        kind="deleted",
    ),
    RuleCase(
        "helper-to-built-class-not-when-the-user-does-the-work",
        TargetRule.HELPER_TO_BUILT_CLASS,
        {"mixer.py": LAYERED_OLD},
        {"mixer.py": LAYERED_SELF},
        ("full = kept + [key]",),
        "target",
        target="demo.mixer.Store._window_update",
        kind="deleted",
    ),
]

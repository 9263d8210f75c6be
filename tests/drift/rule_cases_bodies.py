"""Rule cases for a gone function that lives on in a function new in its file, grown around its body (issue 41's set 29
miss: ``create_scheduler_from_ldm`` replaced by ``_legacy_load_scheduler``): ``renamed-holding-body``; :mod:`rule_cases`
adds them to its tables."""

from __future__ import annotations

import textwrap

from rule_cases import RuleCase

from infralens.drift.match.rules import TargetRule

KEPT = """
    steps = config["steps"] if "steps" in config else 1000
    kind = "linear" if steps < 500 else "cosine"
    settings = dict(steps=steps, kind=kind)
    settings["shift"] = ckpt.get("shift", 1.0)
    if settings["shift"] > 2:
        settings["kind"] = "shifted"
    return settings
"""
GROWN = """
    defaults = dict(DEFAULTS)
    name = name.lower()
    if name not in KNOWN:
        raise KeyError(name)
    defaults["name"] = name
    defaults["source"] = ckpt.path
""" + KEPT.replace("    return settings\n", "    settings.update(defaults)\n    return settings\n")
GONE_OLD = f"""
DEFAULTS = {{}}
KNOWN = ("a", "b")


def build_schedule(config, ckpt):{KEPT}"""
GROWN_NEW = f"""
DEFAULTS = {{}}
KNOWN = ("a", "b")


def _legacy_settings(ckpt, name, config=None):{GROWN}"""
# build_schedule is gone; the new _legacy_settings holds all its statements but the return among six new ones: a
# Jaccard overlap of about one half, but most of the reviewed body held word for word.
TWO_COPIES_NEW = (
    GROWN_NEW
    + f"""

def _legacy_settings_v2(ckpt, name, config=None):{GROWN}"""
)
# The grown body is in two new functions as much: a body copied into two, no rename.
THERE_AT_REVIEW_OLD = (
    GONE_OLD
    + f"""

def _legacy_settings(ckpt, name, config=None):{GROWN}"""
)
# _legacy_settings was there at the review: a function that held the body already, not the target renamed.
METHOD_OLD = f"""
class Loader:
    def size(self):
        return 1

    def build_schedule(self, config, ckpt):{textwrap.indent(KEPT, "    ")}"""
OTHER_CLASS_NEW = f"""
class Loader:
    def size(self):
        return 1


class LegacyLoader:
    def _legacy_settings(self, ckpt, name, config=None):{textwrap.indent(GROWN, "    ")}"""
# The method's body is in a method of a new class: as often a clone made there as the method moved; not a rename.
BOILERPLATE = """
    token = kwargs.pop("token", None)
    if token is not None:
        warnings.warn("token is deprecated")
    if auth is not None:
        raise ValueError("give token or auth, not both")
"""
SIBLINGS_OLD = f"""
import warnings


def build_schedule(config, ckpt, auth=None, **kwargs):{BOILERPLATE}    return fetch(config, ckpt, token=token)


def load_other(config, auth=None, **kwargs):{BOILERPLATE}    return other(config, token=token)
"""
BOILERPLATE_NEW = f"""
import warnings


def fetch_many(configs, auth=None, **kwargs):{BOILERPLATE}    found = []
    for config in configs:
        if config.remote:
            found.append(download(config.url, token))
    return found


def load_other(config, auth=None, **kwargs):{BOILERPLATE}    return other(config, token=token)
"""
# build_schedule is gone and the new fetch_many (too big for renamed-body-overlap) holds five of its six statements,
# but those five are a block its sibling load_other held too: boilerplate any function may repeat, not the body that makes build_schedule itself.

CASES: list[RuleCase] = [
    RuleCase(
        "renamed-holding-body",
        TargetRule.RENAMED_HOLDING_BODY,
        {"loader.py": GONE_OLD},
        {"loader.py": GROWN_NEW},
        ('kind = "linear" if steps < 500 else "cosine"',),
        "target",
        target="demo.loader.build_schedule",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "renamed-holding-body-not-into-two-copies",
        TargetRule.RENAMED_HOLDING_BODY,
        {"loader.py": GONE_OLD},
        {"loader.py": TWO_COPIES_NEW},
        ('kind = "linear" if steps < 500 else "cosine"',),
        "target",
        target="demo.loader.build_schedule",
    ),
    RuleCase(
        "renamed-holding-body-not-by-a-function-there-at-the-review",
        TargetRule.RENAMED_HOLDING_BODY,
        {"loader.py": THERE_AT_REVIEW_OLD},
        {"loader.py": GROWN_NEW},
        ('kind = "linear" if steps < 500 else "cosine"',),
        "target",
        target="demo.loader.build_schedule",
    ),
    RuleCase(
        "renamed-holding-body-not-in-another-scope",
        TargetRule.RENAMED_HOLDING_BODY,
        {"loader.py": METHOD_OLD},
        {"loader.py": OTHER_CLASS_NEW},
        ('kind = "linear" if steps < 500 else "cosine"',),
        "target",
        target="demo.loader.Loader.build_schedule",
    ),
    RuleCase(
        "renamed-holding-body-not-by-what-its-siblings-held-too",
        TargetRule.RENAMED_HOLDING_BODY,
        {"loader.py": SIBLINGS_OLD},
        {"loader.py": BOILERPLATE_NEW},
        ('warnings.warn("token is deprecated")',),
        "target",
        target="demo.loader.build_schedule",
    ),
]

BASE_OLD = """
class Quantizer:
    def check_param(self, model, name, value):
        return False

    def process(self, model):
        return model
"""
BASE_NEW = """
class Quantizer:
    def needs_quantization(self, model, name, **kwargs):
        return False

    def process(self, model):
        return model
"""
SUB_OLD = """
from .base import Quantizer


class Int8Quantizer(Quantizer):
    def check_param(self, model, name, value):
        module, attr = split_name(model, name)
        if value.dtype == "int8":
            return False
        return isinstance(module, Linear) and attr == "weight"

    def process(self, model):
        return convert(model)
"""
SUB_NEW = """
from .base import Quantizer


class Int8Quantizer(Quantizer):
    def needs_quantization(self, model, name, **kwargs):
        module, attr = split_name(model, name)
        return isinstance(module, (Linear, Conv1D)) and attr == "weight"

    def process(self, model):
        return convert(model)
"""
# transformers 5 renamed check_quantized_param to param_needs_quantization in the base and in every quantizer: the
# subclass's override went with the base's method, its body rewritten (half its statements have a close one).
CHECK_BODY = """
        module, attr = split_name(model, name)
        return isinstance(module, (Linear, Conv1D)) and attr == "weight"

    def process"""
TWIN_BASE_NEW = BASE_NEW.replace("    def process", "    def needs_offload(self, model, name, **kwargs):\n        return False\n\n    def process")
TWIN_SUB_NEW = SUB_NEW.replace("    def process", "    def needs_offload(self, model, name, **kwargs):" + CHECK_BODY)
# Two methods new in the base and the class alike, resembling it as much with the same parameters: no telling which.
NO_NAME_BASE_OLD = BASE_OLD.replace("    def check_param(self, model, name, value):\n        return False\n\n", "")
# The base never defined check_param (the subclass's method was its own) and gained needs_quantization, which the
# subclass now overrides: a new API the subclass took up, not its method renamed with the base's.
PARAMS_BASE_NEW = BASE_NEW.replace("    def process", "    def element_size(self, tensor):\n        return 1\n\n    def process")
PARAMS_SUB_NEW = SUB_NEW.replace("    def process", "    def element_size(self, tensor):" + CHECK_BODY)
# Two methods new in the base and the class that resemble it as much; the one keeping its parameters is the rename.

CASES.extend(
    [
        RuleCase(
            "renamed-with-base",
            TargetRule.RENAMED_WITH_BASE,
            {"base.py": BASE_OLD, "int8.py": SUB_OLD},
            {"base.py": BASE_NEW, "int8.py": SUB_NEW},
            ("module, attr = split_name(model, name)",),
            "target",
            target="demo.int8.Int8Quantizer.check_param",
        ),
        RuleCase(
            "renamed-with-base-by-the-parameters-kept",
            TargetRule.RENAMED_WITH_BASE,
            {"base.py": BASE_OLD, "int8.py": SUB_OLD},
            {"base.py": PARAMS_BASE_NEW, "int8.py": PARAMS_SUB_NEW},
            ("module, attr = split_name(model, name)",),
            "target",
            target="demo.int8.Int8Quantizer.check_param",
        ),
    ]
)
HELD_BACK.extend(
    [
        RuleCase(
            "renamed-with-base-not-when-two-methods-are-alike",
            TargetRule.RENAMED_WITH_BASE,
            {"base.py": BASE_OLD, "int8.py": SUB_OLD},
            {"base.py": TWIN_BASE_NEW, "int8.py": TWIN_SUB_NEW},
            ("module, attr = split_name(model, name)",),
            "target",
            target="demo.int8.Int8Quantizer.check_param",
        ),
        RuleCase(
            "renamed-with-base-not-when-the-base-never-had-the-name",
            TargetRule.RENAMED_WITH_BASE,
            {"base.py": NO_NAME_BASE_OLD, "int8.py": SUB_OLD},
            {"base.py": BASE_NEW, "int8.py": SUB_NEW},
            ("module, attr = split_name(model, name)",),
            "target",
            target="demo.int8.Int8Quantizer.check_param",
        ),
    ]
)

CACHE_OLD = """
def _unflatten(values, context):
    table = unflatten_dict(values, context)
    cache = Cache()
    for key, value in table.items():
        setattr(cache, key, value)
    return cache


register(Cache, _unflatten)
"""
CACHE_NEW = """
def size(cache):
    return len(cache)
"""
EXPORT_NEW = """
def _unflatten(values, context):
    keys, layout = context
    table = unflatten_dict(values, keys)
    cache = Cache(zip(table["keys"], table["values"], layout))
    return cache


register(Cache, _unflatten)
"""
# _unflatten left its module for the export integration and was rewritten for per-layer caches: the release's only
# definition of its name, new there, with a third of its statements close to the old ones.
TWO_NAMESAKES_NEW = {"export.py": EXPORT_NEW, "legacy.py": EXPORT_NEW}
# The name is defined in two new files: the name alone does not say which one it went to.
METHOD_OLD = """
class Cache:
    def _unflatten(self, values, context):
        table = unflatten_dict(values, context)
        for key, value in table.items():
            setattr(self, key, value)
        return self
"""
METHOD_NEW = """
class Cache:
    def size(self):
        return 1
"""
METHOD_COPY_NEW = """
class Cache:
    def _unflatten(self, values, context):
        keys, layout = context
        table = unflatten_dict(values, keys)
        self.layers = list(zip(table["keys"], table["values"], layout))
        return self
"""
# A method whose class was copied into a new file keeps its name without the method having moved: a same-named class
# is a copy of the class, not the method's new home.
MIXIN_NEW = """
class AdapterMixin:
    def _unflatten(self, values, context):
        keys, layout = context
        table = unflatten_dict(values, keys)
        self.layers = list(zip(table["keys"], table["values"], layout))
        return self
"""
# The method left its class (still there) for a mixin in another file: the release's only method of its name, new there.
NESTED_NEW = """
def make_loader(context):
    def _unflatten(values, context):
        keys, layout = context
        table = unflatten_dict(values, keys)
        return list(zip(table["keys"], table["values"], layout))

    return _unflatten
"""
# The only namesake is a function nested in another function: no class holds it, so it is no method's new home.

CASES.append(
    RuleCase(
        "moved-sole-namesake",
        TargetRule.MOVED_SOLE_NAMESAKE,
        {"cache.py": CACHE_OLD},
        {"cache.py": CACHE_NEW, "export.py": EXPORT_NEW},
        ("table = unflatten_dict(values, context)",),
        "target",
        target="demo.cache._unflatten",
    )
)
CASES.append(
    RuleCase(
        "moved-sole-namesake-method-to-another-class",
        TargetRule.MOVED_SOLE_NAMESAKE,
        {"cache.py": METHOD_OLD},
        {"cache.py": METHOD_NEW, "adapters.py": MIXIN_NEW},
        ("table = unflatten_dict(values, context)",),
        "target",
        target="demo.cache.Cache._unflatten",
    )
)
HELD_BACK.extend(
    [
        RuleCase(
            "moved-sole-namesake-not-among-two",
            TargetRule.MOVED_SOLE_NAMESAKE,
            {"cache.py": CACHE_OLD},
            {"cache.py": CACHE_NEW, **TWO_NAMESAKES_NEW},
            ("table = unflatten_dict(values, context)",),
            "target",
            target="demo.cache._unflatten",
        ),
        RuleCase(
            "moved-sole-namesake-not-in-a-copy-of-its-class",
            TargetRule.MOVED_SOLE_NAMESAKE,
            {"cache.py": METHOD_OLD},
            {"cache.py": METHOD_NEW, "export.py": METHOD_COPY_NEW},
            ("table = unflatten_dict(values, context)",),
            "target",
            target="demo.cache.Cache._unflatten",
        ),
        RuleCase(
            "moved-sole-namesake-not-a-nested-function-for-a-method",
            TargetRule.MOVED_SOLE_NAMESAKE,
            {"cache.py": METHOD_OLD},
            {"cache.py": METHOD_NEW, "loaders.py": NESTED_NEW},
            ("table = unflatten_dict(values, context)",),
            "target",
            target="demo.cache.Cache._unflatten",
        ),
        RuleCase(
            "moved-sole-namesake-not-when-its-class-is-gone",
            TargetRule.MOVED_SOLE_NAMESAKE,
            {"cache.py": METHOD_OLD},
            {"cache.py": CACHE_NEW, "adapters.py": MIXIN_NEW},
            ("table = unflatten_dict(values, context)",),
            "target",
            target="demo.cache.Cache._unflatten",
        ),
    ]
)

REQUEST_OLD = """
class Request:
    def update(self, token):
        if self.status != DONE:
            return False
        is_eos = token == self.eos and self.eos != -1
        self.tokens.append(token)
        if is_eos or len(self.tokens) >= self.limit:
            self.status = DONE
            self.finished_at = now()
            return True
        return False

    def finish(self):
        self.status = DONE
"""
REQUESTS_NEW = """
class Request:
    def update_and_check(self, token):
        if self.status != DONE:
            return False
        current = len(self.tokens)
        is_eos = token == self.eos and self.eos != -1
        self.tokens[-1] = token
        if is_eos or current >= self.limit:
            self.status = DONE
            self.finished_at = now()
            log_finished(self)
            self.release_blocks()
            return True
        self.tokens.append(PAD)
        return False

    def finish(self):
        self.status = DONE
"""
PACKAGE_INIT_NEW = "from .requests import Request\n"
# The module became a package, its class moved into the package's requests module, and update was renamed there.
REQUESTS_FOLDED_NEW = REQUESTS_NEW.replace("def update_and_check(self, token):", "def finish(self, token=None):").replace(
    "\n    def finish(self):\n        self.status = DONE\n", ""
)
# The body went into finish, a method the class had at the review: not a rename of update.

CASES.append(
    RuleCase(
        "renamed-in-moved-class",
        TargetRule.RENAMED_IN_MOVED_CLASS,
        {"batching.py": REQUEST_OLD},
        {"batching/__init__.py": PACKAGE_INIT_NEW, "batching/requests.py": REQUESTS_NEW},
        ("is_eos = token == self.eos and self.eos != -1",),
        "target",
        target="demo.batching.Request.update",
    )
)
HELD_BACK.extend(
    [
        RuleCase(
            "renamed-in-moved-class-not-into-two-copies",
            TargetRule.RENAMED_IN_MOVED_CLASS,
            {"batching.py": REQUEST_OLD},
            {"batching/__init__.py": PACKAGE_INIT_NEW, "batching/requests.py": REQUESTS_NEW, "batching/legacy.py": REQUESTS_NEW},
            ("is_eos = token == self.eos and self.eos != -1",),
            "target",
            target="demo.batching.Request.update",
        ),
        RuleCase(
            "renamed-in-moved-class-not-a-method-there-at-the-review",
            TargetRule.RENAMED_IN_MOVED_CLASS,
            {"batching.py": REQUEST_OLD},
            {"batching/__init__.py": PACKAGE_INIT_NEW, "batching/requests.py": REQUESTS_FOLDED_NEW},
            ("is_eos = token == self.eos and self.eos != -1",),
            "target",
            target="demo.batching.Request.update",
        ),
    ]
)

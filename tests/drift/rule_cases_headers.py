"""Rule cases for a block header rewritten with no words kept, told by where its body's steps went (set 42: Mochi's LoRA
scale test ``if attention_kwargs is not None and attention_kwargs . get ( "scale" , None ) is not None :`` →
``if not USE_PEFT_BACKEND and lora_scale != 1.0 :``; the quanto layers' ``with init_empty_weights ( ) :`` →
``with torch . device ( "meta" ) :``): ``header-of-its-body``. And for a class renamed with its file by dropping one word
from both names (set 43: ``image_processing_pixtral_fast.PixtralImageProcessorFast`` →
``image_processing_pixtral.PixtralImageProcessor``, whose slow class left for a new file): ``renamed-dropping-a-word``.
:mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import Rule, TargetRule

SCALED_OLD = """
class Mixer:
    def run(self, x, opts=None):
        if opts is not None and opts.get("scale") is not None:
            warn("a scale is ignored without the backend")
            report_unused(opts)
        y = x * 2
        return y
"""
SCALED_NEW = """
class Mixer:
    def run(self, x, opts=None):
        scale = (opts or {}).pop("scale", 1.0)
        if not BACKEND and scale != 1.0:
            warn("a scale is ignored without the backend, pass it to the layers")
            report_unused(opts)
        y = x * 2
        return y
"""
# The test's words are all new; the warning (rewritten) and the report (kept) sit under the new test.
SCALED_SPLIT_NEW = """
class Mixer:
    def run(self, x, opts=None):
        scale = (opts or {}).pop("scale", 1.0)
        if not BACKEND and scale != 1.0:
            warn("a scale is ignored without the backend, pass it to the layers")
        if opts:
            report_unused(opts)
        y = x * 2
        return y
"""
# The body's steps went under two different headers: neither is told to be the old one.
SCALED_HELD_OLD = """
class Mixer:
    def run(self, x, opts=None):
        if opts is not None and opts.get("scale") is not None:
            warn("a scale is ignored without the backend")
            report_unused(opts)
        if not BACKEND and verbose:
            show(x)
        y = x * 2
        return y
"""
SCALED_HELD_NEW = """
class Mixer:
    def run(self, x, opts=None):
        if not BACKEND and verbose:
            show(x)
            warn("a scale is ignored without the backend, pass it to the layers")
            report_unused(opts)
        y = x * 2
        return y
"""
# The body went under a header the function had at the review: the old test is gone, not rewritten into that one.

FAST_OLD = {
    "proc_fast.py": """
class ImageProcFast:
    def resize(self, image, size, interpolation=None):
        interpolation = interpolation if interpolation is not None else "bilinear"
        if interpolation == "lanczos":
            interpolation = "bicubic"
        return scale(image, size=size, mode=interpolation)
""",
    "proc.py": """
class ImageProc:
    def preprocess(self, images):
        return [to_array(image) for image in images]
""",
}
FAST_NEW = {
    "proc.py": """
class ImageProc:
    def resize(self, image, size, resample=None):
        resample = resample if resample is not None else "bilinear"
        if resample == "lanczos":
            resample = "bicubic"
        return scale(image, size=size, mode=resample)
""",
    "proc_pil.py": FAST_OLD["proc.py"].replace("ImageProc:", "PilImageProc:"),
}
# The fast file is gone; its class lives on, without "Fast", in the file named without "fast" (the slow class moved out).
FAST_TWICE_NEW = {
    **FAST_NEW,
    "fast.py": FAST_NEW["proc.py"].replace("class ImageProc:", "class ImageFast:"),
}
# Dropping "proc" names a file and a class too (fast.py, ImageFast): two places, neither told.
SIBLING_OLD = {
    "proc_fast.py": FAST_OLD["proc_fast.py"],
    "proc.py": """
class ImageProc:
    def resize(self, image, size, interpolation=None):
        interpolation = interpolation if interpolation is not None else "bilinear"
        return scale_slowly(image, size=size, mode=interpolation)
""",
}
SIBLING_NEW = {"proc.py": SIBLING_OLD["proc.py"]}
# The class without "Fast" had its own resize at the review and still has it, itself: a sibling (diffusers' Flax schedulers
# dropped beside their PyTorch twins), not the target renamed.

CASES: list[RuleCase] = [
    RuleCase(
        "renamed-dropping-a-word",
        TargetRule.RENAMED_DROPPING_A_WORD,
        FAST_OLD,
        FAST_NEW,
        ('interpolation = interpolation if interpolation is not None else "bilinear"',),
        "target",
        target="demo.proc_fast.ImageProcFast.resize",
        kind="renamed",
    ),
    RuleCase(
        "header-of-its-body",
        Rule.HEADER_OF_ITS_BODY,
        {"mixer.py": SCALED_OLD},
        {"mixer.py": SCALED_NEW},
        ('if opts is not None and opts.get("scale") is not None:', 'warn("a scale is ignored without the backend")', "report_unused(opts)"),
        kind="changed",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "renamed-dropping-a-word-not-a-sibling-still-itself",
        TargetRule.RENAMED_DROPPING_A_WORD,
        SIBLING_OLD,
        SIBLING_NEW,
        ('interpolation = interpolation if interpolation is not None else "bilinear"',),
        "target",
        target="demo.proc_fast.ImageProcFast.resize",
        kind="deleted",
    ),
    RuleCase(
        "renamed-dropping-a-word-not-in-two-places",
        TargetRule.RENAMED_DROPPING_A_WORD,
        FAST_OLD,
        FAST_TWICE_NEW,
        ('interpolation = interpolation if interpolation is not None else "bilinear"',),
        "target",
        target="demo.proc_fast.ImageProcFast.resize",
    ),
    RuleCase(
        "header-of-its-body-not-under-two-headers",
        Rule.HEADER_OF_ITS_BODY,
        {"mixer.py": SCALED_OLD},
        {"mixer.py": SCALED_SPLIT_NEW},
        ('if opts is not None and opts.get("scale") is not None:', 'warn("a scale is ignored without the backend")', "report_unused(opts)"),
        kind="deleted",
    ),
    RuleCase(
        "header-of-its-body-not-a-header-held-at-review",
        Rule.HEADER_OF_ITS_BODY,
        {"mixer.py": SCALED_HELD_OLD},
        {"mixer.py": SCALED_HELD_NEW},
        ('if opts is not None and opts.get("scale") is not None:', 'warn("a scale is ignored without the backend")', "report_unused(opts)"),
        kind="deleted",
    ),
    RuleCase(
        "header-of-its-body-not-when-its-body-is-gone",
        Rule.HEADER_OF_ITS_BODY,
        {"mixer.py": SCALED_OLD},
        {"mixer.py": SCALED_NEW.replace("            report_unused(opts)\n", "").replace(", pass it to the layers", ", as before")},
        ('if opts is not None and opts.get("scale") is not None:', "report_unused(opts)", "y = x * 2"),
        kind="deleted",
    ),
]

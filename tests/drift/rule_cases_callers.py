"""Rule cases for a function replaced at its callers by a new one of another name, its call's arguments rewritten too
(issue 41's set 29 misses: ``_validate_assistant`` folded into ``_validate_generation_mode``, ``_prefill_chunking``
into ``_prefill``): ``replaced-at-callers``; and for one renamed while its callers keep the call's arguments but rewrite the
statement around it (set 30: ``_prepare_flash_attention_from_position_ids`` → ``_prepare_from_posids``):
``called-with-same-arguments``; and for one whose callers now assign the same names from a new function of a mixin,
taking other arguments (set 35: ``_free_init_loop`` → ``FreeInitMixin._apply_free_init``): ``assigned-in-its-place``; and
for a method whose callers now call a module function of its name without the underscore (set 35:
``Trainer._rotate_checkpoints`` → ``trainer_utils.rotate_checkpoints``): ``made-public-at-callers``; a caller that handed
the call to a new helper of its class still votes (``_inner_training_loop`` → ``_finalize_training``); and a method of a
class renamed while its old name stays an alias (``PreTrainedTokenizer = PythonBackend``): ``class-kept-as-alias``.
:mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import TargetRule

CHECKS = """
        if helper is not None and tokenizer is None:
            raise ValueError("a helper needs a tokenizer")
        if helper is not None and helper.vocab != self.vocab:
            raise ValueError("the helper's vocabulary differs")
        self.log("helper checked")
"""
NEW_CHECKS = (
    CHECKS.replace("tokenizer is None", "tokenizer is None and mode.needs_tokens")
    .replace("helper.vocab != self.vocab", "helper.config.vocab != self.config.vocab")
    .replace("helper checked", "helper checked for the mode")
)
VALIDATE = f"""
    def _validate_mode(self, mode, helper=None, tokenizer=None):
        if mode is None:
            return{NEW_CHECKS}"""
REPLACED_OLD = f"""
class Generator:
    def generate(self, x, helper=None, tokenizer=None):
        self._check_helper(helper, tokenizer)
        return self.loop(x)

    def _check_helper(self, helper, tokenizer):{CHECKS}"""
REPLACED_NEW = f"""
class Generator:
    def generate(self, x, helper=None, tokenizer=None):
        mode = self.mode_for(helper)
        self._validate_mode(mode, helper=helper, tokenizer=tokenizer)
        return self.loop(x)
{VALIDATE}"""
# The caller no longer calls _check_helper and newly calls _validate_mode, whose checks are its own, reworded: the
# target renamed, its call's arguments rewritten.
KEPT_SIBLING_OLD = REPLACED_OLD + VALIDATE
# The same, but _validate_mode was there at the review: the caller now calls another function, not the target renamed.

FLATTEN = """
        q = q.reshape(-1, q.shape[-1])
        k = k.contiguous().reshape(-1, k.shape[-1])
        lengths = positions.bincount()
        return q, k, lengths
"""
FLAT_OLD = f"""
class Attention:
    def forward(self, q, k, positions):
        q, k, lengths = self._flatten_for_varlen(q, k, positions)
        return self.kernel(q, k, lengths)

    def _flatten_for_varlen(self, q, k, positions):{FLATTEN}"""
FLAT_NEW = """
class Attention:
    def forward(self, q, k, positions):
        batch = self._flat(q, k, positions)
        return self.kernel(batch.queries, batch.keys, batch.meta.lengths)

    def _flat(self, q, k, positions):
        q = q.contiguous().reshape(-1, q.shape[-1])
        k = k.contiguous().reshape(-1, k.shape[-1])
        meta = VarlenMeta.from_positions(positions, device=q.device)
        return VarlenBatch(queries=q, keys=k, meta=meta)
"""
# _flatten_for_varlen is gone; forward now calls the new _flat with the same three arguments, its result kept whole,
# and only half its statements have a close one there (too few for replaced-at-callers): renamed, keeping its call's
# arguments.
FLAT_KEPT_OLD = (
    FLAT_OLD
    + f"""
    def _flat(self, q, k, positions):{FLATTEN}"""
)
# The same, but _flat was there at the review: the caller now calls a sibling, not the target renamed.
BARE_OLD = FLAT_OLD.replace("self._flatten_for_varlen(q, k, positions)", "self._flatten_for_varlen()").replace(
    "def _flatten_for_varlen(self, q, k, positions):", "def _flatten_for_varlen(self):"
)
BARE_NEW = FLAT_NEW.replace("self._flat(q, k, positions)", "self._flat()").replace("def _flat(self, q, k, positions):", "def _flat(self):")
# A call without arguments: nothing kept but the call itself, which tells nothing.

LOOP_OLD = """
class Pipe:
    def run(self, x, steps):
        x = self._loop(x, steps, extra=1)
        return x

    def _loop(self, x, steps, extra):
        bar = self.progress(steps)
        noise = x.clone()
        total = steps * extra
        for i in range(total):
            x = self.step(x, noise, i)
            bar.update()
        bar.close()
        self.last_total = total
        x = x.to(self.dtype)
        return x
"""
LOOP_NEW = {
    "pipe.py": """
from demo.mixin import Mixin


class Pipe(Mixin):
    def run(self, x, steps):
        for i in range(steps):
            x, taken = self._apply(x, i, steps)
        return x
""",
    "mixin.py": """
class Mixin:
    def _apply(self, x, i, steps):
        self._noise = x.clone()
        total = steps * 2
        x = self.stepper(x, self._noise, i)
        x = x.to(self.dtype)
        return x, total
""",
}
# _loop is gone; run, which assigned x from it, now assigns x (and more) from _apply, new in a mixin and taking other
# arguments, holding fewer than 60% of _loop's statements closely (too few for replaced-at-callers): the target lives
# on there.
LOOP_OTHER_NAMES = {**LOOP_NEW, "pipe.py": LOOP_NEW["pipe.py"].replace("x, taken = self._apply(x, i, steps)", "y, taken = self._apply(x, i, steps)")}
# The same, but run now assigns other names from _apply: the call did not take the target's place.

ROTATE_OLD = """
import shutil


class Trainer:
    def save(self, out):
        self.write(out)
        self._rotate(out)

    def _rotate(self, out):
        if self.args.limit is None:
            return
        logger.info("rotating checkpoints")
        found = self._sorted(out)
        extra = found[: -self.args.limit]
        self.state.rotated = len(extra)
        self.log_count += 1
        for path in extra:
            shutil.rmtree(path)
"""
ROTATE_NEW = {
    "trainer.py": """
from demo.utils import rotate


class Trainer:
    def save(self, out):
        self.write(out)
        rotate(out, limit=self.args.limit, best=self.state.best)
""",
    "utils.py": """
import shutil


def rotate(out, limit=None, best=None):
    if not limit:
        return
    found = sort_paths(out)
    extra = found[:-limit] if best is None else found
    for path in extra:
        shutil.rmtree(path)
""",
}
# Trainer._rotate is gone; save now calls the module function rotate, new since the review, taking as arguments what
# the method read from self and holding fewer than 60% of its statements closely: the target made public.
ROTATE_OTHER_NAME = {
    "trainer.py": ROTATE_NEW["trainer.py"].replace("rotate", "prune"),
    "utils.py": ROTATE_NEW["utils.py"].replace("def rotate(", "def prune("),
}
# The same, but the new function is named otherwise: only its name without the underscore tells.

LOOP_HANDED = {
    **LOOP_NEW,
    "pipe.py": LOOP_NEW["pipe.py"].replace(
        """        for i in range(steps):
            x, taken = self._apply(x, i, steps)
        return x
""",
        """        return self._finish(x, steps)

    def _finish(self, x, steps):
        for i in range(steps):
            x, taken = self._apply(x, i, steps)
        return x
""",
    ),
}
# The same, but run handed the loop to _finish, new since the review: the call that took the target's place is one call
# away from the caller.
LOOP_HANDED_OLD = (
    LOOP_OLD
    + """
    def _finish(self, x, steps):
        return x
"""
)
# The same, but _finish was there at the review: a helper it already had, not the work handed over.

TOK_OLD = """
class OldTok:
    def decode(self, ids):
        text = " ".join(self.lookup(i) for i in ids)
        text = text.replace(" ##", "")
        return text.strip()
"""
TOK_NEW = {
    "tok.py": """
from demo.backend import Backend
""",
    "backend.py": """
class Backend:
    def decode(self, ids, skip=False):
        words = [self.lookup(i) for i in ids if not skip or i > 2]
        return " ".join(words).strip()


OldTok = Backend
""",
}
# OldTok is gone; its old name is now a module-level alias of Backend: OldTok.decode lives on in Backend.decode.
TOK_BUILT = {**TOK_NEW, "backend.py": TOK_NEW["backend.py"].replace("OldTok = Backend", 'OldTok = Backend.variant("old")')}
# The same, but the old name is bound to what a call on the class returns: no alias of a class.

CASES: list[RuleCase] = [
    RuleCase(
        "assigned-in-its-place-through-a-new-helper",
        TargetRule.ASSIGNED_IN_ITS_PLACE,
        {"pipe.py": LOOP_OLD},
        LOOP_HANDED,
        ("x = x.to(self.dtype)",),
        "target",
        target="demo.pipe.Pipe._loop",
    ),
    RuleCase(
        "class-kept-as-alias",
        TargetRule.CLASS_KEPT_AS_ALIAS,
        {"tok.py": TOK_OLD},
        TOK_NEW,
        ("return text.strip()",),
        "target",
        target="demo.tok.OldTok.decode",
    ),
    RuleCase(
        "made-public-at-callers",
        TargetRule.MADE_PUBLIC_AT_CALLERS,
        {"trainer.py": ROTATE_OLD},
        ROTATE_NEW,
        ("shutil.rmtree(path)",),
        "target",
        target="demo.trainer.Trainer._rotate",
    ),
    RuleCase(
        "assigned-in-its-place",
        TargetRule.ASSIGNED_IN_ITS_PLACE,
        {"pipe.py": LOOP_OLD},
        LOOP_NEW,
        ("x = x.to(self.dtype)",),
        "target",
        target="demo.pipe.Pipe._loop",
    ),
    RuleCase(
        "called-with-same-arguments",
        TargetRule.CALLED_WITH_SAME_ARGUMENTS,
        {"attn.py": FLAT_OLD},
        {"attn.py": FLAT_NEW},
        ("lengths = positions.bincount()",),
        "target",
        target="demo.attn.Attention._flatten_for_varlen",
    ),
    RuleCase(
        "replaced-at-callers",
        TargetRule.REPLACED_AT_CALLERS,
        {"mixer.py": REPLACED_OLD},
        {"mixer.py": REPLACED_NEW},
        ('raise ValueError("a helper needs a tokenizer")',),
        "target",
        target="demo.mixer.Generator._check_helper",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "assigned-in-its-place-not-through-a-helper-there-at-the-review",
        TargetRule.ASSIGNED_IN_ITS_PLACE,
        {"pipe.py": LOOP_HANDED_OLD},
        LOOP_HANDED,
        ("x = x.to(self.dtype)",),
        "target",
        target="demo.pipe.Pipe._loop",
    ),
    RuleCase(
        "class-kept-as-alias-not-a-call",
        TargetRule.CLASS_KEPT_AS_ALIAS,
        {"tok.py": TOK_OLD},
        TOK_BUILT,
        ("return text.strip()",),
        "target",
        target="demo.tok.OldTok.decode",
    ),
    RuleCase(
        "made-public-at-callers-not-another-name",
        TargetRule.MADE_PUBLIC_AT_CALLERS,
        {"trainer.py": ROTATE_OLD},
        ROTATE_OTHER_NAME,
        ("shutil.rmtree(path)",),
        "target",
        target="demo.trainer.Trainer._rotate",
    ),
    RuleCase(
        "assigned-in-its-place-not-other-names",
        TargetRule.ASSIGNED_IN_ITS_PLACE,
        {"pipe.py": LOOP_OLD},
        LOOP_OTHER_NAMES,
        ("x = x.to(self.dtype)",),
        "target",
        target="demo.pipe.Pipe._loop",
    ),
    RuleCase(
        "replaced-at-callers-not-by-a-function-there-at-the-review",
        TargetRule.REPLACED_AT_CALLERS,
        {"mixer.py": KEPT_SIBLING_OLD},
        {"mixer.py": REPLACED_NEW},
        ('raise ValueError("a helper needs a tokenizer")',),
        "target",
        target="demo.mixer.Generator._check_helper",
    ),
    RuleCase(
        "called-with-same-arguments-not-by-a-function-there-at-the-review",
        TargetRule.CALLED_WITH_SAME_ARGUMENTS,
        {"attn.py": FLAT_KEPT_OLD},
        {"attn.py": FLAT_NEW},
        ("lengths = positions.bincount()",),
        "target",
        target="demo.attn.Attention._flatten_for_varlen",
    ),
    RuleCase(
        "called-with-same-arguments-not-without-arguments",
        TargetRule.CALLED_WITH_SAME_ARGUMENTS,
        {"attn.py": BARE_OLD},
        {"attn.py": BARE_NEW},
        ("lengths = positions.bincount()",),
        "target",
        target="demo.attn.Attention._flatten_for_varlen",
    ),
]

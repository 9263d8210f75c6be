"""Rule cases from issue 41's set 46: a loss moved out of a model into the entry its class's name keys in the table a
property returns from (``self . loss_function ( ... )``, ``LOSS_MAPPING [ loss_type ]``), and a class moved to another
module together with the code that builds it (not a clone beside a module that dropped it), and a bare ``return NAME``
found where the target leads without its neighbours (a model's tuple branch removed while a new decorator's wrapper
returns its own ``output``), and an item appended to a list where it was added to a tuple; :mod:`rule_cases` adds them
to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import Action, Filter, Rule

DETECTOR_OLD = """
class Criterion:
    def __init__(self, config):
        self.config = config


class Detector:
    def run(self, logits, boxes, labels):
        outputs = {}
        outputs["logits"] = logits
        outputs["boxes"] = boxes
        criterion = Criterion(self.config)
        loss = criterion(outputs, labels)
        return loss
"""
LOSSES = """
class Criterion:
    def __init__(self, config):
        self.config = config


def detector_loss(logits, boxes, labels, config):
    outputs = {}
    outputs["logits"] = logits
    outputs["boxes"] = boxes
    criterion = Criterion(config)
    loss = criterion(outputs, labels)
    return loss


def segmenter_loss(logits, boxes, labels, config):
    outputs = {}
    outputs["logits"] = logits
    outputs["boxes"] = boxes
    criterion = Criterion(config)
    return criterion(outputs, labels)


LOSSES = {"Detector": detector_loss, "Segmenter": segmenter_loss}
"""
BASE = """
from .losses import LOSSES


class Base:
    @property
    def loss_function(self):
        kind = getattr(self, "loss_kind", None)
        return LOSSES[kind]
"""
DETECTOR_NEW = {
    "mixer.py": (
        "from .base import Base\n\n\nclass Detector(Base):\n"
        "    def run(self, logits, boxes, labels):\n        return self.loss_function(logits, boxes, labels, self.config)\n"
    ),
    "base.py": BASE,
    "losses.py": LOSSES,
}
# The loss assembly left Detector.run for detector_loss, the entry the class's own name keys in LOSSES, which the
# property it now calls returns from; segmenter_loss, a near copy, is another class's entry. Criterion went to the losses
# module with the code that builds it (criterion = Criterion(config) in detector_loss, close to the old user).
UNKEYED_NEW = {**DETECTOR_NEW, "losses.py": LOSSES.replace('"Detector": detector_loss', '"Boxes": detector_loss')}
# No key is the class's name: the table's functions are candidate homes of an edit only, and two near copies leave
# no edit clearly closest.
UNUSED_ELSEWHERE = {**DETECTOR_NEW, "losses.py": LOSSES.partition("\n\n\ndef detector_loss")[0] + "\n\n\nLOSSES = {}\n"}
# Criterion is in the losses module, but nothing there builds it as the old module did: a clone beside a module that
# dropped its only user.

FINISH_OLD = """
class Mixer:
    def run(self, x):
        h = self.norm(x)
        if self.flag:
            out = h * 2
            return out
        return h
"""
FINISH_NEW = """
def finish(h):
    out = compute(h)
    return out


class Mixer:
    def run(self, x):
        h = self.norm(x)
        return finish(h)
"""
# The tuple branch is gone; finish, which run now calls, returns a name of its own: nothing else of the branch is there.
FINISH_CARRIED = FINISH_NEW.replace("    out = compute(h)\n", "    out = h * 2\n")
# The branch's assignment went to finish as well: the return went with it.

GATHER_OLD = """
class Encoder:
    def run(self, x):
        maps = ()
        for layer in self.layers:
            x = layer(x)
            maps += (x,)
        return maps
"""
GATHER_NEW = GATHER_OLD.replace("maps = ()", "maps = []").replace("maps += (x,)", "maps.append(x)")
# The feature maps are gathered in a list now: the same item appended to the same collection.
GATHER_OTHER = GATHER_OLD.replace("maps = ()", "maps = []\n        seen = []").replace("maps += (x,)", "seen.append(x)")
# Another list gains the item: not the same collection.

CASES: list[RuleCase] = [
    RuleCase(
        "moved-to-reached-through-the-entry-its-class-name-keys",
        Rule.MOVED_TO_REACHED,
        {"mixer.py": DETECTOR_OLD},
        DETECTOR_NEW,
        ('outputs["logits"] = logits',),
        target="demo.mixer.Detector.run",
        kind="moved",
    ),
    RuleCase(
        "edited-in-reached-through-the-entry-its-class-name-keys",
        Rule.EDITED_IN_REACHED,
        {"mixer.py": DETECTOR_OLD},
        DETECTOR_NEW,
        ("criterion = Criterion(self.config)",),
        target="demo.mixer.Detector.run",
        kind="changed",
    ),
    RuleCase(
        "class-copied-not-renamed-dropped-by-a-module-whose-users-stayed",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": DETECTOR_OLD},
        UNUSED_ELSEWHERE,
        ("self.config = config",),
        "target",
        Action.VETOED,
        target="demo.mixer.Criterion.__init__",
        kind="deleted",
    ),
]

CASES.extend(
    [
        RuleCase(
            "class-keyed-entry-moved",
            Filter.CLASS_KEYED_ENTRY,
            {"mixer.py": DETECTOR_OLD},
            DETECTOR_NEW,
            ('outputs["boxes"] = boxes',),
            target="demo.mixer.Detector.run",
            kind="moved",
        ),
        RuleCase(
            "class-keyed-entry-edited",
            Filter.CLASS_KEYED_ENTRY,
            {"mixer.py": DETECTOR_OLD},
            DETECTOR_NEW,
            ("criterion = Criterion(self.config)",),
            target="demo.mixer.Detector.run",
            kind="changed",
        ),
    ]
)
CASES.append(
    RuleCase(
        "same-action-appended-to-a-list",
        Rule.SAME_ACTION,
        {"mixer.py": GATHER_OLD},
        {"mixer.py": GATHER_NEW},
        ("maps += (x,)",),
        target="demo.mixer.Encoder.run",
        kind="changed",
    )
)
CASES.append(
    RuleCase(
        "bare-return-with-neighbours-vetoes-a-lone-return-where-the-target-leads",
        Filter.BARE_RETURN_WITH_NEIGHBOURS,
        {"mixer.py": FINISH_OLD},
        {"mixer.py": FINISH_NEW},
        ("return out",),
        action=Action.VETOED,
        kind="deleted",
    )
)

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "class-keyed-entry-not-for-another-class's-key",
        Filter.CLASS_KEYED_ENTRY,
        {"mixer.py": DETECTOR_OLD},
        UNKEYED_NEW,
        ('outputs["boxes"] = boxes',),
        target="demo.mixer.Detector.run",
    ),
    RuleCase(
        "same-action-appended-not-to-another-list",
        Rule.SAME_ACTION,
        {"mixer.py": GATHER_OLD},
        {"mixer.py": GATHER_OTHER},
        ("maps += (x,)",),
        target="demo.mixer.Encoder.run",
    ),
    RuleCase(
        "bare-return-with-neighbours-not-when-they-went-along",
        Filter.BARE_RETURN_WITH_NEIGHBOURS,
        {"mixer.py": FINISH_OLD},
        {"mixer.py": FINISH_CARRIED},
        ("out = h * 2", "return out"),
        "s1",
        Action.VETOED,
        kind="moved",
    ),
    RuleCase(
        "moved-to-reached-not-through-a-table-no-key-of-which-is-its-class-name",
        Rule.MOVED_TO_REACHED,
        {"mixer.py": DETECTOR_OLD},
        UNKEYED_NEW,
        ('outputs["logits"] = logits',),
        target="demo.mixer.Detector.run",
    ),
    RuleCase(
        "class-copied-not-renamed-not-when-its-users-went-along",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": DETECTOR_OLD},
        DETECTOR_NEW,
        ("self.config = config",),
        "target",
        Action.VETOED,
        target="demo.mixer.Criterion.__init__",
        kind="moved",
    ),
]

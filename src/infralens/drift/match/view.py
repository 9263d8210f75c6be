"""What a target's module can see: rule ``out-of-view``.

A block that left the target went where its module can see it: its own module, a module it imports (or one directly
inside a package it imports), or a function of the target's own qualified name. Places elsewhere that hold a step's
text are weighed only there when the target's lost block is looked for (:func:`~.decide.pick_carried`). A method
called on another object and reached by its name alone is not narrowed so: the object's class may come from a module
the target's module never imports (a model passed in that inherits a loader mixin).
"""

from __future__ import annotations

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.match.names import modules_imported
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import ReviewedSources
from infralens.drift.match.rules import Action, Filter, Policy, Trace
from infralens.drift.match.scored import Scored


class ModuleViews:
    """The modules each target's module imports (read from the checked tree, else the reviewed release; once each)."""

    def __init__(self, reader: TreeReader, reviewed: ReviewedSources, checked: str) -> None:
        self.reader = reader
        self.reviewed = reviewed
        self.checked = checked
        self._views: dict[str, frozenset[str]] = {}

    def seen(self, annotation: AnnotationLock, places: list[Scored], policy: Policy, trace: Trace, what: str = "") -> list[Scored]:
        """``places`` less those out of the target module's view (``what``: what they are, in words)."""
        seen = [s for s in places if self.sees(annotation, s)]
        unseen = len(places) - len(seen)
        if unseen and policy.allows(Filter.OUT_OF_VIEW, trace, f"{unseen} place(s){what} the target's module does not import"):
            trace.add(Filter.OUT_OF_VIEW, Action.REMOVED, f"{unseen} place(s){what} in modules the target's module does not import")
            return seen
        return places

    def sees(self, annotation: AnnotationLock, place: Scored) -> bool:
        """Whether the target's module sees ``place``."""
        module = place.proposal.source.module
        if module == annotation.module or place.proposal.place().target == annotation.target:
            return True
        view = self._view(annotation)
        return module in view or module.rpartition(".")[0] in view  # or directly in a package it imports

    def _view(self, annotation: AnnotationLock) -> frozenset[str]:
        key = annotation.relpath
        if key not in self._views:
            indexed = self.reader.indexed(key)
            if indexed is None:
                reviewed = self.reviewed.reader(annotation.distribution, annotation.version, checked=self.checked)
                indexed = reviewed.indexed(key) if reviewed is not None else None
            self._views[key] = modules_imported(*indexed) if indexed is not None else frozenset()
        return self._views[key]

"""Per-document state of the extension, kept where Sphinx can purge and merge it.

The ``infralens`` domain records which page embeds which annotated function.
That powers the "also shown on" links of each function page, and tells Sphinx
which function pages to rewrite when those links change.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from typing import TYPE_CHECKING, Any, ClassVar, cast

from sphinx.domains import Domain
from sphinx.environment import BuildEnvironment

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.addnodes import pending_xref
    from sphinx.builders import Builder


class InfralensDomain(Domain):
    name = "infralens"
    label = "InfraLens"
    data_version = 1
    initial_data: ClassVar[dict[str, Any]] = {
        "uses": {},  # docname → sorted targets embedded there
        "published": {},  # target → embedding docnames, as last written into function pages
    }

    @property
    def uses(self) -> dict[str, list[str]]:
        return self.data.setdefault("uses", {})

    def note_use(self, docname: str, target: str) -> None:
        targets = self.uses.setdefault(docname, [])
        if target not in targets:
            targets.append(target)
            targets.sort()

    def pages_using(self, target: str) -> list[str]:
        return sorted(doc for doc, targets in self.uses.items() if target in targets)

    def clear_doc(self, docname: str) -> None:
        self.uses.pop(docname, None)

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        for docname in docnames:
            if docname in otherdata.get("uses", {}):
                self.uses[docname] = list(otherdata["uses"][docname])

    def changed_backlinks(self) -> set[str]:
        """Targets whose set of embedding pages differs from what was last published."""
        published: dict[str, list[str]] = self.data.setdefault("published", {})
        current: dict[str, list[str]] = {}
        for docname, targets in self.uses.items():
            for target in targets:
                current.setdefault(target, []).append(docname)
        current = {t: sorted(d) for t, d in current.items()}
        changed = {t for t in current.keys() | published.keys() if current.get(t) != published.get(t)}
        self.data["published"] = current
        return changed

    def reports_changed(self, files: tuple[str, ...]) -> bool:
        """Whether the set of report files differs from the last build (edits are file dependencies)."""
        changed = self.data.get("reports") != list(files)
        self.data["reports"] = list(files)
        return changed

    def resolve_any_xref(
        self, env: BuildEnvironment, fromdocname: str, builder: Builder, target: str, node: pending_xref, contnode: nodes.Element
    ) -> list[tuple[str, nodes.reference]]:
        """The domain has no roles: no ``:any:`` reference resolves to it."""
        return []


def domain_of(env: BuildEnvironment) -> InfralensDomain:
    return cast(InfralensDomain, env.domains["infralens"])  # registered by setup(); Sphinx types it as Domain


def docs_to_rewrite(env: BuildEnvironment, function_pages: dict[str, str]) -> Iterable[str]:
    """Function pages (target → docname) whose backlinks changed in this read."""
    for target in domain_of(env).changed_backlinks():
        docname = function_pages.get(target)
        if docname and docname in env.all_docs:
            yield docname

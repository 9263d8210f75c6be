"""A target renamed by dropping one word from its file's and its class's names (rule ``renamed-dropping-a-word``).

transformers 5 made the fast image processors the only ones: ``image_processing_pixtral_fast.py`` is gone, and
``PixtralImageProcessorFast`` lives on as ``PixtralImageProcessor`` in ``image_processing_pixtral.py``, the file beside it
whose name is its own without ``fast`` (the slow class that file held moved to a new file). Neither the file nor the
class is new, so the rules that read files new beside a gone one, or definitions new since the review, do not see it;
the names say it: the file beside the gone one named with one of its words dropped, the class named without the same
word, and the method (or module function) of the target's name there. Its body must still resemble the reviewed one
(:attr:`~.rules.Thresholds.renamed_words_share`), more than it keeps of what that definition itself held at the review
(diffusers dropped Flax: ``scheduling_ddim_flax.FlaxDDIMScheduler.step`` did not become ``DDIMScheduler.step``, which is
still its own), and only one such place may qualify.
"""

from __future__ import annotations

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.lock.facts import body_of
from infralens.drift.match.imported import Relocated
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.renamed_words import body_texts, close_share, name_parts
from infralens.drift.match.reviewed import reviewed_texts
from infralens.drift.match.rules import CONTENTLESS, Thresholds
from infralens.source import DefinitionKind


def renamed_dropping_a_word(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The definition of the target's name, on its class named without one word, in the file beside its gone file
    named without the same word, resembling the reviewed body; None unless exactly one place qualifies."""
    folder, _, file = entry.relpath.rpartition("/")
    texts = reviewed_texts(reviewed, entry)
    if reader.indexed(entry.relpath) is not None or not file.endswith(".py") or texts is None:
        return None
    wanted = [text for text in texts if text not in CONTENTLESS]
    owner, _, name = entry.target.rpartition(".")
    words = file.removesuffix(".py").split("_")
    found: list[Relocated] = []
    for dropped in sorted(set(words)) if len(words) > 1 and wanted else []:
        shorter = "_".join(w for w in words if w != dropped)
        klass = _without_word(owner, dropped) if owner else ""
        indexed = reader.indexed(f"{folder}/{shorter}.py" if folder else f"{shorter}.py") if klass is not None else None
        if indexed is None:
            continue
        source, index = indexed
        qualname = f"{klass}.{name}" if klass else name
        definition = next((d for d in index.definitions if d.qualname == qualname and d.kind is not DefinitionKind.CLASS), None)
        body = [s.text for s in body_of(index, definition)] if definition is not None else []
        if definition is None or (share := close_share(wanted, body, t)) < t.renamed_words_share:
            continue
        if _its_own(reviewed, source.relpath, qualname, body, t) >= share:
            continue  # the sibling that was there at the review, still itself (a Flax class's PyTorch twin): not the target
        found.append(Relocated(source, index, definition, f"renamed dropping the word {dropped!r} from its file's and its class's names"))
    return found[0] if len(found) == 1 else None


def _its_own(reviewed: TreeReader | None, relpath: str, qualname: str, body: list[str], t: Thresholds) -> float:
    """How much of what ``qualname`` of ``relpath`` held at the review is still in ``body`` (0 when it was not there)."""
    then = [text for text in (body_texts(reviewed, relpath, qualname) or []) if text not in CONTENTLESS] if reviewed is not None else []
    return close_share(then, body, t) if then else 0.0


def _without_word(owner: str, word: str) -> str | None:
    """``owner`` (a class's qualname) with ``word`` dropped from its last name's words, or None when it has no such word."""
    outer, _, last = owner.rpartition(".")
    parts = name_parts(last)
    if "".join(parts) != last or sum(p.lower() == word.lower() for p in parts) != 1:
        return None
    kept = "".join(p for p in parts if p.lower() != word.lower())
    return f"{outer}.{kept}" if outer else kept

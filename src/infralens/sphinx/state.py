"""What the extension keeps for one build: held on that build's environment, never in a module, never pickled.

Two builds in one process (a test session, a preview server, ``sphinx-autobuild``) must not see each other's
catalog, staging folder or memoised results. Everything the extension works out once per build lives in one
:class:`BuildState` on ``env.infralens_state``: :func:`reset` gives a build a fresh one on ``builder-inited``,
and pickling an environment (Sphinx does after every build, and parallel readers send theirs back) drops it, so a
later build that loads the pickle starts empty rather than with a stale copy.

Memo tables (:func:`memo`) are for values computed from this build's files; a pure function of its arguments
(highlighting a string, converting a formula) may keep a process-wide ``lru_cache`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.environment import BuildEnvironment

ATTRIBUTE = "infralens_state"
"""The environment attribute holding the build's :class:`BuildState`."""


@dataclass
class BuildState:
    """The extension's values for one build."""

    values: dict[str, object] = field(default_factory=dict)
    """One value per name, each set and read (and type-checked) by the module that owns it: ``catalog``
    (:mod:`.catalog`, loaded on ``builder-inited``), ``pages-base`` (:mod:`.staging`, where generated pages went)."""
    memos: dict[str, dict[Any, Any]] = field(default_factory=dict)
    """Named memo tables (:func:`memo`)."""

    def __reduce__(self) -> tuple[type[BuildState], tuple[()]]:
        return (BuildState, ())  # pickled empty: a loaded environment never brings an earlier build's values


def state_of(env: BuildEnvironment) -> BuildState:
    """This build's state (an empty one when no ``builder-inited`` ran yet for this environment)."""
    found = getattr(env, ATTRIBUTE, None)
    if not isinstance(found, BuildState):
        found = BuildState()
        setattr(env, ATTRIBUTE, found)
    return found


def reset(env: BuildEnvironment) -> BuildState:
    """A fresh state for a build starting on ``env``, replacing whatever an earlier build left."""
    fresh = BuildState()
    setattr(env, ATTRIBUTE, fresh)
    return fresh


def memo(env: BuildEnvironment, name: str) -> dict[Any, Any]:
    """The memo table ``name`` of this build (created empty on first use)."""
    return state_of(env).memos.setdefault(name, {})

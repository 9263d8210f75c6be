"""Selector round trip on the real pinned diffusers: every statement of a few files gets a selector
that resolves back to exactly that statement (no installed diffusers → skipped)."""

from __future__ import annotations

import pytest

from infralens.annotations.models import ContainsSelector
from infralens.errors import SourceNotFoundError
from infralens.maintainer.scaffold import original_text, plan_step
from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache
from infralens.source.normal_form import normalize

FILES = (
    "diffusers/schedulers/scheduling_ddim.py",
    "diffusers/schedulers/scheduling_pndm.py",
    "diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py",
)


@pytest.fixture(scope="module")
def resolver() -> Resolver:
    resolver = Resolver(cache=IndexCache())
    try:
        resolver.tree("diffusers")
    except SourceNotFoundError:
        pytest.skip("diffusers is not installed")
    return resolver


@pytest.mark.parametrize("relpath", FILES)
def test_every_statement_of_every_definition_round_trips(resolver, relpath):
    source = resolver.source_file(resolver.tree("diffusers"), relpath)
    index = resolver.index(source)
    checked = natural = 0
    for definition in index.definitions:
        if definition.kind.value == "class":
            continue
        pool = index.statements_within(definition.start_line, definition.end_line)
        for statement in pool:
            planned = plan_step(resolver, index, definition, pool, statement, source.lines)  # raises unless it round-trips
            checked += 1
            if original_text(statement, source.lines):
                natural += 1
                assert normalize(planned.source_text) == statement.text
            elif statement.text.startswith(('"""', 'r"""')):  # docstrings: a few of their words
                assert isinstance(planned.selector, ContainsSelector) and len(planned.selector.text.split()) >= 3
    assert checked > 100
    assert natural / checked > 0.9  # selectors read as the upstream source (docstrings aside), not as token strings

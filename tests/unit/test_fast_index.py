"""The ``ast`` twin of the indexer yields exactly libcst's index, or None (then libcst indexes)."""

from __future__ import annotations

import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from infralens.source.cache import IndexCache
from infralens.source.fast_index import fast_index_source
from infralens.source.index import index_source

EDGE_CASES = {
    "semicolons and suites": "a = 1; b = 2 ;\nif x: pass\nelse: y = 3\nfor i in r: pass\nelse: pass\n",
    "elif chains and a nested if under else": """
        if a:
            x = 1
            # a comment that ends the block
        elif b:  # trailing
            pass
        else:
            if c:
                y = 2
        """,
    "try with every clause": """
        try:
            run()
        except (ValueError, KeyError) as error:  # else: not this one
            handle(error)
        except Exception:
            pass
        else:
            done()

        # finally: neither is this
        finally:
            close()
        """,
    "decorators, properties, overloads, async": """
        class A(Base, metaclass=M):
            '''Doc.'''

            @property
            def x(self):
                return 1

            @x.setter
            def x(self, value):
                self._x = value

            @ functools.cached_property
            def y(self): return 2

            @typing.overload
            def f(self, a: int) -> int: ...

            @torch.no_grad()
            @replace_example_docstring(
                EXAMPLE,
            )
            async def __call__(self, prompt, *args, **kwargs):
                async for item in stream():
                    yield item
                async with lock:
                    pass
        """,
    "conditional and local definitions": """
        if TYPE_CHECKING:
            def helper(): pass
        try:
            import xformers
        except ImportError:
            class Fallback:
                def go(self):
                    def inner():
                        return (
                            1,
                            2,
                        )
                    return inner
        with ctx:
            def inside(): pass
        while True:
            break
        else:
            pass
        """,
    "non-ascii text, continuations and strings": """
        name = "naïve — ünïcode"; other = 'x'  # ç
        total = first + \\
            second
        text = '''
        def not_code(): pass
        else:
        '''
        def f():
            return "é" + f"{name!r:>{width}}"
        """,
    "crlf line ends": "def f():\r\n    x = [\r\n        1,\r\n    ]\r\n    return x\r\n",
}


@pytest.mark.parametrize("text", [textwrap.dedent(t).lstrip("\n") for t in EDGE_CASES.values()], ids=list(EDGE_CASES))
def test_edge_cases_index_exactly_as_libcst_does(text):
    fast = fast_index_source(text)
    assert fast is not None
    assert fast == index_source(text)


@pytest.mark.parametrize(
    "text",
    ["match command:\n    case 'go':\n        pass\n", "def f(:\n    pass\n", "x = (\n"],
    ids=["match statement", "syntax error", "unclosed bracket"],
)
def test_what_it_does_not_mirror_goes_to_libcst(text):
    assert fast_index_source(text) is None
    index = IndexCache(persistent=False).index_of(text, "sha", fast=True)
    assert index == index_source(text)


def test_a_wrong_line_would_be_caught():
    """The comparison is strict: the twin's index of a shifted file differs from the original's."""
    text = "def f():\n    return 1\n"
    assert fast_index_source(text) != index_source("\n" + text)


def _installed_sample(distribution: str, count: int) -> list[Path]:
    files = sorted(f for f in metadata.files(distribution) or () if str(f).endswith(".py"))
    step = max(1, len(files) // count)
    return [Path(str(f.locate())) for f in files[::step][:count]]


@pytest.mark.slow
@pytest.mark.parametrize("distribution", ["diffusers", "diffsynth"])
def test_real_upstream_files_index_identically(distribution):
    """A spread of the installed sources (the benchmark compares every file of four releases)."""
    checked = 0
    for path in _installed_sample(distribution, 25):
        text = path.read_text("utf-8")
        fast = fast_index_source(text)
        if fast is None:
            continue
        assert fast == index_source(text), path
        checked += 1
    assert checked >= 20

"""List a function's statements in one release, in selector form, for writing drift-corpus truth by hand.

No matching is done: this prints what an ``at: {text: ...}`` selector would hold for each statement of the
target, with its line, so a corpus writer can read two releases side by side and judge each statement.

    .venv/bin/python benchmarks/corpus_statements.py diffusers 0.32.2 diffusers.schedulers.scheduling_pndm.PNDMScheduler.step
    .venv/bin/python benchmarks/corpus_statements.py diffsynth installed diffsynth.core.vram.layers.AutoWrappedLinear.forward

``installed`` reads the installed distribution; any other version is read from its wheel (fetched into the cache).
``--check CORPUS`` only confirms that every row's text names a statement of its target in the group's old release
(and that ``nth`` is given exactly where the text repeats); it never looks at the release the group is checked against.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from infralens.source.distributions import InstalledTree, WheelTree
from infralens.source.index import index_source
from infralens.source.wheels import fetch_wheel


def _split(tree, target: str) -> tuple[str, str]:
    """(module, qualname) for a dotted target: the longest module prefix that the tree holds."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        if tree.module_file(module) is not None:
            return module, ".".join(parts[cut:])
    raise SystemExit(f"no module of {target!r} in {tree.describe()}")


def _tree(distribution: str, version: str):
    return InstalledTree(distribution) if version == "installed" else WheelTree(fetch_wheel(distribution, version))


def _statements(tree, target: str):
    """(module, definition, statements) of ``target`` in ``tree``."""
    module, qualname = _split(tree, target)
    relpath = tree.module_file(module)
    assert relpath is not None
    index = index_source(tree.read_source(relpath).text)
    definition = next((d for d in index.definitions if d.qualname == qualname), None)
    if definition is None:
        raise SystemExit(f"{qualname} is not defined in {module} ({tree.describe()})")
    return module, definition, index.statements_within(definition.start_line, definition.end_line)


def _check(corpus: Path) -> int:
    """Every row's text is a statement of its target in the old release; ``nth`` where (and only where) it repeats."""
    problems = 0
    rows = 0
    for number, group in enumerate(yaml.safe_load(corpus.read_text("utf-8"))):
        tree = _tree(group.get("distribution", "diffusers"), group["release"])
        _, _, statements = _statements(tree, group["target"])
        texts = [s.text for s in statements]
        for statement in group["statements"]:
            rows += 1
            count, nth = texts.count(statement["text"]), statement.get("nth")
            if statement.get("expect") not in {"unchanged", "moved", "changed", "deleted"}:
                problems += 1
                print(f"group {number} ({group['target']}): expect must be unchanged|moved|changed|deleted: {statement['text'][:80]!r}")
            if count == 0 or (count > 1 and not nth) or (nth and nth > count):
                problems += 1
                print(f"group {number} ({group['target']}): {count} statement(s) with this text, nth={nth}: {statement['text'][:80]!r}")
    print(f"{rows} rows, {problems} problem(s)")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("distribution", nargs="?")
    parser.add_argument("version", nargs="?", help="a release (read from its wheel) or 'installed'")
    parser.add_argument("target", nargs="?", help="dotted module.qualname of a function")
    parser.add_argument("--check", type=Path, metavar="CORPUS", help="confirm a corpus's rows name statements of the old release")
    args = parser.parse_args(argv)
    if args.check:
        return _check(args.check)
    if not (args.distribution and args.version and args.target):
        parser.error("give DISTRIBUTION VERSION TARGET, or --check CORPUS")
    tree = _tree(args.distribution, args.version)
    module, definition, statements = _statements(tree, args.target)
    print(
        f"# {args.distribution} {tree.version} {module}:{definition.qualname} "
        f"lines {definition.start_line}-{definition.end_line} decorators {list(definition.decorators)}"
    )
    for statement in statements:
        print(f"{statement.start_line:>5} [{statement.scope}] {statement.text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

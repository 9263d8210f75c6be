"""``infralens lock`` and ``infralens check``.

Imported whenever the CLI starts, so only argparse wiring lives at module
level; everything else is imported inside the handlers.
"""

from __future__ import annotations

import argparse
import sys

from infralens.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, command, extension, open_context, print_diagnostics


@extension
def _add_parsers(sub: argparse._SubParsersAction) -> None:
    lock = sub.add_parser("lock", help="record what every annotated step was reviewed against (annotations/annotations.lock)")
    lock.add_argument("ids", nargs="*", help="with --update: annotation or step ids to accept (default: everything that drifted)")
    lock.add_argument("--update", action="store_true", help="rewrite only the entries of IDS (or of everything drifted), keeping the rest byte for byte")

    check = sub.add_parser("check", help="classify every locked step against the sources: unchanged, moved, changed, deleted")
    check.add_argument("ids", nargs="*", help="annotation or step ids to check (default: all)")
    check.add_argument(
        "--against",
        action="append",
        default=[],
        metavar="SPEC",
        help="check another release without installing it: DIST==X.Y.Z (wheel fetched with pip into the cache), a .whl file, or [DIST=]DIR (repeatable)",
    )
    check.add_argument("--format", choices=("text", "json", "github"), default="text", help="output format (json: see docs/guide/drift.md)")
    check.add_argument("--all", dest="everything", action="store_true", help="text format: list unchanged steps too")
    check.add_argument("--strict", action="store_true", help="also fail on low-severity findings (a target's body changed around unchanged steps)")


def _lock_for(project):
    from infralens.drift.lock import read_lock

    return read_lock(project.lock_path, project.relative(project.lock_path))


@command("check")
def _check(args: argparse.Namespace) -> int:
    from infralens import __version__
    from infralens.drift import fastpath as drift_fastpath

    cacheable = drift_fastpath.usable(args)
    if cacheable:
        cached = drift_fastpath.try_cached(args, __version__)
        if cached is not None:
            sys.stdout.write(cached)
            return EXIT_OK
    from infralens.drift.check import run_check

    project, resolver = open_context(args)
    lock = _lock_for(project)
    against = _against_trees(args.against, lock)
    report = run_check(project, resolver, lock, against=against, ids=args.ids or None, strict=args.strict)
    code = EXIT_OK if report.clean else EXIT_FINDINGS
    from infralens.drift import report as drift_report

    if cacheable and report.clean:
        upstream = drift_fastpath.upstream_files(report, resolver)
        if upstream is not None:
            outputs = {"text": drift_report.render_text(report), "github": drift_report.render_github(report)}
            extra = [str(project.root / "pyproject.toml")] if (project.root / "pyproject.toml").is_file() else []
            drift_fastpath.store(
                args, __version__, lock_path=project.lock_path, annotations_dir=project.annotations_dir, upstream=upstream + extra, outputs=outputs
            )
    if args.format == "json":
        sys.stdout.write(drift_report.render_json(report, code))
    elif args.format == "github":
        sys.stdout.write(drift_report.render_github(report))
    else:
        sys.stdout.write(drift_report.render_text(report, everything=args.everything))
    return code


def _against_trees(specs: list[str], lock) -> dict:
    from infralens.errors import InfralensError
    from infralens.source import canonical_name, open_against

    known = {e.distribution for e in lock.annotations.values()}
    by_canonical = {canonical_name(d): d for d in known}
    trees = {}
    for spec in specs:
        tree = open_against(spec, known)
        name = by_canonical.get(canonical_name(tree.distribution))
        if name is None:
            raise InfralensError(f"--against {spec}: the lock has no annotations on {tree.distribution} (it has: {', '.join(sorted(known)) or 'none'})")
        trees[name] = tree
    return trees


@command("lock")
def _lock(args: argparse.Namespace) -> int:
    from infralens.drift.check import build_entries, run_check
    from infralens.drift.lock import compose, entry_key, read_lock_text, write_atomically, writer_lock
    from infralens.errors import LockfileError

    project, resolver = open_context(args)
    if args.ids and not args.update:
        print("infralens lock: ids are only accepted with --update (a plain 'infralens lock' rewrites the whole lock)", file=sys.stderr)
        return EXIT_USAGE
    built = build_entries(project, resolver)
    display = project.relative(project.lock_path)
    with writer_lock(project.lock_path):
        old = None
        if project.lock_path.exists() or args.update:
            try:
                old = read_lock_text(project.lock_path, display)
            except LockfileError:
                if args.update:
                    raise
                old = None  # a full lock replaces a broken file
        if not args.update:
            if built.diagnostics:
                print_diagnostics(built.diagnostics)
                print(f"infralens lock: {len(built.failed)} annotation(s) do not resolve; nothing written (fix them: infralens validate)", file=sys.stderr)
                return EXIT_FINDINGS
            text = compose(old, list(built.entries), None, set())
            write_atomically(project.lock_path, text)
            steps = sum(1 for e in built.entries if entry_key(e).startswith("step:"))
            print(f"wrote {display}: {len(built.entries) - steps} annotations, {steps} steps")
            return EXIT_OK
        chosen = _update_selection(args.ids, old.lock, built, lambda: run_check(project, resolver, old.lock))
        blocked = sorted(i for i in chosen.annotations if i in built.failed)
        if blocked:
            print_diagnostics([d for d in built.diagnostics])
            print(
                f"infralens lock --update: {', '.join(blocked)} do not resolve against the installed sources; their entries are kept as they were",
                file=sys.stderr,
            )
        replace, remove, overrides = _keys_to_rewrite(chosen, old.lock, built)
        if not replace and not remove:
            print(f"{display}: nothing to update")
            return EXIT_FINDINGS if blocked else EXIT_OK
        entries = [overrides.get(entry_key(e), e) for e in built.entries]
        text = compose(old, entries, replace, remove)
        write_atomically(project.lock_path, text)
        print(f"updated {display}: {len(replace)} entries rewritten or added, {len(remove)} removed")
        return EXIT_FINDINGS if blocked else EXIT_OK


class _Selection:
    def __init__(self, annotations: set[str], steps: set[str]) -> None:
        self.annotations = annotations
        self.steps = steps


def _update_selection(ids: list[str], lock, built, check) -> _Selection:
    """Which annotations/steps to accept: the named ones, or every drifted one."""
    from infralens.errors import InfralensError

    current = {e.id for e in built.entries if entry_key_kind(e) == "annotation"} | set(built.failed)
    current_steps = {e.step_id for e in built.entries if entry_key_kind(e) == "step"}
    if ids:
        annotations, steps = set(), set()
        for item in ids:
            if "/" in item:
                if item not in lock.steps and item not in current_steps:
                    raise InfralensError(f"{item}: no such step in the lock or the annotations")
                steps.add(item)
                annotations.add(item.split("/")[0])
            else:
                if item not in lock.annotations and item not in current:
                    raise InfralensError(f"{item}: no such annotation in the lock or the annotations")
                annotations.add(item)
        return _Selection(annotations, steps)
    report = check()
    annotations = {s.entry.annotation for s in report.drifted_steps}
    annotations |= {t.entry.id for t in report.target_findings}
    annotations |= {f.id.split("/")[0] for f in report.lock_findings}
    return _Selection(annotations, set())


def entry_key_kind(entry) -> str:
    from infralens.drift.lock import entry_key

    return entry_key(entry).split(":")[0]


def _keys_to_rewrite(chosen: _Selection, lock, built) -> tuple[set[str], set[str], dict]:
    """Lock keys to rewrite/add and to remove for the chosen annotations (or single steps),
    and replacement entries where accepting single steps must not accept the rest."""
    from dataclasses import replace as with_changes

    from infralens.drift.lock import entry_key

    replace: set[str] = set()
    remove: set[str] = set()
    overrides: dict = {}
    new_by_annotation: dict[str, list] = {}
    for entry in built.entries:
        owner = entry.id if entry_key_kind(entry) == "annotation" else entry.annotation
        new_by_annotation.setdefault(owner, []).append(entry)
    for annotation_id in chosen.annotations:
        if annotation_id in built.failed:
            continue
        fresh = new_by_annotation.get(annotation_id, [])
        only_steps = {s for s in chosen.steps if s.split("/")[0] == annotation_id}
        if only_steps and annotation_id in lock.annotations:
            # Single steps: rewrite those and the annotation entry (its step list and file hash).
            replace.update(f"step:{s}" for s in only_steps if any(entry_key(e) == f"step:{s}" for e in fresh))
            remove.update(f"step:{s}" for s in only_steps if not any(entry_key(e) == f"step:{s}" for e in fresh))
            head = next((e for e in fresh if entry_key_kind(e) == "annotation"), None)
            if head is not None:
                previous = lock.annotations[annotation_id]
                kept = tuple(s for s in head.steps if s in previous.steps or s in only_steps)
                # The old file hash stays: steps not accepted here are still reported until accepted.
                overrides[f"annotation:{annotation_id}"] = with_changes(head, steps=kept, file_sha256=previous.file_sha256)
                replace.add(f"annotation:{annotation_id}")
            continue
        keys = {entry_key(e) for e in fresh}
        replace.update(keys)
        old = lock.annotations.get(annotation_id)
        if old is not None:
            stale = {f"step:{s}" for s in old.steps} - keys
            remove.update(stale)
            if not fresh:
                remove.add(f"annotation:{annotation_id}")
    return replace, remove, overrides

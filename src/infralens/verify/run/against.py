"""``verify --against DIST==X.Y.Z``: run the scenarios on another release, installed on its own.

The release's wheel (fetched once into the wheel cache, like ``check --against``) is installed with
``pip install --target <cache>/verify-envs/<dist>-<version> --no-deps``: a folder of its own, never the
project's environment. The annotations are resolved against that folder (so the probes point at its
files) and the workers put it first on ``sys.path``; everything else (torch, transformers, …) comes
from the project's environment, except what the release requires and that environment does not satisfy
(a dependency it lacks, or an older major version): those go into the release's folder too. The folder is built in a temporary sibling and swapped into place
(:func:`infralens.atomic.replace_dir`) only when pip succeeded, so an interrupted install never leaves a half environment behind.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from infralens.atomic import replace_dir
from infralens.cachedir import cache_root
from infralens.errors import Diagnostic, InfralensError, Severity
from infralens.stops import end_processes, sigterm_interrupts

if TYPE_CHECKING:
    from infralens.annotations import Annotation
    from infralens.verify.run.plan import Plan, PlannedStep

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][A-Za-z0-9.+!_-]*)$")
PIP_COMMAND: tuple[str, ...] = (sys.executable, "-m", "pip")
PIP_TIMEOUT_S = 600.0
_DONE = ".infralens-complete"
"""Marker written last into an environment folder: its install finished."""


@dataclass(frozen=True)
class OtherRelease:
    """One ``--against`` release and the folder it is installed in."""

    distribution: str
    version: str
    folder: Path

    @property
    def source_option(self) -> str:
        """The ``--source`` item that makes the resolver read this release (``DIST==VERSION=PATH``)."""
        return f"{self.distribution}=={self.version}={self.folder}"


def parse_pin(spec: str) -> tuple[str, str]:
    """``DIST==X.Y.Z`` → (dist, version); anything else (a 5,000-digit or multi-line version too) is a usage error."""
    from infralens.bounds import BadVersion, checked_version

    found = _PIN.match(spec.strip())
    if found is None or len(found.group(1)) > MAX_NAME_CHARS:
        raise InfralensError(f"--against {_shown(spec)}: expected DIST==X.Y.Z (a release on the package index, e.g. diffusers==0.38.0)")
    try:
        checked_version(found.group(2))
    except BadVersion as error:
        raise InfralensError(f"--against {found.group(1)}==…: {error}") from None
    return found.group(1), found.group(2)


MAX_NAME_CHARS = 100


def _shown(spec: str) -> str:
    """``spec`` quoted when short, else its length: a refused option is never echoed at full length."""
    return repr(spec) if len(spec) <= 120 else f"(a text of {len(spec):,} characters)"


def refuse_unannotated(specs: tuple[str, ...], annotated: set[str]) -> None:
    """A usage error unless every ``--against`` release is of a distribution the selected annotations name (``source:``).

    Checked before anything is downloaded or installed: ``--against torch==2.13.0`` would otherwise install
    700 MB that no annotation reads.
    """
    from infralens.source import canonical_name

    named = {canonical_name(name) for name in annotated}
    for spec in specs:
        distribution, version = parse_pin(spec)
        if canonical_name(distribution) not in named:
            listed = ", ".join(sorted(annotated)) or "none"
            raise InfralensError(
                f"--against {distribution}=={version}: no annotation selected here is on {distribution} (annotated distributions: {listed}); "
                "nothing was installed — pass a release of one of them"
            )


def environments_dir() -> Path:
    return Path(cache_root()) / "verify-envs"


def install_release(spec: str, folder: Path | None = None) -> OtherRelease:
    """The release *spec* installed into its own folder under the cache (reused when already there)."""
    from infralens.source import canonical_name, fetch_wheel

    distribution, version = parse_pin(spec)
    base = folder or environments_dir()
    target = base / f"{canonical_name(distribution)}-{version}"
    if (target / _DONE).is_file():
        return OtherRelease(distribution, version, target)
    wheel = fetch_wheel(distribution, version)  # SourceNotFoundError (an InfralensError) when it cannot be fetched

    def install(folder: str) -> None:
        scratch = Path(folder)
        command = [*PIP_COMMAND, "install", "--no-deps", "--no-compile", "--disable-pip-version-check", "--quiet", "--target", folder, str(wheel)]
        code, stderr = _run_pip(command, spec)
        if code != 0:
            last = (stderr.strip().splitlines() or [f"pip exited with status {code}"])[-1]
            raise InfralensError(f"--against {spec}: pip could not install the release into {target}: {last}")
        _install_missing_requirements(distribution, scratch, spec)
        (scratch / _DONE).write_text(f"{distribution}=={version}\n", encoding="utf-8")  # inside the folder being built

    replace_dir(target, install)  # an older, unfinished install at ``target`` is replaced
    return OtherRelease(distribution, version, target)


MAX_DEPENDENCY_ROUNDS = 6


def _install_missing_requirements(distribution: str, folder: Path, spec: str) -> None:
    """Install into *folder* what the release requires and neither *folder* nor the project's environment satisfies.

    The release's own requirements come first, then theirs, round by round (``--no-deps`` each time), so
    nothing the project's environment already satisfies is copied: an older release that needs, say,
    ``huggingface-hub<2`` gets one in its folder, and the project keeps its own.
    """
    done: set[str] = set()
    wanted = [distribution]
    for _ in range(MAX_DEPENDENCY_ROUNDS):
        missing = [requirement for name in wanted for requirement in _unsatisfied(name, folder) if _key(requirement) not in done]
        missing = list({_key(requirement): requirement for requirement in missing}.values())
        if not missing:
            return
        command = [*PIP_COMMAND, "install", "--no-deps", "--no-compile", "--disable-pip-version-check", "--quiet", "--upgrade", "--target", str(folder)]
        code, stderr = _run_pip([*command, *missing], spec)
        if code != 0:
            last = (stderr.strip().splitlines() or [f"pip exited with status {code}"])[-1]
            raise InfralensError(f"--against {spec}: pip could not install what the release needs ({', '.join(missing)}): {last}")
        done.update(_key(requirement) for requirement in missing)
        wanted = [_key(requirement) for requirement in missing]


def _key(requirement: str) -> str:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    return canonicalize_name(Requirement(requirement).name)


def _unsatisfied(name: str, folder: Path) -> list[str]:
    """Requirements of distribution *name* (as found in *folder*) that *folder* plus the environment do not satisfy."""
    import importlib.metadata

    from packaging.requirements import InvalidRequirement, Requirement

    search = [str(folder), *sys.path]
    found = next(iter(importlib.metadata.distributions(name=name, path=search)), None)
    if found is None:
        return []
    unsatisfied: list[str] = []
    for text in found.requires or ():
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        present = next(iter(importlib.metadata.distributions(name=requirement.name, path=search)), None)
        if present is not None and requirement.specifier.contains(present.version, prereleases=True):
            continue
        unsatisfied.append(f"{requirement.name}{requirement.specifier}")
    return unsatisfied


def _run_pip(command: list[str], spec: str) -> tuple[int, str]:
    """pip's exit code and stderr; on a timeout, Ctrl-C or SIGTERM pip is ended before this returns."""
    with sigterm_interrupts():
        try:
            pip = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        except OSError as error:
            raise InfralensError(f"--against {spec}: cannot run pip: {error}") from error
        try:
            _, stderr = pip.communicate(timeout=PIP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            end_processes([pip], 1.0)
            raise InfralensError(f"--against {spec}: pip took more than {PIP_TIMEOUT_S:g} s; nothing was installed") from None
        except BaseException:  # Ctrl-C or SIGTERM: pip must not outlive us
            end_processes([pip], 1.0)
            raise
    return pip.returncode, stderr


def on_releases(plan: Plan, annotations: tuple[Annotation, ...], releases: tuple[OtherRelease, ...]) -> Plan:
    """On another release, a target or statement it does not have is news about that release, not a broken note.

    Those resolution errors become warnings naming the release, and each step whose own statement is missing
    says which release lacks it (the annotation's other steps run as usual); every other finding keeps its severity.
    """
    from infralens.reports import UNRESOLVED
    from infralens.source import canonical_name

    names = {canonical_name(release.distribution): release for release in releases}
    by_file = {annotation.path: names.get(canonical_name(annotation.source)) for annotation in annotations}
    by_id = {annotation.id: names.get(canonical_name(annotation.source)) for annotation in annotations}

    def reworded(diagnostic: Diagnostic) -> Diagnostic:
        release = by_file.get(diagnostic.location.path)
        if release is None or diagnostic.code not in ("selector", "target") or diagnostic.severity is not Severity.ERROR:
            return diagnostic
        message = f"not in {release.distribution} {release.version}: {diagnostic.message}"
        hint = "the step is not-run on this release ('infralens check --against' says what became of it)"
        return replace(diagnostic, message=message, hint=hint, severity=Severity.WARNING)

    def named(step: PlannedStep) -> PlannedStep:
        release = by_id.get(step.annotation_id)
        if release is None or not step.problem or not step.problem.startswith(f"{UNRESOLVED}: "):
            return step
        why = step.problem.removeprefix(f"{UNRESOLVED}: ")
        return replace(step, problem=f"{UNRESOLVED}: not in {release.distribution} {release.version}: {why}")

    return replace(plan, steps=tuple(named(step) for step in plan.steps), diagnostics=tuple(reworded(d) for d in plan.diagnostics))

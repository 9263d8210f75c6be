"""``verify --against DIST==X.Y.Z``: the scenarios run on another release, installed into a cached folder of its own.

These need the package index (or the release's wheel already in the InfraLens cache); without it they skip.

Note: ``infralens.source`` exports a function ``normalize`` named like its submodule; importing the submodule first
(``install_release`` reaches it through the wheel cache) would leave the module where the resolver expects the
function, so the resolver is imported before anything else here.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _device import requires_torch

from infralens.cli import main
from infralens.errors import InfralensError
from infralens.hashing import sha256_file
from infralens.resolve import Resolver  # noqa: F401  before infralens.source.cache: see the note in the module docstring
from infralens.verify.run.against import install_release, parse_pin

RELEASE = "diffusers==0.38.0"
REPO = Path(__file__).resolve().parents[2]


def test_a_bad_pin_is_a_usage_error(capsys):
    with pytest.raises(InfralensError, match=r"expected DIST==X\.Y\.Z"):
        parse_pin("diffusers>=0.38")
    assert main(["verify", "--against", "diffusers", "--scenario", "tiny-sd-ddim"]) == 2
    assert "expected DIST==X.Y.Z" in capsys.readouterr().err


def _installed():
    try:
        return install_release(RELEASE)
    except InfralensError as error:
        pytest.skip(f"cannot install {RELEASE} (no package index reachable?): {error}")


def _project_diffusers() -> tuple[str, str]:
    """The project's own diffusers, as a fresh interpreter finds it: version and a hash of its __init__.py (found the way
    ``import diffusers`` would find it, without the seconds of importing it and torch)."""
    code = "import importlib.metadata, importlib.util; print(importlib.metadata.version('diffusers')); print(importlib.util.find_spec('diffusers').origin)"
    version, init = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    return version, sha256_file(init)


@pytest.mark.network
@pytest.mark.slow
@requires_torch
def test_against_runs_the_scenario_on_that_release_and_leaves_the_project_alone(tmp_path, capsys):
    release = _installed()
    assert release.version == "0.38.0" and (release.folder / "diffusers" / "__init__.py").is_file()
    before = _project_diffusers()
    report = tmp_path / "verify.json"
    code = main(["--project", str(REPO), "verify", "--device", "cpu", "--against", RELEASE, "--scenario", "tiny-sd-ddim", "--report", str(report)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and report.is_file(), out + err
    # a note whose statement 0.38.0 does not have is news about that release: a warning, and its step not-run
    assert "warning: not in diffusers 0.38.0:" in err and "error: " not in err.replace("error: step", ""), err
    assert code == 0, err
    data = json.loads(report.read_text())
    assert data["versions"]["diffusers"] == "0.38.0", data["versions"]
    assert data["scenarios"]["tiny-sd-ddim"]["status"] == "passed", data["scenarios"]
    ran = [step for step in data["steps"].values() if step["status"] == "passed"]
    assert ran and all(step["times_ran"] > 0 for step in ran)
    assert _project_diffusers() == before
    assert importlib.metadata.version("diffusers") == before[0] != "0.38.0"


SEA_CACHE_SCENARIO = '''
def run(device: str) -> None:
    """Uses a hook module diffusers added after 0.38.0."""
    from diffusers.hooks import sea_cache  # noqa: F401
    from diffusers.schedulers.scheduling_ddpm import DDPMScheduler

    DDPMScheduler()
'''

DDPM_ANNOTATION = """
id: ddpm-init
lab: 01-lab
source: diffusers
target: diffusers.schedulers.scheduling_ddpm.DDPMScheduler.__init__
summary: The DDPM scheduler's constructor.
scenario: newer-api
steps:
  - at: "self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)"
    note: The running product of the alphas.
"""


@pytest.mark.network
@requires_torch
def test_a_scenario_needing_an_api_the_release_lacks_is_not_run_with_the_reason(tmp_path, capsys):
    _installed()
    root = tmp_path / "project"
    (root / "labs" / "lab-01-lab").mkdir(parents=True)
    for relpath, text in {"annotations/diffusers/ddpm.yaml": DDPM_ANNOTATION, "scenarios/newer-api.py": SEA_CACHE_SCENARIO}.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(textwrap.dedent(text).lstrip("\n"))
    report = tmp_path / "verify.json"
    main(["--project", str(root), "verify", "--device", "cpu", "--against", RELEASE, "--report", str(report)])
    capsys.readouterr()
    data = json.loads(report.read_text())
    scenario = data["scenarios"]["newer-api"]
    assert scenario["status"] == "not-run", scenario
    assert "needs an API this release lacks" in scenario["error"] and "sea_cache" in scenario["error"]
    (step,) = data["steps"].values()
    assert step["status"] == "not-run" and "lacks" in step["reason"], step

"""Nothing machine-local is committed: ``fix`` names ``dist==version`` in a ``review:``, never the folder a release
was read from, and every report and lock of this repository holds no absolute path of a machine."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from drift_samples import ANNOTATION, OLD_CORE, OTHER

from infralens.cli import main
from infralens.portable import machine_paths, portable

REPO = Path(__file__).resolve().parents[2]
ABSOLUTE = re.compile(r"(?<![\w.<~])/(?:home|tmp|work|usr|root|Users)/|/(?:site|dist)-packages\b")
"""What a path of the machine that wrote a file looks like (written out here, independently of :mod:`infralens.portable`)."""


def test_a_deleted_target_is_flagged_with_the_release_not_the_folder(demo) -> None:
    old = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", ANNOTATION)
    assert main(["--project", str(demo.root), "--source", f"demo={old}", "lock"]) == 0
    new = demo.write_source("2.0", {"core.py": "import math\n\n\n" + OTHER})  # the class is gone
    assert main(["--project", str(demo.root), "--source", f"demo={new}", "fix"]) == 0
    text = (demo.root / "annotations" / "demo" / "sampler.yaml").read_text()
    reviews = re.findall(r"(?m)^ *review: (.*)$", text)
    assert len(reviews) == 4 and sum("not defined anywhere in demo==2.0 (was:" in review for review in reviews) == 3, reviews
    assert str(new) not in text and not ABSOLUTE.search(text), text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not defined anywhere in diffusers 0.42.1 (installed at /home/me/.venv/lib/python3.11/site-packages)", "not defined anywhere in diffusers==0.42.1"),
        ("demo 2.0 (/tmp/pytest-1/demo-2.0)", "demo==2.0"),
        ("installed at /usr/lib/python3/dist-packages", "installed at dist-packages"),
        ("read /root/.cache/infralens/wheels/diffusers-0.38.0-py3-none-any.whl", "read diffusers-0.38.0-py3-none-any.whl"),
        ("save_directory='/tmp/infralens-pipe-x'", "save_directory='<tmp>/infralens-pipe-x'"),
        ("/work/main/.venv/lib/python3.11/site-packages/diffusers/models/attention.py:12", "site-packages/diffusers/models/attention.py:12"),
    ],
)
def test_machine_paths_become_portable_text(text: str, expected: str) -> None:
    assert portable(text) == expected
    assert machine_paths(text) and not machine_paths(expected)


@pytest.mark.parametrize("text", ["https://github.com/a/b/blob/v1/src/x.py#L3", "diffusers/schedulers/x.py:12", "x / 2", "open('/etc/hosts')", "<tmp>/x"])
def test_other_text_is_kept(text: str) -> None:
    assert portable(text) == text and not machine_paths(text)


def _committed() -> list[Path]:
    lock = REPO / "annotations" / "annotations.lock"
    return sorted([*REPO.glob("annotations/**/*.yaml"), *REPO.glob("reports/*.json"), *([lock] if lock.exists() else [])])


def test_no_committed_annotation_report_or_lock_holds_an_absolute_path() -> None:
    files = _committed()
    assert len(files) > 20 and any(f.suffix == ".lock" for f in files) and any(f.parent.name == "reports" for f in files)
    found = []
    for path in files:
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if ABSOLUTE.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:160]}")
    assert not found, "\n".join(found[:20])

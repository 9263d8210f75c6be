"""``.pre-commit-hooks.yaml`` names real subcommands with the documented settings."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from infralens.cli import _load_extensions, build_parser

HOOKS = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"


def test_hooks_expose_validate_and_check():
    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text())}
    assert set(hooks) == {"infralens-validate", "infralens-check"}
    assert all(hook["language"] == "python" for hook in hooks.values())
    assert hooks["infralens-check"]["pass_filenames"] is False
    assert hooks["infralens-validate"]["pass_filenames"] is True
    _load_extensions()
    parser = build_parser()
    for hook, extra in ((hooks["infralens-validate"], ["annotations/x.yaml"]), (hooks["infralens-check"], [])):
        program, *argv = shlex.split(hook["entry"])
        assert program == "infralens"
        args = parser.parse_args(argv + extra)  # raises SystemExit if the subcommand or an option is unknown
        assert args.command == argv[0]

"""Upstream link templates: configured ones win; otherwise the repository the distribution's METADATA names."""

from __future__ import annotations

from pathlib import Path

from infralens.source import DirectoryTree
from infralens.sphinx.upstream import public_version, repository_url, upstream_templates


def test_a_labelled_source_url_beats_the_home_page():
    metadata = (
        "Metadata-Version: 2.1\nName: x\nVersion: 1.0\nHome-page: https://x.example.org\n"
        "Project-URL: Documentation, https://docs.example.org\nProject-URL: Source, https://github.com/owner/x.git\n"
    )
    assert repository_url(metadata) == "https://github.com/owner/x"


def test_a_home_page_on_a_code_host_is_used_and_other_hosts_are_not():
    assert repository_url("Name: y\nHome-page: https://github.com/huggingface/diffusers\n") == "https://github.com/huggingface/diffusers"
    assert repository_url("Name: y\nHome-page: https://pytorch.org\n") is None
    assert repository_url(None) is None and repository_url("") is None


def test_local_version_labels_are_not_part_of_a_tag():
    assert public_version("2.13.0+cpu") == "2.13.0" and public_version("0.42.1") == "0.42.1"


def _tree(tmp_path: Path, name: str, metadata: str | None) -> DirectoryTree:
    (tmp_path / name).mkdir(parents=True)
    (tmp_path / name / "__init__.py").write_text("")
    if metadata is not None:
        (tmp_path / f"{name}-1.0.dist-info").mkdir()
        (tmp_path / f"{name}-1.0.dist-info" / "METADATA").write_text(metadata)
    return DirectoryTree(tmp_path, name)


def test_templates_come_from_config_then_metadata_and_an_empty_template_means_no_link(tmp_path):
    linked = _tree(tmp_path / "a", "alpha", "Name: alpha\nVersion: 1.0\nProject-URL: Repository, https://gitlab.com/team/alpha\n")
    silent = _tree(tmp_path / "b", "beta", "Name: beta\nVersion: 1.0\n")
    switched_off = _tree(tmp_path / "c", "gamma", "Name: gamma\nVersion: 1.0\nHome-page: https://github.com/o/gamma\n")
    templates = upstream_templates({"gamma": ""}, {"alpha": linked, "beta": silent, "gamma": switched_off})
    assert templates == {"alpha": "https://gitlab.com/team/alpha/tree/v{public_version}"}

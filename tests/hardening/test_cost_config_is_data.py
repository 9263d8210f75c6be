"""``costs/models.yaml`` and ``--catalog`` are data: nothing they name runs, and the site build never computes costs.

A planted ``module:`` (an absolute path, ``/proc/self/cwd/...``, ``..`` parts, a link inside the diffsynth folder that
leads out) never executes its file: each planted file would write a canary. ``config_class`` comes from an
allow-list, loading keys such as ``trust_remote_code`` are refused, and the reader is bounded (regular file, size,
UTF-8, aliases, plain decimal numbers).
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest
from _deadline import deadline

from infralens.cli import main
from infralens.cost import CatalogError, ModelSpec, load_catalog

ROOT = Path(__file__).resolve().parents[2]
CANARY_CODE = "import pathlib; pathlib.Path({canary!r}).write_text('ran')\n"


def _catalog(folder: Path, model: str, *, name: str = "models.yaml") -> Path:
    """A catalog holding one model entry (*model*: its fields, indented under the id)."""
    path = folder / name
    path.write_text("models:\n  planted:\n" + textwrap.indent(textwrap.dedent(model).strip() + "\n", "    "), "utf-8")
    return path


def _planted_file(folder: Path, canary: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    planted = folder / "x.py"
    planted.write_text(CANARY_CODE.format(canary=str(canary)) + "class X:\n    pass\n", "utf-8")
    return planted


@pytest.mark.parametrize("kind", ["absolute", "proc-self-cwd", "dot-dot"])
def test_a_planted_module_path_never_runs(tmp_path, monkeypatch, capsys, kind):
    canary = tmp_path / "CANARY"
    planted = _planted_file(tmp_path / "labs", canary)
    module = {
        "absolute": f"diffsynth.{planted.with_suffix('')}",
        "proc-self-cwd": "diffsynth./proc/self/cwd/labs/x",
        "dot-dot": "diffsynth.models/" + "../" * 30 + str(planted.with_suffix("")).lstrip("/"),
    }[kind]
    catalog = _catalog(tmp_path, f"library: diffsynth\nmodule: {module}\nclass: X\nsource: s\nconfig: {{}}")
    monkeypatch.chdir(tmp_path)
    assert main(["cost", "--catalog", str(catalog), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert not canary.exists(), "the planted module ran"
    assert f"{catalog}:2:" in err and "not a dotted module name" in err and "Traceback" not in err


def _fake_diffsynth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, canary: Path) -> Path:
    """A diffsynth folder whose ``models/evil.py`` is a link to a planted file outside it."""
    import infralens.tiny.diffsynth_loader as loader

    root = tmp_path / "site" / "diffsynth"
    (root / "models").mkdir(parents=True)
    (root / "__init__.py").write_text(CANARY_CODE.format(canary=str(canary)), "utf-8")
    (root / "models" / "__init__.py").write_text(CANARY_CODE.format(canary=str(canary)), "utf-8")
    (root / "models" / "evil.py").symlink_to(_planted_file(tmp_path / "outside", canary))
    (root / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    monkeypatch.setattr(loader, "diffsynth_root", lambda: root)
    return root


@pytest.mark.parametrize("module", ["diffsynth.models.evil", "diffsynth.linked.x"])
def test_a_link_inside_the_diffsynth_folder_leading_out_is_refused_by_the_catalog(tmp_path, monkeypatch, module):
    canary = tmp_path / "CANARY"
    _fake_diffsynth(tmp_path, monkeypatch, canary)
    catalog = _catalog(tmp_path, f"library: diffsynth\nmodule: {module}\nclass: X\nsource: s\nconfig: {{}}")
    with pytest.raises(CatalogError, match=r"models\.yaml:2: .*leads outside the diffsynth package folder"):
        load_catalog(catalog)
    assert not canary.exists()


@pytest.mark.parametrize("module", ["diffsynth.models.evil", "diffsynth.linked.x", "diffsynth./proc/self/cwd/labs/x", "diffsynth.models..x"])
def test_the_loader_itself_refuses_a_module_outside_the_diffsynth_folder(tmp_path, monkeypatch, module):
    """Defence in depth: ``load_diffsynth_module`` (used by scenarios too) checks the name and the file before it registers or runs anything."""
    from infralens.tiny import load_diffsynth_module

    canary = tmp_path / "CANARY"
    _fake_diffsynth(tmp_path, monkeypatch, canary)
    _planted_file(tmp_path / "labs", canary)
    monkeypatch.chdir(tmp_path)
    before = set(sys.modules)
    with pytest.raises(ValueError, match="diffsynth"):
        load_diffsynth_module(module)
    assert not canary.exists()
    assert not {name for name in set(sys.modules) - before if name.startswith("diffsynth")}


def test_the_loader_still_finds_a_real_module_file_statically():
    from infralens.tiny import diffsynth_module_file, diffsynth_name_problem

    if importlib.util.find_spec("diffsynth") is None:
        pytest.skip("diffsynth is not installed")
    assert diffsynth_module_file("diffsynth.models.flux_dit").name == "flux_dit.py"
    assert diffsynth_name_problem("diffsynth.models.flux_dit") is None
    for bad in ("diffsynth", "os.path", "diffsynth.models.__init__", "diffsynth.class.x", "diffsynth.mödels", "diffsynth." + "a" * 300, 3):
        assert diffsynth_name_problem(bad) is not None, bad


TEXT_MODEL = """
library: transformers
class: CLIPTextModel
config_class: {config_class}
kind: text
source: s
sequence: 77
config:
  {config}
"""


@pytest.mark.parametrize("config_class", ["pipeline", "AutoConfig", "EncoderDecoderConfig", "PretrainedConfig", "os.system", "__import__"])
def test_a_config_class_off_the_allow_list_is_refused_when_the_catalog_is_read(tmp_path, config_class):
    catalog = _catalog(tmp_path, TEXT_MODEL.format(config_class=config_class, config="vocab_size: 8"))
    with pytest.raises(CatalogError, match=r"models\.yaml:2: model 'planted': 'config_class' must be one of"):
        load_catalog(catalog)


@pytest.mark.parametrize(
    "config",
    [
        "trust_remote_code: true",
        "trust_remote_code: true\n  model: ./labs/x",
        "auto_map: {AutoConfig: x.Config}",
        "_name_or_path: labs/x",
        "pretrained_model_name_or_path: labs/x",
        "attn_implementation: kernels-community/flash-attn",
        "text_config: {trust_remote_code: true}",
        "hidden_act: ../../labs/x",
        "hidden_act: https://example.com/x",
        "hidden_act: 2020-01-01",
        "scale: .inf",
    ],
)
def test_a_config_that_loads_or_is_not_plain_data_is_refused(tmp_path, config):
    catalog = _catalog(tmp_path, TEXT_MODEL.format(config_class="CLIPTextConfig", config=config))
    with pytest.raises(CatalogError, match=r"models\.yaml:2: model 'planted': "):
        load_catalog(catalog)


def test_trust_remote_code_is_refused_at_build_time_too():
    """A spec made in code (not read from a file) is checked again where the model is built."""
    pytest.importorskip("transformers")
    from infralens.cost.build import build_meta

    spec = ModelSpec("t", "transformers", "CLIPTextModel", "text", "s", (("trust_remote_code", True), ("vocab_size", 8)), config_class="CLIPTextConfig")
    with pytest.raises(CatalogError, match="trust_remote_code"):
        build_meta(spec)
    spec = ModelSpec("t", "transformers", "CLIPTextModel", "text", "s", (("vocab_size", 8),), config_class="AutoConfig")
    with pytest.raises(CatalogError, match="config_class"):
        build_meta(spec)


@pytest.mark.parametrize("class_name", ["ConfigMixin", "DiffusionPipeline"])
def test_a_class_that_is_not_a_model_class_is_never_called(class_name):
    pytest.importorskip("diffusers")
    from infralens.cost.build import upstream_class

    spec = ModelSpec("d", "diffusers", class_name, "none", "s", ())
    with pytest.raises(CatalogError, match=r"not a model class of diffusers \(a torch\.nn\.Module subclass\)"):
        upstream_class(spec)


def test_every_allow_listed_config_class_is_a_transformers_configuration():
    transformers = pytest.importorskip("transformers")
    from infralens.cost.rules import CONFIG_CLASSES

    assert CONFIG_CLASSES, "the allow-list of configuration classes is empty"
    for name in CONFIG_CLASSES:
        assert issubclass(getattr(transformers, name), transformers.PretrainedConfig), name


def _fake_directive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, catalog_text: str) -> tuple[types.SimpleNamespace, list[str]]:
    """A project with the committed report and *catalog_text* as its catalog, and a directive of its build; warnings collected."""
    import infralens.sphinx.cost as sphinx_cost

    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "cost.json").write_bytes((ROOT / "reports" / "cost.json").read_bytes())
    (tmp_path / "costs").mkdir()
    (tmp_path / "costs" / "models.yaml").write_text(catalog_text, "utf-8")
    settings = types.SimpleNamespace(reports_dir=tmp_path / "reports", project_root=tmp_path)
    warnings: list[str] = []
    monkeypatch.setattr(sphinx_cost, "catalog_for", lambda env: types.SimpleNamespace(settings=settings))
    monkeypatch.setattr(sphinx_cost, "warn", lambda message, *args, **kwargs: warnings.append(message))
    return types.SimpleNamespace(env=types.SimpleNamespace(), get_location=lambda: "page.md:1"), warnings


def _never(*args: object, **kwargs: object) -> None:
    raise AssertionError("the site build computed costs")


def test_a_stale_report_during_the_site_build_draws_the_committed_numbers_and_names_make_cost(tmp_path, monkeypatch):
    import infralens.cost.compute
    from infralens.sphinx.cost import _report

    monkeypatch.setattr(infralens.cost.compute, "compute_report", _never)
    changed = (ROOT / "costs" / "models.yaml").read_text("utf-8").replace("steps: 28", "steps: 30")
    directive, warnings = _fake_directive(tmp_path, monkeypatch, changed)
    report = _report(directive)
    assert report is not None and report.fingerprint == json.loads((ROOT / "reports" / "cost.json").read_text())["cost"]["fingerprint"]
    assert len(warnings) == 1 and "stale" in warnings[0] and "`make cost`" in warnings[0]


def test_a_planted_module_in_the_catalog_runs_nothing_during_the_site_build(tmp_path, monkeypatch):
    from infralens.sphinx.cost import _report

    canary = tmp_path / "CANARY"
    planted = _planted_file(tmp_path / "labs", canary)
    hostile = f"models:\n  planted:\n    library: diffsynth\n    module: diffsynth.{planted.with_suffix('')}\n    class: X\n    source: s\n    config: {{}}\n"
    directive, warnings = _fake_directive(tmp_path, monkeypatch, hostile)
    report = _report(directive)
    assert not canary.exists(), "the site build ran the planted module"
    assert report is not None and report.model("flux1-dev-transformer") is not None
    assert len(warnings) == 1 and "`make cost`" in warnings[0] and "models.yaml:2" in warnings[0]


def test_checking_the_report_in_the_site_build_imports_no_model_code(tmp_path):
    """In a fresh process: reading the report and checking it against a changed catalog imports neither torch nor any model library."""
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "cost.json").write_bytes((ROOT / "reports" / "cost.json").read_bytes())
    (tmp_path / "costs").mkdir()
    (tmp_path / "costs" / "models.yaml").write_text((ROOT / "costs" / "models.yaml").read_text("utf-8") + "# changed\n", "utf-8")
    code = textwrap.dedent(
        f"""
        import sys, types
        import infralens.sphinx.cost as c
        settings = types.SimpleNamespace(reports_dir={str(tmp_path / "reports")!r}, project_root=None)
        import pathlib
        settings.reports_dir = pathlib.Path(settings.reports_dir); settings.project_root = pathlib.Path({str(tmp_path)!r})
        c.catalog_for = lambda env: types.SimpleNamespace(settings=settings)
        said = []
        c.warn = lambda message, *a, **k: said.append(message)
        report = c._report(types.SimpleNamespace(env=types.SimpleNamespace(), get_location=lambda: "p.md:1"))
        print(report is not None, len(said), sorted(m for m in ("torch", "diffusers", "transformers", "diffsynth") if m in sys.modules))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "1", "[]"]


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _cost_cli(args: list[str], cwd: Path, timeout: int = 30) -> subprocess.CompletedProcess[str]:
    code = "import sys; from infralens.cli import main; sys.exit(main(sys.argv[1:]))"
    try:
        return subprocess.run(
            [sys.executable, "-c", code, "cost", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, preexec_fn=_limited
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"infralens cost {' '.join(args)} was still running after {timeout}s")


def test_catalog_dev_zero_is_refused_at_once(tmp_path):
    done = _cost_cli(["--catalog", "/dev/zero"], tmp_path)
    assert done.returncode == 2 and "/dev/zero: cannot read: it is a device, not a regular file" in done.stderr


def test_catalog_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "models.yaml"
    os.mkfifo(fifo)
    with deadline(10), pytest.raises(CatalogError, match="FIFO"):
        load_catalog(fifo)


def test_catalog_alias_bomb_is_refused_fast(tmp_path):
    lines = ["models:", "  planted:", "    library: diffusers", "    class: AutoencoderKL", "    source: s", "    config:"]
    lines.append("      a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]")
    lines += [f"      a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    bomb = tmp_path / "models.yaml"
    bomb.write_text("\n".join(lines) + "\n", "utf-8")
    done = _cost_cli(["--catalog", str(bomb), "--format", "json"], tmp_path, timeout=30)
    assert done.returncode == 2 and f"{bomb}:" in done.stderr and "aliases expand to too many values" in done.stderr, done.stderr


def test_a_catalog_that_is_not_utf8_names_its_line(tmp_path):
    catalog = tmp_path / "models.yaml"
    catalog.write_bytes(b"models:\n  m:\n    source: caf\xe9\n")
    with pytest.raises(CatalogError, match=r"models\.yaml:3: not valid UTF-8"):
        load_catalog(catalog)


VAE = "library: diffusers\nclass: AutoencoderKL\nkind: vae\nsource: s\n{field}\nconfig:\n  latent_channels: {channels}"


@pytest.mark.parametrize(
    ("field", "channels"),
    [
        ("published_params: 0x10", "4"),
        ("published_params: 1_000", "4"),
        ("published_params: 0o17", "4"),
        ("published_params: 0b101", "4"),
        ("published_params: 017", "4"),
        ("published_params: 1:30", "4"),
        ("published_params: true", "4"),
        ("published_params: " + "9" * 5000, "4"),
        ("published_params: " + "9" * 40, "4"),
        ("sequence: 7_7", "4"),
        ("published_params: 1", "0x10"),
        ("published_params: 1", "1_6"),
        ("published_params: 1", "9" * 30),
    ],
)
def test_number_fields_take_only_plain_decimals_within_bounds(tmp_path, field, channels):
    catalog = _catalog(tmp_path, VAE.format(field=field, channels=channels))
    with pytest.raises(CatalogError, match=r"models\.yaml:(2|7): "):  # 7: a number too long to convert, refused by the YAML reader at its own line
        load_catalog(catalog)


@pytest.mark.parametrize("change", [("steps: 28", "steps: 0x1c"), ("steps: 28", "steps: true"), ("[512, 512]", "[0x200, 512]"), ("cfg: false", "cfg: 0")])
def test_pipeline_numbers_take_only_plain_decimals(tmp_path, change):
    catalog = tmp_path / "models.yaml"
    catalog.write_text((ROOT / "costs" / "models.yaml").read_text("utf-8").replace(*change), "utf-8")
    with pytest.raises(CatalogError, match=r"models\.yaml:\d+: pipeline "):
        load_catalog(catalog)


def test_an_unknown_key_in_a_model_is_refused(tmp_path):
    catalog = _catalog(tmp_path, VAE.format(field="trust_remote_code: true", channels="4"))
    with pytest.raises(CatalogError, match="unknown key 'trust_remote_code'"):
        load_catalog(catalog)

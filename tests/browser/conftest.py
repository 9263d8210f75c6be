"""Real-browser fixtures: Debian's chromium driven by Playwright, a local http.server per site."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]


FRESH_MACHINE_FONTS = "DejaVu*"
"""The fonts a fresh Debian 12 machine has (fonts-dejavu): the browser sees only these, whatever else is installed."""


def fresh_machine_fontconfig(folder: Path) -> dict[str, str]:
    """Environment for chromium whose fontconfig accepts only the DejaVu font files (and the folders above them).

    Pages are laid out with a fresh machine's fonts, so a layout that only fits one installed font fails here
    as it would for a new learner. The system configuration is included; its other fonts are rejected.
    """
    fonts = sorted(Path("/usr/share/fonts").rglob(f"{FRESH_MACHINE_FONTS}.ttf"))
    if not fonts:
        pytest.skip("no DejaVu fonts under /usr/share/fonts: apt-get install fonts-dejavu-core")
    folders = sorted({str(parent) for font in fonts for parent in font.parents if str(parent).startswith("/usr/share/fonts")})
    accepted = "".join(f"<glob>{folder}</glob>" for folder in folders) + "".join(f"<glob>{font}</glob>" for font in fonts)
    config = folder / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig>\n'
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"  <selectfont><acceptfont>{accepted}</acceptfont><rejectfont><glob>/*</glob></rejectfont></selectfont>\n"
        "</fontconfig>\n",
        encoding="utf-8",
    )
    return {**os.environ, "FONTCONFIG_FILE": str(config)}


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found: run 'make browser-setup' (apt-get install chromium, as root)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright (python) is not installed: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, env=fresh_machine_fontconfig(tmp_path_factory.mktemp("fonts"))
            )
        except Exception as error:  # a broken chromium install: say so instead of failing obscurely
            pytest.skip(f"{CHROMIUM} does not start: {error}")
        yield chromium
        chromium.close()


def build_site(srcdir: Path, outdir: Path) -> Path:
    """Build ``srcdir`` into ``outdir`` with sphinx-build; fail with its output if it breaks."""
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "--keep-going", "-b", "html", str(srcdir), str(outdir)], capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return outdir


@pytest.fixture(scope="session")
def basic_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser") / "test-basic"
    shutil.copytree(REPO / "tests" / "sphinx" / "roots" / "test-basic", root)
    return build_site(root, root / "_build" / "html")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def serve() -> Iterator:
    """``serve(folder) -> base URL``: one python -m http.server on 127.0.0.1 per folder, started when first asked
    and kept for the session (a server only reads the folder: each test's pages come from a fresh browser context)."""
    servers: list[subprocess.Popen] = []
    urls: dict[Path, str] = {}

    def start(folder: Path) -> str:
        folder = Path(folder).resolve()
        if folder not in urls:
            urls[folder] = _start(folder)
        return urls[folder]

    def _start(folder: Path) -> str:
        port = _free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        servers.append(process)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return f"http://127.0.0.1:{port}"
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("http.server did not start")

    yield start
    for process in servers:
        process.terminate()
        process.wait(timeout=10)

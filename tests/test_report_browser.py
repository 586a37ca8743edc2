"""The report in a real browser: headless Chromium opens it from disk, the leaderboard has one
row per run, every image decodes, nothing logs an error; a screenshot is kept.

Chromium (Debian packages chromium and chromium-driver) is installed on first use only when
running as root with apt-get and a network; otherwise these tests skip with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.data.examples import example_paths

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
#: Appended to a copy of the page only: counts the images that decoded once all have loaded,
#: so --dump-dom shows the result. The report itself carries no script.
PROBE = """<script>window.addEventListener("load", () => {
  const imgs = [...document.images];
  document.body.dataset.images = imgs.length;
  document.body.dataset.loaded = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
});</script>"""


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _try_install() -> str:
    """Install chromium with apt-get where that is possible; the reason it is not, if not."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return "not root or no apt-get"
    install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium",
               "chromium-driver"]
    try:
        r = subprocess.run(install, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:  # stale package lists on a fresh machine: refresh once
            subprocess.run(["apt-get", "update"], capture_output=True, timeout=300)
            r = subprocess.run(install, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "apt-get timed out (no network?)"
    return "" if r.returncode == 0 else f"apt-get install failed: {r.stderr.strip()[-200:]}"


@pytest.fixture(scope="session")
def chromium() -> str:
    path = _chromium()
    if path is None:
        reason = _try_install()
        path = _chromium()
        if path is None:
            pytest.skip(f"headless Chromium unavailable ({reason or 'not found after install'});"
                        " install the Debian packages chromium and chromium-driver")
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    qrels, runs = example_paths()
    out = folder / "report.html"
    r = CliRunner().invoke(main, ["report", qrels, *runs, "-m", "nDCG@10", "-m", "P@5", "-b",
                                  "200", "--topic-panels", "2", "-o", str(out), "-j", "1"])
    assert r.exit_code == 0, r.output
    return out


def _browse(chromium: str, page: Path, *extra: str) -> subprocess.CompletedProcess:
    profile = page.parent / f"profile-{len(list(page.parent.iterdir()))}"
    profile.mkdir()
    return subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", *extra,
                           page.resolve().as_uri()], capture_output=True, text=True,
                          timeout=120)


def test_structure_images_and_console(chromium, report):
    probed = report.with_name("probed.html")
    probed.write_text(report.read_text().replace("</body>", PROBE + "</body>"))
    r = _browse(chromium, probed, "--dump-dom", "--virtual-time-budget=5000",
                "--enable-logging=stderr", "--v=0")
    dom = r.stdout
    assert r.returncode == 0 and "<html" in dom, r.stderr[-500:]
    boards = re.findall(r'<table id="leaderboard-[^"]+">(.*?)</table>', dom, re.S)
    assert len(boards) == 2
    for body in boards:
        assert len(re.findall(r'<tr class="run', body)) == len(example_paths()[1])
    n = int(re.search(r'data-images="(\d+)"', dom).group(1))
    assert n == 2 + 2 + 2  # two leaderboards, two collection figures, two panels
    assert re.search(r'data-loaded="(\d+)"', dom).group(1) == str(n)
    console = [x for x in r.stderr.splitlines() if "CONSOLE" in x or "Uncaught" in x]
    assert console == []
    for section in ("leaderboard", "pairs", "topics", "collection", "reproducibility"):
        assert f'id="{section}"' in dom


def test_screenshot(chromium, report):
    shot = report.with_name("shot.png")
    r = _browse(chromium, report, f"--screenshot={shot}", "--window-size=1280,2000")
    assert r.returncode == 0, r.stderr[-500:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000  # a page, not a blank

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
    boards = re.findall(r'<table id="leaderboard-[^"]+" class="board">(.*?)</table>', dom, re.S)
    assert len(boards) == 2
    for body in boards:
        assert len(re.findall(r'<tr class="run', body)) == len(example_paths()[1])
    n = int(re.search(r'data-images="(\d+)"', dom).group(1))
    assert n == 2 + 2 + 2  # two leaderboards, two collection figures, two panels
    assert re.search(r'data-loaded="(\d+)"', dom).group(1) == str(n)
    console = [x for x in r.stderr.splitlines() if "CONSOLE" in x or "Uncaught" in x]
    assert console == []
    for section in ("verdict", "leaderboard", "pairs", "topics", "collection",
                    "reproducibility"):
        assert f'id="{section}"' in dom


#: Appended to a copy of the page only: how wide the page and the widest table are, and which
#: images show smaller than they are, once everything has loaded.
WIDTH_PROBE = """<script>window.addEventListener("load", () => {
  const d = document.body.dataset;
  d.viewport = window.innerWidth;
  d.scrollWidth = document.documentElement.scrollWidth;
  d.widestTable = Math.max(...[...document.querySelectorAll("table")].map(
    t => t.getBoundingClientRect().width));
  d.shrunk = [...document.images].filter(i => i.width < i.naturalWidth).length;
});</script>"""

LONG = "a_run_name_much_longer_than_any_column_would_like_" * 3  # no place to break


@pytest.fixture(scope="module")
def wide_report(tmp_path_factory) -> Path:
    """The demo's runs, one of them with a 150-character name: its tables are wider than an
    800 px page."""
    from unjudged.analysis.report_data import build_report
    from unjudged.io import read_qrels, read_run
    from unjudged.report.html import render_report

    qrels, runs = example_paths()
    q = read_qrels(qrels)
    rs = [read_run(p, name=LONG if i == 0 else None, qrels=q) for i, p in enumerate(runs)]
    page = render_report(build_report(rs, q, ["nDCG@10", "P@5"], b=50, topic_panels=1),
                         {"command": "unjudged report " + " ".join(map(str, runs))})
    out = tmp_path_factory.mktemp("wide") / "wide.html"
    out.write_text(page.html)
    return out


def _measure(chromium: str, page: Path, width: int) -> dict[str, float]:
    probed = page.with_name(f"width-{width}-{page.name}")
    probed.write_text(page.read_text().replace("</body>", WIDTH_PROBE + "</body>"))
    r = _browse(chromium, probed, "--dump-dom", "--virtual-time-budget=5000",
                f"--window-size={width},1000")
    assert r.returncode == 0, r.stderr[-500:]
    found = dict(re.findall(r'data-([a-z-]+)="([\d.]+)"', r.stdout))
    return {k: float(found[k]) for k in ("viewport", "scroll-width", "widest-table", "shrunk")}


@pytest.mark.parametrize("width", [800, 1280])
def test_fits_the_window(chromium, report, wide_report, width):
    """Nothing makes the page wider than the window: wide tables scroll inside their box, and
    no figure is shown smaller than it is drawn (its 9-10 px labels stay that size)."""
    for page in (report, wide_report):
        m = _measure(chromium, page, width)
        assert m["viewport"] == width
        assert m["scroll-width"] <= width, (page.name, m)
        assert m["shrunk"] == 0, (page.name, m)
    if width == 800:  # the test has teeth: this table is wider than the page, in its box
        assert m["widest-table"] > width


def test_screenshot(chromium, report):
    shot = report.with_name("shot.png")
    r = _browse(chromium, report, f"--screenshot={shot}", "--window-size=1280,2000")
    assert r.returncode == 0, r.stderr[-500:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000  # a page, not a blank


#: Appended to a copy of the page only: where the leaderboard's key columns end, how tall the
#: page is, which section comes first and how many rows are highlighted.
KEY_PROBE = """<script>window.addEventListener("load", () => {
  const d = document.body.dataset;
  const board = document.querySelector("table[id^=leaderboard]");
  const heads = [...board.querySelectorAll("th")];
  const keys = ["rank", "run", "score", "90% lo", "90% hi", "rank lo", "rank hi",
                "uncertain vs", "reversed vs", "Judged@k"];
  d.keyRight = Math.max(...heads.filter(h => keys.includes(h.textContent)).map(
    h => h.getBoundingClientRect().right));
  d.keyCount = heads.filter(h => keys.includes(h.textContent)).length;
  d.verdictFirst = Number(document.getElementById("verdict").getBoundingClientRect().top <
    document.getElementById("leaderboard").getBoundingClientRect().top);
  d.marked = board.querySelectorAll("tr.mark").length;
  d.markColour = getComputedStyle(board.querySelector("tr.mark td") || board).backgroundColor
    === "rgb(255, 226, 184)" ? 1 : 0;
});</script>"""


@pytest.mark.parametrize("width", [800])
def test_key_columns_and_verdict_in_view(chromium, report, wide_report, width):
    """At 800 px the leaderboard's key columns (rank, run, score, its 90% interval, the rank
    interval, the order counts, Judged@k) end inside the window, even next to a 150-character
    run name (it wraps); the verdict comes before the leaderboard; only the rows the data
    marks for attention are highlighted."""
    from unjudged.analysis.report_data import build_report
    from unjudged.io import read_qrels, read_run

    for page in (report, wide_report):
        probed = page.with_name(f"keys-{page.name}")
        probed.write_text(page.read_text().replace("</body>", KEY_PROBE + "</body>"))
        r = _browse(chromium, probed, "--dump-dom", "--virtual-time-budget=5000",
                    f"--window-size={width},1000")
        found = dict(re.findall(r'data-([a-z-]+)="([\d.]+)"', r.stdout))
        assert found["key-count"] == "10" and found["verdict-first"] == "1", found
        assert float(found["key-right"]) <= width, (page.name, found)
    # the wide page's data: its highlighted rows are exactly those a reversed order involves
    qrels, runs = example_paths()
    q = read_qrels(qrels)
    rs = [read_run(p, name=LONG if i == 0 else None, qrels=q) for i, p in enumerate(runs)]
    d = build_report(rs, q, ["nDCG@10", "P@5"], b=50, topic_panels=1)
    assert int(found["marked"]) == sum(r["attention"] for r in d.leaderboards["nDCG@10"])

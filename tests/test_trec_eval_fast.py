"""`python -m unjudged trec_eval` parses plain command lines without click (cli._fast): the
same output, errors and exit codes as click's command, for every form it takes and for those
it leaves to click."""

from __future__ import annotations

import subprocess
import sys

import pytest

from shared_data import TREC_EVAL, need
from unjudged.cli._fast import parse

CLICK = "from unjudged.cli import main\nmain(prog_name='python -m unjudged')"


def _both(args: list[str]):
    fast = subprocess.run([sys.executable, "-m", "unjudged", "trec_eval", *args],
                          capture_output=True)
    slow = subprocess.run([sys.executable, "-c", CLICK, "trec_eval", *args], capture_output=True)
    return fast, slow


@pytest.mark.parametrize("flags", [
    [], ["-q"], ["-q", "-c", "-n"], ["-m", "P.5,10", "-mmap", "-m", "ndcg_cut.10"],
    ["-mndcg.1=3,2=9"], ["-M", "10", "-l", "2", "-J"], ["--ties", "trec_eval9"],
    ["--ties=trec_eval9", "-q"], ["-m", "all_trec", "-c"], ["-m", "official", "-M", " 7"],
    # errors: the library's (exit 2) and click's usage (fast parse declines)
    ["-m", "nosuch"], ["-M", "-1"], ["-M", str(2**63)], ["-l", "x"], ["-R", "bad"],
    ["-qc"], ["-m"], ["extra"], ["-h"], ["-Z", "/nonexistent"], ["--", "-q"],
    ["-l", "2", "-l", "3"], ["-m=P.5"],
])
def test_fast_and_click_agree(flags):
    data = need(TREC_EVAL)
    qrels, run = str(data / "qrels.test"), str(data / "results.test")
    fast, slow = _both([*flags, qrels, run])
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (slow.returncode, slow.stdout, slow.stderr)


def test_missing_files_and_order_agree(tmp_path):
    data = need(TREC_EVAL)
    for args in ([str(tmp_path / "none"), str(data / "results.test")],
                 [str(data / "qrels.test")], [str(data / "qrels.test"), "-q",
                                              str(data / "results.test")]):
        fast, slow = _both(args)
        assert (fast.returncode, fast.stdout, fast.stderr) == \
            (slow.returncode, slow.stdout, slow.stderr)


def test_plain_call_matches_out_test_without_click():
    data = need(TREC_EVAL)
    code = ("import runpy, sys\nsys.argv = ['unjudged', 'trec_eval', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('unjudged', run_name='__main__')\n"
            "except SystemExit as e:\n    assert e.code == 0, e.code\n"
            "print('click' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, str(data / "qrels.test"),
                          str(data / "results.test")], capture_output=True, text=True)
    assert out.stdout == (data / "out.test").read_text()
    assert out.stderr.strip() == "False"


def test_parse_reads_as_click_does():
    p = parse(["-m", "P.5", "q", "-q", "r", "-M", "3", "--ties", "trec_eval9"])
    assert p is not None
    assert (p["qrels"], p["run"], p["measures"], p["per_query"], p["depth"], p["ties"]) == \
        ("q", "r", ["P.5"], True, 3, "trec_eval9")
    assert parse(["-", "r"])["qrels"] == "-"  # type: ignore[index]
    for declined in (["q", "r", "s"], ["-x", "q", "r"], ["--ties", "docno", "q", "r"],
                     ["-R", "prefs", "-R", "qrels", "q", "r"]):
        assert parse(declined) is None


def test_console_script_takes_the_plain_path_too():
    """The installed `unjudged` script enters through cli.entry (pyproject's
    [project.scripts]), which tries the plain trec_eval path before click."""
    from pathlib import Path

    import tomllib

    data = need(TREC_EVAL)
    root = Path(__file__).resolve().parent.parent
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"unjudged": "unjudged.cli:entry"}
    code = ("import sys\nsys.argv = ['unjudged', 'trec_eval', *sys.argv[1:]]\n"
            "from unjudged.cli import entry\n"
            "try:\n    entry()\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n"
            "print('click' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, str(data / "qrels.test"),
                          str(data / "results.test")], capture_output=True, text=True)
    assert out.stdout == (data / "out.test").read_text()
    assert out.stderr.strip() == "False"
    # anything else is click's: its usage error, exit 2
    code = ("import sys\nsys.argv = ['unjudged', 'trec_eval', 'only-one-file']\n"
            "from unjudged.cli import entry\nentry()")
    bad = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert bad.returncode == 2 and "Usage:" in bad.stderr

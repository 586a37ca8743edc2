"""Issue 19, item 6: the small things a first day hits on the command line (README order, the
bench extra of the diversity evidence, make demo, eval without -m, one bootstrap default, full
precision in tsv/csv, progress lines when stderr is not a terminal)."""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from shared_data import TREC_EVAL, need
from unjudged.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_readme_creates_every_file_before_using_it():
    """No README example reads a file that a later example writes with -o."""
    from test_docs_examples import examples

    readme = [e for e in examples() if e.source.startswith("README.md:")]
    for i, ex in enumerate(readme):
        args = list(ex.args)
        for flag in ("-o", "--output"):
            if flag in args:
                made = args[args.index(flag) + 1]
                early = [str(e) for e in readme[:i] if made in e.args]
                assert early == [], f"{ex.source} writes {made}, used before by {early}"
    lines = [str(e) for e in readme]
    assert lines.index("unjudged qrels filter qrels-rnd2.txt --iteration 1.5 -o js15.txt") \
        < lines.index("unjudged qrels stats qrels-rnd1.txt js15.txt")


def test_diversity_evidence_says_how_to_install_bm25s():
    doc = (ROOT / "docs" / "diversity-sampling.md").read_text(encoding="utf-8")
    first = doc.index("python benchmarks/diversity_runs.py")
    assert doc.rfind("pip install -e '.[bench]'", 0, first) > doc.rfind("```sh", 0, first)
    assert "it needs [bm25s](https://github.com/xhluca/bm25s), which `unjudged` does not " \
        "install: run\n`pip install -e '.[bench]'`" in doc
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^bench = \[.*"bm25s".*\]$', pyproject, re.M)


def _make_n(target: str, venv: Path) -> list[str]:
    out = subprocess.run(["make", "-n", "-C", str(ROOT), target, f"VENV={venv}"],
                         capture_output=True, text=True, check=True)
    return [x for x in out.stdout.splitlines() if not x.startswith("make")]


def test_make_demo_installs_only_the_package(tmp_path):
    venv = tmp_path / "v"
    assert _make_n("demo", venv) == [
        f"python3.11 -m venv {venv} || python3 -m venv {venv}",
        f"{venv}/bin/python -m pip install --quiet --upgrade pip",
        f"{venv}/bin/python -m pip install --quiet -e .",
        f"touch {venv}/.installed",
        f"{venv}/bin/unjudged demo",
    ]
    assert _make_n("test", venv) == [
        f"python3.11 -m venv {venv} || python3 -m venv {venv}",
        f"{venv}/bin/python -m pip install --quiet --upgrade pip",
        f"{venv}/bin/python -m pip install --quiet -e '.[test]'",
        f"touch {venv}/.installed-test",
        f"{venv}/bin/ruff check src tests benchmarks",
        f"{venv}/bin/mypy",
        f"{venv}/bin/lint-imports",
        f"{venv}/bin/python -m pytest -q -n 2 --dist loadfile",
    ]


def test_eval_without_measures_is_trec_evals_default_set():
    """`eval` without -m gives trec_eval 10's default output (test/out.test: `trec_eval
    test/qrels.test test/results.test`), all 28 values but runid and num_q."""
    data = need(TREC_EVAL)
    result = CliRunner().invoke(main, ["eval", str(data / "qrels.test"),
                                       str(data / "results.test"), "-f", "jsonl"])
    assert result.exit_code == 0, result.output
    got = [json.loads(x) for x in result.stdout.splitlines()]
    expected = [line.split("\t") for line in (data / "out.test").read_text().splitlines()]
    expected = [(name.strip(), value) for name, _all, value in expected[2:]]  # runid, num_q
    assert len(got) == len(expected) == 28
    assert [str(r["value"]) if isinstance(r["value"], int) else f"{r['value']:.4f}"
            for r in got] == [value for _name, value in expected]
    assert [name for name, _value in expected][:8] == [
        "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"]
    assert [r["measure"] for r in got][:8] == ["NumRet", "NumRel", "NumRelRet", "AP", "GMAP",
                                               "Rprec", "Bpref", "RR"]
    helped = " ".join(CliRunner().invoke(main, ["eval", "--help"]).stdout.split())
    assert ("Without -m: trec_eval's default measures (its 'official' set, as `unjudged "
            "trec_eval` prints them)") in helped


def test_one_bootstrap_default():
    from unjudged.cli.report import write_report

    defaults = {name: next(p.default for p in main.commands[name].params if p.name == "b")
                for name in ("eval", "estimate", "report")}
    assert defaults == {"eval": 10_000, "estimate": 10_000, "report": 10_000}
    assert write_report.__kwdefaults__["b"] == 10_000
    helped = " ".join(CliRunner().invoke(main, ["report", "--help"]).stdout.split())
    assert ("Bootstrap iterations (the same default in eval, estimate and report). "
            "[default: 10000; x>=1]") in helped


def _tiny(tmp_path: Path) -> tuple[str, str]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n2 0 d 1\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 c 3 1 r\n2 Q0 d 1 2 r\n2 Q0 y 2 1 r\n")
    return str(qrels), str(run)


def test_tsv_and_csv_keep_full_precision(tmp_path):
    qrels, run = _tiny(tmp_path)
    base = ["eval", qrels, run, "-m", "AP", "-m", "NumRet", "-q"]
    jsonl = [json.loads(x) for x in CliRunner().invoke(main, base + ["-f", "jsonl"])
             .stdout.splitlines()]
    tsv = CliRunner().invoke(main, base + ["-f", "tsv"]).stdout.splitlines()
    assert tsv == ["run\ttopic\tmeasure\tvalue"] + [
        f"r\t{r['topic']}\t{r['measure']}\t{r['value']!r}" for r in jsonl]
    assert "r\t1\tAP\t0.8333333333333333" in tsv and "r\tall\tNumRet\t5" in tsv
    csv = CliRunner().invoke(main, base + ["-f", "csv"]).stdout.splitlines()
    assert "r,all,AP,0.6666666666666666" in csv
    table = CliRunner().invoke(main, ["eval", qrels, run, "-m", "AP"]).stdout.splitlines()
    assert table == ["run      AP", "r    0.6667"]
    trec = CliRunner().invoke(main, ["eval", qrels, run, "-m", "AP", "-f", "trec"]).stdout
    assert trec == "AP                    \tall\t0.6667\n"
    est = CliRunner().invoke(main, ["estimate", qrels, run, "-m", "AP", "--methods",
                                    "nonrel,upper", "-f", "tsv"]).stdout.splitlines()
    assert est[1].split("\t")[:5] == ["r", "all", "AP", "nonrel", "0.6666666666666666"]


def test_progress_lines_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    """The executors and the commands log `unjudged: DESC: n/total UNIT (p%), s s` lines where
    a terminal would show a bar: at most every PROGRESS_EVERY seconds, and at the end."""
    from unjudged.parallel import SerialExecutor, base

    assert base.PROGRESS_EVERY == 10.0
    ticks = iter(range(0, 1000, 4))
    monkeypatch.setattr("time.monotonic", lambda: next(ticks))
    assert SerialExecutor().map(abs, range(-5, 0), desc="sampling") == [5, 4, 3, 2, 1]
    # start 0; updates at 4, 8, 12 (line), 16, 20; every 10 s: lines at 12 and 24 (the end)
    assert capsys.readouterr().err.splitlines() == [
        "unjudged: sampling: 3/5 (60%), 12 s",
        "unjudged: sampling: 5/5 (100%), 24 s",
    ]
    assert SerialExecutor().map(abs, [-1], desc="quick") == [1]
    assert capsys.readouterr().err == ""  # finished within 10 s: nothing
    assert SerialExecutor().map(abs, range(-5, 0)) == [5, 4, 3, 2, 1]
    assert capsys.readouterr().err == ""  # no desc: no progress


def test_progress_log_of_a_command(monkeypatch, tmp_path):
    """`eval --unjudged upper` piped: the estimating progress shows with a small interval."""
    from unjudged.parallel import base

    monkeypatch.setattr(base, "PROGRESS_EVERY", 0.0)
    qrels, run = _tiny(tmp_path)
    result = CliRunner().invoke(main, ["eval", qrels, run, "-m", "AP", "--unjudged", "upper"])
    assert result.exit_code == 0, result.output
    assert re.fullmatch(r"unjudged: estimating: 1 runs, \d+ s\n", result.stderr)
    out = io.StringIO()
    log = base.ProgressLog(143, "estimating", unit="runs", every=10, stream=out,
                           clock=iter([0, 12, 13]).__next__)
    log.update(40)
    log.close()
    assert out.getvalue() == "unjudged: estimating: 40/143 runs (28%), 12 s\n"


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_rows_keep_full_precision(fmt):
    from unjudged.report.rows import render_rows

    text = render_rows([{"run": "a", "x": 0.1 + 0.2, "n": 3}], ["run", "x", "n"], fmt)
    sep = "\t" if fmt == "tsv" else ","
    assert text.splitlines() == [sep.join(["run", "x", "n"]),
                                 sep.join(["a", "0.30000000000000004", "3"])]

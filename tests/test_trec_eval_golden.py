"""`unjudged trec_eval` must print exactly what trec_eval 10 prints (EXPECTED.md's cases)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from shared_data import TREC_EVAL, need
from unjudged.cli import main

MEAS_PARAMS = ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3",
               "-m", "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0",
               "-m", "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4",
               "-msuccess.2,5,20"]

CASES = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level",
                      "results.test"]),
    ("out.test.meas_params", MEAS_PARAMS + ["qrels.test", "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test",
                      "results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test",
                        "prefs.results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test",
                        "prefs.results.test"]),
    ("out.test.qrels_prefs", ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test",
                              "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123",
                           "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123",
                           "results.test"]),
]


def test_all_fifteen_cases_of_expected_md():
    """Every case EXPECTED.md lists is one of CASES (15 runs of trec_eval 10's test suite)."""
    folder = need(TREC_EVAL)
    rows = [line for line in (folder.parent / "EXPECTED.md").read_text().splitlines()
            if line.startswith("| test/out")]
    assert len(rows) == len(CASES) == 15
    listed = sorted((r.split("|")[1].strip()[len("test/"):],
                     r.split("|")[2].strip().strip("`").replace("test/", "")) for r in rows)
    ours = sorted((e, " ".join(a)) for e, a in CASES)
    assert [e for e, _ in listed] == [e for e, _ in ours]


@pytest.mark.parametrize("expected,args", CASES, ids=[f"{c[0]}:{c[1][-2]}" for c in CASES])
def test_byte_identical(expected, args, monkeypatch):
    folder = need(TREC_EVAL)
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(main, ["trec_eval", *args])
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == (folder / expected).read_bytes()


def test_nosummary_drops_all_lines(monkeypatch):
    folder = need(TREC_EVAL)
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(main, ["trec_eval", "-q", "-n", "qrels.test", "results.test"])
    lines = result.stdout.splitlines()
    assert lines and all("\tall\t" not in line for line in lines)
    assert lines[0] == "num_ret               \t301\t500"


def test_judged_only_removes_unjudged(monkeypatch, tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 x 1 3 t\n1 Q0 a 2 2 t\n1 Q0 b 3 1 t\n")
    plain = CliRunner().invoke(main, ["trec_eval", "-m", "P.1", str(qrels), str(run)])
    judged = CliRunner().invoke(main, ["trec_eval", "-J", "-m", "P.1", str(qrels), str(run)])
    assert plain.stdout.splitlines()[-1].endswith("\t0.0000")
    assert judged.stdout.splitlines()[-1].endswith("\t1.0000")

"""Bad input: exit code 2, one line naming the file, the line and what was expected; no
traceback and nothing on stdout."""

from __future__ import annotations

import gzip

import pytest
from click.testing import CliRunner

from unjudged.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n"


def _run(tmp_path, qrels: bytes | str, run: bytes | str, *extra: str):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_bytes(qrels.encode() if isinstance(qrels, str) else qrels)
    r.write_bytes(run.encode() if isinstance(run, str) else run)
    return CliRunner().invoke(main, ["eval", str(q), str(r), "-m", "P@5", *extra])


def _one_line_error(result, *needles: str) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    err = result.stderr.strip()
    assert "\n" not in err and "Traceback" not in err
    for n in needles:
        assert n in err, err
    return err


@pytest.mark.parametrize("run,needles", [
    ("", ["run.txt", "empty file", "qid Q0 docno rank score tag"]),
    ("# only a comment\n\n", ["run.txt", "empty file"]),
    ("1 Q0 a 1 2.0 r\n1 Q0 b 2 r\n", ["run.txt:2", "expected 6 columns", "found 5"]),
    ("1 Q0 a 1 2.0 r\n1 Q0 b 2 abc r\n", ["run.txt:2", "'abc'", "not a number"]),
    ("1 Q0 a 1 nan r\n", ["run.txt:1", "'nan'", "finite"]),
    ("1 Q0 a 1 2.0 r\n\n1 Q0 b 1 inf r\n", ["run.txt:3", "finite"]),
    ("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.5 r\n1 Q0 a 3 1.0 r\n", ["run.txt:3", "'a'", "twice", "'1'"]),
    (b"1 Q0 a 1 2.0 r\n\x00\x01\x02garbage\n", ["run.txt:2", "binary"]),
    (b"1 Q0 \xff\xfe 1 2.0 r\n", ["run.txt:1", "UTF-8"]),
])
def test_bad_run(tmp_path, run, needles):
    _one_line_error(_run(tmp_path, QRELS, run), *needles)


@pytest.mark.parametrize("qrels,needles", [
    ("", ["qrels.txt", "empty file", "qid iter docno grade"]),
    ("1 0 a 1\n1 0 b\n", ["qrels.txt:2", "expected 4 columns", "found 3"]),
    ("1 0 a 1\n1 0 b 1.5\n", ["qrels.txt:2", "'1.5'", "integer"]),
    ("1 0 a 1\n1 0 b 0\n1 0 a 2\n", ["qrels.txt:3", "'a'", "different grades"]),
    ("1 0 a 1\n1 0 b 4294967297\n", ["qrels.txt:2", "4294967297", "out of range"]),
])
def test_bad_qrels(tmp_path, qrels, needles):
    _one_line_error(_run(tmp_path, qrels, RUN), *needles)


def test_missing_file(tmp_path):
    result = CliRunner().invoke(main, ["eval", str(tmp_path / "nope"), str(tmp_path / "r"),
                                       "-m", "P@5"])
    _one_line_error(result, "nope", "no such file")


def test_corrupt_gzip(tmp_path):
    data = gzip.compress(RUN.encode())[:-12]
    _one_line_error(_run(tmp_path, QRELS, data), "run.txt", "corrupt gzip")


def test_unknown_measures_all_reported_with_suggestions(tmp_path):
    result = _run(tmp_path, QRELS, RUN, "-m", "nDGC@10", "-m", "Prec@5")
    err = _one_line_error(result, "nDGC@10", "Prec@5", "did you mean")
    assert "nDCG" in err


def test_trec_eval_unknown_measure(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    result = CliRunner().invoke(main, ["trec_eval", "-m", "ndcg_cutt", str(tmp_path / "q"),
                                       str(tmp_path / "r")])
    _one_line_error(result, "ndcg_cutt", "ndcg_cut")


def test_output_file_not_half_written(tmp_path):
    out = tmp_path / "out.tsv"
    out.write_text("previous\n")
    result = _run(tmp_path, QRELS, "1 Q0 a 1 x r\n", "-o", str(out))
    assert result.exit_code == 2
    assert out.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".unjudged")] == []


def test_topics_missing_from_qrels_are_noted(tmp_path):
    result = _run(tmp_path, QRELS, RUN + "9 Q0 z 1 1.0 r\n")
    assert result.exit_code == 0
    assert "1 topic(s) not in the qrels" in result.stderr and "9" in result.stderr


def test_accepts_crlf_trailing_blanks_utf8_and_extra_columns(tmp_path):
    run = "1 Q0 a 1 2.0 r  \r\n1\tQ0\tb\t2\t1.0\tr\r\n2 Q0 c 1 1.0 r junk after tag\n"
    qrels = "1 0 a 1\r\n1 0 b 0\r\n2 0 c 1\r\n1 0 dóc 1\n"
    result = _run(tmp_path, qrels, run, "-f", "tsv")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "r\tall\tP@5\t0.2"


# --- the error tree covers the library's user-facing failures -------------------------------


def test_report_with_an_unknown_baseline_is_one_clear_error():
    """build_report once raised TypeError here (InputError called with one argument)."""
    from unjudged.analysis.report_data import build_report
    from unjudged.errors import IncompatibleInputsError
    from unjudged.io import read_qrels, read_run

    q = read_qrels({"1": {"a": 1, "b": 0}})
    runs = [read_run({"1": {"a": 2.0, "b": 1.0}}, name="x"),
            read_run({"1": {"b": 2.0, "a": 1.0}}, name="y")]
    with pytest.raises(IncompatibleInputsError) as exc:
        build_report(runs, q, ["P@1"], b=10, baseline="nosuch")
    assert str(exc.value) == "--baseline 'nosuch' is not one of the runs given"


def test_report_cli_with_an_unknown_baseline(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    result = CliRunner().invoke(main, ["report", str(q), str(r), "-m", "P@5", "-b", "10",
                                       "-j", "1", "--baseline", "nosuch",
                                       "-o", str(tmp_path / "r.html")])
    _one_line_error(result, "--baseline nosuch: not among the runs", "which are: r")
    assert not (tmp_path / "r.html").exists()


def test_invalid_options_are_project_errors_and_still_value_errors():
    import unjudged
    from unjudged.errors import InvalidOptionError, UnjudgedError
    from unjudged.policies import Policies
    from unjudged.stats.significance import paired_test

    assert issubclass(InvalidOptionError, UnjudgedError)
    assert issubclass(InvalidOptionError, ValueError)
    assert unjudged.InvalidOptionError is InvalidOptionError
    assert "InvalidOptionError" in unjudged.__all__
    with pytest.raises(InvalidOptionError, match=r"^test: expected one of t, wilcoxon"):
        paired_test([0.1, 0.2], [0.3, 0.4], test="z")
    with pytest.raises(InvalidOptionError) as exc:
        Policies(ties="score")
    assert str(exc.value) == ("ties: expected one of trec_eval, trec_eval9, docno, rank, file, "
                              "sample_eval, got 'score'")
    with pytest.raises(InvalidOptionError) as exc:
        Policies(negative="junk")
    assert str(exc.value) == "negative: expected one of unjudged, nonrel, got 'junk'"


def test_tie_and_negative_choices_are_the_policies():
    import typing

    from unjudged.policies import NAME_MODES, NEGATIVES, TIE_BREAKS, NameMode, Negative, TieBreak

    assert TIE_BREAKS == typing.get_args(TieBreak) == ("trec_eval", "trec_eval9", "docno", "rank",
                                                       "file", "sample_eval")
    assert NEGATIVES == typing.get_args(Negative) == ("unjudged", "nonrel")
    assert NAME_MODES == typing.get_args(NameMode) == ("tag", "file")


def test_measure_parameter_outside_its_choices(tmp_path):
    from unjudged.errors import MeasureSpecError
    from unjudged.measures import parse_measures

    with pytest.raises(MeasureSpecError) as exc:
        parse_measures(["nDCG(dcg='exp')@10"])
    assert str(exc.value) == ("\"nDCG(dcg='exp')@10\": nDCG's parameter dcg must be one of "
                              "'log2', 'exp-log2', "
                              "not 'exp'")
    assert parse_measures(["nDCG(dcg='exp-log2')@10"])[0].name == "nDCG(dcg='exp-log2')@10"
    _one_line_error(_run(tmp_path, QRELS, RUN, "-m", "xinfAP(smoothing=x)"),
                    "smoothing must be one of 'sample_eval', 'paper', not 'x'")


def test_integer_measures_must_be_summed():
    """A mean of counts printed as an integer would show 7.43 as "7": refused at definition."""
    import numpy as np

    from unjudged.errors import MeasureSpecError
    from unjudged.measures import MeasureSpec, families

    with pytest.raises(MeasureSpecError) as exc:
        MeasureSpec("Hits", np.sum, "Relevant documents retrieved.", integer=True)
    assert str(exc.value) == "measure Hits: integer values need aggregate=\"sum\", not 'mean'"
    with pytest.raises(MeasureSpecError, match="aggregate=\"sum\", not 'gmean'"):
        MeasureSpec("Hits", np.sum, "", integer=True, aggregate="gmean")
    with pytest.raises(MeasureSpecError, match="aggregate must be one of mean, sum, gmean"):
        MeasureSpec("Hits", np.sum, "", aggregate="median")
    assert MeasureSpec("Hits", np.sum, "", integer=True, aggregate="sum").integer
    # every registered count is summed, as trec_eval's num_ret, num_rel and num_rel_ret
    assert {s.name for s in families() if s.integer} == {
        "NumRet", "NumRel", "NumRelRet", "NumNonRelJudgedRet", "NumQ",
        "PrefsNumPrefsPoss", "PrefsNumPrefsFul", "PrefsNumPrefsFulRet"}
    assert all(s.aggregate == "sum" for s in families() if s.integer)

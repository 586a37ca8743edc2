"""Tables read by the TREC text rules, header comments, and inputs that used to crash
(issue 34, items 5, 6 and 8). The random differential test of tables against their TREC text
is tests/test_reader_differential.py::test_tables_read_as_their_trec_text_or_are_refused_alike.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import unjudged as u
from unjudged.errors import FormatError, UnjudgedWarning
from unjudged.measures._common import discount
from unjudged.measures.statistical import smooth_ideal_dcg

QRELS_CSV = "qid,docno,relevance\n1,d1,1\n1,d2,0\n"
RUN_CSV = "qid,docno,score\n1,d1,2\n1,d2,1\n"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unjudged", *args], capture_output=True,
                          text=True, timeout=300)


def one_error_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stderr
    lines = [x for x in done.stderr.splitlines() if not x.startswith("unjudged: note:")]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


# ------------------------------------------------------------- item 5: one set of rules

@pytest.mark.parametrize(("kind", "text", "message"), [
    ("run", "qid,docno,score\n1,d1,0x10\n", "score '0x10' is not a number in row 0"),
    ("run", "qid,docno,score\n1,d1,true\n1,d2,false\n", "score 'true' is not a number"),
    ("run", "qid\tdocno\tscore\n1\td1\tInfinity\n", "score 'Infinity' is not a finite"),
    ("run", "qid,docno,score\n1,d1,1e400\n", "score '1e400' is not a finite number"),
    ("run", "qid,docno,score\n1,,1\n", "empty document id in row 0"),
    ("qrels", "qid,docno,relevance\n1,d1,0x10\n", "grade '0x10' is not an integer"),
    ("qrels", "qid,docno,relevance\n1,d1,1.0\n", "grade '1.0' is not an integer"),
    ("qrels", "qid,docno,relevance\n1,d1,1e0\n", "grade '1e0' is not an integer"),
    ("qrels", "qid,docno,relevance\n1,d1,2147483648\n", "is out of range"),
    ("qrels", '{"qid": "1", "docno": "d1", "relevance": 1.0}\n', "grade '1.0' is not"),
    ("qrels", '{"qid": "1", "docno": "d1", "relevance": true}\n', "grade 'True' is not"),
    ("run", '{"qid": "1", "docno": "d1", "score": false}\n', "score False is not a number"),
    ("run", '{"qid": "1", "docno": ["d1"], "score": 1}\n', "is not text or an integer"),
])
def test_table_cells_follow_the_trec_rules(tmp_path, kind, text, message):
    path = tmp_path / (f"t.{kind}." + ("jsonl" if text.startswith("{") else
                                       "tsv" if "\t" in text else "csv"))
    path.write_text(text)
    read = u.read_run if kind == "run" else u.read_qrels
    with pytest.raises(FormatError, match=message.replace("(", r"\(")):
        read(str(path))


def test_parquet_columns_must_hold_what_trec_text_could(tmp_path):
    ids = {"qid": ["1", "1"], "docno": ["d1", "d2"]}
    cases = [
        ({**ids, "relevance": pa.array([2**64 - 1, 1], pa.uint64())}, u.read_qrels,
         "grade '18446744073709551615' is out of range"),
        ({**ids, "relevance": pa.array([1.0, 0.0])}, u.read_qrels, "grade '1.0' is not"),
        ({**ids, "score": pa.array([True, False])}, u.read_run, "score True is not a number"),
        ({"qid": ["1", "1"], "docno": pa.array([["d1"], ["d2"]]), "score": [1.0, 2.0]},
         u.read_run, r"document id \['d1'\] in column docno is not text or an integer"),
        ({"qid": pa.array([1.0, 1.0]), "docno": ["d1", "d2"], "score": [1.0, 2.0]},
         u.read_run, "query id 1.0 in column qid is not text or an integer"),
    ]
    for n, (columns, read, message) in enumerate(cases):
        path = tmp_path / f"t{n}.parquet"
        pq.write_table(pa.table(columns), path)
        with pytest.raises(FormatError, match=message):
            read(str(path))
    # what Parquet may hold: integer ids and grades, integer and float scores
    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"qid": pa.array([7, 7], pa.int64()), "docno": ["d1", "d2"],
                             "relevance": pa.array([2, 0], pa.uint8())}), good)
    assert u.read_qrels(str(good)).to_dict() == {"7": {"d1": 2, "d2": 0}}


def test_a_csv_reads_as_its_trec_text(tmp_path):
    (tmp_path / "q.csv").write_text(QRELS_CSV)
    (tmp_path / "r.csv").write_text("qid,docno,score\n1,d1,+1\n1,d2,007\n1,d3,.5e1\n")
    run = u.read_run(str(tmp_path / "r.csv"))
    assert run.docno.to_pylist() == ["d2", "d3", "d1"] and run.score.tolist() == [7, 5, 1]


# -------------------------------------------------------- item 6: header comments

def test_a_commented_header_is_skipped_with_a_note(tmp_path):
    (tmp_path / "h.run").write_text("# qid Q0 docno rank score tag\n1 Q0 d1 1 2.0 r\n"
                                    "1 Q0 d2 2 1.0 r\n2 Q0 d1 1 1 r\n")
    (tmp_path / "h.qrels").write_text("# qid docno grade\n1 0 d1 1\n2 0 d2 1\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        df = u.evaluate(str(tmp_path / "h.run"), str(tmp_path / "h.qrels"), "P@1")
    notes = [str(w.message) for w in seen if issubclass(w.category, UnjudgedWarning)]
    assert any(n.startswith(f"{tmp_path / 'h.run'}:1: skipped the comment `# qid Q0 docno")
               and "trec_eval would read it as a line of topic '#'" in n for n in notes)
    assert any(n.startswith(f"{tmp_path / 'h.qrels'}:1: skipped") for n in notes)
    # every topic keeps its own judgments (they used to collapse into topic "0")
    assert df.set_index("topic").value.to_dict() == {"1": 1.0, "2": 0.0, "all": 0.5}
    done = cli("eval", str(tmp_path / "h.qrels"), str(tmp_path / "h.run"), "-m", "P@1")
    assert done.returncode == 0 and "0.5000" in done.stdout


def test_an_ordinary_comment_gives_no_note(tmp_path):
    (tmp_path / "c.run").write_text("# bm25, k1=0.9\n1 Q0 d1 1 2.0 r\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        u.read_run(str(tmp_path / "c.run"))
    assert not [w for w in seen if issubclass(w.category, UnjudgedWarning)]


# ------------------------------------------------------ item 8: inputs that crashed

def test_a_csv_naming_a_column_twice(tmp_path):
    (tmp_path / "q.csv").write_text(QRELS_CSV)
    (tmp_path / "dup.csv").write_text("qid,docno,score,qid\n1,d1,1,2\n")
    line = one_error_line(cli("eval", str(tmp_path / "q.csv"), str(tmp_path / "dup.csv"),
                              "-m", "P@1"))
    assert line == (f"unjudged: error: {tmp_path / 'dup.csv'}:1: column 'qid' appears twice "
                    "in the header; expected each column named once")


def test_deeply_nested_json(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "q.csv").write_text(QRELS_CSV)
    (tmp_path / "r.jsonl").write_text('{"qid": "1", "docno": "d1", "score": 1}\n'
                                      f'{{"qid": "1", "docno": "d2", "score": {deep}}}\n')
    with pytest.raises(FormatError, match=r"r.jsonl:2: JSON nested too deeply"):
        u.read_run(str(tmp_path / "r.jsonl"))
    (tmp_path / "c.jsonl").write_text('{"docno": "d1", "text": "a b"}\n'
                                      f'{{"docno": "d2", "text": {deep}}}\n')
    from unjudged.text.readers import read_docs

    with pytest.raises(FormatError, match=r"c.jsonl:2: expected a JSON object"):
        read_docs(str(tmp_path / "c.jsonl"))


def test_tiny_inclusion_probabilities(tmp_path):
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d3 3 1 r\n")
    prels = tmp_path / "p.prels"
    prels.write_text("1 d1 1 1 1e-30\n1 d2 0 1 0.5\n1 d3 1 1 0.9\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        from unjudged.io.sampled import read_prels

        q = read_prels(str(prels))
    assert any("inclusion probability 1e-30 weighs one judgment as 1e+30 documents"
               in str(w.message) for w in seen)
    df = u.infer(str(run), q, ["statNDCG@10", "statAP"], level=0.95)
    values = df[df.topic == "all"].set_index("measure").value
    # 1/pi = 1e30 at rank 1 over the ideal DCG@10 of 10 relevant documents (R is about 1e30)
    assert values["statNDCG@10"] == pytest.approx(1e30 / np.sum(1 / discount(10)), rel=1e-9)
    assert np.isfinite(values["statAP"]) and np.isfinite(df.lo).all()
    for p, shown in (("1e-300", "1e-300"), ("5e-324", "5e-324")):
        prels.write_text(f"1 d1 1 1 {p}\n1 d2 0 1 0.5\n")
        line = one_error_line(cli("infer", "--prels", str(prels), str(run)))
        assert line.startswith(f"unjudged: error: {prels}:1: inclusion probability {shown} "
                               "is not in [1e-150, 1]")


def test_the_smooth_ideal_dcg_past_a_million_ranks():
    exact = float(np.sum(1 / discount(3_000_000)))
    got = float(smooth_ideal_dcg(np.array([[0.0, 3e6]]), np.array([0.0, 1.0]), None)[0])
    assert got == pytest.approx(exact, rel=1e-12)
    huge = smooth_ideal_dcg(np.array([[0.0, 1e30]]), np.array([0.0, 1.0]), None)
    assert np.isfinite(huge).all() and huge[0] > 1e27


def test_bootstrap_intervals_with_a_topic_where_nothing_is_sampled(tmp_path):
    (tmp_path / "s.qrels").write_text("1 0 d1 1 1\n1 0 d2 1 -1\n2 0 d5 1 -1\n2 0 d6 1 -1\n")
    (tmp_path / "r.run").write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n2 Q0 d9 1 1 r\n")
    df = u.infer(str(tmp_path / "r.run"), str(tmp_path / "s.qrels"), ["xinfAP", "iP@10"],
                 level=0.95, method="bootstrap", b=50)
    two = df[df.topic == "2"]
    assert two.value.tolist() == [0.0, 0.0] and two.lo.tolist() == [0.0, 0.0] \
        and two.hi.tolist() == [0.0, 0.0]


def test_the_text_prior_on_a_one_document_corpus(tmp_path):
    (tmp_path / "c.jsonl").write_text('{"docno": "d1", "text": "hello world"}\n')
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n")
    done = cli("estimate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@2", "-b", "20",
               "--prior", "text", "--corpus", str(tmp_path / "c.jsonl"), "-j", "1")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and " all " in done.stdout


"""Readers: files in every accepted shape, compression, stdin, dicts and DataFrames, ties."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import sys

import pandas as pd
import pytest

import unjudged
from unjudged.io import read_qrels, read_run

RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n"


@pytest.mark.parametrize("compress", [lambda b: b, gzip.compress, bz2.compress, lzma.compress])
def test_compressed_runs_read_alike(tmp_path, compress):
    p = tmp_path / "run.any"
    p.write_bytes(compress(RUN.encode()))
    run = read_run(p)
    assert run.name == "r" and run.topics == ["1", "2"]
    assert run.docno.to_pylist() == ["a", "b", "c"]
    assert run.offsets.tolist() == [0, 2, 3]


def test_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RUN.encode())))
    assert read_run("-").docno.to_pylist() == ["a", "b", "c"]


def test_topics_sorted_by_bytes_and_ranked_by_score(tmp_path):
    p = tmp_path / "r"
    p.write_text("10 Q0 x 1 1.0 t\n9 Q0 y 1 1.0 t\n10 Q0 z 2 5.0 t\n")
    run = read_run(p)
    assert run.topics == ["10", "9"]  # strcmp order, as trec_eval
    assert run.docno.to_pylist() == ["z", "x", "y"]


@pytest.mark.parametrize("ties,expected", [
    ("trec_eval", ["b", "c", "a"]),  # score desc, then docno descending
    ("docno", ["b", "a", "c"]),
    ("rank", ["a", "c", "b"]),
    ("file", ["c", "a", "b"]),
])
def test_tie_policies(tmp_path, ties, expected):
    p = tmp_path / "r"
    p.write_text("1 Q0 c 2 1.0 t\n1 Q0 a 1 1.0 t\n1 Q0 b 3 2.0 t\n")
    assert read_run(p, ties=ties).docno.to_pylist() == expected


def test_run_from_dict_and_dataframe_agree():
    d = {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}}
    df = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
                       "score": [2.0, 1.0, 1.0]})
    assert read_run(d).to_dict() == read_run(df).to_dict() == d


def test_qrels_from_file_dict_and_dataframe(tmp_path):
    p = tmp_path / "q"
    p.write_text("# comment\n1 0 a 1\n1 0 b 0\n\n2 0 c -1\n1 0 a 1\n")
    expected = {"1": {"a": 1, "b": 0}, "2": {"c": -1}}
    assert read_qrels(p).to_dict() == expected
    assert read_qrels(expected).to_dict() == expected
    df = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
                       "relevance": [1, 0, -1]})
    assert read_qrels(df).to_dict() == expected


def test_subtopic_qrels_give_highest_grade_to_ad_hoc_measures():
    q = read_qrels(pd.DataFrame({"query_id": ["1", "1"], "subtopic": ["1", "2"],
                                 "doc_id": ["a", "a"], "relevance": [0, 2]}))
    assert q.to_dict() == {"1": {"a": 2}}


def test_evaluate_tidy_frame():
    df = unjudged.evaluate({"1": {"a": 2.0, "x": 1.0}}, {"1": {"a": 1, "b": 1}},
                           ["P@2", "R@2", "Judged@2"])
    assert list(df.columns) == ["run", "topic", "measure", "value"]
    rows = {(r.topic, r.measure): r.value for r in df.itertuples()}
    assert rows[("1", "P@2")] == 0.5 and rows[("all", "R@2")] == 0.5
    assert rows[("all", "Judged@2")] == 0.5


def test_negative_grade_policy():
    qrels = {"1": {"a": -2, "b": 1}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    default = unjudged.evaluate(run, qrels, ["Judged@2", "Bpref"], per_topic=False)
    nonrel = unjudged.evaluate(run, qrels, ["Judged@2", "Bpref"], per_topic=False,
                               negative="nonrel")
    assert default.value.tolist() == [0.5, 1.0]  # -2 = pooled but unjudged: skipped by bpref
    assert nonrel.value.tolist() == [1.0, 0.0]  # -2 = judged non-relevant ranked above b


def test_complete_averages_over_all_qrels_topics():
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}}
    assert unjudged.evaluate(run, qrels, "P@1", per_topic=False).value[0] == 1.0
    assert unjudged.evaluate(run, qrels, "P@1", per_topic=False, complete=True).value[0] == 0.5


def test_ties_fixed_in_place_when_scores_already_descend(tmp_path):
    p = tmp_path / "r"
    p.write_text("1 Q0 b 1 2.0 t\n1 Q0 c 2 1.0 t\n1 Q0 a 3 1.0 t\n1 Q0 d 4 1.0 t\n"
                 "1 Q0 e 5 0.5 t\n2 Q0 y 1 1.0 t\n2 Q0 z 2 1.0 t\n")
    assert read_run(p).docno.to_pylist() == ["b", "d", "c", "a", "e", "z", "y"]
    assert read_run(p, ties="docno").docno.to_pylist() == ["b", "a", "c", "d", "e", "y", "z"]


def test_text_streams_read_like_byte_streams():
    """A StringIO (or any text stream) is one input, read as UTF-8, like a BytesIO."""
    import io

    run, qrels = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n", "1 0 a 1\n1 0 b 0\n"
    assert read_run(io.StringIO(run)).name == "t"
    assert read_qrels(io.StringIO(qrels)).topics == read_qrels(io.BytesIO(qrels.encode())).topics
    from_text = unjudged.evaluate(io.StringIO(run), io.StringIO(qrels), ["P@2", "AP"])
    from_bytes = unjudged.evaluate(io.BytesIO(run.encode()), io.BytesIO(qrels.encode()),
                                   ["P@2", "AP"])
    assert from_text.equals(from_bytes)
    assert from_text[from_text.topic == "all"].value.tolist() == [0.5, 1.0]


# ---- issue 19, item 3: the inputs people have -------------------------------------------------

from collections import namedtuple  # noqa: E402

from click.testing import CliRunner  # noqa: E402

from unjudged.cli import main  # noqa: E402
from unjudged.errors import FormatError, InputError  # noqa: E402

ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")
TREC_QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 c 1\n2 0 d 0\n"
TREC_RUN = "1 Q0 a 1 2.0 r\n1 Q0 x 2 1.5 r\n1 Q0 c 3 1.0 r\n2 Q0 d 1 1.0 r\n2 Q0 c 2 0.5 r\n"
ROWS = [(f[0], f[2], float(f[4])) for f in (line.split() for line in TREC_RUN.splitlines())]
JUDGED = [(f[0], f[2], int(f[3])) for f in (line.split() for line in TREC_QRELS.splitlines())]
MEASURES = ["P@2", "nDCG@3", "AP", "RR"]


def _values(run, qrels):
    df = unjudged.evaluate(run, qrels, MEASURES, per_topic=True)
    return df[["topic", "measure", "value"]].values.tolist()


@pytest.fixture
def reference(tmp_path):
    (tmp_path / "run.txt").write_text(TREC_RUN)
    (tmp_path / "qrels.txt").write_text(TREC_QRELS)
    return _values(str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt"))


def test_namedtuples_iterators_and_ir_measures_records(reference):
    ir_measures = pytest.importorskip("ir_measures")
    runs = [[ScoredDoc(*r) for r in ROWS], iter([ir_measures.ScoredDoc(*r) for r in ROWS]),
            (r for r in ROWS), [dict(zip(("qid", "docno", "score"), r, strict=True))
                                 for r in ROWS]]
    qrels = [[Qrel(*j, "0") for j in JUDGED], iter([ir_measures.Qrel(*j) for j in JUDGED]),
             list(JUDGED), [dict(zip(("qid", "docno", "label"), j, strict=True))
                            for j in JUDGED]]
    for run, q in zip(runs, qrels, strict=True):
        assert _values(run, q) == reference
    run = read_run([ScoredDoc(*r) for r in ROWS])
    assert run.name == "run" and run.topics == ["1", "2"]
    assert read_qrels(iter([Qrel(*j, "0") for j in JUDGED])).to_dict()["1"] == {
        "a": 1, "b": 0, "c": 2}


def test_records_of_the_wrong_shape_say_what_is_expected():
    Other = namedtuple("Other", "query_id text")
    with pytest.raises(FormatError, match="no doc_id .*fields: query_id, text"):
        read_run([Other("1", "x")])
    with pytest.raises(FormatError, match="record 1 .* is not like the first"):
        read_run([ScoredDoc("1", "a", 1.0), ("1",)])
    with pytest.raises(FormatError, match="score 'high' is not a number"):
        read_run([ScoredDoc("1", "a", "high")])


class _Dataset:
    """Anything with qrels_iter() / scoreddocs_iter(), like an ir_datasets dataset."""

    def qrels_iter(self):
        return (Qrel(*j, "0") for j in JUDGED)

    def scoreddocs_iter(self):
        return (ScoredDoc(*r) for r in ROWS)


def test_ir_datasets_like_objects(reference):
    assert _values(_Dataset(), _Dataset()) == reference
    assert read_run(_Dataset()).name == "<_Dataset>"


HEADERS = {
    "ir_measures": (("query_id", "doc_id", "score"), ("query_id", "doc_id", "relevance")),
    "pyterrier": (("qid", "docno", "score"), ("qid", "docno", "label")),
}


def _write_table(path, kind, columns, rows):
    frame = pd.DataFrame([list(r) for r in rows], columns=list(columns))
    if kind == "csv":
        frame.to_csv(path, index=False)
    elif kind == "tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif kind == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path, index=False)


@pytest.mark.parametrize("names", sorted(HEADERS))
@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "parquet"])
def test_tables_with_a_header(tmp_path, reference, kind, names):
    run_cols, qrels_cols = HEADERS[names]
    suffix = {"csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl", "parquet": ".parquet"}[kind]
    run, qrels = tmp_path / f"mine{suffix}", tmp_path / f"judged{suffix}"
    _write_table(run, kind, run_cols, ROWS)
    _write_table(qrels, kind, qrels_cols, JUDGED)
    assert _values(str(run), str(qrels)) == reference
    assert read_run(run).name == f"mine{suffix}"
    # the same file under a name that says nothing: found by its header (or magic bytes)
    plain = tmp_path / "plain.dat"
    plain.write_bytes(run.read_bytes())
    assert _values(str(plain), str(qrels)) == reference


def test_table_ids_keep_their_zeros_and_compressed_tables_read(tmp_path):
    (tmp_path / "r.csv.gz").write_bytes(gzip.compress(b"qid,docno,score\n001,d1,2\n001,d2,3\n"))
    run = read_run(tmp_path / "r.csv.gz")
    assert run.topics == ["001"] and run.docno.to_pylist() == ["d2", "d1"]


def test_a_file_of_neither_format_names_both(tmp_path):
    (tmp_path / "x.csv").write_text("query,document,value\n1,a,2\n")
    with pytest.raises(FormatError) as err:
        read_run(tmp_path / "x.csv")
    msg = str(err.value)
    assert "neither TREC (`qid Q0 docno rank score tag` lines)" in msg
    assert "CSV, TSV, JSONL or Parquet" in msg and "qid, docno and score" in msg
    (tmp_path / "q.tsv").write_text("topic\tdoc\tjudgment\n1\ta\t1\n")  # no relevance
    with pytest.raises(FormatError, match=r"q.tsv: no relevance column .*columns: topic, doc, "
                       "judgment"):
        read_qrels(tmp_path / "q.tsv")


def test_tables_in_directories_are_runs(tmp_path, reference):
    (tmp_path / "runs").mkdir()
    _write_table(tmp_path / "runs" / "a.csv", "csv", ("qid", "docno", "score"), ROWS)
    (tmp_path / "qrels.txt").write_text(TREC_QRELS)
    df = unjudged.evaluate(str(tmp_path / "runs"), str(tmp_path / "qrels.txt"), "P@2")
    assert set(df.run) == {"a.csv"}


# ---- ir_datasets ids ------------------------------------------------------------------------

@pytest.fixture
def fake_dataset(tmp_path):
    """A dataset registered in ir_datasets' own registry, its files in a local 'cache'."""
    ir_datasets = pytest.importorskip("ir_datasets")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecScoredDocs
    from ir_datasets.util import Download

    (tmp_path / "qrels").write_text(TREC_QRELS)
    (tmp_path / "run").write_text(TREC_RUN)
    missing = tmp_path / "not-downloaded"
    registry = ir_datasets.registry._registered
    names = {"unjudged-test/cached": Dataset(
        TrecQrels(Download([], cache_path=str(tmp_path / "qrels")), {}),
        TrecScoredDocs(Download([], cache_path=str(tmp_path / "run")))),
        "unjudged-test/missing": Dataset(TrecQrels(Download([], cache_path=str(missing)), {}))}
    registry.update(names)
    yield tmp_path
    for n in names:
        registry.pop(n, None)


def test_irds_ids_in_the_api_and_on_the_command_line(fake_dataset, reference):
    assert _values("irds:unjudged-test/cached", "irds:unjudged-test/cached") == reference
    (fake_dataset / "run.txt").write_text(TREC_RUN)
    res = CliRunner().invoke(main, ["eval", "irds:unjudged-test/cached",
                                    str(fake_dataset / "run.txt"), "-m", "P@2"])
    assert res.exit_code == 0, res.output
    assert res.output.split() == ["run", "P@2", "r", "0.5000"]


def test_irds_errors_are_one_line(fake_dataset, monkeypatch):
    run = str(fake_dataset / "run")
    res = CliRunner().invoke(main, ["eval", "irds:unjudged-test/missing", run, "-m", "P@2"])
    assert res.exit_code == 2
    line = res.output.strip()
    assert "\n" not in line and "not in ir_datasets' cache" in line and "downloaded" in line
    with pytest.raises(InputError, match="ir_datasets has no dataset 'no/such'"):
        read_qrels("irds:no/such")
    with pytest.raises(InputError, match="provides no scoreddocs"):
        read_run("irds:unjudged-test/missing")
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # not installed
    res = CliRunner().invoke(main, ["eval", "irds:unjudged-test/cached", run, "-m", "P@2"])
    assert res.exit_code == 2 and "needs ir_datasets (pip install ir_datasets)" in res.output


def test_a_list_of_runs_is_runs_not_records():
    """Run objects have a docno column, yet a list of them is a list of runs."""
    a = read_run({"1": {"a": 2.0, "b": 1.0}}, name="A")
    b = read_run({"1": {"a": 1.0, "b": 2.0}}, name="B")
    df = unjudged.evaluate([a, b], {"1": {"a": 1}}, ["AP"], per_topic=False)
    assert df[["run", "value"]].values.tolist() == [["A", 1.0], ["B", 0.5]]


def test_score_frees_each_streamed_run_before_the_next():
    """score() takes an iterator of runs one at a time: a run read from a file is gone by the
    time the next is asked for (eval on 10 runs of 250k lines held all ten: 175 -> 112 MiB);
    an item that is not a Run still gets run_objects' error."""
    import gc
    import weakref

    from unjudged.errors import InvalidOptionError

    qrels = read_qrels({"1": {"a": 1, "b": 0}})
    measures = unjudged.parse_measures(["P@2"])
    alive = []

    def runs():
        for i in range(3):
            gc.collect()
            alive.append(sum(r() is not None for r in refs))
            run = read_run({"1": {"a": 2.0, "b": float(i)}}, name=f"r{i}")
            refs.append(weakref.ref(run))
            yield run
            del run

    refs: list = []
    results = unjudged.score(runs(), qrels, measures)
    assert alive == [0, 0, 0]
    assert [r.run for r in results.runs] == ["r0", "r1", "r2"]
    assert [float(r.values[0, 0]) for r in results.runs] == [0.5, 0.5, 0.5]
    with pytest.raises(InvalidOptionError, match="score: expected Runs"):
        unjudged.score(iter([read_run({"1": {"a": 1.0}}), "not a run"]), qrels, measures)

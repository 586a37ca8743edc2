"""Issue 32 item 14: unjudged.write_run / write_qrels (TREC text, atomic), Run.to_frame /
Qrels.to_frame (ir_measures' columns), and ranx's Run / Qrels objects as inputs."""

from __future__ import annotations

import os

import pytest

import unjudged
from unjudged.data.examples import example_paths
from unjudged.errors import InputError

QRELS, RUNS = example_paths()


class FakeRanxRun:
    """ranx.Run's interface as unjudged uses it: a name and to_dict() (a defaultdict of dicts;
    ranx sorts each ranking by score, descending)."""

    def __init__(self, run: dict, name: str | None = None) -> None:
        self.run, self.name = run, name

    def to_dict(self):
        from collections import defaultdict

        out: defaultdict = defaultdict(dict)
        for q, docs in self.run.items():
            out[q] = dict(sorted(docs.items(), key=lambda x: -x[1]))
        return out

    def __getitem__(self, q):
        return dict(self.run[q])

    def __len__(self) -> int:
        return len(self.run)


class FakeRanxQrels(FakeRanxRun):
    pass


def test_write_run_exact_text_and_round_trip(tmp_path):
    run = unjudged.read_run({"2": {"b": 0.25, "a": 1}, "10": {"c": 3e20, "d": -0.5}},
                            name="bm25")
    path = tmp_path / "out.run"
    unjudged.write_run(run, path)
    assert path.read_text() == ("10 Q0 c 1 3e+20 bm25\n10 Q0 d 2 -0.5 bm25\n"
                                "2 Q0 a 1 1 bm25\n2 Q0 b 2 0.25 bm25\n")
    back = unjudged.read_run(str(path))
    assert back.name == "bm25" and back.to_dict() == run.to_dict()
    unjudged.write_run(run, path, tag="other")
    assert path.read_text().splitlines()[0] == "10 Q0 c 1 3e+20 other"


def test_shipped_run_and_qrels_round_trip_exactly(tmp_path):
    """Every line of a real run (1,000 per topic) and of qrels-rnd1 survives a round trip:
    same rankings, scores equal as doubles, same judgments, same scores under trec_eval's
    measures."""
    run = unjudged.read_run(RUNS[-1])  # udel_fang_run1
    q = unjudged.read_qrels(QRELS)
    unjudged.write_run(run, tmp_path / "r.txt")
    unjudged.write_qrels(q, tmp_path / "q.txt")
    back, qback = unjudged.read_run(str(tmp_path / "r.txt")), unjudged.read_qrels(
        str(tmp_path / "q.txt"))
    assert len(back) == len(run) == 30_000
    assert back.topics == run.topics and back.name == run.name
    assert back.docno.equals(run.docno) and (back.score == run.score).all()
    assert qback.to_dict() == q.to_dict() and len(qback) == len(q) == 8_691
    ms = ["nDCG@10", "AP", "Bpref", "P@5"]
    a = unjudged.evaluate(run, q, ms, per_topic=False)
    b = unjudged.evaluate(back, qback, ms, per_topic=False)
    assert a["value"].tolist() == b["value"].tolist()


def test_write_qrels_sorted_text(tmp_path):
    path = tmp_path / "q.txt"
    unjudged.write_qrels({"2": {"b": 0, "a": 1}, "10": {"c": 2}}, path)
    assert path.read_text() == "10 0 c 2\n2 0 a 1\n2 0 b 0\n"


def test_writers_refuse_what_would_not_read_back(tmp_path):
    with pytest.raises(InputError, match="run tag 'my run' cannot be written as TREC text"):
        unjudged.write_run(unjudged.read_run({"1": {"a": 1}}, name="my run"), tmp_path / "x")
    with pytest.raises(InputError, match="document id 'a b' cannot be written as TREC text"):
        unjudged.write_run({"1": {"a b": 1.0}}, tmp_path / "x")
    with pytest.raises(InputError, match="topic '#1' cannot be written as TREC text"):
        unjudged.write_qrels({"#1": {"a": 1}}, tmp_path / "x")
    assert not (tmp_path / "x").exists()  # nothing half-written


def test_write_is_atomic_over_an_existing_file(tmp_path, monkeypatch):
    """A failure while writing leaves the old file whole (io/atomic.py's temporary file)."""
    path = tmp_path / "r.txt"
    path.write_text("old\n")
    import unjudged.io.write as w

    def broken(run, tag=None):
        raise OSError("disk full")

    monkeypatch.setattr(w, "format_run", broken)
    with pytest.raises(OSError):
        w.write_run({"1": {"a": 1.0}}, path)
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["r.txt"]


def test_to_frame_columns_and_round_trip():
    run = unjudged.read_run(RUNS[0])
    frame = run.to_frame()
    assert list(frame.columns) == ["query_id", "doc_id", "score"]
    assert len(frame) == len(run)
    assert frame.iloc[0].tolist() == [run.topics[0], run.docno[0].as_py(), run.score[0]]
    back = unjudged.read_run(frame, name=run.name)
    assert back.to_dict() == run.to_dict()
    assert back.docno.to_pylist() == run.docno.to_pylist()
    q = unjudged.read_qrels(QRELS)
    qf = q.to_frame()
    assert list(qf.columns) == ["query_id", "doc_id", "relevance", "iteration"]
    assert len(qf) == 8_691 and sorted(qf["relevance"].unique().tolist()) == [0, 1, 2]
    assert unjudged.read_qrels(qf).to_dict() == q.to_dict()


def test_to_frame_is_what_ir_measures_reads():
    ir_measures = pytest.importorskip("ir_measures")
    q = unjudged.read_qrels(QRELS)
    run = unjudged.read_run(RUNS[2])  # run1
    ours = unjudged.evaluate(run, q, ["P@5"], per_topic=False)["value"].iloc[0]
    theirs = ir_measures.calc_aggregate([ir_measures.P @ 5], q.to_frame(), run.to_frame())
    assert theirs[ir_measures.P @ 5] == pytest.approx(ours, abs=1e-12)


def test_ranx_like_objects_are_read():
    fake = FakeRanxRun({"q1": {"d1": 1.5, "d2": 2.5}, "q2": {"d3": 0.5}}, name="bm25")
    run = unjudged.read_run(fake)
    assert run.name == "bm25" and run.topics == ["q1", "q2"]
    assert run.docno.to_pylist() == ["d2", "d1", "d3"]
    assert unjudged.read_run(FakeRanxRun({"q1": {"d1": 1.0}})).name == "run"
    q = unjudged.read_qrels(FakeRanxQrels({"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}))
    assert q.to_dict() == {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    res = unjudged.evaluate(fake, FakeRanxQrels({"q1": {"d1": 1}, "q2": {"d3": 1}}),
                            ["P@1", "RR"], per_topic=False)
    assert res.set_index("measure")["value"].to_dict() == {"P@1": 0.5, "RR": 0.75}
    two = unjudged.evaluate([fake, FakeRanxRun({"q1": {"d1": 1.0}}, name="other")],
                            {"q1": {"d1": 1}}, ["P@1"], per_topic=False)
    assert two[["run", "value"]].values.tolist() == [["bm25", 0.0], ["other", 1.0]]


def test_write_run_from_a_ranx_like_object(tmp_path):
    unjudged.write_run(FakeRanxRun({"q1": {"d1": 1.5, "d2": 2.5}}, name="bm25"),
                       tmp_path / "r.txt")
    assert (tmp_path / "r.txt").read_text() == "q1 Q0 d2 1 2.5 bm25\nq1 Q0 d1 2 1.5 bm25\n"


def test_real_ranx_objects():
    ranx = pytest.importorskip("ranx")
    run = ranx.Run({"q1": {"d1": 1.5, "d2": 2.5}, "q2": {"d3": 0.5}}, name="bm25")
    qrels = ranx.Qrels({"q1": {"d1": 1}, "q2": {"d3": 2}})
    ours = unjudged.read_run(run)
    assert ours.name == "bm25" and ours.docno.to_pylist() == ["d2", "d1", "d3"]
    assert unjudged.read_qrels(qrels).to_dict() == {"q1": {"d1": 1}, "q2": {"d3": 2}}
    value = unjudged.evaluate(run, qrels, ["RR"], per_topic=False)["value"].iloc[0]
    assert value == pytest.approx(ranx.evaluate(qrels, run, "mrr"))

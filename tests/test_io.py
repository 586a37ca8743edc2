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
